//! The benchmark behind `infra/bench-history.sh` (docs/benchmarks.md,
//! "History: cost as data grows"): the real app on a database, each read
//! path that history could slow timed on the empty database, again after
//! a day of history is seeded into it, and again after the 364 days before
//! that day are seeded too (a year).
//!
//! Timed (medians of `--iterations` calls, after 3 unmeasured):
//! - `GET /api/v1/account` (its `usage_30d`), with a key;
//! - `GET /dashboard` and `GET /dashboard/operator.json`, with the session
//!   cookie of a person who signed up through the form (an operator);
//! - `GET /metrics`;
//! - `control-plane status --json`, the operator command, in process;
//! - a cold admission's reads: `live_job` (a miss), `job_counts`, the
//!   budget setting and today's use (what `renders::admit` reads before it
//!   writes);
//! - `prewarm --top 1000`'s selection read, `top_variants` over 30 days
//!   (the rest of the command renders and does not read history); its first
//!   call after the seed, which rolls the seeded ledger up, is printed
//!   apart;
//! - `control-plane prewarm --top 1000 --dry-run --json`, the operator
//!   command in process, as `status` is: its store opened, the selection
//!   read, expanded through the catalog and printed, nothing queued.
//!
//! Why a day: an empty database answers some paths with nothing (no
//! variants to rank, no nodes' durations to report), so its time is the
//! cost of an empty answer. The day holds the year's last day exactly
//! (today's jobs on the same four nodes, the day's charges over the same
//! skewed variants), so its answers are the year's in size: year / day is
//! what history itself costs. Both ratios are printed.
//!
//! The seed (one transaction, set-based, with the migrations' indexes and
//! triggers in place): 10,000 accounts (the bench's two among them), 10
//! million ledger rows over the last 365 days (charges of skewed catalog
//! variants,
//! 1% refunded), 2 million render jobs over the same year (2% failed, four
//! nodes), as a day (1/365 of each, dated over the last 24 hours) and then
//! the rest over the 364 days before it. Sizes are flags.
//!
//! Usage: bench-history DATA_DIR [--database-url URL] [--iterations N]
//! [--ledger-rows N] [--accounts N] [--jobs N]. Prints one line per path:
//! `name | empty | a day | a year | year/day | year/empty` (ms).

use std::time::{Duration, Instant};

use clap::Parser;
use control_plane::store::{SqlStore, execute_raw, now_millis};
use control_plane::{App, Config};

#[derive(Parser)]
struct Args {
    data_dir: std::path::PathBuf,
    /// The database (default: the SQLite file in DATA_DIR).
    #[arg(long)]
    database_url: Option<String>,
    #[arg(long, default_value_t = 30)]
    iterations: usize,
    #[arg(long, default_value_t = 10_000_000)]
    ledger_rows: i64,
    #[arg(long, default_value_t = 10_000)]
    accounts: i64,
    #[arg(long, default_value_t = 2_000_000)]
    jobs: i64,
}

