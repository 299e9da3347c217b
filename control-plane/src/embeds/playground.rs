//! The playground cookie (grant 5 of `GET /images/car.png`): issued by the
//! `/playground` page, it lets that browser load renders for free, within
//! the playground's per-IP limit and its own daily allowance of cold renders
//! (`[playground]`, docs/embeds.md).
//!
//! The value is `v1.<expiry>.<nonce>.<tag>`: unix seconds, 16 random bytes
//! and the first 16 bytes of HMAC-SHA256 over the rest under the
//! deployment's delivery secret (domain-separated). Nothing is stored: any
//! replica with the secret verifies it, and it says nothing about the
//! visitor.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The cookie's name.
pub const COOKIE: &str = "vis_playground";
/// How long a cookie lasts; each visit to the page issues a fresh one.
pub const LIFETIME_SECS: u64 = 86_400;
const DOMAIN: &[u8] = b"vis playground cookie v1\0";
const TAG_BYTES: usize = 16;

/// Issues and checks playground cookies. Prints redacted.
#[derive(Clone)]
pub struct PlaygroundCookies {
    key: Vec<u8>,
}

impl std::fmt::Debug for PlaygroundCookies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlaygroundCookies([redacted])")
    }
}

impl PlaygroundCookies {
    pub fn new(secret: &[u8]) -> PlaygroundCookies {
        PlaygroundCookies {
            key: secret.to_vec(),
        }
    }

    fn tag(&self, body: &str) -> [u8; TAG_BYTES] {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key");
        mac.update(DOMAIN);
        mac.update(body.as_bytes());
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_BYTES];
        tag.copy_from_slice(&full[..TAG_BYTES]);
        tag
    }

    /// A fresh cookie value, valid for [`LIFETIME_SECS`] from `now`.
    pub fn issue(&self, now: u64) -> String {
        use rand::RngExt;
        let nonce: [u8; 16] = rand::rng().random();
        let body = format!("v1.{}.{}", now + LIFETIME_SECS, hex::encode(nonce));
        let tag = hex::encode(self.tag(&body));
        format!("{body}.{tag}")
    }

    /// The cookie's own id (its nonce) when it is one this deployment
    /// issued and it has not expired at `now`: what its requests are counted
    /// under besides the client's address, so that one cookie carried to
    /// many addresses gets no more than one allowance.
    pub fn id<'v>(&self, value: &'v str, now: u64) -> Option<&'v str> {
        if !self.verify(value, now) {
            return None;
        }
        value.split('.').nth(2)
    }

    /// Whether `value` is a cookie this deployment issued that has not
    /// expired at `now`; the tag is compared in constant time.
    pub fn verify(&self, value: &str, now: u64) -> bool {
        let Some((body, tag)) = value.rsplit_once('.') else {
            return false;
        };
        let mut parts = body.split('.');
        let (Some("v1"), Some(expiry), Some(_nonce), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        let Ok(expiry) = expiry.parse::<u64>() else {
            return false;
        };
        let mut given = [0u8; TAG_BYTES];
        if tag.len() != 2 * TAG_BYTES || hex::decode_to_slice(tag, &mut given).is_err() {
            return false;
        }
        let want = self.tag(body);
        let same: bool = subtle::ConstantTimeEq::ct_eq(&want[..], &given[..]).into();
        same && expiry > now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_cookies_verify_until_they_expire_and_forgeries_never() {
        let c = PlaygroundCookies::new(b"a secret of the deployment, long enough");
        let v = c.issue(1_000);
        assert!(c.verify(&v, 1_000));
        let id = c.id(&v, 1_000).unwrap();
        assert_eq!(id.len(), 32);
        assert_ne!(Some(id), c.id(&c.issue(1_000), 1_000));
        assert_eq!(c.id(&v, 1_000 + LIFETIME_SECS), None);
        assert!(c.verify(&v, 1_000 + LIFETIME_SECS - 1));
        assert!(!c.verify(&v, 1_000 + LIFETIME_SECS));
        assert_ne!(v, c.issue(1_000), "each cookie is new");
        let other = PlaygroundCookies::new(b"another deployment's secret, long enough");
        assert!(!other.verify(&v, 1_000));
        // A longer life written into the value breaks the tag.
        let (body, tag) = v.rsplit_once('.').unwrap();
        let forged = body.replacen(&(1_000 + LIFETIME_SECS).to_string(), "9999999999", 1);
        assert!(!c.verify(&format!("{forged}.{tag}"), 1_000));
        for junk in [
            "",
            "v1",
            "v1.1.2",
            "v1.x.y.z",
            "v2.1.2.3",
            &format!("{v}.x"),
        ] {
            assert!(!c.verify(junk, 1_000), "{junk}");
        }
    }
}
