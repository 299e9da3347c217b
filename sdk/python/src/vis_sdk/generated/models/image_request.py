from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.image_request_color import ImageRequestColor
from ..models.image_request_format import ImageRequestFormat
from ..models.image_request_size import ImageRequestSize
from ..models.image_request_view import ImageRequestView
from ..types import UNSET, Unset

T = TypeVar("T", bound="ImageRequest")


@_attrs_define
class ImageRequest:
    """One image. Send make or brand (not both), model and year.

    Attributes:
        model (str): Model name, slug or unique prefix.
        year (int): Model year (next year's models are accepted).
        brand (str | Unset): Alias of make; send one of them.
        color (ImageRequestColor | Unset): Default silver.
        format_ (ImageRequestFormat | Unset): Default png; jpeg is an alias of jpg.
        height (int | None | Unset): Fit inside this height; never enlarged.
        make (str | Unset): Make name or slug (or send brand, not both).
        size (ImageRequestSize | Unset): Shorthand for the width; ignored when a width or height is given.
        view (ImageRequestView | Unset): Default front-3-4; aliases accepted.
        width (int | None | Unset): Fit inside this width; never enlarged.
    """

    model: str
    year: int
    brand: str | Unset = UNSET
    color: ImageRequestColor | Unset = UNSET
    format_: ImageRequestFormat | Unset = UNSET
    height: int | None | Unset = UNSET
    make: str | Unset = UNSET
    size: ImageRequestSize | Unset = UNSET
    view: ImageRequestView | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        year = self.year

        brand = self.brand

        color: str | Unset = UNSET
        if not isinstance(self.color, Unset):
            color = self.color.value

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value

        height: int | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        make = self.make

        size: str | Unset = UNSET
        if not isinstance(self.size, Unset):
            size = self.size.value

        view: str | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.value

        width: int | None | Unset
        if isinstance(self.width, Unset):
            width = UNSET
        else:
            width = self.width

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "year": year,
            }
        )
        if brand is not UNSET:
            field_dict["brand"] = brand
        if color is not UNSET:
            field_dict["color"] = color
        if format_ is not UNSET:
            field_dict["format"] = format_
        if height is not UNSET:
            field_dict["height"] = height
        if make is not UNSET:
            field_dict["make"] = make
        if size is not UNSET:
            field_dict["size"] = size
        if view is not UNSET:
            field_dict["view"] = view
        if width is not UNSET:
            field_dict["width"] = width

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        model = d.pop("model")

        year = d.pop("year")

        brand = d.pop("brand", UNSET)

        _color = d.pop("color", UNSET)
        color: ImageRequestColor | Unset
        if isinstance(_color, Unset):
            color = UNSET
        else:
            color = ImageRequestColor(_color)

        _format_ = d.pop("format", UNSET)
        format_: ImageRequestFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = ImageRequestFormat(_format_)

        def _parse_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        height = _parse_height(d.pop("height", UNSET))

        make = d.pop("make", UNSET)

        _size = d.pop("size", UNSET)
        size: ImageRequestSize | Unset
        if isinstance(_size, Unset):
            size = UNSET
        else:
            size = ImageRequestSize(_size)

        _view = d.pop("view", UNSET)
        view: ImageRequestView | Unset
        if isinstance(_view, Unset):
            view = UNSET
        else:
            view = ImageRequestView(_view)

        def _parse_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        width = _parse_width(d.pop("width", UNSET))

        image_request = cls(
            model=model,
            year=year,
            brand=brand,
            color=color,
            format_=format_,
            height=height,
            make=make,
            size=size,
            view=view,
            width=width,
        )

        image_request.additional_properties = d
        return image_request

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
