//! Lamp, grille and side-window outlines per generation, as data
//! (docs/rendering.md, "Faces and tails" and "Side profiles").
//!
//! `models/outlines.csv` draws a generation's head lamps, grille openings
//! and tail lamps as polygons in a box placed on the face:
//!
//! ```text
//! make,models,from,to,part,x0,x1,y0,y1,fill,points,note
//! ```
//!
//! `models/dlo.csv` draws its side glass (the daylight opening) from named
//! control points:
//!
//! ```text
//! make,models,from,to,a_base,a_top,top,c_top,c_y,c_base,kink_x,kink_y,b,q,surround,note
//! ```
//!
//! Both name models the way `faces.csv` does (`+`-joined slugs, launch
//! years); every row of the first group of rows that fits is drawn (a
//! face's lamp, its upper and its lower grille). Shapes only: never a logo
//! or lettering.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::identity::vocabulary;

/// The embedded face outlines.
pub const EMBEDDED: &str = include_str!("../../../models/outlines.csv");
/// The embedded side-glass outlines.
pub const DLO_EMBEDDED: &str = include_str!("../../../models/dlo.csv");

/// The columns of `models/outlines.csv`.
pub const COLUMNS: [&str; 12] = [
    "make", "models", "from", "to", "part", "x0", "x1", "y0", "y1", "fill", "points", "note",
];

/// The columns of `models/dlo.csv`.
pub const DLO_COLUMNS: [&str; 16] = [
    "make", "models", "from", "to", "a_base", "a_top", "top", "c_top", "c_y", "c_base", "kink_x",
    "kink_y", "b", "q", "surround", "note",
];

vocabulary!(
    /// What an outline row draws: a head lamp, a grille opening (or any
    /// other shape in the nose), a tail lamp, or any other shape on the
    /// tail (an inner lamp on the boot lid or tailgate, a light bar, the
    /// gloss black band between lamps), or where the rear plate sits (only
    /// its heights count: a plate is centred and of one size).
    Part {
        Head = "head",
        Grille = "grille",
        Tail = "tail",
        Rear = "rear",
        Plate = "plate",
    }
);

vocabulary!(
    /// How an outline is filled. `lamp` draws a head lamp with the face's
    /// running-light signature (faces.csv `drl`) or a tail lamp's graphic;
    /// on a grille row, a second lamp unit (a plain lamp: reflector, bulbs
    /// and a dark seam); on a rear row, a tail lamp's graphic. `drl` is a
    /// lit light all over: a running-light strip in the nose, a red light
    /// bar on the tail.
    Fill {
        Lamp = "lamp",
        Drl = "drl",
        Dark = "dark",
        Hbars = "hbars",
        Vbars = "vbars",
        Mesh = "mesh",
        Chrome = "chrome",
        Black = "black",
        Paint = "paint",
    }
);

vocabulary!(
    /// The trim around the side glass.
    Surround {
        Black = "black",
        Chrome = "chrome",
        None = "none",
    }
);

/// One outline: a polygon in its box. `u` runs across the box from its
/// inner edge (`x0`, towards the centre line) outwards, `v` up from its
/// bottom; both 0..1. A box from the centre line (`x0` = 0) is one shape
/// across the face whose points give its right half; any other box is drawn
/// once a side, mirrored.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub part: Part,
    /// Box across, fractions of the body's half width (0: centre line).
    pub x0: f32,
    pub x1: f32,
    /// Box up, fractions of the face's height (0: the ground; 1: the
    /// bonnet's leading edge, or the tail's top at the rear).
    pub y0: f32,
    pub y1: f32,
    pub fill: Fill,
    /// A chrome rim around the outline.
    pub rim: bool,
    /// A round fog lamp in the middle of the opening (`+fog`: a bumper's
    /// pocket that holds one).
    pub fog: bool,
    /// The polygon; empty: the whole box (a head lamp: the outline of its
    /// lamp type).
    pub points: Polygon,
}

