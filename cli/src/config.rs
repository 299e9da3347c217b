//! Where the CLI keeps things, and the saved key.
//!
//! - Config: `$XDG_CONFIG_HOME/vis/` or `~/.config/vis/` (`credentials`,
//!   mode 0600; `installed`, the telemetry marker).
//! - Cache: `$XDG_CACHE_HOME/vis/` or `~/.cache/vis/` (the ETag cache).
//!
//! The key is read from `VIS_API_KEY` first, then from `credentials`, and
//! only sent to the server it was issued by.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where the service is when nothing says otherwise: the embedded default.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

/// The API key; never printed, never in a `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(raw: impl Into<String>) -> ApiKey {
        ApiKey(raw.into().trim().to_owned())
    }
    /// The secret itself, for the Authorization header and the file only.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// What the server shows in key lists: `vis_` and the next 8 characters.
    pub fn prefix(&self) -> String {
        self.0.chars().take(12).collect()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}…)", self.prefix())
    }
}

/// The `credentials` file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Credentials {
    /// The server that issued the key; it is sent nowhere else.
    pub base_url: String,
    pub api_key: ApiKey,
}

/// Where the key in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    Env,
    File,
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

fn home() -> Option<PathBuf> {
    env_dir("HOME")
}

/// `$XDG_CONFIG_HOME/vis` or `~/.config/vis`.
pub fn config_dir() -> Option<PathBuf> {
    env_dir("XDG_CONFIG_HOME")
        .or_else(|| home().map(|h| h.join(".config")))
        .map(|d| d.join("vis"))
}

/// `$XDG_CACHE_HOME/vis` or `~/.cache/vis`.
pub fn cache_dir() -> Option<PathBuf> {
    env_dir("XDG_CACHE_HOME")
        .or_else(|| home().map(|h| h.join(".cache")))
        .map(|d| d.join("vis"))
}

pub fn credentials_path() -> Option<PathBuf> {
    config_dir().map(|d| d.join("credentials"))
}

/// Creates `dir` (and its parents) readable by its owner only.
pub fn private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io(format!("create {}", dir.display()), e))
}

/// Writes `bytes` to `path` through a temporary file renamed into place,
/// created with `mode`: a reader never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(format!("write {}", path.display()), e)
    })
}

pub fn load_credentials() -> Result<Option<Credentials>> {
    let Some(path) = credentials_path() else {
        return Ok(None);
    };
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Error::Usage(format!(
                "{} is not a credentials file ({e}); run `vis logout` then `vis login`",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("read {}", path.display()), e)),
    }
}

/// Saves the key (mode 0600, in a 0700 directory); returns the file.
pub fn save_credentials(credentials: &Credentials) -> Result<PathBuf> {
    let path = credentials_path().ok_or_else(no_home)?;
    private_dir(path.parent().expect("a file in a directory"))?;
    let text = serde_json::to_vec_pretty(credentials).expect("serialisable");
    write_atomic(&path, &text, 0o600)?;
    Ok(path)
}

/// Removes the saved key; the path when there was one.
pub fn remove_credentials() -> Result<Option<PathBuf>> {
    let Some(path) = credentials_path() else {
        return Ok(None);
    };
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(Some(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("remove {}", path.display()), e)),
    }
}

fn no_home() -> Error {
    Error::Usage("neither XDG_CONFIG_HOME nor HOME is set: nowhere to keep the key".into())
}

/// A base URL as given, without a trailing slash; http or https only.
pub fn normalise_base_url(raw: &str) -> Result<String> {
    let trimmed = raw.trim().trim_end_matches('/');
    let parsed = url::Url::parse(trimmed)
        .map_err(|e| Error::Usage(format!("--base-url {trimmed:?}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Error::Usage(format!(
            "--base-url {trimmed:?}: must be an http:// or https:// address"
        )));
    }
    Ok(trimmed.to_owned())
}

/// What a command runs against: the server and the key for it.
#[derive(Debug, Clone)]
pub struct Target {
    pub base_url: String,
    pub key: Option<(ApiKey, KeySource)>,
    /// The server of a saved key that is not for `base_url`.
    pub saved_for_other: Option<String>,
}

impl Target {
    /// `--base-url`/`VIS_BASE_URL`, else the saved key's server, else the
    /// default; the key from `VIS_API_KEY`, else the saved one when it was
    /// issued by that server.
    pub fn resolve(flag: Option<&str>) -> Result<Target> {
        let saved = load_credentials()?;
        let base_url = match flag {
            Some(raw) => normalise_base_url(raw)?,
            None => saved
                .as_ref()
                .map(|c| c.base_url.clone())
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
        };
        let env_key = std::env::var("VIS_API_KEY")
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|k| (ApiKey::new(k), KeySource::Env));
        let (file_key, saved_for_other) = match saved {
            Some(c) if c.base_url == base_url => (Some((c.api_key, KeySource::File)), None),
            Some(c) => (None, Some(c.base_url)),
            None => (None, None),
        };
        Ok(Target {
            base_url,
            key: env_key.or(file_key),
            saved_for_other,
        })
    }

    pub fn require_key(&self) -> Result<&ApiKey> {
        self.key
            .as_ref()
            .map(|(k, _)| k)
            .ok_or_else(|| Error::NotLoggedIn {
                base_url: self.base_url.clone(),
                other: self.saved_for_other.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_debug_shows_only_its_prefix() {
        let key = ApiKey::new("vis_ABCDEFGH12345678901234567890123456789012");
        assert_eq!(format!("{key:?}"), "ApiKey(vis_ABCDEFGH…)");
        assert_eq!(key.prefix(), "vis_ABCDEFGH");
    }

    #[test]
    fn base_urls_are_http_without_a_trailing_slash() {
        assert_eq!(
            normalise_base_url("https://img.example.com/").unwrap(),
            "https://img.example.com"
        );
        assert!(normalise_base_url("ftp://x").is_err());
        assert!(normalise_base_url("not a url").is_err());
    }
}
