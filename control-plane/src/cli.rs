//! The `control-plane` command line: `serve`, `migrate` and the operator
//! commands, all on the same layered configuration as the server.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use serde_json::json;

use crate::app;
use crate::auth::{ApiKey, Scopes};
use crate::billing::FREE_CREDITS;
use crate::config::{Config, Overrides};
use crate::http::app::App;
use crate::limits::DEFAULT_RATE_LIMIT_PER_MINUTE;
use crate::renders::{BUDGET_SETTING, utc_day};
use crate::store::{Account, EntryKind, NewEntry, NewKey, SqlStore, StoreError};
mod payments;
mod prewarm;

use crate::store::{
    AccountStore, BudgetStore, DeviceStore, EventStore, FeedbackStore, JobStore, KeyStore,
    LedgerStore, PartnerStore,
};

#[derive(Debug, Parser)]
#[command(
    name = "control-plane",
    version,
    about = "Vehicle image service: control plane and operator commands"
)]
pub struct Cli {
    #[command(flatten)]
    pub overrides: Overrides,
    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (migrates the database first).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Customer accounts.
    #[command(subcommand)]
    Accounts(AccountsCmd),
    /// Credit balance adjustments (written to the ledger).
    #[command(subcommand)]
    Credits(CreditsCmd),
    /// API keys.
    #[command(subcommand)]
    Keys(KeysCmd),
    /// Partner secrets for signed /images/car.png URLs.
    #[command(subcommand)]
    Partners(PartnersCmd),
    /// The daily generation budget (cold renders per UTC day).
    #[command(subcommand)]
    Budget(BudgetCmd),
    /// Telemetry events (POST /api/v1/events).
    #[command(subcommand)]
    Events(EventsCmd),
    /// Renders that feedback flagged; re-render or dismiss them.
    #[command(subcommand)]
    Renders(RendersCmd),
    /// Device logins (RFC 8628): approve or deny a user code.
    #[command(subcommand)]
    Device(DeviceCmd),
    /// Remote render nodes (docs/render-nodes.md).
    #[command(subcommand)]
    Nodes(NodesCmd),
    /// Money after the sale: sandbox refunds and disputes, auto-reload, an
    /// account's standing (docs/billing.md).
    #[command(subcommand)]
    Payments(payments::PaymentsCmd),
    /// The render farm at a glance: capacity, queue, today's renders
    /// against the budget, render times per node, failures by cause.
    Status,
    /// Prewarm jobs: render variants ahead of demand, at a priority that
    /// interactive requests always overtake (docs/render-nodes.md). With
    /// selection flags, starts a job (or resumes the unfinished job of the
    /// same selection) and drives it with a progress display.
    Prewarm(Box<prewarm::PrewarmCli>),
}

#[derive(Debug, Subcommand)]
pub enum NodesCmd {
    /// Add a render node; its token is printed once, on the last line.
    Add {
        /// Letters, digits and dashes, 1 to 63 characters.
        name: String,
    },
    /// Every node: state, slots, in flight, last heartbeat, renders today,
    /// failures, GPU adapter.
    List,
    /// The node finishes what it has in hand and takes no more jobs.
    Drain { name: String },
    /// The node takes jobs again after a drain.
    Resume { name: String },
    /// The node's token stops working; its jobs in hand go back to the
    /// queue when their leases run out.
    Remove { name: String },
}

#[derive(Debug, Subcommand)]
pub enum DeviceCmd {
    /// Approve a pending login for an account: its next poll gets a key.
    Approve {
        user_code: String,
        #[arg(long)]
        email: String,
    },
    /// Deny a pending login.
    Deny { user_code: String },
}

