//! Lamps round the body's corners: the part of a head or tail lamp that
//! leaves the face and runs back (or forward) along the flank, as almost
//! every lamp since the 1980s' aerodynamic composites does.
//!
//! The face's lamp patches are projected along x and stop where the nose
//! has fallen 12 cm behind its tip (`front_face`): past that a projection
//! along x stretches into streaks. So until session 43 a lamp ended at the
//! corner, the side view showed no lamp at either end (a clay model's
//! flank), and the front and rear 3/4 views showed lamps pasted on a face.
//! A wrap is its own patch, laid on the flank along z from where the face's
//! patch ends, so it bends round the corner without stretching.

use glam::Vec3;

use super::Lower;
use crate::vehicle::mesh::{Material, Mesh};

/// How far a patch stands off the flank (the face's lamps stand 8 mm off
/// the nose).
const LIFT: f32 = 0.008;

/// Room left between a wrap's end and its wheel arch.
const ARCH_ROOM: f32 = 0.05;

/// One lamp's wrap (the right-hand one; it is mirrored).
#[derive(Debug, Clone, Copy)]
pub(in crate::vehicle) struct Wrap {
    /// A head lamp (at the nose) or a tail lamp.
    pub front: bool,
    /// Where the face's patch of the lamp ends across the body (m).
    pub z: f32,
    /// (bottom, top) of the lamp there.
    pub ys: (f32, f32),
    /// How far it runs along the flank (m), before the arch's limit.
    pub len: f32,
    /// The share of its height the bottom edge rises by its end: 0 keeps a
    /// box, 0.8 sweeps it up nearly to a point.
    pub taper: f32,
}

impl Wrap {
    /// A lamp's span up its outer edge: where its outline (`inside(u, v)`,
    /// u outwards, v up, both 0..1) crosses u = 0.97, in the box `ys`.
    /// None where it spans less than a third of the box: a lamp that ends
    /// in a point (or a round one) has nothing to carry round the corner.
    pub fn span(inside: &dyn Fn(f32, f32) -> bool, (y0, y1): (f32, f32)) -> Option<(f32, f32)> {
        let vs: Vec<f32> = (0..=50)
            .map(|k| k as f32 / 50.0)
            .filter(|&v| inside(0.97, v))
            .collect();
        let (lo, hi) = (*vs.first()?, *vs.last()?);
        (hi - lo >= 0.33).then_some((y0 + lo * (y1 - y0), y0 + hi * (y1 - y0)))
    }

    /// Its length once the wheel arch has its room: the wrap stops 5 cm
    /// short of the arch's edge (a front wrap on a short overhang is a few
    /// centimetres, or none).
    pub fn reach(&self, lower: &Lower<'_>) -> f32 {
        let ym = (self.ys.0 + self.ys.1) / 2.0;
        let x = self.start_x(lower, ym);
        let room = if self.front {
            x - (lower.fa + lower.arch_r + ARCH_ROOM)
        } else {
            (lower.ra - lower.arch_r - ARCH_ROOM) - x
        };
        self.len.min(room)
    }

    /// Where the face's patch ends at height `y`: the surface's x at this
    /// wrap's `z`.
    fn start_x(&self, lower: &Lower<'_>, y: f32) -> f32 {
        let (from, to) = lower.end_search(self.front);
        lower.surface_x(y, self.z, from, to)
    }

    /// Draws the wrap on both flanks. `mat(a, v, h, len)` is the material
    /// at `a` metres along it from the face, `v` up its height (0..1) where
    /// it is `h` metres tall, on a wrap `len` long; None leaves a hole.
    pub fn draw(
        &self,
        lower: &Lower<'_>,
        mesh: &mut Mesh,
        mat: impl Fn(f32, f32, f32, f32) -> Option<Material>,
    ) {
        // Only the heights where the face's patch met the corner near where
        // it did at the lamp's middle: over a rounded shoulder the top of a
        // lamp's box can be off the body, or meet it only far back on a
        // rising bonnet, and its rows ran from there (a red line along a
        // 1996 Camry's flank, a lamp over a Hilux's front wheel).
        let (from, _) = lower.end_search(self.front);
        let k = 20;
        let at_k = |k2: usize| self.ys.0 + (self.ys.1 - self.ys.0) * k2 as f32 / k as f32;
        let mid = k / 2;
        if !lower.inside(from, at_k(mid), self.z) {
            return;
        }
        let xm = self.start_x(lower, at_k(mid));
        let held = |k2: usize| {
            let y = at_k(k2);
            lower.inside(from, y, self.z) && (self.start_x(lower, y) - xm).abs() < 0.1
        };
        let top = (mid..=k).take_while(|&k2| held(k2)).last().unwrap_or(mid);
        let bottom = (0..=mid)
            .rev()
            .take_while(|&k2| held(k2))
            .last()
            .unwrap_or(mid);
        let ys = (at_k(bottom), at_k(top));
        let wrap = Wrap { ys, ..*self };
        wrap.draw_held(lower, mesh, mat);
    }

