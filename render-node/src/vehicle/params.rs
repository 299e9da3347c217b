//! Body descriptions loaded from `models/*.toml` and their per-model
//! resolution: hash of make and model slugs → one point in each range.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use vis_protocol::BodyShape;

use crate::RenderError;

/// How the cabin above the beltline is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cabin {
    ThreeBox,
    Hatch,
    Wagon,
    OneBox,
    Cab,
    Bus,
    Open,
    None,
}

/// `[min, max]` ranges in metres (boxiness: a superellipse exponent).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ranges {
    pub length: [f32; 2],
    pub width: [f32; 2],
    pub height: [f32; 2],
    pub wheelbase: [f32; 2],
    pub front_overhang: [f32; 2],
    pub wheel_radius: [f32; 2],
    pub ride_height: [f32; 2],
    pub belt_height: [f32; 2],
    pub hood_height: [f32; 2],
    pub deck_height: [f32; 2],
    pub windshield_base: [f32; 2],
    pub windshield_run: [f32; 2],
    pub backlight_base: [f32; 2],
    pub backlight_run: [f32; 2],
    pub tumblehome: [f32; 2],
    pub boxiness: [f32; 2],
}

/// One `models/<shape>.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    pub shape: String,
    pub cabin: Cabin,
    /// Fraction of the usable frame width the side view may fill.
    pub fill: f32,
    /// Pillar positions along the side glass, -1 (rear) .. 1 (front).
    pub pillars: Vec<f32>,
    /// Side glass extent along the same coordinate.
    pub side_glass: [f32; 2],
    pub doors: u32,
    #[serde(default)]
    pub cladding: bool,
    #[serde(default)]
    pub bed: bool,
    #[serde(default)]
    pub cargo_box: bool,
    #[serde(default)]
    pub no_rear_glass: bool,
    pub ranges: Ranges,
}

const EMBEDDED: [(&str, &str); 13] = [
    ("sedan", include_str!("../../../models/sedan.toml")),
    ("coupe", include_str!("../../../models/coupe.toml")),
    (
        "convertible",
        include_str!("../../../models/convertible.toml"),
    ),
    ("hatchback", include_str!("../../../models/hatchback.toml")),
    ("wagon", include_str!("../../../models/wagon.toml")),
    ("suv", include_str!("../../../models/suv.toml")),
    ("crossover", include_str!("../../../models/crossover.toml")),
    ("pickup", include_str!("../../../models/pickup.toml")),
    ("minivan", include_str!("../../../models/minivan.toml")),
    ("van", include_str!("../../../models/van.toml")),
    ("box-truck", include_str!("../../../models/box-truck.toml")),
    ("bus", include_str!("../../../models/bus.toml")),
    (
        "motorcycle",
        include_str!("../../../models/motorcycle.toml"),
    ),
];

/// Every shape's description.
#[derive(Debug, Clone)]
pub struct ModelLibrary {
    specs: BTreeMap<BodyShape, ShapeSpec>,
}

impl ModelLibrary {
    /// The descriptions compiled into the binary.
    pub fn embedded() -> ModelLibrary {
        let sources = EMBEDDED.map(|(name, text)| (name.to_owned(), text.to_owned()));
        // The embedded files are checked by a test; failing here is a build defect.
        Self::parse(&sources).expect("embedded models/ parse")
    }

    /// Loads `<dir>/<shape>.toml` for every shape, so the bodies can be
    /// tuned without a rebuild.
    pub fn load_dir(dir: &Path) -> Result<ModelLibrary, RenderError> {
        let mut sources = Vec::new();
        for (name, _) in EMBEDDED {
            let path = dir.join(format!("{name}.toml"));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| RenderError::Models(format!("{}: {e}", path.display())))?;
            sources.push((name.to_owned(), text));
        }
        Self::parse(&sources)
    }

    fn parse(sources: &[(String, String)]) -> Result<ModelLibrary, RenderError> {
        let mut specs = BTreeMap::new();
        for (name, text) in sources {
            let spec: ShapeSpec = toml::from_str(text)
                .map_err(|e| RenderError::Models(format!("{name}.toml: {e}")))?;
            let shape: BodyShape = spec
                .shape
                .parse()
                .map_err(|e| RenderError::Models(format!("{name}.toml: {e}")))?;
            if spec.shape != *name {
                return Err(RenderError::Models(format!(
                    "{name}.toml describes shape {:?}",
                    spec.shape
                )));
            }
            specs.insert(shape, spec);
        }
        if specs.len() != BodyShape::ALL.len() {
            return Err(RenderError::Models("a shape is missing".into()));
        }
        Ok(ModelLibrary { specs })
    }

    pub fn spec(&self, shape: BodyShape) -> &ShapeSpec {
        &self.specs[&shape]
    }
}

