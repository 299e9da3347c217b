//! Revoked keys and partner secrets, announced to every replica.

use super::*;

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

/// A row's `kind` column (`sqlx::FromRow`).
impl TryFrom<String> for RevokedKind {
    type Error = UnknownValue;

    fn try_from(raw: String) -> Result<RevokedKind, UnknownValue> {
        RevokedKind::parse(&raw).ok_or(UnknownValue("revocation kind", raw))
    }
}

/// One entry of the revocation feed: every control plane sharing the
/// database follows it to drop what it cached of a revoked key or partner
/// (`auth::revocations`).
#[derive(sqlx::FromRow, Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    pub seq: i64,
    #[sqlx(try_from = "String")]
    pub kind: RevokedKind,
    pub subject_id: String,
    pub revoked_at: Millis,
}

/// The revocation feed. A revocation writes its feed entry in the same
/// transaction as the revoked row.
#[async_trait]
pub trait RevocationStore: Send + Sync + std::fmt::Debug {
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
