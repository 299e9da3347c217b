//! Framing a render in its output (`vis_protocol::Framing`): crop to the
//! vehicle (`trim`), contain it in or let it cover a box with a margin
//! (`fit`, `padding`), and put a background behind it (`background`).
//! Pure pixel work on the CPU, after the render and before encoding.

use std::borrow::Cow;

use fast_image_resize as fr;
use vis_protocol::{Background, Fit, Framing};

use super::{ImageError, Rgba};

/// An alpha at or above this is part of the vehicle (or the dense core of
/// its contact shadow) when trimming: the faint outer blur of the shadow is
/// left out, so a trimmed vehicle fills its box.
const TRIM_ALPHA: u8 = 24;

/// A rectangle of the source, in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Region {
    fn whole(img: &Rgba) -> Region {
        Region {
            x: 0.0,
            y: 0.0,
            w: f64::from(img.width),
            h: f64::from(img.height),
        }
    }
}

/// The smallest rectangle that holds every pixel of the vehicle; the
/// whole image when nothing is there.
pub fn vehicle_bounds(img: &Rgba) -> Region {
    let (w, h) = (img.width as usize, img.height as usize);
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let row = &img.pixels[y * w * 4..(y + 1) * w * 4];
        let mut alphas = row.chunks_exact(4).map(|p| p[3] >= TRIM_ALPHA);
        let Some(first) = alphas.position(|solid| solid) else {
            continue;
        };
        let last = row
            .chunks_exact(4)
            .rposition(|p| p[3] >= TRIM_ALPHA)
            .expect("a solid pixel exists in this row");
        (x0, x1) = (x0.min(first), x1.max(last + 1));
        (y0, y1) = (y0.min(y), y + 1);
    }
    if x1 <= x0 || y1 <= y0 {
        return Region::whole(img);
    }
    Region {
        x: x0 as f64,
        y: y0 as f64,
        w: (x1 - x0) as f64,
        h: (y1 - y0) as f64,
    }
}

/// Frames `src` in a `w` x `h` output (the size `Framing::output_size`
/// gives; the caller decides it, so it is known before any render).
/// A framing without `fit` only resizes (to `w` x `h`) and adds the
/// background.
pub fn frame<'a>(
    src: &'a Rgba,
    framing: &Framing,
    w: u32,
    h: u32,
) -> Result<Cow<'a, Rgba>, ImageError> {
    let placed = match framing.fit {
        None if (w, h) == (src.width, src.height) => Cow::Borrowed(src),
        None => Cow::Owned(super::resize(src, w, h)?),
        Some(fit) => {
            let region = if framing.trim {
                vehicle_bounds(src)
            } else {
                Region::whole(src)
            };
            Cow::Owned(place(src, region, fit, w, h, framing.padding)?)
        }
    };
    Ok(match framing.background {
        Background::Transparent => placed,
        bg => Cow::Owned(over_background(&placed, bg)),
    })
}

/// `region` of `src` in a `w` x `h` canvas: whole and centred inside the
/// padding (`Contain`), or filling the canvas with the region's centre
/// (`Cover`, the padding then 0 by the framing's rules).
fn place(
    src: &Rgba,
    region: Region,
    fit: Fit,
    w: u32,
    h: u32,
    padding: u32,
) -> Result<Rgba, ImageError> {
    let (fw, fh) = (f64::from(w), f64::from(h));
    match fit {
        Fit::Cover => {
            // The largest part of the region with the box's shape, centred,
            // grown inside the source when the region is too narrow.
            let scale = (fw / region.w).max(fh / region.h);
            let (cw, ch) = (
                (fw / scale).min(f64::from(src.width)),
                (fh / scale).min(f64::from(src.height)),
            );
            let cx = (region.x + region.w / 2.0 - cw / 2.0).clamp(0.0, f64::from(src.width) - cw);
            let cy = (region.y + region.h / 2.0 - ch / 2.0).clamp(0.0, f64::from(src.height) - ch);
            resize_region(
                src,
                Region {
                    x: cx,
                    y: cy,
                    w: cw,
                    h: ch,
                },
                w,
                h,
            )
        }
        Fit::Contain => {
            let inner = (fw - 2.0 * f64::from(padding), fh - 2.0 * f64::from(padding));
            let scale = (inner.0 / region.w).min(inner.1 / region.h);
            let pw = ((region.w * scale).round() as u32).clamp(1, w);
            let ph = ((region.h * scale).round() as u32).clamp(1, h);
            let picture = resize_region(src, region, pw, ph)?;
            let mut canvas = vec![0u8; w as usize * h as usize * 4];
            let (ox, oy) = ((w - pw) / 2, (h - ph) / 2);
            let row = pw as usize * 4;
            for y in 0..ph as usize {
                let dst = ((oy as usize + y) * w as usize + ox as usize) * 4;
                canvas[dst..dst + row].copy_from_slice(&picture.pixels[y * row..(y + 1) * row]);
            }
            Rgba::new(w, h, canvas)
        }
    }
}

