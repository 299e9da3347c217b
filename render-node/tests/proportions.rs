//! Proportions held: every curated generation (`models/identity/*.csv`) is
//! rendered and its silhouette measured from the alpha mask, never from the
//! mesh's parameters. Renders are orthographic elevations
//! (`Renderer::render_elevation`: the same mesh and shading seen exactly
//! along the view axis, no perspective, no camera elevation, no ground), so
//! the silhouette is the vehicle to scale and ratios of pixel extents are
//! ratios of metres (docs/rendering.md, "Proportions").
//!
//! Per generation, within 3% of its row:
//! - side elevation: length / height;
//! - front elevation: width / height, the width measured below the mirrors
//!   (the widest row of the lower half of the silhouette: rows wear the
//!   mirrors only above the belt), as published widths exclude mirrors;
//! - wheelbase / length, with the wheel centres found in the side
//!   elevation's pixels: the tyres are the only part of the silhouette that
//!   reaches the ground, so the columns where the silhouette comes within a
//!   band of its lowest row form one run per axle, and each run's
//!   coverage-weighted centre is a wheel centre (a tyre's profile is
//!   symmetric about its centre);
//! - side doors: counted from the mesh (the door shut lines the body is
//!   built with, `vehicle::body::door_count`), since a 1 px shut line is not
//!   measurable at this size.
//!
//! Extents are coverage-weighted (4x MSAA: quarter-pixel steps): a
//! silhouette's length is the sum over columns of the column's largest
//! alpha, its height the sum over rows of the row's largest alpha.

use std::sync::OnceLock;

use vis_protocol::{Color, View};
use vis_render::image::Rgba;
use vis_render::vehicle::{self, Generation, ModelLibrary, Params};
use vis_render::{Renderer, RendererConfig, Subject};

/// Render size (a multiple of 64, as readback rows must be): the
/// silhouette's long side is ~173 px, so 3% of a 1.2 m high saloon's ~45 px
/// height is over five coverage steps (quarter pixels).
const PX: u32 = 192;
const TOLERANCE: f64 = 0.03;

fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| {
        Renderer::new(RendererConfig {
            size: PX,
            ..Default::default()
        })
        .expect("renderer starts")
    })
}

fn alpha(img: &Rgba, x: u32, y: u32) -> f64 {
    f64::from(img.pixel(x, y)[3]) / 255.0
}

/// Coverage-weighted extents: (width, height) in pixels.
fn extents(img: &Rgba) -> (f64, f64) {
    let (w, h) = (img.width, img.height);
    let cols: f64 = (0..w)
        .map(|x| (0..h).map(|y| alpha(img, x, y)).fold(0.0, f64::max))
        .sum();
    let rows: f64 = (0..h)
        .map(|y| (0..w).map(|x| alpha(img, x, y)).fold(0.0, f64::max))
        .sum();
    (cols, rows)
}

/// The lowest and highest rows holding any coverage.
fn row_span(img: &Rgba) -> (u32, u32) {
    let rows: Vec<u32> = (0..img.height)
        .filter(|y| (0..img.width).any(|x| img.pixel(x, *y)[3] > 0))
        .collect();
    (rows[0], *rows.last().unwrap())
}

/// The silhouette's width in one row, with sub-pixel edges from the edge
/// pixels' coverage.
fn row_width(img: &Rgba, y: u32) -> f64 {
    let xs: Vec<u32> = (0..img.width).filter(|x| img.pixel(*x, y)[3] > 0).collect();
    let (Some(&a), Some(&b)) = (xs.first(), xs.last()) else {
        return 0.0;
    };
    let left = f64::from(a) + 1.0 - alpha(img, a, y);
    let right = f64::from(b) + alpha(img, b, y);
    right - left
}

/// Front elevation: width below the mirrors (the widest row of the lower
/// half of the silhouette).
fn front_width(img: &Rgba) -> f64 {
    let (top, bottom) = row_span(img);
    let mid = (top + bottom) / 2;
    (mid..=bottom)
        .map(|y| row_width(img, y))
        .fold(0.0, f64::max)
}

/// Side elevation: wheel centres (pixel x), from the runs of columns whose
/// silhouette reaches into the band just above its lowest row.
fn wheel_centres(img: &Rgba, height_px: f64) -> Vec<f64> {
    let (_, bottom) = row_span(img);
    // A band of 4% of the vehicle's height (~5 cm on a car): the tyres'
    // contact arcs reach into it, the sills and bumpers (10 cm and more
    // above the ground) do not.
    let band = ((height_px * 0.04).round() as u32).max(2);
    let weight = |x: u32| -> f64 {
        (bottom + 1 - band..=bottom)
            .map(|y| alpha(img, x, y))
            .sum::<f64>()
    };
    let mut centres = Vec::new();
    let mut run: Vec<(u32, f64)> = Vec::new();
    for x in 0..=img.width {
        let w = if x < img.width { weight(x) } else { 0.0 };
        if w > 0.0 {
            run.push((x, w));
        } else if !run.is_empty() {
            let total: f64 = run.iter().map(|(_, w)| w).sum();
            let c = run
                .iter()
                .map(|(x, w)| (f64::from(*x) + 0.5) * w)
                .sum::<f64>()
                / total;
            // Ignore specks (a spare wheel's or step's lowest pixel).
            if total > 1.0 {
                centres.push(c);
            }
            run.clear();
        }
    }
    centres
}

fn off(measured: f64, expected: f64) -> f64 {
    measured / expected - 1.0
}

