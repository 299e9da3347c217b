//! Layered configuration: defaults → optional TOML file → `VIS_*` environment
//! variables → command-line flags (clap reads the last two; this module merges).

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::providers::Format;
use serde::Deserialize;

/// A value that must never reach a log line: its Debug and Display print a
/// placeholder. Read it with [`Secret::expose`].
#[derive(Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Self {
        Secret(value)
    }
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Self {
        Secret(value)
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Where rendered images live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectStoreConfig {
    /// Files under a directory (the embedded default: `<data_dir>/objects`).
    Filesystem { root: PathBuf },
    /// An S3 bucket, on AWS or an S3-compatible server.
    S3(S3Config),
}

/// The S3 object store (`object_store = "s3"`, `[s3]`, `VIS_S3_*`).
/// Credentials are not here: they come from the standard AWS chain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct S3Config {
    /// The bucket; it must exist (`VIS_S3_BUCKET`).
    pub bucket: String,
    /// The region (`VIS_S3_REGION`); unset, the AWS chain's (`AWS_REGION`,
    /// the profile), else `us-east-1` when an endpoint is given.
    pub region: Option<String>,
    /// An S3-compatible server's URL (`VIS_S3_ENDPOINT`); unset, AWS.
    pub endpoint: Option<String>,
    /// `http://host/bucket/key` instead of `http://bucket.host/key`
    /// (`VIS_S3_FORCE_PATH_STYLE`); most S3-compatible servers want it.
    pub force_path_style: bool,
    /// Prepended to every key, so one bucket can hold several deployments:
    /// empty or `/`-separated segments ending in `/` (`VIS_S3_PREFIX`).
    pub prefix: String,
}

impl S3Config {
    fn validate(&mut self) -> Result<(), ConfigError> {
        if self.bucket.is_empty() {
            return Err(ConfigError::Invalid {
                field: "s3.bucket",
                message:
                    "object_store = s3 needs a bucket (VIS_S3_BUCKET, --s3-bucket or [s3] bucket)"
                        .into(),
            });
        }
        if let Some(endpoint) = &self.endpoint {
            let endpoint = endpoint.trim_end_matches('/');
            let ok = (endpoint.starts_with("http://") || endpoint.starts_with("https://"))
                && endpoint.len() > "https://".len()
                && !endpoint.contains(char::is_whitespace);
            if !ok {
                return Err(ConfigError::Invalid {
                    field: "s3.endpoint",
                    message: format!("{endpoint:?} is not an http(s) URL (VIS_S3_ENDPOINT)"),
                });
            }
            self.endpoint = Some(endpoint.to_owned());
        }
        if self.region.as_deref() == Some("") {
            self.region = None;
        }
        if !self.prefix.is_empty() {
            let trimmed = self.prefix.trim_end_matches('/');
            if !is_object_path(trimmed) {
                return Err(ConfigError::Invalid {
                    field: "s3.prefix",
                    message: format!(
                        "{:?} must be /-separated segments of a-z, 0-9, '.', '_', '-' (VIS_S3_PREFIX)",
                        self.prefix
                    ),
                });
            }
            self.prefix = format!("{trimmed}/");
        }
        Ok(())
    }
}

/// The resolved configuration the app runs with.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// Public base URL, no trailing slash: problem `type` URIs, delivery URLs
    /// and verification URIs are built on it.
    pub base_url: String,
    pub data_dir: PathBuf,
    /// `sqlite://…` or `postgres://…`; may hold a password.
    pub database_url: Secret<String>,
    pub object_store: ObjectStoreConfig,
    /// Seconds in-flight requests get to finish after SIGINT/SIGTERM.
    pub shutdown_grace_secs: u64,
    pub render: RenderConfig,
    pub delivery: DeliveryConfig,
    pub billing: BillingConfig,
    pub http: HttpConfig,
    pub events: EventsConfig,
    pub embeds: EmbedsConfig,
    pub playground: PlaygroundConfig,
    pub feedback: FeedbackConfig,
    pub mail: MailConfig,
    pub signup: SignupConfig,
    pub payments: PaymentsConfig,
    /// A second address serving only `GET /metrics`; when set, the main
    /// listener no longer serves it (operators keep it off the internet).
    pub metrics_listen: Option<SocketAddr>,
}

/// The embeddable endpoint `GET /images/car.png` (`[embeds]`, docs/embeds.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmbedsConfig {
    /// Honour a `key` query parameter (deprecated; spec §5
    /// ALLOW_LEGACY_QUERY_KEYS, `VIS_ALLOW_LEGACY_QUERY_KEYS`). Off by
    /// default: keys in URLs end up in logs, histories and referrers.
    pub allow_legacy_query_keys: bool,
    /// The home page's example images: free and publicly cacheable.
    pub examples: Vec<ExampleVehicle>,
    /// The examples' width in pixels (their height follows the square source).
    pub examples_width: u32,
    /// The examples' format: png, webp or jpg.
    pub examples_format: String,
    /// Render the examples in the background at start, so the home page
    /// never waits for a cold render.
    pub prewarm_examples: bool,
    /// `mode=cached` requests per minute from one client address that make
    /// a size or format not derived yet (a resize and an encode, given away);
    /// 0 serves only outputs already derived.
    pub cached_derivations_per_address: u64,
    /// The same, from all addresses together, all replicas sharing it.
    pub cached_derivations_per_minute: u64,
}

/// One example vehicle of the home page.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExampleVehicle {
    pub make: String,
    pub model: String,
    pub year: u16,
    #[serde(default = "ExampleVehicle::default_view")]
    pub view: String,
    #[serde(default = "ExampleVehicle::default_color")]
    pub color: String,
}

impl ExampleVehicle {
    fn default_view() -> String {
        "front-3-4".into()
    }
    fn default_color() -> String {
        "silver".into()
    }
    fn new(make: &str, model: &str, year: u16, view: &str, color: &str) -> ExampleVehicle {
        ExampleVehicle {
            make: make.into(),
            model: model.into(),
            year,
            view: view.into(),
            color: color.into(),
        }
    }
}

