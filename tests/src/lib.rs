//! Helpers for the black-box tests in `tests/tests/`: start the real app on
//! port 0 with its own data directory, speak HTTP to it, run operator
//! commands against the same configuration.
//!
//! The suite runs on SQLite (a file in each app's data directory) or, with
//! `VIS_TEST_BACKEND=postgres`, on PostgreSQL: each data directory then gets
//! a fresh database of its own on the server at `VIS_TEST_POSTGRES_URL`
//! (infra/test.sh runs the suite both ways).

pub mod embed_recipe;
pub mod smtp;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use control_plane::renders::RenderBackend;
use vis_protocol::RenderJob;

use clap::Parser;
use control_plane::cli::{Cli, CliError};
use control_plane::{App, Config};
use tokio::sync::oneshot;

/// A running server with its own database and object directory.
pub struct TestApp {
    pub addr: SocketAddr,
    pub base_url: String,
    pub config: Config,
    pub client: reqwest::Client,
    _dir: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config::for_tests(dir.path());
        Self::spawn_with(config, dir).await
    }

    pub async fn spawn_with(mut config: Config, dir: tempfile::TempDir) -> TestApp {
        use_test_database(&mut config).await;
        Self::spawn_app(
            App::build(config.clone()).await.expect("app builds"),
            config,
            dir,
        )
    }

    /// Starts with an in-process render node drawing with `backend`, after
    /// `tweak` adjusted the configuration.
    pub async fn spawn_rendering(
        backend: Arc<dyn RenderBackend>,
        tweak: impl FnOnce(&mut Config),
    ) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::for_tests(dir.path());
        config.render.workers = 2;
        tweak(&mut config);
        Self::spawn_rendering_with(backend, config, dir).await
    }

    /// Starts on existing data (`dir`) with an in-process render node of
    /// `config.render.workers` workers.
    pub async fn spawn_rendering_with(
        backend: Arc<dyn RenderBackend>,
        mut config: Config,
        dir: tempfile::TempDir,
    ) -> TestApp {
        use_test_database(&mut config).await;
        let app = App::build_with_backend(config.clone(), Some(backend))
            .await
            .expect("app builds");
        Self::spawn_app(app, config, dir)
    }

    /// Starts with extra routes under the app's middleware.
    pub async fn spawn_with_routes(routes: axum::Router<control_plane::HttpState>) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::for_tests(dir.path());
        use_test_database(&mut config).await;
        let app = App::build(config.clone())
            .await
            .expect("app builds")
            .with_routes(routes);
        Self::spawn_app(app, config, dir)
    }

    fn spawn_app(app: App, config: Config, dir: tempfile::TempDir) -> TestApp {
        let addr = app.local_addr();
        let base_url = app.base_url().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(app.run_until(async move {
            let _ = stopped.await;
        }));
        TestApp {
            addr,
            base_url,
            config,
            client: http_client()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            _dir: dir,
            stop: Some(stop),
            server: Some(server),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request")
    }

    pub async fn get_with_key(&self, path: &str, key: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Runs an operator command (`["keys", "create", "--email", …]`) against
    /// this app's configuration; returns its stdout.
    pub async fn cli(&self, args: &[&str]) -> Result<String, CliError> {
        operator(
            &self.config.data_dir,
            self.config.database_url.expose(),
            args,
        )
        .await
    }

    /// Creates an account and a key with `scopes`; returns (key id, key).
    pub async fn account_with_key(&self, email: &str, scopes: &str) -> (String, String) {
        self.new_key(email, None, &["--scopes", scopes]).await
    }

    /// Creates an account with `credits` and a key made with `key_args`
    /// (e.g. `["--rate-limit", "2"]`); returns the key.
    pub async fn key_for(&self, email: &str, credits: i64, key_args: &[&str]) -> String {
        self.new_key(email, Some(credits), key_args).await.1
    }

    async fn new_key(
        &self,
        email: &str,
        credits: Option<i64>,
        key_args: &[&str],
    ) -> (String, String) {
        account_and_key(
            &self.config.data_dir,
            self.config.database_url.expose(),
            email,
            credits,
            key_args,
        )
        .await
    }

    /// The account as `accounts show --json` prints it (credits, ledger, …)
    /// (every charge commits before its response, so it is up to date).
    pub async fn account_json(&self, email: &str) -> serde_json::Value {
        let out = self
            .cli(&["--json", "accounts", "show", "--email", email])
            .await
            .expect("account");
        serde_json::from_str(&out).expect("json")
    }

    /// Stops the server, letting in-flight requests finish; hands back the
    /// data directory so a test can inspect what was written.
    pub async fn shutdown(mut self) -> std::io::Result<tempfile::TempDir> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.server.take() {
            handle.await.expect("server task")?;
        }
        Ok(std::mem::replace(&mut self._dir, tempfile::tempdir()?))
    }
}

