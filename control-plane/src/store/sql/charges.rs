//! Group-committed delivery charges: the one algorithm and SQL text behind
//! `billing::Ledger::charge`, on both databases.
//!
//! [`charge_batch`] decides, for a batch of deliveries, which are charged and
//! at what balance, with a constant number of statements in the common case:
//! one conditional debit per paying key (which also re-checks that the key is
//! live), then the charge rows, each of which is also a delivery record.
//! Whether credits suffice is decided by the conditional debit, never by a
//! read followed by a write: when an account cannot pay for its whole group,
//! a read of its balance only *guesses* how many fit, and the conditional
//! debit of that many decides (a guess beaten by a concurrent writer is
//! refused and made again).

use super::*;

/// The one conditional debit (docs/ledger.md, "The rules"): moves an
/// account's balance by minus `$1` when the key `$3` (if any) is a live key
/// of that account and the balance covers it; returns the balance after.
/// `$1` credits, `$2` account, `$3` key id. Every write of a balance uses
/// it: image charges, URL mints, and (with a negative `$1` and no key)
/// grants, purchases, adjustments and refunds, where `balance >= $1` keeps
/// a debit from going below zero, and (with a positive `$1` and no key) the
/// credits a refund takes back and the owed credits a purchase settles. A
/// debit paid with a key (an image charge, a URL mint: buying renders) is
/// also refused while the account is `held` (migration 23: it owes credits
/// after a refund, or a payment of it is disputed; docs/billing.md, "After
/// the sale"): one column of the row the statement already finds by its
/// primary key and updates. The PostgreSQL batch statement (`pg_ledger.rs`)
/// is the same condition over many groups at once.
pub(super) const DEBIT_GROUP: &str = "UPDATE accounts SET balance = balance - $1 \
     WHERE id = $2 AND balance >= $1 \
     AND ($3 IS NULL OR (held = 0 AND EXISTS (SELECT 1 FROM api_keys WHERE id = $3 AND account_id = $2 AND revoked_at IS NULL))) \
     RETURNING balance";
pub(super) const KEY_REVOKED_AT: &str = "SELECT revoked_at FROM api_keys WHERE id = $1";
/// Read only when a group's debit was refused: the balance (to guess the
/// longest prefix that fits) and the account's standing (to say why).
pub(super) const BALANCE: &str = "SELECT balance, owed, disputes FROM accounts WHERE id = $1";

/// What [`BALANCE`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Funds {
    pub balance: i64,
    pub owed: i64,
    pub disputes: i64,
}

impl Funds {
    /// What a keyed debit could take: nothing while the account is held.
    fn spendable(&self) -> i64 {
        if self.owed > 0 || self.disputes > 0 {
            0
        } else {
            self.balance
        }
    }
}

/// The refusal of a keyed debit: the account's freeze or hold when it has
/// one, else insufficient credits.
pub(super) fn refusal(owed: i64, disputes: i64, balance: i64, required: i64) -> StoreError {
    if disputes > 0 {
        StoreError::AccountFrozen
    } else if owed > 0 {
        StoreError::AccountHeld { owed }
    } else {
        StoreError::InsufficientCredits { balance, required }
    }
}
/// A batch's charge rows, in one statement with one bound value: a JSON
/// object of the rows by their position (`{"0": {...}, "1": {...}}`), which
/// both databases expand with `jsonb_each(jsonb($1))` (SQLite's binary JSON
/// functions, and PostgreSQL's function-style cast of text to `jsonb`): each
/// row is parsed once, not once per column. One prepared statement serves
/// every batch size, and a row costs no bound values of its own (measured
/// against `json_each`: 35% less per 128-row batch on SQLite, 20% on
/// PostgreSQL; docs/benchmarks.md). A delivery charge is one ledger row that
/// records what it paid for.
pub(super) const INSERT_CHARGES: &str = "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
     key_id, variant, revision, width, height, format, source) \
     SELECT value ->> 'a', 'charge', CAST(value ->> 'd' AS BIGINT), CAST(value ->> 'b' AS BIGINT), \
     'image delivery', value ->> 'r', CAST(value ->> 't' AS BIGINT), value ->> 'k', value ->> 'v', \
     CAST(value ->> 'rv' AS BIGINT), CAST(value ->> 'w' AS BIGINT), CAST(value ->> 'h' AS BIGINT), \
     value ->> 'f', value ->> 's' \
     FROM jsonb_each(jsonb($1)) ORDER BY CAST(key AS BIGINT)";
