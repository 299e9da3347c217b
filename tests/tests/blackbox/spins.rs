//! 360° spins (`GET /api/v1/images/spin`; docs/embeds.md, "Spins")
//! through the real server: 24 frames, each the cached variant of its
//! angle, laid out as a sprite sheet or an animated WebP, billed 24 credits
//! in one charge; the manifest (free), 304s, refusals, 402 before any
//! render and the refund of a spin whose frames fail.
//!
//! The render node here draws each frame as a flat tile whose red channel
//! says its angle, so the sheet's layout can be read back exactly; the
//! real renderer's angles are `angles.rs`'s and `render-node`'s.

use std::sync::{Arc, Mutex};

use control_plane::renders::{Drawn, RenderBackend, Rendered};
use vis_protocol::RenderJob;
use vis_tests::{Failing, TestApp, header, problem};

const SPIN: &str = "/api/v1/images/spin?make=toyota&model=camry&year=2019&color=red&w=64";

/// A render node drawing a 64 px tile per job, red = the angle / 15 * 10
/// (255 for a view that is no angle), and remembering the views and the
/// size of each batch it was handed.
#[derive(Debug, Default)]
struct Tiles {
    views: Mutex<Vec<String>>,
    batches: Mutex<Vec<usize>>,
}

fn shade(view: &str) -> u8 {
    view.strip_prefix("angle-")
        .and_then(|d| d.parse::<u16>().ok())
        .map_or(255, |d| (d / 15 * 10) as u8)
}

#[async_trait::async_trait]
impl RenderBackend for Tiles {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        let view = job.variant.view.to_string();
        let red = shade(&view);
        self.views.lock().unwrap().push(view);
        let tile = vis_render::image::Rgba::new(64, 64, [red, 40, 60, 255].repeat(64 * 64))
            .map_err(|e| e.to_string())?;
        vis_render::image::encode_png(&tile).map_err(|e| e.to_string())
    }

    async fn render_batch(&self, jobs: Vec<RenderJob>, done: Rendered) {
        self.batches.lock().unwrap().push(jobs.len());
        for (index, job) in jobs.iter().enumerate() {
            let png = self.render_png(job).await;
            let _ = done.send(Drawn { index, png, ms: 1 });
        }
    }
}

#[tokio::test]
async fn a_spin_is_24_cached_frames_billed_24_credits_in_one_charge() {
    let tiles = Arc::new(Tiles::default());
    let app = TestApp::spawn_rendering(tiles.clone(), |_| {}).await;
    let key = app.key_for("spin@example.com", 100, &[]).await;

    // A sprite sheet: 6 x 4 frames of 64 px, angle 0 at the top left.
    let sheet = app
        .get_with_key(&format!("{SPIN}&layout=sprite&format=png"), &key)
        .await;
    assert_eq!(sheet.status(), 200);
    assert_eq!(header(&sheet, "content-type"), "image/png");
    assert_eq!(header(&sheet, "x-credits-charged"), "24");
    assert_eq!(header(&sheet, "x-credits-remaining"), "76");
    assert_eq!(header(&sheet, "x-image-source"), "generated");
    assert_eq!(header(&sheet, "x-spin-frames"), "24");
    assert_eq!(header(&sheet, "x-spin-grid"), "6x4");
    assert_eq!(header(&sheet, "x-spin-frame-size"), "64x64");
    assert_eq!(
        (
            header(&sheet, "x-image-width"),
            header(&sheet, "x-image-height")
        ),
        ("384".into(), "256".into())
    );
    assert!(
        header(&sheet, "content-location").ends_with(
            "/api/v1/images/spin?make=toyota&model=camry&year=2019&color=red&w=64&format=png&layout=sprite"
        ),
        "{}",
        header(&sheet, "content-location")
    );
    let etag = header(&sheet, "etag");
    let png = vis_render::image::decode_png(&sheet.bytes().await.unwrap()).unwrap();
    assert_eq!((png.width, png.height), (384, 256));
    for i in 0..24u32 {
        let (x, y) = ((i % 6) * 64 + 32, (i / 6) * 64 + 32);
        assert_eq!(png.pixel(x, y)[0], (i * 10) as u8, "frame {i}'s cell");
    }
    let mut views = tiles.views.lock().unwrap().clone();
    views.sort_by_key(|v| shade(v));
    let want: Vec<String> = (0..24).map(|i| format!("angle-{}", i * 15)).collect();
    assert_eq!(views, want, "one render per angle");
    assert_eq!(
        *tiles.batches.lock().unwrap(),
        [24],
        "the 24 cold frames were queued together and leased as one batch by one worker"
    );

    // Again: the assembled spin, charged again, rendering nothing.
    let again = app
        .get_with_key(&format!("{SPIN}&layout=sprite&format=png"), &key)
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(header(&again, "etag"), etag);
    assert_eq!(header(&again, "x-image-source"), "cache");
    assert_eq!(header(&again, "x-credits-remaining"), "52");
    // A 304 is free.
    let not_modified = app
        .client
        .get(app.url(&format!("{SPIN}&layout=sprite&format=png")))
        .bearer_auth(&key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(not_modified.status(), 304);
    assert_eq!(header(&not_modified, "x-credits-charged"), "0");
    assert_eq!(header(&not_modified, "x-credits-remaining"), "52");

    // The animation (the default layout and format) reuses the frames.
    let anim = app.get_with_key(SPIN, &key).await;
    assert_eq!(anim.status(), 200);
    assert_eq!(header(&anim, "content-type"), "image/webp");
    assert_eq!(header(&anim, "x-image-source"), "cache");
    assert_eq!(header(&anim, "x-spin-grid"), "1x1");
    assert_ne!(header(&anim, "etag"), etag);
    let webp = anim.bytes().await.unwrap();
    assert_eq!(&webp[..4], b"RIFF");
    assert_eq!(&webp[8..16], b"WEBPVP8X");
    assert_eq!(webp.windows(4).filter(|w| *w == b"ANMF").count(), 24);
    assert_eq!(tiles.views.lock().unwrap().len(), 24, "nothing re-rendered");

    // Each frame is a variant of its own: GET /api/v1/images/car serves it
    // from cache.
    let frame = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&angle=15&w=64",
            &key,
        )
        .await;
    assert_eq!(frame.status(), 200);
    assert_eq!(header(&frame, "x-image-source"), "cache");

    // The manifest is free and says where each frame is.
    let r = app
        .get_with_key(
            &format!("{SPIN}&layout=sprite&format=png&response=manifest"),
            &key,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-credits-charged"), "0");
    let m: serde_json::Value = r.json().await.unwrap();
    let d = &m["data"];
    assert_eq!(d["frame_count"], 24);
    assert_eq!(
        (d["columns"].as_u64(), d["rows"].as_u64()),
        (Some(6), Some(4))
    );
    assert_eq!(d["credits"], 24);
    assert_eq!(d["etag"], etag);
    assert_eq!(d["alt"], "Red 2019 Toyota Camry saloon, 360° spin");
    let f7 = &d["frames"][7];
    assert_eq!(
        (f7["angle"].as_u64(), f7["x"].as_u64(), f7["y"].as_u64()),
        (Some(105), Some(64), Some(64))
    );
    assert_eq!(f7["view"], "angle-105");
    assert!(
        f7["image_url"]
            .as_str()
            .unwrap()
            .contains("&angle=105&color=red&w=64"),
        "{f7}"
    );
    let account: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 100 - 24 * 3 - 1);
}

