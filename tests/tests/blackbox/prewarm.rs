//! Prewarm jobs (docs/render-nodes.md, "Prewarm jobs"), driven by the real
//! `control-plane prewarm` command against a control plane whose in-process
//! node renders with the real renderer:
//! - a dry run lists a selection's variants and queues nothing; the
//!   selection is then rendered with its derived outputs, which requests
//!   then get from the cache; a re-run skips every variant for free;
//! - prewarming stops at the budget reserve (exit 3, paused) while
//!   interactive requests still render, and a re-run of the same selection
//!   resumes the same job;
//! - an interactive request overtakes every queued prewarm render;
//! - bad selections are refused naming the flag, before anything is queued.
//!
//! Runs on the suite's database (SQLite, or PostgreSQL under
//! `VIS_TEST_BACKEND=postgres`).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use control_plane::cli::CliError;
use control_plane::renders::RenderBackend;
use parking_lot::Mutex;
use serde_json::Value;
use vis_protocol::RenderJob;
use vis_tests::{Counting, Gated, TestApp, header, operator, real_renderer};

fn json(out: &str) -> Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The report of a prewarm that stopped early, with its exit code.
fn incomplete(result: Result<String, CliError>) -> (Value, u8) {
    match result {
        Err(CliError::Incomplete { report, code }) => (json(&report), code),
        other => panic!("expected an incomplete prewarm, got {other:?}"),
    }
}

/// The `queue` of `control-plane status --json`.
async fn status_queue(app: &TestApp) -> serde_json::Value {
    json(&app.cli(&["--json", "status"]).await.unwrap())["queue"].clone()
}