    fn draw_held(
        &self,
        lower: &Lower<'_>,
        mesh: &mut Mesh,
        mat: impl Fn(f32, f32, f32, f32) -> Option<Material>,
    ) {
        let len = self.reach(lower);
        if len < 0.04 || self.ys.1 - self.ys.0 < 0.02 {
            return;
        }
        // About 1.2 cm a column along the flank, ten rows up.
        let n = ((len / 0.012).ceil() as usize).clamp(8, 40);
        let m = 10;
        let (y0, y1) = self.ys;
        let bottom = |a: f32| y0 + (y1 - y0) * self.taper * (a / len);
        let at = |i: usize, j: usize| {
            let a = len * i as f32 / n as f32;
            let b = bottom(a);
            let y = b + (y1 - b) * j as f32 / m as f32;
            let xs = self.start_x(lower, y);
            let x = if self.front { xs - a } else { xs + a };
            // Off the surface along its normal: round the corner the
            // flank faces mostly forward, and a lift along z alone sank
            // into the loft's chords there.
            let on = Vec3::new(x, y, lower.flank_z(x, y).max(0.0));
            on + lower.normal(on) * LIFT
        };
        mesh.mirrored(|mesh| {
            mesh.grid(n + 1, m + 1, false, at, |i, j| {
                let a = len * (i as f32 + 0.5) / n as f32;
                let h = y1 - bottom(a);
                mat(a, (j as f32 + 0.5) / m as f32, h, len).map(|m| (m, [0.0, 0.0]))
            });
        });
    }
}

/// An outline (`inside(u, v)`, u outwards) `open` at its outer end when it
/// wraps round the corner: past u = 1 it goes on as it ends, so no edge
/// band (a lit rim, a chrome bezel, a dark seam) is drawn across the lamp
/// where the face's patch meets its wrap.
pub(in crate::vehicle) fn open(
    inside: &dyn Fn(f32, f32) -> bool,
    open: bool,
) -> impl Fn(f32, f32) -> bool + '_ {
    move |u, v| inside(if open && u >= 1.0 { 0.999 } else { u }, v)
}

/// A band `t` metres deep along the bottom (`bottom`), the top (`top`) and
/// the far end (`end`) of a wrap: where a lamp's lit graphic runs along its
/// edges, it runs on round the corner. Stops 3 cm short of the end unless
/// the end itself is lit.
pub(in crate::vehicle) fn band(
    (a, v, h, len): (f32, f32, f32, f32),
    t: f32,
    (bottom, top, end): (bool, bool, bool),
) -> bool {
    let dv = t / h.max(1e-3);
    let short = end || a < len - 0.03;
    (short && ((bottom && v < dv) || (top && v > 1.0 - dv))) || (end && a > len - t)
}

/// How far a lamp of the era `era` (0: 1990, 1: 2026) runs round the
/// corner before the arch's limit: a head lamp 12 cm in 1990, 30 cm by
/// 2026 (the aerodynamic lamps' sweep back along the wing), a tail lamp
/// 10 cm to 26 cm onto the quarter.
pub(in crate::vehicle) fn reach_of(front: bool, era: f32) -> f32 {
    if front {
        0.12 + 0.18 * era
    } else {
        0.1 + 0.16 * era
    }
}

/// A plain (reflector) head lamp's wrap: the clear cover over silver in a
/// dark seam, its far part an amber corner lamp until the early 2000s (the
/// indicator and side marker in one, as the 1990s drew them).
pub(in crate::vehicle) fn plain_head(at: (f32, f32, f32, f32), era: f32) -> Material {
    if band(at, 0.02, (true, true, true)) {
        Material::LampHousing
    } else if era < 0.35 && at.0 > 0.55 * at.3 {
        Material::Amber
    } else {
        Material::Reflector
    }
}

/// A tail lamp's wrap: its lit graphic along the edges the face's graphic
/// lights (`lit`: bottom, top, far end), 2.8 cm deep, round a dark red lens.
pub(in crate::vehicle) fn tail(at: (f32, f32, f32, f32), lit: (bool, bool, bool)) -> Material {
    if band(at, 0.028, lit) {
        Material::TailLamp
    } else {
        Material::TailLens
    }
}
