//! The refinement's guide maps, rasterized on the CPU from the same mesh and
//! camera as the GPU render: which material covers each pixel (the vehicle's
//! silhouette and its paint) and the view depth, for a ControlNet-style depth
//! input. No GPU pass is added for them: the guide is drawn once per refined
//! render at 1024 px (a z-buffer over the mesh's triangles, pixel centres
//! sampled, no anti-aliasing), which costs tens of milliseconds next to the
//! diffusion itself.

use glam::{Mat4, Vec4};

use crate::vehicle::{Material, Mesh};

/// `material` of a pixel no triangle covers.
pub const NO_MATERIAL: u8 = u8::MAX;

/// Per-pixel material and view depth of one framed vehicle.
#[derive(Debug, Clone)]
pub struct Guide {
    pub size: u32,
    /// `Material as u8`, or [`NO_MATERIAL`].
    pub material: Vec<u8>,
    /// Distance along the view axis (clip w); infinite where uncovered.
    pub depth: Vec<f32>,
}

/// A depth image for a depth-conditioned model: 0 is the background, the
/// vehicle runs from 0.2 (farthest point) to 1 (nearest), as the relative
/// inverse-depth maps depth ControlNets are trained on (near is bright).
#[derive(Debug, Clone, PartialEq)]
pub struct DepthMap {
    pub size: u32,
    pub values: Vec<f32>,
}

impl Guide {
    /// Rasterizes `mesh` through `view_proj` (the renderer's camera,
    /// framing included) into a `size` x `size` guide.
    pub fn rasterize(mesh: &Mesh, view_proj: &Mat4, size: u32) -> Guide {
        let n = size as usize;
        let mut zbuf = vec![f32::INFINITY; n * n];
        let mut material = vec![NO_MATERIAL; n * n];
        let mut depth = vec![f32::INFINITY; n * n];
        let fs = size as f32;
        // Screen position (pixels, y down), NDC z and 1/w of a vertex.
        let project = |i: u32| -> Option<[f32; 4]> {
            let p = mesh.vertices[i as usize].pos;
            let c = *view_proj * Vec4::new(p[0], p[1], p[2], 1.0);
            if c.w <= 1e-6 {
                return None;
            }
            let iw = 1.0 / c.w;
            Some([
                (c.x * iw * 0.5 + 0.5) * fs,
                (0.5 - c.y * iw * 0.5) * fs,
                c.z * iw,
                iw,
            ])
        };
        for tri in mesh.indices.chunks_exact(3) {
            let (Some(a), Some(b), Some(c)) = (project(tri[0]), project(tri[1]), project(tri[2]))
            else {
                continue;
            };
            let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
            if area.abs() < 1e-9 {
                continue;
            }
            let x0 = a[0].min(b[0]).min(c[0]).floor().max(0.0) as usize;
            let x1 = (a[0].max(b[0]).max(c[0]).ceil() as isize).min(n as isize - 1);
            let y0 = a[1].min(b[1]).min(c[1]).floor().max(0.0) as usize;
            let y1 = (a[1].max(b[1]).max(c[1]).ceil() as isize).min(n as isize - 1);
            if x1 < 0 || y1 < 0 {
                continue;
            }
            let mat = mesh.vertices[tri[0] as usize].material as u8;
            let inv = 1.0 / area;
            for y in y0..=y1 as usize {
                let py = y as f32 + 0.5;
                for x in x0..=x1 as usize {
                    let px = x as f32 + 0.5;
                    // Barycentric weights; the sign of the area orients them.
                    let wa = ((c[0] - b[0]) * (py - b[1]) - (c[1] - b[1]) * (px - b[0])) * inv;
                    let wb = ((a[0] - c[0]) * (py - c[1]) - (a[1] - c[1]) * (px - c[0])) * inv;
                    let wc = 1.0 - wa - wb;
                    if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                        continue;
                    }
                    let z = wa * a[2] + wb * b[2] + wc * c[2];
                    let i = y * n + x;
                    if z < zbuf[i] {
                        zbuf[i] = z;
                        material[i] = mat;
                        // 1/w is affine in screen space: perspective-correct depth.
                        depth[i] = 1.0 / (wa * a[3] + wb * b[3] + wc * c[3]);
                    }
                }
            }
        }
        Guide {
            size,
            material,
            depth,
        }
    }

    pub fn covered(&self, i: usize) -> bool {
        self.material[i] != NO_MATERIAL
    }

    pub fn is_paint(&self, i: usize) -> bool {
        self.material[i] == Material::Paint as u8
    }

    /// Paint or the contrasting roof: surfaces whose colour the customer
    /// chose (or that follows from it), so re-imposition keeps their hue.
    pub fn keeps_hue(&self, i: usize) -> bool {
        self.is_paint(i) || self.material[i] == Material::Roof as u8
    }

    /// The normalized depth image (see [`DepthMap`]).
    pub fn depth_map(&self) -> DepthMap {
        let (mut near, mut far) = (f32::INFINITY, 0.0f32);
        for d in self.depth.iter().filter(|d| d.is_finite()) {
            near = near.min(*d);
            far = far.max(*d);
        }
        let span = (far - near).max(1e-6);
        let values = self
            .depth
            .iter()
            .map(|d| {
                if d.is_finite() {
                    0.2 + 0.8 * (far - d) / span
                } else {
                    0.0
                }
            })
            .collect();
        DepthMap {
            size: self.size,
            values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vehicle::Vertex;

    fn quad(z: f32, half: f32, material: Material) -> Vec<Vertex> {
        [(-half, -half), (half, -half), (half, half), (-half, half)]
            .iter()
            .map(|(x, y)| Vertex {
                pos: [*x, *y, z],
                normal: [0.0, 0.0, 1.0],
                uv: [0.0, 0.0],
                material: material as u32,
            })
            .collect()
    }

    #[test]
    fn nearer_triangles_win_and_depth_is_perspective_correct() {
        // Camera at +z looking down -z; a big far quad behind a small near one.
        let proj = Mat4::perspective_rh(60f32.to_radians(), 1.0, 0.1, 100.0);
        let view = Mat4::look_at_rh(
            glam::Vec3::new(0.0, 0.0, 5.0),
            glam::Vec3::ZERO,
            glam::Vec3::Y,
        );
        let mut mesh = Mesh::default();
        mesh.vertices.extend(quad(-2.0, 2.0, Material::Glass));
        mesh.vertices.extend(quad(1.0, 0.5, Material::Paint));
        mesh.indices = vec![0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7];
        let g = Guide::rasterize(&mesh, &(proj * view), 64);
        let centre = 32 * 64 + 32;
        assert!(g.is_paint(centre));
        assert!((g.depth[centre] - 4.0).abs() < 1e-3, "{}", g.depth[centre]);
        // Beside the near quad: the far one, 7 units away.
        let side = 32 * 64 + 20;
        assert_eq!(g.material[side], Material::Glass as u8);
        assert!((g.depth[side] - 7.0).abs() < 1e-2, "{}", g.depth[side]);
        assert!(!g.covered(0));
        let d = g.depth_map();
        assert_eq!(d.values[0], 0.0);
        assert!((d.values[centre] - 1.0).abs() < 1e-6);
        assert!((d.values[side] - 0.2).abs() < 1e-3);
        // Top of the image is +y: the near quad's top edge is above the centre row.
        let top_of_near = (32 - 6) * 64 + 32;
        assert!(g.is_paint(top_of_near));
    }
}
