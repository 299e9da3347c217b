from enum import StrEnum


class FormatChoice(StrEnum):
    AUTO = "auto"
    AVIF = "avif"
    JPG = "jpg"
    PNG = "png"
    WEBP = "webp"

    def __str__(self) -> str:
        return str(self.value)