#[derive(Debug)]
struct Measured {
    length_height: f64,
    width_height: f64,
    wheelbase_length: Option<f64>,
    wheels: usize,
    doors: u32,
}

fn measure(g: &Generation, lib: &ModelLibrary) -> Measured {
    let year = g.from;
    let subject = |view| Subject {
        make: &g.make,
        model: &g.model,
        year,
        shape: g.body,
        color: Color::Silver.into(),
        view,
        variation: 0,
        staging: Default::default(),
    };
    let [side, front]: [Rgba; 2] = renderer()
        .render_elevations(&subject(View::Side), &[View::Side, View::Front])
        .unwrap()
        .try_into()
        .unwrap();
    let (sl, sh) = extents(&side);
    let (_, fh) = extents(&front);
    let fw = front_width(&front);
    let centres = wheel_centres(&side, sh);
    let wheelbase_length = match centres[..] {
        [a, b] => Some((b - a).abs() / sl),
        _ => None,
    };
    let p = Params::resolve(lib, g.body, &g.make, &g.model, year);
    Measured {
        length_height: sl / sh,
        width_height: fw / fh,
        wheelbase_length,
        wheels: centres.len(),
        doors: vehicle::body::door_count(&p),
    }
}

fn failures(g: &Generation, m: &Measured) -> Vec<String> {
    let (l, w, h, wb) = (
        f64::from(g.length_mm),
        f64::from(g.width_mm),
        f64::from(g.height_mm),
        f64::from(g.wheelbase_mm),
    );
    let mut out = Vec::new();
    let mut check = |what: &str, measured: f64, expected: f64| {
        let e = off(measured, expected);
        if e.abs() > TOLERANCE {
            out.push(format!(
                "{what} {measured:.3} vs {expected:.3} ({:+.1}%)",
                e * 100.0
            ));
        }
    };
    check("length/height", m.length_height, l / h);
    check("width/height", m.width_height, w / h);
    match m.wheelbase_length {
        Some(r) => check("wheelbase/length", r, wb / l),
        None => out.push(format!("{} wheel centres found, not 2", m.wheels)),
    }
    if m.doors != u32::from(g.cues.doors) {
        out.push(format!(
            "{} doors drawn, {} in the row",
            m.doors, g.cues.doors
        ));
    }
    out
}

#[test]
fn every_curated_generation_holds_its_rows_proportions() {
    let lib = ModelLibrary::embedded();
    let gens: Vec<&Generation> = lib.identity().generations().collect();
    assert!(
        gens.len() > 1000,
        "the identity data holds every generation"
    );
    let mut report = Vec::new();
    for g in &gens {
        let m = measure(g, &lib);
        let f = failures(g, &m);
        if std::env::var("VIS_PROPORTIONS_REPORT").is_ok() {
            eprintln!(
                "{} {} {} {}: l/h {:+.1}% w/h {:+.1}% wb/l {} doors {}",
                g.make,
                g.model,
                g.code,
                g.from,
                off(
                    m.length_height,
                    f64::from(g.length_mm) / f64::from(g.height_mm)
                ) * 100.0,
                off(
                    m.width_height,
                    f64::from(g.width_mm) / f64::from(g.height_mm)
                ) * 100.0,
                m.wheelbase_length
                    .map(|r| format!(
                        "{:+.1}%",
                        off(r, f64::from(g.wheelbase_mm) / f64::from(g.length_mm)) * 100.0
                    ))
                    .unwrap_or_else(|| format!("{} wheels", m.wheels)),
                m.doors
            );
        }
        if !f.is_empty() {
            report.push(format!(
                "{} {} {} ({}): {}",
                g.make,
                g.model,
                g.code,
                g.from,
                f.join("; ")
            ));
        }
    }
    assert!(
        report.is_empty(),
        "{} of {} generations miss their row by more than 3%:\n{}",
        report.len(),
        gens.len(),
        report.join("\n")
    );
}

/// The measurement itself can fail: a silhouette drawn 10% too long, a
/// wheelbase 10% too short or a third door are caught.
#[test]
fn the_proportion_checks_catch_a_wrong_body() {
    let lib = ModelLibrary::embedded();
    let g = lib
        .identity()
        .lookup("toyota", "camry", 2019)
        .expect("a curated Camry")
        .clone();
    let m = measure(&g, &lib);
    assert!(failures(&g, &m).is_empty(), "{:?}", failures(&g, &m));
    let mut longer = g.clone();
    longer.length_mm = (f64::from(g.length_mm) * 1.1) as u16;
    assert!(
        failures(&longer, &m)
            .iter()
            .any(|f| f.starts_with("length/height")),
        "a 10% longer row fails"
    );
    let mut wheelbase = g.clone();
    wheelbase.wheelbase_mm = (f64::from(g.wheelbase_mm) * 0.9) as u16;
    assert!(
        failures(&wheelbase, &m)
            .iter()
            .any(|f| f.starts_with("wheelbase")),
        "a 10% shorter wheelbase fails"
    );
    let mut coupe = g.clone();
    coupe.cues.doors = 2;
    assert!(
        failures(&coupe, &m).iter().any(|f| f.contains("doors")),
        "a two-door row fails against a four-door body"
    );
    let mut wide = g.clone();
    wide.width_mm = (f64::from(g.width_mm) * 1.05) as u16;
    assert!(
        failures(&wide, &m).iter().any(|f| f.starts_with("width")),
        "a 5% wider row fails"
    );
}
