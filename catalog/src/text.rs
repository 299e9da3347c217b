//! Text normalisation shared by lookup, search and resolve.

use vis_protocol::slugify;

/// The slug form of any text ("C 300" → "c-300"); empty when nothing sluggable is left.
pub(crate) fn slug(raw: &str) -> String {
    slugify(raw).map(|s| s.to_string()).unwrap_or_default()
}

/// The identity used for matching: the slug without hyphens ("F-150", "f150" → "f150").
pub(crate) fn compact(raw: &str) -> String {
    slug(raw).replace('-', "")
}

/// Slug tokens ("Mercedes-Benz C Class" → ["mercedes", "benz", "c", "class"]).
pub(crate) fn tokens(raw: &str) -> Vec<String> {
    let s = slug(raw);
    if s.is_empty() {
        return Vec::new();
    }
    s.split('-').map(str::to_owned).collect()
}

/// Optimal-string-alignment distance (edits and adjacent transpositions) between ASCII
/// strings, or `None` when it exceeds `max`.
pub(crate) fn distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    if a.len() > 64 || b.len() > 64 {
        return (a == b).then_some(0);
    }
    // Three rows on the stack: no allocation per comparison.
    let n = b.len();
    let mut prev2 = [0u8; 65];
    let mut prev = [0u8; 65];
    let mut cur = [0u8; 65];
    for (j, v) in prev.iter_mut().enumerate().take(n + 1) {
        *v = j as u8;
    }
    for i in 1..=a.len() {
        cur[0] = i as u8;
        let mut row_min = cur[0];
        for j in 1..=n {
            let cost = u8::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if usize::from(row_min) > max {
            return None;
        }
        prev2 = prev;
        prev = cur;
    }
    let d = usize::from(prev[n]);
    (d <= max).then_some(d)
}

/// Typos tolerated for a word of this length: none below 4 letters, one up to 7, then two.
pub(crate) fn typo_budget(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance_within("toyta", "toyota", 1), Some(1));
        assert_eq!(distance_within("porshe", "porsche", 1), Some(1));
        assert_eq!(distance_within("chevorlet", "chevrolet", 1), Some(1));
        assert_eq!(distance_within("abc", "xyz", 2), None);
        assert_eq!(compact("F-150"), compact("f150"));
        assert_eq!(
            tokens("Mercedes-Benz C Class"),
            ["mercedes", "benz", "c", "class"]
        );
    }
}
