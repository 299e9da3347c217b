from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_image_background_type_0 import GetImageBackgroundType0
from ...models.get_image_color_type_0 import GetImageColorType0
from ...models.get_image_finish import GetImageFinish
from ...models.get_image_fit import GetImageFit
from ...models.get_image_format import GetImageFormat
from ...models.get_image_response import GetImageResponse
from ...models.get_image_scale import GetImageScale
from ...models.get_image_size import GetImageSize
from ...models.get_image_view import GetImageView
from ...models.image_url_response import ImageUrlResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    make: str,
    model: str,
    year: int,
    view: GetImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetImageSize | Unset = UNSET,
    format_: GetImageFormat | Unset = UNSET,
    background: Any | GetImageBackgroundType0 | Unset = UNSET,
    fit: GetImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    response: GetImageResponse | Unset = GetImageResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(x_request_id, Unset):
        headers["X-Request-Id"] = x_request_id

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

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
    elif isinstance(color, GetImageColorType0):
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
    elif isinstance(background, GetImageBackgroundType0):
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

    json_response: str | Unset = UNSET
    if not isinstance(response, Unset):
        json_response = response.value

    params["response"] = json_response

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/images/car",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ImageUrlResponse | Problem | None:
    if response.status_code == 200:
        response_200 = ImageUrlResponse.from_dict(response.json())

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
) -> Response[Any | ImageUrlResponse | Problem]:
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
    view: GetImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetImageSize | Unset = UNSET,
    format_: GetImageFormat | Unset = UNSET,
    background: Any | GetImageBackgroundType0 | Unset = UNSET,
    fit: GetImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    response: GetImageResponse | Unset = GetImageResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | ImageUrlResponse | Problem]:
    """One image by make, model, year, view, colour, size and format

     Scope images:read. 1 credit for a 200 (image bytes; or with response=url, or Accept:
    application/json and no image type, a signed delivery URL as JSON, charged now, the image rendering
    on the URL's first load); 0 for a 304. A cold render can take up to two minutes; allow three.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetImageView | Unset):
        angle (int | Unset):
        color (Any | GetImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetImageSize | Unset):
        format_ (GetImageFormat | Unset):
        background (Any | GetImageBackgroundType0 | Unset):
        fit (GetImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        response (GetImageResponse | Unset):  Default: GetImageResponse.IMAGE.
        if_none_match (str | Unset):
        x_request_id (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ImageUrlResponse | Problem]
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
        response=response,
        if_none_match=if_none_match,
        x_request_id=x_request_id,
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
    view: GetImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetImageSize | Unset = UNSET,
    format_: GetImageFormat | Unset = UNSET,
    background: Any | GetImageBackgroundType0 | Unset = UNSET,
    fit: GetImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    response: GetImageResponse | Unset = GetImageResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | ImageUrlResponse | Problem | None:
    """One image by make, model, year, view, colour, size and format

     Scope images:read. 1 credit for a 200 (image bytes; or with response=url, or Accept:
    application/json and no image type, a signed delivery URL as JSON, charged now, the image rendering
    on the URL's first load); 0 for a 304. A cold render can take up to two minutes; allow three.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetImageView | Unset):
        angle (int | Unset):
        color (Any | GetImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetImageSize | Unset):
        format_ (GetImageFormat | Unset):
        background (Any | GetImageBackgroundType0 | Unset):
        fit (GetImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        response (GetImageResponse | Unset):  Default: GetImageResponse.IMAGE.
        if_none_match (str | Unset):
        x_request_id (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ImageUrlResponse | Problem
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
        response=response,
        if_none_match=if_none_match,
        x_request_id=x_request_id,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    make: str,
    model: str,
    year: int,
    view: GetImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetImageSize | Unset = UNSET,
    format_: GetImageFormat | Unset = UNSET,
    background: Any | GetImageBackgroundType0 | Unset = UNSET,
    fit: GetImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    response: GetImageResponse | Unset = GetImageResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Any | ImageUrlResponse | Problem]:
    """One image by make, model, year, view, colour, size and format

     Scope images:read. 1 credit for a 200 (image bytes; or with response=url, or Accept:
    application/json and no image type, a signed delivery URL as JSON, charged now, the image rendering
    on the URL's first load); 0 for a 304. A cold render can take up to two minutes; allow three.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetImageView | Unset):
        angle (int | Unset):
        color (Any | GetImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetImageSize | Unset):
        format_ (GetImageFormat | Unset):
        background (Any | GetImageBackgroundType0 | Unset):
        fit (GetImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        response (GetImageResponse | Unset):  Default: GetImageResponse.IMAGE.
        if_none_match (str | Unset):
        x_request_id (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ImageUrlResponse | Problem]
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
        response=response,
        if_none_match=if_none_match,
        x_request_id=x_request_id,
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
    view: GetImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetImageSize | Unset = UNSET,
    format_: GetImageFormat | Unset = UNSET,
    background: Any | GetImageBackgroundType0 | Unset = UNSET,
    fit: GetImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    response: GetImageResponse | Unset = GetImageResponse.IMAGE,
    if_none_match: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Any | ImageUrlResponse | Problem | None:
    """One image by make, model, year, view, colour, size and format

     Scope images:read. 1 credit for a 200 (image bytes; or with response=url, or Accept:
    application/json and no image type, a signed delivery URL as JSON, charged now, the image rendering
    on the URL's first load); 0 for a 304. A cold render can take up to two minutes; allow three.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetImageView | Unset):
        angle (int | Unset):
        color (Any | GetImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetImageSize | Unset):
        format_ (GetImageFormat | Unset):
        background (Any | GetImageBackgroundType0 | Unset):
        fit (GetImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        response (GetImageResponse | Unset):  Default: GetImageResponse.IMAGE.
        if_none_match (str | Unset):
        x_request_id (str | Unset):
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ImageUrlResponse | Problem
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
            response=response,
            if_none_match=if_none_match,
            x_request_id=x_request_id,
            idempotency_key=idempotency_key,
        )
    ).parsed
