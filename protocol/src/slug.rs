//! Lower-case hyphenated identifiers for makes and models (spec §2).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// A slug: non-empty, `[a-z0-9]` runs joined by single hyphens.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Slug(String);

impl Slug {
    pub fn parse(raw: &str) -> Option<Slug> {
        let ok = !raw.is_empty()
            && !raw.starts_with('-')
            && !raw.ends_with('-')
            && !raw.contains("--")
            && raw
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        ok.then(|| Slug(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Slug::parse(&raw).ok_or_else(|| serde::de::Error::custom(format!("{raw:?} is not a slug")))
    }
}

/// Turns a display name into a slug: ASCII-folds common Latin letters, keeps
/// letters and digits, and joins the runs with hyphens ("Mercedes-Benz" →
/// "mercedes-benz", "C 300 4MATIC" → "c-300-4matic", "Citroën" → "citroen").
/// Returns None when nothing sluggable is left.
pub fn slugify(name: &str) -> Option<Slug> {
    let mut out = String::with_capacity(name.len());
    let mut pending_hyphen = false;
    for ch in name.chars() {
        let folded = fold(ch);
        for c in folded.chars() {
            if c.is_ascii_alphanumeric() {
                if pending_hyphen && !out.is_empty() {
                    out.push('-');
                }
                pending_hyphen = false;
                out.push(c.to_ascii_lowercase());
            } else if c == '+' {
                // "+" carries meaning in model names ("Model S+"): spell it.
                if !out.is_empty() {
                    out.push('-');
                }
                out.push_str("plus");
                pending_hyphen = true;
            } else {
                pending_hyphen = true;
            }
        }
    }
    Slug::parse(&out)
}

fn fold(ch: char) -> String {
    let s = match ch {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => "a",
        'æ' | 'Æ' => "ae",
        'ç' | 'Ç' => "c",
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => "e",
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => "i",
        'ñ' | 'Ñ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => "o",
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => "u",
        'ý' | 'ÿ' | 'Ý' => "y",
        'ß' => "ss",
        'š' | 'Š' => "s",
        'ž' | 'Ž' => "z",
        'č' | 'Č' => "c",
        _ => return ch.to_string(),
    };
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugify_examples() {
        let s = |n: &str| slugify(n).map(|s| s.to_string());
        assert_eq!(s("Mercedes-Benz").as_deref(), Some("mercedes-benz"));
        assert_eq!(s("C 300 4MATIC").as_deref(), Some("c-300-4matic"));
        assert_eq!(s("Citroën").as_deref(), Some("citroen"));
        assert_eq!(s("  F-150  ").as_deref(), Some("f-150"));
        assert_eq!(s("Model S+").as_deref(), Some("model-s-plus"));
        assert_eq!(s("!!!"), None);
    }

    #[test]
    fn slug_parse_rejects_non_slugs() {
        assert!(Slug::parse("toyota").is_some());
        assert!(Slug::parse("land-rover").is_some());
        for bad in ["", "-a", "a-", "a--b", "Toyota", "a b", "ä"] {
            assert!(Slug::parse(bad).is_none(), "{bad}");
        }
    }
}
