from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.catalog_make import CatalogMake
    from ..models.catalog_model import CatalogModel


T = TypeVar("T", bound="YearsForModel")


@_attrs_define
class YearsForModel:
    """`make` + `model`: the model's years.

    Attributes:
        make (CatalogMake): A make (spec `CatalogMake`). `id` is the source's make id of the canonical spelling; some
            source ids exceed `u32`, so it is a `u64` (JSON integers carry it exactly below 2^53).
        model (CatalogModel): A model of one make (spec `CatalogModel` when serialised: name, slug, vehicle_type).
        years (list[int]):
    """

    make: CatalogMake
    model: CatalogModel
    years: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        make = self.make.to_dict()

        model = self.model.to_dict()

        years = self.years

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "make": make,
                "model": model,
                "years": years,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_make import CatalogMake
        from ..models.catalog_model import CatalogModel

        d = dict(src_dict)
        make = CatalogMake.from_dict(d.pop("make"))

        model = CatalogModel.from_dict(d.pop("model"))

        years = cast(list[int], d.pop("years"))

        years_for_model = cls(
            make=make,
            model=model,
            years=years,
        )

        years_for_model.additional_properties = d
        return years_for_model

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
