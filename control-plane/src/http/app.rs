//! The running service: binds the listeners (port 0 allowed, and the bound
//! address exposed, so tests start the real app), builds the services
//! (`crate::app`) and the web face's state around them, and serves until
//! shut down.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::state::{HttpShared, HttpState};
use crate::app::{self, AppState, StartError};
use crate::config::{Config, HttpConfig};
use crate::renders::RenderBackend;
use crate::renders::worker::WorkerPool;

pub struct App {
    listener: TcpListener,
    /// The operators' listener for `GET /metrics`, when configured apart.
    metrics_listener: Option<TcpListener>,
    http: HttpConfig,
    state: HttpState,
    grace: Duration,
    extra_routes: Option<axum::Router<HttpState>>,
    workers: Option<WorkerPool>,
}

impl App {
    /// Builds the embedded default: the in-process render node draws with
    /// wgpu (unless `render.workers` is 0).
    pub async fn build(config: Config) -> Result<App, StartError> {
        let backend = if config.render.workers > 0 && config.render.local_renderer {
            Some(app::wgpu_backend(&config)?)
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
        let keys = Arc::new(crate::auth::KeyCache::new(Duration::from_secs(60), 100_000));
        let services = app::build(
            &config,
            backend,
            base_url.clone(),
            vec![Arc::clone(&keys) as Arc<dyn crate::revocations::RevocationSink>],
        )
        .await?;
        let options =
            super::options::document(&base_url, &super::options::catalog_summary(), &services.ttl);
        let pages = super::pages::Pages::new().map_err(StartError::Config)?;
        let web = super::web::Web::new(services.web_secret.expose().as_bytes(), &base_url);
        let state = HttpState::new(HttpShared {
            app: services.state,
            options: Arc::new(options),
            keys,
            pages,
            web,
            mcp: super::mcp::service(&base_url),
        });
        super::billing::spawn_auto_reloads(state.clone());
        Ok(App {
            listener,
            metrics_listener,
            http: config.http.clone(),
            state,
            grace: Duration::from_secs(config.shutdown_grace_secs),
            extra_routes: None,
            workers: services.workers,
        })
    }

    /// Adds routes that get the same middleware as the API's own (embedders
    /// and tests; e.g. a route that panics, to prove panics become problems).
    pub fn with_routes(mut self, routes: axum::Router<HttpState>) -> App {
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

    /// The services (for embedders and tests).
    pub fn state(&self) -> &AppState {
        &self.state.app
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests finish
    /// (up to the configured grace period).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let events = Arc::clone(&self.state.events);
        let limits = super::server::Limits::new(&self.http, Arc::clone(&self.state.base_url));
        let body_clocks = super::body_clock::BodyClocks {
            pause: Duration::from_secs(self.http.body_read_timeout_secs),
            total: Duration::from_secs(self.http.body_total_timeout_secs),
        };
        let separate_metrics = self.metrics_listener.is_some();
        if let Some(listener) = self.metrics_listener {
            let router = super::metrics_router(self.state.clone());
            let limits = limits.clone();
            // Lives as long as the process: scrapes need no graceful drain.
            tokio::spawn(async move {
                super::server::serve(listener, router, limits, std::future::pending()).await;
            });
        }
        let router = super::router(
            self.state,
            self.extra_routes,
            super::RouterOptions {
                body_clocks,
                metrics: !separate_metrics,
            },
        );
        let workers = self.workers;
        let grace = self.grace;
        let graceful = super::server::serve(self.listener, router, limits, async move {
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
