//! Application state, start-up and serving. `App::build` binds (port 0
//! allowed) and exposes the bound address, so tests start the real app.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::config::{Config, HttpConfig, ObjectStoreConfig};
use crate::delivery::Deliverer;
use crate::delivery::signed::{self, SignedUrls, TtlBounds};
use crate::delivery::tokens::{self, TokenKey};
use crate::http;
use crate::metrics::Metrics;
use crate::objects::{FsObjectStore, ObjectStore, S3ObjectStore};
use crate::ratelimit::RateLimiter;
use crate::renders::cache::DerivedCache;
use crate::renders::worker::{InProcessRenderer, WorkerPool};
use crate::renders::{DispatchConfig, Dispatcher, RenderBackend};
use crate::store::{DeliveryUrlStore, RateStore, SqlStore, Store};

/// Shared by every request: one pointer, so the clone each extractor makes
/// costs a reference count, not one per field.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] points to.
pub struct Shared {
    pub store: Arc<dyn Store>,
    pub objects: Arc<dyn ObjectStore>,
    pub base_url: Arc<str>,
    /// The options document's `data`, built once.
    pub options: Arc<http::options::OptionsDocument>,
    pub catalog: &'static vis_catalog::Catalog,
    pub limiter: Arc<RateLimiter>,
    /// Keys seen recently (see `http::auth::CachedAuth`).
    pub keys: Arc<crate::auth::KeyCache<Arc<crate::http::auth::Principal>>>,
    pub metrics: Arc<Metrics>,
    pub deliverer: Deliverer,
    /// Signed delivery URLs: minting and loading.
    pub urls: Arc<SignedUrls>,
    /// The telemetry sink's queue (`POST /api/v1/events`).
    pub events: Arc<crate::events::EventSink>,
    /// The grants of `GET /images/car.png` (`embeds`).
    pub embeds: crate::embeds::Embeds,
    /// The web pages' templates (`http::pages`).
    pub pages: crate::http::pages::Pages,
    /// The MCP endpoint's transport (`mcp`), stateless.
    pub mcp: crate::mcp::McpService,
    /// When feedback flags a render, and what follows (`[feedback]`).
    pub feedback: crate::config::FeedbackConfig,
    /// Pages for people: the web secret, cookies, mail (`http::web`).
    pub web: crate::http::web::Web,
    /// The payment provider that sells credit packs (`[payments]`).
    pub payments: Arc<dyn crate::payments::PaymentProvider>,
    /// The sandbox provider, when it is the one in use (its pages).
    pub sandbox: Option<Arc<crate::payments::sandbox::SandboxProvider>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot create data directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Objects(#[from] crate::objects::ObjectError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("configuration: {0}")]
    Config(String),
    #[error(
        "the renderer cannot start: {0}. Without a GPU, install Mesa's lavapipe (apt-get install mesa-vulkan-drivers), or set render.workers = 0 to run without an in-process render node"
    )]
    Renderer(String),
}

/// Opens the configured database and applies migrations.
pub async fn open_store(config: &Config) -> Result<SqlStore, StartError> {
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
        path: config.data_dir.display().to_string(),
        source,
    })?;
    let store = SqlStore::connect(config.database_url.expose()).await?;
    store.migrate().await?;
    Ok(store)
}

/// Opens the configured object store and checks that it can be written, so
/// a missing bucket or a wrong endpoint stops the start with a message that
/// names the setting, not the first render.
pub async fn open_objects(config: &Config) -> Result<Arc<dyn ObjectStore>, StartError> {
    let objects: Arc<dyn ObjectStore> = match &config.object_store {
        ObjectStoreConfig::Filesystem { root } => Arc::new(FsObjectStore::new(root)?),
        ObjectStoreConfig::S3(s3) => Arc::new(S3ObjectStore::connect(s3).await?),
    };
    objects.check().await?;
    Ok(objects)
}

pub struct App {
    listener: TcpListener,
    /// The operators' listener for `GET /metrics`, when configured apart.
    metrics_listener: Option<TcpListener>,
    http: HttpConfig,
    state: AppState,
    grace: Duration,
    extra_routes: Option<axum::Router<AppState>>,
    workers: Option<WorkerPool>,
}