#[derive(Debug, Subcommand)]
pub enum RendersCmd {
    /// Renders flagged by negative feedback, newest first, with reasons.
    Flagged {
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Re-render a variant (make/model/year/color/view) under its next
    /// revision; every replica serves the new render within a second.
    Rerender {
        variant: String,
        /// The flagged revision this resolves (default: none).
        #[arg(long, default_value_t = 0)]
        revision: i64,
    },
    /// Dismiss a flag: the render stays as it is.
    Dismiss {
        variant: String,
        #[arg(long)]
        revision: i64,
    },
}

#[derive(Debug, Subcommand)]
pub enum EventsCmd {
    /// Count events by UTC day and name.
    Stats {
        /// First day to count, YYYY-MM-DD (UTC); default: 30 days ago.
        #[arg(long)]
        since: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum BudgetCmd {
    /// Set how many cold renders may start per UTC day (all replicas together).
    Set {
        #[arg(long)]
        daily: i64,
    },
    /// Show today's budget, what is used, and the render queue.
    Show,
}

#[derive(Debug, Subcommand)]
pub enum AccountsCmd {
    /// Create an account; it starts with the free credits unless --credits says otherwise.
    ///
    /// For operators: the credits are granted at once and the email counts
    /// as verified (no verification mail; sign-ups on the web get their free
    /// credits only from the mailed link). The owner sets a password with
    /// the sign-in page's "forgot password" (/reset).
    Create {
        #[arg(long)]
        email: String,
        #[arg(long, default_value_t = FREE_CREDITS)]
        credits: i64,
    },
    /// Show an account and its recent ledger entries.
    Show {
        #[arg(long)]
        email: String,
    },
    /// Grant the operator role (the dashboard's render-farm page,
    /// /dashboard/operator), or take it away with --revoke.
    Operator {
        #[arg(long)]
        email: String,
        #[arg(long)]
        revoke: bool,
    },
    /// Every account with the operator role.
    Operators,
}

#[derive(Debug, Subcommand)]
pub enum CreditsCmd {
    /// Add (positive) or remove (negative) credits, with a reason.
    Adjust {
        #[arg(long)]
        email: String,
        #[arg(long, allow_hyphen_values = true)]
        delta: i64,
        #[arg(long)]
        reason: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeysCmd {
    /// Create a key; the key is printed once, alone on the last line of stdout.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long, default_value = "default")]
        name: String,
        /// Scopes, separated by commas or spaces (default: all three, as on
        /// the dashboard and for device logins).
        #[arg(long, default_value = crate::auth::DEFAULT_SCOPES)]
        scopes: String,
        /// Requests per minute (default 120).
        #[arg(long, default_value_t = DEFAULT_RATE_LIMIT_PER_MINUTE)]
        rate_limit: i64,
    },
    /// List an account's keys (never the keys themselves).
    List {
        #[arg(long)]
        email: String,
    },
    /// Revoke a key by id; its delivery URLs and partner signatures stop working.
    Revoke { key_id: String },
}

#[derive(Debug, Subcommand)]
pub enum PartnersCmd {
    /// Issue a partner secret under an API key (revoking the key revokes
    /// it); the id and secret are printed once.
    Create {
        /// The id of the live API key the partner answers to.
        #[arg(long = "key")]
        key_id: String,
    },
    /// List an account's partners (never their secrets).
    List {
        #[arg(long)]
        email: String,
    },
    /// Revoke a partner by id; its signed URLs stop working within a second.
    Revoke { partner_id: String },
}

/// A failed command: the message goes to stderr, the exit code is non-zero.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Start(#[from] app::StartError),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
    /// The command ran but did not finish its work: its report goes to
    /// stdout and the process exits with `code`.
    #[error("{report}")]
    Incomplete { report: String, code: u8 },
}

pub fn main() -> ExitCode {
    quiet_headless_vulkan();
    let cli = Cli::parse();
    init_tracing(matches!(cli.command, Command::Serve));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(output) => {
            if !output.is_empty() {
                println!("{}", output.trim_end());
            }
            ExitCode::SUCCESS
        }
        Err(CliError::Incomplete { report, code }) => {
            println!("{}", report.trim_end());
            ExitCode::from(code)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Keeps Mesa's Wayland probe out of the log on a host with no session
/// (`vis_render::gpu::headless_vulkan_env` says why and when).
#[allow(unsafe_code)]
fn quiet_headless_vulkan() {
    if let Some((name, value)) = vis_render::gpu::headless_vulkan_env(|k| std::env::var_os(k)) {
        // SAFETY: first thing in `main`, before the runtime or anything else
        // starts a thread, so nothing reads the environment concurrently.
        unsafe { std::env::set_var(name, value) };
    }
}

fn init_tracing(serving: bool) {
    let default = if serving { "info" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default))
        // The AWS SDK's request pipeline, signer and credential providers
        // print identities (the access key id) at debug and trace; the SDK
        // redacts secret keys and tokens, and these caps keep the rest out.
        .add_directive("aws_smithy_runtime=info".parse().expect("valid directive"))
        .add_directive("aws_sigv4=info".parse().expect("valid directive"))
        .add_directive("aws_config=info".parse().expect("valid directive"))
        .add_directive(
            "aws_credential_types=info"
                .parse()
                .expect("valid directive"),
        );
    // Colour only for a person at a terminal: a file, a pipe or journald
    // gets plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .try_init();
}

/// Operator commands work on the service's data: pointed at a directory
/// with no SQLite database (a typo, the wrong working directory), they
/// refuse instead of creating an empty one. `serve` and `migrate` create it.
fn no_fresh_database(config: &Config) -> Result<(), CliError> {
    let url = config.database_url.expose();
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Ok(());
    };
    let path = rest.strip_prefix("//").unwrap_or(rest);
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path.starts_with(":memory:") || url.contains("mode=memory") {
        return Ok(());
    }
    if std::path::Path::new(path).exists() {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "no database in {dir} ({path} does not exist). Point --data-dir (VIS_DATA_DIR) or \
         --database-url (VIS_DATABASE_URL) at the service's data, or create a database there \
         with `control-plane migrate --data-dir {dir}` (`serve` creates one too).",
        dir = config.data_dir.display(),
    )))
}

/// Runs one command; returns what it prints on stdout.
pub async fn run(cli: Cli) -> Result<String, CliError> {
    let config = Config::load(&cli.overrides)?;
    match cli.command {
        Command::Serve => {
            let app = App::build(config).await?;
            tracing::info!(addr = %app.local_addr(), base_url = app.base_url(), "listening");
            app.run().await?;
            Ok(String::new())
        }
        Command::Migrate => {
            app::open_store(&config).await?;
            Ok(say(
                cli.json,
                json!({ "migrated": true }),
                "migrations applied",
            ))
        }
        Command::Prewarm(cmd) => {
            no_fresh_database(&config)?;
            prewarm::prewarm(&config, *cmd, cli.json).await
        }
        other => {
            no_fresh_database(&config)?;
            let store = app::open_store(&config).await?;
            // Credits move only through the ledger, here as in the server.
            let ledger = crate::billing::Ledger::start(
                Arc::new(store.clone()),
                &config.database_url,
                &config.billing,
            )
            .await?;
            let result = match other {
                Command::Payments(cmd) => {
                    payments::run(&store, &ledger, &config, cmd, cli.json).await
                }
                other => operate(&store, &ledger, other, cli.json, &config.render).await,
            };
            store.close().await;
            result
        }
    }
}

fn say(as_json: bool, value: serde_json::Value, text: &str) -> String {
    if as_json {
        format!("{value}\n")
    } else {
        format!("{text}\n")
    }
}

async fn account(store: &SqlStore, email: &str) -> Result<Account, CliError> {
    let email = email_arg(email)?;
    store
        .account_by_email(&email)
        .await?
        .ok_or_else(|| CliError::Usage(format!("no account with email {email}")))
}

/// An `--email` as accounts store it: trimmed and lower case, checked as
/// sign-up checks it (`people::normalize_email`), so the CLI and the web
/// create and find the same accounts.
fn email_arg(raw: &str) -> Result<String, CliError> {
    crate::people::normalize_email(raw)
        .map_err(|why| CliError::Usage(format!("--email: {raw:?} {why}")))
}

async fn operate(
    store: &SqlStore,
    ledger: &crate::billing::Ledger,
    command: Command,
    as_json: bool,
    render: &crate::config::RenderConfig,
) -> Result<String, CliError> {
    use std::fmt::Write;
    let config_budget = render.daily_budget;
    let mut out = String::new();
    match command {
        Command::Accounts(AccountsCmd::Create { email, credits }) => {
            let email = email_arg(&email)?;
            if credits < 0 {
                return Err(CliError::Usage("--credits: must not be negative".into()));
            }
            let account = ledger
                .open_account(&email, credits)
                .await
                .map_err(|e| match e {
                    StoreError::Conflict(_) => {
                        CliError::Usage(format!("an account with email {email} already exists"))
                    }
                    other => other.into(),
                })?;
            out.push_str(&say(
                as_json,
                json!({ "id": account.id, "email": account.email, "credits": credits }),
                &format!(
                    "account {} created for {} with {} credits",
                    account.id, account.email, credits
                ),
            ));
        }
        Command::Accounts(AccountsCmd::Show { email }) => {
            let account = account(store, &email).await?;
            let balance = ledger.balance(&account.id).await?.unwrap_or(0);
            let entries = store.entries(&account.id, 20).await?;
            let keys = store.keys_of_account(&account.id).await?;
            if as_json {
                let entries: Vec<_> = entries
                    .iter()
                    .map(|e| json!({ "id": e.id, "kind": e.kind.as_str(), "delta": e.delta, "balance_after": e.balance_after, "reason": e.reason, "created_at_ms": e.created_at }))
                    .collect();
                let _ = writeln!(
                    out,
                    "{}",
                    json!({ "id": account.id, "email": account.email, "credits": balance, "keys": keys.len(), "ledger": entries })
                );
            } else {
                let _ = writeln!(
                    out,
                    "account  {}\nemail    {}\ncredits  {}\nkeys     {}",
                    account.id,
                    account.email,
                    balance,
                    keys.len()
                );
                let _ = writeln!(out, "recent ledger entries:");
                for e in entries {
                    let _ = writeln!(
                        out,
                        "  #{:<6} {:<10} {:>+8} -> {:>8}  {}",
                        e.id,
                        e.kind.as_str(),
                        e.delta,
                        e.balance_after,
                        e.reason
                    );
                }
            }
        }
        Command::Accounts(AccountsCmd::Operator { email, revoke }) => {
            use crate::store::PeopleStore;
            // As given, else as sign-up stores it (trimmed, lower case).
            let account = match store.account_by_email(&email).await? {
                Some(a) => a,
                None => {
                    let normal = crate::people::normalize_email(&email).unwrap_or(email);
                    account(store, &normal).await?
                }
            };
            store.set_operator(&account.id, !revoke).await?;
            let text = if revoke {
                format!("{} is not an operator", account.email)
            } else {
                format!(
                    "{} is an operator: the dashboard shows them /dashboard/operator",
                    account.email
                )
            };
            out.push_str(&say(
                as_json,
                json!({ "email": account.email, "operator": !revoke }),
                &text,
            ));
        }
        Command::Accounts(AccountsCmd::Operators) => {
            use crate::store::PeopleStore;
            let operators = store.operators().await?;
            if as_json {
                let list: Vec<_> = operators
                    .iter()
                    .map(|(email, at)| json!({ "email": email, "granted_at": at }))
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::from(list));
            } else {
                for (email, at) in &operators {
                    let _ = writeln!(out, "{email}  since {}", crate::http::dashboard::when(*at));
                }
            }
        }
        Command::Credits(CreditsCmd::Adjust {
            email,
            delta,
            reason,
        }) => {
            if delta == 0 {
                return Err(CliError::Usage("--delta: must not be 0".into()));
            }
            if reason.trim().is_empty() {
                return Err(CliError::Usage("--reason: must not be empty".into()));
            }
            let account = account(store, &email).await?;
            let entry = ledger
                .post(
                    &account.id,
                    NewEntry {
                        kind: EntryKind::Adjustment,
                        delta,
                        reason: &reason,
                        reference: None,
                    },
                )
                .await
                .map_err(|e| match e {
                    StoreError::InsufficientCredits { balance, .. } => CliError::Usage(format!(
                        "--delta: the balance is {balance}; it cannot go below 0"
                    )),
                    other => other.into(),
                })?;
            out.push_str(&say(
                as_json,
                json!({ "entry_id": entry.id, "delta": entry.delta, "credits": entry.balance_after }),
                &format!("adjusted by {:+}; balance is now {}", entry.delta, entry.balance_after),
            ));
        }
        Command::Keys(KeysCmd::Create {
            email,
            name,
            scopes,
            rate_limit,
        }) => {
            let scopes =
                Scopes::parse(&scopes).map_err(|e| CliError::Usage(format!("--scopes: {e}")))?;
            if scopes.names().is_empty() {
                return Err(CliError::Usage(
                    "--scopes: at least one scope is required".into(),
                ));
            }
            if !(1..=100_000_000).contains(&rate_limit) {
                return Err(CliError::Usage(
                    "--rate-limit: must be from 1 to 100000000".into(),
                ));
            }
            if name.trim().is_empty() || name.len() > 80 {
                return Err(CliError::Usage("--name: must be 1 to 80 characters".into()));
            }
            let account = account(store, &email).await?;
            let key = ApiKey::generate();
            let record = store
                .create_key(NewKey {
                    account_id: account.id,
                    name,
                    display_prefix: key.display_prefix(),
                    key_hash: key.hash(),
                    scopes: scopes.to_string(),
                    rate_limit_per_minute: rate_limit,
                })
                .await?;
            if as_json {
                let _ = writeln!(
                    out,
                    "{}",
                    json!({ "id": record.id, "name": record.name, "scopes": scopes.names(), "rate_limit_per_minute": record.rate_limit_per_minute, "key": key.expose() })
                );
            } else {
                let _ = writeln!(
                    out,
                    "key {} created ({}), scopes {}; it is shown once:",
                    record.id, record.name, scopes
                );
                let _ = writeln!(out, "{}", key.expose());
            }
        }
        Command::Keys(KeysCmd::List { email }) => {
            let account = account(store, &email).await?;
            let keys = store.keys_of_account(&account.id).await?;
            if as_json {
                let list: Vec<_> = keys
                    .iter()
                    .map(|k| json!({ "id": k.id, "name": k.name, "prefix": k.display_prefix, "scopes": k.scopes, "rate_limit_per_minute": k.rate_limit_per_minute, "revoked": k.revoked_at.is_some() }))
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::from(list));
            } else {
                for k in keys {
                    let state = if k.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    };
                    let _ = writeln!(
                        out,
                        "{}  {}…  {:<8} {:>6}/min  {}  {}",
                        k.id, k.display_prefix, state, k.rate_limit_per_minute, k.scopes, k.name
                    );
                }
            }
        }
        Command::Keys(KeysCmd::Revoke { key_id }) => {
            let Some(key) = store.key_by_id(&key_id).await? else {
                return Err(CliError::Usage(format!("no key with id {key_id}")));
            };
            if !store.revoke_key(&key.id).await? {
                return Err(CliError::Usage(format!("key {key_id} was already revoked")));
            }
            out.push_str(&say(
                as_json,
                json!({ "id": key.id, "revoked": true }),
                &format!("key {} revoked", key.id),
            ));
        }
        Command::Partners(PartnersCmd::Create { key_id }) => {
            let secret = crate::embeds::partners::generate_secret();
            let partner = match store.create_partner(&key_id, &secret).await {
                Err(StoreError::NotFound(_)) => {
                    return Err(CliError::Usage(format!(
                        "no live key with id {key_id} (see `keys list --email E`)"
                    )));
                }
                other => other?,
            };
            if as_json {
                let _ = writeln!(
                    out,
                    "{}",
                    json!({ "partner_id": partner.id, "key_id": key_id, "secret": secret })
                );
            } else {
                let _ = writeln!(
                    out,
                    "partner {} created under key {key_id}; its secret is shown once:",
                    partner.id
                );
                let _ = writeln!(out, "partner_id {}", partner.id);
                let _ = writeln!(out, "{secret}");
            }
        }
        Command::Partners(PartnersCmd::List { email }) => {
            let account = account(store, &email).await?;
            let partners = store.partners_of_account(&account.id).await?;
            if as_json {
                let list: Vec<_> = partners
                    .iter()
                    .map(|p| json!({ "id": p.id, "key_id": p.key_id, "created_at": p.created_at, "revoked": p.revoked_at.is_some() }))
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::from(list));
            } else {
                for p in partners {
                    let state = if p.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    };
                    let _ = writeln!(
                        out,
                        "{}  key {}  {state}",
                        p.id,
                        p.key_id.as_deref().unwrap_or("(none: never honoured)")
                    );
                }
            }
        }
        Command::Partners(PartnersCmd::Revoke { partner_id }) => {
            if store.partner_by_id(&partner_id).await?.is_none() {
                return Err(CliError::Usage(format!("no partner with id {partner_id}")));
            }
            if !store.revoke_partner(&partner_id).await? {
                return Err(CliError::Usage(format!(
                    "partner {partner_id} was already revoked"
                )));
            }
            out.push_str(&say(
                as_json,
                json!({ "id": partner_id, "revoked": true }),
                &format!("partner {partner_id} revoked"),
            ));
        }
        Command::Nodes(cmd) => out.push_str(&nodes(store, cmd, as_json).await?),
        Command::Status => out.push_str(&status(store, render, as_json).await?),
        Command::Budget(BudgetCmd::Set { daily }) => {
            if daily < 0 {
                return Err(CliError::Usage("--daily: must not be negative".into()));
            }
            store
                .set_setting(BUDGET_SETTING, &daily.to_string())
                .await?;
            out.push_str(&say(
                as_json,
                json!({ "daily": daily }),
                &format!("daily generation budget set to {daily} cold renders per UTC day"),
            ));
        }
        Command::Budget(BudgetCmd::Show) => {
            let daily = crate::renders::daily_budget(store, config_budget).await?;
            let day = utc_day();
            let used = store.budget_used(&day).await?;
            let jobs = store.job_counts().await?;
            out.push_str(&say(
                as_json,
                json!({ "day": day, "daily": daily, "used": used, "left": (daily - used).max(0), "queued": jobs.queued, "running": jobs.running, "failed": jobs.failed }),
                &format!(
                    "day (UTC)  {day}\ndaily      {daily}\nused       {used}\nleft       {}\nqueue      {} queued, {} running, {} failed",
                    (daily - used).max(0),
                    jobs.queued,
                    jobs.running,
                    jobs.failed
                ),
            ));
        }
        Command::Device(cmd) => {
            let (raw, email) = match &cmd {
                DeviceCmd::Approve { user_code, email } => (user_code, Some(email)),
                DeviceCmd::Deny { user_code } => (user_code, None),
            };
            let code = crate::http::device::normalize_user_code(raw).ok_or_else(|| {
                CliError::Usage(format!("{raw:?} is not a user code like ABCD-EF23"))
            })?;
            let account_id = match email {
                Some(e) => Some(account(store, e).await?.id),
                None => None,
            };
            let Some(login) = store
                .decide_device_login(&code, account_id.as_deref())
                .await?
            else {
                return Err(CliError::Usage(format!(
                    "no pending login has the code {code} (expired, already decided, or mistyped)"
                )));
            };
            let verb = if account_id.is_some() {
                "approved"
            } else {
                "denied"
            };
            out.push_str(&say(
                as_json,
                json!({ "user_code": code, "client_name": login.client_name, "status": verb }),
                &format!("{code} ({}) {verb}", login.client_name),
            ));
        }
        Command::Renders(RendersCmd::Flagged { limit }) => {
            let flags = store.render_flags(limit.clamp(1, 1000)).await?;
            if as_json {
                let list: Vec<_> = flags
                    .iter()
                    .map(|f| json!({ "variant": f.variant, "revision": f.revision, "state": f.state, "reports": f.reports, "flagged_at": f.flagged_at, "resolved_at": f.resolved_at, "reasons": f.reasons }))
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::from(list));
            } else if flags.is_empty() {
                out.push_str("no flagged renders: no render has had enough bad reports\n");
            } else {
                for f in flags {
                    let _ = writeln!(
                        out,
                        "{}  r{}  {:<10} {} reports  {}",
                        f.variant,
                        f.revision,
                        f.state,
                        f.reports,
                        f.reasons.join(" | ")
                    );
                }
            }
        }
        Command::Renders(RendersCmd::Rerender { variant, revision }) => {
            if variant.parse::<vis_protocol::VariantKey>().is_err() {
                return Err(CliError::Usage(format!(
                    "{variant:?} is not a variant: make/model/year/color/view, in slugs"
                )));
            }
            let bump = store.rerender_variant(&variant, revision).await?;
            out.push_str(&say(
                as_json,
                json!({ "variant": variant, "bump": bump }),
                &format!(
                    "{variant} will be re-rendered (re-render {bump}); its next delivery renders it"
                ),
            ));
        }
        Command::Renders(RendersCmd::Dismiss { variant, revision }) => {
            if !store.dismiss_flag(&variant, revision).await? {
                return Err(CliError::Usage(format!(
                    "no open flag for {variant} at revision {revision} (see `renders flagged`)"
                )));
            }
            out.push_str(&say(
                as_json,
                json!({ "variant": variant, "revision": revision, "dismissed": true }),
                &format!("flag on {variant} r{revision} dismissed"),
            ));
        }
        Command::Events(EventsCmd::Stats { since }) => {
            let since = match since {
                Some(day) => {
                    let valid = time::Date::parse(
                        &day,
                        time::macros::format_description!("[year]-[month]-[day]"),
                    )
                    .is_ok();
                    if !valid {
                        return Err(CliError::Usage(
                            "--since: must be a date, YYYY-MM-DD".into(),
                        ));
                    }
                    day
                }
                None => crate::store::utc_day_of(
                    crate::store::now_millis() - crate::billing::THIRTY_DAYS_MS,
                ),
            };
            let counts = store.event_counts(&since).await?;
            let total: i64 = counts.iter().map(|c| c.count).sum();
            let rows: Vec<_> = counts
                .iter()
                .map(|c| json!({ "day": c.day, "event": c.name, "count": c.count }))
                .collect();
            let mut text = format!("events since {since}: {total}\n");
            for c in &counts {
                text.push_str(&format!("{}  {:<24} {}\n", c.day, c.name, c.count));
            }
            out.push_str(&say(
                as_json,
                json!({ "since": since, "total": total, "counts": rows }),
                text.trim_end(),
            ));
        }
        Command::Serve | Command::Migrate | Command::Prewarm(_) | Command::Payments(_) => {
            unreachable!("handled by run")
        }
    }
    Ok(out)
}

