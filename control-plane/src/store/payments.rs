//! Purchases and what happens after the sale (refunds, disputes,
//! auto-reload), recorded once per provider event.

use super::*;

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
pub trait PaymentStore: Send + Sync + std::fmt::Debug {
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
