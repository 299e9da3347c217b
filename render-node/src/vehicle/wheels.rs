//! Wheel designs as data: `models/wheels.csv` (docs/rendering.md,
//! "Wheels") gives each make's wheel design per design era, and a model's
//! own where it has one:
//!
//! ```text
//! make,models,from,to,design,spokes,finish,note
//! ```
//!
//! A row naming the model wins over a `*` row; among equals the first row
//! in the file wins. Until session 19 the rim style and spoke count came
//! from a hash of the generation, so every make drew from the same three
//! styles at random.

use std::fmt;
use std::str::FromStr;

use super::identity::vocabulary;

/// The embedded table.
pub const EMBEDDED: &str = include_str!("../../../models/wheels.csv");

/// The column names, in order.
pub const COLUMNS: [&str; 8] = [
    "make", "models", "from", "to", "design", "spokes", "finish", "note",
];

vocabulary!(
    /// The spoke pattern of a wheel's face.
    Design {
        Five = "five",
        Wide = "wide",
        Split = "split",
        Multi = "multi",
        Turbine = "turbine",
        Steel = "steel",
        Y = "y",
        Mesh = "mesh",
        Ten = "ten",
        Twist = "twist",
        Dish = "dish",
    }
);

vocabulary!(
    /// How the face is finished.
    Finish {
        Silver = "silver",
        Dark = "dark",
        TwoTone = "two-tone",
    }
);

/// One wheel: design, spoke count and finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wheel {
    pub design: Design,
    pub spokes: u32,
    pub finish: Finish,
}

impl Wheel {
    /// The style number the scene shader reads from the rim's uv.x
    /// (`style * 2 + radial fraction`): the design's index modulo 8, plus
    /// 8 for a dark face or 16 for a two-tone one, plus 24 for each eight
    /// designs before it (session 45: a ninth design needed room; the
    /// first eight keep the numbers they had).
    pub fn style(self) -> u32 {
        let d = Design::ALL
            .iter()
            .position(|d| *d == self.design)
            .unwrap_or(0) as u32;
        let f = match self.finish {
            Finish::Silver => 0,
            Finish::Dark => 1,
            Finish::TwoTone => 2,
        };
        d % 8 + 8 * f + 24 * (d / 8)
    }

    /// A commercial van's or a bus's painted steel wheel.
    pub fn steel() -> Wheel {
        Wheel {
            design: Design::Steel,
            spokes: 8,
            finish: Finish::Silver,
        }
    }
}

/// One row of `models/wheels.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelRow {
    pub make: String,
    /// Model slugs; empty for every model of the make (`*`).
    pub models: Vec<String>,
    pub from: u16,
    pub to: u16,
    pub wheel: Wheel,
    pub line: usize,
}

/// Every wheel row, in file order.
#[derive(Debug, Clone, Default)]
pub struct WheelTable {
    rows: Vec<WheelRow>,
}

impl WheelTable {
    pub fn embedded() -> WheelTable {
        // The embedded table is checked by tests; failing here is a build defect.
        WheelTable::parse(EMBEDDED).expect("embedded models/wheels.csv parses")
    }

