from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.format_choice import FormatChoice
from ..models.view import View
from ..types import UNSET, Unset

T = TypeVar("T", bound="VehicleParams")


@_attrs_define
class VehicleParams:
    """VehicleParams (spec §2): normalized slugs; width and height are the
    requested box, when one was given.

        Attributes:
            color (str): A preset's name, or `#rrggbb` for any other colour (asked for by
                hex or by paint code). Example: red.
            format_ (FormatChoice): An output format, or auto: the smallest format the client's Accept header names (avif,
                then webp; else png, or jpg for an opaque image). png, webp and avif keep the transparent background; jpg is
                flattened on white. Default png.
            make (str): Make slug.
            model (str): Model slug.
            view (View): A camera view: the six studio views of spec §2, top (from directly above), or a turntable angle
                angle-0 to angle-345 in steps of 15 (0 the nose, 90 the left side). Default front-3-4.
            year (int):
            finish (None | str | Unset): The finish of a `#rrggbb` colour: solid, metallic or pearl.
            height (int | None | Unset):
            width (int | None | Unset):
    """

    color: str
    format_: FormatChoice
    make: str
    model: str
    view: View
    year: int
    finish: None | str | Unset = UNSET
    height: int | None | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        color = self.color

        format_ = self.format_.value

        make = self.make

        model = self.model

        view = self.view.value

        year = self.year

        finish: None | str | Unset
        if isinstance(self.finish, Unset):
            finish = UNSET
        else:
            finish = self.finish

        height: int | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        width: int | None | Unset
        if isinstance(self.width, Unset):
            width = UNSET
        else:
            width = self.width

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "color": color,
                "format": format_,
                "make": make,
                "model": model,
                "view": view,
                "year": year,
            }
        )
        if finish is not UNSET:
            field_dict["finish"] = finish
        if height is not UNSET:
            field_dict["height"] = height
        if width is not UNSET:
            field_dict["width"] = width

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        color = d.pop("color")

        format_ = FormatChoice(d.pop("format"))

        make = d.pop("make")

        model = d.pop("model")

        view = View(d.pop("view"))

        year = d.pop("year")

        def _parse_finish(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finish = _parse_finish(d.pop("finish", UNSET))

        def _parse_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        height = _parse_height(d.pop("height", UNSET))

        def _parse_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        width = _parse_width(d.pop("width", UNSET))

        vehicle_params = cls(
            color=color,
            format_=format_,
            make=make,
            model=model,
            view=view,
            year=year,
            finish=finish,
            height=height,
            width=width,
        )

        vehicle_params.additional_properties = d
        return vehicle_params

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
