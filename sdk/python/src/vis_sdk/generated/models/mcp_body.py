from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mcp_body_params_type_0 import McpBodyParamsType0


T = TypeVar("T", bound="McpBody")


@_attrs_define
class McpBody:
    """A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list, tools/call, …).

    Attributes:
        jsonrpc (Literal['2.0']):
        method (str): initialize, ping, tools/list, tools/call, notifications/initialized, …; an unknown method is a
            JSON-RPC error in a 200.
        id (int | str | Unset):
        params (McpBodyParamsType0 | None | Unset):
    """

    jsonrpc: Literal["2.0"]
    method: str
    id: int | str | Unset = UNSET
    params: McpBodyParamsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.mcp_body_params_type_0 import McpBodyParamsType0

        jsonrpc = self.jsonrpc

        method = self.method

        id: int | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        params: dict[str, Any] | None | Unset
        if isinstance(self.params, Unset):
            params = UNSET
        elif isinstance(self.params, McpBodyParamsType0):
            params = self.params.to_dict()
        else:
            params = self.params

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "jsonrpc": jsonrpc,
                "method": method,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_body_params_type_0 import McpBodyParamsType0

        d = dict(src_dict)
        jsonrpc = cast(Literal["2.0"], d.pop("jsonrpc"))
        if jsonrpc != "2.0":
            raise ValueError(f"jsonrpc must match const '2.0', got '{jsonrpc}'")

        method = d.pop("method")

        def _parse_id(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_params(data: object) -> McpBodyParamsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                params_type_0 = McpBodyParamsType0.from_dict(data)

                return params_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(McpBodyParamsType0 | None | Unset, data)

        params = _parse_params(d.pop("params", UNSET))

        mcp_body = cls(
            jsonrpc=jsonrpc,
            method=method,
            id=id,
            params=params,
        )

        mcp_body.additional_properties = d
        return mcp_body

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