    pub fn parse(text: &str) -> Result<WheelTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("wheels.csv", text, &COLUMNS)? {
            let at = |e: String| format!("wheels.csv line {line}: {e}");
            let named = |i: usize| format!("{} {:?}", COLUMNS[i], cols[i]);
            let year = |i: usize| {
                cols[i]
                    .parse::<u16>()
                    .ok()
                    .filter(|y| (1950..=2030).contains(y))
                    .ok_or_else(|| at(format!("{}: a year 1950-2030", named(i))))
            };
            if cols[0].is_empty() || cols[1].is_empty() {
                return Err(at("make and models may not be empty".into()));
            }
            let models = if cols[1] == "*" {
                Vec::new()
            } else {
                cols[1].split('+').map(str::to_owned).collect()
            };
            if models.iter().any(|m| m.is_empty() || m == "*") {
                return Err(at(format!("{}: `*` or slugs joined by +", named(1))));
            }
            let (from, to) = (year(2)?, year(3)?);
            if from > to {
                return Err(at(format!("years {from}..{to} run backwards")));
            }
            let spokes = cols[5]
                .parse::<u32>()
                .ok()
                .filter(|s| (3..=16).contains(s))
                .ok_or_else(|| at(format!("{}: 3-16", named(5))))?;
            let wheel = Wheel {
                design: cols[4].parse().map_err(at)?,
                spokes,
                finish: cols[6].parse().map_err(at)?,
            };
            rows.push(WheelRow {
                make: cols[0].to_owned(),
                models,
                from,
                to,
                wheel,
                line,
            });
        }
        Ok(WheelTable { rows })
    }

    pub fn rows(&self) -> &[WheelRow] {
        &self.rows
    }

    /// The row naming the model whose years hold `year`, if any.
    pub fn lookup_model(&self, make: &str, model: &str, year: u16) -> Option<Wheel> {
        self.rows
            .iter()
            .filter(|r| r.make == make && (r.from..=r.to).contains(&year))
            .find(|r| r.models.iter().any(|m| m == model))
            .map(|r| r.wheel)
    }

    /// The wheel of a model whose design dates from `year`: the first row
    /// naming the model, else the first `*` row of its make.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<Wheel> {
        self.lookup_model(make, model, year).or_else(|| {
            self.rows
                .iter()
                .filter(|r| r.make == make && (r.from..=r.to).contains(&year))
                .find(|r| r.models.is_empty())
                .map(|r| r.wheel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_parses_and_models_win_over_makes() {
        let t = WheelTable::embedded();
        assert!(t.rows().len() > 40);
        let f150 = t.lookup("ford", "f-150", 2018).expect("ford row");
        assert_eq!((f150.design, f150.spokes), (Design::Five, 6));
        let focus = t.lookup("ford", "focus", 2018).expect("ford row");
        assert_eq!(focus.design, Design::Split);
        assert_eq!(
            t.lookup("tesla", "model-3", 2019).map(|w| w.design),
            Some(Design::Turbine)
        );
        assert_eq!(t.lookup("nobody", "x", 2019), None);
        // Session 45: best sellers' own designs, each read from its row.
        let design =
            |make: &str, model: &str, year: u16| t.lookup(make, model, year).map(|w| w.design);
        assert_eq!(design("toyota", "camry", 2018), Some(Design::Y));
        assert_eq!(design("bmw", "3-series", 1990), Some(Design::Mesh));
        assert_eq!(design("volkswagen", "passat", 2015), Some(Design::Ten));
        assert_eq!(design("mazda", "cx-5", 2017), Some(Design::Twist));
        assert_eq!(design("mercedes-benz", "e-class", 1990), Some(Design::Dish));
        let ram = t.lookup("ram", "1500", 2019).expect("ram row");
        assert_eq!((ram.design, ram.spokes), (Design::Wide, 6));
        // A make's models differ where their wheels do.
        assert_ne!(
            design("honda", "civic", 2016),
            design("honda", "cr-v", 2023)
        );
    }

    #[test]
    fn bad_rows_name_their_column() {
        let head = COLUMNS.join(",");
        let err = WheelTable::parse(&format!("{head}\nford,*,1990,2000,star,5,silver,\n"))
            .expect_err("bad design");
        assert!(err.contains("design"), "{err}");
        let err = WheelTable::parse(&format!("{head}\nford,*,1990,2000,five,40,silver,\n"))
            .expect_err("bad spokes");
        assert!(err.contains("spokes"), "{err}");
    }

    #[test]
    fn styles_are_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        for d in Design::ALL {
            for f in Finish::ALL {
                let w = Wheel {
                    design: *d,
                    spokes: 5,
                    finish: *f,
                };
                let style = w.style();
                assert!(seen.insert(style), "{d} {f}: style {style} taken");
                assert_eq!(
                    shader_decode(style),
                    (
                        Design::ALL.iter().position(|x| x == d).unwrap() as u32,
                        Finish::ALL.iter().position(|x| x == f).unwrap() as u32
                    ),
                    "{d} {f}"
                );
            }
        }
        // The first eight designs keep their numbers (the hash's styles
        // in `params.rs` name five dark spokes 8).
        let five_dark = Wheel {
            design: Design::Five,
            spokes: 5,
            finish: Finish::Dark,
        };
        assert_eq!(five_dark.style(), 8);
    }

    /// `scene.wgsl`'s `rim_lobes` decoding of a style: (design, finish).
    fn shader_decode(style: u32) -> (u32, u32) {
        let bank = style / 24;
        let s8 = style - bank * 24;
        let fin = s8 / 8;
        (s8 - fin * 8 + bank * 8, fin)
    }
}