/// Lanczos3 of one region of `src` to `w` x `h`, alpha premultiplied.
fn resize_region(src: &Rgba, region: Region, w: u32, h: u32) -> Result<Rgba, ImageError> {
    let err = |e: String| ImageError::Resize(e);
    let src_img =
        fr::images::ImageRef::new(src.width, src.height, &src.pixels, fr::PixelType::U8x4)
            .map_err(|e| err(e.to_string()))?;
    let mut dst = fr::images::Image::new(w, h, fr::PixelType::U8x4);
    let opts = fr::ResizeOptions::new()
        .resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3))
        .use_alpha(true)
        .crop(region.x, region.y, region.w, region.h);
    fr::Resizer::new()
        .resize(&src_img, &mut dst, &opts)
        .map_err(|e| err(e.to_string()))?;
    Rgba::new(w, h, dst.into_vec())
}

/// `img` over an opaque background: every pixel's alpha becomes 255.
fn over_background(img: &Rgba, bg: Background) -> Rgba {
    let (w, h) = (img.width, img.height);
    let mut out = Vec::with_capacity(img.pixels.len());
    for (i, px) in img.pixels.chunks_exact(4).enumerate() {
        let (x, y) = (i as u32 % w, i as u32 / w);
        let back = match bg {
            Background::Color(rgb) => rgb,
            Background::Studio => studio(x, y, w, h),
            Background::Transparent => unreachable!("only opaque backgrounds are composited"),
        };
        let a = u32::from(px[3]);
        for c in 0..3 {
            let v = (u32::from(px[c]) * a + u32::from(back[c]) * (255 - a) + 127) / 255;
            out.push(v as u8);
        }
        out.push(255);
    }
    Rgba {
        width: w,
        height: h,
        pixels: out,
    }
}

