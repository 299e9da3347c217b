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

/// Debits a group when the key (if any) is live and the balance covers it;
/// returns the balance after. `$1` credits, `$2` account, `$3` key id.
const DEBIT_GROUP: &str = "UPDATE accounts SET balance = balance - $1 \
     WHERE id = $2 AND balance >= $1 \
     AND ($3 IS NULL OR EXISTS (SELECT 1 FROM api_keys WHERE id = $3 AND revoked_at IS NULL)) \
     RETURNING balance";
const KEY_REVOKED_AT: &str = "SELECT revoked_at FROM api_keys WHERE id = $1";
const BALANCE: &str = "SELECT balance FROM accounts WHERE id = $1";
/// A delivery charge is one ledger row that records what it paid for.
const CHARGE_PREFIX: &str = "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, \
     key_id, variant, revision, width, height, format, source) VALUES ";
/// One charge row: account, delta, balance after, request id, time, then
/// the key and what was delivered.
const CHARGE_ROW: [&str; 14] = [
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
/// Guesses of how many charges of a group fit, before the group is refused.
const PREFIX_ATTEMPTS: usize = 3;

/// An account and the key it pays with.
type PayingKey<'a> = (&'a str, Option<&'a str>);

type Tx = sqlx::Transaction<'static, sqlx::Any>;

/// Charges a batch in `tx`. Each item gets its own outcome (an
/// InsufficientCredits, KeyRevoked or NotFound item writes nothing); an Err
/// means the transaction must be abandoned and nothing was charged.
pub(super) async fn charge_batch(
    tx: &mut Tx,
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
        let credits = |n: usize| idxs[..n].iter().map(|&i| batch[i].credits).sum::<i64>();
        // The common case costs this one statement.
        let mut charged = debit(tx, account_id, *key_id, credits(idxs.len()))
            .await?
            .map(|after| (idxs.len(), after));
        if charged.is_none()
            && let Some(key_id) = key_id
            && !key_live(tx, key_id).await?
        {
            for &i in idxs {
                outcomes[i] = Some(Err(StoreError::KeyRevoked));
            }
            continue;
        }
        // The longest prefix the balance covers.
        let mut balance = None;
        for _ in 0..PREFIX_ATTEMPTS {
            if charged.is_some() {
                break;
            }
            let Some(current) = read_balance(tx, account_id).await? else {
                break;
            };
            balance = Some(current);
            let fits = (0..=idxs.len())
                .take_while(|&n| credits(n) <= current)
                .last()
                .unwrap_or(0);
            if fits == 0 {
                break;
            }
            charged = debit(tx, account_id, *key_id, credits(fits))
                .await?
                .map(|after| (fits, after));
        }
        let Some(balance) = balance.or(charged.map(|(_, after)| after)) else {
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
        for &i in &idxs[granted..] {
            outcomes[i] = Some(Err(StoreError::InsufficientCredits {
                balance: balance_after,
                required: batch[i].credits,
            }));
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
    insert_charge_rows(tx, &rows).await?;
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Err(StoreError::Database("no outcome".into()))))
        .collect())
}

/// [`DEBIT_GROUP`]: the balance after, or None when refused.
async fn debit(
    tx: &mut Tx,
    account_id: &str,
    key_id: Option<&str>,
    credits: i64,
) -> Result<Option<i64>, StoreError> {
    sqlx::query_scalar(DEBIT_GROUP)
        .bind(credits)
        .bind(account_id)
        .bind(key_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(map_err)
}

/// Whether the key exists and is not revoked.
async fn key_live(tx: &mut Tx, key_id: &str) -> Result<bool, StoreError> {
    let revoked: Option<Option<i64>> = sqlx::query_scalar(KEY_REVOKED_AT)
        .bind(key_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(map_err)?;
    Ok(matches!(revoked, Some(None)))
}

async fn read_balance(tx: &mut Tx, account_id: &str) -> Result<Option<i64>, StoreError> {
    sqlx::query_scalar(BALANCE)
        .bind(account_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(map_err)
}

/// One delivery charge row: the delivery, its time, the balance after it.
type ChargeRow<'a> = (&'a NewDelivery, Millis, i64);

/// Charge rows per INSERT: 12 bound values each keeps a statement well
/// under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const ROWS_PER_INSERT: usize = 1000;

/// Writes delivery charge rows ([`CHARGE_ROW`]) in order, in multi-row
/// statements.
async fn insert_charge_rows(tx: &mut Tx, rows: &[ChargeRow<'_>]) -> Result<(), StoreError> {
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
