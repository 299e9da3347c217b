from enum import StrEnum


class GetSpinScale(StrEnum):
    FILL = "fill"
    RELATIVE = "relative"

    def __str__(self) -> str:
        return str(self.value)
