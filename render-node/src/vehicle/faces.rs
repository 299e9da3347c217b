//! Faces and tails as data: lamp graphics, daytime-running-light
//! signatures, grilles, intakes and tail-lamp graphics per make and design
//! era, from `models/faces.csv` (docs/rendering.md, "Faces and tails").
//!
//! One row covers one make's models (`*`) or named models (`+`-joined
//! slugs) whose generation was launched in `from..=to`:
//!
//! ```text
//! make,models,from,to,headlamp,drl,optics,grille,intakes,tail,note
//! ```
//!
//! `-` in `optics` draws the lamp's insides the era and the lamp's size
//! suggest ([`Optics::resolve`]); `-` in `headlamp`, `grille`, `intakes`
//! or `tail` keeps what the generation's identity row (or the default
//! drawing) gives. A row that names the model wins over a `*` row; among
//! equals the first row in the file wins. Nothing here is lettering or a logo: every graphic is a shape.

use std::fmt;
use std::str::FromStr;

use super::identity::{Grille, Headlamp, vocabulary};

/// The embedded table.
pub const EMBEDDED: &str = include_str!("../../../models/faces.csv");

/// The column names, in order.
pub const COLUMNS: [&str; 11] = [
    "make", "models", "from", "to", "headlamp", "drl", "optics", "grille", "intakes", "tail",
    "note",
];

vocabulary!(
    /// The daytime-running-light signature drawn inside (or joining) the
    /// head lamps. With anything but `none` the lamp's body is a dark
    /// housing and the signature is the bright part.
    Drl {
        None = "none",
        Rings = "rings",
        Halo = "halo",
        FourPoint = "four-point",
        Strip = "strip",
        Eyebrow = "eyebrow",
        L = "l",
        C = "c",
        Hammer = "hammer",
        Bar = "bar",
        Pixels = "pixels",
        Arrow = "arrow",
    }
);

vocabulary!(
    /// What a head lamp holds behind its cover, under the running-light
    /// signature: what tells one make's lamp from another's once the
    /// outlines are alike (two chrome lenses in every modern lamp read as
    /// "the same pod on every make" in both session-40 blind checks).
    ///
    /// `auto` is chosen by [`Optics::resolve`] from the signature, era
    /// and size; `bowl` a silver reflector bowl round one bright bulb;
    /// `projector` one round lens in a bezel at the lamp's inner end;
    /// `twin` two lenses side by side; `cells` a row of small LED cells.
    Optics {
        Auto = "auto",
        Bowl = "bowl",
        Projector = "projector",
        Twin = "twin",
        Cells = "cells",
    }
);

impl Optics {
    /// The insides drawn for `self` in a lamp with signature `drl`, of a
    /// design of `era` (`Params::era`), `height` metres tall: plain lamps
    /// hold a bowl; before 2012 a projector (on a silver housing, see
    /// [`Optics::silver_housing`]); from 2012 a slim lamp (under 9 cm)
    /// holds a row of LED cells and a deeper one a projector.
    pub fn resolve(self, drl: Drl, era: f32, height: f32) -> Optics {
        match self {
            Optics::Auto if drl == Drl::None => Optics::Bowl,
            Optics::Auto if !Self::silver_housing(era) && height < 0.09 => Optics::Cells,
            Optics::Auto => Optics::Projector,
            o => o,
        }
    }

    /// Whether the housing round the insides is a silver reflector (lamps
    /// designed before 2012: chrome-lined, before tinted housings) rather
    /// than the dark of later lamps.
    pub fn silver_housing(era: f32) -> bool {
        era < super::params::era_of(2012)
    }
}

vocabulary!(
    /// Lower intakes in the front bumper.
    Intakes {
        Auto = "auto",
        None = "none",
        Corners = "corners",
        Wide = "wide",
        Triple = "triple",
    }
);

vocabulary!(
    /// Tail-lamp graphic.
    Tail {
        Auto = "auto",
        Rect = "rect",
        Bar = "bar",
        Vertical = "vertical",
        Round = "round",
        TwinRound = "twin-round",
        TriBar = "tri-bar",
        L = "l",
        C = "c",
        Slim = "slim",
        Square = "square",
        Outline = "outline",
    }
);