impl Shape {
    /// Inside the outline at (u, v) (even-odd rule).
    pub fn inside(&self, u: f32, v: f32) -> bool {
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            return false;
        }
        self.points.inside(u, v)
    }

    /// Centred on the centre line: one shape across the face.
    pub fn centred(&self) -> bool {
        self.x0 <= 0.0
    }
}

/// Even-odd point-in-polygon; an empty polygon is the unit square.
pub fn polygon_inside(pts: &[(f32, f32)], u: f32, v: f32) -> bool {
    if pts.is_empty() {
        return true;
    }
    let mut inside = false;
    let mut j = pts.len() - 1;
    for i in 0..pts.len() {
        if crosses(pts[i], pts[j], u, v) {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Does the ray from (u, v) towards +u cross the edge from `a` to `b`?
fn crosses((ui, vi): (f32, f32), (uj, vj): (f32, f32), u: f32, v: f32) -> bool {
    (vi > v) != (vj > v) && u < (uj - ui) * (v - vi) / (vj - vi) + ui
}

/// A polygon's points, and its edges sorted into horizontal bands so the
/// even-odd test ([`polygon_inside`], the same arithmetic) tries only the
/// few edges that span the point's height. The masks of the lamp, grille
/// and side-glass patches ask a polygon of 20-60 points tens of thousands
/// of times a build, and walking every edge was a tenth of an outlined
/// mesh (session 36). Derefs to the points.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Polygon {
    points: Vec<(f32, f32)>,
    /// The lowest and highest v of any point.
    v0: f32,
    v1: f32,
    /// Bands per unit of v.
    scale: f32,
    /// Band k's edges are `edges[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    edges: Vec<((f32, f32), (f32, f32))>,
}

impl From<Vec<(f32, f32)>> for Polygon {
    fn from(points: Vec<(f32, f32)>) -> Polygon {
        let v0 = points.iter().map(|p| p.1).fold(f32::MAX, f32::min);
        let v1 = points.iter().map(|p| p.1).fold(f32::MIN, f32::max);
        let n = points.len().clamp(1, 64);
        let scale = if v1 > v0 { n as f32 / (v1 - v0) } else { 0.0 };
        let band = |v: f32| (((v - v0) * scale) as usize).min(n - 1);
        let mut per_band = vec![Vec::new(); n];
        for i in 0..points.len() {
            let (a, b) = (points[i], points[(i + points.len() - 1) % points.len()]);
            if a.1 == b.1 {
                continue;
            }
            for edges in &mut per_band[band(a.1.min(b.1))..=band(a.1.max(b.1))] {
                edges.push((a, b));
            }
        }
        let mut starts = vec![0];
        let mut edges = Vec::new();
        for band in per_band {
            edges.extend(band);
            starts.push(edges.len() as u32);
        }
        Polygon {
            points,
            v0,
            v1,
            scale,
            starts,
            edges,
        }
    }
}

impl std::ops::Deref for Polygon {
    type Target = [(f32, f32)];
    fn deref(&self) -> &[(f32, f32)] {
        &self.points
    }
}

impl Polygon {
    /// [`polygon_inside`] (the empty polygon is the unit square).
    pub fn inside(&self, u: f32, v: f32) -> bool {
        if self.points.is_empty() {
            return true;
        }
        if !(v >= self.v0 && v < self.v1) {
            return false;
        }
        let k = (((v - self.v0) * self.scale) as usize).min(self.starts.len() - 2);
        let edges = &self.edges[self.starts[k] as usize..self.starts[k + 1] as usize];
        edges.iter().filter(|(a, b)| crosses(*a, *b, u, v)).count() % 2 == 1
    }
}

/// A generation's face outlines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    pub head: Option<Shape>,
    /// Every opening of the face: where there is one, faces.csv's grille
    /// and intakes are not drawn.
    pub grilles: Vec<Shape>,
    pub tail: Option<Shape>,
    /// The tail's other shapes, drawn over the tail in row order.
    pub rears: Vec<Shape>,
    /// Where the rear plate sits: its box's heights, as a tail row's.
    pub plate: Option<Shape>,
}

/// One row of `models/outlines.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineRow {
    pub make: String,
    pub models: Vec<String>,
    pub from: u16,
    pub to: u16,
    pub shape: Shape,
    pub line: usize,
}

