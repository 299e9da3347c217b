from enum import StrEnum


class HeadSpinFinish(StrEnum):
    METALLIC = "metallic"
    PEARL = "pearl"
    SOLID = "solid"

    def __str__(self) -> str:
        return str(self.value)
