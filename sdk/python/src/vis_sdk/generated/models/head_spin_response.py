from enum import StrEnum


class HeadSpinResponse(StrEnum):
    IMAGE = "image"
    MANIFEST = "manifest"

    def __str__(self) -> str:
        return str(self.value)
