//! `vis`: the command-line client of the vehicle image service for API
//! users. The library holds the HTTP calls (`api`), the saved key and paths
//! (`config`), the ETag cache (`cache`), device login (`login`), batches
//! (`batch`) and funnel events (`telemetry`); `cli` is the command line,
//! and `main.rs` only runs it. docs/cli.md is the user's guide.

pub mod api;
pub mod batch;
pub mod cache;
pub mod cli;
pub mod config;
pub mod error;
pub mod login;
pub mod telemetry;
