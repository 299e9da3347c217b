from enum import StrEnum


class HeadLegacyImageFit(StrEnum):
    CONTAIN = "contain"
    COVER = "cover"

    def __str__(self) -> str:
        return str(self.value)
