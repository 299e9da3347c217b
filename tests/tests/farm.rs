//! The render farm as an operator runs it (docs/render-nodes.md,
//! docs/deployment.md), every part a process of its own on real services:
//! one PostgreSQL, one bucket on an S3-compatible server, two control planes
//! that only dispatch (`VIS_LOCAL_RENDERER=false`), and two render nodes,
//! each talking to a different control plane.
//! - Concurrent requests for new variants at both control planes: one render
//!   each, every request billed once, balances exact, sources in the bucket.
//! - `kill -9` of a node holding a job: the job's lease runs out, the other
//!   node renders it, the waiting request gets its image, charged once.
//! - A drain while the node is busy: it finishes its job, takes no other,
//!   and exits.
//! - A prewarm of 500 variants, killed part way and run again: the second
//!   run resumes the same job and finishes it; every variant rendered once;
//!   the progress lines are checked.
//!
//! In a test binary of its own, so the suite's PostgreSQL pass
//! (`--test blackbox`) does not run it twice. Needs `VIS_TEST_POSTGRES_URL`
//! and `VIS_TEST_S3_ENDPOINT` (infra/test.sh sets both).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use control_plane::store::{AccountStore, CreditStore, JobRecord, JobStatus, JobStore, SqlStore};
use serde_json::Value;
use vis_tests::{
    account_and_key, fresh_postgres_database, fresh_s3_bucket, http_client, operator,
    postgres_url_or_skip, s3_endpoint_or_skip, s3_keys,
};

