//! Derived outputs (a size and format of a source render), cached in memory
//! under a byte limit and in the object store, so a cache hit neither decodes
//! nor encodes.

use bytes::Bytes;
use vis_protocol::{Format, Framing, VariantKey};

use crate::objects::ObjectKey;

/// One delivered output.
#[derive(Debug, Clone)]
pub struct Derived {
    pub bytes: Bytes,
    pub width: u32,
    pub height: u32,
    pub format: Format,
}

/// Identifies a derived output.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivedKey {
    pub variant: VariantKey,
    pub revision: u32,
    pub width: u32,
    pub height: u32,
    pub format: Format,
    pub framing: Framing,
}

impl DerivedKey {
    /// `renders/r{revision}/{variant}/{w}x{h}.{format}`, the framing's
    /// text form after the size when not plain (`512x512-bg-white_trim.webp`).
    pub fn object_key(&self) -> ObjectKey {
        let framing = match self.framing.key() {
            k if k.is_empty() => k,
            k => format!("-{k}"),
        };
        ObjectKey::parse(&format!(
            "renders/r{}/{}/{}x{}{framing}.{}",
            self.revision, self.variant, self.width, self.height, self.format
        ))
        .expect("slugs and ids make valid keys")
    }
}

/// Derived outputs under a byte limit, on `quick_cache` (sharded,
/// CLOCK-Pro eviction: frequently requested outputs survive a scan of
/// one-off requests).
#[derive(Debug)]
pub struct DerivedCache {
    cache: quick_cache::sync::Cache<DerivedKey, Derived, ByBytes>,
    max_bytes: usize,
}

/// Weighs an output by its encoded size.
#[derive(Debug, Clone, Copy)]
pub struct ByBytes;

impl quick_cache::Weighter<DerivedKey, Derived> for ByBytes {
    fn weight(&self, _key: &DerivedKey, value: &Derived) -> u64 {
        // Zero-weight entries are never evicted: count at least one byte.
        (value.bytes.len() as u64).max(1)
    }
}

/// A typical output (a 512 px WebP), for sizing the cache's tables.
const TYPICAL_OUTPUT_BYTES: usize = 20 * 1024;

impl DerivedCache {
    pub fn new(max_bytes: usize) -> DerivedCache {
        DerivedCache {
            cache: quick_cache::sync::Cache::with_weighter(
                (max_bytes / TYPICAL_OUTPUT_BYTES).max(16),
                max_bytes as u64,
                ByBytes,
            ),
            max_bytes,
        }
    }

    pub fn get(&self, key: &DerivedKey) -> Option<Derived> {
        self.cache.get(key)
    }

    pub fn insert(&self, key: DerivedKey, value: Derived) {
        if value.bytes.len() > self.max_bytes {
            return;
        }
        self.cache.insert(key, value);
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.cache.weight() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vis_protocol::{Color, Slug, View};

    fn key(w: u32) -> DerivedKey {
        DerivedKey {
            variant: VariantKey {
                make: Slug::parse("bmw").unwrap(),
                model: Slug::parse("m3").unwrap(),
                year: 2020,
                color: Color::Blue.into(),
                view: View::Side,
                staging: Default::default(),
            },
            revision: 1,
            width: w,
            height: w,
            format: Format::Png,
            framing: Framing::default(),
        }
    }

    fn derived(n: usize) -> Derived {
        Derived {
            bytes: Bytes::from(vec![0u8; n]),
            width: 1,
            height: 1,
            format: Format::Png,
        }
    }

    #[test]
    fn stays_under_its_byte_limit_keeping_what_is_requested_often() {
        let cache = DerivedCache::new(100_000);
        cache.insert(key(0), derived(1000));
        for w in 1..2000 {
            cache.insert(key(w), derived(1000));
            assert!(cache.bytes() <= 100_000, "{} bytes", cache.bytes());
            // The home page's image: requested between every new output.
            assert!(cache.get(&key(0)).is_some(), "evicted at {w}");
        }
        assert!(
            cache.bytes() >= 50_000,
            "the cache is used: {}",
            cache.bytes()
        );
        cache.insert(key(9999), derived(200_000)); // larger than the whole cache: not kept
        assert!(cache.get(&key(9999)).is_none());
        assert_eq!(
            key(7).object_key().as_str(),
            "renders/r1/bmw/m3/2020/blue/side/7x7.png"
        );
        let framed = DerivedKey {
            framing: Framing::from_key("bg-studio_trim_pad-8").unwrap(),
            ..key(7)
        };
        assert_eq!(
            framed.object_key().as_str(),
            "renders/r1/bmw/m3/2020/blue/side/7x7-bg-studio_trim_pad-8.png"
        );
        assert!(cache.get(&framed).is_none(), "a framing is its own entry");
    }
}
