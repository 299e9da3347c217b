from enum import StrEnum


class HeadLegacyImageFormat(StrEnum):
    AUTO = "auto"
    AVIF = "avif"
    JPEG = "jpeg"
    JPG = "jpg"
    PNG = "png"
    WEBP = "webp"

    def __str__(self) -> str:
        return str(self.value)
