//! The server behind `infra/bench-http.sh`: the real app on the embedded
//! default with the real renderer, plus two unbilled routes that serve the
//! same cached bytes through the same delivery path:
//!
//! - `/bench/unbilled`: no key, no rate limit, no response headers beyond
//!   the content type: the floor of serving these bytes at all.
//! - `/bench/unbilled-keyed`: everything `GET /api/v1/images/car` does on a
//!   cache hit (the cached key, the per-key rate limit, parsing, lookup,
//!   ETag, Content-Location and every header the spec lists) except the
//!   ledger: no charge, no delivery record.
//!
//! Billed against the first is the whole cost of metering; billed against
//! the second is the cost of the ledger alone.
//!
//! Prints `READY <base_url>` when the variant is warm; the bench key is
//! written to `<data_dir>/bench.key` (mode 0600), never printed.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use control_plane::http::auth::{CachedAuth, ImagesRead};
use control_plane::http::error::ApiError;
use control_plane::http::images::parse_query;
use control_plane::http::rate;
use control_plane::{App, AppState, Config, delivery};

async fn cached_output(
    state: &AppState,
    q: Option<&str>,
) -> Result<(delivery::Resolved, control_plane::renders::cache::Derived), ApiError> {
    let (params, _) = parse_query(q)?;
    let revision = state.deliverer.dispatcher.config().revision;
    let resolved = delivery::resolve(state.catalog, &params, revision)
        .map_err(|e| ApiError::NotFound(e.to_string()))?;
    let (out, _) = state
        .deliverer
        .output(&resolved)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok((resolved, out))
}

async fn unbilled(
    State(state): State<AppState>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let (_, out) = cached_output(&state, q.as_deref()).await?;
    let mut r = out.bytes.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(out.format.mime()),
    );
    Ok(r)
}

async fn unbilled_keyed(
    State(state): State<AppState>,
    CachedAuth(principal, ..): CachedAuth<ImagesRead>,
    RawQuery(q): RawQuery,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    let result = match admitted {
        Ok(()) => cached_output(&state, q.as_deref()).await,
        Err(refused) => Err(refused),
    };
    let response = match result {
        Ok((resolved, out)) => {
            let value = |s: String| HeaderValue::from_str(&s).expect("ASCII header");
            let mut r = out.bytes.into_response();
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(out.format.mime()),
            );
            h.insert(header::ETAG, value(resolved.etag()));
            h.insert(
                header::CONTENT_LOCATION,
                value(format!("{}{}", state.base_url, resolved.canonical_path())),
            );
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            );
            h.insert("x-credits-charged", HeaderValue::from(0));
            h.insert("x-credits-remaining", HeaderValue::from(0));
            h.insert("x-image-source", HeaderValue::from_static("cache"));
            h.insert("x-image-width", HeaderValue::from(out.width));
            h.insert("x-image-height", HeaderValue::from(out.height));
            r
        }
        Err(e) => e.into_response(),
    };
    rate::with_headers(response, &decision)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: bench-server DATA_DIR");
    let dir = std::path::PathBuf::from(dir);
    let mut config = Config::for_tests(&dir);
    config.render.workers = 1;
    // The scale-out database instead of the embedded SQLite file (the
    // operator CLI below reads the same variable).
    if let Ok(url) = std::env::var("VIS_DATABASE_URL") {
        config.database_url = control_plane::config::Secret::new(url);
    }
    // Experiments with the ledger's group commit (docs/benchmarks.md).
    if let Some(n) = std::env::var("VIS_BENCH_BATCHES_IN_FLIGHT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config.billing.batches_in_flight = n;
    }
    let app = App::build_with_backend(
        config.clone(),
        Some(control_plane::app::wgpu_backend(&config)?),
    )
    .await?
    .with_routes(
        axum::Router::new()
            .route("/bench/unbilled", get(unbilled))
            .route("/bench/unbilled-keyed", get(unbilled_keyed)),
    );
    let base = app.base_url().to_owned();
    let state: AppState = app.state().clone();
    let server = tokio::spawn(app.run());

    let run = |args: &[&str]| {
        let mut argv = vec![
            "control-plane".to_owned(),
            "--data-dir".into(),
            dir.display().to_string(),
        ];
        argv.extend(args.iter().map(|s| s.to_string()));
        control_plane::cli::run(<control_plane::cli::Cli as clap::Parser>::parse_from(argv))
    };
    run(&[
        "accounts",
        "create",
        "--email",
        "bench@example.com",
        "--credits",
        "100000000",
    ])
    .await?;
    let out = run(&[
        "--json",
        "keys",
        "create",
        "--email",
        "bench@example.com",
        "--rate-limit",
        "100000000",
    ])
    .await?;
    let key: serde_json::Value = serde_json::from_str(&out)?;
    let key_path = dir.join("bench.key");
    std::fs::write(&key_path, key["key"].as_str().unwrap_or_default())?;
    #[cfg(unix)]
    std::fs::set_permissions(
        &key_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )?;

    // Warm the variant through the billed path once.
    let (params, _) = parse_query(Some(
        "make=toyota&model=camry&year=2019&color=red&view=side&w=512&format=webp",
    ))
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let resolved = delivery::resolve(state.catalog, &params, 1)?;
    state
        .deliverer
        .output(&resolved)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    drop(state);
    println!("READY {base}");
    server.await??;
    Ok(())
}
