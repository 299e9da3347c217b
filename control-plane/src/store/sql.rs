//! The sqlx implementation of every store trait, for SQLite and PostgreSQL.
//!
//! SQL here is portable: `$n` placeholders, `RETURNING`, integer timestamps and
//! flags. The one dialect branch is how a write transaction starts: SQLite
//! takes its write lock up front (`BEGIN IMMEDIATE`) so two writers never
//! deadlock on a read-then-write upgrade.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions, AnyRow};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Executor, Row};

use super::*;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("migrations/postgres");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

#[derive(Debug, Clone)]
pub struct SqlStore {
    pool: AnyPool,
    dialect: Dialect,
}

impl SqlStore {
    /// Connects without migrating. `url` is `sqlite://…` or `postgres://…`.
    pub async fn connect(url: &str) -> Result<SqlStore, StoreError> {
        sqlx::any::install_default_drivers();
        let dialect = if url.starts_with("sqlite:") {
            Dialect::Sqlite
        } else {
            Dialect::Postgres
        };
        let options =
            AnyConnectOptions::from_str(url).map_err(|e| StoreError::Unavailable(redact(&e)))?;
        let max = match dialect {
            Dialect::Sqlite => 8,
            Dialect::Postgres => 16,
        };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if dialect == Dialect::Sqlite {
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .map_err(|e| StoreError::Unavailable(redact(&e)))?;
        Ok(SqlStore { pool, dialect })
    }

    /// Applies pending migrations of this dialect's folder.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let migrator = match self.dialect {
            Dialect::Sqlite => &SQLITE_MIGRATIONS,
            Dialect::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator
            .run(&self.pool)
            .await
            .map_err(|e| StoreError::Migration(e.to_string()))
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        let tx = match self.dialect {
            Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Dialect::Postgres => self.pool.begin().await,
        };
        tx.map_err(map_err)
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// sqlx errors can quote the connection URL; keep only the error's kind.
fn redact(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Configuration(_) => "invalid database URL".into(),
        sqlx::Error::Io(io) => format!("i/o error: {}", io.kind()),
        sqlx::Error::PoolTimedOut => "timed out waiting for a connection".into(),
        sqlx::Error::PoolClosed => "connection pool closed".into(),
        sqlx::Error::Tls(_) => "TLS error".into(),
        other => other.to_string(),
    }
}

fn map_err(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_) => StoreError::Unavailable(redact(&e)),
        sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::UniqueViolation => {
            StoreError::Conflict("record")
        }
        _ => StoreError::Database(e.to_string()),
    }
}

fn flag(row: &AnyRow, col: &str) -> Result<bool, sqlx::Error> {
    Ok(row.try_get::<i64, _>(col)? != 0)
}

fn account_from(row: &AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        id: row.try_get("id")?,
        email: row.try_get("email")?,
        balance: row.try_get("balance")?,
        auto_reload: flag(row, "auto_reload")?,
        has_payment_method: flag(row, "has_payment_method")?,
        created_at: row.try_get("created_at")?,
    })
}

