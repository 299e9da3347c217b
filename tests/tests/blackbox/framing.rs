//! `background`, `fit`, `trim` and `padding` through the real server and
//! renderer (docs/framing.md): the pixels of a framed image, its size known
//! before the render, its own ETag and canonical URL, `format=auto`'s
//! opaque fallback, signed URLs and `/images/car.png`, and the refusals.

use serde_json::{Value, json};
use vis_render::image::{Rgba, decode_png};
use vis_tests::{TestApp, header, problem, real_renderer};

const SIDE: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&view=side&color=red";

/// The bounding box (x0, y0, x1, y1, exclusive) of pixels with alpha of at
/// least `min`.
fn alpha_box(img: &Rgba, min: u8) -> (u32, u32, u32, u32) {
    let (mut x0, mut y0, mut x1, mut y1) = (img.width, img.height, 0, 0);
    for y in 0..img.height {
        for x in 0..img.width {
            if img.pixel(x, y)[3] >= min {
                (x0, y0) = (x0.min(x), y0.min(y));
                (x1, y1) = (x1.max(x + 1), y1.max(y + 1));
            }
        }
    }
    (x0, y0, x1, y1)
}

async fn png_of(r: reqwest::Response) -> Rgba {
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/png");
    decode_png(&r.bytes().await.unwrap()).unwrap()
}

#[tokio::test]
async fn a_trimmed_vehicle_fills_its_box_inside_the_padding() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("trim@example.com", "images:read,account:read")
        .await;
    // The plain image: a 400 px square with the car small in it.
    let plain = png_of(app.get_with_key(&format!("{SIDE}&w=400"), &key).await).await;
    assert_eq!((plain.width, plain.height), (400, 400));
    let (px0, _, px1, _) = alpha_box(&plain, 128);

    // Trimmed into a 400 x 200 banner with 10 px of padding: the car
    // reaches the padding on its long side, and nothing is inside it.
    let path = format!("{SIDE}&w=400&h=200&trim=true&padding=10");
    let r = app.get_with_key(&path, &key).await;
    assert_eq!(header(&r, "x-image-width"), "400");
    assert_eq!(header(&r, "x-image-height"), "200");
    assert_eq!(header(&r, "x-credits-charged"), "1");
    let trimmed_etag = header(&r, "etag");
    assert!(
        header(&r, "content-location").ends_with("&w=400&h=200&trim=true&padding=10&format=png"),
        "{}",
        header(&r, "content-location")
    );
    let trimmed = png_of(r).await;
    assert_eq!((trimmed.width, trimmed.height), (400, 200));
    let (x0, y0, x1, y1) = alpha_box(&trimmed, 24);
    assert!(
        (x0 >= 10 && y0 >= 10 && x1 <= 390 && y1 <= 190),
        "nothing inside the padding: {:?}",
        (x0, y0, x1, y1)
    );
    assert!(
        x0 <= 12 && x1 >= 388,
        "a side view fills the width: {:?}",
        (x0, x1)
    );
    assert!(
        x1 - x0 > (px1 - px0) + 20,
        "the trimmed car is drawn larger than in the plain square"
    );

    // Its own output: another ETag than the plain one, a 304 on its own.
    let plain_etag = header(
        &app.get_with_key(&format!("{SIDE}&w=400"), &key).await,
        "etag",
    );
    assert_ne!(trimmed_etag, plain_etag);
    let again = app
        .client
        .get(app.url(&path))
        .bearer_auth(&key)
        .header("if-none-match", &trimmed_etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(header(&again, "x-credits-charged"), "0");

    // trim with one side: a square box of that side.
    let square = app
        .client
        .head(app.url(&format!("{SIDE}&w=300&trim=true")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(square.status(), 200);
    assert_eq!(
        (
            header(&square, "x-image-width"),
            header(&square, "x-image-height")
        ),
        ("300".into(), "300".into())
    );
}

#[tokio::test]
async fn backgrounds_are_opaque_and_auto_falls_back_to_jpeg_behind_them() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("backgrounds@example.com", "images:read,account:read")
        .await;
    // A colour behind the car, in a box it covers.
    let cover = png_of(
        app.get_with_key(
            &format!("{SIDE}&w=300&h=200&fit=cover&background=%23102030"),
            &key,
        )
        .await,
    )
    .await;
    assert_eq!((cover.width, cover.height), (300, 200));
    assert!(cover.pixels.chunks_exact(4).all(|p| p[3] == 255));
    assert_eq!(cover.pixel(0, 0), [0x10, 0x20, 0x30, 255]);

    // White and studio: opaque everywhere; the studio sweep is light grey,
    // lighter at the top than at the floor, and the car is still red.
    let white = png_of(
        app.get_with_key(&format!("{SIDE}&w=256&background=white"), &key)
            .await,
    )
    .await;
    assert_eq!(white.pixel(2, 2), [255, 255, 255, 255]);
    let studio = png_of(
        app.get_with_key(&format!("{SIDE}&w=256&background=studio"), &key)
            .await,
    )
    .await;
    assert!(studio.pixels.chunks_exact(4).all(|p| p[3] == 255));
    let (top, floor) = (studio.pixel(128, 4), studio.pixel(4, 252));
    assert!(top[0] > 230 && top[0] > floor[0] + 10, "{top:?} {floor:?}");
    let reds = studio
        .pixels
        .chunks_exact(4)
        .filter(|p| p[0] > 120 && p[1] < 80 && p[2] < 80)
        .count();
    assert!(
        reds > 2000,
        "the red car is on the backdrop: {reds} red pixels"
    );

    // format=auto behind an opaque background: JPEG when Accept names
    // neither AVIF nor WebP, WebP when it names WebP.
    let auto = format!("{SIDE}&w=128&background=white&format=auto");
    let jpeg = app
        .client
        .get(app.url(&auto))
        .bearer_auth(&key)
        .header("accept", "*/*")
        .send()
        .await
        .unwrap();
    assert_eq!(jpeg.status(), 200);
    assert_eq!(header(&jpeg, "content-type"), "image/jpeg");
    assert_eq!(header(&jpeg, "vary"), "Accept");
    assert!(header(&jpeg, "content-location").ends_with("&background=white&format=jpg"));
    let webp = app
        .client
        .get(app.url(&auto))
        .bearer_auth(&key)
        .header("accept", "image/webp,*/*")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&webp, "content-type"), "image/webp");
    // A transparent image still falls back to PNG.
    let png = app
        .client
        .get(app.url(&format!("{SIDE}&w=128&format=auto")))
        .bearer_auth(&key)
        .header("accept", "*/*")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&png, "content-type"), "image/png");
}

