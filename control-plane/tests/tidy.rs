//! Tidy checks over the control plane's own source, in the spirit of
//! rust-analyzer's tidy test: rules a reader relies on when finding their
//! way (ARCHITECTURE.md, "Invariants"), checked on every test run so they
//! cannot drift. Each reads `src/` as text (comments stripped) and names
//! the file that breaks a rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, as (path relative to `src/`, code
/// without comments).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a source file");
            let rel = path
                .strip_prefix(&root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, strip_comments(&text))
        })
        .collect()
}

/// The code of a file without `//` comments (doc comments included); a
/// `//` inside a string literal on the same line is rare enough here that
/// it is cut too, which can only hide code, never invent it.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level module a file belongs to (`http/images.rs` -> `http`).
fn module_of(path: &str) -> &str {
    let first = path.split('/').next().unwrap_or(path);
    first.strip_suffix(".rs").unwrap_or(first)
}

fn under(path: &str, dirs: &[&str]) -> bool {
    dirs.iter()
        .any(|d| path == format!("{d}.rs") || path.starts_with(&format!("{d}/")))
}

/// Whether `code` uses the crate `name` (a path that starts with it).
fn uses_crate(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(&format!("{name}::"))
        .any(|(at, _)| at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'))
}

#[test]
fn the_ledger_is_the_only_door_for_credits() {
    // `CreditStore` holds every write that moves credits or a balance. It
    // is not part of `Store`; only the ledger holds it (app.rs builds it),
    // so no handler, MCP tool or command can move a credit around the
    // ledger: calling its methods needs the trait's name in scope.
    let allowed = ["store", "billing", "app"];
    let mut offenders = Vec::new();
    for (path, code) in sources() {
        if code.contains("CreditStore") && !under(&path, &allowed) {
            offenders.push(path);
        }
    }
    assert!(
        offenders.is_empty(),
        "only billing::Ledger may hold the CreditStore (route the write through the ledger): {offenders:?}"
    );
    // The statements that write a balance or a ledger row live in the
    // store's credit adapter files, and nowhere else.
    let writers = [
        "store/sql.rs",
        "store/sql/charges.rs",
        "store/sql/pg_ledger.rs",
    ];
    for (path, code) in sources() {
        let lower = code.to_ascii_lowercase();
        let writes = lower.contains("insert into ledger")
            || lower.contains("update accounts set balance")
            || lower.contains("update accounts a set balance");
        assert!(
            !writes || writers.contains(&path.as_str()),
            "{path} writes a balance or a ledger row; only the credit adapter ({writers:?}) may"
        );
    }
    // One conditional debit: every balance update is the one statement.
    let (_, charges) = sources()
        .into_iter()
        .find(|(p, _)| p == "store/sql/charges.rs")
        .expect("charges.rs");
    assert_eq!(
        charges.matches("UPDATE accounts SET balance").count(),
        1,
        "one text for the conditional debit"
    );
}

/// Whether `code` names the trait `Store` (the union of every port):
/// `dyn Store`, `impl Store`, a `store::Store` path, or `Store` in a
/// `use crate::store::{...}` list. `StoreError` and an enum variant
/// called `Store` are other names.
fn names_the_store_union(code: &str) -> bool {
    let whole = |text: &str, word: &str| {
        let bytes = text.as_bytes();
        text.match_indices(word).any(|(at, _)| {
            let end = at + word.len();
            end == text.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_')
        })
    };
    if ["dyn Store", "impl Store", "store::Store"]
        .iter()
        .any(|w| whole(code, w))
    {
        return true;
    }
    code.match_indices("use crate::store::{").any(|(at, open)| {
        let list = &code[at + open.len()..];
        let list = &list[..list.find("};").unwrap_or(list.len())];
        list.split([',', '{', '}'])
            .any(|item| item.trim() == "Store")
    })
}

#[test]
fn services_take_narrow_ports_not_the_whole_store() {
    // Each service names the store traits it uses (`renders::RenderStore`,
    // `prewarm::PrewarmPorts`, `DeliveryUrlStore`, ...); the union `Store`
    // belongs to the composition root and the adapters that expose the
    // whole state (HTTP, CLI).
    let allowed = ["store", "app", "http", "cli"];
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|(path, code)| names_the_store_union(code) && !under(path, &allowed))
        .map(|(path, _)| path)
        .collect();
    assert!(
        offenders.is_empty(),
        "take the store traits the service uses, not `Store`: {offenders:?}"
    );
    // The rule itself: it sees each way of naming the union, and not the
    // names beside it.
    assert!(names_the_store_union("fn f(s: &dyn Store) {}"));
    assert!(names_the_store_union(
        "use crate::store::{JobStore, Store, StoreError};"
    ));
    assert!(names_the_store_union("fn f(s: &crate::store::Store) {}"));
    assert!(!names_the_store_union(
        "use crate::store::{JobStore, StoreError};"
    ));
    assert!(!names_the_store_union(
        "enum E { Store(#[from] StoreError) }"
    ));
    assert!(!names_the_store_union("fn f(s: &dyn JobStore) {}"));
}

