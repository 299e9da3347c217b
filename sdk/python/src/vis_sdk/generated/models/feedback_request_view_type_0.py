from enum import StrEnum


class FeedbackRequestViewType0(StrEnum):
    BACK = "back"
    FRONT = "front"
    FRONT34 = "front34"
    FRONT_3_4 = "front-3-4"
    HERO = "hero"
    PROFILE = "profile"
    REAR = "rear"
    REAR34 = "rear34"
    REAR_3_4 = "rear-3-4"
    SIDE = "side"
    SIDE_LEFT = "side-left"
    SIDE_R = "side-r"
    SIDE_RIGHT = "side-right"

    def __str__(self) -> str:
        return str(self.value)
