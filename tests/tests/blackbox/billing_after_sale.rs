//! Money after the sale (issue 33; docs/billing.md, "After the sale")
//! against the real server: refunds take back a pack's unspent credits once
//! per provider event, replayed or concurrent, and what was spent is owed
//! (the account buys nothing until a purchase settles it); disputes freeze
//! the account's keys until they close (lost: taken back like a refund);
//! auto-reload buys once per threshold crossing, also with two replicas; a
//! signed URL that expires having served only errors is refunded once
//! (docs/delivery-urls.md). Events are signed with the sandbox provider's
//! secret, exactly as its pages and the operator's `payments` commands do,
//! and go through `POST /api/v1/billing/webhook`.

use std::time::{Duration, Instant};

use control_plane::config::Secret;
use control_plane::payments::sandbox::{SandboxPayment, SandboxProvider};
use control_plane::store::{AccountStore, BudgetStore, PaymentStore, SqlStore};
use serde_json::{Value, json};
use vis_tests::{TestApp, problem, real_renderer};

const SCOPES: &str = "images:read,account:read,billing:write";

/// The app's sandbox provider (its webhook secret from the database) and a
/// store on the app's database.
async fn sandbox_of(app: &TestApp) -> (SandboxProvider, SqlStore) {
    let store = SqlStore::connect(app.config.database_url.expose())
        .await
        .unwrap();
    let secret = store
        .setting("sandbox_webhook_secret")
        .await
        .unwrap()
        .expect("the sandbox's secret");
    let sandbox = SandboxProvider::new(
        app.base_url.clone(),
        Secret::new(secret),
        Secret::new(Vec::new()),
    );
    (sandbox, store)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// POSTs a signed event to the webhook; answers its `outcome`.
async fn deliver(app: &TestApp, body: &[u8], signature: &str) -> String {
    let r = app
        .client
        .post(app.url("/api/v1/billing/webhook"))
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    v["outcome"].as_str().unwrap().to_owned()
}

/// Buys a pack through the sandbox as its payment page does; answers the
/// purchase id.
async fn buy(
    app: &TestApp,
    sandbox: &SandboxProvider,
    store: &SqlStore,
    key: &str,
    credits: i64,
) -> String {
    let r = app
        .client
        .post(app.url("/api/v1/billing/checkout"))
        .bearer_auth(key)
        .json(&json!({ "credits": credits }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let session = v["data"]["url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let purchase = store.purchase_by_session(&session).await.unwrap().unwrap();
    let customer = SandboxProvider::customer_for(&purchase.account_id);
    let (body, signature) = sandbox.completed_event(
        &SandboxPayment {
            session_id: &session,
            purchase_id: &purchase.id,
            account_id: &purchase.account_id,
            customer: &customer,
            amount_cents: purchase.amount_cents,
            credits: purchase.credits,
        },
        now(),
    );
    assert_eq!(deliver(app, &body, &signature).await, "credited");
    purchase.id
}

async fn account(app: &TestApp, key: &str) -> reqwest::Response {
    app.get_with_key("/api/v1/account", key).await
}

async fn balance(app: &TestApp, email: &str) -> i64 {
    standing(app, email).await["credits"].as_i64().unwrap()
}

async fn standing(app: &TestApp, email: &str) -> Value {
    let out = app
        .cli(&["--json", "payments", "standing", "--email", email])
        .await
        .unwrap();
    serde_json::from_str(&out).unwrap()
}

/// Spends `n` credits by an operator adjustment.
async fn spend(app: &TestApp, email: &str, n: i64) {
    app.cli(&[
        "credits",
        "adjust",
        "--email",
        email,
        "--delta",
        &(-n).to_string(),
        "--reason",
        "spent in the test",
    ])
    .await
    .unwrap();
}

fn camry() -> Value {
    json!({"make": "Toyota", "model": "Camry", "year": 2019, "color": "red", "view": "side", "width": 256})
}

/// Mints one signed URL (a debit decided in the database).
async fn mint(app: &TestApp, key: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(key)
        .json(&json!({ "images": [camry()] }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_refund_takes_back_unspent_credits_once_and_the_rest_is_owed_until_a_purchase() {
    let app = TestApp::spawn().await;
    let email = "refunded@example.com";
    let (_, key) = app.account_with_key(email, SCOPES).await;
    let (sandbox, store) = sandbox_of(&app).await;
    let purchase = buy(&app, &sandbox, &store, &key, 5_000).await;
    assert_eq!(balance(&app, email).await, 5_100);
    spend(&app, email, 5_000).await;

    // $2 of $5 refunded: 2,000 credits due; 100 there, taken; 1,900 owed.
    let (body, signature) = sandbox.refund_event(&purchase, 500, 200, now());
    assert_eq!(deliver(&app, &body, &signature).await, "reversed");
    let s = standing(&app, email).await;
    assert_eq!(
        (s["credits"].as_i64(), s["owed"].as_i64()),
        (Some(0), Some(1_900)),
        "{s}"
    );
    // Replayed: a duplicate, nothing moves.
    assert_eq!(deliver(&app, &body, &signature).await, "duplicate");
    assert_eq!(standing(&app, email).await, s);

    // Held: the account buys nothing, even with credits from elsewhere.
    app.cli(&[
        "credits", "adjust", "--email", email, "--delta", "50", "--reason", "goodwill",
    ])
    .await
    .unwrap();
    let held = problem(mint(&app, &key).await, 402).await;
    assert_eq!(held["owed_credits"], 1_900, "{held}");
    assert!(
        held["detail"].as_str().unwrap().contains("owes 1900"),
        "{held}"
    );
    let r = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=256",
            &key,
        )
        .await;
    let held = problem(r, 402).await;
    assert_eq!(held["owed_credits"], 1_900, "{held}");
    assert_eq!(
        balance(&app, email).await,
        50,
        "the refusals charged nothing"
    );
    // Reading the account still works.
    assert_eq!(account(&app, &key).await.status(), 200);

    // The rest refunded ($5 of $5, Stripe's cumulative figure): 3,000 more
    // due; the 50 there are taken, 2,950 more owed.
    let (body, signature) = sandbox.refund_event(&purchase, 500, 500, now());
    assert_eq!(deliver(&app, &body, &signature).await, "reversed");
    let s = standing(&app, email).await;
    assert_eq!(
        (s["credits"].as_i64(), s["owed"].as_i64()),
        (Some(0), Some(4_850)),
        "{s}"
    );
    // An older event arriving late (a smaller total) takes nothing more.
    let (body, signature) = sandbox.refund_event(&purchase, 500, 200, now());
    assert_eq!(deliver(&app, &body, &signature).await, "reversed");
    assert_eq!(standing(&app, email).await, s);

    // A purchase pays what is owed first; then the account buys again.
    buy(&app, &sandbox, &store, &key, 10_000).await;
    let s = standing(&app, email).await;
    assert_eq!(
        (s["credits"].as_i64(), s["owed"].as_i64()),
        (Some(5_150), Some(0)),
        "{s}"
    );
    assert_eq!(mint(&app, &key).await.status(), 201);
    assert_eq!(balance(&app, email).await, 5_149);
    // The ledger says what happened, in adjustments.
    let shown = app
        .cli(&["accounts", "show", "--email", email])
        .await
        .unwrap();
    assert!(
        shown.contains("payment refunded: credits taken back"),
        "{shown}"
    );
    assert!(
        shown.contains("owed credits settled by a purchase"),
        "{shown}"
    );
    // The operator's sandbox refund of an already refunded purchase: nothing.
    let out = app
        .cli(&["--json", "payments", "refund", "--purchase", &purchase])
        .await
        .unwrap();
    assert!(
        out.contains("\"taken\":0") && out.contains("\"owed\":0"),
        "{out}"
    );
    assert_eq!(balance(&app, email).await, 5_149);
}

#[tokio::test]
async fn concurrent_and_replayed_refund_events_take_back_once() {
    let app = TestApp::spawn().await;
    let email = "racing@example.com";
    let (_, key) = app.account_with_key(email, SCOPES).await;
    let (sandbox, store) = sandbox_of(&app).await;
    let purchase = buy(&app, &sandbox, &store, &key, 10_000).await;
    assert_eq!(balance(&app, email).await, 10_100);
    // One event delivered ten times at once, and five other events saying
    // the same total (Stripe may send a refund's update more than once).
    let (body, signature) = sandbox.refund_event(&purchase, 1_000, 250, now());
    let mut deliveries = Vec::new();
    for _ in 0..10 {
        deliveries.push((body.clone(), signature.clone()));
    }
    for _ in 0..5 {
        deliveries.push(sandbox.refund_event(&purchase, 1_000, 250, now()));
    }
    let mut all = tokio::task::JoinSet::new();
    for (body, signature) in deliveries {
        let (client, url) = (app.client.clone(), app.url("/api/v1/billing/webhook"));
        all.spawn(async move {
            let r = client
                .post(url)
                .header("stripe-signature", signature)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let v: Value = r.json().await.unwrap();
            v["outcome"].as_str().unwrap().to_owned()
        });
    }
    let outcomes: Vec<String> = all.join_all().await;
    assert_eq!(
        outcomes.iter().filter(|o| *o == "duplicate").count(),
        9,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "reversed").count(),
        6,
        "{outcomes:?}"
    );
    // A quarter of the payment: a quarter of the pack, once.
    let s = standing(&app, email).await;
    assert_eq!(
        (s["credits"].as_i64(), s["owed"].as_i64()),
        (Some(7_600), Some(0)),
        "{s}"
    );
    // The operator refunds the rest from the CLI, twice: once.
    for _ in 0..2 {
        app.cli(&["payments", "refund", "--purchase", &purchase])
            .await
            .unwrap();
    }
    assert_eq!(balance(&app, email).await, 100);
    let bad = app
        .cli(&[
            "payments",
            "refund",
            "--purchase",
            &purchase,
            "--cents",
            "2000",
        ])
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("--cents"), "{bad}");
}

#[tokio::test]
async fn a_dispute_freezes_the_keys_until_it_closes_and_a_lost_one_takes_the_pack_back() {
    let app = TestApp::spawn().await;
    let email = "disputed@example.com";
    let (_, key) = app.account_with_key(email, SCOPES).await;
    let (sandbox, store) = sandbox_of(&app).await;
    let first = buy(&app, &sandbox, &store, &key, 5_000).await;
    assert_eq!(account(&app, &key).await.status(), 200, "the key is cached");

    let (body, signature) = sandbox.dispute_event(&first, 500, None, now());
    assert_eq!(deliver(&app, &body, &signature).await, "frozen");
    let frozen = problem(account(&app, &key).await, 403).await;
    assert!(
        frozen["detail"].as_str().unwrap().contains("disputed"),
        "{frozen}"
    );
    problem(mint(&app, &key).await, 403).await;
    // Replayed, and a second event for the same dispute: still one dispute.
    assert_eq!(deliver(&app, &body, &signature).await, "duplicate");
    let (body, signature) = sandbox.dispute_event(&first, 500, None, now());
    assert_eq!(deliver(&app, &body, &signature).await, "frozen");
    assert_eq!(standing(&app, email).await["disputes"], 1);
    assert_eq!(
        balance(&app, email).await,
        5_100,
        "freezing moves no credits"
    );

    // Won: unfrozen, nothing taken.
    let (body, signature) = sandbox.dispute_event(&first, 500, Some("won"), now());
    assert_eq!(deliver(&app, &body, &signature).await, "dispute_won");
    assert_eq!(deliver(&app, &body, &signature).await, "duplicate");
    assert_eq!(account(&app, &key).await.status(), 200);
    assert_eq!(balance(&app, email).await, 5_100);

    // A second purchase, disputed from the operator's CLI, and lost: its
    // pack is taken back (4,000 spent are owed), then the keys work again
    // (and the account is held for what it owes).
    let second = buy(&app, &sandbox, &store, &key, 10_000).await;
    spend(&app, email, 9_100).await;
    app.cli(&["payments", "dispute", "--purchase", &second])
        .await
        .unwrap();
    // The CLI is another process: this server hears of it through the
    // revocation feed, within a second.
    let started = Instant::now();
    while account(&app, &key).await.status() != 403 {
        assert!(started.elapsed() < Duration::from_secs(3), "never frozen");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = app
        .cli(&[
            "--json",
            "payments",
            "dispute",
            "--purchase",
            &second,
            "--outcome",
            "lost",
        ])
        .await
        .unwrap();
    assert!(out.contains("dispute_lost"), "{out}");
    let s = standing(&app, email).await;
    assert_eq!(
        (
            s["credits"].as_i64(),
            s["owed"].as_i64(),
            s["frozen"].as_bool()
        ),
        (Some(0), Some(4_000), Some(false)),
        "{s}"
    );
    assert_eq!(account(&app, &key).await.status(), 200);
    problem(mint(&app, &key).await, 402).await;
    // Closing it again changes nothing.
    app.cli(&[
        "payments",
        "dispute",
        "--purchase",
        &second,
        "--outcome",
        "lost",
    ])
    .await
    .unwrap();
    assert_eq!(standing(&app, email).await, s);
}

#[tokio::test]
async fn auto_reload_buys_once_per_threshold_crossing_across_replicas() {
    let app = TestApp::spawn().await;
    let email = "reloading@example.com";
    let (_, key) = app.account_with_key(email, SCOPES).await;
    let (sandbox, store) = sandbox_of(&app).await;
    let v: Value = account(&app, &key).await.json().await.unwrap();
    assert_eq!(v["data"]["auto_reload"], false);
    assert_eq!(v["data"]["has_payment_method"], false);
    // Without a saved payment method it never fires.
    app.cli(&[
        "payments",
        "auto-reload",
        "--email",
        email,
        "--below",
        "500",
        "--pack",
        "5000",
    ])
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(balance(&app, email).await, 100);
    buy(&app, &sandbox, &store, &key, 5_000).await;
    let v: Value = account(&app, &key).await.json().await.unwrap();
    assert_eq!(v["data"]["auto_reload"], true);
    assert_eq!(v["data"]["has_payment_method"], true);
    // A second replica on the same database races the first one's sweep.
    let replica = TestApp::spawn_with(app.config.clone(), tempfile::tempdir().unwrap()).await;

    // Below the threshold: one pack, bought by one replica.
    spend(&app, email, 4_700).await;
    let started = Instant::now();
    while balance(&app, email).await == 400 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never reloaded"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(balance(&app, email).await, 5_400);
    let account_id = store.account_by_email(email).await.unwrap().unwrap().id;
    let reloads = |purchases: &[control_plane::store::Purchase]| {
        purchases
            .iter()
            .filter(|p| p.status == "paid" && p.credits == 5_000)
            .count()
    };
    assert_eq!(
        reloads(&store.purchases_of(&account_id, 100).await.unwrap()),
        2
    );

    // A threshold the pack does not lift the balance over: one reload for
    // the crossing, not one per sweep while it stays below.
    app.cli(&[
        "payments",
        "auto-reload",
        "--email",
        email,
        "--below",
        "20000",
        "--pack",
        "5000",
    ])
    .await
    .unwrap();
    let started = Instant::now();
    while balance(&app, email).await == 5_400 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never reloaded"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(balance(&app, email).await, 10_400, "once per crossing");
    assert_eq!(
        reloads(&store.purchases_of(&account_id, 100).await.unwrap()),
        3
    );

    // Off: nothing more. First a setting the balance is above (setting one
    // re-arms it), so that without `--off` the spend below would reload.
    app.cli(&[
        "payments",
        "auto-reload",
        "--email",
        email,
        "--below",
        "500",
        "--pack",
        "5000",
    ])
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(balance(&app, email).await, 10_400, "above the threshold");
    app.cli(&["payments", "auto-reload", "--email", email, "--off"])
        .await
        .unwrap();
    spend(&app, email, 10_000).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(balance(&app, email).await, 400);
    let v: Value = account(&app, &key).await.json().await.unwrap();
    assert_eq!(v["data"]["auto_reload"], false);
    drop(replica);
}

#[tokio::test]
async fn a_signed_url_that_expires_having_served_only_errors_is_refunded_once() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.render.daily_budget = 0;
        c.delivery.ttl_min = 1;
        c.delivery.ttl_default = 3;
        c.delivery.ttl_max = 3;
    })
    .await;
    let email = "expiring@example.com";
    let (_, key) = app.account_with_key(email, SCOPES).await;
    let r = app
        .client
        .post(app.url("/api/v1/image-urls"))
        .bearer_auth(&key)
        .json(&json!({ "images": [camry(), camry(), camry()] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let urls: Vec<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(balance(&app, email).await, 97);
    // The first serves only 503s (the budget is spent), twice; the second
    // is never loaded; the third fails once and is then served.
    for _ in 0..2 {
        problem(app.client.get(&urls[0]).send().await.unwrap(), 503).await;
    }
    problem(app.client.get(&urls[2]).send().await.unwrap(), 503).await;
    app.cli(&["budget", "set", "--daily", "5"]).await.unwrap();
    assert_eq!(app.client.get(&urls[2]).send().await.unwrap().status(), 200);
    // Nothing is refunded while they live.
    assert_eq!(balance(&app, email).await, 97);
    // After expiry, the sweep refunds the first one, once.
    let started = Instant::now();
    while balance(&app, email).await == 97 {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "never refunded"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(balance(&app, email).await, 98);
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(balance(&app, email).await, 98, "refunded once");
    let shown = app
        .cli(&["accounts", "show", "--email", email])
        .await
        .unwrap();
    assert_eq!(
        shown.matches("expired having served only errors").count(),
        1,
        "{shown}"
    );
    // An expired URL is a 403, refunded or not.
    problem(app.client.get(&urls[0]).send().await.unwrap(), 403).await;
}
