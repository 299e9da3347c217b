//! The charge journal: one append-only file per running server, beside the
//! database, in which every held charge is written before its response is
//! sent (docs/ledger.md).
//!
//! A record is one line of JSON ending in a newline, written with a single
//! `write` under a lock, so records are in sequence order and a line is
//! either whole or the torn tail of a write the process died in (whose
//! request never got its image). A written line survives the process
//! (it is in the kernel's page cache), which is the durability SQLite has
//! with `synchronous = NORMAL`: the journal loses nothing SQLite itself
//! would keep.
//!
//! Files in the folder, per server (`owner`, a time-ordered id):
//! - `<owner>.lock`: held with an exclusive `flock` while the server runs;
//!   a lock that can be taken means its server is gone.
//! - `<owner>.<segment>.log`: the records, in segments of
//!   [`SEGMENT_BYTES`]; a closed segment is deleted once every record in it
//!   is in the ledger.

use parking_lot::Mutex;
use std::fs::{File, OpenOptions};
use std::io::{IoSlice, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::{HeldCharge, Millis, NewDelivery};

/// A segment is closed and a new one begun past this size.
pub const SEGMENT_BYTES: u64 = 64 * 1024 * 1024;

/// One record as written (borrowed from the charge).
#[derive(Serialize)]
struct LineOut<'a> {
    at: Millis,
    account: &'a str,
    key: Option<&'a str>,
    variant: &'a str,
    revision: i64,
    width: i64,
    height: i64,
    format: &'a str,
    source: &'a str,
    credits: i64,
    request: &'a str,
}

/// One record as read back.
#[derive(Deserialize)]
struct LineIn {
    seq: i64,
    at: Millis,
    account: String,
    key: Option<String>,
    variant: String,
    revision: i64,
    width: i64,
    height: i64,
    format: String,
    source: String,
    credits: i64,
    request: String,
}

/// A record without its sequence number, which is written in front of it
/// under the lock: `{"seq":N,` + this.
fn encode_body(at: Millis, d: &NewDelivery) -> Vec<u8> {
    let mut line = serde_json::to_vec(&LineOut {
        at,
        account: &d.account_id,
        key: d.key_id.as_deref(),
        variant: &d.variant,
        revision: d.revision,
        width: d.width,
        height: d.height,
        format: &d.format,
        source: d.source,
        credits: d.credits,
        request: &d.request_id,
    })
    .expect("a journal record always serialises");
    line[0] = b',';
    line.push(b'\n');
    line
}

fn seq_prefix(seq: i64) -> String {
    format!("{{\"seq\":{seq}")
}

fn decode(line: &str) -> Result<HeldCharge, String> {
    let l: LineIn = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let source = match l.source.as_str() {
        "cache" => "cache",
        "generated" => "generated",
        other => return Err(format!("unknown source {other:?}")),
    };
    Ok(HeldCharge {
        seq: l.seq,
        created_at: l.at,
        delivery: NewDelivery {
            request_id: l.request,
            account_id: l.account,
            key_id: l.key,
            variant: l.variant,
            revision: l.revision,
            width: l.width,
            height: l.height,
            format: l.format,
            source,
            credits: l.credits,
        },
    })
}

fn lock_path(dir: &Path, owner: &str) -> PathBuf {
    dir.join(format!("{owner}.lock"))
}

fn segment_path(dir: &Path, owner: &str, segment: u64) -> PathBuf {
    dir.join(format!("{owner}.{segment:08}.log"))
}

fn open_segment(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// This server's journal.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    owner: String,
    /// Locked for as long as the journal lives.
    _lock: File,
    active: Mutex<Active>,
}

#[derive(Debug)]
struct Active {
    file: File,
    segment: u64,
    size: u64,
    /// The last sequence number written.
    seq: i64,
    /// Written and not yet handed to the settler.
    pending: Vec<HeldCharge>,
    /// Closed segments and the last sequence number in each.
    closed: Vec<(u64, i64)>,
    /// Closed, or a failed write could not be undone: nothing more is
    /// written.
    broken: bool,
}

impl Journal {
    /// Starts a journal for a new server id in `dir` (created if missing).
    pub fn open(dir: &Path, owner: &str) -> std::io::Result<Journal> {
        std::fs::create_dir_all(dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_path(dir, owner))?;
        lock.try_lock().map_err(std::io::Error::other)?;
        let file = open_segment(&segment_path(dir, owner, 1))?;
        Ok(Journal {
            dir: dir.to_owned(),
            owner: owner.to_owned(),
            _lock: lock,
            active: Mutex::new(Active {
                file,
                segment: 1,
                size: 0,
                seq: 0,
                pending: Vec::new(),
                closed: Vec::new(),
                broken: false,
            }),
        })
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    fn active(&self) -> parking_lot::MutexGuard<'_, Active> {
        self.active.lock()
    }

