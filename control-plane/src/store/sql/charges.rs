//! Group-committed delivery charges: one algorithm, two executors.
//!
//! [`charge_batch`] decides, for a batch of deliveries, which are charged and
//! at what balance, with a constant number of statements in the common case:
//! one conditional debit per paying key (which also re-checks that the key is
//! live), then one ledger row per charge, which is also the delivery record. It talks to the
//! database through [`ChargeOps`], implemented twice:
//!
//! - [`SqlxCharges`], a sqlx transaction: PostgreSQL, and SQLite databases
//!   the dedicated writer cannot open (in-memory ones).
//! - `RusqliteCharges` (in `sqlite_writer.rs`), a connection owned by one
//!   thread: on SQLite every statement through sqlx is a round trip to
//!   sqlx's worker thread, and on a busy machine those round trips, not
//!   SQLite, were what a batch cost (see docs/benchmarks.md).
//!
//! The statement texts are shared by both (the SQLite writer's debit is the
//! same text without RETURNING), so the two cannot drift.

use super::*;

/// The conditional group debit, in one place for both forms below.
macro_rules! debit_group {
    () => {
        "UPDATE accounts SET balance = balance - $1 \
         WHERE id = $2 AND balance - held >= $1 \
         AND ($3 IS NULL OR EXISTS (SELECT 1 FROM api_keys WHERE id = $3 AND revoked_at IS NULL))"
    };
}
/// Debits a whole group when the key (if any) is live and the credits no
/// server holds (`balance - held`) cover it; returns the balance after. `$1` credits, `$2` account, `$3` key id.
pub(super) const DEBIT_GROUP: &str = concat!(debit_group!(), " RETURNING balance");
/// [`DEBIT_GROUP`] without RETURNING (which SQLite runs through an
/// ephemeral B-tree per statement): the SQLite writer reads the balance
/// after it in the same transaction.
pub(super) const DEBIT_GROUP_SQLITE: &str = debit_group!();
pub(super) const KEY_REVOKED_AT: &str = "SELECT revoked_at FROM api_keys WHERE id = $1";
/// The balance and what running servers hold of it.
pub(super) const BALANCE: &str = "SELECT balance, held FROM accounts WHERE id = $1";
/// An unconditional debit, for a prefix the caller knows the balance covers.
pub(super) const DEBIT: &str = "UPDATE accounts SET balance = balance - $1 WHERE id = $2";
/// A delivery charge is one ledger row that records what it paid for.
pub(super) const CHARGE_PREFIX: &str = "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
     key_id, variant, revision, width, height, format, source) VALUES ";
/// One charge row: account, delta, balance after, request id, time, then
/// the key and what was delivered.
pub(super) const CHARGE_ROW: [&str; 14] = [
    "$",
    "'charge'",
    "$",
    "$",
    "'image delivery'",
    "$",
    "$",
    "$",
    "$",
    "$",
    "$",
    "$",
    "$",
    "$",
];

/// An account and the key it pays with.
type PayingKey<'a> = (&'a str, Option<&'a str>);

/// The database operations one charge batch needs, inside one write
/// transaction owned by the implementor.
pub(super) trait ChargeOps {
    /// [`DEBIT_GROUP`]: the balance after, or None when refused.
    async fn debit_group(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError>;
    /// Whether the key exists and is not revoked.
    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError>;
    /// [`BALANCE`]: the balance and the credits held of it.
    async fn balance(&mut self, account_id: &str) -> Result<Option<(i64, i64)>, StoreError>;
    async fn debit(&mut self, account_id: &str, credits: i64) -> Result<(), StoreError>;
    /// Writes the charge row of each charged item (the delivery and the
    /// balance after it).
    async fn record(
        &mut self,
        charged: &[(&NewDelivery, i64)],
        now: Millis,
    ) -> Result<(), StoreError>;
}

/// Charges a batch through `ops`. Each item gets its own outcome (an
/// InsufficientCredits, KeyRevoked or NotFound item writes nothing); an Err
/// means the transaction must be abandoned and nothing was charged.
pub(super) async fn charge_batch<O: ChargeOps>(
    ops: &mut O,
    batch: &[NewDelivery],
) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
    let mut outcomes: Vec<Option<Result<i64, StoreError>>> =
        (0..batch.len()).map(|_| None).collect();
    // Grouped by paying key: the charge re-checks, in this transaction, that
    // the key is live, so a revoked key is never billed even when the caller
    // authenticated it from a cache.
    let mut groups: Vec<(PayingKey<'_>, Vec<usize>)> = Vec::new();
    for (i, d) in batch.iter().enumerate() {
        let payer = (d.account_id.as_str(), d.key_id.as_deref());
        match groups.iter_mut().find(|(p, _)| *p == payer) {
            Some((_, idxs)) => idxs.push(i),
            None => groups.push((payer, vec![i])),
        }
    }
    for ((account_id, key_id), idxs) in &groups {
        let want: i64 = idxs.iter().map(|&i| batch[i].credits).sum();
        // The common case costs this one statement.
        let after_all = ops.debit_group(account_id, *key_id, want).await?;
        if after_all.is_none()
            && let Some(key_id) = key_id
            && !ops.key_live(key_id).await?
        {
            for &i in idxs {
                outcomes[i] = Some(Err(StoreError::KeyRevoked));
            }
            continue;
        }
        // Which items fit: all of them, or the longest prefix the balance covers.
        let (granted, balance_after) = match after_all {
            Some(after) => (idxs.len(), after),
            None => {
                let Some((current, held)) = ops.balance(account_id).await? else {
                    for &i in idxs {
                        outcomes[i] = Some(Err(StoreError::NotFound("account")));
                    }
                    continue;
                };
                let mut spent = 0;
                let mut n = 0;
                for &i in idxs {
                    if spent + batch[i].credits > current - held {
                        break;
                    }
                    spent += batch[i].credits;
                    n += 1;
                }
                if spent > 0 {
                    ops.debit(account_id, spent).await?;
                }
                (n, current - spent)
            }
        };
        let mut running = balance_after
            + idxs[..granted]
                .iter()
                .map(|&i| batch[i].credits)
                .sum::<i64>();
        for &i in &idxs[..granted] {
            running -= batch[i].credits;
            outcomes[i] = Some(Ok(running));
        }
        for &i in &idxs[granted..] {
            outcomes[i] = Some(Err(StoreError::InsufficientCredits {
                balance: balance_after,
                required: batch[i].credits,
            }));
        }
    }
    let charged: Vec<(&NewDelivery, i64)> = outcomes
        .iter()
        .zip(batch)
        .filter_map(|(o, d)| match o {
            Some(Ok(b)) => Some((d, *b)),
            _ => None,
        })
        .collect();
    if !charged.is_empty() {
        ops.record(&charged, now_millis()).await?;
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Err(StoreError::Database("no outcome".into()))))
        .collect())
}