const DAY_MS: i64 = 86_400_000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(&args.data_dir)?;
    let mut config = Config::for_tests(&args.data_dir);
    if let Some(url) = &args.database_url {
        config.database_url = control_plane::config::Secret::new(url.clone());
    }
    let url = config.database_url.expose().to_owned();
    let app = App::build(config.clone()).await?;
    let base = app.base_url().to_owned();
    let state = app.state().clone();
    let server = tokio::spawn(app.run());

    let cli = |args: Vec<String>| {
        let mut argv = vec![
            "control-plane".to_owned(),
            "--data-dir".into(),
            config.data_dir.display().to_string(),
            "--database-url".into(),
            url.clone(),
        ];
        argv.extend(args);
        control_plane::cli::run(<control_plane::cli::Cli as Parser>::parse_from(argv))
    };
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    cli(s(&[
        "accounts",
        "create",
        "--email",
        "bench-key@example.com",
    ]))
    .await?;
    let out = cli(s(&[
        "--json",
        "keys",
        "create",
        "--email",
        "bench-key@example.com",
        "--scopes",
        "account:read",
        "--rate-limit",
        "1000000",
    ]))
    .await?;
    let v: serde_json::Value = serde_json::from_str(out.trim())?;
    let key = v["key"].as_str().expect("key").to_owned();

    let client = vis_tests::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let session = sign_up(&client, &base, "bench-person@example.com").await?;
    cli(s(&[
        "accounts",
        "operator",
        "--email",
        "bench-person@example.com",
    ]))
    .await?;

    let store = state.store.clone();
    let person = store
        .account_by_email("bench-person@example.com")
        .await?
        .expect("person");
    let keyed = store
        .account_by_email("bench-key@example.com")
        .await?
        .expect("key account");

    let measure = |label: &'static str| {
        let client = client.clone();
        let base = base.clone();
        let key = key.clone();
        let session = session.clone();
        let store = store.clone();
        let cli = &cli;
        let n = args.iterations;
        async move {
            let mut rows: Vec<(&str, f64)> = Vec::new();
            let get = |path: &'static str, auth: Option<(&'static str, String)>| {
                let client = client.clone();
                let url = format!("{base}{path}");
                async move {
                    let mut r = client.get(&url);
                    if let Some((h, v)) = auth {
                        r = r.header(h, v);
                    }
                    let resp = r.send().await.expect("request");
                    assert!(resp.status().is_success(), "{url}: {}", resp.status());
                    resp.bytes().await.expect("body");
                }
            };
            let bearer = ("authorization", format!("Bearer {key}"));
            let cookie = ("cookie", session.clone());
            rows.push((
                "GET /api/v1/account",
                median(n, || get("/api/v1/account", Some(bearer.clone()))).await,
            ));
            rows.push((
                "GET /dashboard",
                median(n, || get("/dashboard", Some(cookie.clone()))).await,
            ));
            rows.push((
                "GET /dashboard/operator.json",
                median(n, || get("/dashboard/operator.json", Some(cookie.clone()))).await,
            ));
            rows.push(("GET /metrics", median(n, || get("/metrics", None)).await));
            rows.push((
                "control-plane status --json",
                median(n, || async {
                    cli(vec!["--json".into(), "status".into()])
                        .await
                        .expect("status");
                })
                .await,
            ));
            rows.push((
                "cold admission reads",
                median(n, || async {
                    let day = control_plane::store::utc_day_of(now_millis());
                    store
                        .live_job("bench/none/2020/red/front", 1)
                        .await
                        .unwrap();
                    store.job_counts().await.unwrap();
                    store.setting("daily_budget").await.unwrap();
                    store.budget_used(&day).await.unwrap();
                })
                .await,
            ));
            rows.push((
                "prewarm --top 1000 (top_variants, 30 days)",
                median(n, || async {
                    store
                        .top_variants(now_millis() - 30 * DAY_MS, 1000)
                        .await
                        .unwrap();
                })
                .await,
            ));
            rows.push((
                "control-plane prewarm --top 1000 --dry-run --json",
                median(n, || async {
                    // An empty database ranks nothing: the command reads
                    // the same and refuses the empty selection.
                    match cli(s(&["--json", "prewarm", "--top", "1000", "--dry-run"])).await {
                        Ok(out) => {
                            // Every rank is a catalog variant (`variant_sql`).
                            let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
                            assert_eq!(plan["total"], 1000, "{label}: a day of fewer distinct variants (a small --ledger-rows) ranks fewer");
                        }
                        Err(control_plane::cli::CliError::Usage(m)) if label == "empty" => {
                            assert!(m.starts_with("--top: no variant"), "{m}");
                        }
                        Err(e) => panic!("prewarm --dry-run: {e:?}"),
                    }
                })
                .await,
            ));
            eprintln!("measured: {label}");
            rows
        }
    };

    let empty = measure("empty").await;

    let seeder = SqlStore::connect(&url).await?;
    let sqlite = url.starts_with("sqlite:");
    let seed = |part: Part| {
        let seeder = &seeder;
        let sql = seed_sql(sqlite, &args, &person.id, &keyed.id, part);
        async move {
            let started = Instant::now();
            execute_raw(seeder, &sql).await?;
            if !sqlite {
                // What autovacuum does after a load this size, done before
                // measuring rather than during it (an insert-triggered
                // vacuum of the 10 million rows slowed every path of the
                // year's measure on two cores).
                execute_raw(seeder, "VACUUM ANALYZE").await?;
            } else {
                // The seed is one transaction of gigabytes, which leaves a
                // write-ahead log as large as the database: every read then
                // searches its index. A service writing the same rows over a
                // year checkpoints every 1,000 pages (SQLite's
                // autocheckpoint) and restarts the log, so the year is
                // measured as it would stand: checkpointed.
                execute_raw(seeder, "PRAGMA wal_checkpoint(TRUNCATE)").await?;
            }
            eprintln!(
                "seeded {part:?} in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            anyhow::Ok(())
        }
    };
    seed(Part::Day).await?;
    store.top_variants(now_millis() - 30 * DAY_MS, 1000).await?;
    let day = measure("a day").await;

    seed(Part::Rest).await?;
    let started = Instant::now();
    store.top_variants(now_millis() - 30 * DAY_MS, 1000).await?;
    println!(
        "first top_variants after the seed (rolls up {} ledger rows): {:.1} ms",
        args.ledger_rows,
        started.elapsed().as_secs_f64() * 1000.0
    );

    let seeded = measure("seeded").await;
    println!("path | empty (ms) | a day (ms) | a year (ms) | year/day | year/empty");
    for (((name, e), (_, d)), (_, y)) in empty.iter().zip(&day).zip(&seeded) {
        println!(
            "{name} | {e:.2} | {d:.2} | {y:.2} | {:.2} | {:.2}",
            y / d,
            y / e
        );
    }
    server.abort();
    Ok(())
}

