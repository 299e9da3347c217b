//! Persistent state behind small traits, one per concern. [`SqlStore`] is the
//! one implementation: sqlx's `Any` driver over SQLite (embedded default) or
//! PostgreSQL (scale-out), with portable SQL and two migration folders that
//! share version numbers.

pub mod prewarm;
mod sql;

use async_trait::async_trait;

pub use sql::{
    ChargeWriter, Dialect, SqlStore, abandon_write, execute_raw, open_charge_writer, utc_day_of,
};

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

pub fn now_millis() -> Millis {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(now.as_millis()).unwrap_or(i64::MAX)
}

/// A UUIDv7: the millisecond, then random bits from the thread's generator
/// (no system call per id). Keys made of these land at the right edge of
/// their index, so a busy table dirties one leaf page, not one per insert.
pub fn time_ordered_id() -> uuid::Uuid {
    use rand::RngExt;
    let ms = u64::try_from(now_millis()).unwrap_or(0);
    let random: [u8; 10] = rand::rng().random();
    uuid::Builder::from_unix_timestamp_millis(ms, &random).into_uuid()
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or is shutting down.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("{0} already exists")]
    Conflict(&'static str),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("insufficient credits: balance {balance}, required {required}")]
    InsufficientCredits { balance: i64, required: i64 },
    /// The key a charge was made with has been revoked: nothing is charged.
    #[error("the API key has been revoked")]
    KeyRevoked,
    /// The account owes credits after a refunded payment: it buys nothing
    /// until a purchase settles it (docs/billing.md, "After the sale").
    #[error("the account owes {owed} credits")]
    AccountHeld { owed: i64 },
    /// A payment of the account is disputed: its keys are frozen.
    #[error("the account's payment is disputed")]
    AccountFrozen,
    #[error("database error: {0}")]
    Database(String),
    #[error("migration failed: {0}")]
    Migration(String),
}

impl StoreError {
    /// The same error for another caller (a failed batch fails each of its
    /// items); causes that cannot be cloned keep their text.
    pub fn duplicate(&self) -> StoreError {
        match self {
            StoreError::Unavailable(m) => StoreError::Unavailable(m.clone()),
            StoreError::Conflict(what) => StoreError::Conflict(what),
            StoreError::NotFound(what) => StoreError::NotFound(what),
            StoreError::InsufficientCredits { balance, required } => {
                StoreError::InsufficientCredits {
                    balance: *balance,
                    required: *required,
                }
            }
            StoreError::KeyRevoked => StoreError::KeyRevoked,
            StoreError::AccountHeld { owed } => StoreError::AccountHeld { owed: *owed },
            StoreError::AccountFrozen => StoreError::AccountFrozen,
            StoreError::Database(m) => StoreError::Database(m.clone()),
            StoreError::Migration(m) => StoreError::Migration(m.clone()),
        }
    }
}

/// An account. Its balance is not here: it is read through
/// `billing::Ledger::balance`, the one door for credits.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub email: String,
    #[sqlx(try_from = "sql::IntFlag")]
    pub auto_reload: bool,
    #[sqlx(try_from = "sql::IntFlag")]
    pub has_payment_method: bool,
    pub created_at: Millis,
}

#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub id: String,
    pub account_id: String,
    pub name: String,
    /// The key's first characters (`vis_AbCd1234`), enough to recognise it in
    /// a list; never enough to use it.
    pub display_prefix: String,
    /// Space-separated scope names.
    pub scopes: String,
    pub rate_limit_per_minute: i64,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// When a request last authenticated with the key, to about a minute;
    /// `None`: never.
    pub last_used_at: Option<Millis>,
    /// Open payment disputes of the key's account, read with the key by
    /// the lookups that authenticate (`key_by_hash`, `key_by_id`): while
    /// above 0 the key is frozen (403). 0 where a query does not read it.
    #[sqlx(default)]
    pub account_disputes: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    pub account_id: String,
    pub name: String,
    pub display_prefix: String,
    pub key_hash: String,
    pub scopes: String,
    pub rate_limit_per_minute: i64,
}

#[derive(sqlx::FromRow, Clone, PartialEq, Eq)]
pub struct Partner {
    pub id: String,
    pub account_id: String,
    /// The API key the partner's signatures answer to; revoking it revokes
    /// them. None for partners made before keys owned them (never honoured).
    pub key_id: Option<String>,
    #[sqlx(try_from = "String")]
    pub secret: crate::config::Secret<String>,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
}

impl std::fmt::Debug for Partner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partner")
            .field("id", &self.id)
            .field("account_id", &self.account_id)
            .field("key_id", &self.key_id)
            .field("revoked_at", &self.revoked_at)
            .finish_non_exhaustive()
    }
}

/// What a ledger entry records (DESIGN: grant, purchase, charge, refund, adjustment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Grant,
    Purchase,
    Charge,
    Refund,
    Adjustment,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Grant => "grant",
            EntryKind::Purchase => "purchase",
            EntryKind::Charge => "charge",
            EntryKind::Refund => "refund",
            EntryKind::Adjustment => "adjustment",
        }
    }

    pub fn parse(raw: &str) -> Option<EntryKind> {
        [
            EntryKind::Grant,
            EntryKind::Purchase,
            EntryKind::Charge,
            EntryKind::Refund,
            EntryKind::Adjustment,
        ]
        .into_iter()
        .find(|k| k.as_str() == raw)
    }
}

/// A row's `kind` column (`sqlx::FromRow`).
impl TryFrom<String> for EntryKind {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<EntryKind, UnknownValue> {
        EntryKind::parse(&raw).ok_or(UnknownValue("ledger kind", raw))
    }
}

