//! Variant keys and render jobs.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{BodyShape, Paint, Slug, View};

/// One cached render: make, model, year, colour, view (spec §1, "Images are
/// cached per make, model, year, color and view"), and how the vehicle is
/// staged when that is not the default ([`Staging`]). Size, format and
/// framing are derived from the variant's source render and are not part
/// of the key. The colour is a [`Paint`]: a preset keeps its name in the
/// key (`red`), any other colour is its hex and finish (`8c1a20-metallic`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VariantKey {
    pub make: Slug,
    pub model: Slug,
    pub year: u16,
    pub color: Paint,
    pub view: View,
    /// Absent from a default variant's JSON, so nodes and rows written
    /// before staging existed read as the default.
    #[serde(default, skip_serializing_if = "Staging::is_default")]
    pub staging: Staging,
}

/// How the vehicle is staged in the studio: choices drawn by the renderer,
/// so each is a variant of its own (a render, a job, a cache entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Staging {
    /// The soft contact shadow under the vehicle (`shadow=false` leaves it
    /// out: the vehicle alone on a transparent background).
    pub shadow: bool,
    /// How large the vehicle is drawn (`scale`).
    #[serde(default)]
    pub scale: Scale,
}

impl Default for Staging {
    fn default() -> Staging {
        Staging {
            shadow: true,
            scale: Scale::Fill,
        }
    }
}

/// How large a vehicle is drawn in its frame.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Every vehicle fills the frame (the studio default).
    #[default]
    Fill,
    /// One metres-per-pixel for every vehicle of a size class (cars and
    /// light trucks; box trucks; buses; motorcycles): the longest of the
    /// class fits the frame, so vehicles shown side by side keep their
    /// real sizes and stand on one ground line.
    Relative,
}

impl Scale {
    pub const ALL: [Scale; 2] = [Scale::Fill, Scale::Relative];

    pub fn id(self) -> &'static str {
        match self {
            Scale::Fill => "fill",
            Scale::Relative => "relative",
        }
    }
}

impl std::str::FromStr for Scale {
    type Err = crate::ParseError;

    fn from_str(raw: &str) -> Result<Scale, crate::ParseError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "fill" => Ok(Scale::Fill),
            "relative" => Ok(Scale::Relative),
            _ => Err(crate::ParseError {
                kind: "scale",
                value: raw.to_owned(),
                expected: "fill, relative".to_owned(),
            }),
        }
    }
}

impl Staging {
    pub fn is_default(&self) -> bool {
        *self == Staging::default()
    }

    /// The text form after a variant's view: tokens joined by `_`
    /// (`noshadow`, `relative`, `noshadow_relative`); empty for the
    /// default.
    pub fn key(&self) -> String {
        let mut tokens = Vec::new();
        if !self.shadow {
            tokens.push("noshadow");
        }
        if self.scale == Scale::Relative {
            tokens.push("relative");
        }
        tokens.join("_")
    }

    /// Parses [`Staging::key`]'s text form (not empty).
    pub fn from_key(raw: &str) -> Result<Staging, String> {
        let mut staging = Staging::default();
        for token in raw.split('_') {
            match token {
                "noshadow" => staging.shadow = false,
                "relative" => staging.scale = Scale::Relative,
                _ => return Err(format!("unknown staging {token:?}")),
            }
        }
        Ok(staging)
    }
}

impl fmt::Display for VariantKey {
    /// `make/model/year/color/view`, then `/staging` when not the default
    /// (`.../side/noshadow`) — the stable text form used in the job table's
    /// unique column and in object-store keys. A default variant's text is
    /// the one it had before staging existed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}/{}",
            self.make, self.model, self.year, self.color, self.view
        )?;
        if !self.staging.is_default() {
            write!(f, "/{}", self.staging.key())?;
        }
        Ok(())
    }
}

impl VariantKey {
    /// The vehicle the variant shows, `make/model/year`, whatever its
    /// colour, view or staging: [`vehicle_of`] its text form.
    pub fn vehicle(&self) -> String {
        format!("{}/{}/{}", self.make, self.model, self.year)
    }
}

/// The vehicle part (`make/model/year`) of a variant's text form: the
/// variants a render node draws from one mesh share it (the job table's
/// `vehicle` column). The whole text when it has fewer parts.
pub fn vehicle_of(variant: &str) -> &str {
    match variant.match_indices('/').nth(2) {
        Some((at, _)) => &variant[..at],
        None => variant,
    }
}

impl std::str::FromStr for VariantKey {
    type Err = String;

