//! Key liveness for held charges on a SQLite file, without a database read
//! per charge.
//!
//! A held charge must not bill a revoked key, and a revocation by any
//! process must count at once (DESIGN). A read of the key's row per charge
//! did that, at about a tenth of a billed request's CPU (a WAL read lock is
//! an `fcntl` on the shared-memory file). Instead, every revocation through
//! this store appends a line to `revocations` in the journal folder after
//! it commits, and a charge compares that file's length (one `statx`) with
//! the length at which it last read the key: a key read live at the
//! current length is still live. An entry is also re-read after
//! [`RECHECK`], so a revocation whose append failed still counts within a
//! second.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::*;

/// A live entry is re-read at least this often.
const RECHECK: Duration = Duration::from_secs(1);
/// Entries kept at most; past it the least used are evicted.
const MAX_KEYS: usize = 10_000;

#[derive(Debug)]
pub(super) struct Revocations {
    file: PathBuf,
    /// Key id → (revocations length, time) at which it was read live.
    live: quick_cache::sync::Cache<String, (u64, Instant)>,
}

impl Revocations {
    pub(super) fn new(dir: PathBuf) -> Revocations {
        Revocations {
            file: dir.join("revocations"),
            live: quick_cache::sync::Cache::new(MAX_KEYS),
        }
    }

    fn length(&self) -> u64 {
        std::fs::metadata(&self.file).map_or(0, |m| m.len())
    }

    /// Whether the key is live: from the table when nothing was revoked
    /// since it was read, else from `read`.
    pub(super) fn key_live(
        &self,
        key_id: &str,
        read: impl FnOnce() -> Result<bool, StoreError>,
    ) -> Result<bool, StoreError> {
        let length = self.length();
        if let Some((at, when)) = self.live.get(key_id)
            && at == length
            && when.elapsed() < RECHECK
        {
            return Ok(true);
        }
        let is_live = read()?;
        if is_live {
            // Stamped with the length seen before the read: a revocation
            // that lands during it makes this entry stale at once.
            self.live
                .insert(key_id.to_owned(), (length, Instant::now()));
        } else {
            self.live.remove(key_id);
        }
        Ok(is_live)
    }

    /// Tells every server on this database that a key was revoked (after
    /// the revocation committed).
    pub(super) fn announce(&self) {
        let appended = self
            .file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.file)
            })
            .and_then(|mut f| f.write_all(b"revoked\n"));
        if let Err(e) = appended {
            tracing::warn!(error = %e, "could not announce a key revocation; held charges see it within a second");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revocation_announced_by_anyone_forces_a_read() {
        let dir = tempfile::tempdir().unwrap();
        let mine = Revocations::new(dir.path().join("db.charges"));
        let theirs = Revocations::new(dir.path().join("db.charges"));
        let reads = std::cell::Cell::new(0);
        let read = |answer: bool| {
            reads.set(reads.get() + 1);
            Ok(answer)
        };
        assert!(mine.key_live("k", || read(true)).unwrap());
        assert!(mine.key_live("k", || read(true)).unwrap());
        assert_eq!(reads.get(), 1, "the second charge needs no read");
        theirs.announce();
        assert!(!mine.key_live("k", || read(false)).unwrap());
        assert!(!mine.key_live("k", || read(false)).unwrap());
        assert_eq!(reads.get(), 3, "a revoked key is read every time");
    }
}
