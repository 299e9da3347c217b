//! Curated vehicle identity: real dimensions and silhouette cues per model
//! generation, from `models/identity/<make>.csv` (docs/rendering.md,
//! "Identity data"). The files are embedded at build time (`build.rs`) and
//! can be loaded from a directory instead, like the shape files.
//!
//! One row is one generation of one model:
//!
//! ```text
//! model,generation,from,to,body,doors,length,width,height,wheelbase,roofline,engine,
//! bonnet,deck,glasshouse,cab,headlamp,grille,wheel,features,source
//! ```
//!
//! Fields are separated by commas and may not contain one; `#` starts a
//! comment line. Dimensions are millimetres, `wheel` is the wheel diameter
//! in inches, `features` is `-` or tokens joined with `+`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use vis_protocol::BodyShape;

use crate::RenderError;

include!(concat!(env!("OUT_DIR"), "/identity_files.rs"));

/// The column names, in order.
pub const COLUMNS: [&str; 21] = [
    "model",
    "generation",
    "from",
    "to",
    "body",
    "doors",
    "length",
    "width",
    "height",
    "wheelbase",
    "roofline",
    "engine",
    "bonnet",
    "deck",
    "glasshouse",
    "cab",
    "headlamp",
    "grille",
    "wheel",
    "features",
    "source",
];

/// Declares a closed vocabulary: an enum with its spellings in the files
/// (the first variant is its default). `faces.rs` uses it too.
macro_rules! vocabulary {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub enum $name { #[default] $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn id(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(format!(
                        "{} {s:?} is not one of {}",
                        stringify!($name).to_lowercase(),
                        [$($text),+].join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.id())
            }
        }
    };
}
pub(crate) use vocabulary;

vocabulary!(
    /// Profile of the roof and tail.
    Roofline {
        Notchback = "notchback",
        Fastback = "fastback",
        Dome = "dome",
        Hatch = "hatch",
        Wagon = "wagon",
        Boxy = "boxy",
        Open = "open",
        Cab = "cab",
        OneBox = "one-box",
    }
);

vocabulary!(
    /// Where the engine sits (front: ahead of the cabin; mid: behind the
    /// seats; rear: behind the rear axle).
    Engine {
        Front = "front",
        Mid = "mid",
        Rear = "rear",
    }
);

vocabulary!(
    /// Bonnet length, relative to the car's size.
    Bonnet {
        Short = "short",
        Medium = "medium",
        Long = "long",
    }
);

vocabulary!(
    /// Rear deck behind the rear glass (a notchback's boot, a mid-engined
    /// car's engine cover).
    Deck {
        None = "none",
        Short = "short",
        Medium = "medium",
        Long = "long",
    }
);

vocabulary!(
    /// Side window height relative to the body.
    Glasshouse {
        Low = "low",
        Medium = "medium",
        Tall = "tall",
    }
);

vocabulary!(
    /// Pickup cab (`-` in the file for everything else).
    CabStyle {
        Regular = "regular",
        Extended = "extended",
        Crew = "crew",
    }
);

vocabulary!(
    /// Head lamp outline.
    Headlamp {
        Round = "round",
        TwinRound = "twin-round",
        Oval = "oval",
        Rect = "rect",
        Swept = "swept",
        Slim = "slim",
        Split = "split",
        PopUp = "pop-up",
        LightBar = "light-bar",
        Square = "square",
    }
);

vocabulary!(
    /// Grille shape.
    Grille {
        None = "none",
        Slot = "slot",
        Wide = "wide",
        Tall = "tall",
        Kidney = "kidney",
        SevenSlot = "seven-slot",
        Shield = "shield",
        Spindle = "spindle",
        Hexagon = "hexagon",
        Bar = "bar",
        Mesh = "mesh",
        Oval = "oval",
        Intakes = "intakes",
        Frame = "frame",
        Closed = "closed",
        SplitBar = "split-bar",
        Crosshair = "crosshair",
        Waterfall = "waterfall",
        Horizontal = "horizontal",
        Wing = "wing",
        Mouth = "mouth",
        Trapezoid = "trapezoid",
    }
);

