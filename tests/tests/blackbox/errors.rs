//! Spec §7 and issue 2 §5–6: every failure is problem+json with a request id.

use axum::Router;
use axum::routing::{get, post};
use control_plane::HttpState;
use control_plane::http::extract::ApiJson;
use vis_tests::{TestApp, problem};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Probe {
    make: String,
    year: u16,
}

impl control_plane::http::extract::Described for Probe {
    const SHAPE: &'static str = "a JSON object with make and year";
    const RULES: &'static [(&'static str, &'static str)] = &[
        ("make", "a non-empty string"),
        ("year", "an integer from 1990 to 2027"),
    ];
}

fn probe_routes() -> Router<HttpState> {
    async fn boom() -> &'static str {
        panic!("secret internal detail xyz")
    }
    async fn echo(ApiJson(p): ApiJson<Probe, 64>) -> String {
        format!("{} {}", p.make, p.year)
    }
    Router::new()
        .route("/test/panic", get(boom))
        .route("/test/echo", post(echo))
}

#[tokio::test]
async fn unknown_routes_are_404_problems() {
    let app = TestApp::spawn().await;
    let body = problem(app.get("/api/v1/nope").await, 404).await;
    assert_eq!(body["title"], "Not Found");
    assert_eq!(body["type"], format!("{}/docs/errors#404", app.base_url));
}

#[tokio::test]
async fn wrong_methods_are_405_problems_with_allow() {
    let app = TestApp::spawn().await;
    let r = app
        .client
        .delete(app.url("/api/v1/images/options"))
        .send()
        .await
        .unwrap();
    let allow = r
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert!(allow.contains("GET"), "Allow: {allow}");
    problem(r, 405).await;
}