/// A response header that must be there, as text.
/// A reqwest client builder for tests (rustls's provider installed first).
pub fn http_client() -> reqwest::ClientBuilder {
    control_plane::payments::install_tls_provider();
    reqwest::Client::builder()
}

pub fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("missing header {name}"))
        .to_str()
        .unwrap()
        .to_owned()
}

/// Parses a problem document and checks the members every problem carries.
pub async fn problem(response: reqwest::Response, status: u16) -> serde_json::Value {
    assert_eq!(response.status().as_u16(), status, "unexpected status");
    let ct = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert_eq!(ct, "application/problem+json");
    let header_id = response
        .headers()
        .get("x-request-id")
        .map(|v| v.to_str().unwrap().to_owned())
        .expect("X-Request-Id on every response");
    let body: serde_json::Value = response.json().await.expect("problem body is JSON");
    assert_eq!(body["status"], status);
    assert!(
        body["type"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/docs/errors#{status}")),
        "{body}"
    );
    assert!(body["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(body["detail"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(body["request_id"].as_str(), Some(header_id.as_str()));
    body
}

/// Sends `n` requests at once (each built by `request`) and returns their
/// statuses, in no particular order.
pub async fn concurrent_statuses(
    n: usize,
    request: impl Fn() -> reqwest::RequestBuilder,
) -> Vec<u16> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let sent = request().send();
            tokio::spawn(async move { sent.await.unwrap().status().as_u16() })
        })
        .collect();
    let mut statuses = Vec::with_capacity(n);
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    statuses
}

/// How many of `statuses` are `code`.
pub fn count(statuses: &[u16], code: u16) -> usize {
    statuses.iter().filter(|s| **s == code).count()
}

/// The real wgpu renderer (lavapipe without a GPU), created once per test
/// binary: every image test draws real pixels.
pub fn real_renderer() -> Arc<dyn RenderBackend> {
    static RENDERER: OnceLock<Arc<control_plane::renders::worker::InProcessRenderer>> =
        OnceLock::new();
    RENDERER
        .get_or_init(|| {
            let renderer = vis_render::Renderer::new(vis_render::RendererConfig::default())
                .expect("a Vulkan adapter: install mesa-vulkan-drivers (infra/test.sh does)");
            Arc::new(control_plane::renders::worker::InProcessRenderer::new(
                Arc::new(renderer),
            ))
        })
        .clone()
}

/// Wraps a backend and counts the renders it is asked for.
#[derive(Debug)]
pub struct Counting {
    inner: Arc<dyn RenderBackend>,
    count: AtomicUsize,
}

impl Counting {
    pub fn new(inner: Arc<dyn RenderBackend>) -> Arc<Counting> {
        Arc::new(Counting {
            inner,
            count: AtomicUsize::new(0),
        })
    }
    pub fn renders(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl RenderBackend for Counting {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.inner.render_png(job).await
    }
}

/// A render node whose renders fail: fault injection for the refund paths.
#[derive(Debug, Default)]
pub struct Failing;

#[async_trait::async_trait]
impl RenderBackend for Failing {
    async fn render_png(&self, _job: &RenderJob) -> Result<Vec<u8>, String> {
        Err("injected fault: GPU lost".into())
    }
}

/// A render node that holds every render until released, to fill the queue.
#[derive(Debug)]
pub struct Gated {
    inner: Arc<dyn RenderBackend>,
    gate: tokio::sync::Semaphore,
}

impl Gated {
    pub fn new(inner: Arc<dyn RenderBackend>) -> Arc<Gated> {
        Arc::new(Gated {
            inner,
            gate: tokio::sync::Semaphore::new(0),
        })
    }
    pub fn release(&self, n: usize) {
        self.gate.add_permits(n);
    }
}

#[async_trait::async_trait]
impl RenderBackend for Gated {
    async fn render_png(&self, job: &RenderJob) -> Result<Vec<u8>, String> {
        let permit = self.gate.acquire().await.map_err(|e| e.to_string())?;
        permit.forget();
        self.inner.render_png(job).await
    }
}

/// Waits for the next clock minute when the current one ends within
/// `secs`. Rate-limit windows now open at a subject's first request
/// (ratelimit.rs), so a test that makes its requests within 60 s of its
/// first one is inside one window anyway; this keeps such tests clear of
/// the minute's turn as well.
pub async fn within_one_rate_window(secs: u64) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs();
    let left = 60 - now % 60;
    if left < secs {
        tokio::time::sleep(std::time::Duration::from_millis(left * 1000 + 100)).await;
    }
}

