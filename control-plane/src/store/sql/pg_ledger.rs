//! The ledger writer's shortcut on PostgreSQL: a paying key's whole group of
//! charges in one statement (one round trip, its own commit), where the
//! portable algorithm (`charges.rs`) needs four (`BEGIN`, the debit, the
//! rows, `COMMIT`). A data-modifying `WITH` runs the same conditional debit
//! as `charges::DEBIT_GROUP` and inserts the rows only when it succeeded,
//! so whether credits suffice is still decided by that one conditional
//! write. A group the debit refuses (the account cannot pay for all of it,
//! or the key is revoked) goes through the portable algorithm, which
//! decides the prefix and the outcomes. Groups are independent: each is its
//! own transaction. Sealed behind `LedgerWriter::charge_deliveries`;
//! measured in docs/benchmarks.md ("One ledger").
//!
//! The writer owns its connections instead of borrowing them from a sqlx
//! pool: a pool pings the server when it hands a connection out and again
//! when it takes it back, so each batch cost three round trips instead of
//! one (measured: docs/benchmarks.md, "Session 14").

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};

use super::charges::by_payer;
use super::*;

/// One paying key's group: `$1` credits, `$2` account, `$3` key id, `$4`
/// the time, then the rows as one array per column (in the group's order).
/// `after` is the credits of the rows after each one in the group, so a
/// row's balance after is the group's balance after plus that. The account
/// id comes from the debit's own row, so every charge row names an account
/// that this statement has just debited. One result row, the balance after
/// the group and the number of rows written; none when the debit refused.
const CHARGE_GROUP: &str = "WITH debit AS ( \
       UPDATE accounts SET balance = balance - $1 \
       WHERE id = $2 AND balance >= $1 \
       AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM api_keys WHERE id = $3 AND revoked_at IS NULL)) \
       RETURNING id, balance), \
     charged AS ( \
       INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
         key_id, variant, revision, width, height, format, source) \
       SELECT debit.id, 'charge', r.delta, debit.balance + r.after, 'image delivery', r.reference, $4, \
         $3, r.variant, r.revision, r.width, r.height, r.format, r.source \
       FROM debit, unnest($5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bigint[], \
         $10::bigint[], $11::bigint[], $12::text[], $13::text[]) WITH ORDINALITY \
         AS r(delta, after, reference, variant, revision, width, height, format, source, n) \
       ORDER BY r.n \
       RETURNING 1) \
     SELECT balance, (SELECT count(*) FROM charged) FROM debit";

/// The PostgreSQL charge writer: its own connections (one per batch in
/// flight), and the store for the portable algorithm a refused group takes.
pub(in crate::store) struct PgWriter {
    store: SqlStore,
    options: PgConnectOptions,
    idle: std::sync::Mutex<Vec<PgConnection>>,
}

impl PgWriter {
    pub(in crate::store) async fn open(
        store: SqlStore,
        url: &str,
        connections: u32,
    ) -> Result<PgWriter, StoreError> {
        let options =
            PgConnectOptions::from_str(url).map_err(|e| StoreError::Unavailable(redact(&e)))?;
        let writer = PgWriter {
            store,
            options,
            idle: std::sync::Mutex::new(Vec::new()),
        };
        // Connect now, so a server that cannot reach its database says so
        // at start-up rather than at the first charge.
        for _ in 0..connections.max(1) {
            let conn = writer.connect().await?;
            writer.put_back(conn);
        }
        Ok(writer)
    }

    async fn connect(&self) -> Result<PgConnection, StoreError> {
        self.options
            .connect()
            .await
            .map_err(|e| StoreError::Unavailable(redact(&e)))
    }

    fn take(&self) -> Option<PgConnection> {
        self.idle.lock().ok().and_then(|mut idle| idle.pop())
    }