impl Default for EmbedsConfig {
    fn default() -> Self {
        EmbedsConfig {
            allow_legacy_query_keys: false,
            examples: vec![
                ExampleVehicle::new("porsche", "911", 2020, "front-3-4", "red"),
                ExampleVehicle::new("toyota", "camry", 2019, "front-3-4", "blue"),
                ExampleVehicle::new("ford", "f-150", 2021, "side", "white"),
                ExampleVehicle::new("jeep", "wrangler", 2018, "front-3-4", "green"),
                ExampleVehicle::new("tesla", "model-3", 2022, "rear-3-4", "white"),
                ExampleVehicle::new("bmw", "x5", 2020, "front-3-4", "black"),
            ],
            examples_width: 512,
            examples_format: "webp".into(),
            prewarm_examples: true,
            cached_derivations_per_address: 20,
            cached_derivations_per_minute: 600,
        }
    }
}

/// Feedback on renders (`[feedback]`, docs/feedback.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FeedbackConfig {
    /// Negative reports from distinct accounts that flag a render.
    pub flag_after: i64,
    /// Re-render a flagged render at once (else an operator decides).
    pub auto_rerender: bool,
}

impl Default for FeedbackConfig {
    fn default() -> Self {
        FeedbackConfig {
            flag_after: 3,
            auto_rerender: true,
        }
    }
}

/// Mail to people (`[mail]`, docs/accounts.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The sender, `Name <address>`.
    pub from: String,
    /// `smtps://user:password@host:465` or `smtp://host:587?tls=required`
    /// (`VIS_SMTP_URL`). Unset: messages go to `outbox` as `.eml` files.
    pub smtp_url: Option<Secret<String>>,
    /// Default `<data_dir>/outbox`.
    pub outbox: Option<PathBuf>,
    /// A PEM file of CA certificates trusted for the SMTP server's TLS, in
    /// addition to the system's (a private relay's own CA).
    pub ca_file: Option<PathBuf>,
}

/// Sign-ups on the web (`[signup]`, docs/accounts.md "Verified sign-up").
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SignupConfig {
    /// Sign-ups a UTC day from one client address (an IPv6 /64 counts as
    /// one address).
    pub per_address_per_day: i64,
    /// Sign-ups a UTC day with addresses at one email domain.
    pub per_domain_per_day: i64,
    /// How long an email-verification link works, in seconds (24 hours).
    pub verify_link_secs: i64,
}

impl Default for SignupConfig {
    fn default() -> Self {
        SignupConfig {
            per_address_per_day: 10,
            per_domain_per_day: 100,
            verify_link_secs: 86_400,
        }
    }
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            from: "Vehicle Image Service <noreply@localhost>".into(),
            smtp_url: None,
            outbox: None,
            ca_file: None,
        }
    }
}

/// Which payment provider sells credit packs (`[payments]`, docs/billing.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaymentsConfig {
    /// `sandbox` (the default: test payments on a page the service serves)
    /// or `stripe` (`VIS_PAYMENTS_PROVIDER`).
    pub provider: String,
    /// Stripe's secret API key, `sk_live_…` or `sk_test_…` (`VIS_STRIPE_API_KEY`).
    pub stripe_api_key: Option<Secret<String>>,
    /// The signing secret of the Stripe webhook endpoint, `whsec_…`
    /// (`VIS_STRIPE_WEBHOOK_SECRET`).
    pub stripe_webhook_secret: Option<Secret<String>>,
    /// Stripe's API address (tests point it at a recorder).
    pub stripe_api_base: String,
    /// Run the sandbox behind an https `base_url` anyway
    /// (`VIS_ALLOW_SANDBOX_PAYMENTS`). Its payment page pays without money,
    /// so anyone with a key could mint credits: an https base URL means a
    /// public deployment, where the service refuses to start with it unless
    /// this is set (a private staging site), and then warns at every start.
    pub allow_sandbox_on_https: bool,
}

impl Default for PaymentsConfig {
    fn default() -> Self {
        PaymentsConfig {
            provider: "sandbox".into(),
            stripe_api_key: None,
            stripe_webhook_secret: None,
            stripe_api_base: "https://api.stripe.com".into(),
            allow_sandbox_on_https: false,
        }
    }
}

impl PaymentsConfig {
    fn validate(&self, base_url: &str) -> Result<(), ConfigError> {
        match self.provider.as_str() {
            "sandbox" if base_url.starts_with("https://") && !self.allow_sandbox_on_https => {
                Err(ConfigError::Invalid {
                    field: "payments.provider",
                    message: format!(
                        "the sandbox provider pays without money, and base_url {base_url} looks public (https): \
                         set provider = \"stripe\" (VIS_PAYMENTS_PROVIDER=stripe), or, for a private staging site, \
                         payments.allow_sandbox_on_https = true (VIS_ALLOW_SANDBOX_PAYMENTS=true)"
                    ),
                })
            }
            "sandbox" => Ok(()),
            "stripe" if self.stripe_api_key.is_none() => Err(ConfigError::Invalid {
                field: "payments.stripe_api_key",
                message: "is required with provider = \"stripe\"".into(),
            }),
            "stripe" if self.stripe_webhook_secret.is_none() => Err(ConfigError::Invalid {
                field: "payments.stripe_webhook_secret",
                message: "is required with provider = \"stripe\"".into(),
            }),
            "stripe" => Ok(()),
            other => Err(ConfigError::Invalid {
                field: "payments.provider",
                message: format!("unknown provider {other:?}; expected sandbox or stripe"),
            }),
        }
    }
}

/// The playground's free renders (`[playground]`, docs/embeds.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlaygroundConfig {
    /// Images per minute per client address through the playground cookie.
    pub per_minute: u64,
    /// Cold renders per UTC day through the playground, all replicas together.
    pub cold_per_day: i64,
    /// The share of the daily generation budget the playground never
    /// spends: it stays for paying clients.
    pub budget_reserve_percent: u8,
}

impl Default for PlaygroundConfig {
    fn default() -> Self {
        PlaygroundConfig {
            per_minute: 30,
            cold_per_day: 200,
            budget_reserve_percent: 20,
        }
    }
}

impl PlaygroundConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.budget_reserve_percent > 100 {
            return Err(ConfigError::Invalid {
                field: "playground.budget_reserve_percent",
                message: "must be from 0 to 100".into(),
            });
        }
        if self.cold_per_day < 0 {
            return Err(ConfigError::Invalid {
                field: "playground.cold_per_day",
                message: "must not be negative".into(),
            });
        }
        Ok(())
    }
}

/// The telemetry sink (`[events]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EventsConfig {
    /// Accepted batches waiting to be written; past it a batch gets 503.
    pub queue_batches: usize,
}

