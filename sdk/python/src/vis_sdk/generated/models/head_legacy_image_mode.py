from enum import StrEnum


class HeadLegacyImageMode(StrEnum):
    CACHED = "cached"

    def __str__(self) -> str:
        return str(self.value)
