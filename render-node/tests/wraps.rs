//! Lamps round the corners (`vehicle::body::wraps`, docs/rendering.md,
//! "Lamps round the corners"): over every curated generation, a lamp that
//! reaches the corner of the nose or tail goes on along the flank, where
//! the side view sees it, and no lamp runs along the flank further than a
//! wrap may (a patch projected past the corner drew streaks half a metre
//! long; a wrap whose rows found no surface drew a red line along a 1996
//! Camry's flank).

use vis_render::vehicle::body::Lower;
use vis_render::vehicle::outlines::{Fill, OutlineTable, Part};
use vis_render::vehicle::{self, IdentityLibrary, Material, Params};

#[path = "support/params.rs"]
mod support;
use support::curated as params;

const HEAD: [Material; 5] = [
    Material::HeadLamp,
    Material::LampHousing,
    Material::Drl,
    Material::Reflector,
    Material::Amber,
];
const TAIL: [Material; 2] = [Material::TailLamp, Material::TailLens];

fn is(m: u32, of: &[Material]) -> bool {
    of.iter().any(|&k| k as u32 == m)
}

/// The longest a wrap may run (2026's head lamp, 30 cm) and the tip's
/// rounding it starts from, with a few centimetres to spare.
const FURTHEST: f32 = 0.36;

#[test]
fn no_lamp_runs_along_the_flank() {
    let mut bad = Vec::new();
    for g in IdentityLibrary::embedded().generations() {
        let q = params(&g.make, &g.model, g.from);
        let lower = Lower::new(&q);
        let mesh = vehicle::build(&q);
        let name = format!("{} {} {}", g.make, g.model, g.from);
        for v in &mesh.vertices {
            let [x, y, z] = v.pos;
            // On the flank: out at the side, under the belt (a stop lamp
            // on the rear glass and the mirrors' repeaters are elsewhere).
            if z.abs() < 0.8 * lower.hw || y > q.belt {
                continue;
            }
            let from_nose = lower.xf - x;
            let from_tail = x - lower.xr;
            if x > 0.0 && is(v.material, &HEAD) && from_nose > lower.round_f + FURTHEST {
                bad.push(format!(
                    "{name}: head lamp {from_nose:.2} m back from the nose"
                ));
                break;
            }
            if x < 0.0 && is(v.material, &TAIL) && from_tail > lower.round_r + FURTHEST {
                bad.push(format!(
                    "{name}: tail lamp {from_tail:.2} m forward of the tail"
                ));
                break;
            }
        }
    }
    assert!(bad.is_empty(), "{} generations: {bad:#?}", bad.len());
}

/// Does the side view see a lamp of `of` within a wrap's reach of the
/// nose (`front`) or tail: a vertex facing the side (its normal within
/// about 50 degrees of the side camera's axis), under the belt, ahead of
/// the rounded end's first 5 cm?
fn seen_from_the_side(q: &Params, front: bool, of: &[Material]) -> bool {
    let lower = Lower::new(q);
    vehicle::build(q).vertices.iter().any(|v| {
        let [x, y, _] = v.pos;
        let into = if front { lower.xf - x } else { x - lower.xr };
        is(v.material, of)
            && y < q.belt
            && into > 0.05
            && into < lower.round_f.max(lower.round_r) + FURTHEST
            && v.normal[2].abs() > 0.65
    })
}

#[test]
fn lamps_that_reach_the_corner_are_seen_from_the_side() {
    // Every generation whose tail lamp row (models/outlines.csv) reaches
    // the corner: most wrap (a row ending in a point, or one the face
    // holds whole, does not).
    let (mut rows, mut seen, mut missed) = (0, 0, Vec::new());
    for r in OutlineTable::embedded().rows() {
        if r.shape.part != Part::Tail || r.shape.x1 < 0.93 || r.shape.fill != Fill::Lamp {
            continue;
        }
        rows += 1;
        let q = params(&r.make, &r.models[0], r.from);
        if seen_from_the_side(&q, false, &TAIL) {
            seen += 1;
        } else {
            missed.push(format!("{} {} {}", r.make, r.models[0], r.from));
        }
    }
    assert!(rows > 500, "{rows} tail rows reach the corner");
    assert!(
        seen * 10 >= rows * 8,
        "{seen} of {rows} tail lamps seen from the side; missed: {missed:#?}"
    );
}

#[test]
fn a_modern_saloons_lamps_wrap_at_both_ends() {
    for (make, model, year) in [
        ("toyota", "camry", 2018),
        ("honda", "accord", 2018),
        ("hyundai", "sonata", 2020),
    ] {
        let q = params(make, model, year);
        assert!(
            seen_from_the_side(&q, true, &HEAD),
            "{make} {model} {year}: no head lamp seen from the side"
        );
        assert!(
            seen_from_the_side(&q, false, &TAIL),
            "{make} {model} {year}: no tail lamp seen from the side"
        );
    }
    // Round lamps stay round on the face.
    let q = params("jeep", "wrangler", 2018);
    assert!(
        !seen_from_the_side(&q, true, &HEAD),
        "a Wrangler's round lamps wrapped"
    );
}
