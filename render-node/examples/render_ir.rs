//! Renders one vehicle cold `n` times (mesh, GPU passes, readback, PNG):
//! a harness for counting a cold render's instructions, lavapipe's
//! included, which on a shared 2-core machine say more than criterion's
//! times (docs/benchmarks.md, "Session 37"):
//!
//! ```text
//! cargo build --release -p vis-render --example render_ir
//! LP_NUM_THREADS=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     $CARGO_TARGET_DIR/release/examples/render_ir bmw x5 2020 front-3-4 3
//! ```
//!
//! One render's count is the difference between `n` = 3 and `n` = 2 (the
//! first also starts the device and compiles the pipelines, and lavapipe
//! compiles some shader variants at their first draw). `LP_NUM_THREADS=0`
//! rasterises on the calling thread: no worker spins while it waits, so the
//! count is the same on a busy machine as on an idle one (session 39: the
//! X5's 1,807M single-threaded, 1,806M with the workers on an idle machine,
//! nonsense with them while a build ran).

use vis_protocol::{BodyShape, Color, View};
use vis_render::{Renderer, RendererConfig, Subject};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(make), Some(model), Some(Ok(year)), Some(Ok(view))) = (
        args.first(),
        args.get(1),
        args.get(2).map(|y| y.parse::<u16>()),
        args.get(3).map(|v| v.parse::<View>()),
    ) else {
        eprintln!("usage: render_ir MAKE MODEL YEAR VIEW [N]");
        std::process::exit(2);
    };
    let n: usize = args.get(4).and_then(|n| n.parse().ok()).unwrap_or(1);
    let renderer = Renderer::new(RendererConfig::default()).expect("renderer");
    let mut bytes = 0;
    for _ in 0..n {
        let img = renderer
            .render_subject(&Subject {
                make,
                model,
                year,
                shape: BodyShape::Sedan,
                color: Color::Red.into(),
                view,
                variation: 0,
                staging: Default::default(),
            })
            .expect("render");
        bytes += vis_render::image::encode_png(&img).expect("png").len();
    }
    println!("{bytes}");
}
