//! The local ETag cache of `vis image`: the last copy of each image asked
//! for, with its ETag, so that asking again sends `If-None-Match` and a 304
//! (free) is answered from disk.
//!
//! One entry per server and query: `<sha256>.img` (the bytes) and
//! `<sha256>.json` (ETag and content type), written in that order, each
//! through a rename, so an entry with metadata always has its bytes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::ImageSpec;
use crate::config::{private_dir, write_atomic};
use crate::error::Result;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    pub etag: String,
    pub content_type: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct EtagCache {
    dir: PathBuf,
}

#[derive(Debug)]
pub struct Entry {
    pub meta: Meta,
    pub bytes: Vec<u8>,
}

impl EtagCache {
    /// The cache under `root` (normally `config::cache_dir()`).
    pub fn new(root: &Path) -> EtagCache {
        EtagCache {
            dir: root.join("images"),
        }
    }

    fn key(base_url: &str, spec: &ImageSpec) -> String {
        let mut h = Sha256::new();
        h.update(base_url.as_bytes());
        for (k, v) in spec.query() {
            h.update(b"\n");
            h.update(k.as_bytes());
            h.update(b"=");
            h.update(v.as_bytes());
        }
        hex::encode(h.finalize())
    }

    /// The entry for this image, if it is complete.
    pub fn get(&self, base_url: &str, spec: &ImageSpec) -> Option<Entry> {
        let key = Self::key(base_url, spec);
        let meta: Meta =
            serde_json::from_slice(&std::fs::read(self.dir.join(format!("{key}.json"))).ok()?)
                .ok()?;
        let bytes = std::fs::read(self.dir.join(format!("{key}.img"))).ok()?;
        Some(Entry { meta, bytes })
    }

    pub fn put(&self, base_url: &str, spec: &ImageSpec, meta: &Meta, bytes: &[u8]) -> Result<()> {
        let key = Self::key(base_url, spec);
        private_dir(&self.dir)?;
        write_atomic(&self.dir.join(format!("{key}.img")), bytes, 0o600)?;
        let meta = serde_json::to_vec(meta).expect("serialisable");
        write_atomic(&self.dir.join(format!("{key}.json")), &meta, 0o600)
    }
}