vocabulary!(
    /// Distinctive features (a set per generation).
    Feature {
        SpareWheel = "spare-wheel",
        FlaredArches = "flared-arches",
        RearSpoiler = "rear-spoiler",
        Wing = "wing",
        RoofRails = "roof-rails",
        SideSteps = "side-steps",
        HoodScoop = "hood-scoop",
        SideIntakes = "side-intakes",
        ContrastRoof = "contrast-roof",
        RoundTailLamps = "round-tail-lamps",
        TailBar = "tail-bar",
        VerticalTailLamps = "vertical-tail-lamps",
        ChromeBumpers = "chrome-bumpers",
        BlackBumpers = "black-bumpers",
        WheelSkirts = "wheel-skirts",
        Classic = "classic",
        RaisedWings = "raised-wings",
        GlassRoof = "glass-roof",
        TriBarTailLamps = "tri-bar-tail-lamps",
        TwoTone = "two-tone",
        HiddenExhaust = "hidden-exhaust",
        PontoonWings = "pontoon-wings",
        SquareArches = "square-arches",
        TrapezoidArches = "trapezoid-arches",
    }
);

/// A set of [`Feature`]s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Features {
    pub fn has(self, f: Feature) -> bool {
        self.0 & (1 << f as u32) != 0
    }

    pub fn with(self, f: Feature) -> Features {
        Features(self.0 | (1 << f as u32))
    }

    pub fn without(self, f: Feature) -> Features {
        Features(self.0 & !(1 << f as u32))
    }

    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |f| self.has(*f))
    }
}

impl FromStr for Features {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "-" {
            return Ok(Features::default());
        }
        let mut set = Features::default();
        for token in s.split('+') {
            let f: Feature = token.parse()?;
            if set.has(f) {
                return Err(format!("feature {token:?} listed twice"));
            }
            set = set.with(f);
        }
        Ok(set)
    }
}

/// The cues that shape a body, curated or drawn from the era's norms.
#[derive(Debug, Clone, PartialEq)]
pub struct Cues {
    pub roofline: Roofline,
    pub engine: Engine,
    pub bonnet: Bonnet,
    pub deck: Deck,
    pub glasshouse: Glasshouse,
    pub cab: Option<CabStyle>,
    pub headlamp: Headlamp,
    pub grille: Grille,
    /// Wheel (rim) diameter, inches.
    pub wheel_in: u8,
    pub features: Features,
    /// Side doors (2 or 4; the tailgate is not counted).
    pub doors: u8,
}

impl Cues {
    /// A fastback over a rear engine (the 911): its roof is one sweep from
    /// a short crown over the engine lid to the tail.
    pub fn rear_fastback(&self) -> bool {
        self.roofline == Roofline::Fastback && self.engine == Engine::Rear
    }
}

/// One generation of one model, as curated.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub make: String,
    pub model: String,
    pub code: String,
    pub from: u16,
    pub to: u16,
    pub body: BodyShape,
    /// Overall length, width (without mirrors), height and wheelbase, mm.
    pub length_mm: u16,
    pub width_mm: u16,
    pub height_mm: u16,
    pub wheelbase_mm: u16,
    pub cues: Cues,
    /// The public specification the figures come from.
    pub source: String,
}

impl Generation {
    /// Years of the generation, inclusive.
    pub fn contains(&self, year: u16) -> bool {
        (self.from..=self.to).contains(&year)
    }

    /// Distance in years from the generation's range (0 inside it).
    pub fn distance(&self, year: u16) -> u16 {
        if year < self.from {
            self.from - year
        } else {
            year.saturating_sub(self.to)
        }
    }
}