#[tokio::test]
async fn framing_travels_in_signed_urls_and_the_embeddable_endpoint() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("framing-urls@example.com", "images:read,account:read")
        .await;
    // A body's framing fields: trim is a JSON boolean.
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&json!({ "make": "toyota", "model": "camry", "year": 2019, "view": "side", "width": 320, "height": 180, "background": "studio", "trim": true, "padding": 8 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let vehicle = &v["data"][0]["vehicle"];
    assert_eq!(
        (&vehicle["width"], &vehicle["height"]),
        (&json!(320), &json!(180)),
        "{v}"
    );
    assert_eq!(vehicle["background"], "studio", "{v}");
    assert_eq!(vehicle["trim"], true, "{v}");
    assert_eq!(vehicle["padding"], 8, "{v}");
    assert!(
        vehicle.get("fit").is_none(),
        "trim's contain is implied: {v}"
    );
    let url = v["data"][0]["url"].as_str().unwrap().to_owned();
    let img = png_of(app.client.get(&url).send().await.unwrap()).await;
    assert_eq!((img.width, img.height), (320, 180));
    assert!(
        img.pixels.chunks_exact(4).all(|p| p[3] == 255),
        "studio is opaque"
    );

    // A string is not a boolean, and the path names the item.
    let bad = problem(
        app.client
            .post(app.url("/api/v1/image-urls"))
            .bearer_auth(&key)
            .json(&json!({ "images": [{ "make": "toyota", "model": "camry", "year": 2019 }, { "make": "toyota", "model": "camry", "year": 2019, "trim": "yes" }] }))
            .send()
            .await
            .unwrap(),
        400,
    )
    .await;
    assert_eq!(bad["param"], "images[1].trim", "{bad}");
    let bad = problem(
        app.client
            .post(app.url("/api/v1/image-urls"))
            .bearer_auth(&key)
            .json(&json!({ "make": "toyota", "model": "camry", "year": 2019, "width": 300, "fit": "cover" }))
            .send()
            .await
            .unwrap(),
        400,
    )
    .await;
    assert_eq!(bad["param"], "fit", "{bad}");

    // The embeddable endpoint: another spelling of a framing is respelt to
    // the canonical one, which mode=cached then serves from the render
    // made above.
    let legacy = "/images/car.png?make=toyota&model=camry&year=2019&view=side&color=silver&w=320&h=180&background=%23FFFFFF&trim=true&padding=8&format=png&mode=cached";
    let respelt = app.client.get(app.url(legacy)).send().await.unwrap();
    assert_eq!(respelt.status(), 308);
    let location = header(&respelt, "location");
    assert!(
        location
            .contains("&w=320&h=180&background=white&trim=true&padding=8&format=png&mode=cached"),
        "{location}"
    );
    let cached = app.client.get(app.url(&location)).send().await.unwrap();
    let img = png_of(cached).await;
    assert_eq!((img.width, img.height), (320, 180));
    assert_eq!(img.pixel(1, 1), [255, 255, 255, 255]);
}

#[tokio::test]
async fn framing_refusals_name_the_parameter_and_charge_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("framing-400@example.com", "images:read,account:read")
        .await;
    let credits = || async {
        let v: Value = app
            .get_with_key("/api/v1/account", &key)
            .await
            .json()
            .await
            .unwrap();
        v["data"]["credits"].as_i64().unwrap()
    };
    let before = credits().await;
    let base = "/api/v1/images/car?make=toyota&model=camry&year=2019";
    for (query, param, says) in [
        ("&background=grey", "background", "#RRGGBB"),
        ("&background=%23fff", "background", "studio"),
        ("&w=300&fit=contain", "fit", "both sides"),
        ("&w=300&h=300&fit=stretch", "fit", "cover"),
        ("&trim=yes", "trim", "true or false"),
        ("&padding=8", "padding", "trim=true"),
        ("&w=300&h=300&fit=cover&padding=8", "padding", "fit=contain"),
        ("&trim=true&padding=257", "padding", "256"),
        ("&trim=true&w=100&h=40&padding=20", "padding", "half"),
        ("&trim=true&padding=08", "padding", "256"),
    ] {
        let bad = problem(app.get_with_key(&format!("{base}{query}"), &key).await, 400).await;
        assert_eq!(bad["param"], param, "{query}: {bad}");
        let detail = bad["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{query}: {detail}");
    }
    // A spin takes no framing yet: a 400 naming it, not a silent default.
    let spin = problem(
        app.get_with_key(
            "/api/v1/images/spin?make=toyota&model=camry&year=2019&background=white",
            &key,
        )
        .await,
        400,
    )
    .await;
    assert_eq!(spin["param"], "background", "{spin}");
    assert_eq!(credits().await, before, "a refusal charges nothing");
}

