//! POST /api/v1/image-urls with an Idempotency-Key (Stripe's semantics):
//! the same key and body within 24 h answers the same 201 body and charges
//! nothing; the same key with another body is a 409 problem.

use vis_tests::{TestApp, concurrent_statuses, problem};

const BODY: &str = r#"{"images":[{"make":"toyota","model":"camry","year":2019,"color":"red"},{"make":"honda","model":"civic","year":2018}],"max_uses":3}"#;
/// The same request, keys in another order and spaced differently.
const SAME_BODY: &str = r#"{ "max_uses": 3, "images": [ {"year":2019,"model":"camry","make":"toyota","color":"red"}, {"make":"honda","year":2018,"model":"civic"} ] }"#;

async fn mint(app: &TestApp, key: &str, idem: Option<&str>, body: &str) -> reqwest::Response {
    let mut r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(idem) = idem {
        r = r.header("idempotency-key", idem);
    }
    r.send().await.unwrap()
}

#[tokio::test]
async fn a_retried_mint_answers_the_same_body_and_is_billed_once() {
    let app = TestApp::spawn().await;
    let key = app.key_for("retry@example.com", 10, &[]).await;
    let first = mint(&app, &key, Some("agent-7f3c"), BODY).await;
    assert_eq!(first.status(), 201);
    assert_eq!(first.headers()["x-credits-charged"], "2");
    let first: serde_json::Value = first.json().await.unwrap();
    for body in [BODY, SAME_BODY] {
        let again = mint(&app, &key, Some("agent-7f3c"), body).await;
        assert_eq!(again.status(), 201);
        assert_eq!(again.headers()["idempotent-replayed"], "true");
        assert_eq!(again.headers()["x-credits-charged"], "0");
        assert_eq!(again.headers()["x-credits-remaining"], "8");
        let again: serde_json::Value = again.json().await.unwrap();
        assert_eq!(
            again, first,
            "the same 201 body, URLs and request_id included"
        );
    }
    // The replayed URLs work.
    let url = first["data"][0]["url"].as_str().unwrap();
    let r = app.client.head(url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // Without the key, or with a new one, it is a new mint.
    assert_eq!(mint(&app, &key, None, BODY).await.status(), 201);
    assert_eq!(mint(&app, &key, Some("agent-8"), BODY).await.status(), 201);
    let account = app.account_json("retry@example.com").await;
    assert_eq!(account["credits"], 4, "{account}");
}

#[tokio::test]
async fn the_same_key_with_another_body_is_a_409_and_charges_nothing() {
    let app = TestApp::spawn().await;
    let key = app.key_for("conflict@example.com", 10, &[]).await;
    assert_eq!(mint(&app, &key, Some("k1"), BODY).await.status(), 201);
    let other = r#"{"make":"toyota","model":"camry","year":2020}"#;
    let body = problem(mint(&app, &key, Some("k1"), other).await, 409).await;
    assert_eq!(body["param"], "Idempotency-Key");
    // A bad key is a 400 naming the header.
    let long = "x".repeat(256);
    for bad in ["", long.as_str(), "has space"] {
        let body = problem(mint(&app, &key, Some(bad), BODY).await, 400).await;
        assert_eq!(body["param"], "Idempotency-Key", "{bad:?}");
    }
    assert_eq!(app.account_json("conflict@example.com").await["credits"], 8);
}

#[tokio::test]
async fn a_refused_mint_keeps_no_key_so_the_retry_can_succeed() {
    let app = TestApp::spawn().await;
    let key = app.key_for("broke@example.com", 1, &[]).await;
    problem(mint(&app, &key, Some("k-broke"), BODY).await, 402).await;
    app.cli(&[
        "credits",
        "adjust",
        "--email",
        "broke@example.com",
        "--delta",
        "5",
        "--reason",
        "top-up",
    ])
    .await
    .unwrap();
    let r = mint(&app, &key, Some("k-broke"), BODY).await;
    assert_eq!(r.status(), 201);
    assert!(r.headers().get("idempotent-replayed").is_none());
    assert_eq!(app.account_json("broke@example.com").await["credits"], 4);
}

#[tokio::test]
async fn concurrent_retries_with_one_key_are_billed_once() {
    let app = TestApp::spawn().await;
    let key = app.key_for("burst@example.com", 50, &[]).await;
    let statuses = concurrent_statuses(12, || {
        app.client
            .post(app.url("/api/v1/image-urls"))
            .bearer_auth(&key)
            .header("content-type", "application/json")
            .header("idempotency-key", "burst-1")
            .body(BODY)
    })
    .await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    assert_eq!(app.account_json("burst@example.com").await["credits"], 48);
}

#[tokio::test]
async fn a_malformed_idempotency_key_on_the_image_route_is_a_400_for_get_and_head() {
    let app = TestApp::spawn().await;
    let key = app.key_for("badkey@example.com", 5, &[]).await;
    let url = app.url("/api/v1/images/car?make=toyota&model=camry&year=2019");
    let long = "x".repeat(256);
    for bad in ["", long.as_str(), "has space"] {
        let get = app
            .client
            .get(&url)
            .bearer_auth(&key)
            .header("idempotency-key", bad)
            .send()
            .await
            .unwrap();
        let body = problem(get, 400).await;
        assert_eq!(body["param"], "Idempotency-Key", "GET {bad:?}");
        let head = app
            .client
            .head(&url)
            .bearer_auth(&key)
            .header("idempotency-key", bad)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 400, "HEAD {bad:?}");
    }
    assert_eq!(app.account_json("badkey@example.com").await["credits"], 5);
}