/// How the farm's processes are configured: the same `VIS_*` variables for
/// every control plane and operator command.
struct Farm {
    dir: PathBuf,
    env: Vec<(&'static str, String)>,
    database: String,
}

impl Farm {
    /// The real `control-plane` command with the farm's settings.
    fn command(&self, data_dir: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_control-plane-for-test"));
        cmd.args(args)
            .env("VIS_DATA_DIR", self.dir.join(data_dir))
            .env("RUST_LOG", "warn");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    fn log(&self, name: &str) -> std::fs::File {
        std::fs::File::create(self.dir.join(format!("{name}.log"))).expect("log file")
    }

    async fn cli(&self, args: &[&str]) -> String {
        operator(&self.dir, &self.database, args).await.unwrap()
    }
}

struct Proc {
    child: Child,
    name: String,
}

impl Proc {
    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid()])
            .status()
            .expect("kill runs")
            .success();
        assert!(ok, "kill {sig} {}", self.name);
    }

    /// `kill -9`: no shutdown, no goodbye to the control plane.
    fn kill9(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }

    /// Waits for the process to exit by itself.
    fn exits_within(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit within {limit:?}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// `control-plane serve` on a free port, ready when `/readyz` says so.
async fn control_plane(farm: &Farm, name: &str) -> (Proc, String) {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = farm
        .command(name, &["serve"])
        .env("VIS_LISTEN", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(farm.log(name))
        .spawn()
        .expect("control-plane starts");
    let proc = Proc {
        child,
        name: name.into(),
    };
    let client = http_client().build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = client.get(format!("{base}/readyz")).send().await
            && r.status() == 200
        {
            return (proc, base);
        }
        assert!(
            Instant::now() < deadline,
            "{name} not ready; see {}",
            farm.dir.join(format!("{name}.log")).display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A render node process (what `render-node run` runs) at `base`.
fn node(farm: &Farm, name: &str, token: &str, base: &str) -> Proc {
    let child = Command::new(env!("CARGO_BIN_EXE_node-for-test"))
        .arg(base)
        .arg("2")
        .env("VIS_NODE_TOKEN", token)
        .stdout(Stdio::null())
        .stderr(farm.log(name))
        .spawn()
        .expect("node starts");
    Proc {
        child,
        name: name.into(),
    }
}

fn image(year: u16, color: &str, view: &str) -> (String, String) {
    (
        format!(
            "/api/v1/images/car?make=toyota&model=camry&year={year}&color={color}&view={view}&w=256&format=webp"
        ),
        format!("toyota/camry/{year}/{color}/{view}"),
    )
}

async fn balance(store: &SqlStore) -> i64 {
    let account = store
        .account_by_email("farm@example.com")
        .await
        .unwrap()
        .unwrap();
    store.balance(&account.id).await.unwrap().unwrap()
}

/// Waits until `variant`'s job runs on a node; returns it.
async fn running(store: &SqlStore, variant: &str) -> JobRecord {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let revision = i64::from(control_plane::config::RenderConfig::default().revision);
        if let Some(job) = store.live_job(variant, revision).await.unwrap()
            && job.status == JobStatus::Running
            && job.lease_owner.is_some()
        {
            return job;
        }
        assert!(Instant::now() < deadline, "{variant} never ran");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Stops the node holding `job` (SIGSTOP) while it still holds it: true
/// when it was caught mid-job (the job is still its, 300 ms later).
async fn freeze_holder(store: &SqlStore, job: &JobRecord, nodes: &[&Proc]) -> Option<usize> {
    let owner = job.lease_owner.clone()?;
    let i = nodes
        .iter()
        .position(|n| owner == format!("node:{}", n.name))?;
    nodes[i].signal("-STOP");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let now = store.job_by_id(&job.id).await.unwrap()?;
    if now.status == JobStatus::Running && now.lease_owner.as_deref() == Some(owner.as_str()) {
        Some(i)
    } else {
        nodes[i].signal("-CONT");
        None
    }
}

/// `prewarm ID: 120/500 finished (...)` → 120.
fn finished_in(line: &str) -> Option<i64> {
    let rest = line.strip_prefix("prewarm pw_")?;
    let (_, rest) = rest.split_once(": ")?;
    let (done, rest) = rest.split_once('/')?;
    rest.starts_with("500 finished")
        .then(|| done.parse().ok())?
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_farm_of_two_control_planes_and_two_nodes_on_postgresql_and_s3() {
    if postgres_url_or_skip("farm").is_none() {
        return;
    }
    let Some(endpoint) = s3_endpoint_or_skip("farm").await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let database = fresh_postgres_database().await;
    let s3 = fresh_s3_bucket(&endpoint).await;
    let config = tmp.path().join("farm.toml");
    // Short leases so that a dead node's job comes back within seconds.
    std::fs::write(
        &config,
        "[render]\nnode_lease_secs = 2\nnode_heartbeat_secs = 1\n",
    )
    .unwrap();
    let farm = Farm {
        dir: tmp.path().to_owned(),
        database: database.clone(),
        env: vec![
            ("VIS_CONFIG", config.display().to_string()),
            ("VIS_DATABASE_URL", database.clone()),
            ("VIS_OBJECT_STORE", "s3".into()),
            ("VIS_S3_BUCKET", s3.bucket.clone()),
            ("VIS_S3_ENDPOINT", endpoint.clone()),
            ("VIS_S3_REGION", "us-east-1".into()),
            ("VIS_S3_FORCE_PATH_STYLE", "true".into()),
            ("VIS_LOCAL_RENDERER", "false".into()),
            (
                "VIS_DELIVERY_SECRET",
                "farm-test-delivery-secret-0123456789abcdef".into(),
            ),
        ],
    };
    // The one-shot migration of a deployment, then the node tokens.
    let migrated = farm.command("migrate", &["migrate"]).output().unwrap();
    assert!(migrated.status.success(), "{migrated:?}");
    let mut tokens = Vec::new();
    for name in ["gpu-a", "gpu-b"] {
        let out = farm.cli(&["nodes", "add", name]).await;
        tokens.push(out.lines().last().unwrap().trim().to_owned());
    }
    let (_cp1, base1) = control_plane(&farm, "cp-1").await;
    let (_cp2, base2) = control_plane(&farm, "cp-2").await;
    let mut node_a = node(&farm, "gpu-a", &tokens[0], &base1);
    let mut node_b = node(&farm, "gpu-b", &tokens[1], &base2);
    let (_, key) = account_and_key(&farm.dir, &database, "farm@example.com", Some(100), &[]).await;
    let store = SqlStore::connect(&database).await.unwrap();
    let client = http_client().build().unwrap();
    let get = |url: String| {
        let request = client.get(url).bearer_auth(&key);
        async move { request.send().await.unwrap() }
    };

    // 1. Three new variants, each asked for three times at both control
    // planes at once: three renders, eighteen images, eighteen credits.
    let variants: Vec<_> = ["front", "side", "rear"]
        .iter()
        .map(|view| image(2010, "blue", view))
        .collect();
    let mut requests = Vec::new();
    for (path, _) in &variants {
        for base in [&base1, &base2, &base1, &base2, &base1, &base2] {
            requests.push(tokio::spawn(get(format!("{base}{path}"))));
        }
    }
    for request in requests {
        let r = request.await.unwrap();
        assert_eq!(r.status(), 200, "{:?}", r.headers());
    }
    let counts = store.job_counts().await.unwrap();
    assert_eq!(
        (counts.done, counts.failed),
        (3, 0),
        "one render per variant"
    );
    assert_eq!(balance(&store).await, 100 - 18, "every image billed once");
    let keys = s3_keys(&endpoint, &s3.bucket).await;
    let revision = control_plane::config::RenderConfig::default().revision;
    for (_, variant) in &variants {
        let source = format!("renders/r{revision}/{variant}/source.png");
        assert!(keys.contains(&source), "{source} in {keys:?}");
    }

    // 2. kill -9 of the node holding a job: the other node renders it.
    let mut killed = None;
    for (attempt, color) in ["green", "yellow", "orange", "brown", "purple"]
        .iter()
        .enumerate()
    {
        let (path, variant) = image(2011, color, "side");
        let base = if attempt % 2 == 0 { &base1 } else { &base2 };
        // Read before the request: its credit is reserved before the render
        // starts (docs/ledger.md), so a read during the render already
        // shows it.
        let before = balance(&store).await;
        let request = tokio::spawn(get(format!("{base}{path}")));
        let job = running(&store, &variant).await;
        let caught = freeze_holder(&store, &job, &[&node_a, &node_b]).await;
        let Some(i) = caught else {
            // The node finished before it could be stopped: try another.
            assert_eq!(request.await.unwrap().status(), 200);
            continue;
        };
        if i == 0 {
            node_a.kill9()
        } else {
            node_b.kill9()
        }
        let response = request.await.unwrap();
        assert_eq!(response.status(), 200, "the request survived its node");
        let done = store.job_by_id(&job.id).await.unwrap().unwrap();
        assert_eq!((done.status, done.attempts), (JobStatus::Done, 2));
        assert_eq!(balance(&store).await, before - 1, "charged once");
        killed = Some(i);
        break;
    }
    let killed = killed.expect("a node was caught holding a job in five tries");
    // The operator restarts the dead node's process with its token.
    if killed == 0 {
        node_a = node(&farm, "gpu-a", &tokens[0], &base1);
    } else {
        node_b = node(&farm, "gpu-b", &tokens[1], &base2);
    }

    // 3. Drain a busy node: it finishes its job, then exits.
    let mut drained = None;
    for color in ["gray", "beige", "tan", "gold", "burgundy"] {
        let (path, variant) = image(2012, color, "rear-3-4");
        let request = tokio::spawn(get(format!("{base2}{path}")));
        let job = running(&store, &variant).await;
        let Some(i) = freeze_holder(&store, &job, &[&node_a, &node_b]).await else {
            assert_eq!(request.await.unwrap().status(), 200);
            continue;
        };
        let name = if i == 0 { "gpu-a" } else { "gpu-b" };
        farm.cli(&["nodes", "drain", name]).await;
        let holder = if i == 0 { &mut node_a } else { &mut node_b };
        holder.signal("-CONT");
        assert_eq!(request.await.unwrap().status(), 200);
        let done = store.job_by_id(&job.id).await.unwrap().unwrap();
        assert_eq!(
            (done.status, done.attempts),
            (JobStatus::Done, 1),
            "the draining node finished its own job"
        );
        let status = holder.exits_within(Duration::from_secs(20));
        assert!(status.success(), "a drained node exits cleanly: {status}");
        drained = Some((i, name));
        break;
    }
    let (i, name) = drained.expect("a node was caught busy in five tries");
    let listed: Value =
        serde_json::from_str(farm.cli(&["--json", "nodes", "list"]).await.trim()).unwrap();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap();
    assert_eq!(row["state"], "draining", "{row}");
    farm.cli(&["nodes", "resume", name]).await;
    if i == 0 {
        node_a = node(&farm, "gpu-a", &tokens[0], &base1);
    } else {
        node_b = node(&farm, "gpu-b", &tokens[1], &base2);
    }

    // 4. A prewarm of 500 variants, killed part way, then run again.
    let before = store.job_counts().await.unwrap();
    let args = [
        "--json",
        "prewarm",
        "--make",
        "toyota",
        "--models",
        "camry",
        "--years",
        "2000-2024",
        "--views",
        "front,front-3-4,side,rear,rear-3-4",
        "--colors",
        "white,black,red,silver",
        "--progress-every",
        "1",
    ];
    let run = |name: &str| -> (Proc, mpsc::Receiver<String>) {
        let mut child = farm
            .command(name, &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("prewarm starts");
        let (tx, rx) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        (
            Proc {
                child,
                name: name.into(),
            },
            rx,
        )
    };
    let (mut first, lines) = run("prewarm-1");
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("no progress; lines so far: {seen:#?}"));
        let finished = finished_in(&line);
        seen.push(line);
        if finished.is_some_and(|n| n >= 40) {
            break;
        }
    }
    first.kill9();
    let id = seen[0]
        .strip_prefix("prewarm ")
        .and_then(|s| s.split_once(':'))
        .map(|(id, _)| id.to_owned())
        .unwrap_or_else(|| panic!("the job id comes first: {seen:#?}"));
    assert!(
        seen[0].ends_with("500 variants, 0 derived outputs each"),
        "{seen:#?}"
    );
    let progress: Vec<i64> = seen.iter().filter_map(|l| finished_in(l)).collect();
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
    assert!(
        seen.iter().any(|l| l.contains("/s, ETA ")),
        "rate and ETA are shown: {seen:#?}"
    );
    let status: Value =
        serde_json::from_str(farm.cli(&["--json", "prewarm", "status", &id]).await.trim()).unwrap();
    let finished = status["finished"].as_i64().unwrap();
    assert!((40..500).contains(&finished), "{status}");

    let (mut second, lines) = run("prewarm-2");
    let exit = second.exits_within(Duration::from_secs(480));
    let mut stdout = String::new();
    std::io::Read::read_to_string(second.child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let resumed_lines: Vec<String> = lines.try_iter().collect();
    assert!(exit.success(), "{exit}: {stdout} {resumed_lines:#?}");
    assert!(
        resumed_lines
            .iter()
            .any(|l| l.starts_with(&format!("resuming prewarm {id}: "))),
        "{resumed_lines:#?}"
    );
    let last = resumed_lines.iter().rev().find_map(|l| finished_in(l));
    assert_eq!(last, Some(500), "{resumed_lines:#?}");
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["id"], id.as_str());
    assert_eq!(report["state"], "done", "{report}");
    assert_eq!(report["counts"]["failed"], 0, "{report}");
    assert_eq!(
        report["counts"]["done"].as_i64().unwrap() + report["counts"]["cached"].as_i64().unwrap(),
        500,
        "{report}"
    );
    let after = store.job_counts().await.unwrap();
    assert_eq!(
        after.done - before.done,
        500,
        "every variant rendered once, none twice"
    );
    assert_eq!(after.failed, before.failed);
    let prewarmed = s3_keys(&endpoint, &s3.bucket)
        .await
        .into_iter()
        .filter(|k| {
            k.ends_with("/source.png")
                && ["white", "black", "red", "silver"]
                    .iter()
                    .any(|c| k.contains(&format!("/{c}/")))
        })
        .count();
    assert_eq!(prewarmed, 500, "every prewarmed source is in the bucket");
    drop((node_a, node_b));
    store.close().await;
}