/// Body styles the identity files may name (cars and light trucks).
pub const BODIES: [BodyShape; 10] = [
    BodyShape::Sedan,
    BodyShape::Coupe,
    BodyShape::Convertible,
    BodyShape::Hatchback,
    BodyShape::Wagon,
    BodyShape::Suv,
    BodyShape::Crossover,
    BodyShape::Pickup,
    BodyShape::Minivan,
    BodyShape::Van,
];

fn field<T: FromStr>(cols: &[&str], i: usize) -> Result<T, String>
where
    T::Err: fmt::Display,
{
    cols[i]
        .parse()
        .map_err(|e| format!("{} {:?}: {e}", COLUMNS[i], cols[i]))
}

/// The data rows of one of `models/`'s CSV files, with their 1-based line
/// numbers: blank lines and `#` comments skipped, the header checked
/// against `columns`, every row checked to have as many fields. `file`
/// names the file in errors.
pub(crate) fn csv_records<'a>(
    file: &str,
    text: &'a str,
    columns: &[&str],
) -> Result<Vec<(usize, Vec<&'a str>)>, String> {
    let mut out = Vec::new();
    let mut header_seen = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("{file} line {}: {e}", n + 1);
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header_seen {
            if cols != columns {
                return Err(at(format!("the header must be {}", columns.join(","))));
            }
            header_seen = true;
            continue;
        }
        if cols.len() != columns.len() {
            return Err(at(format!(
                "{} fields, want {} (no commas inside a field)",
                cols.len(),
                columns.len()
            )));
        }
        out.push((n + 1, cols));
    }
    if !header_seen {
        return Err(format!("{file}: no header line"));
    }
    Ok(out)
}

/// Parses one make's file.
pub fn parse_file(make: &str, text: &str) -> Result<Vec<Generation>, String> {
    let mut out = Vec::new();
    let file = format!("{make}.csv");
    for (line, cols) in csv_records(&file, text, &COLUMNS)? {
        let at = |e: String| format!("{file} line {line}: {e}");
        let body: BodyShape = field(&cols, 4).map_err(at)?;
        if !BODIES.contains(&body) {
            return Err(at(format!("body {body} is not a car or light truck")));
        }
        let cab = match cols[15] {
            "-" => None,
            _ => Some(field::<CabStyle>(&cols, 15).map_err(at)?),
        };
        if (body == BodyShape::Pickup) != cab.is_some() {
            return Err(at(
                "a cab style is given for pickups and only for them".into()
            ));
        }
        let doors: u8 = field(&cols, 5).map_err(at)?;
        if doors != 2 && doors != 4 {
            return Err(at(format!("doors {doors}: 2 or 4 side doors")));
        }
        let wheel_in: u8 = field(&cols, 18).map_err(at)?;
        if !(10..=24).contains(&wheel_in) {
            return Err(at(format!("wheel {wheel_in} in: want 10 to 24")));
        }
        for (i, what) in [(0, "model"), (1, "generation"), (20, "source")] {
            if cols[i].is_empty() {
                return Err(at(format!("{what} is empty")));
            }
        }
        let g = Generation {
            make: make.to_owned(),
            model: cols[0].to_owned(),
            code: cols[1].to_owned(),
            from: field(&cols, 2).map_err(at)?,
            to: field(&cols, 3).map_err(at)?,
            body,
            length_mm: field(&cols, 6).map_err(at)?,
            width_mm: field(&cols, 7).map_err(at)?,
            height_mm: field(&cols, 8).map_err(at)?,
            wheelbase_mm: field(&cols, 9).map_err(at)?,
            cues: Cues {
                roofline: field(&cols, 10).map_err(at)?,
                engine: field(&cols, 11).map_err(at)?,
                bonnet: field(&cols, 12).map_err(at)?,
                deck: field(&cols, 13).map_err(at)?,
                glasshouse: field(&cols, 14).map_err(at)?,
                cab,
                headlamp: field(&cols, 16).map_err(at)?,
                grille: field(&cols, 17).map_err(at)?,
                wheel_in,
                features: field(&cols, 19).map_err(at)?,
                doors,
            },
            source: cols[20].to_owned(),
        };
        if g.from > g.to {
            return Err(at(format!("years {}..{} run backwards", g.from, g.to)));
        }
        out.push(g);
    }
    Ok(out)
}

