//! The control plane of the vehicle image service.
//!
//! Code map: `app` (state, router, serve) · `config` · `error` (the one
//! problem+json mapping) · `http/` (one module per resource) · domain modules
//! with no axum or sqlx in them (`auth`, `billing`, `payments` for the
//! payment providers, `people` for passwords, tokens and mail) · `store/` (SQL) · `objects/` (filesystem, S3) · `cli`
//! (operator commands). ARCHITECTURE.md at the repository root states the
//! invariants.

pub mod app;
pub mod auth;
pub mod billing;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod embeds;
pub mod error;
pub mod events;
pub mod http;
pub mod limits;
pub mod mcp;
pub mod memory;
pub mod metrics;
pub mod objects;
pub mod payments;
pub mod people;
pub mod prewarm;
pub mod ratelimit;
pub mod renders;
pub mod revocations;
pub mod store;

pub use app::{App, AppState};
pub use config::Config;
pub use vis_catalog::Catalog;

/// What the options document says about the embedded catalog.
pub fn catalog_summary() -> http::options::CatalogSummary {
    let catalog = vis_catalog::Catalog::embedded();
    let stats = catalog.stats();
    http::options::CatalogSummary {
        makes: stats.makes,
        models: stats.models,
        years: http::options::YearRange {
            from: stats.years.from,
            to: stats.years.to,
        },
        sources: catalog
            .sources()
            .iter()
            .map(|s| http::options::CatalogSource {
                id: s.id.clone(),
                name: s.name.clone(),
                region: s.region.clone(),
                license: s.license.clone(),
            })
            .collect(),
    }
}
