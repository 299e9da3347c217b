//! Manufacturers' paint codes (`models/paints.csv`, embedded): what
//! `paint=CODE` means for a make, and the names a colour is described by.

use std::sync::OnceLock;

use crate::Color;
use crate::paint::{Finish, Paint, delta_e_rgb, hex_of};

/// One row of `models/paints.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaintCode {
    /// The catalog's make slug.
    pub make: String,
    /// The manufacturer's code as written on the car (`3R3`, `NH-731P`).
    pub code: String,
    pub name: String,
    pub years: (u16, u16),
    pub rgb: [u8; 3],
    pub finish: Finish,
    pub source: String,
}

impl PaintCode {
    pub fn paint(&self) -> Paint {
        Paint::custom(self.rgb, self.finish)
    }

    pub fn hex(&self) -> String {
        hex_of(self.rgb)
    }
}

/// The embedded table.
pub const PAINTS_CSV: &str = include_str!("../../models/paints.csv");

/// The table, parsed once (a bad row is a bug caught by the tests).
pub fn paint_codes() -> &'static [PaintCode] {
    static TABLE: OnceLock<Vec<PaintCode>> = OnceLock::new();
    TABLE.get_or_init(|| parse(PAINTS_CSV).expect("models/paints.csv parses"))
}

/// Parses the table: `#` lines are comments, the first other line the
/// header; the last column (source) may hold commas.
pub fn parse(text: &str) -> Result<Vec<PaintCode>, String> {
    let mut rows = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("no header".into());
    };
    if header.trim() != "make,code,name,years,hex,finish,source" {
        return Err(format!("unexpected header {header:?}"));
    }
    for (i, line) in lines {
        let at = |m: &str| format!("line {}: {m}", i + 1);
        let cols: Vec<&str> = line.splitn(7, ',').map(str::trim).collect();
        let [make, code, name, years, hex, finish, source] = cols.as_slice() else {
            return Err(at("expected 7 columns"));
        };
        let (from, to) = years
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse::<u16>().ok()?, b.parse::<u16>().ok()?)))
            .filter(|(a, b)| a <= b)
            .ok_or_else(|| at("years must be FROM-TO"))?;
        let rgb = match Paint::parse_color(hex, None).map(Paint::rgb) {
            Ok(rgb) if hex.starts_with('#') => rgb,
            _ => return Err(at("hex must be #rrggbb")),
        };
        let finish: Finish = finish.parse().map_err(|e| at(&format!("{e}")))?;
        if code.is_empty() || name.is_empty() || source.is_empty() || !name.is_ascii() {
            return Err(at("code, name (ASCII) and source are required"));
        }
        rows.push(PaintCode {
            make: (*make).to_owned(),
            code: (*code).to_owned(),
            name: (*name).to_owned(),
            years: (from, to),
            rgb,
            finish,
            source: (*source).to_owned(),
        });
    }
    Ok(rows)
}

/// The paints of one make, in the table's order.
pub fn paints_of(make: &str) -> impl Iterator<Item = &'static PaintCode> + '_ {
    paint_codes().iter().filter(move |p| p.make == make)
}

/// The makes with paint codes, in the table's order.
pub fn paint_makes() -> Vec<&'static str> {
    let mut makes: Vec<&str> = Vec::new();
    for p in paint_codes() {
        if !makes.contains(&p.make.as_str()) {
            makes.push(&p.make);
        }
    }
    makes
}

