from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeviceTokenResponse")


@_attrs_define
class DeviceTokenResponse:
    """200 of `POST /api/auth/device/token` (spec DeviceTokenResponse).

    Attributes:
        access_token (str): The API key, shown once.
        scope (str): Space-separated scopes: images:read account:read billing:write.
        token_type (str): Always `Bearer`.
    """

    access_token: str
    scope: str
    token_type: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        access_token = self.access_token

        scope = self.scope

        token_type = self.token_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "access_token": access_token,
                "scope": scope,
                "token_type": token_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        access_token = d.pop("access_token")

        scope = d.pop("scope")

        token_type = d.pop("token_type")

        device_token_response = cls(
            access_token=access_token,
            scope=scope,
            token_type=token_type,
        )

        device_token_response.additional_properties = d
        return device_token_response

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
