//! Paint: a preset colour, or any sRGB colour with a finish (solid, metallic,
//! pearl), as the variant key and the renderer hold it; CIEDE2000 to say how
//! near a colour is to a name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Color;

/// How a paint is finished: what the renderer does with its clear coat and
/// flakes. `Solid` is a plain colour under clear coat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Finish {
    #[default]
    Solid,
    Metallic,
    Pearl,
}

impl Finish {
    pub const ALL: [Finish; 3] = [Finish::Solid, Finish::Metallic, Finish::Pearl];

    pub fn id(self) -> &'static str {
        match self {
            Finish::Solid => "solid",
            Finish::Metallic => "metallic",
            Finish::Pearl => "pearl",
        }
    }
}

impl fmt::Display for Finish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Finish {
    type Err = crate::ParseError;
    fn from_str(raw: &str) -> Result<Finish, crate::ParseError> {
        let wanted = raw.trim().to_ascii_lowercase();
        Finish::ALL
            .into_iter()
            .find(|f| f.id() == wanted)
            .ok_or_else(|| crate::ParseError {
                kind: "finish",
                value: raw.to_owned(),
                expected: "solid, metallic, pearl".into(),
            })
    }
}

impl Serialize for Finish {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Finish {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl Color {
    /// The finish the renderer gives a preset colour.
    pub fn finish(self) -> Finish {
        if self.is_metallic() {
            Finish::Metallic
        } else {
            Finish::Solid
        }
    }
}

/// The paint of one variant: a preset colour (its key is its name, as it
/// always was), or an sRGB colour and finish (its key is `rrggbb`, or
/// `rrggbb-metallic` / `rrggbb-pearl`). [`Paint::custom`] turns a custom
/// paint equal to a preset (same bytes, same finish) into the preset, so
/// one look has one key and one render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Paint {
    Named(Color),
    Custom { rgb: [u8; 3], finish: Finish },
}

impl Default for Paint {
    fn default() -> Self {
        Paint::Named(Color::default())
    }
}

impl From<Color> for Paint {
    fn from(c: Color) -> Paint {
        Paint::Named(c)
    }
}

/// A `color` value that is neither a preset name nor `#RRGGBB`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{value:?} is not a valid color; expected #RRGGBB (or RRGGBB; send # as %23 in a URL) or one of: {names}"
)]
pub struct ColorParseError {
    pub value: String,
    pub names: String,
}

impl Paint {
    /// A custom paint, or the preset it equals.
    pub fn custom(rgb: [u8; 3], finish: Finish) -> Paint {
        Color::ALL
            .into_iter()
            .find(|c| c.rgb() == rgb && c.finish() == finish)
            .map_or(Paint::Custom { rgb, finish }, Paint::Named)
    }

    /// The `color` parameter: a preset name (or alias), `#RRGGBB` or
    /// `RRGGBB` (any case), painted with `finish` (solid when none). A
    /// finish is a property of custom colours only: with a preset name it
    /// is refused by the caller.
    pub fn parse_color(raw: &str, finish: Option<Finish>) -> Result<Paint, ColorParseError> {
        let v = raw.trim();
        if let Ok(c) = v.parse::<Color>() {
            return Ok(Paint::Named(c));
        }
        parse_hex(v.strip_prefix('#').unwrap_or(v))
            .map(|rgb| Paint::custom(rgb, finish.unwrap_or_default()))
            .ok_or_else(|| ColorParseError {
                value: raw.to_owned(),
                names: Color::ALL.map(Color::id).join(", "),
            })
    }

    pub fn rgb(self) -> [u8; 3] {
        match self {
            Paint::Named(c) => c.rgb(),
            Paint::Custom { rgb, .. } => rgb,
        }
    }

    pub fn finish(self) -> Finish {
        match self {
            Paint::Named(c) => c.finish(),
            Paint::Custom { finish, .. } => finish,
        }
    }

    /// This colour in `finish` (itself when `None` or the same finish).
    pub fn with_finish(self, finish: Option<Finish>) -> Paint {
        match finish {
            Some(f) if f != self.finish() => Paint::custom(self.rgb(), f),
            _ => self,
        }
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        hex_of(self.rgb())
    }

