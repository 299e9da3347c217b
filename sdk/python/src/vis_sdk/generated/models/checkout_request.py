from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.checkout_request_credits import CheckoutRequestCredits

T = TypeVar("T", bound="CheckoutRequest")


@_attrs_define
class CheckoutRequest:
    """
    Attributes:
        credits_ (CheckoutRequestCredits): The pack: 5000 ($5), 10000 ($10), 25000 ($25) or 100000 ($100).
    """

    credits_: CheckoutRequestCredits

    def to_dict(self) -> dict[str, Any]:
        credits_ = self.credits_.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "credits": credits_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        credits_ = CheckoutRequestCredits(d.pop("credits"))

        checkout_request = cls(
            credits_=credits_,
        )

        return checkout_request
