//! Credit holds and the settling of held charges (`HoldStore`): one
//! algorithm per operation over two executors, like `charges.rs`. None of
//! this is on a request's path in the common case: a server takes a hold
//! once per many charges and settles its journal in batches
//! (`billing::holds`). On a SQLite file the writes run on the ledger
//! writer's thread, queued behind its charge batches instead of waiting on
//! SQLite's lock (through sqlx a 4,000-row settle took 0.8 s and held the
//! lock while refills slept on it).
//!
//! Every statement that changes `held` first locks the account row with an
//! UPDATE, so on PostgreSQL a concurrent debit that waits for that row
//! re-reads `balance - held` after the hold commits (a sub-select over
//! `holds` would not be re-read), and on SQLite `BEGIN IMMEDIATE` serialises
//! all writers anyway.

use super::charges::{ChargeRow, insert_charge_rows};
use super::sqlite_writer::ready;
use super::*;

/// The charge journals' folder of a SQLite file: `<file>.charges` beside it.
pub(super) fn journal_dir(file: &std::path::Path) -> std::path::PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_owned();
    name.push(".charges");
    file.with_file_name(name)
}

/// Locks the account row (an UPDATE that changes nothing), then reads it:
/// nothing changes it until commit.
const LOCK_ACCOUNT: &str = "UPDATE accounts SET held = held WHERE id = $1 RETURNING balance, held";
const ADD_HELD: &str = "UPDATE accounts SET held = held + $1 WHERE id = $2";
const UPSERT_HOLD: &str = "INSERT INTO holds (owner, account_id, amount, updated_at) VALUES ($1, $2, $3, $4) \
     ON CONFLICT (owner, account_id) DO UPDATE \
     SET amount = holds.amount + excluded.amount, updated_at = excluded.updated_at";
const RELEASE_HELD: &str = "UPDATE accounts SET held = held - $1 WHERE id = $2 RETURNING balance";
const SHRINK_HOLD: &str = "UPDATE holds SET amount = amount - $1, updated_at = $2 \
     WHERE owner = $3 AND account_id = $4 AND amount >= $1";
const DROP_EMPTY_HOLD: &str =
    "DELETE FROM holds WHERE owner = $1 AND account_id = $2 AND amount = 0";
/// Settles spent held credits: off the balance and off `held` together.
const SETTLE_DEBIT: &str = "UPDATE accounts SET balance = balance - $1, held = held - $1 WHERE id = $2 \
     RETURNING balance";
/// A journal mark only moves forward.
const SET_MARK: &str = "INSERT INTO journal_marks (owner, seq, updated_at) VALUES ($1, $2, $3) \
     ON CONFLICT (owner) DO UPDATE SET updated_at = excluded.updated_at, \
     seq = CASE WHEN excluded.seq > journal_marks.seq THEN excluded.seq ELSE journal_marks.seq END";

/// A bound value.
#[derive(Debug, Clone, Copy)]
pub(super) enum Arg<'a> {
    I(i64),
    S(&'a str),
}

