from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.spin_manifest import SpinManifest


T = TypeVar("T", bound="SpinManifestResponse")


@_attrs_define
class SpinManifestResponse:
    """The manifest of a spin (`response=manifest`; free).

    Attributes:
        data (SpinManifest): Where each frame sits and what it shows (`response=manifest`).
        request_id (str):
    """

    data: SpinManifest
    request_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "request_id": request_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.spin_manifest import SpinManifest

        d = dict(src_dict)
        data = SpinManifest.from_dict(d.pop("data"))

        request_id = d.pop("request_id")

        spin_manifest_response = cls(
            data=data,
            request_id=request_id,
        )

        spin_manifest_response.additional_properties = d
        return spin_manifest_response

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
