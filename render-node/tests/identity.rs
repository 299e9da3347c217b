//! The curated identity data in `models/identity/`: it parses, the files on
//! disk are the embedded ones, every value is plausible, and every make and
//! model slug is in the catalog for the generation's years.

use std::path::Path;

use vis_catalog::Catalog;
use vis_protocol::BodyShape;
use vis_render::vehicle::IdentityLibrary;

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/identity")
}

#[test]
fn identity_files_parse_and_match_the_embedded_copies() {
    let disk = IdentityLibrary::load_dir(&dir()).expect("models/identity parses");
    let embedded = IdentityLibrary::embedded();
    let a: Vec<_> = disk.generations().collect();
    let b: Vec<_> = embedded.generations().collect();
    assert_eq!(a, b, "rebuild: models/identity changed since the embed");
    assert!(!a.is_empty());
}

#[test]
fn identity_covers_at_least_300_models() {
    let lib = IdentityLibrary::embedded();
    let n = lib.model_count();
    let g = lib.generations().count();
    eprintln!("identity: {n} models, {g} generations");
    assert!(n >= 300, "only {n} curated models");
}

#[test]
fn generations_of_a_model_do_not_overlap_and_stay_in_the_catalog_era() {
    let lib = IdentityLibrary::embedded();
    for (make, model) in lib.models() {
        let gens: Vec<_> = lib
            .generations()
            .filter(|g| g.make == make && g.model == model)
            .collect();
        for w in gens.windows(2) {
            assert!(
                w[0].to < w[1].from,
                "{make}/{model}: {} and {} overlap",
                w[0].code,
                w[1].code
            );
        }
        for g in gens {
            assert!(
                g.from >= 1980 && g.to <= 2026,
                "{make}/{model} {}: years",
                g.code
            );
        }
    }
}

/// Height norms per body style, mm.
fn height_range(body: BodyShape) -> (u16, u16) {
    match body {
        BodyShape::Sedan => (1250, 1600),
        BodyShape::Coupe | BodyShape::Convertible => (1050, 1500),
        BodyShape::Hatchback => (1200, 1700),
        BodyShape::Wagon => (1350, 1750),
        BodyShape::Suv => (1550, 2100),
        BodyShape::Crossover => (1450, 1900),
        BodyShape::Pickup => (1550, 2100),
        BodyShape::Minivan => (1550, 1950),
        _ => (1800, 2900),
    }
}

#[test]
fn dimensions_are_plausible_for_the_body_style() {
    for g in IdentityLibrary::embedded().generations() {
        let id = format!("{}/{} {}", g.make, g.model, g.code);
        let (l, w, h, wb) = (g.length_mm, g.width_mm, g.height_mm, g.wheelbase_mm);
        assert!((2400..=7000).contains(&l), "{id}: length {l}");
        assert!((1350..=2200).contains(&w), "{id}: width {w}");
        let (lo, hi) = height_range(g.body);
        assert!(
            (lo..=hi).contains(&h),
            "{id}: height {h} outside {lo}..{hi} for a {}",
            g.body
        );
        assert!(
            wb + 400 <= l,
            "{id}: wheelbase {wb} leaves no overhangs in {l}"
        );
        let ratio = f32::from(wb) / f32::from(l);
        assert!(
            (0.48..=0.76).contains(&ratio),
            "{id}: wheelbase/length {ratio:.2}"
        );
        assert!(h < l / 2 && w < l / 2 + 400, "{id}: proportions");
    }
}

#[test]
fn every_curated_slug_is_in_the_catalog_for_the_generation_years() {
    let cat = Catalog::embedded();
    let mut missing = Vec::new();
    for g in IdentityLibrary::embedded().generations() {
        let Some(make) = cat.makes().iter().find(|m| m.slug == g.make) else {
            missing.push(format!("make {}", g.make));
            continue;
        };
        let Some(model) = cat
            .models_of_make(make, None)
            .into_iter()
            .find(|m| m.slug == g.model)
        else {
            missing.push(format!("{}/{}", g.make, g.model));
            continue;
        };
        if !model.years.iter().any(|y| g.contains(*y)) {
            missing.push(format!(
                "{}/{} {} ({}-{}): catalog years {:?}",
                g.make, g.model, g.code, g.from, g.to, model.years
            ));
        }
    }
    assert!(missing.is_empty(), "not in the catalog: {missing:#?}");
}
