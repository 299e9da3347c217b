//! Remote render nodes (migration 13): the operator's registry, the nodes'
//! own reports, and their counters. Tokens are kept as SHA-256 only.

use super::*;

macro_rules! node_cols {
    () => {
        "name, state, slots, adapter, last_heartbeat, day, renders_day, renders_total, failures_total, created_at"
    };
}

fn node_from(row: &AnyRow) -> Result<NodeRecord, sqlx::Error> {
    let day: Option<String> = row.try_get("day")?;
    let today = utc_day_of(now_millis());
    Ok(NodeRecord {
        name: row.try_get("name")?,
        state: row.try_get("state")?,
        slots: row.try_get("slots")?,
        adapter: row.try_get("adapter")?,
        last_heartbeat: row.try_get("last_heartbeat")?,
        renders_today: if day.as_deref() == Some(today.as_str()) {
            row.try_get("renders_day")?
        } else {
            0
        },
        renders_total: row.try_get("renders_total")?,
        failures_total: row.try_get("failures_total")?,
        created_at: row.try_get("created_at")?,
    })
}

#[async_trait]
impl NodeStore for SqlStore {
    async fn add_node(&self, name: &str, token_hash: &str) -> Result<NodeRecord, StoreError> {
        let row = sqlx::query(concat!(
            "INSERT INTO render_nodes (name, token_hash, state, created_at) VALUES ($1, $2, 'active', $3) RETURNING ",
            node_cols!()
        ))
        .bind(name)
        .bind(token_hash)
        .bind(now_millis())
        .fetch_one(&self.pool)
        .await
        .map_err(|e| match map_err(e) {
            StoreError::Conflict(_) => StoreError::Conflict("node with this name"),
            other => other,
        })?;
        node_from(&row).map_err(map_err)
    }

    async fn node_by_token(&self, token_hash: &str) -> Result<Option<NodeRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            node_cols!(),
            " FROM render_nodes WHERE token_hash = $1 AND state <> 'removed'"
        ))
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref().map(node_from).transpose().map_err(map_err)
    }

    async fn nodes(&self) -> Result<Vec<NodeRecord>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            node_cols!(),
            " FROM render_nodes ORDER BY name"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(node_from)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn set_node_state(&self, name: &str, state: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE render_nodes SET state = $1 WHERE name = $2")
            .bind(state)
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn node_seen(&self, name: &str, slots: i64, adapter: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE render_nodes SET slots = $1, adapter = $2, last_heartbeat = $3 WHERE name = $4",
        )
        .bind(slots)
        .bind(adapter)
        .bind(now_millis())
        .bind(name)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn node_counted(&self, name: &str, day: &str, ok: bool) -> Result<(), StoreError> {
        let counted = if ok {
            sqlx::query(
                "UPDATE render_nodes SET renders_day = CASE WHEN day = $1 THEN renders_day + 1 ELSE 1 END, \
                 day = $1, renders_total = renders_total + 1 WHERE name = $2",
            )
            .bind(day)
            .bind(name)
        } else {
            sqlx::query(
                "UPDATE render_nodes SET failures_total = failures_total + 1 WHERE name = $1",
            )
            .bind(name)
        };
        counted.execute(&self.pool).await.map_err(map_err)?;
        Ok(())
    }
}
