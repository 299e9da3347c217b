/**
 * The vehicle image service's TypeScript SDK: a typed client on openapi-fetch
 * whose paths, parameters and bodies come from docs/openapi.json (generated
 * into ./generated/openapi.d.ts by openapi-typescript), plus helpers for what a
 * generic client leaves to its caller: image bytes with ETag/304, and
 * Idempotency-Key retries of signed-URL minting.
 *
 * Uses only fetch, Headers, TextEncoder and (where present) crypto, so it
 * runs in browsers and in Node 18 or later.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";

import type { components, operations, paths } from "./generated/openapi.js";

export type { components, operations, paths } from "./generated/openapi.js";

/** The typed client: `vis.GET("/api/v1/account")`, `vis.POST(...)`, … */
export type VisClient = Client<paths>;
export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];
export type ImageUrlsResponse = Schemas["ImageUrlsResponse"];
export type ImageRequest = Schemas["ImageRequest"];
export type BatchImageUrlRequest = Schemas["BatchImageUrlRequest"];
/** The query of GET /api/v1/images/car, less `response` (see getImageUrl). */
export type ImageQuery = Omit<operations["getImage"]["parameters"]["query"], "response">;

export interface VisClientOptions extends ClientOptions {
  /** The API key (sent as `Authorization: Bearer`); leave it out for public endpoints. */
  apiKey?: string;
}

/**
 * A client for `baseUrl` (the service's address, e.g. http://127.0.0.1:8080).
 * With `apiKey`, every request carries it unless the call sets its own
 * Authorization header.
 */
export function createVisClient(options: VisClientOptions = {}): VisClient {
  const { apiKey, ...rest } = options;
  const client = createClient<paths>(rest);
  if (apiKey) {
    client.use({
      onRequest({ request }) {
        if (!request.headers.has("authorization")) {
          request.headers.set("Authorization", `Bearer ${apiKey}`);
        }
        return request;
      },
    });
  }
  return client;
}

/** A failure answered by the service: its status and problem document (RFC 9457). */
export class VisApiError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;
  readonly requestId: string | null;
  /** Seconds to wait, from Retry-After (429, some 503s). */
  readonly retryAfter: number | null;

  constructor(response: Response, body: unknown) {
    const problem = isProblem(body) ? body : undefined;
    super(
      `${response.status} ${problem?.title ?? response.statusText}${problem?.detail ? `: ${problem.detail}` : ""}`,
    );
    this.name = "VisApiError";
    this.status = response.status;
    this.problem = problem;
    this.requestId = response.headers.get("x-request-id") ?? problem?.request_id ?? null;
    this.retryAfter = intHeader(response, "retry-after");
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && "status" in body && "title" in body;
}

