//! How a render is framed in its output: the background behind it, how it
//! fills the requested box (`fit`), whether it is cropped to the vehicle
//! (`trim`) and the margin left around it (`padding`). All of it is applied
//! when an output is derived from its source render, so one render serves
//! every framing; the framing is part of the output's key, ETag and
//! canonical URL.

use std::fmt;

use crate::ParseError;

/// What is behind the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Background {
    /// The render's own alpha (and its soft contact shadow).
    #[default]
    Transparent,
    /// One sRGB colour (`white` is `#ffffff`).
    Color([u8; 3]),
    /// A photographer's backdrop: a light grey sweep, lighter behind the
    /// vehicle, with the render's contact shadow on it.
    Studio,
}

impl Background {
    pub const WHITE: Background = Background::Color([255, 255, 255]);

    /// Whether the output has no transparent pixel.
    pub fn opaque(self) -> bool {
        self != Background::Transparent
    }

    /// The canonical spelling: `transparent`, `white`, `studio` or
    /// `#rrggbb`.
    pub fn id(self) -> String {
        match self {
            Background::Transparent => "transparent".into(),
            Background::Studio => "studio".into(),
            Background::Color([255, 255, 255]) => "white".into(),
            Background::Color(rgb) => crate::hex_of(rgb),
        }
    }
}

impl std::str::FromStr for Background {
    type Err = ParseError;

    fn from_str(raw: &str) -> Result<Background, ParseError> {
        let lower = raw.trim().to_ascii_lowercase();
        match lower.as_str() {
            "transparent" | "none" => return Ok(Background::Transparent),
            "white" => return Ok(Background::WHITE),
            "studio" => return Ok(Background::Studio),
            _ => {}
        }
        let hex = lower.strip_prefix('#').unwrap_or("");
        if hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits");
            return Ok(Background::Color([byte(0), byte(2), byte(4)]));
        }
        Err(ParseError {
            kind: "background",
            value: raw.to_owned(),
            expected: Background::ALLOWED.to_owned(),
        })
    }
}

impl Background {
    /// The rule in the API's words.
    pub const ALLOWED: &'static str = "transparent, white, studio or #RRGGBB (%23 for # in a URL)";
}

/// How the render fills a box of both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fit {
    /// The whole picture inside the box, the rest of the box background.
    Contain,
    /// The box filled, the picture cropped at its centre to the box's shape.
    Cover,
}

impl Fit {
    pub fn id(self) -> &'static str {
        match self {
            Fit::Contain => "contain",
            Fit::Cover => "cover",
        }
    }
}

impl std::str::FromStr for Fit {
    type Err = ParseError;

    fn from_str(raw: &str) -> Result<Fit, ParseError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "contain" => Ok(Fit::Contain),
            "cover" => Ok(Fit::Cover),
            _ => Err(ParseError {
                kind: "fit",
                value: raw.to_owned(),
                expected: "contain, cover".to_owned(),
            }),
        }
    }
}

/// The largest `padding`, in output pixels.
pub const PADDING_MAX: u32 = 256;

/// The whole framing of one output. The default is the plain output: the
/// square render on a transparent background, scaled to fit the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Framing {
    pub background: Background,
    /// `None`: the plain output, as large as fits the box with the render's
    /// own (square) shape. `Some`: the output is the box itself.
    pub fit: Option<Fit>,
    /// Crop to the vehicle (and its contact shadow) before fitting.
    pub trim: bool,
    /// Margin around the picture, in output pixels (with `trim` or
    /// `fit=contain`).
    pub padding: u32,
}

/// Why a framing cannot be made: the parameter at fault and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingError {
    pub parameter: &'static str,
    pub message: String,
}

