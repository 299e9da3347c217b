//! The control plane of the vehicle image service.
//!
//! Code map: `app` (state, router, serve) · `config` · `error` (the one
//! problem+json mapping) · `http/` (one module per resource) · domain modules
//! with no axum or sqlx in them (`auth`, `billing`) · `store/` (SQL) ·
//! `objects/` (filesystem, S3) · `cli` (operator commands). ARCHITECTURE.md at
//! the repository root states the invariants.

pub mod app;
pub mod auth;
pub mod billing;
pub mod cli;
pub mod config;
pub mod error;
pub mod http;
pub mod limits;
pub mod objects;
pub mod ratelimit;
pub mod store;

pub use app::{App, AppState};
pub use config::Config;

/// What the options document says about the embedded catalog.
pub fn catalog_summary() -> http::options::CatalogSummary {
    http::options::CatalogSummary {
        makes: 0,
        models: 0,
        years: http::options::YearRange {
            from: 1990,
            to: 2026,
        },
        sources: Vec::new(),
    }
}
