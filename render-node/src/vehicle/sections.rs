//! Per-generation body sections (`models/sections.csv`, docs/rendering.md,
//! "Body sections"): how high the body rides over the ground, how square
//! its cross-section is, how far the glasshouse leans in and how far the
//! wheel arches flare. The side profile (profiles.csv) and the side glass
//! (dlo.csv) say where the lines run seen from the side; these say what the
//! body is seen end-on, which the shared shell drew alike for every
//! generation of a body style: a G-Class's slab sides and a Range Rover's
//! rounded ones, a coupe-SUV's ride height and an estate's.

use super::outlines::{models_of, names, opt_frac, years};

/// The embedded table.
pub const SECTIONS: &str = include_str!("../../../models/sections.csv");

/// The columns of `models/sections.csv`.
pub const SECTION_COLUMNS: [&str; 9] = [
    "make", "models", "from", "to", "ride", "square", "tumble", "flare", "note",
];

/// One generation's section values; `None` keeps the derived one.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BodySection {
    /// The sills' height over the ground, metres.
    pub ride: Option<f32>,
    /// The lower body's squareness: the superellipse exponent of its upper
    /// half (2 round, about 4 a saloon, 8 and more a slab-sided box).
    pub square: Option<f32>,
    /// The glasshouse's tumblehome: how far its sides lean in at the roof,
    /// a fraction of the half width (0 upright glass).
    pub tumble: Option<f32>,
    /// How far the wheel arches stand out of the flank, a fraction of the
    /// half width (the `flared-arches` feature's is 0.04).
    pub flare: Option<f32>,
}

/// One row of `models/sections.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionRow {
    pub make: String,
    pub models: Vec<String>,
    pub from: u16,
    pub to: u16,
    pub section: BodySection,
    pub line: usize,
}

/// Every section row, in file order.
#[derive(Debug, Clone, Default)]
pub struct SectionTable {
    rows: Vec<SectionRow>,
}

impl SectionTable {
    pub fn embedded() -> SectionTable {
        // Checked by tests; failing here is a build defect.
        SectionTable::parse(SECTIONS).expect("embedded models/sections.csv parses")
    }

    pub fn parse(text: &str) -> Result<SectionTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("sections.csv", text, &SECTION_COLUMNS)? {
            let at = |e: String| format!("sections.csv line {line}: {e}");
            let models = models_of(cols[1]).map_err(at)?;
            let (from, to) = years("sections.csv", &cols).map_err(at)?;
            let num = |i: usize, lo: f32, hi: f32| {
                opt_frac(SECTION_COLUMNS[i], cols[i], lo, hi).map_err(at)
            };
            let section = BodySection {
                ride: num(4, 0.08, 0.55)?,
                square: num(5, 2.0, 12.0)?,
                tumble: num(6, 0.0, 0.3)?,
                flare: num(7, 0.0, 0.1)?,
            };
            if section == BodySection::default() {
                return Err(at("every value is `-`: the row changes nothing".into()));
            }
            rows.push(SectionRow {
                make: cols[0].to_owned(),
                models,
                from,
                to,
                section,
                line,
            });
        }
        Ok(SectionTable { rows })
    }

    pub fn rows(&self) -> &[SectionRow] {
        &self.rows
    }

    /// The section of a model whose generation was launched in `year`: the
    /// first row naming it.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<BodySection> {
        self.rows
            .iter()
            .find(|r| names((&r.make, &r.models, r.from, r.to), (make, model, year)))
            .map(|r| r.section)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "make,models,from,to,ride,square,tumble,flare,note\n";

    #[test]
    fn rows_parse_and_bad_values_name_their_column() {
        let t = SectionTable::parse(&format!(
            "# c\n{HEAD}mercedes-benz,g-class,1990,1990,-,9,0.02,0.03,slab sides\n"
        ))
        .unwrap();
        let s = t.lookup("mercedes-benz", "g-class", 1990).unwrap();
        assert_eq!((s.ride, s.square, s.tumble), (None, Some(9.0), Some(0.02)));
        assert_eq!(t.lookup("mercedes-benz", "g-class", 1991), None);
        let bad = |row: &str| SectionTable::parse(&format!("{HEAD}{row}\n")).unwrap_err();
        assert!(bad("bmw,x6,2008,2008,0.9,-,-,-,n").contains("ride"));
        assert!(bad("bmw,x6,2008,2008,-,1,-,-,n").contains("square"));
        assert!(bad("bmw,x6,2008,2008,-,-,-,-,n").contains("changes nothing"));
        assert!(bad("bmw,*,2008,2008,0.3,-,-,-,n").contains("models"));
    }
}
