//! Search over makes and models, with indexes built once at load.
//!
//! A query is cut into slug tokens. Spans of one to three tokens are tried as a make (name,
//! slug, alias, or a typo within [`text::typo_budget`]); the other tokens are then matched
//! against that make's models. Independently, the whole query is matched against every model
//! (exact compact name, prefix, all tokens, substring, typo). Results are ranked by match kind,
//! then by whether a make was named, then by how established the model is (years in the
//! catalog, size of the make).

use std::collections::HashMap;

use crate::Catalog;
use crate::model::{HitKind, Make, MakeAlias, MatchKind, Model, SearchHit};
use crate::text::{self, compact, distance_within, typo_budget};

/// Common nicknames and short forms of makes → the make's slug.
pub(crate) const MAKE_ALIASES: &[(&str, &str)] = &[
    ("chevy", "chevrolet"),
    ("chev", "chevrolet"),
    ("vw", "volkswagen"),
    ("vdub", "volkswagen"),
    ("merc", "mercedes-benz"),
    ("mercedes", "mercedes-benz"),
    ("benz", "mercedes-benz"),
    ("beemer", "bmw"),
    ("bimmer", "bmw"),
    ("beamer", "bmw"),
    ("caddy", "cadillac"),
    ("lambo", "lamborghini"),
    ("alfa", "alfa-romeo"),
    ("aston", "aston-martin"),
    ("rolls", "rolls-royce"),
    ("harley", "harley-davidson"),
    ("jag", "jaguar"),
    ("subie", "subaru"),
    ("mitsu", "mitsubishi"),
    ("olds", "oldsmobile"),
    ("yota", "toyota"),
    ("landy", "land-rover"),
    ("vette", "chevrolet"),
];

/// Words of a query that are considered; the rest is ignored (keeps long inputs cheap).
const MAX_TOKENS: usize = 12;
/// Longest run of words tried as a model name when the query has extra words.
const MAX_MODEL_WORDS: usize = 6;

#[derive(Debug)]
pub(crate) struct Index {
    /// Compact make name/slug/alias → make index: the makes free-text search recognises.
    make_keys: HashMap<String, u32>,
    /// Compact name/slug of a folded make → (make index, index into the catalog's make
    /// aliases): lookups only (a model line is no make in free-text search).
    fold_keys: HashMap<String, (u32, u32)>,
    make_compact: Vec<String>,
    /// Model-years of the make: a popularity proxy for ranking.
    make_weight: Vec<u32>,
    /// Every name a model answers to: its own first, then its aliases ("MX-5", "Miata", ...).
    names: Vec<Name>,
    /// Range into `names` per model.
    model_names: Vec<(u32, u32)>,
    /// Compact name (own or alias) → models, ascending.
    by_compact: HashMap<String, Vec<u32>>,
    /// Word of a name (own or alias) → models, ascending.
    by_token: HashMap<String, Vec<u32>>,
    /// Indexes into `names`, sorted by compact name, for prefix ranges.
    sorted: Vec<u32>,
}

/// One name of a model.
#[derive(Debug)]
struct Name {
    model: u32,
    compact: String,
    tokens: Vec<String>,
    /// Characters present in `compact` (see [`char_mask`]): a cheap pre-filter for the
    /// substring and typo scans.
    mask: u64,
}

/// A candidate before it becomes a [`SearchHit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cand {
    pub make: u32,
    pub model: Option<u32>,
    pub kind: MatchKind,
    /// How the model part matched (equal to `kind` when no make was named).
    pub model_kind: MatchKind,
    /// The query named the make (exactly, by alias or with a typo).
    pub make_named: bool,
    /// How the make was named, when it was.
    pub make_kind: Option<MatchKind>,
    pub weight: u32,
}

impl Cand {
    /// Ranking tier: exact 0, near-exact (exact model, make with a typo) 1, prefix 2, token 3,
    /// contains 4, fuzzy 5.
    pub(crate) fn tier(&self) -> u8 {
        match (self.kind, self.model_kind) {
            (MatchKind::Exact, _) => 0,
            (MatchKind::Fuzzy, MatchKind::Exact) if self.make_named => 1,
            (MatchKind::Prefix, _) => 2,
            (MatchKind::Token, _) => 3,
            (MatchKind::Contains, _) => 4,
            (MatchKind::Fuzzy, _) => 5,
        }
    }

