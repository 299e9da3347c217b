//! Finding and loading the ONNX Runtime shared library.
//!
//! ort is built with `load-dynamic`: nothing is linked or downloaded at build
//! time, and the library is opened at start-up with `ort::init_from` (never
//! `ort::init`, which panics when the library is missing). Where it is looked
//! for, in order:
//!
//! 1. an explicit path (`RefineConfig::ort_dylib`, `render-node --ort-dylib`);
//! 2. `VIS_ORT_DYLIB`, then ort's own `ORT_DYLIB_PATH`;
//! 3. the `onnxruntime` (or `onnxruntime-gpu`) PyPI wheel in Python's
//!    site-packages: `onnxruntime/capi/libonnxruntime.so.<version>`.
//!
//! A path named in 1 or 2 that does not exist is an error (never a silent
//! fallback to another library). One library per process: the first stage to
//! load it wins, later ones share it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use super::RefineError;

/// The ONNX Runtime release ort 2.0.0-rc.15 (`api-31`) is built against.
pub const ORT_VERSION: &str = "1.31.1";

/// Environment variables naming the library, in the order they are read.
pub const DYLIB_VARS: [&str; 2] = ["VIS_ORT_DYLIB", "ORT_DYLIB_PATH"];

/// How to get the library, for error messages.
pub const INSTALL_HINT: &str = "install it with `pip install onnxruntime==1.31.1` \
     (GPU nodes: `pip install onnxruntime-gpu==1.31.1`), which puts \
     onnxruntime/capi/libonnxruntime.so.1.31.1 in Python's site-packages where \
     render-node finds it, or set VIS_ORT_DYLIB=/path/to/libonnxruntime.so.1.31.1";

/// A library file and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    /// `config`, an environment variable's name, or `site-packages`.
    pub found_by: String,
}

/// Finds the library: `explicit`, then [`DYLIB_VARS`], then Python's
/// site-packages.
pub fn locate(explicit: Option<&Path>) -> Result<Located, RefineError> {
    if let Some(path) = explicit {
        return named(path, "the configured path (--ort-dylib)", "config");
    }
    for var in DYLIB_VARS {
        if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return named(Path::new(&value), var, var);
        }
    }
    let dirs = site_package_dirs();
    match search(&dirs) {
        Some(path) => Ok(Located {
            path,
            found_by: "site-packages".into(),
        }),
        None => Err(RefineError::RuntimeMissing(format!(
            "the ONNX Runtime shared library (libonnxruntime.so, ONNX Runtime {ORT_VERSION}) \
             was not found: {} unset and no onnxruntime wheel in Python's site-packages \
             (looked in {}); {INSTALL_HINT}",
            DYLIB_VARS.join(" and "),
            if dirs.is_empty() {
                "no site-packages directory: python3 not found".to_owned()
            } else {
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ))),
    }
}

fn named(path: &Path, what: &str, found_by: &str) -> Result<Located, RefineError> {
    if path.is_file() {
        Ok(Located {
            path: path.to_path_buf(),
            found_by: found_by.into(),
        })
    } else {
        Err(RefineError::RuntimeMissing(format!(
            "the ONNX Runtime shared library (libonnxruntime.so, ONNX Runtime {ORT_VERSION}) \
             named by {what} does not exist: {}; {INSTALL_HINT}",
            path.display()
        )))
    }
}

/// The newest `onnxruntime/capi/libonnxruntime.so*` (or `.dylib`) under any
/// of `dirs`.
pub fn search(dirs: &[PathBuf]) -> Option<PathBuf> {
    let mut found: Vec<(Vec<u32>, PathBuf)> = Vec::new();
    for dir in dirs {
        let capi = dir.join("onnxruntime").join("capi");
        let Ok(entries) = std::fs::read_dir(&capi) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = if let Some(v) = name.strip_prefix("libonnxruntime.so.") {
                v
            } else if let Some(v) = name
                .strip_prefix("libonnxruntime.")
                .and_then(|v| v.strip_suffix(".dylib"))
            {
                v
            } else {
                continue;
            };
            // libonnxruntime_providers_*.so never matches: the prefix needs a dot.
            let Some(key) = version
                .split('.')
                .map(|p| p.parse::<u32>().ok())
                .collect::<Option<Vec<u32>>>()
            else {
                continue;
            };
            found.push((key, entry.path()));
        }
    }
    found.sort();
    found.pop().map(|(_, path)| path)
}

