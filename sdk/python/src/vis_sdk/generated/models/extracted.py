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

T = TypeVar("T", bound="Extracted")


@_attrs_define
class Extracted:
    """What the parser recognised in the text; `None` (JSON null) when absent.

    Attributes:
        color (Color | None | Unset):
        format_ (Format | None | Unset):
        size (None | SizePreset | Unset):
        view (None | Unset | View):
        width (int | None | Unset):
        year (int | None | Unset):
    """

    color: Color | None | Unset = UNSET
    format_: Format | None | Unset = UNSET
    size: None | SizePreset | Unset = UNSET
    view: None | Unset | View = UNSET
    width: int | None | Unset = UNSET
    year: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        color: None | str | Unset
        if isinstance(self.color, Unset):
            color = UNSET
        elif isinstance(self.color, Color):
            color = self.color.value
        else:
            color = self.color

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

        view: None | str | Unset
        if isinstance(self.view, Unset):
            view = UNSET
        elif isinstance(self.view, View):
            view = self.view.value
        else:
            view = self.view

        width: int | None | Unset
        if isinstance(self.width, Unset):
            width = UNSET
        else:
            width = self.width

        year: int | None | Unset
        if isinstance(self.year, Unset):
            year = UNSET
        else:
            year = self.year

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if color is not UNSET:
            field_dict["color"] = color
        if format_ is not UNSET:
            field_dict["format"] = format_
        if size is not UNSET:
            field_dict["size"] = size
        if view is not UNSET:
            field_dict["view"] = view
        if width is not UNSET:
            field_dict["width"] = width
        if year is not UNSET:
            field_dict["year"] = year

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_color(data: object) -> Color | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_1 = Color(data)

                return color_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Color | None | Unset, data)

        color = _parse_color(d.pop("color", UNSET))

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

        def _parse_view(data: object) -> None | Unset | View:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                view_type_1 = View(data)

                return view_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | View, data)

        view = _parse_view(d.pop("view", UNSET))

        def _parse_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        width = _parse_width(d.pop("width", UNSET))

        def _parse_year(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        year = _parse_year(d.pop("year", UNSET))

        extracted = cls(
            color=color,
            format_=format_,
            size=size,
            view=view,
            width=width,
            year=year,
        )

        extracted.additional_properties = d
        return extracted

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
