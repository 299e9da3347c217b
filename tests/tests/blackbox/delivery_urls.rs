//! Signed delivery URLs against the real server: every row of spec §3's
//! "Signed delivery URL" state table, the charge and refund rules of §1
//! (billed once at creation, free to load, a failed first load refunded),
//! POST /api/v1/image-urls validation, the JSON form of
//! GET /api/v1/images/car, HEAD, caching headers and 304s.

use std::sync::Arc;
use std::time::Duration;

use control_plane::http::image_urls::rfc3339;
use control_plane::store::{DeliveryUrlStore, SqlStore};
use serde_json::{Value, json};
use vis_tests::{
    Counting, Failing, TestApp, concurrent_statuses, count, header, problem, real_renderer,
};

const CAMRY: &str =
    "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=256";

fn camry() -> Value {
    json!({"make": "Toyota", "model": "Camry", "year": 2019, "color": "red", "view": "side", "width": 256})
}

async fn balance(app: &TestApp, key: &str) -> i64 {
    let v: Value = app
        .get_with_key("/api/v1/account", key)
        .await
        .json()
        .await
        .unwrap();
    v["data"]["credits"].as_i64().unwrap()
}

async fn post_urls(app: &TestApp, key: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Mints URLs with `body`; returns their `url` values.
async fn mint(app: &TestApp, key: &str, body: &Value) -> Vec<String> {
    let r = post_urls(app, key, body).await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap().to_owned())
        .collect()
}

async fn load(app: &TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

async fn head(app: &TestApp, url: &str) -> reqwest::Response {
    app.client.head(url).send().await.unwrap()
}

/// `max-age` and `s-maxage` of a Cache-Control value.
fn ages(cache_control: &str) -> (u64, u64) {
    let get = |name: &str| {
        cache_control
            .split(',')
            .map(str::trim)
            .find_map(|d| d.strip_prefix(name))
            .unwrap_or_else(|| panic!("{name} in {cache_control}"))
            .parse()
            .unwrap()
    };
    (get("max-age="), get("s-maxage="))
}

#[tokio::test]
async fn a_minted_url_is_billed_once_renders_on_first_load_and_later_loads_are_free() {
    let counting = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(counting.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("one@example.com", "images:read,account:read")
        .await;
    let r = post_urls(&app, &key, &camry()).await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "x-credits-charged"), "1");
    assert_eq!(header(&r, "x-credits-remaining"), "99");
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    assert_eq!(header(&r, "ratelimit-limit"), "120");
    let request_id = header(&r, "x-request-id");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["request_id"], request_id.as_str());
    assert_eq!(
        v["billing"],
        json!({"charged_on": "creation", "credits_charged": 1, "credits_remaining": 99, "credits_per_url": 1})
    );
    let u = &v["data"][0];
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        u["vehicle"],
        json!({"make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "format": "png", "width": 256})
    );
    assert_eq!(u["max_uses"], 0);
    assert!(uuid::Uuid::parse_str(u["id"].as_str().unwrap()).is_ok());
    let url = u["url"].as_str().unwrap().to_owned();
    let token = url
        .strip_prefix(&format!("{}/api/v1/delivery/", app.base_url))
        .expect("URL on the delivery path");
    assert_eq!(token.len(), 64);
    let id_hex = u["id"].as_str().unwrap().replace('-', "");
    assert!(
        token.starts_with(&id_hex) && !url.contains(&key),
        "the token is the random URL id and a MAC, nothing else"
    );
    assert!(u["expires_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(counting.renders(), 0, "minting renders nothing");
    assert_eq!(balance(&app, &key).await, 99);

    // First load: rendered, no key needed, free.
    let r = load(&app, &url).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/png");
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(
        (header(&r, "x-image-width"), header(&r, "x-image-height")),
        ("256".into(), "256".into())
    );
    assert!(r.headers().contains_key("x-request-id"));
    assert!(!r.headers().contains_key("x-credits-charged"));
    let (max_age, s_maxage) = ages(&header(&r, "cache-control"));
    assert!(header(&r, "cache-control").starts_with("public"));
    assert_eq!(max_age, 300);
    assert!((3598..=3600).contains(&s_maxage), "{s_maxage}");
    let etag = header(&r, "etag");
    assert_eq!(&r.bytes().await.unwrap()[..8], b"\x89PNG\r\n\x1a\n");

    // The same strong validator as GET /api/v1/images/car for that output
    // (asked with a free conditional request).
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&key)
        .header("if-none-match", "*")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "etag"), etag);

    // Later loads: from cache, free, never rendered again.
    for _ in 0..3 {
        let r = load(&app, &url).await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "x-image-source"), "cache");
        assert_eq!(header(&r, "etag"), etag);
    }
    assert_eq!(counting.renders(), 1);
    assert_eq!(balance(&app, &key).await, 99, "loads are free");
    // Usage counts the mint as one billed request and the URL's image as
    // delivered once, however often it loads; credits spent is the mint's.
    let account: Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    let usage = &account["data"]["usage_30d"];
    assert_eq!(
        (
            &usage["requests"],
            &usage["images"],
            &usage["credits_spent"]
        ),
        (&json!(1), &json!(1), &json!(1)),
        "{usage}"
    );

    // If-None-Match, compared weakly: 304 with the ETag and no body.
    let r = app
        .client
        .get(&url)
        .header("if-none-match", format!("W/{etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "etag"), etag);
    assert!(r.bytes().await.unwrap().is_empty());

    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_delivery_urls_minted_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("vis_delivery_url_loads_total 4"),
        "{metrics}"
    );
    // The charge is in the ledger under the minting request's id.
    let account = app.account_json("one@example.com").await;
    let charge = &account["ledger"][0];
    assert_eq!(
        (charge["kind"].as_str(), charge["delta"].as_i64()),
        (Some("charge"), Some(-1))
    );
}

