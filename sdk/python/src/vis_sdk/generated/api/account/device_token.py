from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.device_error import DeviceError
from ...models.device_token_data_body import DeviceTokenDataBody
from ...models.device_token_json_body import DeviceTokenJsonBody
from ...models.device_token_response import DeviceTokenResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DeviceTokenJsonBody | DeviceTokenDataBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/device/token",
    }

    if isinstance(body, DeviceTokenJsonBody):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, DeviceTokenDataBody):
        _kwargs["data"] = body.to_dict()
        headers["Content-Type"] = "application/x-www-form-urlencoded"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeviceError | DeviceTokenResponse | Problem | None:
    if response.status_code == 200:
        response_200 = DeviceTokenResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = DeviceError.from_dict(response.json())

        return response_400

    if response.status_code == 429:
        response_429 = DeviceError.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DeviceError | DeviceTokenResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceTokenJsonBody | DeviceTokenDataBody | Unset = UNSET,
) -> Response[DeviceError | DeviceTokenResponse | Problem]:
    """Poll a device login for its API key

     Public; 60 a minute per client address. Poll every interval seconds with the device code: 400
    authorization_pending until the person approves, then 200 with the key (scopes images:read
    account:read billing:write) exactly once; later polls answer expired_token. 429 slow_down (with
    Retry-After) when polled sooner than the interval; 400 access_denied when denied; 400 expired_token
    after 600 s; 400 invalid_request for a missing or unknown code. Errors use the DeviceError body,
    which OAuth 2.0 clients read. JSON or a form (grant_type, when sent, is urn:ietf:params:oauth:grant-
    type:device_code).

    Args:
        body (DeviceTokenJsonBody):
        body (DeviceTokenDataBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceError | DeviceTokenResponse | Problem]
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
    client: AuthenticatedClient | Client,
    body: DeviceTokenJsonBody | DeviceTokenDataBody | Unset = UNSET,
) -> DeviceError | DeviceTokenResponse | Problem | None:
    """Poll a device login for its API key

     Public; 60 a minute per client address. Poll every interval seconds with the device code: 400
    authorization_pending until the person approves, then 200 with the key (scopes images:read
    account:read billing:write) exactly once; later polls answer expired_token. 429 slow_down (with
    Retry-After) when polled sooner than the interval; 400 access_denied when denied; 400 expired_token
    after 600 s; 400 invalid_request for a missing or unknown code. Errors use the DeviceError body,
    which OAuth 2.0 clients read. JSON or a form (grant_type, when sent, is urn:ietf:params:oauth:grant-
    type:device_code).

    Args:
        body (DeviceTokenJsonBody):
        body (DeviceTokenDataBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceError | DeviceTokenResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceTokenJsonBody | DeviceTokenDataBody | Unset = UNSET,
) -> Response[DeviceError | DeviceTokenResponse | Problem]:
    """Poll a device login for its API key

     Public; 60 a minute per client address. Poll every interval seconds with the device code: 400
    authorization_pending until the person approves, then 200 with the key (scopes images:read
    account:read billing:write) exactly once; later polls answer expired_token. 429 slow_down (with
    Retry-After) when polled sooner than the interval; 400 access_denied when denied; 400 expired_token
    after 600 s; 400 invalid_request for a missing or unknown code. Errors use the DeviceError body,
    which OAuth 2.0 clients read. JSON or a form (grant_type, when sent, is urn:ietf:params:oauth:grant-
    type:device_code).

    Args:
        body (DeviceTokenJsonBody):
        body (DeviceTokenDataBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceError | DeviceTokenResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceTokenJsonBody | DeviceTokenDataBody | Unset = UNSET,
) -> DeviceError | DeviceTokenResponse | Problem | None:
    """Poll a device login for its API key

     Public; 60 a minute per client address. Poll every interval seconds with the device code: 400
    authorization_pending until the person approves, then 200 with the key (scopes images:read
    account:read billing:write) exactly once; later polls answer expired_token. 429 slow_down (with
    Retry-After) when polled sooner than the interval; 400 access_denied when denied; 400 expired_token
    after 600 s; 400 invalid_request for a missing or unknown code. Errors use the DeviceError body,
    which OAuth 2.0 clients read. JSON or a form (grant_type, when sent, is urn:ietf:params:oauth:grant-
    type:device_code).

    Args:
        body (DeviceTokenJsonBody):
        body (DeviceTokenDataBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceError | DeviceTokenResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
