//! Wheel-arch outlines: a circle on most bodies; a square or a trapezoid
//! where the identity row says so (`square-arches`, `trapezoid-arches`):
//! a Defender's, a G-Class's or a Hummer's square openings, a Jeep's,
//! a Lamborghini's or a Cybertruck's trapezoids. Until session 48 every
//! arch was a circle, and data helpers reported the angular arches of a
//! Tucson NX4 or a Wrangler as "what the renderer cannot draw".
//!
//! An outline is sampled once a body at unit radius (the arch's radius
//! scales it), so the loft, the arch's lip and cladding, the liners, the
//! dog-leg of a rear door cut round it and the lines that stop at it all
//! follow one curve.

use std::f32::consts::PI;

use super::super::identity::{Feature, Features};

/// The outline's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchShape {
    Round,
    Square,
    Trapezoid,
}

impl ArchShape {
    pub fn of(features: Features) -> ArchShape {
        if features.has(Feature::SquareArches) {
            ArchShape::Square
        } else if features.has(Feature::TrapezoidArches) {
            ArchShape::Trapezoid
        } else {
            ArchShape::Round
        }
    }

    /// The superellipse's exponent and how much narrower the outline is
    /// at its top than at its feet (a share of its half width). A square
    /// arch's exponent of 5 leaves corners about 15 cm round on a 40 cm
    /// radius; a trapezoid's flat top is about 60% of its span.
    fn form(self) -> (f32, f32) {
        match self {
            ArchShape::Round => (2.0, 0.0),
            ArchShape::Square => (5.0, 0.04),
            ArchShape::Trapezoid => (5.0, 0.42),
        }
    }

    /// The unit outline at `a` (0 the front foot, pi/2 the top, pi the
    /// rear foot): a superellipse whose width narrows towards the top.
    fn at(self, a: f32) -> (f32, f32) {
        if self == ArchShape::Round {
            return (a.cos(), a.sin());
        }
        let (n, taper) = self.form();
        let (c, s) = (a.cos(), a.sin().max(0.0));
        let y = s.powf(2.0 / n);
        let x = c.signum() * c.abs().powf(2.0 / n) * (1.0 - taper * y);
        (x, y)
    }
}

/// Samples along the outline.
const SAMPLES: usize = 96;
/// Heights tabled across the half span.
const HEIGHTS: usize = 129;

/// An arch's outline at unit radius, sampled.
#[derive(Debug, Clone)]
pub struct ArchOutline {
    pub shape: ArchShape,
    /// Points from the front foot over the top to the rear foot, each
    /// `[x, y, nx, ny]`: the point and the outward normal in the side
    /// view's plane.
    pub path: Vec<[f32; 4]>,
    /// The outline's height at `|x| = i / (HEIGHTS - 1)`.
    heights: Vec<f32>,
}

impl ArchOutline {
    pub fn new(shape: ArchShape) -> ArchOutline {
        let pts: Vec<(f32, f32)> = (0..=SAMPLES)
            .map(|i| shape.at(PI * i as f32 / SAMPLES as f32))
            .collect();
        let path = (0..pts.len())
            .map(|i| {
                let (x, y) = pts[i];
                let (a, b) = (pts[i.saturating_sub(1)], pts[(i + 1).min(SAMPLES)]);
                let (tx, ty) = (b.0 - a.0, b.1 - a.1);
                let len = tx.hypot(ty).max(1e-6);
                [x, y, ty / len, -tx / len]
            })
            .collect();
        // The front half runs from x 1 at the foot to 0 at the top.
        let front = &pts[..=SAMPLES / 2];
        let heights = (0..HEIGHTS)
            .map(|i| {
                let x = i as f32 / (HEIGHTS - 1) as f32;
                front
                    .windows(2)
                    .find(|w| w[0].0 >= x && w[1].0 <= x)
                    .map_or(0.0, |w| {
                        let t = (w[0].0 - x) / (w[0].0 - w[1].0).max(1e-6);
                        w[0].1 + (w[1].1 - w[0].1) * t
                    })
            })
            .collect();
        ArchOutline {
            shape,
            path,
            heights,
        }
    }

