//! Parsing the generated catalog file (`catalog/data/catalog.json`, written by
//! `cargo xtask catalog`) into the in-memory catalog.

use std::collections::BTreeMap;

use serde::Deserialize;
use vis_protocol::BodyShape;

use crate::model::{Make, Model, Source};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("catalog JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("catalog data: {0}")]
    Invalid(String),
}

#[derive(Deserialize)]
struct File {
    format: u32,
    sources: Vec<Source>,
    vehicle_types: BTreeMap<String, String>,
    makes: Vec<FileMake>,
}

#[derive(Deserialize)]
struct FileMake {
    id: u64,
    name: String,
    slug: String,
    /// `[name, slug, vehicle type id, [years], shape codes]`
    models: Vec<(String, String, u32, Vec<u16>, String)>,
}

pub(crate) struct Parsed {
    pub sources: Vec<Source>,
    pub makes: Vec<Make>,
    /// Sorted by make, then slug.
    pub models: Vec<Model>,
}

fn shape_from_code(c: char) -> Option<BodyShape> {
    Some(match c {
        's' => BodyShape::Sedan,
        'c' => BodyShape::Coupe,
        'v' => BodyShape::Convertible,
        'h' => BodyShape::Hatchback,
        'w' => BodyShape::Wagon,
        'u' => BodyShape::Suv,
        'x' => BodyShape::Crossover,
        'p' => BodyShape::Pickup,
        'm' => BodyShape::Minivan,
        'n' => BodyShape::Van,
        'b' => BodyShape::BoxTruck,
        'B' => BodyShape::Bus,
        'M' => BodyShape::Motorcycle,
        _ => return None,
    })
}

pub(crate) fn parse(json: &str) -> Result<Parsed, LoadError> {
    let file: File = serde_json::from_str(json)?;
    if file.format != 1 {
        return Err(LoadError::Invalid(format!(
            "unsupported format {}",
            file.format
        )));
    }
    let mut makes = Vec::with_capacity(file.makes.len());
    let mut models = Vec::new();
    for (i, m) in file.makes.into_iter().enumerate() {
        let idx = u32::try_from(i).map_err(|_| LoadError::Invalid("too many makes".into()))?;
        for (name, slug, vt, years, codes) in m.models {
            let shapes: Option<Vec<BodyShape>> = codes.chars().map(shape_from_code).collect();
            let shapes = shapes
                .filter(|s| s.len() == years.len() && !years.is_empty())
                .ok_or_else(|| {
                    LoadError::Invalid(format!("{} {name}: bad years/shapes", m.name))
                })?;
            if !years.windows(2).all(|w| w[0] < w[1]) {
                return Err(LoadError::Invalid(format!(
                    "{} {name}: years not ascending",
                    m.name
                )));
            }
            let vehicle_type = file
                .vehicle_types
                .get(&vt.to_string())
                .cloned()
                .unwrap_or_default();
            models.push(Model {
                name,
                slug,
                vehicle_type,
                years,
                shapes,
                make: idx,
            });
        }
        makes.push(Make {
            id: m.id,
            name: m.name,
            slug: m.slug,
        });
    }
    Ok(Parsed {
        sources: file.sources,
        makes,
        models,
    })
}
