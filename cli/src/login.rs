//! `vis login`: the RFC 8628 device flow against the server's device-login
//! endpoints (docs/device-login.md). The person sees the user code and where
//! to approve it; the device code stays in this process.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use crate::api::{Client, TokenPoll};
use crate::config::ApiKey;
use crate::error::{Error, Result};

/// RFC 8628 §3.5: after `slow_down`, the interval grows by 5 s for good.
const SLOW_DOWN_STEP: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub struct Granted {
    pub key: ApiKey,
    pub scopes: Vec<String>,
}

/// Opens `url` in a browser when someone is at a terminal with a display;
/// says nothing and fails nothing when that is not possible.
fn try_open_browser(url: &str) {
    if !std::io::stderr().is_terminal() {
        return;
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        let display = ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()));
        if !display {
            return;
        }
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// Runs the flow to the end: the key, or why not.
pub async fn device_login(
    client: &Client,
    client_name: &str,
    open_browser: bool,
) -> Result<Granted> {
    let code = client.device_code(client_name).await?;
    let complete = code
        .verification_uri_complete
        .clone()
        .unwrap_or_else(|| code.verification_uri.clone());
    // Instructions go to stderr: they are for the person, stdout is the result.
    eprintln!(
        "To log in, open {}\nand enter the code:\n\n    {}\n\n(or open {complete})\nWaiting for approval; the code expires in {} minutes.",
        code.verification_uri,
        code.user_code,
        code.expires_in.div_ceil(60)
    );
    if open_browser {
        try_open_browser(&complete);
    }
    let deadline = Instant::now() + Duration::from_secs(code.expires_in);
    let mut interval = Duration::from_secs(code.interval.max(1));
    loop {
        tokio::time::sleep(interval).await;
        if Instant::now() >= deadline {
            return Err(Error::Login(
                "expired: the code was not approved in time; run `vis login` again".into(),
            ));
        }
        match client.device_token(&code.device_code).await? {
            TokenPoll::Granted { key, scope } => {
                return Ok(Granted {
                    key,
                    scopes: scope.split_whitespace().map(str::to_owned).collect(),
                });
            }
            TokenPoll::Pending => {}
            TokenPoll::SlowDown { retry_after_secs } => {
                interval += SLOW_DOWN_STEP;
                // Never poll before the server says it is welcome.
                if let Some(s) = retry_after_secs {
                    interval = interval.max(Duration::from_secs(s));
                }
            }
            TokenPoll::Expired => {
                return Err(Error::Login(
                    "expired: the code is no longer valid; run `vis login` again".into(),
                ));
            }
            TokenPoll::Denied => {
                return Err(Error::Login("denied: the code was not approved".into()));
            }
        }
    }
}
