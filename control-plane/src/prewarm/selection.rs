//! What a prewarm job renders: a selection from flags, a CSV or JSON file, or
//! the most requested variants, expanded to variants in a stable order.
//! Every name goes through the catalog as an image request's would, and a
//! bad one is refused before anything is queued, naming the flag (or the
//! file's line).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};
use vis_catalog::Catalog;
use vis_protocol::{BodyShape, Color, Format, Paint, Slug, VariantKey, View};

use super::Output;
use crate::store::now_millis;
use crate::store::prewarm::PrewarmStore;

/// The most variants one prewarm job may hold.
pub const MAX_VARIANTS: usize = 1_000_000;

/// The selection flags of `control-plane prewarm`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SelectionArgs {
    /// A CSV file (header `make,model,year`, optional `color` and `view`
    /// columns) or a JSON list of objects with the same fields. Rows without
    /// a colour or view take `--colors` and `--views`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["top", "make"])]
    pub file: Option<PathBuf>,
    /// The N most requested variants of the last `--top-days` days.
    #[arg(long, value_name = "N", conflicts_with = "make")]
    pub top: Option<u32>,
    #[arg(long, value_name = "DAYS", default_value_t = 30)]
    pub top_days: u32,
    /// A make (name, slug or alias).
    #[arg(long)]
    pub make: Option<String>,
    /// Models of `--make`, comma-separated (default: all of them).
    #[arg(long, value_delimiter = ',', requires = "make")]
    pub models: Vec<String>,
    /// Model years, `2018-2024` or `2020` (default: every year of each model).
    #[arg(long, value_name = "FROM-TO", requires = "make")]
    pub years: Option<String>,
    /// Views, comma-separated, or `all`.
    #[arg(long, default_value = "front-3-4")]
    pub views: String,
    /// Colours, comma-separated, or `all`.
    #[arg(long, default_value = "silver")]
    pub colors: String,
    /// Derived outputs to make per variant: square box sizes in pixels,
    /// comma-separated (default: none, only the 1024 px source render).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<u32>,
    /// Formats of the derived outputs, comma-separated, or `all`.
    #[arg(long, default_value = "webp")]
    pub formats: String,
}

/// A selection expanded.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What was asked for, canonical: the same selection gives the same JSON.
    pub selection: serde_json::Value,
    pub outputs: Vec<Output>,
    pub variants: Vec<(VariantKey, BodyShape)>,
}

impl Plan {
    pub fn selection_text(&self) -> String {
        self.selection.to_string()
    }

    /// Identifies the selection (with its outputs), to find a job to resume.
    pub fn selection_hash(&self) -> String {
        let text = format!(
            "{}|{}",
            self.selection_text(),
            Output::list_to_string(&self.outputs)
        );
        hex::encode(Sha256::digest(text.as_bytes()))
    }
}

fn list<T: std::str::FromStr + Copy>(flag: &str, raw: &str, all: &[T]) -> Result<Vec<T>, String>
where
    T::Err: std::fmt::Display,
{
    if raw.trim().eq_ignore_ascii_case("all") {
        return Ok(all.to_vec());
    }
    let mut out: Vec<T> = Vec::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        out.push(part.parse().map_err(|e| format!("{flag}: {e}"))?);
    }
    if out.is_empty() {
        return Err(format!("{flag}: name at least one, or `all`"));
    }
    Ok(out)
}

fn years(raw: &str) -> Result<(u16, u16), String> {
    let bad = || format!("--years: {raw:?} is not a year or a range like 2018-2024");
    let (a, b) = match raw.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (raw.trim(), raw.trim()),
    };
    let a: u16 = a.parse().map_err(|_| bad())?;
    let b: u16 = b.parse().map_err(|_| bad())?;
    if a > b {
        return Err(format!("--years: {a} is after {b}"));
    }
    Ok((a, b))
}

/// One row of a selection file.
#[derive(Debug, serde::Deserialize)]
struct Row {
    make: String,
    model: String,
    year: u16,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    view: Option<String>,
}

