"""End-to-end check of the remote MCP endpoint with the official Python SDK (mcp==2.3.0).

Plays one whole agent session over Streamable HTTP and checks every answer.
Env: VIS_MCP_URL (e.g. http://127.0.0.1:18080/api/mcp), VIS_MCP_KEY (an API key
with a few credits; one run spends 3). Prints one PASS/FAIL line per named check,
then `N passed, M failed`; exits 1 if any check failed. The key is never printed.
"""

import asyncio
import base64
import json
import os
import sys
import uuid

import httpx2  # the HTTP client the SDK itself depends on (httpx API)
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

URL = os.environ["VIS_MCP_URL"]
KEY = os.environ["VIS_MCP_KEY"]
TOOLS = {"get_image", "create_image_urls", "resolve_vehicle", "search_vehicles",
         "browse_catalog", "get_options", "get_account", "leave_feedback"}
READ_ONLY = {"resolve_vehicle", "search_vehicles", "browse_catalog", "get_options", "get_account"}
BILLED = {"get_image", "create_image_urls"}
# The handshake revision just before the newest one this SDK offers on initialize.
PREVIOUS_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[HANDSHAKE_PROTOCOL_VERSIONS.index(LATEST_HANDSHAKE_VERSION) - 1]

passed, failed = 0, 0
transcript: list[str] = []  # every tool result, serialized, for the secret check


def redact(text: str) -> str:
    return str(text).replace(KEY, "<API KEY>")


def check(name: str, ok: bool, detail: object = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {redact(detail)[:600]}")
    return bool(ok)


def dump(result) -> str:
    d = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    for c in d.get("content", []):
        if c.get("type") == "image":
            c["data"] = f"<{len(c['data'])} base64 chars>"
    return json.dumps(d)


def http_client(with_key: bool = True) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {KEY}"} if with_key else {}
    # A cold render of a never-rendered variant can take up to two minutes.
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=180))


async def call(s: ClientSession, tool: str, args: dict) -> types.CallToolResult | None:
    """tools/call; the SDK also validates structuredContent against the tool's outputSchema."""
    try:
        result = await s.call_tool(tool, args)
    except Exception as e:  # a protocol error or a result that breaks its outputSchema
        check(f"{tool} answers a tool result", False, f"{type(e).__name__}: {e}")
        return None
    transcript.append(dump(result))
    for c in result.content:
        if isinstance(c, types.TextContent):
            transcript.append(c.text)
    return result


def sc(result) -> dict:
    return (result.structured_content or {}) if result is not None else {}


def ok_result(name: str, result) -> bool:
    return check(name, result is not None and not result.is_error and result.structured_content is not None,
                 dump(result) if result is not None else "no result")


def problem(name: str, result, status: int, param: str | None = None) -> None:
    """A failure must be a tool result (isError) carrying an RFC 9457 problem document."""
    doc = sc(result)
    if not check(f"{name}: isError with status {status}", result is not None and result.is_error
                 and doc.get("status") == status, dump(result) if result is not None else "no result"):
        return
    check(f"{name}: problem document has type, title, detail",
          all(isinstance(doc.get(k), str) and doc[k] for k in ("type", "title", "detail")), doc)
    check(f"{name}: problem document has request_id", isinstance(doc.get("request_id"), str), doc)
    if param is not None:
        check(f"{name}: param is {param!r}", doc.get("param") == param, doc)


async def balance(s: ClientSession) -> int | None:
    credits = sc(await call(s, "get_account", {})).get("data", {}).get("credits")
    return credits if isinstance(credits, int) else None