    fn rank_key(&self) -> (u8, bool, std::cmp::Reverse<u32>, u32, Option<u32>) {
        (
            self.tier(),
            !self.make_named,
            std::cmp::Reverse(self.weight),
            self.make,
            self.model,
        )
    }
}

impl Index {
    pub(crate) fn build(
        makes: &[Make],
        models: &[Model],
        make_models: &[(u32, u32)],
        make_aliases: &[(MakeAlias, u32)],
    ) -> Index {
        let mut make_keys = HashMap::new();
        let mut make_compact = Vec::with_capacity(makes.len());
        for (i, m) in makes.iter().enumerate() {
            let c = compact(&m.name);
            make_keys.entry(compact(&m.slug)).or_insert(i as u32);
            make_keys.entry(c.clone()).or_insert(i as u32);
            make_compact.push(c);
        }
        for (alias, slug) in MAKE_ALIASES {
            if let Some(i) = makes.iter().position(|m| m.slug == *slug) {
                make_keys.entry((*alias).to_owned()).or_insert(i as u32);
            }
        }
        let mut fold_keys = HashMap::new();
        for (a, (alias, make)) in make_aliases.iter().enumerate() {
            for key in [compact(&alias.slug), compact(&alias.name)] {
                if !alias.line {
                    make_keys.entry(key.clone()).or_insert(*make);
                }
                fold_keys.entry(key).or_insert((*make, a as u32));
            }
        }
        let make_weight = make_models
            .iter()
            .map(|(a, b)| {
                models[*a as usize..*b as usize]
                    .iter()
                    .map(|m| m.years.len() as u32)
                    .sum()
            })
            .collect();
        let mut names = Vec::with_capacity(models.len());
        let mut model_names = Vec::with_capacity(models.len());
        let mut by_compact: HashMap<String, Vec<u32>> = HashMap::new();
        let mut by_token: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, m) in models.iter().enumerate() {
            let i = i as u32;
            let start = names.len() as u32;
            for raw in std::iter::once(&m.slug).chain(&m.aliases) {
                let c = compact(raw);
                if c.is_empty()
                    || names[start as usize..]
                        .iter()
                        .any(|n: &Name| n.compact == c)
                {
                    continue;
                }
                let list = by_compact.entry(c.clone()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
                let toks = text::tokens(raw);
                for t in &toks {
                    let list = by_token.entry(t.clone()).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
                names.push(Name {
                    model: i,
                    mask: char_mask(&c),
                    compact: c,
                    tokens: toks,
                });
            }
            model_names.push((start, names.len() as u32));
        }
        let mut sorted: Vec<u32> = (0..names.len() as u32).collect();
        sorted.sort_by(|a, b| names[*a as usize].compact.cmp(&names[*b as usize].compact));
        Index {
            make_keys,
            fold_keys,
            make_compact,
            make_weight,
            names,
            model_names,
            by_compact,
            by_token,
            sorted,
        }
    }

    pub(crate) fn make_by_key(&self, key: &str) -> Option<u32> {
        self.make_keys.get(key).copied()
    }

    /// A make for lookups: a folded make's name or slug first (with which fold it was), then
    /// the names, slugs and nicknames of search.
    pub(crate) fn make_for_lookup(&self, key: &str) -> Option<(u32, Option<u32>)> {
        match self.fold_keys.get(key) {
            Some(&(make, alias)) => Some((make, Some(alias))),
            None => self.make_by_key(key).map(|m| (m, None)),
        }
    }

    fn names_of(&self, mi: u32) -> &[Name] {
        let (a, b) = self.model_names[mi as usize];
        &self.names[a as usize..b as usize]
    }
}

/// A make found in the query: which tokens it used and how it matched.
#[derive(Debug, Clone, Copy)]
struct MakeSpan {
    make: u32,
    start: usize,
    len: usize,
    kind: MatchKind,
}

impl Catalog {
    /// Search makes and models (spec `GET /api/v1/vehicles?q=`). `limit` is clamped to 1..=100.
    pub fn search(&self, query: &str, year: Option<u16>, limit: usize) -> Vec<SearchHit> {
        let toks = text::tokens(query);
        self.candidates(&toks, None, year, limit.clamp(1, 100))
            .into_iter()
            .map(|c| self.hit(&c))
            .collect()
    }

