//! Any colour and manufacturers' paint codes (docs/rendering.md, "Colours
//! and paint codes") through the real server: `color=#RRGGBB`, `finish`,
//! `paint=CODE`, what matched (`X-Color-Match`, `color_match`), the
//! variant key they share, the refusals, the options document and the
//! legacy endpoint's canonical spelling.

use sha2::{Digest, Sha256};
use vis_tests::{Counting, TestApp, header, problem, real_renderer};

const CAMRY: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&view=side&w=128";

/// The ETag the service gave a named colour before custom colours existed:
/// the variant's text form, size, format and revision, hashed.
fn etag_of(variant: &str, size: &str, format: &str, revision: u32) -> String {
    let text = format!("{variant}|{size}|{format}|r{revision}");
    let digest = Sha256::digest(text.as_bytes());
    format!("\"r{revision}-{}\"", hex::encode(&digest[..12]))
}

fn revision_of(etag: &str) -> u32 {
    etag.trim_matches('"')
        .strip_prefix('r')
        .and_then(|s| s.split('-').next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("etag {etag}"))
}

#[tokio::test]
async fn a_paint_code_and_its_hex_share_one_render_and_say_what_matched() {
    let backend = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(backend.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("paint@example.com", "images:read,account:read")
        .await;
    let by_code = app.get_with_key(&format!("{CAMRY}&paint=3r3"), &key).await;
    assert_eq!(by_code.status(), 200);
    assert_eq!(header(&by_code, "x-image-source"), "generated");
    assert_eq!(
        header(&by_code, "x-color-match"),
        "exact; name=\"Barcelona Red Metallic\"; paint=\"3R3\""
    );
    // One variant, one canonical URL: the code's hex and finish.
    assert!(
        header(&by_code, "content-location")
            .contains("&view=side&color=%238c1a20&finish=metallic&w=128&format=png"),
        "{}",
        header(&by_code, "content-location")
    );
    let etag = header(&by_code, "etag");
    // The same colour and finish by hex (any case, # as %23): the same
    // variant, from cache, and still named after the make's paint.
    let by_hex = app
        .get_with_key(&format!("{CAMRY}&color=%238C1A20&finish=metallic"), &key)
        .await;
    assert_eq!(by_hex.status(), 200);
    assert_eq!(header(&by_hex, "etag"), etag);
    assert_eq!(header(&by_hex, "x-image-source"), "cache");
    assert_eq!(
        header(&by_hex, "x-color-match"),
        "exact; name=\"Barcelona Red Metallic\"; paint=\"3R3\""
    );
    assert_eq!(backend.renders(), 1);
    // Bare RRGGBB is the same colour; solid is another paint: a new
    // render, named after the nearest (the same colour, another finish).
    let solid = app
        .get_with_key(&format!("{CAMRY}&color=8c1a20"), &key)
        .await;
    assert_eq!(solid.status(), 200);
    assert_ne!(header(&solid, "etag"), etag);
    assert_eq!(
        header(&solid, "x-color-match"),
        "nearest; delta-e=0.0; name=\"Barcelona Red Metallic\"; paint=\"3R3\""
    );
    assert_eq!(backend.renders(), 2);
    // A colour near no paint of the make is named after the nearest preset.
    let near_red = app
        .get_with_key(&format!("{CAMRY}&color=%23a01018"), &key)
        .await;
    assert_eq!(near_red.status(), 200);
    let m = header(&near_red, "x-color-match");
    assert!(m.starts_with("nearest; delta-e="), "{m}");
    // A conditional request with the hex's ETag is a free 304.
    let r = app
        .client
        .get(app.url(&format!("{CAMRY}&paint=3R3")))
        .bearer_auth(&key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "x-credits-charged"), "0");
}

