//! A model test of the ledger port (docs/ledger.md), on SQLite and on
//! PostgreSQL: random sequences of concurrent image charges, signed-URL
//! mints, refunds, grants, adjustments, key revocations and transactions
//! abandoned before their commit, each checked against a model of the
//! balances; at every step the stored balance must equal the model's and
//! the sum of the account's ledger.
//!
//! PostgreSQL comes from `VIS_TEST_POSTGRES_URL` (infra/test.sh starts
//! one); without it the PostgreSQL run fails unless VIS_TEST_SKIP_POSTGRES=1.

use std::collections::HashMap;
use std::sync::Arc;

use crate::store_conformance::new_url;
use control_plane::billing::Ledger;
use control_plane::config::{BillingConfig, Secret};
use control_plane::store::{
    CreditStore, DeliveryStore, EntryKind, KeyStore, LedgerStore, NewDelivery, NewDeliveryUrl,
    NewEntry, NewKey, Payer, SqlStore, StoreError, abandon_write,
};

/// A small deterministic generator (xorshift64*): the same seed replays the
/// same sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Payee {
    account: String,
    keys: Vec<(String, bool)>,
}

fn delivery(request_id: String, account: &str, key: &str) -> NewDelivery {
    NewDelivery {
        request_id,
        account_id: account.to_owned(),
        key_id: Some(key.to_owned()),
        variant: "toyota/camry/2019/red/side".into(),
        revision: 1,
        width: 256,
        height: 171,
        format: "webp".into(),
        source: "cache",
        credits: 1,
    }
}

/// The sum of an account's ledger entries.
pub(crate) async fn ledger_sum(store: &SqlStore, account: &str) -> i64 {
    store
        .entries(account, 1_000_000)
        .await
        .unwrap()
        .iter()
        .map(|e| e.delta)
        .sum()
}

async fn check_balances(store: &SqlStore, payees: &[Payee], model: &HashMap<String, i64>) {
    for p in payees {
        let stored = store.balance(&p.account).await.unwrap().unwrap();
        let sum = ledger_sum(store, &p.account).await;
        assert_eq!(stored, model[&p.account], "balance against the model");
        assert_eq!(sum, stored, "the balance is the sum of the ledger");
    }
}