impl Default for EventsConfig {
    fn default() -> Self {
        EventsConfig {
            queue_batches: 1024,
        }
    }
}

/// Connections and their clocks (`[http]`, docs/OPERATIONS.md "Connections").
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// A request head must arrive in full within this long of its first
    /// byte (or of the connection opening), seconds.
    pub header_read_timeout_secs: u64,
    /// A request body may pause this long between bytes before the request
    /// is answered 408, seconds.
    pub body_read_timeout_secs: u64,
    /// A request body must arrive in full within this long of the request
    /// head, however steadily it trickles; then the request is answered 408,
    /// seconds.
    pub body_total_timeout_secs: u64,
    /// A kept-alive connection waiting for its next request is closed after
    /// this long, seconds.
    pub idle_timeout_secs: u64,
    /// Open connections per listener; past it a new connection gets a 503
    /// problem and is closed.
    pub max_connections: usize,
    /// Open connections from one client address; past it a new connection
    /// from that address gets a 503 problem and is closed. 0 turns the cap
    /// off (behind a reverse proxy on another host, every client shares the
    /// proxy's address).
    pub max_connections_per_address: usize,
    /// Addresses the per-address cap never applies to: by default the
    /// loopback addresses a reverse proxy on the same host connects from.
    pub uncapped_addresses: Vec<std::net::IpAddr>,
    /// Load balancers and reverse proxies, as addresses or CIDR blocks
    /// (`VIS_HTTP_TRUSTED_PROXIES`, comma-separated): only from these peers
    /// are `X-Forwarded-For` / `Forwarded` believed, and the client is the
    /// rightmost hop that is not one of them. Empty (the default): the peer
    /// is the client. They are also exempt from the per-address cap.
    pub trusted_proxies: Vec<String>,
}

/// An address block (`10.0.0.0/8`, `2001:db8::/32`) or one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: std::net::IpAddr,
    prefix: u8,
}

impl Cidr {
    pub fn parse(raw: &str) -> Option<Cidr> {
        let (addr, prefix) = match raw.trim().split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (raw.trim(), None),
        };
        let addr: std::net::IpAddr = addr.parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) if !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()) => {
                p.parse::<u8>().ok().filter(|&p| p <= max)?
            }
            Some(_) => return None,
        };
        Some(Cidr {
            net: Cidr::masked(addr, prefix),
            prefix,
        })
    }

    /// Whether `ip` (an IPv4-mapped IPv6 address counts as IPv4) is in it.
    pub fn contains(&self, ip: std::net::IpAddr) -> bool {
        let ip = ip.to_canonical();
        ip.is_ipv4() == self.net.is_ipv4() && Cidr::masked(ip, self.prefix) == self.net
    }

    fn masked(ip: std::net::IpAddr, prefix: u8) -> std::net::IpAddr {
        use std::net::IpAddr;
        match ip {
            IpAddr::V4(v4) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
                IpAddr::V4((u32::from(v4) & mask).into())
            }
            IpAddr::V6(v6) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
                IpAddr::V6((u128::from(v6) & mask).into())
            }
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            header_read_timeout_secs: 10,
            body_read_timeout_secs: 30,
            body_total_timeout_secs: 60,
            idle_timeout_secs: 60,
            max_connections: 4096,
            max_connections_per_address: 64,
            uncapped_addresses: vec![
                std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
                std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ],
            trusted_proxies: Vec::new(),
        }
    }
}

impl HttpConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        let fields = [
            (
                "http.header_read_timeout_secs",
                self.header_read_timeout_secs,
            ),
            ("http.body_read_timeout_secs", self.body_read_timeout_secs),
            ("http.body_total_timeout_secs", self.body_total_timeout_secs),
            ("http.idle_timeout_secs", self.idle_timeout_secs),
            ("http.max_connections", self.max_connections as u64),
        ];
        for (field, value) in fields {
            if value == 0 {
                return Err(ConfigError::Invalid {
                    field,
                    message: "must be at least 1".into(),
                });
            }
        }
        if let Some(bad) = self
            .trusted_proxies
            .iter()
            .find(|raw| Cidr::parse(raw).is_none())
        {
            return Err(ConfigError::Invalid {
                field: "http.trusted_proxies",
                message: format!(
                    "{bad:?} is not an IP address or a CIDR block such as 10.0.0.0/8 \
                     (VIS_HTTP_TRUSTED_PROXIES)"
                ),
            });
        }
        Ok(())
    }

    /// The trusted proxies, parsed (they were validated at load).
    pub fn trusted_proxy_blocks(&self) -> Vec<Cidr> {
        self.trusted_proxies
            .iter()
            .filter_map(|raw| Cidr::parse(raw))
            .collect()
    }
}

/// How image deliveries are charged (`[billing]`, docs/ledger.md).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BillingConfig {
    /// Image charges committed together in one transaction at most.
    pub max_batch: usize,
    /// Charge transactions in flight at once (0 means 1). More than one
    /// helps only when many accounts are charged at once: batches of one
    /// account queue on its row and each waits for its own commit
    /// (docs/benchmarks.md, "One ledger").
    pub batches_in_flight: usize,
}

impl Default for BillingConfig {
    fn default() -> Self {
        BillingConfig {
            max_batch: 256,
            batches_in_flight: 0,
        }
    }
}

/// Signed delivery URLs (`[delivery]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeliveryConfig {
    /// Lifetime of a URL minted without `ttl_seconds`, seconds.
    pub ttl_default: u64,
    /// Bounds every requested lifetime is clamped to, seconds.
    pub ttl_min: u64,
    pub ttl_max: u64,
    /// HMAC secret for delivery tokens (`VIS_DELIVERY_SECRET`, at least 32
    /// characters). When absent, one is generated once and kept in the
    /// database, so replicas sharing it agree and restarts keep URLs valid.
    pub secret: Option<Secret<String>>,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        DeliveryConfig {
            ttl_default: crate::limits::DELIVERY_TTL_DEFAULT_SECS,
            ttl_min: crate::limits::DELIVERY_TTL_MIN_SECS,
            ttl_max: crate::limits::DELIVERY_TTL_MAX_SECS,
            secret: None,
        }
    }
}

/// Shortest configured delivery secret, characters.
pub const DELIVERY_SECRET_MIN_CHARS: usize = 32;

