//! POST /api/mcp: the door (key, browser origin, rate limit) over HTTP, and
//! a whole agent session driven by the official Python MCP SDK, a client
//! this project did not write (tests/mcp/session.py).

use serde_json::{Value, json};
use vis_tests::{TestApp, problem, real_renderer};

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
