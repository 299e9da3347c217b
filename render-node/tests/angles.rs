//! Turntable angles and the top view (docs/rendering.md, "Angles and the
//! top view"): where the camera looks from, one scale through a turn, the
//! margins every frame keeps, and the batch of a spin's frames drawing the
//! same pixels as the frames one by one.

use std::sync::OnceLock;

use vis_protocol::{Angle, BodyShape, Color, View};
use vis_render::vehicle::{self, Material, ModelLibrary, Params, framing};
use vis_render::{Renderer, RendererConfig, Subject};

fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| Renderer::new(RendererConfig::default()).expect("renderer"))
}

fn angle(d: u16) -> View {
    View::Angle(Angle::new(d).unwrap())
}

/// The opaque vehicle's bounding box in pixels: (x0, x1, y0, y1).
fn bbox(img: &vis_render::image::Rgba) -> (u32, u32, u32, u32) {
    let (mut x0, mut x1, mut y0, mut y1) = (u32::MAX, 0, u32::MAX, 0);
    for y in 0..img.height {
        for x in 0..img.width {
            if img.pixel(x, y)[3] >= 250 {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    (x0, x1, y0, y1)
}

#[test]
fn angles_look_from_their_yaw_and_top_looks_down_with_the_nose_left() {
    let lib = ModelLibrary::embedded();
    let p = Params::resolve(&lib, BodyShape::Sedan, "acme", "alpha", 2020);
    let mesh = vehicle::build(&p);
    let fr = vehicle::Framing::new(&mesh, p.spec.fill);
    let centre_of = |material: Material| {
        let pts: Vec<glam::Vec3> = mesh
            .vertices
            .iter()
            .filter(|v| v.material == material as u32)
            .map(|v| glam::Vec3::from(v.pos))
            .collect();
        pts.iter().copied().sum::<glam::Vec3>() / pts.len() as f32
    };
    let lamps = centre_of(Material::HeadLamp);
    let screen = |view: View, p: glam::Vec3| {
        let (vp, eye) = fr.camera(&mesh, view);
        let q = vp * p.extend(1.0);
        (q.x / q.w, q.y / q.w, eye)
    };
    // Angle 90 looks at the left side (-z), nose left, as `side` does.
    let (x, _, eye) = screen(angle(90), lamps);
    assert!(x < -0.3 && eye.z < 0.0, "angle-90: lamps at {x}");
    // Angle 270: the right side, nose right.
    let (x, _, eye) = screen(angle(270), lamps);
    assert!(x > 0.3 && eye.z > 0.0, "angle-270: lamps at {x}");
    // Angle 0 and 180: the nose and the tail, straight on.
    let (_, _, eye) = screen(angle(0), lamps);
    assert!(eye.x > 0.0 && eye.z.abs() < 1e-3);
    let (_, _, eye) = screen(angle(180), lamps);
    assert!(eye.x < 0.0 && eye.z.abs() < 1e-3);
    // Angle 30: front and left side, like front-3-4.
    let (_, _, eye) = screen(angle(30), lamps);
    assert!(eye.x > 0.0 && eye.z < 0.0);
    // Top: from above, the nose on the left, the left side at the bottom.
    let (x, _, eye) = screen(View::Top, lamps);
    assert!(x < -0.3, "top: lamps at {x}");
    let (lo, hi) = mesh.bounds();
    assert!(eye.y > hi.y * 3.0, "top: eye at {eye}");
    let left = glam::Vec3::new(0.0, hi.y, lo.z);
    let right = glam::Vec3::new(0.0, hi.y, hi.z);
    let (_, y_left, _) = screen(View::Top, left);
    let (_, y_right, _) = screen(View::Top, right);
    assert!(
        y_left < y_right,
        "top: left side at {y_left}, right at {y_right}"
    );
}

#[test]
fn a_turn_keeps_one_scale_and_every_frame_inside_the_margins() {
    let frames = renderer()
        .render_turn(&Subject {
            make: "acme",
            model: "alpha",
            year: 2020,
            shape: BodyShape::Suv,
            color: Color::Blue.into(),
            view: View::default(),
            variation: 0,
            staging: Default::default(),
        })
        .unwrap();
    assert_eq!(frames.len(), Angle::COUNT);
    let n = frames[0].width as f32;
    let slack = 3.0;
    let mut widths = Vec::new();
    let mut fill: f32 = 0.0;
    for (i, f) in frames.iter().enumerate() {
        let (x0, x1, y0, y1) = bbox(f);
        assert!(x1 > x0 && y1 > y0, "frame {i}: nothing drawn");
        assert!(
            x0 as f32 >= framing::SIDE * n - slack
                && x1 as f32 <= (1.0 - framing::SIDE) * n + slack,
            "frame {i}: x {x0}..{x1}"
        );
        assert!(
            y0 as f32 >= framing::TOP * n - slack && y1 as f32 <= framing::BOTTOM * n + slack,
            "frame {i}: y {y0}..{y1}"
        );
        widths.push(x1 - x0);
        // How much of the usable width or height this frame takes.
        fill = fill
            .max((x1 - x0) as f32 / ((1.0 - 2.0 * framing::SIDE) * n))
            .max((y1 - y0) as f32 / ((framing::BOTTOM - framing::TOP) * n));
    }
    // One scale: the opposite sides (90 and 270) are mirror images of one
    // size, and the frame that limits the scale reaches its margins (the
    // shape's fill of 0.97 for an SUV, less the antialiased edge).
    let (w90, w270) = (widths[6], widths[18]);
    assert!(w90.abs_diff(w270) <= 4, "sides {w90} and {w270}");
    assert!(
        fill > 0.93 && fill < 1.01,
        "the fullest frame fills {fill:.3}"
    );
}

#[test]
fn the_batch_draws_what_the_frames_draw_one_by_one() {
    let subject = |view: View| Subject {
        make: "toyota",
        model: "camry",
        year: 2019,
        shape: BodyShape::Sedan,
        color: Color::Red.into(),
        view,
        variation: 0,
        staging: Default::default(),
    };
    let turn = renderer().render_turn(&subject(View::Front34)).unwrap();
    for d in [0u16, 45, 210] {
        let one = renderer().render_procedural(&subject(angle(d))).unwrap();
        assert_eq!(
            one,
            turn[usize::from(d / 15)],
            "angle {d}: the batch's frame differs from the single render"
        );
    }
    let top = renderer().render_procedural(&subject(View::Top)).unwrap();
    let (x0, x1, y0, y1) = bbox(&top);
    // From above a saloon is long and narrow, and fills the frame's width.
    assert!(
        (x1 - x0) as f32 > 2.0 * (y1 - y0) as f32,
        "top: {}x{} px",
        x1 - x0,
        y1 - y0
    );
    assert!((x1 - x0) as f32 > 0.8 * top.width as f32);
}

#[test]
fn a_batch_draws_each_job_as_it_would_be_drawn_alone() {
    use vis_protocol::{RenderJob, Slug, VariantKey};
    let job = |model: &str, shape: BodyShape, view: View, variation: u32| RenderJob {
        variant: VariantKey {
            make: Slug::parse("acme").unwrap(),
            model: Slug::parse(model).unwrap(),
            year: 2020,
            color: Color::Green.into(),
            view,
            staging: Default::default(),
        },
        shape,
        revision: 1 + variation,
        variation,
    };
    // Two frames of one vehicle (one mesh), another vehicle, then the
    // first vehicle again re-rendered (a turned pose): the mesh is rebuilt
    // where the vehicle changes and every render is its job's own.
    let jobs = [
        job("alpha", BodyShape::Sedan, angle(30), 0),
        job("alpha", BodyShape::Sedan, View::Side, 0),
        job("beta", BodyShape::Pickup, angle(30), 0),
        job("alpha", BodyShape::Sedan, angle(30), 1),
    ];
    let mut drawn = Vec::new();
    renderer().render_batch(&jobs, |i, r| drawn.push((i, r.expect("render"))));
    assert_eq!(
        drawn.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        [0, 1, 2, 3],
        "each render is handed on in order"
    );
    for (i, img) in &drawn {
        let alone = renderer().render(&jobs[*i]).unwrap();
        assert!(*img == alone, "job {i}: the batch drew other pixels");
    }
    assert!(drawn[0].1 != drawn[3].1, "a re-render's pose is its own");
    assert!(drawn[0].1 != drawn[2].1, "another vehicle is another mesh");
}
