from enum import StrEnum


class Color(StrEnum):
    BEIGE = "beige"
    BLACK = "black"
    BLUE = "blue"
    BROWN = "brown"
    BURGUNDY = "burgundy"
    GOLD = "gold"
    GRAY = "gray"
    GREEN = "green"
    ORANGE = "orange"
    PURPLE = "purple"
    RED = "red"
    SILVER = "silver"
    TAN = "tan"
    WHITE = "white"
    YELLOW = "yellow"

    def __str__(self) -> str:
        return str(self.value)
