from enum import StrEnum


class HeadLegacyImageFinish(StrEnum):
    METALLIC = "metallic"
    PEARL = "pearl"
    SOLID = "solid"

    def __str__(self) -> str:
        return str(self.value)
