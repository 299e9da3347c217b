//! Memory soak of cold renders (docs/benchmarks.md, "Memory under distinct
//! cold renders"): renders N distinct variants through the real render path
//! (dispatcher, job rows, in-process wgpu node, object store, derive) with a
//! small derived-output cache, and prints the process's resident memory at
//! checkpoints.
//!
//! `cargo run --release -p vis-tests --bin render-soak -- 5000 [checkpoints…]`

use std::time::Instant;

use control_plane::delivery::{self, ImageParams};
use control_plane::{App, Config};
use vis_protocol::{Color, Format, View};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The i-th distinct variant: catalog vehicles × colours × views.
fn variants(catalog: &control_plane::Catalog, n: usize) -> Vec<ImageParams> {
    let mut out = Vec::with_capacity(n);
    'outer: for make in catalog.makes() {
        for model in catalog.models_of_make(make, None) {
            let year = model.latest_year();
            for color in Color::ALL {
                for view in View::ALL {
                    out.push(ImageParams {
                        make: make.slug.clone(),
                        model: model.slug.clone(),
                        year,
                        view,
                        color: color.into(),
                        paint: None,
                        width: Some(128),
                        height: None,
                        format: Format::Png.into(),
                        framing: Default::default(),
                        staging: Default::default(),
                    });
                    if out.len() == n {
                        break 'outer;
                    }
                }
            }
        }
    }
    out
}

#[tokio::main]
async fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let total = args.first().copied().unwrap_or(1000);
    let mut checkpoints: Vec<usize> = args.iter().skip(1).copied().collect();
    if checkpoints.is_empty() {
        checkpoints = vec![100, 1000, 5000];
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::for_tests(dir.path());
    config.render.workers = 2;
    config.render.derived_cache_bytes = 1024 * 1024;
    config.render.daily_budget = 1_000_000;
    let app = App::build(config).await.expect("app builds");
    let deliverer = app.state().deliverer.clone();
    let catalog = app.state().catalog;
    let revision = deliverer.dispatcher.config().revision;
    println!("renders  rss_mib  per_render_kib_since_start  secs");
    let start_rss = rss_kib();
    println!(
        "{:>7}  {:>7.1}  {:>26}  {:>4}",
        0,
        start_rss as f64 / 1024.0,
        "-",
        0
    );
    let started = Instant::now();
    let list = variants(catalog, total);
    let mut done = 0usize;
    // Two at a time, like two render workers serving two clients.
    for pair in list.chunks(2) {
        let jobs: Vec<_> = pair
            .iter()
            .map(|p| {
                let resolved = delivery::resolve(catalog, p, revision).expect("catalog vehicle");
                let deliverer = deliverer.clone();
                tokio::spawn(async move { deliverer.output(&resolved).await.map(|_| ()) })
            })
            .collect();
        for job in jobs {
            job.await.expect("task").expect("render");
        }
        done += pair.len();
        if checkpoints.contains(&done) || done == total {
            let rss = rss_kib();
            println!(
                "{:>7}  {:>7.1}  {:>26.1}  {:>4}",
                done,
                rss as f64 / 1024.0,
                (rss as f64 - start_rss as f64) / done as f64,
                started.elapsed().as_secs()
            );
        }
    }
}
