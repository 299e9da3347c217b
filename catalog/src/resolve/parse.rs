//! Extraction of year, colour, view, size and format from free text. What is left over is
//! the vehicle description, handed to catalog search.

use vis_protocol::{Color, Format, SizePreset, View};

use crate::Catalog;
use crate::text::compact;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub year: Option<u16>,
    /// The word the year came from, in case it turns out to be a model name ("Peugeot 2008").
    pub year_word: Option<(usize, String)>,
    pub color: Option<Color>,
    pub view: Option<View>,
    pub size: Option<SizePreset>,
    pub width: Option<u32>,
    pub format: Option<Format>,
    /// Words not consumed, in order.
    pub rest: Vec<String>,
}

/// View phrases, as words; the longest phrase at a position wins.
const VIEWS: &[(&str, View)] = &[
    ("front three quarter", View::Front34),
    ("front three quarters", View::Front34),
    ("three quarter front", View::Front34),
    ("3/4 front", View::Front34),
    ("front 3/4", View::Front34),
    ("front 3 4", View::Front34),
    ("front34", View::Front34),
    ("front quarter", View::Front34),
    ("front angle", View::Front34),
    ("front corner", View::Front34),
    ("hero", View::Front34),
    ("three quarter", View::Front34),
    ("three quarters", View::Front34),
    ("3/4", View::Front34),
    ("rear three quarter", View::Rear34),
    ("rear three quarters", View::Rear34),
    ("three quarter rear", View::Rear34),
    ("three quarter back", View::Rear34),
    ("3/4 rear", View::Rear34),
    ("rear 3/4", View::Rear34),
    ("rear 3 4", View::Rear34),
    ("back 3/4", View::Rear34),
    ("rear34", View::Rear34),
    ("rear quarter", View::Rear34),
    ("rear angle", View::Rear34),
    ("rear corner", View::Rear34),
    ("birds eye view", View::Top),
    ("bird's eye view", View::Top),
    ("birds eye", View::Top),
    ("bird's eye", View::Top),
    ("top down", View::Top),
    ("top view", View::Top),
    ("from above", View::Top),
    ("overhead", View::Top),
    ("side profile", View::Side),
    ("side view", View::Side),
    ("side on", View::Side),
    ("side left", View::Side),
    ("left side", View::Side),
    ("driver side", View::Side),
    ("drivers side", View::Side),
    ("driver's side", View::Side),
    ("from the side", View::Side),
    ("nose left", View::Side),
    ("facing left", View::Side),
    ("pointing left", View::Side),
    ("profile", View::Side),
    ("side", View::Side),
    ("side right", View::SideRight),
    ("side r", View::SideRight),
    ("right side", View::SideRight),
    ("passenger side", View::SideRight),
    ("passengers side", View::SideRight),
    ("passenger's side", View::SideRight),
    ("nose right", View::SideRight),
    ("facing right", View::SideRight),
    ("pointing right", View::SideRight),
    ("right profile", View::SideRight),
    ("from the right", View::SideRight),
    ("straight on rear", View::Rear),
    ("straight on back", View::Rear),
    ("straight on front", View::Front),
    ("straight on side", View::Side),
    ("from behind", View::Rear),
    ("from the back", View::Rear),
    ("from the rear", View::Rear),
    ("rear view", View::Rear),
    ("back view", View::Rear),
    ("rear end", View::Rear),
    ("behind", View::Rear),
    ("rear", View::Rear),
    ("back", View::Rear),
    ("from the front", View::Front),
    ("front view", View::Front),
    ("head on", View::Front),
    ("straight on", View::Front),
    ("face on", View::Front),
    ("front on", View::Front),
    ("front", View::Front),
];

