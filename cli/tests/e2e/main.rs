//! `vis` end to end: the real control plane on port 0 (SQLite in a temp
//! directory, the real renderer on lavapipe where images are drawn), the
//! real `vis` binary as a child process with its own HOME, config and cache
//! directories. One test binary, one module per area.

mod batch;
mod errors;
mod images;
mod json;
mod login;
mod support;
mod telemetry;