/// `control-plane nodes …`.
async fn nodes(store: &SqlStore, cmd: NodesCmd, as_json: bool) -> Result<String, CliError> {
    use crate::store::NodeStore;
    use std::fmt::Write as _;
    let mut out = String::new();
    let set_state = async |name: &str, state: &str, said: &str| -> Result<String, CliError> {
        if !store.set_node_state(name, state).await? {
            return Err(CliError::Usage(format!(
                "no node named {name} (see `nodes list`)"
            )));
        }
        Ok(say(
            as_json,
            json!({ "name": name, "state": state }),
            &format!("node {name} {said}"),
        ))
    };
    match cmd {
        NodesCmd::Add { name } => {
            let valid = !name.is_empty()
                && name.len() <= 63
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !valid {
                return Err(CliError::Usage(
                    "NAME: must be 1 to 63 letters, digits and dashes".into(),
                ));
            }
            let token = format!(
                "{}{}",
                crate::http::nodes::NODE_TOKEN_PREFIX,
                crate::auth::random_base62(40)
            );
            match store
                .add_node(&name, &crate::auth::hash_hex(token.as_bytes()))
                .await
            {
                Err(StoreError::Conflict(_)) => {
                    return Err(CliError::Usage(format!(
                        "a node named {name} exists (names are never reused)"
                    )));
                }
                other => other?,
            };
            if as_json {
                let _ = writeln!(out, "{}", json!({ "name": name, "token": token }));
            } else {
                let _ = writeln!(
                    out,
                    "node {name} added; its token is shown once (render-node run --token):"
                );
                let _ = writeln!(out, "{token}");
            }
        }
        NodesCmd::List => {
            let nodes = store.nodes().await?;
            let jobs = store.running_jobs_by_owner().await?;
            let in_flight = |name: &str| {
                jobs.iter()
                    .find(|(owner, _)| owner == &format!("node:{name}"))
                    .map_or(0, |(_, n)| *n)
            };
            if as_json {
                let list: Vec<_> = nodes
                    .iter()
                    .map(|n| {
                        let mut v = serde_json::to_value(n).unwrap_or_default();
                        v["in_flight"] = json!(in_flight(&n.name));
                        v
                    })
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::from(list));
            } else {
                let now = crate::store::now_millis();
                let _ = writeln!(
                    out,
                    "{:<20} {:<9} {:>5} {:>9} {:>10} {:>7} {:>8}  adapter",
                    "name", "state", "slots", "in-flight", "heartbeat", "today", "failures"
                );
                for n in &nodes {
                    let seen = n
                        .last_heartbeat
                        .map_or("never".to_owned(), |t| format!("{}s ago", (now - t) / 1000));
                    let _ = writeln!(
                        out,
                        "{:<20} {:<9} {:>5} {:>9} {:>10} {:>7} {:>8}  {}",
                        n.name,
                        n.state,
                        n.slots,
                        in_flight(&n.name),
                        seen,
                        n.renders_today,
                        n.failures_total,
                        n.adapter.as_deref().unwrap_or("-")
                    );
                }
            }
        }
        NodesCmd::Drain { name } => out.push_str(
            &set_state(
                &name,
                "draining",
                "is draining: it finishes its jobs in hand and takes no more",
            )
            .await?,
        ),
        NodesCmd::Resume { name } => {
            out.push_str(&set_state(&name, "active", "takes jobs again").await?)
        }
        NodesCmd::Remove { name } => {
            out.push_str(&set_state(&name, "removed", "removed; its token no longer works").await?)
        }
    }
    Ok(out)
}

