//! The base colour a paint is drawn with (linear RGB, the shader's
//! `scene.paint`).
//!
//! A preset is drawn with its swatch, linearised, exactly as it always was
//! (its renders, hence its render revision, are unchanged). A custom colour
//! (`#RRGGBB`, a paint code) is drawn with the base colour whose flat-lit
//! paint (a uniform white studio: diffuse irradiance 1 plus the clear
//! coat's 4.5% reflection, then PBR Neutral and sRGB; `shaders/scene.wgsl`
//! tone-maps, `shaders/post.wgsl` encodes) is nearest the colour asked for in CIEDE2000.
//! Without it the clear coat lifts blacks darker than about `#141416`
//! (4.5% of a white studio is more than they reflect) and PBR Neutral
//! rolls off and whitens saturated peaks such as `#ff0000`; both missed by
//! more than 5 (docs/rendering.md, "Colours and paint codes").

use vis_protocol::{Paint, delta_e2000, lab, lab_of_linear};

/// The clear coat's reflection at normal incidence in the flat-lit check.
const COAT: f64 = 0.045;

/// The linear base colour of `paint`.
pub fn base_linear(paint: Paint) -> [f32; 3] {
    match paint {
        Paint::Named(c) => c.rgb().map(srgb_to_linear),
        Paint::Custom { rgb, .. } => compensated(rgb).map(|c| c as f32),
    }
}

pub(crate) fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The flat-lit paint of a linear base colour, linear (before the sRGB
/// encoding): the shader's flat-lit paint through `scene.wgsl`'s tone map.
pub fn flat_lit(base: [f64; 3]) -> [f64; 3] {
    tonemap(base.map(|c| c * (1.0 - COAT) + COAT))
}

/// Khronos PBR Neutral, as `shaders/scene.wgsl` writes it.
fn tonemap(x: [f64; 3]) -> [f64; 3] {
    let start = 0.8 - 0.04;
    let desaturation = 0.15;
    let m = x[0].min(x[1]).min(x[2]);
    let offset = if m < 0.08 { m - 6.25 * m * m } else { 0.04 };
    let mut c = x.map(|v| v - offset);
    let peak = c[0].max(c[1]).max(c[2]);
    if peak < start {
        return c;
    }
    let d = 1.0 - start;
    let new_peak = 1.0 - d * d / (peak + d - start);
    c = c.map(|v| v * new_peak / peak);
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    c.map(|v| v * (1.0 - g) + new_peak * g)
}

/// The base colour in [0, 1]³ whose flat-lit paint is nearest `rgb` in
/// CIEDE2000: a pattern search from the plain linearised colour (a few
/// hundred evaluations of a dozen lines of arithmetic, once per render).
fn compensated(rgb: [u8; 3]) -> [f64; 3] {
    let want = lab(rgb);
    let cost = |p: [f64; 3]| delta_e2000(lab_of_linear(flat_lit(p)), want);
    let mut p = rgb.map(|c| f64::from(srgb_to_linear(c)));
    let mut best = cost(p);
    let mut step = 0.05;
    while step > 1e-4 {
        let mut improved = false;
        for i in 0..3 {
            for s in [step, -step] {
                let mut q = p;
                q[i] = (q[i] + s).clamp(0.0, 1.0);
                let c = cost(q);
                if c < best - 1e-9 {
                    (p, best, improved) = (q, c, true);
                }
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use vis_protocol::{Color, Finish, delta_e_rgb};

    fn encode(c: f64) -> u8 {
        let v = if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }

    fn flat_srgb(base: [f32; 3]) -> [u8; 3] {
        flat_lit(base.map(f64::from)).map(encode)
    }

    #[test]
    fn presets_keep_their_swatch_as_base() {
        for c in Color::ALL {
            assert_eq!(base_linear(c.into()), c.rgb().map(srgb_to_linear), "{c}");
        }
    }

    #[test]
    fn custom_colours_come_out_within_5_where_the_plain_base_does_not() {
        for hex in [
            "#ff0000", "#0c0c0d", "#0e0e10", "#111113", "#101010", "#c0ffee",
        ] {
            let paint = Paint::parse_color(hex, Some(Finish::Solid)).unwrap();
            let got = flat_srgb(base_linear(paint));
            let de = delta_e_rgb(got, paint.rgb());
            assert!(de <= 5.0, "{hex}: {got:?} is {de:.2} away");
        }
        // A mid colour moves little: its plain base was already near.
        let p = Paint::parse_color("#12abef", None).unwrap();
        let plain = p.rgb().map(srgb_to_linear);
        let base = base_linear(p);
        assert!(
            base.iter().zip(plain).all(|(b, p)| (b - p).abs() < 0.06),
            "{base:?} {plain:?}"
        );
    }
}
