//! Triangle meshes and the surface builders the bodies are made of.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// Surface materials; the scene shader switches on these ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Material {
    Paint = 0,
    Glass = 1,
    Tyre = 2,
    Chrome = 3,
    Alloy = 4,
    Trim = 5,
    HeadLamp = 6,
    TailLamp = 7,
    Plate = 8,
    Grille = 9,
    Amber = 10,
    Interior = 11,
    Ground = 12,
    Liner = 13,
    /// A contrasting roof (white over dark paint, black over light).
    Roof = 14,
    /// A modern head lamp's dark housing, around its signature and projectors.
    LampHousing = 15,
    /// A daytime running light: the bright LED signature.
    Drl = 16,
    /// A tail lamp's dark red lens, around its bright graphic.
    TailLens = 17,
    /// A plain head lamp's clear cover over its silver reflector, around
    /// its bright bulbs.
    Reflector = 18,
}

/// One vertex as the scene shader reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct Vertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    pub material: u32,
}

#[derive(Debug, Default, Clone)]
pub struct Mesh {
    pub vertices: Vec<Vertex>,
    pub indices: Vec<u32>,
    /// Index ranges of surfaces whose backs are never seen, their normals
    /// facing out: closed shells (the body's loft, a closed glasshouse) and
    /// the rims' faces (the brake disc closes the wheel behind them). Of
    /// these, a triangle facing away from the eye is hidden behind the near
    /// side, and the scene pass leaves it out. Every other part (mirrors,
    /// handles, a box body's walls, an open car's windshield, the tyres,
    /// wound inward) is drawn from both sides.
    pub shells: Vec<std::ops::Range<usize>>,
}

