//! Golden images that never write themselves: a missing or changed golden
//! fails its test unless `VIS_BLESS=1` is set, which (re)writes it. Set it
//! only after looking at the new image (the failure names where it is).
//! Both functions return the failure instead of panicking, so a test that
//! checks several goldens names every one that differs before it fails.

use std::path::{Path, PathBuf};

use vis_render::image::{Rgba, encode_png};

/// Whether this run may write goldens (`VIS_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var("VIS_BLESS").as_deref() == Ok("1")
}

/// The stored golden `name`.png under the crate's `tests/golden`.
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Writes `actual` where a person can look at it, and returns that path.
fn keep_actual(name: &str, actual: &Rgba) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.actual.png"));
    std::fs::write(&out, encode_png(actual).expect("encodes")).expect("writes the actual image");
    out
}

/// The golden `name` when there is one; when it is missing, writes `actual`
/// under `VIS_BLESS=1` (and returns None), or returns the failure.
pub fn stored(name: &str, actual: &Rgba) -> Result<Option<Vec<u8>>, String> {
    let path = path(name);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(_) if blessing() => {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("golden folder");
            std::fs::write(&path, encode_png(actual).expect("encodes")).expect("writes");
            eprintln!("blessed new golden {}", path.display());
            Ok(None)
        }
        Err(e) => Err(format!(
            "golden {} is missing ({e}); look at {} and, if it is right, run again with VIS_BLESS=1",
            path.display(),
            keep_actual(name, actual).display()
        )),
    }
}

/// After a comparison found `actual` different from the golden `name`
/// (`why` says how): rewrites it under `VIS_BLESS=1`, else returns the
/// failure with the paths of the actual image and of `diff` (when given).
pub fn differs(name: &str, actual: &Rgba, diff: Option<&Rgba>, why: &str) -> Result<(), String> {
    if blessing() {
        let path = path(name);
        std::fs::write(&path, encode_png(actual).expect("encodes")).expect("writes");
        eprintln!("blessed changed golden {} ({why})", path.display());
        return Ok(());
    }
    let actual_at = keep_actual(name, actual);
    let diff_at = diff.map(|d| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-diff.png"));
        std::fs::write(&out, encode_png(d).expect("encodes")).expect("writes the diff");
        out
    });
    Err(format!(
        "{name}: differs from its golden ({why}); actual at {}{}; look at it and, if it is right, run again with VIS_BLESS=1",
        actual_at.display(),
        diff_at.map_or(String::new(), |d| format!(", diff at {}", d.display()))
    ))
}
