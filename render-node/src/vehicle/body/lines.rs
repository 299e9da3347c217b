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

/// Half the strip's height up the flank (the derived line's ridge is about
/// 5 cm either side of its crest).
const HALF: f32 = 0.05;

/// How far the strip's edges stand off the paint.
const LIFT: f32 = 0.002;

/// Rows a half of the strip.
const ROWS: usize = 4;

/// How far a line fades out before what it stops for: a shut line (a
/// crease runs on across a door's gap: a centimetre), and a handle or a
/// wheel arch (8 cm). Cut off square, a line left a flat pale patch where
/// it ended at a handle or over an arch (the session-43 data helper).
const FADE_GAP: f32 = 0.01;
const FADE_STOP: f32 = 0.08;

/// Draws a line on both flanks. `gaps` are the door shut lines' x and
/// `handles` the door handles' (x, y), which it keeps clear of; a `lower`
/// line starts behind the front wheel (a door crease: on a bumper's
/// corner under the lamp it read as a stray piece of trim).
pub(in crate::vehicle) fn draw(
    lower: &Lower<'_>,
    mesh: &mut Mesh,
    line: LineSpec,
    is_lower: bool,
    gaps: &[f32],
    handles: &[(f32, f32)],
) {
    if line.depth <= 0.0 {
        return;
    }
    let (fa, ra) = (lower.fa, lower.ra);
    let height = |x: f32| {
        let t = (fa - x) / (fa - ra);
        (line.front + (line.rear - line.front) * t).clamp(0.05, 0.95)
    };
    // Faded in over the rounded ends, where the lamps sit.
    let fade = |x: f32| {
        let nose = (lower.xf - x - lower.round_f * 0.5) / 0.3;
        let tail = (x - lower.xr - lower.round_r * 0.5) / 0.3;
        smooth(nose) * smooth(tail)
    };
    // Stations every 2 cm.
    let step = 0.02;
    let n = ((lower.xf - lower.xr) / step) as usize;
    let crest = |x: f32| {
        let s = lower.section(x);
        s.bottom + height(x) * (s.top_at(1.0) - s.bottom)
    };
    // How far x is from the nearest thing the line stops for, less the
    // fade's length: the line's share of its depth there.
    let share = |x: f32| {
        let y = crest(x);
        let stop = |d: f32, fade: f32| smooth(d / fade);
        let mut k = 1.0f32;
        for &g in gaps {
            k = k.min(stop((x - g).abs() - 0.012, FADE_GAP));
        }
        for &(hx, hy) in handles {
            if (y - hy).abs() < HALF + 0.04 {
                k = k.min(stop((x - hx).abs() - 0.13, FADE_STOP));
            }
        }
        // Clear of the arches by 1 cm under the strip's foot: how far
        // along x to where that is.
        for ax in [fa, ra] {
            let r = lower.arch_r + 0.01;
            let h = y - HALF - lower.p.wheel_radius;
            let reach = if h >= r {
                0.0
            } else {
                (r * r - h.max(0.0).powi(2)).sqrt()
            };
            let d = (x - ax).abs() - reach;
            k = k.min(stop(d, FADE_STOP));
        }
        if is_lower {
            k = k.min(stop(fa - lower.arch_r - x, FADE_STOP));
        }
        k
    };
    // Each station: x, the crest's height and the ridge's height, or None
    // where the strip is not drawn.
    let stations: Vec<Option<(f32, f32, f32)>> = (0..=n)
        .map(|i| {
            let x = lower.xr + step * i as f32;
            let ridge = RIDGE * lower.hw * line.depth * fade(x) * share(x);
            let y = crest(x);
            (ridge >= 0.0005 && lower.flank_z(x, y) > 0.6 * lower.hw).then_some((x, y, ridge))
        })
        .collect();
    let mut i = 0;
    while i < stations.len() {
        let run: Vec<(f32, f32, f32)> = stations[i..].iter().map_while(|s| *s).collect();
        i += run.len().max(1);
        if run.len() < 2 {
            continue;
        }
        for upper in [false, true] {
            let at = |k: usize, j: usize| {
                let (x, y, ridge) = run[k];
                // t from the crest (0) to the strip's edge (1).
                let t = if upper {
                    j as f32 / ROWS as f32
                } else {
                    1.0 - j as f32 / ROWS as f32
                };
                let y = y + if upper { t } else { -t } * HALF;
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
        (ax + dir * (r * r - (y - wr).powi(2)).sqrt(), y)
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