    /// Parses the text form written by `Display`.
    fn from_str(raw: &str) -> Result<VariantKey, String> {
        let parts: Vec<&str> = raw.split('/').collect();
        let (make, model, year, color, view, staging) = match parts.as_slice() {
            [make, model, year, color, view] => (make, model, year, color, view, None),
            [make, model, year, color, view, staging] => {
                (make, model, year, color, view, Some(staging))
            }
            _ => {
                return Err(format!(
                    "{raw:?} is not make/model/year/color/view[/staging]"
                ));
            }
        };
        Ok(VariantKey {
            make: Slug::parse(make).ok_or_else(|| format!("bad make slug {make:?}"))?,
            model: Slug::parse(model).ok_or_else(|| format!("bad model slug {model:?}"))?,
            year: year.parse().map_err(|_| format!("bad year {year:?}"))?,
            color: color
                .parse::<Paint>()
                .map_err(|e: crate::ParseError| e.to_string())?,
            view: view.parse().map_err(|e: crate::ParseError| e.to_string())?,
            staging: match staging {
                Some(s) => Staging::from_key(s)?,
                None => Staging::default(),
            },
        })
    }
}

/// What a render node needs to draw one variant. The node never looks anything
/// up: the control plane resolves the body shape from the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderJob {
    pub variant: VariantKey,
    pub shape: BodyShape,
    /// Bumped when the renderer's output changes or a render is flagged for
    /// re-render; part of the object key and the ETag.
    pub revision: u32,
    /// How many times this variant was re-rendered (0 for its first
    /// render): each re-render draws a slightly different pose, so it has
    /// new bytes while the vehicle stays itself.
    #[serde(default)]
    pub variation: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, Finish};

    #[test]
    fn a_variants_vehicle_is_its_first_three_parts() {
        let key: VariantKey = "toyota/camry/2019/8c1a20-metallic/angle-45/noshadow"
            .parse()
            .unwrap();
        assert_eq!(key.vehicle(), "toyota/camry/2019");
        assert_eq!(vehicle_of(&key.to_string()), key.vehicle());
        assert_eq!(
            vehicle_of("toyota/camry/2019/red/side"),
            "toyota/camry/2019"
        );
        assert_eq!(vehicle_of("toyota/camry"), "toyota/camry");
    }

    #[test]
    fn variant_key_text_form() {
        let key = VariantKey {
            make: Slug::parse("toyota").unwrap(),
            model: Slug::parse("camry").unwrap(),
            year: 2019,
            color: Color::Red.into(),
            view: View::Side,
            staging: Staging::default(),
        };
        assert_eq!(key.to_string(), "toyota/camry/2019/red/side");
        assert_eq!(
            "toyota/camry/2019/red/side".parse::<VariantKey>().unwrap(),
            key
        );
        let custom = VariantKey {
            color: Paint::custom([0x8c, 0x1a, 0x20], Finish::Metallic),
            ..key.clone()
        };
        assert_eq!(custom.to_string(), "toyota/camry/2019/8c1a20-metallic/side");
        assert_eq!(custom.to_string().parse::<VariantKey>().unwrap(), custom);
        let shadowless = VariantKey {
            staging: Staging {
                shadow: false,
                ..Staging::default()
            },
            ..key.clone()
        };
        let both = VariantKey {
            staging: Staging {
                shadow: false,
                scale: Scale::Relative,
            },
            ..key.clone()
        };
        assert_eq!(
            both.to_string(),
            "toyota/camry/2019/red/side/noshadow_relative"
        );
        assert_eq!(both.to_string().parse::<VariantKey>().unwrap(), both);
        assert_eq!(
            shadowless.to_string(),
            "toyota/camry/2019/red/side/noshadow"
        );
        assert_eq!(
            shadowless.to_string().parse::<VariantKey>().unwrap(),
            shadowless
        );
        // The JSON of a default variant has no staging (what nodes built
        // before it send and expect); a shadowless one says so.
        let json = serde_json::to_value(&key).unwrap();
        assert!(json.get("staging").is_none(), "{json}");
        assert_eq!(serde_json::from_value::<VariantKey>(json).unwrap(), key);
        let json = serde_json::to_value(&shadowless).unwrap();
        assert_eq!(json["staging"]["shadow"], false);
        for bad in [
            "",
            "toyota/camry/2019/red",
            "toyota/camry/x/red/side",
            "Toyota/camry/2019/red/side",
            "a/b/2019/navy/side",
            "a/b/2019/FF0000/side",
            "a/b/2019/ff0000-matte/side",
            "a/b/2019/red/side/",
            "a/b/2019/red/side/shadowless",
            "a/b/2019/red/side/noshadow/x",
        ] {
            assert!(bad.parse::<VariantKey>().is_err(), "{bad}");
        }
    }
}
