from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pack import Pack


T = TypeVar("T", bound="OptionsPricing")


@_attrs_define
class OptionsPricing:
    """
    Attributes:
        credits_per_dollar (int):
        credits_per_image (int):
        credits_per_spin (int): `GET /api/v1/images/spin`: one credit per frame, 24 frames.
        free_credits (int):
        packs (list[Pack]):
    """

    credits_per_dollar: int
    credits_per_image: int
    credits_per_spin: int
    free_credits: int
    packs: list[Pack]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        credits_per_dollar = self.credits_per_dollar

        credits_per_image = self.credits_per_image

        credits_per_spin = self.credits_per_spin

        free_credits = self.free_credits

        packs = []
        for packs_item_data in self.packs:
            packs_item = packs_item_data.to_dict()
            packs.append(packs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "credits_per_dollar": credits_per_dollar,
                "credits_per_image": credits_per_image,
                "credits_per_spin": credits_per_spin,
                "free_credits": free_credits,
                "packs": packs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pack import Pack

        d = dict(src_dict)
        credits_per_dollar = d.pop("credits_per_dollar")

        credits_per_image = d.pop("credits_per_image")

        credits_per_spin = d.pop("credits_per_spin")

        free_credits = d.pop("free_credits")

        packs = []
        _packs = d.pop("packs")
        for packs_item_data in _packs:
            packs_item = Pack.from_dict(packs_item_data)

            packs.append(packs_item)

        options_pricing = cls(
            credits_per_dollar=credits_per_dollar,
            credits_per_image=credits_per_image,
            credits_per_spin=credits_per_spin,
            free_credits=free_credits,
            packs=packs,
        )

        options_pricing.additional_properties = d
        return options_pricing

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
