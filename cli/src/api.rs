//! The service's HTTP API as the CLI uses it: one method per call, typed
//! where the CLI reads fields, the server's JSON kept for `--json`.

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::ApiKey;
use crate::error::{Error, Problem, Result};

/// A cold render takes up to two minutes; the spec tells clients to allow three.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(180);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One image as asked for: the query of `GET /api/v1/images/car`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSpec {
    pub make: String,
    pub model: String,
    pub year: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// A manufacturer's paint code of the make, instead of `color`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint: Option<String>,
    /// solid, metallic or pearl.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    /// A turntable angle (0 to 345 in steps of 15), instead of `view`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `false`: without the contact shadow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<bool>,
    /// fill or relative (one scale per size class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<String>,
    /// transparent, white, studio or #RRGGBB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    /// contain or cover (the output is exactly the box).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<String>,
    /// Crop to the vehicle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<bool>,
    /// Pixels of margin around the vehicle (with trim or fit=contain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padding: Option<u32>,
}

impl ImageSpec {
    /// The query pairs, in a fixed order (the ETag cache keys on them).
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = vec![
            ("make", self.make.clone()),
            ("model", self.model.clone()),
            ("year", self.year.to_string()),
        ];
        let optional = [
            ("color", self.color.clone()),
            ("paint", self.paint.clone()),
            ("finish", self.finish.clone()),
            ("view", self.view.clone()),
            ("angle", self.angle.map(|a| a.to_string())),
            ("size", self.size.clone()),
            ("w", self.width.map(|w| w.to_string())),
            ("h", self.height.map(|h| h.to_string())),
            ("format", self.format.clone()),
            ("shadow", self.shadow.map(|s| s.to_string())),
            ("scale", self.scale.clone()),
            ("background", self.background.clone()),
            ("fit", self.fit.clone()),
            ("trim", self.trim.map(|t| t.to_string())),
            ("padding", self.padding.map(|p| p.to_string())),
        ];
        q.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
        q
    }

    /// The file extension of the format asked for (png by default).
    pub fn extension(&self) -> &'static str {
        match self
            .format
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("webp") => "webp",
            Some("jpg" | "jpeg") => "jpg",
            Some("avif") => "avif",
            _ => "png",
        }
    }

    /// A file name that says what the image is:
    /// `toyota_camry_2019_red_side_512.webp`. The colour and view default
    /// to the API's defaults, so the same image always gets the same name.
    pub fn file_name(&self) -> String {
        let mut parts = vec![
            slug(&self.make),
            slug(&self.model),
            self.year.to_string(),
            slug(
                self.color
                    .as_deref()
                    .or(self.paint.as_deref())
                    .unwrap_or("silver"),
            ),
        ];
        if let Some(finish) = &self.finish {
            parts.push(slug(finish));
        }
        parts.push(match self.angle {
            Some(a) => format!("angle-{a}"),
            None => slug(self.view.as_deref().unwrap_or("front-3-4")),
        });
        match (self.width, self.height, &self.size) {
            (None, None, Some(size)) => parts.push(slug(size)),
            (None, None, None) => {}
            (w, h, _) => parts.push(format!(
                "{}x{}",
                w.map(|v| v.to_string()).unwrap_or_default(),
                h.map(|v| v.to_string()).unwrap_or_default()
            )),
        }
        // Each staging and framing its own file:
        // `…_512_noshadow_relative_white-bg_cover_trim_pad-8.png`.
        if self.shadow == Some(false) {
            parts.push("noshadow".into());
        }
        if let Some(scale) = self
            .scale
            .as_deref()
            .filter(|s| !s.eq_ignore_ascii_case("fill"))
        {
            parts.push(slug(scale));
        }
        if let Some(bg) = &self.background {
            parts.push(format!("{}-bg", slug(bg.trim_start_matches('#'))));
        }
        if let Some(fit) = &self.fit {
            parts.push(slug(fit));
        }
        if self.trim == Some(true) {
            parts.push("trim".into());
        }
        if let Some(p) = self.padding {
            parts.push(format!("pad-{p}"));
        }
        format!("{}.{}", parts.join("_"), self.extension())
    }

    /// The body of one item of `POST /api/v1/image-urls`.
    pub fn to_request_body(&self) -> Value {
        let mut v = json!({ "make": self.make, "model": self.model, "year": self.year });
        let optional = [
            ("color", self.color.clone().map(Value::from)),
            ("paint", self.paint.clone().map(Value::from)),
            ("finish", self.finish.clone().map(Value::from)),
            ("view", self.view.clone().map(Value::from)),
            ("angle", self.angle.map(Value::from)),
            ("size", self.size.clone().map(Value::from)),
            ("width", self.width.map(Value::from)),
            ("height", self.height.map(Value::from)),
            ("format", self.format.clone().map(Value::from)),
            ("shadow", self.shadow.map(Value::from)),
            ("scale", self.scale.clone().map(Value::from)),
            ("background", self.background.clone().map(Value::from)),
            ("fit", self.fit.clone().map(Value::from)),
            ("trim", self.trim.map(Value::from)),
            ("padding", self.padding.map(Value::from)),
        ];
        for (k, val) in optional {
            if let Some(val) = val {
                v[k] = val;
            }
        }
        v
    }
}

