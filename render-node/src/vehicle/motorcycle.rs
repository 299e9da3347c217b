//! The motorcycle: two spoked wheels, fork, frame, tank, seat, engine,
//! exhaust, lamps. Styles from the model hash: 0 sport (fairing),
//! 1 naked, 2 cruiser.

use glam::{Quat, Vec3};

use super::mesh::{Material, Mesh};
use super::params::{Params, unit};

fn bike_wheel(mesh: &mut Mesh, p: &Params, c: Vec3, width: f32) {
    let r = p.wheel_radius;
    let rim = r * 0.74;
    let h = width / 2.0;
    let tyre = [
        (rim * 0.98, -h * 0.7),
        (r - 0.04, -h),
        (r - 0.01, -h * 0.6),
        (r, 0.0),
        (r - 0.01, h * 0.6),
        (r - 0.04, h),
        (rim * 0.98, h * 0.7),
        (rim * 0.96, 0.0),
        (rim * 0.98, -h * 0.7),
    ];
    mesh.lathe(c, Vec3::Z, &tyre, 48, 1.0, |_| Material::Tyre);
    // Cast wheel: a thin disc whose spoke pattern the shader draws.
    for side in [-1.0f32, 1.0] {
        let prof: Vec<(f32, f32)> = (0..12)
            .map(|i| {
                let t = i as f32 / 11.0;
                (rim * t, side * (0.02 + 0.015 * (1.0 - t)))
            })
            .collect();
        let style = p.rim_style as f32;
        let spokes = p.spokes as f32;
        let n = prof.len();
        mesh.grid(
            n,
            48,
            true,
            |i, j| {
                let a = j as f32 / 48.0 * std::f32::consts::TAU;
                c + Vec3::new(a.cos() * prof[i].0, a.sin() * prof[i].0, prof[i].1)
            },
            |i, j| {
                Some((
                    Material::Alloy,
                    [
                        style * 2.0 + (i as f32 + 0.5) / (n - 1) as f32,
                        (j as f32 + 0.5) / 48.0 * spokes,
                    ],
                ))
            },
        );
    }
    // Brake disc.
    mesh.lathe(
        c + Vec3::new(0.0, 0.0, -0.05),
        Vec3::Z,
        &[
            (0.0, 0.0),
            (rim * 0.62, 0.0),
            (rim * 0.62, 0.006),
            (0.0, 0.006),
        ],
        32,
        1.0,
        |_| Material::Chrome,
    );
}

