//! `vis image` against the real renderer: the first download costs a
//! credit, a repeat sends the cached ETag and is a free 304 answered from
//! the local cache; the output's extension picks the format; feedback on
//! the delivered render by its request id.

use vis_tests::{TestApp, real_renderer};

use crate::support::{PNG_MAGIC, Vis, credits};

const CAMRY: [&str; 9] = [
    "image", "toyota", "camry", "2019", "--color", "red", "--view", "side", "--size",
];

fn camry(extra: &[&str]) -> Vec<String> {
    CAMRY
        .iter()
        .chain(["thumb"].iter())
        .chain(extra.iter())
        .map(|s| s.to_string())
        .collect()
}

async fn image(vis: &Vis, extra: &[&str]) -> crate::support::Output {
    let args = camry(extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    vis.run_ok(&args).await
}

#[tokio::test]
async fn an_image_download_then_a_free_304_served_from_the_etag_cache() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("img@example.com", 5, &[]).await;
    let vis = Vis::new(&app).with_key(&key);

    let first = image(&vis, &["-o", "car.png", "--json"]).await;
    first.never_shows(&key);
    let v = first.json();
    assert_eq!(v["status"], 200, "{v}");
    assert_eq!(v["from_cache"], false);
    assert_eq!(v["credits_charged"], 1);
    assert_eq!(v["credits_remaining"], 4);
    assert_eq!(
        (v["width"].as_u64(), v["content_type"].as_str()),
        (Some(256), Some("image/png"))
    );
    let etag = v["etag"].as_str().expect("an ETag").to_owned();
    let bytes = std::fs::read(vis.home().join("car.png")).expect("car.png written");
    assert!(bytes.starts_with(PNG_MAGIC));
    assert_eq!(v["bytes"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(credits(&app, "img@example.com").await, 4);

    // The same image again: If-None-Match, 304, no charge, bytes from the cache.
    let again = image(&vis, &["-o", "again.png", "--json"]).await.json();
    assert_eq!(again["status"], 304, "{again}");
    assert_eq!(again["from_cache"], true);
    assert_eq!(again["credits_charged"], 0);
    assert_eq!(again["etag"], etag.as_str());
    assert_eq!(std::fs::read(vis.home().join("again.png")).unwrap(), bytes);
    let human = image(&vis, &["-o", "third.png"]).await;
    assert!(
        human.stdout.contains("304") && human.stdout.contains("no charge"),
        "{human:?}"
    );
    assert_eq!(std::fs::read(vis.home().join("third.png")).unwrap(), bytes);
    assert_eq!(credits(&app, "img@example.com").await, 4, "304s are free");

    // Without the cache the same image is delivered and paid again.
    let paid = image(&vis, &["-o", "fresh.png", "--no-cache", "--json"])
        .await
        .json();
    assert_eq!(
        (paid["status"].as_u64(), paid["credits_charged"].as_i64()),
        (Some(200), Some(1))
    );
    assert_eq!(credits(&app, "img@example.com").await, 3);

    // The output's extension picks the format.
    let webp = image(&vis, &["-o", "car.webp", "--json"]).await.json();
    assert_eq!(webp["content_type"], "image/webp");
    let w = std::fs::read(vis.home().join("car.webp")).unwrap();
    assert!(w.starts_with(b"RIFF") && &w[8..12] == b"WEBP");

    // Feedback on the first delivery, by its request id.
    let request_id = v["request_id"].as_str().expect("a request id");
    let fb = vis
        .run_ok(&["feedback", "--request-id", request_id, "--good", "--json"])
        .await
        .json();
    assert_eq!(fb["recorded"], true, "{fb}");
    assert_eq!(
        credits(&app, "img@example.com").await,
        2,
        "feedback is free"
    );
}