/// Which database the black-box suite runs on (`VIS_TEST_BACKEND`).
pub fn test_backend_is_postgres() -> bool {
    std::env::var("VIS_TEST_BACKEND").as_deref() == Ok("postgres")
}

/// On the PostgreSQL backend, points `config` at the database of its data
/// directory, created fresh the first time a directory asks (a test that
/// restarts a server on the same directory finds the same database). On
/// SQLite, leaves the default file in the data directory.
pub async fn use_test_database(config: &mut Config) {
    if !test_backend_is_postgres() || !config.database_url.expose().starts_with("sqlite:") {
        return;
    }
    let url = postgres_database_for(&config.data_dir).await;
    config.database_url = control_plane::config::Secret::new(url);
}

/// A fresh PostgreSQL database on the `VIS_TEST_POSTGRES_URL` server for
/// `dir`, the same one for every call with the same directory.
pub async fn postgres_database_for(dir: &std::path::Path) -> String {
    static DATABASES: OnceLock<
        tokio::sync::Mutex<std::collections::HashMap<std::path::PathBuf, String>>,
    > = OnceLock::new();
    let mut known = DATABASES.get_or_init(Default::default).lock().await;
    if let Some(url) = known.get(dir) {
        return url.clone();
    }
    let url = fresh_postgres_database().await;
    known.insert(dir.to_owned(), url.clone());
    url
}

/// Creates a new, empty database on the `VIS_TEST_POSTGRES_URL` server and
/// returns its URL.
pub async fn fresh_postgres_database() -> String {
    let admin_url = std::env::var("VIS_TEST_POSTGRES_URL").expect(
        "VIS_TEST_BACKEND=postgres needs VIS_TEST_POSTGRES_URL (./infra/test.sh sets both)",
    );
    let name = format!("vis_test_{}", uuid::Uuid::new_v4().simple());
    let admin = control_plane::store::SqlStore::connect(&admin_url)
        .await
        .expect("connect to PostgreSQL");
    control_plane::store::execute_raw(&admin, &format!("CREATE DATABASE {name}"))
        .await
        .expect("create a test database");
    admin.close().await;
    let (base, _) = admin_url.rsplit_once('/').expect("URL has a database");
    format!("{base}/{name}")
}

/// Runs an operator command (`["keys", "revoke", id]`) on the data in
/// `data_dir` and the database at `database_url`; returns its stdout.
pub async fn operator(
    data_dir: &std::path::Path,
    database_url: &str,
    args: &[&str],
) -> Result<String, CliError> {
    let data_dir = data_dir.display().to_string();
    let mut argv = vec![
        "control-plane",
        "--data-dir",
        &data_dir,
        "--database-url",
        database_url,
    ];
    argv.extend_from_slice(args);
    let cli = Cli::try_parse_from(argv).map_err(|e| CliError::Usage(e.to_string()))?;
    control_plane::cli::run(cli).await
}