    /// Writes one charge; when this returns Ok, the charge is durable.
    /// On an error nothing of it is kept. Returns its sequence number and
    /// how many written charges now wait to be taken (one lock, for the
    /// caller that wakes the settler).
    pub fn append(&self, delivery: NewDelivery, at: Millis) -> std::io::Result<(i64, usize)> {
        let body = encode_body(at, &delivery);
        let mut a = self.active();
        if a.broken {
            return Err(std::io::Error::other("the charge journal is closed"));
        }
        let seq = a.seq + 1;
        let prefix = seq_prefix(seq);
        let len = prefix.len() + body.len();
        // One write for the whole line: appended at once, or not at all.
        let written = a
            .file
            .write_vectored(&[IoSlice::new(prefix.as_bytes()), IoSlice::new(&body)]);
        if !matches!(written, Ok(n) if n == len) {
            // A partial line must not stay in front of the next record.
            let size = a.size;
            if a.file.set_len(size).is_err() {
                a.broken = true;
            }
            return Err(match written {
                Err(e) => e,
                Ok(n) => std::io::Error::other(format!("short journal write: {n} of {len} bytes")),
            });
        }
        a.seq = seq;
        a.size += len as u64;
        a.pending.push(HeldCharge {
            seq,
            created_at: at,
            delivery,
        });
        if a.size >= SEGMENT_BYTES {
            let next = a.segment + 1;
            match open_segment(&segment_path(&self.dir, &self.owner, next)) {
                Ok(file) => {
                    let closed = (a.segment, seq);
                    a.closed.push(closed);
                    a.file = file;
                    a.segment = next;
                    a.size = 0;
                }
                Err(e) => tracing::warn!(error = %e, "could not start a new journal segment"),
            }
        }
        Ok((seq, a.pending.len()))
    }

    /// Charges written since the last call, in order, and the last
    /// sequence number written.
    pub fn take_pending(&self) -> (Vec<HeldCharge>, i64) {
        let mut a = self.active();
        (std::mem::take(&mut a.pending), a.seq)
    }

    /// Records written and not yet taken.
    pub fn pending_len(&self) -> usize {
        self.active().pending.len()
    }

    /// Everything through `seq` is in the ledger: closed segments that hold
    /// nothing later are deleted.
    pub fn settled(&self, seq: i64) {
        let done: Vec<u64> = {
            let mut a = self.active();
            let (done, keep): (Vec<_>, Vec<_>) =
                a.closed.iter().partition(|(_, last)| *last <= seq);
            a.closed = keep;
            done.into_iter().map(|(s, _)| s).collect()
        };
        for segment in done {
            let path = segment_path(&self.dir, &self.owner, segment);
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!(error = %e, "could not delete a settled journal segment");
            }
        }
    }

    /// Takes no more records (shutdown): a charge after this fails, and
    /// its request gets no image.
    pub fn close(&self) {
        self.active().broken = true;
    }

    /// Charges taken whose settle failed: they go first in the next one.
    pub fn put_back(&self, mut batch: Vec<HeldCharge>) {
        let mut a = self.active();
        batch.append(&mut a.pending);
        a.pending = batch;
    }

    /// Deletes the segments (every record in them is in the ledger) and
    /// takes no more records.
    pub fn remove_segments(&self) {
        let segments: Vec<u64> = {
            let mut a = self.active();
            a.broken = true;
            a.closed
                .iter()
                .map(|(s, _)| *s)
                .chain([a.segment])
                .collect()
        };
        for segment in segments {
            let _ = std::fs::remove_file(segment_path(&self.dir, &self.owner, segment));
        }
    }

    /// Deletes the lock file, last (the server is gone from the database).
    pub fn remove_lock(&self) {
        let _ = std::fs::remove_file(lock_path(&self.dir, &self.owner));
    }
}

/// The journal of a server that is gone, claimed (its lock taken) by this
/// process while it settles it.
#[derive(Debug)]
pub struct DeadJournal {
    pub owner: String,
    /// Every whole record, in order.
    pub records: Vec<HeldCharge>,
    dir: PathBuf,
    segments: Vec<PathBuf>,
    _lock: File,
}

impl DeadJournal {
    /// Deletes the segments (every record is in the ledger); the lock file
    /// goes with [`DeadJournal::finish`].
    pub fn remove_segments(&self) -> std::io::Result<()> {
        for path in &self.segments {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Forgets the server: its lock file goes.
    pub fn finish(self) {
        let _ = std::fs::remove_file(lock_path(&self.dir, &self.owner));
    }
}

/// Why a dead server's journal could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("journal {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("journal {path}, line {line}: {reason}")]
    Corrupt {
        path: String,
        line: usize,
        reason: String,
    },
}

/// Servers with files in `dir`, other than `me`.
pub fn owners(dir: &Path, me: &str) -> std::io::Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let name = entry?.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((owner, _)) = name.split_once('.') else {
            continue;
        };
        if owner != me && !owner.is_empty() && !out.iter().any(|o| o == owner) {
            out.push(owner.to_owned());
        }
    }
    out.sort();
    Ok(out)
}

