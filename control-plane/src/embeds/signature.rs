//! Partner signatures (spec §5): `sig` is lowercase hex HMAC-SHA256 over
//! `/images/car.png?<query without sig, sorted by key>` under the partner's
//! secret; `exp` is unix seconds, at most 30 days ahead.
//!
//! The signed string is built from the query exactly as sent (its percent
//! encoding included): the pairs are split on `&`, the `sig` pair dropped,
//! the rest sorted by name (stable, so the order of the request does not
//! matter) and joined with `&`. docs/embeds.md gives the recipe in four
//! languages; a test signs with each.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The path every signature covers.
pub const PATH: &str = "/images/car.png";
/// How far ahead `exp` may be (spec §8: 30 days).
pub const MAX_AHEAD_SECS: u64 = 30 * 86_400;
/// Clock difference tolerated between a signer and this server, on top of
/// the 30 days, so a signer whose clock runs a little fast is not refused.
pub const CLOCK_SKEW_SECS: u64 = 300;

/// The string a partner signs, for the query as sent (without `?`).
pub fn signed_string(raw_query: &str) -> String {
    let mut pairs: Vec<&str> = raw_query
        .split('&')
        .filter(|p| !p.is_empty() && name_of(p) != "sig")
        .collect();
    pairs.sort_by(|a, b| name_of(a).cmp(name_of(b)));
    format!("{PATH}?{}", pairs.join("&"))
}

fn name_of(pair: &str) -> &str {
    pair.split_once('=').map_or(pair, |(k, _)| k)
}

/// `sig` for `raw_query` (which may hold a `sig` pair; it is ignored) under
/// `secret`: what a partner computes. Used by tests and the docs' recipes.
pub fn sign(secret: &[u8], raw_query: &str) -> String {
    let mut mac = keyed(secret);
    mac.update(signed_string(raw_query).as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// An HMAC-SHA256 keyed with a partner's secret, ready to be cloned per check.
pub fn keyed(secret: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("HMAC takes any key length")
}

/// Why a signed request is refused (all 403s; the detail says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SigError {
    #[error("exp and sig go together: a partner-signed URL has both")]
    Incomplete,
    #[error("sig must be 64 lowercase hexadecimal characters")]
    MalformedSig,
    #[error("exp must be unix seconds (an integer)")]
    MalformedExp,
    #[error("the signed URL has expired")]
    Expired,
    #[error("exp is more than 30 days ahead")]
    TooFarAhead,
    #[error("the signature does not match a live partner secret (or its key was revoked)")]
    Invalid,
}

/// A request's `exp` and `sig`, well formed and within time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presented {
    pub exp: u64,
    pub sig: [u8; 32],
    /// Seconds until `exp`.
    pub remaining_secs: u64,
}

/// Checks the form of `exp` and `sig` and that `exp` is within its window
/// at `now` (unix seconds). `Ok(None)`: the request is not signed.
pub fn presented(
    exp: Option<&str>,
    sig: Option<&str>,
    now: u64,
) -> Result<Option<Presented>, SigError> {
    let (exp, sig) = match (exp, sig) {
        (None, None) => return Ok(None),
        (Some(exp), Some(sig)) => (exp, sig),
        _ => return Err(SigError::Incomplete),
    };
    let sig_ok = sig.len() == 64 && sig.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let mut raw = [0u8; 32];
    if !sig_ok || hex::decode_to_slice(sig, &mut raw).is_err() {
        return Err(SigError::MalformedSig);
    }
    let exp: u64 = match exp.bytes().all(|b| b.is_ascii_digit()) && !exp.is_empty() {
        true => exp.parse().map_err(|_| SigError::MalformedExp)?,
        false => return Err(SigError::MalformedExp),
    };
    if exp <= now {
        return Err(SigError::Expired);
    }
    if exp > now + MAX_AHEAD_SECS + CLOCK_SKEW_SECS {
        return Err(SigError::TooFarAhead);
    }
    Ok(Some(Presented {
        exp,
        sig: raw,
        remaining_secs: exp - now,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_string_sorts_by_name_and_drops_sig() {
        assert_eq!(
            signed_string("year=2019&make=toyota&sig=ab&model=camry&exp=1700000000"),
            "/images/car.png?exp=1700000000&make=toyota&model=camry&year=2019"
        );
        // Encoding is kept as sent; empty pieces are ignored.
        assert_eq!(
            signed_string("model=Model%203&&make=Tesla"),
            "/images/car.png?make=Tesla&model=Model%203"
        );
        // The order of the request does not change the signature.
        let a = sign(b"s", "make=bmw&model=x5&year=2020&exp=5");
        let b = sign(b"s", "exp=5&year=2020&model=x5&make=bmw&sig=00");
        assert_eq!(a, b);
        assert_ne!(a, sign(b"t", "make=bmw&model=x5&year=2020&exp=5"));
    }

    #[test]
    fn a_known_answer() {
        // HMAC-SHA256("vps_test", "/images/car.png?exp=2000000000&make=toyota&model=camry&year=2019"),
        // computed independently with `openssl dgst -sha256 -hmac`.
        assert_eq!(
            sign(
                b"vps_test",
                "make=toyota&model=camry&year=2019&exp=2000000000"
            ),
            KNOWN_ANSWER
        );
    }
    const KNOWN_ANSWER: &str = "cb4960aae1cab4b430891f6a109f64b03df7b10ef6fc2b22fa254acecffb45ac";

    #[test]
    fn exp_and_sig_are_checked_for_form_and_time() {
        let sig = "a".repeat(64);
        let now = 1_000_000;
        assert_eq!(presented(None, None, now), Ok(None));
        assert_eq!(presented(Some("5"), None, now), Err(SigError::Incomplete));
        assert_eq!(presented(None, Some(&sig), now), Err(SigError::Incomplete));
        assert_eq!(
            presented(Some("1000100"), Some(&"A".repeat(64)), now),
            Err(SigError::MalformedSig)
        );
        assert_eq!(
            presented(Some("1000100"), Some("abc"), now),
            Err(SigError::MalformedSig)
        );
        for exp in ["", "+5", "1e9", "-1", "99999999999999999999999"] {
            assert_eq!(
                presented(Some(exp), Some(&sig), now),
                Err(SigError::MalformedExp),
                "{exp}"
            );
        }
        assert_eq!(
            presented(Some("1000000"), Some(&sig), now),
            Err(SigError::Expired)
        );
        let limit = now + MAX_AHEAD_SECS + CLOCK_SKEW_SECS;
        assert_eq!(
            presented(Some(&(limit + 1).to_string()), Some(&sig), now),
            Err(SigError::TooFarAhead)
        );
        let ok = presented(Some(&limit.to_string()), Some(&sig), now)
            .unwrap()
            .unwrap();
        assert_eq!(ok.remaining_secs, MAX_AHEAD_SECS + CLOCK_SKEW_SECS);
        assert_eq!(ok.sig, [0xaa; 32]);
    }
}
