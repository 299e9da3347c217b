//! The application's services, built once at start-up: the store, the
//! object store, the ledger, delivery and the render dispatcher, rate
//! limits, embeds, events, mail and payments. No HTTP here: `http::app`
//! binds the listener, builds the web face's state around [`AppState`]
//! and serves.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, ObjectStoreConfig, Secret};
use crate::delivery::Deliverer;
use crate::delivery::signed::{self, SignedUrls, TtlBounds};
use crate::delivery::tokens::{self, TokenKey};
use crate::metrics::Metrics;
use crate::objects::{FsObjectStore, ObjectStore, S3ObjectStore};
use crate::ratelimit::RateLimiter;
use crate::renders::cache::DerivedCache;
use crate::renders::worker::{InProcessRenderer, WorkerPool};
use crate::renders::{DispatchConfig, Dispatcher, RenderBackend};
use crate::revocations::RevocationSink;
use crate::store::{DeliveryUrlStore, RateStore, SqlStore, Store};

/// The setting that holds the site's cookie secret (sessions, CSRF,
/// flashes and the sandbox portal's links), made once and shared through
/// the database so replicas and restarts agree.
pub const WEB_SECRET_SETTING: &str = "web_secret";

/// The services every request may use: one pointer, so the clone each
/// extractor makes costs a reference count, not one per field.
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
    pub catalog: &'static vis_catalog::Catalog,
    pub limiter: Arc<RateLimiter>,
    pub metrics: Arc<Metrics>,
    pub deliverer: Deliverer,
    /// Signed delivery URLs: minting and loading.
    pub urls: Arc<SignedUrls>,
    /// The telemetry sink's queue (`POST /api/v1/events`).
    pub events: Arc<crate::events::EventSink>,
    /// The grants of `GET /images/car.png` (`embeds`).
    pub embeds: crate::embeds::Embeds,
    /// When feedback flags a render, and what follows (`[feedback]`).
    pub feedback: crate::config::FeedbackConfig,
    /// Sign-up and password-reset mail (`[mail]`).
    pub mailer: crate::people::mail::Mailer,
    /// Sign-up limits per client address and email domain (`[signup]`).
    pub signup: crate::config::SignupConfig,
    /// The payment provider that sells credit packs (`[payments]`).
    pub payments: Arc<dyn crate::payments::PaymentProvider>,
    /// The sandbox provider, when it is the one in use (its pages).
    pub sandbox: Option<Arc<crate::payments::sandbox::SandboxProvider>>,
}

/// What [`build`] makes: the services, and what the web face needs beside
/// them.
pub struct Services {
    pub state: AppState,
    /// The in-process render node's workers, when there is one.
    pub workers: Option<WorkerPool>,
    /// The site's cookie secret ([`WEB_SECRET_SETTING`]).
    pub web_secret: Secret<String>,
    /// The signed URLs' lifetime bounds (`[delivery]`).
    pub ttl: TtlBounds,
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

/// Builds the services for `config`, served at `base_url`. `backend` draws
/// the in-process render node's renders (None: no in-process node);
/// `sinks` are told of revocations beside the services' own caches (the web
/// face's key cache).
pub async fn build(
    config: &Config,
    backend: Option<Arc<dyn RenderBackend>>,
    base_url: String,
    sinks: Vec<Arc<dyn RevocationSink>>,
) -> Result<Services, StartError> {
    crate::memory::tune_allocator();
    let store = open_store(config).await?;
    let objects = open_objects(config).await?;
    let ttl = TtlBounds {
        default_secs: config.delivery.ttl_default,
        min_secs: config.delivery.ttl_min,
        max_secs: config.delivery.ttl_max,
    };
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
    // Services take only the ports they use; the rest of the app gets
    // the union.
    let render_store: Arc<dyn crate::renders::RenderStore> = store.clone();
    let delivery_store: Arc<dyn crate::delivery::DeliveryPorts> = store.clone();
    let store: Arc<dyn Store> = store;
    let urls = Arc::new(SignedUrls::new(
        TokenKey::new(secret.as_bytes()),
        store.clone(),
        ledger.clone(),
        ttl,
    ));
    let metrics = Arc::new(Metrics::default());
    let rc = &config.render;
    let dispatcher = Arc::new(Dispatcher::new(
        render_store,
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
            batch: rc.batch,
            node_lease: Duration::from_secs(rc.node_lease_secs),
            node_heartbeat: Duration::from_secs(rc.node_heartbeat_secs),
        },
        Arc::clone(&metrics),
    ));
    let workers = backend.map(|backend| {
        WorkerPool::start(
            rc.workers.max(1),
            &dispatcher,
            store.clone(),
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
        store: delivery_store,
        ledger,
        objects: Arc::clone(&objects),
        dispatcher,
        derived: Arc::new(DerivedCache::new(rc.derived_cache_bytes)),
        metrics: Arc::clone(&metrics),
        revisions: Arc::clone(&revisions),
    };
    let events = Arc::new(crate::events::EventSink::start(
        store.clone(),
        config.events.queue_batches,
    ));
    let limiter = Arc::new(RateLimiter::new(Arc::clone(&store) as Arc<dyn RateStore>));
    limiter.spawn_pruner();
    let partners = Arc::new(crate::embeds::partners::PartnerKeys::new(
        Arc::clone(&store) as Arc<dyn crate::store::PartnerStore>,
    ));
    partners.reload().await?;
    let mut all_sinks = sinks;
    all_sinks.extend([
        Arc::clone(&urls) as Arc<dyn RevocationSink>,
        Arc::clone(&partners) as Arc<dyn RevocationSink>,
        Arc::clone(&revisions) as Arc<dyn RevocationSink>,
    ]);
    crate::revocations::spawn(
        Arc::clone(&store) as Arc<dyn crate::store::RevocationStore>,
        all_sinks,
    );
    crate::delivery::signed::spawn_expiry_refunds(Arc::clone(&urls));
    let catalog = vis_catalog::Catalog::embedded();
    let examples = crate::embeds::examples::Examples::resolve(catalog, &config.embeds, rc.revision)
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
    let web_secret = store
        .setting_or_insert(WEB_SECRET_SETTING, &tokens::generate_secret())
        .await?;
    let mailer = crate::people::mail::Mailer::new(
        &config.mail.from,
        config.mail.smtp_url.as_ref(),
        config.mail.ca_file.as_deref(),
        &config
            .mail
            .outbox
            .clone()
            .unwrap_or_else(|| config.data_dir.join("outbox")),
    )
    .map_err(|e| StartError::Config(e.to_string()))?;
    let (payments, sandbox) = payment_provider(config, &base_url, &*store, &web_secret).await?;
    let state = AppState(Arc::new(Shared {
        events,
        store,
        objects,
        base_url: Arc::from(base_url),
        catalog,
        limiter,
        metrics,
        deliverer,
        urls,
        embeds,
        feedback: config.feedback.clone(),
        mailer,
        signup: config.signup.clone(),
        payments,
        sandbox,
    }));
    Ok(Services {
        state,
        workers,
        web_secret: Secret::new(web_secret),
        ttl,
    })
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;

    #[test]
    fn a_refined_revision_keeps_the_in_process_renderer_off() {
        let mut config = Config::from_overrides(Overrides::default()).unwrap();
        config.render.revision = vis_render::fold_revision(1, Some(&"cd".repeat(32)));
        let Err(err) = wgpu_backend(&config) else {
            panic!("an in-process renderer under a refined revision");
        };
        let err = err.to_string();
        assert!(err.contains("does not refine"), "{err}");
        assert!(err.contains("--no-local-renderer"), "{err}");
    }
}