    /// The preset, when this is one.
    pub fn named(self) -> Option<Color> {
        match self {
            Paint::Named(c) => Some(c),
            Paint::Custom { .. } => None,
        }
    }
}

/// `#rrggbb` of sRGB bytes.
pub fn hex_of([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Six hex digits, any case.
fn parse_hex(s: &str) -> Option<[u8; 3]> {
    if s.len() != 6 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&s[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

impl fmt::Display for Paint {
    /// The key form: the preset's id, or `rrggbb` with `-metallic` or
    /// `-pearl` when not solid (no `#`: it is part of object keys and URLs).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Paint::Named(c) => f.write_str(c.id()),
            Paint::Custom {
                rgb: [r, g, b],
                finish,
            } => {
                write!(f, "{r:02x}{g:02x}{b:02x}")?;
                match finish {
                    Finish::Solid => Ok(()),
                    other => write!(f, "-{other}"),
                }
            }
        }
    }
}

impl FromStr for Paint {
    type Err = crate::ParseError;

    /// Parses the key form written by `Display` (and preset aliases).
    fn from_str(raw: &str) -> Result<Paint, crate::ParseError> {
        if let Ok(c) = raw.parse::<Color>() {
            return Ok(Paint::Named(c));
        }
        let (hex, finish) = match raw.split_once('-') {
            Some((hex, finish)) => (hex, finish.parse::<Finish>().ok()),
            None => (raw, Some(Finish::Solid)),
        };
        match (parse_hex(hex), finish) {
            (Some(rgb), Some(finish)) if hex == hex.to_ascii_lowercase() => {
                Ok(Paint::custom(rgb, finish))
            }
            _ => Err(crate::ParseError {
                kind: "paint",
                value: raw.to_owned(),
                expected: "a preset colour name, rrggbb, rrggbb-metallic or rrggbb-pearl".into(),
            }),
        }
    }
}

impl Serialize for Paint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Paint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

fn srgb_to_linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// CIELAB (D65) of an sRGB colour.
pub fn lab([r, g, b]: [u8; 3]) -> [f64; 3] {
    lab_of_linear([srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b)])
}

/// CIELAB (D65) of a linear sRGB colour (each channel 0 to 1; below 0
/// counts as 0).
pub fn lab_of_linear(rgb: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = rgb.map(|c| c.max(0.0));
    let x = 0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b;
    let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175_0 * b;
    let z = 0.019_333_9 * r + 0.119_192_0 * g + 0.950_304_1 * b;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x / 0.950_47), f(y), f(z / 1.088_83));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and
