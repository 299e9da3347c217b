from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.makes_for_year import MakesForYear
    from ..models.models_for_make import ModelsForMake
    from ..models.models_for_make_id import ModelsForMakeId
    from ..models.search_results import SearchResults
    from ..models.years import Years
    from ..models.years_for_model import YearsForModel


T = TypeVar("T", bound="VehiclesResponse")


@_attrs_define
class VehiclesResponse:
    """GET /api/v1/vehicles (spec §2 VehiclesResponse).

    Attributes:
        data (MakesForYear | ModelsForMake | ModelsForMakeId | SearchResults | Years | YearsForModel): One of six
            shapes, selected by the parameters (see the module docs).
        request_id (str):
    """

    data: (
        MakesForYear
        | ModelsForMake
        | ModelsForMakeId
        | SearchResults
        | Years
        | YearsForModel
    )
    request_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.makes_for_year import MakesForYear
        from ..models.models_for_make import ModelsForMake
        from ..models.models_for_make_id import ModelsForMakeId
        from ..models.search_results import SearchResults
        from ..models.years import Years

        data: dict[str, Any]
        if (
            isinstance(self.data, Years)
            or isinstance(self.data, MakesForYear)
            or isinstance(self.data, ModelsForMakeId)
            or isinstance(self.data, SearchResults)
            or isinstance(self.data, ModelsForMake)
        ):
            data = self.data.to_dict()
        else:
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
        from ..models.makes_for_year import MakesForYear
        from ..models.models_for_make import ModelsForMake
        from ..models.models_for_make_id import ModelsForMakeId
        from ..models.search_results import SearchResults
        from ..models.years import Years
        from ..models.years_for_model import YearsForModel

        d = dict(src_dict)

        def _parse_data(
            data: object,
        ) -> (
            MakesForYear
            | ModelsForMake
            | ModelsForMakeId
            | SearchResults
            | Years
            | YearsForModel
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_vehicles_data_years = Years.from_dict(data)

                return componentsschemas_vehicles_data_years
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_vehicles_data_makes_for_year = MakesForYear.from_dict(
                    data
                )

                return componentsschemas_vehicles_data_makes_for_year
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_vehicles_data_models_for_make_id = (
                    ModelsForMakeId.from_dict(data)
                )

                return componentsschemas_vehicles_data_models_for_make_id
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_vehicles_data_search_results = (
                    SearchResults.from_dict(data)
                )

                return componentsschemas_vehicles_data_search_results
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_vehicles_data_models_for_make = (
                    ModelsForMake.from_dict(data)
                )

                return componentsschemas_vehicles_data_models_for_make
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_vehicles_data_years_for_model = YearsForModel.from_dict(
                data
            )

            return componentsschemas_vehicles_data_years_for_model

        data = _parse_data(d.pop("data"))

        request_id = d.pop("request_id")

        vehicles_response = cls(
            data=data,
            request_id=request_id,
        )

        vehicles_response.additional_properties = d
        return vehicles_response

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