/// Guesses of how many charges of a group fit, before the group is refused.
const PREFIX_ATTEMPTS: usize = 3;

/// An account and the key it pays with.
pub(super) type PayingKey<'a> = (&'a str, Option<&'a str>);

/// The batch's positions grouped by paying key, in order of first appearance.
pub(super) fn by_payer(batch: &[NewDelivery]) -> Vec<(PayingKey<'_>, Vec<usize>)> {
    let mut groups: Vec<(PayingKey<'_>, Vec<usize>)> = Vec::new();
    for (i, d) in batch.iter().enumerate() {
        let payer = (d.account_id.as_str(), d.key_id.as_deref());
        match groups.iter_mut().find(|(p, _)| *p == payer) {
            Some((_, idxs)) => idxs.push(i),
            None => groups.push((payer, vec![i])),
        }
    }
    groups
}

/// The four statements a charge batch runs, inside one write transaction
/// that the caller owns: on a sqlx transaction (both databases), and on the
/// ledger writer's own rusqlite connection on a SQLite file
/// (`sql/sqlite_ledger.rs`). Both run the same statement texts.
pub(super) trait ChargeTx {
    /// [`DEBIT_GROUP`]: the balance after, or None when refused.
    async fn debit(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError>;
    /// Whether the key exists and is not revoked.
    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError>;
    /// [`BALANCE`].
    async fn read_balance(&mut self, account_id: &str) -> Result<Option<Funds>, StoreError>;
    /// [`INSERT_CHARGES`] with its one bound value.
    async fn insert_rows(&mut self, rows: String) -> Result<(), StoreError>;
}

/// Charges a batch in `tx`. Each item gets its own outcome (an
/// InsufficientCredits, KeyRevoked or NotFound item writes nothing); an Err
/// means the transaction must be abandoned and nothing was charged.
pub(super) async fn charge_batch<T: ChargeTx>(
    tx: &mut T,
    batch: &[NewDelivery],
) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
    let mut outcomes: Vec<Option<Result<i64, StoreError>>> =
        (0..batch.len()).map(|_| None).collect();
    // Grouped by paying key: the charge re-checks, in this transaction, that
    // the key is live, so a revoked key is never billed even when the caller
    // authenticated it from a cache.
    for ((account_id, key_id), idxs) in &by_payer(batch) {
        let credits = |n: usize| idxs[..n].iter().map(|&i| batch[i].credits).sum::<i64>();
        // The common case costs this one statement.
        let mut charged = tx
            .debit(account_id, *key_id, credits(idxs.len()))
            .await?
            .map(|after| (idxs.len(), after));
        if charged.is_none()
            && let Some(key_id) = key_id
            && !tx.key_live(key_id).await?
        {
            for &i in idxs {
                outcomes[i] = Some(Err(StoreError::KeyRevoked));
            }
            continue;
        }
        // The longest prefix the balance covers.
        let mut funds = None;
        for _ in 0..PREFIX_ATTEMPTS {
            if charged.is_some() {
                break;
            }
            let Some(current) = tx.read_balance(account_id).await? else {
                break;
            };
            funds = Some(current);
            let fits = (0..=idxs.len())
                .take_while(|&n| credits(n) <= current.spendable())
                .last()
                .unwrap_or(0);
            if fits == 0 {
                break;
            }
            charged = tx
                .debit(account_id, *key_id, credits(fits))
                .await?
                .map(|after| (fits, after));
        }
        let Some(balance) = funds.map(|f| f.balance).or(charged.map(|(_, after)| after)) else {
            for &i in idxs {
                outcomes[i] = Some(Err(StoreError::NotFound("account")));
            }
            continue;
        };
        let (granted, balance_after) = charged.unwrap_or((0, balance));
        let mut running = balance_after + credits(granted);
        for &i in &idxs[..granted] {
            running -= batch[i].credits;
            outcomes[i] = Some(Ok(running));
        }
        // A refused group read its standing with its balance: no statement
        // more. (A key-less group is never held: owed and disputes count
        // only for keyed debits.)
        let (owed, disputes) = match (funds, key_id) {
            (Some(f), Some(_)) => (f.owed, f.disputes),
            _ => (0, 0),
        };
        for &i in &idxs[granted..] {
            outcomes[i] = Some(Err(refusal(
                owed,
                disputes,
                balance_after,
                batch[i].credits,
            )));
        }
    }
    let now = now_millis();
    let rows: Vec<ChargeRow<'_>> = outcomes
        .iter()
        .zip(batch)
        .filter_map(|(o, d)| match o {
            Some(Ok(b)) => Some((d, now, *b)),
            _ => None,
        })
        .collect();
    if !rows.is_empty() {
        tx.insert_rows(rows_json(&rows)).await?;
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Err(StoreError::Database("no outcome".into()))))
        .collect())
}