impl DeliveryConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(1 <= self.ttl_min
            && self.ttl_min <= self.ttl_default
            && self.ttl_default <= self.ttl_max)
        {
            return Err(ConfigError::Invalid {
                field: "delivery",
                message: format!(
                    "need 1 <= ttl_min <= ttl_default <= ttl_max, got {} / {} / {}",
                    self.ttl_min, self.ttl_default, self.ttl_max
                ),
            });
        }
        if let Some(secret) = &self.secret
            && secret.expose().chars().count() < DELIVERY_SECRET_MIN_CHARS
        {
            return Err(ConfigError::Invalid {
                field: "delivery.secret",
                message: format!("must be at least {DELIVERY_SECRET_MIN_CHARS} characters"),
            });
        }
        Ok(())
    }
}

/// The most jobs one lease hands a node: a spin's frames.
pub const MAX_BATCH: usize = vis_protocol::Angle::COUNT;

/// Render dispatch and the in-process render node.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenderConfig {
    /// In-process render workers (0 = none: remote nodes only).
    pub workers: usize,
    /// The most jobs an in-process worker leases at once: queued jobs of one
    /// vehicle and revision, drawn from one mesh (a spin's 24 frames). 1
    /// leases one job at a time. Remote nodes ask for their own
    /// (`render-node run --batch`), up to [`MAX_BATCH`].
    pub batch: usize,
    /// Seconds a request waits for a cold render (spec: up to 2 minutes).
    pub job_timeout_secs: u64,
    /// Cold renders per UTC day unless `control-plane budget set` says otherwise.
    pub daily_budget: i64,
    /// Queued + running jobs above which cold renders get 503.
    pub max_queue_depth: i64,
    /// Render revision: part of object keys and ETags.
    pub revision: u32,
    /// Byte limit of the in-memory cache of derived outputs.
    pub derived_cache_bytes: usize,
    /// Run the in-process render node (`--no-local-renderer`,
    /// `VIS_LOCAL_RENDERER=false`: this control plane only dispatches, to
    /// remote nodes; docs/render-nodes.md).
    pub local_renderer: bool,
    /// A remote node's job lease lasts this long past its last heartbeat
    /// naming the job; a node that stops heartbeating loses its jobs then.
    pub node_lease_secs: u64,
    /// How often remote nodes are told to heartbeat.
    pub node_heartbeat_secs: u64,
    /// The share of the daily budget that prewarm jobs never spend: it stays
    /// for interactive requests (`control-plane prewarm --budget-reserve`
    /// overrides it per job).
    pub prewarm_reserve_percent: u8,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            workers: 2,
            batch: MAX_BATCH,
            job_timeout_secs: 120,
            daily_budget: 10_000,
            max_queue_depth: 200,
            revision: 30,
            derived_cache_bytes: 256 * 1024 * 1024,
            local_renderer: true,
            node_lease_secs: 30,
            node_heartbeat_secs: 5,
            prewarm_reserve_percent: 20,
        }
    }
}

/// What the layers may say (the TOML file's shape; flags and `VIS_*`
/// variables set the same keys): every field is optional. Figment merges
/// the layers into one of these ([`Config::load`]); [`Config::resolve`]
/// checks it and fills in what depends on other fields.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub listen: Option<SocketAddr>,
    pub base_url: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<Secret<String>>,
    pub object_store: Option<String>,
    pub objects_dir: Option<PathBuf>,
    pub s3: Option<S3Config>,
    pub shutdown_grace_secs: Option<u64>,
    pub render: Option<RenderConfig>,
    pub delivery: Option<DeliveryConfig>,
    pub billing: Option<BillingConfig>,
    pub http: Option<HttpConfig>,
    pub events: Option<EventsConfig>,
    pub embeds: Option<EmbedsConfig>,
    pub playground: Option<PlaygroundConfig>,
    pub feedback: Option<FeedbackConfig>,
    pub mail: Option<MailConfig>,
    pub signup: Option<SignupConfig>,
    pub payments: Option<PaymentsConfig>,
    pub metrics_listen: Option<SocketAddr>,
}

