from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.spin_frame import SpinFrame


T = TypeVar("T", bound="SpinManifest")


@_attrs_define
class SpinManifest:
    """Where each frame sits and what it shows (`response=manifest`).

    Attributes:
        alt (str): Alt text for the spin's `<img>` (the vehicle, "360° spin").
        columns (int): A sprite's grid; 1 x 1 for an animation.
        credits_ (int): Credits a GET of the spin costs (one per frame).
        etag (str):
        format_ (str): `webp` for an animation; the sheet's format for a sprite.
        frame_count (int):
        frame_height (int):
        frame_ms (int): An animation's time per frame.
        frame_width (int):
        frames (list[SpinFrame]):
        layout (str): `animation` or `sprite`.
        rows (int):
        url (str): The spin's canonical URL (what a GET with these parameters serves).
    """

    alt: str
    columns: int
    credits_: int
    etag: str
    format_: str
    frame_count: int
    frame_height: int
    frame_ms: int
    frame_width: int
    frames: list[SpinFrame]
    layout: str
    rows: int
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alt = self.alt

        columns = self.columns

        credits_ = self.credits_

        etag = self.etag

        format_ = self.format_

        frame_count = self.frame_count

        frame_height = self.frame_height

        frame_ms = self.frame_ms

        frame_width = self.frame_width

        frames = []
        for frames_item_data in self.frames:
            frames_item = frames_item_data.to_dict()
            frames.append(frames_item)

        layout = self.layout

        rows = self.rows

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alt": alt,
                "columns": columns,
                "credits": credits_,
                "etag": etag,
                "format": format_,
                "frame_count": frame_count,
                "frame_height": frame_height,
                "frame_ms": frame_ms,
                "frame_width": frame_width,
                "frames": frames,
                "layout": layout,
                "rows": rows,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.spin_frame import SpinFrame

        d = dict(src_dict)
        alt = d.pop("alt")

        columns = d.pop("columns")

        credits_ = d.pop("credits")

        etag = d.pop("etag")

        format_ = d.pop("format")

        frame_count = d.pop("frame_count")

        frame_height = d.pop("frame_height")

        frame_ms = d.pop("frame_ms")

        frame_width = d.pop("frame_width")

        frames = []
        _frames = d.pop("frames")
        for frames_item_data in _frames:
            frames_item = SpinFrame.from_dict(frames_item_data)

            frames.append(frames_item)

        layout = d.pop("layout")

        rows = d.pop("rows")

        url = d.pop("url")

        spin_manifest = cls(
            alt=alt,
            columns=columns,
            credits_=credits_,
            etag=etag,
            format_=format_,
            frame_count=frame_count,
            frame_height=frame_height,
            frame_ms=frame_ms,
            frame_width=frame_width,
            frames=frames,
            layout=layout,
            rows=rows,
            url=url,
        )

        spin_manifest.additional_properties = d
        return spin_manifest

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
