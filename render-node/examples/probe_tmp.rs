use vis_protocol::BodyShape;
use vis_render::vehicle::{ModelLibrary, Params};
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let lib = ModelLibrary::embedded();
    let p = Params::resolve(&lib, BodyShape::Suv, &a[0], &a[1], a[2].parse().unwrap());
    let m = vis_render::vehicle::build(&p);
    let xf = p.length / 2.0;
    println!("ride {} xf {} hw {}", p.ride, xf, p.width / 2.0);
    let mut bins = std::collections::BTreeMap::new();
    for (k, t) in m.indices.chunks(3).enumerate() {
        let v: Vec<_> = t.iter().map(|&i| m.vertices[i as usize]).collect();
        if v.iter().all(|v| v.pos[0] > xf - 0.6 && v.pos[1] < 0.9) && v[0].material != 0 {
            let zb = (v[0].pos[2] * 10.0).round() as i32;
            let e = bins.entry((v[0].material, zb)).or_insert((9.0f32, 0.0f32, 9.0f32, 0.0f32, k, 0));
            for v in &v { e.0 = e.0.min(v.pos[1]); e.1 = e.1.max(v.pos[1]); e.2 = e.2.min(v.pos[0]); e.3 = e.3.max(v.pos[0]); }
            e.5 += 1;
            if v[0].material == 5 && zb == 0 && v.iter().any(|v| v.pos[0] < 2.1) && e.5 < 12 {
                println!("tri {k}: {:?}", v.iter().map(|v| v.pos).collect::<Vec<_>>());
            }
        }
    }
    for ((mat, zb), (y0, y1, x0, x1, k, n)) in bins {
        if zb.abs() <= 3 { println!("m{mat} z{zb}: y {y0:.2}..{y1:.2} x {x0:.2}..{x1:.2} first tri {k} n {n}"); }
    }
}
