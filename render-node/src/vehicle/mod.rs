//! Parametric vehicles: shape descriptions (models/), per-model resolution,
//! meshes, and the camera framing rules of docs/rendering.md.

pub mod bases;
pub mod body;
pub mod faces;
pub mod identity;
pub mod mesh;
pub mod motorcycle;
pub mod outlines;
pub mod params;
pub mod sections;
pub mod wheels;

use glam::{Mat4, Vec3, Vec4};
use vis_protocol::{BodyShape, View};

pub use identity::{Generation, IdentityLibrary};
pub use mesh::{Material, Mesh, Vertex};
pub use params::{ModelLibrary, Params};

/// Builds the mesh of a resolved body. A body from real dimensions
/// ([`Params::fit`]) is fitted to them: the built mesh is measured as its
/// orthographic silhouettes would show it ([`overall`]), and what stands out
/// of the lofted body (bumpers' and lamps' lift, spare wheels, wings, roof
/// rails, flares) is taken back by stretching or squeezing the overhangs
/// beyond the wheel arches (length), everything above the belt (height)
/// and the width, so the silhouette holds the real length, width and
/// height while the wheelbase and the wheels' profile stay as derived.
/// The corrections are a few centimetres: a few per cent of an overhang
/// or a glasshouse.
pub fn build(p: &Params) -> Mesh {
    if p.shape == BodyShape::Motorcycle {
        return motorcycle::build_motorcycle(p);
    }
    let mut mesh = body::build_car(p);
    if let Some(target) = p.fit {
        fit(&mut mesh, p, target);
    }
    mesh
}

fn fit(mesh: &mut Mesh, p: &Params, target: params::Overall) {
    let got = overall(mesh, p.belt);
    let (lo, hi) = mesh.bounds();
    // Length: the overhangs beyond the arches, each by its share.
    let fa = p.length / 2.0 - p.front_overhang;
    let ra = fa - p.wheelbase;
    let reach = p.wheel_radius * 1.1;
    let (f0, r0) = (fa + reach, ra - reach);
    let (front, rear) = ((hi.x - f0).max(0.05), (r0 - lo.x).max(0.05));
    let excess = got.length - target.length;
    let kf = (front - excess * front / (front + rear)) / front;
    let kr = (rear - excess * rear / (front + rear)) / rear;
    // Height: everything above the belt.
    let above = (got.height - p.belt).max(0.1);
    let kh = (target.height - p.belt) / above;
    let kw = target.width / got.width.max(0.1);
    for v in &mut mesh.vertices {
        let [x, y, z] = v.pos;
        let mut s = [1.0f32, 1.0, kw];
        let x = if x > f0 {
            s[0] = kf;
            f0 + (x - f0) * kf
        } else if x < r0 {
            s[0] = kr;
            r0 + (x - r0) * kr
        } else {
            x
        };
        let y = if y > p.belt {
            s[1] = kh;
            p.belt + (y - p.belt) * kh
        } else {
            y
        };
        v.pos = [x, y, z * kw];
        // Normals of a stretched surface: divided by the stretch.
        let n = Vec3::from(v.normal) / Vec3::from(s);
        v.normal = n.normalize_or_zero().to_array();
    }
}

/// A car mesh's overall length and height (its vertices' extents: what
/// side and front elevations show) and its width without mirrors (the
/// widest vertex more than 5 cm below the belt: mirrors sit above it, a
/// big truck's dip to just under it).
pub fn overall(mesh: &Mesh, belt: f32) -> params::Overall {
    let (lo, hi) = mesh.bounds();
    let width = mesh
        .vertices
        .iter()
        .filter(|v| v.pos[1] < belt - 0.05)
        .map(|v| v.pos[2].abs())
        .fold(0.0f32, f32::max)
        * 2.0;
    params::Overall {
        length: hi.x - lo.x,
        width,
        height: hi.y - lo.y.min(0.0),
    }
}

