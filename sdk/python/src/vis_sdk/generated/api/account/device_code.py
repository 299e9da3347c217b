from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.device_code_data_body import DeviceCodeDataBody
from ...models.device_code_json_body import DeviceCodeJsonBody
from ...models.device_code_response import DeviceCodeResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DeviceCodeJsonBody | DeviceCodeDataBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/device/code",
    }

    if isinstance(body, DeviceCodeJsonBody):
        if not isinstance(body, Unset):
            _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, DeviceCodeDataBody):
        if not isinstance(body, Unset):
            _kwargs["data"] = body.to_dict()
        headers["Content-Type"] = "application/x-www-form-urlencoded"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeviceCodeResponse | Problem | None:
    if response.status_code == 201:
        response_201 = DeviceCodeResponse.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

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
) -> Response[DeviceCodeResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceCodeJsonBody | DeviceCodeDataBody | Unset = UNSET,
) -> Response[DeviceCodeResponse | Problem]:
    """Start a device login (RFC 8628)

     Public; 20 a minute per client address. Returns a device code (keep it secret; poll with it), a user
    code for the person to approve at verification_uri, expires_in 600 and interval 3. client_name names
    the key to be made (OAuth clients' client_id is used when client_name is absent). Body optional:
    JSON or a form.

    Args:
        body (DeviceCodeJsonBody | Unset):
        body (DeviceCodeDataBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceCodeResponse | Problem]
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
    body: DeviceCodeJsonBody | DeviceCodeDataBody | Unset = UNSET,
) -> DeviceCodeResponse | Problem | None:
    """Start a device login (RFC 8628)

     Public; 20 a minute per client address. Returns a device code (keep it secret; poll with it), a user
    code for the person to approve at verification_uri, expires_in 600 and interval 3. client_name names
    the key to be made (OAuth clients' client_id is used when client_name is absent). Body optional:
    JSON or a form.

    Args:
        body (DeviceCodeJsonBody | Unset):
        body (DeviceCodeDataBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceCodeResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceCodeJsonBody | DeviceCodeDataBody | Unset = UNSET,
) -> Response[DeviceCodeResponse | Problem]:
    """Start a device login (RFC 8628)

     Public; 20 a minute per client address. Returns a device code (keep it secret; poll with it), a user
    code for the person to approve at verification_uri, expires_in 600 and interval 3. client_name names
    the key to be made (OAuth clients' client_id is used when client_name is absent). Body optional:
    JSON or a form.

    Args:
        body (DeviceCodeJsonBody | Unset):
        body (DeviceCodeDataBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceCodeResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: DeviceCodeJsonBody | DeviceCodeDataBody | Unset = UNSET,
) -> DeviceCodeResponse | Problem | None:
    """Start a device login (RFC 8628)

     Public; 20 a minute per client address. Returns a device code (keep it secret; poll with it), a user
    code for the person to approve at verification_uri, expires_in 600 and interval 3. client_name names
    the key to be made (OAuth clients' client_id is used when client_name is absent). Body optional:
    JSON or a form.

    Args:
        body (DeviceCodeJsonBody | Unset):
        body (DeviceCodeDataBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceCodeResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
