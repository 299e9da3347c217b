//! Held charges (docs/ledger.md): image deliveries billed against a
//! server's credit hold and its journal, settled into the ledger later.
//! What a customer and an operator must be able to rely on: a server killed
//! with `kill -9` loses no charge and bills none twice, its holds come
//! back, other debits can spend what a server holds, and a graceful
//! shutdown leaves nothing held or journalled.

use std::io::BufRead;
use std::sync::Arc;

use control_plane::Config;
use control_plane::store::{AccountStore, EntryKind, HoldStore, LedgerStore, SqlStore};
use serde_json::{Value, json};
use vis_tests::{TestApp, concurrent_statuses, count, real_renderer};

const CAMRY: &str =
    "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=256&format=webp";

/// Runs an operator command against the data in `dir`; returns its stdout.
async fn cli(dir: &std::path::Path, args: &[&str]) -> String {
    let dir = dir.display().to_string();
    let mut argv = vec!["control-plane", "--data-dir", &dir];
    argv.extend_from_slice(args);
    let cli = <control_plane::cli::Cli as clap::Parser>::try_parse_from(argv).unwrap();
    control_plane::cli::run(cli).await.unwrap()
}

/// The test configuration on the data in `dir`, with two render workers.
fn config_on(dir: &std::path::Path) -> Config {
    let mut config = Config::for_tests(dir);
    config.render.workers = 2;
    config
}

/// The database of the data in `dir`, opened as another process would.
async fn open_store(dir: &std::path::Path) -> Arc<SqlStore> {
    let config = Config::for_tests(dir);
    Arc::new(
        SqlStore::connect(config.database_url.expose())
            .await
            .unwrap(),
    )
}

/// The account's charge entries' references (request ids), oldest first,
/// and its stored balance.
async fn charges_and_balance(store: &SqlStore, email: &str) -> (Vec<String>, i64) {
    let account = store.account_by_email(email).await.unwrap().unwrap();
    let mut refs: Vec<String> = store
        .entries(&account.id, 10_000)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Charge)
        .map(|e| e.reference.unwrap())
        .collect();
    refs.reverse();
    (refs, account.balance)
}

