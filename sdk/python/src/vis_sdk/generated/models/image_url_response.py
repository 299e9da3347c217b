from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.image_url_data import ImageUrlData
    from ..models.url_billing import UrlBilling


T = TypeVar("T", bound="ImageUrlResponse")


@_attrs_define
class ImageUrlResponse:
    """The JSON form of GET /api/v1/images/car (spec §2 ImageUrlResponse).

    Attributes:
        billing (UrlBilling):
        data (ImageUrlData):
        request_id (str):
    """

    billing: UrlBilling
    data: ImageUrlData
    request_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        billing = self.billing.to_dict()

        data = self.data.to_dict()

        request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "billing": billing,
                "data": data,
                "request_id": request_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.image_url_data import ImageUrlData
        from ..models.url_billing import UrlBilling

        d = dict(src_dict)
        billing = UrlBilling.from_dict(d.pop("billing"))

        data = ImageUrlData.from_dict(d.pop("data"))

        request_id = d.pop("request_id")

        image_url_response = cls(
            billing=billing,
            data=data,
            request_id=request_id,
        )

        image_url_response.additional_properties = d
        return image_url_response

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
