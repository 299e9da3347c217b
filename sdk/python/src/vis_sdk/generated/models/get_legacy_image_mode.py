from enum import StrEnum


class GetLegacyImageMode(StrEnum):
    CACHED = "cached"

    def __str__(self) -> str:
        return str(self.value)
