//! Several control planes on one database (docs/ledger.md, "Several control
//! planes"): two server processes on one PostgreSQL (and, the same test, on
//! one SQLite file), sharing one object directory as they would share a
//! bucket. What an operator scaling out must be able to rely on:
//! - concurrent requests for one new variant at both render it once, and
//!   bill every delivered image once, balances exact;
//! - a key revoked through one is refused by the other within a second,
//!   its delivery URLs too, although the other had both cached;
//! - `kill -9` of a replica under load loses no charge and doubles none,
//!   and leaves no credit reserved.
//!
//! PostgreSQL comes from `VIS_TEST_POSTGRES_URL` (infra/test.sh starts
//! one); without it the PostgreSQL run fails unless VIS_TEST_SKIP_POSTGRES=1.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use control_plane::store::{AccountStore, CreditStore, EntryKind, JobStore, LedgerStore, SqlStore};
use serde_json::Value;
use vis_tests::{account_and_key, fresh_postgres_database, operator, postgres_url_or_skip};

const NEW_VARIANT: &str = "/api/v1/images/car?make=honda&model=civic&year=2018&color=blue&view=front-3-4&w=256&format=webp";
const CACHED: &str =
    "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=128&format=webp";

/// A control plane in a process of its own.
struct Replica {
    child: Child,
    base: String,
}

