from enum import StrEnum


class HeadSpinScale(StrEnum):
    FILL = "fill"
    RELATIVE = "relative"

    def __str__(self) -> str:
        return str(self.value)
