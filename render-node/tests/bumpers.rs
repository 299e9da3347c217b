//! The rear bumper's step (`vehicle::body::Ledge`, docs/rendering.md, "A
//! rear bumper under the lid"): a car's tail is a lid over a bumper that
//! stands out of it, not one rounded slab, and what is drawn on the tail
//! (lamps, plate) sits on one or the other, never across the step.

use vis_render::vehicle::body::Lower;
use vis_render::vehicle::outlines::{Fill, Part, Shape};
use vis_render::vehicle::{self, IdentityLibrary, Material, Params};

#[path = "support/params.rs"]
mod support;
use support::curated as params;

/// The paint's rearmost x over heights `ys` (the loft's and the patches'
/// vertices), right side.
fn rearmost(mesh: &vehicle::Mesh, (y0, y1): (f32, f32)) -> f32 {
    mesh.vertices
        .iter()
        .filter(|v| v.material == Material::Paint as u32 && (y0..y1).contains(&v.pos[1]))
        .map(|v| v.pos[0])
        .fold(f32::MAX, f32::min)
}

#[test]
fn a_cars_rear_bumper_stands_out_under_its_lid() {
    for (make, model, year) in [
        ("toyota", "camry", 2019),
        ("volkswagen", "golf", 2017),
        ("toyota", "rav4", 2020),
        ("honda", "odyssey", 2019),
        ("porsche", "911", 2020),
    ] {
        let q = params(make, model, year);
        let lower = Lower::new(&q);
        let l = lower
            .ledge
            .unwrap_or_else(|| panic!("{model} {year}: no step under the lid"));
        let mesh = vehicle::build(&q);
        // Over the step the tail stands the step's depth in from under
        // it, where the bumper reaches the tip (the mesh is fitted to the
        // row's length, so both are measured, not taken from `lower`).
        let lid = rearmost(&mesh, (l.y + 0.01, l.y + 0.08));
        let bumper = rearmost(&mesh, (l.y - 0.15, l.y - 0.01));
        let tip = rearmost(&mesh, (0.0, q.height));
        assert!(
            bumper <= tip + 0.005,
            "{model} {year}: the bumper stops {:.3} m short of the tip",
            bumper - tip
        );
        assert!(
            lid - bumper >= 0.04,
            "{model} {year}: the lid stands {:.3} m in from the bumper",
            lid - bumper
        );
    }
}

#[test]
fn trucks_vans_and_buses_have_no_step_under_a_lid() {
    for (make, model, year) in [
        ("ford", "f-150", 2018),
        ("ford", "transit", 2020),
        ("toyota", "hilux", 2016),
    ] {
        let q = params(make, model, year);
        assert!(
            Lower::new(&q).ledge.is_none(),
            "{model} {year} has a bumper step"
        );
    }
}