pub(crate) fn models_of(s: &str) -> Result<Vec<String>, String> {
    let m: Vec<String> = s.split('+').map(str::to_owned).collect();
    if s.is_empty() || m.iter().any(|m| m.is_empty() || m == "*") {
        return Err(format!("models {s:?}: model slugs joined by +"));
    }
    Ok(m)
}

/// Does a row keyed by `make`, model slugs and launch years (`from..=to`)
/// name the generation of `model` launched in `year`? (outlines.csv,
/// dlo.csv and sections.csv rows are keyed alike.)
pub(crate) fn names(
    (make, models, from, to): (&str, &[String], u16, u16),
    (of_make, model, year): (&str, &str, u16),
) -> bool {
    make == of_make && (from..=to).contains(&year) && models.iter().any(|m| m == model)
}

pub(crate) fn years(file: &str, cols: &[&str]) -> Result<(u16, u16), String> {
    let y = |i: usize| {
        cols[i]
            .parse::<u16>()
            .ok()
            .filter(|y| (1950..=2030).contains(y))
            .ok_or_else(|| format!("{file}: {:?}: a year 1950-2030", cols[i]))
    };
    let (from, to) = (y(2)?, y(3)?);
    if from > to {
        return Err(format!("years {from}..{to} run backwards"));
    }
    Ok((from, to))
}

pub(crate) fn frac(name: &str, s: &str, lo: f32, hi: f32) -> Result<f32, String> {
    s.parse::<f32>()
        .ok()
        .filter(|x| x.is_finite() && (lo..=hi).contains(x))
        .ok_or_else(|| format!("{name} {s:?}: a number {lo}..{hi}"))
}

pub(crate) fn opt_frac(name: &str, s: &str, lo: f32, hi: f32) -> Result<Option<f32>, String> {
    if s == "-" {
        Ok(None)
    } else {
        frac(name, s, lo, hi).map(Some)
    }
}

/// Parses `u:v u:v ...` (`-`: none; `round`: the ellipse in the box, as
/// 24 points).
pub fn parse_points(s: &str) -> Result<Vec<(f32, f32)>, String> {
    if s == "-" {
        return Ok(Vec::new());
    }
    if s == "round" {
        return Ok((0..24)
            .map(|k| {
                let a = k as f32 / 24.0 * std::f32::consts::TAU;
                (0.5 + 0.5 * a.cos(), 0.5 + 0.5 * a.sin())
            })
            .collect());
    }
    let mut pts = Vec::new();
    for p in s.split_whitespace() {
        let (u, v) = p
            .split_once(':')
            .ok_or_else(|| format!("point {p:?}: u:v"))?;
        pts.push((frac("u", u, 0.0, 1.0)?, frac("v", v, 0.0, 1.0)?));
    }
    if pts.len() < 3 {
        return Err(format!("points {s:?}: at least three u:v pairs, or -"));
    }
    Ok(pts)
}

/// The right half of an ellipse centred on u = 0 (13 points from its
/// foot on the centre line round to its top).
fn half_ellipse() -> Vec<(f32, f32)> {
    (0..=12)
        .map(|k| {
            let a = (k as f32 / 12.0 - 0.5) * std::f32::consts::PI;
            (a.cos().max(0.0), 0.5 + 0.5 * a.sin())
        })
        .collect()
}

/// Every outline row, in file order.
#[derive(Debug, Clone, Default)]
pub struct OutlineTable {
    rows: Vec<OutlineRow>,
}

impl OutlineTable {
    pub fn embedded() -> OutlineTable {
        // Checked by tests; failing here is a build defect.
        OutlineTable::parse(EMBEDDED).expect("embedded models/outlines.csv parses")
    }

