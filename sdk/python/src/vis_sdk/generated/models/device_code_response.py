from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeviceCodeResponse")


@_attrs_define
class DeviceCodeResponse:
    """201 of `POST /api/auth/device/code` (spec DeviceCodeResponse).

    Attributes:
        device_code (str): The secret the client polls with; never show it.
        expires_in (int): Always 600.
        interval (int): Always 3.
        user_code (str): What the person types: four letters, a hyphen, four characters.
        verification_uri (str):
        verification_uri_complete (str):
    """

    device_code: str
    expires_in: int
    interval: int
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        device_code = self.device_code

        expires_in = self.expires_in

        interval = self.interval

        user_code = self.user_code

        verification_uri = self.verification_uri

        verification_uri_complete = self.verification_uri_complete

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "device_code": device_code,
                "expires_in": expires_in,
                "interval": interval,
                "user_code": user_code,
                "verification_uri": verification_uri,
                "verification_uri_complete": verification_uri_complete,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        device_code = d.pop("device_code")

        expires_in = d.pop("expires_in")

        interval = d.pop("interval")

        user_code = d.pop("user_code")

        verification_uri = d.pop("verification_uri")

        verification_uri_complete = d.pop("verification_uri_complete")

        device_code_response = cls(
            device_code=device_code,
            expires_in=expires_in,
            interval=interval,
            user_code=user_code,
            verification_uri=verification_uri,
            verification_uri_complete=verification_uri_complete,
        )

        device_code_response.additional_properties = d
        return device_code_response

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
