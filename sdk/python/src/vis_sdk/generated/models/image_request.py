from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.image_request_background_type_0 import ImageRequestBackgroundType0
from ..models.image_request_background_type_3_type_0 import (
    ImageRequestBackgroundType3Type0,
)
from ..models.image_request_background_type_4_type_0 import (
    ImageRequestBackgroundType4Type0,
)
from ..models.image_request_color_type_0 import ImageRequestColorType0
from ..models.image_request_color_type_3_type_0 import ImageRequestColorType3Type0
from ..models.image_request_color_type_4_type_0 import ImageRequestColorType4Type0
from ..models.image_request_finish_type_0 import ImageRequestFinishType0
from ..models.image_request_fit_type_0 import ImageRequestFitType0
from ..models.image_request_format_type_0 import ImageRequestFormatType0
from ..models.image_request_scale_type_0 import ImageRequestScaleType0
from ..models.image_request_size_type_0 import ImageRequestSizeType0
from ..models.image_request_view_type_0 import ImageRequestViewType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="ImageRequest")


@_attrs_define
class ImageRequest:
    """One image. Send make or brand (not both), model and year; color or paint (not both); view or angle (not both).

    Attributes:
        model (str): Model name, slug or unique prefix.
        year (int): Model year (next year's models are accepted).
        angle (int | None | Unset): Instead of view: degrees around the vehicle from the nose, 0 to 345 in steps of 15
            (90 the left side, 180 the tail). The 24 angles share one scale through the turn. view and angle together are a
            400 naming angle.
        background (Any | ImageRequestBackgroundType0 | ImageRequestBackgroundType3Type0 |
            ImageRequestBackgroundType4Type0 | None | Unset): What is behind the vehicle: transparent (default; the render's
            alpha with its soft contact shadow), white, studio (a photographer's light grey sweep, the contact shadow on it)
            or #RRGGBB (%23 for # in a URL). An opaque background makes every pixel opaque, and format=auto then falls back
            to jpg.
        brand (str | Unset): Alias of make; send one of them.
        color (Any | ImageRequestColorType0 | ImageRequestColorType3Type0 | ImageRequestColorType4Type0 | None | Unset):
            A preset name, or any colour as #RRGGBB (or RRGGBB; %23 for # in a URL). Default silver. Not with paint.
        finish (ImageRequestFinishType0 | None | Unset): The colour's finish: a #RRGGBB color is solid unless told;
            presets and paint codes have their own, and another finish makes them a custom paint.
        fit (ImageRequestFitType0 | None | Unset): The output is exactly the box, which then needs both width and
            height: contain, the picture whole inside it (the rest background); cover, the box filled from the picture's
            centre. Without fit the output keeps the render's square shape inside the box.
        format_ (ImageRequestFormatType0 | None | Unset): Default png; jpeg is an alias of jpg. auto: the smallest
            format the request's Accept header names by its own type (avif, then webp; a higher q wins), else png (jpg when
            the background is opaque); the answer carries Vary: Accept. A URL minted with auto negotiates on every load.
        height (int | None | Unset): Fit inside this height; never enlarged.
        make (str | Unset): Make name or slug (or send brand, not both).
        padding (int | None | Unset): Pixels of margin around the vehicle inside the output, with trim=true or
            fit=contain (a 400 naming padding otherwise); less than half the output's shorter side.
        paint (None | str | Unset): A paint code of the make (3R3 for Toyota, 475 for BMW; the options document lists
            them), instead of color: color and paint together are a 400 naming paint. A make without paint codes is a 400
            naming paint; a code the make does not have is a 400 naming paint and listing its nearest codes (near_codes).
        scale (ImageRequestScaleType0 | None | Unset): fill (default): every vehicle fills the frame. relative: one
            metres-per-pixel for every vehicle of a size class (cars and light trucks, whose longest fits the frame; box
            trucks; buses; motorcycles), all on one ground line, so images shown side by side keep the vehicles' real sizes.
            A render of its own, like shadow=false.
        shadow (bool | None | Unset): The soft contact shadow under the vehicle: true (default) or false, the vehicle
            alone. Drawn by the renderer, so shadow=false is a render of its own.
        size (ImageRequestSizeType0 | None | Unset): Shorthand for the width; ignored when a width or height is given.
        trim (bool | None | Unset): Crop to the vehicle (and the dense core of its contact shadow), then contain it in
            the box (or cover it with fit=cover). A missing side of the box is the other's; no box is 1024 x 1024. The
            output's size is always known from the parameters.
        view (ImageRequestViewType0 | None | Unset): Default front-3-4; aliases accepted. top looks down from directly
            above (nose left); angle-N is an angle's view as responses name it. Not with angle.
        width (int | None | Unset): Fit inside this width; never enlarged.
    """

    model: str
    year: int
    angle: int | None | Unset = UNSET
    background: (
        Any
        | ImageRequestBackgroundType0
        | ImageRequestBackgroundType3Type0
        | ImageRequestBackgroundType4Type0
        | None
        | Unset
    ) = UNSET
    brand: str | Unset = UNSET
    color: (
        Any
        | ImageRequestColorType0
        | ImageRequestColorType3Type0
        | ImageRequestColorType4Type0
        | None
        | Unset
    ) = UNSET
    finish: ImageRequestFinishType0 | None | Unset = UNSET
    fit: ImageRequestFitType0 | None | Unset = UNSET
    format_: ImageRequestFormatType0 | None | Unset = UNSET
    height: int | None | Unset = UNSET
    make: str | Unset = UNSET
    padding: int | None | Unset = UNSET
    paint: None | str | Unset = UNSET
    scale: ImageRequestScaleType0 | None | Unset = UNSET
    shadow: bool | None | Unset = UNSET
    size: ImageRequestSizeType0 | None | Unset = UNSET
    trim: bool | None | Unset = UNSET
    view: ImageRequestViewType0 | None | Unset = UNSET
    width: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        year = self.year

        angle: int | None | Unset
        if isinstance(self.angle, Unset):
            angle = UNSET
        else:
            angle = self.angle

        background: Any | None | str | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        elif (
            isinstance(self.background, ImageRequestBackgroundType0)
            or isinstance(self.background, ImageRequestBackgroundType3Type0)
            or isinstance(self.background, ImageRequestBackgroundType4Type0)
        ):
            background = self.background.value
        else:
            background = self.background

        brand = self.brand

        color: Any | None | str | Unset
        if isinstance(self.color, Unset):
            color = UNSET
        elif (
            isinstance(self.color, ImageRequestColorType0)
            or isinstance(self.color, ImageRequestColorType3Type0)
            or isinstance(self.color, ImageRequestColorType4Type0)
        ):
            color = self.color.value
        else:
            color = self.color

        finish: None | str | Unset
        if isinstance(self.finish, Unset):
            finish = UNSET
        elif isinstance(self.finish, ImageRequestFinishType0):
            finish = self.finish.value
        else:
            finish = self.finish

        fit: None | str | Unset
        if isinstance(self.fit, Unset):
            fit = UNSET
        elif isinstance(self.fit, ImageRequestFitType0):
            fit = self.fit.value
        else:
            fit = self.fit

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

        padding: int | None | Unset
        if isinstance(self.padding, Unset):
            padding = UNSET
        else:
            padding = self.padding

        paint: None | str | Unset
        if isinstance(self.paint, Unset):
            paint = UNSET
        else:
            paint = self.paint

        scale: None | str | Unset
        if isinstance(self.scale, Unset):
            scale = UNSET
        elif isinstance(self.scale, ImageRequestScaleType0):
            scale = self.scale.value
        else:
            scale = self.scale

        shadow: bool | None | Unset
        if isinstance(self.shadow, Unset):
            shadow = UNSET
        else:
            shadow = self.shadow

        size: None | str | Unset
        if isinstance(self.size, Unset):
            size = UNSET
        elif isinstance(self.size, ImageRequestSizeType0):
            size = self.size.value
        else:
            size = self.size

        trim: bool | None | Unset
        if isinstance(self.trim, Unset):
            trim = UNSET
        else:
            trim = self.trim

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
        if angle is not UNSET:
            field_dict["angle"] = angle
        if background is not UNSET:
            field_dict["background"] = background
        if brand is not UNSET:
            field_dict["brand"] = brand
        if color is not UNSET:
            field_dict["color"] = color
        if finish is not UNSET:
            field_dict["finish"] = finish
        if fit is not UNSET:
            field_dict["fit"] = fit
        if format_ is not UNSET:
            field_dict["format"] = format_
        if height is not UNSET:
            field_dict["height"] = height
        if make is not UNSET:
            field_dict["make"] = make
        if padding is not UNSET:
            field_dict["padding"] = padding
        if paint is not UNSET:
            field_dict["paint"] = paint
        if scale is not UNSET:
            field_dict["scale"] = scale
        if shadow is not UNSET:
            field_dict["shadow"] = shadow
        if size is not UNSET:
            field_dict["size"] = size
        if trim is not UNSET:
            field_dict["trim"] = trim
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

        def _parse_angle(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        angle = _parse_angle(d.pop("angle", UNSET))

        def _parse_background(
            data: object,
        ) -> (
            Any
            | ImageRequestBackgroundType0
            | ImageRequestBackgroundType3Type0
            | ImageRequestBackgroundType4Type0
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                background_type_0 = ImageRequestBackgroundType0(data)

                return background_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                background_type_3_type_0 = ImageRequestBackgroundType3Type0(data)

                return background_type_3_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                background_type_4_type_0 = ImageRequestBackgroundType4Type0(data)

                return background_type_4_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Any
                | ImageRequestBackgroundType0
                | ImageRequestBackgroundType3Type0
                | ImageRequestBackgroundType4Type0
                | None
                | Unset,
                data,
            )

        background = _parse_background(d.pop("background", UNSET))

        brand = d.pop("brand", UNSET)

        def _parse_color(
            data: object,
        ) -> (
            Any
            | ImageRequestColorType0
            | ImageRequestColorType3Type0
            | ImageRequestColorType4Type0
            | None
            | Unset
        ):
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
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_3_type_0 = ImageRequestColorType3Type0(data)

                return color_type_3_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_4_type_0 = ImageRequestColorType4Type0(data)

                return color_type_4_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Any
                | ImageRequestColorType0
                | ImageRequestColorType3Type0
                | ImageRequestColorType4Type0
                | None
                | Unset,
                data,
            )

        color = _parse_color(d.pop("color", UNSET))

        def _parse_finish(data: object) -> ImageRequestFinishType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finish_type_0 = ImageRequestFinishType0(data)

                return finish_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestFinishType0 | None | Unset, data)

        finish = _parse_finish(d.pop("finish", UNSET))

        def _parse_fit(data: object) -> ImageRequestFitType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fit_type_0 = ImageRequestFitType0(data)

                return fit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestFitType0 | None | Unset, data)

        fit = _parse_fit(d.pop("fit", UNSET))

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

        def _parse_padding(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        padding = _parse_padding(d.pop("padding", UNSET))

        def _parse_paint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paint = _parse_paint(d.pop("paint", UNSET))

        def _parse_scale(data: object) -> ImageRequestScaleType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scale_type_0 = ImageRequestScaleType0(data)

                return scale_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ImageRequestScaleType0 | None | Unset, data)

        scale = _parse_scale(d.pop("scale", UNSET))

        def _parse_shadow(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        shadow = _parse_shadow(d.pop("shadow", UNSET))

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

        def _parse_trim(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        trim = _parse_trim(d.pop("trim", UNSET))

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
            angle=angle,
            background=background,
            brand=brand,
            color=color,
            finish=finish,
            fit=fit,
            format_=format_,
            height=height,
            make=make,
            padding=padding,
            paint=paint,
            scale=scale,
            shadow=shadow,
            size=size,
            trim=trim,
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