    /// The outline's height at `dx` from its centre (unit radius), or
    /// `None` outside it.
    pub fn height(&self, dx: f32) -> Option<f32> {
        let d = dx.abs();
        if d >= 1.0 {
            return None;
        }
        if self.shape == ArchShape::Round {
            return Some((1.0 - d * d).sqrt());
        }
        let f = d * (HEIGHTS - 1) as f32;
        let i = (f as usize).min(HEIGHTS - 2);
        let t = f - i as f32;
        Some(self.heights[i] + (self.heights[i + 1] - self.heights[i]) * t)
    }

    /// The outline's half width at height `h` over its centre (unit
    /// radius): 0 at its top and above.
    pub fn reach(&self, h: f32) -> f32 {
        if h <= 0.0 {
            return 1.0;
        }
        if self.shape == ArchShape::Round {
            return (1.0 - h.min(1.0).powi(2)).sqrt();
        }
        let front = &self.path[..=SAMPLES / 2];
        front
            .windows(2)
            .find(|w| w[0][1] <= h && w[1][1] >= h)
            .map_or(0.0, |w| {
                let t = (h - w[0][1]) / (w[1][1] - w[0][1]).max(1e-6);
                w[0][0] + (w[1][0] - w[0][0]) * t
            })
    }

    /// Every `step`-th point of the outline's path (its ends included).
    pub fn every(&self, step: usize) -> impl Iterator<Item = [f32; 4]> + '_ {
        self.path
            .iter()
            .enumerate()
            .filter(move |(i, _)| i % step == 0 || *i == SAMPLES)
            .map(|(_, q)| *q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_arch_is_the_circle() {
        let a = ArchOutline::new(ArchShape::Round);
        for dx in [0.0f32, 0.3, 0.7, 0.95] {
            let h = a.height(dx).unwrap();
            assert!((h - (1.0 - dx * dx).sqrt()).abs() < 1e-5);
            assert!((a.reach(h) - dx).abs() < 0.01, "{dx}: {}", a.reach(h));
        }
        assert_eq!(a.height(1.0), None);
        let [x, y, nx, ny] = a.path[SAMPLES / 2];
        assert!(x.abs() < 1e-5 && (y - 1.0).abs() < 1e-5);
        assert!(nx.abs() < 1e-3 && (ny - 1.0).abs() < 1e-3);
    }

    #[test]
    fn a_square_arch_stands_tall_to_its_corners_and_a_trapezoid_leans_in() {
        let square = ArchOutline::new(ArchShape::Square);
        let trapezoid = ArchOutline::new(ArchShape::Trapezoid);
        let round = ArchOutline::new(ArchShape::Round);
        // Three quarters of the way out a square arch is nearly at its full
        // height, a circle well under it.
        let (s, r) = (square.height(0.75).unwrap(), round.height(0.75).unwrap());
        assert!(s > 0.9 && r < 0.7, "square {s}, round {r}");
        // Its sides are nearly upright: half way up it is as wide as at its feet.
        assert!(square.reach(0.5) > 0.95);
        // A trapezoid's top is flat over the middle and its sides lean in:
        // half way up it is well inside its feet, at its top a third wide.
        assert!(trapezoid.height(0.25).unwrap() > 0.97);
        let half = trapezoid.reach(0.5);
        assert!(half < 0.85 && half > 0.6, "{half}");
        // Normals point out of the opening: up over the top, forward at the
        // front foot.
        for a in [&square, &trapezoid] {
            let top = a.path[SAMPLES / 2];
            assert!(top[3] > 0.99, "{top:?}");
            let foot = a.path[1];
            assert!(foot[2] > 0.8, "{foot:?}");
        }
    }
}
