from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.catalog_source import CatalogSource
    from ..models.year_range import YearRange


T = TypeVar("T", bound="CatalogSummary")


@_attrs_define
class CatalogSummary:
    """What the options document says about the loaded catalog.

    Attributes:
        makes (int):
        models (int):
        sources (list[CatalogSource]):
        years (YearRange):
    """

    makes: int
    models: int
    sources: list[CatalogSource]
    years: YearRange
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        makes = self.makes

        models = self.models

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        years = self.years.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "makes": makes,
                "models": models,
                "sources": sources,
                "years": years,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_source import CatalogSource
        from ..models.year_range import YearRange

        d = dict(src_dict)
        makes = d.pop("makes")

        models = d.pop("models")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = CatalogSource.from_dict(sources_item_data)

            sources.append(sources_item)

        years = YearRange.from_dict(d.pop("years"))

        catalog_summary = cls(
            makes=makes,
            models=models,
            sources=sources,
            years=years,
        )

        catalog_summary.additional_properties = d
        return catalog_summary

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