/// A text column that holds none of its enum's values.
#[derive(Debug, thiserror::Error)]
#[error("unknown {0} {1:?}")]
pub struct UnknownValue(&'static str, String);

#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub id: i64,
    pub account_id: String,
    #[sqlx(try_from = "String")]
    pub kind: EntryKind,
    pub delta: i64,
    pub balance_after: i64,
    pub reason: String,
    pub reference: Option<String>,
    pub created_at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry<'a> {
    pub kind: EntryKind,
    pub delta: i64,
    pub reason: &'a str,
    pub reference: Option<&'a str>,
}

#[async_trait]
pub trait AccountStore: Send + Sync {
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;
    async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError>;
}

#[async_trait]
pub trait LedgerStore: Send + Sync {
    async fn entries(&self, account_id: &str, limit: i64) -> Result<Vec<LedgerEntry>, StoreError>;
    /// Sum of the deltas of `kind` entries at or after `since`.
    async fn sum_since(
        &self,
        account_id: &str,
        kind: EntryKind,
        since: Millis,
    ) -> Result<i64, StoreError>;
}

/// Every write that moves credits or a balance, and the balance itself: the
/// port of `billing::Ledger`, which holds the only handle to it (app.rs
/// builds it; `tests/tidy.rs` fails when any other module names it). It is
/// not part of [`Store`], so a handler holding the store cannot move a
/// credit around the ledger. Each method is one transaction; whether credits
/// suffice is decided by the conditional write inside it (docs/ledger.md).
#[async_trait]
pub trait CreditStore: Send + Sync + std::fmt::Debug {
    /// The committed balance of an account (None: no such account).
    async fn balance(&self, account_id: &str) -> Result<Option<i64>, StoreError>;
    /// Creates an account whose opening balance is one `grant` ledger entry
    /// (none when `initial_credits` is 0), in one transaction.
    async fn create_account(
        &self,
        email: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError>;
    /// A new account with a password and its free credits, in one
    /// transaction; `Conflict` when the email is taken.
    async fn create_person(
        &self,
        email: &str,
        password_hash: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError>;
    /// Appends one entry and moves the balance by `delta` in the same
    /// transaction; refuses (InsufficientCredits) when the balance would go
    /// negative, writing nothing.
    async fn append_entry(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError>;
    /// Debits `credits` and writes the charge's ledger entry, which is the
    /// delivery record, in one transaction; InsufficientCredits writes
    /// nothing. Returns the balance after.
    async fn charge_delivery(&self, delivery: &NewDelivery) -> Result<i64, StoreError>;
    /// Group commit: charges every delivery in one transaction. Each item
    /// gets its own outcome (an InsufficientCredits item writes nothing);
    /// an Err for the whole call means nothing at all was written.
    async fn charge_deliveries(
        &self,
        deliveries: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError>;
    /// Refunds a delivery's charge (by its ledger entry id) once: a refund
    /// entry that names the charge, and the balance, in one transaction.
    /// Returns the balance after, or None if it was refunded already
    /// (NotFound when no delivery charge has that id).
    async fn refund_delivery(
        &self,
        charge_id: i64,
        reason: &str,
    ) -> Result<Option<i64>, StoreError>;
    /// Writes every URL and one ledger `charge` of minus their number in one
    /// transaction, if the minting key is live and the balance covers them.
    /// InsufficientCredits (required = the number of URLs) and KeyRevoked
    /// write nothing. Returns the balance after.
    async fn mint_delivery_urls(
        &self,
        payer: Payer<'_>,
        urls: &[NewDeliveryUrl],
        idempotency: Option<IdempotencyClaim<'_>>,
    ) -> Result<i64, StoreError>;
    /// Records a failed first load (only while no use was redeemed): the URL
    /// is consumed and its one credit refunded, in one transaction, once.
    /// `Some(balance after)` when this call did it, None otherwise.
    async fn fail_delivery_url(&self, id: &str, reason: &str) -> Result<Option<i64>, StoreError>;
    /// In one transaction: records the event id (a second time is
    /// `Duplicate`), marks the purchase paid, appends its `purchase` ledger
    /// entry, and remembers the customer and that the account has paid.
    async fn record_paid_checkout(
        &self,
        paid: &PaidCheckout<'_>,
    ) -> Result<PaymentOutcome, StoreError>;
    /// Opens an email-verification link (migration 20), in one
    /// transaction: marks the link used, ends the account's unverified mark
    /// and posts its `grant` of `credits`. The mark's deletion decides, so
    /// the grant lands once per account whichever of its links is opened,
    /// however often and wherever.
    async fn verify_email(
        &self,
        token_hash: &str,
        credits: i64,
    ) -> Result<Verification, StoreError>;
    /// In one transaction, once per event id: takes back the credits of the
    /// refunded share of a purchase not taken back before (proportional,
    /// rounded down), from the balance as far as it goes, and records the
    /// rest as owed.
    async fn record_refund(&self, refund: &RefundNotice<'_>) -> Result<PaymentOutcome, StoreError>;
    /// In one transaction, once per event id and per dispute: opens (the
    /// account's keys freeze) or closes a dispute (won: unfrozen; lost: the
    /// purchase is taken back as a full refund, then unfrozen).
    async fn record_dispute(
        &self,
        dispute: &DisputeNotice<'_>,
    ) -> Result<PaymentOutcome, StoreError>;
    /// Claims an auto-reload of an account whose balance is below its
    /// threshold and whose auto-reload is armed (a conditional write: once
    /// per threshold crossing, across replicas), opening its purchase.
    /// None when it is not due.
    async fn claim_auto_reload(
        &self,
        account_id: &str,
        provider: &str,
    ) -> Result<Option<Purchase>, StoreError>;
}

#[async_trait]
pub trait KeyStore: Send + Sync {
    async fn create_key(&self, key: NewKey) -> Result<KeyRecord, StoreError>;
    /// The key with this hash, revoked or not (the caller decides).
    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyRecord>, StoreError>;
    async fn key_by_id(&self, id: &str) -> Result<Option<KeyRecord>, StoreError>;
    async fn keys_of_account(&self, account_id: &str) -> Result<Vec<KeyRecord>, StoreError>;
    /// Records that the key authenticated a request at `at`; moves
    /// `last_used_at` only forward, and only by a minute or more.
    async fn record_key_use(&self, id: &str, at: Millis) -> Result<(), StoreError>;
    /// Revokes the key; false when it does not exist or was already revoked.
    async fn revoke_key(&self, id: &str) -> Result<bool, StoreError>;
}

#[async_trait]
pub trait PartnerStore: Send + Sync {
    /// A partner secret under `key_id` (of the key's account).
    async fn create_partner(&self, key_id: &str, secret: &str) -> Result<Partner, StoreError>;
    async fn partner_by_id(&self, id: &str) -> Result<Option<Partner>, StoreError>;
    /// An account's partners, newest first, revoked ones included.
    async fn partners_of_account(&self, account_id: &str) -> Result<Vec<Partner>, StoreError>;
    /// Revokes a partner and announces it on the revocation feed; false
    /// when it was already revoked.
    async fn revoke_partner(&self, id: &str) -> Result<bool, StoreError>;
    /// Every partner whose signatures are honoured now: not revoked, under
    /// a key that is not revoked.
    async fn live_partners(&self) -> Result<Vec<Partner>, StoreError>;
}

/// One billed image delivery. Its charge is one ledger row that records
/// what it paid for (kind `charge`, reference = the request id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDelivery {
    pub request_id: String,
    pub account_id: String,
    pub key_id: Option<String>,
    /// `VariantKey` text form.
    pub variant: String,
    pub revision: i64,
    pub width: i64,
    pub height: i64,
    pub format: String,
    /// `cache` or `generated`.
    pub source: &'static str,
    pub credits: i64,
}

/// A billed image delivery as the ledger records it.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// Its charge's ledger entry id.
    pub id: i64,
    #[sqlx(rename = "reference")]
    pub request_id: String,
    pub account_id: String,
    pub variant: String,
    pub revision: i64,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub format: Option<String>,
    pub refunded_at: Option<Millis>,
    pub created_at: Millis,
}

/// Counts behind `usage_30d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UsageCounts {
    /// Billed requests (deliveries, refunded or not).
    pub requests: i64,
    /// Images delivered and not refunded.
    pub images: i64,
    /// Of those, served from cache.
    pub cache_hits: i64,
    /// Requests that minted signed delivery URLs (a batch is one request).
    pub url_requests: i64,
    /// Minted URLs whose image has been delivered (first load succeeded).
    pub urls_loaded: i64,
}

#[async_trait]
pub trait DeliveryStore: Send + Sync {
    async fn usage_since(&self, account_id: &str, since: Millis)
    -> Result<UsageCounts, StoreError>;
    /// The newest image charge made under `request_id`.
    async fn delivery_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Option<DeliveryRecord>, StoreError>;
    /// Every image charge made under `request_id`, oldest first.
    async fn deliveries_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Vec<DeliveryRecord>, StoreError>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Failed,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<JobStatus> {
        [
            JobStatus::Queued,
            JobStatus::Running,
            JobStatus::Done,
            JobStatus::Failed,
        ]
        .into_iter()
        .find(|s| s.as_str() == raw)
    }
}

/// A row's `status` column (`sqlx::FromRow`).
impl TryFrom<String> for JobStatus {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<JobStatus, UnknownValue> {
        JobStatus::parse(&raw).ok_or(UnknownValue("job status", raw))
    }
}

/// A row's `priority` column, its rank (`sqlx::FromRow`).
impl From<i64> for JobPriority {
    fn from(rank: i64) -> JobPriority {
        JobPriority::from_rank(rank)
    }
}

/// Which jobs render first: nodes lease by priority, then age.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobPriority {
    /// A request waits on it.
    Interactive,
    /// A prewarm job's: no one waits; every interactive job goes first.
    Prewarm,
}

impl JobPriority {
    /// The `render_jobs.priority` value: lower leases first.
    pub fn rank(self) -> i64 {
        match self {
            JobPriority::Interactive => 0,
            JobPriority::Prewarm => 1,
        }
    }

