//! Reads a harness's SQLite store without ever writing to it or locking it: the database and
//! its `-wal` are copied into a private temporary directory and the copy is opened read-only
//! (`file:…?mode=ro`), so the owner's files are never changed (SQLite opening a WAL database in
//! place, even read-only, creates or rewrites its `-wal`/`-shm`) and never locked. A store that
//! changes while it is copied, or whose copy cannot be read, is `Busy`: retried on the next pass.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, Row};

/// Why a store could not be read this pass.
#[derive(Debug, thiserror::Error)]
pub enum StoreReadError {
    /// The store changed while it was being copied, or SQLite reported it busy or locked:
    /// the next pass tries again.
    #[error("SQLite store {path} is busy (being written): retried on the next pass")]
    Busy { path: PathBuf },
    #[error("cannot copy SQLite store {path}: {source}")]
    Copy {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read SQLite store {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

/// A read-only connection to a private copy of a store; the copy is removed on drop.
pub struct Snapshot {
    pub connection: Connection,
    _dir: tempfile::TempDir,
}

/// The `-wal` beside a database.
pub fn wal_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// True when `bytes` start with the SQLite file header.
pub fn has_sqlite_header(bytes: &[u8]) -> bool {
    bytes.starts_with(b"SQLite format 3\0")
}

/// Size and modification time of a file, `None` when it does not exist.
pub(crate) fn stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let metadata = fs::metadata(path).ok()?;
    Some((metadata.len(), metadata.modified().ok()?))
}

/// Copies `database` (and its `-wal`) and opens the copy read-only.
pub fn open_snapshot(database: &Path) -> Result<Snapshot, StoreReadError> {
    let copy_error = |source| StoreReadError::Copy {
        path: database.to_path_buf(),
        source,
    };
    let dir = tempfile::Builder::new()
        .prefix("esker-sqlite-")
        .tempdir()
        .map_err(copy_error)?;
    let wal = wal_path(database);
    let before = (stamp(database), stamp(&wal));
    let copy = dir.path().join("store.db");
    fs::copy(database, &copy).map_err(copy_error)?;
    if before.1.is_some() {
        fs::copy(&wal, wal_path(&copy)).map_err(copy_error)?;
    }
    if (stamp(database), stamp(&wal)) != before {
        return Err(StoreReadError::Busy {
            path: database.to_path_buf(),
        });
    }
    let uri = format!("file:{}?mode=ro", copy.display());
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection =
        Connection::open_with_flags(&uri, flags).map_err(|source| classify(database, source))?;
    Ok(Snapshot {
        connection,
        _dir: dir,
    })
}

/// A SQLite error on `database`: busy, locked or a torn copy are `Busy` (retry), the rest an
/// error of that store.
pub fn classify(database: &Path, source: rusqlite::Error) -> StoreReadError {
    use rusqlite::ErrorCode;
    let transient = matches!(
        source.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked | ErrorCode::DatabaseCorrupt)
    );
    if transient {
        StoreReadError::Busy {
            path: database.to_path_buf(),
        }
    } else {
        StoreReadError::Sqlite {
            path: database.to_path_buf(),
            source,
        }
    }
}

/// The names of the tables of a store.
pub fn table_names(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare(include_str!("../../queries/sqlite_tables.sql"))?;
    let names = statement.query_map([], |row| row.get::<_, String>(0))?;
    names.collect()
}

/// Every session of a store with the stamp of its rows: `sql` returns the session id, then the
/// values that change when any of the session's rows change (update times, counts); the stamp
/// joins them with `|` (null as empty), so a session is re-read only when its stamp changed.
pub fn session_stamps(
    connection: &Connection,
    sql: &str,
) -> rusqlite::Result<Vec<(String, String)>> {
    let mut statement = connection.prepare(sql)?;
    let columns = statement.column_count();
    let rows = statement.query_map([], |row| {
        let id: String = row.get(0)?;
        let parts = (1..columns)
            .map(|index| Ok(stamp_part(row.get_ref(index)?)))
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok((id, parts.join("|")))
    })?;
    rows.collect()
}

/// One column of a row stamp as text.
fn stamp_part(value: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(number) => number.to_string(),
        ValueRef::Real(number) => number.to_string(),
        ValueRef::Text(text) | ValueRef::Blob(text) => String::from_utf8_lossy(text).into_owned(),
    }
}

