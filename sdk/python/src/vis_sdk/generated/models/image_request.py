from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.image_request_color_type_0 import ImageRequestColorType0
from ..models.image_request_format_type_0 import ImageRequestFormatType0
from ..models.image_request_size_type_0 import ImageRequestSizeType0
from ..models.image_request_view_type_0 import ImageRequestViewType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="ImageRequest")


@_attrs_define
class ImageRequest:
    """One image. Send make or brand (not both), model and year.

    Attributes:
        model (str): Model name, slug or unique prefix.
        year (int): Model year (next year's models are accepted).
        brand (str | Unset): Alias of make; send one of them.
        color (ImageRequestColorType0 | None | Unset): Default silver.
        format_ (ImageRequestFormatType0 | None | Unset): Default png; jpeg is an alias of jpg.
        height (int | None | Unset): Fit inside this height; never enlarged.
        make (str | Unset): Make name or slug (or send brand, not both).
        size (ImageRequestSizeType0 | None | Unset): Shorthand for the width; ignored when a width or height is given.
        view (ImageRequestViewType0 | None | Unset): Default front-3-4; aliases accepted.
        width (int | None | Unset): Fit inside this width; never enlarged.
    """

    model: str
    year: int
    brand: str | Unset = UNSET
    color: ImageRequestColorType0 | None | Unset = UNSET
    format_: ImageRequestFormatType0 | None | Unset = UNSET
    height: int | None | Unset = UNSET
    make: str | Unset = UNSET
    size: ImageRequestSizeType0 | None | Unset = UNSET
    view: ImageRequestViewType0 | None | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        year = self.year

        brand = self.brand

        color: None | str | Unset
        if isinstance(self.color, Unset):
            color = UNSET
        elif isinstance(self.color, ImageRequestColorType0):
            color = self.color.value
        else:
            color = self.color

        format_: None | str | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, ImageRequestFormatType0):
            format_ = self.format_.value
        else:
            format_ = self.format_

        height: int | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        make = self.make

        size: None | str | Unset
        if isinstance(self.size, Unset):
            size = UNSET
        elif isinstance(self.size, ImageRequestSizeType0):
            size = self.size.value
        else:
            size = self.size

        view: None | str | Unset
        if isinstance(self.view, Unset):
            view = UNSET
        elif isinstance(self.view, ImageRequestViewType0):
            view = self.view.value
        else:
            view = self.view

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

        def _parse_color(data: object) -> ImageRequestColorType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_0 = ImageRequestColorType0(data)

                return color_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestColorType0 | None | Unset, data)

        color = _parse_color(d.pop("color", UNSET))

        def _parse_format_(data: object) -> ImageRequestFormatType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                format_type_0 = ImageRequestFormatType0(data)

                return format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestFormatType0 | None | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        def _parse_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        height = _parse_height(d.pop("height", UNSET))

        make = d.pop("make", UNSET)

        def _parse_size(data: object) -> ImageRequestSizeType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                size_type_0 = ImageRequestSizeType0(data)

                return size_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestSizeType0 | None | Unset, data)

        size = _parse_size(d.pop("size", UNSET))

        def _parse_view(data: object) -> ImageRequestViewType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                view_type_0 = ImageRequestViewType0(data)

                return view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestViewType0 | None | Unset, data)

        view = _parse_view(d.pop("view", UNSET))

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
