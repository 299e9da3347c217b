//! The ledger writer for SQLite files: one thread that owns one connection
//! and writes each charge batch in one immediate transaction, in a single
//! handoff from the async side.
//!
//! Why a thread of its own: through sqlx every statement is a round trip to
//! sqlx's SQLite worker thread, six per batch with BEGIN and COMMIT, and on
//! a machine whose cores are busy serving HTTP each round trip waits to be
//! scheduled. Here a batch costs one wake-up, its statements are prepared
//! once and cached, and the connection's page cache stays warm because no
//! other work shares it. The rules are the same: [`charge_batch`] decides,
//! with the same statement texts as the sqlx path (the debit without
//! RETURNING).
//!
//! SQLite allows one writer at a time; this connection and the sqlx pool
//! take turns through `BEGIN IMMEDIATE` and the busy timeout, exactly as two
//! pool connections would.

use std::sync::mpsc;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use tokio::sync::oneshot;

use super::charges::{
    BALANCE, CHARGE_PREFIX, CHARGE_ROW, ChargeOps, ChargeRow, DEBIT, DEBIT_GROUP_SQLITE,
    KEY_REVOKED_AT, charge_batch,
};
use super::*;
use crate::store::{ChargeQueue, ChargeReply};

type Outcomes = Result<Vec<Result<i64, StoreError>>, StoreError>;
/// Charges that must commit together (one caller's batch), each with the
/// sender of its own outcome.
type Charges = Vec<(NewDelivery, ChargeReply)>;

/// What the writer thread is asked to do, in order.
enum Job {
    /// Charges, merged with whatever charges queued behind them.
    Charges(Charges),
    /// Any other write on this connection (credit holds, settles), run in
    /// its own transaction by [`SqliteWriter::in_transaction`].
    Run(Box<dyn FnOnce(&mut Connection) + Send>),
}

/// Handle to the writer thread. The thread ends when the last handle drops.
#[derive(Debug)]
pub(super) struct SqliteWriter {
    jobs: mpsc::Sender<Job>,
    /// Dropped with the writer: tells the checkpointer to finish.
    _stop: mpsc::Sender<()>,
}

impl SqliteWriter {
    /// Opens `path` and starts the thread.
    pub(super) fn start(path: &std::path::Path) -> Result<SqliteWriter, StoreError> {
        let conn = Connection::open(path).map_err(sqlite_err)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(sqlite_err)?;
        // The pool set WAL on the file already; these are per connection.
        // Checkpoints: the checkpointer thread copies the WAL back every
        // 200 ms beside us, fsyncs included, so charges do not wait for the
        // disk. But while this thread appends without pause, a passive
        // checkpoint never catches up, and the WAL only restarts from its
        // beginning when a checkpoint finishes between two commits; so this
        // connection still checkpoints every 2000 pages (8 MB), and finds
        // most of the work done. Measured on the billed benchmark: at 1000
        // (SQLite's default, no checkpointer) 25-27k req/s, p99 6 ms; at
        // 2000 with the checkpointer 29k, p99 9 ms; at 20000, 32-34k but
        // p99 18-30 ms and an 85 MB WAL (docs/benchmarks.md).
        conn.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 2000; PRAGMA temp_store = MEMORY;",
        )
        .map_err(sqlite_err)?;
        let checkpoints = Connection::open(path).map_err(sqlite_err)?;
        checkpoints
            .busy_timeout(Duration::from_secs(10))
            .map_err(sqlite_err)?;
        let (tx, rx) = mpsc::channel::<Job>();
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("vis-ledger-writer".into())
            .spawn(move || run(conn, rx))
            .map_err(|e| StoreError::Unavailable(format!("ledger writer thread: {e}")))?;
        std::thread::Builder::new()
            .name("vis-checkpoint".into())
            .spawn(move || checkpoint(checkpoints, stopped))
            .map_err(|e| StoreError::Unavailable(format!("checkpoint thread: {e}")))?;
        Ok(SqliteWriter {
            jobs: tx,
            _stop: stop,
        })
    }

    /// Charges a batch in one transaction on the writer thread.
    pub(super) async fn charge_all(&self, batch: Vec<NewDelivery>) -> Outcomes {
        let mut outcomes = Vec::with_capacity(batch.len());
        let job: Charges = batch
            .into_iter()
            .map(|d| {
                let (done, outcome) = oneshot::channel();
                outcomes.push(outcome);
                (d, done)
            })
            .collect();
        self.send(Job::Charges(job))?;
        let mut out = Vec::with_capacity(outcomes.len());
        for outcome in outcomes {
            out.push(outcome.await.map_err(|_| stopped_mid_batch())?);
        }
        Ok(out)
    }

    fn send(&self, job: Job) -> Result<(), StoreError> {
        self.jobs
            .send(job)
            .map_err(|_| StoreError::Unavailable("the ledger writer has stopped".into()))
    }

    /// Runs `f` in one immediate transaction on the writer thread, after
    /// the writes queued before it; commits when it returns Ok, rolls back
    /// otherwise (a panic included).
    pub(super) async fn in_transaction<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (done, outcome) = oneshot::channel();
        self.send(Job::Run(Box::new(move |conn: &mut Connection| {
            let run = || {
                let tx = conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(sqlite_err)?;
                let out = f(&tx)?;
                tx.commit().map_err(sqlite_err)?;
                Ok(out)
            };
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
                .unwrap_or_else(|_| Err(StoreError::Database("the ledger writer panicked".into())));
            let _ = done.send(out);
        })))?;
        outcome.await.map_err(|_| stopped_mid_batch())?
    }
}