#[tokio::test]
async fn a_batch_is_one_debit_of_one_credit_per_url() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("batch@example.com", "images:read,account:read")
        .await;
    let body = json!({
        "images": [
            camry(),
            {"brand": "BMW", "model": "M3", "year": 2020, "view": "hero", "format": "jpeg", "size": "small"},
            {"make": "ford", "model": "f-150", "year": 2020, "color": "grey", "height": 300, "format": "webp"},
        ],
        "ttl_seconds": 120,
        "max_uses": 5,
    });
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let r = post_urls(&app, &key, &body).await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "x-credits-charged"), "3");
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        v["billing"],
        json!({"charged_on": "creation", "credits_charged": 3, "credits_remaining": 97, "credits_per_url": 1})
    );
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    assert_eq!(
        data[1]["vehicle"],
        json!({"make": "bmw", "model": "m3", "year": 2020, "view": "front-3-4", "color": "silver", "format": "jpg", "width": 512})
    );
    assert_eq!(data[2]["vehicle"]["color"], "gray");
    assert_eq!(data[2]["vehicle"]["height"], 300);
    assert!(data[2]["vehicle"].get("width").is_none());
    let mut ids: Vec<&str> = data.iter().map(|u| u["id"].as_str().unwrap()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3);
    let store = SqlStore::connect(app.config.database_url.expose())
        .await
        .unwrap();
    for u in data {
        assert_eq!(u["max_uses"], 5);
        let record = store
            .delivery_url(u["id"].as_str().unwrap())
            .await
            .unwrap()
            .unwrap();
        let expires = u64::try_from(record.expires_at / 1000).unwrap();
        assert!(
            (before + 119..=before + 122).contains(&expires),
            "{expires} vs {before}"
        );
        assert_eq!(u["expires_at"], rfc3339(record.expires_at));
        assert_eq!((record.max_uses, record.uses), (5, 0));
    }
    assert_eq!(balance(&app, &key).await, 97);
    let account = app.account_json("batch@example.com").await;
    let charges: Vec<&Value> = account["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "charge")
        .collect();
    assert_eq!(charges.len(), 1, "the whole batch is one debit");
    assert_eq!(charges[0]["delta"], -3);
    // Each URL serves its own image.
    let r = load(&app, data[1]["url"].as_str().unwrap()).await;
    assert_eq!(
        (header(&r, "content-type"), header(&r, "x-image-width")),
        ("image/jpeg".into(), "512".into())
    );
    let r = load(&app, data[2]["url"].as_str().unwrap()).await;
    assert_eq!(
        (header(&r, "content-type"), header(&r, "x-image-height")),
        ("image/webp".into(), "300".into())
    );
}