    pub fn from_rank(rank: i64) -> JobPriority {
        if rank <= 0 {
            JobPriority::Interactive
        } else {
            JobPriority::Prewarm
        }
    }
}

#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct JobRecord {
    pub id: String,
    pub variant: String,
    pub revision: i64,
    pub shape: String,
    #[sqlx(try_from = "String")]
    pub status: JobStatus,
    #[sqlx(try_from = "i64")]
    pub priority: JobPriority,
    pub attempts: i64,
    pub lease_owner: Option<String>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: Millis,
}

/// What `claim_job` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// A new job was queued (a cold render starts; it counts against the budget).
    Created,
    /// A failed job was queued again.
    Requeued,
    /// Another request's job is queued, running or done: wait on it.
    Joined,
}

/// Jobs by status; queued and running ones also by priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    /// Of `queued`, prewarm jobs.
    pub queued_prewarm: i64,
    /// Of `running`, prewarm jobs.
    pub running_prewarm: i64,
}

impl JobCounts {
    /// Interactive jobs queued: what a new request waits behind.
    pub fn queued_interactive(&self) -> i64 {
        self.queued - self.queued_prewarm
    }
}

#[async_trait]
pub trait JobStore: Send + Sync {
    /// The job for (variant, revision), creating it when absent and
    /// re-queueing it when it failed, at `priority`. Joining a live job of a
    /// lower priority raises it. The unique (variant, revision) key makes
    /// this safe across control-plane replicas.
    async fn claim_job(
        &self,
        variant: &str,
        revision: i64,
        shape: &str,
        priority: JobPriority,
    ) -> Result<(JobRecord, Claim), StoreError>;
    /// Raises a live job to interactive priority (a request now waits on
    /// it); false when it is no longer live.
    async fn promote_job(&self, id: &str) -> Result<bool, StoreError>;
    /// Removes a prewarm job that is still queued (a cancelled prewarm);
    /// returns the UTC day it was queued on, whose budget it took, or None
    /// when it is running, done, interactive or gone.
    async fn withdraw_job(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// The job for (variant, revision) if it is queued or running.
    async fn live_job(&self, variant: &str, revision: i64)
    -> Result<Option<JobRecord>, StoreError>;
    /// Leases the oldest queued job (or one whose lease expired) to `owner`.
    async fn lease_job(&self, owner: &str, lease_ms: i64) -> Result<Option<JobRecord>, StoreError>;
    /// Ends a leased job; false when `owner` no longer holds the lease.
    async fn finish_job(
        &self,
        id: &str,
        owner: &str,
        outcome: Result<i64, &str>,
    ) -> Result<bool, StoreError>;
    async fn job_by_id(&self, id: &str) -> Result<Option<JobRecord>, StoreError>;
    /// Jobs by status and priority, from counters the database keeps on
    /// every job write (migration 22), not by counting the jobs.
    async fn job_counts(&self) -> Result<JobCounts, StoreError>;
    /// What finished on the UTC day `day` (ms since the epoch / 86,400,000):
    /// renders per lease owner by duration bucket, failures per owner and
    /// cause; kept on write (migration 22), so reading it costs the same
    /// with a year of jobs as with none.
    async fn finishes_on(&self, day: i64) -> Result<DayFinishes, StoreError>;
    /// Running jobs per lease owner (`node:<name>` for remote nodes).
    async fn running_jobs_by_owner(&self) -> Result<Vec<(String, i64)>, StoreError>;
    /// Extends `owner`'s leases of the jobs `ids` to `until` (a remote
    /// node's heartbeat). Returns how many it still holds.
    async fn renew_leases(
        &self,
        owner: &str,
        ids: &[String],
        until: Millis,
    ) -> Result<u64, StoreError>;
}

/// Render jobs finished on one UTC day, as the database keeps them
/// (`render_finish_days`, `render_failure_days`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DayFinishes {
    pub renders: Vec<RenderBucket>,
    pub failures: Vec<FailureCount>,
}

