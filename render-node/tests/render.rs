//! Renderer tests on real renders (lavapipe without a GPU): properties on
//! every shape and view, a few golden images, shader validation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use vis_protocol::{BodyShape, Color, View};
use vis_render::image::{Rgba, decode_png, resize};
use vis_render::vehicle::{self, Material, ModelLibrary, Params, framing};
use vis_render::{Renderer, RendererConfig, Subject};

#[path = "support/golden.rs"]
mod golden;

fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| Renderer::new(RendererConfig::default()).expect("renderer starts"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Chromatic colours, one per shape, so the hue check means something.
const SHAPE_COLORS: [Color; 8] = [
    Color::Red,
    Color::Blue,
    Color::Green,
    Color::Orange,
    Color::Yellow,
    Color::Purple,
    Color::Gold,
    Color::Burgundy,
];

fn shape_color(shape: BodyShape) -> Color {
    let i = BodyShape::ALL.iter().position(|s| *s == shape).unwrap();
    SHAPE_COLORS[i % SHAPE_COLORS.len()]
}

/// Every shape in every view, rendered once for all the property tests.
fn all_views() -> &'static BTreeMap<(BodyShape, View), Rgba> {
    static ALL: OnceLock<BTreeMap<(BodyShape, View), Rgba>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut m = BTreeMap::new();
        for shape in BodyShape::ALL {
            for view in View::ALL {
                let img = renderer()
                    .render_subject(&Subject {
                        make: "test",
                        model: shape.id(),
                        year: 2018,
                        shape,
                        color: shape_color(shape).into(),
                        view,
                        variation: 0,
                        staging: Default::default(),
                    })
                    .unwrap();
                m.insert((shape, view), img);
            }
        }
        m
    })
}

/// Opaque vehicle pixels (the shadow never reaches this alpha).
fn mask(img: &Rgba) -> Vec<bool> {
    img.pixels.chunks_exact(4).map(|p| p[3] >= 250).collect()
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let inter = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let union = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    inter as f64 / union.max(1) as f64
}

