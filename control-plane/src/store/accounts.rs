//! Accounts, their API keys and partner secrets (the signing secrets of
//! legacy embeds).

use super::*;

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

#[async_trait]
pub trait AccountStore: Send + Sync + std::fmt::Debug {
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;
    async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError>;
}

#[async_trait]
pub trait KeyStore: Send + Sync + std::fmt::Debug {
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
pub trait PartnerStore: Send + Sync + std::fmt::Debug {
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