    pub(crate) fn hit(&self, c: &Cand) -> SearchHit {
        let make = &self.makes[c.make as usize];
        match c.model {
            Some(mi) => {
                let m = &self.models[mi as usize];
                SearchHit {
                    kind: HitKind::Model,
                    make_id: make.id,
                    make_name: make.name.clone(),
                    make_slug: make.slug.clone(),
                    model_name: Some(m.name.clone()),
                    model_slug: Some(m.slug.clone()),
                    vehicle_type: Some(m.vehicle_type.clone()),
                    years: m.years.clone(),
                    match_kind: c.kind,
                }
            }
            None => SearchHit {
                kind: HitKind::Make,
                make_id: make.id,
                make_name: make.name.clone(),
                make_slug: make.slug.clone(),
                model_name: None,
                model_slug: None,
                vehicle_type: None,
                years: self.make_years[c.make as usize].clone(),
                match_kind: c.kind,
            },
        }
    }

    pub(crate) fn model_at(&self, i: u32) -> &Model {
        &self.models[i as usize]
    }

    pub(crate) fn make_at(&self, i: u32) -> &Make {
        &self.makes[i as usize]
    }

    /// Ranked candidates for query tokens. `only_make` restricts to one make (resolve's `make`).
    pub(crate) fn candidates(
        &self,
        toks: &[String],
        only_make: Option<u32>,
        year: Option<u16>,
        limit: usize,
    ) -> Vec<Cand> {
        let mut out: HashMap<(u32, Option<u32>), Cand> = HashMap::new();
        let toks: Vec<String> = toks.iter().take(MAX_TOKENS).cloned().collect();
        if toks.is_empty() && only_make.is_none() {
            return Vec::new();
        }
        let year_ok_model = |mi: u32| year.is_none_or(|y| self.models[mi as usize].has_year(y));
        let year_ok_make =
            |k: u32| year.is_none_or(|y| self.make_years[k as usize].binary_search(&y).is_ok());
        let mut push = |c: Cand| {
            let ok = match c.model {
                Some(mi) => year_ok_model(mi) && only_make.is_none_or(|k| k == c.make),
                None => year_ok_make(c.make) && only_make.is_none_or(|k| k == c.make),
            };
            if !ok {
                return;
            }
            out.entry((c.make, c.model))
                .and_modify(|e| {
                    if c.rank_key() < e.rank_key() {
                        *e = c;
                    }
                })
                .or_insert(c);
        };

        // 1. Make spans, then models of that make with the remaining tokens.
        let spans: Vec<MakeSpan> = match only_make {
            Some(k) => vec![MakeSpan {
                make: k,
                start: 0,
                len: 0,
                kind: MatchKind::Exact,
            }],
            None => self.make_spans(&toks),
        };
        for span in &spans {
            let rest: Vec<String> = toks[..span.start]
                .iter()
                .chain(&toks[span.start + span.len..])
                .cloned()
                .collect();
            let make_weight = self.index.make_weight[span.make as usize];
            if rest.is_empty() {
                push(Cand {
                    make: span.make,
                    model: None,
                    kind: span.kind,
                    model_kind: span.kind,
                    make_named: true,
                    make_kind: Some(span.kind),
                    weight: make_weight,
                });
                continue;
            }
            for (mi, kind) in self.models_in_make(span.make, &rest) {
                push(Cand {
                    make: span.make,
                    model: Some(mi),
                    kind: kind.max(span.kind),
                    model_kind: kind,
                    make_named: true,
                    make_kind: Some(span.kind),
                    weight: self.model_weight(mi),
                });
            }
        }

        // 2. The whole query against every model.
        if only_make.is_none() {
            for (mi, kind) in self.models_global(&toks) {
                let m = &self.models[mi as usize];
                push(Cand {
                    make: m.make,
                    model: Some(mi),
                    kind,
                    model_kind: kind,
                    make_named: false,
                    make_kind: None,
                    weight: self.model_weight(mi),
                });
            }
            // Makes by prefix / contains of the whole query ("toyo", "benz").
            let q = toks.concat();
            if q.len() >= 2 {
                for (k, c) in self.index.make_compact.iter().enumerate() {
                    let kind = if c.starts_with(&q) {
                        MatchKind::Prefix
                    } else if q.len() >= 3 && c.contains(&q) {
                        MatchKind::Contains
                    } else {
                        continue;
                    };
                    push(Cand {
                        make: k as u32,
                        model: None,
                        kind,
                        model_kind: kind,
                        make_named: true,
                        make_kind: Some(kind),
                        weight: self.index.make_weight[k],
                    });
                }
            }
        }

        let mut v: Vec<Cand> = out.into_values().collect();
        v.sort_by_key(Cand::rank_key);
        v.truncate(limit);
        v
    }