#[test]
fn sqlx_stays_in_the_store() {
    for (path, code) in sources() {
        assert!(
            !uses_crate(&code, "sqlx") || under(&path, &["store"]),
            "{path} uses sqlx; SQL belongs in store/"
        );
    }
}

#[test]
fn axum_stays_in_http() {
    for (path, code) in sources() {
        for web in ["axum", "tower_http", "rmcp"] {
            assert!(
                !uses_crate(&code, web) || under(&path, &["http"]),
                "{path} uses {web}; the web face belongs in http/"
            );
        }
    }
}

/// The module graph: for each top-level module, the modules it names as
/// `crate::X`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, code) in sources() {
        let from = module_of(&path).to_owned();
        if from == "main" {
            continue;
        }
        let entry = graph.entry(from.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != from {
                entry.insert(name);
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (cycles).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    // Two modules are in one cycle when each reaches the other.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out = BTreeSet::new();
    for m in graph.keys() {
        let mut component: Vec<String> = graph
            .keys()
            .filter(|o| *o == m || (reaches[m].contains(*o) && reaches[*o].contains(m.as_str())))
            .cloned()
            .collect();
        component.sort();
        if component.len() > 1 {
            out.insert(component);
        }
    }
    out
}

/// The layers, top first: a module may import only modules of lower
/// layers (or of its own). Every top-level module is in one.
const LAYERS: [&[&str]; 6] = [
    &["cli"],
    &["http"],
    &["app"],
    &[
        "billing",
        "delivery",
        "embeds",
        "events",
        "payments",
        "people",
        "prewarm",
        "ratelimit",
        "renders",
        "revocations",
    ],
    &["store", "objects", "metrics", "memory"],
    &["auth", "config", "limits"],
];

#[test]
fn each_module_imports_only_lower_layers() {
    let graph = module_graph();
    let layer_of = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    for (module, deps) in &graph {
        if module == "lib" {
            continue;
        }
        let Some(mine) = layer_of(module) else {
            panic!("{module} is in no layer: add it to LAYERS (and ARCHITECTURE.md)");
        };
        for dep in deps {
            let Some(theirs) = layer_of(dep) else {
                continue;
            };
            assert!(
                theirs >= mine,
                "{module} imports {dep}, a higher layer (LAYERS)"
            );
        }
    }
}

#[test]
fn no_import_cycles_and_the_store_is_the_bottom() {
    let graph = module_graph();
    // The store imports only leaf helpers (no service, no HTTP).
    let store_deps = &graph["store"];
    let allowed: BTreeSet<String> = ["auth", "config"].iter().map(|s| s.to_string()).collect();
    let extra: Vec<_> = store_deps.difference(&allowed).collect();
    assert!(
        extra.is_empty(),
        "store/ imports {extra:?}; it is the bottom layer"
    );
    let found = cycles(&graph);
    assert!(found.is_empty(), "module import cycles: {found:?}");
}

#[test]
fn the_render_node_has_no_database_driver() {
    // ARCHITECTURE.md: render-node never touches the database; it gets a
    // RenderJob and returns pixels. No driver in its dependencies proves it.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../render-node/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("render-node/Cargo.toml");
    for driver in ["sqlx", "rusqlite", "postgres", "diesel", "sea-orm"] {
        assert!(
            !text
                .lines()
                .any(|l| l.trim_start().starts_with(driver) && l.contains('=')),
            "render-node depends on {driver}; the control plane owns the database"
        );
    }
}
