from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.head_spin_color_type_0 import HeadSpinColorType0
from ...models.head_spin_finish import HeadSpinFinish
from ...models.head_spin_format import HeadSpinFormat
from ...models.head_spin_layout import HeadSpinLayout
from ...models.head_spin_response import HeadSpinResponse
from ...models.head_spin_scale import HeadSpinScale
from ...models.head_spin_size import HeadSpinSize
from ...models.problem import Problem
from ...models.spin_manifest_response import SpinManifestResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    make: str,
    model: str,
    year: int,
    color: Any | HeadSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadSpinSize | Unset = UNSET,
    format_: HeadSpinFormat | Unset = HeadSpinFormat.WEBP,
    layout: HeadSpinLayout | Unset = HeadSpinLayout.ANIMATION,
    response: HeadSpinResponse | Unset = HeadSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["make"] = make

    params["model"] = model

    params["year"] = year

    json_color: Any | str | Unset
    if isinstance(color, Unset):
        json_color = UNSET
    elif isinstance(color, HeadSpinColorType0):
        json_color = color.value
    else:
        json_color = color
    params["color"] = json_color

    params["paint"] = paint

    json_finish: str | Unset = UNSET
    if not isinstance(finish, Unset):
        json_finish = finish.value

    params["finish"] = json_finish

    params["shadow"] = shadow

    json_scale: str | Unset = UNSET
    if not isinstance(scale, Unset):
        json_scale = scale.value

    params["scale"] = json_scale

    params["w"] = w

    params["h"] = h

    json_size: str | Unset = UNSET
    if not isinstance(size, Unset):
        json_size = size.value

    params["size"] = json_size

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_layout: str | Unset = UNSET
    if not isinstance(layout, Unset):
        json_layout = layout.value

    params["layout"] = json_layout

    json_response: str | Unset = UNSET
    if not isinstance(response, Unset):
        json_response = response.value

    params["response"] = json_response

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "head",
        "url": "/api/v1/images/spin",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | SpinManifestResponse | None:
    if response.status_code == 200:
        response_200 = SpinManifestResponse.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = Problem.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Problem | SpinManifestResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    color: Any | HeadSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadSpinSize | Unset = UNSET,
    format_: HeadSpinFormat | Unset = HeadSpinFormat.WEBP,
    layout: HeadSpinLayout | Unset = HeadSpinLayout.ANIMATION,
    response: HeadSpinResponse | Unset = HeadSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | Problem | SpinManifestResponse]:
    """Validate a spin request without paying for it

     Scope images:read. Free: validated exactly like the GET and answered with its headers, without
    charging or rendering.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | HeadSpinColorType0 | Unset):
        paint (str | Unset):
        finish (HeadSpinFinish | Unset):
        shadow (bool | Unset):
        scale (HeadSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadSpinSize | Unset):
        format_ (HeadSpinFormat | Unset):  Default: HeadSpinFormat.WEBP.
        layout (HeadSpinLayout | Unset):  Default: HeadSpinLayout.ANIMATION.
        response (HeadSpinResponse | Unset):  Default: HeadSpinResponse.IMAGE.
        if_none_match (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SpinManifestResponse]
    """

    kwargs = _get_kwargs(
        make=make,
        model=model,
        year=year,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        layout=layout,
        response=response,
        if_none_match=if_none_match,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    color: Any | HeadSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadSpinSize | Unset = UNSET,
    format_: HeadSpinFormat | Unset = HeadSpinFormat.WEBP,
    layout: HeadSpinLayout | Unset = HeadSpinLayout.ANIMATION,
    response: HeadSpinResponse | Unset = HeadSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | Problem | SpinManifestResponse | None:
    """Validate a spin request without paying for it

     Scope images:read. Free: validated exactly like the GET and answered with its headers, without
    charging or rendering.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | HeadSpinColorType0 | Unset):
        paint (str | Unset):
        finish (HeadSpinFinish | Unset):
        shadow (bool | Unset):
        scale (HeadSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadSpinSize | Unset):
        format_ (HeadSpinFormat | Unset):  Default: HeadSpinFormat.WEBP.
        layout (HeadSpinLayout | Unset):  Default: HeadSpinLayout.ANIMATION.
        response (HeadSpinResponse | Unset):  Default: HeadSpinResponse.IMAGE.
        if_none_match (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SpinManifestResponse
    """

    return sync_detailed(
        client=client,
        make=make,
        model=model,
        year=year,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        layout=layout,
        response=response,
        if_none_match=if_none_match,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    color: Any | HeadSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadSpinSize | Unset = UNSET,
    format_: HeadSpinFormat | Unset = HeadSpinFormat.WEBP,
    layout: HeadSpinLayout | Unset = HeadSpinLayout.ANIMATION,
    response: HeadSpinResponse | Unset = HeadSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | Problem | SpinManifestResponse]:
    """Validate a spin request without paying for it

     Scope images:read. Free: validated exactly like the GET and answered with its headers, without
    charging or rendering.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | HeadSpinColorType0 | Unset):
        paint (str | Unset):
        finish (HeadSpinFinish | Unset):
        shadow (bool | Unset):
        scale (HeadSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadSpinSize | Unset):
        format_ (HeadSpinFormat | Unset):  Default: HeadSpinFormat.WEBP.
        layout (HeadSpinLayout | Unset):  Default: HeadSpinLayout.ANIMATION.
        response (HeadSpinResponse | Unset):  Default: HeadSpinResponse.IMAGE.
        if_none_match (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SpinManifestResponse]
    """

    kwargs = _get_kwargs(
        make=make,
        model=model,
        year=year,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        layout=layout,
        response=response,
        if_none_match=if_none_match,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    color: Any | HeadSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadSpinSize | Unset = UNSET,
    format_: HeadSpinFormat | Unset = HeadSpinFormat.WEBP,
    layout: HeadSpinLayout | Unset = HeadSpinLayout.ANIMATION,
    response: HeadSpinResponse | Unset = HeadSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | Problem | SpinManifestResponse | None:
    """Validate a spin request without paying for it

     Scope images:read. Free: validated exactly like the GET and answered with its headers, without
    charging or rendering.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | HeadSpinColorType0 | Unset):
        paint (str | Unset):
        finish (HeadSpinFinish | Unset):
        shadow (bool | Unset):
        scale (HeadSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadSpinSize | Unset):
        format_ (HeadSpinFormat | Unset):  Default: HeadSpinFormat.WEBP.
        layout (HeadSpinLayout | Unset):  Default: HeadSpinLayout.ANIMATION.
        response (HeadSpinResponse | Unset):  Default: HeadSpinResponse.IMAGE.
        if_none_match (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SpinManifestResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            make=make,
            model=model,
            year=year,
            color=color,
            paint=paint,
            finish=finish,
            shadow=shadow,
            scale=scale,
            w=w,
            h=h,
            size=size,
            format_=format_,
            layout=layout,
            response=response,
            if_none_match=if_none_match,
            idempotency_key=idempotency_key,
        )
    ).parsed
