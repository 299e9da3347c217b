//! Mail to people (email-verification and password-reset links). With `[mail] smtp_url` set, mail
//! goes out through SMTP (lettre, TLS by rustls); otherwise, on the
//! embedded default, each message is written as an `.eml` file to the
//! outbox folder (`<data_dir>/outbox`), where an operator or a test reads it
//! (docs/accounts.md). A message is never logged: it carries a secret link.

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::Secret;

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("mail configuration: {0}")]
    Config(String),
    #[error("mail could not be sent: {0}")]
    Send(String),
}

enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(AsyncFileTransport<Tokio1Executor>),
}

pub struct Mailer {
    from: Mailbox,
    transport: Transport,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.transport {
            Transport::Smtp(_) => "smtp",
            Transport::Outbox(_) => "outbox",
        };
        f.debug_struct("Mailer")
            .field("from", &self.from.to_string())
            .field("transport", &kind)
            .finish()
    }
}

impl Mailer {
    /// SMTP when `smtp_url` is set (`smtps://user:pass@host:465`,
    /// `smtp://host:587?tls=required`, lettre's URL syntax), else the outbox.
    /// `ca_file` (PEM) adds CA certificates to the system's for the SMTP
    /// server's TLS.
    pub fn new(
        from: &str,
        smtp_url: Option<&Secret<String>>,
        ca_file: Option<&std::path::Path>,
        outbox: &std::path::Path,
    ) -> Result<Mailer, MailError> {
        let from: Mailbox = from
            .parse()
            .map_err(|e| MailError::Config(format!("[mail] from: {e}")))?;
        let transport = match smtp_url {
            Some(url) => Transport::Smtp(smtp(url, ca_file)?),
            None => {
                std::fs::create_dir_all(outbox)
                    .map_err(|e| MailError::Config(format!("outbox {}: {e}", outbox.display())))?;
                Transport::Outbox(AsyncFileTransport::new(outbox))
            }
        };
        Ok(Mailer { from, transport })
    }

    /// Sends a plain-text message to `to`.
    pub async fn send(&self, to: &str, subject: &str, body: String) -> Result<(), MailError> {
        let to: Mailbox = to
            .parse()
            .map_err(|e| MailError::Send(format!("recipient: {e}")))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .map_err(|e| MailError::Send(e.to_string()))?;
        match &self.transport {
            Transport::Smtp(smtp) => smtp
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| MailError::Send(e.to_string())),
            Transport::Outbox(files) => files
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| MailError::Send(e.to_string())),
        }
    }
}

/// The SMTP transport of `url`; with `ca_file`, its TLS (`smtps://`, or
/// `tls=required`/`opportunistic`) trusts that file's CAs besides the
/// system's.
fn smtp(
    url: &Secret<String>,
    ca_file: Option<&std::path::Path>,
) -> Result<AsyncSmtpTransport<Tokio1Executor>, MailError> {
    // The URL holds a password: errors say only which setting is wrong.
    let bad = || MailError::Config("[mail] smtp_url is not a valid SMTP URL".into());
    let builder =
        AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose()).map_err(|_| bad())?;
    let Some(ca_file) = ca_file else {
        return Ok(builder.build());
    };
    let parsed = reqwest::Url::parse(url.expose()).map_err(|_| bad())?;
    let host = parsed.host_str().ok_or_else(bad)?.to_owned();
    let tls_mode = parsed
        .query_pairs()
        .find(|(k, _)| k == "tls")
        .map(|(_, v)| v.into_owned());
    let pem = std::fs::read(ca_file)
        .map_err(|e| MailError::Config(format!("[mail] ca_file {}: {e}", ca_file.display())))?;
    if !pem.windows(27).any(|w| w == b"-----BEGIN CERTIFICATE-----") {
        return Err(MailError::Config(format!(
            "[mail] ca_file {}: no PEM certificate in it",
            ca_file.display()
        )));
    }
    let cert = Certificate::from_pem(&pem)
        .map_err(|e| MailError::Config(format!("[mail] ca_file {}: {e}", ca_file.display())))?;
    let params = TlsParameters::builder(host).add_root_certificate(cert);
    let params = params
        .build()
        .map_err(|e| MailError::Config(format!("[mail] ca_file: {e}")))?;
    let tls = match (parsed.scheme(), tls_mode.as_deref()) {
        ("smtps", _) => Tls::Wrapper(params),
        ("smtp", Some("required")) => Tls::Required(params),
        ("smtp", Some("opportunistic")) => Tls::Opportunistic(params),
        _ => {
            return Err(MailError::Config(
                "[mail] ca_file is set but smtp_url uses no TLS (use smtps:// or ?tls=required)"
                    .into(),
            ));
        }
    };
    Ok(builder.tls(tls).build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_outbox_holds_one_eml_file_per_message() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = Mailer::new(
            "Vehicle Images <noreply@example.com>",
            None,
            None,
            dir.path(),
        )
        .unwrap();
        mailer
            .send(
                "ada@example.com",
                "Reset your password",
                "Open https://x/reset?token=abc".into(),
            )
            .await
            .unwrap();
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(files.len(), 1);
        let text = std::fs::read_to_string(files[0].path()).unwrap();
        assert!(text.contains("To: ada@example.com"), "{text}");
        assert!(text.contains("Subject: Reset your password"), "{text}");
        assert!(text.contains("https://x/reset?token=abc"), "{text}");
        assert!(files[0].path().extension().is_some_and(|e| e == "eml"));
    }

    #[test]
    fn a_ca_file_must_hold_a_certificate_and_needs_a_tls_url() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate").unwrap();
        let url = Secret::new("smtp://user:hunter2@127.0.0.1:2525?tls=required".to_owned());
        let err = Mailer::new("a@example.com", Some(&url), Some(&empty), dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ca_file") && err.contains("no PEM certificate"),
            "{err}"
        );
        assert!(!err.contains("hunter2"), "{err}");
        let missing = dir.path().join("missing.pem");
        let err = Mailer::new("a@example.com", Some(&url), Some(&missing), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.pem"), "{err}");
        let plain = Secret::new("smtp://127.0.0.1:2525".to_owned());
        std::fs::write(&empty, TEST_CA).unwrap();
        let err = Mailer::new("a@example.com", Some(&plain), Some(&empty), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("uses no TLS"), "{err}");
        for url in [
            "smtp://127.0.0.1:2525?tls=required",
            "smtps://user:pw@127.0.0.1:465",
        ] {
            let url = Secret::new(url.to_owned());
            Mailer::new("a@example.com", Some(&url), Some(&empty), dir.path()).unwrap();
        }
    }

    /// A throwaway self-signed CA (openssl req -x509), for parsing only.
    const TEST_CA: &str = include_str!("test_ca.pem");

    #[test]
    fn a_bad_smtp_url_is_a_config_error_that_hides_it() {
        let url = Secret::new("nonsense://user:hunter2@host".to_owned());
        let err = Mailer::new(
            "a@example.com",
            Some(&url),
            None,
            std::path::Path::new("/tmp"),
        )
        .unwrap_err()
        .to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }
}