/// The PostgreSQL server of the tests that need one (`VIS_TEST_POSTGRES_URL`,
/// which infra/test.sh sets). None when `VIS_TEST_SKIP_POSTGRES=1` skips
/// them on purpose; without either, the test fails.
pub fn postgres_url_or_skip(test: &str) -> Option<String> {
    if let Ok(url) = std::env::var("VIS_TEST_POSTGRES_URL") {
        return Some(url);
    }
    if std::env::var("VIS_TEST_SKIP_POSTGRES").as_deref() == Ok("1") {
        eprintln!("{test}: skipped on purpose (VIS_TEST_SKIP_POSTGRES=1)");
        return None;
    }
    panic!(
        "VIS_TEST_POSTGRES_URL is not set: run ./infra/test.sh, or set VIS_TEST_SKIP_POSTGRES=1"
    );
}

/// Creates an account (with `credits`, else the free grant) and a key made
/// with `key_args` through the operator CLI; returns (key id, key).
pub async fn account_and_key(
    data_dir: &std::path::Path,
    database_url: &str,
    email: &str,
    credits: Option<i64>,
    key_args: &[&str],
) -> (String, String) {
    let credits = credits.map(|c| c.to_string());
    let mut account = vec!["accounts", "create", "--email", email];
    if let Some(c) = &credits {
        account.extend_from_slice(&["--credits", c]);
    }
    operator(data_dir, database_url, &account)
        .await
        .expect("account");
    let mut args = vec!["--json", "keys", "create", "--email", email];
    args.extend_from_slice(key_args);
    let out = operator(data_dir, database_url, &args).await.expect("key");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    (
        v["id"].as_str().expect("key id in output").to_owned(),
        v["key"].as_str().expect("key in output").to_owned(),
    )
}

/// The S3-compatible server of the tests that need one (`VIS_TEST_S3_ENDPOINT`,
/// which infra/test.sh sets after starting moto), checked to answer. None
/// when `VIS_TEST_SKIP_S3=1` skips them on purpose; without either, or when
/// the server does not answer, the test fails and says why.
pub async fn s3_endpoint_or_skip(test: &str) -> Option<String> {
    let Ok(endpoint) = std::env::var("VIS_TEST_S3_ENDPOINT") else {
        if std::env::var("VIS_TEST_SKIP_S3").as_deref() == Ok("1") {
            eprintln!("{test}: skipped on purpose (VIS_TEST_SKIP_S3=1)");
            return None;
        }
        panic!(
            "{test}: VIS_TEST_S3_ENDPOINT is not set: run ./infra/test.sh (it starts an S3-compatible server), or set VIS_TEST_SKIP_S3=1"
        );
    };
    let endpoint = endpoint.trim_end_matches('/').to_owned();
    if let Err(e) = http_client()
        .build()
        .expect("client")
        .get(&endpoint)
        .send()
        .await
    {
        panic!("{test}: VIS_TEST_S3_ENDPOINT={endpoint} does not answer: {e}");
    }
    for var in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
        assert!(
            std::env::var_os(var).is_some(),
            "{test}: {var} is not set; the S3 store takes credentials from the AWS chain, and infra/test.sh exports test ones for its server"
        );
    }
    Some(endpoint)
}

/// A new, empty bucket on the test S3 server at `endpoint`, and the store
/// settings that reach it (path-style, as S3-compatible servers want).
pub async fn fresh_s3_bucket(endpoint: &str) -> control_plane::config::S3Config {
    let bucket = format!("vis-test-{}", uuid::Uuid::new_v4().simple());
    // The test server (moto) creates buckets without a signature.
    let r = http_client()
        .build()
        .expect("client")
        .put(format!("{endpoint}/{bucket}"))
        .send()
        .await
        .expect("create a test bucket");
    assert!(r.status().is_success(), "create bucket: {}", r.status());
    control_plane::config::S3Config {
        bucket,
        region: Some("us-east-1".into()),
        endpoint: Some(endpoint.to_owned()),
        force_path_style: true,
        prefix: String::new(),
    }
}

/// The keys in `bucket` on the test S3 server, read with a plain
/// ListObjectsV2 request (not through the store under test).
pub async fn s3_keys(endpoint: &str, bucket: &str) -> Vec<String> {
    let xml = http_client()
        .build()
        .expect("client")
        .get(format!("{endpoint}/{bucket}?list-type=2&max-keys=1000"))
        .send()
        .await
        .expect("list the bucket")
        .text()
        .await
        .expect("listing");
    xml.split("<Key>")
        .skip(1)
        .filter_map(|s| s.split_once("</Key>").map(|(k, _)| k.to_owned()))
        .collect()
}