/// [`ChargeOps`] on a sqlx transaction: multi-row inserts keep the number
/// of round trips constant per batch.
pub(super) struct SqlxCharges<'a> {
    pub tx: &'a mut sqlx::Transaction<'static, sqlx::Any>,
}

impl ChargeOps for SqlxCharges<'_> {
    async fn debit_group(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar(DEBIT_GROUP)
            .bind(credits)
            .bind(account_id)
            .bind(key_id)
            .fetch_optional(&mut **self.tx)
            .await
            .map_err(map_err)
    }

    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError> {
        let revoked: Option<Option<i64>> = sqlx::query_scalar(KEY_REVOKED_AT)
            .bind(key_id)
            .fetch_optional(&mut **self.tx)
            .await
            .map_err(map_err)?;
        Ok(matches!(revoked, Some(None)))
    }

    async fn balance(&mut self, account_id: &str) -> Result<Option<(i64, i64)>, StoreError> {
        sqlx::query_as(BALANCE)
            .bind(account_id)
            .fetch_optional(&mut **self.tx)
            .await
            .map_err(map_err)
    }

    async fn debit(&mut self, account_id: &str, credits: i64) -> Result<(), StoreError> {
        sqlx::query(DEBIT)
            .bind(credits)
            .bind(account_id)
            .execute(&mut **self.tx)
            .await
            .map_err(map_err)?;
        Ok(())
    }

    async fn record(
        &mut self,
        charged: &[(&NewDelivery, i64)],
        now: Millis,
    ) -> Result<(), StoreError> {
        let rows: Vec<ChargeRow<'_>> = charged.iter().map(|&(d, b)| (d, now, b)).collect();
        insert_charge_rows(self.tx, &rows).await
    }
}

/// One delivery charge row: the delivery, its time, the balance after it.
pub(super) type ChargeRow<'a> = (&'a NewDelivery, Millis, i64);

/// Charge rows per sqlx INSERT: 12 bound values each keeps a statement well
/// under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const ROWS_PER_INSERT: usize = 1000;

/// Writes delivery charge rows ([`CHARGE_ROW`]) in order on a sqlx
/// transaction, in multi-row statements (the SQLite writer's rusqlite
/// counterpart is `sqlite_writer::insert_charge_rows`).
pub(super) async fn insert_charge_rows(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    rows: &[ChargeRow<'_>],
) -> Result<(), StoreError> {
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(multi_row_insert(
            CHARGE_PREFIX,
            &CHARGE_ROW,
            chunk.len(),
        )));
        for &(d, at, balance_after) in chunk {
            q = q
                .bind(d.account_id.clone())
                .bind(-d.credits)
                .bind(balance_after)
                .bind(d.request_id.clone())
                .bind(at)
                .bind(d.key_id.clone())
                .bind(d.variant.clone())
                .bind(d.revision)
                .bind(d.width)
                .bind(d.height)
                .bind(d.format.clone())
                .bind(d.source);
        }
        q.execute(&mut **tx).await.map_err(map_err)?;
    }
    Ok(())
}
