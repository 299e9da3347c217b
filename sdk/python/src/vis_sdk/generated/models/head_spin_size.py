from enum import StrEnum


class HeadSpinSize(StrEnum):
    SMALL = "small"
    THUMB = "thumb"

    def __str__(self) -> str:
        return str(self.value)
