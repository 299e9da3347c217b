//! Signed delivery URLs: minting (with its one ledger charge), loading,
//! redeeming a use, and the refund of a failed first load.

use super::*;

macro_rules! url_cols {
    () => {
        "u.id, u.account_id, u.key_id, u.request_id, u.variant, u.shape, u.revision, \
         u.box_width, u.box_height, u.width, u.height, u.format, u.framing, u.max_uses, u.uses, \
         u.expires_at, u.failed_at, u.created_at"
    };
}

/// A URL and whether its minting key is still live: the one read of a
/// load that the replica's URL cache does not answer (`delivery::signed`).
const URL_BY_ID: &str = concat!(
    "SELECT ",
    url_cols!(),
    ", CAST(CASE WHEN k.id IS NULL OR k.revoked_at IS NOT NULL THEN 1 ELSE 0 END AS BIGINT) AS key_revoked \
     FROM delivery_urls u LEFT JOIN api_keys k ON k.id = u.key_id WHERE u.id = $1"
);

#[async_trait]
impl DeliveryUrlStore for SqlStore {
    async fn idempotent_mint(
        &self,
        account_id: &str,
        key: &str,
    ) -> Result<Option<IdempotentMint>, StoreError> {
        let row = sqlx::query(
            "SELECT fingerprint, request_id, balance_after, url_ids, created_at FROM idempotency_keys \
             WHERE account_id = $1 AND idem_key = $2 AND created_at >= $3",
        )
        .bind(account_id)
        .bind(key)
        .bind(now_millis() - IDEMPOTENCY_TTL_MS)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        let Some(row) = row else { return Ok(None) };
        let read = || -> Result<IdempotentMint, sqlx::Error> {
            let ids: String = row.try_get("url_ids")?;
            Ok(IdempotentMint {
                fingerprint: row.try_get("fingerprint")?,
                request_id: row.try_get("request_id")?,
                balance_after: row.try_get("balance_after")?,
                url_ids: ids
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
                created_at: row.try_get("created_at")?,
            })
        };
        read().map(Some).map_err(map_err)
    }

