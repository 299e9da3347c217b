//! Contact sheet: every shape in every view, plus extra colours, for a
//! person to look at.

use vis_protocol::{BodyShape, Color, View};

use crate::image::{Rgba, resize};
use crate::sheet_font::draw_text;
use crate::{RenderError, Renderer, Subject};

/// Rows are shapes; columns the six views in the row's colour, then two
/// more colours in the hero (front-3-4) view. Cells are composited on white
/// and labelled: view names on top, shape and colour in each cell.
pub fn contact_sheet(
    renderer: &Renderer,
    cell: u32,
    shapes: &[BodyShape],
) -> Result<Rgba, RenderError> {
    let extra = 2;
    let cols = View::ALL.len() + extra;
    let rows = shapes.len();
    let header = 24;
    let (w, h) = (cell * cols as u32, cell * rows as u32 + header);
    let mut out = vec![255u8; (w * h * 4) as usize];
    for c in 0..cols {
        let label = if c < View::ALL.len() {
            View::ALL[c].id()
        } else {
            "front-3-4"
        };
        draw_text(&mut out, w, c as u32 * cell + 8, 6, 2, label);
    }
    for (r, shape) in shapes.iter().enumerate() {
        let r_all = BodyShape::ALL.iter().position(|s| s == shape).unwrap_or(r);
        let model = format!("{}-studio", shape.id());
        for c in 0..cols {
            let (view, color) = if c < View::ALL.len() {
                (View::ALL[c], Color::ALL[r_all % Color::ALL.len()])
            } else {
                (
                    View::Front34,
                    Color::ALL[(r_all + 5 * (c - View::ALL.len() + 1)) % Color::ALL.len()],
                )
            };
            let img = renderer.render_subject(&Subject {
                make: "sheet",
                model: &model,
                year: 2015 + (r_all as u16 % 10),
                shape: *shape,
                color: color.into(),
                view,
                variation: 0,
                staging: Default::default(),
            })?;
            let small = resize(&img, cell, cell)?;
            let (x0, y0) = (c as u32 * cell, r as u32 * cell + header);
            blit_on_white(&mut out, w, &small, x0, y0);
            let label = format!("{} {}", shape.id(), color.id());
            draw_text(&mut out, w, x0 + 8, y0 + 6, 1, &label);
        }
    }
    Ok(Rgba::new(w, h, out)?)
}

fn blit_on_white(dst: &mut [u8], dst_w: u32, src: &Rgba, x0: u32, y0: u32) {
    for y in 0..src.height {
        for x in 0..src.width {
            let p = src.pixel(x, y);
            let a = u32::from(p[3]);
            let i = (((y0 + y) * dst_w + x0 + x) * 4) as usize;
            for k in 0..3 {
                dst[i + k] = ((u32::from(p[k]) * a + 255 * (255 - a) + 127) / 255) as u8;
            }
            dst[i + 3] = 255;
        }
    }
}

/// One vehicle of a named sheet: `year make model [colour] [shape]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetVehicle {
    pub year: u16,
    pub make: String,
    pub model: String,
    pub color: Option<Color>,
    pub shape: Option<BodyShape>,
}

/// Parses a sheet list: one vehicle a line, `year make model [colour]
/// [shape]` (make and model are catalog slugs), `#` starts a comment.
pub fn parse_vehicle_list(text: &str) -> Result<Vec<SheetVehicle>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", n + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [year, make, model, rest @ ..] = words.as_slice() else {
            return Err(at(format!(
                "want `year make model [colour] [shape]`, got {line:?}"
            )));
        };
        let year: u16 = year
            .parse()
            .map_err(|_| at(format!("year {year:?} is not a number")))?;
        let mut v = SheetVehicle {
            year,
            make: (*make).to_owned(),
            model: (*model).to_owned(),
            color: None,
            shape: None,
        };
        for w in rest {
            if let Ok(c) = w.parse::<Color>() {
                v.color = Some(c);
            } else if let Ok(s) = w.parse::<BodyShape>() {
                v.shape = Some(s);
            } else {
                return Err(at(format!("{w:?} is neither a colour nor a body shape")));
            }
        }
        out.push(v);
    }
    Ok(out)
}

/// A named list of vehicles, one row each in all six views, composited on
/// white and labelled with year, make, model and the curated generation
/// (or `norms` for a model drawn from its era's norms). A vehicle without
/// a colour gets one from a fixed cycle; without a shape, its curated body
/// style (sedan when there is none). `staging` stages every vehicle
/// (`scale=relative` makes the rows a size comparison).
pub fn vehicle_sheet(
    renderer: &Renderer,
    cell: u32,
    vehicles: &[SheetVehicle],
    staging: vis_protocol::Staging,
) -> Result<Rgba, RenderError> {
    let cols = View::ALL.len();
    let header = 24;
    let (w, h) = (cell * cols as u32, cell * vehicles.len() as u32 + header);
    let mut out = vec![255u8; (w * h * 4) as usize];
    let scale = if cell >= 160 { 2 } else { 1 };
    for (c, view) in View::ALL.iter().enumerate() {
        draw_text(&mut out, w, c as u32 * cell + 8, 6, scale, view.id());
    }
    const CYCLE: [Color; 8] = [
        Color::Red,
        Color::Blue,
        Color::Silver,
        Color::Green,
        Color::White,
        Color::Orange,
        Color::Black,
        Color::Yellow,
    ];
    for (r, v) in vehicles.iter().enumerate() {
        let models = renderer.models();
        let (make, model) = models.drawn_as(&v.make, &v.model, v.year);
        let generation = models.identity().lookup(make, model, v.year);
        let shape = v
            .shape
            .or(generation.map(|g| g.body))
            .unwrap_or(BodyShape::Sedan);
        let color = v.color.unwrap_or(CYCLE[r % CYCLE.len()]);
        let label = format!(
            "{} {} {} {}",
            v.year,
            v.make,
            v.model,
            generation.map_or("norms".to_owned(), |g| g.code.to_lowercase())
        );
        for (c, view) in View::ALL.iter().enumerate() {
            let img = renderer.render_subject(&Subject {
                make: &v.make,
                model: &v.model,
                year: v.year,
                shape,
                color: color.into(),
                view: *view,
                variation: 0,
                staging,
            })?;
            let small = resize(&img, cell, cell)?;
            let (x0, y0) = (c as u32 * cell, r as u32 * cell + header);
            blit_on_white(&mut out, w, &small, x0, y0);
            if c == 0 {
                draw_text(&mut out, w, x0 + 8, y0 + 6, 1, &label);
            }
        }
    }
    Ok(Rgba::new(w, h, out)?)
}
