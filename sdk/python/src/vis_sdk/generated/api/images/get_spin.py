from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_spin_color_type_0 import GetSpinColorType0
from ...models.get_spin_finish import GetSpinFinish
from ...models.get_spin_format import GetSpinFormat
from ...models.get_spin_layout import GetSpinLayout
from ...models.get_spin_response import GetSpinResponse
from ...models.get_spin_scale import GetSpinScale
from ...models.get_spin_size import GetSpinSize
from ...models.problem import Problem
from ...models.spin_manifest_response import SpinManifestResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    make: str,
    model: str,
    year: int,
    color: Any | GetSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetSpinSize | Unset = UNSET,
    format_: GetSpinFormat | Unset = GetSpinFormat.WEBP,
    layout: GetSpinLayout | Unset = GetSpinLayout.ANIMATION,
    response: GetSpinResponse | Unset = GetSpinResponse.IMAGE,
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
    elif isinstance(color, GetSpinColorType0):
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
        "method": "get",
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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
    color: Any | GetSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetSpinSize | Unset = UNSET,
    format_: GetSpinFormat | Unset = GetSpinFormat.WEBP,
    layout: GetSpinLayout | Unset = GetSpinLayout.ANIMATION,
    response: GetSpinResponse | Unset = GetSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | Problem | SpinManifestResponse]:
    """A 360° spin: 24 angles as an animated WebP or a sprite sheet

     Scope images:read. 24 credits for a 200 (one per frame; each frame is the cached variant angle-0 to
    angle-345 of GET /api/v1/images/car, so frames rendered before cost no render); 0 for a 304 and for
    response=manifest. Cold frames render at once on the render nodes; a spin of 24 cold frames can take
    minutes on CPU nodes.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | GetSpinColorType0 | Unset):
        paint (str | Unset):
        finish (GetSpinFinish | Unset):
        shadow (bool | Unset):
        scale (GetSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetSpinSize | Unset):
        format_ (GetSpinFormat | Unset):  Default: GetSpinFormat.WEBP.
        layout (GetSpinLayout | Unset):  Default: GetSpinLayout.ANIMATION.
        response (GetSpinResponse | Unset):  Default: GetSpinResponse.IMAGE.
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
    color: Any | GetSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetSpinSize | Unset = UNSET,
    format_: GetSpinFormat | Unset = GetSpinFormat.WEBP,
    layout: GetSpinLayout | Unset = GetSpinLayout.ANIMATION,
    response: GetSpinResponse | Unset = GetSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | Problem | SpinManifestResponse | None:
    """A 360° spin: 24 angles as an animated WebP or a sprite sheet

     Scope images:read. 24 credits for a 200 (one per frame; each frame is the cached variant angle-0 to
    angle-345 of GET /api/v1/images/car, so frames rendered before cost no render); 0 for a 304 and for
    response=manifest. Cold frames render at once on the render nodes; a spin of 24 cold frames can take
    minutes on CPU nodes.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | GetSpinColorType0 | Unset):
        paint (str | Unset):
        finish (GetSpinFinish | Unset):
        shadow (bool | Unset):
        scale (GetSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetSpinSize | Unset):
        format_ (GetSpinFormat | Unset):  Default: GetSpinFormat.WEBP.
        layout (GetSpinLayout | Unset):  Default: GetSpinLayout.ANIMATION.
        response (GetSpinResponse | Unset):  Default: GetSpinResponse.IMAGE.
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
    color: Any | GetSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetSpinSize | Unset = UNSET,
    format_: GetSpinFormat | Unset = GetSpinFormat.WEBP,
    layout: GetSpinLayout | Unset = GetSpinLayout.ANIMATION,
    response: GetSpinResponse | Unset = GetSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | Problem | SpinManifestResponse]:
    """A 360° spin: 24 angles as an animated WebP or a sprite sheet

     Scope images:read. 24 credits for a 200 (one per frame; each frame is the cached variant angle-0 to
    angle-345 of GET /api/v1/images/car, so frames rendered before cost no render); 0 for a 304 and for
    response=manifest. Cold frames render at once on the render nodes; a spin of 24 cold frames can take
    minutes on CPU nodes.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | GetSpinColorType0 | Unset):
        paint (str | Unset):
        finish (GetSpinFinish | Unset):
        shadow (bool | Unset):
        scale (GetSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetSpinSize | Unset):
        format_ (GetSpinFormat | Unset):  Default: GetSpinFormat.WEBP.
        layout (GetSpinLayout | Unset):  Default: GetSpinLayout.ANIMATION.
        response (GetSpinResponse | Unset):  Default: GetSpinResponse.IMAGE.
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
    color: Any | GetSpinColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetSpinFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetSpinScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetSpinSize | Unset = UNSET,
    format_: GetSpinFormat | Unset = GetSpinFormat.WEBP,
    layout: GetSpinLayout | Unset = GetSpinLayout.ANIMATION,
    response: GetSpinResponse | Unset = GetSpinResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | Problem | SpinManifestResponse | None:
    """A 360° spin: 24 angles as an animated WebP or a sprite sheet

     Scope images:read. 24 credits for a 200 (one per frame; each frame is the cached variant angle-0 to
    angle-345 of GET /api/v1/images/car, so frames rendered before cost no render); 0 for a 304 and for
    response=manifest. Cold frames render at once on the render nodes; a spin of 24 cold frames can take
    minutes on CPU nodes.

    Args:
        make (str):
        model (str):
        year (int):
        color (Any | GetSpinColorType0 | Unset):
        paint (str | Unset):
        finish (GetSpinFinish | Unset):
        shadow (bool | Unset):
        scale (GetSpinScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetSpinSize | Unset):
        format_ (GetSpinFormat | Unset):  Default: GetSpinFormat.WEBP.
        layout (GetSpinLayout | Unset):  Default: GetSpinLayout.ANIMATION.
        response (GetSpinResponse | Unset):  Default: GetSpinResponse.IMAGE.
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
