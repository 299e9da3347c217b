from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PaintOption")


@_attrs_define
class PaintOption:
    """One paint code of a make (models/paints.csv).

    Attributes:
        code (str): The code as `paint` takes it (case, spaces and dashes ignored).
        finish (str):
        hex_ (str): The sRGB painted, `#rrggbb`: an approximation (see `source`).
        name (str):
        source (str): Where the sRGB value comes from.
        years (list[int]): Model years the paint was offered in, first and last.
    """

    code: str
    finish: str
    hex_: str
    name: str
    source: str
    years: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        finish = self.finish

        hex_ = self.hex_

        name = self.name

        source = self.source

        years = self.years

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "finish": finish,
                "hex": hex_,
                "name": name,
                "source": source,
                "years": years,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = d.pop("code")

        finish = d.pop("finish")

        hex_ = d.pop("hex")

        name = d.pop("name")

        source = d.pop("source")

        years = cast(list[int], d.pop("years"))

        paint_option = cls(
            code=code,
            finish=finish,
            hex_=hex_,
            name=name,
            source=source,
            years=years,
        )

        paint_option.additional_properties = d
        return paint_option

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
