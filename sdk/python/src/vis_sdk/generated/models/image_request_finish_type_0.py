from enum import StrEnum


class ImageRequestFinishType0(StrEnum):
    METALLIC = "metallic"
    PEARL = "pearl"
    SOLID = "solid"

    def __str__(self) -> str:
        return str(self.value)