/// The one row `sql` (with the single parameter `id`) returns, as a JSON object keyed by column
/// name: for tables whose columns vary by the owner's version. Blobs are left out (null).
pub fn row_as_object(
    connection: &Connection,
    sql: &str,
    id: &str,
) -> rusqlite::Result<serde_json::Map<String, serde_json::Value>> {
    let mut statement = connection.prepare(sql)?;
    let columns: Vec<String> = statement
        .column_names()
        .iter()
        .map(|name| name.to_string())
        .collect();
    statement.query_row([id], |row| {
        let mut object = serde_json::Map::new();
        for (index, column) in columns.iter().enumerate() {
            object.insert(column.clone(), json_of(row.get_ref(index)?));
        }
        Ok(object)
    })
}

/// Every row `sql` (with the single parameter `id`) returns, each as a JSON object keyed by
/// column name (blobs as null), in order.
pub fn rows_as_objects(
    connection: &Connection,
    sql: &str,
    id: &str,
) -> rusqlite::Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    let mut statement = connection.prepare(sql)?;
    let columns: Vec<String> = statement
        .column_names()
        .iter()
        .map(|name| name.to_string())
        .collect();
    let rows = statement.query_map([id], |row| {
        let mut object = serde_json::Map::new();
        for (index, column) in columns.iter().enumerate() {
            object.insert(column.clone(), json_of(row.get_ref(index)?));
        }
        Ok(object)
    })?;
    rows.collect()
}

/// Every row `sql` (with the single parameter `id`) returns, each made by `row_of`.
pub fn rows_of<T>(
    connection: &Connection,
    sql: &str,
    id: &str,
    row_of: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut statement = connection.prepare(sql)?;
    statement.query_map([id], row_of)?.collect()
}

/// Column `index` of `row`, JSON text, parsed; null when it is not JSON.
pub fn json_column(row: &Row<'_>, index: usize) -> rusqlite::Result<serde_json::Value> {
    let text: String = row.get(index)?;
    Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
}

/// A SQLite value as JSON (blobs as null).
fn json_of(value: rusqlite::types::ValueRef<'_>) -> serde_json::Value {
    use rusqlite::types::ValueRef;
    use serde_json::Value;
    match value {
        ValueRef::Null | ValueRef::Blob(_) => Value::Null,
        ValueRef::Integer(number) => Value::from(number),
        ValueRef::Real(number) => Value::from(number),
        ValueRef::Text(text) => Value::String(String::from_utf8_lossy(text).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_the_wal_and_leaves_the_store_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.db");
        let owner = Connection::open(&path).unwrap();
        owner
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; \
                 CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);",
            )
            .unwrap();
        let listing = |dir: &Path| {
            let mut names: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .map(|path| {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    (name, fs::read(&path).unwrap())
                })
                .collect();
            names.sort();
            names
        };
        let before = listing(dir.path());
        assert!(before.iter().any(|(name, _)| name == "owner.db-wal"));
        let snapshot = open_snapshot(&path).unwrap();
        let count: i64 = snapshot
            .connection
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 2, "rows still in the WAL are read");
        assert_eq!(table_names(&snapshot.connection).unwrap(), vec!["t"]);
        drop(snapshot);
        assert_eq!(
            listing(dir.path()),
            before,
            "the owner's files are unchanged"
        );
        owner.execute("INSERT INTO t VALUES (3)", []).unwrap();
    }
}