/// What a face row says about one generation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Face {
    pub headlamp: Option<Headlamp>,
    pub drl: Drl,
    /// `Optics::Auto`: resolved from the signature, era and lamp size.
    pub optics: Optics,
    pub grille: Option<Grille>,
    /// `Intakes::Auto`: the default for the grille and engine.
    pub intakes: Intakes,
    /// `Tail::Auto`: the tail from the identity row's features.
    pub tail: Tail,
}

/// One row of `models/faces.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceRow {
    pub make: String,
    /// Model slugs; empty for every model of the make (`*`).
    pub models: Vec<String>,
    pub from: u16,
    pub to: u16,
    pub face: Face,
    pub line: usize,
}

fn keep<T: FromStr<Err = String>>(s: &str) -> Result<Option<T>, String> {
    if s == "-" {
        Ok(None)
    } else {
        s.parse().map(Some)
    }
}

/// Every face row, in file order.
#[derive(Debug, Clone, Default)]
pub struct FaceTable {
    rows: Vec<FaceRow>,
}

impl FaceTable {
    pub fn embedded() -> FaceTable {
        // The embedded table is checked by tests; failing here is a build defect.
        FaceTable::parse(EMBEDDED).expect("embedded models/faces.csv parses")
    }

    pub fn parse(text: &str) -> Result<FaceTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("faces.csv", text, &COLUMNS)? {
            let at = |e: String| format!("faces.csv line {line}: {e}");
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
            let face = Face {
                headlamp: keep(cols[4]).map_err(at)?,
                drl: cols[5].parse().map_err(at)?,
                optics: keep(cols[6]).map_err(at)?.unwrap_or_default(),
                grille: keep(cols[7]).map_err(at)?,
                intakes: keep(cols[8]).map_err(at)?.unwrap_or_default(),
                tail: keep(cols[9]).map_err(at)?.unwrap_or_default(),
            };
            rows.push(FaceRow {
                make: cols[0].to_owned(),
                models,
                from,
                to,
                face,
                line,
            });
        }
        Ok(FaceTable { rows })
    }

    pub fn rows(&self) -> &[FaceRow] {
        &self.rows
    }

    /// The face of a model whose design dates from `year` (a curated
    /// generation's launch year, else the model year): the first row
    /// naming the model, else the first `*` row of its make.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<Face> {
        let fits = |r: &&FaceRow| r.make == make && (r.from..=r.to).contains(&year);
        self.rows
            .iter()
            .filter(fits)
            .find(|r| r.models.iter().any(|m| m == model))
            .or_else(|| self.rows.iter().filter(fits).find(|r| r.models.is_empty()))
            .map(|r| r.face)
    }
}

/// The embedded side-profile table.
pub const PROFILES: &str = include_str!("../../../models/profiles.csv");

/// The columns of `models/profiles.csv`.
pub const PROFILE_COLUMNS: [&str; 15] = [
    "make", "model", "from", "to", "cowl", "ws_rake", "bl_rake", "tail", "belt", "dlo", "nose",
    "edge", "crown", "arc", "note",
];

/// Side-profile control values of one generation (`models/profiles.csv`,
/// docs/rendering.md, "Side profiles"): where the shared shell misleads,
/// these replace what `Params::derive` worked out. `None` keeps it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Profile {
    /// Windshield foot behind the nose, a fraction of the length.
    pub cowl: Option<f32>,
    /// Windshield rake, degrees from horizontal.
    pub ws_rake: Option<f32>,
    /// Rear glass rake, degrees from horizontal.
    pub bl_rake: Option<f32>,
    /// Rear glass foot ahead of the tail, a fraction of the length.
    pub tail: Option<f32>,
    /// Beltline, a fraction of the height.
    pub belt: Option<f32>,
    /// Rear end of the side glass (daylight opening) along the
    /// glasshouse's side, -1 (rear) .. 1 (front).
    pub dlo: Option<f32>,
    /// Height of the bonnet at the nose, a fraction of the height (the
    /// Cybertruck's bonnet rises in one line into its windshield).
    pub nose: Option<f32>,
    /// The roof's edge radius over the windshield and the rear glass,
    /// metres: 0 is a crease where flat glass meets the roof, and the
    /// glasses meet at an apex (the Cybertruck's).
    pub edge: Option<f32>,
    /// Where the roof crowns, a share of the way from the windshield's
    /// top to the rear glass's.
    pub crown: Option<f32>,
    /// How far the roof falls from its crown to the rear glass's top, a
    /// share of the side glass's height (0: a level roof).
    pub arc: Option<f32>,
}

