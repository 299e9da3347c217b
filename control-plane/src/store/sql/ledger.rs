//! `LedgerStore`: reading the ledger (entries and sums). Writes go through
//! `CreditStore` (credits.rs), the adapter behind `billing::Ledger`.

use super::*;

#[async_trait]
impl LedgerStore for SqlStore {
    async fn entries(&self, account_id: &str, limit: i64) -> Result<Vec<LedgerEntry>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            entry_cols!(),
            " FROM ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2"
        ))
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(LedgerEntry::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn sum_since(
        &self,
        account_id: &str,
        kind: EntryKind,
        since: Millis,
    ) -> Result<i64, StoreError> {
        // CAST keeps the sum an integer in both dialects (PostgreSQL widens
        // SUM(bigint) to numeric).
        sqlx::query_scalar(
            "SELECT CAST(COALESCE(SUM(delta), 0) AS BIGINT) FROM ledger \
             WHERE account_id = $1 AND kind = $2 AND created_at >= $3",
        )
        .bind(account_id)
        .bind(kind.as_str())
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)
    }
}
