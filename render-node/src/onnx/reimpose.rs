//! After refinement: the procedural render's silhouette, transparency and
//! paint colour are put back (on the CPU).
//!
//! - Alpha is the procedural alpha, byte for byte: the refined image never
//!   changes what is transparent, nor the contact shadow.
//! - Outside the vehicle (background, shadow) the colour is the procedural
//!   colour. Inside, the refined colour is used, fading to the procedural one
//!   over the last few pixels before the silhouette (the coverage mask eroded
//!   by 2 px, then blurred over 5x5), so the studio background the model saw
//!   around the vehicle never bleeds into its edges.
//! - On paint (and the contrasting roof), hue and saturation are the
//!   procedural pixel's, and the value (brightness) is the refined one,
//!   scaled so the paint's mean brightness matches the procedural render:
//!   the model adds reflections and shading but cannot change the requested
//!   colour.

use super::guide::Guide;
use crate::image::Rgba;

/// Pixels of fade inside the silhouette.
const ERODE: usize = 2;
const BLUR: usize = 2;

/// Combines the procedural render and its refinement (`refined`: RGB8, same
/// size) using the guide's coverage and paint mask (same size).
pub fn reimpose(procedural: &Rgba, refined: &[u8], guide: &Guide) -> Rgba {
    let n = procedural.width as usize;
    assert_eq!(procedural.height as usize, n, "square renders");
    assert_eq!(guide.size as usize, n, "guide and render sizes differ");
    assert_eq!(refined.len(), n * n * 3, "refined image size");
    let weight = inside_weight(guide, n);

    // Exposure match over fully inside, opaque paint.
    let (mut sum_p, mut sum_r, mut count) = (0.0f64, 0.0f64, 0usize);
    for i in 0..n * n {
        if guide.is_paint(i) && weight[i] >= 0.999 && procedural.pixels[i * 4 + 3] == 255 {
            sum_p += f64::from(value(&procedural.pixels[i * 4..i * 4 + 3]));
            sum_r += f64::from(value(&refined[i * 3..i * 3 + 3]));
            count += 1;
        }
    }
    let gain = if count > 0 && sum_r > 1e-3 * count as f64 {
        (sum_p / sum_r).clamp(0.25, 4.0) as f32
    } else {
        1.0
    };

    let mut out = vec![0u8; n * n * 4];
    for i in 0..n * n {
        let p = &procedural.pixels[i * 4..i * 4 + 4];
        let a = p[3];
        if a == 0 {
            continue; // transparent: colour zeroed, as the post pass does
        }
        let w = weight[i];
        let o = &mut out[i * 4..i * 4 + 4];
        o[3] = a;
        if w <= 0.0 {
            o[..3].copy_from_slice(&p[..3]);
            continue;
        }
        let r = &refined[i * 3..i * 3 + 3];
        let target = if guide.keeps_hue(i) {
            let (h, s, _) = hsv(p);
            let v = (value(r) * gain).min(1.0);
            rgb(h, s, v)
        } else {
            [r[0], r[1], r[2]].map(|c| f32::from(c) / 255.0)
        };
        for c in 0..3 {
            let pc = f32::from(p[c]) / 255.0;
            o[c] = ((pc + (target[c] - pc) * w) * 255.0)
                .round()
                .clamp(0.0, 255.0) as u8;
        }
    }
    Rgba {
        width: procedural.width,
        height: procedural.height,
        pixels: out,
    }
}

/// 1 well inside the vehicle, 0 outside, a ramp just inside the silhouette.
fn inside_weight(guide: &Guide, n: usize) -> Vec<f32> {
    let cover: Vec<f32> = (0..n * n)
        .map(|i| if guide.covered(i) { 1.0 } else { 0.0 })
        .collect();
    // Erosion of a 0/1 mask: a pixel stays 1 when its whole window is 1.
    let full = (2 * ERODE + 1) as f32;
    let rows: Vec<f32> = box_sum(&cover, n, ERODE, true)
        .into_iter()
        .map(|v| if v >= full - 0.5 { 1.0 } else { 0.0 })
        .collect();
    let eroded: Vec<f32> = box_sum(&rows, n, ERODE, false)
        .into_iter()
        .map(|v| if v >= full - 0.5 { 1.0 } else { 0.0 })
        .collect();
    let len = ((2 * BLUR + 1) * (2 * BLUR + 1)) as f32;
    let blurred = box_sum(&box_sum(&eroded, n, BLUR, true), n, BLUR, false);
    blurred.into_iter().map(|v| v / len).collect()
}

/// Sums over a (2r+1) window along rows (or columns) with running sums;
/// samples outside the image count as 0. Inputs are small integers, so the
/// float sums are exact.
fn box_sum(src: &[f32], n: usize, r: usize, horizontal: bool) -> Vec<f32> {
    let mut dst = vec![0.0f32; n * n];
    if horizontal {
        for (s, d) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)) {
            let mut sum: f32 = s[..r.min(n)].iter().sum();
            for k in 0..n {
                if k + r < n {
                    sum += s[k + r];
                }
                if k > r {
                    sum -= s[k - r - 1];
                }
                d[k] = sum;
            }
        }
    } else {
        // Row by row, one running sum per column: cache-friendly.
        let mut sum = vec![0.0f32; n];
        for row in src.chunks_exact(n).take(r.min(n)) {
            sum.iter_mut().zip(row).for_each(|(a, b)| *a += b);
        }
        for k in 0..n {
            if k + r < n {
                let add = &src[(k + r) * n..(k + r + 1) * n];
                sum.iter_mut().zip(add).for_each(|(a, b)| *a += b);
            }
            if k > r {
                let sub = &src[(k - r - 1) * n..(k - r) * n];
                sum.iter_mut().zip(sub).for_each(|(a, b)| *a -= b);
            }
            dst[k * n..(k + 1) * n].copy_from_slice(&sum);
        }
    }
    dst
}

