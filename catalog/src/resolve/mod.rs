//! Free-text resolution (spec `POST /api/v1/images/resolve`). Deterministic: the same input
//! always gives the same output, with no model calls. The rules are in `docs/resolve.md`.

mod parse;

use serde::Serialize;
use vis_protocol::{Color, Format, SizePreset, View};

use crate::model::{Make, MatchKind};
use crate::search::Cand;
use crate::{Catalog, text};

/// The request body (spec `ResolveRequest`); lengths are validated by the HTTP layer.
#[derive(Debug, Clone, Copy, Default)]
pub struct ResolveInput<'a> {
    pub query: &'a str,
    /// Overrides any year in the text.
    pub year: Option<u16>,
    /// Narrows the search to this make (name, slug or alias).
    pub make: Option<&'a str>,
    /// The model (name, slug or prefix), searched instead of the text.
    pub model: Option<&'a str>,
}

/// Exact request parameters (spec `params`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedParams {
    pub make: String,
    pub model: String,
    pub year: u16,
    pub view: View,
    pub color: Color,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<SizePreset>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Display {
    pub make_name: String,
    pub model_name: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub make_name: String,
    pub make_slug: String,
    pub model_name: String,
    pub model_slug: String,
    pub years: Vec<u16>,
    pub match_kind: MatchKind,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
    Low,
}

/// What the parser recognised in the text; `None` (JSON null) when absent.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Extracted {
    pub year: Option<u16>,
    pub color: Option<Color>,
    pub view: Option<View>,
    pub size: Option<SizePreset>,
    pub width: Option<u32>,
    pub format: Option<Format>,
}

/// The response `data` (without `request_id`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = ResolveData))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolution {
    pub params: ResolvedParams,
    pub display: Display,
    pub candidates: Vec<Candidate>,
    pub confidence: Confidence,
    pub image_path: String,
    pub extracted: Extracted,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// No model matched. `makes` holds the makes that were recognised (possibly none), for the
    /// 404's `makes` property.
    #[error("no catalog vehicle matches the query{}", if makes.is_empty() { String::new() } else { format!(" (recognised make: {})", makes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")) })]
    NotFound { makes: Vec<Make> },
}

/// How many candidates the response carries.
pub const MAX_CANDIDATES: usize = 5;

