//! Black-box tests: one binary, one module per area (links once).

mod auth;
mod cli;
mod delivery_urls;
mod device;
mod docs;
mod embeds;
mod errors;
mod events;
mod feedback;
mod hardening;
mod idempotency;
mod images;
mod infra;
mod ledger_model;
mod mcp;
mod memory;
mod nodes;
mod object_store;
mod options;
mod people;
mod prewarm;
mod replicas;
mod resolve;
mod server_log;
mod store_conformance;
mod vehicles;