/// Pixels of the contact shadow: dark and partly transparent, and not
/// beside an opaque pixel. (The vehicle's own edges are partly
/// transparent too where they are anti-aliased, and dark on its tyres,
/// sills and valances: counted as shadow, 68 of them on a shadowless
/// Camry in session 45 and 87 once its rear rows drew a black diffuser,
/// against about 750 of shadow, within the tenth the test allows.)
fn shadow_pixels(img: &Rgba) -> usize {
    let (w, h) = (img.width as usize, img.height as usize);
    let at = |x: usize, y: usize| &img.pixels[(y * w + x) * 4..(y * w + x) * 4 + 4];
    let beside_opaque = |x: usize, y: usize| {
        (y.saturating_sub(1)..(y + 2).min(h))
            .any(|yy| (x.saturating_sub(1)..(x + 2).min(w)).any(|xx| at(xx, yy)[3] == 255))
    };
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = at(x, y);
            p[3] > 8 && p[3] < 160 && p[0] < 40 && p[1] < 40 && p[2] < 40 && !beside_opaque(x, y)
        })
        .count()
}

#[tokio::test]
async fn shadow_false_is_a_render_of_its_own_without_the_shadow() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("shadow@example.com", "images:read,account:read")
        .await;
    let with = app.get_with_key(&format!("{SIDE}&w=256"), &key).await;
    let with_etag = header(&with, "etag");
    let with = png_of(with).await;
    let without = app
        .get_with_key(&format!("{SIDE}&w=256&shadow=false"), &key)
        .await;
    assert_eq!(
        header(&without, "x-image-source"),
        "generated",
        "its own render"
    );
    assert_ne!(header(&without, "etag"), with_etag);
    assert!(
        header(&without, "content-location").contains("&color=red&shadow=false&w=256"),
        "{}",
        header(&without, "content-location")
    );
    let without = png_of(without).await;
    let (a, b) = (shadow_pixels(&with), shadow_pixels(&without));
    assert!(a > 500, "the default render has its shadow: {a} pixels");
    assert!(b * 10 < a, "shadow=false leaves it out: {b} against {a}");
    // The vehicle itself is the same.
    let solid = |img: &Rgba| img.pixels.chunks_exact(4).filter(|p| p[3] == 255).count();
    let (sa, sb) = (solid(&with) as f64, solid(&without) as f64);
    assert!((sa - sb).abs() / sa < 0.05, "{sa} vs {sb}");
    // shadow=true is the default, spelt out: the canonical URL leaves it out.
    let spelt = app
        .get_with_key(&format!("{SIDE}&w=256&shadow=true"), &key)
        .await;
    assert_eq!(header(&spelt, "etag"), with_etag);
    let bad = problem(
        app.get_with_key(&format!("{SIDE}&shadow=no"), &key).await,
        400,
    )
    .await;
    assert_eq!(bad["param"], "shadow", "{bad}");
}

