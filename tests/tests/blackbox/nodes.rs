//! Remote render nodes (docs/render-nodes.md): a control plane with no
//! in-process renderer dispatches cold renders to node processes over HTTP.
//! - a node added by the CLI registers with its token, renders, and shows up
//!   in `nodes list`; a removed node's token is refused;
//! - a node that dies holding a job (it stops heartbeating) loses nothing
//!   but time: the job's lease runs out, another node renders it, the
//!   waiting request gets its image and is charged once; the dead node's
//!   late upload is refused;
//! - a job whose node died on every attempt fails: its waiter gets a 502
//!   and is charged nothing;
//! - a drained node finishes and exits;
//! - a node that asks for a batch leases a spin's 24 cold frames in one
//!   answer and uploads each as it draws it; one that does not gets one job.
//!
//! Runs on the suite's database (SQLite, or PostgreSQL under
//! `VIS_TEST_BACKEND=postgres`).

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use control_plane::Config;
use serde_json::Value;
use vis_protocol::nodes::{LeasedJob, NODE_API, NodeReport};
use vis_tests::{TestApp, header, problem};

/// A cold variant nobody else in the suite asks for.
fn variant(color: &str) -> String {
    format!(
        "/api/v1/images/car?make=mazda&model=mx-5&year=2016&color={color}&view=rear-3-4&w=256&format=png"
    )
}

async fn app() -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::for_tests(dir.path());
    // No in-process renderer: only remote nodes render.
    config.render.workers = 0;
    config.render.local_renderer = false;
    config.render.node_lease_secs = 2;
    config.render.node_heartbeat_secs = 1;
    TestApp::spawn_with(config, dir).await
}

/// `nodes add NAME`: the token is the last line.
async fn add_node(app: &TestApp, name: &str) -> String {
    let out = app.cli(&["nodes", "add", name]).await.unwrap();
    let token = out.lines().last().unwrap().trim().to_owned();
    assert!(token.starts_with("vis_node_"), "{out}");
    token
}

struct NodeProcess(Child);

impl NodeProcess {
    fn start(app: &TestApp, token: &str) -> NodeProcess {
        NodeProcess(
            Command::new(env!("CARGO_BIN_EXE_node-for-test"))
                .arg(app.url(""))
                .env("VIS_NODE_TOKEN", token)
                .spawn()
                .expect("node-for-test starts"),
        )
    }