/// The statements a hold operation runs, inside one write transaction
/// owned by the implementor: [`SqlxHolds`] (PostgreSQL, and SQLite through
/// the pool) and [`RusqliteHolds`] (the SQLite ledger writer's thread).
pub(super) trait HoldOps {
    /// Runs a statement; returns the rows it changed.
    async fn exec(&mut self, sql: &'static str, args: &[Arg<'_>]) -> Result<u64, StoreError>;
    /// Runs a statement; the integer columns of its first row.
    async fn ints(
        &mut self,
        sql: &'static str,
        args: &[Arg<'_>],
    ) -> Result<Option<Vec<i64>>, StoreError>;
    /// Writes delivery charge rows, in order.
    async fn insert_charges(&mut self, rows: &[ChargeRow<'_>]) -> Result<(), StoreError>;
}

/// Charge rows grouped by account, in journal order within each.
fn by_account(charges: &[HeldCharge]) -> Vec<(&str, Vec<&HeldCharge>)> {
    let mut groups: Vec<(&str, Vec<&HeldCharge>)> = Vec::new();
    for c in charges {
        let account = c.delivery.account_id.as_str();
        match groups.iter_mut().find(|(a, _)| *a == account) {
            Some((_, items)) => items.push(c),
            None => groups.push((account, vec![c])),
        }
    }
    groups
}

/// Takes `credits` off `owner`'s hold on the account; refuses (and the
/// caller rolls back) when the hold does not have them.
async fn shrink_hold<O: HoldOps>(
    ops: &mut O,
    owner: &str,
    account_id: &str,
    credits: i64,
) -> Result<(), StoreError> {
    let args = [
        Arg::I(credits),
        Arg::I(now_millis()),
        Arg::S(owner),
        Arg::S(account_id),
    ];
    if ops.exec(SHRINK_HOLD, &args).await? != 1 {
        return Err(StoreError::Database(format!(
            "{credits} credits exceed what this server holds on the account"
        )));
    }
    Ok(())
}

/// [`HoldStore::take_hold`] inside a transaction.
pub(super) async fn take<O: HoldOps>(
    ops: &mut O,
    owner: &str,
    account_id: &str,
    want: i64,
) -> Result<(i64, i64), StoreError> {
    let row = ops.ints(LOCK_ACCOUNT, &[Arg::S(account_id)]).await?;
    let Some([balance, held]) = row.as_deref().map(|r| [r[0], r[1]]) else {
        return Err(StoreError::NotFound("account"));
    };
    let granted = want.min(balance - held).max(0);
    if granted > 0 {
        ops.exec(ADD_HELD, &[Arg::I(granted), Arg::S(account_id)])
            .await?;
        let args = [
            Arg::S(owner),
            Arg::S(account_id),
            Arg::I(granted),
            Arg::I(now_millis()),
        ];
        ops.exec(UPSERT_HOLD, &args).await?;
    }
    Ok((granted, balance))
}

/// [`HoldStore::release_hold`] inside a transaction.
pub(super) async fn release<O: HoldOps>(
    ops: &mut O,
    owner: &str,
    account_id: &str,
    credits: i64,
) -> Result<i64, StoreError> {
    let balance = ops
        .ints(RELEASE_HELD, &[Arg::I(credits), Arg::S(account_id)])
        .await?
        .ok_or(StoreError::NotFound("account"))?[0];
    shrink_hold(ops, owner, account_id, credits).await?;
    ops.exec(DROP_EMPTY_HOLD, &[Arg::S(owner), Arg::S(account_id)])
        .await?;
    Ok(balance)
}

/// [`HoldStore::settle_held`] inside a transaction.
pub(super) async fn settle<O: HoldOps>(
    ops: &mut O,
    owner: &str,
    charges: &[HeldCharge],
    through_seq: i64,
) -> Result<Vec<(String, i64)>, StoreError> {
    let mut balances = Vec::new();
    for (account_id, items) in by_account(charges) {
        let spent: i64 = items.iter().map(|c| c.delivery.credits).sum();
        let balance = ops
            .ints(SETTLE_DEBIT, &[Arg::I(spent), Arg::S(account_id)])
            .await?
            .ok_or(StoreError::NotFound("account"))?[0];
        shrink_hold(ops, owner, account_id, spent).await?;
        // Each row's balance after, in journal order.
        let mut running = balance + spent;
        let rows: Vec<ChargeRow<'_>> = items
            .iter()
            .map(|c| {
                running -= c.delivery.credits;
                (&c.delivery, c.created_at, running)
            })
            .collect();
        ops.insert_charges(&rows).await?;
        balances.push((account_id.to_owned(), balance));
    }
    let args = [Arg::S(owner), Arg::I(through_seq), Arg::I(now_millis())];
    ops.exec(SET_MARK, &args).await?;
    Ok(balances)
}

/// [`HoldOps`] on a sqlx transaction.
pub(super) struct SqlxHolds<'a> {
    pub tx: &'a mut sqlx::Transaction<'static, sqlx::Any>,
}

fn bind_all<'q>(
    mut q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    args: &[Arg<'_>],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    for a in args {
        q = match *a {
            Arg::I(v) => q.bind(v),
            Arg::S(v) => q.bind(v.to_owned()),
        };
    }
    q
}

impl HoldOps for SqlxHolds<'_> {
    async fn exec(&mut self, sql: &'static str, args: &[Arg<'_>]) -> Result<u64, StoreError> {
        let done = bind_all(sqlx::query(sql), args)
            .execute(&mut **self.tx)
            .await
            .map_err(map_err)?;
        Ok(done.rows_affected())
    }

    async fn ints(
        &mut self,
        sql: &'static str,
        args: &[Arg<'_>],
    ) -> Result<Option<Vec<i64>>, StoreError> {
        let row = bind_all(sqlx::query(sql), args)
            .fetch_optional(&mut **self.tx)
            .await
            .map_err(map_err)?;
        row.map(|r| (0..r.len()).map(|i| r.try_get::<i64, _>(i)).collect())
            .transpose()
            .map_err(map_err)
    }

    async fn insert_charges(&mut self, rows: &[ChargeRow<'_>]) -> Result<(), StoreError> {
        insert_charge_rows(self.tx, rows).await
    }
}

/// [`HoldOps`] on the SQLite ledger writer's connection: statements are
/// prepared once and cached, a charge row is one cached single-row insert.
pub(super) struct RusqliteHolds<'a> {
    pub tx: &'a rusqlite::Transaction<'a>,
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(match *self {
            Arg::I(v) => v.into(),
            Arg::S(v) => v.into(),
        })
    }
}

