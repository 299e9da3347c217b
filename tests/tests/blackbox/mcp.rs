//! POST /api/mcp: the door (key, browser origin, rate limit) over HTTP, and
//! a whole agent session driven by the official Python MCP SDK, a client
//! this project did not write (tests/mcp/session.py).

use serde_json::{Value, json};
use vis_tests::{Gated, TestApp, header, problem, real_renderer};

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } },
    })
}

fn post(app: &TestApp, body: &Value) -> reqwest::RequestBuilder {
    app.client
        .post(app.url("/api/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(body)
}

#[tokio::test]
async fn the_endpoint_needs_a_key_refuses_foreign_origins_and_is_rate_limited() {
    let app = TestApp::spawn().await;
    let r = post(&app, &initialize()).send().await.unwrap();
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    problem(r, 401).await;
    problem(
        post(&app, &initialize())
            .bearer_auth("vis_nope")
            .send()
            .await
            .unwrap(),
        401,
    )
    .await;
    let key = app
        .key_for("mcp-door@example.com", 5, &["--rate-limit", "3"])
        .await;
    let r = post(&app, &initialize())
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["ratelimit-limit"], "3");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["result"]["serverInfo"]["name"], "vehicle-image-service");
    // x-api-key works too; a page on another site cannot use the key.
    let r = post(&app, &initialize())
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = post(&app, &initialize())
        .bearer_auth(&key)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    problem(r, 403).await;
    // Its own origin is fine (the refused request was not counted).
    let r = post(&app, &initialize())
        .bearer_auth(&key)
        .header("origin", &app.base_url)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // Three a minute: the fourth is refused.
    let r = post(&app, &initialize())
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert!(
        r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            <= 60
    );
    problem(r, 429).await;
}

/// A whole session by a real MCP client (Python SDK from PyPI, in the
/// virtual environment infra/test.sh makes; VIS_TEST_MCP_PYTHON names its
/// python).
#[tokio::test]
async fn a_real_mcp_client_does_a_whole_session() {
    let python = match std::env::var("VIS_TEST_MCP_PYTHON") {
        Ok(p) => p,
        Err(_) if std::env::var("VIS_TEST_SKIP_MCP").as_deref() == Ok("1") => {
            eprintln!("skipped on purpose (VIS_TEST_SKIP_MCP=1)");
            return;
        }
        Err(_) => panic!(
            "VIS_TEST_MCP_PYTHON is not set: run ./infra/test.sh (it installs the MCP SDK), or set VIS_TEST_SKIP_MCP=1"
        ),
    };
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("agent@example.com", 100, &[]).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp/session.py");
    let out = tokio::process::Command::new(&python)
        .arg(script)
        .env("VIS_MCP_URL", app.url("/api/mcp"))
        .env("VIS_MCP_KEY", &key)
        .output()
        .await
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stdout.contains(&key) && !stderr.contains(&key),
        "the key was printed"
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.ends_with(" failed"))
        .unwrap_or_default();
    assert!(summary.ends_with(" 0 failed"), "{summary}");
    let passed: u32 = summary.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 20, "{summary}");
}

/// One `tools/call` over plain HTTP; the JSON-RPC result.
async fn tool(app: &TestApp, key: &str, name: &str, arguments: Value) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": name, "arguments": arguments },
    });
    let r = post(app, &body).bearer_auth(key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    v["result"].clone()
}

async fn balance(app: &TestApp, key: &str) -> i64 {
    let r = app.get_with_key("/api/v1/account", key).await;
    let v: Value = r.json().await.unwrap();
    v["data"]["credits"].as_i64().unwrap()
}

const COLD: &str =
    r#"{"make":"toyota","model":"camry","year":2019,"view":"rear","color":"blue","width":128}"#;
const WARM: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&view=side&color=red&w=128";

