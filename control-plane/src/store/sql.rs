//! The implementation of every store trait, for SQLite and PostgreSQL.
//!
//! SQL here is portable: `$n` placeholders, `RETURNING`, integer timestamps and
//! flags. One dialect branch outside the migrations: how a write transaction
//! starts (SQLite takes its write lock up front, `BEGIN IMMEDIATE`, so two
//! writers never deadlock on a read-then-write upgrade), and the job lease's
//! `FOR UPDATE SKIP LOCKED`.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions, AnyRow};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Executor, FromRow, Row};

use super::*;
use limits::announce_revocation;

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
        Self::connect_with(url, None).await
    }

    /// A store of at most `connections`, for one writer's own use (the
    /// ledger's collector thread).
    pub async fn connect_small(url: &str, connections: u32) -> Result<SqlStore, StoreError> {
        Self::connect_with(url, Some(connections.max(1))).await
    }

    async fn connect_with(url: &str, max: Option<u32>) -> Result<SqlStore, StoreError> {
        sqlx::any::install_default_drivers();
        let dialect = if url.starts_with("sqlite:") {
            Dialect::Sqlite
        } else {
            Dialect::Postgres
        };
        let options =
            AnyConnectOptions::from_str(url).map_err(|e| StoreError::Unavailable(redact(&e)))?;
        let max = max.unwrap_or(match dialect {
            Dialect::Sqlite => 8,
            Dialect::Postgres => 16,
        });
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if dialect == Dialect::Sqlite {
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        // Every commit reaches the disk before it returns (a
                        // 200 that charged survives power loss): docs/ledger.md.
                        conn.execute("PRAGMA synchronous = FULL").await?;
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

    /// Applies pending migrations up to and including `version` (upgrade
    /// tests start a database at an older schema with this).
    pub async fn migrate_to(&self, version: i64) -> Result<(), StoreError> {
        let migrator = match self.dialect {
            Dialect::Sqlite => &SQLITE_MIGRATIONS,
            Dialect::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator
            .run_to(version, &self.pool)
            .await
            .map_err(|e| StoreError::Migration(e.to_string()))
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Marks `id` revoked with `update` (binds: now, id) and announces it
    /// on the revocation feed in the same transaction; false when it was
    /// already revoked.
    async fn revoke(
        &self,
        update: &'static str,
        kind: RevokedKind,
        id: &str,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let now = now_millis();
        let done = sqlx::query(update)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        announce_revocation(&mut tx, kind, id, now).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(true)
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
        // An I/O error names no URL; its text says what went wrong (refused,
        // or a TLS handshake's "invalid peer certificate: UnknownIssuer").
        sqlx::Error::Io(io) => format!("i/o error: {io}"),
        sqlx::Error::PoolTimedOut => "timed out waiting for a connection".into(),
        sqlx::Error::PoolClosed => "connection pool closed".into(),
        // Certificate and handshake errors name no URL or password.
        sqlx::Error::Tls(e) => format!("TLS: {e}"),
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

/// A 0/1 integer column read as a `bool` (`#[sqlx(try_from = "sql::IntFlag")]`):
/// both databases store flags as integers (one SQL text for two databases).
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub struct IntFlag(i64);

impl From<IntFlag> for bool {
    fn from(flag: IntFlag) -> bool {
        flag.0 != 0
    }
}

// Column lists as macros so that queries stay `&'static str` (sqlx refuses
// run-time-built SQL).
macro_rules! account_cols {
    () => {
        "id, email, auto_reload, has_payment_method, created_at"
    };
}
/// The open disputes of a key's account, read with the key (frozen keys).
macro_rules! key_disputes {
    () => {
        "(SELECT disputes FROM accounts WHERE accounts.id = api_keys.account_id) AS account_disputes"
    };
}
macro_rules! key_cols {
    () => {
        "id, account_id, name, display_prefix, scopes, rate_limit_per_minute, created_at, revoked_at, last_used_at"
    };
}

/// Inserts one API key row (its hash, never the key) and returns it.
async fn insert_key(
    conn: &mut sqlx::AnyConnection,
    id: &str,
    key: &NewKey,
) -> Result<KeyRecord, StoreError> {
    let row = sqlx::query(concat!("INSERT INTO api_keys (id, account_id, name, display_prefix, key_hash, scopes, rate_limit_per_minute, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ", key_cols!()))
    .bind(id)
    .bind(&key.account_id)
    .bind(&key.name)
    .bind(&key.display_prefix)
    .bind(&key.key_hash)
    .bind(&key.scopes)
    .bind(key.rate_limit_per_minute)
    .bind(now_millis())
    .fetch_one(&mut *conn)
    .await
    .map_err(map_err)?;
    KeyRecord::from_row(&row).map_err(map_err)
}

macro_rules! job_cols {
    () => {
        "id, variant, revision, shape, status, priority, attempts, lease_owner, error, duration_ms, created_at"
    };
}
macro_rules! entry_cols {
    () => {
        "id, account_id, kind, delta, balance_after, reason, reference, created_at"
    };
}

/// Moves an account's balance by `delta` inside `tx` by a conditional
/// write; refuses to go below 0.
async fn move_balance(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    delta: i64,
) -> Result<i64, StoreError> {
    let balance: Option<i64> = sqlx::query_scalar(charges::DEBIT_GROUP)
        .bind(-delta)
        .bind(account_id)
        .bind(None::<&str>)
        .fetch_optional(&mut **tx)
        .await
        .map_err(map_err)?;
    if let Some(b) = balance {
        return Ok(b);
    }
    let current: Option<i64> = sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
        .bind(account_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(map_err)?;
    Err(match current {
        Some(balance) => StoreError::InsufficientCredits {
            balance,
            required: -delta,
        },
        None => StoreError::NotFound("account"),
    })
}

/// Locks an account's row in `tx` (on PostgreSQL: waits for any writer
/// that holds it, then reads what it committed) and reads its balance,
/// credits owed and open disputes.
async fn lock_standing(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
) -> Result<(i64, Standing), StoreError> {
    let row: Option<(i64, i64, i64)> = sqlx::query_as(
        "UPDATE accounts SET owed = owed WHERE id = $1 RETURNING balance, owed, disputes",
    )
    .bind(account_id)
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    let (balance, owed, disputes) = row.ok_or(StoreError::NotFound("account"))?;
    Ok((balance, Standing { owed, disputes }))
}

/// Changes an account's credits owed and open disputes by the deltas, and
/// `held` with them (1 while either is above 0: the one column the keyed
/// conditional debit reads). Every write of `owed` or `disputes` is this
/// statement, on a row the transaction holds.
async fn move_standing(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    owed: i64,
    disputes: i64,
) -> Result<Standing, StoreError> {
    let row: Option<(i64, i64)> = sqlx::query_as(
        "UPDATE accounts SET owed = owed + $1, disputes = disputes + $2, \
         held = CASE WHEN owed + $1 > 0 OR disputes + $2 > 0 THEN 1 ELSE 0 END \
         WHERE id = $3 RETURNING owed, disputes",
    )
    .bind(owed)
    .bind(disputes)
    .bind(account_id)
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    let (owed, disputes) = row.ok_or(StoreError::NotFound("account"))?;
    Ok(Standing { owed, disputes })
}

/// Takes `credits` back from an account after a refunded or lost payment
/// (docs/billing.md, "After the sale"): as much as the balance holds,
/// through the one conditional debit (no key: a held account's balance can
/// still be taken back), the rest recorded as owed; one `adjustment` entry
/// for what was taken. Returns (taken, added to owed).
async fn take_back(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    credits: i64,
    reason: &str,
    reference: &str,
) -> Result<(i64, i64), StoreError> {
    if credits <= 0 {
        return Ok((0, 0));
    }
    // The row is locked here, so the balance read is the one debited.
    let (balance, _) = lock_standing(tx, account_id).await?;
    let taken = balance.clamp(0, credits);
    let owed = credits - taken;
    if taken > 0 {
        let after = move_balance(tx, account_id, -taken).await?;
        let entry = NewEntry {
            kind: EntryKind::Adjustment,
            delta: -taken,
            reason,
            reference: Some(reference),
        };
        insert_ledger(tx, account_id, &entry, after).await?;
    }
    if owed > 0 {
        move_standing(tx, account_id, owed, 0).await?;
    }
    Ok((taken, owed))
}

/// Pays what an account owes from its balance, as far as it goes (a
/// purchase lands first, then this): one `adjustment` entry, through the
/// one conditional debit. Returns the balance after.
async fn settle_owed(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    reference: &str,
) -> Result<i64, StoreError> {
    let (balance, standing) = lock_standing(tx, account_id).await?;
    let paid = standing.owed.min(balance);
    if paid <= 0 {
        return Ok(balance);
    }
    let after = move_balance(tx, account_id, -paid).await?;
    move_standing(tx, account_id, -paid, 0).await?;
    let entry = NewEntry {
        kind: EntryKind::Adjustment,
        delta: -paid,
        reason: "owed credits settled by a purchase",
        reference: Some(reference),
    };
    insert_ledger(tx, account_id, &entry, after).await?;
    Ok(after)
}

async fn insert_ledger(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    entry: &NewEntry<'_>,
    balance_after: i64,
) -> Result<LedgerEntry, StoreError> {
    let row = sqlx::query(concat!(
        "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ",
        entry_cols!()
    ))
    .bind(account_id)
    .bind(entry.kind.as_str())
    .bind(entry.delta)
    .bind(balance_after)
    .bind(entry.reason)
    .bind(entry.reference)
    .bind(now_millis())
    .fetch_one(&mut **tx)
    .await
    .map_err(map_err)?;
    LedgerEntry::from_row(&row).map_err(map_err)
}

/// `prefix` followed by `rows` value tuples; each `$` in `columns` becomes
/// the next numbered placeholder, anything else is copied as a literal.
/// Only constants and numbers go into the text; values are bound.
fn multi_row_insert(prefix: &str, columns: &[&str], rows: usize) -> String {
    let mut sql = String::from(prefix);
    let mut n = 0;
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for (c, col) in columns.iter().enumerate() {
            if c > 0 {
                sql.push_str(", ");
            }
            if *col == "$" {
                n += 1;
                sql.push_str(&format!("${n}"));
            } else {
                sql.push_str(col);
            }
        }
        sql.push(')');
    }
    sql
}

/// Inserts an account and its opening `grant` entry (none for 0 credits)
/// in the caller's transaction.
async fn insert_account(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    email: &str,
    initial_credits: i64,
) -> Result<Account, StoreError> {
    let id = new_id();
    let row = sqlx::query(concat!(
        "INSERT INTO accounts (id, email, balance, auto_reload, has_payment_method, created_at) \
         VALUES ($1, $2, $3, 0, 0, $4) RETURNING ",
        account_cols!()
    ))
    .bind(&id)
    .bind(email)
    .bind(initial_credits)
    .bind(now_millis())
    .fetch_one(&mut **tx)
    .await
    .map_err(|e| match map_err(e) {
        StoreError::Conflict(_) => StoreError::Conflict("account with this email"),
        other => other,
    })?;
    if initial_credits > 0 {
        let grant = NewEntry {
            kind: EntryKind::Grant,
            delta: initial_credits,
            reason: "free credits for a new account",
            reference: None,
        };
        insert_ledger(tx, &id, &grant, initial_credits).await?;
    }
    Account::from_row(&row).map_err(map_err)
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

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

#[async_trait]
impl DeliveryStore for SqlStore {
    async fn usage_since(
        &self,
        account_id: &str,
        since: Millis,
    ) -> Result<UsageCounts, StoreError> {
        // Image delivery charges are the ledger rows with a variant; a
        // refund names the charge it refunds (at most one, by a unique index).
        // The refund is probed per charge (`ledger_refund_of`), never joined:
        // PostgreSQL merge-joined the whole refund index, O(every refund).
        let row = sqlx::query(
            "SELECT CAST(COUNT(*) AS BIGINT) AS requests, \
               CAST(COALESCE(SUM(CASE WHEN NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) THEN 1 ELSE 0 END), 0) AS BIGINT) AS images, \
               CAST(COALESCE(SUM(CASE WHEN c.source = 'cache' AND NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) THEN 1 ELSE 0 END), 0) AS BIGINT) AS cache_hits \
             FROM ledger c \
             WHERE c.account_id = $1 AND c.created_at >= $2 AND c.variant IS NOT NULL",
        )
        .bind(account_id)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        let urls = sqlx::query(
            "SELECT CAST(COUNT(DISTINCT request_id) AS BIGINT) AS requests, \
               CAST(COALESCE(SUM(CASE WHEN uses > 0 AND failed_at IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS loaded \
             FROM delivery_urls WHERE account_id = $1 AND created_at >= $2",
        )
        .bind(account_id)
        .bind(since)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(UsageCounts {
            requests: row.try_get("requests").map_err(map_err)?,
            images: row.try_get("images").map_err(map_err)?,
            cache_hits: row.try_get("cache_hits").map_err(map_err)?,
            url_requests: urls.try_get("requests").map_err(map_err)?,
            urls_loaded: urls.try_get("loaded").map_err(map_err)?,
        })
    }

    async fn delivery_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Option<DeliveryRecord>, StoreError> {
        Ok(self.deliveries_by_request_id(request_id).await?.pop())
    }

    async fn deliveries_by_request_id(
        &self,
        request_id: &str,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        sqlx::query_as::<_, DeliveryRecord>(
            "SELECT c.id, c.reference, c.account_id, c.variant, c.revision, c.width, c.height, c.format, \
             r.created_at AS refunded_at, c.created_at \
             FROM ledger c LEFT JOIN ledger r ON r.refund_of = c.id \
             WHERE c.reference = $1 AND c.kind = 'charge' AND c.variant IS NOT NULL \
             ORDER BY c.id",
        )
        .bind(request_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }
}

/// Interactive jobs first (priority 0), then prewarm ones; oldest first
/// within a priority. SQLite has one writer at a time, so a plain sub-select
/// is race-free there; PostgreSQL skips rows another transaction is leasing.
const LEASE_SQLITE: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id = (SELECT id FROM render_jobs WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3 AND attempts < $4) \
     ORDER BY priority, created_at LIMIT 1) RETURNING ",
    job_cols!()
);
const LEASE_POSTGRES: &str = concat!(
    "UPDATE render_jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1, updated_at = $3 \
     WHERE id = (SELECT id FROM render_jobs WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3 AND attempts < $4) \
     ORDER BY priority, created_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING ",
    job_cols!()
);

#[async_trait]
impl JobStore for SqlStore {
    async fn claim_job(
        &self,
        variant: &str,
        revision: i64,
        shape: &str,
        priority: JobPriority,
    ) -> Result<(JobRecord, Claim), StoreError> {
        let now = now_millis();
        let created = sqlx::query(concat!(
            "INSERT INTO render_jobs (id, variant, revision, shape, status, priority, attempts, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, 'queued', $6, 0, $5, $5) ON CONFLICT (variant, revision) DO NOTHING RETURNING ",
            job_cols!()
        ))
        .bind(new_id())
        .bind(variant)
        .bind(revision)
        .bind(shape)
        .bind(now)
        .bind(priority.rank())
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        if let Some(row) = created {
            return Ok((JobRecord::from_row(&row).map_err(map_err)?, Claim::Created));
        }
        let requeued = sqlx::query(concat!(
            "UPDATE render_jobs SET status = 'queued', error = NULL, lease_owner = NULL, lease_expires_at = NULL, \
             priority = $4, created_at = $1, updated_at = $1 WHERE variant = $2 AND revision = $3 AND status = 'failed' RETURNING ",
            job_cols!()
        ))
        .bind(now)
        .bind(variant)
        .bind(revision)
        .bind(priority.rank())
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        if let Some(row) = requeued {
            return Ok((JobRecord::from_row(&row).map_err(map_err)?, Claim::Requeued));
        }
        let row = sqlx::query(concat!(
            "SELECT ",
            job_cols!(),
            " FROM render_jobs WHERE variant = $1 AND revision = $2"
        ))
        .bind(variant)
        .bind(revision)
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        let mut joined = JobRecord::from_row(&row).map_err(map_err)?;
        if priority < joined.priority
            && matches!(joined.status, JobStatus::Queued | JobStatus::Running)
            && self.promote_job(&joined.id).await?
        {
            joined.priority = priority;
        }
        Ok((joined, Claim::Joined))
    }

    async fn promote_job(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE render_jobs SET priority = 0 WHERE id = $1 AND status IN ('queued', 'running')",
        )
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn withdraw_job(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "DELETE FROM render_jobs WHERE id = $1 AND status = 'queued' AND priority > 0 RETURNING created_at",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.map(|r| r.try_get::<i64, _>("created_at").map(utc_day_of))
            .transpose()
            .map_err(map_err)
    }

    async fn live_job(
        &self,
        variant: &str,
        revision: i64,
    ) -> Result<Option<JobRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            job_cols!(),
            " FROM render_jobs WHERE variant = $1 AND revision = $2 AND status IN ('queued', 'running')"
        ))
        .bind(variant)
        .bind(revision)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(JobRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn lease_job(&self, owner: &str, lease_ms: i64) -> Result<Option<JobRecord>, StoreError> {
        let now = now_millis();
        let sql = match self.dialect {
            Dialect::Sqlite => LEASE_SQLITE,
            Dialect::Postgres => LEASE_POSTGRES,
        };
        // A job whose lease ran out MAX_JOB_ATTEMPTS times fails: each time
        // its node died (or lost the database) mid-render.
        sqlx::query(
            "UPDATE render_jobs SET status = 'failed', error = 'render node lost', finished_by = lease_owner, \
             lease_owner = NULL, lease_expires_at = NULL, updated_at = $1 \
             WHERE status = 'running' AND lease_expires_at < $1 AND attempts >= $2",
        )
        .bind(now)
        .bind(MAX_JOB_ATTEMPTS)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        let row = sqlx::query(sql)
            .bind(owner)
            .bind(now + lease_ms)
            .bind(now)
            .bind(MAX_JOB_ATTEMPTS)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        row.as_ref()
            .map(JobRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn finish_job(
        &self,
        id: &str,
        owner: &str,
        outcome: Result<i64, &str>,
    ) -> Result<bool, StoreError> {
        let (status, error, duration) = match outcome {
            Ok(ms) => ("done", None, Some(ms)),
            Err(e) => ("failed", Some(e), None),
        };
        let done = sqlx::query(
            "UPDATE render_jobs SET status = $1, error = $2, duration_ms = $3, lease_owner = NULL, lease_expires_at = NULL, \
             updated_at = $4, finished_by = $6 \
             WHERE id = $5 AND lease_owner = $6 AND status = 'running'",
        )
        .bind(status)
        .bind(error)
        .bind(duration)
        .bind(now_millis())
        .bind(id)
        .bind(owner)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn job_by_id(&self, id: &str) -> Result<Option<JobRecord>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            job_cols!(),
            " FROM render_jobs WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(JobRecord::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn running_jobs_by_owner(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT lease_owner, COUNT(*) AS n FROM render_jobs \
             WHERE status = 'running' AND lease_owner IS NOT NULL GROUP BY lease_owner",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|r| Ok((r.try_get("lease_owner")?, r.try_get("n")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)
    }

    async fn renew_leases(
        &self,
        owner: &str,
        ids: &[String],
        until: Millis,
    ) -> Result<u64, StoreError> {
        let mut held = 0;
        for id in ids {
            let renewed = sqlx::query(
                "UPDATE render_jobs SET lease_expires_at = $1 \
                 WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
            )
            .bind(until)
            .bind(id)
            .bind(owner)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
            held += renewed.rows_affected();
        }
        Ok(held)
    }

    async fn finishes_on(&self, day: i64) -> Result<DayFinishes, StoreError> {
        // '' is how the aggregate keys "no owner" (a key column is never NULL).
        let renders = sqlx::query(
            "SELECT owner, bucket, n, lo, hi FROM render_finish_days WHERE day = $1 ORDER BY owner, bucket",
        )
        .bind(day)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let failures = sqlx::query(
            "SELECT owner, cause, n FROM render_failure_days WHERE day = $1 ORDER BY owner, cause",
        )
        .bind(day)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let owner = |r: &AnyRow| -> Result<Option<String>, sqlx::Error> {
            let o: String = r.try_get("owner")?;
            Ok((!o.is_empty()).then_some(o))
        };
        let renders = renders
            .iter()
            .map(|r| {
                Ok(RenderBucket {
                    owner: owner(r)?,
                    bucket: r.try_get("bucket")?,
                    renders: r.try_get("n")?,
                    min_ms: r.try_get("lo")?,
                    max_ms: r.try_get("hi")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)?;
        let failures = failures
            .iter()
            .map(|r| {
                Ok(FailureCount {
                    owner: owner(r)?,
                    cause: r.try_get("cause")?,
                    failures: r.try_get("n")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)?;
        Ok(DayFinishes { renders, failures })
    }

    async fn job_counts(&self) -> Result<JobCounts, StoreError> {
        let rows = sqlx::query("SELECT status, priority, n FROM render_job_counts")
            .fetch_all(&self.pool)
            .await
            .map_err(map_err)?;
        let mut counts = JobCounts::default();
        for row in rows {
            let status: String = row.try_get("status").map_err(map_err)?;
            let prewarm = JobPriority::from_rank(row.try_get("priority").map_err(map_err)?)
                == JobPriority::Prewarm;
            let n: i64 = row.try_get("n").map_err(map_err)?;
            match JobStatus::parse(&status) {
                Some(JobStatus::Queued) => {
                    counts.queued += n;
                    if prewarm {
                        counts.queued_prewarm += n;
                    }
                }
                Some(JobStatus::Running) => {
                    counts.running += n;
                    if prewarm {
                        counts.running_prewarm += n;
                    }
                }
                Some(JobStatus::Done) => counts.done += n,
                Some(JobStatus::Failed) => counts.failed += n,
                None => {}
            }
        }
        Ok(counts)
    }
}

#[async_trait]
impl BudgetStore for SqlStore {
    async fn take_budget(&self, day: &str, limit: i64) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO render_budget (day, used) VALUES ($1, 0) ON CONFLICT (day) DO NOTHING",
        )
        .bind(day)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let used: Option<i64> = sqlx::query_scalar(
            "UPDATE render_budget SET used = used + 1 WHERE day = $1 AND used < $2 RETURNING used",
        )
        .bind(day)
        .bind(limit)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(used.is_some())
    }

    async fn return_budget(&self, day: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE render_budget SET used = used - 1 WHERE day = $1 AND used > 0")
            .bind(day)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
    }

    async fn budget_used(&self, day: &str) -> Result<i64, StoreError> {
        let used: Option<i64> = sqlx::query_scalar("SELECT used FROM render_budget WHERE day = $1")
            .bind(day)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(used.unwrap_or(0))
    }

    async fn setting(&self, name: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn set_setting(&self, name: &str, value: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
            .bind(name)
            .bind(value)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
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

/// The aggregates of migration 22 counted again from the rows they
/// summarise, the slow way (tests and audits: the store conformance suite
/// holds the two equal on both databases).
impl SqlStore {
    /// Jobs by status and priority, counted over every job.
    pub async fn recount_jobs(&self) -> Result<Vec<(String, i64, i64)>, StoreError> {
        sqlx::query_as(
            "SELECT status, priority, CAST(COUNT(*) AS BIGINT) FROM render_jobs \
             GROUP BY status, priority ORDER BY status, priority",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    /// The counters of `render_job_counts`, in the shape of
    /// [`SqlStore::recount_jobs`] (zeros left out).
    pub async fn job_counters(&self) -> Result<Vec<(String, i64, i64)>, StoreError> {
        sqlx::query_as(
            "SELECT status, priority, n FROM render_job_counts WHERE n <> 0 ORDER BY status, priority",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    /// What the jobs now finished by `owner` on UTC day `day` say: renders
    /// by bucket (bucket, count, shortest, longest) and failures by cause.
    /// Equal to [`JobStore::finishes_on`] for that owner while each of its
    /// jobs finished once.
    pub async fn recount_finishes(
        &self,
        day: i64,
        owner: &str,
    ) -> Result<(Vec<(i64, i64, i64, i64)>, Vec<(String, i64)>), StoreError> {
        let renders = sqlx::query_as(
            "SELECT (SELECT MAX(b.lo) FROM render_buckets b WHERE b.lo <= j.duration_ms) AS bucket, \
               CAST(COUNT(*) AS BIGINT), MIN(j.duration_ms), MAX(j.duration_ms) \
             FROM render_jobs j WHERE j.status = 'done' AND j.finished_by = $1 \
               AND j.updated_at >= $2 AND j.updated_at < $2 + 86400000 \
             GROUP BY 1 ORDER BY 1",
        )
        .bind(owner)
        .bind(day * 86_400_000)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let failures = sqlx::query_as(
            "SELECT COALESCE(error, 'unknown') AS cause, CAST(COUNT(*) AS BIGINT) FROM render_jobs \
             WHERE status = 'failed' AND finished_by = $1 AND updated_at >= $2 AND updated_at < $2 + 86400000 \
             GROUP BY 1 ORDER BY 1",
        )
        .bind(owner)
        .bind(day * 86_400_000)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        Ok((renders, failures))
    }

    /// The most charged variants from the ledger's rows themselves, over
    /// whole UTC days from the one `since` falls in (as `top_variants`).
    pub async fn recount_top_variants(
        &self,
        since: Millis,
        limit: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        sqlx::query_as(
            "SELECT variant, CAST(COUNT(*) AS BIGINT) AS n FROM ledger \
             WHERE kind = 'charge' AND variant IS NOT NULL AND created_at >= $1 \
             GROUP BY variant ORDER BY n DESC, variant LIMIT $2",
        )
        .bind(since.div_euclid(86_400_000) * 86_400_000)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
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

/// How charge batches are written: one algorithm (`sql/charges.rs`, the
/// same statements), three writers, each held to the ledger's model test on
/// its database (docs/ledger.md, "Charge writers", says where they differ
/// and why, with figures):
///
/// - a SQLite file: the collector thread's own rusqlite connection
///   (`sql/sqlite_ledger.rs`);
/// - PostgreSQL: one statement per paying key, on the writer's own
///   connections (`sql/pg_ledger.rs`);
/// - in-memory SQLite (tests): the store's own sqlx pool.
#[async_trait::async_trait]
pub trait ChargeWriter: Send + Sync {
    /// As [`CreditStore::charge_deliveries`]: one outcome per item, in
    /// order; an Err for the whole batch only when the database failed.
    async fn charge_deliveries(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError>;

    /// Closes the writer's connections.
    async fn close(&self);
}

/// The writer for `url`, with up to `connections` where it pools.
pub async fn open_charge_writer(
    url: &str,
    connections: u32,
) -> Result<Box<dyn ChargeWriter>, StoreError> {
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    if url.starts_with("sqlite:") && !in_memory {
        let options = sqlx::sqlite::SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(redact(&e)))?;
        let ledger = sqlite_ledger::SqliteLedger::open(options.get_filename())?;
        return Ok(Box::new(std::sync::Mutex::new(ledger)));
    }
    let store = SqlStore::connect_small(url, connections).await?;
    if store.dialect == Dialect::Postgres {
        let writer = pg_ledger::PgWriter::open(store, url, connections).await?;
        return Ok(Box::new(writer));
    }
    Ok(Box::new(store))
}

#[async_trait::async_trait]
impl ChargeWriter for SqlStore {
    async fn charge_deliveries(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        self.sql_charge_deliveries(batch).await
    }

    async fn close(&self) {
        SqlStore::close(self).await;
    }
}

#[async_trait::async_trait]
impl ChargeWriter for std::sync::Mutex<sqlite_ledger::SqliteLedger> {
    async fn charge_deliveries(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        self.lock()
            .map_err(|_| StoreError::Unavailable("the ledger writer failed".into()))?
            .charge_deliveries(&batch)
    }

    async fn close(&self) {}
}

/// Runs `statements` in one write transaction and drops it before its
/// commit, as a crash would (the ledger's model test checks that nothing of
/// it remains). Statements are trusted text.
pub async fn abandon_write(store: &SqlStore, statements: &[String]) -> Result<(), StoreError> {
    let mut tx = store.begin_write().await?;
    for sql in statements {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()))
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
    }
    drop(tx);
    Ok(())
}

/// Credit-moving writes: reached only through `CreditStore` (credits.rs).
impl SqlStore {
    pub(super) async fn sql_create_account(
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
        let account = insert_account(&mut tx, email, initial_credits).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(account)
    }

    pub(super) async fn sql_append_entry(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError> {
        let mut tx = self.begin_write().await?;
        let balance_after = move_balance(&mut tx, account_id, entry.delta).await?;
        let entry = insert_ledger(&mut tx, account_id, &entry, balance_after).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(entry)
    }

    pub(super) async fn sql_charge_delivery(&self, d: &NewDelivery) -> Result<i64, StoreError> {
        let mut outcomes = self.sql_charge_deliveries(vec![d.clone()]).await?;
        outcomes
            .pop()
            .unwrap_or(Err(StoreError::Database("no outcome".into())))
    }

    pub(super) async fn sql_charge_deliveries(
        &self,
        batch: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        let mut tx = self.begin_write().await?;
        let outcomes = charges::charge_batch(&mut tx, &batch).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(outcomes)
    }

    pub(super) async fn sql_refund_delivery(
        &self,
        charge_id: i64,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(
            "SELECT account_id, delta FROM ledger WHERE id = $1 AND kind = 'charge' AND variant IS NOT NULL",
        )
        .bind(charge_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(row) = row else {
            return Err(StoreError::NotFound("delivery"));
        };
        let account_id: String = row.try_get("account_id").map_err(map_err)?;
        let credits = -row.try_get::<i64, _>("delta").map_err(map_err)?;
        let balance_after = move_balance(&mut tx, &account_id, credits).await?;
        // `ledger_refund_of` is unique: a second refund of the same charge
        // fails here, on either database, and rolls the balance back.
        let refunded = sqlx::query(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, refund_of) \
             VALUES ($1, 'refund', $2, $3, $4, NULL, $5, $6)",
        )
        .bind(&account_id)
        .bind(credits)
        .bind(balance_after)
        .bind(reason)
        .bind(now_millis())
        .bind(charge_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err);
        match refunded {
            Ok(_) => {}
            Err(StoreError::Conflict(_)) => return Ok(None),
            Err(e) => return Err(e),
        }
        tx.commit().await.map_err(map_err)?;
        Ok(Some(balance_after))
    }
}

#[cfg(test)]
mod tests {
    /// A commit on SQLite returns only once it is synced to disk, on the
    /// pool's connections and on the ledger writer's own (docs/ledger.md,
    /// "What survives a crash"): `synchronous = FULL` is 2.
    #[tokio::test]
    async fn every_sqlite_connection_syncs_each_commit() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/vis.db?mode=rwc", dir.path().display());
        let store = super::SqlStore::connect(&url).await.unwrap();
        for _ in 0..3 {
            let mut conn = store.pool.acquire().await.unwrap();
            let level: i64 = sqlx::query_scalar("PRAGMA synchronous")
                .fetch_one(&mut *conn)
                .await
                .unwrap();
            assert_eq!(level, 2, "a pool connection is not synchronous = FULL");
        }
        let ledger = super::sqlite_ledger::SqliteLedger::open(&dir.path().join("vis.db")).unwrap();
        assert_eq!(
            ledger.synchronous(),
            2,
            "the ledger's connection is not FULL"
        );
    }

    /// Both databases migrate through the same versions under the same
    /// names, so a schema change cannot reach one and miss the other; a
    /// change one database does not need is a file that says why and does
    /// nothing there.
    #[test]
    fn the_two_migration_folders_have_the_same_versions() {
        let names = |dialect: &str| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("migrations")
                .join(dialect);
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let (sqlite, postgres) = (names("sqlite"), names("postgres"));
        assert!(sqlite.len() >= 17, "{sqlite:?}");
        assert_eq!(sqlite, postgres);
        let versions =
            |m: &sqlx::migrate::Migrator| -> Vec<i64> { m.iter().map(|m| m.version).collect() };
        assert_eq!(
            versions(&super::SQLITE_MIGRATIONS),
            versions(&super::POSTGRES_MIGRATIONS)
        );
    }

    #[test]
    fn multi_row_insert_numbers_placeholders() {
        let sql = super::multi_row_insert("INSERT INTO t (a, b, c) VALUES ", &["$", "'x'", "$"], 2);
        assert_eq!(
            sql,
            "INSERT INTO t (a, b, c) VALUES ($1, 'x', $2), ($3, 'x', $4)"
        );
    }
}

mod charges;
mod claims;
mod credits;
mod device;
mod events;
mod feedback;
pub use events::utc_day_of;
mod after_sale;
mod limits;
mod nodes;
mod people;
mod pg_ledger;
mod prewarm;
mod sqlite_ledger;
mod urls;