    fn model_weight(&self, mi: u32) -> u32 {
        let m = &self.models[mi as usize];
        m.years.len() as u32 * 40 + self.index.make_weight[m.make as usize].min(4000) / 10
    }

    /// Makes named in the query: exact or alias spans (longest first), else typos.
    fn make_spans(&self, toks: &[String]) -> Vec<MakeSpan> {
        let mut exact = Vec::new();
        for len in (1..=3.min(toks.len())).rev() {
            for start in 0..=toks.len() - len {
                let key = toks[start..start + len].concat();
                if let Some(k) = self.index.make_by_key(&key) {
                    exact.push(MakeSpan {
                        make: k,
                        start,
                        len,
                        kind: MatchKind::Exact,
                    });
                }
            }
        }
        // Typos too, for spans that are not a make as written ("mercedez benz").
        let mut fuzzy = Vec::new();
        for len in (1..=2.min(toks.len())).rev() {
            for start in 0..=toks.len() - len {
                let key = toks[start..start + len].concat();
                let budget = typo_budget(key.len());
                if budget == 0
                    || key.bytes().all(|b| b.is_ascii_digit())
                    || self.index.make_by_key(&key).is_some()
                {
                    continue;
                }
                for (k, c) in self.index.make_compact.iter().enumerate() {
                    if distance_within(&key, c, budget).is_some() {
                        fuzzy.push(MakeSpan {
                            make: k as u32,
                            start,
                            len,
                            kind: MatchKind::Fuzzy,
                        });
                    }
                }
            }
        }
        fuzzy.truncate(8);
        exact.extend(fuzzy);
        exact
    }

