from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ColorMatchBody")


@_attrs_define
class ColorMatchBody:
    """What the image's paint is called and how exactly (the JSON twin of the
    `X-Color-Match` header; docs/rendering.md, "Colours and paint codes").

        Attributes:
            delta_e (float): CIEDE2000 from the painted colour to the named one, one decimal
                (0 when exact).
            finish (str):
            hex_ (str): The sRGB colour painted, `#rrggbb`.
            match (str): `exact`: a preset, or one of the make's paint codes, painted as
                listed. `nearest`: a custom colour, named after the nearest preset
                or paint of the make.
            name (str): A preset's name (`red`) or a paint's (`Barcelona Red Metallic`).
            paint (None | str | Unset): The paint code, when `name` is one of the make's paints.
    """

    delta_e: float
    finish: str
    hex_: str
    match: str
    name: str
    paint: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delta_e = self.delta_e

        finish = self.finish

        hex_ = self.hex_

        match = self.match

        name = self.name

        paint: None | str | Unset
        if isinstance(self.paint, Unset):
            paint = UNSET
        else:
            paint = self.paint

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delta_e": delta_e,
                "finish": finish,
                "hex": hex_,
                "match": match,
                "name": name,
            }
        )
        if paint is not UNSET:
            field_dict["paint"] = paint

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        delta_e = d.pop("delta_e")

        finish = d.pop("finish")

        hex_ = d.pop("hex")

        match = d.pop("match")

        name = d.pop("name")

        def _parse_paint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paint = _parse_paint(d.pop("paint", UNSET))

        color_match_body = cls(
            delta_e=delta_e,
            finish=finish,
            hex_=hex_,
            match=match,
            name=name,
            paint=paint,
        )

        color_match_body.additional_properties = d
        return color_match_body

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
