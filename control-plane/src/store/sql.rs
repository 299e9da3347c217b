//! The implementation of every store trait, for SQLite and PostgreSQL.
//!
//! This file holds the pool, the migrations, the error mapping and the
//! writers several ports share (grants, keys, balance moves); `sql/` holds
//! one adapter file per port (`accounts.rs`, `jobs.rs`, `urls.rs`, ...).
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

mod accounts;
mod charges;
mod claims;
mod credits;
mod deliveries;
mod device;
mod events;
mod feedback;
mod jobs;
mod ledger;
pub use events::utc_day_of;
mod after_sale;
mod limits;
mod nodes;
mod people;
mod pg_ledger;
mod prewarm;
mod sqlite_ledger;
mod urls;
