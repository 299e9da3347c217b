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

/// One of the six camera views (spec §2, View). Default `front-3-4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum View {
    Front,
    #[default]
    Front34,
    Side,
    SideRight,
    Rear,
    Rear34,
}

impl View {
    pub const ALL: [View; 6] = [
        View::Front,
        View::Front34,
        View::Side,
        View::SideRight,
        View::Rear,
        View::Rear34,
    ];
    const KIND: &'static str = "view";

    pub fn id(self) -> &'static str {
        match self {
            View::Front => "front",
            View::Front34 => "front-3-4",
            View::Side => "side",
            View::SideRight => "side-right",
            View::Rear => "rear",
            View::Rear34 => "rear-3-4",
        }
    }

    /// Camera yaw around the vehicle, degrees; 0 looks at the nose, 90 sees the
    /// driver's (left) side with the nose pointing left.
    pub fn yaw_degrees(self) -> u16 {
        match self {
            View::Front => 0,
            View::Front34 => 35,
            View::Side => 90,
            View::SideRight => 270,
            View::Rear => 180,
            View::Rear34 => 145,
        }
    }

    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            View::Front => &[],
            View::Front34 => &["front34", "hero"],
            View::Side => &["side-left", "profile"],
            View::SideRight => &["side-r"],
            View::Rear => &["back"],
            View::Rear34 => &["rear34"],
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
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            View::Front => "straight-on front",
            View::Front34 => "front and driver's side",
            View::Side => "side profile, nose pointing left",
            View::SideRight => "side profile, nose pointing right",
            View::Rear => "straight-on rear",
            View::Rear34 => "rear and driver's side",
        }
    }
}
enum_serde!(View);

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

/// Output encoding (spec §2, Format). Default `png`; `jpeg` is an alias of `jpg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Format {
    #[default]
    Png,
    Webp,
    Jpg,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Png, Format::Webp, Format::Jpg];
    const KIND: &'static str = "format";

    pub fn id(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Webp => "webp",
            Format::Jpg => "jpg",
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
        }
    }

    /// png and webp keep the transparent background; jpg is flattened on white.
    pub fn transparent(self) -> bool {
        !matches!(self, Format::Jpg)
    }
}
enum_serde!(Format);

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
        let err = "top".parse::<View>().unwrap_err();
        assert!(err.to_string().contains("front-3-4"), "{err}");
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