fn read_rows(path: &Path, text: &str) -> Result<Vec<Row>, String> {
    let flag = format!("--file {}", path.display());
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        || text.trim_start().starts_with('[');
    if is_json {
        let de = &mut serde_json::Deserializer::from_str(text);
        return serde_path_to_error::deserialize(de)
            .map_err(|e| format!("{flag}: at {}: {}", e.path(), e.inner()));
    }
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<Row>().enumerate() {
        // Line 1 is the header.
        rows.push(row.map_err(|e| format!("{flag}: line {}: {e}", i + 2))?);
    }
    Ok(rows)
}

/// Expands `args` into a plan. `store` is read only for `--top`.
pub async fn plan(
    args: &SelectionArgs,
    catalog: &Catalog,
    store: &dyn PrewarmStore,
) -> Result<Plan, String> {
    let views: Vec<View> = list("--views", &args.views, &View::ALL)?;
    let colors: Vec<Color> = list("--colors", &args.colors, &Color::ALL)?;
    let formats: Vec<Format> = list("--formats", &args.formats, &Format::ALL)?;
    let mut outputs = Vec::new();
    for &size in &args.sizes {
        if !(1..=vis_protocol::SOURCE_PX).contains(&size) {
            return Err(format!(
                "--sizes: {size} is not between 1 and {}",
                vis_protocol::SOURCE_PX
            ));
        }
        for &format in &formats {
            outputs.push(Output { size, format });
        }
    }
    let ids = |v: &[&str]| v.iter().map(|s| json!(s)).collect::<Vec<_>>();
    let view_ids: Vec<&str> = views.iter().map(|v| v.id()).collect();
    let color_ids: Vec<&str> = colors.iter().map(|c| c.id()).collect();
    let slug = |s: &str| Slug::parse(s).expect("catalog slugs are valid");
    let mut variants = Vec::new();
    let mut push = |make: &str, model: &str, year: u16, color: Paint, view: View, shape| {
        variants.push((
            VariantKey {
                make: slug(make),
                model: slug(model),
                year,
                color,
                view,
                staging: Default::default(),
            },
            shape,
        ));
    };
    let selection = if let Some(path) = &args.file {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("--file {}: {e}", path.display()))?;
        let rows = read_rows(path, &text)?;
        for (i, row) in rows.iter().enumerate() {
            let at = format!("--file {} row {}", path.display(), i + 1);
            let vehicle = catalog
                .lookup(&row.make, &row.model, row.year)
                .map_err(|e| format!("{at}: {e}"))?;
            let row_colors = match &row.color {
                Some(c) if !c.trim().is_empty() => {
                    vec![c.parse().map_err(|e| format!("{at}: {e}"))?]
                }
                _ => colors.clone(),
            };
            let row_views = match &row.view {
                Some(v) if !v.trim().is_empty() => {
                    vec![v.parse().map_err(|e| format!("{at}: {e}"))?]
                }
                _ => views.clone(),
            };
            for &view in &row_views {
                for &color in &row_colors {
                    push(
                        &vehicle.make.slug,
                        &vehicle.model.slug,
                        row.year,
                        color.into(),
                        view,
                        vehicle.shape,
                    );
                }
            }
        }
        json!({
            "file": path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "sha256": hex::encode(Sha256::digest(text.as_bytes())),
            "views": ids(&view_ids),
            "colors": ids(&color_ids),
        })
    } else if let Some(n) = args.top {
        if n == 0 {
            return Err("--top: must be at least 1".into());
        }
        let since = now_millis() - i64::from(args.top_days) * 86_400_000;
        let top = store
            .top_variants(since, i64::from(n))
            .await
            .map_err(|e| format!("--top: {e}"))?;
        if top.is_empty() {
            return Err(format!(
                "--top: no variant was requested in the last {} days",
                args.top_days
            ));
        }
        for (text, _) in top {
            let Ok(v) = text.parse::<VariantKey>() else {
                continue;
            };
            // A variant no longer in the catalog is not prewarmed.
            if let Ok(vehicle) = catalog.lookup(v.make.as_str(), v.model.as_str(), v.year) {
                push(
                    &vehicle.make.slug,
                    &vehicle.model.slug,
                    v.year,
                    v.color,
                    v.view,
                    vehicle.shape,
                );
            }
        }
        json!({ "top": n, "days": args.top_days })
    } else if let Some(make) = &args.make {
        let mk = catalog
            .make_by_slug_or_name(make)
            .ok_or_else(|| format!("--make: no make {make:?} in the catalog"))?;
        let models = if args.models.is_empty() {
            catalog.models_of_make(mk, None)
        } else {
            args.models
                .iter()
                .map(|m| {
                    catalog
                        .find_model(mk, m)
                        .map_err(|e| format!("--models: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let range = args.years.as_deref().map(years).transpose()?;
        for model in &models {
            for (&year, &shape) in model.years.iter().zip(&model.shapes) {
                if range.is_some_and(|(a, b)| year < a || year > b) {
                    continue;
                }
                for &view in &views {
                    for &color in &colors {
                        push(&mk.slug, &model.slug, year, color.into(), view, shape);
                    }
                }
            }
        }
        json!({
            "make": mk.slug,
            "models": if args.models.is_empty() {
                json!("all")
            } else {
                json!(models.iter().map(|m| m.slug.as_str()).collect::<Vec<_>>())
            },
            "years": range.map_or(json!("all"), |(a, b)| json!([a, b])),
            "views": ids(&view_ids),
            "colors": ids(&color_ids),
        })
    } else {
        return Err(
            "say what to prewarm: --make (with --models, --years, ...), --file FILE or --top N"
                .into(),
        );
    };
    let mut seen = HashSet::new();
    variants.retain(|(v, _)| seen.insert(v.to_string()));
    if variants.is_empty() {
        return Err(
            "the selection has no variants (check --years against the models' years)".into(),
        );
    }
    if variants.len() > MAX_VARIANTS {
        return Err(format!(
            "the selection has {} variants; one prewarm job takes at most {MAX_VARIANTS}",
            variants.len()
        ));
    }
    Ok(Plan {
        selection,
        outputs,
        variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_take_a_year_or_a_range() {
        assert_eq!(years("2018-2024"), Ok((2018, 2024)));
        assert_eq!(years("2020"), Ok((2020, 2020)));
        assert!(years("2024-2018").unwrap_err().contains("after"));
        assert!(years("soon").unwrap_err().starts_with("--years"));
    }

    #[test]
    fn lists_take_all_or_names_and_name_the_flag_when_wrong() {
        assert_eq!(list("--views", "all", &View::ALL).unwrap().len(), 6);
        assert_eq!(
            list("--views", "side, rear", &View::ALL).unwrap(),
            vec![View::Side, View::Rear]
        );
        assert!(
            list::<View>("--views", "sideways", &View::ALL)
                .unwrap_err()
                .starts_with("--views")
        );
        assert!(list::<Color>("--colors", " , ", &Color::ALL).is_err());
    }

    #[test]
    fn csv_and_json_rows_name_the_line() {
        let csv_path = PathBuf::from("list.csv");
        let rows = read_rows(
            &csv_path,
            "make,model,year,color\ntoyota,camry,2020,red\nbmw,x5,2019,\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].color.as_deref(), Some("red"));
        let err = read_rows(&csv_path, "make,model,year\ntoyota,camry,twenty\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
        let json_path = PathBuf::from("list.json");
        let rows = read_rows(
            &json_path,
            r#"[{"make":"bmw","model":"x5","year":2020,"view":"side"}]"#,
        )
        .unwrap();
        assert_eq!(rows[0].view.as_deref(), Some("side"));
        let err = read_rows(&json_path, r#"[{"make":"bmw","model":"x5"}]"#).unwrap_err();
        assert!(err.contains("year"), "{err}");
    }
}