fn key_from(row: &AnyRow) -> Result<KeyRecord, sqlx::Error> {
    Ok(KeyRecord {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        display_prefix: row.try_get("display_prefix")?,
        scopes: row.try_get("scopes")?,
        rate_limit_per_minute: row.try_get("rate_limit_per_minute")?,
        created_at: row.try_get("created_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

fn entry_from(row: &AnyRow) -> Result<LedgerEntry, sqlx::Error> {
    let kind: String = row.try_get("kind")?;
    Ok(LedgerEntry {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        kind: EntryKind::parse(&kind)
            .ok_or_else(|| sqlx::Error::Decode(format!("unknown ledger kind {kind}").into()))?,
        delta: row.try_get("delta")?,
        balance_after: row.try_get("balance_after")?,
        reason: row.try_get("reason")?,
        reference: row.try_get("reference")?,
        created_at: row.try_get("created_at")?,
    })
}

fn partner_from(row: &AnyRow) -> Result<Partner, sqlx::Error> {
    Ok(Partner {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        secret: crate::config::Secret::new(row.try_get("secret")?),
        created_at: row.try_get("created_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

// Column lists as macros so that queries stay `&'static str` (sqlx refuses
// run-time-built SQL).
macro_rules! account_cols {
    () => {
        "id, email, balance, auto_reload, has_payment_method, created_at"
    };
}
macro_rules! key_cols {
    () => {
        "id, account_id, name, display_prefix, scopes, rate_limit_per_minute, created_at, revoked_at"
    };
}
macro_rules! entry_cols {
    () => {
        "id, account_id, kind, delta, balance_after, reason, reference, created_at"
    };
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[async_trait]
impl AccountStore for SqlStore {
    async fn create_account(
        &self,
        email: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError> {
        if initial_credits < 0 {
            return Err(StoreError::InsufficientCredits {
                balance: 0,
                required: -initial_credits,
            });
        }
        let mut tx = self.begin_write().await?;
        let id = new_id();
        let now = now_millis();
        let row = sqlx::query(concat!("INSERT INTO accounts (id, email, balance, auto_reload, has_payment_method, created_at) \
             VALUES ($1, $2, $3, 0, 0, $4) RETURNING ", account_cols!()))
        .bind(&id)
        .bind(email)
        .bind(initial_credits)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| match map_err(e) {
            StoreError::Conflict(_) => StoreError::Conflict("account with this email"),
            other => other,
        })?;
        if initial_credits > 0 {
            sqlx::query(
                "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) \
                 VALUES ($1, 'grant', $2, $2, 'free credits for a new account', NULL, $3)",
            )
            .bind(&id)
            .bind(initial_credits)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        let account = account_from(&row).map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(account)
    }

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
        row.as_ref().map(account_from).transpose().map_err(map_err)
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
        row.as_ref().map(account_from).transpose().map_err(map_err)
    }
}

#[async_trait]
impl LedgerStore for SqlStore {
    async fn append_entry(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError> {
        let mut tx = self.begin_write().await?;
        let balance: Option<i64> = sqlx::query_scalar(
            "UPDATE accounts SET balance = balance + $1 WHERE id = $2 AND balance + $1 >= 0 RETURNING balance",
        )
        .bind(entry.delta)
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(balance_after) = balance else {
            let current: Option<i64> =
                sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
                    .bind(account_id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(map_err)?;
            return Err(match current {
                Some(balance) => StoreError::InsufficientCredits {
                    balance,
                    required: -entry.delta,
                },
                None => StoreError::NotFound("account"),
            });
        };
        let row = sqlx::query(concat!("INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ", entry_cols!()))
        .bind(account_id)
        .bind(entry.kind.as_str())
        .bind(entry.delta)
        .bind(balance_after)
        .bind(entry.reason)
        .bind(entry.reference)
        .bind(now_millis())
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        let entry = entry_from(&row).map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(entry)
    }

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
            .map(entry_from)
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

#[async_trait]
impl KeyStore for SqlStore {
    async fn create_key(&self, key: NewKey) -> Result<KeyRecord, StoreError> {
        let row = sqlx::query(concat!("INSERT INTO api_keys (id, account_id, name, display_prefix, key_hash, scopes, rate_limit_per_minute, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ", key_cols!()))
        .bind(new_id())
        .bind(&key.account_id)
        .bind(&key.name)
        .bind(&key.display_prefix)
        .bind(&key.key_hash)
        .bind(&key.scopes)
        .bind(key.rate_limit_per_minute)
        .bind(now_millis())
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        key_from(&row).map_err(map_err)
    }

    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            ", key_hash FROM api_keys WHERE key_hash = $1"
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
        key_from(&row).map(Some).map_err(map_err)
    }

    async fn key_by_id(&self, id: &str) -> Result<Option<KeyRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            " FROM api_keys WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref().map(key_from).transpose().map_err(map_err)
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
            .map(key_from)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn revoke_key(&self, id: &str) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
                .bind(now_millis())
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }
}

#[async_trait]
impl PartnerStore for SqlStore {
    async fn create_partner(&self, account_id: &str, secret: &str) -> Result<Partner, StoreError> {
        let row = sqlx::query(
            "INSERT INTO partners (id, account_id, secret, created_at) VALUES ($1, $2, $3, $4) \
             RETURNING id, account_id, secret, created_at, revoked_at",
        )
        .bind(new_id())
        .bind(account_id)
        .bind(secret)
        .bind(now_millis())
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        partner_from(&row).map_err(map_err)
    }

    async fn partner_by_id(&self, id: &str) -> Result<Option<Partner>, StoreError> {
        let row = sqlx::query(
            "SELECT id, account_id, secret, created_at, revoked_at FROM partners WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref().map(partner_from).transpose().map_err(map_err)
    }
}

#[async_trait]
impl Store for SqlStore {
    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
    }

    fn dialect(&self) -> Dialect {
        self.dialect
    }
}

/// Runs one statement outside any transaction (administration and tests,
/// e.g. `CREATE DATABASE`).
pub async fn execute_raw(store: &SqlStore, sql: &str) -> Result<(), StoreError> {
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(&store.pool)
        .await
        .map_err(map_err)?;
    Ok(())
}
