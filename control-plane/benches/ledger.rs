//! Group-committed delivery charges on a SQLite file: one transaction of
//! 1, 8, 32 or 128 charges through the store (the ledger writer thread), the
//! way the image endpoint's charges reach it.
//! Run: `cargo bench -p control-plane --bench ledger`; results in docs/benchmarks.md.

use std::hint::black_box;

use control_plane::store::{AccountStore, DeliveryStore, NewDelivery, SqlStore, time_ordered_id};
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
