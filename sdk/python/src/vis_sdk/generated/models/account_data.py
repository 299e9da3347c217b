from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.account_pricing import AccountPricing
    from ..models.key_info import KeyInfo
    from ..models.usage import Usage


T = TypeVar("T", bound="AccountData")


@_attrs_define
class AccountData:
    """
    Attributes:
        auto_reload (bool):
        credits_ (int):
        credits_value_usd (float):
        has_payment_method (bool):
        key (KeyInfo): The key that made this request.
        pricing (AccountPricing):
        usage_30d (Usage): An account's use of the service over a period (spec §2 Account usage_30d).
    """

    auto_reload: bool
    credits_: int
    credits_value_usd: float
    has_payment_method: bool
    key: KeyInfo
    pricing: AccountPricing
    usage_30d: Usage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_reload = self.auto_reload

        credits_ = self.credits_

        credits_value_usd = self.credits_value_usd

        has_payment_method = self.has_payment_method

        key = self.key.to_dict()

        pricing = self.pricing.to_dict()

        usage_30d = self.usage_30d.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "auto_reload": auto_reload,
                "credits": credits_,
                "credits_value_usd": credits_value_usd,
                "has_payment_method": has_payment_method,
                "key": key,
                "pricing": pricing,
                "usage_30d": usage_30d,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_pricing import AccountPricing
        from ..models.key_info import KeyInfo
        from ..models.usage import Usage

        d = dict(src_dict)
        auto_reload = d.pop("auto_reload")

        credits_ = d.pop("credits")

        credits_value_usd = d.pop("credits_value_usd")

        has_payment_method = d.pop("has_payment_method")

        key = KeyInfo.from_dict(d.pop("key"))

        pricing = AccountPricing.from_dict(d.pop("pricing"))

        usage_30d = Usage.from_dict(d.pop("usage_30d"))

        account_data = cls(
            auto_reload=auto_reload,
            credits_=credits_,
            credits_value_usd=credits_value_usd,
            has_payment_method=has_payment_method,
            key=key,
            pricing=pricing,
            usage_30d=usage_30d,
        )

        account_data.additional_properties = d
        return account_data

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
