from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.format_choice import FormatChoice

if TYPE_CHECKING:
    from ..models.color_match_body import ColorMatchBody
    from ..models.vehicle_params import VehicleParams


T = TypeVar("T", bound="ImageUrlData")


@_attrs_define
class ImageUrlData:
    """
    Attributes:
        alt (str): Alt text for the `<img>` tag: colour, year, make, model, body
            style and view. Example: Red 2019 Toyota Camry saloon, front three-quarter view.
        color_match (ColorMatchBody): What the image's paint is called and how exactly (the JSON twin of the
            `X-Color-Match` header; docs/rendering.md, "Colours and paint codes").
        expires_at (datetime.datetime):
        format_ (FormatChoice): An output format, or auto: the smallest format the client's Accept header names (avif,
            then webp; else png, or jpg for an opaque image). png, webp and avif keep the transparent background; jpg is
            flattened on white. Default png.
        height (int): The image's height in pixels.
        max_uses (int): Always 0 here (unlimited loads until expiry).
        url (str): Loads the image with no key; the image renders on its first load.
        vehicle (VehicleParams): VehicleParams (spec §2): normalized slugs; width and height are the
            requested box, when one was given.
        width (int): The image's width in pixels.
    """

    alt: str
    color_match: ColorMatchBody
    expires_at: datetime.datetime
    format_: FormatChoice
    height: int
    max_uses: int
    url: str
    vehicle: VehicleParams
    width: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alt = self.alt

        color_match = self.color_match.to_dict()

        expires_at = self.expires_at.isoformat()

        format_ = self.format_.value

        height = self.height

        max_uses = self.max_uses

        url = self.url

        vehicle = self.vehicle.to_dict()

        width = self.width

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alt": alt,
                "color_match": color_match,
                "expires_at": expires_at,
                "format": format_,
                "height": height,
                "max_uses": max_uses,
                "url": url,
                "vehicle": vehicle,
                "width": width,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.color_match_body import ColorMatchBody
        from ..models.vehicle_params import VehicleParams

        d = dict(src_dict)
        alt = d.pop("alt")

        color_match = ColorMatchBody.from_dict(d.pop("color_match"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        format_ = FormatChoice(d.pop("format"))

        height = d.pop("height")

        max_uses = d.pop("max_uses")

        url = d.pop("url")

        vehicle = VehicleParams.from_dict(d.pop("vehicle"))

        width = d.pop("width")

        image_url_data = cls(
            alt=alt,
            color_match=color_match,
            expires_at=expires_at,
            format_=format_,
            height=height,
            max_uses=max_uses,
            url=url,
            vehicle=vehicle,
            width=width,
        )

        image_url_data.additional_properties = d
        return image_url_data

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
