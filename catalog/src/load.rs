//! Parsing the generated catalog file (`catalog/data/catalog.json`, written by
//! `cargo xtask catalog`) into the in-memory catalog.

use std::collections::BTreeMap;

use serde::Deserialize;
use vis_protocol::BodyShape;

use crate::model::{Make, MakeAlias, Model, Source};

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
    /// Makes folded into this one.
    #[serde(default)]
    aliases: Vec<FileMakeAlias>,
    models: Vec<FileModel>,
}

#[derive(Deserialize)]
struct FileMakeAlias {
    id: u64,
    name: String,
    slug: String,
    line: bool,
    models: BTreeMap<String, String>,
}

/// `[name, slug, vehicle type id, [years], shape codes]`, then `[aliases]` when it has any.
struct FileModel {
    name: String,
    slug: String,
    vehicle_type: u32,
    years: Vec<u16>,
    shapes: String,
    aliases: Vec<String>,
}

impl<'de> Deserialize<'de> for FileModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = FileModel;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("[name, slug, type, [years], shapes(, [aliases])]")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<FileModel, A::Error> {
                use serde::de::Error;
                let missing = |i| A::Error::invalid_length(i, &self);
                Ok(FileModel {
                    name: a.next_element()?.ok_or_else(|| missing(0))?,
                    slug: a.next_element()?.ok_or_else(|| missing(1))?,
                    vehicle_type: a.next_element()?.ok_or_else(|| missing(2))?,
                    years: a.next_element()?.ok_or_else(|| missing(3))?,
                    shapes: a.next_element()?.ok_or_else(|| missing(4))?,
                    aliases: a.next_element()?.unwrap_or_default(),
                })
            }
        }
        d.deserialize_seq(V)
    }
}

pub(crate) struct Parsed {
    pub sources: Vec<Source>,
    pub makes: Vec<Make>,
    /// Sorted by make, then slug.
    pub models: Vec<Model>,
    /// Folded makes with the index of the make they were folded into.
    pub make_aliases: Vec<(MakeAlias, u32)>,
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
    if file.format != 2 {
        return Err(LoadError::Invalid(format!(
            "unsupported format {}",
            file.format
        )));
    }
    let mut makes = Vec::with_capacity(file.makes.len());
    let mut models = Vec::new();
    let mut make_aliases = Vec::new();
    for (i, m) in file.makes.into_iter().enumerate() {
        let idx = u32::try_from(i).map_err(|_| LoadError::Invalid("too many makes".into()))?;
        for a in m.aliases {
            make_aliases.push((
                MakeAlias {
                    id: a.id,
                    name: a.name,
                    slug: a.slug,
                    line: a.line,
                    models: a.models,
                },
                idx,
            ));
        }
        for model in m.models {
            let FileModel {
                name,
                slug,
                vehicle_type: vt,
                years,
                shapes: codes,
                aliases,
            } = model;
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
                aliases,
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
        make_aliases,
    })
}
