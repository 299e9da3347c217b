//! The guides: Markdown files of `docs/`, embedded in the binary with
//! `include_str!` and rendered to HTML by pulldown-cmark once, the first
//! time any guide is asked for, then served as pages of the site
//! (`/docs/<slug>`, in `article.html`).
//!
//! Links between guides are written in the Markdown as links to the files
//! (`[MCP](mcp.md#tools)`), so they work on GitHub too; here they become
//! links to the pages (`/docs/mcp#tools`). A link to a file of the
//! repository that is not a page keeps its words and loses the link (the
//! site cannot serve it). Headings get ids (`## Exit codes` → `exit-codes`;
//! `{#id}` sets one by hand), so sections can be linked.

use std::sync::LazyLock;

use axum::extract::State;
use axum::response::Response;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::http::state::HttpState;

/// A guide: its page, its short name in the docs bar, and its Markdown.
#[derive(Debug)]
pub struct Guide {
    /// The page's path, `/docs/<slug>`.
    pub path: &'static str,
    /// The Markdown file's name in `docs/`.
    pub file: &'static str,
    /// The docs bar's link text.
    pub label: &'static str,
    markdown: &'static str,
}

/// Every guide, in the docs bar's order.
pub const GUIDES: [Guide; 9] = [
    Guide {
        path: "/docs/embeds",
        file: "embeds.md",
        label: "Embeds",
        markdown: include_str!("../../../docs/embeds.md"),
    },
    Guide {
        path: "/docs/formats",
        file: "formats.md",
        label: "Formats",
        markdown: include_str!("../../../docs/formats.md"),
    },
    Guide {
        path: "/docs/framing",
        file: "framing.md",
        label: "Framing",
        markdown: include_str!("../../../docs/framing.md"),
    },
    Guide {
        path: "/docs/delivery-urls",
        file: "delivery-urls.md",
        label: "Delivery URLs",
        markdown: include_str!("../../../docs/delivery-urls.md"),
    },
    Guide {
        path: "/docs/sdks",
        file: "sdks.md",
        label: "SDKs",
        markdown: include_str!("../../../docs/sdks.md"),
    },
    Guide {
        path: "/docs/cli",
        file: "cli.md",
        label: "CLI",
        markdown: include_str!("../../../docs/cli.md"),
    },
    Guide {
        path: "/docs/device-login",
        file: "device-login.md",
        label: "Device login",
        markdown: include_str!("../../../docs/device-login.md"),
    },
    Guide {
        path: "/docs/mcp",
        file: "mcp.md",
        label: "MCP",
        markdown: include_str!("../../../docs/mcp.md"),
    },
    Guide {
        path: "/docs/errors",
        file: "errors.md",
        label: "Errors",
        markdown: include_str!("../../../docs/errors.md"),
    },
];

/// A guide rendered: the title (its first heading, as text) and the HTML.
#[derive(Debug)]
pub struct Rendered {
    pub title: String,
    pub html: String,
}

static RENDERED: LazyLock<Vec<Rendered>> =
    LazyLock::new(|| GUIDES.iter().map(|g| render(g.markdown)).collect());

/// The docs bar's links, for the templates: `[{path, label}]`.
pub fn nav() -> Vec<minijinja::Value> {
    GUIDES
        .iter()
        // The paths are this file's constants: written as they are, not
        // HTML-escaped (`&#x2f;`).
        .map(|g| {
            let path = minijinja::Value::from_safe_string(g.path.to_owned());
            minijinja::context! { path => path, label => g.label }
        })
        .collect()
}

/// The page of guide `index` of [`GUIDES`].
pub async fn page(State(state): State<HttpState>, index: usize) -> Response {
    let guide = &GUIDES[index];
    let rendered = &RENDERED[index];
    super::pages::article(&state, &rendered.title, guide.path, rendered.html.clone())
}

/// Where a link of a guide goes on the site: the page of a guide, the
/// link unchanged (a URL, a path of the site, a fragment), or nowhere
/// (`None`: a file of the repository the site does not serve).
fn link_target(dest: &str) -> Option<String> {
    let is_url = dest.contains("://") || dest.starts_with("mailto:");
    if is_url || dest.starts_with('/') || dest.starts_with('#') {
        return Some(dest.to_owned());
    }
    let (file, fragment) = match dest.split_once('#') {
        Some((f, frag)) => (f, Some(frag)),
        None => (dest, None),
    };
    let file = file.trim_start_matches("./");
    let file = file.strip_prefix("docs/").unwrap_or(file);
    let guide = GUIDES.iter().find(|g| g.file == file)?;
    Some(match fragment {
        Some(frag) => format!("{}#{frag}", guide.path),
        None => guide.path.to_owned(),
    })
}