/// Renders one lease owner finished with a duration in one bucket: the
/// fixed log-scale buckets of migration 22 (1 ms wide below 32 ms, then
/// 1/16 of their lower bound), with the smallest and largest duration seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderBucket {
    /// The lease owner that finished them (None: none was recorded).
    pub owner: Option<String>,
    /// The bucket's lower bound (ms).
    pub bucket: i64,
    pub renders: i64,
    pub min_ms: i64,
    pub max_ms: i64,
}

/// Failures of one lease owner (None: failed with no owner, e.g. its
/// leases ran out) with one cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureCount {
    pub owner: Option<String>,
    pub cause: String,
    pub failures: i64,
}

/// A job is leased at most this many times: a job whose lease ran out this
/// often (its node died each time) fails, and its waiters get a 502.
pub const MAX_JOB_ATTEMPTS: i64 = 3;

/// A remote render node's row (`render_nodes`, migration 13).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeRecord {
    pub name: String,
    /// `active`, `draining` or `removed`.
    pub state: String,
    pub slots: i64,
    pub adapter: Option<String>,
    pub last_heartbeat: Option<Millis>,
    /// Renders finished this UTC day.
    pub renders_today: i64,
    pub renders_total: i64,
    pub failures_total: i64,
    pub created_at: Millis,
}

impl NodeRecord {
    /// The owner a job leased by this node carries.
    pub fn lease_owner(&self) -> String {
        format!("node:{}", self.name)
    }
}

/// Remote render nodes (docs/render-nodes.md).
#[async_trait]
pub trait NodeStore: Send + Sync {
    /// Adds a node with the hash of its token; Conflict when the name is
    /// taken (a removed node's name too: names are never reused).
    async fn add_node(&self, name: &str, token_hash: &str) -> Result<NodeRecord, StoreError>;
    /// The node a token belongs to, unless it was removed.
    async fn node_by_token(&self, token_hash: &str) -> Result<Option<NodeRecord>, StoreError>;
    async fn nodes(&self) -> Result<Vec<NodeRecord>, StoreError>;
    /// Sets a node's state; false when there is no such node.
    async fn set_node_state(&self, name: &str, state: &str) -> Result<bool, StoreError>;
    /// A register or heartbeat: what the node says of itself.
    async fn node_seen(&self, name: &str, slots: i64, adapter: &str) -> Result<(), StoreError>;
    /// Counts a finished render (`ok`) or a failure against the node.
    async fn node_counted(&self, name: &str, day: &str, ok: bool) -> Result<(), StoreError>;
}

#[async_trait]
pub trait BudgetStore: Send + Sync {
    /// Takes one cold render from `day`'s budget of `limit`; false when spent.
    async fn take_budget(&self, day: &str, limit: i64) -> Result<bool, StoreError>;
    /// Returns one render to `day`'s budget (the render was never attempted).
    async fn return_budget(&self, day: &str) -> Result<(), StoreError>;
    async fn budget_used(&self, day: &str) -> Result<i64, StoreError>;
    async fn setting(&self, name: &str) -> Result<Option<String>, StoreError>;
    async fn set_setting(&self, name: &str, value: &str) -> Result<(), StoreError>;
}

/// One signed delivery URL to mint (spec §3 "Signed delivery URL").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDeliveryUrl {
    pub id: String,
    /// `VariantKey` text form.
    pub variant: String,
    /// `BodyShape` text form, so a load needs no catalog lookup.
    pub shape: String,
    pub revision: i64,
    /// The requested box, when given.
    pub box_width: Option<i64>,
    pub box_height: Option<i64>,
    /// The output the URL serves.
    pub width: i64,
    pub height: i64,
    pub format: String,
    /// 0 = unlimited until expiry.
    pub max_uses: i64,
    pub expires_at: Millis,
}