/// Claims `owner`'s journal if its server is gone and reads it; None when
/// the server is alive (or another process claimed it first).
pub fn claim(dir: &Path, owner: &str) -> Result<Option<DeadJournal>, JournalError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| JournalError::Io { path, source }
    };
    let lock_file = lock_path(dir, owner);
    let lock = match OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_file)
    {
        Ok(f) => f,
        Err(e) => return Err(io(&lock_file)(e)),
    };
    if lock.try_lock().is_err() {
        return Ok(None);
    }
    let mut segments: Vec<(u64, PathBuf)> = Vec::new();
    let prefix = format!("{owner}.");
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(n) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            segments.push((n, entry.path()));
        }
    }
    segments.sort();
    let mut records = Vec::new();
    for (_, path) in &segments {
        let bytes = std::fs::read(path).map_err(io(path))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut lines: Vec<&str> = text.split('\n').collect();
        // The piece after the last newline is empty, or a torn write.
        if let Some(tail) = lines.pop()
            && !tail.is_empty()
        {
            tracing::warn!(
                journal = %path.display(),
                bytes = tail.len(),
                "ignoring a torn last journal record (its request got no image)"
            );
        }
        for (i, line) in lines.into_iter().enumerate() {
            let charge = decode(line).map_err(|reason| JournalError::Corrupt {
                path: path.display().to_string(),
                line: i + 1,
                reason,
            })?;
            records.push(charge);
        }
    }
    Ok(Some(DeadJournal {
        owner: owner.to_owned(),
        records,
        dir: dir.to_owned(),
        segments: segments.into_iter().map(|(_, p)| p).collect(),
        _lock: lock,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(n: i64) -> NewDelivery {
        NewDelivery {
            request_id: format!("req-{n}"),
            account_id: "acct".into(),
            key_id: Some("key".into()),
            variant: "toyota/camry/2020/red/front".into(),
            revision: 1,
            width: 512,
            height: 512,
            format: "webp".into(),
            source: "cache",
            credits: 1,
        }
    }

    #[test]
    fn records_survive_their_writer_and_a_live_journal_cannot_be_claimed() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path(), "a").unwrap();
        for n in 1..=3 {
            assert_eq!(
                journal.append(delivery(n), 1000 + n).unwrap(),
                (n, n as usize)
            );
        }
        assert!(
            claim(dir.path(), "a").unwrap().is_none(),
            "its server is alive"
        );
        assert_eq!(owners(dir.path(), "b").unwrap(), vec!["a".to_owned()]);
        // The process dies: its lock goes with it, the records stay.
        drop(journal);
        let dead = claim(dir.path(), "a").unwrap().expect("the server is gone");
        assert_eq!(dead.records.len(), 3);
        assert_eq!(dead.records[2].seq, 3);
        assert_eq!(dead.records[2].created_at, 1003);
        assert_eq!(dead.records[2].delivery, delivery(3));
        dead.remove_segments().unwrap();
        dead.finish();
        assert!(owners(dir.path(), "b").unwrap().is_empty());
    }

    #[test]
    fn a_torn_last_record_is_dropped_and_a_torn_middle_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path(), "a").unwrap();
        journal.append(delivery(1), 1).unwrap();
        drop(journal);
        let path = segment_path(dir.path(), "a", 1);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"seq\":2,\"at\"").unwrap();
        let dead = claim(dir.path(), "a").unwrap().unwrap();
        assert_eq!(dead.records.len(), 1);
        drop(dead);
        f.write_all(b"\n").unwrap();
        let err = claim(dir.path(), "a").unwrap_err();
        assert!(
            matches!(err, JournalError::Corrupt { line: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_failed_write_keeps_nothing_and_nothing_after_it() {
        let dir = tempfile::tempdir().unwrap();
        // A full disk: every write to the segment fails with ENOSPC.
        std::os::unix::fs::symlink("/dev/full", segment_path(dir.path(), "a", 1)).unwrap();
        let journal = Journal::open(dir.path(), "a").unwrap();
        assert!(journal.append(delivery(1), 1).is_err());
        assert_eq!(journal.pending_len(), 0, "a failed charge is never settled");
        assert!(journal.append(delivery(2), 2).is_err());
        // No sequence number was used up.
        assert_eq!(journal.take_pending(), (Vec::new(), 0));
    }

    #[test]
    fn settled_segments_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path(), "a").unwrap();
        journal.append(delivery(1), 1).unwrap();
        // Close the segment by hand, as a full one would be.
        {
            let mut a = journal.active();
            a.closed.push((1, 1));
            a.segment = 2;
            a.file = open_segment(&segment_path(dir.path(), "a", 2)).unwrap();
        }
        journal.append(delivery(2), 2).unwrap();
        let (taken, last) = journal.take_pending();
        assert_eq!((taken.len(), last), (2, 2));
        assert!(segment_path(dir.path(), "a", 1).exists());
        journal.settled(1);
        assert!(!segment_path(dir.path(), "a", 1).exists());
        assert!(segment_path(dir.path(), "a", 2).exists());
        journal.remove_segments();
        assert!(
            journal.append(delivery(3), 3).is_err(),
            "a removed journal takes nothing"
        );
        journal.remove_lock();
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}
