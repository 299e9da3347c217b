//! The OpenAPI document lists every route the router answers, and the error
//! page has an anchor per status.

use control_plane::http::route_table;
use vis_tests::TestApp;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

#[tokio::test]
async fn every_route_and_method_is_in_the_openapi_document() {
    let app = TestApp::spawn().await;
    // The full document: the public one leaves the site's pages, forms and
    // operator routes out (`public_document_is_the_api_alone` below).
    let doc: serde_json::Value = app
        .get("/api/v1/openapi.json?scope=all")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "2.0.0");
    let paths = doc["paths"].as_object().unwrap();
    let mut checked = 0;
    for (path, _, _) in route_table() {
        // Fill path parameters with a sample value.
        let concrete: String = path
            .split('/')
            .map(|seg| if seg.starts_with('{') { "sample" } else { seg })
            .collect::<Vec<_>>()
            .join("/");
        for method in METHODS {
            let r = app
                .client
                .request(method.parse().unwrap(), app.url(&concrete))
                .send()
                .await
                .unwrap();
            if r.status() == 405 {
                continue;
            }
            let documented = path.replace("{*", "{");
            let entry = paths
                .get(&documented)
                .unwrap_or_else(|| panic!("{path} is routed but not in openapi.json"));
            assert!(
                entry.get(method.to_ascii_lowercase()).is_some(),
                "{method} {path} is routed but not in openapi.json"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= route_table().len(),
        "every route answers at least one method"
    );
    // And the document describes nothing that is not routed.
    let routed: Vec<String> = route_table()
        .iter()
        .map(|(p, _, _)| p.replace("{*", "{"))
        .collect();
    for path in paths.keys() {
        assert!(routed.contains(path), "{path} documented but not routed");
    }
}

/// The served public document is the committed one: the API and the
/// agents' endpoints, and no page, form or operator route.
#[tokio::test]
async fn public_document_is_the_api_alone() {
    let app = TestApp::spawn().await;
    let r = app.get("/api/v1/openapi.json").await;
    assert_eq!(r.status(), 200);
    let served = r.text().await.unwrap();
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json"))
            .unwrap();
    assert!(
        served == committed,
        "the served document is docs/openapi.json"
    );
    let doc: serde_json::Value = serde_json::from_str(&served).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for path in paths.keys() {
        assert!(
            path.starts_with("/api/") || path == "/images/car.png",
            "{path} is not part of the API"
        );
    }
    for path in ["/api/v1/images/car", "/api/v1/image-urls", "/api/mcp"] {
        assert!(paths.contains_key(path), "{path} is missing");
    }
    for path in [
        "/signup",
        "/dashboard/keys",
        "/healthz",
        "/api/v1/billing/webhook",
    ] {
        assert!(
            !paths.contains_key(path),
            "{path} is in the public document"
        );
    }
}

#[tokio::test]
async fn the_error_page_has_an_anchor_per_status() {
    let app = TestApp::spawn().await;
    let r = app.get("/docs/errors").await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    for status in [400, 401, 402, 403, 404, 410, 413, 429, 500, 502, 503] {
        assert!(
            html.contains(&format!("id=\"{status}\"")),
            "no anchor #{status}"
        );
    }
    let index = app.get("/docs").await.text().await.unwrap();
    assert!(index.contains("/api/v1/openapi.json"));
}

/// Every `href` and `src` of a page, `&amp;` undone.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').unwrap();
            out.push(rest[..end].replace("&#x2f;", "/").replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    out
}

/// The guides (docs/*.md as pages): each is linked from the API reference
/// and from every other guide, and every link on every guide page
/// resolves: pages and files of this site answer (no 404), sections
/// linked by `#id` exist, and nothing is loaded from another host.
#[tokio::test]
async fn every_link_on_every_guide_page_resolves() {
    use control_plane::http::guides::GUIDES;
    let app = TestApp::spawn().await;
    let reference = app.get("/docs").await.text().await.unwrap();
    let mut pages: std::collections::HashMap<String, String> = Default::default();
    for guide in &GUIDES {
        assert!(
            reference.contains(&format!("href=\"{}\"", guide.path)),
            "/docs links to {}",
            guide.path
        );
        let r = app.get(guide.path).await;
        assert_eq!(r.status(), 200, "{}", guide.path);
        assert!(vis_tests::header(&r, "content-type").starts_with("text/html"));
        let html = r.text().await.unwrap();
        assert!(html.contains("<article class=\"prose\">"), "{}", guide.path);
        assert!(
            html.contains(&format!("href=\"{}\" aria-current=\"page\"", guide.path)),
            "{} is marked current in the docs bar",
            guide.path
        );
        pages.insert(guide.path.to_owned(), html);
    }
    let mut checked = 0;
    for (page, html) in &pages {
        for other in &GUIDES {
            assert!(
                html.contains(&format!("href=\"{}\"", other.path)),
                "{page} links to {}",
                other.path
            );
        }
        for link in links(html) {
            assert!(
                !link.contains(".md") || link.contains("://"),
                "{page}: {link} points at a Markdown file"
            );
            if link.contains("://") {
                // Only in the guides' own words (examples of the
                // service's URLs), never an asset.
                assert!(!link.starts_with("//"), "{page}: {link}");
                continue;
            }
            let (path, fragment) = match link.split_once('#') {
                Some((p, f)) => (if p.is_empty() { page.as_str() } else { p }, Some(f)),
                None => (link.as_str(), None),
            };
            assert!(path.starts_with('/'), "{page}: {link} is not a path");
            let r = app
                .client
                .get(app.url(path))
                .header("accept", "text/html,*/*;q=0.8")
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            assert!(
                status != 404 && status < 500,
                "{page}: {link} answers {status}"
            );
            // Sections of the guides exist (other pages, such as the
            // dashboard's, may first ask to sign in).
            if let Some(fragment) = fragment.filter(|f| !f.is_empty() && pages.contains_key(path)) {
                let target = r.text().await.unwrap();
                assert!(
                    target.contains(&format!("id=\"{fragment}\"")),
                    "{page}: {link}: no section #{fragment}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 10 * GUIDES.len(), "only {checked} links checked");
    // A guide's link to another guide is to its page.
    assert!(pages["/docs/embeds"].contains("href=\"/docs/delivery-urls\""));
    assert!(pages["/docs/cli"].contains("href=\"/docs/device-login\""));
    assert!(pages["/docs/errors"].contains("href=\"/docs/mcp\""));
}