fn hsv(p: [u8; 4]) -> (f32, f32, f32) {
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

fn hue_distance(a: f32, b: f32) -> f32 {
    let d = (a - b).abs() % 360.0;
    d.min(360.0 - d)
}

#[test]
fn corners_are_fully_transparent_on_every_shape_and_view() {
    for ((shape, view), img) in all_views() {
        let n = img.width;
        for (x0, y0) in [(0, 0), (n - 16, 0), (0, n - 16), (n - 16, n - 16)] {
            for y in y0..y0 + 16 {
                for x in x0..x0 + 16 {
                    assert_eq!(
                        img.pixel(x, y)[3],
                        0,
                        "{shape} {view}: corner pixel ({x},{y}) not transparent"
                    );
                }
            }
        }
    }
}

#[test]
fn vehicle_bounding_box_is_centred_inside_the_frame_margins() {
    for ((shape, view), img) in all_views() {
        let n = img.width as usize;
        let m = mask(img);
        let (mut x0, mut x1, mut y0, mut y1) = (n, 0, n, 0);
        for (i, on) in m.iter().enumerate() {
            if *on {
                let (x, y) = (i % n, i / n);
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
        assert!(x1 > x0 && y1 > y0, "{shape} {view}: nothing drawn");
        let f = n as f32;
        let slack = 3.0;
        assert!(
            x0 as f32 >= framing::SIDE * f - slack,
            "{shape} {view}: left {x0}"
        );
        assert!(
            x1 as f32 <= (1.0 - framing::SIDE) * f + slack,
            "{shape} {view}: right {x1}"
        );
        assert!(
            y0 as f32 >= framing::TOP * f - slack,
            "{shape} {view}: top {y0}"
        );
        assert!(
            y1 as f32 <= framing::BOTTOM * f + slack,
            "{shape} {view}: bottom {y1}"
        );
        // Centred on its bounding box, both ways: no car sits low with
        // empty space above it.
        let (cx, cy) = ((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0);
        assert!(
            (cx - f / 2.0).abs() <= slack && (cy - f / 2.0).abs() <= slack,
            "{shape} {view}: bounding box centred at ({cx}, {cy}), not the frame's centre"
        );
        // The vehicle fills a real part of the frame. One scale serves all
        // six views of a vehicle, so end-on views of long vehicles are narrow.
        let min_w = if matches!(view, View::Side | View::SideRight) {
            0.6
        } else {
            0.15
        };
        assert!(
            (x1 - x0) as f32 > min_w * f,
            "{shape} {view}: only {} px wide",
            x1 - x0
        );
    }
}

#[test]
fn side_and_side_right_silhouettes_mirror_each_other() {
    for shape in BodyShape::ALL {
        let left = &all_views()[&(shape, View::Side)];
        let right = &all_views()[&(shape, View::SideRight)];
        let n = left.width as usize;
        let ml = mask(left);
        let mr = mask(right);
        let mirrored: Vec<bool> = (0..n * n)
            .map(|i| mr[(i / n) * n + (n - 1 - i % n)])
            .collect();
        let score = iou(&ml, &mirrored);
        assert!(
            score > 0.95,
            "{shape}: side vs mirrored side-right IoU {score:.3}"
        );
    }
}

#[test]
fn body_pixels_are_close_to_the_preset_hue() {
    for ((shape, view), img) in all_views() {
        if matches!(view, View::Front | View::Rear) && *shape == BodyShape::Motorcycle {
            continue; // A bike seen end-on shows almost no paint.
        }
        let want = hsv([
            shape_color(*shape).rgb()[0],
            shape_color(*shape).rgb()[1],
            shape_color(*shape).rgb()[2],
            255,
        ])
        .0;
        let mut near = 0;
        let mut saturated = 0;
        for p in img.pixels.chunks_exact(4) {
            let (h, s, v) = hsv([p[0], p[1], p[2], p[3]]);
            if p[3] == 255 && s > 0.3 && v > 0.12 {
                saturated += 1;
                if hue_distance(h, want) < 25.0 {
                    near += 1;
                }
            }
        }
        assert!(
            saturated > 2000,
            "{shape} {view}: only {saturated} coloured pixels"
        );
        let frac = near as f64 / saturated as f64;
        assert!(
            frac > 0.6,
            "{shape} {view}: {frac:.2} of coloured pixels near hue {want}"
        );
    }
}

#[test]
fn every_preset_colour_paints_the_body() {
    let mut lumas = BTreeMap::new();
    for color in Color::ALL {
        let img = renderer()
            .render_subject(&Subject {
                make: "test",
                model: "colours",
                year: 2020,
                shape: BodyShape::Hatchback,
                color: color.into(),
                view: View::Side,
                variation: 0,
                staging: Default::default(),
            })
            .unwrap();
        let [r, g, b] = color.rgb();
        let (want_h, want_s, _) = hsv([r, g, b, 255]);
        let opaque: Vec<(f32, f32, f32)> = img
            .pixels
            .chunks_exact(4)
            .filter(|p| p[3] == 255)
            .map(|p| hsv([p[0], p[1], p[2], 255]))
            .collect();
        let mean_v = opaque.iter().map(|p| p.2).sum::<f32>() / opaque.len() as f32;
        lumas.insert(color, mean_v);
        if want_s > 0.3 {
            let sat: Vec<_> = opaque.iter().filter(|p| p.1 > 0.25 && p.2 > 0.08).collect();
            let near = sat
                .iter()
                .filter(|p| hue_distance(p.0, want_h) < 25.0)
                .count();
            assert!(
                sat.len() > 5000 && near as f64 / sat.len() as f64 > 0.6,
                "{color}: {near} of {} coloured pixels near hue {want_h}",
                sat.len()
            );
        } else {
            let mut s: Vec<f32> = opaque.iter().map(|p| p.1).collect();
            s.sort_by(f32::total_cmp);
            let median = s[s.len() / 2];
            assert!(median < 0.3, "{color}: median saturation {median}");
        }
    }
    assert!(lumas[&Color::White] > lumas[&Color::Silver]);
    assert!(lumas[&Color::Silver] > lumas[&Color::Gray]);
    assert!(lumas[&Color::Gray] > lumas[&Color::Black]);
}

fn downsample_mask(img: &Rgba, n: u32) -> Vec<bool> {
    mask(&resize(img, n, n).unwrap())
}

#[test]
fn distinct_shapes_give_clearly_different_silhouettes() {
    let sig: Vec<(BodyShape, Vec<bool>)> = BodyShape::ALL
        .iter()
        .map(|s| {
            let mut m = downsample_mask(&all_views()[&(*s, View::Side)], 128);
            m.extend(downsample_mask(&all_views()[&(*s, View::Front)], 128));
            (*s, m)
        })
        .collect();
    for (i, (a, ma)) in sig.iter().enumerate() {
        for (b, mb) in &sig[i + 1..] {
            let score = iou(ma, mb);
            assert!(
                score < 0.93,
                "{a} and {b} silhouettes too alike: IoU {score:.3}"
            );
        }
    }
}

#[test]
fn one_model_is_the_same_vehicle_and_two_models_differ() {
    let lib = ModelLibrary::embedded();
    let a1 = vehicle::build(&Params::resolve(
        &lib,
        BodyShape::Sedan,
        "acme",
        "alpha",
        2012,
    ));
    let a2 = vehicle::build(&Params::resolve(
        &lib,
        BodyShape::Sedan,
        "acme",
        "alpha",
        2012,
    ));
    assert_eq!(a1.vertices.len(), a2.vertices.len());
    assert!(
        a1.vertices
            .iter()
            .zip(&a2.vertices)
            .all(|(x, y)| x.pos == y.pos)
    );
    let r = renderer();
    let render = |model: &str, color: Color| {
        r.render_subject(&Subject {
            make: "acme",
            model,
            year: 2012,
            shape: BodyShape::Sedan,
            color: color.into(),
            view: View::Side,
            variation: 0,
            staging: Default::default(),
        })
        .unwrap()
    };
    // Colour changes paint, not the body.
    let red = mask(&render("alpha", Color::Red));
    let blue = mask(&render("alpha", Color::Blue));
    assert!(iou(&red, &blue) > 0.999);
    let other = mask(&render("beta-gt", Color::Red));
    let score = iou(&red, &other);
    assert!(
        score < 0.985,
        "two models of one shape look identical: IoU {score:.4}"
    );
}

#[test]
fn model_years_change_the_era_cues() {
    let lib = ModelLibrary::embedded();
    let old = Params::resolve(&lib, BodyShape::Sedan, "acme", "alpha", 1992);
    let new = Params::resolve(&lib, BodyShape::Sedan, "acme", "alpha", 2024);
    assert!(old.boxy > new.boxy, "1990s bodies are boxier");
    assert!(
        old.ws_run < new.ws_run,
        "1990s windshields are more upright"
    );
    assert!(old.wheel_radius < new.wheel_radius);
}

/// Silhouette cues from the identity data: a classic body stands its glass
/// up, a dome's glasshouse is its arc, a newer bonnet slopes further down.
#[test]
fn identity_cues_shape_the_body() {
    let lib = ModelLibrary::embedded();
    let rake = |p: &Params| ((p.height - p.belt - 0.06) / p.ws_run).atan().to_degrees();
    // The classic Mini (`classic`) against its 2001 successor.
    let classic = Params::resolve(&lib, BodyShape::Hatchback, "mini", "cooper", 2000);
    let r50 = Params::resolve(&lib, BodyShape::Hatchback, "mini", "cooper", 2002);
    assert_eq!(classic.vintage, 1.0);
    assert_eq!(r50.vintage, 0.0);
    assert!(
        rake(&classic) > rake(&r50) + 10.0,
        "classic windshield {:.0} deg, R50 {:.0} deg",
        rake(&classic),
        rake(&r50)
    );
    // The New Beetle: its windshield and rear glass stand where its arc
    // crosses the belt (the arc reaches further behind the centre than
    // ahead of it, to the tail), and a notchback saloon has no arc.
    let beetle = Params::resolve(&lib, BodyShape::Hatchback, "volkswagen", "beetle", 2000);
    let arc = beetle.arc.expect("a dome has an arc");
    let foot = beetle.length / 2.0 - arc.x_at(beetle.belt);
    let rear_foot = beetle.length / 2.0 - arc.x_rear_at(beetle.belt);
    assert!((beetle.ws_base - foot).abs() < 1e-4);
    assert!((beetle.bl_base - rear_foot).abs() < 1e-4);
    assert!(arc.x_at(beetle.height) < arc.x_at(beetle.belt) * 0.75);
    let camry = Params::resolve(&lib, BodyShape::Sedan, "toyota", "camry", 2019);
    assert!(camry.arc.is_none());
    // A 2019 Camry's bonnet drops a little further than a 1995 one's, but
    // not half as far again (until session 30: a nose 0.32 m under the
    // belt, the "downward-curving bonnet" of three blind checks).
    let old = Params::resolve(&lib, BodyShape::Sedan, "toyota", "camry", 1995);
    let drop = |p: &Params| (p.belt - p.hood) / (p.belt - p.ride);
    let ratio = drop(&camry) / drop(&old);
    assert!((1.05..1.3).contains(&ratio), "2019/1995 drop {ratio:.2}");
    assert!(
        camry.belt - camry.hood < 0.27,
        "{:.2} m",
        camry.belt - camry.hood
    );
    // And the Beetle's silhouette is not the saloon's.
    let side = |make: &str, model: &str, year: u16, shape: BodyShape| {
        mask(
            &renderer()
                .render_subject(&Subject {
                    make,
                    model,
                    year,
                    shape,
                    color: Color::Yellow.into(),
                    view: View::Side,
                    variation: 0,
                    staging: Default::default(),
                })
                .unwrap(),
        )
    };
    let score = iou(
        &side("volkswagen", "beetle", 2000, BodyShape::Hatchback),
        &side("volkswagen", "jetta", 2000, BodyShape::Sedan),
    );
    assert!(score < 0.9, "Beetle and Jetta: IoU {score:.3}");
}

/// Signature cues are geometry: a 911's front wings stand above its bonnet
/// with the lamps on them, a Model 3's roof is glass, a Mustang's tail lamps
/// are three bars.
#[test]
fn signature_cues_are_in_the_mesh() {
    let lib = ModelLibrary::embedded();
    // Over the last third of the bonnet, how far the wings' crowns
    // (|z| 0.6-0.8 of the half-width) stand above its middle (|z| < 0.15).
    let wings = |make: &str, model: &str, year: u16, shape: BodyShape| {
        let p = Params::resolve(&lib, shape, make, model, year);
        let mesh = vehicle::build(&p);
        let (hw, xf) = (p.width / 2.0, p.length / 2.0);
        let top = |zs: (f32, f32)| {
            mesh.vertices
                .iter()
                .filter(|v| v.material == Material::Paint as u32)
                .filter(|v| v.pos[0] > xf - 0.45 && v.pos[0] < xf - 0.25)
                .filter(|v| (zs.0..zs.1).contains(&(v.pos[2].abs() / hw)))
                .map(|v| v.pos[1])
                .fold(f32::MIN, f32::max)
        };
        top((0.6, 0.8)) - top((0.0, 0.15))
    };
    let porsche = wings("porsche", "911", 2021, BodyShape::Coupe);
    let camry = wings("toyota", "camry", 2019, BodyShape::Sedan);
    assert!(porsche > 0.04, "911 wings {porsche:.3} m above the bonnet");
    assert!(camry < 0.01, "Camry wings {camry:.3} m above the bonnet");
    // Glass at the top of the roof, against a steel roof.
    let roof_glass = |make: &str, model: &str, year: u16| {
        let p = Params::resolve(&lib, BodyShape::Sedan, make, model, year);
        vehicle::build(&p)
            .vertices
            .iter()
            .filter(|v| v.material == Material::Glass as u32 && v.pos[1] > p.height - 0.03)
            .count()
    };
    assert!(roof_glass("tesla", "model-3", 2020) > 100);
    assert_eq!(roof_glass("toyota", "camry", 2019), 0);
    // A Mustang's tail lamps are three bars a side: runs of lamp cells
    // across one side's patch (its cells' u), split by paint (under the
    // belt: the high-mounted stop lamp is lit too).
    let bars = |make: &str, model: &str, year: u16| {
        let p = Params::resolve(&lib, BodyShape::Coupe, make, model, year);
        let mut us: Vec<f32> = vehicle::build(&p)
            .vertices
            .iter()
            .filter(|v| {
                v.material == Material::TailLamp as u32 && v.pos[2] > 0.0 && v.pos[1] < p.belt
            })
            .map(|v| v.uv[0])
            .collect();
        us.sort_by(f32::total_cmp);
        us.dedup();
        // Cell centres are (j + 0.5) / n apart by 1 / n within a run.
        let cell = us.windows(2).map(|w| w[1] - w[0]).fold(f32::MAX, f32::min);
        1 + us.windows(2).filter(|w| w[1] - w[0] > 1.5 * cell).count()
    };
    assert_eq!(bars("ford", "mustang", 2020), 3);
    assert_eq!(bars("ford", "mustang", 1992), 1);
}

/// The tail is lit like the sides: seen from behind, a red car's paint is
/// red, not veiled grey by the studio's reflection on an unlit panel.
#[test]
fn a_tail_keeps_its_paint_colour() {
    let render = |view| {
        renderer()
            .render_subject(&Subject {
                make: "toyota",
                model: "camry",
                year: 2019,
                shape: BodyShape::Sedan,
                color: Color::Red.into(),
                view,
                variation: 0,
                staging: Default::default(),
            })
            .unwrap()
    };
    // Median saturation and value of the opaque pixels of red hue.
    let stats = |img: &Rgba| {
        let (mut s, mut v): (Vec<f32>, Vec<f32>) = img
            .pixels
            .chunks_exact(4)
            .filter(|p| p[3] == 255)
            .map(|p| hsv([p[0], p[1], p[2], p[3]]))
            .filter(|(h, _, v)| hue_distance(*h, 0.0) < 25.0 && *v > 0.1)
            .map(|(_, s, v)| (s, v))
            .unzip();
        s.sort_by(f32::total_cmp);
        v.sort_by(f32::total_cmp);
        (s[s.len() / 2], v[v.len() / 2])
    };
    let (side_s, side_v) = stats(&render(View::Side));
    let (rear_s, rear_v) = stats(&render(View::Rear));
    assert!(
        rear_s > 0.7 * side_s && rear_v > 0.8 * side_v,
        "rear: saturation {rear_s:.2}, value {rear_v:.2}; side: {side_s:.2}, {side_v:.2}"
    );
}

#[test]
fn views_follow_the_spec_yaw_table() {
    let lib = ModelLibrary::embedded();
    let p = Params::resolve(&lib, BodyShape::Sedan, "acme", "alpha", 2020);
    let mesh = vehicle::build(&p);
    let fr = vehicle::Framing::new(&mesh, p.spec.fill);
    let lamps: Vec<glam::Vec3> = mesh
        .vertices
        .iter()
        .filter(|v| v.material == Material::HeadLamp as u32)
        .map(|v| glam::Vec3::from(v.pos))
        .collect();
    let c = lamps.iter().copied().sum::<glam::Vec3>() / lamps.len() as f32;
    let screen_x = |view: View| {
        let (vp, eye) = fr.camera(&mesh, view);
        let q = vp * c.extend(1.0);
        (q.x / q.w, eye)
    };
    // Side: nose left; side-right: nose right; the driver's (left, -z) side
    // faces the camera in side, front-3-4 and rear-3-4.
    let (x, eye) = screen_x(View::Side);
    assert!(x < -0.3 && eye.z < 0.0, "side: lamps at {x}");
    let (x, eye) = screen_x(View::SideRight);
    assert!(x > 0.3 && eye.z > 0.0, "side-right: lamps at {x}");
    let (x, eye) = screen_x(View::Front34);
    assert!(
        x < 0.0 && eye.z < 0.0 && eye.x > 0.0,
        "front-3-4: lamps at {x}"
    );
    let (_, eye) = screen_x(View::Rear34);
    assert!(eye.z < 0.0 && eye.x < 0.0);
    let (_, eye) = screen_x(View::Front);
    assert!(eye.x > 0.0 && eye.z.abs() < 1e-3);
    let (_, eye) = screen_x(View::Rear);
    assert!(eye.x < 0.0 && eye.z.abs() < 1e-3);
}

#[test]
fn the_plate_carries_no_text() {
    let lib = ModelLibrary::embedded();
    let p = Params::resolve(&lib, BodyShape::Sedan, "test", "sedan", 2018);
    let mesh = vehicle::build(&p);
    let fr = vehicle::Framing::new(&mesh, p.spec.fill);
    let (vp, _) = fr.camera(&mesh, View::Front);
    let img = &all_views()[&(BodyShape::Sedan, View::Front)];
    let n = img.width as f32;
    let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
    for v in mesh
        .vertices
        .iter()
        .filter(|v| v.material == Material::Plate as u32)
    {
        let q = vp * glam::Vec3::from(v.pos).extend(1.0);
        if v.pos[0] < 0.0 {
            continue; // rear plate
        }
        let (sx, sy) = ((q.x / q.w + 1.0) / 2.0 * n, (1.0 - q.y / q.w) / 2.0 * n);
        x0 = x0.min(sx);
        x1 = x1.max(sx);
        y0 = y0.min(sy);
        y1 = y1.max(sy);
    }
    assert!(x1 - x0 > 20.0, "plate visible in the front view");
    // Inner 60% of the plate: one flat colour, no glyph strokes.
    let (cx, cy, hw, hh) = (
        (x0 + x1) / 2.0,
        (y0 + y1) / 2.0,
        (x1 - x0) * 0.3,
        (y1 - y0) * 0.3,
    );
    let mut lum = Vec::new();
    for y in (cy - hh) as u32..(cy + hh) as u32 {
        for x in (cx - hw) as u32..(cx + hw) as u32 {
            let p = img.pixel(x, y);
            lum.push(0.3 * f32::from(p[0]) + 0.59 * f32::from(p[1]) + 0.11 * f32::from(p[2]));
        }
    }
    let mean = lum.iter().sum::<f32>() / lum.len() as f32;
    let sd = (lum.iter().map(|l| (l - mean).powi(2)).sum::<f32>() / lum.len() as f32).sqrt();
    assert!(mean > 150.0, "plate is light: mean {mean}");
    assert!(sd < 6.0, "plate shows structure (text?): sd {sd}");
}

/// Compares with a stored 256 px golden (`support/golden.rs`: a missing or
/// changed golden fails unless `VIS_BLESS=1`); returns the failure.
fn check_golden(name: &str, img: &Rgba) -> Result<(), String> {
    let small = resize(img, 256, 256).unwrap();
    let Some(bytes) = golden::stored(name, &small)? else {
        return Ok(());
    };
    let gold = decode_png(&bytes).unwrap();
    assert_eq!((gold.width, gold.height), (256, 256));
    // Perceptual-ish tolerance: compare premultiplied values; allow small
    // mean error (driver/LLVM rounding) and a few strongly different pixels.
    let mut diff = Vec::with_capacity(small.pixels.len());
    let mut total = 0.0f64;
    let mut bad = 0usize;
    for (a, b) in small
        .pixels
        .chunks_exact(4)
        .zip(gold.pixels.chunks_exact(4))
    {
        let pa = |p: &[u8], k: usize| f64::from(p[k]) * f64::from(p[3]) / 255.0;
        let mut d: f64 = 0.0;
        for k in 0..3 {
            d = d.max((pa(a, k) - pa(b, k)).abs());
        }
        d = d.max((f64::from(a[3]) - f64::from(b[3])).abs());
        total += d;
        if d > 48.0 {
            bad += 1;
        }
        let v = (d * 4.0).min(255.0) as u8;
        diff.extend_from_slice(&[v, v, v, 255]);
    }
    let mean = total / (256.0 * 256.0);
    if mean > 2.5 || bad > 150 {
        let d = Rgba::new(256, 256, diff).unwrap();
        return golden::differs(
            name,
            &small,
            Some(&d),
            &format!("mean {mean:.2}, {bad} strong pixels"),
        );
    }
    Ok(())
}

#[test]
fn golden_images_match() {
    // Every golden is compared before the test fails, so one run names all
    // that differ (and a bless run rewrites all of them: look at each).
    let failures: Vec<String> = [
        ("sedan-front-3-4", BodyShape::Sedan, View::Front34),
        ("suv-side", BodyShape::Suv, View::Side),
        ("motorcycle-rear-3-4", BodyShape::Motorcycle, View::Rear34),
    ]
    .into_iter()
    .filter_map(|(name, shape, view)| check_golden(name, &all_views()[&(shape, view)]).err())
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_wgsl_file_validates_with_naga() {
    let dir = root().join("shaders");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let src = std::fs::read_to_string(&path).unwrap();
            let module = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::default(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 3, "found {n} shaders");
}

#[test]
fn models_dir_matches_the_embedded_copies_and_ranges_are_ordered() {
    let from_disk = ModelLibrary::load_dir(&root().join("models")).unwrap();
    let embedded = ModelLibrary::embedded();
    for shape in BodyShape::ALL {
        let (a, b) = (from_disk.spec(shape), embedded.spec(shape));
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{shape}");
        let r = &a.ranges;
        for (name, [lo, hi]) in [
            ("length", r.length),
            ("width", r.width),
            ("height", r.height),
            ("wheelbase", r.wheelbase),
            ("wheel_radius", r.wheel_radius),
            ("belt_height", r.belt_height),
        ] {
            assert!(lo <= hi && lo >= 0.0, "{shape}.{name}: [{lo}, {hi}]");
        }
        assert!(
            r.wheelbase[1] < r.length[0],
            "{shape}: wheelbase inside the length"
        );
    }
}

/// A renderer without a refinement stage never draws under a refined
/// (folded) revision: its procedural bytes would go out as the refined
/// render's.
#[test]
fn a_procedural_renderer_refuses_a_refined_revision() {
    use vis_protocol::{RenderJob, Slug, VariantKey};
    let job = RenderJob {
        variant: VariantKey {
            make: Slug::parse("toyota").unwrap(),
            model: Slug::parse("camry").unwrap(),
            year: 2019,
            color: Color::Red.into(),
            view: View::Side,
            staging: Default::default(),
        },
        shape: BodyShape::Sedan,
        revision: vis_render::fold_revision(1, Some(&"ab".repeat(32))),
        variation: 0,
    };
    assert!(vis_render::is_folded(job.revision));
    let err = renderer().render(&job).unwrap_err().to_string();
    assert!(err.contains("does not refine"), "{err}");
    assert!(err.contains("--refine MODEL_DIR"), "{err}");
    let plain = RenderJob { revision: 7, ..job };
    assert!(renderer().render(&plain).is_ok());
}

#[test]
fn no_adapter_is_a_clear_error_at_start_up() {
    // dx12 does not exist on Linux and is not compiled in: no adapter.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_render-node"))
        .args(["sheet", "-o", "/dev/null"])
        .env("WGPU_BACKEND", "dx12")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no GPU adapter"), "stderr: {err}");
    assert!(err.contains("mesa-vulkan-drivers"), "stderr: {err}");
}

#[test]
fn concurrent_renders_share_the_device_and_match() {
    let subject = |color: Color| Subject {
        make: "acme",
        model: "threads",
        year: 2021,
        shape: BodyShape::Crossover,
        color: color.into(),
        view: View::Rear34,
        variation: 0,
        staging: Default::default(),
    };
    // More threads than frames allowed in flight: callers queue, none fail.
    let images: Vec<Rgba> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| s.spawn(|| renderer().render_subject(&subject(Color::Green)).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        images.windows(2).all(|w| w[0] == w[1]),
        "same job, same pixels"
    );
    assert_eq!((images[0].width, images[0].height), (1024, 1024));
}
