//! Persistent state behind small traits, one per concern. [`SqlStore`] is the
//! one implementation: sqlx's `Any` driver over SQLite (embedded default) or
//! PostgreSQL (scale-out), with portable SQL and two migration folders that
//! share version numbers.

mod sql;

use async_trait::async_trait;

pub use sql::{Dialect, SqlStore, execute_raw};

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

pub fn now_millis() -> Millis {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(now.as_millis()).unwrap_or(i64::MAX)
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
    #[error("database error: {0}")]
    Database(String),
    #[error("migration failed: {0}")]
    Migration(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub email: String,
    pub balance: i64,
    pub auto_reload: bool,
    pub has_payment_method: bool,
    pub created_at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq)]
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

#[derive(Clone, PartialEq, Eq)]
pub struct Partner {
    pub id: String,
    pub account_id: String,
    pub secret: crate::config::Secret<String>,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
}

impl std::fmt::Debug for Partner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partner")
            .field("id", &self.id)
            .field("account_id", &self.account_id)
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub id: i64,
    pub account_id: String,
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
    /// Creates an account whose opening balance is one `grant` ledger entry
    /// (none when `initial_credits` is 0), in one transaction.
    async fn create_account(
        &self,
        email: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError>;
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;
    async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError>;
}

#[async_trait]
pub trait LedgerStore: Send + Sync {
    /// Appends one entry and moves the balance by `delta` in the same
    /// transaction; refuses (InsufficientCredits) when the balance would go
    /// negative, writing nothing.
    async fn append_entry(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError>;
    async fn entries(&self, account_id: &str, limit: i64) -> Result<Vec<LedgerEntry>, StoreError>;
    /// Sum of the deltas of `kind` entries at or after `since`.
    async fn sum_since(
        &self,
        account_id: &str,
        kind: EntryKind,
        since: Millis,
    ) -> Result<i64, StoreError>;
}

#[async_trait]
pub trait KeyStore: Send + Sync {
    async fn create_key(&self, key: NewKey) -> Result<KeyRecord, StoreError>;
    /// The key with this hash, revoked or not (the caller decides).
    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyRecord>, StoreError>;
    async fn key_by_id(&self, id: &str) -> Result<Option<KeyRecord>, StoreError>;
    async fn keys_of_account(&self, account_id: &str) -> Result<Vec<KeyRecord>, StoreError>;
    /// Revokes the key; false when it does not exist or was already revoked.
    async fn revoke_key(&self, id: &str) -> Result<bool, StoreError>;
}

#[async_trait]
pub trait PartnerStore: Send + Sync {
    async fn create_partner(&self, account_id: &str, secret: &str) -> Result<Partner, StoreError>;
    async fn partner_by_id(&self, id: &str) -> Result<Option<Partner>, StoreError>;
}

/// Everything the control plane keeps in its database.
#[async_trait]
pub trait Store: AccountStore + LedgerStore + KeyStore + PartnerStore {
    /// A cheap round trip, for readiness checks.
    async fn ping(&self) -> Result<(), StoreError>;
    fn dialect(&self) -> Dialect;
}
