from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.resolve_request import ResolveRequest
from ...models.resolve_response import ResolveResponse
from ...types import Response


def _get_kwargs(
    *,
    body: ResolveRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/images/resolve",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | ResolveResponse | None:
    if response.status_code == 200:
        response_200 = ResolveResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | ResolveResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ResolveRequest,
) -> Response[Problem | ResolveResponse]:
    """Free text to exact image parameters

     Scope account:read. Free; rate limited per key like the image endpoint. Deterministic, no model
    calls: extracts year, colour (with synonyms), view phrases, size and format, then searches the
    catalog for the remaining words. Use image_path directly when confidence is high; show candidates to
    a human when it is medium or low. Body at most 4 KiB.

    Args:
        body (ResolveRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ResolveResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ResolveRequest,
) -> Problem | ResolveResponse | None:
    """Free text to exact image parameters

     Scope account:read. Free; rate limited per key like the image endpoint. Deterministic, no model
    calls: extracts year, colour (with synonyms), view phrases, size and format, then searches the
    catalog for the remaining words. Use image_path directly when confidence is high; show candidates to
    a human when it is medium or low. Body at most 4 KiB.

    Args:
        body (ResolveRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ResolveResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ResolveRequest,
) -> Response[Problem | ResolveResponse]:
    """Free text to exact image parameters

     Scope account:read. Free; rate limited per key like the image endpoint. Deterministic, no model
    calls: extracts year, colour (with synonyms), view phrases, size and format, then searches the
    catalog for the remaining words. Use image_path directly when confidence is high; show candidates to
    a human when it is medium or low. Body at most 4 KiB.

    Args:
        body (ResolveRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ResolveResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ResolveRequest,
) -> Problem | ResolveResponse | None:
    """Free text to exact image parameters

     Scope account:read. Free; rate limited per key like the image endpoint. Deterministic, no model
    calls: extracts year, colour (with synonyms), view phrases, size and format, then searches the
    catalog for the remaining words. Use image_path directly when confidence is high; show candidates to
    a human when it is medium or low. Body at most 4 KiB.

    Args:
        body (ResolveRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ResolveResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