/// Values from flags or `VIS_*` variables (clap fills these; flags win).
#[derive(Debug, Default, Clone, clap::Args)]
pub struct Overrides {
    /// TOML configuration file.
    #[arg(long, env = "VIS_CONFIG", global = true)]
    pub config: Option<PathBuf>,
    /// Address to listen on (default 127.0.0.1:8080; port 0 picks a free port).
    #[arg(long, env = "VIS_LISTEN", global = true)]
    pub listen: Option<SocketAddr>,
    /// Public base URL (default http://<listen>).
    #[arg(long, env = "VIS_BASE_URL", global = true)]
    pub base_url: Option<String>,
    /// Data directory for the embedded default (default ./data).
    #[arg(long, env = "VIS_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Database URL: sqlite://… (default <data-dir>/vis.db) or postgres://…
    #[arg(long, env = "VIS_DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// Object store backend: `fs` (default) or `s3`.
    #[arg(long, env = "VIS_OBJECT_STORE", global = true)]
    pub object_store: Option<String>,
    /// Directory of the filesystem object store (default <data-dir>/objects).
    #[arg(long, env = "VIS_OBJECTS_DIR", global = true)]
    pub objects_dir: Option<PathBuf>,
    /// `[s3] bucket`: the S3 bucket of `--object-store s3`.
    #[arg(long, env = "VIS_S3_BUCKET", global = true)]
    pub s3_bucket: Option<String>,
    /// `[s3] region` (default: the AWS chain's, AWS_REGION or the profile).
    #[arg(long, env = "VIS_S3_REGION", global = true)]
    pub s3_region: Option<String>,
    /// `[s3] endpoint`: an S3-compatible server's URL (default: AWS).
    #[arg(long, env = "VIS_S3_ENDPOINT", global = true)]
    pub s3_endpoint: Option<String>,
    /// `[s3] force_path_style` (true/false; default false).
    #[arg(
        long,
        env = "VIS_S3_FORCE_PATH_STYLE",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub s3_force_path_style: Option<bool>,
    /// `[s3] prefix`: prepended to every object key (default none).
    #[arg(long, env = "VIS_S3_PREFIX", global = true)]
    pub s3_prefix: Option<String>,
    /// HMAC secret for signed delivery URLs (default: generated once and
    /// kept in the database).
    #[arg(
        long,
        env = "VIS_DELIVERY_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub delivery_secret: Option<String>,
    /// Serve `GET /metrics` on this address only (default: on the main listener).
    #[arg(long, env = "VIS_METRICS_LISTEN", global = true)]
    pub metrics_listen: Option<SocketAddr>,
    /// Honour the deprecated `key` query parameter of /images/car.png
    /// (true/false; default false).
    #[arg(
        long,
        env = "VIS_ALLOW_LEGACY_QUERY_KEYS",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_legacy_query_keys: Option<bool>,
    /// `[mail] smtp_url`.
    #[arg(long, env = "VIS_SMTP_URL", global = true, hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// `[payments] provider`.
    #[arg(long, env = "VIS_PAYMENTS_PROVIDER", global = true)]
    pub payments_provider: Option<String>,
    /// `[payments] allow_sandbox_on_https` (true/false): run the sandbox
    /// payment provider behind an https base URL (a private staging site).
    #[arg(
        long,
        env = "VIS_ALLOW_SANDBOX_PAYMENTS",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_sandbox_payments: Option<bool>,
    /// `[payments] stripe_api_key`.
    #[arg(
        long,
        env = "VIS_STRIPE_API_KEY",
        global = true,
        hide_env_values = true
    )]
    pub stripe_api_key: Option<String>,
    /// `[payments] stripe_webhook_secret`.
    #[arg(
        long,
        env = "VIS_STRIPE_WEBHOOK_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub stripe_webhook_secret: Option<String>,
    /// `[render] local_renderer` (true/false): false runs a control plane
    /// that only dispatches to remote render nodes.
    #[arg(
        long = "local-renderer",
        env = "VIS_LOCAL_RENDERER",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub local_renderer: Option<bool>,
    /// Same as `--local-renderer false`.
    #[arg(long, global = true, conflicts_with = "local_renderer")]
    pub no_local_renderer: bool,
    /// `[render] workers`: in-process render workers.
    #[arg(long, env = "VIS_RENDER_WORKERS", global = true)]
    pub render_workers: Option<usize>,
    /// `[render] daily_budget`: cold renders per UTC day.
    #[arg(long, env = "VIS_RENDER_DAILY_BUDGET", global = true)]
    pub render_daily_budget: Option<i64>,
    /// `[render] max_queue_depth`: queued + running jobs before 503.
    #[arg(long, env = "VIS_RENDER_MAX_QUEUE_DEPTH", global = true)]
    pub render_max_queue_depth: Option<i64>,
    /// `[render] revision`: part of object keys and ETags.
    #[arg(long, env = "VIS_RENDER_REVISION", global = true)]
    pub render_revision: Option<u32>,
    /// `[render] job_timeout_secs`: how long a request waits for a cold render.
    #[arg(long, env = "VIS_RENDER_JOB_TIMEOUT_SECS", global = true)]
    pub render_job_timeout_secs: Option<u64>,
    /// `[http] trusted_proxies`: load balancers whose X-Forwarded-For /
    /// Forwarded is believed, comma-separated addresses or CIDR blocks.
    #[arg(
        long,
        env = "VIS_HTTP_TRUSTED_PROXIES",
        global = true,
        value_delimiter = ','
    )]
    pub trusted_proxies: Option<Vec<String>>,
}

/// The flags and `VIS_*` variables as figment's top layer: each one sets the
/// file's key it names, so the file's shape is the one shape of the
/// configuration.
impl figment::Provider for Overrides {
    fn metadata(&self) -> figment::Metadata {
        figment::Metadata::named("flags and VIS_* variables")
    }

    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        use figment::value::Value;
        fn text(v: &Option<impl ToString>) -> Option<Value> {
            v.as_ref().map(|v| Value::from(v.to_string()))
        }
        fn path(v: &Option<PathBuf>) -> Option<Value> {
            v.as_ref().map(|v| Value::from(v.display().to_string()))
        }
        let local_renderer = if self.no_local_renderer {
            Some(Value::from(false))
        } else {
            self.local_renderer.map(Value::from)
        };
        let keys: [(&str, Option<Value>); 26] = [
            ("listen", text(&self.listen)),
            ("base_url", text(&self.base_url)),
            ("data_dir", path(&self.data_dir)),
            ("database_url", text(&self.database_url)),
            ("object_store", text(&self.object_store)),
            ("objects_dir", path(&self.objects_dir)),
            ("s3.bucket", text(&self.s3_bucket)),
            ("s3.region", text(&self.s3_region)),
            ("s3.endpoint", text(&self.s3_endpoint)),
            (
                "s3.force_path_style",
                self.s3_force_path_style.map(Value::from),
            ),
            ("s3.prefix", text(&self.s3_prefix)),
            ("delivery.secret", text(&self.delivery_secret)),
            ("metrics_listen", text(&self.metrics_listen)),
            (
                "http.trusted_proxies",
                self.trusted_proxies.as_ref().map(|list| {
                    Value::from(
                        list.iter()
                            .map(|p| Value::from(p.clone()))
                            .collect::<Vec<_>>(),
                    )
                }),
            ),
            (
                "embeds.allow_legacy_query_keys",
                self.allow_legacy_query_keys.map(Value::from),
            ),
            ("mail.smtp_url", text(&self.smtp_url)),
            ("payments.provider", text(&self.payments_provider)),
            (
                "payments.allow_sandbox_on_https",
                self.allow_sandbox_payments.map(Value::from),
            ),
            ("payments.stripe_api_key", text(&self.stripe_api_key)),
            (
                "payments.stripe_webhook_secret",
                text(&self.stripe_webhook_secret),
            ),
            ("render.local_renderer", local_renderer),
            (
                "render.workers",
                self.render_workers.map(|v| Value::from(v as u64)),
            ),
            (
                "render.daily_budget",
                self.render_daily_budget.map(Value::from),
            ),
            (
                "render.max_queue_depth",
                self.render_max_queue_depth.map(Value::from),
            ),
            ("render.revision", self.render_revision.map(Value::from)),
            (
                "render.job_timeout_secs",
                self.render_job_timeout_secs.map(Value::from),
            ),
        ];
        let mut merged = figment::Figment::new();
        for (key, value) in keys {
            if let Some(value) = value {
                merged = merged.merge(figment::providers::Serialized::default(key, value));
            }
        }
        merged.data()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A key the file, a flag or a variable gave that does not parse:
    /// `message` names the key and the layer it came from.
    #[error("configuration is not valid: {message}")]
    Parse { message: String },
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
}

impl Config {
    pub const DEFAULT_LISTEN: &'static str = "127.0.0.1:8080";