impl HoldOps for RusqliteHolds<'_> {
    async fn exec(&mut self, sql: &'static str, args: &[Arg<'_>]) -> Result<u64, StoreError> {
        let n = self
            .tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(rusqlite::params_from_iter(args)))
            .map_err(super::sqlite_writer::sqlite_err)?;
        Ok(n as u64)
    }

    async fn ints(
        &mut self,
        sql: &'static str,
        args: &[Arg<'_>],
    ) -> Result<Option<Vec<i64>>, StoreError> {
        use rusqlite::OptionalExtension;
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| {
                let n = s.column_count();
                s.query_row(rusqlite::params_from_iter(args), |r| {
                    (0..n).map(|i| r.get::<_, i64>(i)).collect()
                })
                .optional()
            })
            .map_err(super::sqlite_writer::sqlite_err)
    }

    async fn insert_charges(&mut self, rows: &[ChargeRow<'_>]) -> Result<(), StoreError> {
        super::sqlite_writer::insert_charge_rows(self.tx, rows)
    }
}

#[async_trait]
impl HoldStore for SqlStore {
    async fn take_hold(
        &self,
        owner: &str,
        account_id: &str,
        want: i64,
    ) -> Result<(i64, i64), StoreError> {
        if let Some(writer) = &self.ledger {
            let (owner, account_id) = (owner.to_owned(), account_id.to_owned());
            return writer
                .in_transaction(move |tx| {
                    ready(take(&mut RusqliteHolds { tx }, &owner, &account_id, want))
                })
                .await;
        }
        let mut tx = self.begin_write().await?;
        let out = take(&mut SqlxHolds { tx: &mut tx }, owner, account_id, want).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(out)
    }

    async fn release_hold(
        &self,
        owner: &str,
        account_id: &str,
        credits: i64,
    ) -> Result<i64, StoreError> {
        if let Some(writer) = &self.ledger {
            let (owner, account_id) = (owner.to_owned(), account_id.to_owned());
            return writer
                .in_transaction(move |tx| {
                    ready(release(
                        &mut RusqliteHolds { tx },
                        &owner,
                        &account_id,
                        credits,
                    ))
                })
                .await;
        }
        let mut tx = self.begin_write().await?;
        let out = release(&mut SqlxHolds { tx: &mut tx }, owner, account_id, credits).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(out)
    }

    async fn settle_held(
        &self,
        owner: &str,
        charges: std::sync::Arc<[HeldCharge]>,
        through_seq: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        if let Some(writer) = &self.ledger {
            let owner = owner.to_owned();
            return writer
                .in_transaction(move |tx| {
                    ready(settle(
                        &mut RusqliteHolds { tx },
                        &owner,
                        &charges,
                        through_seq,
                    ))
                })
                .await;
        }
        let mut tx = self.begin_write().await?;
        let out = settle(&mut SqlxHolds { tx: &mut tx }, owner, &charges, through_seq).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(out)
    }

    async fn journal_mark(&self, owner: &str) -> Result<i64, StoreError> {
        let seq: Option<i64> = sqlx::query_scalar("SELECT seq FROM journal_marks WHERE owner = $1")
            .bind(owner)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(seq.unwrap_or(0))
    }

    async fn hold_owners(&self) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT owner FROM holds UNION SELECT owner FROM journal_marks ORDER BY owner",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn retire_owner(&self, owner: &str) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let holds: Vec<(String, i64)> = sqlx::query_as(
            "SELECT account_id, amount FROM holds WHERE owner = $1 ORDER BY account_id",
        )
        .bind(owner)
        .fetch_all(&mut *tx)
        .await
        .map_err(map_err)?;
        for (account_id, amount) in holds {
            sqlx::query("UPDATE accounts SET held = held - $1 WHERE id = $2")
                .bind(amount)
                .bind(account_id)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        for sql in [
            "DELETE FROM holds WHERE owner = $1",
            "DELETE FROM journal_marks WHERE owner = $1",
        ] {
            sqlx::query(sql)
                .bind(owner)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)?;
        Ok(())
    }

    fn journal_dir(&self) -> Option<std::path::PathBuf> {
        self.file.as_deref().map(journal_dir)
    }

    fn key_live_now(&self, key_id: &str) -> Result<bool, StoreError> {
        let (Some(reads), Some(revocations)) = (&self.reads, &self.revocations) else {
            return Err(StoreError::Unavailable(
                "no calling-thread reads here".into(),
            ));
        };
        revocations.key_live(key_id, || {
            let revoked: Option<Option<i64>> =
                reads.row(super::charges::KEY_REVOKED_AT, [key_id], |r| r.get(0))?;
            Ok(matches!(revoked, Some(None)))
        })
    }
}