impl Framing {
    /// Checks how the parameters combine with each other and with the box
    /// (`box_w`, `box_h`: the sides the request named). `fit` needs both
    /// sides; `padding` needs `trim` or `fit=contain`, and must leave room
    /// for the picture inside the output.
    pub fn new(
        background: Background,
        fit: Option<Fit>,
        trim: bool,
        padding: Option<u32>,
        box_w: Option<u32>,
        box_h: Option<u32>,
    ) -> Result<Framing, FramingError> {
        let bad = |parameter: &'static str, message: &str| FramingError {
            parameter,
            message: message.to_owned(),
        };
        if fit.is_some() && (box_w.is_none() || box_h.is_none()) {
            return Err(bad(
                "fit",
                "needs both sides of the box (w and h; width and height in a JSON body): without them the output already has the render's shape",
            ));
        }
        let fills_a_box = trim || fit == Some(Fit::Contain);
        if let Some(p) = padding {
            if !fills_a_box {
                return Err(bad(
                    "padding",
                    "applies with trim=true or fit=contain (a margin around the picture inside the box)",
                ));
            }
            if p > PADDING_MAX {
                return Err(bad(
                    "padding",
                    &format!("must be an integer from 0 to {PADDING_MAX} (pixels)"),
                ));
            }
        }
        let framing = Framing {
            background,
            fit: if trim && fit.is_none() {
                Some(Fit::Contain)
            } else {
                fit
            },
            trim,
            padding: padding.unwrap_or(0),
        };
        let (w, h) = framing.output_size(box_w, box_h);
        if 2 * framing.padding >= w.min(h) {
            return Err(bad(
                "padding",
                &format!(
                    "leaves no room for the vehicle in a {w}x{h} output: it must be less than half the shorter side"
                ),
            ));
        }
        Ok(framing)
    }

    /// Whether this is the plain output (no framing parameter changes it).
    pub fn is_plain(&self) -> bool {
        *self == Framing::default()
    }

    /// Whether the output has no transparent pixel (`format=auto` then
    /// falls back to JPEG).
    pub fn opaque(&self) -> bool {
        self.background.opaque()
    }

    /// The output's size for a request's box, before any render: with a
    /// `fit` (or `trim`) the box itself, a missing side equal to the
    /// other (both missing: the render's size); otherwise the largest
    /// square that fits the box, never larger than the render.
    pub fn output_size(&self, box_w: Option<u32>, box_h: Option<u32>) -> (u32, u32) {
        let source = crate::SOURCE_PX;
        match self.fit {
            None => {
                let side = box_w
                    .unwrap_or(source)
                    .min(box_h.unwrap_or(source))
                    .min(source);
                (side.max(1), side.max(1))
            }
            Some(_) => match (box_w, box_h) {
                (Some(w), Some(h)) => (w, h),
                (Some(s), None) | (None, Some(s)) => (s, s),
                (None, None) => (source, source),
            },
        }
    }

    /// Each framing parameter as the canonical query spells it (decoded),
    /// in a fixed order (`background, fit, trim, padding`); an empty value
    /// is a parameter the canonical query leaves out: a default, or
    /// `fit=contain` that `trim` implies.
    pub fn canonical(&self) -> [(&'static str, String); 4] {
        let background = match self.background {
            Background::Transparent => String::new(),
            bg => bg.id(),
        };
        let fit = match self.fit {
            Some(Fit::Contain) if self.trim => String::new(),
            Some(fit) => fit.id().to_owned(),
            None => String::new(),
        };
        let trim = if self.trim {
            "true".into()
        } else {
            String::new()
        };
        let padding = match self.padding {
            0 => String::new(),
            p => p.to_string(),
        };
        [
            ("background", background),
            ("fit", fit),
            ("trim", trim),
            ("padding", padding),
        ]
    }

    /// The canonical query's framing parameters, each after a `&`
    /// ([`Framing::canonical`]; `%23` for `#`); empty for the plain output.
    pub fn query(&self) -> String {
        self.canonical()
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("&{k}={}", v.replace('#', "%23")))
            .collect()
    }

    /// The text form in object keys and stored rows: tokens joined by `_`
    /// (`bg-white_cover`, `bg-studio_trim_pad-16`); empty for the plain
    /// output. Lower-case letters, digits, `-` and `_` only.
    pub fn key(&self) -> String {
        let [(_, bg), (_, fit), (_, trim), (_, padding)] = self.canonical();
        let mut parts: Vec<String> = Vec::new();
        if !bg.is_empty() {
            parts.push(format!("bg-{}", bg.trim_start_matches('#')));
        }
        if !fit.is_empty() {
            parts.push(fit);
        }
        if !trim.is_empty() {
            parts.push("trim".into());
        }
        if !padding.is_empty() {
            parts.push(format!("pad-{padding}"));
        }
        parts.join("_")
    }

    /// Parses [`Framing::key`]'s text form.
    pub fn from_key(raw: &str) -> Result<Framing, String> {
        let mut f = Framing::default();
        for token in raw.split('_').filter(|t| !t.is_empty()) {
            if let Some(bg) = token.strip_prefix("bg-") {
                let spelled = if bg.len() == 6 && bg.bytes().all(|b| b.is_ascii_hexdigit()) {
                    format!("#{bg}")
                } else {
                    bg.to_owned()
                };
                f.background = spelled
                    .parse()
                    .map_err(|_| format!("bad background {token:?}"))?;
            } else if let Some(p) = token.strip_prefix("pad-") {
                f.padding = p.parse().map_err(|_| format!("bad padding {token:?}"))?;
            } else {
                match token {
                    "trim" => {
                        f.trim = true;
                        f.fit = f.fit.or(Some(Fit::Contain));
                    }
                    "contain" => f.fit = Some(Fit::Contain),
                    "cover" => f.fit = Some(Fit::Cover),
                    _ => return Err(format!("unknown framing token {token:?}")),
                }
            }
        }
        Ok(f)
    }
}

