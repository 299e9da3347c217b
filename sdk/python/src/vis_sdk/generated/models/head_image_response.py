from enum import StrEnum


class HeadImageResponse(StrEnum):
    IMAGE = "image"
    URL = "url"

    def __str__(self) -> str:
        return str(self.value)