async fn run_model(url_of_db: &str, seed: u64, steps: usize) {
    let store = SqlStore::connect(url_of_db).await.unwrap();
    store.migrate().await.unwrap();
    let shared: Arc<dyn CreditStore> = Arc::new(store.clone());
    let ledger = Ledger::start(
        shared,
        &Secret::new(url_of_db.to_owned()),
        &BillingConfig::default(),
    )
    .await
    .unwrap();
    let mut rng = Rng(seed);
    let mut model: HashMap<String, i64> = HashMap::new();
    let mut payees = Vec::new();
    for a in 0..3 {
        let opening = 5 + 10 * a;
        let account = store
            .create_account(&format!("model{a}-{seed}@example.com"), opening)
            .await
            .unwrap();
        let mut keys = Vec::new();
        for k in 0..2 {
            let key = store
                .create_key(NewKey {
                    account_id: account.id.clone(),
                    name: format!("k{k}"),
                    display_prefix: format!("vis_m{a}{k}"),
                    key_hash: format!("model-{seed}-{a}-{k}"),
                    scopes: "images:read".into(),
                    rate_limit_per_minute: 60,
                })
                .await
                .unwrap();
            keys.push((key.id, true));
        }
        model.insert(account.id.clone(), opening);
        payees.push(Payee {
            account: account.id,
            keys,
        });
    }
    let mut charges: Vec<(i64, String, bool)> = Vec::new();
    let mut ids = 0u64;
    let mut next_id = |prefix: &str| {
        ids += 1;
        format!("{prefix}-{seed}-{ids}")
    };
    for _ in 0..steps {
        let p = rng.below(payees.len() as u64) as usize;
        let account = payees[p].account.clone();
        let k = rng.below(2) as usize;
        let (key, live) = payees[p].keys[k].clone();
        match rng.below(7) {
            // Concurrent image charges on one account: exactly as many as
            // the balance covers are charged, or none with a revoked key.
            0 | 1 => {
                let n = 1 + rng.below(12) as usize;
                let tasks: Vec<_> = (0..n)
                    .map(|_| {
                        let ledger = ledger.clone();
                        let d = delivery(next_id("req"), &account, &key);
                        let request_id = d.request_id.clone();
                        tokio::spawn(async move { (request_id, ledger.charge(d).await) })
                    })
                    .collect();
                let before = model[&account];
                let mut charged = 0;
                let mut afters = Vec::new();
                for t in tasks {
                    let (request_id, outcome) = t.await.unwrap();
                    match outcome {
                        Ok(after) => {
                            assert!(live, "a revoked key is never billed");
                            charged += 1;
                            afters.push(after);
                            charges.push((0, request_id, false));
                        }
                        Err(StoreError::KeyRevoked) => assert!(!live),
                        Err(StoreError::InsufficientCredits { .. }) => assert!(live),
                        Err(e) => panic!("unexpected {e:?}"),
                    }
                }
                let expected = if live { (n as i64).min(before) } else { 0 };
                assert_eq!(charged, expected, "charged what the balance covers");
                afters.sort_unstable();
                let want: Vec<i64> = (before - charged..before).collect();
                assert_eq!(afters, want, "each charge reports its own balance after");
                *model.get_mut(&account).unwrap() -= charged;
            }
            // A signed-URL mint of 1–4 URLs: one debit of their number.
            2 => {
                let n = 1 + rng.below(4) as usize;
                let urls: Vec<NewDeliveryUrl> =
                    (0..n).map(|_| new_url(&next_id("url"), 0)).collect();
                let request_id = next_id("mint");
                let payer = Payer {
                    account_id: &account,
                    key_id: &key,
                    request_id: &request_id,
                };
                let before = model[&account];
                match ledger.mint(payer, &urls, None).await {
                    Ok(after) => {
                        assert!(live && before >= n as i64);
                        assert_eq!(after, before - n as i64);
                        *model.get_mut(&account).unwrap() = after;
                    }
                    Err(StoreError::KeyRevoked) => assert!(!live),
                    Err(StoreError::InsufficientCredits { balance, required }) => {
                        assert!(live);
                        assert_eq!((balance, required), (before, n as i64));
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            // A refund of an earlier image charge: once.
            3 if !charges.is_empty() => {
                let i = rng.below(charges.len() as u64) as usize;
                let record = store
                    .delivery_by_request_id(&charges[i].1)
                    .await
                    .unwrap()
                    .expect("every Ok charge has its row");
                let owner = record.account_id.clone();
                let refunded = ledger
                    .refund_delivery(record.id, "model refund")
                    .await
                    .unwrap();
                if charges[i].2 {
                    assert_eq!(refunded, None, "refunded once");
                } else {
                    let after = model[&owner] + 1;
                    assert_eq!(refunded, Some(after));
                    *model.get_mut(&owner).unwrap() = after;
                    charges[i].2 = true;
                }
            }
            // A grant, or an adjustment that may not overdraw.
            4 => {
                let delta = rng.below(7) as i64 - 3;
                if delta == 0 {
                    continue;
                }
                let kind = if delta > 0 {
                    EntryKind::Grant
                } else {
                    EntryKind::Adjustment
                };
                let entry = NewEntry {
                    kind,
                    delta,
                    reason: "model",
                    reference: None,
                };
                let before = model[&account];
                match ledger.post(&account, entry).await {
                    Ok(e) => {
                        assert_eq!(e.balance_after, before + delta);
                        *model.get_mut(&account).unwrap() = e.balance_after;
                    }
                    Err(StoreError::InsufficientCredits { .. }) => assert!(before + delta < 0),
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            // A revocation (rarely; the key stays revoked).
            5 if rng.below(4) == 0 && live => {
                assert!(store.revoke_key(&key).await.unwrap());
                payees[p].keys[k].1 = false;
            }
            // A transaction that debits and writes a charge row, then dies
            // before its commit: nothing of it may remain.
            6 => {
                abandoned_charge(&store, &account).await;
            }
            _ => {}
        }
        check_balances(&store, &payees, &model).await;
    }
    // Every charge that answered Ok has exactly one row.
    for (_, request_id, _) in &charges {
        assert!(
            store
                .delivery_by_request_id(request_id)
                .await
                .unwrap()
                .is_some()
        );
    }
    store.close().await;
}

/// What a charge transaction writes, without its commit. `account` is a
/// UUID the store generated.
async fn abandoned_charge(store: &SqlStore, account: &str) {
    abandon_write(
        store,
        &[
            format!("UPDATE accounts SET balance = balance - 1 WHERE id = '{account}' AND balance >= 1"),
            format!(
                "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) \
                 VALUES ('{account}', 'charge', -1, 0, 'abandoned', NULL, 0)"
            ),
        ],
    )
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_matches_its_model_on_sqlite() {
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let url = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("model.db").display()
        );
        run_model(&url, seed, 120).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_matches_its_model_on_postgresql() {
    if vis_tests::postgres_url_or_skip("the_ledger_matches_its_model_on_postgresql").is_none() {
        return;
    }
    for seed in [1, 2, 3] {
        let url = vis_tests::fresh_postgres_database().await;
        run_model(&url, seed, 120).await;
    }
}

/// The PostgreSQL charge writer owns its connections (docs/ledger.md): when
/// the database drops one (a restart, a failover, an operator's
/// `pg_terminate_backend`), at most the batch in flight on it fails, charging
/// nothing, and the next batch opens a new connection and is charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_writer_reconnects_after_losing_its_connection() {
    if vis_tests::postgres_url_or_skip("the_postgres_writer_reconnects_after_losing_its_connection")
        .is_none()
    {
        return;
    }
    let url = vis_tests::fresh_postgres_database().await;
    let store = SqlStore::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    let shared: Arc<dyn CreditStore> = Arc::new(store.clone());
    let ledger = Ledger::start(shared, &Secret::new(url.clone()), &BillingConfig::default())
        .await
        .unwrap();
    let account = store
        .create_account("reconnect@example.com", 10)
        .await
        .unwrap();
    let key = store
        .create_key(NewKey {
            account_id: account.id.clone(),
            name: "k".into(),
            display_prefix: "vis_rc".into(),
            key_hash: "reconnect-key".into(),
            scopes: "images:read".into(),
            rate_limit_per_minute: 60,
        })
        .await
        .unwrap();
    let charge = |n: u32| ledger.charge(delivery(format!("rc-{n}"), &account.id, &key.id));
    assert_eq!(charge(0).await.unwrap(), 9);

    // Every other session on this database, the writer's included, is cut.
    let admin = SqlStore::connect(&url).await.unwrap();
    control_plane::store::execute_raw(
        &admin,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .await
    .unwrap();
    admin.close().await;

    let mut charged = 1;
    let mut failed = 0;
    for n in 1..=3 {
        match charge(n).await {
            Ok(balance) => {
                charged += 1;
                assert_eq!(balance, 10 - charged, "each charge is exact");
            }
            Err(e) => {
                failed += 1;
                assert!(
                    matches!(e, StoreError::Database(_) | StoreError::Unavailable(_)),
                    "a lost connection is a database fault, not {e:?}"
                );
            }
        }
    }
    assert!(failed <= 1, "only the batch on the lost connection fails");
    assert_eq!(charged, 4 - failed);
    let stored = store.balance(&account.id).await.unwrap().unwrap();
    assert_eq!(stored, 10 - charged, "a failed charge charged nothing");
    assert_eq!(
        ledger_sum(&store, &account.id).await,
        stored,
        "the balance is the sum of the ledger"
    );
}