#[tokio::test]
async fn panics_are_500_problems_that_leak_nothing() {
    let app = TestApp::spawn_with_routes(probe_routes()).await;
    let body = problem(app.get("/test/panic").await, 500).await;
    assert!(!body.to_string().contains("xyz"), "{body}");
    // The server keeps serving after a panic.
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test]
async fn malformed_json_wrong_fields_and_big_bodies() {
    let app = TestApp::spawn_with_routes(probe_routes()).await;
    let send = |body: &'static str| {
        app.client
            .post(app.url("/test/echo"))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let ok = send(r#"{"make":"bmw","year":2020}"#).await.unwrap();
    assert_eq!(ok.text().await.unwrap(), "bmw 2020");
    let b = problem(send("{not json").await.unwrap(), 400).await;
    assert_eq!(b["param"], "body");
    let b = problem(send(r#"{"make":"bmw"}"#).await.unwrap(), 400).await;
    assert_eq!(b["param"], "year");
    assert!(b["detail"].as_str().unwrap().contains("year"));
    let b = problem(send(r#"{"make":"bmw","year":"soon"}"#).await.unwrap(), 400).await;
    assert_eq!(b["param"], "year");
    let b = problem(
        send(r#"{"make":"bmw","year":2020,"colour":"red"}"#)
            .await
            .unwrap(),
        400,
    )
    .await;
    assert_eq!(b["param"], "colour");
    let big = format!(r#"{{"make":"{}","year":2020}}"#, "x".repeat(100));
    let r = app
        .client
        .post(app.url("/test/echo"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    let b = problem(r, 413).await;
    assert_eq!(b["limit_bytes"], 64);
    let r = app
        .client
        .post(app.url("/test/echo"))
        .header("content-type", "text/plain")
        .body(r#"{"make":"bmw","year":2020}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(problem(r, 400).await["param"], "Content-Type");
}

#[tokio::test]
async fn request_ids_are_generated_or_echoed_only_where_the_spec_allows() {
    let app = TestApp::spawn().await;
    let r = app.get("/healthz").await;
    let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(id.starts_with("req_") && id.len() > 20);
    // Elsewhere than GET /api/v1/images/car a client id is replaced.
    let r = app
        .client
        .get(app.url("/api/v1/images/options"))
        .header("x-request-id", "mine-123")
        .send()
        .await
        .unwrap();
    assert_ne!(r.headers()["x-request-id"], "mine-123");
    // On the image endpoint a valid id is echoed (even on an error) …
    let r = app
        .client
        .get(app.url("/api/v1/images/car"))
        .header("x-request-id", "client.id:42_a-b")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "client.id:42_a-b");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["request_id"], "client.id:42_a-b");
    // … and an invalid one replaced.
    for bad in ["has space", &"x".repeat(129), "slash/es"] {
        let r = app
            .client
            .get(app.url("/api/v1/images/car"))
            .header("x-request-id", bad)
            .send()
            .await
            .unwrap();
        let got = r.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert!(got.starts_with("req_"), "{bad:?} -> {got}");
    }
}

#[tokio::test]
async fn readiness_and_liveness() {
    let app = TestApp::spawn().await;
    assert_eq!(app.get("/healthz").await.status(), 200);
    let r = app.get("/readyz").await;
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["checks"]["database"], "ok");
    assert_eq!(v["checks"]["object_store"], "ok");
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_requests() {
    async fn slow() -> &'static str {
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        "finished"
    }
    let app = TestApp::spawn_with_routes(Router::new().route("/test/slow", get(slow))).await;
    let url = app.url("/test/slow");
    let client = app.client.clone();
    let in_flight =
        tokio::spawn(async move { client.get(url).send().await.unwrap().text().await.unwrap() });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    app.shutdown().await.unwrap();
    assert_eq!(in_flight.await.unwrap(), "finished");
}

/// What Chromium sends when it navigates to a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8";

#[tokio::test]
async fn browsers_get_html_404_and_405_pages_and_api_clients_problems() {
    let app = TestApp::spawn().await;
    // A browser's navigation to an address nothing is routed at.
    let r = app
        .client
        .get(app.url("/no/such/page"))
        .header("accept", BROWSER_ACCEPT)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert!(
        vis_tests::header(&r, "content-type").starts_with("text/html"),
        "an HTML page"
    );
    assert!(!vis_tests::header(&r, "x-request-id").is_empty());
    assert!(!vis_tests::header(&r, "content-security-policy").is_empty());
    let html = r.text().await.unwrap();
    assert!(html.contains("Page not found"), "{html}");
    assert!(html.contains("href=\"/\""), "a link home");
    assert!(html.contains("href=\"/docs\""), "a link to the docs");
    assert!(html.contains("href=\"/docs/errors#404\""));

    // A browser's form sent to a page that takes none: 405, Allow kept.
    let r = app
        .client
        .post(app.url("/pricing"))
        .header("accept", BROWSER_ACCEPT)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("a=1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    let allow = vis_tests::header(&r, "allow");
    assert!(allow.contains("GET"), "Allow: {allow}");
    assert!(vis_tests::header(&r, "content-type").starts_with("text/html"));
    let html = r.text().await.unwrap();
    assert!(html.contains("Method not allowed"), "{html}");
    assert!(html.contains("href=\"/docs/errors#405\""));

    // API clients keep the problem documents: JSON, anything, or nothing
    // named; and JSON named as high as HTML.
    for accept in [
        Some("application/json"),
        Some("*/*"),
        None,
        Some("application/problem+json"),
        Some("application/json, text/html"),
    ] {
        let with = |mut rb: reqwest::RequestBuilder| {
            if let Some(a) = accept {
                rb = rb.header("accept", a);
            }
            rb
        };
        let r = with(app.client.get(app.url("/no/such/page")))
            .send()
            .await
            .unwrap();
        let body = problem(r, 404).await;
        assert_eq!(body["detail"], "No such endpoint. See /docs for the API.");
        let r = with(app.client.delete(app.url("/api/v1/images/options")))
            .send()
            .await
            .unwrap();
        assert!(vis_tests::header(&r, "allow").contains("GET"));
        problem(r, 405).await;
    }
    // A routed 404 (a missing static file) stays a problem for a browser
    // too: it is the resource that is missing, not the page.
    let r = app
        .client
        .get(app.url("/static/nope.css"))
        .header("accept", BROWSER_ACCEPT)
        .send()
        .await
        .unwrap();
    problem(r, 404).await;
}