/// Lower case, runs of anything but letters and digits made one `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "x".into()
    } else {
        trimmed.into()
    }
}

/// The RateLimit-* and Retry-After headers of an answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct RateLimit {
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    /// Seconds until the window resets.
    pub reset_secs: Option<u64>,
    pub retry_after_secs: Option<u64>,
    pub seen_at: Option<Instant>,
}

impl RateLimit {
    fn from_headers(h: &HeaderMap) -> RateLimit {
        let num = |name: &str| {
            h.get(name)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok())
        };
        RateLimit {
            limit: num("ratelimit-limit"),
            remaining: num("ratelimit-remaining"),
            reset_secs: num("ratelimit-reset"),
            retry_after_secs: num("retry-after"),
            seen_at: Some(Instant::now()),
        }
    }
}

/// A delivered image, or a 304 for the one the client has.
#[derive(Debug)]
pub struct ImageAnswer {
    /// 200 or 304.
    pub status: u16,
    pub bytes: Vec<u8>,
    pub etag: Option<String>,
    pub content_type: Option<String>,
    pub request_id: Option<String>,
    pub credits_charged: Option<i64>,
    pub credits_remaining: Option<i64>,
    pub image_source: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub rate: RateLimit,
}

/// A failed call, with the rate-limit headers that came with it.
#[derive(Debug)]
pub struct Failed {
    pub error: Error,
    pub rate: RateLimit,
}

impl From<Failed> for Error {
    fn from(f: Failed) -> Error {
        f.error
    }
}

/// `POST /api/auth/device/code`'s answer. The device code is a secret the
/// CLI keeps; only the user code is shown.
#[derive(Debug, Clone, Deserialize)]
pub struct DeviceCode {
    pub device_code: String,
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: Option<String>,
    pub expires_in: u64,
    pub interval: u64,
}

/// One poll of `POST /api/auth/device/token`.
#[derive(Debug)]
pub enum TokenPoll {
    Granted { key: ApiKey, scope: String },
    Pending,
    SlowDown { retry_after_secs: Option<u64> },
    Expired,
    Denied,
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
    key: Option<ApiKey>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("key", &self.key)
            .finish()
    }
}

