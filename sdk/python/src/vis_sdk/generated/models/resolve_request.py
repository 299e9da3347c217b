from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResolveRequest")


@_attrs_define
class ResolveRequest:
    """
    Attributes:
        query (str): Free text, e.g. "navy 2019 camry from behind, 512px webp".
        make (None | str | Unset): Narrows the search to this make; blank is absent.
        model (None | str | Unset): The model, searched instead of the text; blank is absent.
        year (int | None | Unset): Overrides any year in the text.
    """

    query: str
    make: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    year: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        query = self.query

        make: None | str | Unset
        if isinstance(self.make, Unset):
            make = UNSET
        else:
            make = self.make

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        year: int | None | Unset
        if isinstance(self.year, Unset):
            year = UNSET
        else:
            year = self.year

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "query": query,
            }
        )
        if make is not UNSET:
            field_dict["make"] = make
        if model is not UNSET:
            field_dict["model"] = model
        if year is not UNSET:
            field_dict["year"] = year

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        query = d.pop("query")

        def _parse_make(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        make = _parse_make(d.pop("make", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_year(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        year = _parse_year(d.pop("year", UNSET))

        resolve_request = cls(
            query=query,
            make=make,
            model=model,
            year=year,
        )

        return resolve_request
