//! The OpenAPI document lists every route the router answers, and the error
//! page has an anchor per status.

use control_plane::http::route_table;
use vis_tests::TestApp;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

#[tokio::test]
async fn every_route_and_method_is_in_the_openapi_document() {
    let app = TestApp::spawn().await;
    let doc: serde_json::Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
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
