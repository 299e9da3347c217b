//! The ledger's charge path, on a SQLite file and, when
//! `VIS_BENCH_POSTGRES_URL` names a database, on PostgreSQL:
//! - `ledger/<db>/charge_batch`: one group-committed transaction of 1, 8,
//!   32 or 128 charges through the store, as the collector writes them;
//! - `ledger/<db>/charge`: one charge through `Ledger::charge` (collector,
//!   commit, reply), alone;
//! - `ledger/<db>/writer_accounts`: a batch of 32 charges through the ledger
//!   thread's writer (a `ChargeWriter`, the path `Ledger::charge` takes), spread
//!   over 1, 8 or 32 accounts.
//!
//! Run: `cargo bench -p control-plane --bench ledger`; results in docs/benchmarks.md.

use std::hint::black_box;
use std::sync::Arc;

use control_plane::billing::Ledger;
use control_plane::config::{BillingConfig, Secret};
use control_plane::store::{CreditStore, KeyStore, NewDelivery, NewKey, SqlStore, time_ordered_id};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn deliveries(account_id: &str, key_id: &str, n: usize) -> Vec<NewDelivery> {
    (0..n)
        .map(|_| NewDelivery {
            request_id: format!("req_{}", time_ordered_id().simple()),
            account_id: account_id.to_owned(),
            key_id: Some(key_id.to_owned()),
            variant: "toyota/camry/2019/red/side".into(),
            revision: 1,
            width: 512,
            height: 341,
            format: "webp".into(),
            source: "cache",
            credits: 1,
        })
        .collect()
}

/// A new account with credits to spare and a key: (account id, key id).
async fn payer(store: &SqlStore) -> (String, String) {
    let email = format!("bench-{}@example.com", time_ordered_id().simple());
    let account = store
        .create_account(&email, i64::MAX / 2)
        .await
        .expect("account");
    let key = store
        .create_key(NewKey {
            account_id: account.id.clone(),
            name: "bench".into(),
            display_prefix: "vis_bench".into(),
            key_hash: time_ordered_id().simple().to_string(),
            scopes: "images:read".into(),
            rate_limit_per_minute: 120,
        })
        .await
        .expect("key");
    (account.id, key.id)
}

fn bench_db(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, url: &str) {
    let (store, account, key) = rt.block_on(async {
        let store = SqlStore::connect(url).await.expect("connect");
        store.migrate().await.expect("migrate");
        let (account, key) = payer(&store).await;
        (store, account, key)
    });
    let mut group = c.benchmark_group(format!("ledger/{name}/charge_batch"));
    for n in [1usize, 8, 32, 128] {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || deliveries(&account, &key, n),
                |batch| {
                    let outcomes = rt
                        .block_on(CreditStore::charge_deliveries(&store, batch))
                        .expect("batch commits");
                    assert!(outcomes.iter().all(Result::is_ok));
                    black_box(outcomes)
                },
                criterion::BatchSize::SmallInput,
            );
        });
    }
    group.finish();

    let store: Arc<dyn CreditStore> = Arc::new(store);
    let ledger = rt
        .block_on(Ledger::start(
            Arc::clone(&store),
            &Secret::new(url.to_owned()),
            &BillingConfig::default(),
        ))
        .expect("ledger");
    let mut group = c.benchmark_group(format!("ledger/{name}/charge"));
    group.throughput(Throughput::Elements(1));
    group.bench_function("one", |b| {
        b.iter_batched(
            || deliveries(&account, &key, 1).remove(0),
            |d| black_box(rt.block_on(ledger.charge(d)).expect("charged")),
            criterion::BatchSize::SmallInput,
        );
    });
    group.finish();

    let (writer, payers) = rt.block_on(async {
        let writer = control_plane::store::open_charge_writer(url, 1)
            .await
            .expect("writer");
        let mut payers = Vec::new();
        for _ in 0..32 {
            payers.push(payer(&store_of(url).await).await);
        }
        (writer, payers)
    });
    let mut group = c.benchmark_group(format!("ledger/{name}/writer_accounts"));
    group.throughput(Throughput::Elements(32));
    for accounts in [1usize, 8, 32] {
        group.bench_with_input(
            BenchmarkId::from_parameter(accounts),
            &accounts,
            |b, &accounts| {
                b.iter_batched(
                    || {
                        (0..32)
                            .flat_map(|i| {
                                let (account, key) = &payers[i % accounts];
                                deliveries(account, key, 1)
                            })
                            .collect::<Vec<_>>()
                    },
                    |batch| {
                        let outcomes = rt
                            .block_on(writer.charge_deliveries(batch))
                            .expect("batch commits");
                        assert!(outcomes.iter().all(Result::is_ok));
                        black_box(outcomes)
                    },
                    criterion::BatchSize::SmallInput,
                );
            },
        );
    }
    group.finish();
}

async fn store_of(url: &str) -> SqlStore {
    SqlStore::connect(url).await.expect("connect")
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("bench.db").display()
    );
    bench_db(c, &rt, "sqlite", &url);
    if let Ok(url) = std::env::var("VIS_BENCH_POSTGRES_URL") {
        bench_db(c, &rt, "postgres", &url);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
