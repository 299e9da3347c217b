//! `x-codeSamples` of the public operations (Redoc shows them beside each
//! operation): curl, the `vis` command line where it has a command for
//! the operation, and the TypeScript and Python SDKs of `sdk/`. The SDK
//! samples call the SDKs' real names; `sdk/test.sh` exercises the same
//! calls against a running server.

use serde_json::{Value, json};

const BASE: &str = "http://127.0.0.1:8080";

fn ts_client() -> String {
    format!(
        "import {{ createVisClient }} from \"vis-sdk\";\n\nconst vis = createVisClient({{ baseUrl: \"{BASE}\", apiKey: process.env.VIS_API_KEY }});\n"
    )
}

fn ts_public() -> String {
    format!(
        "import {{ createVisClient }} from \"vis-sdk\";\n\nconst vis = createVisClient({{ baseUrl: \"{BASE}\" }});\n"
    )
}

fn py_client() -> String {
    format!(
        "import os\nfrom vis_sdk import Vis\n\nvis = Vis(\"{BASE}\", api_key=os.environ[\"VIS_API_KEY\"])\n"
    )
}

fn py_public() -> String {
    format!("from vis_sdk import Vis\n\nvis = Vis(\"{BASE}\")\n")
}

fn set(curl: String, cli: Option<&str>, ts: String, py: String) -> Value {
    let mut samples = vec![json!({ "lang": "Shell", "label": "curl", "source": curl })];
    if let Some(cli) = cli {
        samples.push(json!({ "lang": "Shell", "label": "vis CLI", "source": cli }));
    }
    samples.push(json!({ "lang": "TypeScript", "label": "TypeScript", "source": ts }));
    samples.push(json!({ "lang": "Python", "label": "Python", "source": py }));
    Value::Array(samples)
}

fn keyed_curl(rest: &str) -> String {
    format!("curl -sS -H \"Authorization: Bearer $VIS_API_KEY\" {rest}")
}

