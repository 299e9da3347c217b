from enum import StrEnum


class GetSpinFinish(StrEnum):
    METALLIC = "metallic"
    PEARL = "pearl"
    SOLID = "solid"

    def __str__(self) -> str:
        return str(self.value)