#[tokio::test]
async fn invalid_items_unknown_properties_and_big_bodies_are_refused_and_charge_nothing() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("bad@example.com", "images:read,account:read")
        .await;
    let batch = |bad: Value| json!({"images": [camry(), camry(), bad]});
    for (item, param) in [
        (
            json!({"make": "toyota", "model": "camry", "year": 1989}),
            "year",
        ),
        (
            json!({"make": "toyota", "model": "camry", "year": 2028}),
            "year",
        ),
        (
            json!({"make": "toyota", "brand": "toyota", "model": "camry", "year": 2019}),
            "brand",
        ),
        (
            json!({"make": "toyota", "model": "camry", "year": 2019, "width": 2000}),
            "width",
        ),
        (
            json!({"make": "toyota", "model": "camry", "year": 2019, "view": "bottom"}),
            "view",
        ),
        (
            json!({"make": "toyota", "model": "camry", "year": 2019, "colour": "red"}),
            "colour",
        ),
        (
            json!({"make": "toyota", "model": "camry", "year": "2019"}),
            "year",
        ),
        (json!({"make": "toyota", "year": 2019}), "model"),
    ] {
        let body = problem(post_urls(&app, &key, &batch(item.clone())).await, 400).await;
        assert_eq!(body["index"], 2, "{item}");
        assert_eq!(body["param"], format!("images[2].{param}"), "{item}");
        assert!(body["detail"].as_str().unwrap().contains(param), "{body}");
    }
    // An item that is not in the catalog is a 404 naming the item.
    for (item, param) in [
        (
            json!({"make": "nosuchmake", "model": "camry", "year": 2019}),
            "make",
        ),
        (
            json!({"make": "toyota", "model": "nosuchmodel", "year": 2019}),
            "model",
        ),
        (
            json!({"make": "tesla", "model": "model-3", "year": 1995}),
            "year",
        ),
    ] {
        let body = problem(post_urls(&app, &key, &batch(item)).await, 404).await;
        assert_eq!(
            (body["index"].as_i64(), body["param"].as_str()),
            (Some(2), Some(param))
        );
    }
    // The single form: the same rules, no index.
    let body = problem(
        post_urls(
            &app,
            &key,
            &json!({"make": "toyota", "model": "camry", "year": 1989}),
        )
        .await,
        400,
    )
    .await;
    assert_eq!(body["param"], "year");
    assert!(body.get("index").is_none());
    let body = problem(
        post_urls(
            &app,
            &key,
            &json!({"make": "nosuchmake", "model": "camry", "year": 2019}),
        )
        .await,
        404,
    )
    .await;
    assert_eq!(body["param"], "make");
    // Additional properties are rejected, by name.
    for (body, param) in [
        (
            json!({"make": "toyota", "model": "camry", "year": 2019, "ttl_seconds": 60}),
            "ttl_seconds",
        ),
        (json!({"images": [camry()], "callback": "x"}), "callback"),
        (
            json!({"images": [camry()], "ttl_seconds": 59}),
            "ttl_seconds",
        ),
        (
            json!({"images": [camry()], "ttl_seconds": 604_801}),
            "ttl_seconds",
        ),
        (json!({"images": [camry()], "max_uses": 1001}), "max_uses"),
        (json!({"images": []}), "images"),
        (json!({"images": vec![camry(); 51]}), "images"),
    ] {
        let p = problem(post_urls(&app, &key, &body).await, 400).await;
        assert_eq!(p["param"], param, "{body}");
        assert!(p["detail"].as_str().unwrap().contains(param));
    }
    // Not JSON, or not declared as JSON.
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{\"images\": [")
        .send()
        .await
        .unwrap();
    assert_eq!(problem(r, 400).await["param"], "body");
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .body(camry().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(problem(r, 400).await["param"], "Content-Type");
    // More than 64 KiB.
    let big = json!({"images": [camry()], "pad": "x".repeat(64 * 1024)});
    let body = problem(post_urls(&app, &key, &big).await, 413).await;
    assert_eq!(body["limit_bytes"], 65_536);
    // A key without images:read, and no key at all.
    let (_, reader) = app
        .account_with_key("reader@example.com", "account:read")
        .await;
    let body = problem(post_urls(&app, &reader, &camry()).await, 403).await;
    assert_eq!(body["scope"], "images:read");
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .json(&camry())
        .send()
        .await
        .unwrap();
    problem(r, 401).await;
    assert_eq!(balance(&app, &key).await, 100, "nothing was charged");
    assert_eq!(
        app.account_json("bad@example.com").await["ledger"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "only the opening grant"
    );
}

#[tokio::test]
async fn too_few_credits_for_the_batch_is_a_402_that_charges_nothing() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app
        .key_for(
            "poor@example.com",
            2,
            &["--scopes", "images:read,account:read"],
        )
        .await;
    let r = post_urls(&app, &key, &json!({"images": [camry(), camry(), camry()]})).await;
    assert_eq!(header(&r, "link"), "</pricing>; rel=payment");
    assert!(r.headers().contains_key("ratelimit-remaining"));
    let body = problem(r, 402).await;
    assert_eq!(
        (body["balance"].as_i64(), body["required_credits"].as_i64()),
        (Some(2), Some(3))
    );
    assert!(body["links"]["billing"].as_str().is_some());
    assert_eq!(balance(&app, &key).await, 2);
    // Two URLs fit exactly.
    assert_eq!(
        mint(&app, &key, &json!({"images": [camry(), camry()]}))
            .await
            .len(),
        2
    );
    assert_eq!(balance(&app, &key).await, 0);
    let r = app
        .get_with_key(&format!("{CAMRY}&response=url"), &key)
        .await;
    let body = problem(r, 402).await;
    assert_eq!(
        (body["balance"].as_i64(), body["required_credits"].as_i64()),
        (Some(0), Some(1))
    );
}