/// Every curated generation, by (make, model), each model's generations
/// ordered by year.
#[derive(Debug, Clone, Default)]
pub struct IdentityLibrary {
    models: BTreeMap<(String, String), Vec<Generation>>,
}

impl IdentityLibrary {
    /// The files compiled into the binary.
    pub fn embedded() -> IdentityLibrary {
        let sources: Vec<(String, String)> = IDENTITY_FILES
            .iter()
            .map(|(m, t)| ((*m).to_owned(), (*t).to_owned()))
            .collect();
        // The embedded files are checked by tests; failing here is a build defect.
        Self::parse(&sources).expect("embedded models/identity parse")
    }

    /// Loads every `<dir>/*.csv` (the file stem is the make's slug); an
    /// absent directory is an empty library.
    pub fn load_dir(dir: &Path) -> Result<IdentityLibrary, RenderError> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(IdentityLibrary::default());
        };
        let mut sources = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|e| RenderError::Models(format!("{}: {e}", dir.display())))?
                .path();
            if path.extension().is_none_or(|x| x != "csv") {
                continue;
            }
            let make = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_owned();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| RenderError::Models(format!("{}: {e}", path.display())))?;
            sources.push((make, text));
        }
        sources.sort();
        Self::parse(&sources)
    }

    fn parse(sources: &[(String, String)]) -> Result<IdentityLibrary, RenderError> {
        let mut models: BTreeMap<(String, String), Vec<Generation>> = BTreeMap::new();
        for (make, text) in sources {
            for g in parse_file(make, text).map_err(RenderError::Models)? {
                models
                    .entry((g.make.clone(), g.model.clone()))
                    .or_default()
                    .push(g);
            }
        }
        for ((make, model), gens) in &mut models {
            gens.sort_by_key(|g| g.from);
            for w in gens.windows(2) {
                if w[1].from <= w[0].to {
                    return Err(RenderError::Models(format!(
                        "{make}/{model}: generations {} ({}-{}) and {} ({}-{}) overlap",
                        w[0].code, w[0].from, w[0].to, w[1].code, w[1].from, w[1].to
                    )));
                }
            }
        }
        Ok(IdentityLibrary { models })
    }

    /// The generation a model year belongs to: the one whose years contain
    /// it, else the nearest (ties go to the later one), so a catalog year
    /// just outside the curated ranges still gets its model's body.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<&Generation> {
        let gens = self.models.get(&(make.to_owned(), model.to_owned()))?;
        gens.iter()
            .min_by_key(|g| (g.distance(year), std::cmp::Reverse(g.from)))
    }

    /// The norms of a body style in a model year: curated front-engined
    /// generations of that body on sale within a few years of it (the
    /// window widens until it holds at least six), in file order.
    pub fn era_norms(&self, body: BodyShape, year: u16) -> Vec<&Generation> {
        let mut out = Vec::new();
        for reach in [3u16, 6, 10, 40] {
            out = self
                .generations()
                .filter(|g| {
                    g.body == body
                        && g.cues.engine == Engine::Front
                        // A military-width truck (the Hummer H1) is no
                        // size class another model shares.
                        && g.width_mm <= 2150
                        && g.from <= year + reach
                        && g.to + reach >= year
                })
                .collect();
            if out.len() >= 6 {
                break;
            }
        }
        out
    }

    /// Every generation of every model.
    pub fn generations(&self) -> impl Iterator<Item = &Generation> {
        self.models.values().flatten()
    }

    /// (make, model) pairs with curated data.
    pub fn models(&self) -> impl Iterator<Item = (&str, &str)> {
        self.models.keys().map(|(a, b)| (a.as_str(), b.as_str()))
    }

    pub fn model_count(&self) -> usize {
        self.models.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "model,generation,from,to,body,doors,length,width,height,wheelbase,roofline,engine,bonnet,deck,glasshouse,cab,headlamp,grille,wheel,features,source\n";

    #[test]
    fn a_row_parses_into_its_fields() {
        let text = format!(
            "# comment\n{HEAD}wrangler,JL,2018,2026,suv,4,4785,1875,1868,3008,boxy,front,medium,none,low,-,round,seven-slot,17,spare-wheel+flared-arches,Jeep 2018 Wrangler Unlimited specifications\n"
        );
        let gens = parse_file("jeep", &text).unwrap();
        assert_eq!(gens.len(), 1);
        let g = &gens[0];
        assert_eq!((g.make.as_str(), g.model.as_str()), ("jeep", "wrangler"));
        assert_eq!((g.from, g.to, g.body), (2018, 2026, BodyShape::Suv));
        assert_eq!(g.length_mm, 4785);
        assert_eq!(g.cues.headlamp, Headlamp::Round);
        assert_eq!(g.cues.grille, Grille::SevenSlot);
        assert!(g.cues.features.has(Feature::SpareWheel));
        assert!(g.cues.features.has(Feature::FlaredArches));
        assert!(!g.cues.features.has(Feature::Wing));
    }

    #[test]
    fn bad_values_are_refused_with_the_column_named() {
        let row = |s: &str| format!("{HEAD}{s}\n");
        let ok = "a,G1,2000,2005,sedan,4,4500,1800,1450,2700,notchback,front,medium,medium,medium,-,rect,slot,16,-,Spec";
        assert!(parse_file("x", &row(ok)).is_ok());
        for (bad, want) in [
            (ok.replace(",rect,", ",triangle,"), "headlamp"),
            (ok.replace(",sedan,", ",bus,"), "body"),
            (ok.replace(",16,-,", ",16,wings,"), "features"),
            (ok.replace(",-,rect", ",crew,rect"), "cab"),
            (ok.replace("2000,2005", "2005,2000"), "backwards"),
            (ok.replace(",Spec", ",Spec,extra"), "fields"),
            (ok.replace(",4,4500", ",3,4500"), "doors"),
        ] {
            let e = parse_file("x", &row(&bad)).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
        assert!(parse_file("x", "model,generation\n").is_err());
    }

    #[test]
    fn lookup_picks_the_generation_of_the_year_or_the_nearest() {
        let text = format!(
            "{HEAD}m,A,1990,1999,sedan,4,4500,1700,1400,2600,notchback,front,medium,medium,tall,-,rect,slot,14,-,S\n\
             m,B,2005,2010,sedan,4,4700,1800,1450,2750,notchback,front,medium,medium,medium,-,swept,wide,17,-,S\n"
        );
        let lib = IdentityLibrary::parse(&[("mk".into(), text)]).unwrap();
        let code = |y| lib.lookup("mk", "m", y).map(|g| g.code.as_str());
        assert_eq!(code(1995), Some("A"));
        assert_eq!(code(2007), Some("B"));
        assert_eq!(code(2001), Some("A"));
        assert_eq!(code(2003), Some("B"));
        assert_eq!(code(2026), Some("B"));
        assert_eq!(lib.lookup("mk", "other", 2000), None);
    }

    #[test]
    fn overlapping_generations_are_refused() {
        let text = format!(
            "{HEAD}m,A,1990,2000,sedan,4,4500,1700,1400,2600,notchback,front,medium,medium,tall,-,rect,slot,14,-,S\n\
             m,B,2000,2010,sedan,4,4700,1800,1450,2750,notchback,front,medium,medium,medium,-,swept,wide,17,-,S\n"
        );
        let e = IdentityLibrary::parse(&[("mk".into(), text)]).unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
    }
}
