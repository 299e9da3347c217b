from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.resolve_result import ResolveResult


T = TypeVar("T", bound="ResolveResponse")


@_attrs_define
class ResolveResponse:
    """POST /api/v1/images/resolve (spec §2 ResolveResponse).

    Attributes:
        data (ResolveResult): The resolution, and alt text for the image its parameters name.
        request_id (str):
    """

    data: ResolveResult
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
        from ..models.resolve_result import ResolveResult

        d = dict(src_dict)
        data = ResolveResult.from_dict(d.pop("data"))

        request_id = d.pop("request_id")

        resolve_response = cls(
            data=data,
            request_id=request_id,
        )

        resolve_response.additional_properties = d
        return resolve_response

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