#[tokio::test]
async fn relative_scale_keeps_real_sizes_on_one_ground_line() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("relative@example.com", "images:read,account:read")
        .await;
    let side = |make: &str, model: &str, year: u16, scale: &str| {
        format!(
            "/api/v1/images/car?make={make}&model={model}&year={year}&view=side&color=red&w=512&shadow=false&scale={scale}"
        )
    };
    let mut boxes = Vec::new();
    for scale in ["fill", "relative"] {
        for (make, model, year) in [("smart", "fortwo", 2015), ("chevrolet", "suburban", 2021)] {
            let img = png_of(
                app.get_with_key(&side(make, model, year, scale), &key)
                    .await,
            )
            .await;
            boxes.push(alpha_box(&img, 128));
        }
    }
    let len = |b: &(u32, u32, u32, u32)| f64::from(b.2 - b.0);
    // Filling the frame, the fortwo is drawn nearly as long as the Suburban.
    assert!(len(&boxes[0]) / len(&boxes[1]) > 0.8, "{boxes:?}");
    // At one scale, their lengths keep the real ratio (2.70 m / 5.73 m),
    // and they stand on one ground: the lowest pixels within a few rows
    // (the camera looks down a little, so the near wheels of the wider
    // Suburban sit a little lower in the frame).
    let ratio = len(&boxes[2]) / len(&boxes[3]);
    assert!((ratio - 2.70 / 5.73).abs() < 0.06, "{ratio} {boxes:?}");
    assert!(
        boxes[2].3.abs_diff(boxes[3].3) <= 6,
        "one ground: {boxes:?}"
    );
    let bad = problem(
        app.get_with_key(&side("smart", "fortwo", 2015, "huge"), &key)
            .await,
        400,
    )
    .await;
    assert_eq!(bad["param"], "scale", "{bad}");
}
