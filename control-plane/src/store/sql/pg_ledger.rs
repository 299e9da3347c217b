//! The ledger writer's shortcut on PostgreSQL: a whole batch of charges in
//! one statement (one round trip, one commit), where the portable algorithm
//! (`charges.rs`) needs a round trip per statement (`BEGIN`, a debit per
//! paying key, the rows, `COMMIT`). A data-modifying `WITH` runs the same
//! conditional debit as `charges::DEBIT_GROUP` for every paying key and
//! inserts rows only for the groups it debited, so whether credits suffice
//! is still decided by that one conditional write. A group the debit
//! refuses (the account cannot pay for all of it, or the key is revoked)
//! goes through the portable algorithm, which decides the prefix and the
//! outcomes. Sealed behind `ChargeWriter::charge_deliveries` (`open_charge_writer`); measured in
//! docs/benchmarks.md ("One ledger", "Session 14").
//!
//! The writer owns its connections instead of borrowing them from a sqlx
//! pool: a pool pings the server when it hands a connection out and again
//! when it takes it back, so each batch cost three round trips instead of
//! one (measured: docs/benchmarks.md, "Session 14").

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};

use super::charges::{PayingKey, by_payer};
use super::*;

/// A batch's groups (one per paying key, at most one per account) in one
/// statement. `$1`-`$3` the groups: account, key, credits. `$4` the time.
/// `$5`... the rows, one array per column: the group's position in `$1`
/// (1-based), then the charge. `after` is the credits of the rows after
/// each one in its group, so a row's balance after is its group's balance
/// after plus that. `locked` takes the accounts' row locks in id order, so
/// two writers (replicas, or batches in flight) that charge the same
/// accounts queue instead of deadlocking. Each group's debit is the same
/// conditional write as `charges::DEBIT_GROUP`; rows are inserted only for
/// the groups it debited, with the account id of the debited row. Returns
/// one row per debited group: its position and balance after.
const CHARGE_GROUPS: &str = "WITH g AS ( \
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY \
         AS g(account, key, total, gn)), \
     locked AS MATERIALIZED ( \
       SELECT id FROM accounts WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE), \
     debit AS ( \
       UPDATE accounts a SET balance = a.balance - g.total \
       FROM g LEFT JOIN api_keys k ON k.id = g.key \
       WHERE a.id = ANY($1::text[]) AND a.id = g.account AND a.balance >= g.total \
       AND EXISTS (SELECT 1 FROM locked) \
       AND (g.key IS NULL OR (a.held = 0 AND k.id IS NOT NULL AND k.account_id = g.account AND k.revoked_at IS NULL)) \
       RETURNING g.gn, a.id, g.key, a.balance), \
     charged AS ( \
       INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
         key_id, variant, revision, width, height, format, source) \
       SELECT d.id, 'charge', r.delta, d.balance + r.after, 'image delivery', r.reference, $4, \
         d.key, r.variant, r.revision, r.width, r.height, r.format, r.source \
       FROM unnest($5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], \
         $11::bigint[], $12::bigint[], $13::text[], $14::text[]) WITH ORDINALITY \
         AS r(gn, delta, after, reference, variant, revision, width, height, format, source, n) \
       JOIN debit d ON d.gn = r.gn \
       ORDER BY r.n) \
     SELECT gn, balance FROM debit";

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
        // The statement's shape never depends on its values, and a custom
        // plan for each batch's arrays doubled the database's work per batch
        // (docs/benchmarks.md, "Session 14"): one generic plan serves all.
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(redact(&e)))?
            .options([
                ("plan_cache_mode", "force_generic_plan"),
                ("enable_seqscan", "off"),
            ]);
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

    /// As [`CreditStore::charge_deliveries`]: the batch's groups in one
    /// statement and one commit ([`CHARGE_GROUPS`]); when one account pays
    /// with several keys in a batch, its later groups go in a second
    /// statement. A group the debit refuses goes through the portable
    /// algorithm. A statement that fails writes nothing and fails its
    /// groups. A connection that returned an error is dropped, and the next
    /// batch opens another.
    async fn charge_groups(
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
        let now = now_millis();
        let mut refused = Vec::new();
        for round in rounds(by_payer(&batch)) {
            let statement = Statement::of(&batch, &round);
            let written: Result<Vec<(i64, i64)>, StoreError> = sqlx::query_as(CHARGE_GROUPS)
                .bind(&statement.accounts)
                .bind(&statement.keys)
                .bind(&statement.totals)
                .bind(now)
                .bind(&statement.rows.group)
                .bind(&statement.rows.delta)
                .bind(&statement.rows.after)
                .bind(&statement.rows.reference)
                .bind(&statement.rows.variant)
                .bind(&statement.rows.revision)
                .bind(&statement.rows.width)
                .bind(&statement.rows.height)
                .bind(&statement.rows.format)
                .bind(&statement.rows.source)
                .fetch_all(&mut conn)
                .await
                .map_err(map_err);
            let written = match written {
                Ok(w) => w,
                Err(e) => {
                    healthy = false;
                    for (_, idxs) in &round {
                        for &i in idxs {
                            outcomes[i] = Some(Err(e.duplicate()));
                        }
                    }
                    continue;
                }
            };
            // Positions are 1-based; a group missing from the result was
            // refused and wrote nothing.
            let mut debited: Vec<Option<i64>> = vec![None; round.len()];
            for &(gn, balance) in &written {
                if let Some(slot) = usize::try_from(gn - 1)
                    .ok()
                    .and_then(|g| debited.get_mut(g))
                {
                    *slot = Some(balance);
                }
            }
            let mut row = 0;
            for ((_, idxs), balance) in round.iter().zip(debited) {
                match balance {
                    Some(balance) => {
                        for &i in idxs {
                            outcomes[i] = Some(Ok(balance + statement.rows.after[row]));
                            row += 1;
                        }
                    }
                    None => {
                        row += idxs.len();
                        refused.extend(idxs.iter().copied());
                    }
                }
            }
        }
        if healthy {
            self.put_back(conn);
        }
        if !refused.is_empty() {
            let items: Vec<NewDelivery> = refused.iter().map(|&i| batch[i].clone()).collect();
            match self.store.sql_charge_deliveries(items).await {
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

/// A batch's groups split so that each statement debits an account once:
/// an account paying with several keys has its later groups in later rounds.
fn rounds(groups: Vec<(PayingKey<'_>, Vec<usize>)>) -> Vec<Vec<(PayingKey<'_>, Vec<usize>)>> {
    let mut rounds: Vec<Vec<(PayingKey<'_>, Vec<usize>)>> = Vec::new();
    for group in groups {
        let account = group.0.0;
        match rounds
            .iter_mut()
            .find(|round| round.iter().all(|((a, _), _)| *a != account))
        {
            Some(round) => round.push(group),
            None => rounds.push(vec![group]),
        }
    }
    rounds
}

#[async_trait::async_trait]
impl super::ChargeWriter for PgWriter {
    async fn charge_deliveries(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        self.charge_groups(batch).await
    }

    async fn close(&self) {
        while let Some(conn) = self.take() {
            let _ = conn.close().await;
        }
        self.store.close().await;
    }
}

/// The bound values of one [`CHARGE_GROUPS`] statement.
struct Statement<'a> {
    accounts: Vec<&'a str>,
    keys: Vec<Option<&'a str>>,
    totals: Vec<i64>,
    rows: Columns<'a>,
}

/// The rows as one array per column, the form `unnest` takes, in the order
/// of the groups and of each group's positions.
struct Columns<'a> {
    group: Vec<i64>,
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

impl<'a> Statement<'a> {
    fn of(batch: &'a [NewDelivery], round: &[(PayingKey<'a>, Vec<usize>)]) -> Statement<'a> {
        let n: usize = round.iter().map(|(_, idxs)| idxs.len()).sum();
        let mut s = Statement {
            accounts: Vec::with_capacity(round.len()),
            keys: Vec::with_capacity(round.len()),
            totals: Vec::with_capacity(round.len()),
            rows: Columns {
                group: Vec::with_capacity(n),
                delta: Vec::with_capacity(n),
                after: Vec::with_capacity(n),
                reference: Vec::with_capacity(n),
                variant: Vec::with_capacity(n),
                revision: Vec::with_capacity(n),
                width: Vec::with_capacity(n),
                height: Vec::with_capacity(n),
                format: Vec::with_capacity(n),
                source: Vec::with_capacity(n),
            },
        };
        for (position, ((account, key), idxs)) in (1i64..).zip(round) {
            let total: i64 = idxs.iter().map(|&i| batch[i].credits).sum();
            s.accounts.push(account);
            s.keys.push(*key);
            s.totals.push(total);
            let mut after = total;
            let rows = &mut s.rows;
            for &i in idxs {
                let d = &batch[i];
                after -= d.credits;
                rows.group.push(position);
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
        }
        s
    }
}