impl Client {
    pub fn new(base_url: &str, key: Option<ApiKey>) -> Result<Client> {
        // rustls's provider (ring) is chosen here, once; a second install is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!("vis-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .redirect(reqwest::redirect::Policy::limited(5))
            .build()
            .map_err(|e| Error::Protocol(format!("cannot build an HTTP client: {e}")))?;
        Ok(Client {
            http,
            base_url: base_url.to_owned(),
            key,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// `path` with a query string, encoded as a form (what the API reads).
    fn url_with_query(&self, path: &str, query: &[(&str, String)]) -> Result<url::Url> {
        let mut url = url::Url::parse(&self.url(path))
            .map_err(|e| Error::Usage(format!("{}: {e}", self.base_url)))?;
        url.query_pairs_mut().extend_pairs(query);
        Ok(url)
    }

    fn keyed(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key {
            Some(k) => rb.bearer_auth(k.expose()),
            None => rb,
        }
    }

    async fn send(&self, rb: reqwest::RequestBuilder) -> Result<reqwest::Response> {
        rb.send().await.map_err(|e| self.network(e))
    }

    fn network(&self, e: reqwest::Error) -> Error {
        // reqwest's messages name the URL, never a header: no key in them.
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(&format!(": {s}"));
            source = s.source();
        }
        Error::Network {
            url: self.base_url.clone(),
            message,
        }
    }

    /// A JSON answer when 2xx, else the problem.
    async fn json(&self, rb: reqwest::RequestBuilder) -> Result<Value> {
        let r = self.send(rb).await?;
        let status = r.status().as_u16();
        let bytes = r.bytes().await.map_err(|e| self.network(e))?;
        if (200..300).contains(&status) {
            serde_json::from_slice(&bytes).map_err(|e| {
                Error::Protocol(format!("HTTP {status} with a body that is not JSON: {e}"))
            })
        } else {
            Err(Error::Problem(Problem::from_body(status, &bytes)))
        }
    }

    /// `GET /api/v1/images/car`, with `If-None-Match` when the caller has a copy.
    pub async fn image(
        &self,
        spec: &ImageSpec,
        if_none_match: Option<&str>,
    ) -> Result<ImageAnswer, Failed> {
        self.image_at("/api/v1/images/car", &spec.query(), if_none_match)
            .await
    }

    /// `GET /api/v1/images/spin`: a spin's frames in one image.
    pub async fn spin(&self, query: &[(&str, String)]) -> Result<ImageAnswer, Failed> {
        self.image_at("/api/v1/images/spin", query, None).await
    }

    /// An image answer from `path` with `query`.
    async fn image_at(
        &self,
        path: &str,
        query: &[(&str, String)],
        if_none_match: Option<&str>,
    ) -> Result<ImageAnswer, Failed> {
        let url = self.url_with_query(path, query).map_err(|error| Failed {
            error,
            rate: RateLimit::default(),
        })?;
        let mut rb = self.keyed(self.http.get(url));
        if let Some(etag) = if_none_match.and_then(|e| HeaderValue::from_str(e).ok()) {
            rb = rb.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        let r = self.send(rb).await.map_err(|error| Failed {
            error,
            rate: RateLimit::default(),
        })?;
        let status = r.status().as_u16();
        let h = r.headers().clone();
        let rate = RateLimit::from_headers(&h);
        let text = |name: &str| h.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let num = |name: &str| text(name).and_then(|v| v.trim().parse::<i64>().ok());
        let bytes = r.bytes().await.map_err(|e| Failed {
            error: self.network(e),
            rate,
        })?;
        if status != 200 && status != 304 {
            return Err(Failed {
                error: Error::Problem(Problem::from_body(status, &bytes)),
                rate,
            });
        }
        Ok(ImageAnswer {
            status,
            bytes: bytes.to_vec(),
            etag: text("etag"),
            content_type: text("content-type"),
            request_id: text("x-request-id"),
            credits_charged: num("x-credits-charged"),
            credits_remaining: num("x-credits-remaining"),
            image_source: text("x-image-source"),
            width: num("x-image-width").map(|v| v as u32),
            height: num("x-image-height").map(|v| v as u32),
            rate,
        })
    }

    pub async fn account(&self) -> Result<Value> {
        self.json(self.keyed(self.http.get(self.url("/api/v1/account"))))
            .await
    }

    pub async fn resolve(&self, body: &Value) -> Result<Value> {
        self.json(
            self.keyed(self.http.post(self.url("/api/v1/images/resolve")))
                .json(body),
        )
        .await
    }

    pub async fn search(&self, q: &str, year: Option<u16>, limit: Option<u8>) -> Result<Value> {
        let mut query = vec![("q", q.to_owned())];
        if let Some(y) = year {
            query.push(("year", y.to_string()));
        }
        if let Some(l) = limit {
            query.push(("limit", l.to_string()));
        }
        let url = self.url_with_query("/api/v1/vehicles", &query)?;
        self.json(self.http.get(url)).await
    }

    pub async fn image_urls(&self, body: &Value, idempotency_key: &str) -> Result<Value> {
        self.json(
            self.keyed(self.http.post(self.url("/api/v1/image-urls")))
                .header("idempotency-key", idempotency_key)
                .json(body),
        )
        .await
    }

    pub async fn feedback(&self, body: &Value) -> Result<Value> {
        self.json(
            self.keyed(self.http.post(self.url("/api/v1/feedback")))
                .json(body),
        )
        .await
    }

    /// `POST /api/v1/events`, never keyed, given `timeout` at most.
    pub async fn events(&self, body: &Value, timeout: Duration) -> Result<Value> {
        self.json(
            self.http
                .post(self.url("/api/v1/events"))
                .timeout(timeout)
                .json(body),
        )
        .await
    }

    pub async fn device_code(&self, client_name: &str) -> Result<DeviceCode> {
        let v = self
            .json(
                self.http
                    .post(self.url("/api/auth/device/code"))
                    .json(&json!({ "client_name": client_name })),
            )
            .await?;
        serde_json::from_value(v).map_err(|e| Error::Protocol(format!("device code: {e}")))
    }

    pub async fn device_token(&self, device_code: &str) -> Result<TokenPoll> {
        let r = self
            .send(
                self.http
                    .post(self.url("/api/auth/device/token"))
                    .json(&json!({
                        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                        "device_code": device_code,
                    })),
            )
            .await?;
        let status = r.status().as_u16();
        let rate = RateLimit::from_headers(r.headers());
        let bytes = r.bytes().await.map_err(|e| self.network(e))?;
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status == 200 {
            let key = v["access_token"]
                .as_str()
                .ok_or_else(|| Error::Protocol("device token: no access_token".into()))?;
            return Ok(TokenPoll::Granted {
                key: ApiKey::new(key),
                scope: v["scope"].as_str().unwrap_or_default().to_owned(),
            });
        }
        match v["error"].as_str() {
            Some("authorization_pending") => Ok(TokenPoll::Pending),
            Some("slow_down") => Ok(TokenPoll::SlowDown {
                retry_after_secs: rate.retry_after_secs,
            }),
            Some("expired_token") => Ok(TokenPoll::Expired),
            Some("access_denied") => Ok(TokenPoll::Denied),
            _ => Err(Error::Problem(Problem::from_body(status, &bytes))),
        }
    }
}
