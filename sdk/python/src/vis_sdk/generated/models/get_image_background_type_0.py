from enum import StrEnum


class GetImageBackgroundType0(StrEnum):
    NONE = "none"
    STUDIO = "studio"
    TRANSPARENT = "transparent"
    WHITE = "white"

    def __str__(self) -> str:
        return str(self.value)
