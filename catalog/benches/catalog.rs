//! Catalog load, search and resolve over the full embedded catalog.
//! Run: `cargo bench -p vis-catalog --bench catalog`; results in docs/benchmarks.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use vis_catalog::{CATALOG_JSON, Catalog, ResolveInput, resolve};

const SEARCHES: &[&str] = &[
    "camry",
    "toyta camry",
    "mercedes benz c class",
    "f-150",
    "chevy silverado",
    "model 3",
    "ybertruc",
    "zzqxv nothing",
];

const RESOLVES: &[&str] = &[
    "2019 Toyota Camry",
    "red 2019 toyta camry from behind",
    "mercedes benz c class 2018 side profile navy",
    "I want a picture of a 2020 ford f-150 in dark blue, passenger side",
    "tesla model 3 2021 white 512px webp",
    "asdfghjkl qwerty",
];

fn bench(c: &mut Criterion) {
    c.bench_function("catalog/load", |b| {
        b.iter(|| Catalog::from_json(black_box(CATALOG_JSON)).map(|c| c.stats()))
    });
    let cat = Catalog::embedded();
    for q in SEARCHES {
        c.bench_function(&format!("search/{q}"), |b| {
            b.iter(|| cat.search(black_box(q), None, 10))
        });
    }
    for q in RESOLVES {
        c.bench_function(&format!("resolve/{q}"), |b| {
            b.iter(|| {
                resolve(
                    cat,
                    ResolveInput {
                        query: black_box(q),
                        ..Default::default()
                    },
                )
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
