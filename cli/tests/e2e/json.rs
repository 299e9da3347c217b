//! `--json` on every command: one JSON document on stdout that carries the
//! server's answer; signed URLs minted with an Idempotency-Key are charged
//! once however often the command is repeated; completions.

use vis_tests::TestApp;

use crate::support::{Vis, credits};

#[tokio::test]
async fn every_command_answers_one_json_document() {
    let app = TestApp::spawn().await;
    let key = app.key_for("json@example.com", 10, &[]).await;
    let vis = Vis::new(&app).with_key(&key);

    let search = vis
        .run_ok(&["search", "toyota camry", "--json"])
        .await
        .json();
    let hits = search["results"].as_array().expect("results");
    assert!(hits.iter().any(|h| h["model_slug"] == "camry"), "{search}");
    let human = vis.run_ok(&["search", "toyota camry"]).await;
    assert!(human.stdout.contains("Camry"), "{human:?}");

    let resolved = vis
        .run_ok(&["resolve", "red 2019 toyota camry side view", "--json"])
        .await
        .json();
    let p = &resolved["params"];
    assert_eq!(
        (p["make"].as_str(), p["model"].as_str(), p["year"].as_i64()),
        (Some("toyota"), Some("camry"), Some(2019)),
        "{resolved}"
    );
    assert_eq!(
        (p["color"].as_str(), p["view"].as_str()),
        (Some("red"), Some("side"))
    );
    let human = vis
        .run_ok(&["resolve", "red 2019 toyota camry side view"])
        .await;
    assert!(
        human
            .stdout
            .contains("vis image toyota camry 2019 --color red --view side"),
        "{human:?}"
    );

    let account = vis.run_ok(&["account", "--json"]).await.json();
    assert_eq!(account["credits"], 10);
    assert!(account["usage_30d"]["requests"].is_number(), "{account}");

    // Signed URLs: the same Idempotency-Key twice is one charge, same URLs.
    let args = [
        "urls",
        "toyota",
        "camry",
        "2019",
        "--color",
        "red",
        "--max-uses",
        "3",
        "--idempotency-key",
        "cli-test-1",
        "--json",
    ];
    let first = vis.run_ok(&args).await.json();
    let second = vis.run_ok(&args).await.json();
    let url = first["data"][0]["url"].as_str().expect("a url");
    assert_eq!(second["data"][0]["url"], url);
    assert_eq!(first["data"][0]["max_uses"], 3);
    assert_eq!(first["idempotency_key"], "cli-test-1");
    assert_eq!(credits(&app, "json@example.com").await, 9, "charged once");
    // Without a key of its own, every run mints anew.
    vis.run_ok(&["urls", "toyota", "camry", "2019", "--json"])
        .await
        .json();
    assert_eq!(credits(&app, "json@example.com").await, 8);

    let who = vis.run_ok(&["whoami", "--json"]).await.json();
    assert_eq!(who["key_source"], "env");
    let out = vis.run_ok(&["logout", "--json"]).await.json();
    assert_eq!(out["logged_out"], false);

    let bash = vis.run_ok(&["completions", "bash"]).await;
    assert!(
        bash.stdout.contains("_vis") && bash.stdout.contains("batch"),
        "{bash:?}"
    );
    for shell in ["zsh", "fish"] {
        assert!(!vis.run_ok(&["completions", shell]).await.stdout.is_empty());
    }
}
