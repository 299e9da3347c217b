//! A real SMTP server for the mail tests: `tests/smtp/server.py` (aiosmtpd
//! from PyPI, in the virtual environment infra/test.sh makes and names in
//! `VIS_TEST_SMTP_PYTHON`) on a free port, with STARTTLS required, under a
//! certificate for 127.0.0.1 signed by a CA that `openssl` makes here for
//! this server alone. Each message it receives is a file in its directory.
//!
//! Without `VIS_TEST_SMTP_PYTHON` the tests fail, unless
//! `VIS_TEST_SKIP_SMTP=1` skips them on purpose (as for the MCP client).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use control_plane::Config;
use control_plane::config::Secret;
use tokio::io::AsyncBufReadExt;

/// The running server; killed when dropped.
pub struct SmtpServer {
    pub port: u16,
    /// Where each message lands, `<n>.eml`.
    pub dir: PathBuf,
    /// The CA that signed the server's certificate (PEM).
    pub ca_file: PathBuf,
    child: tokio::process::Child,
    _tmp: tempfile::TempDir,
}

/// One received message.
#[derive(Debug, Clone)]
pub struct Mail {
    pub text: String,
}

impl Mail {
    /// The value of header `name` (the first one; unfolded lines only).
    pub fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.text
            .lines()
            .take_while(|l| !l.is_empty())
            .find(|l| l.to_ascii_lowercase().starts_with(&prefix))
            .map(|l| l[prefix.len()..].trim())
    }

    /// The body, quoted-printable undone when the message says so (a long
    /// line, such as one holding a link, is sent that way).
    pub fn body(&self) -> String {
        let raw = self
            .text
            .split_once("\r\n\r\n")
            .or_else(|| self.text.split_once("\n\n"))
            .map_or("", |(_, b)| b);
        let qp = self
            .header("Content-Transfer-Encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("quoted-printable"));
        if qp {
            decode_quoted_printable(raw)
        } else {
            raw.to_owned()
        }
    }

    /// The first `http` link in the body that contains `needle`.
    pub fn link(&self, needle: &str) -> String {
        let body = self.body();
        body.split_whitespace()
            .find(|w| w.starts_with("http") && w.contains(needle))
            .unwrap_or_else(|| panic!("no link with {needle} in {}", self.text))
            .to_owned()
    }

    /// The TLS version the message came over (the test server's header).
    pub fn tls_version(&self) -> Option<&str> {
        self.header("X-Test-Tls")
    }
}

/// RFC 2045 quoted-printable: soft line breaks go, `=XX` is a byte.
fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn openssl(args: &[&str], dir: &Path) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("openssl runs (apt-get install openssl; infra/test.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl SmtpServer {
    /// Starts the server, or returns None when `VIS_TEST_SKIP_SMTP=1` and
    /// no server is configured. Panics when neither is set.
    pub async fn start_or_skip(test: &str) -> Option<SmtpServer> {
        let python = match std::env::var("VIS_TEST_SMTP_PYTHON") {
            Ok(p) => p,
            Err(_) if std::env::var("VIS_TEST_SKIP_SMTP").as_deref() == Ok("1") => {
                eprintln!("{test}: skipped on purpose (VIS_TEST_SKIP_SMTP=1)");
                return None;
            }
            Err(_) => panic!(
                "{test}: VIS_TEST_SMTP_PYTHON is not set: run ./infra/test.sh (it installs aiosmtpd), or set VIS_TEST_SKIP_SMTP=1"
            ),
        };
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        // A CA of its own, and a certificate for 127.0.0.1 and localhost.
        openssl(
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=vis smtp test CA",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
            ],
            root,
        );
        openssl(
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
            ],
            root,
        );
        std::fs::write(
            root.join("san.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "san.ext",
                "-out",
                "server.crt",
            ],
            root,
        );
        let dir = root.join("mail");
        std::fs::create_dir(&dir).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/smtp/server.py");
        let mut child = tokio::process::Command::new(&python)
            .arg(script)
            .arg(port.to_string())
            .arg(&dir)
            .arg(root.join("server.crt"))
            .arg(root.join("server.key"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("{test}: {python} does not run: {e}"));
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await;
        match ready {
            Ok(Ok(Some(line))) if line.trim() == "ready" => {}
            other => panic!("{test}: the SMTP server did not start: {other:?}"),
        }
        Some(SmtpServer {
            port,
            dir,
            ca_file: root.join("ca.crt"),
            child,
            _tmp: tmp,
        })
    }

    /// `smtp://127.0.0.1:<port>?tls=required`: STARTTLS or nothing.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}?tls=required", self.port)
    }

    /// Points `config` at this server, trusting its CA.
    pub fn configure(&self, config: &mut Config) {
        config.mail.smtp_url = Some(Secret::new(self.url()));
        config.mail.ca_file = Some(self.ca_file.clone());
    }

    /// Every message received so far, oldest first.
    pub fn mails(&self) -> Vec<Mail> {
        let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&self.dir)
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                let n = path
                    .file_name()?
                    .to_str()?
                    .strip_suffix(".eml")?
                    .parse()
                    .ok()?;
                Some((n, path))
            })
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, p)| Mail {
                text: std::fs::read_to_string(p).unwrap(),
            })
            .collect()
    }

    /// The messages to `to`, once there are at least `n` (waits up to 30 s).
    pub async fn wait_for(&self, to: &str, n: usize) -> Vec<Mail> {
        let start = Instant::now();
        loop {
            let mine: Vec<Mail> = self
                .mails()
                .into_iter()
                .filter(|m| {
                    m.text
                        .lines()
                        .any(|l| l.eq_ignore_ascii_case(&format!("To: {to}")))
                })
                .collect();
            if mine.len() >= n {
                return mine;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{} mails to {to} after 30 s (want {n}); all: {:?}",
                mine.len(),
                self.mails()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
