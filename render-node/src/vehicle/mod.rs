//! Parametric vehicles: shape descriptions (models/), per-model resolution,
//! meshes, and the camera framing rules of docs/rendering.md.

pub mod body;
pub mod identity;
pub mod mesh;
pub mod motorcycle;
pub mod params;

use glam::{Mat4, Vec3, Vec4};
use vis_protocol::{BodyShape, View};

pub use identity::{Generation, IdentityLibrary};
pub use mesh::{Material, Mesh, Vertex};
pub use params::{ModelLibrary, Params};

/// Builds the mesh of a resolved body.
pub fn build(p: &Params) -> Mesh {
    if p.shape == BodyShape::Motorcycle {
        motorcycle::build_motorcycle(p)
    } else {
        body::build_car(p)
    }
}

/// Framing constants (fractions of the frame, from the top-left corner).
pub mod framing {
    /// Image row of the ground point under the vehicle's centre.
    pub const GROUND_ROW: f32 = 0.68;
    /// Nothing of the vehicle above this row.
    pub const TOP: f32 = 0.10;
    /// Nothing of the vehicle below this row (near wheels in 3/4 views).
    pub const BOTTOM: f32 = 0.90;
    /// Nothing of the vehicle left of this column or right of 1 - SIDE.
    pub const SIDE: f32 = 0.04;
    /// Camera elevation above the horizon, degrees.
    pub const ELEVATION_DEG: f32 = 8.0;
    /// Vertical field of view, degrees (a long lens: little distortion).
    pub const FOV_DEG: f32 = 22.0;
}

/// Camera position direction for a view (unit, horizontal).
pub fn view_dir(view: View) -> Vec3 {
    let yaw = f32::from(view.yaw_degrees()).to_radians();
    // yaw 0 looks at the nose (+x); 90 sees the left side (-z).
    Vec3::new(yaw.cos(), 0.0, -yaw.sin())
}

fn base_view_proj(view: View, extent: f32, target_y: f32) -> (Mat4, Vec3) {
    let el = framing::ELEVATION_DEG.to_radians();
    let dist = extent * 0.5 / (framing::FOV_DEG.to_radians() * 0.5).tan() * 1.25;
    let d = view_dir(view);
    let eye =
        Vec3::new(d.x * el.cos(), el.sin(), d.z * el.cos()) * dist + Vec3::new(0.0, target_y, 0.0);
    let v = Mat4::look_at_rh(eye, Vec3::new(0.0, target_y, 0.0), Vec3::Y);
    let p = Mat4::perspective_rh(framing::FOV_DEG.to_radians(), 1.0, dist * 0.3, dist * 3.0);
    (p * v, eye)
}

/// Per-view cameras for one vehicle: one scale shared by all six views, so
/// a vehicle keeps its size across views; each view centred horizontally
/// with the ground point under the vehicle on the ground row.
#[derive(Debug, Clone)]
pub struct Framing {
    pub scale: f32,
    pub extent: f32,
    pub target_y: f32,
}

impl Framing {
    pub fn new(mesh: &Mesh, fill: f32) -> Framing {
        let (lo, hi) = mesh.bounds();
        let extent = (hi - lo).max_element();
        let target_y = (hi.y + lo.y) * 0.4;
        let pts: Vec<Vec3> = mesh
            .vertices
            .iter()
            .step_by(7)
            .map(|v| Vec3::from(v.pos))
            .collect();
        let g = 1.0 - 2.0 * framing::GROUND_ROW;
        let top = 1.0 - 2.0 * framing::TOP;
        let bottom = 1.0 - 2.0 * framing::BOTTOM;
        let side = (1.0 - 2.0 * framing::SIDE) * fill.min(1.0);
        let mut scale = f32::MAX;
        for view in View::ALL {
            let (vp, _) = base_view_proj(view, extent, target_y);
            let (x0, x1, y0, y1) = ndc_bounds(&vp, &pts);
            let gy = project(&vp, Vec3::ZERO).y;
            scale = scale
                .min(2.0 * side / (x1 - x0))
                .min((top - g) / (y1 - gy).max(1e-3))
                .min((g - bottom) / (gy - y0).max(1e-3));
        }
        Framing {
            scale,
            extent,
            target_y,
        }
    }

    /// The view-projection (with the framing's zoom and shift) and eye.
    pub fn camera(&self, mesh: &Mesh, view: View) -> (Mat4, Vec3) {
        let (vp, eye) = base_view_proj(view, self.extent, self.target_y);
        let pts: Vec<Vec3> = mesh
            .vertices
            .iter()
            .step_by(7)
            .map(|v| Vec3::from(v.pos))
            .collect();
        let (x0, x1, _, _) = ndc_bounds(&vp, &pts);
        let gy = project(&vp, Vec3::ZERO).y;
        let g = 1.0 - 2.0 * framing::GROUND_ROW;
        let s = self.scale;
        let tx = -s * (x0 + x1) / 2.0;
        let ty = g - s * gy;
        let adjust = Mat4::from_cols(
            Vec4::new(s, 0.0, 0.0, 0.0),
            Vec4::new(0.0, s, 0.0, 0.0),
            Vec4::new(0.0, 0.0, 1.0, 0.0),
            Vec4::new(tx, ty, 0.0, 1.0),
        );
        (adjust * vp, eye)
    }
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
