from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.catalog_model import CatalogModel


T = TypeVar("T", bound="ModelsForMakeId")


@_attrs_define
class ModelsForMakeId:
    """`year` + `makeId`: that make's models in that year.

    Attributes:
        make_id (int):
        models (list[CatalogModel]):
        year (int):
    """

    make_id: int
    models: list[CatalogModel]
    year: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        make_id = self.make_id

        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        year = self.year

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "make_id": make_id,
                "models": models,
                "year": year,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_model import CatalogModel

        d = dict(src_dict)
        make_id = d.pop("make_id")

        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = CatalogModel.from_dict(models_item_data)

            models.append(models_item)

        year = d.pop("year")

        models_for_make_id = cls(
            make_id=make_id,
            models=models,
            year=year,
        )

        models_for_make_id.additional_properties = d
        return models_for_make_id

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
