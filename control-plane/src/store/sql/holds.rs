//! Credit holds and the settling of held charges (`HoldStore`), portable SQL
//! on sqlx for both databases. None of this is on a request's path in the
//! common case: a server takes a hold once per many charges and settles its
//! journal in batches (`billing::holds`).
//!
//! Every statement that changes `held` first locks the account row with an
//! UPDATE, so on PostgreSQL a concurrent debit that waits for that row
//! re-reads `balance - held` after the hold commits (a sub-select over
//! `holds` would not be re-read), and on SQLite `BEGIN IMMEDIATE` serialises
//! all writers anyway.

use super::charges::{CHARGE_PREFIX, CHARGE_ROW};
use super::*;

/// Charge rows per INSERT statement: 12 bound values each keeps a statement
/// well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const ROWS_PER_INSERT: usize = 1000;

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
async fn shrink_hold(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    owner: &str,
    account_id: &str,
    credits: i64,
) -> Result<(), StoreError> {
    let shrunk = sqlx::query(
        "UPDATE holds SET amount = amount - $1, updated_at = $2 \
         WHERE owner = $3 AND account_id = $4 AND amount >= $1",
    )
    .bind(credits)
    .bind(now_millis())
    .bind(owner)
    .bind(account_id)
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    if shrunk.rows_affected() != 1 {
        return Err(StoreError::Database(format!(
            "{credits} credits exceed what this server holds on the account"
        )));
    }
    Ok(())
}

#[async_trait]
impl HoldStore for SqlStore {
    async fn take_hold(
        &self,
        owner: &str,
        account_id: &str,
        want: i64,
    ) -> Result<(i64, i64), StoreError> {
        let mut tx = self.begin_write().await?;
        // Lock the row, then read it: nothing can change it until commit.
        let row: Option<(i64, i64)> =
            sqlx::query_as("UPDATE accounts SET held = held WHERE id = $1 RETURNING balance, held")
                .bind(account_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(map_err)?;
        let (balance, held) = row.ok_or(StoreError::NotFound("account"))?;
        let granted = want.min(balance - held).max(0);
        if granted > 0 {
            sqlx::query("UPDATE accounts SET held = held + $1 WHERE id = $2")
                .bind(granted)
                .bind(account_id)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
            sqlx::query(
                "INSERT INTO holds (owner, account_id, amount, updated_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (owner, account_id) DO UPDATE \
                 SET amount = holds.amount + excluded.amount, updated_at = excluded.updated_at",
            )
            .bind(owner)
            .bind(account_id)
            .bind(granted)
            .bind(now_millis())
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)?;
        Ok((granted, balance))
    }

    async fn release_hold(
        &self,
        owner: &str,
        account_id: &str,
        credits: i64,
    ) -> Result<i64, StoreError> {
        let mut tx = self.begin_write().await?;
        let balance: Option<i64> = sqlx::query_scalar(
            "UPDATE accounts SET held = held - $1 WHERE id = $2 RETURNING balance",
        )
        .bind(credits)
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let balance = balance.ok_or(StoreError::NotFound("account"))?;
        shrink_hold(&mut tx, owner, account_id, credits).await?;
        sqlx::query("DELETE FROM holds WHERE owner = $1 AND account_id = $2 AND amount = 0")
            .bind(owner)
            .bind(account_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(balance)
    }

    async fn settle_held(
        &self,
        owner: &str,
        charges: &[HeldCharge],
        through_seq: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let mut tx = self.begin_write().await?;
        let mut balances = Vec::new();
        for (account_id, items) in by_account(charges) {
            let spent: i64 = items.iter().map(|c| c.delivery.credits).sum();
            let balance: Option<i64> = sqlx::query_scalar(
                "UPDATE accounts SET balance = balance - $1, held = held - $1 WHERE id = $2 \
                 RETURNING balance",
            )
            .bind(spent)
            .bind(account_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?;
            let balance = balance.ok_or(StoreError::NotFound("account"))?;
            shrink_hold(&mut tx, owner, account_id, spent).await?;
            // Each row's balance after, in journal order.
            let mut running = balance + spent;
            for chunk in items.chunks(ROWS_PER_INSERT) {
                let mut rows = sqlx::query(sqlx::AssertSqlSafe(multi_row_insert(
                    CHARGE_PREFIX,
                    &CHARGE_ROW,
                    chunk.len(),
                )));
                for c in chunk {
                    let d = &c.delivery;
                    running -= d.credits;
                    rows = rows
                        .bind(d.account_id.clone())
                        .bind(-d.credits)
                        .bind(running)
                        .bind(d.request_id.clone())
                        .bind(c.created_at)
                        .bind(d.key_id.clone())
                        .bind(d.variant.clone())
                        .bind(d.revision)
                        .bind(d.width)
                        .bind(d.height)
                        .bind(d.format.clone())
                        .bind(d.source);
                }
                rows.execute(&mut *tx).await.map_err(map_err)?;
            }
            balances.push((account_id.to_owned(), balance));
        }
        sqlx::query(
            "INSERT INTO journal_marks (owner, seq, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (owner) DO UPDATE SET updated_at = excluded.updated_at, \
             seq = CASE WHEN excluded.seq > journal_marks.seq THEN excluded.seq ELSE journal_marks.seq END",
        )
        .bind(owner)
        .bind(through_seq)
        .bind(now_millis())
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(balances)
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
        let file = self.file.as_ref()?;
        let mut name = file.file_name()?.to_owned();
        name.push(".charges");
        Some(file.with_file_name(name))
    }

    fn key_live_now(&self, key_id: &str) -> Result<bool, StoreError> {
        let Some(reads) = &self.reads else {
            return Err(StoreError::Unavailable(
                "no calling-thread reads here".into(),
            ));
        };
        let revoked: Option<Option<i64>> =
            reads.row(super::charges::KEY_REVOKED_AT, [key_id], |r| r.get(0))?;
        Ok(matches!(revoked, Some(None)))
    }
}
