//! View, Color, Format and SizePreset of spec §2.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value that is not one of an enumeration's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value:?} is not a valid {kind}; expected one of: {expected}")]
pub struct ParseError {
    pub kind: &'static str,
    pub value: String,
    pub expected: String,
}

macro_rules! enum_serde {
    ($ty:ty) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.id())
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(d)?;
                raw.parse().map_err(serde::de::Error::custom)
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.id())
            }
        }
        impl FromStr for $ty {
            type Err = ParseError;
            fn from_str(raw: &str) -> Result<Self, ParseError> {
                let wanted = raw.trim().to_ascii_lowercase();
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.id() == wanted || v.aliases().contains(&wanted.as_str()))
                    .ok_or_else(|| ParseError {
                        kind: Self::KIND,
                        value: raw.to_owned(),
                        expected: Self::ALL
                            .iter()
                            .map(|v| v.id())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            }
        }
    };
}

/// A camera view (spec §2, View, and beyond it): one of the six named
/// studio views, the view from directly above, or a turntable angle on the
/// 15° grid. Default `front-3-4`.
///
/// The named views are framed as a set (one scale for the six, tuned for
/// fill); the 24 angles share one scale for the whole turn, so a spin does
/// not breathe. `angle-90` and `side` are therefore two variants of the
/// same direction, a few percent apart in size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum View {
    Front,
    #[default]
    Front34,
    Side,
    SideRight,
    Rear,
    Rear34,
    /// From directly above, nose pointing left (as in `side`).
    Top,
    /// A turntable angle: degrees around the vehicle from the nose, 90 the
    /// driver's (left) side, as the named views' yaws.
    Angle(Angle),
}

/// A turntable angle: 0 to 345 degrees in steps of 15 (0 = the nose, 90 =
/// the left side, 180 = the tail). Only valid angles can be constructed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Angle(u16);

impl Angle {
    /// Degrees between two angles of the grid.
    pub const STEP: u16 = 15;
    /// Angles in a full turn (a spin's frames).
    pub const COUNT: usize = 24;
    /// The largest angle.
    pub const MAX: u16 = 345;

    /// `Some` for 0 to 345 in steps of 15.
    pub fn new(degrees: u16) -> Option<Angle> {
        (degrees <= Self::MAX && degrees.is_multiple_of(Self::STEP)).then_some(Angle(degrees))
    }

    pub fn degrees(self) -> u16 {
        self.0
    }

    /// Every angle of a turn, from 0.
    pub fn turn() -> impl Iterator<Item = Angle> {
        (0..Self::COUNT as u16).map(|i| Angle(i * Self::STEP))
    }

    /// The view's text form: `angle-30`.
    pub fn id(self) -> &'static str {
        ANGLE_IDS[usize::from(self.0 / Self::STEP)]
    }
}

const ANGLE_IDS: [&str; Angle::COUNT] = [
    "angle-0",
    "angle-15",
    "angle-30",
    "angle-45",
    "angle-60",
    "angle-75",
    "angle-90",
    "angle-105",
    "angle-120",
    "angle-135",
    "angle-150",
    "angle-165",
    "angle-180",
    "angle-195",
    "angle-210",
    "angle-225",
    "angle-240",
    "angle-255",
    "angle-270",
    "angle-285",
    "angle-300",
    "angle-315",
    "angle-330",
    "angle-345",
];

impl View {
    /// The six studio views of spec §2.
    pub const ALL: [View; 6] = [
        View::Front,
        View::Front34,
        View::Side,
        View::SideRight,
        View::Rear,
        View::Rear34,
    ];
    /// Every view with a name: the six and `top`.
    pub const NAMED: [View; 7] = [
        View::Front,
        View::Front34,
        View::Side,
        View::SideRight,
        View::Rear,
        View::Rear34,
        View::Top,
    ];
    const KIND: &'static str = "view";

    /// Every view: the named ones, then the turn's angles.
    pub fn every() -> impl Iterator<Item = View> {
        View::NAMED
            .into_iter()
            .chain(Angle::turn().map(View::Angle))
    }

