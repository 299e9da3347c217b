from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sizes_presets import SizesPresets


T = TypeVar("T", bound="Sizes")


@_attrs_define
class Sizes:
    """
    Attributes:
        max_ (int):
        presets (SizesPresets): Preset name to width in pixels.
        source (int):
    """

    max_: int
    presets: SizesPresets
    source: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_ = self.max_

        presets = self.presets.to_dict()

        source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max": max_,
                "presets": presets,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sizes_presets import SizesPresets

        d = dict(src_dict)
        max_ = d.pop("max")

        presets = SizesPresets.from_dict(d.pop("presets"))

        source = d.pop("source")

        sizes = cls(
            max_=max_,
            presets=presets,
            source=source,
        )

        sizes.additional_properties = d
        return sizes

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