impl Replica {
    fn start(dir: &std::path::Path, database_url: &str) -> Replica {
        let mut child = Command::new(env!("CARGO_BIN_EXE_serve-for-test"))
            .arg(dir)
            .arg(database_url)
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve-for-test starts");
        let mut ready = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut ready)
            .expect("a line");
        let base = ready
            .strip_prefix("READY ")
            .expect("the server says READY")
            .trim()
            .to_owned();
        Replica { child, base }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// `kill -9`: no shutdown, no drain.
    fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs an operator command against the shared database; returns stdout.
async fn cli(dir: &std::path::Path, database_url: &str, args: &[&str]) -> String {
    operator(dir, database_url, args).await.unwrap()
}

/// GET with a key.
async fn get_keyed(client: &reqwest::Client, url: String, key: &str) -> reqwest::Response {
    client.get(url).bearer_auth(key).send().await.unwrap()
}

/// An account with `credits` and a key; returns (key id, key).
async fn key_for(dir: &std::path::Path, db: &str, email: &str, credits: i64) -> (String, String) {
    account_and_key(dir, db, email, Some(credits), &["--rate-limit", "100000"]).await
}

/// The account's image charges (request ids) and its balance.
async fn charges_and_balance(store: &SqlStore, email: &str) -> (Vec<String>, i64) {
    let account = store.account_by_email(email).await.unwrap().unwrap();
    let balance = store.balance(&account.id).await.unwrap().unwrap();
    let entries = store.entries(&account.id, 100_000).await.unwrap();
    let sum: i64 = entries.iter().map(|e| e.delta).sum();
    assert_eq!(
        sum, balance,
        "the balance is the sum of the ledger: nothing reserved or lost"
    );
    let charges = entries
        .into_iter()
        .filter(|e| e.kind == EntryKind::Charge)
        .filter_map(|e| e.reference)
        .collect();
    (charges, balance)
}

async fn two_replicas_on(database_url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = database_url;
    let a = Replica::start(dir.path(), db);
    let mut b = Replica::start(dir.path(), db);
    let store = SqlStore::connect(db).await.unwrap();
    let client = vis_tests::http_client().build().unwrap();

    // One new variant, 8 requests at each replica at once.
    let (_, key) = key_for(dir.path(), db, "shared@example.com", 100).await;
    let requests: Vec<_> = (0..16)
        .map(|i| {
            let url = if i % 2 == 0 {
                a.url(NEW_VARIANT)
            } else {
                b.url(NEW_VARIANT)
            };
            let sent = client.get(url).bearer_auth(&key).send();
            tokio::spawn(async move {
                let r = sent.await.unwrap();
                let status = r.status().as_u16();
                let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
                (status, id)
            })
        })
        .collect();
    let mut delivered = Vec::new();
    for r in requests {
        let (status, id) = r.await.unwrap();
        assert_eq!(status, 200, "every request gets the image");
        delivered.push(id);
    }
    let jobs = store.job_counts().await.unwrap();
    assert_eq!(
        jobs.queued + jobs.running + jobs.done + jobs.failed,
        1,
        "one render for one new variant across replicas"
    );
    let (mut charges, balance) = charges_and_balance(&store, "shared@example.com").await;
    charges.sort();
    delivered.sort();
    assert_eq!(
        charges, delivered,
        "every image billed once, by its request id"
    );
    assert_eq!(balance, 100 - 16);

    // Revocation: B has the key and a delivery URL cached, then the key is
    // revoked through the database (the operator CLI, as A's would).
    let (key_id, key) = key_for(dir.path(), db, "revoked@example.com", 100).await;
    let minted: Value = client
        .get(b.url(&format!("{CACHED}&response=url")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let signed = minted["data"]["url"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        let r = get_keyed(&client, b.url(CACHED), &key).await;
        assert_eq!(r.status(), 200);
        let r = client.get(&signed).send().await.unwrap();
        assert_eq!(r.status(), 200);
    }
    cli(dir.path(), db, &["keys", "revoke", &key_id]).await;
    let revoked_at = Instant::now();
    let mut key_refused = None;
    let mut url_refused = None;
    while (key_refused.is_none() || url_refused.is_none())
        && revoked_at.elapsed() < Duration::from_secs(3)
    {
        if key_refused.is_none() {
            let r = get_keyed(&client, b.url(CACHED), &key).await;
            if r.status() == 401 {
                key_refused = Some(revoked_at.elapsed());
            } else {
                assert_eq!(r.status(), 200);
            }
        }
        if url_refused.is_none() {
            let r = client.get(&signed).send().await.unwrap();
            if r.status() == 403 {
                url_refused = Some(revoked_at.elapsed());
            } else {
                assert_eq!(r.status(), 200);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!("refused after: key {key_refused:?}, URL {url_refused:?}");
    let within = Duration::from_secs(1);
    assert!(
        key_refused.is_some_and(|t| t <= within),
        "the key answered 401 on the other replica after {key_refused:?}"
    );
    assert!(
        url_refused.is_some_and(|t| t <= within),
        "its delivery URL answered 403 on the other replica after {url_refused:?}"
    );

    // kill -9 of B under load: every 200 it sent is a committed charge,
    // none is written twice, and nothing stays reserved.
    let (_, key) = key_for(dir.path(), db, "killed@example.com", 100_000).await;
    let ok = Arc::new(AtomicUsize::new(0));
    let ok_ids = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let loaders: Vec<_> = (0..8)
        .map(|_| {
            let client = client.clone();
            let url = b.url(CACHED);
            let key = key.clone();
            let ok = Arc::clone(&ok);
            let ok_ids = Arc::clone(&ok_ids);
            tokio::spawn(async move {
                loop {
                    match client.get(&url).bearer_auth(&key).send().await {
                        Ok(r) if r.status() == 200 => {
                            let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
                            // The body too: a 200 counts once it is whole.
                            if r.bytes().await.is_ok() {
                                ok_ids.lock().push(id);
                                ok.fetch_add(1, Ordering::SeqCst);
                            }
                        }
                        Ok(r) => panic!("unexpected {}", r.status()),
                        Err(_) => return,
                    }
                }
            })
        })
        .collect();
    while ok.load(Ordering::SeqCst) < 200 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    b.kill();
    for l in loaders {
        l.await.unwrap();
    }
    let delivered = ok_ids.lock().clone();
    eprintln!("delivered before the kill: {}", delivered.len());
    // The killed process's database sessions may still commit what they
    // were sent before the kill (PostgreSQL finishes a COMMIT it has, then
    // finds the client gone): read once the ledger has stopped moving.
    let mut settled = charges_and_balance(&store, "killed@example.com").await;
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let again = charges_and_balance(&store, "killed@example.com").await;
        if again == settled {
            break;
        }
        settled = again;
    }
    let (charges, balance) = settled;
    let charged: std::collections::HashSet<&String> = charges.iter().collect();
    assert_eq!(charged.len(), charges.len(), "no charge written twice");
    for id in &delivered {
        assert!(charged.contains(id), "the delivered image {id} was charged");
    }
    assert!(
        charges.len() <= delivered.len() + 8,
        "at most the requests in flight at the kill were charged without an answer: {} charged, {} delivered",
        charges.len(),
        delivered.len()
    );
    assert_eq!(balance, 100_000 - charges.len() as i64);
    // The survivor serves the same account at once: nothing was held.
    let r = get_keyed(&client, a.url(CACHED), &key).await;
    assert_eq!(r.status(), 200);
    let remaining: i64 = r.headers()["x-credits-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(remaining, balance - 1);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_control_planes_on_one_postgresql() {
    if postgres_url_or_skip("two_control_planes_on_one_postgresql").is_none() {
        return;
    }
    let url = fresh_postgres_database().await;
    let migrate = SqlStore::connect(&url).await.unwrap();
    migrate.migrate().await.unwrap();
    migrate.close().await;
    two_replicas_on(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_control_planes_on_one_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("shared.db").display()
    );
    let migrate = SqlStore::connect(&url).await.unwrap();
    migrate.migrate().await.unwrap();
    migrate.close().await;
    two_replicas_on(&url).await;
}

/// Issue 33: a billed GET whose answer was lost (its replica killed) and
/// that the client retries with the same `Idempotency-Key` or its own
/// `X-Request-Id` within 24 hours is answered by another replica without a
/// second charge (docs/ledger.md, "Retries are not paid twice").
async fn retries_after_a_kill_are_not_paid_twice_on(database_url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = database_url;
    let mut a = Replica::start(dir.path(), db);
    let b = Replica::start(dir.path(), db);
    let store = SqlStore::connect(db).await.unwrap();
    let client = vis_tests::http_client().build().unwrap();
    let (_, key) = key_for(dir.path(), db, "retry@example.com", 10).await;
    let get = |url: String, name: &'static str, value: &'static str| {
        client.get(url).bearer_auth(&key).header(name, value).send()
    };
    let charged = |r: &reqwest::Response| vis_tests::header(r, "x-credits-charged");

    // Charged at A, then A dies before anything else.
    let first = get(a.url(NEW_VARIANT), "idempotency-key", "order-1")
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(charged(&first), "1");
    let first_bytes = first.bytes().await.unwrap();
    a.kill();
    // The retry at B: the same image, nothing charged, said so.
    let retry = get(b.url(NEW_VARIANT), "idempotency-key", "order-1")
        .await
        .unwrap();
    assert_eq!(retry.status(), 200);
    assert_eq!(charged(&retry), "0");
    assert_eq!(vis_tests::header(&retry, "idempotent-replayed"), "true");
    assert_eq!(vis_tests::header(&retry, "x-credits-remaining"), "9");
    assert_eq!(retry.bytes().await.unwrap(), first_bytes);
    // The key for another image within 24 hours is a conflict naming it.
    let other = get(b.url(CACHED), "idempotency-key", "order-1")
        .await
        .unwrap();
    assert_eq!(other.status(), 409);
    let problem: Value = other.json().await.unwrap();
    assert_eq!(problem["param"], "Idempotency-Key", "{problem}");

    // The client's own X-Request-Id is a retry key too: charged at B, B's
    // answer then replayed by a fresh A.
    let mut a = Replica::start(dir.path(), db);
    let first = get(b.url(CACHED), "x-request-id", "order-2.try")
        .await
        .unwrap();
    assert_eq!(
        (first.status().as_u16(), charged(&first)),
        (200, "1".into())
    );
    for replica in [&a, &b] {
        let again = get(replica.url(CACHED), "x-request-id", "order-2.try")
            .await
            .unwrap();
        assert_eq!(again.status(), 200);
        assert_eq!(charged(&again), "0");
        assert_eq!(vis_tests::header(&again, "x-request-id"), "order-2.try");
    }

    // The JSON form: the same signed URL again, charged once.
    let url_form = format!("{CACHED}&response=url");
    let minted = get(a.url(&url_form), "idempotency-key", "url-1")
        .await
        .unwrap();
    assert_eq!(charged(&minted), "1");
    let minted: Value = minted.json().await.unwrap();
    a.kill();
    let again = get(b.url(&url_form), "idempotency-key", "url-1")
        .await
        .unwrap();
    assert_eq!(charged(&again), "0");
    let again: Value = again.json().await.unwrap();
    // The same token (each replica names its own base URL).
    let path = |doc: &Value| {
        let url = doc["data"]["url"].as_str().unwrap_or_default().to_owned();
        url.split_once("/api/").map(|(_, p)| p.to_owned())
    };
    assert!(path(&minted).is_some(), "{minted}");
    assert_eq!(path(&again), path(&minted));
    assert_eq!(again["billing"]["credits_charged"], 0);

    // Twelve copies of one keyed request at once: one charge.
    let copies: Vec<_> = (0..12)
        .map(|_| {
            let sent = get(
                b.url(&CACHED.replace("w=128", "w=96")),
                "idempotency-key",
                "burst",
            );
            tokio::spawn(async move {
                let r = sent.await.unwrap();
                (
                    r.status().as_u16(),
                    vis_tests::header(&r, "x-credits-charged"),
                )
            })
        })
        .collect();
    let mut paid = 0;
    for copy in copies {
        let (status, charged) = copy.await.unwrap();
        assert_eq!(status, 200);
        paid += charged.parse::<i64>().unwrap();
    }
    assert_eq!(paid, 1, "twelve copies of one key pay once");

    let (charges, balance) = charges_and_balance(&store, "retry@example.com").await;
    assert_eq!(charges.len(), 4, "{charges:?}");
    assert_eq!(balance, 6);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_after_a_kill_are_not_paid_twice_on_postgresql() {
    if postgres_url_or_skip("retries_after_a_kill_are_not_paid_twice_on_postgresql").is_none() {
        return;
    }
    let url = fresh_postgres_database().await;
    let migrate = SqlStore::connect(&url).await.unwrap();
    migrate.migrate().await.unwrap();
    migrate.close().await;
    retries_after_a_kill_are_not_paid_twice_on(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_after_a_kill_are_not_paid_twice_on_a_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("shared.db").display()
    );
    let migrate = SqlStore::connect(&url).await.unwrap();
    migrate.migrate().await.unwrap();
    migrate.close().await;
    retries_after_a_kill_are_not_paid_twice_on(&url).await;
}