    pub fn id(self) -> &'static str {
        match self {
            View::Front => "front",
            View::Front34 => "front-3-4",
            View::Side => "side",
            View::SideRight => "side-right",
            View::Rear => "rear",
            View::Rear34 => "rear-3-4",
            View::Top => "top",
            View::Angle(a) => a.id(),
        }
    }

    /// Camera yaw around the vehicle, degrees; 0 looks at the nose, 90 sees the
    /// driver's (left) side with the nose pointing left. `top` looks down
    /// with the nose pointing left, as `side` would if the camera rose.
    pub fn yaw_degrees(self) -> u16 {
        match self {
            View::Front => 0,
            View::Front34 => 35,
            View::Side | View::Top => 90,
            View::SideRight => 270,
            View::Rear => 180,
            View::Rear34 => 145,
            View::Angle(a) => a.degrees(),
        }
    }

    /// The turntable angle, for an angle view.
    pub fn angle(self) -> Option<Angle> {
        match self {
            View::Angle(a) => Some(a),
            _ => None,
        }
    }

    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            View::Front34 => &["front34", "hero"],
            View::Side => &["side-left", "profile"],
            View::SideRight => &["side-r"],
            View::Rear => &["back"],
            View::Rear34 => &["rear34"],
            View::Top => &["overhead"],
            View::Front | View::Angle(_) => &[],
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            View::Front => "Front",
            View::Front34 => "Front three-quarter",
            View::Side => "Side (left)",
            View::SideRight => "Side (right)",
            View::Rear => "Rear",
            View::Rear34 => "Rear three-quarter",
            View::Top => "Top",
            View::Angle(_) => "Angle",
        }
    }

    /// What the view shows, in words (an angle by the quarter it falls in).
    pub fn description(self) -> &'static str {
        match self {
            View::Front => "straight-on front",
            View::Front34 => "front and driver's side",
            View::Side => "side profile, nose pointing left",
            View::SideRight => "side profile, nose pointing right",
            View::Rear => "straight-on rear",
            View::Rear34 => "rear and driver's side",
            View::Top => "from directly above, nose pointing left",
            View::Angle(a) => match a.degrees() {
                0 => "straight-on front",
                90 => "left side",
                180 => "straight-on rear",
                270 => "right side",
                d if d < 90 => "front and left side",
                d if d < 180 => "rear and left side",
                d if d < 270 => "rear and right side",
                _ => "front and right side",
            },
        }
    }
}

impl Serialize for View {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for View {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for View {
    type Err = ParseError;

    /// A named view or alias (any case), or an angle's text form
    /// `angle-30` (what responses name an angle's view).
    fn from_str(raw: &str) -> Result<Self, ParseError> {
        let wanted = raw.trim().to_ascii_lowercase();
        if let Some(v) = View::NAMED
            .into_iter()
            .find(|v| v.id() == wanted || v.aliases().contains(&wanted.as_str()))
        {
            return Ok(v);
        }
        wanted
            .strip_prefix("angle-")
            .filter(|d| !d.is_empty() && d.len() <= 3 && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse().ok())
            .and_then(Angle::new)
            .filter(|a| a.id() == wanted)
            .map(View::Angle)
            .ok_or_else(|| ParseError {
                kind: Self::KIND,
                value: raw.to_owned(),
                expected: View::NAMED
                    .iter()
                    .map(|v| v.id())
                    .chain(["angle-0 to angle-345 in steps of 15"])
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// One of the fifteen preset paint colours (spec §2, Color). Default `silver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Color {
    White,
    Black,
    Gray,
    #[default]
    Silver,
    Blue,
    Red,
    Green,
    Brown,
    Beige,
    Tan,
    Orange,
    Yellow,
    Gold,
    Burgundy,
    Purple,
}

impl Color {
    pub const ALL: [Color; 15] = [
        Color::White,
        Color::Black,
        Color::Gray,
        Color::Silver,
        Color::Blue,
        Color::Red,
        Color::Green,
        Color::Brown,
        Color::Beige,
        Color::Tan,
        Color::Orange,
        Color::Yellow,
        Color::Gold,
        Color::Burgundy,
        Color::Purple,
    ];
    const KIND: &'static str = "color";

    pub fn id(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
            Color::Gray => "gray",
            Color::Silver => "silver",
            Color::Blue => "blue",
            Color::Red => "red",
            Color::Green => "green",
            Color::Brown => "brown",
            Color::Beige => "beige",
            Color::Tan => "tan",
            Color::Orange => "orange",
            Color::Yellow => "yellow",
            Color::Gold => "gold",
            Color::Burgundy => "burgundy",
            Color::Purple => "purple",
        }
    }

    /// The API accepts only the canonical names; free-text synonyms (navy,
    /// charcoal, …) belong to the resolver, not to the parameter parser.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Color::Gray => &["grey"],
            _ => &[],
        }
    }