impl ChargeTx for sqlx::Transaction<'_, sqlx::Any> {
    async fn debit(
        &mut self,
        account_id: &str,
        key_id: Option<&str>,
        credits: i64,
    ) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar(DEBIT_GROUP)
            .bind(credits)
            .bind(account_id)
            .bind(key_id)
            .fetch_optional(&mut **self)
            .await
            .map_err(map_err)
    }

    async fn key_live(&mut self, key_id: &str) -> Result<bool, StoreError> {
        let revoked: Option<Option<i64>> = sqlx::query_scalar(KEY_REVOKED_AT)
            .bind(key_id)
            .fetch_optional(&mut **self)
            .await
            .map_err(map_err)?;
        Ok(matches!(revoked, Some(None)))
    }

    async fn read_balance(&mut self, account_id: &str) -> Result<Option<Funds>, StoreError> {
        let row: Option<(i64, i64, i64)> = sqlx::query_as(BALANCE)
            .bind(account_id)
            .fetch_optional(&mut **self)
            .await
            .map_err(map_err)?;
        Ok(row.map(|(balance, owed, disputes)| Funds {
            balance,
            owed,
            disputes,
        }))
    }

    async fn insert_rows(&mut self, rows: String) -> Result<(), StoreError> {
        sqlx::query(INSERT_CHARGES)
            .bind(rows)
            .execute(&mut **self)
            .await
            .map_err(map_err)?;
        Ok(())
    }
}

/// One delivery charge row: the delivery, its time, the balance after it.
pub(super) type ChargeRow<'a> = (&'a NewDelivery, Millis, i64);

/// The bound value of [`INSERT_CHARGES`]: the rows by position.
pub(super) fn rows_json(rows: &[ChargeRow<'_>]) -> String {
    let mut doc = serde_json::Map::with_capacity(rows.len());
    for (i, &(d, at, balance_after)) in rows.iter().enumerate() {
        doc.insert(
            i.to_string(),
            serde_json::json!({
                "a": d.account_id,
                "d": -d.credits,
                "b": balance_after,
                "r": d.request_id,
                "t": at,
                "k": d.key_id,
                "v": d.variant,
                "rv": d.revision,
                "w": d.width,
                "h": d.height,
                "f": d.format,
                "s": d.source,
            }),
        );
    }
    serde_json::Value::Object(doc).to_string()
}
