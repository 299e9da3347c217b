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
        // A city car under 3 m (the smart fortwo) stands taller than half
        // its length; nothing else does.
        let h_max = if l < 3000 { l * 13 / 20 } else { l / 2 };
        assert!(h < h_max && w < l / 2 + 400, "{id}: proportions");
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

/// `models/faces.csv` and `models/profiles.csv`: the files on disk are the
/// embedded ones, every row names a make (and models) that exist, and
/// every row is reached by at least one vehicle, so none is dead.
mod faces {
    use std::path::Path;

    use vis_catalog::Catalog;
    use vis_render::vehicle::IdentityLibrary;
    use vis_render::vehicle::faces::{Drl, FaceTable, ProfileTable, Tail};

    fn read(name: &str) -> String {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../models")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn the_tables_on_disk_are_the_embedded_ones() {
        let faces = FaceTable::parse(&read("faces.csv")).expect("faces.csv parses");
        assert_eq!(faces.rows(), FaceTable::embedded().rows());
        assert!(faces.rows().len() >= 60, "{} face rows", faces.rows().len());
        let profiles = ProfileTable::parse(&read("profiles.csv")).expect("profiles.csv parses");
        assert_eq!(profiles.rows(), ProfileTable::embedded().rows());
    }

    #[test]
    fn every_face_row_names_real_makes_and_models_and_is_reached() {
        let cat = Catalog::embedded();
        let lib = IdentityLibrary::embedded();
        let table = FaceTable::embedded();
        let mut bad = Vec::new();
        for r in table.rows() {
            let id = format!("faces.csv line {} ({} {:?})", r.line, r.make, r.models);
            let Some(make) = cat.makes().iter().find(|m| m.slug == r.make) else {
                bad.push(format!("{id}: make not in the catalog"));
                continue;
            };
            let models = cat.models_of_make(make, None);
            for m in &r.models {
                if !models.iter().any(|c| &c.slug == m) {
                    bad.push(format!("{id}: model {m} not in the catalog"));
                }
            }
            // Reached: some curated generation of the make (of a named
            // model) launched in the row's years takes this very row, or
            // a catalog year of an uncurated model of the make does.
            let curated = lib.generations().any(|g| {
                g.make == r.make
                    && (r.models.is_empty() || r.models.contains(&g.model))
                    && (r.from..=r.to).contains(&g.from)
                    && table.lookup(&g.make, &g.model, g.from) == Some(r.face)
            });
            let uncurated = r.models.is_empty()
                && models.iter().any(|m| {
                    lib.lookup(&r.make, &m.slug, 2000).is_none()
                        && m.years.iter().any(|y| (r.from..=r.to).contains(y))
                });
            if !curated && !uncurated {
                bad.push(format!("{id}: no vehicle takes this row"));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn every_profile_row_is_a_curated_generation() {
        let lib = IdentityLibrary::embedded();
        for r in ProfileTable::embedded().rows() {
            assert!(
                lib.generations().any(|g| g.make == r.make
                    && g.model == r.model
                    && (r.from..=r.to).contains(&g.from)),
                "profiles.csv: {}/{} {}-{} launches no curated generation",
                r.make,
                r.model,
                r.from,
                r.to
            );
        }
    }

    #[test]
    fn the_signature_faces_differ() {
        let t = FaceTable::embedded();
        let f = |make: &str, model: &str, year: u16| t.lookup(make, model, year).unwrap();
        // One year's Camry, Accord and Civic do not share a face.
        let (camry, accord, civic) = (
            f("toyota", "camry", 2018),
            f("honda", "accord", 2018),
            f("honda", "civic", 2016),
        );
        assert_ne!(camry, accord);
        assert_ne!(accord, civic);
        assert_ne!(camry, civic);
        assert_eq!(f("bmw", "x5", 2019).drl, Drl::Rings);
        assert_eq!(f("porsche", "911", 2020).drl, Drl::FourPoint);
        assert_eq!(f("nissan", "gt-r", 2008).tail, Tail::TwinRound);
        assert_eq!(f("tesla", "cybertruck", 2024).drl, Drl::Bar);
    }
}

mod resolve {
    use std::collections::BTreeSet;

    use vis_protocol::BodyShape;
    use vis_render::vehicle::identity::{Engine, Feature, Headlamp, Roofline};
    use vis_render::vehicle::{self, Material, ModelLibrary, Params};

    fn lib() -> &'static ModelLibrary {
        static LIB: std::sync::OnceLock<ModelLibrary> = std::sync::OnceLock::new();
        LIB.get_or_init(ModelLibrary::embedded)
    }

    fn p(make: &str, model: &str, year: u16) -> Params {
        // The shape is what the catalog says; curated data overrides it.
        Params::resolve(lib(), BodyShape::Sedan, make, model, year)
    }

    #[test]
    fn a_curated_model_takes_its_generation_and_real_dimensions() {
        let old = p("toyota", "camry", 1995);
        let new = p("toyota", "camry", 2019);
        assert_eq!(old.generation.as_deref(), Some("XV10"));
        assert_eq!(new.generation.as_deref(), Some("XV70"));
        assert!((old.length - 4.77).abs() < 0.01 && (new.length - 4.88).abs() < 0.01);
        assert!((new.wheelbase - 2.825).abs() < 0.01 && (new.height - 1.445).abs() < 0.01);
        assert!(old.boxy > new.boxy, "the 1990s Camry is boxier");
        // The windshield's rake from horizontal (its run against the glass
        // height: a taller glasshouse has a longer run at the same rake).
        let rake = |q: &Params| ((q.height - q.belt - 0.06).max(0.15) / q.ws_run).atan();
        assert!(
            rake(&old) > rake(&new),
            "and its windshield more upright: {:.1} against {:.1} degrees",
            rake(&old).to_degrees(),
            rake(&new).to_degrees()
        );
        assert_eq!(new.cues.roofline, Roofline::Fastback);
    }

    #[test]
    fn curated_body_style_wins_over_the_catalog_shape() {
        let w = p("jeep", "wrangler", 2018);
        assert_eq!(w.shape, BodyShape::Suv);
        assert_eq!(w.cues.headlamp, Headlamp::Round);
        assert!(w.cues.features.has(Feature::SpareWheel));
        let f = p("ford", "f-150", 2019);
        assert_eq!(f.shape, BodyShape::Pickup);
        assert!(f.spec.bed);
        // The spare wheel hangs behind the tail.
        let mesh = vehicle::build(&w);
        let tail = -w.length / 2.0;
        assert!(
            mesh.vertices
                .iter()
                .any(|v| v.material == Material::Tyre as u32 && v.pos[0] < tail - 0.1),
            "no spare wheel behind the Wrangler's tail"
        );
    }

    #[test]
    fn pontoon_wings_stand_out_of_the_doors() {
        // The PT Cruiser's front and rear wings stand out of the flank,
        // the doors between them drawn in (session 45: "a boxy estate
        // without its separate wings", blind checks and review sheets).
        // The flank's widest painted point in an x slab at a height over
        // the arches and under the belt's shoulder, metres off the centre
        // line.
        let widest = |q: &Params, x0: f32, x1: f32| {
            let y = q.belt - 0.22;
            vehicle::build(q)
                .vertices
                .iter()
                .filter(|v| {
                    v.material == Material::Paint as u32
                        && (x0..x1).contains(&v.pos[0])
                        && (y - 0.04..y + 0.04).contains(&v.pos[1])
                })
                .map(|v| v.pos[2].abs())
                .fold(0.0, f32::max)
        };
        for (make, model, year, pontoon) in [
            ("chrysler", "pt-cruiser", 2005, true),
            ("chevrolet", "hhr", 2008, true),
            ("toyota", "corolla", 2005, false),
        ] {
            let q = p(make, model, year);
            assert_eq!(
                q.cues.features.has(Feature::PontoonWings),
                pontoon,
                "{model}"
            );
            let fa = q.length / 2.0 - q.front_overhang;
            let ra = fa - q.wheelbase;
            let mid = (fa + ra) / 2.0;
            let door = widest(&q, mid - 0.1, mid + 0.1);
            // Over the front wheel, where the wing is at its widest.
            let wing = widest(&q, fa - 0.05, fa + 0.05);
            let drawn_in = 1.0 - door / wing;
            if pontoon {
                assert!(
                    drawn_in > 0.05,
                    "{model}: the doors stand {door:.3} m out, the wing {wing:.3} m"
                );
            } else {
                assert!(
                    drawn_in < 0.05,
                    "{model}: doors {door:.3} m, wing {wing:.3} m"
                );
            }
        }
    }

    #[test]
    fn engine_layout_moves_the_cabin() {
        let mid = p("lamborghini", "aventador", 2019);
        let front = p("ford", "mustang", 2020);
        assert_eq!(mid.cues.engine, Engine::Mid);
        // Windshield foot relative to the front axle, as a share of the wheelbase.
        let cowl = |q: &Params| (q.ws_base - q.front_overhang) / q.wheelbase;
        assert!(
            cowl(&mid) < 0.1 && cowl(&front) > 0.25,
            "mid {} front {}",
            cowl(&mid),
            cowl(&front)
        );
        assert!(mid.hood < front.hood, "mid-engined nose is lower");
    }

    #[test]
    fn wheel_size_follows_the_data() {
        let mini = p("mini", "cooper", 1995);
        let x5 = p("bmw", "x5", 2020);
        assert_eq!((mini.cues.wheel_in, x5.cues.wheel_in), (12, 20));
        assert!(mini.wheel_radius < 0.28 && x5.wheel_radius > 0.35);
    }

    /// Uncurated saloons: dimensions inside the curated saloons' range of
    /// their era, and the eras differ as real cars do.
    #[test]
    fn uncurated_models_stay_inside_their_era_norms() {
        let norms = |year: u16| {
            let gens = lib().identity().era_norms(BodyShape::Sedan, year);
            let lo = gens.iter().map(|g| g.length_mm).min().unwrap();
            let hi = gens.iter().map(|g| g.length_mm).max().unwrap();
            (f32::from(lo) / 1000.0 * 0.97, f32::from(hi) / 1000.0 * 1.03)
        };
        let mut wheels = [0.0f32; 2];
        let mut glass = [0.0f32; 2];
        let mut rake = [0.0f32; 2];
        let mut lamps: [BTreeSet<String>; 2] = Default::default();
        let mut rims = BTreeSet::new();
        for (k, year) in [1992u16, 2022].into_iter().enumerate() {
            let (lo, hi) = norms(year);
            for i in 0..40 {
                let q = Params::resolve(lib(), BodyShape::Sedan, "nobody", &format!("m{i}"), year);
                assert!(q.generation.is_none());
                assert!(
                    (lo..=hi).contains(&q.length),
                    "{year} m{i}: length {}",
                    q.length
                );
                assert!(q.wheelbase < q.length - 0.4);
                wheels[k] += f32::from(q.cues.wheel_in) / 40.0;
                glass[k] += (q.height - q.belt) / q.height / 40.0;
                rake[k] += q.ws_run / (q.height - q.belt) / 40.0;
                lamps[k].insert(q.cues.headlamp.id().to_owned());
                rims.insert((q.rim_style, q.spokes));
            }
        }
        assert!(wheels[1] > wheels[0] + 1.5, "wheels grow: {wheels:?}");
        assert!(glass[1] < glass[0], "glasshouses get shallower: {glass:?}");
        assert!(rake[1] > rake[0], "windshields lie back: {rake:?}");
        assert!(
            lamps[0].contains("rect") && !lamps[1].contains("pop-up"),
            "{lamps:?}"
        );
        assert!(lamps[0] != lamps[1]);
        assert!(rims.len() >= 6, "rims vary per model: {rims:?}");
    }

    #[test]
    fn an_uncurated_model_changes_generation_but_keeps_its_size_class() {
        let years: Vec<Params> = (2000..=2020)
            .map(|y| Params::resolve(lib(), BodyShape::Sedan, "nobody", "steady", y))
            .collect();
        let styles: BTreeSet<String> = years
            .iter()
            .map(|q| format!("{}/{}/{}", q.cues.headlamp, q.cues.grille, q.cues.wheel_in))
            .collect();
        assert!(styles.len() >= 2, "no generation change in 20 years");
        assert!(styles.len() <= 5, "restyled too often: {styles:?}");
        // Two adjacent years are nearly always one generation.
        let same = years.windows(2).filter(|w| w[0].cues == w[1].cues).count();
        assert!(same >= 15, "{same} of 20 year steps kept the body");
    }
}

/// `models/wheels.csv` (session 19): the file on disk is the embedded one,
/// every row names a make and models of the catalog and is reached by
/// some vehicle, and the designs reach the bodies.
mod wheels {
    use std::path::Path;

    use vis_catalog::Catalog;
    use vis_protocol::BodyShape;
    use vis_render::vehicle::wheels::{Design, Finish, Wheel, WheelTable};
    use vis_render::vehicle::{IdentityLibrary, ModelLibrary, Params};

    #[test]
    fn the_table_on_disk_is_the_embedded_one() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/wheels.csv"),
        )
        .unwrap();
        let table = WheelTable::parse(&text).expect("wheels.csv parses");
        assert_eq!(table.rows(), WheelTable::embedded().rows());
    }