    /// Merges, with figment, the defaults, the TOML file named by
    /// `overrides.config` (if any), then the `VIS_*` variables and flags
    /// (clap reads both; a flag wins over its variable), and resolves the
    /// result ([`Config::resolve`]).
    pub fn load(overrides: &Overrides) -> Result<Config, ConfigError> {
        let mut layers = figment::Figment::new();
        if let Some(path) = &overrides.config {
            // figment would name a missing file only as a parse error.
            std::fs::metadata(path).map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?;
            layers = layers.merge(figment::providers::Toml::file_exact(path));
        }
        Config::from_layers(layers.merge(overrides.clone()))
    }

    /// As [`Config::load`], with the file's text given (tests, embedders).
    pub fn from_toml(text: &str, overrides: Overrides) -> Result<Config, ConfigError> {
        Config::from_layers(
            figment::Figment::from(figment::providers::Toml::string(text)).merge(overrides),
        )
    }

    /// The defaults and `overrides` alone.
    pub fn from_overrides(overrides: Overrides) -> Result<Config, ConfigError> {
        Config::from_layers(figment::Figment::from(overrides))
    }

    fn from_layers(layers: figment::Figment) -> Result<Config, ConfigError> {
        let merged: FileConfig = layers.extract().map_err(|e| ConfigError::Parse {
            message: e.to_string(),
        })?;
        Config::resolve(merged)
    }

    /// Checks the merged layers (each error names its key) and fills in
    /// what defaults to other fields: the base URL from `listen`, the
    /// database and the objects under `data_dir`.
    pub fn resolve(file: FileConfig) -> Result<Config, ConfigError> {
        let listen = file
            .listen
            .unwrap_or_else(|| Self::DEFAULT_LISTEN.parse().expect("valid default"));
        let data_dir = file.data_dir.unwrap_or_else(|| PathBuf::from("data"));
        let base_url = file.base_url.unwrap_or_else(|| format!("http://{listen}"));
        let base_url = validate_base_url(&base_url)?;
        let database_url = file
            .database_url
            .unwrap_or_else(|| Secret::new(default_sqlite_url(&data_dir)));
        let url = database_url.expose();
        if !(url.starts_with("sqlite:")
            || url.starts_with("postgres://")
            || url.starts_with("postgresql://"))
        {
            return Err(ConfigError::Invalid {
                field: "database_url",
                message: "must start with sqlite:, postgres:// or postgresql://".into(),
            });
        }
        let backend = file.object_store.unwrap_or_else(|| "fs".into());
        let object_store = match backend.as_str() {
            "fs" | "filesystem" => ObjectStoreConfig::Filesystem {
                root: file.objects_dir.unwrap_or_else(|| data_dir.join("objects")),
            },
            "s3" => {
                let mut s3 = file.s3.unwrap_or_default();
                s3.validate()?;
                ObjectStoreConfig::S3(s3)
            }
            other => {
                return Err(ConfigError::Invalid {
                    field: "object_store",
                    message: format!("unknown backend {other:?}; expected fs or s3"),
                });
            }
        };
        let delivery = file.delivery.unwrap_or_default();
        delivery.validate()?;
        let billing = file.billing.unwrap_or_default();
        if !(1..=10_000).contains(&billing.max_batch) {
            return Err(ConfigError::Invalid {
                field: "billing.max_batch",
                message: "must be from 1 to 10000".into(),
            });
        }
        if billing.batches_in_flight > 4 {
            return Err(ConfigError::Invalid {
                field: "billing.batches_in_flight",
                message: "must be from 0 (automatic) to 4".into(),
            });
        }
        let mut http = file.http.unwrap_or_default();
        http.trusted_proxies = http
            .trusted_proxies
            .iter()
            .map(|raw| raw.trim().to_owned())
            .filter(|raw| !raw.is_empty())
            .collect();
        http.validate()?;
        let embeds = file.embeds.unwrap_or_default();
        if !(1..=1024).contains(&embeds.examples_width) {
            return Err(ConfigError::Invalid {
                field: "embeds.examples_width",
                message: "must be from 1 to 1024".into(),
            });
        }
        let playground = file.playground.unwrap_or_default();
        playground.validate()?;
        let feedback = file.feedback.unwrap_or_default();
        if feedback.flag_after < 1 {
            return Err(ConfigError::Invalid {
                field: "feedback.flag_after",
                message: "must be at least 1".into(),
            });
        }
        let mut mail = file.mail.unwrap_or_default();
        if mail.outbox.is_none() {
            mail.outbox = Some(data_dir.join("outbox"));
        }
        let signup = file.signup.unwrap_or_default();
        for (field, value) in [
            ("signup.per_address_per_day", signup.per_address_per_day),
            ("signup.per_domain_per_day", signup.per_domain_per_day),
            ("signup.verify_link_secs", signup.verify_link_secs),
        ] {
            if value < 1 {
                return Err(ConfigError::Invalid {
                    field,
                    message: "must be at least 1".into(),
                });
            }
        }
        let payments = file.payments.unwrap_or_default();
        payments.validate(&base_url)?;
        let render = file.render.unwrap_or_default();
        if render.daily_budget < 0 {
            return Err(ConfigError::Invalid {
                field: "render.daily_budget",
                message: "must not be negative (VIS_RENDER_DAILY_BUDGET)".into(),
            });
        }
        if render.max_queue_depth < 1 {
            return Err(ConfigError::Invalid {
                field: "render.max_queue_depth",
                message: "must be at least 1 (VIS_RENDER_MAX_QUEUE_DEPTH)".into(),
            });
        }
        if !(1..=MAX_BATCH).contains(&render.batch) {
            return Err(ConfigError::Invalid {
                field: "render.batch",
                message: format!("must be between 1 and {MAX_BATCH}"),
            });
        }
        if render.job_timeout_secs == 0 {
            return Err(ConfigError::Invalid {
                field: "render.job_timeout_secs",
                message: "must be at least 1 (VIS_RENDER_JOB_TIMEOUT_SECS)".into(),
            });
        }
        if render.prewarm_reserve_percent > 100 {
            return Err(ConfigError::Invalid {
                field: "render.prewarm_reserve_percent",
                message: "must be between 0 and 100".into(),
            });
        }
        if render.node_heartbeat_secs == 0 || render.node_lease_secs <= render.node_heartbeat_secs {
            return Err(ConfigError::Invalid {
                field: "render.node_lease_secs",
                message: "must be longer than render.node_heartbeat_secs (at least 1)".into(),
            });
        }
        Ok(Config {
            listen,
            base_url,
            data_dir,
            database_url,
            object_store,
            shutdown_grace_secs: file.shutdown_grace_secs.unwrap_or(30),
            render,
            delivery,
            billing,
            http,
            events: file.events.unwrap_or_default(),
            embeds,
            playground,
            feedback,
            mail,
            signup,
            payments,
            metrics_listen: file.metrics_listen,
        })
    }