/// `control-plane status`: what an operator of the render farm watches
/// (`renders::farm`, which the dashboard's operator page shows too).
async fn status(
    store: &SqlStore,
    render: &crate::config::RenderConfig,
    as_json: bool,
) -> Result<String, CliError> {
    use std::fmt::Write as _;
    let farm = crate::renders::farm::gather(
        store,
        render.daily_budget,
        std::time::Duration::from_secs(render.node_lease_secs),
    )
    .await?;
    if as_json {
        let doc = json!({
            "day": farm.day,
            "capacity": farm.capacity,
            "queue": farm.queue,
            "budget": farm.budget,
            "render_times_today": farm.render_times_today,
            "failures_today_by_cause": farm.failures_today_by_cause,
        });
        return Ok(format!("{doc}\n"));
    }
    let (c, q, b) = (&farm.capacity, &farm.queue, &farm.budget);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "capacity   {} nodes up ({} draining), {} of {} node slots busy, {} in-process renders",
        c.nodes_up, c.nodes_draining, c.node_slots_busy, c.node_slots, c.in_process_busy
    );
    let _ = writeln!(
        out,
        "queue      {} queued, {} running; interactive {} queued, {} running; prewarm {} queued, {} running",
        q.queued,
        q.running,
        q.queued_interactive,
        q.running_interactive,
        q.queued_prewarm,
        q.running_prewarm
    );
    let _ = writeln!(
        out,
        "budget     {} of {} cold renders today ({} UTC), {} left",
        b.used, b.daily, farm.day, b.left
    );
    let _ = writeln!(out, "render times today (ms):");
    for t in &farm.render_times_today {
        let ms = |v: Option<i64>| v.map_or("-".to_owned(), |v| v.to_string());
        // The counts were printed unpadded from the start; kept so.
        let _ = writeln!(
            out,
            "  {:<20} {} renders  {} failed  p50 {:>6}  p95 {:>6}",
            t.node,
            t.renders,
            t.failures,
            ms(t.p50_ms),
            ms(t.p95_ms)
        );
    }
    let _ = writeln!(out, "failures today by cause:");
    for (cause, n) in &farm.failures_today_by_cause {
        let _ = writeln!(out, "  {n:>6}  {cause}");
    }
    Ok(out)
}