    pub fn parse(text: &str) -> Result<OutlineTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("outlines.csv", text, &COLUMNS)? {
            let at = |e: String| format!("outlines.csv line {line}: {e}");
            let models = models_of(cols[1]).map_err(at)?;
            let (from, to) = years("outlines.csv", &cols).map_err(at)?;
            let part: Part = cols[4].parse().map_err(at)?;
            let x0 = frac("x0", cols[5], 0.0, 1.0).map_err(at)?;
            let x1 = frac("x1", cols[6], 0.0, 1.05).map_err(at)?;
            let y0 = frac("y0", cols[7], 0.0, 1.0).map_err(at)?;
            let y1 = frac("y1", cols[8], 0.0, 1.0).map_err(at)?;
            if x1 <= x0 + 0.02 || y1 <= y0 + 0.01 {
                return Err(at("the box must have x0 < x1 and y0 < y1".into()));
            }
            let mut fill_parts = cols[9].split('+');
            let fill: Fill = fill_parts.next().unwrap_or("").parse().map_err(at)?;
            let (mut rim, mut fog) = (false, false);
            for f in fill_parts {
                match f {
                    "rim" => rim = true,
                    "fog" => fog = true,
                    _ => {
                        return Err(at(format!(
                            "fill {:?}: a fill, then +rim and/or +fog",
                            cols[9]
                        )));
                    }
                }
            }
            if fog && (part != Part::Grille || matches!(fill, Fill::Lamp | Fill::Drl) || x0 == 0.0)
            {
                return Err(at(format!(
                    "fill {:?}: +fog is a fog lamp in the opening of a grille row off the centre line",
                    cols[9]
                )));
            }
            if matches!(part, Part::Head | Part::Tail) && fill != Fill::Lamp {
                return Err(at(format!(
                    "fill {:?}: head and tail rows are filled `lamp`",
                    cols[9]
                )));
            }
            if part == Part::Plate && fill != Fill::Paint {
                return Err(at(format!(
                    "fill {:?}: a plate row is filled `paint`",
                    cols[9]
                )));
            }
            // A centred row's points give its right half: `round` there
            // is the right half of one ellipse across the centre line.
            let points = if cols[10] == "round" && x0 == 0.0 {
                half_ellipse()
            } else {
                parse_points(cols[10]).map_err(at)?
            };
            rows.push(OutlineRow {
                make: cols[0].to_owned(),
                models,
                from,
                to,
                shape: Shape {
                    part,
                    x0,
                    x1,
                    y0,
                    y1,
                    fill,
                    rim,
                    fog,
                    points: points.into(),
                },
                line,
            });
        }
        Ok(OutlineTable { rows })
    }

    pub fn rows(&self) -> &[OutlineRow] {
        &self.rows
    }

    /// The outlines of a model whose generation was launched in `year`:
    /// every row naming it whose years hold `year`.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<Arc<Outline>> {
        let mut out = Outline::default();
        let mut any = false;
        for r in &self.rows {
            if !names((&r.make, &r.models, r.from, r.to), (make, model, year)) {
                continue;
            }
            any = true;
            match r.shape.part {
                Part::Head => out.head = out.head.take().or(Some(r.shape.clone())),
                Part::Tail => out.tail = out.tail.take().or(Some(r.shape.clone())),
                Part::Grille => out.grilles.push(r.shape.clone()),
                Part::Rear => out.rears.push(r.shape.clone()),
                Part::Plate => out.plate = out.plate.take().or(Some(r.shape.clone())),
            }
        }
        any.then(|| Arc::new(out))
    }
}

