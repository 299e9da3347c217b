//! Persistent state behind small traits, one file per concern (each
//! declares its rows and its port). [`SqlStore`] is the one implementation:
//! sqlx's `Any` driver over SQLite (embedded default) or PostgreSQL
//! (scale-out), with portable SQL and two migration folders that share
//! version numbers; `sql/` holds its adapters, one file per port.
//!
//! Consumers take only the ports they use (`renders::RenderStore`,
//! `delivery::DeliveryPorts`, ...), built from the concrete store in
//! `app.rs`; [`Store`], the union, is for the composition roots and the
//! HTTP and CLI adapters (`tests/tidy.rs` keeps it there).

mod accounts;
mod activity;
mod deliveries;
mod device;
mod events;
mod feedback;
mod jobs;
mod ledger;
mod limits;
mod payments;
mod people;
pub mod prewarm;
mod revocations;
mod sql;

pub use accounts::*;
pub use activity::*;
pub use deliveries::*;
pub use device::*;
pub use events::*;
pub use feedback::*;
pub use jobs::*;
pub use ledger::*;
pub use limits::*;
pub use payments::*;
pub use people::*;
pub use revocations::*;

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

/// A text column that holds none of its enum's values (the error of the
/// `TryFrom<String>` that `sqlx::FromRow` decodes such a column with).
#[derive(Debug, thiserror::Error)]
#[error("unknown {0} {1:?}")]
pub struct UnknownValue(&'static str, String);

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
