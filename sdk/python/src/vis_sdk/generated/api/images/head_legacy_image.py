from http import HTTPStatus
from io import BytesIO
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.head_legacy_image_background_type_0 import HeadLegacyImageBackgroundType0
from ...models.head_legacy_image_color_type_0 import HeadLegacyImageColorType0
from ...models.head_legacy_image_finish import HeadLegacyImageFinish
from ...models.head_legacy_image_fit import HeadLegacyImageFit
from ...models.head_legacy_image_format import HeadLegacyImageFormat
from ...models.head_legacy_image_mode import HeadLegacyImageMode
from ...models.head_legacy_image_scale import HeadLegacyImageScale
from ...models.head_legacy_image_size import HeadLegacyImageSize
from ...models.head_legacy_image_view import HeadLegacyImageView
from ...models.problem import Problem
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    make: str,
    model: str,
    year: int,
    view: HeadLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | HeadLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadLegacyImageSize | Unset = UNSET,
    format_: HeadLegacyImageFormat | Unset = UNSET,
    background: Any | HeadLegacyImageBackgroundType0 | Unset = UNSET,
    fit: HeadLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: HeadLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    params: dict[str, Any] = {}

    params["make"] = make

    params["model"] = model

    params["year"] = year

    json_view: str | Unset = UNSET
    if not isinstance(view, Unset):
        json_view = view.value

    params["view"] = json_view

    params["angle"] = angle

    json_color: Any | str | Unset
    if isinstance(color, Unset):
        json_color = UNSET
    elif isinstance(color, HeadLegacyImageColorType0):
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

    json_background: Any | str | Unset
    if isinstance(background, Unset):
        json_background = UNSET
    elif isinstance(background, HeadLegacyImageBackgroundType0):
        json_background = background.value
    else:
        json_background = background
    params["background"] = json_background

    json_fit: str | Unset = UNSET
    if not isinstance(fit, Unset):
        json_fit = fit.value

    params["fit"] = json_fit

    params["trim"] = trim

    params["padding"] = padding

    json_mode: str | Unset = UNSET
    if not isinstance(mode, Unset):
        json_mode = mode.value

    params["mode"] = json_mode

    params["exp"] = exp

    params["sig"] = sig

    params["partner"] = partner

    params["key"] = key

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "head",
        "url": "/images/car.png",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | File | Problem | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 308:
        response_308 = cast(Any, None)
        return response_308

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
) -> Response[Any | File | Problem]:
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
    view: HeadLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | HeadLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadLegacyImageSize | Unset = UNSET,
    format_: HeadLegacyImageFormat | Unset = UNSET,
    background: Any | HeadLegacyImageBackgroundType0 | Unset = UNSET,
    fit: HeadLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: HeadLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | File | Problem]:
    """Validate an embeddable image request without paying for it

     The same checks and headers as the GET; never charges, renders or counts against an allowance.

    Args:
        make (str):
        model (str):
        year (int):
        view (HeadLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | HeadLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (HeadLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (HeadLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadLegacyImageSize | Unset):
        format_ (HeadLegacyImageFormat | Unset):
        background (Any | HeadLegacyImageBackgroundType0 | Unset):
        fit (HeadLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (HeadLegacyImageMode | Unset):
        exp (str | Unset):
        sig (str | Unset):
        partner (str | Unset):
        key (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
    """

    kwargs = _get_kwargs(
        make=make,
        model=model,
        year=year,
        view=view,
        angle=angle,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        background=background,
        fit=fit,
        trim=trim,
        padding=padding,
        mode=mode,
        exp=exp,
        sig=sig,
        partner=partner,
        key=key,
        if_none_match=if_none_match,
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
    view: HeadLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | HeadLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadLegacyImageSize | Unset = UNSET,
    format_: HeadLegacyImageFormat | Unset = UNSET,
    background: Any | HeadLegacyImageBackgroundType0 | Unset = UNSET,
    fit: HeadLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: HeadLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | File | Problem | None:
    """Validate an embeddable image request without paying for it

     The same checks and headers as the GET; never charges, renders or counts against an allowance.

    Args:
        make (str):
        model (str):
        year (int):
        view (HeadLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | HeadLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (HeadLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (HeadLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadLegacyImageSize | Unset):
        format_ (HeadLegacyImageFormat | Unset):
        background (Any | HeadLegacyImageBackgroundType0 | Unset):
        fit (HeadLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (HeadLegacyImageMode | Unset):
        exp (str | Unset):
        sig (str | Unset):
        partner (str | Unset):
        key (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
    """

    return sync_detailed(
        client=client,
        make=make,
        model=model,
        year=year,
        view=view,
        angle=angle,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        background=background,
        fit=fit,
        trim=trim,
        padding=padding,
        mode=mode,
        exp=exp,
        sig=sig,
        partner=partner,
        key=key,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    view: HeadLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | HeadLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadLegacyImageSize | Unset = UNSET,
    format_: HeadLegacyImageFormat | Unset = UNSET,
    background: Any | HeadLegacyImageBackgroundType0 | Unset = UNSET,
    fit: HeadLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: HeadLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | File | Problem]:
    """Validate an embeddable image request without paying for it

     The same checks and headers as the GET; never charges, renders or counts against an allowance.

    Args:
        make (str):
        model (str):
        year (int):
        view (HeadLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | HeadLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (HeadLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (HeadLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadLegacyImageSize | Unset):
        format_ (HeadLegacyImageFormat | Unset):
        background (Any | HeadLegacyImageBackgroundType0 | Unset):
        fit (HeadLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (HeadLegacyImageMode | Unset):
        exp (str | Unset):
        sig (str | Unset):
        partner (str | Unset):
        key (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | File | Problem]
    """

    kwargs = _get_kwargs(
        make=make,
        model=model,
        year=year,
        view=view,
        angle=angle,
        color=color,
        paint=paint,
        finish=finish,
        shadow=shadow,
        scale=scale,
        w=w,
        h=h,
        size=size,
        format_=format_,
        background=background,
        fit=fit,
        trim=trim,
        padding=padding,
        mode=mode,
        exp=exp,
        sig=sig,
        partner=partner,
        key=key,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    view: HeadLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | HeadLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: HeadLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: HeadLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: HeadLegacyImageSize | Unset = UNSET,
    format_: HeadLegacyImageFormat | Unset = UNSET,
    background: Any | HeadLegacyImageBackgroundType0 | Unset = UNSET,
    fit: HeadLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: HeadLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | File | Problem | None:
    """Validate an embeddable image request without paying for it

     The same checks and headers as the GET; never charges, renders or counts against an allowance.

    Args:
        make (str):
        model (str):
        year (int):
        view (HeadLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | HeadLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (HeadLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (HeadLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (HeadLegacyImageSize | Unset):
        format_ (HeadLegacyImageFormat | Unset):
        background (Any | HeadLegacyImageBackgroundType0 | Unset):
        fit (HeadLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (HeadLegacyImageMode | Unset):
        exp (str | Unset):
        sig (str | Unset):
        partner (str | Unset):
        key (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | File | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            make=make,
            model=model,
            year=year,
            view=view,
            angle=angle,
            color=color,
            paint=paint,
            finish=finish,
            shadow=shadow,
            scale=scale,
            w=w,
            h=h,
            size=size,
            format_=format_,
            background=background,
            fit=fit,
            trim=trim,
            padding=padding,
            mode=mode,
            exp=exp,
            sig=sig,
            partner=partner,
            key=key,
            if_none_match=if_none_match,
        )
    ).parsed