    fn put_back(&self, conn: PgConnection) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
    }

    pub(in crate::store) async fn close(&self) {
        while let Some(conn) = self.take() {
            let _ = conn.close().await;
        }
        self.store.close().await;
    }

    /// As [`DeliveryStore::charge_deliveries`], one statement per paying key.
    /// Never fails as a whole: each group has its own transaction, so an
    /// error is each item's outcome in the groups it stopped. A connection
    /// that returned an error is dropped, and the next batch opens another.
    pub(in crate::store) async fn charge_groups(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        let mut conn = match self.take() {
            Some(conn) => conn,
            None => self.connect().await?,
        };
        let mut healthy = true;
        let mut outcomes: Vec<Option<Result<i64, StoreError>>> =
            (0..batch.len()).map(|_| None).collect();
        let groups = by_payer(&batch);
        let now = now_millis();
        let mut refused = Vec::new();
        for ((account_id, key_id), idxs) in &groups {
            let total: i64 = idxs.iter().map(|&i| batch[i].credits).sum();
            let rows = Columns::of(&batch, idxs, total);
            let written: Result<Option<(i64, i64)>, StoreError> = sqlx::query_as(CHARGE_GROUP)
                .bind(total)
                .bind(*account_id)
                .bind(*key_id)
                .bind(now)
                .bind(&rows.delta)
                .bind(&rows.after)
                .bind(&rows.reference)
                .bind(&rows.variant)
                .bind(&rows.revision)
                .bind(&rows.width)
                .bind(&rows.height)
                .bind(&rows.format)
                .bind(&rows.source)
                .fetch_optional(&mut conn)
                .await
                .map_err(map_err);
            // Groups commit one by one: a failed statement wrote nothing of
            // its group and fails only its group, never one already charged.
            let written = match written {
                Ok(w) => w,
                Err(e) => {
                    healthy = false;
                    for &i in idxs {
                        outcomes[i] = Some(Err(e.duplicate()));
                    }
                    continue;
                }
            };
            match written {
                Some((balance, n)) if n == idxs.len() as i64 => {
                    for (&i, after) in idxs.iter().zip(&rows.after) {
                        outcomes[i] = Some(Ok(balance + after));
                    }
                }
                _ => refused.extend(idxs.iter().copied()),
            }
        }
        if healthy {
            self.put_back(conn);
        }
        if !refused.is_empty() {
            let items: Vec<NewDelivery> = refused.iter().map(|&i| batch[i].clone()).collect();
            match self.store.charge_deliveries(items).await {
                Ok(decided) => {
                    for (&i, outcome) in refused.iter().zip(decided) {
                        outcomes[i] = Some(outcome);
                    }
                }
                Err(e) => {
                    for &i in &refused {
                        outcomes[i] = Some(Err(e.duplicate()));
                    }
                }
            }
        }
        Ok(outcomes
            .into_iter()
            .map(|o| o.unwrap_or(Err(StoreError::Database("no outcome".into()))))
            .collect())
    }
}

/// A group's charge rows as one array per column, the form `unnest` takes.
struct Columns<'a> {
    delta: Vec<i64>,
    after: Vec<i64>,
    reference: Vec<&'a str>,
    variant: Vec<&'a str>,
    revision: Vec<i64>,
    width: Vec<i64>,
    height: Vec<i64>,
    format: Vec<&'a str>,
    source: Vec<&'a str>,
}

impl<'a> Columns<'a> {
    /// The rows of `idxs`, whose credits add up to `total`.
    fn of(batch: &'a [NewDelivery], idxs: &[usize], total: i64) -> Columns<'a> {
        let n = idxs.len();
        let mut rows = Columns {
            delta: Vec::with_capacity(n),
            after: Vec::with_capacity(n),
            reference: Vec::with_capacity(n),
            variant: Vec::with_capacity(n),
            revision: Vec::with_capacity(n),
            width: Vec::with_capacity(n),
            height: Vec::with_capacity(n),
            format: Vec::with_capacity(n),
            source: Vec::with_capacity(n),
        };
        let mut after = total;
        for &i in idxs {
            let d = &batch[i];
            after -= d.credits;
            rows.delta.push(-d.credits);
            rows.after.push(after);
            rows.reference.push(&d.request_id);
            rows.variant.push(&d.variant);
            rows.revision.push(d.revision);
            rows.width.push(d.width);
            rows.height.push(d.height);
            rows.format.push(&d.format);
            rows.source.push(d.source);
        }
        rows
    }
}
