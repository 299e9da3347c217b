from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.delivery_ttl import DeliveryTtl


T = TypeVar("T", bound="OptionsLimits")


@_attrs_define
class OptionsLimits:
    """
    Attributes:
        delivery_ttl (DeliveryTtl): Delivery-URL lifetimes of this deployment, seconds.
        max_batch_urls (int):
        rate_limit_per_minute_default (int):
    """

    delivery_ttl: DeliveryTtl
    max_batch_urls: int
    rate_limit_per_minute_default: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delivery_ttl = self.delivery_ttl.to_dict()

        max_batch_urls = self.max_batch_urls

        rate_limit_per_minute_default = self.rate_limit_per_minute_default

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delivery_ttl": delivery_ttl,
                "max_batch_urls": max_batch_urls,
                "rate_limit_per_minute_default": rate_limit_per_minute_default,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_ttl import DeliveryTtl

        d = dict(src_dict)
        delivery_ttl = DeliveryTtl.from_dict(d.pop("delivery_ttl"))

        max_batch_urls = d.pop("max_batch_urls")

        rate_limit_per_minute_default = d.pop("rate_limit_per_minute_default")

        options_limits = cls(
            delivery_ttl=delivery_ttl,
            max_batch_urls=max_batch_urls,
            rate_limit_per_minute_default=rate_limit_per_minute_default,
        )

        options_limits.additional_properties = d
        return options_limits

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