fn value(p: &[u8]) -> f32 {
    f32::from(p[0].max(p[1]).max(p[2])) / 255.0
}

/// Hue (degrees), saturation and value of an sRGB8 pixel.
pub fn hsv(p: &[u8]) -> (f32, f32, f32) {
    let [r, g, b] = [p[0], p[1], p[2]].map(|c| f32::from(c) / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let h = if d < 1e-6 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    let s = if max > 0.0 { d / max } else { 0.0 };
    (h, s, max)
}

fn rgb(h: f32, s: f32, v: f32) -> [f32; 3] {
    let c = v * s;
    let hp = (h / 60.0).rem_euclid(6.0);
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r + m, g + m, b + m]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::guide::NO_MATERIAL;
    use crate::vehicle::Material;

    fn hue_distance(a: f32, b: f32) -> f32 {
        let d = (a - b).abs() % 360.0;
        d.min(360.0 - d)
    }

    /// A 64 px "render": a red paint disc with a glass band and a dark
    /// roof band, anti-aliased edge alpha, a grey-black shadow below;
    /// refined = unrelated colours.
    #[test]
    fn alpha_outside_colour_and_paint_hue_come_back_from_the_procedural_render() {
        let n = 64usize;
        let mut px = vec![0u8; n * n * 4];
        let mut material = vec![NO_MATERIAL; n * n];
        for y in 0..n {
            for x in 0..n {
                let i = y * n + x;
                let d = ((x as f32 - 32.0).powi(2) + (y as f32 - 28.0).powi(2)).sqrt();
                if d < 20.0 {
                    let shade = (200.0 - d * 4.0) as u8;
                    px[i * 4..i * 4 + 4].copy_from_slice(&[shade, shade / 8, shade / 7, 255]);
                    material[i] = if y < 20 {
                        Material::Glass as u8
                    } else if y < 24 {
                        px[i * 4..i * 4 + 3].copy_from_slice(&[40, 40, 44]);
                        Material::Roof as u8
                    } else {
                        Material::Paint as u8
                    };
                } else if d < 21.0 {
                    px[i * 4..i * 4 + 4].copy_from_slice(&[150, 20, 25, 128]);
                } else if y > 50 && y < 56 {
                    px[i * 4 + 3] = 90; // shadow: black, partly opaque
                }
            }
        }
        let procedural = Rgba::new(n as u32, n as u32, px).unwrap();
        let guide = Guide {
            size: n as u32,
            material,
            depth: vec![1.0; n * n],
        };
        let refined: Vec<u8> = (0..n * n * 3).map(|i| ((i * 37) % 251) as u8).collect();
        let out = reimpose(&procedural, &refined, &guide);

        let (mut paint, mut roof) = (0, 0);
        for i in 0..n * n {
            let (p, o) = (
                &procedural.pixels[i * 4..i * 4 + 4],
                &out.pixels[i * 4..i * 4 + 4],
            );
            assert_eq!(o[3], p[3], "alpha at {i}");
            if p[3] == 0 {
                assert_eq!(o, [0, 0, 0, 0]);
            } else if !guide.covered(i) {
                assert_eq!(o, p, "outside the vehicle at {i}");
            }
            let (hp, sp, _) = hsv(p);
            let (ho, so, vo) = hsv(o);
            if guide.is_paint(i) && vo > 0.15 && sp > 0.3 {
                assert!(hue_distance(hp, ho) < 6.0, "hue {hp} -> {ho} at {i}");
                assert!((sp - so).abs() < 0.1, "saturation {sp} -> {so} at {i}");
                paint += 1;
            }
            // The roof stays as grey as drawn, whatever the model made of it.
            if guide.keeps_hue(i) && !guide.is_paint(i) && vo > 0.15 {
                assert!(
                    (sp - so).abs() < 0.05,
                    "roof saturation {sp} -> {so} at {i}"
                );
                roof += 1;
            }
        }
        assert!(paint > 500, "{paint} paint pixels checked");
        assert!(roof > 50, "{roof} roof pixels checked");
        // The glass band takes the refined colour well inside the silhouette.
        let i = 14 * n + 32;
        assert_eq!(&out.pixels[i * 4..i * 4 + 3], &refined[i * 3..i * 3 + 3]);
    }

    #[test]
    fn box_sums_match_a_direct_window_sum() {
        let n = 9;
        let src: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 3) as f32).collect();
        for horizontal in [true, false] {
            let got = box_sum(&src, n, 2, horizontal);
            for y in 0..n {
                for x in 0..n {
                    let mut want = 0.0;
                    for d in -2isize..=2 {
                        let (xx, yy) = if horizontal {
                            (x as isize + d, y as isize)
                        } else {
                            (x as isize, y as isize + d)
                        };
                        if (0..n as isize).contains(&xx) && (0..n as isize).contains(&yy) {
                            want += src[yy as usize * n + xx as usize];
                        }
                    }
                    assert_eq!(got[y * n + x], want, "({x},{y}) horizontal {horizontal}");
                }
            }
        }
    }

    #[test]
    fn hsv_round_trips() {
        for p in [
            [179u8, 18, 28],
            [31, 78, 168],
            [242, 196, 20],
            [107, 110, 115],
            [0, 0, 0],
        ] {
            let (h, s, v) = hsv(&p);
            let back = rgb(h, s, v).map(|c| (c * 255.0).round() as u8);
            assert_eq!(back, p);
        }
    }
}
