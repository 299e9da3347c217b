//! POST /api/v1/images/resolve (spec §4): free text to exact image
//! parameters; scope account:read; body at most 4 KiB; per-key rate limit.

use serde_json::{Value, json};
use vis_tests::{TestApp, problem};

async fn post(app: &TestApp, key: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/images/resolve"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .expect("request")
}

async fn resolved(app: &TestApp, key: &str, body: Value) -> Value {
    let r = post(app, key, &body).await;
    assert_eq!(r.status(), 200, "{body}");
    for h in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] {
        assert!(r.headers().contains_key(h), "{h}");
    }
    let v: Value = r.json().await.unwrap();
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    v["data"].clone()
}

async fn reader(app: &TestApp) -> String {
    app.account_with_key("r@example.com", "account:read")
        .await
        .1
}

#[tokio::test]
async fn a_full_phrase_resolves_to_exact_params_with_high_confidence() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    let d = resolved(
        &app,
        &key,
        json!({ "query": "navy 2019 camry from behind, 512px webp" }),
    )
    .await;
    let p = &d["params"];
    assert_eq!(
        (&p["make"], &p["model"], &p["year"], &p["view"], &p["color"]),
        (
            &json!("toyota"),
            &json!("camry"),
            &json!(2019),
            &json!("rear"),
            &json!("blue")
        ),
        "{d}"
    );
    assert_eq!((&p["width"], &p["format"]), (&json!(512), &json!("webp")));
    assert_eq!(d["confidence"], "high");
    assert_eq!(d["display"]["make_name"], "Toyota");
    assert_eq!(d["display"]["model_name"], "Camry");
    let e = &d["extracted"];
    assert_eq!(
        (
            &e["year"],
            &e["color"],
            &e["view"],
            &e["width"],
            &e["format"]
        ),
        (
            &json!(2019),
            &json!("blue"),
            &json!("rear"),
            &json!(512),
            &json!("webp")
        )
    );
    assert!(e.as_object().unwrap().contains_key("size"));
    let c = &d["candidates"][0];
    assert_eq!(
        (&c["make_slug"], &c["model_slug"]),
        (&json!("toyota"), &json!("camry"))
    );
    assert!(c["match_kind"].is_string());
    assert!(c["years"].as_array().unwrap().contains(&json!(2019)));

    // image_path is a ready request on the image endpoint: same parameters.
    let path = d["image_path"].as_str().unwrap();
    assert!(path.starts_with("/api/v1/images/car?"), "{path}");
    let url = reqwest::Url::parse(&app.url(path)).unwrap();
    let q: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(q["make"], "toyota");
    assert_eq!(q["model"], "camry");
    assert_eq!(q["year"], "2019");
    assert_eq!(q["view"], "rear");
    assert_eq!(q["color"], "blue");
    assert_eq!(q["w"], "512");
    assert_eq!(q["format"], "webp");
    // The image endpoint's own parser accepts it as it stands.
    let (params, _) = control_plane::http::images::parse_query(url.query()).unwrap();
    assert_eq!(
        (
            params.make.as_str(),
            params.model.as_str(),
            params.year,
            params.width
        ),
        ("toyota", "camry", 2019, Some(512))
    );
}

