from enum import StrEnum


class MatchKind(StrEnum):
    CONTAINS = "contains"
    EXACT = "exact"
    FUZZY = "fuzzy"
    PREFIX = "prefix"
    TOKEN = "token"

    def __str__(self) -> str:
        return str(self.value)
