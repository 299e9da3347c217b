from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CustomColors")


@_attrs_define
class CustomColors:
    """How `color` takes any colour.

    Attributes:
        default_finish (str):
        finishes (list[str]): The finishes a `#RRGGBB` colour may have (`finish`); default solid.
        pattern (str): What `color` accepts besides a preset: `#RRGGBB` or `RRGGBB`, any
            case (send `#` as `%23` in a URL).
    """

    default_finish: str
    finishes: list[str]
    pattern: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        default_finish = self.default_finish

        finishes = self.finishes

        pattern = self.pattern

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "default_finish": default_finish,
                "finishes": finishes,
                "pattern": pattern,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        default_finish = d.pop("default_finish")

        finishes = cast(list[str], d.pop("finishes"))

        pattern = d.pop("pattern")

        custom_colors = cls(
            default_finish=default_finish,
            finishes=finishes,
            pattern=pattern,
        )

        custom_colors.additional_properties = d
        return custom_colors

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