impl ChargeQueue for SqliteWriter {
    fn submit(&self, delivery: NewDelivery, reply: ChargeReply) -> Result<(), StoreError> {
        self.send(Job::Charges(vec![(delivery, reply)]))
    }
}

fn stopped_mid_batch() -> StoreError {
    StoreError::Unavailable("the ledger writer stopped mid-batch".into())
}

/// Charges per transaction at most, when queued jobs are merged.
const MAX_MERGED: usize = 1024;

fn run(mut conn: Connection, jobs: mpsc::Receiver<Job>) {
    let mut next = None;
    loop {
        let job = match next.take() {
            Some(job) => job,
            None => match jobs.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        let mut all = match job {
            Job::Run(f) => {
                f(&mut conn);
                continue;
            }
            Job::Charges(all) => all,
        };
        // Every charge that queued while the last transaction committed
        // shares this one; a job is never split across two, and other
        // writes keep their place in the queue.
        while all.len() < MAX_MERGED {
            match jobs.try_recv() {
                Ok(Job::Charges(job)) => all.extend(job),
                Ok(other) => {
                    next = Some(other);
                    break;
                }
                Err(_) => break,
            }
        }
        let (batch, replies): (Vec<NewDelivery>, Vec<ChargeReply>) = all.into_iter().unzip();
        // A panic here must not take the ledger down with it: the
        // transaction rolls back as it unwinds, the batch fails like any
        // other failed batch, and the thread goes on with the next one.
        let written =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(&mut conn, &batch)))
                .unwrap_or_else(|_| Err(StoreError::Database("the ledger writer panicked".into())));
        match written {
            Ok(outcomes) => {
                for (done, outcome) in replies.into_iter().zip(outcomes) {
                    let _ = done.send(outcome);
                }
            }
            Err(e) => {
                // Nothing was written: every caller fails, and nobody is
                // charged for an image it does not receive.
                tracing::error!(error = %e, batch.size = batch.len(), "a charge batch failed");
                for done in replies {
                    let _ = done.send(Err(e.duplicate()));
                }
            }
        }
    }
}

/// How often the WAL is copied back into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// Passive checkpoints on a connection of their own, until the writer is
/// dropped. Passive: never waits for, or blocks, the writer or readers.
fn checkpoint(conn: Connection, stopped: mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
    }
}

/// One transaction: every charge of the batch commits, or none does.
fn write(conn: &mut Connection, batch: &[NewDelivery]) -> Outcomes {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sqlite_err)?;
    let outcomes = ready(charge_batch(&mut RusqliteCharges { tx: &tx }, batch))?;
    // On an error above, dropping `tx` rolls back.
    tx.commit().map_err(sqlite_err)?;
    Ok(outcomes)
}

