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
            background (None | str | Unset): The framing asked for (docs/framing.md), each only when not its
                default: `white`, `studio` or `#rrggbb`. Example: studio.
            finish (None | str | Unset): The finish of a `#rrggbb` colour: solid, metallic or pearl.
            fit (None | str | Unset): `contain` or `cover` (a trimmed image's implied `contain` is left out).
            height (int | None | Unset):
            padding (int | None | Unset):
            scale (None | str | Unset): `relative` when asked for at the size class's one scale.
            shadow (bool | None | Unset): `false` when asked for without the contact shadow.
            trim (bool | None | Unset):
            width (int | None | Unset):
    """

    color: str
    format_: FormatChoice
    make: str
    model: str
    view: View
    year: int
    background: None | str | Unset = UNSET
    finish: None | str | Unset = UNSET
    fit: None | str | Unset = UNSET
    height: int | None | Unset = UNSET
    padding: int | None | Unset = UNSET
    scale: None | str | Unset = UNSET
    shadow: bool | None | Unset = UNSET
    trim: bool | None | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        color = self.color

        format_ = self.format_.value

        make = self.make

        model = self.model

        view = self.view.value

        year = self.year

        background: None | str | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        else:
            background = self.background

        finish: None | str | Unset
        if isinstance(self.finish, Unset):
            finish = UNSET
        else:
            finish = self.finish

        fit: None | str | Unset
        if isinstance(self.fit, Unset):
            fit = UNSET
        else:
            fit = self.fit

        height: int | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        padding: int | None | Unset
        if isinstance(self.padding, Unset):
            padding = UNSET
        else:
            padding = self.padding

        scale: None | str | Unset
        if isinstance(self.scale, Unset):
            scale = UNSET
        else:
            scale = self.scale

        shadow: bool | None | Unset
        if isinstance(self.shadow, Unset):
            shadow = UNSET
        else:
            shadow = self.shadow

        trim: bool | None | Unset
        if isinstance(self.trim, Unset):
            trim = UNSET
        else:
            trim = self.trim

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
        if background is not UNSET:
            field_dict["background"] = background
        if finish is not UNSET:
            field_dict["finish"] = finish
        if fit is not UNSET:
            field_dict["fit"] = fit
        if height is not UNSET:
            field_dict["height"] = height
        if padding is not UNSET:
            field_dict["padding"] = padding
        if scale is not UNSET:
            field_dict["scale"] = scale
        if shadow is not UNSET:
            field_dict["shadow"] = shadow
        if trim is not UNSET:
            field_dict["trim"] = trim
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

        def _parse_background(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        background = _parse_background(d.pop("background", UNSET))

        def _parse_finish(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finish = _parse_finish(d.pop("finish", UNSET))

        def _parse_fit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fit = _parse_fit(d.pop("fit", UNSET))

        def _parse_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        height = _parse_height(d.pop("height", UNSET))

        def _parse_padding(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        padding = _parse_padding(d.pop("padding", UNSET))

        def _parse_scale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scale = _parse_scale(d.pop("scale", UNSET))

        def _parse_shadow(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        shadow = _parse_shadow(d.pop("shadow", UNSET))

        def _parse_trim(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        trim = _parse_trim(d.pop("trim", UNSET))

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
            background=background,
            finish=finish,
            fit=fit,
            height=height,
            padding=padding,
            scale=scale,
            shadow=shadow,
            trim=trim,
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