    /// A configuration for tests: port 0 on loopback, everything under `dir`.
    pub fn for_tests(dir: &Path) -> Config {
        let overrides = Overrides {
            listen: Some("127.0.0.1:0".parse().expect("valid")),
            data_dir: Some(dir.to_path_buf()),
            ..Overrides::default()
        };
        let mut config = Config::from_overrides(overrides).expect("test config is valid");
        // Tests that render start the in-process node themselves.
        config.render.workers = 0;
        config.embeds.prewarm_examples = false;
        config
    }
}

fn validate_base_url(raw: &str) -> Result<String, ConfigError> {
    let trimmed = raw.trim_end_matches('/');
    let ok = (trimmed.starts_with("http://") || trimmed.starts_with("https://"))
        && trimmed.len() > "https://".len()
        && !trimmed.contains(char::is_whitespace);
    if ok {
        Ok(trimmed.to_owned())
    } else {
        Err(ConfigError::Invalid {
            field: "base_url",
            message: format!("{raw:?} is not an http(s) URL"),
        })
    }
}

fn default_sqlite_url(data_dir: &Path) -> String {
    format!("sqlite://{}?mode=rwc", data_dir.join("vis.db").display())
}

/// The grammar of an object path (a key, or the S3 prefix above keys):
/// `/`-separated segments of a-z, 0-9, `.`, `_`, `-`, none empty or
/// hidden, at most 512 bytes. `objects::ObjectKey` parses by it too.
pub fn is_object_path(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= 512
        && raw.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && !seg.starts_with('.')
                && seg.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_embedded_setup() {
        let c = Config::from_overrides(Overrides::default()).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.base_url, "http://127.0.0.1:8080");
        assert_eq!(c.database_url.expose(), "sqlite://data/vis.db?mode=rwc");
        assert_eq!(
            c.object_store,
            ObjectStoreConfig::Filesystem {
                root: PathBuf::from("data/objects")
            }
        );
    }

    #[test]
    fn flags_and_env_override_the_file() {
        let file = "listen = \"0.0.0.0:9000\"\nbase_url = \"https://img.example.com/\"\ndata_dir = \"/srv/vis\"\n\
             [payments]\nallow_sandbox_on_https = true";
        let o = Overrides {
            listen: Some("127.0.0.1:7000".parse().unwrap()),
            ..Overrides::default()
        };
        let c = Config::from_toml(file, o).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:7000");
        assert_eq!(c.base_url, "https://img.example.com");
        assert_eq!(c.database_url.expose(), "sqlite:///srv/vis/vis.db?mode=rwc");
    }

    #[test]
    fn render_settings_take_vis_render_variables() {
        let file = "[render]\nworkers = 4\nrevision = 2";
        let o = Overrides {
            render_workers: Some(0),
            render_revision: Some(3),
            render_daily_budget: Some(500),
            ..Overrides::default()
        };
        let c = Config::from_toml(file, o).unwrap();
        assert_eq!(
            (c.render.workers, c.render.revision, c.render.daily_budget),
            (0, 3, 500)
        );
        // What no variable names keeps the file's value or the default.
        assert_eq!(c.render.max_queue_depth, 200);
        let o = Overrides {
            render_max_queue_depth: Some(0),
            ..Overrides::default()
        };
        let err = Config::from_overrides(o).unwrap_err();
        assert!(
            err.to_string().starts_with("render.max_queue_depth"),
            "{err}"
        );
    }

    #[test]
    fn bad_values_name_the_field() {
        let o = Overrides {
            base_url: Some("ftp://x".into()),
            ..Overrides::default()
        };
        let err = Config::from_overrides(o).unwrap_err();
        assert!(err.to_string().starts_with("base_url"), "{err}");
        let err = Config::from_toml("lissen = 1", Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("lissen"), "{err}");
    }

    #[test]
    fn the_sandbox_refuses_a_public_base_url_unless_the_operator_opts_in() {
        let public = || Overrides {
            base_url: Some("https://images.example.com".into()),
            ..Overrides::default()
        };
        let err = Config::from_overrides(public()).unwrap_err();
        assert!(err.to_string().starts_with("payments.provider"), "{err}");
        assert!(err.to_string().contains("allow_sandbox_on_https"), "{err}");
        let c = Config::from_overrides(Overrides {
            allow_sandbox_payments: Some(true),
            ..public()
        })
        .unwrap();
        assert!(c.payments.allow_sandbox_on_https);
        let file = "[payments]\nallow_sandbox_on_https = true";
        assert!(Config::from_toml(file, public()).is_ok());
        // Stripe behind https, and the sandbox on plain http, need nothing.
        let stripe = Overrides {
            payments_provider: Some("stripe".into()),
            stripe_api_key: Some("sk_test_x".into()),
            stripe_webhook_secret: Some("whsec_x".into()),
            ..public()
        };
        assert!(Config::from_overrides(stripe).is_ok());
        assert!(Config::from_overrides(Overrides::default()).is_ok());
    }

    #[test]
    fn delivery_bounds_and_secret_are_checked() {
        let c = Config::from_overrides(Overrides::default()).unwrap();
        assert_eq!(
            (
                c.delivery.ttl_default,
                c.delivery.ttl_min,
                c.delivery.ttl_max
            ),
            (3600, 60, 604_800)
        );
        assert!(c.delivery.secret.is_none());
        let file = "[delivery]\nttl_default = 10\nttl_min = 5\nttl_max = 20";
        let c = Config::from_toml(file, Overrides::default()).unwrap();
        assert_eq!((c.delivery.ttl_min, c.delivery.ttl_max), (5, 20));
        let file = "[delivery]\nttl_min = 7200";
        let err = Config::from_toml(file, Overrides::default()).unwrap_err();
        assert!(err.to_string().starts_with("delivery"), "{err}");
        let short = Overrides {
            delivery_secret: Some("hunter2".into()),
            ..Overrides::default()
        };
        let err = Config::from_overrides(short).unwrap_err();
        assert!(err.to_string().starts_with("delivery.secret"), "{err}");
        assert!(!err.to_string().contains("hunter2"));
        let long = Overrides {
            delivery_secret: Some("s".repeat(40)),
            ..Overrides::default()
        };
        let c = Config::from_overrides(long).unwrap();
        assert!(!format!("{c:?}").contains(&"s".repeat(40)));
    }

    #[test]
    fn trusted_proxies_come_from_the_file_or_the_environment_and_name_the_key() {
        let file = "[http]\ntrusted_proxies = [\"10.0.0.0/8\", \"2001:db8::1\"]";
        let c = Config::from_toml(file, Overrides::default()).unwrap();
        let blocks = c.http.trusted_proxy_blocks();
        assert_eq!(blocks.len(), 2);
        assert!(blocks[0].contains("10.200.3.4".parse().unwrap()));
        assert!(blocks[0].contains("::ffff:10.1.1.1".parse().unwrap()));
        assert!(!blocks[0].contains("11.0.0.1".parse().unwrap()));
        assert!(blocks[1].contains("2001:db8::1".parse().unwrap()));
        assert!(!blocks[1].contains("2001:db8::2".parse().unwrap()));
        let env = Overrides {
            trusted_proxies: Some(vec![
                "127.0.0.2".into(),
                " 192.168.0.0/16 ".into(),
                "".into(),
            ]),
            ..Overrides::default()
        };
        let c = Config::from_overrides(env).unwrap();
        assert_eq!(c.http.trusted_proxies, ["127.0.0.2", "192.168.0.0/16"]);
        assert!(
            Cidr::parse("0.0.0.0/0")
                .unwrap()
                .contains("8.8.8.8".parse().unwrap())
        );
        for bad in [
            "10.0.0.0/33",
            "10.0.0.0/",
            "10.0.0/8",
            "proxy.internal",
            "::/129",
            "1.2.3.4/+8",
        ] {
            let env = Overrides {
                trusted_proxies: Some(vec![bad.into()]),
                ..Overrides::default()
            };
            let err = Config::from_overrides(env).unwrap_err().to_string();
            assert!(err.starts_with("http.trusted_proxies"), "{err}");
            assert!(err.contains("VIS_HTTP_TRUSTED_PROXIES"), "{err}");
        }
    }

    #[test]
    fn the_s3_store_is_chosen_by_file_or_environment() {
        let file = "object_store = \"s3\"\n[s3]\nbucket = \"vis-images\"\nregion = \"eu-west-1\"\nprefix = \"prod\"";
        let c = Config::from_toml(file, Overrides::default()).unwrap();
        assert_eq!(
            c.object_store,
            ObjectStoreConfig::S3(S3Config {
                bucket: "vis-images".into(),
                region: Some("eu-west-1".into()),
                endpoint: None,
                force_path_style: false,
                prefix: "prod/".into(),
            })
        );
        // Flags and VIS_S3_* win over the file.
        let file = "[s3]\nbucket = \"from-file\"";
        let o = Overrides {
            object_store: Some("s3".into()),
            s3_bucket: Some("from-env".into()),
            s3_endpoint: Some("http://127.0.0.1:9000/".into()),
            s3_force_path_style: Some(true),
            ..Overrides::default()
        };
        let ObjectStoreConfig::S3(s3) = Config::from_toml(file, o).unwrap().object_store else {
            panic!("s3 expected");
        };
        assert_eq!(s3.bucket, "from-env");
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert!(s3.force_path_style);
        assert_eq!(s3.prefix, "");
    }

    #[test]
    fn s3_settings_are_checked_and_named() {
        let s3 = |o: Overrides| {
            Config::from_overrides(Overrides {
                object_store: Some("s3".into()),
                ..o
            })
            .unwrap_err()
            .to_string()
        };
        let err = s3(Overrides::default());
        assert!(
            err.starts_with("s3.bucket") && err.contains("VIS_S3_BUCKET"),
            "{err}"
        );
        let err = s3(Overrides {
            s3_bucket: Some("b".into()),
            s3_endpoint: Some("localhost:9000".into()),
            ..Overrides::default()
        });
        assert!(err.starts_with("s3.endpoint"), "{err}");
        let err = s3(Overrides {
            s3_bucket: Some("b".into()),
            s3_prefix: Some("../up".into()),
            ..Overrides::default()
        });
        assert!(err.starts_with("s3.prefix"), "{err}");
        let err = Config::from_toml("[s3]\nbukket = \"x\"", Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("bukket"), "{err}");
    }

    #[test]
    fn a_render_batch_is_between_one_and_a_spin() {
        for bad in [0, MAX_BATCH + 1] {
            let err = Config::from_toml(&format!("[render]\nbatch = {bad}"), Overrides::default())
                .unwrap_err()
                .to_string();
            assert!(err.contains("render.batch"), "{err}");
        }
        let c = Config::from_toml("[render]\nbatch = 1", Overrides::default()).unwrap();
        assert_eq!(c.render.batch, 1);
        assert_eq!(
            Config::from_toml("", Overrides::default())
                .unwrap()
                .render
                .batch,
            24
        );
    }

    #[test]
    fn a_bad_value_names_its_key_and_its_layer() {
        let err = Config::from_toml("[render]\nworkers = \"many\"", Overrides::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("render.workers"), "{err}");
        assert!(err.contains("TOML"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vis.toml");
        std::fs::write(&path, "[http]\nmax_connections = -1\n").unwrap();
        let err = Config::load(&Overrides {
            config: Some(path.clone()),
            ..Overrides::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("http"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        let err = Config::load(&Overrides {
            config: Some(dir.path().join("missing.toml")),
            ..Overrides::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("cannot read config file"), "{err}");
        // A flag or variable is named as one.
        let err = Config::from_overrides(Overrides {
            s3_prefix: Some("x".into()),
            object_store: Some("s3".into()),
            s3_bucket: Some("b".into()),
            render_daily_budget: Some(-1),
            ..Overrides::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("render.daily_budget"), "{err}");
    }

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::new("postgres://u:hunter2@db/vis".to_string());
        assert!(!format!("{s:?}").contains("hunter2"));
        let c = Config::from_overrides(Overrides {
            database_url: Some("postgres://u:hunter2@db/vis".into()),
            ..Overrides::default()
        })
        .unwrap();
        assert!(!format!("{c:?}").contains("hunter2"));
    }
}
