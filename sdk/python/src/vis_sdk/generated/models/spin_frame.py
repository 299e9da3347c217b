from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SpinFrame")


@_attrs_define
class SpinFrame:
    """One frame of a spin.

    Attributes:
        angle (int): Degrees around the vehicle from the nose (90 the left side).
        image_url (str): The frame alone as an image: its canonical
            `GET /api/v1/images/car` URL (1 credit), at the frame size.
        index (int):
        view (str): The frame's view as responses name it (`angle-30`).
        x (int): The frame's cell in a sprite (0, 0 for an animation).
        y (int):
    """

    angle: int
    image_url: str
    index: int
    view: str
    x: int
    y: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        angle = self.angle

        image_url = self.image_url

        index = self.index

        view = self.view

        x = self.x

        y = self.y

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "angle": angle,
                "image_url": image_url,
                "index": index,
                "view": view,
                "x": x,
                "y": y,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        angle = d.pop("angle")

        image_url = d.pop("image_url")

        index = d.pop("index")

        view = d.pop("view")

        x = d.pop("x")

        y = d.pop("y")

        spin_frame = cls(
            angle=angle,
            image_url=image_url,
            index=index,
            view=view,
            x=x,
            y=y,
        )

        spin_frame.additional_properties = d
        return spin_frame

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
