//! Spec §5: keys in headers, 401 with WWW-Authenticate, 403 naming the scope,
//! no keys in the query string, revocation at once.

use vis_tests::{TestApp, problem};

#[tokio::test]
async fn bearer_and_x_api_key_both_authenticate() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account_with_key("a@example.com", "account:read").await;
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.status(), 200);
    let r = app
        .client
        .get(app.url("/api/v1/account"))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn missing_invalid_and_revoked_keys_get_401_with_www_authenticate() {
    let app = TestApp::spawn().await;
    let (key_id, key) = app.account_with_key("a@example.com", "account:read").await;
    let unknown = format!("vis_{}", "A".repeat(40));
    for (label, r) in [
        ("missing", app.get("/api/v1/account").await),
        (
            "malformed",
            app.get_with_key("/api/v1/account", "not-a-key").await,
        ),
        (
            "unknown",
            app.get_with_key("/api/v1/account", &unknown).await,
        ),
    ] {
        assert_eq!(r.headers()["www-authenticate"], "Bearer", "{label}");
        problem(r, 401).await;
    }
    app.cli(&["keys", "revoke", &key_id]).await.unwrap();
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    let body = problem(r, 401).await;
    assert!(body["detail"].as_str().unwrap().contains("revoked"));
}

#[tokio::test]
async fn a_missing_scope_is_403_naming_the_scope() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account_with_key("a@example.com", "images:read").await;
    let body = problem(app.get_with_key("/api/v1/account", &key).await, 403).await;
    assert_eq!(body["scope"], "account:read");
    assert!(body["detail"].as_str().unwrap().contains("account:read"));
}

#[tokio::test]
async fn keys_in_the_query_string_are_never_accepted_on_api_v1() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account_with_key("a@example.com", "account:read").await;
    for name in ["key", "api_key", "access_token"] {
        let r = app.get(&format!("/api/v1/account?{name}={key}")).await;
        let body = problem(r, 401).await;
        assert!(
            body["detail"].as_str().unwrap().contains("query string"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn the_account_document_describes_balance_pricing_and_key() {
    let app = TestApp::spawn().await;
    let (key_id, key) = app
        .account_with_key("a@example.com", "account:read,images:read")
        .await;
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-request-id"));
    let v: serde_json::Value = r.json().await.unwrap();
    let d = &v["data"];
    assert_eq!(d["credits"], 100);
    assert_eq!(d["credits_value_usd"], 0.1);
    assert_eq!(d["auto_reload"], false);
    assert_eq!(d["has_payment_method"], false);
    assert_eq!(d["pricing"]["credits_per_image"], 1);
    assert_eq!(d["pricing"]["credits_per_delivery"], 1);
    assert_eq!(d["pricing"]["credits_per_dollar"], 1000);
    assert_eq!(d["pricing"]["packs"].as_array().unwrap().len(), 4);
    assert_eq!(d["usage_30d"]["credits_spent"], 0);
    assert!(d["usage_30d"]["cache_hit_rate"].is_null());
    assert_eq!(d["key"]["id"], key_id.as_str());
    assert_eq!(
        d["key"]["scopes"],
        serde_json::json!(["images:read", "account:read"])
    );
    assert_eq!(d["key"]["rate_limit_per_minute"], 120);
    // Every link of the account document resolves.
    let links = v["links"].as_object().unwrap();
    assert!(links.contains_key("pricing"), "{links:?}");
    for (name, url) in links {
        let r = app.client.get(url.as_str().unwrap()).send().await.unwrap();
        assert_eq!(r.status(), 200, "links.{name} = {url}");
    }
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    // credits adjusted by an operator show at once
    app.cli(&[
        "credits",
        "adjust",
        "--email",
        "a@example.com",
        "--delta",
        "-40",
        "--reason",
        "test",
    ])
    .await
    .unwrap();
    let v: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["data"]["credits"], 60);
}
