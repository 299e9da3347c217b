//! Turntable angles and the top view (docs/rendering.md, "Angles and the
//! top view") through the real server: `angle=N` and `view=top` on
//! `GET /api/v1/images/car`, signed URLs and the legacy endpoint; the
//! variant each renders, the canonical spelling, ETags and 304s, alt text,
//! the refusals and the options document.

use std::sync::{Arc, Mutex};

use control_plane::renders::RenderBackend;
use vis_protocol::RenderJob;
use vis_tests::{TestApp, header, problem, real_renderer};

const CAMRY: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&w=128";

/// The real renderer, remembering the view of every job it rendered.
#[derive(Debug)]
struct Recording {
    inner: Arc<dyn RenderBackend>,
    views: Mutex<Vec<String>>,
}

impl Recording {
    fn views(&self) -> Vec<String> {
        self.views.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl RenderBackend for Recording {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        self.views
            .lock()
            .unwrap()
            .push(job.variant.view.to_string());
        self.inner.render_png(job).await
    }
}

#[tokio::test]
async fn an_angle_and_the_top_view_are_variants_of_their_own() {
    let backend = Arc::new(Recording {
        inner: real_renderer(),
        views: Mutex::new(Vec::new()),
    });
    let app = TestApp::spawn_rendering(backend.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("angles@example.com", "images:read,account:read")
        .await;

    let a30 = app.get_with_key(&format!("{CAMRY}&angle=30"), &key).await;
    assert_eq!(a30.status(), 200);
    assert_eq!(header(&a30, "content-type"), "image/png");
    assert_eq!(header(&a30, "x-image-source"), "generated");
    assert_eq!(header(&a30, "x-credits-charged"), "1");
    // The canonical URL names the angle in view's place.
    let location = header(&a30, "content-location");
    assert!(
        location.contains("year=2019&angle=30&color=red&w=128&format=png")
            && !location.contains("view="),
        "{location}"
    );
    let etag = header(&a30, "etag");
    assert_eq!(backend.views(), ["angle-30"]);

    // `view=angle-30` (how responses name an angle's view) is the same
    // variant: from cache, same ETag.
    let again = app
        .get_with_key(&format!("{CAMRY}&view=angle-30"), &key)
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(header(&again, "etag"), etag);
    assert_eq!(header(&again, "x-image-source"), "cache");
    // A 304 for the angle's ETag charges nothing.
    let not_modified = app
        .client
        .get(app.url(&format!("{CAMRY}&angle=30")))
        .bearer_auth(&key)
        .header("if-none-match", format!("W/{etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!(not_modified.status(), 304);
    assert_eq!(header(&not_modified, "x-credits-charged"), "0");

    // The top view and angle 90 are other variants; angle 90 is not
    // `side` (the turn has a scale of its own).
    let top = app.get_with_key(&format!("{CAMRY}&view=top"), &key).await;
    assert_eq!(top.status(), 200);
    let a90 = app.get_with_key(&format!("{CAMRY}&angle=90"), &key).await;
    let side = app.get_with_key(&format!("{CAMRY}&view=side"), &key).await;
    let etags = [
        etag.clone(),
        header(&top, "etag"),
        header(&a90, "etag"),
        header(&side, "etag"),
    ];
    let mut distinct = etags.to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{etags:?}");
    assert_eq!(backend.views(), ["angle-30", "top", "angle-90", "side"]);
    // The images differ: the renderer drew each from its own camera.
    let (top_png, a30_png) = (top.bytes().await.unwrap(), a30.bytes().await.unwrap());
    assert_ne!(top_png, a30_png);

    // The JSON form says the view and carries alt text with the angle.
    let r = app
        .get_with_key(&format!("{CAMRY}&angle=30&response=url"), &key)
        .await;
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["data"]["vehicle"]["view"], "angle-30");
    assert_eq!(
        v["data"]["alt"],
        "Red 2019 Toyota Camry saloon, front-left three-quarter view, 30°"
    );
    // Its signed URL serves the same render, from cache.
    let url = v["data"]["url"].as_str().unwrap().to_owned();
    let signed = app.client.get(url).send().await.unwrap();
    assert_eq!(signed.status(), 200);
    assert_eq!(header(&signed, "etag"), etag);
    // A batch item takes `angle` too.
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"images": [
            {"make": "toyota", "model": "camry", "year": 2019, "color": "red", "view": "top", "width": 128},
            {"make": "toyota", "model": "camry", "year": 2019, "color": "red", "angle": 30, "width": 128},
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        v["data"][0]["alt"],
        "Red 2019 Toyota Camry saloon, view from above"
    );
    assert_eq!(v["data"][1]["vehicle"]["view"], "angle-30");
    assert_eq!(backend.views().len(), 4, "nothing new rendered");
}

#[tokio::test]
async fn bad_angles_and_angle_with_view_are_400s_naming_angle() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("bad-angles@example.com", "images:read,account:read")
        .await;
    for extra in [
        "&angle=20",
        "&angle=360",
        "&angle=-15",
        "&angle=thirty",
        "&angle=030",
        "&angle=30&view=side",
    ] {
        let r = app.get_with_key(&format!("{CAMRY}{extra}"), &key).await;
        let p = problem(r, 400).await;
        assert_eq!(p["param"], "angle", "{extra}: {p}");
    }
    let r = app
        .get_with_key(&format!("{CAMRY}&view=angle-20"), &key)
        .await;
    let p = problem(r, 400).await;
    assert_eq!(p["param"], "view", "{p}");
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&serde_json::json!({"images": [
            {"make": "toyota", "model": "camry", "year": 2019, "angle": 30, "view": "rear"},
        ]}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 400).await;
    assert_eq!(p["param"], "images[0].angle", "{p}");
    // Nothing was charged for any of it.
    let account: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 100);
}

#[tokio::test]
async fn the_legacy_endpoint_spells_an_angle_canonically_and_options_list_them() {
    let app = TestApp::spawn().await;
    // `view=angle-30` on the embeddable endpoint is respelt as `angle=30`.
    let r = app
        .client
        .get(app.url("/images/car.png?make=toyota&model=camry&year=2019&view=angle-30&mode=cached"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 308);
    let location = header(&r, "location");
    assert!(
        location.ends_with(
            "make=toyota&model=camry&year=2019&angle=30&color=silver&format=png&mode=cached"
        ),
        "{location}"
    );
    let v: serde_json::Value = app
        .get("/api/v1/images/options")
        .await
        .json()
        .await
        .unwrap();
    let d = &v["data"];
    let views: Vec<&str> = d["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    // `views` stays the six of the spec's View enumeration; `top` is
    // listed beside them.
    assert_eq!(
        views,
        [
            "front",
            "front-3-4",
            "side",
            "side-right",
            "rear",
            "rear-3-4"
        ]
    );
    assert_eq!(d["extra_views"][0]["id"], "top");
    assert_eq!(d["extra_views"][0]["aliases"][0], "overhead");
    assert_eq!(
        (
            &d["angles"]["min"],
            &d["angles"]["max"],
            &d["angles"]["step"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(345),
            &serde_json::json!(15)
        )
    );
}
