//! The vocabulary shared by the control plane and render nodes.
//!
//! Every value here parses from the spellings the public API accepts (spec §2,
//! Enumerations) and prints its canonical id. An invalid value cannot be
//! constructed, so code that holds a [`View`] or a [`Slug`] never re-validates.

mod framing;
pub mod nodes;
#[cfg(feature = "openapi")]
mod openapi;
mod paint;
pub mod paints;
mod params;
mod shape;
mod slug;
mod variant;

pub use framing::{Background, Fit, Framing, FramingError, PADDING_MAX};
pub use paint::{
    ColorParseError, Finish, Paint, delta_e_rgb, delta_e2000, hex_of, lab, lab_of_linear,
};
pub use params::{Angle, Color, Format, FormatChoice, ParseError, SizePreset, View};
pub use shape::BodyShape;
pub use slug::{Slug, slugify};
pub use variant::{RenderJob, Scale, Staging, VariantKey, vehicle_of};

/// The edge of every source render, in pixels (spec §1: square 1024x1024).
pub const SOURCE_PX: u32 = 1024;
