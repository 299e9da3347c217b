from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.color import Color

T = TypeVar("T", bound="ColorOption")


@_attrs_define
class ColorOption:
    """
    Attributes:
        hex_ (str): The swatch, `#rrggbb`.
        name (Color): A preset paint colour. Default silver.
    """

    hex_: str
    name: Color
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hex_ = self.hex_

        name = self.name.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hex": hex_,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hex_ = d.pop("hex")

        name = Color(d.pop("name"))

        color_option = cls(
            hex_=hex_,
            name=name,
        )

        color_option.additional_properties = d
        return color_option

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
