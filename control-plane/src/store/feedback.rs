//! Customers' feedback on renders and the renders it flagged.

use super::*;

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
pub trait FeedbackStore: Send + Sync + std::fmt::Debug {
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
