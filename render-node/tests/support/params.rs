//! A curated generation's body parameters as the renderer resolves them:
//! its own body style comes from `models/identity/`, so the shape asked
//! for (a saloon) matters only to an uncurated model.

use vis_protocol::BodyShape;
use vis_render::vehicle::{ModelLibrary, Params};

pub fn curated(make: &str, model: &str, year: u16) -> Params {
    Params::resolve(
        &ModelLibrary::embedded(),
        BodyShape::Sedan,
        make,
        model,
        year,
    )
}