/// Who pays for a delivery or a batch of URLs, and under which request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payer<'a> {
    pub account_id: &'a str,
    pub key_id: &'a str,
    pub request_id: &'a str,
}

/// A stored delivery URL, with the revocation state of its minting key.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct DeliveryUrlRecord {
    pub id: String,
    pub account_id: String,
    pub key_id: String,
    pub request_id: String,
    pub variant: String,
    pub shape: String,
    pub revision: i64,
    pub box_width: Option<i64>,
    pub box_height: Option<i64>,
    pub width: i64,
    pub height: i64,
    pub format: String,
    pub max_uses: i64,
    pub uses: i64,
    pub expires_at: Millis,
    /// The first load failed: consumed and refunded.
    pub failed_at: Option<Millis>,
    pub created_at: Millis,
    /// The minting key has been revoked (or no longer exists).
    #[sqlx(try_from = "sql::IntFlag")]
    pub key_revoked: bool,
}

#[async_trait]
pub trait DeliveryUrlStore: Send + Sync {
    /// The live (under 24 h old) record of an idempotency key's mint.
    async fn idempotent_mint(
        &self,
        account_id: &str,
        key: &str,
    ) -> Result<Option<IdempotentMint>, StoreError>;
    /// The URL with this id, joined with its key's revocation state.
    async fn delivery_url(&self, id: &str) -> Result<Option<DeliveryUrlRecord>, StoreError>;
    /// Redeems one use atomically: `Some(uses after)`, or None when the URL
    /// is unknown, use-capped and spent, consumed by a failed first load, or
    /// its minting key is revoked.
    async fn consume_delivery_url(&self, id: &str) -> Result<Option<i64>, StoreError>;
    /// The setting `name`, inserting `value` first when it is absent; every
    /// replica sharing the database reads the same value.
    async fn setting_or_insert(&self, name: &str, value: &str) -> Result<String, StoreError>;
    /// Records that a load of the URL could not be served (a 503) while no
    /// use was redeemed; the first such load only.
    async fn mark_delivery_url_errored(&self, id: &str) -> Result<(), StoreError>;
    /// URLs expired by `now` that served only errors (a load errored, no
    /// use was redeemed, not yet refunded), oldest expiry first, from their
    /// partial index.
    async fn expired_errored_urls(
        &self,
        now: Millis,
        limit: i64,
    ) -> Result<Vec<String>, StoreError>;
}

/// How long an idempotency key is remembered (Stripe's 24 hours).
pub const IDEMPOTENCY_TTL_MS: Millis = 24 * 60 * 60 * 1000;

/// An Idempotency-Key to record with a mint, in the mint's transaction. A
/// live record of the same key makes the mint fail with
/// `StoreError::Conflict("idempotency key")` and charge nothing.
#[derive(Debug, Clone, Copy)]
pub struct IdempotencyClaim<'a> {
    pub key: &'a str,
    pub fingerprint: &'a str,
}

/// What an idempotency key's first mint produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotentMint {
    pub fingerprint: String,
    pub request_id: String,
    pub balance_after: i64,
    /// The minted URLs' ids, in order.
    pub url_ids: Vec<String>,
    pub created_at: Millis,
}

/// The claim on an idempotency key of a call that charges after its work
/// (MCP `get_image`): the one call allowed to charge under the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallClaim {
    /// What the call asked for; the same key with another fingerprint is a
    /// conflict.
    pub fingerprint: String,
    /// The claiming call's request id, which its charge carries.
    pub request_id: String,
    pub created_at: Millis,
}

#[async_trait]
pub trait CallClaimStore: Send + Sync {
    /// Claims `key` of `account_id` for the call `request_id`: None when this
    /// call now holds it, else the live claim that holds it. Claims older
    /// than [`IDEMPOTENCY_TTL_MS`] are forgotten first.
    async fn claim_call(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        request_id: &str,
    ) -> Result<Option<CallClaim>, StoreError>;
    /// Moves the claim from the abandoned call `from` to the call `to`; true
    /// when this call took it (another may have been quicker).
    async fn retake_call(
        &self,
        account_id: &str,
        key: &str,
        from: &str,
        to: &str,
    ) -> Result<bool, StoreError>;
    /// Gives up the claim the call `request_id` holds (its work failed and
    /// charged nothing), so that a retry can claim the key.
    async fn release_call(
        &self,
        account_id: &str,
        key: &str,
        request_id: &str,
    ) -> Result<(), StoreError>;
}

/// One telemetry event as stored (spec §6); objects are JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub received_at: Millis,
    pub name: String,
    pub source: Option<String>,
    pub anonymous_id: Option<String>,
    pub session_id: Option<String>,
    pub url: Option<String>,
    pub referrer: Option<String>,
    pub properties: Option<String>,
    pub utm: Option<String>,
}

/// How many events of one name arrived on one UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventCount {
    pub day: String,
    pub name: String,
    pub count: i64,
}

/// The telemetry sink's table.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Writes a batch in one transaction: all of it or none.
    async fn insert_events(&self, events: &[NewEvent]) -> Result<(), StoreError>;
    /// Counts by day and name from `since_day` (`YYYY-MM-DD`, UTC) on,
    /// oldest day first, then by name.
    async fn event_counts(&self, since_day: &str) -> Result<Vec<EventCount>, StoreError>;
}

/// What an entry of the revocation feed (the change feed every replica
/// follows) applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevokedKind {
    Key,
    Partner,
    /// A variant re-rendered: its subject is `<variant>#<bump>`, and its
    /// old render is no longer served.
    Render,
}

impl RevokedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RevokedKind::Key => "key",
            RevokedKind::Partner => "partner",
            RevokedKind::Render => "render",
        }
    }

    pub fn parse(raw: &str) -> Option<RevokedKind> {
        [RevokedKind::Key, RevokedKind::Partner, RevokedKind::Render]
            .into_iter()
            .find(|k| k.as_str() == raw)
    }
}

