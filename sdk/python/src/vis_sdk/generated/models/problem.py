from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem_links_type_0 import ProblemLinksType0


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """A problem document (RFC 9457; spec §2 Problem). Members beyond the five
    every problem carries depend on the status; additional members are
    allowed.

        Attributes:
            detail (str): What went wrong; on a 400 it names the parameter.
            request_id (str):
            status (int):
            title (str):
            type_ (str): `{base_url}/docs/errors#<status>`.
            balance (int | None | Unset): 402: the current balance.
            credits_remaining (int | None | Unset): 402: the current balance (as `balance`).
            index (int | None | Unset): Batch requests: the index of the failing item.
            links (None | ProblemLinksType0 | Unset): 402: where to buy credits (`billing`) and read more (`docs`).
            param (None | str | Unset): 400: the offending parameter, in the API's words (`images[2].year`).
            required_credits (int | None | Unset): 402: the credits the request needed.
            scope (None | str | Unset): 403: the scope the key lacks.
    """

    detail: str
    request_id: str
    status: int
    title: str
    type_: str
    balance: int | None | Unset = UNSET
    credits_remaining: int | None | Unset = UNSET
    index: int | None | Unset = UNSET
    links: None | ProblemLinksType0 | Unset = UNSET
    param: None | str | Unset = UNSET
    required_credits: int | None | Unset = UNSET
    scope: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.problem_links_type_0 import ProblemLinksType0

        detail = self.detail

        request_id = self.request_id

        status = self.status

        title = self.title

        type_ = self.type_

        balance: int | None | Unset
        if isinstance(self.balance, Unset):
            balance = UNSET
        else:
            balance = self.balance

        credits_remaining: int | None | Unset
        if isinstance(self.credits_remaining, Unset):
            credits_remaining = UNSET
        else:
            credits_remaining = self.credits_remaining

        index: int | None | Unset
        if isinstance(self.index, Unset):
            index = UNSET
        else:
            index = self.index

        links: dict[str, Any] | None | Unset
        if isinstance(self.links, Unset):
            links = UNSET
        elif isinstance(self.links, ProblemLinksType0):
            links = self.links.to_dict()
        else:
            links = self.links

        param: None | str | Unset
        if isinstance(self.param, Unset):
            param = UNSET
        else:
            param = self.param

        required_credits: int | None | Unset
        if isinstance(self.required_credits, Unset):
            required_credits = UNSET
        else:
            required_credits = self.required_credits

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "request_id": request_id,
                "status": status,
                "title": title,
                "type": type_,
            }
        )
        if balance is not UNSET:
            field_dict["balance"] = balance
        if credits_remaining is not UNSET:
            field_dict["credits_remaining"] = credits_remaining
        if index is not UNSET:
            field_dict["index"] = index
        if links is not UNSET:
            field_dict["links"] = links
        if param is not UNSET:
            field_dict["param"] = param
        if required_credits is not UNSET:
            field_dict["required_credits"] = required_credits
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem_links_type_0 import ProblemLinksType0

        d = dict(src_dict)
        detail = d.pop("detail")

        request_id = d.pop("request_id")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_balance(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        balance = _parse_balance(d.pop("balance", UNSET))

        def _parse_credits_remaining(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        credits_remaining = _parse_credits_remaining(d.pop("credits_remaining", UNSET))

        def _parse_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        index = _parse_index(d.pop("index", UNSET))

        def _parse_links(data: object) -> None | ProblemLinksType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                links_type_0 = ProblemLinksType0.from_dict(data)

                return links_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProblemLinksType0 | Unset, data)

        links = _parse_links(d.pop("links", UNSET))

        def _parse_param(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        param = _parse_param(d.pop("param", UNSET))

        def _parse_required_credits(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        required_credits = _parse_required_credits(d.pop("required_credits", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        problem = cls(
            detail=detail,
            request_id=request_id,
            status=status,
            title=title,
            type_=type_,
            balance=balance,
            credits_remaining=credits_remaining,
            index=index,
            links=links,
            param=param,
            required_credits=required_credits,
            scope=scope,
        )

        problem.additional_properties = d
        return problem

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
