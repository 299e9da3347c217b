//! The ledger writer on a SQLite file: the collector thread's own rusqlite
//! connection, running the one charge algorithm (`charges.rs`) with the
//! same statement texts as the sqlx path, in one immediate transaction.
//!
//! Why it exists (docs/ledger.md, "The SQLite adapter"): through sqlx every
//! statement of a batch is a round trip to sqlx's SQLite worker thread, four
//! per batch, and on two busy cores each waits to be scheduled; here the
//! whole batch runs on the ledger's thread with no handoff. Measured in
//! docs/benchmarks.md ("One ledger"). It is sealed behind
//! `ChargeWriter::charge_deliveries` (`open_charge_writer`); nothing else uses it.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, named_params};

use super::charges::{
    BALANCE, ChargeTx, DEBIT_GROUP, Funds, INSERT_CHARGES, KEY_REVOKED_AT, charge_batch,
};
use super::*;

pub(super) struct SqliteLedger {
    conn: Connection,
}

fn sqlite_err(e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::DatabaseBusy
                || f.code == rusqlite::ErrorCode::DatabaseLocked =>
        {
            StoreError::Unavailable("the database is busy".into())
        }
        other => StoreError::Database(other.to_string()),
    }
}

impl SqliteLedger {
    pub(super) fn open(path: &std::path::Path) -> Result<SqliteLedger, StoreError> {
        let conn = Connection::open(path).map_err(sqlite_err)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(sqlite_err)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
        )
        .map_err(sqlite_err)?;
        Ok(SqliteLedger { conn })
    }

    /// The connection's `PRAGMA synchronous` (2 is FULL).
    #[cfg(test)]
    pub(super) fn synchronous(&self) -> i64 {
        self.conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .expect("reads a pragma")
    }

    /// One batch, one immediate transaction; as `CreditStore::charge_deliveries`.
    pub(super) fn charge_deliveries(
        &mut self,
        batch: &[NewDelivery],
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite_err)?;
        let outcomes = run_now(charge_batch(&mut Rusqlite(&tx), batch))?;
        tx.commit().map_err(sqlite_err)?;
        Ok(outcomes)
    }
}

/// Runs a future that never waits (every `ChargeTx` call here is a plain
/// function call) to its end on this thread.
fn run_now<T>(work: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    match pin!(work).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err(StoreError::Database(
            "a SQLite ledger step waited, which it never does".into(),
        )),
    }
}

struct Rusqlite<'a>(&'a rusqlite::Transaction<'a>);

impl ChargeTx for Rusqlite<'_> {
    async fn debit(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut stmt = self.0.prepare_cached(DEBIT_GROUP).map_err(sqlite_err)?;
        stmt.query_row(
            named_params! {"$1": credits, "$2": account_id, "$3": key_id},
            |r| r.get(0),
        )
        .optional()
        .map_err(sqlite_err)
    }

    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError> {
        let mut stmt = self.0.prepare_cached(KEY_REVOKED_AT).map_err(sqlite_err)?;
        let revoked: Option<Option<i64>> = stmt
            .query_row(named_params! {"$1": key_id}, |r| r.get(0))
            .optional()
            .map_err(sqlite_err)?;
        Ok(matches!(revoked, Some(None)))
    }

    async fn read_balance(&mut self, account_id: &str) -> Result<Option<Funds>, StoreError> {
        let mut stmt = self.0.prepare_cached(BALANCE).map_err(sqlite_err)?;
        stmt.query_row(named_params! {"$1": account_id}, |r| {
            Ok(Funds {
                balance: r.get(0)?,
                owed: r.get(1)?,
                disputes: r.get(2)?,
            })
        })
        .optional()
        .map_err(sqlite_err)
    }

    async fn insert_rows(&mut self, rows: String) -> Result<(), StoreError> {
        let mut stmt = self.0.prepare_cached(INSERT_CHARGES).map_err(sqlite_err)?;
        stmt.execute(named_params! {"$1": rows})
            .map_err(sqlite_err)?;
        Ok(())
    }
}
