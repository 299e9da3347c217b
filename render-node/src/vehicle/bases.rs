//! Catalog models drawn as a curated one: `models/bases.csv` (docs/rendering.md,
//! "Models drawn as their base").
//!
//! ```text
//! make,model,from,to,base_make,base_model,why
//! ```
//!
//! The catalog keeps trims, performance versions and market names as models
//! of their own (BMW 330i and M3, Audi S4, Volkswagen GTI, Honda Jazz,
//! Toyota Kluger); their bodies are a curated model's. Such a model is
//! resolved as its base in every table (identity, faces, profiles, wheels)
//! and hashed as its base, so an M3 is the 3 Series of its year.

use std::collections::BTreeMap;

/// The embedded table.
pub const EMBEDDED: &str = include_str!("../../../models/bases.csv");

/// The column names, in order.
pub const COLUMNS: [&str; 7] = [
    "make",
    "model",
    "from",
    "to",
    "base_make",
    "base_model",
    "why",
];

/// One row: a catalog model's years drawn as a base model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseRow {
    pub make: String,
    pub model: String,
    pub from: u16,
    pub to: u16,
    pub base_make: String,
    pub base_model: String,
    pub line: usize,
}

impl BaseRow {
    /// Years from the row's span to `year` (0 inside it).
    fn distance(&self, year: u16) -> u16 {
        if year < self.from {
            self.from - year
        } else {
            year.saturating_sub(self.to)
        }
    }
}

/// Every row, by (make, model).
#[derive(Debug, Clone, Default)]
pub struct BaseTable {
    models: BTreeMap<(String, String), Vec<BaseRow>>,
}

impl BaseTable {
    pub fn embedded() -> BaseTable {
        // The embedded table is checked by tests; failing here is a build defect.
        BaseTable::parse(EMBEDDED).expect("embedded models/bases.csv parses")
    }

    pub fn parse(text: &str) -> Result<BaseTable, String> {
        let mut models: BTreeMap<(String, String), Vec<BaseRow>> = BTreeMap::new();
        for (line, cols) in super::identity::csv_records("bases.csv", text, &COLUMNS)? {
            let at = |e: String| format!("bases.csv line {line}: {e}");
            let year = |i: usize| {
                cols[i]
                    .parse::<u16>()
                    .ok()
                    .filter(|y| (1950..=2030).contains(y))
                    .ok_or_else(|| at(format!("{} {:?}: a year 1950-2030", COLUMNS[i], cols[i])))
            };
            if cols[..6].iter().any(|c| c.is_empty()) || cols[6].is_empty() {
                return Err(at("every field needs a value (why included)".into()));
            }
            let (from, to) = (year(2)?, year(3)?);
            if from > to {
                return Err(at(format!("years {from}..{to} run backwards")));
            }
            if (cols[0], cols[1]) == (cols[4], cols[5]) {
                return Err(at(format!("{}/{} is drawn as itself", cols[0], cols[1])));
            }
            let row = BaseRow {
                make: cols[0].to_owned(),
                model: cols[1].to_owned(),
                from,
                to,
                base_make: cols[4].to_owned(),
                base_model: cols[5].to_owned(),
                line,
            };
            let rows = models
                .entry((row.make.clone(), row.model.clone()))
                .or_default();
            if let Some(other) = rows.iter().find(|r| r.from <= to && from <= r.to) {
                return Err(at(format!(
                    "{}/{}: years {from}-{to} overlap line {}'s",
                    row.make, row.model, other.line
                )));
            }
            rows.push(row);
        }
        // A base is drawn from its own rows, never through another alias.
        for rows in models.values() {
            for r in rows {
                if models.contains_key(&(r.base_make.clone(), r.base_model.clone())) {
                    return Err(format!(
                        "bases.csv line {}: the base {}/{} is itself drawn as another model",
                        r.line, r.base_make, r.base_model
                    ));
                }
            }
        }
        Ok(BaseTable { models })
    }

    /// The base a catalog model is drawn as in a model year: the row whose
    /// years hold it, else the nearest (ties to the later); None for a
    /// model without rows.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<(&str, &str)> {
        let rows = self.models.get(&(make.to_owned(), model.to_owned()))?;
        rows.iter()
            .min_by_key(|r| (r.distance(year), std::cmp::Reverse(r.from)))
            .map(|r| (r.base_make.as_str(), r.base_model.as_str()))
    }

    /// Every row.
    pub fn rows(&self) -> impl Iterator<Item = &BaseRow> {
        self.models.values().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "make,model,from,to,base_make,base_model,why\n";

    #[test]
    fn a_model_takes_the_row_of_its_year_or_the_nearest() {
        let t = BaseTable::parse(&format!(
            "# comment\n{HEAD}nissan,fairlady,1989,2000,nissan,300zx,Z32\n\
             nissan,fairlady,2002,2008,nissan,350z,Z33\nbmw,m3,1980,2026,bmw,3-series,M\n"
        ))
        .unwrap();
        assert_eq!(
            t.lookup("nissan", "fairlady", 1995),
            Some(("nissan", "300zx"))
        );
        assert_eq!(
            t.lookup("nissan", "fairlady", 2005),
            Some(("nissan", "350z"))
        );
        // Between the rows: the nearer; after the last: the last.
        assert_eq!(
            t.lookup("nissan", "fairlady", 2001),
            Some(("nissan", "350z"))
        );
        assert_eq!(
            t.lookup("nissan", "fairlady", 2015),
            Some(("nissan", "350z"))
        );
        assert_eq!(t.lookup("bmw", "m3", 2019), Some(("bmw", "3-series")));
        assert_eq!(t.lookup("bmw", "3-series", 2019), None);
    }

    #[test]
    fn bad_rows_are_refused_with_the_reason() {
        for (rows, want) in [
            ("a,b,2000,1990,a,c,x\n", "backwards"),
            ("a,b,2000,2010,a,b,x\n", "itself"),
            ("a,b,2000,2010,a,c,\n", "every field"),
            ("a,b,1900,2010,a,c,x\n", "from"),
            ("a,b,2000,2010,a,c,x\na,b,2005,2012,a,d,x\n", "overlap"),
            ("a,b,2000,2010,a,c,x\na,c,2000,2010,a,d,x\n", "itself drawn"),
            ("a,b,2000,2010,a,c\n", "fields"),
        ] {
            let e = BaseTable::parse(&format!("{HEAD}{rows}")).unwrap_err();
            assert!(e.contains(want), "{rows}: {e}");
        }
    }
}
