//! A Hermes home read as one store: its `state.db` and the session files of its `sessions/`
//! folder. The store's sessions are the database's `sessions` rows plus the sessions only a
//! file holds; a row's stamp (every column, the count and newest id of its messages) and the
//! size and time of its files decide which sessions are read again. A session is read from its
//! message rows, else (a row without messages, or no row) from its `session_<id>.json`, else
//! from its gateway `<id>.jsonl`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use super::{
    HermesSession, Message, SESSIONS_FOLDER, session_file_id, session_of_lines, session_of_log,
};
use crate::ingest::reader::{ReadLimits, stream_json_lines};
use crate::ingest::sqlite::{self, row_as_object, rows_as_objects, table_names};
use crate::model::ParseWarning;

/// `state.db` (or its `-wal`) of a Hermes home: named `.hermes`, a profile of one
/// (`profiles/<name>`), any folder holding a `sessions` folder (`$HERMES_HOME`), or a copy in a
/// folder whose name (or whose parent's) says `hermes` (the store's schema is checked before
/// anything is read).
pub fn is_store_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    if !matches!(name, Some("state.db" | "state.db-wal")) {
        return false;
    }
    let Some(home) = path.parent() else {
        return false;
    };
    let named = |folder: Option<&Path>, expected: &str| {
        folder
            .and_then(Path::file_name)
            .is_some_and(|name| name == expected)
    };
    let says_hermes = |folder: Option<&Path>| {
        folder
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.to_ascii_lowercase().contains("hermes"))
    };
    named(home.parent(), "profiles")
        || says_hermes(Some(home))
        || says_hermes(home.parent())
        || home.join(SESSIONS_FOLDER).is_dir()
}

/// Hermes's tables: `sessions` and `messages` with the columns the reader needs.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    let has = |name: &str| tables.iter().any(|table| table == name);
    if !has("sessions") || !has("messages") {
        return Ok(false);
    }
    Ok(connection
        .prepare(include_str!("../../../queries/hermes_probe.sql"))
        .is_ok())
}

/// The session files of a home, by session id: its JSON log and its gateway transcript.
#[derive(Debug, Default, Clone)]
pub struct SessionFiles {
    pub json: Option<PathBuf>,
    pub jsonl: Option<PathBuf>,
}

impl SessionFiles {
    /// The files in the order they are read from: the JSON log holds every message.
    fn in_order(&self) -> impl Iterator<Item = &PathBuf> {
        self.json.iter().chain(self.jsonl.iter())
    }
}

/// Every session file of the home whose `state.db` is `database`.
pub fn session_files(database: &Path) -> BTreeMap<String, SessionFiles> {
    let mut files: BTreeMap<String, SessionFiles> = BTreeMap::new();
    let folder = database.with_file_name(SESSIONS_FOLDER);
    let Ok(entries) = fs::read_dir(&folder) else {
        return files;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Some(id) = session_file_id(&path).filter(|_| path.is_file()) else {
            continue;
        };
        let found = files.entry(id).or_default();
        if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            found.jsonl = Some(path);
        } else {
            found.json = Some(path);
        }
    }
    files
}

/// The files whose change re-reads the store besides the database: its session files.
pub fn member_files(database: &Path) -> Vec<PathBuf> {
    session_files(database)
        .values()
        .flat_map(|files| files.in_order().cloned().collect::<Vec<_>>())
        .collect()
}