/// Drives a future whose every await is already complete (the
/// [`RusqliteCharges`] methods are synchronous), on this thread.
pub(super) fn ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}

struct RusqliteCharges<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

impl ChargeOps for RusqliteCharges<'_> {
    async fn debit_group(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError> {
        // The same UPDATE without RETURNING, then a read of the row: this
        // transaction holds the write lock, so nothing changes in between.
        let debited = self
            .tx
            .prepare_cached(DEBIT_GROUP_SQLITE)
            .and_then(|mut s| s.execute(params![credits, account_id, key_id]))
            .map_err(sqlite_err)?;
        if debited == 0 {
            return Ok(None);
        }
        Ok(self.balance(account_id).await?.map(|(balance, _)| balance))
    }

    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError> {
        let revoked: Option<Option<i64>> = self
            .tx
            .prepare_cached(KEY_REVOKED_AT)
            .and_then(|mut s| s.query_row(params![key_id], |r| r.get(0)).optional())
            .map_err(sqlite_err)?;
        Ok(matches!(revoked, Some(None)))
    }

    async fn balance(&mut self, account_id: &str) -> Result<Option<(i64, i64)>, StoreError> {
        self.tx
            .prepare_cached(BALANCE)
            .and_then(|mut s| {
                s.query_row(params![account_id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(sqlite_err)
    }

    async fn debit(&mut self, account_id: &str, credits: i64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(DEBIT)
            .and_then(|mut s| s.execute(params![credits, account_id]))
            .map_err(sqlite_err)?;
        Ok(())
    }

    async fn record(
        &mut self,
        charged: &[(&NewDelivery, i64)],
        now: Millis,
    ) -> Result<(), StoreError> {
        let rows: Vec<_> = charged.iter().map(|&(d, b)| (d, now, b)).collect();
        insert_charge_rows(self.tx, &rows)
    }
}

/// Rows per cached multi-row insert.
const ROWS_PER_INSERT: usize = 64;

/// Writes delivery charge rows ([`CHARGE_ROW`]) in order: full chunks
/// through one cached statement of [`ROWS_PER_INSERT`] rows, the rest
/// through a cached one-row statement. Statement texts never change with
/// the batch size, so each is parsed once per connection; running one
/// statement per 64 rows instead of per row halved the writer's CPU per
/// settled charge (docs/benchmarks.md).
pub(super) fn insert_charge_rows(
    tx: &rusqlite::Transaction<'_>,
    rows: &[ChargeRow<'_>],
) -> Result<(), StoreError> {
    static CHUNK: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| multi_row_insert(CHARGE_PREFIX, &CHARGE_ROW, ROWS_PER_INSERT));
    static ONE: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| multi_row_insert(CHARGE_PREFIX, &CHARGE_ROW, 1));
    let deltas: Vec<i64> = rows.iter().map(|(d, _, _)| -d.credits).collect();
    let values = |i: usize| -> [&dyn rusqlite::ToSql; 12] {
        let (d, at, balance_after) = &rows[i];
        [
            &d.account_id,
            &deltas[i],
            balance_after,
            &d.request_id,
            at,
            &d.key_id,
            &d.variant,
            &d.revision,
            &d.width,
            &d.height,
            &d.format,
            &d.source,
        ]
    };
    let full = rows.len() / ROWS_PER_INSERT * ROWS_PER_INSERT;
    if full > 0 {
        let mut insert = tx.prepare_cached(&CHUNK).map_err(sqlite_err)?;
        for start in (0..full).step_by(ROWS_PER_INSERT) {
            let bound: Vec<&dyn rusqlite::ToSql> =
                (start..start + ROWS_PER_INSERT).flat_map(values).collect();
            insert.execute(bound.as_slice()).map_err(sqlite_err)?;
        }
    }
    if full < rows.len() {
        let mut insert = tx.prepare_cached(&ONE).map_err(sqlite_err)?;
        for i in full..rows.len() {
            insert.execute(&values(i)[..]).map_err(sqlite_err)?;
        }
    }
    Ok(())
}

pub(super) fn sqlite_err(e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Unavailable("the database is busy".into())
        }
        Some(ErrorCode::ConstraintViolation) => StoreError::Conflict("record"),
        _ => StoreError::Database(e.to_string()),
    }
}
