//! The control plane of the vehicle image service.
//!
//! Code map, top to bottom (a module imports only those below it; the
//! tidy test checks): `cli` (operator commands) · `http/` (the web face:
//! the router, one module per resource, problem+json in `http::error`, MCP
//! in `http::mcp`, serving in `http::app`) · `app` (the services, built
//! once) · domain modules with no axum or sqlx in them (`billing`,
//! `delivery`, `renders`, `embeds`, `payments`, `people`, …) · `store/`
//! (SQL) and `objects/` (filesystem, S3) · leaves (`auth`, `config`,
//! `limits`). ARCHITECTURE.md at the repository root states the
//! invariants.

pub mod app;
pub mod auth;
pub mod billing;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod embeds;
pub mod events;
pub mod http;
pub mod limits;
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

pub use app::AppState;
pub use config::Config;
pub use http::app::App;
pub use http::state::HttpState;
pub use vis_catalog::Catalog;