#[tokio::test]
async fn a_spin_the_balance_cannot_pay_renders_nothing_and_a_failed_one_is_refunded() {
    let tiles = Arc::new(Tiles::default());
    let app = TestApp::spawn_rendering(tiles.clone(), |_| {}).await;
    let poor = app.key_for("poor@example.com", 23, &[]).await;
    let r = app.get_with_key(SPIN, &poor).await;
    let p = problem(r, 402).await;
    assert_eq!(p["required_credits"], 24, "{p}");
    assert_eq!(p["balance"], 23, "{p}");
    assert!(tiles.views.lock().unwrap().is_empty(), "no render started");

    let failing = TestApp::spawn_rendering(Arc::new(Failing), |_| {}).await;
    let key = failing.key_for("fails@example.com", 100, &[]).await;
    let r = failing.get_with_key(SPIN, &key).await;
    problem(r, 502).await;
    let account: serde_json::Value = failing
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 100, "the reserved 24 came back");
}

#[tokio::test]
async fn spin_parameters_that_cannot_be_are_400s_naming_them() {
    let app = TestApp::spawn().await;
    let key = app.key_for("spin-400@example.com", 100, &[]).await;
    for (extra, param) in [
        ("&view=side", "view"),
        ("&angle=30", "angle"),
        ("&w=600", "w"),
        ("&h=513", "h"),
        ("&size=large", "size"),
        ("&layout=grid", "layout"),
        ("&format=png", "format"),
        ("&layout=sprite&format=gif", "format"),
        ("&response=url", "response"),
        ("&colour=red", "colour"),
    ] {
        let r = app
            .get_with_key(
                &format!("/api/v1/images/spin?make=toyota&model=camry&year=2019{extra}"),
                &key,
            )
            .await;
        let p = problem(r, 400).await;
        assert_eq!(p["param"], param, "{extra}: {p}");
    }
    let r = app
        .get_with_key(
            "/api/v1/images/spin?make=toyota&model=nosuchcar&year=2019",
            &key,
        )
        .await;
    problem(r, 404).await;
    let account: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 100, "nothing charged");
}

#[tokio::test]
async fn a_staged_spin_is_24_staged_frames_and_takes_no_framing_yet() {
    let app = TestApp::spawn().await;
    let key = app.key_for("spin-staged@example.com", 100, &[]).await;
    let staged = format!("{SPIN}&shadow=false&scale=relative&layout=sprite&format=png");
    let m: serde_json::Value = app
        .get_with_key(&format!("{staged}&response=manifest"), &key)
        .await
        .json()
        .await
        .unwrap();
    let plain: serde_json::Value = app
        .get_with_key(
            &format!("{SPIN}&layout=sprite&format=png&response=manifest"),
            &key,
        )
        .await
        .json()
        .await
        .unwrap();
    // Each frame is the staged variant, and the spin is another spin.
    let f3 = m["data"]["frames"][3]["image_url"].as_str().unwrap();
    assert!(
        f3.contains("&angle=45&color=red&shadow=false&scale=relative&w=64"),
        "{f3}"
    );
    assert_ne!(m["data"]["etag"], plain["data"]["etag"]);
    for (extra, param) in [("&background=white", "background"), ("&trim=true", "trim")] {
        let r = app.get_with_key(&format!("{staged}{extra}"), &key).await;
        let p = problem(r, 400).await;
        assert_eq!(p["param"], param, "{extra}: {p}");
    }
}
