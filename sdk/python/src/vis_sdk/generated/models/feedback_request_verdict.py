from enum import StrEnum


class FeedbackRequestVerdict(StrEnum):
    BAD = "bad"
    GOOD = "good"

    def __str__(self) -> str:
        return str(self.value)
