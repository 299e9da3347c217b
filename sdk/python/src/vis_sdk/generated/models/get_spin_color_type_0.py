from enum import StrEnum


class GetSpinColorType0(StrEnum):
    BEIGE = "beige"
    BLACK = "black"
    BLUE = "blue"
    BROWN = "brown"
    BURGUNDY = "burgundy"
    GOLD = "gold"
    GRAY = "gray"
    GREEN = "green"
    GREY = "grey"
    ORANGE = "orange"
    PURPLE = "purple"
    RED = "red"
    SILVER = "silver"
    TAN = "tan"
    WHITE = "white"
    YELLOW = "yellow"

    def __str__(self) -> str:
        return str(self.value)