#[tokio::test]
async fn the_json_form_of_images_car_charges_one_credit_now_and_renders_on_first_load() {
    let counting = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(counting.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("json@example.com", "images:read,account:read")
        .await;
    let r = app
        .get_with_key(&format!("{CAMRY}&format=webp&response=url"), &key)
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/json");
    assert_eq!(header(&r, "x-credits-charged"), "1");
    assert_eq!(header(&r, "x-credits-remaining"), "99");
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    assert_eq!(header(&r, "ratelimit-remaining"), "119");
    let request_id = header(&r, "x-request-id");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["request_id"], request_id.as_str());
    assert_eq!(
        v["billing"],
        json!({"credits_charged": 1, "credits_remaining": 99})
    );
    let d = &v["data"];
    assert_eq!(
        (
            d["width"].as_i64(),
            d["height"].as_i64(),
            d["format"].as_str(),
            d["max_uses"].as_i64()
        ),
        (Some(256), Some(256), Some("webp"), Some(0))
    );
    assert_eq!(
        d["vehicle"],
        json!({"make": "toyota", "model": "camry", "year": 2019, "view": "side", "color": "red", "format": "webp", "width": 256})
    );
    assert!(d["expires_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        counting.renders(),
        0,
        "the image renders on the URL's first load"
    );

    // Accept: application/json with no image type is the same form.
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&key)
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-credits-remaining"), "98");
    let v2: Value = r.json().await.unwrap();
    assert_eq!(v2["data"]["format"], "png");
    assert_ne!(v2["data"]["url"], d["url"], "each call mints its own URL");
    assert_eq!(balance(&app, &key).await, 98);

    let r = load(&app, d["url"].as_str().unwrap()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/webp");
    assert_eq!(header(&r, "x-image-width"), "256");
    assert_eq!(counting.renders(), 1);
    assert_eq!(balance(&app, &key).await, 98, "loading is free");
    // A 404 and a 400 on the JSON form charge nothing either.
    let r = app
        .get_with_key(
            "/api/v1/images/car?make=nosuchmake&model=x&year=2019&response=url",
            &key,
        )
        .await;
    problem(r, 404).await;
    assert_eq!(balance(&app, &key).await, 98);
}

#[tokio::test]
async fn a_use_capped_url_serves_max_uses_loads_then_410_and_is_never_cached_publicly() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("cap@example.com", "images:read,account:read")
        .await;
    let url = mint(&app, &key, &json!({"images": [camry()], "max_uses": 2}))
        .await
        .remove(0);
    let r = load(&app, &url).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    let etag = header(&r, "etag");
    // A 304 and a HEAD redeem nothing.
    let r = app
        .client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    assert_eq!(head(&app, &url).await.status(), 200);
    assert_eq!(load(&app, &url).await.status(), 200);
    // Every redemption made: 410, for GET, conditional GET and HEAD.
    let body = problem(load(&app, &url).await, 410).await;
    assert!(
        body["detail"].as_str().unwrap().contains("max_uses"),
        "{body}"
    );
    let r = app
        .client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    problem(r, 410).await;
    assert_eq!(head(&app, &url).await.status(), 410);
    assert_eq!(balance(&app, &key).await, 99, "one credit, at creation");
}

