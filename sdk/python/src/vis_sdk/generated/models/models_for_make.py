from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.catalog_make import CatalogMake
    from ..models.catalog_model import CatalogModel


T = TypeVar("T", bound="ModelsForMake")


@_attrs_define
class ModelsForMake:
    """`make` (+ `year`): the make's models.

    Attributes:
        make (CatalogMake): A make (spec `CatalogMake`). `id` is the source's make id of the canonical spelling; some
            source ids exceed `u32`, so it is a `u64` (JSON integers carry it exactly below 2^53).
        models (list[CatalogModel]):
        year (int | None | Unset):
    """

    make: CatalogMake
    models: list[CatalogModel]
    year: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        make = self.make.to_dict()

        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        year: int | None | Unset
        if isinstance(self.year, Unset):
            year = UNSET
        else:
            year = self.year

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "make": make,
                "models": models,
            }
        )
        if year is not UNSET:
            field_dict["year"] = year

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_make import CatalogMake
        from ..models.catalog_model import CatalogModel

        d = dict(src_dict)
        make = CatalogMake.from_dict(d.pop("make"))

        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = CatalogModel.from_dict(models_item_data)

            models.append(models_item)

        def _parse_year(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        year = _parse_year(d.pop("year", UNSET))

        models_for_make = cls(
            make=make,
            models=models,
            year=year,
        )

        models_for_make.additional_properties = d
        return models_for_make

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
