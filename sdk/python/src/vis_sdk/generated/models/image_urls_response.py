from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.delivery_url import DeliveryUrl
    from ..models.urls_billing import UrlsBilling


T = TypeVar("T", bound="ImageUrlsResponse")


@_attrs_define
class ImageUrlsResponse:
    """The 201 of POST /api/v1/image-urls (spec §2 ImageUrlsResponse).

    Attributes:
        billing (UrlsBilling):
        data (list[DeliveryUrl]): One URL per requested image, in order.
        request_id (str):
    """

    billing: UrlsBilling
    data: list[DeliveryUrl]
    request_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        billing = self.billing.to_dict()

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

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
        from ..models.delivery_url import DeliveryUrl
        from ..models.urls_billing import UrlsBilling

        d = dict(src_dict)
        billing = UrlsBilling.from_dict(d.pop("billing"))

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = DeliveryUrl.from_dict(data_item_data)

            data.append(data_item)

        request_id = d.pop("request_id")

        image_urls_response = cls(
            billing=billing,
            data=data,
            request_id=request_id,
        )

        image_urls_response.additional_properties = d
        return image_urls_response

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
