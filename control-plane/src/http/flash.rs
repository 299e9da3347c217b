//! What a dashboard form shows once after its redirect: a new API key or
//! partner secret, carried from the `POST` to the `GET` it redirects to
//! (post/redirect/get, so a reload creates nothing and the address bar
//! holds a page, never a secret).
//!
//! The secret travels in cookie `vis_once`: sealed with ChaCha20-Poly1305
//! under a key derived from the web secret (any replica opens it, nobody
//! else reads it), bound to the browser's session (another session cannot
//! open it), valid for two minutes, `HttpOnly`, scoped to `/dashboard`. The
//! page that opens it deletes it, so it is shown once.

use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use base64::Engine as _;
use hmac::{KeyInit, Mac};

use super::web::Web;

pub const COOKIE: &str = "vis_once";
/// Where the cookie is sent: the dashboard's pages only.
pub const PATH: &str = "/dashboard";
/// How long the redirect may take to be followed.
pub const MAX_AGE_SECS: i64 = 120;

/// A secret to show once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shown {
    /// A new API key: its name and the key.
    Key { name: String, key: String },
    /// A new partner secret: the partner's id and the secret.
    Partner { id: String, secret: String },
}

#[derive(Serialize, Deserialize)]
struct Sealed {
    #[serde(flatten)]
    shown: Shown,
    /// Unix milliseconds after which it is not shown.
    until: i64,
}

fn key(web: &Web) -> LessSafeKey {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(web.secret())
        .expect("HMAC takes any key length");
    mac.update(b"dashboard-once:v1");
    let bytes = mac.finalize().into_bytes();
    LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &bytes).expect("a 32-byte key"))
}

fn aad(session: &str) -> String {
    format!("vis_once|{}", crate::people::token_hash(session))
}

/// The cookie value carrying `shown` for `session` until `now_ms` plus
/// [`MAX_AGE_SECS`].
pub fn seal(web: &Web, session: &str, shown: Shown, now_ms: i64) -> String {
    let plain = serde_json::to_vec(&Sealed {
        shown,
        until: now_ms + MAX_AGE_SECS * 1000,
    })
    .expect("serialisable");
    let mut nonce = [0u8; NONCE_LEN];
    SystemRandom::new()
        .fill(&mut nonce)
        .expect("the system's random source");
    let mut data = plain;
    key(web)
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(aad(session)),
            &mut data,
        )
        .expect("sealing a small value");
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(out)
}

/// What the cookie value shows, if it was sealed for `session` and is still
/// fresh at `now_ms`.
pub fn open(web: &Web, session: &str, value: &str, now_ms: i64) -> Option<Shown> {
    if value.len() > 1024 {
        return None;
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(value)
        .ok()?;
    if raw.len() <= NONCE_LEN {
        return None;
    }
    let (nonce, sealed) = raw.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut data = sealed.to_vec();
    let plain = key(web)
        .open_in_place(nonce, Aad::from(aad(session)), &mut data)
        .ok()?;
    let sealed: Sealed = serde_json::from_slice(plain).ok()?;
    (sealed.until >= now_ms).then_some(sealed.shown)
}

/// `Set-Cookie` carrying a sealed value.
pub fn set_cookie(web: &Web, value: &str) -> String {
    web.cookie_at(PATH, COOKIE, value, MAX_AGE_SECS)
}

/// `Set-Cookie` deleting it.
pub fn clear_cookie(web: &Web) -> String {
    web.cookie_at(PATH, COOKIE, "", 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> Web {
        Web::new(b"0123456789abcdef0123456789abcdef", "http://127.0.0.1:8080")
    }

    #[test]
    fn a_sealed_secret_opens_only_for_its_session_and_only_while_fresh() {
        let web = web();
        let shown = Shown::Key {
            name: "laptop".into(),
            key: "vis_SECRETSECRET".into(),
        };
        let value = seal(&web, "session-a", shown.clone(), 1_000);
        assert!(!value.contains("SECRET"), "the value is opaque");
        assert_eq!(open(&web, "session-a", &value, 2_000), Some(shown));
        assert_eq!(open(&web, "session-b", &value, 2_000), None);
        assert_eq!(
            open(&web, "session-a", &value, 1_000 + MAX_AGE_SECS * 1000 + 1),
            None
        );
        let other = Web::new(
            b"another secret, another deployment",
            "http://127.0.0.1:8080",
        );
        assert_eq!(open(&other, "session-a", &value, 2_000), None);
        let mut tampered = value.into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(open(&web, "session-a", &tampered, 2_000), None);
        assert_eq!(open(&web, "session-a", "not base64!", 2_000), None);
    }
}