/// Colour words and their preset. Modifiers before them ("dark", "metallic") are consumed too.
const COLORS: &[(&str, Color)] = &[
    ("british racing green", Color::Green),
    ("alpine white", Color::White),
    ("championship white", Color::White),
    ("polar white", Color::White),
    ("guards red", Color::Red),
    ("soul red", Color::Red),
    ("rosso corsa", Color::Red),
    ("candy red", Color::Red),
    ("racing red", Color::Red),
    ("racing green", Color::Green),
    ("forest green", Color::Green),
    ("navy blue", Color::Blue),
    ("midnight blue", Color::Blue),
    ("sky blue", Color::Blue),
    ("royal blue", Color::Blue),
    ("baby blue", Color::Blue),
    ("silver grey", Color::Silver),
    ("silver gray", Color::Silver),
    ("gun metal", Color::Gray),
    ("off white", Color::Beige),
    ("rose gold", Color::Gold),
    ("white", Color::White),
    ("ivory", Color::Beige),
    ("snow", Color::White),
    ("black", Color::Black),
    ("jet", Color::Black),
    ("onyx", Color::Black),
    ("obsidian", Color::Black),
    ("ebony", Color::Black),
    ("gray", Color::Gray),
    ("grey", Color::Gray),
    ("charcoal", Color::Gray),
    ("graphite", Color::Gray),
    ("gunmetal", Color::Gray),
    ("slate", Color::Gray),
    ("anthracite", Color::Gray),
    ("silver", Color::Silver),
    ("platinum", Color::Silver),
    ("chrome", Color::Silver),
    ("blue", Color::Blue),
    ("navy", Color::Blue),
    ("cobalt", Color::Blue),
    ("teal", Color::Blue),
    ("turquoise", Color::Blue),
    ("cyan", Color::Blue),
    ("red", Color::Red),
    ("crimson", Color::Red),
    ("scarlet", Color::Red),
    ("cherry", Color::Red),
    ("ruby", Color::Red),
    ("green", Color::Green),
    ("olive", Color::Green),
    ("lime", Color::Green),
    ("emerald", Color::Green),
    ("sage", Color::Green),
    ("mint", Color::Green),
    ("brown", Color::Brown),
    ("chocolate", Color::Brown),
    ("bronze", Color::Brown),
    ("copper", Color::Brown),
    ("mocha", Color::Brown),
    ("espresso", Color::Brown),
    ("beige", Color::Beige),
    ("cream", Color::Beige),
    ("champagne", Color::Beige),
    ("sand", Color::Beige),
    ("tan", Color::Tan),
    ("khaki", Color::Tan),
    ("camel", Color::Tan),
    ("caramel", Color::Tan),
    ("orange", Color::Orange),
    ("tangerine", Color::Orange),
    ("amber", Color::Orange),
    ("yellow", Color::Yellow),
    ("lemon", Color::Yellow),
    ("mustard", Color::Yellow),
    ("gold", Color::Gold),
    ("golden", Color::Gold),
    ("burgundy", Color::Burgundy),
    ("maroon", Color::Burgundy),
    ("wine", Color::Burgundy),
    ("oxblood", Color::Burgundy),
    ("claret", Color::Burgundy),
    ("bordeaux", Color::Burgundy),
    ("purple", Color::Purple),
    ("violet", Color::Purple),
    ("lavender", Color::Purple),
    ("plum", Color::Purple),
    ("magenta", Color::Purple),
    ("lilac", Color::Purple),
    ("mauve", Color::Purple),
];

const COLOR_MODIFIERS: &[&str] = &[
    "dark", "light", "metallic", "pearl", "matte", "matt", "bright", "deep", "pale", "gloss",
    "glossy", "satin",
];

/// Body-style words: dropped when the vehicle matches as well without them ("Ford Focus
/// hatchback"), kept when they are part of the name ("Golf SportWagen", "Transit Van").
pub(crate) const BODY_WORDS: &[&str] = &[
    "sedan",
    "saloon",
    "coupe",
    "convertible",
    "cabriolet",
    "cabrio",
    "hatchback",
    "hatch",
    "wagon",
    "estate",
    "pickup",
    "truck",
    "suv",
    "crossover",
    "minivan",
    "van",
    "bus",
    "motorcycle",
    "motorbike",
    "bike",
    "roadster",
];

