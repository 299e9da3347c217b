from enum import StrEnum


class HeadLegacyImageSize(StrEnum):
    LARGE = "large"
    MEDIUM = "medium"
    SMALL = "small"
    THUMB = "thumb"

    def __str__(self) -> str:
        return str(self.value)