async def main_session(s: ClientSession) -> None:
    init = await s.initialize()
    check("initialize: server name is vehicle-image-service", init.server_info.name == "vehicle-image-service",
          init.server_info)
    text = init.instructions or ""
    check("initialize: instructions mention credits and idempotency_key",
          "credit" in text and "idempotency_key" in text, text[:300])
    check("initialize: tools capability", init.capabilities.tools is not None, init.capabilities)

    listed = {t.name: t for t in (await s.list_tools()).tools}
    check("list_tools: exactly the 8 tools", set(listed) == TOOLS, sorted(listed))
    for name, t in sorted(listed.items()):
        check(f"list_tools {name}: inputSchema is an object schema", t.input_schema.get("type") == "object",
              t.input_schema)
        check(f"list_tools {name}: has outputSchema", bool(t.output_schema), t.output_schema)
        cost = "credit" if name in BILLED else "(free)"
        check(f"list_tools {name}: description states its cost ({cost})", cost in (t.description or ""),
              t.description)
        ro = t.annotations.read_only_hint if t.annotations else None
        check(f"list_tools {name}: readOnlyHint is {name in READ_ONLY}", ro is (name in READ_ONLY), t.annotations)

    start = await balance(s)
    check("get_account: credits is an integer", start is not None, start)

    r = await call(s, "resolve_vehicle", {"query": "red 2019 toyota camry from behind"})
    if ok_result("resolve_vehicle answers", r):
        params = sc(r).get("data", {}).get("params", {})
        check("resolve_vehicle: data.params = toyota camry 2019 (red, rear)",
              (params.get("make"), params.get("model"), params.get("year"), params.get("color"), params.get("view"))
              == ("toyota", "camry", 2019, "red", "rear"), params)
    r = await call(s, "search_vehicles", {"q": "porsche 911"})
    if ok_result("search_vehicles answers", r):
        results = sc(r)["data"].get("results") or []
        check("search_vehicles: finds the Porsche 911",
              any(x.get("make_slug") == "porsche" and x.get("model_slug") == "911" for x in results), results[:3])
    r = await call(s, "browse_catalog", {"year": 2020})
    if ok_result("browse_catalog answers", r):
        check("browse_catalog(year=2020): lists makes", len(sc(r)["data"].get("makes") or []) > 0, sc(r))
    r = await call(s, "get_options", {})
    if ok_result("get_options answers", r):
        check("get_options: data is not empty", bool(sc(r)["data"]), sc(r))

    # get_image: year as a string, coerced by the server; billed once, then replayed for free.
    idem = f"e2e-{uuid.uuid4()}"
    args = {"make": "toyota", "model": "camry", "year": "2019", "width": 256, "format": "webp", "idempotency_key": idem}
    first = await call(s, "get_image", args)
    request_id = None
    if ok_result("get_image answers", first):
        out = sc(first)
        request_id = out.get("request_id")
        images = [c for c in first.content if isinstance(c, types.ImageContent)]
        check("get_image: content is [image, text]", [c.type for c in first.content] == ["image", "text"],
              [c.type for c in first.content])
        raw = base64.b64decode(images[0].data) if images else b""
        check("get_image: image decodes to WebP bytes (RIFF....WEBP)", raw[:4] == b"RIFF" and raw[8:12] == b"WEBP",
              raw[:16])
        check("get_image: mimeType image/webp", bool(images) and images[0].mime_type == "image/webp",
              images[0].mime_type if images else None)
        check("get_image: width and height 256", (out.get("width"), out.get("height")) == (256, 256), out)
        check("get_image: credits_charged 1, replayed false", (out.get("credits_charged"), out.get("replayed"))
              == (1, False), out)
        check("get_image: vehicle.year coerced to 2019", out.get("vehicle", {}).get("year") == 2019, out)
    after_first = await balance(s)
    check("get_image: balance down by exactly 1", start is not None and after_first == start - 1,
          (start, after_first))

    again = await call(s, "get_image", args)
    if ok_result("get_image retry answers", again) and first is not None:
        a, b = sc(first), sc(again)
        check("get_image retry: credits_charged 0, replayed true", (b.get("credits_charged"), b.get("replayed"))
              == (0, True), b)
        check("get_image retry: same etag and request_id", (b.get("etag"), b.get("request_id"))
              == (a.get("etag"), a.get("request_id")), (a, b))
    after_retry = await balance(s)
    check("get_image retry: balance unchanged", after_first is not None and after_retry == after_first,
          (after_first, after_retry))
    problem("get_image same idempotency_key, other colour", await call(s, "get_image", {**args, "color": "red"}),
            409, "idempotency_key")

    # create_image_urls: `images` as a JSON string, billed per URL, replayed with the same URLs.
    images_arg = json.dumps([{"make": "toyota", "model": "camry", "year": 2019, "width": 128, "format": "png"},
                             {"make": "porsche", "model": "911", "year": 2020, "color": "red", "width": 128}])
    url_args = {"images": images_arg, "ttl_seconds": 600, "idempotency_key": f"e2e-{uuid.uuid4()}"}
    made = await call(s, "create_image_urls", url_args)
    urls = [d.get("url") for d in sc(made).get("data", [])]
    if ok_result("create_image_urls answers", made):
        check("create_image_urls: 2 URLs", len(urls) == 2 and all(urls), sc(made))
        check("create_image_urls: billing.credits_charged 2", sc(made).get("billing", {}).get("credits_charged") == 2,
              sc(made).get("billing"))
    after_urls = await balance(s)
    check("create_image_urls: balance down by exactly 2", after_retry is not None and after_urls == after_retry - 2,
          (after_retry, after_urls))
    remade = await call(s, "create_image_urls", url_args)
    if ok_result("create_image_urls retry answers", remade):
        check("create_image_urls retry: identical URLs", [d.get("url") for d in sc(remade).get("data", [])] == urls,
              sc(remade))
    after_reurls = await balance(s)
    check("create_image_urls retry: balance unchanged", after_urls is not None and after_reurls == after_urls,
          (after_urls, after_reurls))
    problem("create_image_urls same idempotency_key, other ttl",
            await call(s, "create_image_urls", {**url_args, "ttl_seconds": 700}), 409, "idempotency_key")
    if urls and urls[0]:
        async with http_client(with_key=False) as plain:
            resp = await plain.get(urls[0])
        check("signed URL: plain GET without key is 200 image/png",
              resp.status_code == 200 and resp.headers.get("content-type", "").startswith("image/")
              and resp.content[:8] == b"\x89PNG\r\n\x1a\n", (resp.status_code, resp.headers.get("content-type")))

    # Framing and staging (docs/framing.md): a studio banner cropped to the vehicle.
    framed = await call(s, "get_image", {"make": "toyota", "model": "camry", "year": 2019, "view": "side",
                                         "width": 320, "height": 180, "background": "studio", "trim": True,
                                         "padding": 8, "shadow": "true", "format": "png"})
    if ok_result("get_image framed answers", framed):
        out = sc(framed)
        check("get_image framed: 320 x 180", (out.get("width"), out.get("height")) == (320, 180), out)
        images = [c for c in framed.content if isinstance(c, types.ImageContent)]
        raw = base64.b64decode(images[0].data) if images else b""
        # IHDR: width, height, bit depth, colour type; the studio backdrop is opaque but the
        # encoder keeps RGBA (6), so read the size only.
        check("get_image framed: a PNG of 320 x 180",
              raw[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(raw[16:20], "big") == 320
              and int.from_bytes(raw[20:24], "big") == 180, raw[:24])
    problem("get_image trim not a boolean",
            await call(s, "get_image", {"make": "toyota", "model": "camry", "year": 2019, "trim": "yes"}), 400, "trim")
    problem("get_image fit without both sides",
            await call(s, "get_image", {"make": "toyota", "model": "camry", "year": 2019, "fit": "cover"}), 400, "fit")

    fb = await call(s, "leave_feedback", {"request_id": request_id or "missing", "verdict": "bad",
                                          "reason": "e2e test: MCP session check"})
    if ok_result("leave_feedback answers", fb):
        data = sc(fb).get("data", {})
        check("leave_feedback: recorded true, asset_id present",
              data.get("recorded") is True and bool(data.get("asset_id")), sc(fb))

    problem("get_image make no-such-make",
            await call(s, "get_image", {"make": "no-such-make", "model": "camry", "year": 2019}), 404, "make")
    problem("get_image unknown argument",
            await call(s, "get_image", {"make": "toyota", "model": "camry", "year": 2019, "bogus": 1}), 400, "bogus")


async def previous_revision_session(s: ClientSession) -> None:
    """ClientSession.initialize() always offers the newest handshake revision, so send the
    initialize request ourselves with the previous one and adopt the result."""
    init = await s.send_request(types.InitializeRequest(params=types.InitializeRequestParams(
        protocol_version=PREVIOUS_VERSION, capabilities=types.ClientCapabilities(),
        client_info=types.Implementation(name="vis-e2e", version="0"))), types.InitializeResult)
    check(f"initialize at {PREVIOUS_VERSION}: server agrees on {PREVIOUS_VERSION}",
          init.protocol_version == PREVIOUS_VERSION, init.protocol_version)
    s.adopt(init)
    await s.send_notification(types.InitializedNotification())
    names = {t.name for t in (await s.list_tools()).tools}
    check(f"tools/list at {PREVIOUS_VERSION}: the 8 tools", names == TOOLS, sorted(names))


async def session(body, label: str) -> None:
    try:
        async with http_client() as hc, streamable_http_client(URL, http_client=hc) as (read, write), \
                ClientSession(read, write) as s:
            await body(s)
    except Exception as e:
        check(f"{label} runs to the end", False, f"{type(e).__name__}: {e!r}")


async def main() -> int:
    await session(main_session, "session")
    check("no tool result contains the API key", all(KEY not in t for t in transcript),
          "the key appears in a tool result")
    await session(previous_revision_session, f"session at {PREVIOUS_VERSION}")

    async with http_client(with_key=False) as plain:
        resp = await plain.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                headers={"Accept": "application/json, text/event-stream"})
    check("no key: HTTP 401", resp.status_code == 401, (resp.status_code, resp.text[:200]))

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