async fn budget_used(app: &TestApp) -> i64 {
    json(&app.cli(&["--json", "budget", "show"]).await.unwrap())["used"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn a_prewarm_renders_its_selection_and_a_rerun_skips_it_for_free() {
    let renders = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(renders.clone(), |_| {}).await;
    let key = app.key_for("prewarm@example.com", 10, &[]).await;
    let selection = [
        "--json",
        "prewarm",
        "--make",
        "toyota",
        "--models",
        "camry",
        "--years",
        "2020-2021",
        "--views",
        "side,rear",
        "--colors",
        "red",
        "--sizes",
        "256",
        "--formats",
        "webp,png",
    ];
    // A dry run lists what the selection would render and queues nothing.
    let dry: Vec<&str> = selection.iter().copied().chain(["--dry-run"]).collect();
    let plan = json(&app.cli(&dry).await.unwrap());
    let mut planned: Vec<&str> = plan["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    planned.sort_unstable();
    assert_eq!(
        planned,
        [
            "toyota/camry/2020/red/rear",
            "toyota/camry/2020/red/side",
            "toyota/camry/2021/red/rear",
            "toyota/camry/2021/red/side",
        ],
        "{plan}"
    );
    assert_eq!(
        (plan["total"].clone(), plan["outputs"].clone()),
        (4.into(), "256:webp,256:png".into())
    );
    assert_eq!(renders.renders(), 0);
    let listed = app.cli(&["prewarm", "list"]).await.unwrap();
    assert!(
        listed.contains("no prewarm jobs"),
        "a dry run queued a job: {listed}"
    );

    let report = json(&app.cli(&selection).await.unwrap());
    assert_eq!(report["state"], "done", "{report}");
    assert_eq!(report["total"], 4);
    assert_eq!(report["counts"]["done"], 4, "{report}");
    assert_eq!(report["outputs"], "256:webp,256:png");
    assert_eq!(renders.renders(), 4);
    assert_eq!(budget_used(&app).await, 4);

    // A request for a prewarmed output is a cache hit.
    let hit = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2021&view=rear&color=red&w=256&format=webp",
            &key,
        )
        .await;
    assert_eq!(hit.status(), 200);
    assert_eq!(header(&hit, "x-image-source"), "cache");
    assert_eq!(renders.renders(), 4);

    // The same selection again: a new job (the first one is done) that
    // skips every variant, spending no budget.
    let again = json(&app.cli(&selection).await.unwrap());
    assert_ne!(again["id"], report["id"]);
    assert_eq!(again["counts"]["cached"], 4, "{again}");
    assert_eq!(again["counts"]["done"], 0);
    assert_eq!(renders.renders(), 4);
    assert_eq!(budget_used(&app).await, 4);

    let id = report["id"].as_str().unwrap();
    let status = json(&app.cli(&["--json", "prewarm", "status", id]).await.unwrap());
    assert_eq!(
        (status["state"].clone(), status["finished"].clone()),
        ("done".into(), 4.into())
    );
    let listed = json(&app.cli(&["--json", "prewarm", "list"]).await.unwrap());
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let text = app.cli(&["prewarm", "status", id]).await.unwrap();
    assert!(text.contains("finished   4 of 4"), "{text}");
    match app.cli(&["prewarm", "cancel", id]).await {
        Err(CliError::Usage(m)) => assert!(m.contains("already ended"), "{m}"),
        other => panic!("{other:?}"),
    }
    app.shutdown().await.unwrap();
}

#[tokio::test]
async fn prewarming_stops_at_the_budget_reserve_and_a_rerun_resumes_the_same_job() {
    let renders = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(renders.clone(), |_| {}).await;
    let key = app.key_for("reserve@example.com", 10, &[]).await;
    app.cli(&["budget", "set", "--daily", "6"]).await.unwrap();
    let selection = [
        "--json",
        "prewarm",
        "--make",
        "honda",
        "--models",
        "civic",
        "--years",
        "2019-2020",
        "--views",
        "front,side,rear",
        "--colors",
        "blue",
        "--budget-reserve",
        "50",
    ];
    // 6 variants; prewarming may spend 3 of today's 6 renders.
    let (report, code) = incomplete(app.cli(&selection).await);
    assert_eq!(code, 3, "{report}");
    assert_eq!(report["state"], "paused");
    assert_eq!(report["counts"]["done"], 3, "{report}");
    assert_eq!(report["counts"]["pending"], 3);
    assert!(
        report["stopped_reason"]
            .as_str()
            .unwrap()
            .contains("budget reserve"),
        "{report}"
    );
    assert_eq!(budget_used(&app).await, 3);

    // The reserve is there for interactive requests.
    let cold = app
        .get_with_key(
            "/api/v1/images/car?make=honda&model=civic&year=2020&view=front-3-4&color=blue&format=png&w=128",
            &key,
        )
        .await;
    assert_eq!(cold.status(), 200);
    assert_eq!(header(&cold, "x-image-source"), "generated");
    assert_eq!(budget_used(&app).await, 4);

    // More budget; the same selection picks the paused job up.
    app.cli(&["budget", "set", "--daily", "100"]).await.unwrap();
    let resumed = json(&app.cli(&selection).await.unwrap());
    assert_eq!(resumed["id"], report["id"], "the same job resumed");
    assert_eq!(resumed["state"], "done");
    assert_eq!(resumed["counts"]["done"], 6, "{resumed}");
    assert_eq!(renders.renders(), 7);
    assert_eq!(
        budget_used(&app).await,
        7,
        "3 prewarmed, 1 requested, 3 prewarmed"
    );
    app.shutdown().await.unwrap();
}

/// Records the order in which variants are rendered.
#[derive(Debug)]
struct Recording {
    inner: Arc<dyn RenderBackend>,
    order: Mutex<Vec<String>>,
}

#[async_trait]
impl RenderBackend for Recording {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        self.order.lock().push(job.variant.to_string());
        self.inner.render_png(job).await
    }
}

#[tokio::test]
async fn an_interactive_request_overtakes_queued_prewarm_renders() {
    let gate = Gated::new(real_renderer());
    let recording = Arc::new(Recording {
        inner: gate.clone(),
        order: Mutex::new(Vec::new()),
    });
    let app = TestApp::spawn_rendering(recording.clone(), |c| c.render.workers = 1).await;
    let key = app.key_for("overtake@example.com", 10, &[]).await;
    let (data_dir, database) = (
        app.config.data_dir.clone(),
        app.config.database_url.expose().to_owned(),
    );
    let prewarm = tokio::spawn(async move {
        operator(
            &data_dir,
            &database,
            &[
                "--json", "prewarm", "--make", "kia", "--models", "rio", "--years", "2018",
                "--views", "all", "--colors", "white",
            ],
        )
        .await
    });
    // The one worker holds the first prewarm render at the gate; the other
    // five wait in the queue.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while recording.order.lock().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "no render started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // `status` tells the priorities apart.
    loop {
        let q = status_queue(&app).await;
        if q["queued_prewarm"] == 5 {
            assert_eq!(q["running_prewarm"], 1, "{q}");
            assert_eq!(q["queued_interactive"], 0, "{q}");
            assert_eq!(q["queued"], 5, "{q}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "not queued: {q}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let text = app.cli(&["status"]).await.unwrap();
    assert!(
        text.contains("interactive 0 queued, 0 running; prewarm 5 queued, 1 running"),
        "{text}"
    );
    let client = app.get_with_key(
        "/api/v1/images/car?make=kia&model=rio&year=2019&view=side&color=black&format=png&w=64",
        &key,
    );
    let releaser = async {
        // Once the request's job is queued, open the gate for everyone.
        loop {
            let q = status_queue(&app).await;
            if q["queued_interactive"] == 1 {
                assert_eq!(q["queued_prewarm"], 5, "{q}");
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "not queued: {q}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        gate.release(100);
    };
    let (response, ()) = tokio::join!(client, releaser);
    assert_eq!(response.status(), 200);
    let report = json(&prewarm.await.unwrap().unwrap());
    assert_eq!(report["counts"]["done"], 6, "{report}");
    let order = recording.order.lock().clone();
    assert_eq!(order.len(), 7, "{order:?}");
    assert_eq!(
        order[1], "kia/rio/2019/black/side",
        "the request's render came right after the one already running: {order:?}"
    );
    app.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_selections_are_refused_naming_the_flag() {
    let app = TestApp::spawn().await;
    for (args, needle) in [
        (vec!["prewarm", "--make", "nosuchmake"], "--make"),
        (
            vec!["prewarm", "--make", "toyota", "--models", "camry,zzzz"],
            "--models",
        ),
        (
            vec!["prewarm", "--make", "toyota", "--years", "2024-2018"],
            "--years",
        ),
        (
            vec!["prewarm", "--make", "toyota", "--views", "sideways"],
            "--views",
        ),
        (
            vec!["prewarm", "--make", "toyota", "--sizes", "4096"],
            "--sizes",
        ),
        (
            vec![
                "prewarm", "--make", "toyota", "--models", "camry", "--years", "1900",
            ],
            "no variants",
        ),
        (
            vec!["prewarm", "--top", "5"],
            "--top: no variant was requested",
        ),
        (
            vec!["prewarm", "--top", "5", "--dry-run"],
            "--top: no variant was requested",
        ),
        (vec!["prewarm"], "--make"),
        (vec!["prewarm", "status", "pw_nosuchjob"], "no prewarm job"),
    ] {
        match app.cli(&args).await {
            Err(CliError::Usage(m)) => assert!(m.contains(needle), "{args:?}: {m}"),
            other => panic!("{args:?}: {other:?}"),
        }
    }
    let listed = app.cli(&["prewarm", "list"]).await.unwrap();
    assert!(
        listed.contains("no prewarm jobs"),
        "nothing was created: {listed}"
    );
}