/// A generation's side glass from named control points, in side view: `x`
/// a fraction of the body's length from the nose (0) to the tail (1), `y`
/// a fraction of the glasshouse's side from the belt (0) to where the side
/// turns into the roof (1). The glass is this outline cut by the
/// glasshouse's side (so the A-pillar and the rear glass's pillar still
/// bound it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dlo {
    /// The A-pillar's foot on the belt, and where it meets the roof line.
    pub a_base: f32,
    pub a_top: f32,
    /// The roof line's height over the front door.
    pub top: f32,
    /// The rear top corner (the C-pillar's top): x and height.
    pub c_top: f32,
    pub c_y: f32,
    /// The rear edge's foot: x, at height `kink_y`.
    pub c_base: f32,
    /// The quarter window's kink: the lower line leaves the belt at
    /// `kink_x` and rises to `kink_y` at `c_base` (Hofmeister's, a rising
    /// rear quarter); `kink_y` 0 keeps the lower line on the belt.
    pub kink_x: f32,
    pub kink_y: f32,
    /// The B-pillar's centre, if there is one on the glass.
    pub b: Option<f32>,
    /// A thin bar between a rear door's glass and a quarter window.
    pub q: Option<f32>,
    pub surround: Surround,
    /// A floating roof (`+float` on the surround): the pillars behind the
    /// glass gloss black up to the roof line, so the body-coloured roof
    /// seems to float over the glasshouse (Murano, Altima, RX, Range Rover).
    pub float: bool,
}

impl Dlo {
    /// The outline as a polygon of (x, y) points, front lower corner first,
    /// the roof line sampled as a curve.
    pub fn polygon(&self) -> Vec<(f32, f32)> {
        let mut pts = vec![(self.a_base, 0.0), (self.a_top, self.top)];
        // The roof line: a quadratic from the A-pillar's top, level over the
        // front door, falling to the rear corner.
        let p1 = (self.a_top + (self.c_top - self.a_top) * 0.62, self.top);
        let p2 = (self.c_top, self.c_y);
        let n = 12;
        for k in 1..=n {
            let t = k as f32 / n as f32;
            let a = (1.0 - t) * (1.0 - t);
            let b = 2.0 * t * (1.0 - t);
            let c = t * t;
            pts.push((
                a * self.a_top + b * p1.0 + c * p2.0,
                a * self.top + b * p1.1 + c * p2.1,
            ));
        }
        pts.push((self.c_base, self.kink_y));
        if self.kink_y > 0.0 {
            pts.push((self.kink_x, 0.0));
        }
        pts
    }
}

/// One row of `models/dlo.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct DloRow {
    pub make: String,
    pub models: Vec<String>,
    pub from: u16,
    pub to: u16,
    pub dlo: Dlo,
    pub line: usize,
}

/// Every side-glass row, in file order.
#[derive(Debug, Clone, Default)]
pub struct DloTable {
    rows: Vec<DloRow>,
}

impl DloTable {
    pub fn embedded() -> DloTable {
        DloTable::parse(DLO_EMBEDDED).expect("embedded models/dlo.csv parses")
    }

    pub fn parse(text: &str) -> Result<DloTable, String> {
        let mut rows = Vec::new();
        for (line, cols) in super::identity::csv_records("dlo.csv", text, &DLO_COLUMNS)? {
            let at = |e: String| format!("dlo.csv line {line}: {e}");
            let models = models_of(cols[1]).map_err(at)?;
            let (from, to) = years("dlo.csv", &cols).map_err(at)?;
            let x = |i: usize| frac(DLO_COLUMNS[i], cols[i], 0.0, 1.0).map_err(at);
            let dlo = Dlo {
                a_base: x(4)?,
                a_top: x(5)?,
                top: x(6)?,
                c_top: x(7)?,
                c_y: x(8)?,
                c_base: x(9)?,
                kink_x: x(10)?,
                kink_y: x(11)?,
                b: opt_frac("b", cols[12], 0.0, 1.0).map_err(at)?,
                q: opt_frac("q", cols[13], 0.0, 1.0).map_err(at)?,
                surround: cols[14]
                    .strip_suffix("+float")
                    .unwrap_or(cols[14])
                    .parse()
                    .map_err(at)?,
                float: cols[14].ends_with("+float"),
            };
            if !(dlo.a_base < dlo.c_base && dlo.a_top < dlo.c_top && dlo.kink_x <= dlo.c_base) {
                return Err(at(
                    "the points must run a_base < c_base, a_top < c_top, kink_x <= c_base".into(),
                ));
            }
            if dlo.top < 0.3 || dlo.c_y > dlo.top + 0.05 || dlo.kink_y >= dlo.c_y {
                return Err(at("heights: top >= 0.3, c_y <= top, kink_y < c_y".into()));
            }
            rows.push(DloRow {
                make: cols[0].to_owned(),
                models,
                from,
                to,
                dlo,
                line,
            });
        }
        Ok(DloTable { rows })
    }