#[tokio::test]
async fn concurrent_loads_of_a_capped_url_redeem_exactly_max_uses() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("race@example.com", "images:read,account:read")
        .await;
    // Warm the output so the race is on the redemption, not the render.
    let warm = mint(&app, &key, &camry()).await.remove(0);
    assert_eq!(load(&app, &warm).await.status(), 200);
    let url = mint(&app, &key, &json!({"images": [camry()], "max_uses": 3}))
        .await
        .remove(0);
    let statuses = concurrent_statuses(12, || app.client.get(&url)).await;
    assert_eq!(count(&statuses, 200), 3, "{statuses:?}");
    assert_eq!(count(&statuses, 410), 9, "{statuses:?}");
}

#[tokio::test]
async fn rate_limited_mints_are_429_and_never_billed() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app
        .key_for(
            "rl@example.com",
            100,
            &["--scopes", "images:read,account:read", "--rate-limit", "1"],
        )
        .await;
    let r = post_urls(&app, &key, &camry()).await;
    assert_eq!(r.status(), 201);
    assert_eq!(
        (
            header(&r, "ratelimit-limit"),
            header(&r, "ratelimit-remaining")
        ),
        ("1".into(), "0".into())
    );
    let r = post_urls(&app, &key, &json!({"images": [camry(), camry()]})).await;
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    problem(r, 429).await;
    assert_eq!(app.account_json("rl@example.com").await["credits"], 99);
}

#[tokio::test]
async fn head_validates_without_rendering_or_redeeming_a_use() {
    let counting = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(counting.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("head@example.com", "images:read,account:read")
        .await;
    let mut item = camry();
    item["format"] = "webp".into();
    let url = mint(&app, &key, &json!({"images": [item], "max_uses": 1}))
        .await
        .remove(0);
    for _ in 0..3 {
        let r = head(&app, &url).await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "content-type"), "image/webp");
        assert_eq!(header(&r, "cache-control"), "private, no-store");
        assert!(r.headers().contains_key("etag"));
        assert!(r.headers().contains_key("x-request-id"));
    }
    assert_eq!(counting.renders(), 0, "HEAD never renders");
    // The single use is still there.
    let r = load(&app, &url).await;
    assert_eq!(r.status(), 200);
    assert_eq!(counting.renders(), 1);
    assert_eq!(head(&app, &url).await.status(), 410);
    // An unlimited URL: HEAD answers with its public caching.
    let url = mint(&app, &key, &camry()).await.remove(0);
    let r = head(&app, &url).await;
    assert_eq!(r.status(), 200);
    assert!(header(&r, "cache-control").starts_with("public, max-age=300, s-maxage="));
    assert_eq!(counting.renders(), 1);
    // HEAD of an invalid token is a 403.
    assert_eq!(
        head(
            &app,
            &app.url(&format!("/api/v1/delivery/{}", "0".repeat(64)))
        )
        .await
        .status(),
        403
    );
}

