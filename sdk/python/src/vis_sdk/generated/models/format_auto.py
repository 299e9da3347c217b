from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.format_ import Format

T = TypeVar("T", bound="FormatAuto")


@_attrs_define
class FormatAuto:
    """`format=auto`: the format is chosen per request from its `Accept`
    header, and the answer carries `Vary: Accept`.

        Attributes:
            fallback (Format): An output format: png, webp and avif keep the transparent background; jpg is flattened on
                white.
            fallback_opaque (Format): An output format: png, webp and avif keep the transparent background; jpg is flattened
                on white.
            preference (list[Format]): The formats tried in order when the `Accept` header names them
                (by their own type, q above 0; a higher q wins, a tie keeps this
                order). A wildcard names neither. Example: ['avif', 'webp'].
    """

    fallback: Format
    fallback_opaque: Format
    preference: list[Format]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fallback = self.fallback.value

        fallback_opaque = self.fallback_opaque.value

        preference = []
        for preference_item_data in self.preference:
            preference_item = preference_item_data.value
            preference.append(preference_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fallback": fallback,
                "fallback_opaque": fallback_opaque,
                "preference": preference,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        fallback = Format(d.pop("fallback"))

        fallback_opaque = Format(d.pop("fallback_opaque"))

        preference = []
        _preference = d.pop("preference")
        for preference_item_data in _preference:
            preference_item = Format(preference_item_data)

            preference.append(preference_item)

        format_auto = cls(
            fallback=fallback,
            fallback_opaque=fallback_opaque,
            preference=preference,
        )

        format_auto.additional_properties = d
        return format_auto

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
