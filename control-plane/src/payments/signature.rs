//! Stripe's webhook signature scheme, by hand.
//!
//! `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…][,v0=<hex>]` where each
//! `v1` is lowercase hex HMAC-SHA256 of `"<t>.<raw body>"` keyed with the
//! endpoint secret (the whole `whsec_…` string, as bytes). While a secret is
//! being rolled Stripe sends one `v1` per live secret; `v0` is a legacy test
//! scheme and is ignored. `t` is checked against a tolerance so a captured
//! request cannot be replayed later.
//!
//! Why by hand: it is twenty lines over `hmac`/`sha2`/`subtle`, which the crate
//! already has, while the only maintained Rust Stripe SDK (async-stripe) is a
//! very large generated crate for this one check; there is no small,
//! well-kept crate that does just this.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::{Choice, ConstantTimeEq};

use super::PaymentError;

/// Stripe's default tolerance: five minutes either side of `now`.
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

/// Bytes in one SHA-256 MAC.
const MAC_BYTES: usize = 32;

/// The header value Stripe would send for `body` at time `t`: one `v1`.
/// Used by the sandbox provider to sign its own events, and by tests.
pub fn sign(secret: &[u8], body: &[u8], t: i64) -> String {
    format!("t={t},v1={}", hex::encode(mac(secret, t, body)))
}

fn mac(secret: &[u8], t: i64, body: &[u8]) -> [u8; MAC_BYTES] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("HMAC takes any key");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Checks `header` (the `Stripe-Signature` value, if any) over the raw `body`
/// at unix time `now`: some `v1` must be the MAC under `secret`, compared in
/// constant time, and `t` within `tolerance_secs` of `now` (either way, for
/// clocks that run a little fast).
///
/// The timestamp is checked after the MAC (as Stripe's own libraries do), so
/// "outside the tolerance" is only ever said of an authentic but stale event.
pub fn verify(
    secret: &[u8],
    header: Option<&str>,
    body: &[u8],
    now: i64,
    tolerance_secs: i64,
) -> Result<(), PaymentError> {
    let header = header.ok_or(PaymentError::BadSignature("no Stripe-Signature header"))?;
    let parsed = parse(header)?;
    let want = mac(secret, parsed.t, body);
    // Every entry is compared (no early exit) so timing says nothing about
    // which one matched.
    let mut matched = Choice::from(0);
    for given in &parsed.v1 {
        matched |= want.ct_eq(given);
    }
    if !bool::from(matched) {
        return Err(PaymentError::BadSignature(
            "no v1 signature matches the endpoint secret",
        ));
    }
    if now.abs_diff(parsed.t) > tolerance_secs.unsigned_abs() {
        return Err(PaymentError::BadSignature(
            "timestamp outside the tolerance (replayed or clock skew)",
        ));
    }
    Ok(())
}

struct Parsed {
    t: i64,
    v1: Vec<[u8; MAC_BYTES]>,
}

/// `key=value` pairs separated by commas; unknown keys (`v0`, future schemes)
/// are skipped, a second `t` or a `v1` that is not 64 hex digits is refused.
fn parse(header: &str) -> Result<Parsed, PaymentError> {
    const MALFORMED: PaymentError = PaymentError::BadSignature("malformed Stripe-Signature header");
    let mut t = None;
    let mut v1 = Vec::new();
    for item in header.split(',') {
        let (key, value) = item.trim().split_once('=').ok_or(MALFORMED)?;
        match key {
            "t" => {
                let parsed = value
                    .parse::<i64>()
                    .map_err(|_| PaymentError::BadSignature("t is not unix seconds"))?;
                if t.replace(parsed).is_some() {
                    return Err(MALFORMED);
                }
            }
            "v1" => {
                let mut raw = [0u8; MAC_BYTES];
                hex::decode_to_slice(value, &mut raw)
                    .map_err(|_| PaymentError::BadSignature("v1 is not 64 hex digits"))?;
                v1.push(raw);
            }
            _ => {}
        }
    }
    let t = t.ok_or(PaymentError::BadSignature("no t= in Stripe-Signature"))?;
    if v1.is_empty() {
        return Err(PaymentError::BadSignature("no v1 signature"));
    }
    Ok(Parsed { t, v1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_test_secret";

    /// A vector computed independently:
    /// `printf '1700000000.{}' | openssl dgst -sha256 -hmac whsec_test_secret`.
    #[test]
    fn matches_an_independent_hmac() {
        assert_eq!(
            sign(SECRET, b"{}", 1_700_000_000),
            "t=1700000000,v1=ceb8863f7208fa249a6cd8f951e993c7563412aca65866f6272283debe143ab3"
        );
    }

    #[test]
    fn round_trip_and_tolerance_both_ways() {
        let h = sign(SECRET, b"body", 1000);
        assert_eq!(verify(SECRET, Some(&h), b"body", 1000, 300), Ok(()));
        assert_eq!(verify(SECRET, Some(&h), b"body", 1300, 300), Ok(()));
        assert_eq!(verify(SECRET, Some(&h), b"body", 700, 300), Ok(()));
        assert!(verify(SECRET, Some(&h), b"body", 1301, 300).is_err());
        assert!(verify(SECRET, Some(&h), b"body", 699, 300).is_err());
    }

    #[test]
    fn duplicate_t_and_empty_items_are_malformed() {
        let h = sign(SECRET, b"b", 5);
        let dup = format!("t=6,{h}");
        assert_eq!(
            verify(SECRET, Some(&dup), b"b", 5, 300),
            Err(PaymentError::BadSignature(
                "malformed Stripe-Signature header"
            ))
        );
        assert!(verify(SECRET, Some(&format!("{h},")), b"b", 5, 300).is_err());
    }
}
