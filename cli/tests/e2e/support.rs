//! Running `vis` against a test server: each `Vis` is one person's machine
//! (a HOME with its own config and cache), pointed at one server.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use vis_tests::TestApp;

/// What a finished `vis` run left.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// stdout as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{self:?}"))
    }

    pub fn ok(self) -> Output {
        assert_eq!(self.code, 0, "vis failed: {self:?}");
        self
    }

    /// Neither stream shows `secret`.
    pub fn never_shows(&self, secret: &str) {
        assert!(
            !self.stdout.contains(secret) && !self.stderr.contains(secret),
            "a secret was printed: {self:?}"
        );
    }
}

/// One machine running `vis`.
pub struct Vis {
    home: tempfile::TempDir,
    base_url: String,
    env: Vec<(String, String)>,
}

impl Vis {
    pub fn new(app: &TestApp) -> Vis {
        Vis {
            home: tempfile::tempdir().expect("temp HOME"),
            base_url: app.base_url.clone(),
            env: Vec::new(),
        }
    }

    /// Sets an environment variable for every run.
    pub fn with_env(mut self, key: &str, value: &str) -> Vis {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Points every run at `base_url` instead of the app (a proxy in front
    /// of it).
    pub fn with_base_url(mut self, base_url: &str) -> Vis {
        self.base_url = base_url.to_owned();
        self
    }

    /// A key in `VIS_API_KEY` for every run.
    pub fn with_key(self, key: &str) -> Vis {
        self.with_env("VIS_API_KEY", key)
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn config_dir(&self) -> PathBuf {
        self.home().join("config").join("vis")
    }

    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_vis"));
        cmd.args(args)
            .current_dir(self.home())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join("config"))
            .env("XDG_CACHE_HOME", self.home().join("cache"))
            .env("VIS_BASE_URL", &self.base_url)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for var in [
            "VIS_API_KEY",
            "DO_NOT_TRACK",
            "VIS_NO_TELEMETRY",
            "VIS_DEBUG",
            "DISPLAY",
            "WAYLAND_DISPLAY",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    pub async fn run(&self, args: &[&str]) -> Output {
        let out = tokio::time::timeout(Duration::from_secs(240), self.command(args).output())
            .await
            .unwrap_or_else(|_| panic!("vis {args:?} did not finish in 240 s"))
            .expect("vis runs");
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub async fn run_ok(&self, args: &[&str]) -> Output {
        self.run(args).await.ok()
    }

    /// Runs `vis login`, approves (or denies) the code it shows through the
    /// operator command line, and returns how the login ended.
    pub async fn login(&self, app: &TestApp, approve_for: Option<&str>, extra: &[&str]) -> Output {
        let mut args = vec!["login", "--no-browser"];
        args.extend_from_slice(extra);
        let mut child = self.command(&args).spawn().expect("vis login starts");
        let mut stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let reading = tokio::spawn(async move {
            let mut s = String::new();
            stdout.read_to_string(&mut s).await.expect("stdout");
            s
        });
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = String::new();
        let code = loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("vis login shows a code within 30 s")
                .expect("stderr")
                .unwrap_or_else(|| panic!("vis login ended before showing a code: {seen}"));
            seen.push_str(&line);
            seen.push('\n');
            if let Some(code) = user_code_in(&line) {
                break code;
            }
        };
        let action = match approve_for {
            Some(email) => vec!["device", "approve", code.as_str(), "--email", email],
            None => vec!["device", "deny", code.as_str()],
        };
        app.cli(&action)
            .await
            .expect("the operator approves or denies");
        let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
            .await
            .expect("vis login ends within 60 s of the approval")
            .expect("wait");
        while let Some(line) = lines.next_line().await.expect("stderr") {
            seen.push_str(&line);
            seen.push('\n');
        }
        Output {
            code: status.code().unwrap_or(-1),
            stdout: reading.await.expect("stdout task"),
            stderr: seen,
        }
    }
}

/// A line that is only a user code: `WDJB-MJH7`.
pub fn user_code_in(line: &str) -> Option<String> {
    let t = line.trim();
    let b = t.as_bytes();
    (b.len() == 9 && b[4] == b'-' && t.chars().all(|c| c == '-' || c.is_ascii_alphanumeric()))
        .then(|| t.to_owned())
}

/// Credits of `email`'s account, from the operator's `accounts show`.
pub async fn credits(app: &TestApp, email: &str) -> i64 {
    app.account_json(email).await["credits"]
        .as_i64()
        .unwrap_or_else(|| panic!("accounts show has credits"))
}

/// The image files (final names, no `.part`) in `dir`.
pub fn images_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".png") || n.ends_with(".webp") || n.ends_with(".jpg"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

pub const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The length of the first whole HTTP/1.1 message (head and a
/// Content-Length body) at the start of `buf`, if it is all there.
pub fn whole_message(buf: &[u8]) -> Option<usize> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    (buf.len() >= head_end + length).then_some(head_end + length)
}