/// One model's resolved body: every range collapsed to a number.
#[derive(Debug, Clone)]
pub struct Params {
    pub shape: BodyShape,
    pub spec: ShapeSpec,
    pub length: f32,
    pub width: f32,
    pub height: f32,
    pub wheelbase: f32,
    pub front_overhang: f32,
    pub wheel_radius: f32,
    pub ride: f32,
    pub belt: f32,
    pub hood: f32,
    pub deck: f32,
    pub ws_base: f32,
    pub ws_run: f32,
    pub bl_base: f32,
    pub bl_run: f32,
    pub tumble: f32,
    pub boxy: f32,
    /// 0 for 1990, 1 for 2026: later bodies are rounder and sleeker.
    pub era: f32,
    pub light_style: u32,
    pub grille_style: u32,
    pub rim_style: u32,
    pub spokes: u32,
    pub seed: u64,
}

/// FNV-1a: stable across platforms and Rust versions (std's hasher is not).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The k-th uniform number in [0, 1) of a seed (splitmix64).
pub fn unit(seed: u64, k: u64) -> f32 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(k + 1));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

impl Params {
    /// Resolves a body for one make/model/year. Colour and view play no
    /// part, so a model is the same vehicle in every render.
    pub fn resolve(
        lib: &ModelLibrary,
        shape: BodyShape,
        make: &str,
        model: &str,
        year: u16,
    ) -> Params {
        let spec = lib.spec(shape).clone();
        let seed = fnv1a(format!("{make}/{model}").as_bytes());
        let r = &spec.ranges;
        let pick = |k: u64, range: [f32; 2]| range[0] + (range[1] - range[0]) * unit(seed, k);
        let era = ((f32::from(year) - 1990.0) / 36.0).clamp(0.0, 1.0);
        // Older bodies: boxier sections, more upright glass, smaller wheels.
        let boxy = pick(15, r.boxiness) + (1.0 - era) * 1.6 - 0.4;
        let ws_run = pick(12, r.windshield_run) * (0.82 + 0.25 * era);
        let wheel_radius = pick(5, r.wheel_radius) * (0.93 + 0.1 * era);
        Params {
            shape,
            length: pick(0, r.length),
            width: pick(1, r.width),
            height: pick(2, r.height),
            wheelbase: pick(3, r.wheelbase),
            front_overhang: pick(4, r.front_overhang),
            wheel_radius,
            ride: pick(6, r.ride_height),
            // Newer bodies: higher beltlines, shallower glass.
            belt: pick(7, r.belt_height) + 0.05 * era - 0.02,
            hood: pick(8, r.hood_height),
            deck: pick(9, r.deck_height),
            ws_base: pick(10, r.windshield_base),
            ws_run,
            bl_base: pick(11, r.backlight_base),
            bl_run: pick(13, r.backlight_run),
            tumble: pick(14, r.tumblehome) * (0.75 + 0.4 * era),
            boxy,
            era,
            light_style: (unit(seed, 20) * 4.0) as u32 % 4,
            grille_style: (unit(seed, 21) * 4.0) as u32 % 4,
            rim_style: (unit(seed, 22) * 3.0) as u32 % 3,
            spokes: [5, 6, 7, 10, 5, 12][(unit(seed, 23) * 6.0) as usize % 6],
            seed,
            spec,
        }
    }
}
