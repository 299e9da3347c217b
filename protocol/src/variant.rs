//! Variant keys and render jobs.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{BodyShape, Paint, Slug, View};

/// One cached render: make, model, year, colour, view (spec §1, "Images are
/// cached per make, model, year, color and view"). Size and format are derived
/// from the variant's source render and are not part of the key. The colour
/// is a [`Paint`]: a preset keeps its name in the key (`red`), any other
/// colour is its hex and finish (`8c1a20-metallic`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VariantKey {
    pub make: Slug,
    pub model: Slug,
    pub year: u16,
    pub color: Paint,
    pub view: View,
}

impl fmt::Display for VariantKey {
    /// `make/model/year/color/view` — the stable text form used in the job
    /// table's unique column and in object-store keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}/{}",
            self.make, self.model, self.year, self.color, self.view
        )
    }
}

impl std::str::FromStr for VariantKey {
    type Err = String;

    /// Parses the text form written by `Display`.
    fn from_str(raw: &str) -> Result<VariantKey, String> {
        let parts: Vec<&str> = raw.split('/').collect();
        let [make, model, year, color, view] = parts.as_slice() else {
            return Err(format!("{raw:?} is not make/model/year/color/view"));
        };
        Ok(VariantKey {
            make: Slug::parse(make).ok_or_else(|| format!("bad make slug {make:?}"))?,
            model: Slug::parse(model).ok_or_else(|| format!("bad model slug {model:?}"))?,
            year: year.parse().map_err(|_| format!("bad year {year:?}"))?,
            color: color
                .parse::<Paint>()
                .map_err(|e: crate::ParseError| e.to_string())?,
            view: view.parse().map_err(|e: crate::ParseError| e.to_string())?,
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
    fn variant_key_text_form() {
        let key = VariantKey {
            make: Slug::parse("toyota").unwrap(),
            model: Slug::parse("camry").unwrap(),
            year: 2019,
            color: Color::Red.into(),
            view: View::Side,
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
        for bad in [
            "",
            "toyota/camry/2019/red",
            "toyota/camry/x/red/side",
            "Toyota/camry/2019/red/side",
            "a/b/2019/navy/side",
            "a/b/2019/FF0000/side",
            "a/b/2019/ff0000-matte/side",
        ] {
            assert!(bad.parse::<VariantKey>().is_err(), "{bad}");
        }
    }
}
