//! Accounts, API keys and partner signing keys: `AccountStore`, `KeyStore`
//! and `PartnerStore`. The rows' shared writers (`insert_account`,
//! `insert_key`) sit in sql.rs beside the grants that use them.

use super::*;

#[async_trait]
impl AccountStore for SqlStore {
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            account_cols!(),
            " FROM accounts WHERE email = $1"
        ))
        .bind(email)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Account::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            account_cols!(),
            " FROM accounts WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Account::from_row)
            .transpose()
            .map_err(map_err)
    }
}

#[async_trait]
impl KeyStore for SqlStore {
    async fn create_key(&self, key: NewKey) -> Result<KeyRecord, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(map_err)?;
        insert_key(&mut conn, &new_id(), &key).await
    }

    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            ", key_hash, ",
            key_disputes!(),
            " FROM api_keys WHERE key_hash = $1"
        ))
        .bind(key_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        let Some(row) = row else { return Ok(None) };
        // The index lookup found it; compare again in constant time so the
        // decision itself leaks nothing about how much of the hash matched.
        let stored: String = row.try_get("key_hash").map_err(map_err)?;
        if !crate::auth::hashes_equal(&stored, key_hash) {
            return Ok(None);
        }
        KeyRecord::from_row(&row).map(Some).map_err(map_err)
    }

    async fn key_by_id(&self, id: &str) -> Result<Option<KeyRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            ", ",
            key_disputes!(),
            " FROM api_keys WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(KeyRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn keys_of_account(&self, account_id: &str) -> Result<Vec<KeyRecord>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            " FROM api_keys WHERE account_id = $1 ORDER BY created_at, id"
        ))
        .bind(account_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(KeyRecord::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn record_key_use(&self, id: &str, at: Millis) -> Result<(), StoreError> {
        // Only forward, and by a minute or more: replicas that each record
        // a busy key once a minute write it about once a minute in all.
        sqlx::query(
            "UPDATE api_keys SET last_used_at = $1 \
             WHERE id = $2 AND (last_used_at IS NULL OR last_used_at <= $1 - 60000)",
        )
        .bind(at)
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn revoke_key(&self, id: &str) -> Result<bool, StoreError> {
        self.revoke(
            "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
            RevokedKind::Key,
            id,
        )
        .await
    }
}

#[async_trait]
impl PartnerStore for SqlStore {
    async fn create_partner(&self, key_id: &str, secret: &str) -> Result<Partner, StoreError> {
        let row = sqlx::query(
            "INSERT INTO partners (id, account_id, key_id, secret, created_at) \
             SELECT $1, account_id, id, $2, $3 FROM api_keys WHERE id = $4 AND revoked_at IS NULL \
             RETURNING id, account_id, key_id, secret, created_at, revoked_at",
        )
        .bind(new_id())
        .bind(secret)
        .bind(now_millis())
        .bind(key_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        let row = row.ok_or(StoreError::NotFound("live key"))?;
        Partner::from_row(&row).map_err(map_err)
    }

    async fn partner_by_id(&self, id: &str) -> Result<Option<Partner>, StoreError> {
        let row = sqlx::query(
            "SELECT id, account_id, key_id, secret, created_at, revoked_at FROM partners WHERE id = $1",
        )
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        row.as_ref()
            .map(Partner::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn partners_of_account(&self, account_id: &str) -> Result<Vec<Partner>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, account_id, key_id, secret, created_at, revoked_at FROM partners \
             WHERE account_id = $1 ORDER BY created_at DESC, id",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(Partner::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn revoke_partner(&self, id: &str) -> Result<bool, StoreError> {
        self.revoke(
            "UPDATE partners SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
            RevokedKind::Partner,
            id,
        )
        .await
    }

    async fn live_partners(&self) -> Result<Vec<Partner>, StoreError> {
        let rows = sqlx::query(
            "SELECT p.id, p.account_id, p.key_id, p.secret, p.created_at, p.revoked_at \
             FROM partners p JOIN api_keys k ON k.id = p.key_id \
             WHERE p.revoked_at IS NULL AND k.revoked_at IS NULL",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(Partner::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }
}
