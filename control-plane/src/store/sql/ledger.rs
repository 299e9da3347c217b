//! `LedgerStore`: reading the ledger's entries (usage over a window is
//! deliveries.rs's `usage_since`). Writes go through
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
}
