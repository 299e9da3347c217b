//! Delivery charges on a SQLite file:
//! - `ledger/charge_batch`: one group-committed transaction of 1, 8, 32 or
//!   128 charges through the store (the ledger writer thread), the way
//!   charges reach it with held charges off;
//! - `ledger/held_charge`: one held charge as a request makes it (key
//!   check, hold, journal line), the settler running beside it;
//! - `ledger/settle`: moving 1,000 journalled charges into the ledger in one
//!   transaction on the writer thread.
//!
//! Run: `cargo bench -p control-plane --bench ledger`; results in docs/benchmarks.md.

use std::hint::black_box;

use std::sync::Arc;

use control_plane::billing::holds::HeldLedger;
use control_plane::store::{
    AccountStore, DeliveryStore, HeldCharge, NewDelivery, NewKey, SqlStore, Store, time_ordered_id,
};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn deliveries(account_id: &str, n: usize) -> Vec<NewDelivery> {
    (0..n)
        .map(|_| NewDelivery {
            request_id: format!("req_{}", time_ordered_id().simple()),
            account_id: account_id.to_owned(),
            key_id: None,
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

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("bench.db").display()
    );
    let (store, account) = rt.block_on(async {
        let store = SqlStore::connect(&url).await.expect("connect");
        store.migrate().await.expect("migrate");
        let account = store
            .create_account("bench@example.com", i64::MAX / 2)
            .await
            .expect("account");
        (store, account)
    });
    let mut group = c.benchmark_group("ledger/charge_batch");
    for n in [1usize, 8, 32, 128] {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || deliveries(&account.id, n),
                |batch| {
                    let outcomes = rt
                        .block_on(store.charge_deliveries(batch))
                        .expect("batch commits");
                    assert!(outcomes.iter().all(Result::is_ok));
                    black_box(outcomes)
                },
                criterion::BatchSize::SmallInput,
            );
        });
    }
    group.finish();

    let store: Arc<dyn Store> = Arc::new(store);
    let key = rt
        .block_on(store.create_key(NewKey {
            account_id: account.id.clone(),
            name: "bench".into(),
            display_prefix: "vis_bench".into(),
            key_hash: "b".repeat(64),
            scopes: "images:read".into(),
            rate_limit_per_minute: 120,
        }))
        .expect("key");
    let ledger = rt
        .block_on(HeldLedger::start(
            Arc::clone(&store),
            std::time::Duration::from_millis(20),
        ))
        .expect("held ledger")
        .expect("a SQLite file keeps journals");
    let mut group = c.benchmark_group("ledger/held_charge");
    group.throughput(Throughput::Elements(1));
    group.bench_function("one", |b| {
        b.iter_batched(
            || {
                let mut d = deliveries(&account.id, 1).remove(0);
                d.key_id = Some(key.id.clone());
                d
            },
            |d| black_box(rt.block_on(ledger.charge(d)).expect("charged")),
            criterion::BatchSize::SmallInput,
        );
    });
    group.finish();
    rt.block_on(ledger.shutdown());

    let owner = "bench-settle";
    let mut group = c.benchmark_group("ledger/settle");
    group.throughput(Throughput::Elements(1000));
    let mut seq = 0;
    group.bench_function("1000", |b| {
        b.iter_batched(
            || {
                rt.block_on(store.take_hold(owner, &account.id, 1000))
                    .expect("hold");
                deliveries(&account.id, 1000)
                    .into_iter()
                    .map(|delivery| {
                        seq += 1;
                        HeldCharge {
                            seq,
                            created_at: 0,
                            delivery,
                        }
                    })
                    .collect::<Vec<_>>()
            },
            |charges| {
                let last = charges.last().map_or(0, |c| c.seq);
                black_box(
                    rt.block_on(store.settle_held(owner, charges.into(), last))
                        .expect("settled"),
                )
            },
            criterion::BatchSize::SmallInput,
        );
    });
    group.finish();
    rt.block_on(store.retire_owner(owner)).expect("retire");
}

criterion_group!(benches, bench);
criterion_main!(benches);
