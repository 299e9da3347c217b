//! Render revisions per variant. A render's revision is the deployment's
//! (`[render] revision`: bump it to re-render everything) plus the variant's
//! re-render bump (one per re-render of that variant, after feedback flagged
//! it or an operator asked). The revision is part of the object key and the
//! ETag, so a re-render serves new bytes under a new validator.
//!
//! The bumps live in the database (`variant_revisions`); each replica keeps
//! them in memory, loaded at start and followed through the change feed
//! (`revocations.rs`, kind `render`) within a second.

use std::collections::HashMap;

use parking_lot::RwLock;
use vis_protocol::VariantKey;

use crate::revocations::RevocationSink;
use crate::store::RevokedKind;

#[derive(Debug)]
pub struct Revisions {
    base: u32,
    bumps: RwLock<HashMap<String, u32>>,
}

impl Revisions {
    pub fn new(base: u32, bumps: impl IntoIterator<Item = (String, i64)>) -> Revisions {
        let bumps = bumps
            .into_iter()
            .map(|(v, b)| (v, u32::try_from(b).unwrap_or(0)))
            .collect();
        Revisions {
            base,
            bumps: RwLock::new(bumps),
        }
    }

    /// The deployment's revision.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// `variant`'s render revision now.
    pub fn of(&self, variant: &VariantKey) -> u32 {
        let bumps = self.bumps.read();
        if bumps.is_empty() {
            return self.base;
        }
        self.base + bumps.get(&variant.to_string()).copied().unwrap_or(0)
    }

    /// Records a bump (never lowers one: feed entries may arrive twice).
    pub fn set(&self, variant: &str, bump: u32) {
        let mut bumps = self.bumps.write();
        let entry = bumps.entry(variant.to_owned()).or_insert(0);
        *entry = (*entry).max(bump);
    }
}

impl RevocationSink for Revisions {
    fn revoked(&self, kind: RevokedKind, subject_id: &str) {
        if kind != RevokedKind::Render {
            return;
        }
        if let Some((variant, bump)) = subject_id.rsplit_once('#')
            && let Ok(bump) = bump.parse::<u32>()
        {
            self.set(variant, bump);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bump_raises_one_variant_and_never_goes_back() {
        let camry: VariantKey = "toyota/camry/2019/red/side".parse().unwrap();
        let x5: VariantKey = "bmw/x5/2020/black/front".parse().unwrap();
        let r = Revisions::new(3, []);
        assert_eq!(r.of(&camry), 3);
        r.revoked(RevokedKind::Render, "toyota/camry/2019/red/side#2");
        assert_eq!((r.of(&camry), r.of(&x5)), (5, 3));
        r.revoked(RevokedKind::Render, "toyota/camry/2019/red/side#1");
        assert_eq!(r.of(&camry), 5, "a late entry never lowers it");
        r.revoked(RevokedKind::Key, "toyota/camry/2019/red/side#9");
        assert_eq!(r.of(&camry), 5);
    }
}
