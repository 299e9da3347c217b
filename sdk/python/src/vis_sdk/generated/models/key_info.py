from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scope_name import ScopeName

T = TypeVar("T", bound="KeyInfo")


@_attrs_define
class KeyInfo:
    """The key that made this request.

    Attributes:
        id (UUID):
        rate_limit_per_minute (int):
        scopes (list[ScopeName]):
    """

    id: UUID
    rate_limit_per_minute: int
    scopes: list[ScopeName]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        rate_limit_per_minute = self.rate_limit_per_minute

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "rate_limit_per_minute": rate_limit_per_minute,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        rate_limit_per_minute = d.pop("rate_limit_per_minute")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = ScopeName(scopes_item_data)

            scopes.append(scopes_item)

        key_info = cls(
            id=id,
            rate_limit_per_minute=rate_limit_per_minute,
            scopes=scopes,
        )

        key_info.additional_properties = d
        return key_info

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
