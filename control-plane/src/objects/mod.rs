//! Rendered images and derived outputs, behind [`ObjectStore`]. The embedded
//! default is [`FsObjectStore`]; [`S3ObjectStore`] serves several control
//! planes and remote render nodes from one bucket. Both pass one conformance
//! suite (tests/tests/blackbox/object_store.rs).
//!
//! Keys are relative, `/`-separated paths of `[a-z0-9._-]` segments, e.g.
//! `renders/r1/toyota/camry/2019/red/side/source.png`; [`ObjectKey`] refuses
//! anything else, so no key can escape the store's root.

mod fs;
mod s3;

use std::fmt;

use async_trait::async_trait;
use bytes::Bytes;

pub use fs::FsObjectStore;
pub use s3::S3ObjectStore;

/// A validated object key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectKey(String);

impl ObjectKey {
    /// A key in the grammar of `config::is_object_path`.
    pub fn parse(raw: &str) -> Option<ObjectKey> {
        crate::config::is_object_path(raw).then(|| ObjectKey(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the store knows about an object without reading it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ObjectMeta {
    pub content_type: String,
    pub size: u64,
    /// Hex SHA-256 of the bytes.
    pub sha256: String,
}

#[derive(Debug, Clone)]
pub struct Object {
    pub bytes: Bytes,
    pub meta: ObjectMeta,
}

#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error("object store unavailable: {0}")]
    Unavailable(String),
    #[error("object {0} is corrupt: {1}")]
    Corrupt(String, String),
}

#[async_trait]
pub trait ObjectStore: Send + Sync + fmt::Debug {
    /// Stores `bytes` under `key`, replacing any previous object atomically:
    /// a reader sees the old object or the new one, never a part.
    async fn put(
        &self,
        key: &ObjectKey,
        bytes: Bytes,
        content_type: &str,
    ) -> Result<ObjectMeta, ObjectError>;
    async fn get(&self, key: &ObjectKey) -> Result<Option<Object>, ObjectError>;
    async fn head(&self, key: &ObjectKey) -> Result<Option<ObjectMeta>, ObjectError>;
    async fn delete(&self, key: &ObjectKey) -> Result<(), ObjectError>;
    /// Succeeds when the store can be read and written.
    async fn check(&self) -> Result<(), ObjectError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_escape() {
        assert!(ObjectKey::parse("renders/r1/toyota/camry/2019/red/side/source.png").is_some());
        for bad in [
            "",
            "/abs",
            "a//b",
            "../x",
            "a/../b",
            "a/.hidden",
            "A/b",
            "a b",
            "a\\b",
            "a/",
        ] {
            assert!(ObjectKey::parse(bad).is_none(), "{bad:?}");
        }
    }
}
