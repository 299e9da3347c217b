from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FramingOptions")


@_attrs_define
class FramingOptions:
    """How an output frames its render. Framing is free: the same credit as
    the plain image, from the same render.

        Attributes:
            backgrounds (list[str]): `background`: transparent (default), white, studio, or `#RRGGBB`. Example:
                ['transparent', 'white', 'studio', '#RRGGBB'].
            fits (list[str]): `fit`: the output is exactly the box (both sides needed). Example: ['contain', 'cover'].
            padding_max (int): `padding`: pixels of margin, 0 to this (with trim or fit=contain). Example: 256.
            scales (list[str]): `scale`: fill (default) or relative (one metres-per-pixel per size
                class); each a render of its own. Example: ['fill', 'relative'].
            shadow (list[bool]): `shadow`: with the contact shadow (default) or without; each a
                render of its own. Example: [True, False].
            trim (bool): `trim=true`: crop to the vehicle, then contain it in the box.
    """

    backgrounds: list[str]
    fits: list[str]
    padding_max: int
    scales: list[str]
    shadow: list[bool]
    trim: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        backgrounds = self.backgrounds

        fits = self.fits

        padding_max = self.padding_max

        scales = self.scales

        shadow = self.shadow

        trim = self.trim

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "backgrounds": backgrounds,
                "fits": fits,
                "padding_max": padding_max,
                "scales": scales,
                "shadow": shadow,
                "trim": trim,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        backgrounds = cast(list[str], d.pop("backgrounds"))

        fits = cast(list[str], d.pop("fits"))

        padding_max = d.pop("padding_max")

        scales = cast(list[str], d.pop("scales"))

        shadow = cast(list[bool], d.pop("shadow"))

        trim = d.pop("trim")

        framing_options = cls(
            backgrounds=backgrounds,
            fits=fits,
            padding_max=padding_max,
            scales=scales,
            shadow=shadow,
            trim=trim,
        )

        framing_options.additional_properties = d
        return framing_options

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
