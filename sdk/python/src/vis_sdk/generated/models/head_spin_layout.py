from enum import StrEnum


class HeadSpinLayout(StrEnum):
    ANIMATION = "animation"
    SPRITE = "sprite"

    def __str__(self) -> str:
        return str(self.value)
