from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Pack")


@_attrs_define
class Pack:
    """A credit pack (spec §2 Pack).

    Attributes:
        cents (int):
        credits_ (int):
        label (str):
    """

    cents: int
    credits_: int
    label: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cents = self.cents

        credits_ = self.credits_

        label = self.label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cents": cents,
                "credits": credits_,
                "label": label,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cents = d.pop("cents")

        credits_ = d.pop("credits")

        label = d.pop("label")

        pack = cls(
            cents=cents,
            credits_=credits_,
            label=label,
        )

        pack.additional_properties = d
        return pack

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