#[tokio::test]
async fn an_expired_url_is_a_403() {
    // A deployment whose URLs live one second (bounds are configurable; the
    // requested 60 s is clamped to them).
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.delivery.ttl_min = 1;
        c.delivery.ttl_default = 1;
        c.delivery.ttl_max = 1;
    })
    .await;
    let (_, key) = app
        .account_with_key("exp@example.com", "images:read,account:read")
        .await;
    let options: Value = app
        .get("/api/v1/images/options")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        options["data"]["limits"]["delivery_ttl"],
        json!({"default": 1, "min": 1, "max": 1})
    );
    let url = mint(&app, &key, &json!({"images": [camry()], "ttl_seconds": 60}))
        .await
        .remove(0);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let body = problem(load(&app, &url).await, 403).await;
    assert!(
        body["detail"].as_str().unwrap().contains("expired"),
        "{body}"
    );
    assert_eq!(head(&app, &url).await.status(), 403);
    assert_eq!(balance(&app, &key).await, 99);
}

#[tokio::test]
async fn revoking_the_minting_key_invalidates_its_urls_within_a_second() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (key_id, key) = app
        .account_with_key("rev@example.com", "images:read,account:read")
        .await;
    let (_, other) = app
        .account_with_key("other@example.com", "images:read,account:read")
        .await;
    let url = mint(&app, &key, &camry()).await.remove(0);
    let kept = mint(&app, &other, &camry()).await.remove(0);
    assert_eq!(load(&app, &url).await.status(), 200);
    assert_eq!(load(&app, &url).await.status(), 200, "now in the URL cache");
    app.cli(&["keys", "revoke", &key_id]).await.unwrap();
    // The revocation feed reaches every replica's URL cache within a
    // second (docs/ledger.md); until then a cached URL may still load.
    let revoked = std::time::Instant::now();
    let refused = loop {
        let r = load(&app, &url).await;
        if r.status() == 403 {
            break r;
        }
        assert_eq!(r.status(), 200);
        assert!(
            revoked.elapsed() < std::time::Duration::from_secs(1),
            "still served a second after the revocation"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let body = problem(refused, 403).await;
    assert!(
        body["detail"].as_str().unwrap().contains("revoked"),
        "{body}"
    );
    assert_eq!(head(&app, &url).await.status(), 403);
    // Another key's URL for the same image is unaffected.
    assert_eq!(load(&app, &kept).await.status(), 200);
    // The revoked key cannot mint either (401), and is not billed.
    problem(post_urls(&app, &key, &camry()).await, 401).await;
    problem(
        app.get_with_key(&format!("{CAMRY}&response=url"), &key)
            .await,
        401,
    )
    .await;
    assert_eq!(app.account_json("rev@example.com").await["credits"], 99);
}

#[tokio::test]
async fn malformed_and_forged_tokens_are_403() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("forge@example.com", "images:read,account:read")
        .await;
    let url = mint(&app, &key, &camry()).await.remove(0);
    let token = url.rsplit('/').next().unwrap().to_owned();
    // Flip one hex digit of the id, then of the MAC.
    let flip = |i: usize| {
        let mut t: Vec<char> = token.chars().collect();
        t[i] = if t[i] == '0' { '1' } else { '0' };
        t.into_iter().collect::<String>()
    };
    for bad in [
        "abc".to_owned(),
        "0".repeat(64),
        flip(0),
        flip(63),
        token.to_ascii_uppercase(),
        format!("{token}0"),
        token[..63].to_owned(),
    ] {
        let r = load(&app, &app.url(&format!("/api/v1/delivery/{bad}"))).await;
        let mut body = problem(r, 403).await;
        // The request id is the server's own random hex (`req_` and a
        // UUID): "abc" turned up in one now and then (CI, session 49).
        body.as_object_mut()
            .expect("a problem is an object")
            .remove("request_id");
        assert!(!body.to_string().contains(&bad), "the token is not echoed");
    }
    // A token from another deployment (another secret) is forged here.
    let elsewhere = TestApp::spawn().await;
    let r = load(
        &elsewhere,
        &elsewhere.url(&format!("/api/v1/delivery/{token}")),
    )
    .await;
    problem(r, 403).await;
    assert_eq!(load(&app, &url).await.status(), 200, "the real one works");
}