#[tokio::test]
async fn preset_colours_keep_their_keys_and_etags_and_their_hex_is_the_preset() {
    let backend = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(backend.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("preset@example.com", "images:read")
        .await;
    let red = app.get_with_key(&format!("{CAMRY}&color=red"), &key).await;
    assert_eq!(red.status(), 200);
    let etag = header(&red, "etag");
    // The key's colour part is still the preset's name.
    assert_eq!(
        etag,
        etag_of(
            "toyota/camry/2019/red/side",
            "128x128",
            "png",
            revision_of(&etag)
        )
    );
    assert_eq!(header(&red, "x-color-match"), "exact; name=\"red\"");
    // Red's own bytes and finish (solid) are red.
    let hex = app
        .get_with_key(&format!("{CAMRY}&color=%23B3121C"), &key)
        .await;
    assert_eq!(header(&hex, "etag"), etag);
    assert_eq!(header(&hex, "x-image-source"), "cache");
    assert!(header(&hex, "content-location").contains("&color=red&"));
    // Red in another finish is a custom paint with a key of its own.
    let metallic = app
        .get_with_key(&format!("{CAMRY}&color=red&finish=metallic"), &key)
        .await;
    assert_eq!(metallic.status(), 200);
    assert_eq!(
        header(&metallic, "etag"),
        etag_of(
            "toyota/camry/2019/b3121c-metallic/side",
            "128x128",
            "png",
            revision_of(&etag)
        )
    );
    assert_eq!(backend.renders(), 2);
}

#[tokio::test]
async fn colour_parameters_that_do_not_fit_are_refused_naming_them() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("bad@example.com", "images:read,account:read")
        .await;
    let base = "/api/v1/images/car?make=toyota&model=camry&year=2019";
    for (query, param) in [
        ("&color=%2312345", "color"),
        ("&color=%2312345g", "color"),
        ("&color=navy", "color"),
        ("&color=red&paint=3R3", "paint"),
        ("&finish=matte", "finish"),
        ("&paint=", "paint"),
    ] {
        let r = app.get_with_key(&format!("{base}{query}"), &key).await;
        let p = problem(r, 400).await;
        assert_eq!(p["param"], param, "{query}: {p}");
    }
    let p = problem(
        app.get_with_key(&format!("{base}&color=bad"), &key).await,
        400,
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("#RRGGBB"), "{p}");
    // A code the make does not have: 400 naming paint, with its nearest.
    let p = problem(
        app.get_with_key(&format!("{base}&paint=3R4"), &key).await,
        400,
    )
    .await;
    assert_eq!(p["param"], "paint");
    let near: Vec<&str> = p["near_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(near[0], "3R3 (Barcelona Red Metallic)", "{near:?}");
    // A make without paint codes: 400 naming paint, listing those that have.
    let p = problem(
        app.get_with_key(
            "/api/v1/images/car?make=porsche&model=911&year=2020&paint=1",
            &key,
        )
        .await,
        400,
    )
    .await;
    assert_eq!(p["param"], "paint");
    assert!(
        p["paint_makes"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("bmw"))
    );
    // Nothing was charged for any of it.
    let account: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 100);
    // Bodies name the field with its path.
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"images": [
            {"make": "toyota", "model": "camry", "year": 2019},
            {"make": "toyota", "model": "camry", "year": 2019, "color": "#123456", "paint": "3R3"},
        ]}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 400).await;
    assert_eq!(
        (p["param"].as_str(), p["index"].as_u64()),
        (Some("images[1].paint"), Some(1))
    );
}

