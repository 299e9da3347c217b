//! What was delivered and charged: image deliveries, signed delivery URLs,
//! and the idempotency and call claims that make a retry free.

use super::*;

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
    /// Sum of the window's `charge` deltas (zero or negative).
    pub charged: i64,
    /// Sum of the window's `refund` deltas (zero or positive).
    pub refunded: i64,
}

#[async_trait]
pub trait DeliveryStore: Send + Sync + std::fmt::Debug {
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
    /// `vis_protocol::Framing`'s text form; empty for the plain output.
    pub framing: String,
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
    pub framing: String,
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
pub trait DeliveryUrlStore: Send + Sync + std::fmt::Debug {
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
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct CallClaim {
    /// What the call asked for; the same key with another fingerprint is a
    /// conflict.
    pub fingerprint: String,
    /// The claiming call's request id, which its charge carries.
    pub request_id: String,
    pub created_at: Millis,
}

#[async_trait]
pub trait CallClaimStore: Send + Sync + std::fmt::Debug {
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
