from enum import StrEnum


class GetImageResponse(StrEnum):
    IMAGE = "image"
    URL = "url"

    def __str__(self) -> str:
        return str(self.value)
