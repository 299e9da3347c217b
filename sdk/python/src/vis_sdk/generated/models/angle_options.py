from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AngleOptions")


@_attrs_define
class AngleOptions:
    """`angle=N`: degrees around the vehicle from the nose (90 the left side),
    on a grid; responses name an angle's view `angle-N`.

        Attributes:
            framing (str): The 24 angles share one scale, so a vehicle keeps its size through
                a turn; the named views share another, so `angle=90` and
                `view=side` are separate images a few per cent apart in size.
            max_ (int):
            min_ (int):
            step (int):
    """

    framing: str
    max_: int
    min_: int
    step: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        framing = self.framing

        max_ = self.max_

        min_ = self.min_

        step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "framing": framing,
                "max": max_,
                "min": min_,
                "step": step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        framing = d.pop("framing")

        max_ = d.pop("max")

        min_ = d.pop("min")

        step = d.pop("step")

        angle_options = cls(
            framing=framing,
            max_=max_,
            min_=min_,
            step=step,
        )

        angle_options.additional_properties = d
        return angle_options

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