/// One entry of the revocation feed: every control plane sharing the
/// database follows it to drop what it cached of a revoked key or partner
/// (`auth::revocations`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    pub seq: i64,
    pub kind: RevokedKind,
    pub subject_id: String,
    pub revoked_at: Millis,
}

/// The revocation feed. A revocation writes its feed entry in the same
/// transaction as the revoked row.
#[async_trait]
pub trait RevocationStore: Send + Sync {
    /// Entries with `seq > after`, and every entry revoked at or after
    /// `since` (which a reader uses to catch entries whose transaction
    /// committed after a later one's), oldest first, at most `limit`.
    async fn revocations(
        &self,
        after: i64,
        since: Millis,
        limit: i64,
    ) -> Result<Vec<Revocation>, StoreError>;
    /// The newest entry's position (0 when the feed is empty).
    async fn revocation_head(&self) -> Result<i64, StoreError>;
}

/// A report on a render (POST /api/v1/feedback).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFeedback {
    pub account_id: String,
    pub key_id: Option<String>,
    pub variant: String,
    pub revision: i64,
    pub request_id: Option<String>,
    pub rating: Option<i64>,
    pub verdict: Option<String>,
    pub negative: bool,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackOutcome {
    pub id: String,
    /// This report pushed the render into review.
    pub flagged: bool,
}

/// A render enough accounts reported as bad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderFlag {
    pub variant: String,
    pub revision: i64,
    /// `flagged`, `rerendered` or `dismissed`.
    pub state: String,
    /// Distinct accounts that reported it as bad.
    pub reports: i64,
    pub flagged_at: Millis,
    pub resolved_at: Option<Millis>,
    /// The newest reasons given.
    pub reasons: Vec<String>,
}

/// Feedback, flags and re-renders.
#[async_trait]
pub trait FeedbackStore: Send + Sync {
    /// Records a report; when it is negative and makes `flag_after`
    /// distinct accounts, flags the render (once): `flagged` says this
    /// report did.
    async fn record_feedback(
        &self,
        f: &NewFeedback,
        flag_after: i64,
    ) -> Result<FeedbackOutcome, StoreError>;
    /// Re-renders a variant: one more to its bump, the flag of `revision`
    /// (if any) marked rerendered, the change announced on the feed.
    /// Returns the new bump.
    async fn rerender_variant(&self, variant: &str, revision: i64) -> Result<i64, StoreError>;
    /// Dismisses an open flag; false when there was none.
    async fn dismiss_flag(&self, variant: &str, revision: i64) -> Result<bool, StoreError>;
    /// Flags, newest first, with their reasons.
    async fn render_flags(&self, limit: i64) -> Result<Vec<RenderFlag>, StoreError>;
    /// Every variant's re-render bump.
    async fn variant_bumps(&self) -> Result<Vec<(String, i64)>, StoreError>;
}

/// One device login (RFC 8628).
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct DeviceLogin {
    pub id: String,
    pub user_code: String,
    pub client_name: String,
    /// `pending`, `approved`, `denied` or `delivered`.
    pub status: String,
    /// The account that approved it.
    pub account_id: Option<String>,
    pub created_at: Millis,
    pub expires_at: Millis,
    pub last_poll_at: Option<Millis>,
}

/// What a poll of the token endpoint finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DevicePoll {
    Unknown,
    Pending,
    /// Polled again sooner than the interval allows.
    TooFast {
        wait_ms: Millis,
    },
    Approved(DeviceLogin),
    Denied,
    /// Expired, or its key was already delivered.
    Expired,
}

/// Device logins.
#[async_trait]
pub trait DeviceStore: Send + Sync {
    /// A new pending login; false when `user_code` is taken by a live one.
    async fn create_device_login(
        &self,
        device_code_hash: &str,
        user_code: &str,
        client_name: &str,
        expires_at: Millis,
    ) -> Result<bool, StoreError>;
    async fn device_login_by_user_code(
        &self,
        user_code: &str,
    ) -> Result<Option<DeviceLogin>, StoreError>;
    /// Approves (for `account_id`) or denies (None) a pending, live login.
    async fn decide_device_login(
        &self,
        user_code: &str,
        account_id: Option<&str>,
    ) -> Result<Option<DeviceLogin>, StoreError>;
    /// One poll: records it when it respects `interval_ms`.
    async fn poll_device_login(
        &self,
        device_code_hash: &str,
        interval_ms: Millis,
    ) -> Result<DevicePoll, StoreError>;
    /// Creates the key of an approved login and marks it delivered, in one
    /// transaction; None when it was already delivered.
    async fn deliver_device_key(
        &self,
        login_id: &str,
        key: NewKey,
    ) -> Result<Option<KeyRecord>, StoreError>;
}

