//! Cold render (mesh + GPU + post + readback + PNG) and the delivery
//! pipeline (resize + encode per format and size). See docs/benchmarks.md;
//! benches/vips_bench.py times libvips on the same work.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use vis_protocol::{Background, BodyShape, Color, Fit, Format, Framing, View};
use vis_render::image::{Source, decode_png, derive, encode_png};
use vis_render::{Renderer, RendererConfig, Subject};

fn benches(c: &mut Criterion) {
    let renderer = Renderer::new(RendererConfig::default()).expect("renderer");
    eprintln!(
        "adapter: {} ({:?})",
        renderer.adapter().name,
        renderer.adapter().device_type
    );
    let counter = AtomicU32::new(0);
    let mut g = c.benchmark_group("render");
    g.sample_size(15).measurement_time(Duration::from_secs(5));
    // Every shape: the design bar (< 300 ms cold on lavapipe) is per shape.
    for shape in BodyShape::ALL {
        g.bench_function(BenchmarkId::new("cold_1024_png", shape.id()), |b| {
            b.iter(|| {
                // A new model every time: nothing is reused but the device.
                let model = format!("m{}", counter.fetch_add(1, Ordering::Relaxed));
                let img = renderer
                    .render_subject(&Subject {
                        make: "bench",
                        model: &model,
                        year: 2020,
                        shape,
                        color: Color::Red.into(),
                        view: View::Front34,
                        variation: 0,
                        staging: Default::default(),
                    })
                    .unwrap();
                black_box(encode_png(&img).unwrap())
            })
        });
    }
    // Curated vehicles (models/identity/): the most detailed bodies.
    for (make, model, year) in [
        ("bmw", "x5", 2020),
        ("jeep", "wrangler", 2018),
        ("ford", "f-150", 2019),
        ("lamborghini", "aventador", 2019),
        ("porsche", "911", 2021),
        ("tesla", "model-3", 2020),
    ] {
        g.bench_function(BenchmarkId::new("cold_1024_png_curated", model), |b| {
            b.iter(|| {
                let img = renderer
                    .render_subject(&Subject {
                        make,
                        model,
                        year,
                        shape: BodyShape::Sedan,
                        color: Color::Red.into(),
                        view: View::Front34,
                        variation: 0,
                        staging: Default::default(),
                    })
                    .unwrap();
                black_box(encode_png(&img).unwrap())
            })
        });
    }
    g.finish();

    // The mesh alone (resolve, build, the fit's second build): the budget
    // is 15 ms.
    let mut g = c.benchmark_group("mesh");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for (make, model, year) in [
        ("bmw", "x5", 2020),
        ("jeep", "wrangler", 2018),
        ("porsche", "911", 2021),
        ("subaru", "outback", 2020),
        // Face outlines and side glass from models/outlines.csv and dlo.csv.
        ("toyota", "camry", 2019),
        // A crossover's side glass made from its glasshouse (no dlo row).
        ("chevrolet", "equinox", 2019),
    ] {
        g.bench_function(BenchmarkId::new("build_fitted", model), |b| {
            b.iter(|| {
                let p = vis_render::vehicle::Params::resolve(
                    renderer.models(),
                    BodyShape::Sedan,
                    make,
                    model,
                    year,
                );
                black_box(vis_render::vehicle::build(&p))
            })
        });
    }
    g.finish();

    let source = renderer
        .render_subject(&Subject {
            make: "bench",
            model: "source",
            year: 2020,
            shape: BodyShape::Suv,
            color: Color::Blue.into(),
            view: View::Front34,
            variation: 0,
            staging: Default::default(),
        })
        .unwrap();
    let png = encode_png(&source).unwrap();
    std::fs::write(std::env::temp_dir().join("vis-bench-source.png"), &png).unwrap();
    let mut g = c.benchmark_group("derive");
    g.sample_size(30).measurement_time(Duration::from_secs(3));
    g.bench_function("decode_png_1024", |b| {
        b.iter(|| black_box(decode_png(&png).unwrap()))
    });
    for format in Format::ALL {
        for px in [256u32, 512, 1024] {
            g.bench_function(BenchmarkId::new(format!("from_rgba_{format}"), px), |b| {
                b.iter(|| {
                    black_box(
                        derive(
                            Source::Rgba(&source),
                            Some(px),
                            Some(px),
                            &Framing::default(),
                            format,
                        )
                        .unwrap(),
                    )
                })
            });
            g.bench_function(BenchmarkId::new(format!("from_png_{format}"), px), |b| {
                b.iter(|| {
                    black_box(
                        derive(
                            Source::Png(&png),
                            Some(px),
                            Some(px),
                            &Framing::default(),
                            format,
                        )
                        .unwrap(),
                    )
                })
            });
        }
    }
    // Framing (docs/framing.md): what trim, a box and a background add to
    // the plain resize, before encoding (PNG, to compare with from_rgba_png).
    let framings = [
        ("plain", Framing::default()),
        (
            "white",
            Framing {
                background: Background::WHITE,
                ..Framing::default()
            },
        ),
        (
            "studio",
            Framing {
                background: Background::Studio,
                ..Framing::default()
            },
        ),
        (
            "trim_studio_16x9",
            Framing::new(
                Background::Studio,
                None,
                true,
                Some(16),
                Some(512),
                Some(288),
            )
            .unwrap(),
        ),
        (
            "cover_16x9",
            Framing::new(
                Background::Transparent,
                Some(Fit::Cover),
                false,
                None,
                Some(512),
                Some(288),
            )
            .unwrap(),
        ),
    ];
    for (name, framing) in framings {
        let (w, h) = match framing.fit {
            Some(_) => (Some(512), Some(288)),
            None => (Some(512), Some(512)),
        };
        g.bench_function(BenchmarkId::new("framing_png_512", name), |b| {
            b.iter(|| {
                black_box(derive(Source::Rgba(&source), w, h, &framing, Format::Png).unwrap())
            })
        });
    }
    g.finish();

    // A spin: its 24 cold frames in one batch on this device (one mesh,
    // one framing), and the assembly of 24 frames at 512 px into an
    // animated WebP or a sprite sheet (docs/embeds.md, "Spins").
    let subject = || Subject {
        make: "toyota",
        model: "camry",
        year: 2019,
        shape: BodyShape::Sedan,
        color: Color::Red.into(),
        view: View::Front34,
        variation: 0,
        staging: Default::default(),
    };
    let frames = renderer.render_turn(&subject()).unwrap();
    let small: Vec<_> = frames
        .iter()
        .map(|f| vis_render::image::resize(f, 512, 512).unwrap())
        .collect();
    let mut g = c.benchmark_group("spin");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("turn_24_cold_frames_1024", |b| {
        b.iter(|| black_box(renderer.render_turn(&subject()).unwrap()))
    });
    // What a render node does with a spin's 24 jobs: leased as one batch,
    // drawn from one mesh and each encoded as its PNG source, against the
    // same 24 jobs rendered one by one (a mesh each).
    let jobs: Vec<vis_protocol::RenderJob> = vis_protocol::Angle::turn()
        .map(|a| vis_protocol::RenderJob {
            variant: vis_protocol::VariantKey {
                make: vis_protocol::Slug::parse("toyota").unwrap(),
                model: vis_protocol::Slug::parse("camry").unwrap(),
                year: 2019,
                color: Color::Red.into(),
                view: View::Angle(a),
                staging: Default::default(),
            },
            shape: BodyShape::Sedan,
            revision: 1,
            variation: 0,
        })
        .collect();
    g.bench_function("batch_24_jobs_png_1024", |b| {
        b.iter(|| {
            let mut bytes = 0;
            renderer.render_batch(&jobs, |_, rgba| {
                bytes += vis_render::image::encode_png(&rgba.unwrap()).unwrap().len();
            });
            black_box(bytes)
        })
    });
    g.bench_function("one_by_one_24_jobs_png_1024", |b| {
        b.iter(|| {
            let bytes: usize = jobs
                .iter()
                .map(|job| {
                    let rgba = renderer.render(job).unwrap();
                    vis_render::image::encode_png(&rgba).unwrap().len()
                })
                .sum();
            black_box(bytes)
        })
    });
    g.bench_function("animated_webp_24x512", |b| {
        b.iter(|| black_box(vis_render::image::encode_animated_webp(&small, 83).unwrap()))
    });
    g.bench_function("sprite_webp_24x512", |b| {
        b.iter(|| {
            let sheet = vis_render::image::sprite(&small, 6).unwrap();
            black_box(vis_render::image::encode(&sheet, Format::Webp).unwrap())
        })
    });
    g.finish();
}

criterion_group!(all, benches);
criterion_main!(all);
