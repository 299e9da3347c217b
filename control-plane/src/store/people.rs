//! People in a browser: passwords, sessions, email verification.

use super::*;

/// People on the web (migration 12): passwords, sessions, password resets.
/// Tokens arrive hashed; the store never sees a cookie or a link.
#[async_trait]
pub trait PeopleStore: Send + Sync + std::fmt::Debug {
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
