/**
 * The SDK against a running server (real HTTP over a socket; sdk/test.sh
 * starts one): VIS_BASE_URL, VIS_API_KEY (an account with credits) and
 * VIS_BROKE_KEY (an account with 0 credits).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ImageCache,
  VisApiError,
  createImageUrls,
  createVisClient,
  deliveryToken,
  getImage,
  newIdempotencyKey,
  type ImageQuery,
} from "../src/index.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run sdk/test.sh`);
  return value;
}

const baseUrl = env("VIS_BASE_URL");
const vis = createVisClient({ baseUrl, apiKey: env("VIS_API_KEY") });
const broke = createVisClient({ baseUrl, apiKey: env("VIS_BROKE_KEY") });
const camry: ImageQuery = { make: "toyota", model: "camry", year: 2019, color: "red", view: "side", w: 128, format: "webp" };

async function balance(): Promise<number> {
  const { data, error } = await vis.GET("/api/v1/account");
  assert.equal(error, undefined);
  return data!.data.credits;
}

test("an image download is one credit and the bytes of the format asked for", async () => {
  const before = await balance();
  const image = await getImage(vis, camry);
  assert.equal(image.notModified, false);
  if (image.notModified) return;
  assert.equal(image.contentType, "image/webp");
  assert.equal(new TextDecoder().decode(image.bytes.slice(0, 4)), "RIFF");
  assert.equal(new TextDecoder().decode(image.bytes.slice(8, 12)), "WEBP");
  assert.equal(image.creditsCharged, 1);
  assert.equal(image.creditsRemaining, before - 1);
  assert.ok(image.etag, "an ETag");
  assert.ok(image.width !== null && image.width <= 128);
  assert.equal(await balance(), before - 1);
});

test("If-None-Match with the ETag is a free 304", async () => {
  const first = await getImage(vis, camry);
  assert.equal(first.notModified, false);
  const before = await balance();
  const again = await getImage(vis, camry, { ifNoneMatch: first.etag });
  assert.equal(again.notModified, true);
  assert.equal(again.status, 304);
  assert.equal(again.etag, first.etag);
  assert.equal(await balance(), before, "a 304 charges nothing");
  // The cache helper serves the bytes it holds on a 304.
  const cache = new ImageCache(vis);
  const a = await cache.get(camry);
  const b = await cache.get(camry);
  assert.deepEqual(b.bytes, a.bytes);
  assert.equal(await balance(), before - 1, "the cache paid once");
  // A changed ETag is not a match.
  const other = await getImage(vis, camry, { ifNoneMatch: '"not-the-etag"' });
  assert.equal(other.notModified, false);
});

test("an account with 0 credits gets a 402 problem", async () => {
  await assert.rejects(getImage(broke, camry), (e: unknown) => {
    assert.ok(e instanceof VisApiError);
    assert.equal(e.status, 402);
    assert.equal(e.problem?.status, 402);
    assert.equal(e.problem?.balance, 0);
    assert.equal(e.problem?.required_credits, 1);
    assert.ok(e.requestId);
    return true;
  });
});

test("signed URLs minted twice with one Idempotency-Key are the same URLs, charged once", async () => {
  const before = await balance();
  const body = { images: [{ make: "toyota", model: "camry", year: 2019, color: "blue" as const }], max_uses: 3 };
  const key = newIdempotencyKey();
  const first = await createImageUrls(vis, body, { idempotencyKey: key });
  assert.equal(first.replayed, false);
  assert.equal(first.data.length, 1);
  assert.equal(first.billing.credits_charged, 1);
  const second = await createImageUrls(vis, body, { idempotencyKey: key });
  assert.equal(second.replayed, true);
  assert.deepEqual(second.data, first.data);
  assert.equal(await balance(), before - 1, "charged once");
  // Another key is another purchase.
  const third = await createImageUrls(vis, body);
  assert.notEqual(third.idempotencyKey, key);
  assert.notEqual(third.data[0]!.url, first.data[0]!.url);
  assert.equal(await balance(), before - 2);
  // The same key with another body is refused.
  await assert.rejects(
    createImageUrls(vis, { ...body, max_uses: 4 }, { idempotencyKey: key }),
    (e: unknown) => e instanceof VisApiError && e.status === 409,
  );
  // The URL loads with no key, through the typed public client.
  const url = first.data[0]!.url;
  const publicClient = createVisClient({ baseUrl });
  const head = await publicClient.HEAD("/api/v1/delivery/{token}", {
    params: { path: { token: deliveryToken(url) } },
  });
  assert.equal(head.response.status, 200);
  assert.match(head.response.headers.get("content-type") ?? "", /^image\//);
});

test("resolve turns free text into exact parameters", async () => {
  const { data, error } = await vis.POST("/api/v1/images/resolve", {
    body: { query: "red 2019 toyota camry side view" },
  });
  assert.equal(error, undefined);
  const resolved = data!.data;
  assert.equal(resolved.params.make, "toyota");
  assert.equal(resolved.params.model, "camry");
  assert.equal(resolved.params.year, 2019);
  assert.equal(resolved.params.color, "red");
  assert.equal(resolved.params.view, "side");
  assert.equal(resolved.confidence, "high");
  assert.match(resolved.image_path, /^\/api\/v1\/images\/car\?/);
});

test("a bad parameter is a 400 problem naming it", async () => {
  await assert.rejects(
    getImage(vis, { ...camry, year: 1900 }),
    (e: unknown) => e instanceof VisApiError && e.status === 400 && /year/.test(e.problem?.detail ?? ""),
  );
});