/// Framing constants (fractions of the frame, from the top-left corner).
pub mod framing {
    /// Nothing of the vehicle above this row; the vehicle's bounding box is
    /// centred in the frame, so its height-limited views (front, rear of
    /// tall vehicles) keep the same margin below (1 - TOP).
    pub const TOP: f32 = 0.10;
    /// Nothing of the vehicle below this row.
    pub const BOTTOM: f32 = 0.90;
    /// Nothing of the vehicle left of this column or right of 1 - SIDE.
    pub const SIDE: f32 = 0.04;
    /// Camera elevation above the horizon, degrees.
    pub const ELEVATION_DEG: f32 = 8.0;
    /// The `side` and `side-right` views' elevation: low, as a maker's
    /// profile shot. From 8 degrees (until session 41) the roof's top
    /// showed as a band 17 cm deep over a foreshortened side glass (glass
    /// 16% of the height, roof 15%, on every saloon), and the profile that
    /// tells one saloon from another was lost under it. A turn's angles
    /// keep [`ELEVATION_DEG`] (a spin does not bob at 90 degrees).
    pub const SIDE_ELEVATION_DEG: f32 = 3.0;

    /// The camera's elevation in `view` (`top` looks straight down).
    pub fn elevation_deg(view: super::View) -> f32 {
        match view {
            super::View::Side | super::View::SideRight => SIDE_ELEVATION_DEG,
            _ => ELEVATION_DEG,
        }
    }
    /// Vertical field of view, degrees (a long lens: little distortion).
    pub const FOV_DEG: f32 = 22.0;
}

/// Camera position direction for a view (unit, horizontal); `top` is
/// framed as `side` seen from above, so its horizontal direction is
/// `side`'s.
pub fn view_dir(view: View) -> Vec3 {
    let yaw = f32::from(view.yaw_degrees()).to_radians();
    // yaw 0 looks at the nose (+x); 90 sees the left side (-z).
    Vec3::new(yaw.cos(), 0.0, -yaw.sin())
}

/// Where the camera is, seen from the target (unit), and its up vector.
/// Every view but `top` looks from [`framing::elevation_deg`] above the
/// horizon with the world's up; `top` looks straight down with the nose
/// pointing left and the driver's (left) side at the bottom of the frame,
/// as `side` would show them if the camera rose over the roof.
fn eye_dir_up(view: View, elevation_deg: f32) -> (Vec3, Vec3) {
    if view == View::Top {
        return (Vec3::Y, Vec3::Z);
    }
    let el = elevation_deg.to_radians();
    let d = view_dir(view);
    (Vec3::new(d.x * el.cos(), el.sin(), d.z * el.cos()), Vec3::Y)
}

fn base_view_proj(view: View, extent: f32, target_y: f32) -> (Mat4, Vec3) {
    let dist = extent * 0.5 / (framing::FOV_DEG.to_radians() * 0.5).tan() * 1.25;
    let (dir, up) = eye_dir_up(view, framing::elevation_deg(view));
    let target = Vec3::new(0.0, target_y, 0.0);
    let eye = dir * dist + target;
    let v = Mat4::look_at_rh(eye, target, up);
    let p = Mat4::perspective_rh(framing::FOV_DEG.to_radians(), 1.0, dist * 0.3, dist * 3.0);
    (p * v, eye)
}

