from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.device_token_data_body_grant_type import DeviceTokenDataBodyGrantType
from ..types import UNSET, Unset

T = TypeVar("T", bound="DeviceTokenDataBody")


@_attrs_define
class DeviceTokenDataBody:
    """
    Attributes:
        device_code (str):
        client_id (str | Unset):
        grant_type (DeviceTokenDataBodyGrantType | Unset):
    """

    device_code: str
    client_id: str | Unset = UNSET
    grant_type: DeviceTokenDataBodyGrantType | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        device_code = self.device_code

        client_id = self.client_id

        grant_type: str | Unset = UNSET
        if not isinstance(self.grant_type, Unset):
            grant_type = self.grant_type.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "device_code": device_code,
            }
        )
        if client_id is not UNSET:
            field_dict["client_id"] = client_id
        if grant_type is not UNSET:
            field_dict["grant_type"] = grant_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        device_code = d.pop("device_code")

        client_id = d.pop("client_id", UNSET)

        _grant_type = d.pop("grant_type", UNSET)
        grant_type: DeviceTokenDataBodyGrantType | Unset
        if isinstance(_grant_type, Unset):
            grant_type = UNSET
        else:
            grant_type = DeviceTokenDataBodyGrantType(_grant_type)

        device_token_data_body = cls(
            device_code=device_code,
            client_id=client_id,
            grant_type=grant_type,
        )

        device_token_data_body.additional_properties = d
        return device_token_data_body

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
