//! Variant keys and render jobs.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{BodyShape, Color, Slug, View};

/// One cached render: make, model, year, colour, view (spec §1, "Images are
/// cached per make, model, year, color and view"). Size and format are derived
/// from the variant's source render and are not part of the key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VariantKey {
    pub make: Slug,
    pub model: Slug,
    pub year: u16,
    pub color: Color,
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

/// What a render node needs to draw one variant. The node never looks anything
/// up: the control plane resolves the body shape from the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderJob {
    pub variant: VariantKey,
    pub shape: BodyShape,
    /// Bumped when the renderer's output changes or a render is flagged for
    /// re-render; part of the object key and the ETag.
    pub revision: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_key_text_form() {
        let key = VariantKey {
            make: Slug::parse("toyota").unwrap(),
            model: Slug::parse("camry").unwrap(),
            year: 2019,
            color: Color::Red,
            view: View::Side,
        };
        assert_eq!(key.to_string(), "toyota/camry/2019/red/side");
    }
}
