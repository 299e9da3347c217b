from enum import StrEnum


class ScopeName(StrEnum):
    ACCOUNTREAD = "account:read"
    BILLINGWRITE = "billing:write"
    IMAGESREAD = "images:read"

    def __str__(self) -> str:
        return str(self.value)
