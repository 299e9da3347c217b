//! The numbers of spec §8 in one place.

pub const DEFAULT_RATE_LIMIT_PER_MINUTE: i64 = 120;
pub const MAX_BATCH_URLS: usize = 50;
pub const DELIVERY_TTL_DEFAULT_SECS: u64 = 3600;
pub const DELIVERY_TTL_MIN_SECS: u64 = 60;
pub const DELIVERY_TTL_MAX_SECS: u64 = 604_800;
/// Most redemptions a use-capped delivery URL may allow (0 = unlimited).
pub const MAX_USES: u32 = 1000;

/// Request body limits per endpoint, bytes.
pub const BODY_IMAGE_URLS: usize = 64 * 1024;
pub const BODY_EVENTS: usize = 32 * 1024;
pub const BODY_FEEDBACK: usize = 8 * 1024;
pub const BODY_RESOLVE: usize = 4 * 1024;
pub const BODY_CHECKOUT: usize = 1024;
/// A payment provider's webhook event (Stripe's are a few KiB).
pub const BODY_WEBHOOK: usize = 256 * 1024;
