//! Funnel events: `cli_install` once per config directory and `cli_login`,
//! with `source: cli` and nothing that identifies anyone; `DO_NOT_TRACK=1`
//! or `VIS_NO_TELEMETRY=1` sends nothing at all. Checked in the server's
//! events table, where the sink writes them.

use std::time::Duration;

use control_plane::store::SqlStore;
use sqlx::Row;
use vis_tests::TestApp;

use crate::support::Vis;

#[derive(Debug)]
struct Stored {
    name: String,
    source: Option<String>,
    others: Vec<Option<String>>,
    properties: serde_json::Value,
}

async fn stored_events(app: &TestApp) -> Vec<Stored> {
    let store = SqlStore::connect(app.config.database_url.expose())
        .await
        .expect("the app's database");
    let rows = sqlx::query(
        "SELECT name, source, anonymous_id, session_id, url, referrer, utm, properties \
         FROM events ORDER BY id",
    )
    .fetch_all(store.pool())
    .await
    .expect("events");
    let events = rows
        .iter()
        .map(|r| Stored {
            name: r.get("name"),
            source: r.get("source"),
            others: ["anonymous_id", "session_id", "url", "referrer", "utm"]
                .iter()
                .map(|c| r.get::<Option<String>, _>(*c))
                .collect(),
            properties: r
                .get::<Option<String>, _>("properties")
                .map(|p| serde_json::from_str(&p).expect("properties are JSON"))
                .unwrap_or_default(),
        })
        .collect();
    store.close().await;
    events
}

/// Waits until the sink has written `n` events (it writes after answering).
async fn wait_for_events(app: &TestApp, n: usize) -> Vec<Stored> {
    let mut events = Vec::new();
    for _ in 0..100 {
        events = stored_events(app).await;
        if events.len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    events
}

#[tokio::test]
async fn install_once_per_config_dir_and_login_are_sent_with_source_cli_and_nothing_personal() {
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "funnel@example.com"])
        .await
        .unwrap();
    let vis = Vis::new(&app);
    vis.run_ok(&["search", "camry"]).await;
    vis.run_ok(&["search", "civic"]).await;
    let login = vis.login(&app, Some("funnel@example.com"), &[]).await;
    assert_eq!(login.code, 0, "{login:?}");
    let events = wait_for_events(&app, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = if events.len() == 2 {
        stored_events(&app).await
    } else {
        events
    };
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["cli_install", "cli_login"], "{events:?}");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(vis.config_dir().join("credentials")).unwrap())
            .unwrap();
    let key = saved["api_key"].as_str().expect("a saved key");
    for e in &events {
        assert_eq!(e.source.as_deref(), Some("cli"));
        assert!(e.others.iter().all(Option::is_none), "no identifier: {e:?}");
        let mut keys: Vec<&String> = e
            .properties
            .as_object()
            .expect("properties")
            .keys()
            .collect();
        keys.sort();
        assert_eq!(keys, ["arch", "os", "version"], "{e:?}");
        let text = e.properties.to_string();
        assert!(!text.contains("funnel@") && !text.contains(key) && !text.contains("vis_"));
    }
}

#[tokio::test]
async fn do_not_track_or_vis_no_telemetry_sends_nothing() {
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "private@example.com"])
        .await
        .unwrap();
    let dnt = Vis::new(&app).with_env("DO_NOT_TRACK", "1");
    dnt.run_ok(&["search", "camry"]).await;
    let login = dnt.login(&app, Some("private@example.com"), &[]).await;
    assert_eq!(login.code, 0, "{login:?}");
    let opted_out = Vis::new(&app).with_env("VIS_NO_TELEMETRY", "1");
    opted_out.run_ok(&["search", "camry"]).await;
    // Both ran the install step (the marker is there) and sent nothing.
    for vis in [&dnt, &opted_out] {
        assert!(vis.config_dir().join("installed").exists());
    }
    // A run that may send, after them: once its event is stored, anything
    // they had sent would be stored too (the sink writes in arrival order).
    let control = Vis::new(&app);
    control.run_ok(&["search", "camry"]).await;
    let events = wait_for_events(&app, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = if events.len() == 1 {
        stored_events(&app).await
    } else {
        events
    };
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["cli_install"],
        "only the control run's event: {events:?}"
    );
}
