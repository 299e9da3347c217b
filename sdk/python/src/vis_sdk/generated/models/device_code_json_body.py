from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeviceCodeJsonBody")


@_attrs_define
class DeviceCodeJsonBody:
    """
    Attributes:
        client_id (Any | Unset): OAuth clients' id; the key's name when client_name is absent and this is plain text of
            at most 80 characters; anything else is ignored.
        client_name (str | Unset): Names the key to be made.
        scope (Any | Unset): Ignored: a device key has all three scopes.
    """

    client_id: Any | Unset = UNSET
    client_name: str | Unset = UNSET
    scope: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        client_name = self.client_name

        scope = self.scope

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if client_id is not UNSET:
            field_dict["client_id"] = client_id
        if client_name is not UNSET:
            field_dict["client_name"] = client_name
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        client_id = d.pop("client_id", UNSET)

        client_name = d.pop("client_name", UNSET)

        scope = d.pop("scope", UNSET)

        device_code_json_body = cls(
            client_id=client_id,
            client_name=client_name,
            scope=scope,
        )

        device_code_json_body.additional_properties = d
        return device_code_json_body

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