/// Dalal's formulation).
pub fn delta_e2000(a: [f64; 3], b: [f64; 3]) -> f64 {
    use std::f64::consts::PI;
    let deg = |r: f64| r * 180.0 / PI;
    let rad = |d: f64| d * PI / 180.0;
    let (l1, a1, b1) = (a[0], a[1], a[2]);
    let (l2, a2, b2) = (b[0], b[1], b[2]);
    let c1 = a1.hypot(b1);
    let c2 = a2.hypot(b2);
    let cm = (c1 + c2) / 2.0;
    let g = 0.5 * (1.0 - (cm.powi(7) / (cm.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = (a1 * (1.0 + g), a2 * (1.0 + g));
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |bb: f64, aa: f64| {
        if bb == 0.0 && aa == 0.0 {
            0.0
        } else {
            deg(bb.atan2(aa)).rem_euclid(360.0)
        }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dhh = 2.0 * (c1p * c2p).sqrt() * rad(dh / 2.0).sin();
    let lm = (l1 + l2) / 2.0;
    let cmp = (c1p + c2p) / 2.0;
    let hm = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let t = 1.0 - 0.17 * rad(hm - 30.0).cos()
        + 0.24 * rad(2.0 * hm).cos()
        + 0.32 * rad(3.0 * hm + 6.0).cos()
        - 0.20 * rad(4.0 * hm - 63.0).cos();
    let d_theta = 30.0 * (-((hm - 275.0) / 25.0).powi(2)).exp();
    let rc = 2.0 * (cmp.powi(7) / (cmp.powi(7) + 25f64.powi(7))).sqrt();
    let sl = 1.0 + 0.015 * (lm - 50.0).powi(2) / (20.0 + (lm - 50.0).powi(2)).sqrt();
    let sc = 1.0 + 0.045 * cmp;
    let sh = 1.0 + 0.015 * cmp * t;
    let rt = -rad(2.0 * d_theta).sin() * rc;
    ((dl / sl).powi(2) + (dc / sc).powi(2) + (dhh / sh).powi(2) + rt * (dc / sc) * (dhh / sh))
        .sqrt()
}

/// CIEDE2000 between two sRGB colours.
pub fn delta_e_rgb(a: [u8; 3], b: [u8; 3]) -> f64 {
    delta_e2000(lab(a), lab(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_e2000_matches_the_published_test_pairs() {
        // Sharma, Wu, Dalal (2005), table 1: pairs 1, 7 and 17.
        let cases = [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
            ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
            ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ];
        for (a, b, want) in cases {
            let got = delta_e2000(a, b);
            assert!((got - want).abs() < 1e-3, "{a:?} {b:?}: {got} want {want}");
        }
        assert_eq!(delta_e_rgb([10, 20, 30], [10, 20, 30]), 0.0);
    }

    #[test]
    fn color_parameter_takes_names_and_hex_in_any_case() {
        assert_eq!(
            Paint::parse_color("Red", None).unwrap(),
            Paint::Named(Color::Red)
        );
        assert_eq!(
            Paint::parse_color("grey", None).unwrap(),
            Paint::Named(Color::Gray)
        );
        let want = Paint::Custom {
            rgb: [0x12, 0xab, 0xef],
            finish: Finish::Solid,
        };
        assert_eq!(Paint::parse_color("#12ABef", None).unwrap(), want);
        assert_eq!(Paint::parse_color("12abef", None).unwrap(), want);
        assert_eq!(
            Paint::parse_color("#12abef", Some(Finish::Pearl))
                .unwrap()
                .finish(),
            Finish::Pearl
        );
        for bad in ["#12abe", "#12abeg", "navy", "##12abef", "#12abef0", "", "#"] {
            let e = Paint::parse_color(bad, None).unwrap_err();
            assert!(e.to_string().contains("#RRGGBB"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_custom_paint_equal_to_a_preset_is_the_preset() {
        // Red is solid: its bytes as a solid hex are red, its key "red".
        assert_eq!(
            Paint::parse_color("#B3121C", None).unwrap(),
            Paint::Named(Color::Red)
        );
        // Silver is metallic: a solid paint of its bytes is another paint.
        let solid_silver = Paint::parse_color(&Color::Silver.hex(), None).unwrap();
        assert_eq!(solid_silver.to_string(), "b8bcc2");
        assert_eq!(
            Paint::parse_color(&Color::Silver.hex(), Some(Finish::Metallic)).unwrap(),
            Paint::Named(Color::Silver)
        );
    }

    #[test]
    fn a_finish_makes_a_preset_a_custom_paint_unless_it_is_its_own() {
        let red = Paint::Named(Color::Red);
        assert_eq!(red.with_finish(None), red);
        assert_eq!(red.with_finish(Some(Finish::Solid)), red);
        let metallic_red = red.with_finish(Some(Finish::Metallic));
        assert_eq!(metallic_red.to_string(), "b3121c-metallic");
        assert_eq!(
            metallic_red.with_finish(Some(Finish::Solid)),
            Paint::Named(Color::Red)
        );
    }

    #[test]
    fn key_form_round_trips_and_presets_keep_their_names() {
        for c in Color::ALL {
            assert_eq!(Paint::from(c).to_string(), c.id());
            assert_eq!(c.id().parse::<Paint>().unwrap(), Paint::Named(c));
        }
        for (rgb, finish, key) in [
            ([1, 2, 3], Finish::Solid, "010203"),
            ([0xff, 0, 0x80], Finish::Metallic, "ff0080-metallic"),
            ([0xee, 0xee, 0xe0], Finish::Pearl, "eeeee0-pearl"),
        ] {
            let p = Paint::custom(rgb, finish);
            assert_eq!(p.to_string(), key);
            assert_eq!(key.parse::<Paint>().unwrap(), p);
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{key}\""));
        }
        for bad in [
            "FF0080",
            "#ff0080",
            "ff0080-matte",
            "ff008",
            "ff0080-",
            "navy",
        ] {
            assert!(bad.parse::<Paint>().is_err(), "{bad}");
        }
    }
}
