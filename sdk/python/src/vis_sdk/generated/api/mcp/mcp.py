from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.mcp_body import McpBody
from ...models.mcp_response_200 import McpResponse200
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: McpBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/mcp",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | McpResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = McpResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = cast(Any, None)
        return response_202

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

    if response.status_code == 405:
        response_405 = Problem.from_dict(response.json())

        return response_405

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | McpResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: McpBody,
) -> Response[Any | McpResponse200 | Problem]:
    """The remote MCP endpoint (Model Context Protocol, Streamable HTTP)

     An MCP server for AI agents: JSON-RPC 2.0 messages in, JSON (or an event stream) out; stateless, so
    any replica answers. Tools mirror the API and are billed like it (get_image 1 credit,
    create_image_urls 1 per URL, the rest free). Needs the API key; requests from a browser origin other
    than this service's are refused. Send Accept: application/json, text/event-stream. tools/list names
    the tools and their arguments (docs/mcp.md in the repository describes them).

    Args:
        body (McpBody): A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list,
            tools/call, …).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | McpResponse200 | Problem]
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
    body: McpBody,
) -> Any | McpResponse200 | Problem | None:
    """The remote MCP endpoint (Model Context Protocol, Streamable HTTP)

     An MCP server for AI agents: JSON-RPC 2.0 messages in, JSON (or an event stream) out; stateless, so
    any replica answers. Tools mirror the API and are billed like it (get_image 1 credit,
    create_image_urls 1 per URL, the rest free). Needs the API key; requests from a browser origin other
    than this service's are refused. Send Accept: application/json, text/event-stream. tools/list names
    the tools and their arguments (docs/mcp.md in the repository describes them).

    Args:
        body (McpBody): A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list,
            tools/call, …).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | McpResponse200 | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: McpBody,
) -> Response[Any | McpResponse200 | Problem]:
    """The remote MCP endpoint (Model Context Protocol, Streamable HTTP)

     An MCP server for AI agents: JSON-RPC 2.0 messages in, JSON (or an event stream) out; stateless, so
    any replica answers. Tools mirror the API and are billed like it (get_image 1 credit,
    create_image_urls 1 per URL, the rest free). Needs the API key; requests from a browser origin other
    than this service's are refused. Send Accept: application/json, text/event-stream. tools/list names
    the tools and their arguments (docs/mcp.md in the repository describes them).

    Args:
        body (McpBody): A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list,
            tools/call, …).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | McpResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: McpBody,
) -> Any | McpResponse200 | Problem | None:
    """The remote MCP endpoint (Model Context Protocol, Streamable HTTP)

     An MCP server for AI agents: JSON-RPC 2.0 messages in, JSON (or an event stream) out; stateless, so
    any replica answers. Tools mirror the API and are billed like it (get_image 1 credit,
    create_image_urls 1 per URL, the rest free). Needs the API key; requests from a browser origin other
    than this service's are refused. Send Accept: application/json, text/event-stream. tools/list names
    the tools and their arguments (docs/mcp.md in the repository describes them).

    Args:
        body (McpBody): A JSON-RPC 2.0 request (with id) or notification (initialize, tools/list,
            tools/call, …).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | McpResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