impl Mesh {
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }

    /// Axis-aligned bounds of every vertex.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut lo = Vec3::splat(f32::MAX);
        let mut hi = Vec3::splat(f32::MIN);
        for v in &self.vertices {
            let p = Vec3::from(v.pos);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        (lo, hi)
    }

    /// Adds a (rows x cols) grid surface. `pos(i, j)` gives the points;
    /// `paint(i, j)` the material and uv of the quad whose lower corner is
    /// (i, j). Normals are smooth across the grid while materials stay crisp
    /// per quad, so window and lamp edges follow grid lines exactly.
    pub fn grid(
        &mut self,
        rows: usize,
        cols: usize,
        wrap: bool,
        pos: impl Fn(usize, usize) -> Vec3,
        paint: impl Fn(usize, usize) -> Option<(Material, [f32; 2])>,
    ) {
        self.grid_quads(rows, cols, wrap, pos, |i, j| {
            paint(i, j).map(|(m, uv)| (m, None::<fn(usize, usize) -> [f32; 2]>, uv))
        });
    }

    /// [`Self::grid`] (not wrapped) with a uv per grid point, interpolated
    /// across each quad: patterns the shader draws from the uv (a wheel's
    /// spokes) are then as sharp as the pixels, not the grid.
    pub fn grid_uv(
        &mut self,
        rows: usize,
        cols: usize,
        pos: impl Fn(usize, usize) -> Vec3,
        material: impl Fn(usize, usize) -> Option<Material>,
        uv: impl Fn(usize, usize) -> [f32; 2],
    ) {
        self.grid_quads(rows, cols, false, pos, |i, j| {
            material(i, j).map(|m| (m, Some(&uv), [0.0, 0.0]))
        });
    }

    /// [`Self::grid`] where each quad chooses: its own uv, or (`Some`) a
    /// uv per grid point interpolated across it.
    pub fn grid_quads<U: Fn(usize, usize) -> [f32; 2]>(
        &mut self,
        rows: usize,
        cols: usize,
        wrap: bool,
        pos: impl Fn(usize, usize) -> Vec3,
        paint: impl Fn(usize, usize) -> Option<(Material, Option<U>, [f32; 2])>,
    ) {
        self.quads(rows, cols, wrap, false, pos, paint);
    }

    /// [`Self::grid`] (not wrapped) for a surface flat along its rows (the
    /// side glass): a run of quads in a row with the same material and uv,
    /// whose shared edges lie on its ends' lines and whose normals agree,
    /// is drawn as one quad. The side glass's interior was thousands of
    /// 1.2 cm quads (a fifth of an outlined SUV's triangles, session 35),
    /// needed only along its outline.
    pub fn grid_flat(
        &mut self,
        rows: usize,
        cols: usize,
        pos: impl Fn(usize, usize) -> Vec3,
        paint: impl Fn(usize, usize) -> Option<(Material, [f32; 2])>,
    ) {
        self.quads(rows, cols, false, true, pos, |i, j| {
            paint(i, j).map(|(m, uv)| (m, None::<fn(usize, usize) -> [f32; 2]>, uv))
        });
    }

    fn quads<U: Fn(usize, usize) -> [f32; 2]>(
        &mut self,
        rows: usize,
        cols: usize,
        wrap: bool,
        merge: bool,
        pos: impl Fn(usize, usize) -> Vec3,
        paint: impl Fn(usize, usize) -> Option<(Material, Option<U>, [f32; 2])>,
    ) {
        if rows < 2 || cols < 2 {
            return;
        }
        let p: Vec<Vec3> = (0..rows)
            .flat_map(|i| (0..cols).map(move |j| (i, j)))
            .map(|(i, j)| pos(i, j))
            .collect();
        let at = |i: usize, j: usize| p[i * cols + j];
        let mut n = vec![Vec3::ZERO; rows * cols];
        for i in 0..rows {
            for j in 0..cols {
                let (i0, i1) = (i.saturating_sub(1), (i + 1).min(rows - 1));
                let (j0, j1) = if wrap {
                    ((j + cols - 1) % cols, (j + 1) % cols)
                } else {
                    (j.saturating_sub(1), (j + 1).min(cols - 1))
                };
                let mut du = at(i1, j) - at(i0, j);
                let mut dv = at(i, j1) - at(i, j0);
                // Collapsed rows (a loft closing to a line): look one row in.
                if du.length_squared() < 1e-12 {
                    let k = if i + 1 < rows { i + 1 } else { i - 1 };
                    du = at(k, j) - at(i, j);
                }
                if dv.length_squared() < 1e-12 {
                    let k = if i + 1 < rows { i + 1 } else { i - 1 };
                    dv = at(k, j1) - at(k, j0);
                }
                n[i * cols + j] = du.cross(dv).normalize_or_zero();
            }
        }
        let quads_j = if wrap { cols } else { cols - 1 };
        // The vertex each grid point last gave a quad, keyed by that quad's
        // material and uv: a neighbouring quad with the same ones shares
        // it (a grid point's position and normal are the same for every
        // quad round it). Until session 35 every quad had four vertices of
        // its own, four times the vertices the rasteriser shades.
        const NONE: (u32, [u32; 2], u32) = (u32::MAX, [0, 0], u32::MAX);
        let mut last = vec![NONE; rows * cols];
        // Does grid column `k` of rows `i` and `i + 1` lie on the lines from
        // column `j0` to `k + 1`, its normals as theirs (a merged run's
        // inner edge)?
        let on_line = |i: usize, j0: usize, k: usize| {
            [i, i + 1].iter().all(|&r| {
                let (a, b) = (at(r, k) - at(r, j0), at(r, k + 1) - at(r, j0));
                a.cross(b).length_squared() <= 1e-10 * a.length_squared() * b.length_squared()
                    && a.dot(b) > 0.0
                    && n[r * cols + k].dot(n[r * cols + j0]) >= 1.0 - 1e-6
            })
        };
        let mut row = Vec::new();
        for i in 0..rows - 1 {
            row.clear();
            row.extend((0..quads_j).map(|j| paint(i, j)));
            let mut j = 0;
            while j < quads_j {
                let Some((mat, per_point, uv)) = &row[j] else {
                    j += 1;
                    continue;
                };
                let (mat, uv) = (*mat, *uv);
                let mut end = j + 1;
                if merge && per_point.is_none() {
                    while end < quads_j
                        && matches!(&row[end], Some((m, None, u)) if *m == mat && *u == uv)
                        && on_line(i, j, end)
                    {
                        end += 1;
                    }
                }
                let jn = end % cols;
                let corners = [(i, j), (i + 1, j), (i + 1, jn), (i, jn)].map(|(a, b)| {
                    let uv = per_point.as_ref().map_or(uv, |f| f(a, b));
                    let key = (mat as u32, uv.map(f32::to_bits));
                    let slot = &mut last[a * cols + b];
                    if (slot.0, slot.1) == key {
                        return slot.2;
                    }
                    let index = self.vertices.len() as u32;
                    self.vertices.push(Vertex {
                        pos: at(a, b).to_array(),
                        normal: n[a * cols + b].to_array(),
                        uv,
                        material: mat as u32,
                    });
                    *slot = (key.0, key.1, index);
                    index
                });
                let [c0, c1, c2, c3] = corners;
                self.indices.extend_from_slice(&[c0, c1, c2, c0, c2, c3]);
                j = end;
            }
        }
    }

    /// Winds the triangles from `from_index` on (and turns their vertices'
    /// normals) so that they face away from `centre`, where most of them
    /// face towards it: a closed surface round `centre` (a tyre) can then
    /// be one of the [`Self::shells`]. The triangles are the same, so the
    /// pixels are: the scene shader turns a normal to the side it sees.
    /// The vertices must be used by these triangles alone.
    pub fn wind_outward(&mut self, from_index: usize, centre: Vec3) {
        let tris = &self.indices[from_index..];
        let Some(&first) = tris.iter().min() else {
            return;
        };
        let first = first as usize;
        let facing: f32 = self.vertices[first..]
            .iter()
            .map(|v| Vec3::from(v.normal).dot(Vec3::from(v.pos) - centre))
            .sum();
        if facing >= 0.0 {
            return;
        }
        for t in self.indices[from_index..].chunks_exact_mut(3) {
            t.swap(1, 2);
        }
        for v in &mut self.vertices[first..] {
            v.normal = (-Vec3::from(v.normal)).to_array();
        }
    }

    /// Appends the mirror image across the centre plane (z = 0) of the
    /// vertices from `from` and the triangles from `from_index` (which use
    /// only those vertices), its triangles wound the other way: the other
    /// side's lamp, intake or side glass. With `flip_u`, uv.x mirrored too
    /// (1 - u, as the same patch built across from -z1 to -z0 would have
    /// it, so a lamp's cells and slats mirror). One side's surface
    /// searches and outline snapping serve both (session 36: built twice,
    /// they were about a third of an outlined face's build).
    pub fn mirror_z(&mut self, from: usize, from_index: usize, flip_u: bool) {
        let offset = (self.vertices.len() - from) as u32;
        self.vertices.extend_from_within(from..);
        for v in &mut self.vertices[from + offset as usize..] {
            v.pos[2] = -v.pos[2];
            v.normal[2] = -v.normal[2];
            if flip_u {
                v.uv[0] = 1.0 - v.uv[0];
            }
        }
        // Each triangle (a, b, c) becomes (a', c', b').
        let end = self.indices.len();
        self.indices.extend_from_within(from_index..end);
        for t in self.indices[end..].chunks_exact_mut(3) {
            debug_assert!(t.iter().all(|&i| i as usize >= from));
            t.swap(1, 2);
            t.iter_mut().for_each(|i| *i += offset);
        }
        self.copy_shells(from_index, end);
    }

    /// The shells among the indices `from_index..end`, again for their copy
    /// appended at `end`.
    fn copy_shells(&mut self, from_index: usize, end: usize) {
        let copied: Vec<_> = self
            .shells
            .iter()
            .filter(|r| r.start >= from_index && r.end <= end)
            .map(|r| r.start - from_index + end..r.end - from_index + end)
            .collect();
        self.shells.extend(copied);
    }

    /// Appends a copy, moved by `d`, of the vertices from `from` and the
    /// triangles from `from_index` (which use only those vertices): the
    /// rear axle's wheels are the front's, not lathed again.
    pub fn copy_moved(&mut self, from: usize, from_index: usize, d: Vec3) {
        let offset = (self.vertices.len() - from) as u32;
        self.vertices.extend_from_within(from..);
        for v in &mut self.vertices[from + offset as usize..] {
            v.pos = (Vec3::from(v.pos) + d).to_array();
        }
        let end = self.indices.len();
        self.indices.extend_from_within(from_index..end);
        for i in &mut self.indices[end..] {
            *i += offset;
        }
        self.copy_shells(from_index, end);
    }

    /// What `build` adds, and its mirror image across z = 0, uv.x
    /// mirrored ([`Self::mirror_z`]).
    pub fn mirrored(&mut self, build: impl FnOnce(&mut Mesh)) {
        let (from, from_index) = (self.vertices.len(), self.indices.len());
        build(self);
        self.mirror_z(from, from_index, true);
    }

    /// A closed surface of revolution around `axis` through `center`.
    /// `profile` is a list of (radius, offset along axis); uv.x is the
    /// profile parameter 0..1, uv.y the angle in turns times `uv_turns`.
    #[allow(clippy::too_many_arguments)]
    pub fn lathe(
        &mut self,
        center: Vec3,
        axis: Vec3,
        profile: &[(f32, f32)],
        segments: usize,
        uv_turns: f32,
        material: impl Fn(usize) -> Material,
    ) {
        let axis = axis.normalize();
        let helper = if axis.y.abs() < 0.9 { Vec3::Y } else { Vec3::X };
        let e1 = axis.cross(helper).normalize();
        let e2 = axis.cross(e1);
        let n = profile.len();
        self.grid(
            n,
            segments,
            true,
            |i, j| {
                let a = j as f32 / segments as f32 * std::f32::consts::TAU;
                let (r, h) = profile[i];
                center + axis * h + (e1 * a.cos() + e2 * a.sin()) * r
            },
            |i, j| {
                Some((
                    material(i),
                    [
                        (i as f32 + 0.5) / (n - 1) as f32,
                        (j as f32 + 0.5) / segments as f32 * uv_turns,
                    ],
                ))
            },
        );
    }

    /// An ellipsoid with radii `r` rotated by `rot`.
    pub fn ellipsoid(&mut self, center: Vec3, r: Vec3, rot: glam::Quat, material: Material) {
        let (rows, cols) = (12, 20);
        self.grid(
            rows + 1,
            cols,
            true,
            |i, j| {
                let th = i as f32 / rows as f32 * std::f32::consts::PI;
                let ph = j as f32 / cols as f32 * std::f32::consts::TAU;
                let unit = Vec3::new(th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin());
                center + rot * (unit * r)
            },
            |_, _| Some((material, [0.5, 0.5])),
        );
    }

    /// A round tube (capsule without caps) from `a` to `b`.
    pub fn tube(&mut self, a: Vec3, b: Vec3, radius: f32, material: Material) {
        let axis = b - a;
        let len = axis.length();
        if len < 1e-6 {
            return;
        }
        let profile = [
            (0.0, -radius * 0.3),
            (radius * 0.8, 0.0),
            (radius, radius * 0.2),
            (radius, len - radius * 0.2),
            (radius * 0.8, len),
            (0.0, len + radius * 0.3),
        ];
        self.lathe(a, axis, &profile, 14, 1.0, |_| material);
    }

    /// A rounded box: a superellipsoid with exponent `e` (2 = ellipsoid,
    /// larger = boxier), half extents `h`.
    pub fn rounded_box(&mut self, center: Vec3, h: Vec3, e: f32, material: Material) {
        self.rounded_box_cells(center, h, e, material, (16, 28));
    }

    /// [`Self::rounded_box`] with `cells` rows (pole to pole) and columns
    /// (round the waist): fewer for parts a few pixels across.
    pub fn rounded_box_cells(
        &mut self,
        center: Vec3,
        h: Vec3,
        e: f32,
        material: Material,
        (rows, cols): (usize, usize),
    ) {
        let f = |c: f32| c.signum() * c.abs().powf(2.0 / e);
        self.grid(
            rows + 1,
            cols,
            true,
            |i, j| {
                let th = i as f32 / rows as f32 * std::f32::consts::PI;
                let ph = j as f32 / cols as f32 * std::f32::consts::TAU;
                let unit = Vec3::new(
                    f(th.sin()) * f(ph.cos()),
                    f(th.cos()),
                    f(th.sin()) * f(ph.sin()),
                );
                center + unit * h
            },
            |_, _| Some((material, [0.5, 0.5])),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sphere of radius 1 round `c` whose grid is wound inward or out
    /// (the grid faces `du x dv`: down from the pole, then round it).
    fn sphere(mesh: &mut Mesh, c: Vec3, inward: bool) {
        let (rows, cols) = (9, 16);
        mesh.grid(
            rows,
            cols,
            true,
            |i, j| {
                let th = (i as f32 + 0.5) / rows as f32 * std::f32::consts::PI;
                let ph = j as f32 / cols as f32
                    * std::f32::consts::TAU
                    * if inward { 1.0 } else { -1.0 };
                c + Vec3::new(th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin())
            },
            |_, _| Some((Material::Tyre, [0.5, 0.5])),
        );
    }

    /// Each triangle's winding normal and its vertices' normals, dotted
    /// with the way out from `c`: all positive when facing out.
    fn facing(mesh: &Mesh, from_index: usize, c: Vec3) -> (f32, f32) {
        let p = |i: u32| Vec3::from(mesh.vertices[i as usize].pos);
        let mut worst = (f32::MAX, f32::MAX);
        for t in mesh.indices[from_index..].chunks_exact(3) {
            let (a, b, d) = (p(t[0]), p(t[1]), p(t[2]));
            let out = (a + b + d) / 3.0 - c;
            worst.0 = worst.0.min((b - a).cross(d - a).dot(out));
            for &i in t {
                let n = Vec3::from(mesh.vertices[i as usize].normal);
                worst.1 = worst.1.min(n.dot(p(i) - c));
            }
        }
        worst
    }

    #[test]
    fn wind_outward_turns_an_inward_surface_and_leaves_an_outward_one() {
        let c = Vec3::new(1.0, 2.0, 3.0);
        for inward in [true, false] {
            let mut mesh = Mesh::default();
            // Something before it, which must not be touched.
            sphere(&mut mesh, Vec3::ZERO, true);
            let (kept_v, kept_i) = (mesh.vertices.len(), mesh.indices.len());
            let before = mesh.clone();
            sphere(&mut mesh, c, inward);
            let (w, n) = facing(&mesh, kept_i, c);
            assert_eq!(w > 0.0 && n > 0.0, !inward, "built inward: {inward}");
            let drawn = mesh.indices.clone();
            mesh.wind_outward(kept_i, c);
            let (w, n) = facing(&mesh, kept_i, c);
            assert!(
                w > 0.0 && n > 0.0,
                "not outward ({w}, {n}), built inward: {inward}"
            );
            // The same triangles, only wound the other way.
            for (t, u) in mesh.indices[kept_i..]
                .chunks_exact(3)
                .zip(drawn[kept_i..].chunks_exact(3))
            {
                assert_eq!(t[0], u[0]);
                let (mut a, mut b) = ([t[1], t[2]], [u[1], u[2]]);
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b);
            }
            let bytes = |v: &[Vertex]| bytemuck::cast_slice::<Vertex, u8>(v).to_vec();
            assert_eq!(bytes(&mesh.vertices[..kept_v]), bytes(&before.vertices));
            assert_eq!(mesh.indices[..kept_i], before.indices[..]);
        }
    }
}
