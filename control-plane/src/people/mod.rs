//! People on the web: passwords, sign-in tokens, email-verification and
//! password-reset links and the mail that carries them (`mail.rs`), and the
//! subjects of the sign-up limits. No HTTP here: cookies, CSRF and
//! pages live in `http/web.rs`; rows live in `store` (`PeopleStore`).
//!
//! - **Passwords** are hashed with argon2id (the `argon2` crate's defaults:
//!   19 MiB, two passes), off the async threads.
//! - **Tokens** (session cookies, reset links) are 256 random bits; only
//!   their SHA-256 is stored, so a copy of the database signs no one in.

pub mod mail;

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Argon2, PasswordHash};

/// How long a session cookie signs a browser in.
pub const SESSION_DAYS: i64 = 30;
/// How long a password-reset link works.
pub const RESET_MINUTES: i64 = 60;
/// Verification mails an unverified account can be sent in 24 hours (the
/// sign-up's and the resends).
pub const VERIFY_MAILS_PER_DAY: i64 = 5;
pub const PASSWORD_MIN_CHARS: usize = 10;
pub const PASSWORD_MAX_CHARS: usize = 256;

/// An email address as accounts store it: trimmed, lower case, checked
/// for the shape `local@domain.tld` (a full RFC 5322 parse proves little;
/// the reset mail proves the address).
pub fn normalize_email(raw: &str) -> Result<String, &'static str> {
    let email = raw.trim().to_lowercase();
    if email.is_empty() {
        return Err("is required");
    }
    if email.chars().count() > 254 {
        return Err("must be at most 254 characters");
    }
    let Some((local, domain)) = email.split_once('@') else {
        return Err("must be an email address like you@example.com");
    };
    let ok = !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\"\\".contains(c));
    if ok {
        Ok(email)
    } else {
        Err("must be an email address like you@example.com")
    }
}

/// The sign-up limits' subjects for a client address and a normalised
/// email: `addr:<ip>` (an IPv6 address by its /64, which one household or
/// one server is usually given whole) and `domain:<domain>`.
pub fn signup_subjects(ip: &str, email: &str) -> (String, String) {
    let addr = match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        Ok(v4) => v4.to_string(),
        Err(_) => ip.to_owned(),
    };
    let domain = email.rsplit_once('@').map_or(email, |(_, d)| d);
    (format!("addr:{addr}"), format!("domain:{domain}"))
}

/// A lifetime in words: "24 hours", "30 minutes", "1 second".
pub fn lifetime_words(secs: i64) -> String {
    let (n, unit) = if secs >= 3600 && secs % 3600 == 0 {
        (secs / 3600, "hour")
    } else if secs >= 60 && secs % 60 == 0 {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// Checks a new password's length (NIST 800-63B: length, not composition).
pub fn check_new_password(password: &str) -> Result<(), String> {
    let n = password.chars().count();
    if n < PASSWORD_MIN_CHARS {
        return Err(format!("must be at least {PASSWORD_MIN_CHARS} characters"));
    }
    if n > PASSWORD_MAX_CHARS {
        return Err(format!("must be at most {PASSWORD_MAX_CHARS} characters"));
    }
    Ok(())
}

/// The PHC string of `password` under argon2id, computed on the blocking pool.
pub async fn hash_password(password: String) -> Result<String, String> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Whether `password` matches `phc`. With no hash (an unknown email, or
/// an account without a password), a dummy hash is checked anyway so the
/// answer takes as long either way.
pub async fn verify_password(password: String, phc: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let dummy;
        let (phc, real) = match &phc {
            Some(p) => (p.as_str(), true),
            None => {
                dummy = dummy_hash();
                (dummy.as_str(), false)
            }
        };
        let Ok(parsed) = PasswordHash::new(phc) else {
            return false;
        };
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        ok && real
    })
    .await
    .unwrap_or(false)
}

fn dummy_hash() -> String {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY
        .get_or_init(|| {
            Argon2::default()
                .hash_password(b"not a password anyone has")
                .map(|h| h.to_string())
                .unwrap_or_default()
        })
        .clone()
}

/// A new bearer token (a session cookie or a reset link's secret):
/// 43 base62 characters, about 256 bits.
pub fn new_token() -> String {
    crate::auth::random_base62(43)
}

/// What the database keeps of a token: its SHA-256, as for API keys.
pub fn token_hash(token: &str) -> String {
    crate::auth::hash_hex(token.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalized_and_checked() {
        assert_eq!(
            normalize_email("  Ada@Example.COM ").as_deref(),
            Ok("ada@example.com")
        );
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "a b@example.com",
            "ada@@example.com",
            "ada@.com",
        ] {
            assert!(normalize_email(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn signup_subjects_group_ipv6_by_its_64_and_name_the_domain() {
        assert_eq!(
            signup_subjects("203.0.113.9", "ada@example.com"),
            ("addr:203.0.113.9".into(), "domain:example.com".into())
        );
        let (a, _) = signup_subjects("2001:db8:1:2:aaaa::1", "x@y.org");
        let (b, _) = signup_subjects("2001:db8:1:2:bbbb::2", "x@y.org");
        assert_eq!(a, "addr:2001:db8:1:2::/64");
        assert_eq!(a, b);
        let (c, _) = signup_subjects("2001:db8:1:3::1", "x@y.org");
        assert_ne!(a, c);
        assert_eq!(
            signup_subjects("::ffff:198.51.100.7", "x@y.org").0,
            "addr:198.51.100.7"
        );
    }

    #[test]
    fn lifetimes_are_said_in_words() {
        assert_eq!(lifetime_words(86_400), "24 hours");
        assert_eq!(lifetime_words(3600), "1 hour");
        assert_eq!(lifetime_words(1800), "30 minutes");
        assert_eq!(lifetime_words(2), "2 seconds");
    }

    #[test]
    fn new_passwords_are_checked_by_length() {
        assert!(check_new_password("short").is_err());
        assert!(check_new_password("long enough pass").is_ok());
        assert!(check_new_password(&"x".repeat(257)).is_err());
    }

    #[tokio::test]
    async fn passwords_round_trip_through_argon2id() {
        let phc = hash_password("correct horse battery".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$"), "{phc}");
        assert!(verify_password("correct horse battery".into(), Some(phc.clone())).await);
        assert!(!verify_password("wrong horse battery".into(), Some(phc)).await);
        assert!(!verify_password("anything".into(), None).await);
    }

    #[test]
    fn tokens_are_random_and_stored_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), a);
    }
}
