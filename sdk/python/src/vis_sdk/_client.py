"""Typed helpers over the generated client (``vis_sdk.generated``): images
with ETag/304, signed URLs under an Idempotency-Key, resolve, search,
account and feedback. Everything else is the generated functions, called
with ``client=vis.client``."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import httpx

from .generated import AuthenticatedClient, Client
from .generated.api.account import account as _account
from .generated.api.catalog import vehicles as _vehicles
from .generated.api.delivery import create_image_urls as _create_image_urls
from .generated.api.feedback import feedback as _feedback
from .generated.api.images import resolve as _resolve
from .generated.models import (
    AccountResponse,
    BatchImageUrlRequest,
    CatalogSearchHit,
    FeedbackRequest,
    FeedbackResponse,
    GetImageFinish,
    GetImageFormat,
    GetImageSize,
    GetImageView,
    ImageUrlsResponse,
    ResolveRequest,
    ResolveResponse,
)
from .generated.types import UNSET, Response


class VisApiError(Exception):
    """A failure answered by the service: its status and problem document
    (RFC 9457) as a dict."""

    def __init__(self, response: Response[Any] | httpx.Response) -> None:
        self.status: int = int(response.status_code)
        self.problem: dict[str, Any] = {}
        try:
            import json

            body = json.loads(response.content or b"null")
            if isinstance(body, dict):
                self.problem = body
        except ValueError:
            pass
        headers = response.headers
        self.request_id: str | None = headers.get("x-request-id") or self.problem.get(
            "request_id"
        )
        self.retry_after: int | None = _int(headers.get("retry-after"))
        title = self.problem.get("title", "error")
        detail = self.problem.get("detail")
        super().__init__(f"{self.status} {title}" + (f": {detail}" if detail else ""))


def _int(value: str | None) -> int | None:
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())


@dataclass(frozen=True)
class Image:
    """An image's bytes and what the response said about them."""

    content: bytes
    content_type: str
    etag: str | None
    credits_charged: int | None
    credits_remaining: int | None
    image_source: str | None
    width: int | None
    height: int | None
    request_id: str | None
    status: int = 200
    not_modified: bool = False


@dataclass(frozen=True)
class NotModified:
    """The image is unchanged since the ETag sent: no body, nothing charged."""

    etag: str | None
    credits_charged: int | None
    credits_remaining: int | None
    request_id: str | None
    status: int = 304
    not_modified: bool = True


@dataclass(frozen=True)
class MintedUrls:
    """Signed delivery URLs, with the Idempotency-Key they were minted under."""

    response: ImageUrlsResponse
    idempotency_key: str
    replayed: bool

    @property
    def data(self):
        return self.response.data

    @property
    def billing(self):
        return self.response.billing


def new_idempotency_key() -> str:
    """A new Idempotency-Key; keep it to retry the same request safely."""
    return str(uuid.uuid4())


def delivery_token(url: str) -> str:
    """The token of a delivery URL (``…/api/v1/delivery/<token>``)."""
    marker = "/api/v1/delivery/"
    if marker not in url:
        raise ValueError(f"not a delivery URL: {url}")
    return url.split(marker, 1)[1].split("?", 1)[0].split("#", 1)[0]


def _opt(value: Any) -> Any:
    return UNSET if value is None else value


