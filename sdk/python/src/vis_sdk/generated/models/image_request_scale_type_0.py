from enum import StrEnum


class ImageRequestScaleType0(StrEnum):
    FILL = "fill"
    RELATIVE = "relative"

    def __str__(self) -> str:
        return str(self.value)
