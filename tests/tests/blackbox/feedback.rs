//! POST /api/v1/feedback against the real server and renderer: reports by
//! request id and by vehicle, the rules of the body, flagging after
//! negative reports from distinct accounts, and the re-render that follows
//! (new revision, new ETag, new bytes), seen by the operator's CLI.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vis_tests::{TestApp, problem, real_renderer};

const CAMRY: &str =
    "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=256";

async fn feedback(app: &TestApp, key: &str, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/feedback"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn created(r: reqwest::Response) -> Value {
    let status = r.status();
    assert!(r.headers().get("ratelimit-remaining").is_some());
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["data"]["recorded"], true, "{v}");
    assert!(uuid::Uuid::parse_str(v["data"]["asset_id"].as_str().unwrap()).is_ok());
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    v
}

#[tokio::test]
async fn three_accounts_reporting_a_render_bad_get_it_re_rendered_with_new_bytes() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let keys = [
        app.key_for("fb0@example.com", 5, &[]).await,
        app.key_for("fb1@example.com", 5, &[]).await,
        app.key_for("fb2@example.com", 5, &[]).await,
    ];
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&keys[0])
        .header("x-request-id", "order-42")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let before = r.bytes().await.unwrap();

    // By the request id the client chose; a rating of 1 is negative.
    let first = created(
        feedback(
            &app,
            &keys[0],
            json!({ "request_id": "order-42", "rating": 1, "reason": "the wheels float" }),
        )
        .await,
    )
    .await;
    assert_eq!(first["data"]["flagged"], false);
    // The same account again still counts once.
    let again = created(
        feedback(
            &app,
            &keys[0],
            json!({ "request_id": "order-42", "verdict": "bad" }),
        )
        .await,
    )
    .await;
    assert_eq!(again["data"]["flagged"], false);
    assert_eq!(again["data"]["asset_id"], first["data"]["asset_id"]);
    // Another account, by vehicle, with a verdict.
    let second = created(
        feedback(
            &app,
            &keys[1],
            json!({ "make": "Toyota", "model": "Camry", "year": 2019, "view": "side", "color": "red", "verdict": "bad" }),
        )
        .await,
    )
    .await;
    assert_eq!(
        second["data"]["asset_id"], first["data"]["asset_id"],
        "the same render"
    );
    assert_eq!(second["data"]["flagged"], false);
    // A good word does not count against it.
    created(
        feedback(&app, &keys[2], json!({ "make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "rating": 5 })).await,
    )
    .await;
    let body = problem(
        feedback(
            &app,
            &keys[2],
            json!({ "request_id": "order-42", "verdict": "bad" }),
        )
        .await,
        404,
    )
    .await;
    assert_eq!(
        body["param"], "request_id",
        "another account's request id is unknown to this one"
    );
    // The third distinct account flags it.
    let third = created(
        feedback(
            &app,
            &keys[2],
            json!({ "make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "verdict": "bad", "reason": "not a camry" }),
        )
        .await,
    )
    .await;
    assert_eq!(third["data"]["flagged"], true);

    // The render is replaced: a new revision, so a new ETag and new bytes.
    let started = Instant::now();
    let mut gets = 0;
    let (new_etag, after) = loop {
        gets += 1;
        let r = app.get_with_key(CAMRY, &keys[1]).await;
        assert_eq!(r.status(), 200);
        let e = r.headers()["etag"].to_str().unwrap().to_owned();
        if e != etag {
            break (e, r.bytes().await.unwrap());
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still the old render"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // The configured revision, bumped once for this variant.
    let base = i64::from(control_plane::config::RenderConfig::default().revision);
    assert!(
        new_etag.starts_with(&format!("\"r{}-", base + 1)),
        "{new_etag}"
    );
    assert_ne!(before, after, "a re-render draws new bytes");
    // A new report is about the new render, which is not flagged.
    let fresh = created(feedback(&app, &keys[2], json!({ "make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "verdict": "bad" })).await).await;
    assert_ne!(fresh["data"]["asset_id"], first["data"]["asset_id"]);
    assert_eq!(fresh["data"]["flagged"], false);

    // The operator sees the flag, its reports and reasons.
    let out = app.cli(&["--json", "renders", "flagged"]).await.unwrap();
    let flags: Value = serde_json::from_str(out.trim()).unwrap();
    let flag = &flags[0];
    assert_eq!(flag["variant"], "toyota/camry/2019/red/side");
    assert_eq!(
        (flag["revision"].as_i64(), flag["state"].as_str()),
        (Some(base), Some("rerendered"))
    );
    assert_eq!(flag["reports"], 3);
    let reasons = flag["reasons"].to_string();
    assert!(
        reasons.contains("wheels float") && reasons.contains("not a camry"),
        "{reasons}"
    );
    // Feedback is free.
    for (i, key) in keys.iter().enumerate() {
        let v: Value = app
            .get_with_key("/api/v1/account", key)
            .await
            .json()
            .await
            .unwrap();
        let spent = [1, gets, 0][i];
        assert_eq!(v["data"]["credits"], 5 - spent, "account {i}");
    }
}

#[tokio::test]
async fn the_body_is_checked_and_errors_name_the_field() {
    let app = TestApp::spawn().await;
    let key = app.key_for("rules@example.com", 5, &[]).await;
    for (body, param) in [
        (json!({ "verdict": "bad" }), "make"),
        (
            json!({ "request_id": "x", "make": "toyota", "model": "camry", "year": 2019, "verdict": "bad" }),
            "request_id",
        ),
        (json!({ "request_id": "x" }), "rating"),
        (json!({ "request_id": "x", "rating": 6 }), "rating"),
        (json!({ "request_id": "x", "verdict": "meh" }), "verdict"),
        (
            json!({ "request_id": "x", "verdict": "bad", "reason": "r".repeat(501) }),
            "reason",
        ),
        (
            json!({ "request_id": "r".repeat(129), "verdict": "bad" }),
            "request_id",
        ),
        (
            json!({ "request_id": "x", "verdict": "bad", "colour": "red" }),
            "colour",
        ),
        (
            json!({ "make": "toyota", "model": "camry", "year": 1980, "verdict": "bad" }),
            "year",
        ),
    ] {
        let body = problem(feedback(&app, &key, body.clone()).await, 400).await;
        assert_eq!(body["param"], param, "{body}");
    }
    problem(
        feedback(
            &app,
            &key,
            json!({ "make": "toyota", "model": "no-such", "year": 2019, "verdict": "bad" }),
        )
        .await,
        404,
    )
    .await;
    problem(
        feedback(
            &app,
            &key,
            json!({ "request_id": "never-delivered", "verdict": "bad" }),
        )
        .await,
        404,
    )
    .await;
    // A body over 8 KiB is a 413; no key a 401; a key without account:read a 403.
    let big = json!({ "request_id": "x", "verdict": "bad", "reason": "r".repeat(9000) });
    problem(feedback(&app, &key, big).await, 413).await;
    let r = app
        .client
        .post(app.url("/api/v1/feedback"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    problem(r, 401).await;
    let (_, images_only) = app
        .account_with_key("narrow@example.com", "images:read")
        .await;
    let body = problem(
        feedback(
            &app,
            &images_only,
            json!({ "request_id": "x", "verdict": "bad" }),
        )
        .await,
        403,
    )
    .await;
    assert_eq!(body["scope"], "account:read");
}
