//! AVIF and `format=auto` through the real server and renderer: the AVIF
//! output itself, Accept negotiation on `GET /api/v1/images/car`, signed
//! URLs and `/images/car.png`, `Vary: Accept`, ETags and 304s per
//! negotiated format, and the refusals.

use serde_json::{Value, json};
use vis_tests::{TestApp, header, problem, real_renderer};

const CAMRY: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&w=128";
/// What Chrome sends for an `<img>`.
const CHROME: &str = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

async fn get_accepting(app: &TestApp, path: &str, key: &str, accept: &str) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .bearer_auth(key)
        .header("accept", accept)
        .send()
        .await
        .unwrap()
}

/// An ISO-BMFF AVIF file: `ftyp` with the `avif` brand, and its size.
fn assert_avif(bytes: &[u8], width: u32) {
    assert_eq!(&bytes[4..12], b"ftypavif", "not an AVIF file");
    let at = bytes.windows(4).position(|w| w == b"ispe").unwrap() + 8;
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!(be(at), width);
    // The transparent background travels as an alpha plane.
    let alpha = b"urn:mpeg:mpegB:cicp:systems:auxiliary:alpha";
    assert!(bytes.windows(alpha.len()).any(|w| w == alpha), "no alpha");
}

async fn credits(app: &TestApp, key: &str) -> i64 {
    let v: Value = app
        .get_with_key("/api/v1/account", key)
        .await
        .json()
        .await
        .unwrap();
    v["data"]["credits"].as_i64().unwrap()
}

#[tokio::test]
async fn avif_is_a_format_and_auto_chooses_by_accept() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("formats@example.com", "images:read,account:read")
        .await;

    // format=avif: an AVIF of the asked size, billed like any image.
    let avif = app
        .get_with_key(&format!("{CAMRY}&format=avif"), &key)
        .await;
    assert_eq!(avif.status(), 200);
    assert_eq!(header(&avif, "content-type"), "image/avif");
    assert_eq!(header(&avif, "x-credits-charged"), "1");
    assert_eq!(header(&avif, "x-image-width"), "128");
    assert!(
        header(&avif, "content-location").ends_with("&w=128&format=avif"),
        "{}",
        header(&avif, "content-location")
    );
    let avif_etag = header(&avif, "etag");
    let avif_bytes = avif.bytes().await.unwrap();
    assert_avif(&avif_bytes, 128);

    // format=auto from a browser that decodes AVIF: the same output, the
    // same ETag, and Vary: Accept.
    let auto = get_accepting(&app, &format!("{CAMRY}&format=auto"), &key, CHROME).await;
    assert_eq!(auto.status(), 200);
    assert_eq!(header(&auto, "content-type"), "image/avif");
    assert!(header(&auto, "vary").contains("Accept"));
    assert_eq!(header(&auto, "etag"), avif_etag);
    assert_eq!(header(&auto, "x-image-source"), "cache");
    // Content-Location names the representation sent.
    assert!(header(&auto, "content-location").ends_with("&format=avif"));
    assert_eq!(auto.bytes().await.unwrap(), avif_bytes);

    // WebP only, then nothing but wildcards: WebP, then PNG.
    let webp = get_accepting(
        &app,
        &format!("{CAMRY}&format=auto"),
        &key,
        "image/webp,*/*;q=0.8",
    )
    .await;
    assert_eq!(header(&webp, "content-type"), "image/webp");
    let webp_etag = header(&webp, "etag");
    assert_ne!(webp_etag, avif_etag, "an ETag per negotiated format");
    let png = get_accepting(&app, &format!("{CAMRY}&format=auto"), &key, "*/*").await;
    assert_eq!(header(&png, "content-type"), "image/png");
    assert_eq!(&png.bytes().await.unwrap()[..4], b"\x89PNG");
    // A q of 0 refuses AVIF.
    let refused = get_accepting(
        &app,
        &format!("{CAMRY}&format=auto"),
        &key,
        "image/avif;q=0,image/webp",
    )
    .await;
    assert_eq!(header(&refused, "content-type"), "image/webp");

    // A 304 holds per negotiated format: the AVIF's ETag is fresh for an
    // AVIF-accepting client, not for a WebP-only one.
    let before = credits(&app, &key).await;
    let not_modified = app
        .client
        .get(app.url(&format!("{CAMRY}&format=auto")))
        .bearer_auth(&key)
        .header("accept", CHROME)
        .header("if-none-match", &avif_etag)
        .send()
        .await
        .unwrap();
    assert_eq!(not_modified.status(), 304);
    assert_eq!(header(&not_modified, "x-credits-charged"), "0");
    let other = app
        .client
        .get(app.url(&format!("{CAMRY}&format=auto")))
        .bearer_auth(&key)
        .header("accept", "image/webp")
        .header("if-none-match", &avif_etag)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200);
    assert_eq!(header(&other, "content-type"), "image/webp");
    assert_eq!(credits(&app, &key).await, before - 1);

    // HEAD negotiates like the GET, free.
    let head = app
        .client
        .head(app.url(&format!("{CAMRY}&format=auto")))
        .bearer_auth(&key)
        .header("accept", CHROME)
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(header(&head, "content-type"), "image/avif");
    assert_eq!(header(&head, "etag"), avif_etag);
    assert_eq!(header(&head, "x-credits-charged"), "0");

    // The refusals name the parameter and list every format.
    let bad = problem(
        app.get_with_key(&format!("{CAMRY}&format=gif"), &key).await,
        400,
    )
    .await;
    assert_eq!(bad["param"], "format", "{bad}");
    let detail = bad["detail"].as_str().unwrap();
    assert!(
        detail.contains("avif") && detail.contains("auto"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_url_minted_with_auto_negotiates_on_every_load() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("auto-urls@example.com", "images:read,account:read")
        .await;
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&json!({ "make": "toyota", "model": "camry", "year": 2019, "color": "red", "width": 128, "format": "auto" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["data"][0]["vehicle"]["format"], "auto");
    let url = v["data"][0]["url"].as_str().unwrap().to_owned();

    let load = |accept: &'static str| {
        let (client, url) = (app.client.clone(), url.clone());
        async move {
            client
                .get(&url)
                .header("accept", accept)
                .send()
                .await
                .unwrap()
        }
    };
    let avif = load(CHROME).await;
    assert_eq!(avif.status(), 200);
    assert_eq!(header(&avif, "content-type"), "image/avif");
    assert_eq!(header(&avif, "vary"), "Accept");
    assert!(header(&avif, "cache-control").starts_with("public"));
    assert_avif(&avif.bytes().await.unwrap(), 128);
    let png = load("*/*").await;
    assert_eq!(header(&png, "content-type"), "image/png");
    assert_eq!(header(&png, "vary"), "Accept");
    let webp = load("image/webp").await;
    assert_eq!(header(&webp, "content-type"), "image/webp");

    // A fixed format's URL does not vary.
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&json!({ "make": "toyota", "model": "camry", "year": 2019, "color": "red", "width": 128, "format": "avif" }))
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["data"][0]["vehicle"]["format"], "avif");
    let fixed = app
        .client
        .get(v["data"][0]["url"].as_str().unwrap())
        .header("accept", "*/*")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&fixed, "content-type"), "image/avif");
    assert!(fixed.headers().get("vary").is_none());

    // response=url on the image route keeps auto in the URL.
    let r = app
        .get_with_key(&format!("{CAMRY}&format=auto&response=url"), &key)
        .await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["data"]["format"], "auto");
    assert_eq!(v["data"]["vehicle"]["format"], "auto");
}

