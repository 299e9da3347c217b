//! Embeds every `models/identity/*.csv` (curated vehicle identity data), so
//! adding a make's file needs no code change.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read at run time: a build script compiled once may be run for another
    // checkout sharing the target directory.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("../models/identity");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("/// (make slug, file text) for every `models/identity/*.csv`.\n");
    out.push_str("pub const IDENTITY_FILES: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let make = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let abs = path.canonicalize().unwrap_or_else(|_| path.clone());
        writeln!(
            out,
            "    ({make:?}, include_str!({:?})),",
            abs.display().to_string()
        )
        .expect("write to a string");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("identity_files.rs");
    std::fs::write(dest, out).expect("write identity_files.rs");
}
