//! Hot reads on SQLite files, run on the calling thread.
//!
//! Through sqlx every query is two hops to and from sqlx's SQLite worker
//! thread; on a busy two-core machine those hops, not SQLite, were what a
//! signed-URL load cost (26k loads/s against 33k billed deliveries, which
//! also write). A primary-key read on a warm page cache takes microseconds,
//! less than the hops, so it runs right where it is asked for, on a
//! connection of its own from a small idle list. In WAL mode a reader never
//! waits for the writer, and each statement reads the newest committed
//! state, so a revocation committed by any process is seen by the next load.

use parking_lot::Mutex;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::sqlite_writer::sqlite_err;
use super::*;

/// Idle connections kept at most; more are opened under load and closed.
const MAX_IDLE: usize = 8;

#[derive(Debug)]
pub(super) struct SqliteReads {
    path: std::path::PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl SqliteReads {
    pub(super) fn new(path: &std::path::Path) -> SqliteReads {
        SqliteReads {
            path: path.to_owned(),
            idle: Mutex::new(Vec::new()),
        }
    }

    fn open(&self) -> Result<Connection, StoreError> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite_err)?;
        // A reader only waits in rare cases (WAL recovery after a crash);
        // never hold a runtime thread long for it.
        conn.busy_timeout(Duration::from_millis(100))
            .map_err(sqlite_err)?;
        Ok(conn)
    }

    /// One query's single row, or None, on an idle connection or a new one.
    pub(super) fn row<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        map: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>, StoreError> {
        let idle = self.idle.lock().pop();
        let conn = match idle {
            Some(conn) => conn,
            None => self.open()?,
        };
        let out = conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row(params, map).optional())
            .map_err(sqlite_err);
        let mut idle = self.idle.lock();
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
        out
    }
}