/// People on the web (migration 12): passwords, sessions, password resets.
/// Tokens arrive hashed; the store never sees a cookie or a link.
#[async_trait]
pub trait PeopleStore: Send + Sync {
    /// The account of `email` and its password hash (None: no password yet).
    async fn person_by_email(
        &self,
        email: &str,
    ) -> Result<Option<(Account, Option<String>)>, StoreError>;
    async fn create_web_session(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError>;
    /// The account a live session of `token_hash` signs in.
    async fn web_session(&self, token_hash: &str) -> Result<Option<Account>, StoreError>;
    async fn end_web_session(&self, token_hash: &str) -> Result<(), StoreError>;
    async fn create_password_reset(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError>;
    /// Whether `token_hash` is a live, unused reset link.
    async fn password_reset_live(&self, token_hash: &str) -> Result<bool, StoreError>;
    /// Uses a live reset link: sets the password and ends every session of
    /// the account, in one transaction. None when the link is unknown, used
    /// or expired.
    async fn use_password_reset(
        &self,
        token_hash: &str,
        password_hash: &str,
    ) -> Result<Option<Account>, StoreError>;
    /// Grants (`true`) or revokes the operator role (migration 15): the
    /// dashboard's render-farm page. Granting twice or revoking a
    /// non-operator changes nothing.
    async fn set_operator(&self, account_id: &str, operator: bool) -> Result<(), StoreError>;
    async fn is_operator(&self, account_id: &str) -> Result<bool, StoreError>;
    /// Every operator's email and when the role was granted, oldest first.
    async fn operators(&self) -> Result<Vec<(String, Millis)>, StoreError>;
    /// A sign-up on the web (migration 20), in one transaction: the account
    /// with no credits, its password, its mark as unverified and its first
    /// verification link. `Conflict` when the email is taken. The free
    /// credits come with the link (`CreditStore::verify_email`).
    async fn create_unverified_person(
        &self,
        email: &str,
        password_hash: &str,
        link: &NewVerificationLink<'_>,
    ) -> Result<Account, StoreError>;
    /// Counts one sign-up against each `(subject, limit)` for UTC day `day`,
    /// all or none, in one transaction: `Some(i)` when subject `i` has
    /// reached its limit (nothing is counted), None when counted. A
    /// conditional upsert decides, so concurrent sign-ups on any replica
    /// never pass a limit.
    async fn count_signup(
        &self,
        subjects: &[(String, i64)],
        day: i64,
    ) -> Result<Option<usize>, StoreError>;
    /// Whether the account is a web sign-up whose email is not verified yet.
    async fn is_unverified(&self, account_id: &str) -> Result<bool, StoreError>;
    /// Another verification link for an unverified account. False (nothing
    /// written) when the account is verified or has had `max_per_day` links
    /// in the last 24 hours.
    async fn create_verification_link(
        &self,
        account_id: &str,
        link: &NewVerificationLink<'_>,
        max_per_day: i64,
    ) -> Result<bool, StoreError>;
}

/// A mailed email-verification link: the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewVerificationLink<'a> {
    pub token_hash: &'a str,
    pub expires_at: Millis,
}

/// What opening an email-verification link did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// This link verified the account and its free credits landed (one
    /// `grant` ledger entry); the balance after.
    Granted { account_id: String, balance: i64 },
    /// The account was verified already (this link or another): nothing
    /// changed.
    AlreadyVerified { account_id: String },
    /// The link is past its lifetime and the account is still unverified.
    Expired,
    /// No such link.
    Unknown,
}

/// A credit pack being bought.
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct Purchase {
    pub id: String,
    pub account_id: String,
    pub provider: String,
    pub provider_session: Option<String>,
    pub credits: i64,
    pub amount_cents: i64,
    /// `open` or `paid`.
    pub status: String,
    pub created_at: Millis,
    pub paid_at: Option<Millis>,
}

/// A provider's word that a checkout was paid (a verified webhook event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidCheckout<'a> {
    pub event_id: &'a str,
    pub provider: &'a str,
    pub session_id: &'a str,
    pub purchase_id: Option<&'a str>,
    pub customer: Option<&'a str>,
    pub amount_cents: i64,
    /// The provider's payment (`pi_…`), kept so refunds and disputes find
    /// the purchase.
    pub payment_intent: Option<&'a str>,
}

/// A provider's word that a purchase's payment was refunded, in total so
/// far (`charge.refunded`: Stripe reports the cumulative amount).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundNotice<'a> {
    pub event_id: &'a str,
    pub provider: &'a str,
    pub payment_intent: Option<&'a str>,
    pub purchase_id: Option<&'a str>,
    /// The payment's amount and how much of it is refunded so far, cents.
    pub amount_cents: i64,
    pub refunded_cents: i64,
}

/// A provider's word on a dispute of a purchase's payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisputeNotice<'a> {
    pub event_id: &'a str,
    pub provider: &'a str,
    pub dispute_id: &'a str,
    pub payment_intent: Option<&'a str>,
    /// None: opened. Some(true): closed won. Some(false): closed lost.
    pub won: Option<bool>,
}

/// An account's standing after the sale: credits owed and open disputes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Standing {
    pub owed: i64,
    pub disputes: i64,
}

/// What recording a payment event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentOutcome {
    /// The purchase's credits landed: one `purchase` ledger entry.
    Credited { purchase: Purchase, balance: i64 },
    /// This event id was handled before: nothing changed.
    Duplicate,
    /// The purchase was already paid (another event said so): nothing changed.
    AlreadyPaid,
    /// No open purchase matches the session: recorded, nothing credited.
    Unknown,
    /// The amount paid is not the pack's price: recorded, nothing credited.
    AmountMismatch,
    /// An event that moves no money, recorded so a replay is a duplicate.
    Ignored,
    /// A refund (or a lost dispute) took back `taken` credits and recorded
    /// `owed` more as owed (the balance never goes negative).
    Reversed {
        account_id: String,
        taken: i64,
        owed: i64,
    },
    /// A dispute opened: the account's keys are frozen.
    Frozen { account_id: String },
    /// A dispute closed (won, or lost and reversed): `frozen` says whether
    /// another dispute still holds the account.
    DisputeClosed {
        account_id: String,
        won: bool,
        taken: i64,
        owed: i64,
        still_frozen: bool,
    },
}

impl PaymentOutcome {
    pub fn as_str(&self) -> &'static str {
        match self {
            PaymentOutcome::Credited { .. } => "credited",
            PaymentOutcome::Duplicate => "duplicate",
            PaymentOutcome::AlreadyPaid => "already_paid",
            PaymentOutcome::Unknown => "unknown_purchase",
            PaymentOutcome::AmountMismatch => "amount_mismatch",
            PaymentOutcome::Ignored => "ignored",
            PaymentOutcome::Reversed { .. } => "reversed",
            PaymentOutcome::Frozen { .. } => "frozen",
            PaymentOutcome::DisputeClosed { won: true, .. } => "dispute_won",
            PaymentOutcome::DisputeClosed { won: false, .. } => "dispute_lost",
        }
    }
}