#[tokio::test]
async fn the_embeddable_endpoint_negotiates_auto_and_varies() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("auto-legacy@example.com", "images:read,account:read")
        .await;
    // Rendered once through the API, then served from cache.
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(r.status(), 200);
    // The canonical spelling keeps `auto`: no redirect, and mode=cached
    // derives the negotiated format from the cached render, publicly
    // cacheable per Accept.
    let path = "/images/car.png?make=toyota&model=camry&year=2019&view=front-3-4&color=red&w=128&format=auto&mode=cached";
    let avif = app
        .client
        .get(app.url(path))
        .header("accept", CHROME)
        .send()
        .await
        .unwrap();
    assert_eq!(avif.status(), 200);
    assert_eq!(header(&avif, "content-type"), "image/avif");
    assert_eq!(header(&avif, "vary"), "Accept");
    assert!(header(&avif, "cache-control").starts_with("public"));
    let png = app
        .client
        .get(app.url(path))
        .header("accept", "*/*")
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    assert_eq!(header(&png, "content-type"), "image/png");
    assert_eq!(header(&png, "vary"), "Accept");
    // Another spelling of auto is respelt to the canonical one.
    let respelt = app
        .client
        .get(app.url(&path.replace("format=auto", "format=AUTO")))
        .send()
        .await
        .unwrap();
    assert_eq!(respelt.status(), 308);
    assert!(header(&respelt, "location").contains("&format=auto&mode=cached"));
}

#[tokio::test]
async fn a_spin_sheet_may_be_avif_and_an_animation_only_webp() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("spin-formats@example.com", "images:read")
        .await;
    let spin = "/api/v1/images/spin?make=toyota&model=camry&year=2019&color=red&size=thumb";
    let head = app
        .client
        .head(app.url(&format!("{spin}&layout=sprite&format=avif")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(header(&head, "content-type"), "image/avif");
    let auto = app
        .client
        .head(app.url(&format!("{spin}&layout=sprite&format=auto")))
        .bearer_auth(&key)
        .header("accept", "image/webp")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&auto, "content-type"), "image/webp");
    let animation = app
        .client
        .head(app.url(&format!("{spin}&format=auto")))
        .bearer_auth(&key)
        .header("accept", CHROME)
        .send()
        .await
        .unwrap();
    assert_eq!(header(&animation, "content-type"), "image/webp");
    let bad = problem(
        app.get_with_key(&format!("{spin}&format=avif"), &key).await,
        400,
    )
    .await;
    assert_eq!(bad["param"], "format", "{bad}");
}
