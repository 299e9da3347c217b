from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.hit_kind import HitKind
from ..models.match_kind import MatchKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="CatalogSearchHit")


@_attrs_define
class CatalogSearchHit:
    """One search result (spec `CatalogSearchHit`).

    Attributes:
        kind (HitKind): `make` or `model` (spec `CatalogSearchHit.kind`).
        make_id (int):
        make_name (str):
        make_slug (str):
        match_kind (MatchKind): How a search hit matched, best first (spec: exact, prefix, token, contains, fuzzy).
        years (list[int]): The model's years; for a make, the years any of its models exists in.
        model_name (None | str | Unset):
        model_slug (None | str | Unset):
        vehicle_type (None | str | Unset):
    """

    kind: HitKind
    make_id: int
    make_name: str
    make_slug: str
    match_kind: MatchKind
    years: list[int]
    model_name: None | str | Unset = UNSET
    model_slug: None | str | Unset = UNSET
    vehicle_type: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        make_id = self.make_id

        make_name = self.make_name

        make_slug = self.make_slug

        match_kind = self.match_kind.value

        years = self.years

        model_name: None | str | Unset
        if isinstance(self.model_name, Unset):
            model_name = UNSET
        else:
            model_name = self.model_name

        model_slug: None | str | Unset
        if isinstance(self.model_slug, Unset):
            model_slug = UNSET
        else:
            model_slug = self.model_slug

        vehicle_type: None | str | Unset
        if isinstance(self.vehicle_type, Unset):
            vehicle_type = UNSET
        else:
            vehicle_type = self.vehicle_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "make_id": make_id,
                "make_name": make_name,
                "make_slug": make_slug,
                "match_kind": match_kind,
                "years": years,
            }
        )
        if model_name is not UNSET:
            field_dict["model_name"] = model_name
        if model_slug is not UNSET:
            field_dict["model_slug"] = model_slug
        if vehicle_type is not UNSET:
            field_dict["vehicle_type"] = vehicle_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = HitKind(d.pop("kind"))

        make_id = d.pop("make_id")

        make_name = d.pop("make_name")

        make_slug = d.pop("make_slug")

        match_kind = MatchKind(d.pop("match_kind"))

        years = cast(list[int], d.pop("years"))

        def _parse_model_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model_name = _parse_model_name(d.pop("model_name", UNSET))

        def _parse_model_slug(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model_slug = _parse_model_slug(d.pop("model_slug", UNSET))

        def _parse_vehicle_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vehicle_type = _parse_vehicle_type(d.pop("vehicle_type", UNSET))

        catalog_search_hit = cls(
            kind=kind,
            make_id=make_id,
            make_name=make_name,
            make_slug=make_slug,
            match_kind=match_kind,
            years=years,
            model_name=model_name,
            model_slug=model_slug,
            vehicle_type=vehicle_type,
        )

        catalog_search_hit.additional_properties = d
        return catalog_search_hit

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
