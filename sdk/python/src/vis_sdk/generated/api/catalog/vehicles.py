from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.vehicles_response import VehiclesResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    year: int | Unset = UNSET,
    make_id: int | Unset = UNSET,
    q: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    make: str | Unset = UNSET,
    model: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    params: dict[str, Any] = {}

    params["year"] = year

    params["makeId"] = make_id

    params["q"] = q

    params["limit"] = limit

    params["make"] = make

    params["model"] = model

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/vehicles",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | VehiclesResponse | None:
    if response.status_code == 200:
        response_200 = VehiclesResponse.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Problem | VehiclesResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    year: int | Unset = UNSET,
    make_id: int | Unset = UNSET,
    q: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    make: str | Unset = UNSET,
    model: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Problem | VehiclesResponse]:
    """Browse and search the catalog

     Public and free; cacheable for a day. The parameters present select one of six data shapes: none →
    years; year → the makes of that year; year + makeId → that make's models; q (+ year, limit) → search
    results; make (+ year) → the models of a make; make + model → the years of a model. Any other
    combination is a 400 naming the parameter that does not fit.

    Args:
        year (int | Unset):
        make_id (int | Unset):
        q (str | Unset):
        limit (int | Unset):
        make (str | Unset):
        model (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | VehiclesResponse]
    """

    kwargs = _get_kwargs(
        year=year,
        make_id=make_id,
        q=q,
        limit=limit,
        make=make,
        model=model,
        if_none_match=if_none_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    year: int | Unset = UNSET,
    make_id: int | Unset = UNSET,
    q: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    make: str | Unset = UNSET,
    model: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Problem | VehiclesResponse | None:
    """Browse and search the catalog

     Public and free; cacheable for a day. The parameters present select one of six data shapes: none →
    years; year → the makes of that year; year + makeId → that make's models; q (+ year, limit) → search
    results; make (+ year) → the models of a make; make + model → the years of a model. Any other
    combination is a 400 naming the parameter that does not fit.

    Args:
        year (int | Unset):
        make_id (int | Unset):
        q (str | Unset):
        limit (int | Unset):
        make (str | Unset):
        model (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | VehiclesResponse
    """

    return sync_detailed(
        client=client,
        year=year,
        make_id=make_id,
        q=q,
        limit=limit,
        make=make,
        model=model,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    year: int | Unset = UNSET,
    make_id: int | Unset = UNSET,
    q: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    make: str | Unset = UNSET,
    model: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Problem | VehiclesResponse]:
    """Browse and search the catalog

     Public and free; cacheable for a day. The parameters present select one of six data shapes: none →
    years; year → the makes of that year; year + makeId → that make's models; q (+ year, limit) → search
    results; make (+ year) → the models of a make; make + model → the years of a model. Any other
    combination is a 400 naming the parameter that does not fit.

    Args:
        year (int | Unset):
        make_id (int | Unset):
        q (str | Unset):
        limit (int | Unset):
        make (str | Unset):
        model (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | VehiclesResponse]
    """

    kwargs = _get_kwargs(
        year=year,
        make_id=make_id,
        q=q,
        limit=limit,
        make=make,
        model=model,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    year: int | Unset = UNSET,
    make_id: int | Unset = UNSET,
    q: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    make: str | Unset = UNSET,
    model: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Problem | VehiclesResponse | None:
    """Browse and search the catalog

     Public and free; cacheable for a day. The parameters present select one of six data shapes: none →
    years; year → the makes of that year; year + makeId → that make's models; q (+ year, limit) → search
    results; make (+ year) → the models of a make; make + model → the years of a model. Any other
    combination is a 400 naming the parameter that does not fit.

    Args:
        year (int | Unset):
        make_id (int | Unset):
        q (str | Unset):
        limit (int | Unset):
        make (str | Unset):
        model (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | VehiclesResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            year=year,
            make_id=make_id,
            q=q,
            limit=limit,
            make=make,
            model=model,
            if_none_match=if_none_match,
        )
    ).parsed
