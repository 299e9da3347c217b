from enum import StrEnum


class ImageRequestFitType0(StrEnum):
    CONTAIN = "contain"
    COVER = "cover"

    def __str__(self) -> str:
        return str(self.value)