/// The wgpu renderer as the in-process render node's backend. It draws
/// procedural renders only, so a refined (folded) `[render] revision` is
/// refused here, at start-up, rather than by every job it leases.
pub fn wgpu_backend(config: &Config) -> Result<Arc<dyn RenderBackend>, StartError> {
    if vis_render::is_folded(config.render.revision) {
        return Err(StartError::Config(format!(
            "[render] revision {} is a refined revision (folded with a model's fingerprint), \
             but the in-process render node does not refine: run with --no-local-renderer \
             (VIS_LOCAL_RENDERER=false) and refining render nodes (docs/rendering.md)",
            config.render.revision
        )));
    }
    let renderer = vis_render::Renderer::new(vis_render::RendererConfig {
        max_in_flight: config.render.workers.max(1),
        ..Default::default()
    })
    .map_err(|e| StartError::Renderer(e.to_string()))?;
    tracing::info!(adapter = %renderer.adapter().name, backend = ?renderer.adapter().backend, "renderer ready");
    Ok(Arc::new(InProcessRenderer::new(Arc::new(renderer))))
}

/// The provider `[payments]` names; the sandbox's webhook secret is made
/// once and shared through the database, like the other generated secrets.
async fn payment_provider(
    config: &Config,
    base_url: &str,
    store: &dyn Store,
    web_secret: &str,
) -> Result<
    (
        Arc<dyn crate::payments::PaymentProvider>,
        Option<Arc<crate::payments::sandbox::SandboxProvider>>,
    ),
    StartError,
> {
    use crate::config::Secret;
    let p = &config.payments;
    if p.provider == "stripe" {
        let (Some(key), Some(hook)) = (&p.stripe_api_key, &p.stripe_webhook_secret) else {
            return Err(StartError::Config(
                "[payments] stripe needs stripe_api_key and stripe_webhook_secret".into(),
            ));
        };
        let stripe = crate::payments::stripe::StripeProvider::new(
            key.clone(),
            hook.clone(),
            p.stripe_api_base.clone(),
        )
        .map_err(|e| StartError::Config(e.to_string()))?;
        return Ok((Arc::new(stripe), None));
    }
    let hook = store
        .setting_or_insert(
            "sandbox_webhook_secret",
            &format!("whsec_{}", tokens::generate_secret()),
        )
        .await?;
    if base_url.starts_with("https://") {
        // Config refuses this unless payments.allow_sandbox_on_https says so.
        tracing::warn!(
            base_url,
            "THE SANDBOX PAYMENT PROVIDER IS ON behind an https base URL (payments.allow_sandbox_on_https): \
             its payment page adds credits without money, for anyone with a key. Never run it on a public site; \
             use provider = \"stripe\"."
        );
    }
    let sandbox = Arc::new(crate::payments::sandbox::SandboxProvider::new(
        base_url.to_owned(),
        Secret::new(hook),
        Secret::new(format!("portal:{web_secret}").into_bytes()),
    ));
    Ok((
        Arc::clone(&sandbox) as Arc<dyn crate::payments::PaymentProvider>,
        Some(sandbox),
    ))
}

impl App {
    /// Builds the embedded default: the in-process render node draws with
    /// wgpu (unless `render.workers` is 0).
    pub async fn build(config: Config) -> Result<App, StartError> {
        let backend = if config.render.workers > 0 && config.render.local_renderer {
            Some(wgpu_backend(&config)?)
        } else {
            None
        };
        App::build_with_backend(config, backend).await
    }

