//! Device logins (migration 11): codes, approvals, polls and the one
//! delivery of the key, each a conditional write so replicas agree.

use super::*;

macro_rules! login_cols {
    () => {
        "id, user_code, client_name, status, account_id, created_at, expires_at, last_poll_at"
    };
}

#[async_trait]
impl DeviceStore for SqlStore {
    async fn create_device_login(
        &self,
        device_code_hash: &str,
        user_code: &str,
        client_name: &str,
        expires_at: Millis,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let now = now_millis();
        // A user code is unique among live logins; the caller draws again.
        let taken: Option<String> = sqlx::query_scalar(
            "SELECT id FROM device_logins WHERE user_code = $1 AND expires_at > $2 LIMIT 1",
        )
        .bind(user_code)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        if taken.is_some() {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO device_logins (id, device_code_hash, user_code, client_name, status, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, 'pending', $5, $6)",
        )
        .bind(new_id())
        .bind(device_code_hash)
        .bind(user_code)
        .bind(client_name)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        // Old logins are kept a day for support, then go.
        sqlx::query("DELETE FROM device_logins WHERE expires_at < $1")
            .bind(now - 86_400_000)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(true)
    }

    async fn device_login_by_user_code(
        &self,
        user_code: &str,
    ) -> Result<Option<DeviceLogin>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            login_cols!(),
            " FROM device_logins WHERE user_code = $1 ORDER BY created_at DESC LIMIT 1"
        ))
        .bind(user_code)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(DeviceLogin::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn decide_device_login(
        &self,
        user_code: &str,
        account_id: Option<&str>,
    ) -> Result<Option<DeviceLogin>, StoreError> {
        let status = if account_id.is_some() {
            "approved"
        } else {
            "denied"
        };
        let row = sqlx::query(concat!(
            "UPDATE device_logins SET status = $1, account_id = $2 \
             WHERE user_code = $3 AND status = 'pending' AND expires_at > $4 RETURNING ",
            login_cols!()
        ))
        .bind(status)
        .bind(account_id)
        .bind(user_code)
        .bind(now_millis())
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(DeviceLogin::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn poll_device_login(
        &self,
        device_code_hash: &str,
        interval_ms: Millis,
    ) -> Result<DevicePoll, StoreError> {
        let now = now_millis();
        let row = sqlx::query(concat!(
            "SELECT ",
            login_cols!(),
            " FROM device_logins WHERE device_code_hash = $1"
        ))
        .bind(device_code_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        let Some(login) = row
            .as_ref()
            .map(DeviceLogin::from_row)
            .transpose()
            .map_err(map_err)?
        else {
            return Ok(DevicePoll::Unknown);
        };
        if login.status == "delivered" || now >= login.expires_at {
            return Ok(DevicePoll::Expired);
        }
        // Counted only when it comes at least an interval after the last
        // answered poll: a conditional write, so replicas agree.
        let answered = sqlx::query(
            "UPDATE device_logins SET last_poll_at = $1 \
             WHERE id = $2 AND (last_poll_at IS NULL OR last_poll_at <= $3)",
        )
        .bind(now)
        .bind(&login.id)
        .bind(now - interval_ms)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        if answered.rows_affected() == 0 {
            let last = login.last_poll_at.unwrap_or(now);
            return Ok(DevicePoll::TooFast {
                wait_ms: (last + interval_ms - now).max(1),
            });
        }
        Ok(match login.status.as_str() {
            "approved" => DevicePoll::Approved(login),
            "denied" => DevicePoll::Denied,
            _ => DevicePoll::Pending,
        })
    }

    async fn deliver_device_key(
        &self,
        login_id: &str,
        key: NewKey,
    ) -> Result<Option<KeyRecord>, StoreError> {
        let mut tx = self.begin_write().await?;
        let key_id = new_id();
        let done = sqlx::query(
            "UPDATE device_logins SET status = 'delivered' WHERE id = $1 AND status = 'approved'",
        )
        .bind(login_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        let record = insert_key(&mut tx, &key_id, &key).await?;
        sqlx::query("UPDATE device_logins SET key_id = $1 WHERE id = $2")
            .bind(&key_id)
            .bind(login_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(Some(record))
    }
}
