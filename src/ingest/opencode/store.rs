//! OpenCode's `opencode.db` (or `opencode-<channel>.db`): recognised by its tables, read from
//! a private copy (`ingest::sqlite`). Each session has a row checkpoint (its update time and the
//! count and latest update of its messages and parts) so only changed sessions are re-read.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::Value;

use super::{MessageRecord, SessionRecord};
use crate::ingest::sqlite::{self, table_names};

/// A database file named like OpenCode's.
pub fn is_store_name(name: &str) -> bool {
    name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db"))
}

/// The store has OpenCode's session, message and part tables.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    Ok(["session", "message", "part"]
        .iter()
        .all(|table| tables.iter().any(|name| name == table)))
}

/// Every session id with the stamp of its rows.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../../queries/opencode_session_stamps.sql"),
    )
}

/// One session with its messages and parts.
pub fn read_session(connection: &Connection, id: &str) -> rusqlite::Result<SessionRecord> {
    let info: String = connection.query_row(
        include_str!("../../../queries/opencode_session.sql"),
        params![id],
        |row| row.get(0),
    )?;
    let info: Value = serde_json::from_str(&info).unwrap_or(Value::Null);
    let mut parts_by_message: BTreeMap<String, Vec<(String, Value)>> = BTreeMap::new();
    let parts = sqlite::rows_of(
        connection,
        include_str!("../../../queries/opencode_parts.sql"),
        id,
        |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                sqlite::json_column(row, 2)?,
            ))
        },
    )?;
    for (message, part, data) in parts {
        parts_by_message
            .entry(message)
            .or_default()
            .push((part, data));
    }
    let messages = sqlite::rows_of(
        connection,
        include_str!("../../../queries/opencode_messages.sql"),
        id,
        |row| Ok((row.get::<_, String>(0)?, sqlite::json_column(row, 1)?)),
    )?;
    let messages = messages
        .into_iter()
        .map(|(message, info)| MessageRecord {
            parts: parts_by_message.remove(&message).unwrap_or_default(),
            info,
            id: message,
        })
        .collect();
    Ok(SessionRecord {
        id: id.to_string(),
        info,
        messages,
    })
}

/// True for a file that may be an OpenCode store (decided by its schema once opened).
pub fn is_candidate(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(is_store_name)
}