#[tokio::test]
async fn other_phrases_and_the_structured_fields() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    let d = resolved(
        &app,
        &key,
        json!({ "query": "Toyota Camry 2018 in navy, side profile" }),
    )
    .await;
    assert_eq!(
        (&d["params"]["year"], &d["params"]["view"]),
        (&json!(2018), &json!("side"))
    );
    assert_eq!(d["confidence"], "high");

    let d = resolved(
        &app,
        &key,
        json!({ "query": "tesla model 3 2021 white 512px webp" }),
    )
    .await;
    assert_eq!(d["params"]["make"], "tesla");
    assert_eq!(d["params"]["model"], "model-3");

    // `year` overrides the text; `make` and `model` narrow the search.
    let d = resolved(
        &app,
        &key,
        json!({ "query": "2019 camry in red", "year": 2015 }),
    )
    .await;
    assert_eq!(d["params"]["year"], 2015);
    assert_eq!(d["params"]["color"], "red");
    let d = resolved(
        &app,
        &key,
        json!({ "query": "red, from behind", "make": "Toyota", "model": "Camry", "year": 2019 }),
    )
    .await;
    assert_eq!(
        (
            &d["params"]["make"],
            &d["params"]["model"],
            &d["params"]["view"]
        ),
        (&json!("toyota"), &json!("camry"), &json!("rear"))
    );

    // Deterministic: the same input resolves the same way.
    let body = json!({ "query": "porshe 911 2020 black" });
    let a = resolved(&app, &key, body.clone()).await;
    let b = resolved(&app, &key, body).await;
    assert_eq!(a, b);
    assert_eq!(a["params"]["make"], "porsche");
}

#[tokio::test]
async fn a_model_resolves_by_any_of_its_names_in_the_texts_year() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    let d = resolved(
        &app,
        &key,
        json!({ "query": "2014 mazda mx-5 miata in crimson" }),
    )
    .await;
    let p = &d["params"];
    assert_eq!(
        (&p["make"], &p["model"], &p["year"], &p["color"]),
        (&json!("mazda"), &json!("mx-5"), &json!(2014), &json!("red")),
        "{d}"
    );
    assert_eq!(d["confidence"], "high");
    assert_eq!(d["display"]["model_name"], "MX-5");
    assert_eq!(
        d["image_path"],
        "/api/v1/images/car?make=mazda&model=mx-5&year=2014&color=red"
    );
    assert_eq!(d["extracted"]["year"], 2014);

    for (query, make, model, year) in [
        ("mazda miata 2016 blue", "mazda", "mx-5", 2016),
        ("2020 mazda 3", "mazda", "mazda3", 2020),
        (
            "2016 range rover vogue",
            "land-rover",
            "range-rover-vogue",
            2016,
        ),
        ("2008 corvette c6", "chevrolet", "corvette", 2008),
    ] {
        let d = resolved(&app, &key, json!({ "query": query })).await;
        assert_eq!(
            (
                &d["params"]["make"],
                &d["params"]["model"],
                &d["params"]["year"]
            ),
            (&json!(make), &json!(model), &json!(year)),
            "{query}: {d}"
        );
    }
    // The structured fields take the other names too: an old make slug, a model alias.
    let d = resolved(
        &app,
        &key,
        json!({ "query": "white, side profile", "make": "range-rover", "model": "evoque", "year": 2018 }),
    )
    .await;
    assert_eq!(
        (
            &d["params"]["make"],
            &d["params"]["model"],
            &d["confidence"]
        ),
        (
            &json!("land-rover"),
            &json!("range-rover-evoque"),
            &json!("high")
        ),
        "{d}"
    );
}

#[tokio::test]
async fn a_year_in_the_text_is_never_replaced_with_confidence() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    // The first four-digit word is the model, the second the year: that year is answered.
    let d = resolved(&app, &key, json!({ "query": "peugeot 2008 2014 in blue" })).await;
    assert_eq!(
        (
            &d["params"]["model"],
            &d["params"]["year"],
            &d["extracted"]["year"]
        ),
        (&json!("2008"), &json!(2014), &json!(2014)),
        "{d}"
    );
    // The model has no such year: the nearest one, low confidence, and the text's year in
    // `extracted` so a client can tell.
    let d = resolved(&app, &key, json!({ "query": "tesla model 3 2012" })).await;
    assert_eq!(d["params"]["year"], 2017, "{d}");
    assert_eq!(d["confidence"], "low");
    assert_eq!(d["extracted"]["year"], 2012);
}