/// Words that carry no vehicle information.
const FILLERS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "with",
    "at",
    "from",
    "for",
    "and",
    "please",
    "show",
    "me",
    "give",
    "get",
    "i",
    "want",
    "need",
    "would",
    "like",
    "image",
    "images",
    "picture",
    "pic",
    "photo",
    "render",
    "rendering",
    "shot",
    "view",
    "angle",
    "color",
    "colour",
    "coloured",
    "colored",
    "paint",
    "painted",
    "finish",
    "car",
    "vehicle",
    "year",
    "size",
    "format",
    "as",
    "file",
    "my",
    "model-year",
    "wide",
    "pixels",
    "px",
    "resolution",
    "version",
    "facing",
    "its",
    "it's",
    "to",
    "made",
    "by",
];

fn word_size(w: &str) -> Option<SizePreset> {
    Some(match w {
        "thumb" | "thumbnail" | "tiny" => SizePreset::Thumb,
        "small" => SizePreset::Small,
        "medium" => SizePreset::Medium,
        "large" | "big" | "full" | "fullsize" => SizePreset::Large,
        _ => return None,
    })
}

fn word_format(w: &str) -> Option<Format> {
    Some(match w.trim_start_matches('.') {
        "png" => Format::Png,
        "webp" => Format::Webp,
        "jpg" | "jpeg" => Format::Jpg,
        _ => return None,
    })
}

fn parse_u32(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn clamp_width(w: u32) -> Option<u32> {
    (w > 0).then_some(w.min(1024))
}

/// "512px" → 512; "800x600" → 600 (the source is square, so fitting it inside 800x600 gives
/// 600x600, which `w=600` says exactly).
fn word_width(w: &str) -> Option<u32> {
    if let Some(n) = w.strip_suffix("px").and_then(parse_u32) {
        return clamp_width(n);
    }
    let (a, b) = w.split_once(['x', '×'])?;
    let (a, b) = (parse_u32(a)?, parse_u32(b)?);
    clamp_width(a.min(b))
}

fn split_words(query: &str) -> Vec<String> {
    let lower = query.to_lowercase().replace(['’', '‘', '`'], "'");
    lower
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    ',' | ';'
                        | '!'
                        | '?'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '"'
                        | '“'
                        | '”'
                        | '-'
                        | '_'
                        | '–'
                        | '—'
                        | '+'
                        | '&'
                        | '='
                        | ':'
                        | '|'
                )
        })
        .map(|w| {
            w.trim_matches(|c: char| c == '.' || c == '\'' || c == '*')
                .to_owned()
        })
        .filter(|w| !w.is_empty())
        .take(64)
        .collect()
}

pub(crate) fn year_of(w: &str) -> Option<u16> {
    if w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()) {
        let y: u16 = w.parse().ok()?;
        return (1900..=2099).contains(&y).then_some(y);
    }
    None
}

/// Is the word at `i` part of a vehicle name ("Bentley Azure", "Honda Gold Wing")?
fn is_vehicle_word(cat: &Catalog, words: &[String], i: usize) -> bool {
    let model_of = |make_words: &[String], model_words: &[String]| -> bool {
        let Some(k) = cat.index_make(&compact(&make_words.concat())) else {
            return false;
        };
        let key = compact(&model_words.concat());
        !key.is_empty() && cat.make_has_model_compact(k, &key)
    };
    for mlen in 1..=2usize {
        if i >= mlen {
            let make = &words[i - mlen..i];
            if model_of(make, &words[i..=i])
                || (i + 1 < words.len() && model_of(make, &words[i..i + 2]))
            {
                return true;
            }
        }
    }
    // The word names a make and the next word is one of its models ("Hero Splendor").
    i + 1 < words.len() && model_of(&words[i..=i], &words[i + 1..i + 2])
}