/// Issue 34: an idempotent get_image may only ever keep or give back its
/// own charge. Request ids a client chooses on the API can never be the
/// reference of a tool's charge, so sending the id a tool call returned as
/// X-Request-Id bills like any other request (once: repeats of one client
/// id are retries) and is never refunded; what
/// every answer says it charged is exactly what left the balance.
#[tokio::test]
async fn an_idempotent_get_image_never_refunds_what_a_client_chose() {
    let gate = Gated::new(real_renderer());
    let app = TestApp::spawn_rendering(gate.clone(), |_| {}).await;
    let key = app.key_for("idem-mcp@example.com", 20, &[]).await;
    let mut charged = 0;
    gate.release(1);
    let r = app.get_with_key(WARM, &key).await;
    assert_eq!(r.status(), 200, "the warm variant is rendered");
    charged += 1;
    // A get_image of a never-rendered variant waits at the gate ...
    let mut cold: Value = serde_json::from_str(COLD).unwrap();
    cold["idempotency_key"] = json!("K-1");
    let first = {
        let (app_url, key, cold) = (app.url("/api/mcp"), key.clone(), cold.clone());
        let client = app.client.clone();
        tokio::spawn(async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "get_image", "arguments": cold}});
            let r = client
                .post(app_url)
                .header("accept", "application/json, text/event-stream")
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap();
            r.json::<Value>().await.unwrap()["result"].clone()
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    // ... while the same key names the warm variant.
    let warm = tool(
        &app,
        &key,
        "get_image",
        json!({"make":"toyota","model":"camry","year":2019,"view":"side","color":"red","width":128,"idempotency_key":"K-1"}),
    )
    .await;
    let mut chosen = Vec::new();
    if warm["isError"] == json!(true) {
        assert_eq!(warm["structuredContent"]["status"], 409, "{warm}");
        assert_eq!(warm["structuredContent"]["param"], "idempotency_key");
    } else {
        charged += warm["structuredContent"]["credits_charged"]
            .as_i64()
            .unwrap();
        chosen.push(
            warm["structuredContent"]["request_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    // A client sends the id it was given as its own X-Request-Id.
    for id in &chosen {
        for _ in 0..3 {
            let r = app
                .client
                .get(app.url(WARM))
                .bearer_auth(&key)
                .header("x-request-id", id)
                .send()
                .await
                .unwrap();
            // What the answer says it charged (a repeat of one client id
            // is a retry, answered again for free).
            if r.status() == 200 {
                charged += header(&r, "x-credits-charged").parse::<i64>().unwrap();
            }
        }
    }
    gate.release(1);
    let first = first.await.unwrap();
    assert_ne!(first["isError"], json!(true), "{first}");
    let out = &first["structuredContent"];
    assert_eq!(out["credits_charged"], 1, "{out}");
    charged += 1;
    let id = out["request_id"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        let r = app
            .client
            .get(app.url(WARM))
            .bearer_auth(&key)
            .header("x-request-id", &id)
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            400,
            "a tool's request id is not a client's to choose"
        );
        assert_eq!(header(&r, "content-type"), "application/problem+json");
    }
    // The retry answers the first result again, free.
    let again = tool(&app, &key, "get_image", cold.clone()).await;
    let again = &again["structuredContent"];
    assert_eq!(
        (
            again["credits_charged"].as_i64(),
            again["replayed"].as_bool()
        ),
        (Some(0), Some(true)),
        "{again}"
    );
    assert_eq!(again["request_id"], id.as_str());
    assert_eq!(balance(&app, &key).await, 20 - charged, "charged {charged}");
}

/// Twenty copies of one idempotent call at once: one charges and says so,
/// the others wait for it and answer it again for free.
#[tokio::test]
async fn concurrent_copies_of_an_idempotent_get_image_charge_once_and_say_who_paid() {
    let gate = Gated::new(real_renderer());
    let app = TestApp::spawn_rendering(gate.clone(), |_| {}).await;
    let key = app.key_for("idem-20@example.com", 30, &[]).await;
    let mut cold: Value = serde_json::from_str(COLD).unwrap();
    cold["idempotency_key"] = json!("twenty");
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let (url, key, cold) = (app.url("/api/mcp"), key.clone(), cold.clone());
            let client = app.client.clone();
            tokio::spawn(async move {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_image", "arguments": cold}});
                let r = client
                    .post(url)
                    .header("accept", "application/json, text/event-stream")
                    .bearer_auth(key)
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                r.json::<Value>().await.unwrap()["result"].clone()
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    gate.release(20);
    let mut charged = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    for call in calls {
        let result = call.await.unwrap();
        assert_ne!(result["isError"], json!(true), "{result}");
        let out = &result["structuredContent"];
        charged.push(out["credits_charged"].as_i64().unwrap());
        ids.insert(out["request_id"].as_str().unwrap().to_owned());
    }
    charged.sort_unstable();
    assert_eq!(charged.iter().sum::<i64>(), 1, "{charged:?}");
    assert_eq!(ids.len(), 1, "one image, one request id: {ids:?}");
    assert_eq!(balance(&app, &key).await, 29);
}

/// A body that is not JSON is the API's 400 naming it, not a 415.
#[tokio::test]
async fn malformed_json_is_a_400_naming_the_body() {
    let app = TestApp::spawn().await;
    let key = app.key_for("mcp-json@example.com", 5, &[]).await;
    for body in ["{not json", "", "[1,"] {
        let r = app
            .client
            .post(app.url("/api/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .bearer_auth(&key)
            .body(body)
            .send()
            .await
            .unwrap();
        let p = problem(r, 400).await;
        assert!(p["detail"].as_str().unwrap().contains("body"), "{p}");
    }
}

/// The tools' input schemas, by name, as `tools/list` gives them.
async fn input_schemas(app: &TestApp, key: &str) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {} });
    let r = post(app, &body).bearer_auth(key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let mut out = json!({});
    for t in v["result"]["tools"].as_array().unwrap() {
        out[t["name"].as_str().unwrap()] = t["inputSchema"].clone();
    }
    out
}

/// Issue 30: what resolve_vehicle answers is get_image's input as it stands,
/// size preset included.
#[tokio::test]
async fn resolve_vehicle_params_are_a_valid_get_image_input() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("resolve-mcp@example.com", 20, &[]).await;
    let schema = input_schemas(&app, &key).await["get_image"].clone();
    for (query, width) in [
        ("red 2019 camry from behind, large", 1024),
        ("2019 camry side profile thumbnail webp", 256),
        ("blue 2019 toyota camry 300px jpeg", 300),
        ("silver 2019 camry", 512),
    ] {
        let resolved = tool(&app, &key, "resolve_vehicle", json!({ "query": query })).await;
        assert_ne!(resolved["isError"], json!(true), "{query}: {resolved}");
        let params = resolved["structuredContent"]["data"]["params"].clone();
        // Every member is an argument get_image declares, of its type and
        // within its enum.
        for (name, value) in params.as_object().unwrap() {
            let declared = &schema["properties"][name];
            assert!(declared.is_object(), "{query}: get_image takes no {name}");
            if let Some(allowed) = declared["enum"].as_array() {
                assert!(
                    allowed.contains(value),
                    "{query}: {name}={value} not in {allowed:?}"
                );
            }
        }
        let image = tool(&app, &key, "get_image", params.clone()).await;
        assert_ne!(image["isError"], json!(true), "{query}: {params} → {image}");
        let got = &image["structuredContent"];
        assert_eq!(got["width"], width, "{query}: {got}");
        assert_eq!(got["vehicle"]["model"], "camry", "{query}: {got}");
    }
}

/// Issue 30: a tool's own refusal is the API's problem document, `type`
/// URI included, like the errors it passes on from the API.
#[tokio::test]
async fn mcp_tool_errors_carry_the_api_problem_type_uris() {
    let app = TestApp::spawn().await;
    let key = app.key_for("types-mcp@example.com", 5, &[]).await;
    let cases = [
        // Refused by the tool before any API call.
        (
            "get_image",
            json!({ "make": "toyota", "model": "camry", "year": 2019, "colour": "red" }),
            400,
            Some("colour"),
        ),
        (
            "get_image",
            json!({ "make": "toyota", "model": "camry" }),
            400,
            Some("year"),
        ),
        (
            "get_image",
            json!({ "make": "toyota", "model": "camry", "year": "soon" }),
            400,
            Some("year"),
        ),
        ("no_such_tool", json!({}), 404, None),
        // Passed on from the API.
        (
            "get_image",
            json!({ "make": "toyota", "model": "camry", "year": 2019, "width": 5000 }),
            400,
            Some("w"),
        ),
    ];
    for (name, arguments, status, param) in cases {
        let r = tool(&app, &key, name, arguments.clone()).await;
        assert_eq!(r["isError"], json!(true), "{name} {arguments}: {r}");
        let doc = &r["structuredContent"];
        assert_eq!(doc["status"], status, "{doc}");
        assert_eq!(
            doc["type"],
            format!("{}/docs/errors#{status}", app.base_url),
            "{name} {arguments}: {doc}"
        );
        let title = if status == 400 {
            "Bad Request"
        } else {
            "Not Found"
        };
        assert_eq!(doc["title"], title, "{doc}");
        assert!(
            doc["request_id"].as_str().is_some_and(|id| !id.is_empty()),
            "{doc}"
        );
        if let Some(p) = param {
            assert_eq!(doc["param"], p, "{doc}");
        }
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, doc, "the text is the same document");
    }
}
