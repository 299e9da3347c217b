//! Funnel events (spec §6): `cli_install` once per config directory and
//! `cli_login` after a login, sent to the server's `POST /api/v1/events`
//! with `source: cli`.
//!
//! What is sent: the event name, `source`, and `properties` holding the CLI's
//! version, the OS and the CPU architecture. No identifier, no user or host
//! name, no key, no address beyond what any request carries.
//! `DO_NOT_TRACK=1` or `VIS_NO_TELEMETRY=1` sends nothing at all.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::Client;

/// A telemetry call never holds a command up for longer than this.
const TIMEOUT: Duration = Duration::from_secs(2);
/// The marker file in the config directory: written once, when the CLI first
/// runs there (whether or not telemetry is on, so that turning it on later
/// does not report an old install as new).
pub const INSTALL_MARKER: &str = "installed";

fn truthy(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| {
        let v = v.trim().to_ascii_lowercase();
        !v.is_empty() && v != "0" && v != "false" && v != "no"
    })
}

/// False when `DO_NOT_TRACK` or `VIS_NO_TELEMETRY` is set (to anything but
/// empty, `0`, `false` or `no`).
pub fn enabled() -> bool {
    !(truthy("DO_NOT_TRACK") || truthy("VIS_NO_TELEMETRY"))
}

fn event(name: &str) -> Value {
    json!({
        "event": name,
        "source": "cli",
        "properties": {
            "version": env!("CARGO_PKG_VERSION"),
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
        },
    })
}

async fn send(client: &Client, name: &str) {
    if !enabled() {
        return;
    }
    // Telemetry never fails a command: an error is only shown on request.
    if let Err(e) = client
        .events(&json!({ "events": [event(name)] }), TIMEOUT)
        .await
        && std::env::var_os("VIS_DEBUG").is_some()
    {
        eprintln!("vis: telemetry not sent: {e}");
    }
}

/// Sends `cli_install` the first time the CLI runs with `config_dir`.
pub async fn install_once(client: &Client, config_dir: &Path) {
    let marker = config_dir.join(INSTALL_MARKER);
    if marker.exists() {
        return;
    }
    if crate::config::private_dir(config_dir).is_err()
        || std::fs::write(&marker, concat!(env!("CARGO_PKG_VERSION"), "\n")).is_err()
    {
        // A directory we cannot write to would report an install on every run.
        return;
    }
    send(client, "cli_install").await;
}

pub async fn login(client: &Client) {
    send(client, "cli_login").await;
}
