from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.catalog_make import CatalogMake


T = TypeVar("T", bound="MakesForYear")


@_attrs_define
class MakesForYear:
    """`year`: the makes with a model in that year.

    Attributes:
        makes (list[CatalogMake]):
        year (int):
    """

    makes: list[CatalogMake]
    year: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        makes = []
        for makes_item_data in self.makes:
            makes_item = makes_item_data.to_dict()
            makes.append(makes_item)

        year = self.year

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "makes": makes,
                "year": year,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_make import CatalogMake

        d = dict(src_dict)
        makes = []
        _makes = d.pop("makes")
        for makes_item_data in _makes:
            makes_item = CatalogMake.from_dict(makes_item_data)

            makes.append(makes_item)

        year = d.pop("year")

        makes_for_year = cls(
            makes=makes,
            year=year,
        )

        makes_for_year.additional_properties = d
        return makes_for_year

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