/// Resolves free text (plus optional year/make/model) to exact image parameters.
pub fn resolve(cat: &Catalog, input: ResolveInput<'_>) -> Result<Resolution, ResolveError> {
    let parsed = parse::parse(cat, input.query);
    let mut extracted = Extracted {
        year: parsed.year,
        color: parsed.color,
        view: parsed.view,
        size: parsed.size,
        width: parsed.width,
        format: parsed.format,
    };
    let not_found = |makes: Vec<Make>| ResolveError::NotFound { makes };

    // The make narrowing, if given.
    let only_make = match input.make.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => match cat.lookup_make(&text::compact(raw)) {
            Some(k) => Some(k),
            None => {
                let c = cat.candidates(&text::tokens(raw), None, None, 5);
                match c
                    .iter()
                    .find(|c| c.model.is_none() && c.kind <= MatchKind::Fuzzy)
                {
                    Some(c) => Some(c.make),
                    None => return Err(not_found(Vec::new())),
                }
            }
        },
        None => None,
    };

    let text_tokens: Vec<String> = match input.model.map(str::trim).filter(|s| !s.is_empty()) {
        Some(m) => text::tokens(m),
        None => parsed.rest.iter().flat_map(|w| text::tokens(w)).collect(),
    };
    let mut year = input.year.or(parsed.year);

    let (mut cands, mut year_missing) = search_with_year(cat, &text_tokens, only_make, year);
    // Body-style words ("hatchback", "pickup") only help when they are part of the name.
    let without_body: Vec<String> = text_tokens
        .iter()
        .filter(|t| !parse::BODY_WORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if !without_body.is_empty() && without_body.len() < text_tokens.len() {
        let (alt, alt_missing) = search_with_year(cat, &without_body, only_make, year);
        if best_tier(&alt) < best_tier(&cands) {
            cands = alt;
            year_missing = alt_missing;
        }
    }
    if !has_model(&cands) && input.year.is_none() && input.model.is_none() {
        // A four-digit "year" may be the model ("Peugeot 2008"); another four-digit word of
        // the text is then the year ("Peugeot 2008 2014 in blue"), never dropped.
        if let Some((_, word)) = &parsed.year_word {
            let other = parsed
                .rest
                .iter()
                .find_map(|w| parse::year_of(w).map(|y| (w.as_str(), y)));
            let mut toks: Vec<String> = text_tokens
                .iter()
                .filter(|t| other.is_none_or(|(w, _)| t.as_str() != w))
                .cloned()
                .collect();
            toks.extend(text::tokens(word));
            let other_year = other.map(|(_, y)| y);
            let (retry, missing) = search_with_year(cat, &toks, only_make, other_year);
            if has_model(&retry) {
                cands = retry;
                year = other_year;
                year_missing = missing;
                extracted.year = other_year.or(extracted.year);
            }
        }
    }

    let best_model = cands.iter().find(|c| c.model.is_some()).copied();
    let best_make = cands.iter().find(|c| c.model.is_none()).copied();
    let Some(top) = best_model else {
        let mut makes: Vec<Make> = Vec::new();
        for c in cands.iter().filter(|c| c.model.is_none()) {
            let m = cat.make_at(c.make).clone();
            if !makes.contains(&m) && makes.len() < MAX_CANDIDATES {
                makes.push(m);
            }
        }
        if let Some(k) = only_make {
            let m = cat.make_at(k).clone();
            if !makes.contains(&m) {
                makes.insert(0, m);
            }
        }
        return Err(not_found(makes));
    };
    // Only a make was named ("toyota in blue"): models that merely share the word do not count.
    if let Some(mk) = best_make
        && mk.make_named
        && (mk.tier() < top.tier() || (mk.tier() == top.tier() && mk.weight >= top.weight))
        && !top.make_named
    {
        return Err(not_found(vec![cat.make_at(mk.make).clone()]));
    }

    let model = cat.model_at(top.model.unwrap_or_default());
    let make = cat.make_at(top.make);
    let chosen_year = match year {
        Some(y) if model.has_year(y) => {
            year_missing = false;
            y
        }
        Some(y) => {
            year_missing = true;
            model.nearest_year(y)
        }
        None => model.latest_year(),
    };

    // When the make was named, models of other makes that share only a word are noise.
    let model_cands: Vec<&Cand> = cands
        .iter()
        .filter(|c| c.model.is_some())
        .filter(|c| !top.make_named || c.make_named || c.tier() < 3)
        .collect();
    let rivals = model_cands
        .iter()
        .skip(1)
        .filter(|c| c.tier() == top.tier() && c.make_named == top.make_named)
        .count();
    let confidence = if year_missing || top.tier() == 4 {
        Confidence::Low
    } else if top.tier() <= 1 && rivals == 0 && year.is_some() {
        Confidence::High
    } else if top.tier() <= 3 || (top.make_kind == Some(MatchKind::Exact) && rivals == 0) {
        // Exact without a year, prefix, tokens; or a model typo under a make named as written.
        Confidence::Medium
    } else {
        Confidence::Low
    };

    let candidates = model_cands
        .iter()
        .take(MAX_CANDIDATES)
        .map(|c| {
            let h = cat.hit(c);
            Candidate {
                make_name: h.make_name,
                make_slug: h.make_slug,
                model_name: h.model_name.unwrap_or_default(),
                model_slug: h.model_slug.unwrap_or_default(),
                years: h.years,
                match_kind: h.match_kind,
            }
        })
        .collect();

    let params = ResolvedParams {
        make: make.slug.clone(),
        model: model.slug.clone(),
        year: chosen_year,
        view: parsed.view.unwrap_or_default(),
        color: parsed.color.unwrap_or_default(),
        size: parsed.size,
        width: parsed.width,
        format: parsed.format,
    };
    Ok(Resolution {
        image_path: image_path(&params),
        display: Display {
            make_name: make.name.clone(),
            model_name: model.name.clone(),
        },
        params,
        candidates,
        confidence,
        extracted,
    })
}

/// Candidates for the year; when the model matches better without the year, those, with
/// `true` for "the year is not available".
fn search_with_year(
    cat: &Catalog,
    toks: &[String],
    only_make: Option<u32>,
    year: Option<u16>,
) -> (Vec<Cand>, bool) {
    let with_year = cat.candidates(toks, only_make, year, 20);
    if year.is_none() || best_tier(&with_year) <= 3 {
        return (with_year, false);
    }
    let any_year = cat.candidates(toks, only_make, None, 20);
    if best_tier(&any_year) < best_tier(&with_year) {
        (any_year, true)
    } else {
        (with_year, false)
    }
}

/// The best model candidate's tier; 9 when there is none.
fn best_tier(c: &[Cand]) -> u8 {
    c.iter()
        .filter(|c| c.model.is_some())
        .map(Cand::tier)
        .min()
        .unwrap_or(9)
}

fn has_model(c: &[Cand]) -> bool {
    c.iter().any(|c| c.model.is_some())
}

/// `/api/v1/images/car?make=..&model=..&year=..`, then only what differs from the defaults:
/// view, color, `w` (or `size` when no width), format.
pub fn image_path(p: &ResolvedParams) -> String {
    let mut s = format!(
        "/api/v1/images/car?make={}&model={}&year={}",
        p.make, p.model, p.year
    );
    if p.view != View::default() {
        s.push_str("&view=");
        s.push_str(p.view.id());
    }
    if p.color != Color::default() {
        s.push_str("&color=");
        s.push_str(p.color.id());
    }
    match (p.width, p.size) {
        (Some(w), _) => s.push_str(&format!("&w={w}")),
        (None, Some(size)) => {
            s.push_str("&size=");
            s.push_str(size.id());
        }
        (None, None) => {}
    }
    if let Some(f) = p.format.filter(|f| *f != Format::default()) {
        s.push_str("&format=");
        s.push_str(f.id());
    }
    s
}
