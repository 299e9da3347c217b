//! API keys and scopes (spec §5): generation, parsing, hashing, scope sets.
//! No HTTP here; `http::auth` extracts keys from requests.

use std::fmt;

use rand::RngExt;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The fixed service prefix every key starts with.
pub const KEY_PREFIX: &str = "vis_";
/// Random characters after the prefix: 40 base62 characters ≈ 238 bits.
const KEY_RANDOM_CHARS: usize = 40;
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Characters of the key kept for display in key lists (`vis_` + 8).
const DISPLAY_CHARS: usize = 12;

/// A permission a key carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    ImagesRead,
    AccountRead,
    BillingWrite,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::ImagesRead, Scope::AccountRead, Scope::BillingWrite];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ImagesRead => "images:read",
            Scope::AccountRead => "account:read",
            Scope::BillingWrite => "billing:write",
        }
    }

    pub fn parse(raw: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == raw.trim())
    }
}

/// The scopes of a new key whoever makes it: the dashboard's form checks
/// these, `control-plane keys create` takes them when `--scopes` is not
/// given, and a device login's key has them (spec §5: all three).
pub const DEFAULT_SCOPES: &str = "images:read account:read billing:write";

/// A set of scopes, stored as space-separated names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    pub fn all() -> Scopes {
        Scopes(Scope::ALL.to_vec())
    }

    /// [`DEFAULT_SCOPES`].
    pub fn new_key_default() -> Scopes {
        Scopes::parse(DEFAULT_SCOPES).expect("DEFAULT_SCOPES are scope names")
    }

    /// Parses names separated by commas or spaces; unknown names are an error
    /// naming them.
    pub fn parse(raw: &str) -> Result<Scopes, String> {
        let mut out = Vec::new();
        for name in raw.split([',', ' ']).filter(|s| !s.is_empty()) {
            let scope = Scope::parse(name).ok_or_else(|| {
                format!(
                    "unknown scope {name:?}; expected one of: {}",
                    Scope::ALL.map(Scope::as_str).join(", ")
                )
            })?;
            if !out.contains(&scope) {
                out.push(scope);
            }
        }
        out.sort();
        Ok(Scopes(out))
    }

    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|s| s.as_str()).collect()
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(" "))
    }
}

/// A plaintext API key. Debug and Display never show it; only `expose` does,
/// for the one moment it is shown to its owner.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}…)", self.display_prefix())
    }
}

impl ApiKey {
    /// A fresh random key.
    pub fn generate() -> ApiKey {
        ApiKey(format!("{KEY_PREFIX}{}", random_base62(KEY_RANDOM_CHARS)))
    }