/// Purchases of credit packs and the provider events that pay for them
/// (migration 12). Credits land exactly once per purchase, whatever the
/// provider retries.
#[async_trait]
pub trait PaymentStore: Send + Sync {
    async fn open_purchase(
        &self,
        account_id: &str,
        provider: &str,
        credits: i64,
        amount_cents: i64,
    ) -> Result<Purchase, StoreError>;
    /// Records the provider's checkout session of an open purchase.
    async fn attach_checkout(&self, purchase_id: &str, session_id: &str) -> Result<(), StoreError>;
    async fn purchase_by_session(&self, session_id: &str) -> Result<Option<Purchase>, StoreError>;
    async fn purchases_of(&self, account_id: &str, limit: i64)
    -> Result<Vec<Purchase>, StoreError>;
    /// Records an event that moves no money (`Duplicate` when seen before).
    async fn record_other_event(
        &self,
        event_id: &str,
        provider: &str,
        kind: &str,
    ) -> Result<PaymentOutcome, StoreError>;
    /// The audit rows of a purchase's provider events, oldest first:
    /// `(event_id, outcome)`.
    async fn payment_events_of(
        &self,
        purchase_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError>;
    /// The provider customer of an account that has paid before.
    async fn payment_customer(&self, account_id: &str) -> Result<Option<String>, StoreError>;
    /// The account a provider customer belongs to.
    async fn account_of_customer(&self, customer: &str) -> Result<Option<Account>, StoreError>;
    async fn purchase_by_id(&self, id: &str) -> Result<Option<Purchase>, StoreError>;
    /// Credits owed and open disputes of an account.
    async fn standing(&self, account_id: &str) -> Result<Standing, StoreError>;
    /// Sets (Some((threshold, pack credits))) or clears the account's
    /// auto-reload; `auto_reload` on the account follows, and it is armed.
    async fn set_auto_reload(
        &self,
        account_id: &str,
        setting: Option<(i64, i64)>,
    ) -> Result<(), StoreError>;
    /// Accounts whose auto-reload is armed and whose balance is below its
    /// threshold (from a partial index of armed accounts).
    async fn auto_reloads_due(&self, limit: i64) -> Result<Vec<String>, StoreError>;
}

/// One UTC day of an account's usage (the dashboard's chart).
#[derive(sqlx::FromRow, Debug, Clone, Default, PartialEq, Eq)]
pub struct DayUsage {
    /// Days since 1970-01-01 (UTC).
    pub day: i64,
    /// Billed requests: image deliveries and URL mints.
    pub requests: i64,
    /// Images delivered and not refunded.
    pub images: i64,
    pub cache_hits: i64,
    /// Credits charged, net of refunds.
    pub credits_spent: i64,
}

/// What the dashboard shows of an account's activity.
#[async_trait]
pub trait ActivityStore: Send + Sync {
    /// Days with activity since `since`, oldest first.
    async fn usage_by_day(
        &self,
        account_id: &str,
        since: Millis,
    ) -> Result<Vec<DayUsage>, StoreError>;
    /// The account's newest signed delivery URLs.
    async fn recent_delivery_urls(
        &self,
        account_id: &str,
        limit: i64,
    ) -> Result<Vec<DeliveryUrlRecord>, StoreError>;
}

/// One replica's request for a block of a subject's rate-limit window.
#[derive(Debug, Clone, Copy)]
pub struct RateTake<'a> {
    pub subject: &'a str,
    /// The replica asking (random per process): it holds at most one lease
    /// per subject.
    pub holder: &'a str,
    /// The replica's clock, ms.
    pub now: Millis,
    /// How long a window lasts from its first request, ms.
    pub window: Millis,
    /// How long a block stays the holder's, ms; after that any replica
    /// taking a block returns it to the window.
    pub lease: Millis,
    pub want: i64,
    pub limit: i64,
    /// What the holder gives back of its previous block (unspent, and it
    /// will not spend it), and the window that block belonged to.
    pub returned: i64,
    pub returned_window: Millis,
}

/// What [`RateStore::take_rate_block`] granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateGrant {
    /// Granted to the holder now (0 when the window is spent).
    pub granted: i64,
    /// Granted in the window in all, this grant included, less returns.
    pub used: i64,
    /// When the subject's open window started, ms.
    pub window_start: Millis,
}

/// Rate-limit windows shared by every control plane on the database
/// (`ratelimit.rs`): a replica takes a subject's requests in leased blocks.
#[async_trait]
pub trait RateStore: Send + Sync + std::fmt::Debug {
    /// In one transaction: opens the subject's window when none is open
    /// (the last one started `window` or more ago), takes back the
    /// holder's `returned` and every expired lease of other holders, then
    /// grants `min(want, what is left)` as the holder's new lease.
    async fn take_rate_block(&self, take: &RateTake<'_>) -> Result<RateGrant, StoreError>;
    /// Deletes windows and leases of windows that started before `before`;
    /// how many windows.
    async fn prune_rate_windows(&self, before: Millis) -> Result<u64, StoreError>;
}

/// Everything the control plane keeps in its database.
#[async_trait]
pub trait Store:
    AccountStore
    + LedgerStore
    + KeyStore
    + PartnerStore
    + DeliveryStore
    + JobStore
    + prewarm::PrewarmStore
    + BudgetStore
    + DeliveryUrlStore
    + CallClaimStore
    + RevocationStore
    + RateStore
    + EventStore
    + FeedbackStore
    + DeviceStore
    + PeopleStore
    + PaymentStore
    + ActivityStore
    + NodeStore
    + std::fmt::Debug
{
    /// A cheap round trip, for readiness checks.
    async fn ping(&self) -> Result<(), StoreError>;
    fn dialect(&self) -> Dialect;
}