class Vis:
    """The service at ``base_url``. With ``api_key`` the keyed endpoints
    work too; ``vis.client`` is the generated client for every operation."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 180.0,
        httpx_args: Mapping[str, Any] | None = None,
    ) -> None:
        # A cold render can take up to two minutes: allow three.
        args: dict[str, Any] = {
            "base_url": base_url,
            "timeout": httpx.Timeout(timeout),
            "httpx_args": dict(httpx_args or {}),
        }
        self.client: AuthenticatedClient | Client
        if api_key:
            self.client = AuthenticatedClient(token=api_key, **args)
        else:
            self.client = Client(**args)

    def close(self) -> None:
        self.client.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_image(
        self,
        make: str,
        model: str,
        year: int,
        *,
        view: str | None = None,
        color: str | None = None,
        paint: str | None = None,
        finish: str | None = None,
        w: int | None = None,
        h: int | None = None,
        size: str | None = None,
        format: str | None = None,
        if_none_match: str | None = None,
        request_id: str | None = None,
    ) -> Image | NotModified:
        """One image (1 credit). With ``if_none_match`` (an earlier ETag), an
        unchanged image is a free 304 (``NotModified``). Raises VisApiError
        for any failure (400, 401, 402, 403, 404, 429, 502, 503)."""
        # Not the generated get_image: it reads every 200 as the JSON form
        # (response=url), while this wants the image's bytes. The generated
        # enums still check the values before anything is sent.
        params: dict[str, Any] = {"make": make, "model": model, "year": year}
        for name, value, kind in (
            ("view", view, GetImageView),
            ("finish", finish, GetImageFinish),
            ("size", size, GetImageSize),
            ("format", format, GetImageFormat),
        ):
            if value is not None:
                params[name] = kind(value).value
        # color is a preset or #RRGGBB, paint a paint code of the make: the
        # server checks both (a 400 naming the parameter).
        if color is not None:
            params["color"] = color
        if paint is not None:
            params["paint"] = paint
        if w is not None:
            params["w"] = w
        if h is not None:
            params["h"] = h
        headers_out = {"Accept": "image/png, image/webp, image/jpeg"}
        if if_none_match:
            headers_out["If-None-Match"] = if_none_match
        if request_id:
            headers_out["X-Request-Id"] = request_id
        r = self.client.get_httpx_client().get(
            "/api/v1/images/car", params=params, headers=headers_out
        )
        headers = r.headers
        if r.status_code == 304:
            return NotModified(
                etag=headers.get("etag"),
                credits_charged=_int(headers.get("x-credits-charged")),
                credits_remaining=_int(headers.get("x-credits-remaining")),
                request_id=headers.get("x-request-id"),
            )
        if r.status_code != 200:
            raise VisApiError(r)
        return Image(
            content=r.content,
            content_type=headers.get("content-type", "application/octet-stream"),
            etag=headers.get("etag"),
            credits_charged=_int(headers.get("x-credits-charged")),
            credits_remaining=_int(headers.get("x-credits-remaining")),
            image_source=headers.get("x-image-source"),
            width=_int(headers.get("x-image-width")),
            height=_int(headers.get("x-image-height")),
            request_id=headers.get("x-request-id"),
        )

    def create_image_urls(
        self,
        images: Sequence[Mapping[str, Any]],
        *,
        ttl_seconds: int | None = None,
        max_uses: int | None = None,
        idempotency_key: str | None = None,
        retries: int = 2,
    ) -> MintedUrls:
        """Mints signed delivery URLs (1 credit each, charged once) under an
        Idempotency-Key (a new one unless given): the same key with the same
        body answers the same URLs for 24 hours and charges once, so the
        retries after a network failure, 500, 502 or 503 are safe. Raises
        VisApiError (409: the key was used with another body)."""
        key = idempotency_key or new_idempotency_key()
        body: dict[str, Any] = {"images": [dict(i) for i in images]}
        if ttl_seconds is not None:
            body["ttl_seconds"] = ttl_seconds
        if max_uses is not None:
            body["max_uses"] = max_uses
        request = BatchImageUrlRequest.from_dict(body)
        attempt = 0
        while True:
            try:
                r = _create_image_urls.sync_detailed(
                    client=self.client,  # type: ignore[arg-type]
                    body=request,
                    idempotency_key=key,
                )
            except httpx.TransportError:
                if attempt >= retries:
                    raise
                time.sleep(_backoff(attempt, None))
                attempt += 1
                continue
            if r.status_code == 201 and isinstance(r.parsed, ImageUrlsResponse):
                return MintedUrls(
                    response=r.parsed,
                    idempotency_key=key,
                    replayed=r.headers.get("idempotent-replayed") == "true",
                )
            error = VisApiError(r)
            if attempt < retries and r.status_code in (500, 502, 503):
                time.sleep(_backoff(attempt, error.retry_after))
                attempt += 1
                continue
            raise error

    def resolve(
        self,
        query: str,
        *,
        year: int | None = None,
        make: str | None = None,
        model: str | None = None,
    ) -> ResolveResponse:
        """Free text to exact image parameters (free; scope account:read)."""
        body = ResolveRequest(
            query=query, year=_opt(year), make=_opt(make), model=_opt(model)
        )
        r = _resolve.sync_detailed(client=self.client, body=body)  # type: ignore[arg-type]
        return _expect(r, ResolveResponse)

    def search(
        self, q: str, *, year: int | None = None, limit: int | None = None
    ) -> list[CatalogSearchHit]:
        """Catalog search (public, free): makes and models, misspellings allowed."""
        r = _vehicles.sync_detailed(
            client=self.client, q=q, year=_opt(year), limit=_opt(limit)
        )
        if r.status_code != 200:
            raise VisApiError(r)
        data = r.parsed.data  # type: ignore[union-attr]
        return list(data.results)  # type: ignore[union-attr]

    def account(self) -> AccountResponse:
        """Balance, pricing, 30-day usage and the calling key (free)."""
        r = _account.sync_detailed(client=self.client)  # type: ignore[arg-type]
        return _expect(r, AccountResponse)

    def feedback(self, **fields: Any) -> FeedbackResponse:
        """Reports a render good or bad: ``request_id=`` or ``make=, model=,
        year=`` (with ``view=``, ``color=``), and ``verdict=`` or ``rating=``."""
        r = _feedback.sync_detailed(
            client=self.client,  # type: ignore[arg-type]
            body=FeedbackRequest.from_dict(fields),
        )
        return _expect(r, FeedbackResponse)


def _expect(r: Response[Any], kind: type) -> Any:
    if r.status_code // 100 == 2 and isinstance(r.parsed, kind):
        return r.parsed
    raise VisApiError(r)


def _backoff(attempt: int, retry_after: int | None) -> float:
    if retry_after is not None:
        return float(retry_after)
    return 0.25 * 2**attempt + random.random() / 10