    /// Accepts a string shaped like a key; says nothing about whether it exists.
    pub fn parse(raw: &str) -> Option<ApiKey> {
        let rest = raw.strip_prefix(KEY_PREFIX)?;
        let ok = rest.len() == KEY_RANDOM_CHARS && rest.bytes().all(|b| b.is_ascii_alphanumeric());
        ok.then(|| ApiKey(raw.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The hex SHA-256 stored in place of the key. Keys carry far more than
    /// 128 random bits, so a fast hash is enough (no password stretching).
    pub fn hash(&self) -> String {
        hash_hex(self.0.as_bytes())
    }

    pub fn display_prefix(&self) -> String {
        self.0.chars().take(DISPLAY_CHARS).collect()
    }
}

pub fn hash_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Constant-time equality of two hashes.
pub fn hashes_equal(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

pub fn random_base62(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| BASE62[rng.random_range(0..BASE62.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_differ() {
        let a = ApiKey::generate();
        let b = ApiKey::generate();
        assert_ne!(a, b);
        assert!(a.expose().starts_with("vis_"));
        assert_eq!(ApiKey::parse(a.expose()), Some(a.clone()));
        assert_eq!(a.hash().len(), 64);
        assert!(!format!("{a:?}").contains(&a.expose()[12..]));
    }

    #[test]
    fn malformed_keys_do_not_parse() {
        for bad in [
            "",
            "vis_",
            "sk_live_abc",
            "vis_short",
            &format!("vis_{}", "!".repeat(40)),
        ] {
            assert!(ApiKey::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn new_keys_get_every_scope_by_default() {
        assert_eq!(Scopes::new_key_default(), Scopes::all());
    }

    #[test]
    fn scopes_parse_and_print() {
        let s = Scopes::parse("billing:write,images:read account:read images:read").unwrap();
        assert_eq!(s.to_string(), "images:read account:read billing:write");
        assert!(
            Scopes::parse("images:write")
                .unwrap_err()
                .contains("images:write")
        );
        assert!(
            Scopes::parse("images:read")
                .unwrap()
                .contains(Scope::ImagesRead)
        );
        assert!(
            !Scopes::parse("images:read")
                .unwrap()
                .contains(Scope::BillingWrite)
        );
    }

    #[test]
    fn hash_comparison() {
        let h = hash_hex(b"x");
        assert!(hashes_equal(&h, &h.clone()));
        assert!(!hashes_equal(&h, &hash_hex(b"y")));
        assert!(!hashes_equal(&h, "short"));
    }
}

/// Recently seen keys by hash, for the one hot path that may skip the key
/// read: the image endpoint, whose charge re-checks the key in its own
/// transaction and which confirms the key before any unbilled answer.
/// Entries expire after `ttl`; past `max` entries, the least used are
/// evicted (`quick_cache`), never the whole map.
#[derive(Debug)]
pub struct KeyCache<V: Clone> {
    entries: quick_cache::sync::Cache<String, (V, std::time::Instant)>,
    ttl: std::time::Duration,
}

impl<V: Clone> KeyCache<V> {
    pub fn new(ttl: std::time::Duration, max: usize) -> KeyCache<V> {
        KeyCache {
            entries: quick_cache::sync::Cache::new(max.max(1)),
            ttl,
        }
    }

    pub fn get(&self, hash: &str) -> Option<V> {
        self.entries
            .get(hash)
            .filter(|(_, at)| at.elapsed() < self.ttl)
            .map(|(v, _)| v)
    }

    pub fn insert(&self, hash: String, value: V) {
        self.entries
            .insert(hash, (value, std::time::Instant::now()));
    }

    pub fn forget(&self, hash: &str) {
        self.entries.remove(hash);
    }

    /// Drops every entry whose value matches (a revoked key's).
    pub fn forget_where(&self, matches: impl Fn(&V) -> bool) {
        self.entries.retain(|_, (v, _)| !matches(v));
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    #[test]
    fn entries_expire_and_the_map_stays_bounded() {
        let c = KeyCache::new(std::time::Duration::from_millis(30), 100);
        c.insert("a".into(), 1);
        assert_eq!(c.get("a"), Some(1));
        std::thread::sleep(std::time::Duration::from_millis(40));
        assert_eq!(c.get("a"), None);
        c.insert("d".into(), 4);
        c.forget("d");
        assert_eq!(c.get("d"), None);
    }

    #[test]
    fn a_full_cache_evicts_instead_of_emptying() {
        let c = KeyCache::new(std::time::Duration::from_secs(60), 100);
        c.insert("busy".into(), 0);
        for i in 0..1000 {
            c.insert(format!("k{i}"), i);
            // A key in use between every new one stays.
            assert_eq!(c.get("busy"), Some(0), "evicted at {i}");
        }
        let kept = (900..1000)
            .filter(|i| c.get(&format!("k{i}")).is_some())
            .count();
        assert!(kept > 0, "recent keys are kept, not cleared with the rest");
        let held = (0..1000)
            .filter(|i| c.get(&format!("k{i}")).is_some())
            .count();
        assert!(held <= 110, "bounded: {held}");
    }
}