#[tokio::test]
async fn keys_and_scopes_are_required() {
    let app = TestApp::spawn().await;
    let r = app
        .client
        .post(app.url("/api/v1/images/resolve"))
        .json(&json!({ "query": "2019 camry" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    problem(r, 401).await;

    let (_, images_only) = app.account_with_key("i@example.com", "images:read").await;
    let body = problem(
        post(&app, &images_only, &json!({ "query": "2019 camry" })).await,
        403,
    )
    .await;
    assert_eq!(body["scope"], "account:read");
    assert!(body["detail"].as_str().unwrap().contains("account:read"));
}

#[tokio::test]
async fn bodies_over_4_kib_are_413() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    let big = json!({ "query": "camry", "model": "x".repeat(5000) });
    let body = problem(post(&app, &key, &big).await, 413).await;
    assert_eq!(body["limit_bytes"], 4096);
}

#[tokio::test]
async fn invalid_bodies_are_400s_naming_the_field() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    for (body, param) in [
        (json!({ "query": "camry", "colour": "red" }), "colour"),
        (json!({}), "query"),
        (json!({ "query": "" }), "query"),
        (json!({ "query": "   " }), "query"),
        (json!({ "query": "a".repeat(201) }), "query"),
        (json!({ "query": 5 }), "query"),
        (json!({ "query": "camry", "year": 1989 }), "year"),
        (json!({ "query": "camry", "year": 2028 }), "year"),
        (json!({ "query": "camry", "year": "2019" }), "year"),
        (json!({ "query": "camry", "make": "m".repeat(61) }), "make"),
        (
            json!({ "query": "camry", "model": "m".repeat(61) }),
            "model",
        ),
    ] {
        let b = problem(post(&app, &key, &body).await, 400).await;
        assert_eq!(b["param"], param, "{body}: {b}");
    }
    // The limits themselves are accepted.
    let r = post(
        &app,
        &key,
        &json!({ "query": format!("camry {}", "a".repeat(194)), "make": "toyota" }),
    )
    .await;
    assert_ne!(r.status(), 400);
    let r = app
        .client
        .post(app.url("/api/v1/images/resolve"))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(problem(r, 400).await["param"], "body");
}

#[tokio::test]
async fn no_match_is_404_with_the_recognised_makes() {
    let app = TestApp::spawn().await;
    let key = reader(&app).await;
    let body = problem(
        post(&app, &key, &json!({ "query": "bmw in blue from behind" })).await,
        404,
    )
    .await;
    let makes = body["makes"].as_array().expect("makes");
    assert_eq!(makes[0]["slug"], "bmw");
    assert_eq!(makes[0]["name"], "BMW");
    assert!(makes[0]["id"].as_u64().is_some());
    assert!(body["detail"].as_str().unwrap().contains("BMW"), "{body}");

    let body = problem(
        post(&app, &key, &json!({ "query": "asdfghjkl qwerty" })).await,
        404,
    )
    .await;
    assert!(body.get("makes").is_none(), "{body}");
}

#[tokio::test]
async fn resolve_is_rate_limited_per_key() {
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "l@example.com"])
        .await
        .unwrap();
    let out = app
        .cli(&[
            "--json",
            "keys",
            "create",
            "--email",
            "l@example.com",
            "--scopes",
            "account:read",
            "--rate-limit",
            "2",
        ])
        .await
        .unwrap();
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let key = v["key"].as_str().unwrap().to_owned();
    let body = json!({ "query": "2019 camry" });
    let first = post(&app, &key, &body).await;
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["ratelimit-limit"], "2");
    assert_eq!(first.headers()["ratelimit-remaining"], "1");
    // A 400 still counts and carries the headers.
    let bad = post(&app, &key, &json!({ "query": "" })).await;
    assert_eq!(bad.headers()["ratelimit-remaining"], "0");
    problem(bad, 400).await;
    let r = post(&app, &key, &body).await;
    assert_eq!(r.headers()["ratelimit-remaining"], "0");
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    problem(r, 429).await;
}