function intHeader(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** An image's bytes and what the response said about them. */
export interface Image {
  notModified: false;
  status: 200;
  bytes: Uint8Array;
  /** image/png, image/webp or image/jpeg. */
  contentType: string;
  /** Send it back as `ifNoneMatch` to get a free 304 while the image is unchanged. */
  etag: string | null;
  creditsCharged: number | null;
  creditsRemaining: number | null;
  /** cache or generated (a cold render); both cost the same. */
  imageSource: string | null;
  width: number | null;
  height: number | null;
  requestId: string | null;
  response: Response;
}

/** The image is unchanged since the ETag that was sent: no body, nothing charged. */
export interface NotModified {
  notModified: true;
  status: 304;
  etag: string | null;
  creditsCharged: number | null;
  creditsRemaining: number | null;
  requestId: string | null;
  response: Response;
}

export interface GetImageOptions {
  /** An ETag from an earlier answer: an unchanged image is a free 304. */
  ifNoneMatch?: string | null;
  /** Your own id for the request (1 to 128 of A-Z a-z 0-9 . _ : -), echoed and stored. */
  requestId?: string;
  signal?: AbortSignal;
}

/**
 * One image (1 credit; a 304 is free). Resolves to the bytes, or to
 * `notModified` when `ifNoneMatch` is still current; throws VisApiError for
 * any failure (400, 401, 402, 403, 404, 429, 502, 503).
 */
export async function getImage(
  client: VisClient,
  query: ImageQuery,
  options: GetImageOptions = {},
): Promise<Image | NotModified> {
  const header: operations["getImage"]["parameters"]["header"] = {};
  if (options.ifNoneMatch) header["If-None-Match"] = options.ifNoneMatch;
  if (options.requestId) header["X-Request-Id"] = options.requestId;
  const { data, error, response } = await client.GET("/api/v1/images/car", {
    params: { query: { ...query, response: "image" }, header },
    headers: { Accept: "image/png, image/webp, image/jpeg" },
    parseAs: "arrayBuffer",
    signal: options.signal,
  });
  const common = {
    etag: response.headers.get("etag"),
    creditsCharged: intHeader(response, "x-credits-charged"),
    creditsRemaining: intHeader(response, "x-credits-remaining"),
    requestId: response.headers.get("x-request-id"),
    response,
  };
  if (response.status === 304) {
    return { notModified: true, status: 304, ...common };
  }
  if (error !== undefined || !response.ok || data === undefined) {
    throw new VisApiError(response, error);
  }
  return {
    notModified: false,
    status: 200,
    bytes: new Uint8Array(data as unknown as ArrayBuffer),
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
    imageSource: response.headers.get("x-image-source"),
    width: intHeader(response, "x-image-width"),
    height: intHeader(response, "x-image-height"),
    ...common,
  };
}

/**
 * Remembers each image's bytes and ETag in memory, so that asking again for
 * an unchanged image costs a free 304 instead of a credit.
 */
export class ImageCache {
  private readonly entries = new Map<string, Image>();

  constructor(private readonly client: VisClient) {}

  /** The image, from the service or (after a 304) from this cache. */
  async get(query: ImageQuery, options: Omit<GetImageOptions, "ifNoneMatch"> = {}): Promise<Image> {
    const key = JSON.stringify(Object.entries(query).sort(([a], [b]) => (a < b ? -1 : 1)));
    const cached = this.entries.get(key);
    const answer = await getImage(this.client, query, { ...options, ifNoneMatch: cached?.etag });
    if (answer.notModified) {
      if (!cached) throw new Error("a 304 for an image this cache does not hold");
      return cached;
    }
    this.entries.set(key, answer);
    return answer;
  }
}

/** A new Idempotency-Key (a random UUID). Keep it to retry the same request safely. */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") {
    c.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface CreateImageUrlsOptions {
  /** Defaults to a new key; pass your own to make retries across runs safe. */
  idempotencyKey?: string;
  /** Retries after a network failure, 500, 502 or 503, with the same key (default 2). */
  retries?: number;
  signal?: AbortSignal;
}

export type MintedUrls = ImageUrlsResponse & {
  /** The key the request was sent with. */
  idempotencyKey: string;
  /** True when the service answered a retry with the first answer (charging nothing). */
  replayed: boolean;
};

/**
 * Mints signed delivery URLs (1 credit per URL, charged once) under an
 * Idempotency-Key: the same key with the same body answers the same URLs
 * for 24 hours and charges once, so a retry after a lost answer is safe.
 * Throws VisApiError for any failure (a 409 means the key was used with
 * another body).
 */
export async function createImageUrls(
  client: VisClient,
  body: BatchImageUrlRequest | ImageRequest,
  options: CreateImageUrlsOptions = {},
): Promise<MintedUrls> {
  const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
  const retries = options.retries ?? 2;
  for (let attempt = 0; ; attempt++) {
    let result;
    try {
      result = await client.POST("/api/v1/image-urls", {
        params: { header: { "Idempotency-Key": idempotencyKey } },
        body,
        signal: options.signal,
      });
    } catch (e) {
      if (attempt < retries && !options.signal?.aborted) {
        await sleep(backoff(attempt, null));
        continue;
      }
      throw e;
    }
    const { data, error, response } = result;
    if (data !== undefined && response.status === 201) {
      return {
        ...data,
        idempotencyKey,
        replayed: response.headers.get("idempotent-replayed") === "true",
      };
    }
    const failure = new VisApiError(response, error);
    if (attempt < retries && [500, 502, 503].includes(response.status)) {
      await sleep(backoff(attempt, failure.retryAfter));
      continue;
    }
    throw failure;
  }
}

function backoff(attempt: number, retryAfter: number | null): number {
  if (retryAfter !== null) return retryAfter * 1000;
  return 250 * 2 ** attempt + Math.floor(Math.random() * 100);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The token of a delivery URL (`…/api/v1/delivery/<token>`), for the typed GET/HEAD. */
export function deliveryToken(url: string): string {
  const match = /\/api\/v1\/delivery\/([^/?#]+)/.exec(url);
  if (!match?.[1]) throw new Error(`not a delivery URL: ${url}`);
  return match[1];
}
