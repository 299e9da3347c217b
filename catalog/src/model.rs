//! The catalog's public types. Serialised shapes follow spec §2 "Catalog shapes".

use serde::Serialize;
use vis_protocol::BodyShape;

/// A make (spec `CatalogMake`). `id` is the source's make id of the canonical spelling; some
/// source ids exceed `u32`, so it is a `u64` (JSON integers carry it exactly below 2^53).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogMake))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Make {
    pub id: u64,
    pub name: String,
    pub slug: String,
}

/// A make folded into another one by the generator (`catalog/data/make-folds.toml`): a model
/// line filed as a make ("Range Rover" → Land Rover) or another name of the make ("Chevrolet
/// GMC" → Chevrolet). Its slug, name and id still find the make it was folded into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MakeAlias {
    pub id: u64,
    pub name: String,
    pub slug: String,
    /// A model line of the make, not a manufacturer: a make alias for lookups (slugs, image
    /// URLs, resolve's `make` field) but not in free-text search, where its words name models.
    pub line: bool,
    /// The old make's model keys (slug without hyphens) → the slug of the model they are now,
    /// where the two differ ("c6" → "corvette").
    #[serde(skip)]
    pub models: std::collections::BTreeMap<String, String>,
}

/// A model of one make (spec `CatalogModel` when serialised: name, slug, vehicle_type).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogModel))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Model {
    pub name: String,
    pub slug: String,
    /// The source's vehicle type ("Passenger Car", "Truck", "Motorcycle", ...).
    pub vehicle_type: String,
    /// Other names of the model that search, lookup and resolve accept ("Miata" for the MX-5,
    /// "3" for the Mazda3); see docs/catalog.md, "Cleaning rules".
    #[serde(skip)]
    pub aliases: Vec<String>,
    /// Model years, ascending.
    #[serde(skip)]
    pub years: Vec<u16>,
    /// Body shape per entry of `years`.
    #[serde(skip)]
    pub shapes: Vec<BodyShape>,
    #[serde(skip)]
    pub(crate) make: u32,
}

impl Model {
    /// The body shape for a model year, if the model exists in that year.
    pub fn shape(&self, year: u16) -> Option<BodyShape> {
        let i = self.years.binary_search(&year).ok()?;
        self.shapes.get(i).copied()
    }

    pub fn has_year(&self, year: u16) -> bool {
        self.years.binary_search(&year).is_ok()
    }

    /// The latest model year (every model has at least one).
    pub fn latest_year(&self) -> u16 {
        self.years.last().copied().unwrap_or(0)
    }

    /// The available year closest to `year` (ties go to the later year).
    pub fn nearest_year(&self, year: u16) -> u16 {
        self.years
            .iter()
            .copied()
            .min_by_key(|y| (y.abs_diff(year), std::cmp::Reverse(*y)))
            .unwrap_or(0)
    }
}

/// One make + model + year, as the image endpoints need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Vehicle<'a> {
    pub make: &'a Make,
    pub model: &'a Model,
    pub year: u16,
    pub shape: BodyShape,
}

/// Inclusive year range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct YearRange {
    pub from: u16,
    pub to: u16,
}

/// Counts for the options document (`catalog` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CatalogStats {
    pub makes: usize,
    pub models: usize,
    pub model_years: usize,
    pub years: YearRange,
}

/// A data source, for the options document and attribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Source {
    pub id: String,
    pub name: String,
    pub region: String,
    pub license: String,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub license_url: String,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub url: String,
}

/// How a search hit matched, best first (spec: exact, prefix, token, contains, fuzzy).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    Exact,
    Prefix,
    Token,
    Contains,
    Fuzzy,
}

impl MatchKind {
    pub fn id(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Prefix => "prefix",
            MatchKind::Token => "token",
            MatchKind::Contains => "contains",
            MatchKind::Fuzzy => "fuzzy",
        }
    }
}

/// `make` or `model` (spec `CatalogSearchHit.kind`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Make,
    Model,
}

/// One search result (spec `CatalogSearchHit`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogSearchHit))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    pub kind: HitKind,
    pub make_id: u64,
    pub make_name: String,
    pub make_slug: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_slug: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vehicle_type: Option<String>,
    /// The model's years; for a make, the years any of its models exists in.
    pub years: Vec<u16>,
    pub match_kind: MatchKind,
}

/// Why a lookup failed; each variant names what was not found (for a 404 naming it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("unknown make {0:?}")]
    UnknownMake(String),
    #[error("make {make:?} has no model {model:?}")]
    UnknownModel { make: String, model: String },
    #[error("model {model:?} of {make:?} is ambiguous: {}", candidates.join(", "))]
    AmbiguousModel {
        make: String,
        model: String,
        /// Slugs of the models the prefix matches (at most 10).
        candidates: Vec<String>,
    },
    #[error(
        "{make} {model} is not available for {year}; available years: {}",
        fmt_years(available)
    )]
    YearNotAvailable {
        make: String,
        model: String,
        year: u16,
        available: Vec<u16>,
    },
}

fn fmt_years(years: &[u16]) -> String {
    years
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
