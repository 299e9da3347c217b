//! Device logins (RFC 8628) for command lines.

use super::*;

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
pub trait DeviceStore: Send + Sync + std::fmt::Debug {
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
