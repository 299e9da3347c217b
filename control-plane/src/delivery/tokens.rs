//! Signed delivery tokens (DESIGN: opaque, unguessable, no key or account id
//! inside, checked by HMAC before any database work).
//!
//! A token is 64 lowercase hex characters: the URL's random 128-bit id, then
//! the first 128 bits of HMAC-SHA256 over a domain tag and that id, under the
//! deployment's delivery secret. Verification is constant time; a token that
//! fails it never reaches the database.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use uuid::Uuid;

/// Separates these MACs from any other use of the same secret.
const DOMAIN: &[u8] = b"vis delivery url v1\0";
const ID_BYTES: usize = 16;
const TAG_BYTES: usize = 16;
pub const TOKEN_CHARS: usize = 2 * (ID_BYTES + TAG_BYTES);

/// The HMAC key for delivery tokens. Prints redacted.
#[derive(Clone)]
pub struct TokenKey(Vec<u8>);

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey([redacted])")
    }
}

impl TokenKey {
    pub fn new(secret: &[u8]) -> TokenKey {
        TokenKey(secret.to_vec())
    }

    fn mac(&self, id: &[u8; ID_BYTES]) -> Hmac<Sha256> {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(DOMAIN);
        mac.update(id);
        mac
    }

    /// The token for URL `id`.
    pub fn sign(&self, id: Uuid) -> String {
        let tag = self.mac(id.as_bytes()).finalize().into_bytes();
        let mut token = hex::encode(id.as_bytes());
        token.push_str(&hex::encode(&tag[..TAG_BYTES]));
        token
    }

    /// The URL id inside `token` when its MAC verifies; None for anything
    /// malformed or forged (the caller cannot tell which, on purpose).
    pub fn verify(&self, token: &str) -> Option<Uuid> {
        if token.len() != TOKEN_CHARS
            || !token
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        let raw = hex::decode(token).ok()?;
        let (id, tag) = raw.split_at(ID_BYTES);
        let id: [u8; ID_BYTES] = id.try_into().ok()?;
        self.mac(&id).verify_truncated_left(tag).ok()?;
        Some(Uuid::from_bytes(id))
    }
}

/// 32 random bytes, hex-encoded: a fresh delivery secret.
pub fn generate_secret() -> String {
    use rand::RngExt;
    let bytes: [u8; 32] = rand::rng().random();
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> TokenKey {
        TokenKey::new(b"test secret, 32 bytes or longer!")
    }

    #[test]
    fn a_token_roundtrips_and_carries_only_the_url_id() {
        let id = Uuid::new_v4();
        let token = key().sign(id);
        assert_eq!(token.len(), TOKEN_CHARS);
        assert!(token.starts_with(&id.simple().to_string()));
        assert_eq!(key().verify(&token), Some(id));
        // Deterministic: the same id signs the same way.
        assert_eq!(key().sign(id), token);
    }

    #[test]
    fn a_flipped_bit_anywhere_fails() {
        let token = key().sign(Uuid::new_v4());
        let bytes = hex::decode(&token).unwrap();
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut forged = bytes.clone();
                forged[i] ^= bit;
                assert_eq!(key().verify(&hex::encode(&forged)), None, "byte {i}");
            }
        }
    }

    #[test]
    fn another_secret_or_a_wrong_shape_fails() {
        let token = key().sign(Uuid::new_v4());
        assert_eq!(TokenKey::new(b"another secret").verify(&token), None);
        for bad in [
            String::new(),
            token[..TOKEN_CHARS - 2].to_owned(),
            format!("{token}00"),
            token.to_ascii_uppercase(),
            format!("{}zz", &token[..TOKEN_CHARS - 2]),
            "é".repeat(32),
        ] {
            assert_eq!(key().verify(&bad), None, "{bad}");
        }
    }

    #[test]
    fn generated_secrets_are_random_and_the_key_prints_redacted() {
        let (a, b) = (generate_secret(), generate_secret());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(!format!("{:?}", TokenKey::new(a.as_bytes())).contains(&a));
    }
}