/// A heading's text as an id: lowercase letters and digits, words joined
/// by `-` (`` `vis batch` `` → `vis-batch`).
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Renders one guide's Markdown.
pub fn render(markdown: &str) -> Rendered {
    let options = Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut events: Vec<Event<'_>> = Parser::new_ext(markdown, options).collect();
    let mut title = String::new();
    let mut used: Vec<String> = Vec::new();
    // Headings: the first one's text is the title; each without an id
    // gets one from its text (made unique on the page).
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { level, id, .. }) = &events[i] {
            let level = *level;
            let has_id = id.is_some();
            let mut text = String::new();
            let mut j = i + 1;
            while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                if let Event::Text(t) | Event::Code(t) = &events[j] {
                    text.push_str(t);
                }
                j += 1;
            }
            if title.is_empty() && level == HeadingLevel::H1 {
                title = text.clone();
            }
            if !has_id && level != HeadingLevel::H1 {
                let base = slug(&text);
                let mut candidate = base.clone();
                let mut n = 2;
                while used.contains(&candidate) {
                    candidate = format!("{base}-{n}");
                    n += 1;
                }
                used.push(candidate.clone());
                if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                    *id = Some(CowStr::from(candidate));
                }
            }
            i = j;
        }
        i += 1;
    }
    // Links: to the pages of guides; links to files that are not pages
    // keep their words only.
    let mut dropping = false;
    let events = events.into_iter().filter_map(|event| match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => match link_target(&dest_url) {
            Some(to) => Some(Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(to),
                title,
                id,
            })),
            None => {
                dropping = true;
                None
            }
        },
        Event::End(TagEnd::Link) if dropping => {
            dropping = false;
            None
        }
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    if title.is_empty() {
        title = "Guide".into();
    }
    Rendered { title, html }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_guide_renders_with_a_title() {
        for (g, r) in GUIDES.iter().zip(RENDERED.iter()) {
            assert!(!r.title.is_empty() && r.title != "Guide", "{}", g.file);
            assert!(r.html.contains("<h1>"), "{}", g.file);
            assert!(g.path.starts_with("/docs/"), "{}", g.path);
            // No link is left pointing at a Markdown file.
            assert!(
                !r.html.contains(".md\""),
                "{}: a link to a .md file",
                g.file
            );
            assert!(!r.html.contains(".md#"), "{}: a link to a .md file", g.file);
        }
    }

    #[test]
    fn links_to_guides_become_pages_and_other_files_lose_the_link() {
        let r = render(
            "# T\n\nSee [MCP](mcp.md#tools), [device](docs/device-login.md), \
             [ops](OPERATIONS.md), [readme](../README.md), [home](/), \
             [spec](https://example.com/x.md) and [here](#t).\n",
        );
        assert!(
            r.html.contains("<a href=\"/docs/mcp#tools\">MCP</a>"),
            "{}",
            r.html
        );
        assert!(r.html.contains("<a href=\"/docs/device-login\">device</a>"));
        assert!(r.html.contains(" ops, readme, "), "{}", r.html);
        assert!(r.html.contains("<a href=\"/\">home</a>"));
        assert!(
            r.html
                .contains("<a href=\"https://example.com/x.md\">spec</a>")
        );
        assert!(r.html.contains("<a href=\"#t\">here</a>"));
        assert_eq!(r.title, "T");
    }

    #[test]
    fn headings_get_ids() {
        let r = render(
            "# Title\n\n## Exit codes\n\n### `vis batch`\n\n## 402 {#402}\n\n## Exit codes\n",
        );
        assert!(r.html.contains("<h2 id=\"exit-codes\">"), "{}", r.html);
        assert!(r.html.contains("<h3 id=\"vis-batch\">"), "{}", r.html);
        assert!(r.html.contains("<h2 id=\"402\">"), "{}", r.html);
        assert!(r.html.contains("<h2 id=\"exit-codes-2\">"), "{}", r.html);
    }

    /// Every status a problem document can carry has its section, which
    /// its `type` (`/docs/errors#<status>`) links to.
    #[test]
    fn the_errors_guide_has_a_section_per_status() {
        let errors = GUIDES.iter().position(|g| g.file == "errors.md").unwrap();
        let html = &RENDERED[errors].html;
        for status in [
            400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 413, 414, 415, 422, 429, 431, 500,
            502, 503, 504,
        ] {
            assert!(
                html.contains(&format!("id=\"{status}\"")),
                "no section #{status}"
            );
        }
    }
}
