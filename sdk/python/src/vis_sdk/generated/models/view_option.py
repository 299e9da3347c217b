from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.view import View

T = TypeVar("T", bound="ViewOption")


@_attrs_define
class ViewOption:
    """
    Attributes:
        aliases (list[str]):
        description (str):
        id (View): A camera view: the six studio views of spec §2, top (from directly above), or a turntable angle
            angle-0 to angle-345 in steps of 15 (0 the nose, 90 the left side). Default front-3-4.
        label (str):
        yaw_degrees (int):
    """

    aliases: list[str]
    description: str
    id: View
    label: str
    yaw_degrees: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        aliases = self.aliases

        description = self.description

        id = self.id.value

        label = self.label

        yaw_degrees = self.yaw_degrees

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "aliases": aliases,
                "description": description,
                "id": id,
                "label": label,
                "yaw_degrees": yaw_degrees,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        aliases = cast(list[str], d.pop("aliases"))

        description = d.pop("description")

        id = View(d.pop("id"))

        label = d.pop("label")

        yaw_degrees = d.pop("yaw_degrees")

        view_option = cls(
            aliases=aliases,
            description=description,
            id=id,
            label=label,
            yaw_degrees=yaw_degrees,
        )

        view_option.additional_properties = d
        return view_option

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