    /// Waits for the process to exit by itself; its exit status. (The
    /// control plane runs on this test's runtime: wait without blocking it.)
    async fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.0.try_wait().unwrap() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        None
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A cold request that waits for its render while the test plays a node.
fn request_in_background(
    client: &reqwest::Client,
    url: String,
    key: &str,
) -> tokio::task::JoinHandle<reqwest::Response> {
    let (client, key) = (client.clone(), key.to_owned());
    tokio::spawn(async move { client.get(url).bearer_auth(key).send().await.unwrap() })
}

async fn nodes_json(app: &TestApp) -> Vec<Value> {
    let out = app.cli(&["--json", "nodes", "list"]).await.unwrap();
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A node's own side of the API, spoken by hand: a node that leases a job
/// and then dies.
struct HandNode {
    client: reqwest::Client,
    base: String,
    token: String,
}

impl HandNode {
    async fn post(&self, path: &str, body: Option<&NodeReport>) -> reqwest::Response {
        let mut r = self
            .client
            .post(format!("{}{NODE_API}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            r = r.json(body);
        }
        r.send().await.unwrap()
    }

    async fn register(&self) -> reqwest::Response {
        self.post(
            "/register",
            Some(&NodeReport {
                slots: 1,
                adapter: "hand".into(),
                in_flight: vec![],
            }),
        )
        .await
    }

    /// Leases the next job, waiting up to 10 s for one.
    async fn lease(&self) -> LeasedJob {
        let r = self.post("/lease?wait_ms=10000", None).await;
        assert_eq!(r.status(), 200, "a job to lease");
        r.json().await.unwrap()
    }
}

#[tokio::test]
async fn a_remote_node_renders_and_is_listed_drained_and_removed() {
    let app = app().await;
    let key = app.key_for("node-user@example.com", 34, &[]).await;
    let token = add_node(&app, "gpu-1").await;
    // Names are never reused.
    assert!(app.cli(&["nodes", "add", "gpu-1"]).await.is_err());
    let mut node = NodeProcess::start(&app, &token);

    let r = app.get_with_key(&variant("red"), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-credits-remaining"), "33");
    let png = r.bytes().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"));

    let listed = nodes_json(&app).await;
    assert_eq!(listed.len(), 1);
    let n = &listed[0];
    assert_eq!(n["name"], "gpu-1");
    assert_eq!(n["state"], "active");
    assert_eq!(n["renders_today"], 1);
    assert_eq!(n["renders_total"], 1);
    assert_eq!(n["failures_total"], 0);
    assert_eq!(n["slots"], 1);
    assert!(n["last_heartbeat"].is_i64(), "{n}");
    assert!(!n["adapter"].as_str().unwrap().is_empty());
    // The operator's view.
    let status: Value =
        serde_json::from_str(&app.cli(&["--json", "status"]).await.unwrap()).unwrap();
    assert_eq!(status["capacity"]["nodes_up"], 1, "{status}");
    assert_eq!(status["capacity"]["node_slots"], 1, "{status}");
    assert_eq!(status["capacity"]["in_process_busy"], 0, "{status}");
    assert_eq!(status["budget"]["used"], 1, "{status}");
    let times = &status["render_times_today"][0];
    assert_eq!(times["node"], "gpu-1", "{status}");
    assert_eq!(times["renders"], 1, "{status}");
    assert!(times["p50_ms"].as_i64().unwrap() > 0, "{status}");
    assert!(app.cli(&["status"]).await.unwrap().contains("gpu-1"));
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(metrics.contains("vis_render_nodes_up 1"), "{metrics}");
    assert!(metrics.contains("vis_render_node_slots 1"), "{metrics}");
    assert!(
        metrics.contains("vis_renders_finished_today{node=\"gpu-1\"} 1"),
        "{metrics}"
    );
    let p50 = format!(
        "vis_render_time_today_p50_ms{{node=\"gpu-1\"}} {}",
        times["p50_ms"]
    );
    assert!(
        metrics.contains(&p50),
        "the same as status: {p50} in {metrics}"
    );
    // The token is never shown again.
    assert!(!app.cli(&["nodes", "list"]).await.unwrap().contains(&token));

    // A spin: the node leases its 24 cold frames as one batch and draws
    // them from one mesh.
    let r = app
        .get_with_key(
            "/api/v1/images/spin?make=mazda&model=mx-5&year=2016&color=red&w=64&layout=sprite&format=png",
            &key,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-credits-remaining"), "9");
    assert_eq!(nodes_json(&app).await[0]["renders_total"], 25);

    // A drained node takes no more and exits.
    app.cli(&["nodes", "drain", "gpu-1"]).await.unwrap();
    let status = node
        .exited_within(Duration::from_secs(15))
        .await
        .expect("the drained node exits");
    assert!(status.success());

    // A removed node's token is refused; an unknown token too.
    app.cli(&["nodes", "remove", "gpu-1"]).await.unwrap();
    let client = vis_tests::http_client().build().unwrap();
    for token in [token.as_str(), "vis_node_unknown", "not-a-node-token"] {
        let hand = HandNode {
            client: client.clone(),
            base: app.url(""),
            token: token.to_owned(),
        };
        let body = problem(hand.register().await, 401).await;
        assert!(
            body["detail"].as_str().unwrap().contains("node token"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_node_that_dies_holding_a_job_loses_only_time() {
    let app = app().await;
    let key = app.key_for("node-death@example.com", 10, &[]).await;
    let client = vis_tests::http_client().build().unwrap();
    let dead = HandNode {
        client: client.clone(),
        base: app.url(""),
        token: add_node(&app, "dies").await,
    };
    assert_eq!(dead.register().await.status(), 200);

    // A cold request waits while the doomed node leases its job.
    let waiting = request_in_background(&client, app.url(&variant("blue")), &key);
    let leased = dead.lease().await;
    assert_eq!(leased.attempt, 1);
    assert_eq!(
        leased.job.variant.to_string(),
        "mazda/mx-5/2016/blue/rear-3-4"
    );
    // It dies here: no heartbeat, no upload. A live node comes up.
    let live = NodeProcess::start(&app, &add_node(&app, "lives").await);

    let r = waiting.await.unwrap();
    assert_eq!(r.status(), 200, "the request gets its image");
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-credits-remaining"), "9", "charged once");
    let account = app.account_json("node-death@example.com").await;
    assert_eq!(account["credits"], 9);

    // The dead node's late upload is refused: the job is another's now.
    let late = client
        .put(format!(
            "{}{NODE_API}/jobs/{}/source",
            app.url(""),
            leased.id
        ))
        .bearer_auth(&dead.token)
        .header("content-type", "image/png")
        .body(b"\x89PNG\r\n\x1a\nlate".to_vec())
        .send()
        .await
        .unwrap();
    problem(late, 409).await;
    let listed = nodes_json(&app).await;
    let lives = listed.iter().find(|n| n["name"] == "lives").unwrap();
    assert_eq!(lives["renders_total"], 1);
    drop(live);
}

#[tokio::test]
async fn a_job_whose_node_dies_every_time_fails_and_charges_nothing() {
    let app = app().await;
    let key = app.key_for("node-fail@example.com", 10, &[]).await;
    let client = vis_tests::http_client().build().unwrap();
    let dead = HandNode {
        client: client.clone(),
        base: app.url(""),
        token: add_node(&app, "always-dies").await,
    };
    let waiting = request_in_background(&client, app.url(&variant("green")), &key);
    // Leased three times, each lease left to run out.
    for attempt in 1..=3 {
        let leased = dead.lease().await;
        assert_eq!(leased.attempt, attempt);
    }
    // Nodes keep polling; after the third lease runs out the job fails
    // instead of being leased a fourth time.
    let r = dead.post("/lease?wait_ms=4000", None).await;
    assert_eq!(r.status(), 204, "no fourth attempt");
    let r = waiting.await.unwrap();
    let body = problem(r, 502).await;
    assert!(
        body["detail"].as_str().unwrap().contains("render"),
        "{body}"
    );
    let account = app.account_json("node-fail@example.com").await;
    assert_eq!(account["credits"], 10, "a failed render charges nothing");
    let status: Value =
        serde_json::from_str(&app.cli(&["--json", "status"]).await.unwrap()).unwrap();
    assert_eq!(
        status["failures_today_by_cause"]["render node lost"], 1,
        "{status}"
    );
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_render_failures_today_by_cause{cause=\"render node lost\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_node_asking_for_a_batch_leases_a_spins_24_frames_in_one_answer() {
    let app = app().await;
    let key = app.key_for("node-batch@example.com", 30, &[]).await;
    let client = vis_tests::http_client().build().unwrap();
    let hand = HandNode {
        client: client.clone(),
        base: app.url(""),
        token: add_node(&app, "batches").await,
    };
    assert_eq!(hand.register().await.status(), 200);
    let spin = "/api/v1/images/spin?make=mazda&model=mx-5&year=2016&color=white&w=64&layout=sprite&format=png";
    let waiting = request_in_background(&client, app.url(spin), &key);

    let r = hand.post("/lease?wait_ms=10000&batch=24", None).await;
    assert_eq!(r.status(), 200);
    let leased: LeasedJob = r.json().await.unwrap();
    let jobs: Vec<&LeasedJob> = leased.jobs().collect();
    assert_eq!(jobs.len(), 24, "the spin's frames in one answer");
    let mut angles: Vec<String> = jobs
        .iter()
        .map(|j| {
            assert_eq!(j.job.variant.vehicle(), "mazda/mx-5/2016");
            assert_eq!((j.attempt, j.job.revision), (1, leased.job.revision));
            assert!(j.id == leased.id || j.batch.is_empty(), "one level");
            j.job.variant.view.to_string()
        })
        .collect();
    angles.sort();
    angles.dedup();
    assert_eq!(angles.len(), 24, "24 different angles: {angles:?}");
    // Nothing is left for another node.
    let r = hand.post("/lease?wait_ms=300&batch=24", None).await;
    assert_eq!(r.status(), 204);

    // Each frame is uploaded on its own, as it is drawn.
    let tile = vis_render::image::Rgba::new(64, 64, [90, 90, 200, 255].repeat(64 * 64)).unwrap();
    let png = vis_render::image::encode_png(&tile).unwrap();
    for job in &jobs {
        let r = client
            .put(app.url(&format!("{NODE_API}/jobs/{}/source?render_ms=12", job.id)))
            .bearer_auth(&hand.token)
            .header("content-type", "image/png")
            .body(png.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204, "frame {}", job.job.variant);
    }
    let r = waiting.await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-credits-charged"), "24");
    let listed = nodes_json(&app).await;
    assert_eq!(listed[0]["renders_total"], 24, "{listed:?}");
}

#[tokio::test]
async fn node_reports_are_validated_in_the_apis_words() {
    let app = app().await;
    let client = vis_tests::http_client().build().unwrap();
    let token = add_node(&app, "strict").await;
    let r = client
        .post(app.url(&format!("{NODE_API}/register")))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "slots": 0, "adapter": "x" }))
        .send()
        .await
        .unwrap();
    let body = problem(r, 400).await;
    assert_eq!(body["param"], "slots", "{body}");
    let r = client
        .put(app.url(&format!("{NODE_API}/jobs/nope/source")))
        .bearer_auth(&token)
        .body("x")
        .send()
        .await
        .unwrap();
    problem(r, 404).await;
}