    /// The paint's base colour as sRGB bytes.
    pub fn rgb(self) -> [u8; 3] {
        match self {
            Color::White => [0xF4, 0xF5, 0xF2],
            Color::Black => [0x14, 0x15, 0x17],
            Color::Gray => [0x6B, 0x6E, 0x73],
            Color::Silver => [0xB8, 0xBC, 0xC2],
            Color::Blue => [0x1F, 0x4E, 0xA8],
            Color::Red => [0xB3, 0x12, 0x1C],
            Color::Green => [0x1E, 0x6B, 0x3A],
            Color::Brown => [0x5C, 0x3A, 0x21],
            Color::Beige => [0xD8, 0xC8, 0xA8],
            Color::Tan => [0xB4, 0x8E, 0x62],
            Color::Orange => [0xE0, 0x68, 0x14],
            Color::Yellow => [0xF2, 0xC4, 0x14],
            Color::Gold => [0xB8, 0x92, 0x3A],
            Color::Burgundy => [0x6A, 0x12, 0x2A],
            Color::Purple => [0x5B, 0x2A, 0x86],
        }
    }

    /// `#rrggbb`, as the options document lists it.
    pub fn hex(self) -> String {
        let [r, g, b] = self.rgb();
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    /// Colours whose real-world paints are usually metallic.
    pub fn is_metallic(self) -> bool {
        matches!(
            self,
            Color::Silver
                | Color::Gray
                | Color::Gold
                | Color::Blue
                | Color::Burgundy
                | Color::Purple
        )
    }
}
enum_serde!(Color);

/// Output encoding (spec §2, Format, and beyond it: AVIF). Default `png`;
/// `jpeg` is an alias of `jpg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Format {
    #[default]
    Png,
    Webp,
    Jpg,
    Avif,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Png, Format::Webp, Format::Jpg, Format::Avif];
    const KIND: &'static str = "format";

    pub fn id(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Webp => "webp",
            Format::Jpg => "jpg",
            Format::Avif => "avif",
        }
    }

    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Jpg => &["jpeg"],
            _ => &[],
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Webp => "image/webp",
            Format::Jpg => "image/jpeg",
            Format::Avif => "image/avif",
        }
    }

    /// png, webp and avif keep the transparent background; jpg is
    /// flattened on white.
    pub fn transparent(self) -> bool {
        !matches!(self, Format::Jpg)
    }

    /// `format=auto`: the smallest format the client says it decodes.
    /// `q_of` gives the q the request's `Accept` header gives a format's
    /// own media type (0 when it names it not: a wildcard promises
    /// neither, since only browsers that decode them list them). AVIF,
    /// then WebP, when their q is above 0 (a higher q wins, a tie goes to
    /// AVIF); otherwise PNG for an image with transparency and JPEG for an
    /// opaque one.
    pub fn negotiate(q_of: impl Fn(Format) -> f32, transparent: bool) -> Format {
        let (avif, webp) = (q_of(Format::Avif), q_of(Format::Webp));
        if avif > 0.0 && avif >= webp {
            Format::Avif
        } else if webp > 0.0 {
            Format::Webp
        } else if transparent {
            Format::Png
        } else {
            Format::Jpg
        }
    }
}
enum_serde!(Format);