/// The median wall time of `n` calls of `f`, in ms, after 3 unmeasured.
async fn median<F, Fut>(n: usize, mut f: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..3 {
        f().await;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f().await;
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

/// Signs up through the form (as a browser does) and returns the cookie
/// header that carries the session.
async fn sign_up(client: &reqwest::Client, base: &str, email: &str) -> anyhow::Result<String> {
    let page = client.get(format!("{base}/signup")).send().await?;
    let mut cookies: Vec<String> = Vec::new();
    let keep = |r: &reqwest::Response, cookies: &mut Vec<String>| {
        for v in r.headers().get_all("set-cookie") {
            let text = v.to_str().unwrap_or_default();
            let pair = text.split(';').next().unwrap_or_default().to_owned();
            let name = pair.split('=').next().unwrap_or_default().to_owned();
            cookies.retain(|c| !c.starts_with(&format!("{name}=")));
            cookies.push(pair);
        }
    };
    keep(&page, &mut cookies);
    let html = page.text().await?;
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .map(|rest| rest[..rest.find('"').unwrap_or(0)].to_owned())
        .unwrap_or_default();
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("email", email),
            ("password", "correct horse battery"),
        ])
        .finish();
    let r = client
        .post(format!("{base}/signup"))
        .header("cookie", cookies.join("; "))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await?;
    anyhow::ensure!(r.status().is_redirection(), "sign-up: {}", r.status());
    keep(&r, &mut cookies);
    Ok(cookies.join("; "))
}

/// The seed's rows as one SELECT over `g` (1..n), shared by both dialects:
/// integer arithmetic only. `acct` maps `g` to an account id; the variant
/// index is cubically skewed toward 0 (a few variants are most requested).
fn ledger_select(person: &str, keyed: &str, a: i64, part: &Span) -> String {
    let Span { t0, step, tag, .. } = part;
    format!(
        "SELECT CASE g % {a} WHEN 0 THEN '{person}' WHEN 1 THEN '{keyed}' ELSE 'seed-' || (g % {a}) END, \
           'charge', -1, 1000, 'image delivery', '{tag}-req-' || g, {t0} + g * {step}, \
           {}, \
           1, 1024, 768, 'png', CASE WHEN g % 5 = 0 THEN 'generated' ELSE 'cache' END",
        variant_sql(
            "((((g * 2654435761) % 1000003) * ((g * 2654435761) % 1000003) / 1000003) \
             * ((g * 2654435761) % 1000003) / 1000003 * 20000 / 1000003)"
        )
    )
}

/// The catalog variant with index `m` (0..20,000), as SQL: eight models sold
/// every year from 2005 to 2024, fifteen colours, eight views (19,200 apart),
/// so `prewarm --top` finds its ranks in the catalog as a real day's would.
fn variant_sql(m: &str) -> String {
    const MODELS: [&str; 8] = [
        "toyota/camry",
        "toyota/corolla",
        "honda/civic",
        "honda/accord",
        "ford/f-150",
        "ford/mustang",
        "bmw/3-series",
        "volkswagen/golf",
    ];
    let colors: Vec<&str> = vis_protocol::Color::ALL.iter().map(|c| c.id()).collect();
    let views: Vec<&str> = vis_protocol::View::NAMED
        .iter()
        .map(|v| v.id())
        .chain(["angle-30"])
        .collect();
    let pick = |names: &[&str], index: String| {
        let arms: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("WHEN {i} THEN '{n}'"))
            .collect();
        format!("CASE {index} {} END", arms.join(" "))
    };
    format!(
        "{} || '/' || (2005 + ({m}) / 8 % 20) || '/' || {} || '/' || {}",
        pick(&MODELS, format!("({m}) % 8")),
        pick(&colors, format!("({m}) / 160 % 15")),
        pick(&views, format!("({m}) / 2400 % 8")),
    )
}

