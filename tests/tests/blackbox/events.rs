//! POST /api/v1/events (spec §6): the telemetry sink. Public, CORS, never
//! billed; 202 at once; rate limited per IP; stored in batches and counted
//! by `control-plane events stats`.

use std::time::Duration;

use vis_tests::{TestApp, problem};

fn batch(n: usize) -> serde_json::Value {
    let events: Vec<_> = (0..n)
        .map(|i| {
            serde_json::json!({
                "event": if i % 2 == 0 { "page_view" } else { "docs_view" },
                "source": "web",
                "anonymous_id": "anon-7",
                "session_id": "s-1",
                "url": "https://example.com/pricing",
                "referrer": "https://search.example/",
                "properties": { "path": "/pricing", "ms": 12, "ok": true },
                "utm": { "utm_source": "newsletter" },
            })
        })
        .collect();
    serde_json::json!({ "events": events })
}

async fn stats(app: &TestApp) -> serde_json::Value {
    let out = app
        .cli(&["--json", "events", "stats"])
        .await
        .expect("events stats");
    serde_json::from_str(&out).expect("json")
}

#[tokio::test]
async fn accepted_events_are_202_then_stored_and_counted_never_billed() {
    let app = TestApp::spawn().await;
    // A key on the request changes nothing: events never touch an account.
    let key = app.key_for("events@example.com", 7, &[]).await;
    let r = app
        .client
        .post(app.url("/api/v1/events"))
        .bearer_auth(&key)
        .json(&batch(3))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert_eq!(r.headers()["ratelimit-limit"], "120");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["accepted"], 3);
    assert!(body["request_id"].as_str().is_some());
    let r = app
        .client
        .post(app.url("/api/v1/events"))
        .json(&batch(20))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    // Written after the answer: wait for the writer.
    let mut total = 0;
    for _ in 0..50 {
        total = stats(&app).await["total"].as_i64().unwrap();
        if total == 23 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(total, 23);
    let s = stats(&app).await;
    let counts = s["counts"].as_array().unwrap();
    let of = |name: &str| {
        counts
            .iter()
            .filter(|c| c["event"] == name)
            .map(|c| c["count"].as_i64().unwrap())
            .sum::<i64>()
    };
    assert_eq!((of("page_view"), of("docs_view")), (12, 11));
    assert_eq!(app.account_json("events@example.com").await["credits"], 7);
}

#[tokio::test]
async fn bad_batches_are_400s_naming_the_field_and_nothing_is_kept() {
    let app = TestApp::spawn().await;
    let post = |body: serde_json::Value| {
        app.client
            .post(app.url("/api/v1/events"))
            .json(&body)
            .send()
    };
    for (body, param) in [
        (serde_json::json!({ "events": [] }), "events"),
        (batch(21), "events"),
        (serde_json::json!({}), "events"),
        (
            serde_json::json!({ "events": [{ "source": "web" }] }),
            "events[0].event",
        ),
        (
            serde_json::json!({ "events": [{ "event": "ok" }, { "event": "Not Snake" }] }),
            "events[1].event",
        ),
        (
            serde_json::json!({ "events": [{ "event": "ok", "source": "fax" }] }),
            "events[0].source",
        ),
        (
            serde_json::json!({ "events": [{ "event": "ok", "colour": "red" }] }),
            "events[0].colour",
        ),
        (
            serde_json::json!({ "events": [{ "event": "ok", "utm": { "utm_source": 3 } }] }),
            "events[0].utm.utm_source",
        ),
    ] {
        let b = problem(post(body.clone()).await.unwrap(), 400).await;
        assert_eq!(b["param"], param, "{body}: {b}");
    }
    let big = serde_json::json!({ "events": [{ "event": "x", "properties": { "blob": "y".repeat(40 * 1024) } }] });
    let b = problem(post(big).await.unwrap(), 413).await;
    assert_eq!(b["limit_bytes"], 32 * 1024);
    assert_eq!(stats(&app).await["total"], 0);
}

#[tokio::test]
async fn more_than_120_batches_a_minute_from_one_address_get_429() {
    let app = TestApp::spawn().await;
    // Start the burst well inside a clock minute (windows open at the first
    // request now, so this is belt and braces).
    let second = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            % 60
    };
    while second() > 50 {
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut statuses = Vec::new();
    for _ in 0..121 {
        let r = app
            .client
            .post(app.url("/api/v1/events"))
            .json(&batch(1))
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
        if r.status() == 429 {
            assert!(r.headers().contains_key("retry-after"));
            assert_eq!(r.headers()["ratelimit-remaining"], "0");
            problem(r, 429).await;
        }
    }
    let refused = statuses.iter().filter(|s| **s == 429).count();
    let accepted = statuses.iter().filter(|s| **s == 202).count();
    assert_eq!((accepted, refused), (120, 1), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429));
}

#[tokio::test]
async fn browsers_may_post_events_from_any_origin() {
    let app = TestApp::spawn().await;
    let r = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/api/v1/events"))
        .header("origin", "https://shop.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
}