/// Python's site-packages directories (`python3`'s `sys.path`), then the
/// usual Debian and virtualenv places in case python3 is not on PATH.
pub fn site_package_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for python in ["python3", "python"] {
        let Ok(out) = Command::new(python)
            .args(["-c", "import sys\nfor p in sys.path: print(p)"])
            .output()
        else {
            continue;
        };
        if out.status.success() {
            dirs.extend(
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter(|l| !l.is_empty())
                    .map(PathBuf::from),
            );
            break;
        }
    }
    let mut roots: Vec<PathBuf> = vec!["/usr/local/lib".into(), "/usr/lib".into()];
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(Path::new(&venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(Path::new(&home).join(".local/lib"));
    }
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pythons.sort();
        for p in pythons {
            dirs.push(p.join("site-packages"));
            dirs.push(p.join("dist-packages"));
        }
    }
    dirs.push("/usr/lib/python3/dist-packages".into());
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| d.is_dir() && seen.insert(d.clone()));
    dirs
}

/// The process's one ONNX Runtime environment, and the library it came from.
static ENVIRONMENT: Mutex<Option<(ort::environment::Environment, PathBuf)>> = Mutex::new(None);

/// Loads the library (once per process) and returns the environment and the
/// path it was actually loaded from.
pub fn environment(
    located: &Located,
) -> Result<(ort::environment::Environment, PathBuf), RefineError> {
    let mut slot = ENVIRONMENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((env, path)) = slot.as_ref() {
        return Ok((env.clone(), path.clone()));
    }
    let builder = ort::init_from(&located.path).map_err(|e| {
        RefineError::RuntimeLoad(format!(
            "loading ONNX Runtime from {} (found by {}): {e}; ort 2.0.0-rc.15 needs ONNX \
             Runtime {ORT_VERSION} or newer: {INSTALL_HINT}",
            located.path.display(),
            located.found_by
        ))
    })?;
    let env = builder
        .with_name("vis-render")
        .with_telemetry(false)
        .build()
        .map_err(|e| {
            RefineError::RuntimeLoad(format!("creating the ONNX Runtime environment: {e}"))
        })?;
    *slot = Some((env.clone(), located.path.clone()));
    Ok((env, located.path.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("vis-onnx-runtime-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_explicit_missing_library_names_the_path_and_how_to_install() {
        let err = locate(Some(Path::new("/nonexistent/libonnxruntime.so.1.31.1"))).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, RefineError::RuntimeMissing(_)), "{msg}");
        assert!(
            msg.contains("/nonexistent/libonnxruntime.so.1.31.1"),
            "{msg}"
        );
        assert!(msg.contains("pip install onnxruntime==1.31.1"), "{msg}");
        assert!(msg.contains("VIS_ORT_DYLIB"), "{msg}");
    }

    #[test]
    fn search_finds_the_newest_wheel_library_and_ignores_providers() {
        let a = scratch("a");
        let b = scratch("b");
        for (dir, name) in [
            (&a, "libonnxruntime.so.1.30.0"),
            (&a, "libonnxruntime_providers_shared.so"),
            (&b, "libonnxruntime.so.1.31.1"),
            (&b, "libonnxruntime_providers_cuda.so"),
        ] {
            let capi = dir.join("onnxruntime/capi");
            std::fs::create_dir_all(&capi).unwrap();
            std::fs::write(capi.join(name), b"").unwrap();
        }
        let found = search(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(found, b.join("onnxruntime/capi/libonnxruntime.so.1.31.1"));
        assert_eq!(search(&[a.join("nothing")]), None);
        std::fs::remove_dir_all(a).unwrap();
        std::fs::remove_dir_all(b).unwrap();
    }
}