/// The `format` a request asks for: one format, or `auto` (chosen per
/// request from its `Accept` header, [`Format::negotiate`]). Default `png`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormatChoice {
    Fixed(Format),
    Auto,
}

impl Default for FormatChoice {
    fn default() -> Self {
        FormatChoice::Fixed(Format::default())
    }
}

impl From<Format> for FormatChoice {
    fn from(f: Format) -> Self {
        FormatChoice::Fixed(f)
    }
}

impl FormatChoice {
    /// Every accepted spelling, for errors and schemas.
    pub const EXPECTED: &'static str = "png, webp, jpg, avif, auto";

    pub fn id(self) -> &'static str {
        match self {
            FormatChoice::Fixed(f) => f.id(),
            FormatChoice::Auto => "auto",
        }
    }

    /// The format before any negotiation: the one asked for; PNG (the
    /// fallback of every transparent image) for `auto`.
    pub fn provisional(self) -> Format {
        match self {
            FormatChoice::Fixed(f) => f,
            FormatChoice::Auto => Format::Png,
        }
    }
}

impl fmt::Display for FormatChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for FormatChoice {
    type Err = ParseError;
    fn from_str(raw: &str) -> Result<Self, ParseError> {
        if raw.trim().eq_ignore_ascii_case("auto") {
            return Ok(FormatChoice::Auto);
        }
        raw.parse::<Format>()
            .map(FormatChoice::Fixed)
            .map_err(|e| ParseError {
                expected: FormatChoice::EXPECTED.into(),
                ..e
            })
    }
}

impl Serialize for FormatChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for FormatChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

/// Named output sizes (spec §2, SizePreset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SizePreset {
    Thumb,
    Small,
    Medium,
    Large,
}

impl SizePreset {
    pub const ALL: [SizePreset; 4] = [
        SizePreset::Thumb,
        SizePreset::Small,
        SizePreset::Medium,
        SizePreset::Large,
    ];
    const KIND: &'static str = "size";

