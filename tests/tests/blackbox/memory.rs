//! Resident memory levels off under distinct cold renders (issue
//! "Hardening" §1): the real render path in its own process (the
//! `render-soak` binary), a small derived-output cache, RSS compared
//! between an early checkpoint and the last ones. Before the allocator
//! settings of `control_plane::memory` it grew by 60–80 KiB per render.

use std::process::Command;

#[test]
fn resident_memory_levels_off_under_distinct_cold_renders() {
    let out = Command::new(env!("CARGO_BIN_EXE_render-soak"))
        .args(["240", "60", "200", "220", "240"])
        .output()
        .expect("render-soak runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let rss: Vec<(usize, f64)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut cols = l.split_whitespace();
            Some((cols.next()?.parse().ok()?, cols.next()?.parse().ok()?))
        })
        .collect();
    let at = |n: usize| rss.iter().find(|(done, _)| *done == n).map(|(_, mib)| *mib);
    let early = at(60).expect("checkpoint 60");
    // The least of the last checkpoints: a transient peak is not growth.
    let late = [200, 220, 240]
        .iter()
        .filter_map(|n| at(*n))
        .fold(f64::INFINITY, f64::min);
    let per_render_kib = (late - early) * 1024.0 / 180.0;
    assert!(
        per_render_kib < 20.0,
        "RSS grew {per_render_kib:.1} KiB per distinct cold render\n{text}"
    );
}