/// One row of `models/profiles.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    pub make: String,
    pub model: String,
    pub from: u16,
    pub to: u16,
    pub profile: Profile,
}

/// Every side-profile row.
#[derive(Debug, Clone, Default)]
pub struct ProfileTable {
    rows: Vec<ProfileRow>,
}

impl ProfileTable {
    pub fn embedded() -> ProfileTable {
        // Checked by tests; failing here is a build defect.
        ProfileTable::parse(PROFILES).expect("embedded models/profiles.csv parses")
    }

    pub fn parse(text: &str) -> Result<ProfileTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("profiles.csv", text, &PROFILE_COLUMNS)? {
            let at = |e: String| format!("profiles.csv line {line}: {e}");
            if cols[0].is_empty() || cols[1].is_empty() {
                return Err(at("make and model may not be empty".into()));
            }
            let year = |i: usize| {
                cols[i]
                    .parse::<u16>()
                    .ok()
                    .filter(|y| (1950..=2030).contains(y))
                    .ok_or_else(|| {
                        at(format!(
                            "{} {:?}: a year 1950-2030",
                            PROFILE_COLUMNS[i], cols[i]
                        ))
                    })
            };
            let num = |i: usize, lo: f32, hi: f32| -> Result<Option<f32>, String> {
                if cols[i] == "-" {
                    return Ok(None);
                }
                cols[i]
                    .parse::<f32>()
                    .ok()
                    .filter(|x| (lo..=hi).contains(x))
                    .map(Some)
                    .ok_or_else(|| {
                        at(format!(
                            "{} {:?}: `-` or a number {lo} to {hi}",
                            PROFILE_COLUMNS[i], cols[i]
                        ))
                    })
            };
            let (from, to) = (year(2)?, year(3)?);
            if from > to {
                return Err(at(format!("years {from}..{to} run backwards")));
            }
            let profile = Profile {
                cowl: num(4, 0.05, 0.6)?,
                ws_rake: num(5, 15.0, 80.0)?,
                bl_rake: num(6, 8.0, 88.0)?,
                tail: num(7, 0.0, 0.4)?,
                belt: num(8, 0.4, 0.85)?,
                dlo: num(9, -1.0, 1.0)?,
                nose: num(10, 0.2, 0.85)?,
                edge: num(11, 0.0, 0.3)?,
                crown: num(12, 0.1, 0.9)?,
                arc: num(13, 0.0, 0.4)?,
            };
            rows.push(ProfileRow {
                make: cols[0].to_owned(),
                model: cols[1].to_owned(),
                from,
                to,
                profile,
            });
        }
        Ok(ProfileTable { rows })
    }

    pub fn rows(&self) -> &[ProfileRow] {
        &self.rows
    }

    /// The profile of a curated generation launched in `year`.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<Profile> {
        self.rows
            .iter()
            .find(|r| r.make == make && r.model == model && (r.from..=r.to).contains(&year))
            .map(|r| r.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "make,models,from,to,headlamp,drl,optics,grille,intakes,tail,note\n";

    #[test]
    fn rows_parse_and_the_model_row_wins() {
        let t = FaceTable::parse(&format!(
            "# c\n{HEAD}bmw,*,2000,2026,-,rings,-,kidney,-,l,twin rings\n\
             bmw,i3,2013,2022,slim,strip,cells,closed,none,-,blanked\n"
        ))
        .unwrap();
        assert_eq!(t.rows().len(), 2);
        let x5 = t.lookup("bmw", "x5", 2019).unwrap();
        assert_eq!(x5.drl, Drl::Rings);
        assert_eq!(x5.grille, Some(Grille::Kidney));
        assert_eq!(x5.headlamp, None);
        assert_eq!(x5.intakes, Intakes::Auto);
        assert_eq!(x5.tail, Tail::L);
        assert_eq!(x5.optics, Optics::Auto);
        let i3 = t.lookup("bmw", "i3", 2016).unwrap();
        assert_eq!(i3.grille, Some(Grille::Closed));
        assert_eq!(i3.headlamp, Some(Headlamp::Slim));
        assert_eq!(i3.tail, Tail::Auto);
        assert_eq!(i3.optics, Optics::Cells);
        assert_eq!(t.lookup("bmw", "x5", 1995), None);
        assert_eq!(t.lookup("audi", "a4", 2019), None);
    }

    #[test]
    fn bad_rows_name_the_column() {
        let ok = "bmw,*,2000,2026,-,rings,twin,kidney,-,l,x";
        assert!(FaceTable::parse(&format!("{HEAD}{ok}\n")).is_ok());
        for (bad, want) in [
            (ok.replace(",rings,", ",stars,"), "drl"),
            (ok.replace(",twin,", ",dots,"), "optics"),
            (ok.replace(",kidney,", ",grid,"), "grille"),
            (ok.replace(",l,x", ",zigzag,x"), "tail"),
            (ok.replace(",-,rings", ",cube,rings"), "headlamp"),
            (ok.replace(",kidney,-,", ",kidney,some,"), "intakes"),
            (ok.replace("2000,2026", "2026,2000"), "backwards"),
            (ok.replace("2000,", "20,"), "year"),
            (ok.replace(",*,", ",x5+,"), "models"),
            (format!("{ok},more"), "fields"),
        ] {
            let e = FaceTable::parse(&format!("{HEAD}{bad}\n")).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
        assert!(FaceTable::parse("make,models\n").is_err());
        assert!(FaceTable::parse("").is_err());
    }

    #[test]
    fn profiles_parse_with_ranges_checked() {
        let head = PROFILE_COLUMNS.join(",");
        let ok = "tesla,cybertruck,2019,2026,0.3,-,17,0.01,0.7,-0.2,0.55,0,0.35,-,wedge";
        let t = ProfileTable::parse(&format!("{head}\n{ok}\n")).unwrap();
        let p = t.lookup("tesla", "cybertruck", 2024).unwrap();
        assert_eq!(p.cowl, Some(0.3));
        assert_eq!(p.ws_rake, None);
        assert_eq!(p.bl_rake, Some(17.0));
        assert_eq!(p.dlo, Some(-0.2));
        assert_eq!(p.nose, Some(0.55));
        assert_eq!(p.edge, Some(0.0));
        assert_eq!(p.crown, Some(0.35));
        assert_eq!(p.arc, None);
        assert_eq!(t.lookup("tesla", "cybertruck", 2018), None);
        assert_eq!(t.lookup("tesla", "model-3", 2024), None);
        for (bad, want) in [
            (ok.replace(",0.3,", ",3,"), "cowl"),
            (ok.replace(",17,", ",90,"), "bl_rake"),
            (ok.replace(",0.7,", ",x,"), "belt"),
            (ok.replace(",0.55,", ",0.95,"), "nose"),
            (ok.replace(",0,0.35,", ",0.5,0.35,"), "edge"),
            (ok.replace(",0.35,-,", ",0.95,-,"), "crown"),
            (ok.replace(",0.35,-,", ",0.35,0.5,"), "arc"),
            (ok.replace("2019,2026", "2026,2019"), "backwards"),
            (format!("{ok},x"), "fields"),
        ] {
            let e = ProfileTable::parse(&format!("{head}\n{bad}\n")).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
