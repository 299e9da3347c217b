from enum import StrEnum


class View(StrEnum):
    ANGLE_0 = "angle-0"
    ANGLE_105 = "angle-105"
    ANGLE_120 = "angle-120"
    ANGLE_135 = "angle-135"
    ANGLE_15 = "angle-15"
    ANGLE_150 = "angle-150"
    ANGLE_165 = "angle-165"
    ANGLE_180 = "angle-180"
    ANGLE_195 = "angle-195"
    ANGLE_210 = "angle-210"
    ANGLE_225 = "angle-225"
    ANGLE_240 = "angle-240"
    ANGLE_255 = "angle-255"
    ANGLE_270 = "angle-270"
    ANGLE_285 = "angle-285"
    ANGLE_30 = "angle-30"
    ANGLE_300 = "angle-300"
    ANGLE_315 = "angle-315"
    ANGLE_330 = "angle-330"
    ANGLE_345 = "angle-345"
    ANGLE_45 = "angle-45"
    ANGLE_60 = "angle-60"
    ANGLE_75 = "angle-75"
    ANGLE_90 = "angle-90"
    FRONT = "front"
    FRONT_3_4 = "front-3-4"
    REAR = "rear"
    REAR_3_4 = "rear-3-4"
    SIDE = "side"
    SIDE_RIGHT = "side-right"
    TOP = "top"

    def __str__(self) -> str:
        return str(self.value)