    pub fn id(self) -> &'static str {
        match self {
            SizePreset::Thumb => "thumb",
            SizePreset::Small => "small",
            SizePreset::Medium => "medium",
            SizePreset::Large => "large",
        }
    }

    pub fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    pub fn px(self) -> u32 {
        match self {
            SizePreset::Thumb => 256,
            SizePreset::Small => 512,
            SizePreset::Medium => 768,
            SizePreset::Large => 1024,
        }
    }
}
enum_serde!(SizePreset);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse_ids_and_aliases() {
        for v in View::ALL {
            assert_eq!(v.id().parse::<View>().unwrap(), v);
            for a in v.aliases() {
                assert_eq!(a.parse::<View>().unwrap(), v);
            }
        }
        assert_eq!("hero".parse::<View>().unwrap(), View::Front34);
        assert_eq!("Profile".parse::<View>().unwrap(), View::Side);
        assert_eq!("back".parse::<View>().unwrap(), View::Rear);
        assert_eq!("top".parse::<View>().unwrap(), View::Top);
        let err = "bottom".parse::<View>().unwrap_err();
        assert!(err.to_string().contains("front-3-4"), "{err}");
        assert!(err.to_string().contains("angle-345"), "{err}");
    }

    #[test]
    fn angles_are_the_fifteen_degree_grid_and_round_trip() {
        let every: Vec<View> = View::every().collect();
        assert_eq!(every.len(), 7 + 24);
        for v in &every {
            assert_eq!(v.id().parse::<View>().unwrap(), *v, "{v}");
        }
        let a30 = View::Angle(Angle::new(30).unwrap());
        assert_eq!(a30.id(), "angle-30");
        assert_eq!(a30.yaw_degrees(), 30);
        assert_eq!("Angle-30".parse::<View>().unwrap(), a30);
        for bad in [
            "angle-",
            "angle-7",
            "angle-360",
            "angle-030",
            "angle-+30",
            "angle--15",
            "angle-1e1",
        ] {
            assert!(bad.parse::<View>().is_err(), "{bad}");
        }
        assert_eq!(Angle::new(345).map(Angle::degrees), Some(345));
        assert!(Angle::new(360).is_none() && Angle::new(20).is_none());
        let turn: Vec<u16> = Angle::turn().map(Angle::degrees).collect();
        assert_eq!(turn.len(), Angle::COUNT);
        assert_eq!((turn[0], turn[23]), (0, 345));
    }

    #[test]
    fn auto_picks_the_smallest_format_by_q() {
        let q = |avif: f32, webp: f32| {
            move |f: Format| match f {
                Format::Avif => avif,
                Format::Webp => webp,
                _ => 0.0,
            }
        };
        assert_eq!(Format::negotiate(q(1.0, 1.0), true), Format::Avif);
        assert_eq!(Format::negotiate(q(0.0, 1.0), true), Format::Webp);
        assert_eq!(Format::negotiate(q(0.5, 0.9), true), Format::Webp);
        assert_eq!(Format::negotiate(q(0.7, 0.7), false), Format::Avif);
        // Neither named: PNG keeps the transparency, JPEG for an opaque image.
        assert_eq!(Format::negotiate(q(0.0, 0.0), true), Format::Png);
        assert_eq!(Format::negotiate(q(0.0, 0.0), false), Format::Jpg);
    }

    #[test]
    fn a_format_choice_is_a_format_or_auto() {
        assert_eq!("AUTO".parse::<FormatChoice>().unwrap(), FormatChoice::Auto);
        assert_eq!(
            "jpeg".parse::<FormatChoice>().unwrap(),
            FormatChoice::Fixed(Format::Jpg)
        );
        assert_eq!(
            "avif".parse::<FormatChoice>().unwrap(),
            FormatChoice::Fixed(Format::Avif)
        );
        let e = "gif".parse::<FormatChoice>().unwrap_err();
        assert!(e.to_string().contains("png, webp, jpg, avif, auto"), "{e}");
        assert_eq!(FormatChoice::default(), FormatChoice::Fixed(Format::Png));
        assert_eq!(
            serde_json::to_string(&FormatChoice::Auto).unwrap(),
            "\"auto\""
        );
    }

    #[test]
    fn view_yaws_follow_the_spec_table() {
        let yaws: Vec<u16> = View::ALL.iter().map(|v| v.yaw_degrees()).collect();
        assert_eq!(yaws, [0, 35, 90, 270, 180, 145]);
        assert_eq!(View::default(), View::Front34);
    }

    #[test]
    fn colors_are_fifteen_with_distinct_hex() {
        let mut hexes: Vec<String> = Color::ALL.iter().map(|c| c.hex()).collect();
        hexes.sort();
        hexes.dedup();
        assert_eq!(hexes.len(), 15);
        assert_eq!(Color::default(), Color::Silver);
        assert!("purple".parse::<Color>().is_ok());
        assert!("navy".parse::<Color>().is_err());
    }

    #[test]
    fn jpeg_is_an_alias_of_jpg() {
        assert_eq!("jpeg".parse::<Format>().unwrap(), Format::Jpg);
        assert_eq!(Format::Jpg.to_string(), "jpg");
        assert!(!Format::Jpg.transparent());
        assert!(Format::Webp.transparent());
        assert_eq!(Format::default(), Format::Png);
    }

    #[test]
    fn size_presets_match_the_spec() {
        let px: Vec<u32> = SizePreset::ALL.iter().map(|s| s.px()).collect();
        assert_eq!(px, [256, 512, 768, 1024]);
    }

    #[test]
    fn serde_round_trips_canonical_ids() {
        let json = serde_json::to_string(&(View::Rear34, Color::Gray, Format::Jpg)).unwrap();
        assert_eq!(json, r#"["rear-3-4","gray","jpg"]"#);
        let back: (View, Color, Format) =
            serde_json::from_str(r#"["rear34","grey","jpeg"]"#).unwrap();
        assert_eq!(back, (View::Rear34, Color::Gray, Format::Jpg));
    }
}
