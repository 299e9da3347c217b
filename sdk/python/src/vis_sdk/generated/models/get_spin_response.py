from enum import StrEnum


class GetSpinResponse(StrEnum):
    IMAGE = "image"
    MANIFEST = "manifest"

    def __str__(self) -> str:
        return str(self.value)
