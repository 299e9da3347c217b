//! Derived outputs (a size and format of a source render), cached in memory
//! under a byte limit and in the object store, so a cache hit neither decodes
//! nor encodes.

use std::sync::Mutex;

use bytes::Bytes;
use lru::LruCache;
use vis_protocol::{Format, VariantKey};

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
}

impl DerivedKey {
    pub fn object_key(&self) -> ObjectKey {
        ObjectKey::parse(&format!(
            "renders/r{}/{}/{}x{}.{}",
            self.revision, self.variant, self.width, self.height, self.format
        ))
        .expect("slugs and ids make valid keys")
    }
}

/// An LRU of derived outputs bounded by total bytes.
#[derive(Debug)]
pub struct DerivedCache {
    inner: Mutex<Inner>,
    max_bytes: usize,
}

#[derive(Debug)]
struct Inner {
    lru: LruCache<DerivedKey, Derived>,
    bytes: usize,
}

impl DerivedCache {
    pub fn new(max_bytes: usize) -> DerivedCache {
        DerivedCache {
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
            max_bytes,
        }
    }

    pub fn get(&self, key: &DerivedKey) -> Option<Derived> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .lru
            .get(key)
            .cloned()
    }

    pub fn insert(&self, key: DerivedKey, value: Derived) {
        let size = value.bytes.len();
        if size > self.max_bytes {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = inner.lru.put(key, value) {
            inner.bytes -= old.bytes.len();
        }
        inner.bytes += size;
        while inner.bytes > self.max_bytes {
            match inner.lru.pop_lru() {
                Some((_, evicted)) => inner.bytes -= evicted.bytes.len(),
                None => break,
            }
        }
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).bytes
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
                color: Color::Blue,
                view: View::Side,
            },
            revision: 1,
            width: w,
            height: w,
            format: Format::Png,
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
    fn stays_under_its_byte_limit_evicting_the_least_recent() {
        let cache = DerivedCache::new(1000);
        cache.insert(key(1), derived(400));
        cache.insert(key(2), derived(400));
        assert!(cache.get(&key(1)).is_some()); // 1 is now the most recent
        cache.insert(key(3), derived(400));
        assert_eq!(cache.bytes(), 800);
        assert!(cache.get(&key(2)).is_none());
        assert!(cache.get(&key(1)).is_some() && cache.get(&key(3)).is_some());
        cache.insert(key(4), derived(5000)); // larger than the whole cache: not kept
        assert!(cache.get(&key(4)).is_none());
        assert_eq!(
            key(7).object_key().as_str(),
            "renders/r1/bmw/m3/2020/blue/side/7x7.png"
        );
    }
}
