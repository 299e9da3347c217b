from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.match_kind import MatchKind

T = TypeVar("T", bound="Candidate")


@_attrs_define
class Candidate:
    """
    Attributes:
        make_name (str):
        make_slug (str):
        match_kind (MatchKind): How a search hit matched, best first (spec: exact, prefix, token, contains, fuzzy).
        model_name (str):
        model_slug (str):
        years (list[int]):
    """

    make_name: str
    make_slug: str
    match_kind: MatchKind
    model_name: str
    model_slug: str
    years: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        make_name = self.make_name

        make_slug = self.make_slug

        match_kind = self.match_kind.value

        model_name = self.model_name

        model_slug = self.model_slug

        years = self.years

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "make_name": make_name,
                "make_slug": make_slug,
                "match_kind": match_kind,
                "model_name": model_name,
                "model_slug": model_slug,
                "years": years,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        make_name = d.pop("make_name")

        make_slug = d.pop("make_slug")

        match_kind = MatchKind(d.pop("match_kind"))

        model_name = d.pop("model_name")

        model_slug = d.pop("model_slug")

        years = cast(list[int], d.pop("years"))

        candidate = cls(
            make_name=make_name,
            make_slug=make_slug,
            match_kind=match_kind,
            model_name=model_name,
            model_slug=model_slug,
            years=years,
        )

        candidate.additional_properties = d
        return candidate

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
