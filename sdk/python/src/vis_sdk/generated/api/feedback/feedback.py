from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.feedback_request import FeedbackRequest
from ...models.feedback_response import FeedbackResponse
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: FeedbackRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/feedback",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> FeedbackResponse | Problem | None:
    if response.status_code == 201:
        response_201 = FeedbackResponse.from_dict(response.json())

        return response_201

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
) -> Response[FeedbackResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: FeedbackRequest,
) -> Response[FeedbackResponse | Problem]:
    """Report a good or bad render

     Scope account:read. Free; rate limited per key. Names the image by the request_id of the request
    that delivered it (this account's deliveries only) or by make, model and year (with view and
    colour). A negative report (verdict bad, or a rating of 1 or 2 without a verdict) from the third
    distinct account flags the render (flagged: true) and it is re-rendered under a new revision: later
    deliveries carry new bytes and a new ETag. Body at most 8 KiB.

    Args:
        body (FeedbackRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FeedbackResponse | Problem]
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
    body: FeedbackRequest,
) -> FeedbackResponse | Problem | None:
    """Report a good or bad render

     Scope account:read. Free; rate limited per key. Names the image by the request_id of the request
    that delivered it (this account's deliveries only) or by make, model and year (with view and
    colour). A negative report (verdict bad, or a rating of 1 or 2 without a verdict) from the third
    distinct account flags the render (flagged: true) and it is re-rendered under a new revision: later
    deliveries carry new bytes and a new ETag. Body at most 8 KiB.

    Args:
        body (FeedbackRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FeedbackResponse | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: FeedbackRequest,
) -> Response[FeedbackResponse | Problem]:
    """Report a good or bad render

     Scope account:read. Free; rate limited per key. Names the image by the request_id of the request
    that delivered it (this account's deliveries only) or by make, model and year (with view and
    colour). A negative report (verdict bad, or a rating of 1 or 2 without a verdict) from the third
    distinct account flags the render (flagged: true) and it is re-rendered under a new revision: later
    deliveries carry new bytes and a new ETag. Body at most 8 KiB.

    Args:
        body (FeedbackRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FeedbackResponse | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: FeedbackRequest,
) -> FeedbackResponse | Problem | None:
    """Report a good or bad render

     Scope account:read. Free; rate limited per key. Names the image by the request_id of the request
    that delivered it (this account's deliveries only) or by make, model and year (with view and
    colour). A negative report (verdict bad, or a rating of 1 or 2 without a verdict) from the third
    distinct account flags the render (flagged: true) and it is re-rendered under a new revision: later
    deliveries carry new bytes and a new ETag. Body at most 8 KiB.

    Args:
        body (FeedbackRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FeedbackResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