/// The samples of one operation, by its operationId; `None` for the
/// routes outside the public document.
pub fn code_samples(operation_id: &str) -> Option<Value> {
    let car = format!(
        "\"{BASE}/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&size=small&format=webp\""
    );
    let samples = match operation_id {
        "getImage" => set(
            keyed_curl(&format!("-D - -o camry.webp \\\n  {car}")),
            Some(
                "vis image toyota camry 2019 --color red --view side --size small --format webp -o camry.webp",
            ),
            format!(
                "{}import {{ getImage }} from \"vis-sdk\";\n\nconst query = {{ make: \"toyota\", model: \"camry\", year: 2019, color: \"red\", view: \"side\", size: \"small\", format: \"webp\" }} as const;\nconst image = await getImage(vis, query);  // 1 credit\n// image.bytes (Uint8Array), image.contentType, image.etag, image.creditsRemaining\nconst again = await getImage(vis, query, {{ ifNoneMatch: image.etag }});\n// again.notModified === true while the image is unchanged: a 304, free\n",
                ts_client()
            ),
            format!(
                "{}\nimage = vis.get_image(make=\"toyota\", model=\"camry\", year=2019, color=\"red\", view=\"side\", size=\"small\", format=\"webp\")\nopen(\"camry.webp\", \"wb\").write(image.content)  # 1 credit\nagain = vis.get_image(make=\"toyota\", model=\"camry\", year=2019, color=\"red\", view=\"side\", size=\"small\", format=\"webp\", if_none_match=image.etag)\nassert again.not_modified  # a 304, free\n",
                py_client()
            ),
        ),
        "headImage" => set(
            keyed_curl(&format!("-I \\\n  {car}")),
            None,
            format!(
                "{}\nconst {{ response }} = await vis.HEAD(\"/api/v1/images/car\", {{\n  params: {{ query: {{ make: \"toyota\", model: \"camry\", year: 2019, color: \"red\" }} }},\n}});\nconsole.log(response.status, response.headers.get(\"etag\"));  // free\n",
                ts_client()
            ),
            format!(
                "{}\n# The generated head_image reads a 200 as the JSON form; a HEAD has no body, so ask httpx.\nr = vis.client.get_httpx_client().head(\"/api/v1/images/car\", params={{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"color\": \"red\"}})\nprint(r.status_code, r.headers.get(\"etag\"))  # free\n",
                py_client()
            ),
        ),
        "getSpin" => set(
            keyed_curl(&format!(
                "-D - -o camry-spin.webp \\\n  \"{BASE}/api/v1/images/spin?make=toyota&model=camry&year=2019&color=red&w=256\""
            )),
            Some("vis spin toyota camry 2019 --color red --width 256 -o camry-spin.webp"),
            format!(
                "{}\nconst {{ data, response }} = await vis.GET(\"/api/v1/images/spin\", {{\n  params: {{ query: {{ make: \"toyota\", model: \"camry\", year: 2019, color: \"red\", w: 256 }} }},\n  parseAs: \"arrayBuffer\",\n}});  // 24 credits: an animated WebP of 24 frames\nconsole.log(response.headers.get(\"x-spin-frames\"), data?.byteLength);\n",
                ts_client()
            ),
            format!(
                "{}\n# 24 credits: an animated WebP of the 24 angles (cold frames render first).\nr = vis.client.get_httpx_client().get(\"/api/v1/images/spin\", params={{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"color\": \"red\", \"w\": 256}}, timeout=600)\nprint(r.status_code, r.headers.get(\"x-spin-frames\"), len(r.content))\n",
                py_client()
            ),
        ),
        "headSpin" => set(
            keyed_curl(&format!(
                "-I \\\n  \"{BASE}/api/v1/images/spin?make=toyota&model=camry&year=2019&color=red&layout=sprite\""
            )),
            None,
            format!(
                "{}\nconst {{ response }} = await vis.HEAD(\"/api/v1/images/spin\", {{\n  params: {{ query: {{ make: \"toyota\", model: \"camry\", year: 2019, layout: \"sprite\" }} }},\n}});\nconsole.log(response.status, response.headers.get(\"x-spin-grid\"));  // free\n",
                ts_client()
            ),
            format!(
                "{}\nr = vis.client.get_httpx_client().head(\"/api/v1/images/spin\", params={{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"layout\": \"sprite\"}})\nprint(r.status_code, r.headers.get(\"x-spin-grid\"))  # free\n",
                py_client()
            ),
        ),
        "getLegacyImage" | "headLegacyImage" => set(
            format!(
                "curl -sS {}-o camry.png \"{BASE}/images/car.png?make=toyota&model=camry&year=2019&mode=cached\"\n# or in a page: <img src=\"{BASE}/images/car.png?make=toyota&model=camry&year=2019&mode=cached\">",
                if operation_id == "headLegacyImage" {
                    "-I "
                } else {
                    ""
                }
            ),
            None,
            format!(
                "{}\nconst {{ response }} = await vis.{}(\"/images/car.png\", {{\n  params: {{ query: {{ make: \"toyota\", model: \"camry\", year: 2019, mode: \"cached\" }} }},\n  parseAs: \"blob\",\n}});\nconsole.log(response.status, response.headers.get(\"content-type\"));\n",
                ts_public(),
                if operation_id == "headLegacyImage" {
                    "HEAD"
                } else {
                    "GET"
                }
            ),
            format!(
                "{}from vis_sdk.generated.api.images import {op}\nfrom vis_sdk.generated.models import {mode}\n\nr = {op}.sync_detailed(client=vis.client, make=\"toyota\", model=\"camry\", year=2019, mode={mode}.CACHED)\nprint(r.status_code, r.headers.get(\"content-type\"))\n",
                py_public(),
                op = if operation_id == "headLegacyImage" {
                    "head_legacy_image"
                } else {
                    "get_legacy_image"
                },
                mode = if operation_id == "headLegacyImage" {
                    "HeadLegacyImageMode"
                } else {
                    "GetLegacyImageMode"
                }
            ),
        ),
        "resolve" => set(
            keyed_curl(&format!(
                "-H 'content-type: application/json' \\\n  -d '{{\"query\": \"navy 2019 camry from behind, 512px webp\"}}' \\\n  {BASE}/api/v1/images/resolve"
            )),
            Some("vis resolve \"navy 2019 camry from behind, 512px webp\""),
            format!(
                "{}\nconst {{ data, error }} = await vis.POST(\"/api/v1/images/resolve\", {{\n  body: {{ query: \"navy 2019 camry from behind, 512px webp\" }},\n}});\nif (data?.data.confidence === \"high\") console.log(data.data.image_path);\n",
                ts_client()
            ),
            format!(
                "{}\nresolved = vis.resolve(\"navy 2019 camry from behind, 512px webp\")\nif resolved.data.confidence == \"high\":\n    print(resolved.data.image_path)\n",
                py_client()
            ),
        ),
        "createImageUrls" => set(
            keyed_curl(&format!(
                "-H 'content-type: application/json' \\\n  -H \"Idempotency-Key: $(uuidgen)\" \\\n  -d '{{\"images\": [{{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"color\": \"red\"}}], \"max_uses\": 10}}' \\\n  {BASE}/api/v1/image-urls"
            )),
            Some("vis urls toyota camry 2019 --color red --max-uses 10"),
            format!(
                "{}import {{ createImageUrls, newIdempotencyKey }} from \"vis-sdk\";\n\nconst key = newIdempotencyKey();  // reuse it to retry safely\nconst urls = await createImageUrls(vis, {{\n  images: [{{ make: \"toyota\", model: \"camry\", year: 2019, color: \"red\" }}],\n  max_uses: 10,\n}}, {{ idempotencyKey: key }});\nconsole.log(urls.data[0]?.url);  // no key needed to load it\n",
                ts_client()
            ),
            format!(
                "{}\nurls = vis.create_image_urls(\n    [{{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"color\": \"red\"}}],\n    max_uses=10,\n    idempotency_key=\"order-1234-images\",  # the same key answers the same URLs, charged once\n)\nprint(urls.data[0].url)\n",
                py_client()
            ),
        ),
        "getDelivery" | "headDelivery" => {
            let head = operation_id == "headDelivery";
            set(
                format!(
                    "curl -sS {}\"$DELIVERY_URL\"   # a data[].url from POST /api/v1/image-urls; no key",
                    if head { "-I " } else { "-o car.png " }
                ),
                None,
                format!(
                    "{}import {{ deliveryToken }} from \"vis-sdk\";\n\nconst url = process.env.DELIVERY_URL!;  // a data[].url from createImageUrls\nconst {{ response }} = await vis.{}(\"/api/v1/delivery/{{token}}\", {{\n  params: {{ path: {{ token: deliveryToken(url) }} }},{}\n}});\nconsole.log(response.status, response.headers.get(\"content-type\"));\n",
                    ts_public(),
                    if head { "HEAD" } else { "GET" },
                    if head { "" } else { "\n  parseAs: \"blob\"," }
                ),
                format!(
                    "import os\n{}from vis_sdk import delivery_token\nfrom vis_sdk.generated.api.delivery import {op}\n\nurl = os.environ[\"DELIVERY_URL\"]  # a data[].url from create_image_urls\nr = {op}.sync_detailed(delivery_token(url), client=vis.client)\nprint(r.status_code, r.headers.get(\"content-type\"))\n",
                    py_public(),
                    op = if head {
                        "head_delivery"
                    } else {
                        "get_delivery"
                    }
                ),
            )
        }
        "options" => set(
            format!("curl -sS {BASE}/api/v1/images/options"),
            None,
            format!(
                "{}\nconst {{ data }} = await vis.GET(\"/api/v1/images/options\");\nconsole.log(data?.data.views.map((v) => v.id));\n",
                ts_public()
            ),
            format!(
                "{}from vis_sdk.generated.api.catalog import options\n\ndoc = options.sync(client=vis.client)\nprint([v.id for v in doc.data.views])\n",
                py_public()
            ),
        ),
        "vehicles" => set(
            format!("curl -sS \"{BASE}/api/v1/vehicles?q=porsche%20911&limit=5\""),
            Some("vis search \"porsche 911\" --limit 5"),
            format!(
                "{}\nconst {{ data }} = await vis.GET(\"/api/v1/vehicles\", {{ params: {{ query: {{ q: \"porsche 911\", limit: 5 }} }} }});\nconsole.log(data?.data);\n",
                ts_public()
            ),
            format!(
                "{}\nhits = vis.search(\"porsche 911\", limit=5)\nfor hit in hits:\n    print(hit.make_name, hit.model_name, hit.years)\n",
                py_public()
            ),
        ),
        "account" => set(
            keyed_curl(&format!("{BASE}/api/v1/account")),
            Some("vis account"),
            format!(
                "{}\nconst {{ data }} = await vis.GET(\"/api/v1/account\");\nconsole.log(data?.data.credits);\n",
                ts_client()
            ),
            format!("{}\nprint(vis.account().data.credits_)\n", py_client()),
        ),
        "deviceCode" | "deviceToken" => set(
            if operation_id == "deviceCode" {
                format!(
                    "curl -sS -H 'content-type: application/json' -d '{{\"client_name\": \"my laptop\"}}' \\\n  {BASE}/api/auth/device/code"
                )
            } else {
                format!(
                    "curl -sS -H 'content-type: application/json' -d \"{{\\\"device_code\\\": \\\"$DEVICE_CODE\\\"}}\" \\\n  {BASE}/api/auth/device/token"
                )
            },
            Some("vis login --name \"my laptop\""),
            format!(
                "{}\nconst {{ data: code }} = await vis.POST(\"/api/auth/device/code\", {{ body: {{ client_name: \"my laptop\" }} }});\nconsole.log(`Open ${{code!.verification_uri_complete}}`);\n// then every code.interval seconds:\nconst {{ data, error }} = await vis.POST(\"/api/auth/device/token\", {{ body: {{ device_code: code!.device_code }} }});\n// error?.error === \"authorization_pending\" until approved; then data.access_token\n",
                ts_public()
            ),
            format!(
                "{}from vis_sdk.generated.api.account import device_code, device_token\nfrom vis_sdk.generated.models import DeviceCodeJsonBody, DeviceTokenJsonBody\n\ncode = device_code.sync(client=vis.client, body=DeviceCodeJsonBody(client_name=\"my laptop\"))\nprint(\"Open\", code.verification_uri_complete)\n# then every code.interval seconds:\ntoken = device_token.sync(client=vis.client, body=DeviceTokenJsonBody(device_code=code.device_code))\n# a DeviceError (error == \"authorization_pending\") until approved; then token.access_token\n",
                py_public()
            ),
        ),
        "checkout" => set(
            keyed_curl(&format!(
                "-H 'content-type: application/json' -d '{{\"credits\": 5000}}' \\\n  {BASE}/api/v1/billing/checkout"
            )),
            None,
            format!(
                "{}\nconst {{ data }} = await vis.POST(\"/api/v1/billing/checkout\", {{ body: {{ credits: 5000 }} }});\nconsole.log(`Pay at ${{data?.data.url}}`);\n",
                ts_client()
            ),
            format!(
                "{}from vis_sdk.generated.api.billing import checkout\nfrom vis_sdk.generated.models import CheckoutRequest, CheckoutRequestCredits\n\npage = checkout.sync(client=vis.client, body=CheckoutRequest(credits_=CheckoutRequestCredits.VALUE_5000))\nprint(\"Pay at\", page.data.url)\n",
                py_client()
            ),
        ),
        "portal" => set(
            keyed_curl(&format!("-X POST {BASE}/api/v1/billing/portal")),
            None,
            format!(
                "{}\nconst {{ data, error }} = await vis.POST(\"/api/v1/billing/portal\");\nconsole.log(data?.data.url ?? error?.detail);  // a 400 before a first purchase\n",
                ts_client()
            ),
            format!(
                "{}from vis_sdk.generated.api.billing import portal\nfrom vis_sdk.generated.models import PortalResponse\n\nanswer = portal.sync(client=vis.client)\nif isinstance(answer, PortalResponse):\n    print(answer.data.url)\nelse:  # a Problem: 400 before a first purchase\n    print(answer.status, answer.detail)\n",
                py_client()
            ),
        ),
        "feedback" => set(
            keyed_curl(&format!(
                "-H 'content-type: application/json' \\\n  -d '{{\"make\": \"toyota\", \"model\": \"camry\", \"year\": 2019, \"view\": \"side\", \"color\": \"red\", \"verdict\": \"bad\", \"reason\": \"wrong grille\"}}' \\\n  {BASE}/api/v1/feedback"
            )),
            Some(
                "vis feedback toyota camry 2019 --view side --color red --bad --reason \"wrong grille\"",
            ),
            format!(
                "{}\nconst {{ data }} = await vis.POST(\"/api/v1/feedback\", {{\n  body: {{ make: \"toyota\", model: \"camry\", year: 2019, view: \"side\", color: \"red\", verdict: \"bad\", reason: \"wrong grille\" }},\n}});\nconsole.log(data?.data.flagged);\n",
                ts_client()
            ),
            format!(
                "{}\nreport = vis.feedback(make=\"toyota\", model=\"camry\", year=2019, view=\"side\", color=\"red\", verdict=\"bad\", reason=\"wrong grille\")\nprint(report.data.recorded)\n",
                py_client()
            ),
        ),
        "mcp" => set(
            keyed_curl(&format!(
                "-H 'content-type: application/json' \\\n  -H 'accept: application/json, text/event-stream' \\\n  -d '{{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}}' \\\n  {BASE}/api/mcp"
            )),
            None,
            format!(
                "{}\n// Agents use an MCP client; a raw JSON-RPC call looks like this:\nconst {{ data }} = await vis.POST(\"/api/mcp\", {{\n  body: {{ jsonrpc: \"2.0\", id: 1, method: \"tools/list\" }},\n  headers: {{ Accept: \"application/json, text/event-stream\" }},\n}});\n",
                ts_client()
            ),
            format!(
                "{}from vis_sdk.generated.api.mcp import mcp\nfrom vis_sdk.generated.models import McpBody\n\n# Agents use an MCP client; a raw JSON-RPC call looks like this:\nr = mcp.sync_detailed(client=vis.client, body=McpBody.from_dict({{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}}))\nprint(r.status_code, r.content[:200])\n",
                py_client()
            ),
        ),
        "events" => set(
            format!(
                "curl -sS -H 'content-type: application/json' \\\n  -d '{{\"events\": [{{\"event\": \"docs_view\", \"source\": \"sdk\", \"url\": \"/docs\"}}]}}' \\\n  {BASE}/api/v1/events"
            ),
            None,
            format!(
                "{}\nawait vis.POST(\"/api/v1/events\", {{ body: {{ events: [{{ event: \"docs_view\", source: \"sdk\", url: \"/docs\" }}] }} }});\n",
                ts_public()
            ),
            format!(
                "{}\nprint(vis.client.get_httpx_client().post(\"/api/v1/events\", json={{\"events\": [{{\"event\": \"docs_view\", \"source\": \"sdk\", \"url\": \"/docs\"}}]}}).status_code)\n",
                py_public()
            ),
        ),
        _ => return None,
    };
    Some(samples)
}