    /// Models of one make matching `rest`, with how they matched. When nothing matches all
    /// the words, the longest run of words that does match is used (kind at least `token`).
    fn models_in_make(&self, make: u32, rest: &[String]) -> Vec<(u32, MatchKind)> {
        let (a, b) = self.make_models[make as usize];
        for len in (1..=rest.len().min(MAX_MODEL_WORDS)).rev() {
            let reduced = len < rest.len();
            let mut found = Vec::new();
            for start in 0..=rest.len() - len {
                let part = &rest[start..start + len];
                let q = part.concat();
                for mi in a..b {
                    if let Some(kind) = self.match_model(mi, part, &q, !reduced) {
                        let kind = if reduced {
                            kind.max(MatchKind::Token)
                        } else {
                            kind
                        };
                        found.push((mi, kind));
                    }
                }
            }
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// How one model matches the words: the best over its names (own and aliases).
    fn match_model(
        &self,
        mi: u32,
        toks: &[String],
        q: &str,
        allow_fuzzy: bool,
    ) -> Option<MatchKind> {
        self.index
            .names_of(mi)
            .iter()
            .filter_map(|n| match_name(n, toks, q, allow_fuzzy))
            .min()
    }

    /// Models anywhere matching all the query's tokens.
    fn models_global(&self, toks: &[String]) -> Vec<(u32, MatchKind)> {
        let q = toks.concat();
        let mut found: Vec<(u32, MatchKind)> = Vec::new();
        if q.is_empty() {
            return found;
        }
        if let Some(list) = self.index.by_compact.get(&q) {
            found.extend(list.iter().map(|&mi| (mi, MatchKind::Exact)));
        }
        // Prefix range in the sorted compact names.
        let s = &self.index.sorted;
        let names = &self.index.names;
        let lo = s.partition_point(|&i| names[i as usize].compact.as_str() < q.as_str());
        for &ni in s[lo..].iter().take(200) {
            let n = &names[ni as usize];
            if !n.compact.starts_with(&q) {
                break;
            }
            if n.compact != q {
                found.push((n.model, MatchKind::Prefix));
            }
        }
        // All tokens present.
        if toks.len() > 1 || found.is_empty() {
            let mut lists: Vec<&Vec<u32>> = Vec::new();
            for t in toks {
                match self.index.by_token.get(t) {
                    Some(l) => lists.push(l),
                    None => {
                        lists.clear();
                        break;
                    }
                }
            }
            if lists.len() == toks.len() && !lists.is_empty() {
                lists.sort_by_key(|l| l.len());
                for &mi in lists[0].iter().take(2000) {
                    if lists[1..].iter().all(|l| l.binary_search(&mi).is_ok()) {
                        found.push((mi, MatchKind::Token));
                    }
                }
            }
        }
        // Extra words ("civic type r championship"): the longest run of words that names a
        // model by exact name, prefix or tokens, as a token match at best.
        if found.is_empty() && toks.len() > 1 {
            for len in (1..toks.len()).rev() {
                for start in 0..=toks.len() - len {
                    let part = &toks[start..start + len];
                    let pq = part.concat();
                    if pq.len() < 2 {
                        continue;
                    }
                    if let Some(list) = self.index.by_compact.get(&pq) {
                        found.extend(list.iter().map(|&mi| (mi, MatchKind::Token)));
                    }
                }
                if !found.is_empty() {
                    return found;
                }
            }
        }
        // Substring and typo scans only when nothing better was found.
        let qmask = char_mask(&q);
        if found.is_empty() && q.len() >= 3 {
            for n in names {
                // Every character of q must occur in the name.
                if qmask & !n.mask == 0 && n.compact.contains(&q) {
                    found.push((n.model, MatchKind::Contains));
                }
            }
        }
        let budget = typo_budget(q.len());
        if found.is_empty() && budget > 0 && !q.bytes().all(|b| b.is_ascii_digit()) {
            for n in names {
                // Each edit changes the set of characters by at most two.
                if (qmask ^ n.mask).count_ones() as usize <= 2 * budget
                    && distance_within(&q, &n.compact, budget).is_some()
                {
                    found.push((n.model, MatchKind::Fuzzy));
                }
            }
        }
        found
    }
}

/// How one name of a model matches the words `toks` (`q`: the words run together).
fn match_name(n: &Name, toks: &[String], q: &str, allow_fuzzy: bool) -> Option<MatchKind> {
    if q.is_empty() {
        return None;
    }
    let mc = &n.compact;
    if mc == q {
        return Some(MatchKind::Exact);
    }
    if mc.starts_with(q) {
        return Some(MatchKind::Prefix);
    }
    if toks.iter().all(|t| n.tokens.contains(t)) {
        return Some(MatchKind::Token);
    }
    if q.len() >= 2 && mc.contains(q) {
        return Some(MatchKind::Contains);
    }
    let budget = typo_budget(q.len());
    if allow_fuzzy && budget > 0 && !q.bytes().all(|b| b.is_ascii_digit()) {
        if distance_within(q, mc, budget).is_some() {
            return Some(MatchKind::Fuzzy);
        }
        if mc.len() > q.len()
            && let Some(head) = mc.get(..q.len())
            && distance_within(q, head, 1).is_some()
        {
            return Some(MatchKind::Fuzzy);
        }
    }
    None
}

/// A bit per character class present: a–z, 0–9, and one bucket for anything else.
fn char_mask(s: &str) -> u64 {
    s.bytes().fold(0u64, |m, b| {
        let bit = match b {
            b'a'..=b'z' => b - b'a',
            b'0'..=b'9' => 26 + b - b'0',
            _ => 36,
        };
        m | 1 << bit
    })
}

impl Catalog {
    /// A make named in free text (name, slug, nickname, a folded make's other name).
    pub(crate) fn index_make(&self, key: &str) -> Option<u32> {
        self.index.make_by_key(key)
    }

    /// A make for a lookup field (resolve's `make`): also the slug or name of a model line
    /// folded into a make ("range rover" → Land Rover).
    pub(crate) fn lookup_make(&self, key: &str) -> Option<u32> {
        self.index.make_for_lookup(key).map(|(k, _)| k)
    }

    /// Does the make have a model whose compact name is exactly `key`?
    pub(crate) fn make_has_model_compact(&self, make: u32, key: &str) -> bool {
        self.index
            .by_compact
            .get(key)
            .is_some_and(|l| l.iter().any(|&mi| self.models[mi as usize].make == make))
    }
}