    async fn delivery_url(&self, id: &str) -> Result<Option<DeliveryUrlRecord>, StoreError> {
        let row = sqlx::query(URL_BY_ID)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        row.as_ref()
            .map(DeliveryUrlRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn consume_delivery_url(&self, id: &str) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar(
            "UPDATE delivery_urls SET uses = uses + 1 \
             WHERE id = $1 AND failed_at IS NULL AND (max_uses = 0 OR uses < max_uses) \
             AND EXISTS (SELECT 1 FROM api_keys WHERE id = delivery_urls.key_id AND revoked_at IS NULL) \
             RETURNING uses",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn mark_delivery_url_errored(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE delivery_urls SET errored_at = $1 \
             WHERE id = $2 AND errored_at IS NULL AND uses = 0 AND failed_at IS NULL",
        )
        .bind(now_millis())
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn expired_errored_urls(
        &self,
        now: Millis,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        // The predicate is the partial index's (migration 23), so only URLs
        // that errored and were never served are read.
        sqlx::query_scalar(
            "SELECT id FROM delivery_urls \
             WHERE errored_at IS NOT NULL AND failed_at IS NULL AND uses = 0 AND expires_at <= $1 \
             ORDER BY expires_at LIMIT $2",
        )
        .bind(now)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn setting_or_insert(&self, name: &str, value: &str) -> Result<String, StoreError> {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(value)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await
            .map_err(map_err)
    }
}

/// An account's newest signed delivery URLs (the dashboard).
pub(super) async fn urls_of_account(
    store: &SqlStore,
    account_id: &str,
    limit: i64,
) -> Result<Vec<DeliveryUrlRecord>, StoreError> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        url_cols!(),
        ", CAST(CASE WHEN k.id IS NULL OR k.revoked_at IS NOT NULL THEN 1 ELSE 0 END AS BIGINT) AS key_revoked \
         FROM delivery_urls u LEFT JOIN api_keys k ON k.id = u.key_id \
         WHERE u.account_id = $1 ORDER BY u.created_at DESC, u.id DESC LIMIT $2"
    ))
    .bind(account_id)
    .bind(limit)
    .fetch_all(&store.pool)
    .await
    .map_err(map_err)?;
    rows.iter()
        .map(DeliveryUrlRecord::from_row)
        .collect::<Result<_, _>>()
        .map_err(map_err)
}

/// Credit-moving writes: reached only through `CreditStore` (credits.rs).
impl SqlStore {
    pub(super) async fn sql_mint_delivery_urls(
        &self,
        payer: Payer<'_>,
        urls: &[NewDeliveryUrl],
        idempotency: Option<IdempotencyClaim<'_>>,
    ) -> Result<i64, StoreError> {
        let n = i64::try_from(urls.len()).unwrap_or(i64::MAX);
        if n == 0 {
            return Err(StoreError::Database("nothing to mint".into()));
        }
        let mut tx = self.begin_write().await?;
        // The key first: a concurrent mint with the same key waits here
        // (PostgreSQL) or behind the write lock (SQLite), then finds it taken
        // and charges nothing.
        if let Some(claim) = idempotency {
            let now = now_millis();
            sqlx::query("DELETE FROM idempotency_keys WHERE account_id = $1 AND created_at < $2")
                .bind(payer.account_id)
                .bind(now - IDEMPOTENCY_TTL_MS)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
            let ids: Vec<&str> = urls.iter().map(|u| u.id.as_str()).collect();
            let inserted = sqlx::query(
                "INSERT INTO idempotency_keys \
                 (account_id, idem_key, fingerprint, request_id, balance_after, url_ids, created_at) \
                 VALUES ($1, $2, $3, $4, 0, $5, $6) ON CONFLICT DO NOTHING",
            )
            .bind(payer.account_id)
            .bind(claim.key)
            .bind(claim.fingerprint)
            .bind(payer.request_id)
            .bind(ids.join(","))
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
            if inserted.rows_affected() == 0 {
                return Err(StoreError::Conflict("idempotency key"));
            }
        }
        // One conditional debit decides both "the key is live" and "the
        // balance covers every URL" (the same shape as a delivery charge).
        let balance_after: Option<i64> = sqlx::query_scalar(super::charges::DEBIT_GROUP)
            .bind(n)
            .bind(payer.account_id)
            .bind(Some(payer.key_id))
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?;
        let Some(balance_after) = balance_after else {
            let revoked: Option<Option<i64>> =
                sqlx::query_scalar("SELECT revoked_at FROM api_keys WHERE id = $1")
                    .bind(payer.key_id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(map_err)?;
            if !matches!(revoked, Some(None)) {
                return Err(StoreError::KeyRevoked);
            }
            let current: Option<(i64, i64, i64)> =
                sqlx::query_as("SELECT balance, owed, disputes FROM accounts WHERE id = $1")
                    .bind(payer.account_id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(map_err)?;
            return Err(match current {
                Some((balance, owed, disputes)) => {
                    super::charges::refusal(owed, disputes, balance, n)
                }
                None => StoreError::NotFound("account"),
            });
        };
        let reason = if n == 1 {
            "signed delivery URL".to_owned()
        } else {
            format!("{n} signed delivery URLs")
        };
        let entry = NewEntry {
            kind: EntryKind::Charge,
            delta: -n,
            reason: &reason,
            reference: Some(payer.request_id),
        };
        insert_ledger(&mut tx, payer.account_id, &entry, balance_after).await?;
        if let Some(claim) = idempotency {
            sqlx::query(
                "UPDATE idempotency_keys SET balance_after = $1 WHERE account_id = $2 AND idem_key = $3",
            )
            .bind(balance_after)
            .bind(payer.account_id)
            .bind(claim.key)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        let now = now_millis();
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(multi_row_insert(
            "INSERT INTO delivery_urls (id, account_id, key_id, request_id, variant, shape, revision, \
             box_width, box_height, width, height, format, framing, max_uses, uses, expires_at, created_at) VALUES ",
            &[
                "$", "$", "$", "$", "$", "$", "$", "$", "$", "$", "$", "$", "$", "$", "0", "$", "$",
            ],
            urls.len(),
        )));
        for u in urls {
            insert = insert
                .bind(u.id.clone())
                .bind(payer.account_id.to_owned())
                .bind(payer.key_id.to_owned())
                .bind(payer.request_id.to_owned())
                .bind(u.variant.clone())
                .bind(u.shape.clone())
                .bind(u.revision)
                .bind(u.box_width)
                .bind(u.box_height)
                .bind(u.width)
                .bind(u.height)
                .bind(u.format.clone())
                .bind(u.framing.clone())
                .bind(u.max_uses)
                .bind(u.expires_at)
                .bind(now);
        }
        insert.execute(&mut *tx).await.map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(balance_after)
    }

    pub(super) async fn sql_fail_delivery_url(
        &self,
        id: &str,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        let mut tx = self.begin_write().await?;
        let account_id: Option<String> = sqlx::query_scalar(
            "UPDATE delivery_urls SET failed_at = $1 \
             WHERE id = $2 AND failed_at IS NULL AND uses = 0 RETURNING account_id",
        )
        .bind(now_millis())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(account_id) = account_id else {
            return Ok(None);
        };
        let balance_after = move_balance(&mut tx, &account_id, 1).await?;
        let entry = NewEntry {
            kind: EntryKind::Refund,
            delta: 1,
            reason,
            reference: Some(id),
        };
        insert_ledger(&mut tx, &account_id, &entry, balance_after).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(Some(balance_after))
    }
}
