//! `vis batch`: many images into a directory within the key's rate limit;
//! killed or interrupted part-way it resumes without paying twice for a
//! file it has; a 402 stops it cleanly and says how many credits the rest
//! needs.
//!
//! The rows are one vehicle in several box sizes: one cold render, the
//! rest derived from it, so the tests stay quick on lavapipe.

use std::path::Path;
use std::time::{Duration, Instant};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use vis_tests::{TestApp, real_renderer, within_one_rate_window};

use crate::support::{Output, PNG_MAGIC, Vis, credits, images_in, whole_message};

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

/// A proxy in front of the server that passes the first `pass` image
/// requests (`GET /api/v1/images/car`) and every other request through,
/// and holds any image request after them: it never reaches the server
/// and is never answered. Returns its base URL and how many it holds.
async fn proxy_passing_images(
    upstream: std::net::SocketAddr,
    pass: usize,
) -> (String, Arc<AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (passed, held) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let held_out = Arc::clone(&held);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (passed, held) = (Arc::clone(&passed), Arc::clone(&held));
            tokio::spawn(async move {
                let server = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                });
                let (mut buf, mut chunk) = (Vec::new(), vec![0u8; 64 * 1024]);
                loop {
                    let n = match client_read.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(len) = whole_message(&buf) {
                        let request: Vec<u8> = buf.drain(..len).collect();
                        if request.starts_with(b"GET /api/v1/images/car?")
                            && passed.fetch_add(1, Ordering::SeqCst) >= pass
                        {
                            // Held: this connection forwards nothing more.
                            held.fetch_add(1, Ordering::SeqCst);
                            std::future::pending::<()>().await;
                        }
                        if server_write.write_all(&request).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (format!("http://{address}"), held_out)
}

#[tokio::test]
async fn a_batch_killed_part_way_resumes_skipping_what_it_has_and_never_pays_twice() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("batch@example.com", 20, &[]).await;
    let widths = [64, 80, 96, 112, 128];
    warm_up(&app).await;

    // The first run goes through a proxy that lets three images through
    // and holds the rest: it is killed with its next requests held, none
    // of them at the server, so nothing is charged that it has no file for
    // (whatever the machine's load, unlike a kill timed against a clock).
    let (proxy, held) = proxy_passing_images(app.addr, 3).await;
    let first_vis = Vis::new(&app).with_key(&key).with_base_url(&proxy);
    let csv = rows_csv(first_vis.home(), &widths);
    let mut first = first_vis
        .command(&["batch", &csv, "-o", "out", "-j", "2"])
        .spawn()
        .unwrap();
    let out = first_vis.home().join("out");
    wait_for_files(&out, 3).await;
    let start = Instant::now();
    while held.load(Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no fourth request"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill().await.expect("killed");
    let had = images_in(&out);
    assert_eq!(had.len(), 3, "{had:?}");
    assert_eq!(credits(&app, "batch@example.com").await, 17);

    // The same command again, straight to the server: the three are
    // skipped, the rest downloaded.
    let vis = first_vis.with_base_url(&app.url(""));
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
