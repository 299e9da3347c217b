from enum import StrEnum


class GetImageFit(StrEnum):
    CONTAIN = "contain"
    COVER = "cover"

    def __str__(self) -> str:
        return str(self.value)