pub fn build_motorcycle(p: &Params) -> Mesh {
    let mut m = Mesh::default();
    let style = (unit(p.seed, 30) * 3.0) as u32 % 3;
    let r = p.wheel_radius;
    let fa = p.wheelbase / 2.0;
    let ra = -p.wheelbase / 2.0;
    let front = Vec3::new(fa, r, 0.0);
    let rear = Vec3::new(ra, r, 0.0);
    bike_wheel(&mut m, p, front, 0.11);
    bike_wheel(&mut m, p, rear, if style == 2 { 0.15 } else { 0.17 });
    let rake = if style == 2 { 0.55 } else { 0.42 };
    let seat_h = p.belt;
    let tank_h = p.hood;
    // Steering head above and behind the front axle.
    let head = front + Vec3::new(-rake * 0.62, 0.62 + 0.08 * (style == 2) as i32 as f32, 0.0);
    let head = Vec3::new(head.x, tank_h - 0.02, 0.0);
    for side in [-1.0f32, 1.0] {
        m.tube(
            front + Vec3::new(0.0, 0.0, side * 0.085),
            head + Vec3::new(0.0, 0.0, side * 0.085),
            0.024,
            Material::Chrome,
        );
    }
    // Handlebar.
    let bar = head + Vec3::new(-0.1, 0.06 + 0.1 * (style == 2) as i32 as f32, 0.0);
    // Risers from the steering head to the bar.
    m.tube(head, bar, 0.02, Material::Chrome);
    m.tube(
        bar + Vec3::new(0.0, 0.0, -0.36),
        bar + Vec3::new(0.0, 0.0, 0.36),
        0.013,
        Material::Chrome,
    );
    for side in [-1.0f32, 1.0] {
        m.tube(
            bar + Vec3::new(-0.02, 0.0, side * 0.36),
            bar + Vec3::new(-0.02, 0.0, side * 0.26),
            0.02,
            Material::Trim,
        );
        // Mirrors.
        m.tube(
            bar + Vec3::new(0.0, 0.0, side * 0.28),
            bar + Vec3::new(0.02, 0.09, side * 0.33),
            0.007,
            Material::Chrome,
        );
        m.ellipsoid(
            bar + Vec3::new(0.02, 0.11, side * 0.34),
            Vec3::new(0.02, 0.035, 0.055),
            Quat::IDENTITY,
            Material::Trim,
        );
    }
    // Frame spine from the head to the swingarm pivot.
    let pivot = Vec3::new(ra + 0.55, r + 0.12, 0.0);
    m.tube(head, pivot + Vec3::new(0.0, 0.2, 0.0), 0.03, Material::Trim);
    for side in [-1.0f32, 1.0] {
        m.tube(
            pivot + Vec3::new(0.0, 0.0, side * 0.09),
            rear + Vec3::new(0.0, 0.0, side * 0.09),
            0.028,
            Material::Trim,
        );
    }
    // Engine: dark crankcase, finned alloy cylinders, chrome covers.
    let eng_c = Vec3::new((head.x + pivot.x) / 2.0 + 0.02, r + 0.1, 0.0);
    m.rounded_box(eng_c, Vec3::new(0.22, 0.15, 0.14), 5.0, Material::Trim);
    m.rounded_box(
        eng_c + Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.1, 0.1, 0.155),
        3.0,
        Material::Chrome,
    );
    for k in 0..5 {
        let y = eng_c.y + 0.14 + k as f32 * 0.035;
        m.rounded_box(
            Vec3::new(eng_c.x + 0.06 + k as f32 * 0.012, y, 0.0),
            Vec3::new(0.11, 0.012, 0.13),
            4.0,
            Material::Alloy,
        );
    }
    // Tank: the paint, sloping down into the seat.
    let tank_c = Vec3::new(head.x - 0.3, tank_h - 0.12, 0.0);
    // Down tube and rear shock.
    m.tube(
        head,
        eng_c + Vec3::new(0.2, -0.08, 0.0),
        0.026,
        Material::Trim,
    );
    m.tube(
        Vec3::new(pivot.x - 0.25, r + 0.18, 0.0),
        Vec3::new(pivot.x - 0.05, seat_h - 0.08, 0.0),
        0.03,
        Material::Chrome,
    );
    m.ellipsoid(
        tank_c,
        Vec3::new(0.32, 0.115, 0.15),
        Quat::from_rotation_z(-0.14),
        Material::Paint,
    );
    // Side covers under the seat, in paint.
    let cover_c = Vec3::new(tank_c.x - 0.42, seat_h - 0.12, 0.0);
    m.rounded_box(cover_c, Vec3::new(0.16, 0.09, 0.12), 3.0, Material::Paint);
    // Seat: long and flat, rising a little to the rear.
    let seat_c = Vec3::new(tank_c.x - 0.48, seat_h, 0.0);
    m.ellipsoid(
        seat_c,
        Vec3::new(0.36, 0.055, 0.13),
        Quat::from_rotation_z(0.06),
        Material::Interior,
    );
    let tail_c = Vec3::new(seat_c.x - 0.36, seat_h + 0.01, 0.0);
    if style != 2 {
        m.ellipsoid(
            tail_c,
            Vec3::new(0.2, 0.05, 0.08),
            Quat::from_rotation_z(0.22),
            Material::Paint,
        );
    }
    m.ellipsoid(
        tail_c + Vec3::new(-0.19, -0.03, 0.0),
        Vec3::new(0.02, 0.025, 0.05),
        Quat::IDENTITY,
        Material::TailLamp,
    );
    // Plate hanger (blank plate) and rear fender.
    m.rounded_box(
        tail_c + Vec3::new(-0.2, -0.17, 0.0),
        Vec3::new(0.01, 0.06, 0.09),
        6.0,
        Material::Plate,
    );
    m.ellipsoid(
        rear + Vec3::new(-0.05, r + 0.03, 0.0),
        Vec3::new(0.18, 0.03, 0.075),
        Quat::from_rotation_z(0.5),
        Material::Trim,
    );
    // Front fender.
    m.ellipsoid(
        front + Vec3::new(0.0, r + 0.05, 0.0),
        Vec3::new(0.22, 0.035, 0.07),
        Quat::IDENTITY,
        Material::Paint,
    );
    // Headlamp or fairing.
    let lamp_c = head + Vec3::new(0.14, -0.02, 0.0);
    if style == 0 {
        m.ellipsoid(
            lamp_c + Vec3::new(-0.02, -0.08, 0.0),
            Vec3::new(0.22, 0.13, 0.15),
            Quat::from_rotation_z(0.6),
            Material::Paint,
        );
        m.ellipsoid(
            lamp_c + Vec3::new(0.1, -0.06, 0.0),
            Vec3::new(0.04, 0.05, 0.09),
            Quat::IDENTITY,
            Material::HeadLamp,
        );
        m.ellipsoid(
            lamp_c + Vec3::new(-0.02, 0.18, 0.0),
            Vec3::new(0.1, 0.008, 0.09),
            Quat::from_rotation_z(0.9),
            Material::Glass,
        );
    } else {
        m.ellipsoid(
            lamp_c,
            Vec3::new(0.06, 0.09, 0.09),
            Quat::IDENTITY,
            Material::Chrome,
        );
        m.ellipsoid(
            lamp_c + Vec3::new(0.04, 0.0, 0.0),
            Vec3::new(0.03, 0.075, 0.075),
            Quat::IDENTITY,
            Material::HeadLamp,
        );
    }
    // Exhaust on the right side.
    m.tube(
        eng_c + Vec3::new(0.1, -0.12, 0.12),
        Vec3::new(ra - 0.05, r + 0.05 + 0.1 * (style == 0) as i32 as f32, 0.17),
        0.045,
        Material::Chrome,
    );
    m
}
