//! The ledger's rows and its two ports: [`LedgerStore`] reads entries;
//! [`CreditStore`] is every write that moves a credit, held only by
//! `billing::Ledger`.

use super::*;

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
pub trait LedgerStore: Send + Sync + std::fmt::Debug {
    async fn entries(&self, account_id: &str, limit: i64) -> Result<Vec<LedgerEntry>, StoreError>;
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