    pub fn rows(&self) -> &[DloRow] {
        &self.rows
    }

    /// The side glass of a model whose generation was launched in `year`:
    /// the first row naming it.
    pub fn lookup(&self, make: &str, model: &str, year: u16) -> Option<Dlo> {
        self.rows
            .iter()
            .find(|r| names((&r.make, &r.models, r.from, r.to), (make, model, year)))
            .map(|r| r.dlo)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}..{} x {}..{}",
            self.part, self.x0, self.x1, self.y0, self.y1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polygons_and_rows_parse() {
        let sq = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        assert!(polygon_inside(&sq, 0.5, 0.5));
        let tri = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)];
        assert!(polygon_inside(&tri, 0.2, 0.2));
        assert!(!polygon_inside(&tri, 0.8, 0.8));
        // `round` is the ellipse in the box: its centre and the middles of
        // its sides are in, its corners out.
        let round = parse_points("round").unwrap();
        assert!(polygon_inside(&round, 0.5, 0.5) && polygon_inside(&round, 0.03, 0.5));
        assert!(polygon_inside(&round, 0.5, 0.97));
        assert!(!polygon_inside(&round, 0.1, 0.1) && !polygon_inside(&round, 0.9, 0.92));
        // On a centred row (from x0 = 0) it is one ellipse across the
        // centre line: its right half, widest at mid-height.
        let half = half_ellipse();
        assert!(polygon_inside(&half, 0.02, 0.5) && polygon_inside(&half, 0.95, 0.5));
        assert!(!polygon_inside(&half, 0.9, 0.9) && polygon_inside(&half, 0.02, 0.97));
        let t = OutlineTable::parse(
            "make,models,from,to,part,x0,x1,y0,y1,fill,points,note\n\
             acme,alpha,2010,2020,head,0.4,0.95,0.7,0.9,lamp,0:0 1:0 1:1,\n\
             acme,alpha,2010,2020,grille,0,0.4,0.3,0.6,hbars+rim,-,\n\
             acme,alpha,2010,2020,grille,0.5,0.9,0.92,0.97,drl,-,\n\
             acme,alpha,2010,2020,rear,0,0.5,0.7,0.8,black,-,\n\
             acme,alpha,2010,2020,rear,0.2,0.5,0.8,0.9,lamp,-,\n",
        )
        .unwrap();
        let o = t.lookup("acme", "alpha", 2015).unwrap();
        assert!(o.head.is_some() && o.grilles.len() == 2 && o.grilles[0].rim);
        assert_eq!(o.grilles[1].fill, Fill::Drl);
        assert_eq!(o.rears.len(), 2);
        assert_eq!(
            (o.rears[0].fill, o.rears[1].fill),
            (Fill::Black, Fill::Lamp)
        );
        assert!(o.tail.is_none());
        assert!(t.lookup("acme", "alpha", 2021).is_none());
        // A plate row places the rear plate.
        let t = OutlineTable::parse(
            "make,models,from,to,part,x0,x1,y0,y1,fill,points,note\n\
             acme,alpha,2010,2020,plate,0,0.3,0.5,0.62,paint,-,\n",
        )
        .unwrap();
        let o = t.lookup("acme", "alpha", 2015).unwrap();
        assert_eq!(o.plate.as_ref().map(|p| (p.y0, p.y1)), Some((0.5, 0.62)));
        assert!(o.rears.is_empty() && o.tail.is_none());
        // Head and tail rows are lamps, a plate row paint.
        for row in [
            "acme,alpha,2010,2020,head,0.4,0.9,0.3,0.6,drl,-,",
            "acme,alpha,2010,2020,tail,0.4,0.9,0.3,0.6,black,-,",
            "acme,alpha,2010,2020,plate,0,0.3,0.5,0.62,chrome,-,",
            // A fog lamp sits in a grille row's opening off the centre line.
            "acme,alpha,2010,2020,grille,0,0.4,0.3,0.6,black+fog,-,",
            "acme,alpha,2010,2020,grille,0.6,0.9,0.3,0.5,lamp+fog,-,",
            "acme,alpha,2010,2020,rear,0.6,0.9,0.3,0.5,black+fog,-,",
            "acme,alpha,2010,2020,grille,0.6,0.9,0.3,0.5,black+mist,-,",
        ] {
            let bad = OutlineTable::parse(&format!(
                "make,models,from,to,part,x0,x1,y0,y1,fill,points,note\n{row}\n"
            ));
            assert!(bad.unwrap_err().contains("line 2"), "{row}");
        }
        let d = DloTable::parse(
            "make,models,from,to,a_base,a_top,top,c_top,c_y,c_base,kink_x,kink_y,b,q,surround,note\n\
             acme,alpha,2010,2020,0.3,0.4,0.9,0.7,0.8,0.75,0.7,0.2,0.5,-,chrome,\n",
        )
        .unwrap();
        let dlo = d.lookup("acme", "alpha", 2010).unwrap();
        assert!(polygon_inside(&dlo.polygon(), 0.5, 0.5));
        assert!(!polygon_inside(&dlo.polygon(), 0.74, 0.05));
        assert!(!dlo.float);
        // A pocket with its fog lamp, with or without a rim; a floating
        // roof's surround.
        let t = OutlineTable::parse(
            "make,models,from,to,part,x0,x1,y0,y1,fill,points,note
             acme,alpha,2010,2020,grille,0.6,0.9,0.3,0.5,black+fog,-,
             acme,alpha,2010,2020,grille,0.6,0.9,0.5,0.6,black+rim+fog,-,
",
        )
        .unwrap();
        let o = t.lookup("acme", "alpha", 2015).unwrap();
        assert!(o.grilles.iter().all(|g| g.fog && g.fill == Fill::Black));
        assert!(!o.grilles[0].rim && o.grilles[1].rim);
        let d = DloTable::parse(
            "make,models,from,to,a_base,a_top,top,c_top,c_y,c_base,kink_x,kink_y,b,q,surround,note
             acme,alpha,2010,2020,0.3,0.4,0.9,0.7,0.8,0.75,0.7,0.2,0.5,-,black+float,
",
        )
        .unwrap();
        let dlo = d.lookup("acme", "alpha", 2010).unwrap();
        assert!(dlo.float && dlo.surround == Surround::Black);
    }

    /// The banded test answers as the plain one, on every curated outline
    /// and side glass, over a fine grid that lands on their vertices'
    /// heights.
    #[test]
    fn banded_polygons_answer_as_the_plain_test() {
        let table = OutlineTable::parse(include_str!("../../../models/outlines.csv")).unwrap();
        let dlos = DloTable::parse(include_str!("../../../models/dlo.csv")).unwrap();
        let mut polygons: Vec<Vec<(f32, f32)>> = table
            .rows()
            .iter()
            .map(|r| r.shape.points.to_vec())
            .chain(dlos.rows().iter().map(|r| r.dlo.polygon()))
            .collect();
        polygons.push(Vec::new());
        assert!(polygons.len() > 2000, "{} polygons", polygons.len());
        let mut tried = 0;
        for pts in polygons {
            let banded = Polygon::from(pts.clone());
            assert_eq!(&*banded, &pts[..]);
            for i in -2..=42 {
                for j in -2..=42 {
                    let (u, v) = (j as f32 / 40.0, i as f32 / 40.0);
                    assert_eq!(
                        banded.inside(u, v),
                        polygon_inside(&pts, u, v),
                        "{pts:?} at ({u}, {v})"
                    );
                    tried += 1;
                }
            }
        }
        assert!(tried > 4_000_000, "{tried}");
    }
}
