//! The CLI's one error type and its exit codes (docs/cli.md, Exit codes).

use std::fmt;

use serde_json::{Value, json};

/// Exit codes; each failure class has its own, so scripts can tell them apart.
pub mod exit {
    pub const OK: i32 = 0;
    /// Anything else: a 5xx, a local file that cannot be written, an answer
    /// the CLI does not understand.
    pub const FAILURE: i32 = 1;
    /// Bad arguments or an unreadable input file (clap uses 2 as well).
    pub const USAGE: i32 = 2;
    /// Not logged in, or the key was refused (401) or lacks a scope (403).
    pub const AUTH: i32 = 3;
    /// Not enough credits (402).
    pub const CREDITS: i32 = 4;
    /// The server refused the request as asked (400, 404, 409, 410, 413).
    pub const REJECTED: i32 = 5;
    /// Rate limited (429) or unavailable (503) after the retries.
    pub const BUSY: i32 = 6;
    /// The server could not be reached.
    pub const NETWORK: i32 = 7;
    /// Device login denied or expired.
    pub const LOGIN: i32 = 8;
    /// A batch finished, but some of its rows failed.
    pub const PARTIAL: i32 = 9;
    /// Interrupted (Ctrl-C).
    pub const INTERRUPTED: i32 = 130;
}

/// An RFC 9457 problem document as the server sent it.
#[derive(Debug, Clone)]
pub struct Problem {
    pub status: u16,
    pub title: String,
    pub detail: String,
    pub request_id: Option<String>,
    /// The whole document, for `--json`.
    pub body: Value,
}

impl Problem {
    /// Reads a problem body; a body that is not one still makes a problem
    /// from the status line.
    pub fn from_body(status: u16, body: &[u8]) -> Problem {
        let value: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        let fallback = String::from_utf8_lossy(body)
            .trim()
            .chars()
            .take(200)
            .collect();
        Problem {
            status,
            title: text("title").unwrap_or_else(|| format!("HTTP {status}")),
            detail: text("detail")
                .or_else(|| text("error_description"))
                .unwrap_or(fallback),
            request_id: text("request_id"),
            body: value,
        }
    }

    pub fn int(&self, member: &str) -> Option<i64> {
        self.body.get(member).and_then(Value::as_i64)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A problem document from the server.
    #[error("{}", problem_line(.0))]
    Problem(Problem),
    #[error(
        "not logged in to {base_url}: run `vis login` (or set VIS_API_KEY){}",
        other.as_ref().map(|o| format!("; the saved key is for {o}")).unwrap_or_default()
    )]
    NotLoggedIn {
        base_url: String,
        other: Option<String>,
    },
    #[error("could not reach {url}: {message}")]
    Network { url: String, message: String },
    #[error("device login {0}")]
    Login(String),
    #[error("{0}")]
    Usage(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A batch stopped for want of credits; the report has been printed.
    #[error("{0}")]
    OutOfCredits(String),
    /// A batch stopped because the key was refused; the report has been printed.
    #[error("{0}")]
    KeyRefused(String),
    /// A batch finished with failed rows; the report has been printed.
    #[error("{0}")]
    Partial(String),
    #[error("interrupted{0}")]
    Interrupted(String),
}

fn problem_line(p: &Problem) -> String {
    let mut line = format!("{} ({}): {}", p.title, p.status, p.detail);
    if let Some(id) = &p.request_id {
        line.push_str(&format!(" [request {id}]"));
    }
    line
}

impl Error {
    pub fn io(context: impl fmt::Display, source: std::io::Error) -> Error {
        Error::Io {
            context: context.to_string(),
            source,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Problem(p) => match p.status {
                401 | 403 => exit::AUTH,
                402 => exit::CREDITS,
                429 | 503 => exit::BUSY,
                400..=499 => exit::REJECTED,
                _ => exit::FAILURE,
            },
            Error::NotLoggedIn { .. } | Error::KeyRefused(_) => exit::AUTH,
            Error::Network { .. } => exit::NETWORK,
            Error::Login(_) => exit::LOGIN,
            Error::Usage(_) => exit::USAGE,
            Error::Io { .. } | Error::Protocol(_) => exit::FAILURE,
            Error::OutOfCredits(_) => exit::CREDITS,
            Error::Partial(_) => exit::PARTIAL,
            Error::Interrupted(_) => exit::INTERRUPTED,
        }
    }

    /// The error as `--json` prints it on stdout.
    pub fn to_json(&self) -> Value {
        let mut error = json!({
            "message": self.to_string(),
            "exit_code": self.exit_code(),
        });
        if let Error::Problem(p) = self {
            error["status"] = json!(p.status);
            error["title"] = json!(p.title);
            error["detail"] = json!(p.detail);
            error["request_id"] = json!(p.request_id);
            error["problem"] = p.body.clone();
        }
        json!({ "error": error })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
