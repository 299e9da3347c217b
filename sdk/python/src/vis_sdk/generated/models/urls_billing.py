from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UrlsBilling")


@_attrs_define
class UrlsBilling:
    """
    Attributes:
        charged_on (str): Always `creation`: URLs are billed once, when minted. Example: creation.
        credits_charged (int): The number of URLs created.
        credits_per_url (int): Always 1.
        credits_remaining (int):
    """

    charged_on: str
    credits_charged: int
    credits_per_url: int
    credits_remaining: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        charged_on = self.charged_on

        credits_charged = self.credits_charged

        credits_per_url = self.credits_per_url

        credits_remaining = self.credits_remaining

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "charged_on": charged_on,
                "credits_charged": credits_charged,
                "credits_per_url": credits_per_url,
                "credits_remaining": credits_remaining,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        charged_on = d.pop("charged_on")

        credits_charged = d.pop("credits_charged")

        credits_per_url = d.pop("credits_per_url")

        credits_remaining = d.pop("credits_remaining")

        urls_billing = cls(
            charged_on=charged_on,
            credits_charged=credits_charged,
            credits_per_url=credits_per_url,
            credits_remaining=credits_remaining,
        )

        urls_billing.additional_properties = d
        return urls_billing

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
