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
                color,
                view,
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
