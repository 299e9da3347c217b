from enum import StrEnum


class FeedbackRequestVerdictType0(StrEnum):
    BAD = "bad"
    GOOD = "good"

    def __str__(self) -> str:
        return str(self.value)
