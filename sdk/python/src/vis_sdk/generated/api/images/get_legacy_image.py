from http import HTTPStatus
from io import BytesIO
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_legacy_image_background_type_0 import GetLegacyImageBackgroundType0
from ...models.get_legacy_image_color_type_0 import GetLegacyImageColorType0
from ...models.get_legacy_image_finish import GetLegacyImageFinish
from ...models.get_legacy_image_fit import GetLegacyImageFit
from ...models.get_legacy_image_format import GetLegacyImageFormat
from ...models.get_legacy_image_mode import GetLegacyImageMode
from ...models.get_legacy_image_scale import GetLegacyImageScale
from ...models.get_legacy_image_size import GetLegacyImageSize
from ...models.get_legacy_image_view import GetLegacyImageView
from ...models.problem import Problem
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    make: str,
    model: str,
    year: int,
    view: GetLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetLegacyImageSize | Unset = UNSET,
    format_: GetLegacyImageFormat | Unset = UNSET,
    background: Any | GetLegacyImageBackgroundType0 | Unset = UNSET,
    fit: GetLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: GetLegacyImageMode | Unset = UNSET,
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
    elif isinstance(color, GetLegacyImageColorType0):
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
    elif isinstance(background, GetLegacyImageBackgroundType0):
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
        "method": "get",
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
    view: GetLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetLegacyImageSize | Unset = UNSET,
    format_: GetLegacyImageFormat | Unset = UNSET,
    background: Any | GetLegacyImageBackgroundType0 | Unset = UNSET,
    fit: GetLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: GetLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | File | Problem]:
    """The embeddable legacy image endpoint

     The same renders as /api/v1/images/car for <img> tags. Grants, in order: 1. a partner signature (exp
    + sig; free, public until exp, never redirected); 2. mode=cached (free, public; only variants
    already rendered, else 404); 3. the home page's example images (free, public); 4. an API key in
    Authorization or x-api-key (1 credit, private; key in the query only where the deployment allows
    it); 5. the playground cookie (free, private). Anything else is a 401. Unsigned requests with non-
    canonical spellings are a 308 to the canonical URL. See /docs/embeds.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | GetLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetLegacyImageSize | Unset):
        format_ (GetLegacyImageFormat | Unset):
        background (Any | GetLegacyImageBackgroundType0 | Unset):
        fit (GetLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (GetLegacyImageMode | Unset):
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
    view: GetLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetLegacyImageSize | Unset = UNSET,
    format_: GetLegacyImageFormat | Unset = UNSET,
    background: Any | GetLegacyImageBackgroundType0 | Unset = UNSET,
    fit: GetLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: GetLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | File | Problem | None:
    """The embeddable legacy image endpoint

     The same renders as /api/v1/images/car for <img> tags. Grants, in order: 1. a partner signature (exp
    + sig; free, public until exp, never redirected); 2. mode=cached (free, public; only variants
    already rendered, else 404); 3. the home page's example images (free, public); 4. an API key in
    Authorization or x-api-key (1 credit, private; key in the query only where the deployment allows
    it); 5. the playground cookie (free, private). Anything else is a 401. Unsigned requests with non-
    canonical spellings are a 308 to the canonical URL. See /docs/embeds.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | GetLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetLegacyImageSize | Unset):
        format_ (GetLegacyImageFormat | Unset):
        background (Any | GetLegacyImageBackgroundType0 | Unset):
        fit (GetLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (GetLegacyImageMode | Unset):
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
    view: GetLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetLegacyImageSize | Unset = UNSET,
    format_: GetLegacyImageFormat | Unset = UNSET,
    background: Any | GetLegacyImageBackgroundType0 | Unset = UNSET,
    fit: GetLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: GetLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | File | Problem]:
    """The embeddable legacy image endpoint

     The same renders as /api/v1/images/car for <img> tags. Grants, in order: 1. a partner signature (exp
    + sig; free, public until exp, never redirected); 2. mode=cached (free, public; only variants
    already rendered, else 404); 3. the home page's example images (free, public); 4. an API key in
    Authorization or x-api-key (1 credit, private; key in the query only where the deployment allows
    it); 5. the playground cookie (free, private). Anything else is a 401. Unsigned requests with non-
    canonical spellings are a 308 to the canonical URL. See /docs/embeds.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | GetLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetLegacyImageSize | Unset):
        format_ (GetLegacyImageFormat | Unset):
        background (Any | GetLegacyImageBackgroundType0 | Unset):
        fit (GetLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (GetLegacyImageMode | Unset):
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
    view: GetLegacyImageView | Unset = UNSET,
    angle: int | Unset = UNSET,
    color: Any | GetLegacyImageColorType0 | Unset = UNSET,
    paint: str | Unset = UNSET,
    finish: GetLegacyImageFinish | Unset = UNSET,
    shadow: bool | Unset = UNSET,
    scale: GetLegacyImageScale | Unset = UNSET,
    w: int | Unset = UNSET,
    h: int | Unset = UNSET,
    size: GetLegacyImageSize | Unset = UNSET,
    format_: GetLegacyImageFormat | Unset = UNSET,
    background: Any | GetLegacyImageBackgroundType0 | Unset = UNSET,
    fit: GetLegacyImageFit | Unset = UNSET,
    trim: bool | Unset = UNSET,
    padding: int | Unset = UNSET,
    mode: GetLegacyImageMode | Unset = UNSET,
    exp: str | Unset = UNSET,
    sig: str | Unset = UNSET,
    partner: str | Unset = UNSET,
    key: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | File | Problem | None:
    """The embeddable legacy image endpoint

     The same renders as /api/v1/images/car for <img> tags. Grants, in order: 1. a partner signature (exp
    + sig; free, public until exp, never redirected); 2. mode=cached (free, public; only variants
    already rendered, else 404); 3. the home page's example images (free, public); 4. an API key in
    Authorization or x-api-key (1 credit, private; key in the query only where the deployment allows
    it); 5. the playground cookie (free, private). Anything else is a 401. Unsigned requests with non-
    canonical spellings are a 308 to the canonical URL. See /docs/embeds.

    Args:
        make (str):
        model (str):
        year (int):
        view (GetLegacyImageView | Unset):
        angle (int | Unset):
        color (Any | GetLegacyImageColorType0 | Unset):
        paint (str | Unset):
        finish (GetLegacyImageFinish | Unset):
        shadow (bool | Unset):
        scale (GetLegacyImageScale | Unset):
        w (int | Unset):
        h (int | Unset):
        size (GetLegacyImageSize | Unset):
        format_ (GetLegacyImageFormat | Unset):
        background (Any | GetLegacyImageBackgroundType0 | Unset):
        fit (GetLegacyImageFit | Unset):
        trim (bool | Unset):
        padding (int | Unset):
        mode (GetLegacyImageMode | Unset):
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
