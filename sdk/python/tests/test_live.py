"""The SDK against a running server (real HTTP over a socket; sdk/test.sh
starts one): VIS_BASE_URL, VIS_API_KEY (an account with credits) and
VIS_BROKE_KEY (an account with 0 credits)."""

from __future__ import annotations

import os

import pytest

from vis_sdk import (
    Image,
    NotModified,
    Vis,
    VisApiError,
    delivery_token,
    new_idempotency_key,
)
from vis_sdk.generated.api.delivery import head_delivery


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run sdk/test.sh")
    return value


BASE = env("VIS_BASE_URL")
CAMRY = {
    "make": "toyota",
    "model": "camry",
    "year": 2019,
    "color": "red",
    "view": "side",
    "w": 128,
    "format": "png",
}


@pytest.fixture(scope="module")
def vis() -> Vis:
    return Vis(BASE, api_key=env("VIS_API_KEY"))


def balance(vis: Vis) -> int:
    return vis.account().data.credits_


def test_an_image_download_is_one_credit_and_the_bytes_of_the_format_asked_for(
    vis: Vis,
) -> None:
    before = balance(vis)
    image = vis.get_image(**CAMRY)
    assert isinstance(image, Image)
    assert image.content_type == "image/png"
    assert image.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.credits_charged == 1
    assert image.credits_remaining == before - 1
    assert image.etag
    assert image.width is not None and image.width <= 128
    assert balance(vis) == before - 1


def test_if_none_match_with_the_etag_is_a_free_304(vis: Vis) -> None:
    first = vis.get_image(**CAMRY)
    assert isinstance(first, Image)
    before = balance(vis)
    again = vis.get_image(**CAMRY, if_none_match=first.etag)
    assert isinstance(again, NotModified)
    assert again.status == 304 and again.not_modified
    assert again.etag == first.etag
    assert balance(vis) == before, "a 304 charges nothing"
    other = vis.get_image(**CAMRY, if_none_match='"not-the-etag"')
    assert isinstance(other, Image)


def test_an_account_with_0_credits_gets_a_402_problem() -> None:
    broke = Vis(BASE, api_key=env("VIS_BROKE_KEY"))
    with pytest.raises(VisApiError) as caught:
        broke.get_image(**CAMRY)
    e = caught.value
    assert e.status == 402
    assert e.problem["status"] == 402
    assert e.problem["balance"] == 0
    assert e.problem["required_credits"] == 1
    assert e.request_id


def test_signed_urls_minted_twice_with_one_idempotency_key_are_the_same_urls_charged_once(
    vis: Vis,
) -> None:
    before = balance(vis)
    images = [{"make": "toyota", "model": "camry", "year": 2019, "color": "green"}]
    key = new_idempotency_key()
    first = vis.create_image_urls(images, max_uses=3, idempotency_key=key)
    assert not first.replayed
    assert len(first.data) == 1
    assert first.billing.credits_charged == 1
    second = vis.create_image_urls(images, max_uses=3, idempotency_key=key)
    assert second.replayed
    assert second.response.to_dict()["data"] == first.response.to_dict()["data"]
    assert balance(vis) == before - 1, "charged once"
    third = vis.create_image_urls(images, max_uses=3)
    assert third.idempotency_key != key
    assert third.data[0].url != first.data[0].url
    assert balance(vis) == before - 2
    with pytest.raises(VisApiError) as caught:
        vis.create_image_urls(images, max_uses=4, idempotency_key=key)
    assert caught.value.status == 409
    # The URL loads with no key, through the generated public client.
    public = Vis(BASE)
    r = head_delivery.sync_detailed(
        delivery_token(first.data[0].url), client=public.client
    )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/")


def test_resolve_turns_free_text_into_exact_parameters(vis: Vis) -> None:
    resolved = vis.resolve("red 2019 toyota camry side view").data
    assert resolved.params.make == "toyota"
    assert resolved.params.model == "camry"
    assert resolved.params.year == 2019
    assert str(resolved.params.color) == "red"
    assert str(resolved.params.view) == "side"
    assert str(resolved.confidence) == "high"
    assert resolved.image_path.startswith("/api/v1/images/car?")


def test_search_finds_a_model_by_a_misspelling(vis: Vis) -> None:
    hits = vis.search("toyta camry", limit=3)
    assert any(h.make_slug == "toyota" and h.model_slug == "camry" for h in hits)


def test_a_bad_parameter_is_a_400_problem_naming_it(vis: Vis) -> None:
    with pytest.raises(VisApiError) as caught:
        vis.get_image(**{**CAMRY, "year": 1900})
    assert caught.value.status == 400
    assert "year" in caught.value.problem["detail"]
