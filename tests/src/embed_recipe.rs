//! docs/embeds.md's Rust signing recipe, compiled (a test checks the text is the same).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// `sig` for a query string as it will be sent (without `sig`).
pub fn sign(query: &str, secret: &str) -> String {
    let name = |pair: &str| pair.split('=').next().unwrap_or("").to_owned();
    let mut pairs: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && name(p) != "sig")
        .collect();
    pairs.sort_by_key(|p| name(p)); // stable
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(format!("/images/car.png?{}", pairs.join("&")).as_bytes());
    hex::encode(mac.finalize().into_bytes())
}