/// The views that share one scale with a given view: the six named studio
/// views (tuned for fill), the 24 turntable angles (so a spin keeps the
/// vehicle's size through the turn), or `top` alone.
fn family(view: View) -> Family {
    match view {
        View::Top => Family::Top,
        View::Angle(_) => Family::Turn,
        _ => Family::Studio,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Studio,
    Turn,
    Top,
}

impl Family {
    fn views(self) -> Vec<View> {
        match self {
            Family::Studio => View::ALL.to_vec(),
            Family::Turn => vis_protocol::Angle::turn().map(View::Angle).collect(),
            Family::Top => vec![View::Top],
        }
    }
}

/// Per-view cameras for one vehicle: one scale shared by the views of a
/// family (the six studio views; the 24 angles of a turn; top), so a
/// vehicle keeps its size across them; each view centred on the vehicle's
/// projected bounding box, horizontally and vertically.
#[derive(Debug, Clone)]
pub struct Framing {
    pub scale: f32,
    pub extent: f32,
    pub target_y: f32,
    fill: f32,
    /// With `scale=relative`, the corners of the size class's reference
    /// box around the vehicle: what the zoom fits and the frame's height
    /// is centred on, so every vehicle of the class has one scale and one
    /// ground line.
    reference: Option<Vec<Vec3>>,
    turn: std::cell::OnceCell<f32>,
    top: std::cell::OnceCell<f32>,
}

/// The reference size of a size class for `scale=relative`, in metres:
/// length, width, height of a box a little larger than the class's
/// largest vehicle, so it fits the frame with the studio margins. Cars and
/// light trucks share one (the longest light truck, a long van of about
/// 6 m, sets it); box trucks, buses and motorcycles have their own.
pub fn reference_size(shape: BodyShape) -> Vec3 {
    match shape {
        BodyShape::BoxTruck => Vec3::new(9.0, 2.6, 3.8),
        BodyShape::Bus => Vec3::new(13.0, 2.6, 3.6),
        BodyShape::Motorcycle => Vec3::new(2.6, 1.0, 1.5),
        _ => Vec3::new(6.2, 2.1, 2.5),
    }
}

impl Framing {
    pub fn new(mesh: &Mesh, fill: f32) -> Framing {
        let (lo, hi) = mesh.bounds();
        let extent = (hi - lo).max_element();
        let target_y = (hi.y + lo.y) * 0.4;
        let scale = family_scale(
            &silhouette_points(mesh),
            Family::Studio,
            fill,
            extent,
            target_y,
        );
        Framing {
            scale,
            extent,
            target_y,
            fill,
            reference: None,
            turn: std::cell::OnceCell::new(),
            top: std::cell::OnceCell::new(),
        }
    }

    /// `scale=relative`: the camera and zoom of the size class's reference
    /// box (`size`: length, width, height), standing on the vehicle's
    /// ground and centred on it, lengthwise along the vehicle's longer
    /// horizontal axis. Every vehicle of the class is then drawn at one
    /// metres-per-pixel, standing on one ground.
    pub fn relative(mesh: &Mesh, size: Vec3) -> Framing {
        let (lo, hi) = mesh.bounds();
        let centre = (lo + hi) * 0.5;
        let (len, wid, height) = (size.x, size.y, size.z);
        // The vehicle's length runs along x or z, whichever is longer.
        let (half_x, half_z) = if hi.x - lo.x >= hi.z - lo.z {
            (len * 0.5, wid * 0.5)
        } else {
            (wid * 0.5, len * 0.5)
        };
        let corners: Vec<Vec3> = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
            .iter()
            .flat_map(|(sx, sz)| {
                let (x, z) = (centre.x + sx * half_x, centre.z + sz * half_z);
                [Vec3::new(x, lo.y, z), Vec3::new(x, lo.y + height, z)]
            })
            .collect();
        let extent = len.max(wid).max(height);
        let target_y = lo.y + height * 0.4;
        let scale = family_scale(&corners, Family::Studio, 1.0, extent, target_y);
        Framing {
            scale,
            extent,
            target_y,
            fill: 1.0,
            reference: Some(corners),
            turn: std::cell::OnceCell::new(),
            top: std::cell::OnceCell::new(),
        }
    }

    /// The points a family's zoom fits: the reference box's corners, or
    /// every vertex of the mesh.
    fn fitted_points(&self, mesh: &Mesh) -> Vec<Vec3> {
        match &self.reference {
            Some(corners) => corners.clone(),
            None => silhouette_points(mesh),
        }
    }

    /// The zoom of a view's family (computed once per family).
    pub fn scale_of(&self, mesh: &Mesh, view: View) -> f32 {
        let f = family(view);
        let compute = || {
            family_scale(
                &self.fitted_points(mesh),
                f,
                self.fill,
                self.extent,
                self.target_y,
            )
        };
        match f {
            Family::Studio => self.scale,
            Family::Turn => *self.turn.get_or_init(compute),
            Family::Top => *self.top.get_or_init(compute),
        }
    }

    /// The view-projection (with the framing's zoom and shift) and eye.
    /// The vehicle is centred across the frame; up the frame it is centred
    /// on itself, or with a reference box on the box (one ground line).
    pub fn camera(&self, mesh: &Mesh, view: View) -> (Mat4, Vec3) {
        let (vp, eye) = base_view_proj(view, self.extent, self.target_y);
        let (x0, x1, mut y0, mut y1) = ndc_bounds(&vp, &silhouette_points(mesh));
        if let Some(corners) = &self.reference {
            (_, _, y0, y1) = ndc_bounds(&vp, corners);
        }
        let s = self.scale_of(mesh, view);
        let tx = -s * (x0 + x1) / 2.0;
        let ty = -s * (y0 + y1) / 2.0;
        let adjust = Mat4::from_cols(
            Vec4::new(s, 0.0, 0.0, 0.0),
            Vec4::new(0.0, s, 0.0, 0.0),
            Vec4::new(0.0, 0.0, 1.0, 0.0),
            Vec4::new(tx, ty, 0.0, 1.0),
        );
        (adjust * vp, eye)
    }
}

/// The largest zoom at which every view of the family fits the frame's
/// margins.
fn family_scale(pts: &[Vec3], family: Family, fill: f32, extent: f32, target_y: f32) -> f32 {
    let usable_h = 1.0 - 2.0 * framing::TOP;
    let usable_w = (1.0 - 2.0 * framing::SIDE) * fill.min(1.0);
    let mut scale = f32::MAX;
    for view in family.views() {
        let (vp, _) = base_view_proj(view, extent, target_y);
        let (x0, x1, y0, y1) = ndc_bounds(&vp, pts);
        scale = scale
            .min(2.0 * usable_w / (x1 - x0))
            .min(2.0 * usable_h / (y1 - y0).max(1e-3));
    }
    scale
}

/// The points whose projection bounds the silhouette: every vertex (a
/// sparse subset misses the extremes, and the bounding box must be exact
/// for the margins to be).
fn silhouette_points(mesh: &Mesh) -> Vec<Vec3> {
    mesh.vertices.iter().map(|v| Vec3::from(v.pos)).collect()
}

fn project(vp: &Mat4, p: Vec3) -> Vec3 {
    let c = *vp * p.extend(1.0);
    c.truncate() / c.w
}

fn ndc_bounds(vp: &Mat4, pts: &[Vec3]) -> (f32, f32, f32, f32) {
    let mut b = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
    for p in pts {
        let n = project(vp, *p);
        b.0 = b.0.min(n.x);
        b.1 = b.1.max(n.x);
        b.2 = b.2.min(n.y);
        b.3 = b.3.max(n.y);
    }
    b
}

/// Margin around an elevation's bounding box, a fraction of the frame.
pub const ELEVATION_MARGIN: f32 = 0.05;

/// An orthographic camera looking along `view`'s horizontal direction at
/// zero elevation (an engineering drawing's elevation), the mesh's
/// projected bounding box centred and fitted into the frame less
/// [`ELEVATION_MARGIN`] on every side. The eye is far away along the view
/// direction, for the shader's reflections.
pub fn elevation_camera(mesh: &Mesh, view: View) -> (Mat4, Vec3) {
    let (lo, hi) = mesh.bounds();
    let centre = (lo + hi) * 0.5;
    let (d, up) = eye_dir_up(view, 0.0);
    let dist = (hi - lo).length() * 4.0 + 1.0;
    let eye = centre + d * dist;
    let v = Mat4::look_at_rh(eye, centre, up);
    let (mut a, mut b) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in &mesh.vertices {
        let q = v.transform_point3(Vec3::from(p.pos));
        a = a.min(q);
        b = b.max(q);
    }
    let c = (a + b) * 0.5;
    let half = (b.x - a.x).max(b.y - a.y) * 0.5 / (1.0 - 2.0 * ELEVATION_MARGIN);
    let p = Mat4::orthographic_rh(
        c.x - half,
        c.x + half,
        c.y - half,
        c.y + half,
        (-b.z - 1.0).max(0.01),
        -a.z + 1.0,
    );
    (p * v, eye)
}
