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
pub const SECTION_COLUMNS: [&str; 11] = [
    "make", "models", "from", "to", "ride", "square", "tumble", "flare", "line", "lower", "note",
];

/// A character line along the flank (`line` and `lower` columns): its
/// height at the front and rear axles, fractions of the lower body's side
/// from the sills (0) to its top there (1: the belt, or the bonnet's or
/// deck's edge), and its depth, a multiple of the shoulder line's 2.5 cm
/// ridge (0-3). Written `0.78>0.84` or `0.3>0.55x1.5`; `0`
/// for none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineSpec {
    pub front: f32,
    pub rear: f32,
    pub depth: f32,
}

impl LineSpec {
    /// None drawn.
    pub const NONE: LineSpec = LineSpec {
        front: 0.0,
        rear: 0.0,
        depth: 0.0,
    };

    fn parse(name: &str, s: &str) -> Result<Option<LineSpec>, String> {
        match s {
            "-" => return Ok(None),
            "0" => return Ok(Some(LineSpec::NONE)),
            _ => {}
        }
        let (heights, depth) = s.split_once('x').unwrap_or((s, "1"));
        let (front, rear) = heights.split_once('>').ok_or_else(|| {
            format!("{name} {s:?}: front>rear heights, as 0.78>0.84 or 0.3>0.55x1.5")
        })?;
        Ok(Some(LineSpec {
            front: super::outlines::frac(name, front, 0.05, 0.95)?,
            rear: super::outlines::frac(name, rear, 0.05, 0.95)?,
            depth: super::outlines::frac(name, depth, 0.0, 3.0)?,
        }))
    }
}

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
    /// The shoulder line in place of the derived one (`LineSpec::NONE`:
    /// none).
    pub line: Option<LineSpec>,
    /// A second, lower character line (a door crease rising to the tail).
    pub lower: Option<LineSpec>,
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
                line: LineSpec::parse(SECTION_COLUMNS[8], cols[8]).map_err(at)?,
                lower: LineSpec::parse(SECTION_COLUMNS[9], cols[9]).map_err(at)?,
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

    const HEAD: &str = "make,models,from,to,ride,square,tumble,flare,line,lower,note\n";

    #[test]
    fn rows_parse_and_bad_values_name_their_column() {
        let t = SectionTable::parse(&format!(
            "# c\n{HEAD}mercedes-benz,g-class,1990,1990,-,9,0.02,0.03,-,-,slab sides\n"
        ))
        .unwrap();
        let s = t.lookup("mercedes-benz", "g-class", 1990).unwrap();
        assert_eq!((s.ride, s.square, s.tumble), (None, Some(9.0), Some(0.02)));
        assert_eq!(t.lookup("mercedes-benz", "g-class", 1991), None);
        let bad = |row: &str| SectionTable::parse(&format!("{HEAD}{row}\n")).unwrap_err();
        assert!(bad("bmw,x6,2008,2008,0.9,-,-,-,-,-,n").contains("ride"));
        assert!(bad("bmw,x6,2008,2008,-,1,-,-,-,-,n").contains("square"));
        assert!(bad("bmw,x6,2008,2008,-,-,-,-,-,-,n").contains("changes nothing"));
        assert!(bad("bmw,*,2008,2008,0.3,-,-,-,-,-,n").contains("models"));
        assert!(bad("bmw,x6,2008,2008,-,-,-,-,0.8,-,n").contains("front>rear"));
        assert!(bad("bmw,x6,2008,2008,-,-,-,-,0.8>1.2,-,n").contains("line"));
        assert!(bad("bmw,x6,2008,2008,-,-,-,-,-,0.3>0.5x9,n").contains("lower"));
        let t = SectionTable::parse(&format!(
            "{HEAD}toyota,camry,2018,2018,-,-,-,-,0.8>0.85,0.3>0.6x1.5,lines\nbmw,x6,2008,2008,-,-,-,-,0,-,n\n"
        ))
        .unwrap();
        let s = t.lookup("toyota", "camry", 2018).unwrap();
        let line = |front, rear, depth| Some(LineSpec { front, rear, depth });
        assert_eq!(
            (s.line, s.lower),
            (line(0.8, 0.85, 1.0), line(0.3, 0.6, 1.5))
        );
        assert_eq!(
            t.lookup("bmw", "x6", 2008).unwrap().line,
            Some(LineSpec::NONE)
        );
    }
}