/// Journal files (segments and locks) left in the journal folder.
fn journal_files(store: &SqlStore) -> Vec<String> {
    let dir = store.journal_dir().expect("a SQLite file keeps journals");
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log") || n.ends_with(".lock"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[tokio::test]
async fn charges_journalled_by_a_killed_server_are_settled_once_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    // Server A, a process of its own that settles only once an hour: every
    // charge it makes lives in its journal alone when it is killed.
    let mut a = std::process::Command::new(env!("CARGO_BIN_EXE_serve-for-test"))
        .arg(dir.path())
        .arg("3600000")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufReader::new(a.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    let base = ready
        .strip_prefix("READY ")
        .expect("the server says READY")
        .trim()
        .to_owned();
    cli(
        dir.path(),
        &[
            "accounts",
            "create",
            "--email",
            "k@example.com",
            "--credits",
            "50",
        ],
    )
    .await;
    let out = cli(
        dir.path(),
        &["--json", "keys", "create", "--email", "k@example.com"],
    )
    .await;
    let key: Value = serde_json::from_str(out.trim()).unwrap();
    let key = key["key"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let mut delivered = Vec::new();
    for _ in 0..30 {
        let r = client
            .get(format!("{base}{CAMRY}"))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        delivered.push(r.headers()["x-request-id"].to_str().unwrap().to_owned());
        assert!(!r.bytes().await.unwrap().is_empty());
    }
    let store = open_store(dir.path()).await;
    let (settled, _) = charges_and_balance(&store, "k@example.com").await;
    assert!(settled.is_empty(), "A settled nothing yet: {settled:?}");
    a.kill().unwrap(); // SIGKILL: no shutdown, no settle.
    a.wait().unwrap();
    assert!(!journal_files(&store).is_empty(), "A's journal survives it");

    // Server B starts on the same data and settles A's journal first.
    let b = TestApp::spawn_rendering_with(real_renderer(), config_on(dir.path()), dir).await;
    let (settled, balance) = charges_and_balance(&store, "k@example.com").await;
    assert_eq!(settled, delivered, "every charge, once, in order");
    assert_eq!(balance, 20);
    // A's hold came back: B can spend the whole balance, and no more.
    let statuses = concurrent_statuses(25, || b.client.get(b.url(CAMRY)).bearer_auth(&key)).await;
    assert_eq!(count(&statuses, 200), 20, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 5, "{statuses:?}");
    let dir = b.shutdown().await.unwrap();

    // A third start replays nothing twice.
    let c = TestApp::spawn_rendering_with(real_renderer(), config_on(dir.path()), dir).await;
    let (settled, balance) = charges_and_balance(&store, "k@example.com").await;
    assert_eq!(settled.len(), 50);
    assert_eq!(balance, 0);
    assert!(store.hold_owners().await.unwrap().is_empty());
    c.shutdown().await.unwrap();
}

#[tokio::test]
async fn graceful_shutdown_settles_every_charge_and_gives_every_hold_back() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("g@example.com", 40, &[]).await;
    for _ in 0..10 {
        assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    }
    let dir = app.shutdown().await.unwrap();
    let store = open_store(dir.path()).await;
    let (settled, balance) = charges_and_balance(&store, "g@example.com").await;
    assert_eq!((settled.len(), balance), (10, 30));
    assert!(
        store.hold_owners().await.unwrap().is_empty(),
        "nothing held"
    );
    assert!(journal_files(&store).is_empty(), "nothing journalled");
    // Every remaining credit is free for any server.
    let account = store
        .account_by_email("g@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store.take_hold("probe", &account.id, 100).await.unwrap(),
        (30, 30)
    );
}

#[tokio::test]
async fn a_url_mint_spends_credits_this_server_holds_for_images() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("m@example.com", 20, &[]).await;
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-credits-remaining"], "19");
    // The image took a hold bigger than what is left for a 10-URL mint.
    let camry = json!({"make": "toyota", "model": "camry", "year": 2019, "color": "red", "view": "side", "width": 256});
    let images: Vec<Value> = (0..10).map(|_| camry.clone()).collect();
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&json!({ "images": images }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["billing"]["credits_remaining"], 9);
    // And images go on being billed from what is left.
    let statuses =
        concurrent_statuses(12, || app.client.get(app.url(CAMRY)).bearer_auth(&key)).await;
    assert_eq!(count(&statuses, 200), 9, "{statuses:?}");
    assert_eq!(app.account_json("m@example.com").await["credits"], 0);
}

#[tokio::test]
async fn with_held_charges_off_a_small_balance_still_delivers_exactly_the_balance() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| c.billing.held_charges = false).await;
    let key = app.key_for("off@example.com", 6, &[]).await;
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    let statuses =
        concurrent_statuses(30, || app.client.get(app.url(CAMRY)).bearer_auth(&key)).await;
    assert_eq!(count(&statuses, 200), 5, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 25, "{statuses:?}");
    let dir = app.shutdown().await.unwrap();
    let store = open_store(dir.path()).await;
    assert_eq!(
        charges_and_balance(&store, "off@example.com").await.0.len(),
        6
    );
    assert!(
        journal_files(&store).is_empty(),
        "no journal when held charges are off"
    );
}

#[tokio::test]
async fn operators_see_held_credits_and_get_them_back_when_an_account_goes_idle() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("h@example.com", 20, &[]).await;
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    let v = app.account_json("h@example.com").await;
    assert_eq!(v["credits"], 19);
    let held = v["held"].as_i64().unwrap();
    assert!(held > 0 && held <= 19, "{v}");
    // An adjustment may not take what a running server holds, and says so.
    let take_ten = [
        "credits",
        "adjust",
        "--email",
        "h@example.com",
        "--delta",
        "-10",
        "--reason",
        "fix",
    ];
    let refused = app.cli(&take_ten).await.unwrap_err().to_string();
    assert!(refused.contains("held by running servers"), "{refused}");
    // A second without charges and the hold comes back.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while app.account_json("h@example.com").await["held"] != 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the idle hold never came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    app.cli(&take_ten).await.unwrap();
    assert_eq!(app.account_json("h@example.com").await["credits"], 9);
}
