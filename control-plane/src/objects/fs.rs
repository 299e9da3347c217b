//! Objects as files under a root directory. Each object is `<key>` plus a
//! `<key>.meta` JSON sidecar (content type, size, SHA-256). Both are written
//! to a temporary file, synced and renamed into place; the sidecar goes first,
//! and a reader whose sidecar disagrees with the data's size treats the object
//! as absent, so a crash between the two renames never serves wrong metadata.

use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::{Object, ObjectError, ObjectKey, ObjectMeta, ObjectStore};

#[derive(Debug, Clone)]
pub struct FsObjectStore {
    root: PathBuf,
}

impl FsObjectStore {
    pub fn new(root: impl Into<PathBuf>) -> Result<FsObjectStore, ObjectError> {
        let root = root.into();
        std::fs::create_dir_all(&root).map_err(|e| unavailable(&root, e))?;
        Ok(FsObjectStore { root })
    }

    fn path(&self, key: &ObjectKey) -> PathBuf {
        self.root.join(key.as_str())
    }
}

fn unavailable(path: &Path, e: std::io::Error) -> ObjectError {
    ObjectError::Unavailable(format!("{}: {e}", path.display()))
}

fn meta_path(data: &Path) -> PathBuf {
    let mut name = data.as_os_str().to_owned();
    name.push(".meta");
    PathBuf::from(name)
}

/// Writes `bytes` to `dest` through a synced temporary file in the same directory.
fn write_atomic(dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = dest.parent().expect("object paths have a parent");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, dest)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn read_meta(data: &Path) -> Result<Option<ObjectMeta>, ObjectError> {
    let meta_file = meta_path(data);
    let text = match std::fs::read(&meta_file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unavailable(&meta_file, e)),
    };
    let meta: ObjectMeta = serde_json::from_slice(&text)
        .map_err(|e| ObjectError::Corrupt(meta_file.display().to_string(), e.to_string()))?;
    match std::fs::metadata(data) {
        Ok(m) if m.len() == meta.size => Ok(Some(meta)),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(unavailable(data, e)),
    }
}

#[async_trait]
impl ObjectStore for FsObjectStore {
    async fn put(
        &self,
        key: &ObjectKey,
        bytes: Bytes,
        content_type: &str,
    ) -> Result<ObjectMeta, ObjectError> {
        let path = self.path(key);
        let content_type = content_type.to_owned();
        tokio::task::spawn_blocking(move || {
            let meta = ObjectMeta {
                content_type,
                size: bytes.len() as u64,
                sha256: hex::encode(Sha256::digest(&bytes)),
            };
            let meta_json = serde_json::to_vec(&meta).expect("meta serialises");
            write_atomic(&meta_path(&path), &meta_json).map_err(|e| unavailable(&path, e))?;
            write_atomic(&path, &bytes).map_err(|e| unavailable(&path, e))?;
            Ok(meta)
        })
        .await
        .map_err(|e| ObjectError::Unavailable(format!("writer task failed: {e}")))?
    }

    async fn get(&self, key: &ObjectKey) -> Result<Option<Object>, ObjectError> {
        let path = self.path(key);
        tokio::task::spawn_blocking(move || {
            let Some(meta) = read_meta(&path)? else {
                return Ok(None);
            };
            match std::fs::read(&path) {
                Ok(bytes) if bytes.len() as u64 == meta.size => Ok(Some(Object {
                    bytes: Bytes::from(bytes),
                    meta,
                })),
                // Replaced between the two reads: report absent, the caller re-reads or re-renders.
                Ok(_) => Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(unavailable(&path, e)),
            }
        })
        .await
        .map_err(|e| ObjectError::Unavailable(format!("reader task failed: {e}")))?
    }

    async fn head(&self, key: &ObjectKey) -> Result<Option<ObjectMeta>, ObjectError> {
        let path = self.path(key);
        tokio::task::spawn_blocking(move || read_meta(&path))
            .await
            .map_err(|e| ObjectError::Unavailable(format!("reader task failed: {e}")))?
    }

    async fn delete(&self, key: &ObjectKey) -> Result<(), ObjectError> {
        let path = self.path(key);
        for p in [path.clone(), meta_path(&path)] {
            match tokio::fs::remove_file(&p).await {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(unavailable(&p, e)),
            }
        }
        Ok(())
    }

    async fn check(&self) -> Result<(), ObjectError> {
        let probe = self.root.join(".readyz");
        let root = self.root.clone();
        tokio::task::spawn_blocking(move || {
            write_atomic(&probe, b"ok").map_err(|e| unavailable(&root, e))
        })
        .await
        .map_err(|e| ObjectError::Unavailable(format!("probe task failed: {e}")))?
    }
}

/// What every backend does is tested once for all of them
/// (tests/tests/blackbox/object_store.rs); here, what only files can do.
#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, FsObjectStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = FsObjectStore::new(dir.path().join("objects")).unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn a_torn_write_reads_as_absent() {
        let (_dir, s) = store();
        let key = ObjectKey::parse("x/y.png").unwrap();
        s.put(&key, Bytes::from_static(b"12345"), "image/png")
            .await
            .unwrap();
        // Simulate a crash after the sidecar of a new version was renamed in
        // but before its data was: sizes disagree.
        std::fs::write(
            meta_path(&s.path(&key)),
            br#"{"content_type":"image/png","size":9,"sha256":"00"}"#,
        )
        .unwrap();
        assert!(s.get(&key).await.unwrap().is_none());
        let leftovers: Vec<_> = std::fs::read_dir(s.path(&key).parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