    /// Builds with a given render backend (None: no in-process node).
    pub async fn build_with_backend(
        config: Config,
        backend: Option<Arc<dyn RenderBackend>>,
    ) -> Result<App, StartError> {
        crate::memory::tune_allocator();
        let store = open_store(&config).await?;
        let objects = open_objects(&config).await?;
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| StartError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let metrics_listener = match config.metrics_listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|source| StartError::Bind { addr, source })?,
            ),
            None => None,
        };
        // Port 0 means "pick one": the base URL then follows the bound port.
        let base_url = if config.listen.port() == 0 {
            let addr = listener.local_addr().map_err(|source| StartError::Bind {
                addr: config.listen,
                source,
            })?;
            match config.base_url.strip_suffix(":0") {
                Some(host) => format!("{host}:{}", addr.port()),
                None => config.base_url.clone(),
            }
        } else {
            config.base_url.clone()
        };
        let ttl = TtlBounds {
            default_secs: config.delivery.ttl_default,
            min_secs: config.delivery.ttl_min,
            max_secs: config.delivery.ttl_max,
        };
        let options = http::options::document(&base_url, &crate::catalog_summary(), &ttl);
        // The delivery secret: configured, else generated once and shared
        // through the database (replicas agree, restarts keep URLs valid).
        let secret = match &config.delivery.secret {
            Some(secret) => secret.expose().clone(),
            None => {
                store
                    .setting_or_insert(signed::SECRET_SETTING, &tokens::generate_secret())
                    .await?
            }
        };
        let store = Arc::new(store);
        // The ledger holds the only handle to the credit-moving writes; the
        // rest of the app gets the store without them.
        let ledger = crate::billing::Ledger::start(
            Arc::clone(&store) as Arc<dyn crate::store::CreditStore>,
            &config.database_url,
            &config.billing,
        )
        .await?;
        let store: Arc<dyn Store> = store;
        let urls = Arc::new(SignedUrls::new(
            TokenKey::new(secret.as_bytes()),
            Arc::clone(&store),
            ledger.clone(),
            ttl,
        ));
        let metrics = Arc::new(Metrics::default());
        let rc = &config.render;
        let dispatcher = Arc::new(Dispatcher::new(
            Arc::clone(&store),
            Arc::clone(&objects),
            DispatchConfig {
                revision: rc.revision,
                job_timeout: Duration::from_secs(rc.job_timeout_secs),
                default_daily_budget: rc.daily_budget,
                max_queue_depth: rc.max_queue_depth,
                workers: if backend.is_some() {
                    rc.workers.max(1)
                } else {
                    0
                },
                node_lease: Duration::from_secs(rc.node_lease_secs),
                node_heartbeat: Duration::from_secs(rc.node_heartbeat_secs),
            },
            Arc::clone(&metrics),
        ));
        let workers = backend.map(|backend| {
            WorkerPool::start(
                rc.workers.max(1),
                &dispatcher,
                Arc::clone(&store),
                Arc::clone(&objects),
                backend,
                Arc::clone(&metrics),
            )
        });
        let revisions = Arc::new(crate::renders::revisions::Revisions::new(
            rc.revision,
            store.variant_bumps().await?,
        ));
        let deliverer = Deliverer {
            store: Arc::clone(&store),
            ledger,
            objects: Arc::clone(&objects),
            dispatcher,
            derived: Arc::new(DerivedCache::new(rc.derived_cache_bytes)),
            metrics: Arc::clone(&metrics),
            revisions: Arc::clone(&revisions),
        };
        let events = Arc::new(crate::events::EventSink::start(
            Arc::clone(&store),
            config.events.queue_batches,
        ));
        let limiter = Arc::new(RateLimiter::new(Arc::clone(&store) as Arc<dyn RateStore>));
        limiter.spawn_pruner();
        let keys = Arc::new(crate::auth::KeyCache::new(Duration::from_secs(60), 100_000));
        let partners = Arc::new(crate::embeds::partners::PartnerKeys::new(
            Arc::clone(&store) as Arc<dyn crate::store::PartnerStore>,
        ));
        partners.reload().await?;
        crate::revocations::spawn(
            Arc::clone(&store) as Arc<dyn crate::store::RevocationStore>,
            vec![
                Arc::clone(&keys) as Arc<dyn crate::revocations::RevocationSink>,
                Arc::clone(&urls) as Arc<dyn crate::revocations::RevocationSink>,
                Arc::clone(&partners) as Arc<dyn crate::revocations::RevocationSink>,
                Arc::clone(&revisions) as Arc<dyn crate::revocations::RevocationSink>,
            ],
        );
        let catalog = vis_catalog::Catalog::embedded();
        let examples =
            crate::embeds::examples::Examples::resolve(catalog, &config.embeds, rc.revision)
                .map_err(StartError::Config)?;
        let embeds = crate::embeds::Embeds {
            partners,
            examples,
            cookies: crate::embeds::playground::PlaygroundCookies::new(secret.as_bytes()),
            playground: config.playground.clone(),
            allow_legacy_query_keys: config.embeds.allow_legacy_query_keys,
            cached_derivations_per_address: config.embeds.cached_derivations_per_address,
            cached_derivations_per_minute: config.embeds.cached_derivations_per_minute,
        };
        if config.embeds.prewarm_examples && workers.is_some() {
            crate::embeds::examples::prewarm(deliverer.clone(), embeds.examples.clone());
        }
        let pages = crate::http::pages::Pages::new().map_err(StartError::Config)?;
        let web_secret = store
            .setting_or_insert(crate::http::web::SECRET_SETTING, &tokens::generate_secret())
            .await?;
        let mailer = crate::people::mail::Mailer::new(
            &config.mail.from,
            config.mail.smtp_url.as_ref(),
            &config
                .mail
                .outbox
                .clone()
                .unwrap_or_else(|| config.data_dir.join("outbox")),
        )
        .map_err(|e| StartError::Config(e.to_string()))?;
        let web = crate::http::web::Web::new(web_secret.as_bytes(), &base_url, mailer);
        let (payments, sandbox) =
            payment_provider(&config, &base_url, &*store, &web_secret).await?;
        let base_url_for_mcp = base_url.clone();
        let state = AppState(Arc::new(Shared {
            events,
            store,
            objects,
            base_url: Arc::from(base_url),
            options: Arc::new(options),
            catalog,
            limiter,
            keys,
            metrics,
            deliverer,
            urls,
            embeds,
            pages,
            mcp: crate::mcp::service(&base_url_for_mcp),
            feedback: config.feedback.clone(),
            web,
            payments,
            sandbox,
        }));
        Ok(App {
            listener,
            metrics_listener,
            http: config.http.clone(),
            state,
            grace: Duration::from_secs(config.shutdown_grace_secs),
            extra_routes: None,
            workers,
        })
    }

    /// Adds routes that get the same middleware as the API's own (embedders
    /// and tests; e.g. a route that panics, to prove panics become problems).
    pub fn with_routes(mut self, routes: axum::Router<AppState>) -> App {
        self.extra_routes = Some(routes);
        self
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("bound listener has an address")
    }

    /// Where `GET /metrics` is served apart, if configured.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    pub fn base_url(&self) -> &str {
        &self.state.base_url
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests finish
    /// (up to the configured grace period).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let events = Arc::clone(&self.state.events);
        let limits = http::server::Limits::new(&self.http, Arc::clone(&self.state.base_url));
        let body_clocks = http::body_clock::BodyClocks {
            pause: Duration::from_secs(self.http.body_read_timeout_secs),
            total: Duration::from_secs(self.http.body_total_timeout_secs),
        };
        let separate_metrics = self.metrics_listener.is_some();
        if let Some(listener) = self.metrics_listener {
            let router = http::metrics_router(self.state.clone());
            let limits = limits.clone();
            // Lives as long as the process: scrapes need no graceful drain.
            tokio::spawn(async move {
                http::server::serve(listener, router, limits, std::future::pending()).await;
            });
        }
        let router = http::router(
            self.state,
            self.extra_routes,
            http::RouterOptions {
                body_clocks,
                metrics: !separate_metrics,
            },
        );
        let workers = self.workers;
        let grace = self.grace;
        let graceful = http::server::serve(self.listener, router, limits, async move {
            shutdown.await;
            tracing::info!("shutdown requested; finishing in-flight requests");
        })
        .await;
        let served = tokio::select! {
            () = graceful.shutdown() => Ok(()),
            () = tokio::time::sleep(grace) => {
                tracing::warn!(grace_secs = grace.as_secs(), "grace period over; dropping remaining connections");
                Ok(())
            }
        };
        // Renders in hand finish and are stored; queued jobs stay queued for
        // the next start (or another node).
        if let Some(workers) = workers {
            workers.shutdown().await;
        }
        // Accepted events into the database.
        events.shutdown(Duration::from_secs(5)).await;
        served
    }

    /// Serves until SIGINT or SIGTERM.
    pub async fn run(self) -> std::io::Result<()> {
        self.run_until(shutdown_signal()).await
    }
}

pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{FileConfig, Overrides};

    #[test]
    fn a_refined_revision_keeps_the_in_process_renderer_off() {
        let mut config = Config::merge(FileConfig::default(), Overrides::default()).unwrap();
        config.render.revision = vis_render::fold_revision(1, Some(&"cd".repeat(32)));
        let Err(err) = wgpu_backend(&config) else {
            panic!("an in-process renderer under a refined revision");
        };
        let err = err.to_string();
        assert!(err.contains("does not refine"), "{err}");
        assert!(err.contains("--no-local-renderer"), "{err}");
    }
}