/// Over every curated generation with a step: its tail lamps stand on the
/// lid, over the step (the bumper's top is under their foot), and its
/// plate lies wholly on the lid or wholly on the bumper.
#[test]
fn nothing_on_the_tail_lies_across_the_bumpers_step() {
    let mut stepped = 0;
    let mut bad = Vec::new();
    for g in IdentityLibrary::embedded().generations() {
        let q: Params = params(&g.make, &g.model, g.from);
        let lower = Lower::new(&q);
        let Some(l) = lower.ledge else {
            continue;
        };
        stepped += 1;
        let name = format!("{} {} {}", g.make, g.model, g.from);
        let mesh = vehicle::build(&q);
        let on_tail = |v: &&vehicle::Vertex| v.pos[0] < lower.xr + lower.round_r;
        let is = |v: &vehicle::Vertex, m: Material| v.material == m as u32;
        // Lit lamps (a reflector on the bumper is a lens, not lit).
        let lamp_foot = mesh
            .vertices
            .iter()
            .filter(on_tail)
            .filter(|v| is(v, Material::TailLamp) && v.pos[1] < q.belt)
            .map(|v| v.pos[1])
            .fold(f32::MAX, f32::min);
        if lamp_foot < l.y - 0.005 {
            bad.push(format!(
                "{name}: lamps from {lamp_foot:.3}, step at {:.3}",
                l.y
            ));
        }
        let plate: Vec<f32> = mesh
            .vertices
            .iter()
            .filter(on_tail)
            .filter(|v| is(v, Material::Plate))
            .map(|v| v.pos[1])
            .collect();
        let above = plate.iter().filter(|y| **y > l.y).count();
        if above != 0 && above != plate.len() {
            bad.push(format!("{name}: the plate across the step at {:.3}", l.y));
        }
    }
    assert!(stepped > 600, "{stepped} generations with a step");
    assert!(
        bad.is_empty(),
        "{} of {stepped}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Exhaust tips (`body::exhausts`): a chrome ring round a dark pipe low on
/// the tail, none where the generation's row says the pipe turns down out
/// of sight (`hidden-exhaust`: a Prius) or the car has none (a Model 3).
#[test]
fn a_hidden_exhaust_draws_no_tips() {
    let tips = |make: &str, model: &str, year| {
        let q = params(make, model, year);
        let lower = Lower::new(&q);
        vehicle::build(&q)
            .vertices
            .iter()
            .filter(|v| {
                v.material == Material::Liner as u32
                    && v.pos[0] < lower.xr + 0.1
                    && (v.pos[1] - (q.ride + 0.125)).abs() < 0.05
            })
            .count()
    };
    // (An E140 Corolla: no rear rows of its own, so the default tips.)
    assert!(tips("toyota", "corolla", 2010) > 0, "a Corolla's tips");
    // A generation's own rear rows draw its outlets instead (the Camry
    // XV70's squared twin outlets in its diffuser, `dark+rim` rows): dark
    // openings in chrome low on the tail, and no default tips.
    let camry = params("toyota", "camry", 2019);
    let lower = Lower::new(&camry);
    let low_on_tail = |m: Material| {
        vehicle::build(&camry)
            .vertices
            .iter()
            .filter(|v| v.material == m as u32 && v.pos[0] < lower.xr + 0.1 && v.pos[1] < 0.4)
            .count()
    };
    assert!(
        low_on_tail(Material::Grille) > 0 && low_on_tail(Material::Chrome) > 0,
        "a Camry's outlets"
    );
    assert_eq!(tips("toyota", "camry", 2019), 0, "a Camry's default tips");
    assert_eq!(tips("toyota", "prius", 2018), 0, "a Prius's tips");
    assert_eq!(tips("toyota", "rav4", 2020), 0, "a RAV4's tips");
    assert_eq!(tips("tesla", "model-3", 2020), 0, "a Model 3's tips");
}

/// The rear plate's heights on the tail, (lowest, highest).
fn plate_ys(q: &Params) -> (f32, f32) {
    let lower = Lower::new(q);
    vehicle::build(q)
        .vertices
        .iter()
        .filter(|v| v.material == Material::Plate as u32 && v.pos[0] < lower.xr + lower.round_r)
        .fold((f32::MAX, f32::MIN), |(a, b), v| {
            (a.min(v.pos[1]), b.max(v.pos[1]))
        })
}

/// A tailgate carries its plate over the bumper's step, a saloon's bumper
/// under it, and a generation's `plate` row (`models/outlines.csv`) puts it
/// at the row's height.
#[test]
fn the_rear_plate_sits_on_the_tailgate_the_bumper_or_where_its_row_says() {
    let golf = params("volkswagen", "golf", 2017);
    let step = Lower::new(&golf).ledge.expect("a Golf's step").y;
    let (lo, _) = plate_ys(&golf);
    assert!(
        lo > step,
        "a Golf's plate from {lo:.3}, its step at {step:.3}"
    );

    // The Camry XV70's row puts its plate on the boot lid.
    let camry = params("toyota", "camry", 2019);
    assert!(camry.outline.as_deref().is_some_and(|o| o.plate.is_some()));
    let step = Lower::new(&camry).ledge.expect("a Camry's step").y;
    let (lo, _) = plate_ys(&camry);
    assert!(
        lo > step,
        "a Camry's plate from {lo:.3}, its step at {step:.3}"
    );

    // A saloon without a plate row carries it on its bumper.
    let sonata = params("hyundai", "sonata", 2020);
    let lower = Lower::new(&sonata);
    let step = lower.ledge.expect("a Sonata's step").y;
    let (_, hi) = plate_ys(&sonata);
    assert!(
        hi < step,
        "a Sonata's plate up to {hi:.3}, its step at {step:.3}"
    );

    // A row puts the Sonata's on its lid, at the row's height.
    let row_top = lower.surface_y(lower.xr + lower.round_r * 0.5, 0.0);
    let mut o = sonata
        .outline
        .as_deref()
        .expect("the Sonata's outlines")
        .clone();
    assert!(o.plate.is_none());
    let (y0, y1) = ((step + 0.03) / row_top, (step + 0.2) / row_top);
    o.plate = Some(Shape {
        part: Part::Plate,
        x0: 0.0,
        x1: 0.3,
        y0,
        y1,
        fill: Fill::Paint,
        rim: false,
        fog: false,
        points: Vec::new().into(),
    });
    let mut q = sonata.clone();
    q.outline = Some(std::sync::Arc::new(o));
    let (lo, hi) = plate_ys(&q);
    let mid = (y0 + y1) / 2.0 * row_top;
    assert!(
        lo > step && ((lo + hi) / 2.0 - mid).abs() < 0.02,
        "the plate at {lo:.3}..{hi:.3}, its row's middle {mid:.3}"
    );
}

#[test]
fn a_tailgate_shows_its_shut_lines() {
    // A tailgate's sides are shut lines up the tail from the bumper's step
    // towards the glass (a tail was one smooth panel: "no tailgate seam",
    // blind check, session 45); a saloon's boot lid draws none there.
    let seams = |make: &str, model: &str, year: u16| {
        let q = params(make, model, year);
        let lower = Lower::new(&q);
        let (y0, y1) = (
            lower.ledge.map_or(q.ride + 0.2, |l| l.y) + 0.02,
            q.belt - 0.06,
        );
        vehicle::build(&q)
            .vertices
            .iter()
            .filter(|v| {
                v.material == Material::Trim as u32
                    && v.pos[0] < lower.xr + lower.round_r
                    && (y0..y1).contains(&v.pos[1])
                    && v.pos[2].abs() > 0.4 * lower.hw
                    && v.pos[2].abs() < 0.95 * lower.hw
            })
            .count()
    };
    for (make, model, year) in [
        ("toyota", "rav4", 2019),
        ("volkswagen", "golf", 2016),
        ("subaru", "outback", 2017),
    ] {
        let n = seams(make, model, year);
        assert!(n >= 40, "{model}: {n} vertices of shut lines up the tail");
    }
    let saloon = seams("toyota", "camry", 2019);
    assert!(saloon < 10, "a Camry's tail: {saloon} vertices");
}
