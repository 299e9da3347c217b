//! A model directory's digest: SHA-256 over the content of every file the
//! pipeline reads (`model_index.json` and the scheduler, tokenizer,
//! text_encoder, unet, vae_encoder and vae_decoder folders, external weight
//! files included), with their relative paths. Content, not paths or mtimes:
//! the same model copied to another node or folder has the same digest,
//! and any changed byte gives a new one. Hashing reads the files once at
//! start-up (about a second per GB).

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::RefineError;

/// What the pipeline reads from a model directory.
pub const COMPONENTS: [&str; 7] = [
    "model_index.json",
    "scheduler",
    "tokenizer",
    "text_encoder",
    "unet",
    "vae_encoder",
    "vae_decoder",
];

/// Hex SHA-256 of the model directory's used files.
pub fn model_digest(dir: &Path) -> Result<String, RefineError> {
    let mut files = Vec::new();
    for c in COMPONENTS {
        let path = dir.join(c);
        if path.is_dir() {
            walk(&path, &mut files)?;
        } else if path.is_file() {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(RefineError::Model(format!(
            "{}: none of {} found",
            dir.display(),
            COMPONENTS.join(", ")
        )));
    }
    let mut rel: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let r = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (r, p)
        })
        .collect();
    rel.sort();
    let mut all = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for (name, path) in rel {
        let io = |e: std::io::Error| RefineError::Model(format!("{}: {e}", path.display()));
        let mut f = std::fs::File::open(&path).map_err(io)?;
        let mut one = Sha256::new();
        let mut len = 0u64;
        loop {
            let k = f.read(&mut buf).map_err(io)?;
            if k == 0 {
                break;
            }
            one.update(&buf[..k]);
            len += k as u64;
        }
        all.update(name.as_bytes());
        all.update([0]);
        all.update(len.to_le_bytes());
        all.update(one.finalize());
    }
    Ok(hex::encode(all.finalize()))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), RefineError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| RefineError::Model(format!("{}: {e}", dir.display())))?;
    for entry in entries {
        let entry = entry.map_err(|e| RefineError::Model(format!("{}: {e}", dir.display())))?;
        // Editor and tool droppings (.DS_Store, .cache/) are not the model.
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(dir: &Path, weights: &[u8]) {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir.join("unet")).unwrap();
        std::fs::create_dir_all(dir.join("feature_extractor")).unwrap();
        std::fs::write(dir.join("model_index.json"), b"{}").unwrap();
        std::fs::write(dir.join("unet/model.onnx"), weights).unwrap();
        std::fs::write(dir.join("unet/.DS_Store"), b"x").unwrap();
        std::fs::write(dir.join("feature_extractor/x.json"), b"unused").unwrap();
    }

    #[test]
    fn the_digest_is_content_not_location() {
        let base = std::env::temp_dir().join(format!("vis-onnx-id-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        model(&a, b"weights");
        model(&b, b"weights");
        let da = model_digest(&a).unwrap();
        assert_eq!(da, model_digest(&b).unwrap(), "same content, other folder");
        // Unused folders and hidden files do not count.
        std::fs::write(b.join("feature_extractor/x.json"), b"changed").unwrap();
        std::fs::write(b.join("unet/.DS_Store"), b"y").unwrap();
        assert_eq!(da, model_digest(&b).unwrap());
        // One changed byte of a used file does.
        std::fs::write(b.join("unet/model.onnx"), b"weightz").unwrap();
        assert_ne!(da, model_digest(&b).unwrap());
        // So does an extra used file (external weights).
        model(&b, b"weights");
        std::fs::write(b.join("unet/model.onnx_data"), b"").unwrap();
        assert_ne!(da, model_digest(&b).unwrap());
        assert!(model_digest(&base.join("missing")).is_err());
        std::fs::remove_dir_all(base).unwrap();
    }
}
