//! Alt text for an image: what a screen reader says for the `<img>` tag
//! ("Red 2019 Toyota Camry saloon, front three-quarter view"), from the
//! variant and the catalog's names and body shape.

use vis_catalog::Catalog;
use vis_protocol::{BodyShape, View};

use super::Resolved;

/// The body style in words (British English, as the docs).
pub fn body_words(shape: BodyShape) -> &'static str {
    match shape {
        BodyShape::Sedan => "saloon",
        BodyShape::Coupe => "coupe",
        BodyShape::Convertible => "convertible",
        BodyShape::Hatchback => "hatchback",
        BodyShape::Wagon => "estate",
        BodyShape::Suv => "SUV",
        BodyShape::Crossover => "crossover",
        BodyShape::Pickup => "pickup truck",
        BodyShape::Minivan => "people carrier",
        BodyShape::Van => "van",
        BodyShape::BoxTruck => "box truck",
        BodyShape::Bus => "bus",
        BodyShape::Motorcycle => "motorcycle",
    }
}

/// The view in words; an angle by the side it shows, with its degrees
/// ("front-left three-quarter view, 30°").
pub fn view_words(view: View) -> String {
    let words = match view {
        View::Front => "front view",
        View::Front34 => "front three-quarter view",
        View::Side => "left side view",
        View::SideRight => "right side view",
        View::Rear => "rear view",
        View::Rear34 => "rear three-quarter view",
        View::Top => "view from above",
        View::Angle(a) => {
            let words = match a.degrees() {
                0 => "front view",
                90 => "left side view",
                180 => "rear view",
                270 => "right side view",
                d if d < 90 => "front-left three-quarter view",
                d if d < 180 => "rear-left three-quarter view",
                d if d < 270 => "rear-right three-quarter view",
                _ => "front-right three-quarter view",
            };
            return format!("{words}, {}°", a.degrees());
        }
    };
    words.to_owned()
}

/// `{Colour} {year} {Make} {Model} {body}, {view}`: the colour is what
/// `color_match` names it (a preset, the make's paint, or for another
/// colour the nearest of those), the names are the catalog's.
pub fn alt_text(catalog: &Catalog, r: &Resolved) -> String {
    alt_text_as(catalog, r, &view_words(r.variant.view))
}

/// [`alt_text`] with other words for the view ("360° spin").
pub fn alt_text_as(catalog: &Catalog, r: &Resolved, view: &str) -> String {
    let v = &r.variant;
    describe(
        catalog,
        v.make.as_str(),
        v.model.as_str(),
        v.year,
        &r.color_match().name,
        view,
    )
}

/// Alt text for a catalog vehicle (slugs) in a colour named `colour`.
pub fn alt_of(
    catalog: &Catalog,
    make: &str,
    model: &str,
    year: u16,
    colour: &str,
    view: View,
) -> String {
    describe(catalog, make, model, year, colour, &view_words(view))
}

fn describe(
    catalog: &Catalog,
    make: &str,
    model: &str,
    year: u16,
    colour: &str,
    view: &str,
) -> String {
    let (make, model, body) = match catalog.lookup(make, model, year) {
        Ok(found) => (
            found.make.name.clone(),
            found.model.name.clone(),
            format!(" {}", body_words(found.shape)),
        ),
        Err(_) => (make.to_owned(), model.to_owned(), String::new()),
    };
    let mut chars = colour.chars();
    let colour: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    format!("{colour} {year} {make} {model}{body}, {view}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::{ImageParams, PaintRequest, resolve};
    use vis_protocol::{Color, FormatChoice, Paint};

    fn params(color: Paint, paint: Option<&str>, view: View) -> ImageParams {
        ImageParams {
            make: "toyota".into(),
            model: "camry".into(),
            year: 2019,
            view,
            color,
            paint: paint.map(|code| PaintRequest {
                code: code.into(),
                finish: None,
            }),
            width: None,
            height: None,
            format: FormatChoice::default(),
            framing: vis_protocol::Framing::default(),
            staging: Default::default(),
        }
    }

    #[test]
    fn alt_text_names_colour_year_make_model_body_and_view() {
        let catalog = Catalog::embedded();
        let alt = |p: ImageParams| alt_text(catalog, &resolve(catalog, &p, 1).unwrap());
        assert_eq!(
            alt(params(Color::Red.into(), None, View::Front34)),
            "Red 2019 Toyota Camry saloon, front three-quarter view"
        );
        assert_eq!(
            alt(params(Paint::default(), Some("3R3"), View::Side)),
            "Barcelona Red Metallic 2019 Toyota Camry saloon, left side view"
        );
        let near_red = Paint::parse_color("#b0121c", None).unwrap();
        assert_eq!(
            alt(params(near_red, None, View::Rear)),
            "Red 2019 Toyota Camry saloon, rear view"
        );
        let angle = |d| View::Angle(vis_protocol::Angle::new(d).unwrap());
        assert_eq!(
            alt(params(Color::Red.into(), None, angle(30))),
            "Red 2019 Toyota Camry saloon, front-left three-quarter view, 30°"
        );
        assert_eq!(
            alt(params(Color::Red.into(), None, angle(270))),
            "Red 2019 Toyota Camry saloon, right side view, 270°"
        );
        assert_eq!(
            alt(params(Color::Red.into(), None, angle(330))),
            "Red 2019 Toyota Camry saloon, front-right three-quarter view, 330°"
        );
        assert_eq!(
            alt(params(Color::Red.into(), None, View::Top)),
            "Red 2019 Toyota Camry saloon, view from above"
        );
    }
}
