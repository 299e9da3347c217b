//! A generation's own character lines (`models/sections.csv` `line` and
//! `lower`): ridges pressed into the flank along a run of their own, rising
//! or level, at their own height and depth, where the derived shoulder line
//! (`shoulder_line`, a ridge in the loft's sections at one height of the
//! section) is the same on every body of an era. The blind checks of
//! session 42 named it: "one shoulder crease" on every saloon, "the
//! sedans are one shell with a different nose".
//!
//! A line is its own strip laid on the flank, not a ridge in the loft: the
//! loft's 72 points round a section sit where its superellipse turns, few
//! on the flat of a flank (none between a quarter and a half of the way up
//! a saloon's door), so a ridge there would be cut to nothing by the
//! chords, and a line that rises crosses from one ring point to the next.
//! The strip's profile falls to the surface with no slope at its edges, so
//! it meets the paint without a seam, and its two halves are separate
//! grids, so the crest is a crisp crease that catches the studio's light
//! above it and falls into shade below.

use glam::Vec3;

use super::{Lower, smooth};
use crate::vehicle::mesh::{Material, Mesh};
use crate::vehicle::sections::LineSpec;

/// The default ridge's height, a fraction of the half width (the derived
/// shoulder line's, 2.5 cm on a saloon).
const RIDGE: f32 = 0.028;

/// A lower line's ridge, a share of a shoulder line's ([`Run::ridge`]).
const LOWER_RIDGE: f32 = 0.6;

/// The strip's height over its crest and under it: a crease, not a
/// strake. The face over the crest leans out to it over 14 cm, lit and
/// shading off slowly; the face under it falls back in 2.5 cm, an undercut
/// in shade. Both 5 cm (until session 47), the line was a narrow bright
/// band with a dark one under it, the same either way up: "a chrome
/// strake" down a Prius's doors (blind check, session 46).
const HALF_UP: f32 = 0.14;
const HALF_DOWN: f32 = 0.025;

/// How far the strip's edges stand off the paint.
const LIFT: f32 = 0.002;

/// Rows a half of the strip.
const ROWS: usize = 4;

/// How far a line fades out before what it stops for: a shut line (a
/// crease runs on across a door's gap: a centimetre), and a wheel arch it
/// would run into (8 cm). Cut off square, a line left a flat pale patch
/// where it ended over an arch (the session-43 data helper).
const FADE_GAP: f32 = 0.01;
const FADE_STOP: f32 = 0.08;

/// One line laid out along a body: where its crest runs and how far it
/// stands out, station by station.
pub(in crate::vehicle) struct Run<'a> {
    lower: &'a Lower<'a>,
    line: LineSpec,
    is_lower: bool,
    gaps: &'a [f32],
}