/// A code compared as people type it: case, spaces and dashes ignored.
fn folded(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Why `paint=CODE` names no paint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaintLookupError {
    #[error("there are no paint codes for make {make}; paint codes are known for {}", known.join(", "))]
    NoCodesForMake { make: String, known: Vec<String> },
    #[error("{make} has no paint code {code:?}; nearest codes: {}", near.join(", "))]
    UnknownCode {
        make: String,
        code: String,
        /// Up to five codes of the make, nearest spelling first.
        near: Vec<String>,
    },
}

/// The paint `code` of `make` (a catalog slug).
pub fn find_paint(make: &str, code: &str) -> Result<&'static PaintCode, PaintLookupError> {
    let wanted = folded(code);
    let mine: Vec<&PaintCode> = paints_of(make).collect();
    if mine.is_empty() {
        return Err(PaintLookupError::NoCodesForMake {
            make: make.to_owned(),
            known: paint_makes().into_iter().map(str::to_owned).collect(),
        });
    }
    if let Some(p) = mine.iter().find(|p| folded(&p.code) == wanted) {
        return Ok(p);
    }
    let mut ranked: Vec<(usize, &PaintCode)> = mine
        .iter()
        .map(|p| (edit_distance(&folded(&p.code), &wanted), *p))
        .collect();
    ranked.sort_by_key(|(d, _)| *d);
    Err(PaintLookupError::UnknownCode {
        make: make.to_owned(),
        code: code.to_owned(),
        near: ranked
            .into_iter()
            .take(5)
            .map(|(_, p)| format!("{} ({})", p.code, p.name))
            .collect(),
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// How a painted colour relates to the name it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// A preset or one of the make's paint codes, painted as listed.
    Exact,
    /// A custom colour, named after the nearest preset or paint of the make.
    Nearest,
}

impl MatchKind {
    pub fn id(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Nearest => "nearest",
        }
    }
}

/// What a variant's paint is called, and how exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct ColorMatch {
    pub kind: MatchKind,
    /// A preset's id (`red`) or a paint's name (`Barcelona Red Metallic`).
    pub name: String,
    /// The paint code, when the name is one of the make's paints.
    pub paint: Option<&'static PaintCode>,
    /// CIEDE2000 from the painted colour to the named one (0 when exact).
    pub delta_e: f64,
}

impl ColorMatch {
    /// The `X-Color-Match` header: `exact` or `nearest; delta-e=1.8`, then
    /// the name (and paint code) as quoted strings.
    pub fn header(&self) -> String {
        let mut h = self.kind.id().to_owned();
        if self.kind == MatchKind::Nearest {
            h.push_str(&format!("; delta-e={:.1}", self.delta_e));
        }
        h.push_str(&format!("; name=\"{}\"", self.name));
        if let Some(p) = self.paint {
            h.push_str(&format!("; paint=\"{}\"", p.code));
        }
        h
    }
}