/// Size and modification time of the files, as text.
fn file_stamp(files: &SessionFiles) -> String {
    files
        .in_order()
        .map(|path| match fs::metadata(path) {
            Ok(metadata) => {
                let modified = metadata
                    .modified()
                    .ok()
                    .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |since| since.as_nanos());
                format!("{}:{}:{modified}", path.display(), metadata.len())
            }
            Err(_) => format!("{}:missing", path.display()),
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Every session with its stamp: the database's rows (with the stamp of their files) and the
/// sessions only a file holds.
pub fn session_stamps(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<Vec<(String, String)>> {
    let mut files = session_files(database);
    let mut stamps = sqlite::session_stamps(
        connection,
        include_str!("../../../queries/hermes_session_stamps.sql"),
    )?;
    for (id, stamp) in &mut stamps {
        if let Some(found) = files.remove(id.as_str()) {
            stamp.push_str("|files|");
            stamp.push_str(&file_stamp(&found));
        }
    }
    stamps.extend(
        files
            .into_iter()
            .map(|(id, found)| (id, format!("files|{}", file_stamp(&found)))),
    );
    Ok(stamps)
}

/// One session of the store: its row and messages, or its file when it has no message rows.
pub fn read_session(
    connection: &Connection,
    database: &Path,
    id: &str,
    limits: ReadLimits,
) -> rusqlite::Result<HermesSession> {
    let sql = include_str!("../../../queries/hermes_session.sql");
    let info = match row_as_object(connection, sql, id) {
        Ok(info) => Some(info),
        Err(rusqlite::Error::QueryReturnedNoRows) => None,
        Err(error) => return Err(error),
    };
    let rows = match info {
        Some(_) => rows_as_objects(
            connection,
            include_str!("../../../queries/hermes_messages.sql"),
            id,
        )?,
        None => Vec::new(),
    };
    let mut session = if rows.is_empty() {
        let files = session_files(database).remove(id).unwrap_or_default();
        read_files(id, &files, limits)
    } else {
        HermesSession {
            id: id.to_string(),
            messages: rows.into_iter().map(message_of_row).collect(),
            ..HermesSession::default()
        }
    };
    if let Some(info) = info {
        let parent = info
            .get("parent_session_id")
            .and_then(Value::as_str)
            .map(|parent| row_as_object(connection, sql, parent))
            .transpose();
        session.parent = match parent {
            Ok(parent) => parent.unwrap_or_default(),
            Err(rusqlite::Error::QueryReturnedNoRows) => Default::default(),
            Err(error) => return Err(error),
        };
        session.info = info;
    }
    Ok(session)
}

/// A `messages` row as a message keyed by its row id.
fn message_of_row(row: serde_json::Map<String, Value>) -> Message {
    let row_id = row.get("id").and_then(Value::as_i64).unwrap_or_default();
    Message {
        key: format!("row.{row_id}"),
        line: u64::try_from(row_id).unwrap_or_default(),
        value: Value::Object(row),
    }
}

/// A session read from its first readable file (a problem is a warning, not an error).
fn read_files(id: &str, files: &SessionFiles, limits: ReadLimits) -> HermesSession {
    let mut warnings = Vec::new();
    for path in files.in_order() {
        match read_file(id, path, limits) {
            Ok(mut session) => {
                warnings.append(&mut session.warnings);
                session.warnings = warnings;
                return session;
            }
            Err(message) => warnings.push(ParseWarning { line: 0, message }),
        }
    }
    HermesSession {
        id: id.to_string(),
        warnings,
        ..HermesSession::default()
    }
}

fn read_file(id: &str, path: &Path, limits: ReadLimits) -> Result<HermesSession, String> {
    let problem = |error: &dyn std::fmt::Display| format!("{}: {error}", path.display());
    let file = fs::File::open(path).map_err(|error| problem(&error))?;
    if path
        .extension()
        .is_some_and(|extension| extension == "jsonl")
    {
        let streamed = stream_json_lines(file, limits).map_err(|error| problem(&error))?;
        let mut session = session_of_lines(id.to_string(), &streamed.split.lines);
        session.warnings = streamed.split.malformed;
        return Ok(session);
    }
    let size = file.metadata().map_err(|error| problem(&error))?.len();
    if size > limits.max_json_file_bytes {
        return Err(problem(&format!(
            "larger than {} bytes, skipped",
            limits.max_json_file_bytes
        )));
    }
    let log: Value = serde_json::from_reader(std::io::BufReader::new(file))
        .map_err(|error| problem(&format!("not JSON ({error}), skipped")))?;
    Ok(session_of_log(id.to_string(), &log))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DATABASE: &str = "state.db";

    fn home_with_store() -> tempfile::TempDir {
        let home = tempfile::tempdir().expect("temp dir");
        let hermes = home.path().join(".hermes");
        fs::create_dir_all(hermes.join("sessions")).expect("mkdir");
        let connection = Connection::open(hermes.join(DATABASE)).expect("open");
        connection
            .execute_batch(
                "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, \
                 parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, \
                 message_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, \
                 output_tokens INTEGER DEFAULT 0); \
                 CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, \
                 role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, \
                 timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT); \
                 INSERT INTO sessions VALUES ('a', 'cli', 'm', NULL, 1790000000.0, 1790000100.0, \
                 'compression', 2, 10, 5); \
                 INSERT INTO sessions VALUES ('b', 'cli', 'm', 'a', 1790000100.0, NULL, NULL, 0, 0, 0); \
                 INSERT INTO messages (session_id, role, content, timestamp) VALUES \
                 ('a', 'user', 'hello', 1790000001.0), ('a', 'assistant', 'hi', 1790000002.0);",
            )
            .expect("schema");
        let log = json!({"session_id": "b", "model": "m", "platform": "cli",
            "session_start": "2026-09-21T12:01:40", "messages": [
                {"role": "user", "content": "go on"}, {"role": "assistant", "content": "done"}]});
        fs::write(hermes.join("sessions/session_b.json"), log.to_string()).expect("write");
        fs::write(hermes.join("sessions/c.jsonl"), "{\"role\": \"user\", \"content\": \"x\", \"timestamp\": \"2026-09-21T12:00:00\"}\nnot json\n{\"role\": \"assistant\", \"content\": \"y\", \"timestamp\": \"2026-09-21T12:00:01\"}\n").expect("write");
        home
    }

    #[test]
    fn rows_and_files_make_one_session_each() {
        let home = home_with_store();
        let database = home.path().join(".hermes").join(DATABASE);
        assert!(is_store_path(&database));
        assert!(is_store_path(Path::new(
            "/corpus/hermes/kingyx3_hermes/state.db"
        )));
        assert!(!is_store_path(Path::new("/srv/app/state.db")));
        let connection = Connection::open(&database).expect("open");
        assert!(has_schema(&connection).expect("schema"));
        let stamps = session_stamps(&connection, &database).expect("stamps");
        let ids: Vec<&str> = stamps.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        let limits = ReadLimits::default();

        let a = read_session(&connection, &database, "a", limits).expect("a");
        assert_eq!(a.messages.len(), 2);
        assert_eq!(a.messages[0].key, "row.1");
        let b = read_session(&connection, &database, "b", limits).expect("b");
        assert_eq!(
            b.messages.len(),
            2,
            "a row without messages is read from its file"
        );
        assert_eq!(b.messages[0].key, "message.0");
        let parsed = super::super::parse_session(&b);
        let meta = &parsed.sessions[0].meta;
        assert_eq!(
            meta.forked_from_native_id.as_deref(),
            Some("a"),
            "a compression split continues its parent"
        );
        assert_eq!(meta.parent_native_id, None);
        let c = read_session(&connection, &database, "c", limits).expect("c");
        assert_eq!(c.messages.len(), 2);
        assert_eq!(
            c.warnings.len(),
            1,
            "the line that is not JSON is one warning"
        );
    }
}
