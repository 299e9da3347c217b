from enum import StrEnum


class HitKind(StrEnum):
    MAKE = "make"
    MODEL = "model"

    def __str__(self) -> str:
        return str(self.value)
