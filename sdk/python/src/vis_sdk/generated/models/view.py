from enum import StrEnum


class View(StrEnum):
    FRONT = "front"
    FRONT_3_4 = "front-3-4"
    REAR = "rear"
    REAR_3_4 = "rear-3-4"
    SIDE = "side"
    SIDE_RIGHT = "side-right"

    def __str__(self) -> str:
        return str(self.value)
