//! GET /api/v1/images/options (spec §2 Options document).

use vis_tests::TestApp;

#[tokio::test]
async fn the_options_document_is_complete_public_and_cacheable() {
    let app = TestApp::spawn().await;
    let r = app.get("/api/v1/images/options").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "public, max-age=3600");
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    let d = &v["data"];

    let views = d["views"].as_array().unwrap();
    let ids: Vec<&str> = views.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "front",
            "front-3-4",
            "side",
            "side-right",
            "rear",
            "rear-3-4"
        ]
    );
    let yaws: Vec<i64> = views
        .iter()
        .map(|v| v["yaw_degrees"].as_i64().unwrap())
        .collect();
    assert_eq!(yaws, [0, 35, 90, 270, 180, 145]);
    assert_eq!(views[1]["aliases"], serde_json::json!(["front34", "hero"]));
    assert!(
        views
            .iter()
            .all(|v| v["label"].is_string() && v["description"].is_string())
    );

    let colors = d["colors"].as_array().unwrap();
    assert_eq!(colors.len(), 15);
    assert!(colors.iter().all(|c| {
        let hex = c["hex"].as_str().unwrap();
        hex.len() == 7 && hex.starts_with('#')
    }));

    assert_eq!(
        d["sizes"]["presets"],
        serde_json::json!({"thumb": 256, "small": 512, "medium": 768, "large": 1024})
    );
    assert_eq!(d["sizes"]["max"], 1024);
    assert_eq!(d["sizes"]["source"], 1024);

    let formats = d["formats"].as_array().unwrap();
    assert_eq!(formats.len(), 4);
    assert_eq!(
        formats[2],
        serde_json::json!({"id": "jpg", "mime": "image/jpeg", "transparent": false})
    );
    assert_eq!(
        formats[3],
        serde_json::json!({"id": "avif", "mime": "image/avif", "transparent": true})
    );
    // format=auto: what it tries, and what it falls back to.
    assert_eq!(
        d["format_auto"],
        serde_json::json!({"preference": ["avif", "webp"], "fallback": "png", "fallback_opaque": "jpg"})
    );
    assert_eq!(
        d["framing"],
        serde_json::json!({
            "backgrounds": ["transparent", "white", "studio", "#RRGGBB"],
            "fits": ["contain", "cover"],
            "trim": true,
            "padding_max": 256,
            "shadow": [true, false],
            "scales": ["fill", "relative"],
        })
    );

    assert_eq!(d["pricing"]["credits_per_image"], 1);
    assert_eq!(d["pricing"]["credits_per_dollar"], 1000);
    assert_eq!(d["pricing"]["free_credits"], 100);
    let packs: Vec<(i64, i64)> = d["pricing"]["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["credits"].as_i64().unwrap(), p["cents"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        packs,
        [(5000, 500), (10000, 1000), (25000, 2500), (100000, 10000)]
    );

    assert_eq!(d["limits"]["rate_limit_per_minute_default"], 120);
    assert_eq!(d["limits"]["max_batch_urls"], 50);
    assert_eq!(
        d["limits"]["delivery_ttl"],
        serde_json::json!({"default": 3600, "min": 60, "max": 604800})
    );
    assert!(
        d["links"]
            .as_object()
            .unwrap()
            .values()
            .all(|l| l.as_str().unwrap().starts_with(&app.base_url))
    );

    let catalog = &d["catalog"];
    assert_eq!(
        catalog["years"],
        serde_json::json!({"from": 1990, "to": 2026})
    );
    assert!(catalog["makes"].as_u64().unwrap() > 500, "{catalog}");
    assert!(catalog["models"].as_u64().unwrap() > 5000, "{catalog}");
    let sources = catalog["sources"].as_array().unwrap();
    assert!(!sources.is_empty());
    assert!(sources.iter().all(|s| {
        ["id", "name", "region", "license"]
            .iter()
            .all(|k| s[k].is_string())
    }));
}

#[tokio::test]
async fn public_endpoints_answer_cors_preflights_and_expose_headers() {
    let app = TestApp::spawn().await;
    let r = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/api/v1/images/options"))
        .header("origin", "https://example.com")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let r = app
        .client
        .get(app.url("/api/v1/images/options"))
        .header("origin", "https://example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let exposed = r.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for h in [
        "etag",
        "x-request-id",
        "x-credits-charged",
        "x-image-width",
        "ratelimit-remaining",
        "retry-after",
    ] {
        assert!(exposed.contains(h), "{h} not exposed: {exposed}");
    }
    // Keyed endpoints are not opened to browsers.
    let r = app
        .client
        .get(app.url("/api/v1/account"))
        .header("origin", "https://example.com")
        .send()
        .await
        .unwrap();
    assert!(!r.headers().contains_key("access-control-allow-origin"));
}
