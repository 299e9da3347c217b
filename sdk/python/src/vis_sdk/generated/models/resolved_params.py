from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.color import Color
from ..models.format_ import Format
from ..models.size_preset import SizePreset
from ..models.view import View
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResolvedParams")


@_attrs_define
class ResolvedParams:
    """Exact request parameters (spec `params`).

    Attributes:
        color (Color): A preset paint colour. Default silver.
        make (str):
        model (str):
        view (View): A camera view: the six studio views of spec §2, top (from directly above), or a turntable angle
            angle-0 to angle-345 in steps of 15 (0 the nose, 90 the left side). Default front-3-4.
        year (int):
        format_ (Format | None | Unset):
        size (None | SizePreset | Unset):
        width (int | None | Unset):
    """

    color: Color
    make: str
    model: str
    view: View
    year: int
    format_: Format | None | Unset = UNSET
    size: None | SizePreset | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        color = self.color.value

        make = self.make

        model = self.model

        view = self.view.value

        year = self.year

        format_: None | str | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, Format):
            format_ = self.format_.value
        else:
            format_ = self.format_

        size: None | str | Unset
        if isinstance(self.size, Unset):
            size = UNSET
        elif isinstance(self.size, SizePreset):
            size = self.size.value
        else:
            size = self.size

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
                "make": make,
                "model": model,
                "view": view,
                "year": year,
            }
        )
        if format_ is not UNSET:
            field_dict["format"] = format_
        if size is not UNSET:
            field_dict["size"] = size
        if width is not UNSET:
            field_dict["width"] = width

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        color = Color(d.pop("color"))

        make = d.pop("make")

        model = d.pop("model")

        view = View(d.pop("view"))

        year = d.pop("year")

        def _parse_format_(data: object) -> Format | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                format_type_1 = Format(data)

                return format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Format | None | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        def _parse_size(data: object) -> None | SizePreset | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                size_type_1 = SizePreset(data)

                return size_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SizePreset | Unset, data)

        size = _parse_size(d.pop("size", UNSET))

        def _parse_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        width = _parse_width(d.pop("width", UNSET))

        resolved_params = cls(
            color=color,
            make=make,
            model=model,
            view=view,
            year=year,
            format_=format_,
            size=size,
            width=width,
        )

        resolved_params.additional_properties = d
        return resolved_params

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
