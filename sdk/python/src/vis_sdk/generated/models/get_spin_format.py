from enum import StrEnum


class GetSpinFormat(StrEnum):
    AUTO = "auto"
    AVIF = "avif"
    JPEG = "jpeg"
    JPG = "jpg"
    PNG = "png"
    WEBP = "webp"

    def __str__(self) -> str:
        return str(self.value)