#[tokio::test]
async fn a_failed_first_load_is_a_502_that_consumes_the_url_and_refunds_it_once() {
    let app = TestApp::spawn_rendering(Arc::new(Failing), |_| {}).await;
    let (_, key) = app
        .account_with_key("fail@example.com", "images:read,account:read")
        .await;
    let urls = mint(&app, &key, &json!({"images": [camry(), camry()]})).await;
    assert_eq!(balance(&app, &key).await, 98);
    let body = problem(load(&app, &urls[0]).await, 502).await;
    assert!(
        body["detail"].as_str().unwrap().contains("refunded"),
        "{body}"
    );
    assert!(
        !body.to_string().contains("GPU lost"),
        "the cause is not shown"
    );
    assert_eq!(
        balance(&app, &key).await,
        99,
        "that URL's credit is refunded"
    );
    // Consumed: later loads are 410 and refund nothing more.
    for _ in 0..2 {
        let body = problem(load(&app, &urls[0]).await, 410).await;
        assert!(
            body["detail"].as_str().unwrap().contains("Mint a new URL"),
            "{body}"
        );
    }
    assert_eq!(head(&app, &urls[0]).await.status(), 410);
    assert_eq!(balance(&app, &key).await, 99);
    // The other URL of the batch fails on its own first load, refunded too.
    problem(load(&app, &urls[1]).await, 502).await;
    assert_eq!(balance(&app, &key).await, 100);
    let account = app.account_json("fail@example.com").await;
    let refunds = account["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "refund")
        .count();
    assert_eq!(refunds, 2, "one refund per failed URL");
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_delivery_url_refunds_total 2"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_spent_budget_is_a_503_that_consumes_nothing() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| c.render.daily_budget = 0).await;
    let (_, key) = app
        .account_with_key("budget@example.com", "images:read,account:read")
        .await;
    let url = mint(&app, &key, &json!({"images": [camry()], "max_uses": 1}))
        .await
        .remove(0);
    let r = load(&app, &url).await;
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    problem(r, 503).await;
    assert_eq!(
        balance(&app, &key).await,
        99,
        "no refund: the URL is still good"
    );
    app.cli(&["budget", "set", "--daily", "5"]).await.unwrap();
    let r = load(&app, &url).await;
    assert_eq!(r.status(), 200, "the single use was not spent by the 503");
    assert_eq!(load(&app, &url).await.status(), 410);
}

#[tokio::test]
async fn replicas_sharing_a_database_accept_each_others_urls_and_restarts_keep_them() {
    let a = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = a
        .account_with_key("rep@example.com", "images:read,account:read")
        .await;
    let url = mint(&a, &key, &camry()).await.remove(0);
    let token = url.rsplit('/').next().unwrap().to_owned();
    let b = TestApp::spawn_with(
        control_plane::Config::for_tests(&a.config.data_dir),
        tempfile::tempdir().unwrap(),
    )
    .await;
    let r = head(&b, &b.url(&format!("/api/v1/delivery/{token}"))).await;
    assert_eq!(
        r.status(),
        200,
        "the generated secret is shared through the database"
    );
    // A configured secret replaces the generated one.
    let mut config = control_plane::Config::for_tests(&a.config.data_dir);
    config.delivery.secret = Some(control_plane::config::Secret::new("k".repeat(40)));
    let c = TestApp::spawn_with(config, tempfile::tempdir().unwrap()).await;
    let r = head(&c, &c.url(&format!("/api/v1/delivery/{token}"))).await;
    assert_eq!(r.status(), 403);
}