impl<'a> Run<'a> {
    /// A shoulder line (`is_lower` false) or a lower one on `lower`'s
    /// flanks; `gaps` are the door shut lines' x.
    pub fn new(lower: &'a Lower<'a>, line: LineSpec, is_lower: bool, gaps: &'a [f32]) -> Run<'a> {
        Run {
            lower,
            line,
            is_lower,
            gaps,
        }
    }

    /// The crest's height at x.
    fn crest(&self, x: f32) -> f32 {
        let (lower, line) = (self.lower, self.line);
        let t = (lower.fa - x) / (lower.fa - lower.ra);
        let f = (line.front + (line.rear - line.front) * t).clamp(0.05, 0.95);
        let s = lower.section(x);
        s.bottom + f * (s.top_at(1.0) - s.bottom)
    }

    /// The strip's height over the crest at x: [`HALF_UP`], short of the
    /// shoulder's top by 4 cm (a shoulder line's upper face reaching round
    /// onto the wing's top lay off the surface there, a pale lump over the
    /// front wheel).
    fn up(&self, x: f32, crest: f32) -> f32 {
        let top = self.lower.section(x).top_at(1.0);
        HALF_UP.min(top - 0.04 - crest).max(HALF_DOWN)
    }

    /// How far the crest stands out of the flank at x: the line's depth,
    /// faded out where it stops. A line ends where the rounded nose and
    /// tail begin (run into the lamps, on a square truck's nose it read as
    /// a chrome strip, not a crease); a lower line is a door crease, from
    /// behind the front wheel to ahead of the rear one (a piece on the
    /// bumper's corner or behind the rear wheel read as loose trim).
    /// (`y`: the crest's height at x.)
    fn ridge(&self, x: f32, y: f32) -> f32 {
        let lower = self.lower;
        let stop = |d: f32, fade: f32| smooth(d / fade);
        let mut k =
            stop(lower.xf - lower.round_f - x, 0.25) * stop(x - lower.xr - lower.round_r, 0.25);
        for &g in self.gaps {
            k = k.min(stop((x - g).abs() - 0.012, FADE_GAP));
        }
        let r = lower.arch_r + 0.01;
        for ax in [lower.fa, lower.ra] {
            // Only an arch the strip's foot would run into: a line that
            // clears its crown runs on over it (until session 43's second
            // data helper it broke over every axle).
            let h = y - HALF_DOWN - lower.p.wheel_radius;
            if h < r {
                let reach = r * lower.arch.reach(h / r);
                k = k.min(stop((x - ax).abs() - reach, FADE_STOP));
            }
        }
        if self.is_lower {
            k = k.min(stop(lower.fa - r - x, FADE_STOP));
            k = k.min(stop(x - (lower.ra + r), FADE_STOP));
        }
        // A door crease stands out 0.6 as far as a shoulder line: as far,
        // its long lit face over the crest drew "diagonal white streaks
        // across the doors" on every crossover (blind check, session 47).
        let lower_scale = if self.is_lower { LOWER_RIDGE } else { 1.0 };
        RIDGE * lower.hw * self.line.depth * k * lower_scale
    }

    /// How far the strip stands out of the flank at (x, y): what sits on
    /// the flank there (a door handle) stands that much further out.
    pub fn lift_at(&self, x: f32, y: f32) -> f32 {
        if self.line.depth <= 0.0 {
            return 0.0;
        }
        let crest = self.crest(x);
        let half = if y > crest {
            self.up(x, crest)
        } else {
            HALF_DOWN
        };
        let t = ((y - crest).abs() / half).min(1.0);
        self.ridge(x, crest) * (1.0 - t) * (1.0 - t)
    }

    /// Draws the line on both flanks.
    pub fn draw(&self, mesh: &mut Mesh) {
        let lower = self.lower;
        if self.line.depth <= 0.0 {
            return;
        }
        // Stations every 2 cm: x, the crest's height, the ridge's height
        // and the strip's over the crest, or None where it is not drawn.
        let step = 0.02;
        let n = ((lower.xf - lower.xr) / step) as usize;
        let stations: Vec<Option<(f32, f32, f32, f32)>> = (0..=n)
            .map(|i| {
                let x = lower.xr + step * i as f32;
                let y = self.crest(x);
                let ridge = self.ridge(x, y);
                (ridge >= 0.0005 && lower.flank_z(x, y) > 0.6 * lower.hw).then_some((
                    x,
                    y,
                    ridge,
                    self.up(x, y),
                ))
            })
            .collect();
        let mut i = 0;
        while i < stations.len() {
            let run: Vec<(f32, f32, f32, f32)> = stations[i..].iter().map_while(|s| *s).collect();
            i += run.len().max(1);
            if run.len() < 2 {
                continue;
            }
            for upper in [false, true] {
                let at = |k: usize, j: usize| {
                    let (x, y, ridge, up) = run[k];
                    // t from the crest (0) to the strip's edge (1).
                    let t = if upper {
                        j as f32 / ROWS as f32
                    } else {
                        1.0 - j as f32 / ROWS as f32
                    };
                    let y = y + if upper { t * up } else { -t * HALF_DOWN };
                    let on = Vec3::new(x, y, lower.flank_z(x, y));
                    on + lower.normal(on) * (LIFT + ridge * (1.0 - t) * (1.0 - t))
                };
                mesh.mirrored(|mesh| {
                    mesh.grid(run.len(), ROWS + 1, false, at, |_, _| {
                        Some((Material::Paint, [0.0, 0.0]))
                    });
                });
            }
        }
    }
}

/// A bumper's seam on the flank: the shut line where a body-coloured
/// bumper meets the wing (`front`) or the rear quarter, from the nose's or
/// tail's corner at height `y` (under the lamp) to the wheel arch, meeting
/// it behind its crown (ahead of it at the tail) or, lower down, where the
/// arch's edge reaches `y`. Every car since the 1990s has one, and the side
/// view of one without it reads as a clay model ("the same rounded tub",
/// blind checks of sessions 42 and 43). An 8 mm dark strip laid on the
/// flank like the door shut lines.
pub(in crate::vehicle) fn bumper_seam(lower: &Lower<'_>, mesh: &mut Mesh, front: bool, y: f32) {
    let p = lower.p;
    let (from, to) = lower.end_search(front);
    let start = lower.surface_x(y, 0.86 * lower.hw, from, to);
    let (ax, dir) = if front {
        (lower.fa, 1.0)
    } else {
        (lower.ra, -1.0)
    };
    // Just outside the arch's lip (its ring stands 4 cm round the edge).
    let r = lower.arch_r + 0.045;
    let wr = p.wheel_radius;
    let high = wr + 0.7 * r;
    let end = if y <= high && y > wr {
        (ax + dir * r * lower.arch.reach((y - wr) / r), y)
    } else {
        (ax + dir * 0.7 * r, high)
    };
    // Nothing to draw on a short overhang, or from a point off the body.
    if (start - end.0) * dir < 0.08 || y < p.ride + 0.1 || y <= end.1 - 0.4 {
        return;
    }
    let n = 24;
    let (dx, dy) = (end.0 - start, end.1 - y);
    let len = dx.hypot(dy);
    // Across the strip, in the side view's plane.
    let (nx, ny) = (-dy / len * 0.004, dx / len * 0.004);
    mesh.mirrored(|mesh| {
        mesh.grid(
            n + 1,
            2,
            false,
            |i, j| {
                let t = i as f32 / n as f32;
                let s = if j == 1 { 1.0 } else { -1.0 };
                let (x, yy) = (start + dx * t + s * nx, y + dy * t + s * ny);
                let on = Vec3::new(x, yy, lower.flank_z(x, yy));
                on + lower.normal(on) * 0.003
            },
            |_, _| Some((Material::Trim, [0.0, 0.0])),
        );
    });
}
