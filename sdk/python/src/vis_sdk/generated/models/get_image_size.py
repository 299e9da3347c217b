from enum import StrEnum


class GetImageSize(StrEnum):
    LARGE = "large"
    MEDIUM = "medium"
    SMALL = "small"
    THUMB = "thumb"

    def __str__(self) -> str:
        return str(self.value)
