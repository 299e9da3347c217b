from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FeedbackData")


@_attrs_define
class FeedbackData:
    """
    Attributes:
        asset_id (UUID): The render reported on: one id per variant and render revision.
        flagged (bool): True when this report pushed the render into review.
        recorded (bool): Always true.
    """

    asset_id: UUID
    flagged: bool
    recorded: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asset_id = str(self.asset_id)

        flagged = self.flagged

        recorded = self.recorded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "asset_id": asset_id,
                "flagged": flagged,
                "recorded": recorded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asset_id = UUID(d.pop("asset_id"))

        flagged = d.pop("flagged")

        recorded = d.pop("recorded")

        feedback_data = cls(
            asset_id=asset_id,
            flagged=flagged,
            recorded=recorded,
        )

        feedback_data.additional_properties = d
        return feedback_data

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