/// The studio backdrop at one pixel: a seamless sweep, light grey at the
/// top darkening towards the floor, with a soft pool of light behind the
/// middle of the frame; dithered by less than a level so that no band
/// shows in an 8-bit or lossy output.
fn studio(x: u32, y: u32, w: u32, h: u32) -> [u8; 3] {
    const TOP: [f32; 3] = [242.0, 243.0, 245.0];
    const FLOOR: [f32; 3] = [214.0, 217.0, 222.0];
    let (fx, fy) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
    // The sweep: flat upper wall, the curve into the floor below the middle.
    let t = ((fy - 0.35) / 0.65).clamp(0.0, 1.0);
    let sweep = t * t * (3.0 - 2.0 * t);
    // The pool of light: an ellipse wider than tall, centred a little high.
    let (dx, dy) = ((fx - 0.5) / 0.75, (fy - 0.45) / 0.6);
    let light = (1.0 - (dx * dx + dy * dy)).max(0.0) * 10.0;
    let noise = {
        let mut v = x.wrapping_mul(0x9e37_79b1) ^ y.wrapping_mul(0x85eb_ca77);
        v ^= v >> 15;
        v = v.wrapping_mul(0x2c1b_3c6d);
        v ^= v >> 12;
        (v & 0xff) as f32 / 255.0 - 0.5
    };
    let mut rgb = [0u8; 3];
    for c in 0..3 {
        let v = TOP[c] + (FLOOR[c] - TOP[c]) * sweep + light + noise;
        rgb[c] = v.round().clamp(0.0, 255.0) as u8;
    }
    rgb
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 100 x 100 transparent image with an opaque 40 x 20 block at
    /// (10, 60), like a vehicle low and left in its frame.
    fn block() -> Rgba {
        let mut px = vec![0u8; 100 * 100 * 4];
        for y in 60..80 {
            for x in 10..50 {
                px[(y * 100 + x) * 4..][..4].copy_from_slice(&[200, 30, 30, 255]);
            }
        }
        Rgba::new(100, 100, px).unwrap()
    }

    fn framing(bg: Background, fit: Option<Fit>, trim: bool, padding: u32) -> Framing {
        Framing {
            background: bg,
            fit,
            trim,
            padding,
        }
    }

    #[test]
    fn trim_finds_the_vehicle_and_ignores_the_faint_shadow() {
        let mut img = block();
        img.pixels[(90 * 100 + 90) * 4 + 3] = TRIM_ALPHA - 1;
        assert_eq!(
            vehicle_bounds(&img),
            Region {
                x: 10.0,
                y: 60.0,
                w: 40.0,
                h: 20.0
            }
        );
        let empty = Rgba::new(4, 4, vec![0; 64]).unwrap();
        assert_eq!(vehicle_bounds(&empty), Region::whole(&empty));
    }

    #[test]
    fn a_trimmed_vehicle_fills_its_box_inside_the_padding() {
        let f = framing(Background::Transparent, Some(Fit::Contain), true, 10);
        let src = block();
        let out = frame(&src, &f, 200, 100).unwrap();
        assert_eq!((out.width, out.height), (200, 100));
        // 40 x 20 scaled into 180 x 80: 160 x 80, centred: x 20..180, y 10..90.
        assert_eq!(out.pixel(100, 50)[3], 255);
        assert_eq!(out.pixel(25, 50)[3], 255);
        assert_eq!(out.pixel(15, 50)[3], 0, "left of the picture");
        assert_eq!(out.pixel(100, 5)[3], 0, "inside the top padding");
        assert_eq!(out.pixel(100, 95)[3], 0, "inside the bottom padding");
    }

    #[test]
    fn cover_fills_the_box_from_the_centre() {
        let f = framing(Background::Transparent, Some(Fit::Cover), true, 0);
        let src = block();
        let out = frame(&src, &f, 50, 50).unwrap();
        assert_eq!((out.width, out.height), (50, 50));
        // The block's middle 20 x 20 scaled to 50 x 50: solid everywhere
        // but the top and bottom rows, where the filter reaches past the
        // block's own edge (as it should: the crop is not an edge of the
        // picture).
        for y in 3..47 {
            for x in 0..50 {
                assert!(out.pixel(x, y)[3] > 200, "({x}, {y})");
            }
        }
    }

    #[test]
    fn backgrounds_make_every_pixel_opaque_and_keep_the_vehicle() {
        for bg in [
            Background::WHITE,
            Background::Color([10, 20, 30]),
            Background::Studio,
        ] {
            let src = block();
            let out = frame(&src, &framing(bg, None, false, 0), 100, 100).unwrap();
            assert!(out.pixels.chunks_exact(4).all(|p| p[3] == 255), "{bg:?}");
            assert_eq!(out.pixel(20, 70), [200, 30, 30, 255], "{bg:?}");
            if let Background::Color(rgb) = bg {
                assert_eq!(out.pixel(90, 10)[..3], rgb);
            }
        }
    }

    #[test]
    fn the_studio_sweep_is_light_above_darker_below_and_unbanded() {
        let top = studio(512, 10, 1024, 1024);
        let floor = studio(512, 1010, 1024, 1024);
        assert!(top.iter().all(|c| *c >= 238), "{top:?}");
        assert!(floor.iter().zip(top).all(|(f, t)| *f + 15 < t), "{floor:?}");
        // Neighbouring pixels differ by at most one level (dither, no steps).
        for y in 0..1023 {
            let (a, b) = (studio(700, y, 1024, 1024), studio(700, y + 1, 1024, 1024));
            assert!(a.iter().zip(b).all(|(a, b)| a.abs_diff(b) <= 2), "row {y}");
        }
    }
}