#[tokio::test]
async fn json_answers_say_the_colour_and_what_matched() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("json@example.com", "images:read")
        .await;
    let r = app
        .get_with_key(&format!("{CAMRY}&paint=3R3&response=url"), &key)
        .await;
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    let d = &v["data"];
    assert_eq!(d["vehicle"]["color"], "#8c1a20");
    assert_eq!(d["vehicle"]["finish"], "metallic");
    assert_eq!(d["color_match"]["match"], "exact");
    assert_eq!(d["color_match"]["name"], "Barcelona Red Metallic");
    assert_eq!(d["color_match"]["paint"], "3R3");
    assert_eq!(d["color_match"]["hex"], "#8c1a20");
    assert_eq!(d["color_match"]["delta_e"], 0.0);
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"images": [
            {"make": "toyota", "model": "camry", "year": 2019, "color": "red"},
            {"make": "toyota", "model": "camry", "year": 2019, "color": "#12ABEF", "finish": "pearl"},
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    let (red, custom) = (&v["data"][0], &v["data"][1]);
    assert_eq!(red["vehicle"]["color"], "red");
    assert!(red["vehicle"].get("finish").is_none(), "{red}");
    assert_eq!(red["color_match"]["match"], "exact");
    assert_eq!(red["color_match"]["name"], "red");
    assert_eq!(custom["vehicle"]["color"], "#12abef");
    assert_eq!(custom["vehicle"]["finish"], "pearl");
    assert_eq!(custom["color_match"]["match"], "nearest");
    assert!(custom["color_match"]["delta_e"].as_f64().unwrap() > 0.0);
    // The signed URL's image says the same in its header.
    let url = custom["url"].as_str().unwrap().to_owned();
    let r = app.client.head(url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(header(&r, "x-color-match").starts_with("nearest; delta-e="));
}

#[tokio::test]
async fn the_options_document_lists_paint_codes_and_custom_colours() {
    let app = TestApp::spawn().await;
    let v: serde_json::Value = app
        .get("/api/v1/images/options")
        .await
        .json()
        .await
        .unwrap();
    let d = &v["data"];
    assert_eq!(d["custom_colors"]["default_finish"], "solid");
    assert_eq!(
        d["custom_colors"]["finishes"],
        serde_json::json!(["solid", "metallic", "pearl"])
    );
    let paints = d["paints"].as_object().unwrap();
    assert!(paints.len() >= 10, "{}", paints.len());
    let toyota = paints["toyota"].as_array().unwrap();
    let red = toyota.iter().find(|p| p["code"] == "3R3").unwrap();
    assert_eq!(red["name"], "Barcelona Red Metallic");
    assert_eq!(red["hex"], "#8c1a20");
    assert_eq!(red["finish"], "metallic");
    assert!(red["source"].as_str().unwrap().contains("approximate"));
    assert!(
        paints["bmw"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["code"] == "475")
    );
    // The fifteen presets are still listed as before.
    assert_eq!(d["colors"].as_array().unwrap().len(), 15);
}

#[tokio::test]
async fn the_legacy_endpoint_respells_paint_codes_and_hex_to_one_canonical_url() {
    let app = TestApp::spawn().await;
    let base = "/images/car.png?make=toyota&model=camry&year=2019";
    for (query, want) in [
        (
            "&paint=3R3",
            "&view=front-3-4&color=%238c1a20&finish=metallic&format=png",
        ),
        (
            "&color=8C1A20",
            "&view=front-3-4&color=%238c1a20&format=png",
        ),
        ("&color=%23b3121c", "&view=front-3-4&color=red&format=png"),
    ] {
        let r = app.get(&format!("{base}{query}")).await;
        assert_eq!(r.status(), 308, "{query}");
        let location = header(&r, "location");
        assert!(
            location.ends_with(&format!("year=2019{want}")),
            "{query}: {location}"
        );
    }
    // The canonical spelling is not redirected (no grant here: 401).
    let r = app
        .get(&format!(
            "{base}&view=front-3-4&color=%238c1a20&finish=metallic&format=png"
        ))
        .await;
    assert_eq!(r.status(), 401);
    let p = problem(app.get(&format!("{base}&paint=XYZ")).await, 400).await;
    assert_eq!(p["param"], "paint");
}

/// Issue 32 item 6: every JSON answer that describes an image carries alt
/// text for its `<img>` tag (colour, year, make, model, body style, view):
/// `response=url`, `POST /api/v1/image-urls`, resolve and MCP `get_image`.
#[tokio::test]
async fn every_json_answer_that_describes_an_image_carries_alt_text() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("alt@example.com", "images:read,account:read")
        .await;
    let r = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2019&view=front-3-4&color=red&w=128&response=url",
            &key,
        )
        .await;
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["data"]["alt"],
        "Red 2019 Toyota Camry saloon, front three-quarter view"
    );
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"images": [
            {"make": "toyota", "model": "camry", "year": 2019, "paint": "3R3", "view": "side"},
            {"make": "Toyota", "model": "Camry", "year": 2019, "color": "#b0121c", "view": "rear"},
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["data"][0]["alt"],
        "Barcelona Red Metallic 2019 Toyota Camry saloon, left side view"
    );
    // A custom colour is called after the nearest preset or paint.
    assert_eq!(
        v["data"][1]["alt"],
        "Red 2019 Toyota Camry saloon, rear view"
    );
    let r = app
        .client
        .post(app.url("/api/v1/images/resolve"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"query": "blue 2019 toyota camry side profile"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["data"]["alt"], "Blue 2019 Toyota Camry saloon, left side view",
        "{v}"
    );
    let r = app
        .client
        .post(app.url("/api/mcp"))
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&key)
        .json(&serde_json::json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": "get_image", "arguments": {
                "make": "toyota", "model": "camry", "year": 2019, "view": "rear-3-4",
                "color": "white", "width": 128,
            } },
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["result"]["structuredContent"]["alt"],
        "White 2019 Toyota Camry saloon, rear three-quarter view",
        "{v}"
    );
}
