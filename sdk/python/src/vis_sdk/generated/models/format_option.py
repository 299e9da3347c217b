from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.format_ import Format

T = TypeVar("T", bound="FormatOption")


@_attrs_define
class FormatOption:
    """
    Attributes:
        id (Format): An output format: png, webp and avif keep the transparent background; jpg is flattened on white.
        mime (str):
        transparent (bool):
    """

    id: Format
    mime: str
    transparent: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id.value

        mime = self.mime

        transparent = self.transparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "mime": mime,
                "transparent": transparent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = Format(d.pop("id"))

        mime = d.pop("mime")

        transparent = d.pop("transparent")

        format_option = cls(
            id=id,
            mime=mime,
            transparent=transparent,
        )

        format_option.additional_properties = d
        return format_option

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