    #[test]
    fn every_wheel_row_names_real_makes_and_models_and_is_reached() {
        let cat = Catalog::embedded();
        let lib = IdentityLibrary::embedded();
        let table = WheelTable::embedded();
        let mut bad = Vec::new();
        for r in table.rows() {
            let id = format!("wheels.csv line {} ({} {:?})", r.line, r.make, r.models);
            let Some(make) = cat.makes().iter().find(|m| m.slug == r.make) else {
                bad.push(format!("{id}: make not in the catalog"));
                continue;
            };
            let models = cat.models_of_make(make, None);
            for m in &r.models {
                if !models.iter().any(|c| &c.slug == m) {
                    bad.push(format!("{id}: model {m} not in the catalog"));
                }
            }
            let curated = lib.generations().any(|g| {
                g.make == r.make
                    && (r.models.is_empty() || r.models.contains(&g.model))
                    && (r.from..=r.to).contains(&g.from)
                    && table.lookup(&g.make, &g.model, g.from) == Some(r.wheel)
            });
            let uncurated = r.models.is_empty()
                && models.iter().any(|m| {
                    lib.lookup(&r.make, &m.slug, 2000).is_none()
                        && m.years.iter().any(|y| (r.from..=r.to).contains(y))
                });
            if !curated && !uncurated {
                bad.push(format!("{id}: no vehicle takes this row"));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn wheels_follow_the_make_and_the_body() {
        let lib = ModelLibrary::embedded();
        let style = |make: &str, model: &str, year: u16, shape: BodyShape| {
            let p = Params::resolve(&lib, shape, make, model, year);
            (p.rim_style, p.spokes)
        };
        // Models without rows of their own share the make's design;
        // makes differ, and so do a make's best sellers with rows of
        // their own (session 45).
        assert_eq!(
            style("audi", "a6", 2019, BodyShape::Sedan),
            style("audi", "a8", 2019, BodyShape::Sedan)
        );
        assert_ne!(
            style("audi", "a4", 2019, BodyShape::Sedan),
            style("toyota", "camry", 2019, BodyShape::Sedan)
        );
        assert_ne!(
            style("audi", "a4", 2019, BodyShape::Sedan),
            style("audi", "q5", 2019, BodyShape::Suv)
        );
        assert_ne!(
            style("toyota", "camry", 2019, BodyShape::Sedan),
            style("toyota", "rav4", 2019, BodyShape::Suv)
        );
        // EVs' aero wheels, trucks' six spokes, vans' steel wheels.
        let turbine = Design::ALL
            .iter()
            .position(|d| *d == Design::Turbine)
            .unwrap() as u32;
        let steel = Design::ALL
            .iter()
            .position(|d| *d == Design::Steel)
            .unwrap() as u32;
        assert_eq!(
            style("tesla", "model-3", 2019, BodyShape::Sedan).0 % 8,
            turbine
        );
        assert_eq!(style("ford", "f-150", 2019, BodyShape::Pickup).1, 6);
        // Whether a style is design `d`'s in some finish: encoded by the
        // one encoder, `Wheel::style`, not decoded again here.
        let is = |s: u32, d: Design| {
            Finish::ALL.iter().any(|&finish| {
                Wheel {
                    design: d,
                    spokes: 5,
                    finish,
                }
                .style()
                    == s
            })
        };
        // A truck's six broad spokes; the new designs reach the bodies.
        let ram = style("ram", "1500", 2019, BodyShape::Pickup);
        assert_eq!(ram.1, 6);
        assert!(is(ram.0, Design::Wide), "ram: style {}", ram.0);
        for (make, model, year, shape, d) in [
            ("toyota", "camry", 2019, BodyShape::Sedan, Design::Y),
            ("bmw", "3-series", 1990, BodyShape::Sedan, Design::Mesh),
            ("volkswagen", "passat", 2016, BodyShape::Sedan, Design::Ten),
            ("mazda", "cx-5", 2018, BodyShape::Suv, Design::Twist),
            (
                "mercedes-benz",
                "e-class",
                1991,
                BodyShape::Sedan,
                Design::Dish,
            ),
        ] {
            let s = style(make, model, year, shape).0;
            assert!(is(s, d), "{make} {model} {year}: style {s}, not {d}");
        }
        assert_eq!(style("ford", "transit", 2019, BodyShape::Van).0 % 8, steel);
    }
}

/// `models/bases.csv`: the file on disk is the embedded one, every row is a
/// catalog model of its years without curated rows of its own, drawn as a
/// curated base, and resolves to exactly that base's body.
mod bases {
    use std::path::Path;

    use vis_catalog::Catalog;
    use vis_protocol::BodyShape;
    use vis_render::vehicle::bases::BaseTable;
    use vis_render::vehicle::{ModelLibrary, Params};

    #[test]
    fn the_table_on_disk_is_the_embedded_one() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/bases.csv"),
        )
        .unwrap();
        let table = BaseTable::parse(&text).expect("bases.csv parses");
        let disk: Vec<_> = table.rows().collect();
        let embedded = BaseTable::embedded();
        assert_eq!(disk, embedded.rows().collect::<Vec<_>>());
        assert!(disk.len() >= 100, "only {} rows", disk.len());
    }

    #[test]
    fn every_row_is_an_uncurated_catalog_model_drawn_as_a_curated_one() {
        let cat = Catalog::embedded();
        let lib = ModelLibrary::embedded();
        let mut bad = Vec::new();
        for r in lib.bases().rows() {
            let id = format!("bases.csv line {} ({}/{})", r.line, r.make, r.model);
            let Some(make) = cat.makes().iter().find(|m| m.slug == r.make) else {
                bad.push(format!("{id}: make not in the catalog"));
                continue;
            };
            let models = cat.models_of_make(make, None);
            match models.iter().find(|m| m.slug == r.model) {
                None => bad.push(format!("{id}: model not in the catalog")),
                Some(m) if !m.years.iter().any(|y| (r.from..=r.to).contains(y)) => {
                    bad.push(format!("{id}: no catalog year in {}-{}", r.from, r.to))
                }
                Some(_) => {}
            }
            if lib.identity().lookup(&r.make, &r.model, r.from).is_some() {
                bad.push(format!("{id}: curated itself, the row would never apply"));
            }
            if lib
                .identity()
                .lookup(&r.base_make, &r.base_model, r.from)
                .is_none()
            {
                bad.push(format!(
                    "{id}: base {}/{} is not curated",
                    r.base_make, r.base_model
                ));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn a_trim_is_drawn_exactly_as_its_base_of_the_year() {
        let lib = ModelLibrary::embedded();
        let body = |make: &str, model: &str, year: u16| {
            format!(
                "{:?}",
                Params::resolve(&lib, BodyShape::Sedan, make, model, year)
            )
        };
        for (make, model, year, base_make, base_model) in [
            ("bmw", "m3", 2019, "bmw", "3-series"),
            ("bmw", "330i", 2005, "bmw", "3-series"),
            ("volkswagen", "gti", 2015, "volkswagen", "golf-gti"),
            ("gmc", "yukon-xl", 2018, "chevrolet", "suburban"),
            ("toyota", "celsior", 1995, "lexus", "ls"),
            ("nissan", "fairlady", 2005, "nissan", "350z"),
            ("nissan", "fairlady", 2015, "nissan", "370z"),
        ] {
            let p = Params::resolve(&lib, BodyShape::Sedan, make, model, year);
            assert!(
                p.generation.is_some(),
                "{make}/{model} {year} drew from norms"
            );
            assert_eq!(
                body(make, model, year),
                body(base_make, base_model, year),
                "{make}/{model} {year} is not {base_make}/{base_model}"
            );
        }
        // A model without rows still draws from its body style's norms.
        let p = Params::resolve(&lib, BodyShape::Sedan, "toyota", "crown", 2015);
        assert!(p.generation.is_none());
    }
}
