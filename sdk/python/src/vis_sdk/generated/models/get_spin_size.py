from enum import StrEnum


class GetSpinSize(StrEnum):
    SMALL = "small"
    THUMB = "thumb"

    def __str__(self) -> str:
        return str(self.value)