impl fmt::Display for Framing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framing(
        bg: &str,
        fit: Option<Fit>,
        trim: bool,
        padding: Option<u32>,
        w: Option<u32>,
        h: Option<u32>,
    ) -> Result<Framing, FramingError> {
        Framing::new(bg.parse().unwrap(), fit, trim, padding, w, h)
    }

    #[test]
    fn backgrounds_parse_in_every_spelling_and_print_one() {
        for (raw, id) in [
            ("transparent", "transparent"),
            ("WHITE", "white"),
            ("#FFFFFF", "white"),
            ("studio", "studio"),
            ("#1A2b3C", "#1a2b3c"),
        ] {
            assert_eq!(raw.parse::<Background>().unwrap().id(), id, "{raw}");
        }
        for bad in ["", "grey", "#fff", "1a2b3c", "#1a2b3g"] {
            let e = bad.parse::<Background>().unwrap_err();
            assert!(e.to_string().contains("#RRGGBB"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_plain_output_keeps_the_square_and_everything_else_is_the_box() {
        let plain = Framing::default();
        assert!(plain.is_plain());
        assert_eq!(plain.output_size(Some(800), Some(400)), (400, 400));
        assert_eq!(plain.output_size(None, None), (1024, 1024));
        assert_eq!(plain.output_size(Some(2000), None), (1024, 1024));
        let cover = framing("white", Some(Fit::Cover), false, None, Some(800), Some(400)).unwrap();
        assert_eq!(cover.output_size(Some(800), Some(400)), (800, 400));
        let trim = framing("transparent", None, true, Some(8), Some(300), None).unwrap();
        assert_eq!(trim.fit, Some(Fit::Contain));
        assert_eq!(trim.output_size(Some(300), None), (300, 300));
        assert_eq!(trim.output_size(None, None), (1024, 1024));
    }

    #[test]
    fn conflicting_combinations_name_the_parameter() {
        let err = |r: Result<Framing, FramingError>| r.unwrap_err().parameter;
        assert_eq!(
            err(framing(
                "white",
                Some(Fit::Cover),
                false,
                None,
                Some(800),
                None
            )),
            "fit"
        );
        assert_eq!(
            err(framing("white", None, false, Some(8), None, None)),
            "padding"
        );
        assert_eq!(
            err(framing(
                "white",
                Some(Fit::Cover),
                false,
                Some(8),
                Some(8),
                Some(8)
            )),
            "padding"
        );
        assert_eq!(
            err(framing("white", None, true, Some(257), None, None)),
            "padding"
        );
        assert_eq!(
            err(framing("white", None, true, Some(50), Some(100), Some(300))),
            "padding"
        );
        assert!(framing("white", None, true, Some(49), Some(100), Some(300)).is_ok());
    }

    #[test]
    fn the_key_and_the_query_round_trip_and_are_empty_when_plain() {
        assert_eq!(Framing::default().key(), "");
        assert_eq!(Framing::default().query(), "");
        let cases = [
            framing("white", Some(Fit::Cover), false, None, Some(8), Some(8)).unwrap(),
            framing("studio", None, true, Some(16), None, None).unwrap(),
            framing(
                "#1a2b3c",
                Some(Fit::Contain),
                false,
                Some(4),
                Some(64),
                Some(32),
            )
            .unwrap(),
            framing(
                "transparent",
                Some(Fit::Contain),
                true,
                None,
                Some(64),
                Some(32),
            )
            .unwrap(),
        ];
        assert_eq!(cases[0].key(), "bg-white_cover");
        assert_eq!(cases[0].query(), "&background=white&fit=cover");
        assert_eq!(cases[1].key(), "bg-studio_trim_pad-16");
        assert_eq!(cases[1].query(), "&background=studio&trim=true&padding=16");
        assert_eq!(cases[2].key(), "bg-1a2b3c_contain_pad-4");
        assert_eq!(
            cases[2].query(),
            "&background=%231a2b3c&fit=contain&padding=4"
        );
        assert_eq!(cases[3].key(), "trim");
        for f in cases {
            assert_eq!(Framing::from_key(&f.key()).unwrap(), f);
        }
        assert!(Framing::from_key("bg-navy").is_err());
        assert!(Framing::from_key("stretch").is_err());
    }
}