/// Names `paint` on a vehicle of `make`: a preset by its id; a custom
/// colour by the make's paint with the same colour and finish (exact), else
/// by the nearest preset or paint of the make in CIEDE2000 (nearest).
/// `requested` prefers a code the client named when two share a colour.
pub fn describe(make: &str, paint: Paint, requested: Option<&str>) -> ColorMatch {
    let Paint::Custom { rgb, finish } = paint else {
        let c = paint.named().unwrap_or_default();
        return ColorMatch {
            kind: MatchKind::Exact,
            name: c.id().to_owned(),
            paint: None,
            delta_e: 0.0,
        };
    };
    let same = |p: &&PaintCode| p.rgb == rgb && p.finish == finish;
    let exact = requested
        .and_then(|code| find_paint(make, code).ok())
        .filter(same)
        .or_else(|| paints_of(make).find(same));
    if let Some(p) = exact {
        return ColorMatch {
            kind: MatchKind::Exact,
            name: p.name.clone(),
            paint: Some(p),
            delta_e: 0.0,
        };
    }
    let presets = Color::ALL
        .into_iter()
        .map(|c| (delta_e_rgb(rgb, c.rgb()), c.id().to_owned(), None));
    let paints = paints_of(make).map(|p| (delta_e_rgb(rgb, p.rgb), p.name.clone(), Some(p)));
    let (delta_e, name, paint) = presets
        .chain(paints)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("fifteen presets");
    ColorMatch {
        kind: MatchKind::Nearest,
        name,
        paint,
        delta_e: (delta_e * 10.0).round() / 10.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_covers_ten_makes_with_eight_or_more_paints_each() {
        let rows = paint_codes();
        let makes = paint_makes();
        assert!(makes.len() >= 10, "{makes:?}");
        for make in &makes {
            let n = paints_of(make).count();
            assert!((8..=15).contains(&n), "{make}: {n} paints");
            let mut codes: Vec<String> = paints_of(make).map(|p| folded(&p.code)).collect();
            codes.sort();
            codes.dedup();
            assert_eq!(codes.len(), n, "{make}: a code twice");
        }
        for p in rows {
            assert!(
                crate::Slug::parse(&p.make).is_some(),
                "{}: make is a slug",
                p.make
            );
            assert!(p.years.0 >= 1990 && p.years.1 <= 2027, "{p:?}");
            assert!(p.source.contains("approximate"), "{p:?}");
        }
    }

    #[test]
    fn bad_rows_are_refused_with_their_line() {
        let head = "make,code,name,years,hex,finish,source\n";
        for bad in [
            "toyota,3R3,Red,2009,#8c1a20,metallic,x",
            "toyota,3R3,Red,2009-2025,8c1a20,metallic,x",
            "toyota,3R3,Red,2009-2025,#8c1a20,matte,x",
            "toyota,3R3,Red,2009-2025,#8c1a20,metallic",
            "toyota,,Red,2009-2025,#8c1a20,metallic,x",
        ] {
            let e = parse(&format!("{head}{bad}\n")).unwrap_err();
            assert!(e.starts_with("line 2"), "{bad}: {e}");
        }
        let ok = parse(&format!("# c\n{head}a,1,B,1990-1991,#000000,solid,x, y\n")).unwrap();
        assert_eq!(ok[0].source, "x, y");
    }

    #[test]
    fn codes_are_found_as_people_type_them() {
        let p = find_paint("toyota", "3r3").unwrap();
        assert_eq!(
            (p.name.as_str(), p.finish),
            ("Barcelona Red Metallic", Finish::Metallic)
        );
        assert_eq!(
            find_paint("bmw", "475").unwrap().name,
            "Black Sapphire Metallic"
        );
        assert_eq!(find_paint("honda", "nh731p").unwrap().code, "NH-731P");
        match find_paint("toyota", "3R4").unwrap_err() {
            PaintLookupError::UnknownCode { near, .. } => {
                assert!(near[0].starts_with("3R3 "), "{near:?}");
                assert!(near.len() <= 5);
            }
            other => panic!("{other:?}"),
        }
        match find_paint("lada", "1").unwrap_err() {
            PaintLookupError::NoCodesForMake { known, .. } => {
                assert!(known.contains(&"toyota".to_owned()))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn colours_are_named_exactly_or_by_the_nearest_with_its_distance() {
        let red = describe("toyota", Paint::Named(Color::Red), None);
        assert_eq!((red.kind, red.name.as_str()), (MatchKind::Exact, "red"));
        assert_eq!(red.header(), "exact; name=\"red\"");
        let p = find_paint("toyota", "3R3").unwrap();
        let m = describe("toyota", p.paint(), None);
        assert_eq!(
            (m.kind, m.paint.map(|p| p.code.as_str())),
            (MatchKind::Exact, Some("3R3"))
        );
        assert_eq!(
            m.header(),
            "exact; name=\"Barcelona Red Metallic\"; paint=\"3R3\""
        );
        // The same colour painted solid is not that paint: the nearest name.
        let m = describe("toyota", Paint::custom(p.rgb, Finish::Solid), None);
        assert_eq!(m.kind, MatchKind::Nearest);
        assert_eq!(m.delta_e, 0.0);
        // A custom colour near the preset red, on a make without paints.
        let m = describe(
            "lada",
            Paint::custom([0xb0, 0x14, 0x1c], Finish::Solid),
            None,
        );
        assert_eq!((m.kind, m.name.as_str()), (MatchKind::Nearest, "red"));
        assert!(m.delta_e > 0.0 && m.delta_e < 3.0, "{m:?}");
        assert!(
            m.header().starts_with("nearest; delta-e="),
            "{}",
            m.header()
        );
    }
}
