//! The grants of the embeddable legacy endpoint, `GET /images/car.png`
//! (spec §4 and §5; docs/embeds.md): partner signatures, the home page's
//! example images and the playground cookie. No HTTP here: `http::legacy`
//! asks these, in the spec's order, and `http::pages` issues the cookie and
//! shows the examples.

pub mod examples;
pub mod partners;
pub mod playground;
pub mod signature;

use std::sync::Arc;

use crate::config::PlaygroundConfig;

/// What the endpoint's grants need, shared by every request.
#[derive(Debug)]
pub struct Embeds {
    /// Grant 1: the live partner secrets.
    pub partners: Arc<partners::PartnerKeys>,
    /// Grant 3: the home page's examples.
    pub examples: examples::Examples,
    /// Grant 5: the playground cookie, and the playground's limits.
    pub cookies: playground::PlaygroundCookies,
    pub playground: PlaygroundConfig,
    /// Grant 4: whether a `key` query parameter is honoured.
    pub allow_legacy_query_keys: bool,
    /// Grant 2: how many new outputs `mode=cached` derives a minute, per
    /// client address and in total (`[embeds] cached_derivations_*`).
    pub cached_derivations_per_address: u64,
    pub cached_derivations_per_minute: u64,
}