pub(crate) fn parse(cat: &Catalog, query: &str) -> Parsed {
    let words = split_words(query);
    let mut used = vec![false; words.len()];
    let mut p = Parsed::default();
    let phrase_at = |words: &[String], i: usize, phrase: &str| -> Option<usize> {
        let n = phrase.split(' ').count();
        (i + n <= words.len() && phrase.split(' ').zip(&words[i..i + n]).all(|(a, b)| a == b))
            .then_some(n)
    };

    // Years: four digits; with several, the one at either end of the query wins.
    let years: Vec<usize> = (0..words.len())
        .filter(|&i| year_of(&words[i]).is_some())
        .collect();
    let pick = match years.as_slice() {
        [] => None,
        [one] => Some(*one),
        many => many
            .iter()
            .copied()
            .find(|&i| i == 0)
            .or_else(|| many.iter().copied().find(|&i| i + 1 == words.len()))
            .or(many.first().copied()),
    };
    if let Some(i) = pick {
        p.year = year_of(&words[i]);
        p.year_word = Some((i, words[i].clone()));
        used[i] = true;
    }
    // Short year forms: '19 → 2019, '98 → 1998 (the apostrophe is trimmed, so look at the raw text).
    if p.year.is_none() {
        for raw in query.split_whitespace() {
            let r = raw.trim_start_matches(['\'', '’']);
            if r.len() == 2 && raw.len() > r.len() && r.bytes().all(|b| b.is_ascii_digit()) {
                let n: u16 = r.parse().unwrap_or(0);
                p.year = Some(if n <= 30 { 2000 + n } else { 1900 + n });
                if let Some(i) = words.iter().position(|w| w == r) {
                    used[i] = true;
                    p.year_word = Some((i, words[i].clone()));
                }
                break;
            }
        }
    }

    let mut i = 0;
    while i < words.len() {
        if used[i] {
            i += 1;
            continue;
        }
        // Views (longest phrase first).
        if p.view.is_none() {
            let best = VIEWS
                .iter()
                .filter_map(|(ph, v)| phrase_at(&words, i, ph).map(|n| (n, *v)))
                .filter(|(n, _)| !used[i..i + n].iter().any(|u| *u))
                .max_by_key(|(n, _)| *n);
            if let Some((n, v)) = best
                && !(n == 1 && is_vehicle_word(cat, &words, i))
            {
                p.view = Some(v);
                used[i..i + n].iter_mut().for_each(|u| *u = true);
                i += n;
                continue;
            }
        }
        if p.color.is_none() {
            let best = COLORS
                .iter()
                .filter_map(|(ph, c)| phrase_at(&words, i, ph).map(|n| (n, *c)))
                .max_by_key(|(n, _)| *n);
            if let Some((n, c)) = best
                && !(n == 1 && is_vehicle_word(cat, &words, i))
            {
                p.color = Some(c);
                used[i..i + n].iter_mut().for_each(|u| *u = true);
                let mut j = i;
                while j > 0 && !used[j - 1] && COLOR_MODIFIERS.contains(&words[j - 1].as_str()) {
                    used[j - 1] = true;
                    j -= 1;
                }
                i += n;
                continue;
            }
        }
        let w = words[i].as_str();
        if p.width.is_none() {
            if let Some(px) = word_width(w) {
                p.width = Some(px);
                used[i] = true;
                i += 1;
                continue;
            }
            // "512 px", "640 pixels wide", "width 300"
            let next = words.get(i + 1).map(String::as_str);
            if let (Some(n), Some("px" | "pixels" | "pixel" | "wide" | "w")) = (parse_u32(w), next)
                && let Some(px) = clamp_width(n)
            {
                p.width = Some(px);
                used[i] = true;
                used[i + 1] = true;
                i += 2;
                continue;
            }
            if (w == "width" || w == "w")
                && let Some(px) = next.and_then(parse_u32).and_then(clamp_width)
            {
                p.width = Some(px);
                used[i] = true;
                used[i + 1] = true;
                i += 2;
                continue;
            }
        }
        if p.size.is_none()
            && let Some(s) = word_size(w)
            && !is_vehicle_word(cat, &words, i)
        {
            p.size = Some(s);
            used[i] = true;
            i += 1;
            continue;
        }
        if p.format.is_none()
            && let Some(f) = word_format(w)
        {
            p.format = Some(f);
            used[i] = true;
            i += 1;
            continue;
        }
        i += 1;
    }

    p.rest = words
        .iter()
        .zip(&used)
        .filter(|(w, u)| !**u && !FILLERS.contains(&w.as_str()))
        .map(|(w, _)| w.clone())
        .collect();
    p
}
