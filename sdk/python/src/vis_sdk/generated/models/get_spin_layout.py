from enum import StrEnum


class GetSpinLayout(StrEnum):
    ANIMATION = "animation"
    SPRITE = "sprite"

    def __str__(self) -> str:
        return str(self.value)
