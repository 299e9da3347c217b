//! Builds one vehicle's mesh `n` times and prints the vertex count: a
//! harness for counting the mesh build's instructions, which on a shared
//! 2-core machine say more than criterion's times (docs/benchmarks.md,
//! "Session 28"):
//!
//! ```text
//! cargo build --release -p vis-render --example mesh_ir
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     $CARGO_TARGET_DIR/release/examples/mesh_ir toyota camry 2019 2
//! ```
//!
//! One build's count is the difference between `n` = 2 and `n` = 1 (the
//! first also parses the embedded model tables).
//!
//! `mesh_ir slowest [K]` times every curated generation's build (the best
//! of three) and prints the K slowest, to find which to count, then the
//! median, 90th percentile and how many are over 15 ms.

use vis_protocol::BodyShape;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("slowest") {
        let k = args.get(1).and_then(|k| k.parse().ok()).unwrap_or(10);
        slowest(k);
        return;
    }
    let (Some(make), Some(model), Some(Ok(year))) = (
        args.first(),
        args.get(1),
        args.get(2).map(|y| y.parse::<u16>()),
    ) else {
        eprintln!("usage: mesh_ir MAKE MODEL YEAR [N]");
        std::process::exit(2);
    };
    let n: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let library = vis_render::vehicle::ModelLibrary::embedded();
    let mut vertices = 0;
    for _ in 0..n {
        let p = vis_render::vehicle::Params::resolve(&library, BodyShape::Sedan, make, model, year);
        vertices += vis_render::vehicle::build(&p).vertices.len();
    }
    println!("{vertices}");
}

fn slowest(k: usize) {
    let library = vis_render::vehicle::ModelLibrary::embedded();
    let mut times: Vec<(f64, String)> = library
        .identity()
        .generations()
        .map(|g| {
            let best = (0..3)
                .map(|_| {
                    let t = std::time::Instant::now();
                    let p = vis_render::vehicle::Params::resolve(
                        &library,
                        BodyShape::Sedan,
                        &g.make,
                        &g.model,
                        g.from,
                    );
                    std::hint::black_box(vis_render::vehicle::build(&p));
                    t.elapsed().as_secs_f64() * 1e3
                })
                .fold(f64::MAX, f64::min);
            (
                best,
                format!("{} {} {} ({})", g.make, g.model, g.from, g.code),
            )
        })
        .collect();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, name) in times.iter().take(k) {
        println!("{ms:7.2} ms  {name}");
    }
    // The whole curated set at a glance: the issue's bar is 15 ms a build.
    let at = |q: f64| times[((times.len() - 1) as f64 * (1.0 - q)).round() as usize].0;
    let over = times.iter().filter(|t| t.0 > 15.0).count();
    println!(
        "{} generations: median {:.1} ms, 90th percentile {:.1} ms, {over} over 15 ms",
        times.len(),
        at(0.5),
        at(0.9),
    );
}
