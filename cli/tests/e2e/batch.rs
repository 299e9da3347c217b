//! `vis batch`: many images into a directory within the key's rate limit;
//! killed or interrupted part-way it resumes without paying twice for a
//! file it has; a 402 stops it cleanly and says how many credits the rest
//! needs.
//!
//! The rows are one vehicle in several box sizes: one cold render, the
//! rest derived from it, so the tests stay quick on lavapipe.

use std::path::Path;
use std::time::{Duration, Instant};

use vis_tests::{TestApp, real_renderer, within_one_rate_window};

use crate::support::{Output, PNG_MAGIC, Vis, credits, images_in};

/// A CSV of `widths.len()` rows, the prewarm file's columns plus `width`.
fn rows_csv(dir: &Path, widths: &[u32]) -> String {
    let mut text = String::from("make,model,year,color,view,width\n");
    for w in widths {
        text.push_str(&format!("Toyota,Camry,2019,red,side,{w}\n"));
    }
    let path = dir.join("rows.csv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Renders the rows' vehicle once, with another key, so that the timed
/// part of a test only derives sizes from the cached render.
async fn warm_up(app: &TestApp) {
    let key = app.key_for("warm@example.com", 5, &[]).await;
    let r = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=32",
            &key,
        )
        .await;
    assert_eq!(r.status(), 200);
}

async fn wait_for_files(dir: &Path, n: usize) {
    let start = Instant::now();
    while images_in(dir).len() < n {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "{n} files never appeared in {}",
            dir.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every file is a PNG of its row's width (`…_64x.png`).
fn assert_all_pngs(dir: &Path, widths: &[u32]) {
    let files = images_in(dir);
    assert_eq!(files.len(), widths.len(), "{files:?}");
    for w in widths {
        let name = format!("toyota_camry_2019_red_side_{w}x.png");
        let bytes = std::fs::read(dir.join(&name)).unwrap_or_else(|_| panic!("{name} missing"));
        assert!(bytes.starts_with(PNG_MAGIC), "{name} is a PNG");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        assert_eq!(width, *w, "{name}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

async fn finish(child: tokio::process::Child) -> Output {
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("vis ends")
        .expect("wait");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[tokio::test]
async fn a_batch_killed_part_way_resumes_skipping_what_it_has_and_never_pays_twice() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    // Three requests a minute: the first run spends the window and waits
    // in the limiter, where it is killed, with no request under way.
    let key = app
        .key_for("batch@example.com", 20, &["--rate-limit", "3"])
        .await;
    let vis = Vis::new(&app).with_key(&key);
    let widths = [64, 80, 96, 112, 128];
    let csv = rows_csv(vis.home(), &widths);
    let out = vis.home().join("out");
    warm_up(&app).await;
    within_one_rate_window(40).await;

    let mut first = vis
        .command(&["batch", &csv, "-o", "out", "-j", "2"])
        .spawn()
        .unwrap();
    wait_for_files(&out, 3).await;
    // The limiter holds the fourth request until the window resets.
    tokio::time::sleep(Duration::from_millis(500)).await;
    first.kill().await.expect("killed");
    let had = images_in(&out);
    assert_eq!(had.len(), 3, "{had:?}");
    assert_eq!(credits(&app, "batch@example.com").await, 17);

    // The same command again: the three are skipped, the rest downloaded
    // (after the window resets: a 429's Retry-After, never billed).
    let second = vis.run(&["batch", &csv, "-o", "out", "--json"]).await.ok();
    second.never_shows(&key);
    let r = second.json();
    assert_eq!(
        (r["skipped"].as_u64(), r["downloaded"].as_u64()),
        (Some(3), Some(2)),
        "{r}"
    );
    assert_eq!(r["credits_charged"], 2);
    assert_eq!(r["failed"], serde_json::json!([]));
    assert_all_pngs(&out, &widths);
    assert_eq!(
        credits(&app, "batch@example.com").await,
        15,
        "five files, five credits"
    );

    // Everything on disk: nothing to do, nothing charged.
    let third = vis.run_ok(&["batch", &csv, "-o", "out"]).await;
    assert!(
        third.stdout.contains("0 downloaded, 5 already in"),
        "{third:?}"
    );
    assert_eq!(credits(&app, "batch@example.com").await, 15);
}

#[tokio::test]
async fn ctrl_c_stops_a_batch_at_once_keeping_what_it_paid_for() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app
        .key_for("ctrlc@example.com", 20, &["--rate-limit", "2"])
        .await;
    let vis = Vis::new(&app).with_key(&key);
    let widths = [64, 80, 96, 112];
    let csv = rows_csv(vis.home(), &widths);
    let out = vis.home().join("out");
    warm_up(&app).await;
    within_one_rate_window(40).await;

    let child = vis
        .command(&["batch", &csv, "-o", "out", "--json"])
        .spawn()
        .unwrap();
    wait_for_files(&out, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = child.id().expect("running") as i32;
    // SIGINT, as Ctrl-C sends: it must not wait out the rate-limit window.
    assert_eq!(send_signal(pid, "INT"), 0);
    let stopped_at = Instant::now();
    let run = finish(child).await;
    assert!(
        stopped_at.elapsed() < Duration::from_secs(10),
        "stopped at once"
    );
    assert_eq!(run.code, 130, "{run:?}");
    let r = run.json();
    assert_eq!(r["stopped"], "interrupted", "{r}");
    assert_eq!(
        (r["downloaded"].as_u64(), r["not_attempted"].as_u64()),
        (Some(2), Some(2))
    );
    assert!(run.stderr.contains("run the same command again"), "{run:?}");
    assert_eq!(images_in(&out).len(), 2);
    assert_eq!(credits(&app, "ctrlc@example.com").await, 18);
}

/// `kill -SIG pid` through the system's kill(1) (the workspace denies unsafe code).
fn send_signal(pid: i32, signal: &str) -> i32 {
    std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("kill(1)")
        .code()
        .unwrap_or(-1)
}

#[tokio::test]
async fn a_402_mid_batch_stops_cleanly_and_says_how_many_credits_the_rest_needs() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("poor@example.com", 2, &[]).await;
    let vis = Vis::new(&app).with_key(&key);
    let widths = [64, 80, 96, 112, 128];
    let csv = rows_csv(vis.home(), &widths);
    let out = vis.home().join("out");

    let run = vis.run(&["batch", &csv, "-o", "out", "-j", "3"]).await;
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stderr.contains("need 3 credits"), "{run:?}");
    assert!(run.stdout.contains("2 downloaded"), "{run:?}");
    assert_eq!(images_in(&out).len(), 2);
    assert_eq!(credits(&app, "poor@example.com").await, 0);

    let json = vis.run(&["batch", &csv, "-o", "out", "--json"]).await;
    assert_eq!(json.code, 4, "{json:?}");
    let r = json.json();
    assert_eq!(r["stopped"], "out_of_credits");
    assert_eq!(
        (r["credits_needed"].as_i64(), r["balance"].as_i64()),
        (Some(3), Some(0))
    );
    assert_eq!(
        (r["skipped"].as_u64(), r["downloaded"].as_u64()),
        (Some(2), Some(0))
    );

    // Three credits later the same command finishes the job.
    app.cli(&[
        "credits",
        "adjust",
        "--email",
        "poor@example.com",
        "--delta",
        "3",
        "--reason",
        "test",
    ])
    .await
    .unwrap();
    let done = vis
        .run_ok(&["batch", &csv, "-o", "out", "--json"])
        .await
        .json();
    assert_eq!(
        (done["skipped"].as_u64(), done["downloaded"].as_u64()),
        (Some(2), Some(3))
    );
    assert_all_pngs(&out, &widths);
    assert_eq!(credits(&app, "poor@example.com").await, 0);
}
