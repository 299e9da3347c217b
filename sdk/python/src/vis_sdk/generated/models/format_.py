from enum import StrEnum


class Format(StrEnum):
    AVIF = "avif"
    JPG = "jpg"
    PNG = "png"
    WEBP = "webp"

    def __str__(self) -> str:
        return str(self.value)
