from enum import IntEnum


class CheckoutRequestCredits(IntEnum):
    VALUE_5000 = 5000
    VALUE_10000 = 10000
    VALUE_25000 = 25000
    VALUE_100000 = 100000

    def __str__(self) -> str:
        return str(self.value)
