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

use sqlx::AnyConnection;
use sqlx::{ConnectOptions, Connection};

use super::charges::{ChargeRow, by_payer, rows_json};
use super::*;

/// `$1` credits, `$2` account, `$3` key id, `$4` the rows, each with `b` =
/// the credits of the rows after it in the group (its balance after is the
/// group's balance after plus that).
const CHARGE_GROUP: &str = "WITH debit AS ( \
       UPDATE accounts SET balance = balance - $1 \
       WHERE id = $2 AND balance >= $1 \
       AND ($3 IS NULL OR EXISTS (SELECT 1 FROM api_keys WHERE id = $3 AND revoked_at IS NULL)) \
       RETURNING balance) \
     INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
       key_id, variant, revision, width, height, format, source) \
     SELECT value ->> 'a', 'charge', CAST(value ->> 'd' AS BIGINT), debit.balance + CAST(value ->> 'b' AS BIGINT), \
       'image delivery', value ->> 'r', CAST(value ->> 't' AS BIGINT), value ->> 'k', value ->> 'v', \
       CAST(value ->> 'rv' AS BIGINT), CAST(value ->> 'w' AS BIGINT), CAST(value ->> 'h' AS BIGINT), \
       value ->> 'f', value ->> 's' \
     FROM debit, jsonb_each(jsonb($4)) ORDER BY CAST(key AS BIGINT) \
     RETURNING balance_after";

/// The PostgreSQL charge writer: its own connections (one per batch in
/// flight), and the store for the portable algorithm a refused group takes.
pub(in crate::store) struct PgWriter {
    store: SqlStore,
    options: AnyConnectOptions,
    idle: std::sync::Mutex<Vec<AnyConnection>>,
}

impl PgWriter {
    pub(in crate::store) async fn open(
        store: SqlStore,
        url: &str,
        connections: u32,
    ) -> Result<PgWriter, StoreError> {
        let options =
            AnyConnectOptions::from_str(url).map_err(|e| StoreError::Unavailable(redact(&e)))?;
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

    async fn connect(&self) -> Result<AnyConnection, StoreError> {
        self.options
            .connect()
            .await
            .map_err(|e| StoreError::Unavailable(redact(&e)))
    }

    fn take(&self) -> Option<AnyConnection> {
        self.idle.lock().ok().and_then(|mut idle| idle.pop())
    }

    fn put_back(&self, conn: AnyConnection) {
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
            let mut after = total;
            let rows: Vec<ChargeRow<'_>> = idxs
                .iter()
                .map(|&i| {
                    after -= batch[i].credits;
                    (&batch[i], now, after)
                })
                .collect();
            let written: Result<Vec<i64>, StoreError> = sqlx::query_scalar(CHARGE_GROUP)
                .bind(total)
                .bind(*account_id)
                .bind(*key_id)
                .bind(rows_json(&rows))
                .fetch_all(&mut conn)
                .await
                .map_err(map_err);
            // Groups commit one by one: a failed statement wrote nothing of
            // its group and fails only its group, never one already charged.
            let mut written = match written {
                Ok(w) => w,
                Err(e) => {
                    healthy = false;
                    for &i in idxs {
                        outcomes[i] = Some(Err(e.duplicate()));
                    }
                    continue;
                }
            };
            if written.len() == idxs.len() {
                // Each row's balance after is below the one before it.
                written.sort_unstable_by(|a, b| b.cmp(a));
                for (&i, balance_after) in idxs.iter().zip(written) {
                    outcomes[i] = Some(Ok(balance_after));
                }
            } else {
                refused.extend(idxs.iter().copied());
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