fn jobs_select(part: &Span) -> String {
    let Span {
        t0,
        job_step: step,
        tag,
        ..
    } = part;
    format!(
        "SELECT '{tag}-job-' || g, '{tag}/j' || g || '/2020/red/front', 1, 'sedan', \
           CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'done' END, CASE WHEN g % 5 = 0 THEN 1 ELSE 0 END, 1, \
           CASE WHEN g % 50 <> 0 THEN NULL WHEN g % 3 = 0 THEN 'render node lost' ELSE 'gpu lost' END, \
           CASE WHEN g % 50 = 0 THEN NULL ELSE 200 + (g * 7919) % 3000 END, \
           {t0} + g * {step}, {t0} + g * {step} + 200 + (g * 7919) % 3000, 'node:seed-' || (g % 4)"
    )
}

const LEDGER_COLS: &str = "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, variant, revision, width, height, format, source) ";
const JOB_COLS: &str = "INSERT INTO render_jobs (id, variant, revision, shape, status, priority, attempts, error, duration_ms, created_at, updated_at, finished_by) ";

/// 1% of the seeded charges refunded (a refund names its charge).
fn refunds(tag: &str) -> String {
    format!(
        "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, created_at, refund_of) \
         SELECT account_id, 'refund', 1, 1000, 'render failed', created_at + 1000, id FROM ledger \
         WHERE kind = 'charge' AND reference LIKE '{tag}-req-%' AND id % 100 = 0"
    )
}

/// The seed in two parts: the last day (with the accounts), then the 364
/// days before it.
#[derive(Clone, Copy, Debug)]
enum Part {
    Day,
    Rest,
}

/// One part's rows: `charges` ledger rows from `t0` every `step` ms,
/// `jobs` render jobs every `job_step` ms, their ids tagged `tag`.
struct Span {
    t0: i64,
    step: i64,
    charges: i64,
    jobs: i64,
    job_step: i64,
    tag: &'static str,
}

impl Part {
    fn span(self, args: &Args) -> Span {
        // Charges and refunds together make `ledger_rows`.
        let (charges, jobs) = (args.ledger_rows * 100 / 101, args.jobs);
        let (day_charges, day_jobs) = (charges / 365, jobs / 365);
        let now = now_millis();
        let (t0, days, charges, jobs, tag) = match self {
            Part::Day => (now - DAY_MS, 1, day_charges, day_jobs, "day"),
            Part::Rest => (
                now - 365 * DAY_MS,
                364,
                charges - day_charges,
                jobs - day_jobs,
                "seed",
            ),
        };
        Span {
            t0,
            step: days * DAY_MS / charges.max(1),
            charges,
            jobs,
            job_step: days * DAY_MS / jobs.max(1),
            tag,
        }
    }
}

/// One part of the seed as one transaction, set-based: SQLite counts with a
/// recursive CTE, PostgreSQL with `generate_series`.
fn seed_sql(sqlite: bool, args: &Args, person: &str, keyed: &str, part: Part) -> String {
    let span = part.span(args);
    let a = args.accounts;
    // `select` over g = 1..=n.
    let over = |n: i64, select: String| {
        if sqlite {
            format!(
                "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {n}) {select} FROM s"
            )
        } else {
            format!("{select} FROM generate_series(1::bigint, {n}) g")
        }
    };
    // The accounts but the bench's two (g 0 and 1 name them).
    let accounts = match part {
        Part::Day => format!(
            "INSERT INTO accounts (id, email, balance, auto_reload, has_payment_method, created_at) \
             SELECT 'seed-' || (g + 1), 'seed-' || (g + 1) || '@example.com', 1000000, 0, 0, {} FROM ({}) t;\n",
            now_millis() - 365 * DAY_MS,
            over(a - 2, "SELECT g".into())
        ),
        Part::Rest => String::new(),
    };
    format!(
        "{}\n{accounts}{LEDGER_COLS} {};\n{};\n{JOB_COLS} {};\nCOMMIT;",
        if sqlite { "BEGIN IMMEDIATE;" } else { "BEGIN;" },
        over(span.charges, ledger_select(person, keyed, a, &span)),
        refunds(span.tag),
        over(span.jobs, jobs_select(&span)),
    )
}
