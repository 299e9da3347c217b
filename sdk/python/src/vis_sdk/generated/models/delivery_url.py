from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.color_match_body import ColorMatchBody
    from ..models.vehicle_params import VehicleParams


T = TypeVar("T", bound="DeliveryUrl")


@_attrs_define
class DeliveryUrl:
    """One signed delivery URL (spec §2 DeliveryUrl).

    Attributes:
        alt (str): Alt text for the `<img>` tag: colour, year, make, model, body
            style and view ("Red 2019 Toyota Camry saloon, front three-quarter
            view"). Example: Red 2019 Toyota Camry saloon, front three-quarter view.
        color_match (ColorMatchBody): What the image's paint is called and how exactly (the JSON twin of the
            `X-Color-Match` header; docs/rendering.md, "Colours and paint codes").
        expires_at (datetime.datetime):
        id (UUID):
        max_uses (int): 0 = unlimited loads until expiry.
        url (str): Loads the image with no key; free until `expires_at`.
        vehicle (VehicleParams): VehicleParams (spec §2): normalized slugs; width and height are the
            requested box, when one was given.
    """

    alt: str
    color_match: ColorMatchBody
    expires_at: datetime.datetime
    id: UUID
    max_uses: int
    url: str
    vehicle: VehicleParams
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alt = self.alt

        color_match = self.color_match.to_dict()

        expires_at = self.expires_at.isoformat()

        id = str(self.id)

        max_uses = self.max_uses

        url = self.url

        vehicle = self.vehicle.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alt": alt,
                "color_match": color_match,
                "expires_at": expires_at,
                "id": id,
                "max_uses": max_uses,
                "url": url,
                "vehicle": vehicle,
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

        id = UUID(d.pop("id"))

        max_uses = d.pop("max_uses")

        url = d.pop("url")

        vehicle = VehicleParams.from_dict(d.pop("vehicle"))

        delivery_url = cls(
            alt=alt,
            color_match=color_match,
            expires_at=expires_at,
            id=id,
            max_uses=max_uses,
            url=url,
            vehicle=vehicle,
        )

        delivery_url.additional_properties = d
        return delivery_url

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
