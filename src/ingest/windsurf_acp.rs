//! Windsurf 2.x's and Devin Desktop's ACP agent-window sessions: one event log per session,
//! `<user dir>/acp-events/<uuid>.ndjson`, read with the session's entries in the global
//! `<user dir>/globalStorage/state.vscdb` beside it. `<user dir>` is the `User` directory of
//! Windsurf, Windsurf Next, Devin Desktop or Devin Desktop Next (`ingest::locations`).
//!
//! The log is append-only, one ACP `session/update` notification a line: `{providerId?,
//! notification: {sessionUpdate, content, toolCallId?, title?, kind?, status?, rawInput?,
//! rawOutput?, _meta}}` (an envelope `notification: {sessionId, update: {...}}` is read too).
//! Devin's facts are in `_meta`: `cognition.ai/timestamp` (ISO time), `cognition.ai/clientMessageId`
//! (the user message a chunk belongs to), `cognition.ai/streamingMessageId` (the agent message or
//! thought), `cognition.ai/inferenceToolName`, `cognition.ai/exitCode`. What is read:
//! - `user_message_chunk` / `agent_message_chunk` / `agent_thought_chunk`: the prompt (opens a
//!   turn), the reply, the reasoning. Chunks with the same message id are one event wherever they
//!   are in the log (a prompt's blocks joined by line breaks, streamed pieces as they are); a
//!   chunk without an id joins the chunk of its kind just before it;
//! - `tool_call`: a call named by `cognition.ai/inferenceToolName`, else its `title`, with its
//!   `rawInput` as arguments; the first `tool_call_update` of a call with status `completed` or
//!   `failed` is its result (`failed`, or a non-zero exit code, is an error), its text the
//!   update's `content`, else its `rawOutput` (the ACP helpers of `ingest::grok`);
//! - `session_info_update {title}`: the title, when the store names none.
//!
//! `plan`, `usage_update` (context size and cost: no token counts), `current_mode_update` and
//! `available_commands_update` are UI state, not read; a line of any other kind is skipped with
//! one warning per kind. A half-written last line is held back and read once complete
//! (`ingest::lines`); the file is re-read whole, its events keyed by line (messages by their
//! first chunk's) and by call id, so an appended line adds only its own.
//!
//! The global store is read through `ingest::sqlite` (a private read-only copy with its `-wal`),
//! and only these keys of its `ItemTable`, which also holds Windsurf's plaintext API key
//! (`windsurfAuthStatus`): `windsurf.acp.eventLog.index` (`{<sessionId>: {uuid, eventCount,
//! lastUpdated}}`: which log is whose), `windsurf.acp.metadataCache` (`{version, sessions:
//! [{sessionId, providerId, title, cwd (a path or a `file://` URI), workspaceDirs, configOptions
//! [{id: "model", currentValue}], _meta {"cognition.ai/createdAt"}}]}`), and the rows
//! `windsurf.acp.sessioninfo.session.<sessionId>` (`{providerId, info {title, cwd, configOptions,
//! _meta}}`) for a session the cache no longer lists. They give the session's id (its ACP
//! `sessionId`, such as `acp/devin-cli/<name>`; else the log's uuid), title, cwd (else
//! `workspaceDirs[0]`), model, start, and its ACP provider (`devin-cli`, `devin-cloud`, `codex`,
//! `cascade`), kept as the session's agent name: every session is Windsurf's.
//! The store's facts are read once per change of the store (not once per log) and kept for the
//! process; a store that cannot be read leaves each log read alone, and read again with its
//! facts once the store can be read (they are the log's sidecar, hashed in its checkpoint).
//!
//! A `devin-cli` session is the Devin CLI run by the window, which records it too, as `<name>`
//! (`ingest::devin`, `docs/HARNESS-RESEARCH.md` section 6). When the CLI of the same home
//! indexes `<name>` (its `sessions` row not hidden, or its trajectory written), the session's
//! facts hold the CLI's copy and the client message ids of its prompts (`ingest::devin_pair`:
//! hashed with the facts, so the log or store is read again when the CLI's copy appears or
//! goes); a session one of whose prompts' `cognition.ai/clientMessageId` is among them is the
//! CLI's, and this copy gives no session (and no sub-agent session), only a warning saying
//! so. A name the CLI holds with no shared prompt keeps both copies. (A message store the global
//! store does not name is paired by its own `info` when read, but read again for a change of
//! the CLI's copy only once the store itself changes.)
//!
//! Current builds keep a session in a message store instead, `<user dir>/acp-messages/<uuid>.db`
//! (SQLite, WAL; one session a file, read through `ingest::sqlite` as a store of
//! `indexer::grouped`): `meta(key, value)` (`schema_version`, `info` (the ACP session info:
//! `title`, `cwd`, `configOptions`, `_meta`), `message_count`, `truncated`) and `messages
//! (position, kind, payload)`, one message a row, rewritten in place while it streams. A row's
//! payload is `{kind, id?, content, sourceEventTimestampMs?, userEdits?}`: for `user_message`,
//! `agent_message` and `agent_thought` `content` is the message's chunks (the `session/update`
//! notifications above, `sessionUpdate` sometimes left out: the row's kind says it); for
//! `tool_call` it is the call as it last stood (`toolCallId`, `title`, `status`, `rawInput`,
//! `rawOutput`, `content`, `_meta`, whose `terminal_exit {exit_code}` is a shell's exit code),
//! read as a `tool_call` that may carry its own result. A row is one message (chunks without an
//! id join only within it); events are keyed by position and call id. `plan` rows are UI state.
//! A `subagent` row (`{agentId, title, task, profile, status, isBackground, toolCallId?,
//! childMessages}`) is a sub-agent the session started: a `system` event of the session (subtype
//! `subagent`, key `subagent.<agentId>`, the row's fields as payload; a row rewritten keeps it),
//! and, when its `childMessages` (rows of the same shapes) hold anything, a child session
//! `<session id>-sub-<agentId>` naming the session as its parent (title, profile as agent name;
//! its own sub-agents in turn, four deep). The child's id is listed (`subagent_session_ids`) in
//! the row's event and in the result of the `run_subagent` call that started it (the call the
//! row's `toolCallId` names, else the one `run_subagent` call whose `task` argument is the
//! row's, as a public TypeScript reader matches them). Any other kind is skipped with one
//! warning; a store whose `meta` says `truncated` (Devin keeps a capped history) says so in a
//! warning. The global store names the store by `windsurf.acp.messageStore.session.<sessionId>`
//! rows (`{uuid, lastUpdated}`) or the `windsurf.acp.messageStore.index` key (`{<sessionId>:
//! {uuid}}`); without it, the store's own `info` gives the facts, and the file's uuid the id.
//! Not read: the `devin.acp.*` keys one Devin Desktop script tries first.
//!
//! Sources: issue #49's research (`docs/HARNESS-RESEARCH.md`, sections 4 and 6): the keys and
//! value shapes as two independent public Devin Desktop readers (a TypeScript provider, a Rust
//! reader) read them, and the Windsurf bundle's `acp-messages` store; the message store as seven
//! public readers of it read it (a TypeScript provider and its test, a Go capture and its test,
//! a Rust adapter, Python exporters) and as a schema spec verified on real stores gives its
//! tables. `subagent` rows as three public readers read them (a Python exporter: the fields and
//! nested `childMessages`, read four deep; a TypeScript reader: `agentId`, `toolCallId`, the
//! `run_subagent` call matched by `task`, the child read from `childMessages` as a session of
//! its own; a Python dashboard: `childMessages`' `tool_call` rows). No real log or store was
//! available: the fixtures are hand-made in those shapes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde_json::{Map, Value, json};

use super::content::{
    UNKNOWN_TOOL, epoch_time, mark_terminal_replies, plain_event, text_field, tool_call,
    tool_response,
};
use super::cursor::ide_store::{json_of, read_item};
use super::devin_pair;
use super::grok::{chunk_text, exit_code, is_terminal, update_result_text};
use super::lines::JsonLine;
use super::sqlite::{StoreReadError, open_snapshot, rows_of, stamp, table_names, wal_path};
use super::vscode_copilot::folder_of_uri;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source,
    parse_timestamp, tool_call_text,
};

/// The folder of a `User` directory holding the event logs.
pub const EVENTS_FOLDER: &str = "acp-events";
const EVENTS_EXTENSION: &str = "ndjson";
/// The folder of a `User` directory holding the message stores (current builds).
pub const MESSAGES_FOLDER: &str = "acp-messages";

/// The `ItemTable` keys read: the log index, the metadata cache, the session-info rows' prefix,
/// the message stores' index and their rows' prefix.
const EVENT_LOG_INDEX_KEY: &str = "windsurf.acp.eventLog.index";
const METADATA_KEY: &str = "windsurf.acp.metadataCache";
const SESSION_INFO_PREFIX: &str = "windsurf.acp.sessioninfo.session.";
const MESSAGE_STORE_INDEX_KEY: &str = "windsurf.acp.messageStore.index";
const MESSAGE_STORE_PREFIX: &str = "windsurf.acp.messageStore.session.";
/// The rows whose key starts with `?1` (one of the prefixes), and no other.
const PREFIX_SQL: &str = "SELECT key, value FROM ItemTable WHERE substr(key, 1, length(?1)) = ?1";

/// Devin's `_meta` fields.
const TIMESTAMP: &str = "cognition.ai/timestamp";
const CLIENT_MESSAGE_ID: &str = "cognition.ai/clientMessageId";
const STREAMING_MESSAGE_ID: &str = "cognition.ai/streamingMessageId";
const TOOL_NAME: &str = "cognition.ai/inferenceToolName";
const EXIT_CODE: &str = "cognition.ai/exitCode";
const CREATED_AT: &str = "cognition.ai/createdAt";
/// A shell call's exit, `{exit_code}`, in a message store's call `_meta`.
const TERMINAL_EXIT: &str = "terminal_exit";

/// Updates that are UI state: not read, not warned about.
const UNREAD_UPDATES: [&str; 4] = [
    "plan",
    "usage_update",
    "current_mode_update",
    "available_commands_update",
];

/// A message store's row of a sub-agent the session started: `{kind, agentId, title, task,
/// profile, status, isBackground, childMessages [rows of its own]}`.
const SUBAGENT_KIND: &str = "subagent";
/// The fields of a `subagent` row kept in its parent's event.
const SUBAGENT_FIELDS: [&str; 7] = [
    "agentId",
    "title",
    "task",
    "profile",
    "status",
    "isBackground",
    "toolCallId",
];
/// How deep sub-agents of sub-agents are read.
const SUBAGENT_DEPTH: usize = 4;
/// The tool Devin delegates with; its `task` argument names the sub-agent it started.
const SUBAGENT_TOOL: &str = "run_subagent";

/// Message-store rows that are UI state: not read, not warned about.
const UNREAD_MESSAGES: [&str; 1] = ["plan"];

/// Why a global store's ACP keys could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AcpStoreError {
    #[error(transparent)]
    Snapshot(#[from] StoreReadError),
    #[error("cannot read the ACP keys of {path}: {source}")]
    Keys {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

/// An event log: a `.ndjson` file in an `acp-events` folder.
pub fn is_event_log_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == EVENTS_EXTENSION)
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|folder| folder == EVENTS_FOLDER)
}

/// The `User` directory an event log or a message store is in.
fn user_dir_of(path: &Path) -> Option<&Path> {
    path.parent()?.parent()
}

/// The global store of the `User` directory an event log is in.
pub fn global_store_of(log: &Path) -> Option<PathBuf> {
    let user = user_dir_of(log)?;
    Some(user.join("globalStorage").join("state.vscdb"))
}

/// An ACP event log: lines whose `notification` names its `sessionUpdate`.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| update_of(&line.value).is_some())
}

/// The update of a line and its `sessionUpdate` kind: the notification itself, or its `update`.
fn update_of(record: &Value) -> Option<(&Value, &str)> {
    let notification = record.get("notification")?;
    let update = match notification.get("sessionUpdate") {
        Some(_) => notification,
        None => notification.get("update")?,
    };
    let kind = update.get("sessionUpdate")?.as_str()?;
    Some((update, kind))
}

/// A field of a value's `_meta` (Devin's names hold `/`, so no JSON pointer).
fn meta_value<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    value.get("_meta")?.get(name)
}

/// A text field of a value's `_meta`, trimmed, when not empty.
fn meta_text(value: &Value, name: &str) -> Option<String> {
    meta_value(value, name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

// ---------------------------------------------------------------------------------------------
// The global store

/// The size and time of a store and of its `-wal` when its facts were read.
type StoreStamp = [Option<(u64, SystemTime)>; 2];

/// The session facts of one store by event-log uuid, as read at one stamp.
struct CachedFacts {
    stamp: StoreStamp,
    sessions: Arc<HashMap<String, Value>>,
}

/// The facts of every global store read in this process, read again when the store changes.
static FACTS: Mutex<BTreeMap<PathBuf, CachedFacts>> = Mutex::new(BTreeMap::new());

/// The facts of the session whose log is at `path` (see [`facts_of`]), from the global store
/// of its `User` directory, with what the Devin CLI holds of it ([`with_cli_copy`]); `None`
/// when the store is missing, cannot be read or does not name the log.
pub fn read_sidecar(path: &Path) -> Option<Value> {
    global_facts(path).map(|facts| with_cli_copy(path, facts))
}

/// The global store's facts of the session whose log or message store is at `path`.
fn global_facts(path: &Path) -> Option<Value> {
    let uuid = path.file_stem()?.to_str()?;
    let database = global_store_of(path)?;
    if !database.is_file() {
        return None;
    }
    match store_facts(&database) {
        Ok(sessions) => sessions.get(uuid).cloned(),
        Err(error) => {
            tracing::debug!(store = %database.display(), %error, "Windsurf ACP keys not read");
            None
        }
    }
}

/// `facts` with, for a `devin-cli` session (`acp/devin-cli/<name>`) the Devin CLI of the same
/// home indexes, the CLI's copy ([`devin_pair::CliCopy`], under [`devin_pair::FACTS_KEY`]): part
/// of what the log's (or the store's) checkpoint hashes, so a CLI copy that appears or goes
/// reads the session again; the parser leaves a session whose prompts the CLI's share to it.
fn with_cli_copy(path: &Path, mut facts: Value) -> Value {
    let Some(user) = user_dir_of(path) else {
        return facts;
    };
    let Some(session_id) = text_field(&facts, "sessionId") else {
        return facts;
    };
    let Some(name) = devin_pair::cli_name(&session_id) else {
        return facts;
    };
    let copy = devin_pair::cli_copy(user, name, || devin_cli_names(user));
    if let (Some(copy), Value::Object(fields)) = (copy, &mut facts) {
        fields.insert(devin_pair::FACTS_KEY.to_string(), copy.to_json());
    }
    facts
}

/// The CLI names of every `devin-cli` session the global store of `user` names (read with the
/// one looked up, when the CLI's store must be read).
fn devin_cli_names(user: &Path) -> Vec<String> {
    let database = user.join("globalStorage").join("state.vscdb");
    if !database.is_file() {
        return Vec::new();
    }
    let Ok(sessions) = store_facts(&database) else {
        return Vec::new();
    };
    let mut names: Vec<String> = sessions
        .values()
        .filter_map(|facts| facts.get("sessionId")?.as_str())
        .filter_map(devin_pair::cli_name)
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether the Devin CLI of the same home indexes the session the global store names for the
/// log or message store at `path` (its facts hold the CLI's copy): how `esker doctor` tells a
/// Desktop copy left to the CLI's from a file that held nothing.
pub fn is_left_to_cli_copy(path: &Path) -> bool {
    read_sidecar(path).is_some_and(|facts| facts.get(devin_pair::FACTS_KEY).is_some())
}

/// The facts of `database`: kept from an earlier read while the store and its `-wal` are
/// unchanged, else read now.
fn store_facts(database: &Path) -> Result<Arc<HashMap<String, Value>>, AcpStoreError> {
    let now: StoreStamp = [stamp(database), stamp(&wal_path(database))];
    let mut cache = FACTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(cached) = cache.get(database).filter(|cached| cached.stamp == now) {
        return Ok(Arc::clone(&cached.sessions));
    }
    let sessions = Arc::new(read_store_facts(database)?);
    cache.insert(
        database.to_path_buf(),
        CachedFacts {
            stamp: now,
            sessions: Arc::clone(&sessions),
        },
    );
    Ok(sessions)
}

/// Reads the ACP keys of a private copy of `database` into each log's and message store's
/// facts.
fn read_store_facts(database: &Path) -> Result<HashMap<String, Value>, AcpStoreError> {
    let snapshot = open_snapshot(database)?;
    let keys_error = |source| AcpStoreError::Keys {
        path: database.to_path_buf(),
        source,
    };
    let connection = &snapshot.connection;
    let logs = read_item(connection, EVENT_LOG_INDEX_KEY).map_err(keys_error)?;
    let cache = read_item(connection, METADATA_KEY).map_err(keys_error)?;
    let infos = read_prefixed(connection, SESSION_INFO_PREFIX).map_err(keys_error)?;
    let stores_index = read_item(connection, MESSAGE_STORE_INDEX_KEY).map_err(keys_error)?;
    let stores = read_prefixed(connection, MESSAGE_STORE_PREFIX).map_err(keys_error)?;
    let indexes = [logs, stores_index, Some(Value::Object(stores))];
    Ok(session_facts(&indexes, cache.as_ref(), &infos))
}

/// The rows whose key starts with `prefix` and whose value is JSON, by the rest of their key
/// (a session id).
fn read_prefixed(connection: &Connection, prefix: &str) -> rusqlite::Result<Map<String, Value>> {
    let rows = rows_of(connection, PREFIX_SQL, prefix, |row| {
        Ok((row.get::<_, String>(0)?, json_of(row.get_ref(1)?)))
    })?;
    Ok(rows
        .into_iter()
        .filter_map(|(key, value)| {
            let session_id = key.strip_prefix(prefix)?;
            Some((session_id.to_string(), value?))
        })
        .collect())
}

/// Each log's and message store's facts by its uuid: every session an index (`{<sessionId>:
/// {uuid, ...}}`: the event-log index, the message-store index, the message-store rows) names,
/// with its metadata-cache entry and its session-info row.
fn session_facts(
    indexes: &[Option<Value>],
    cache: Option<&Value>,
    infos: &Map<String, Value>,
) -> HashMap<String, Value> {
    let cached: HashMap<&str, &Value> = cache
        .and_then(|cache| cache.get("sessions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|session| Some((session.get("sessionId")?.as_str()?, session)))
        .collect();
    indexes
        .iter()
        .flatten()
        .filter_map(Value::as_object)
        .flatten()
        .filter_map(|(session_id, entry)| {
            let uuid = entry.get("uuid")?.as_str()?;
            let cached_entry = cached.get(session_id.as_str()).copied();
            let facts = facts_of(session_id, cached_entry, infos.get(session_id));
            Some((uuid.to_string(), facts))
        })
        .collect()
}

/// What esker reads of one session, from its metadata-cache entry, else its session-info row:
/// `{sessionId, providerId, title, cwd, model, createdAt}` (those known). Only these are kept,
/// so the log's checkpoint changes only when they do.
fn facts_of(session_id: &str, cached: Option<&Value>, info: Option<&Value>) -> Value {
    let described: Vec<&Value> = cached
        .into_iter()
        .chain(info.and_then(|info| info.get("info")))
        .collect();
    let first =
        |read: fn(&Value) -> Option<String>| described.iter().find_map(|&entry| read(entry));
    let provider = first(|entry| text_field(entry, "providerId"))
        .or_else(|| info.and_then(|info| text_field(info, "providerId")));
    let mut facts = Map::new();
    facts.insert("sessionId".to_string(), Value::from(session_id));
    let texts = [
        ("providerId", provider),
        ("title", first(|entry| text_field(entry, "title"))),
        ("cwd", first(session_cwd)),
        ("model", first(model_of)),
    ];
    for (name, value) in texts {
        if let Some(value) = value {
            facts.insert(name.to_string(), Value::String(value));
        }
    }
    let created = described
        .iter()
        .find_map(|&entry| meta_value(entry, CREATED_AT).filter(|time| !time.is_null()));
    if let Some(created) = created {
        facts.insert("createdAt".to_string(), created.clone());
    }
    Value::Object(facts)
}

/// A session's folder: its `cwd` (a path or a `file://` URI), else its first workspace folder.
fn session_cwd(session: &Value) -> Option<String> {
    let folders = session.get("workspaceDirs").and_then(Value::as_array);
    text_field(session, "cwd")
        .and_then(|cwd| path_of(&cwd))
        .or_else(|| folders?.iter().filter_map(Value::as_str).find_map(path_of))
}

/// A folder given as a path or a URI, as a path.
fn path_of(location: &str) -> Option<String> {
    if location.contains("://") {
        folder_of_uri(location)
    } else {
        Some(location.to_string()).filter(|path| !path.is_empty())
    }
}

/// A session's model: the `currentValue` of its `configOptions` entry with id `model`.
fn model_of(session: &Value) -> Option<String> {
    session
        .get("configOptions")?
        .as_array()?
        .iter()
        .find(|option| option.get("id").and_then(Value::as_str) == Some("model"))
        .and_then(|option| text_field(option, "currentValue"))
}

// ---------------------------------------------------------------------------------------------
// The message store

/// One message store's session: its `meta` rows, its messages in order, and its facts.
#[derive(Debug, Clone)]
pub struct MessageStore {
    /// The store's uuid (its file's name).
    pub uuid: String,
    /// `meta` by key, each value parsed as JSON when it is JSON (else kept as text).
    pub meta: Map<String, Value>,
    pub messages: Vec<StoredMessage>,
    /// The global store's facts of the session ([`read_sidecar`]), each missing one taken from
    /// the store's own `info`.
    pub facts: Option<Value>,
}

/// One row of a message store's `messages`.
#[derive(Debug, Clone)]
pub struct StoredMessage {
    pub position: i64,
    pub kind: String,
    /// The row's JSON payload (null when it is not JSON).
    pub payload: Value,
}

/// A message store (or its `-wal`): a `.db` file in an `acp-messages` folder.
pub fn is_message_store_path(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    (name.ends_with(".db") || name.ends_with(".db-wal"))
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|folder| folder == MESSAGES_FOLDER)
}

/// A message store's tables: `meta` and `messages` with the columns the reader needs.
pub fn has_message_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    let has = |name: &str| tables.iter().any(|table| table == name);
    if !has("meta") || !has("messages") {
        return Ok(false);
    }
    Ok(connection
        .prepare(include_str!(
            "../../queries/windsurf_acp_messages_probe.sql"
        ))
        .is_ok())
}

/// The store's one session, named as [`parse_message_store`] names it, with the stamp of its
/// rows and of its facts (a title changed in the global store alone reads it again); nothing
/// while it holds no message (a cloud session's local placeholder, an unsent draft).
pub fn message_store_stamps(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<Vec<(String, String)>> {
    let (rows, newest, size) = connection.query_row(
        include_str!("../../queries/windsurf_acp_messages_stamp.sql"),
        [],
        |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, Option<i64>>(2)?,
            ))
        },
    )?;
    if rows == 0 {
        return Ok(Vec::new());
    }
    let meta = read_meta(connection)?;
    let facts = store_facts_of(database, &meta);
    let id = text_field(&facts, "sessionId").unwrap_or_else(|| uuid_of(database));
    let newest = newest.unwrap_or(-1);
    let size = size.unwrap_or(0);
    Ok(vec![(id, format!("{rows}|{newest}|{size}|{facts}"))])
}

/// What the global store says of the message store at `database`, for the store's fingerprint
/// (empty when it says nothing).
pub fn message_store_facts(database: &Path) -> String {
    read_sidecar(database)
        .map(|facts| facts.to_string())
        .unwrap_or_default()
}

/// The store's session: its `meta` rows, its messages in order and its facts.
pub fn read_message_store(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<MessageStore> {
    let meta = read_meta(connection)?;
    let mut statement =
        connection.prepare(include_str!("../../queries/windsurf_acp_messages.sql"))?;
    let rows = statement.query_map([], |row| {
        Ok(StoredMessage {
            position: row.get(0)?,
            kind: text_of(row.get_ref(1)?).unwrap_or_default(),
            payload: json_of(row.get_ref(2)?).unwrap_or(Value::Null),
        })
    })?;
    let messages = rows.collect::<rusqlite::Result<Vec<StoredMessage>>>()?;
    let facts = Some(store_facts_of(database, &meta)).filter(Value::is_object);
    Ok(MessageStore {
        uuid: uuid_of(database),
        meta,
        messages,
        facts,
    })
}

/// The `meta` rows by key, each value parsed as JSON when it is JSON.
fn read_meta(connection: &Connection) -> rusqlite::Result<Map<String, Value>> {
    let mut statement = connection.prepare(include_str!("../../queries/windsurf_acp_meta.sql"))?;
    let rows = statement.query_map([], |row| {
        let key = text_of(row.get_ref(0)?).unwrap_or_default();
        let value = match text_of(row.get_ref(1)?) {
            Some(text) => serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text)),
            None => Value::Null,
        };
        Ok((key, value))
    })?;
    rows.collect()
}

/// A SQLite value as text (numbers written out; null as `None`).
fn text_of(value: rusqlite::types::ValueRef<'_>) -> Option<String> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        ValueRef::Integer(number) => Some(number.to_string()),
        ValueRef::Real(number) => Some(number.to_string()),
        ValueRef::Null => None,
    }
}

/// A message store's uuid: its file's name.
fn uuid_of(database: &Path) -> String {
    database
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session")
        .to_string()
}

/// A store's facts: the global store's ([`read_sidecar`]), each missing one taken from the
/// store's own `info` (the ACP session info the window saved with it), with what the Devin CLI
/// holds of the session ([`with_cli_copy`]); null when neither says anything.
fn store_facts_of(database: &Path, meta: &Map<String, Value>) -> Value {
    let global = global_facts(database).filter(Value::is_object);
    let own = meta
        .get("info")
        .filter(|info| info.is_object())
        .map(|info| {
            let session_id = text_field(info, "sessionId").unwrap_or_else(|| uuid_of(database));
            let mut row = Map::new();
            row.insert("info".to_string(), info.clone());
            facts_of(&session_id, None, Some(&Value::Object(row)))
        });
    let facts = match (global, own) {
        (Some(Value::Object(mut facts)), Some(Value::Object(own))) => {
            for (name, value) in own {
                facts.entry(name).or_insert(value);
            }
            Value::Object(facts)
        }
        (Some(facts), _) => facts,
        (None, Some(own)) => own,
        (None, None) => return Value::Null,
    };
    with_cli_copy(database, facts)
}

/// Whether the store says it holds only the newest messages (`truncated`, in `meta` or its
/// `info`).
fn is_truncated(meta: &Map<String, Value>) -> bool {
    let flag = match meta.get("truncated") {
        Some(Value::Bool(truncated)) => *truncated,
        Some(Value::Number(number)) => number.as_i64() == Some(1),
        Some(Value::String(text)) => text == "1" || text == "true",
        _ => false,
    };
    let in_info = meta
        .get("info")
        .and_then(|info| info.get("truncated"))
        .and_then(Value::as_bool);
    flag || in_info == Some(true)
}

/// Parses one message store: its rows in position order, its facts.
pub fn parse_message_store(path: &Path, store: &MessageStore) -> ParseOutput {
    let facts = store.facts.as_ref().filter(|facts| facts.is_object());
    let mut parser = Parser::with_facts(facts);
    for message in &store.messages {
        parser.message_row(message);
    }
    if is_truncated(&store.meta) {
        parser.warnings.push(ParseWarning {
            line: 0,
            message: format!(
                "ACP message store {}: truncated, it holds only the newest messages",
                store.uuid
            ),
        });
    }
    session_output(path, parser, facts)
}

// ---------------------------------------------------------------------------------------------
// The event log

/// Parses one event log, with its session's facts ([`read_sidecar`]) when the store has them.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&Value>) -> ParseOutput {
    let facts = sidecar.filter(|facts| facts.is_object());
    let mut parser = Parser::with_facts(facts);
    for line in lines {
        parser.record(line);
    }
    session_output(path, parser, facts)
}

/// The session a log or a message store holds: the parser's events, its facts from `facts`
/// (else what its records said, else the file's name for its id).
fn session_output(path: &Path, mut parser: Parser, facts: Option<&Value>) -> ParseOutput {
    parser.finish();
    if let Some(copy) = confirmed_cli_copy(facts, &parser) {
        let mut warnings = parser.warnings;
        warnings.push(ParseWarning {
            line: 0,
            message: format!(
                "Devin Desktop copy of CLI session {}: the CLI's copy is indexed",
                copy.name
            ),
        });
        return ParseOutput {
            sessions: Vec::new(),
            warnings,
        };
    }
    let fact = |name: &str| facts.and_then(|facts| text_field(facts, name));
    let meta = SessionMeta {
        title: fact("title").or(parser.title.take()),
        cwd: fact("cwd"),
        model: parser.model.clone(),
        agent_name: fact("providerId").or(parser.provider.take()),
        started_at: facts
            .and_then(|facts| facts.get("createdAt"))
            .and_then(parse_timestamp),
        ..SessionMeta::default()
    };
    let native_id = fact("sessionId")
        .or(parser.session_id.take())
        .unwrap_or_else(|| {
            path.file_stem()
                .and_then(|stem| stem.to_str())
                .unwrap_or("session")
                .to_string()
        });
    let children = child_sessions(&mut parser, &native_id, &meta, facts, 0);
    let mut sessions = vec![ParsedSession {
        source: Source::Windsurf,
        native_id,
        meta,
        events: parser.events,
    }];
    sessions.extend(children);
    ParseOutput {
        sessions,
        warnings: parser.warnings,
    }
}

/// The Devin CLI's copy of the session (from its facts, [`with_cli_copy`]) when one of the
/// session's prompts is the CLI's (a `cognition.ai/clientMessageId` the CLI's user nodes carry):
/// the session is then the CLI's, and this copy gives none (`ingest::devin_pair`).
fn confirmed_cli_copy(facts: Option<&Value>, parser: &Parser) -> Option<devin_pair::CliCopy> {
    let copy = devin_pair::CliCopy::from_json(facts?.get(devin_pair::FACTS_KEY)?)?;
    let prompts = parser
        .messages
        .keys()
        .filter(|(run, _)| *run == Run::Prompt)
        .map(|(_, id)| id.as_str());
    copy.shares_a_prompt(prompts).then_some(copy)
}

/// The child session of each `subagent` row `parser` read (`<parent>-sub-<agentId>`, its rows
/// the row's `childMessages`, naming `parent_id` as its parent; their own sub-agents in turn,
/// to [`SUBAGENT_DEPTH`]), each linked from the parent: its row's event, and the result of the
/// `run_subagent` call that started it (the call the row's `toolCallId` names, else the one
/// call whose `task` is the row's), list the child's id in `subagent_session_ids`.
fn child_sessions(
    parser: &mut Parser,
    parent_id: &str,
    parent: &SessionMeta,
    facts: Option<&Value>,
    depth: usize,
) -> Vec<ParsedSession> {
    let mut sessions = Vec::new();
    for (agent_id, row) in std::mem::take(&mut parser.subagents) {
        let rows = row.get("childMessages").and_then(Value::as_array);
        if depth >= SUBAGENT_DEPTH || rows.is_none_or(Vec::is_empty) {
            continue;
        }
        let mut child = Parser::with_facts(facts);
        let rows = rows.into_iter().flatten();
        // A child without a prompt row of its own starts from the row's `task` (the
        // delegating call's instruction), as the first row.
        let task = task_prompt(&row, rows.clone());
        let first = i64::from(task.is_some());
        if let Some(task) = &task {
            child.message_row(task);
        }
        for (position, message) in rows.enumerate() {
            child.message_row(&StoredMessage {
                position: i64::try_from(position).unwrap_or_default() + first,
                kind: text_field(message, "kind").unwrap_or_default(),
                payload: message.clone(),
            });
        }
        child.finish();
        if child.events.is_empty() {
            continue;
        }
        let native_id = format!("{parent_id}-sub-{agent_id}");
        let link = json!({ "subagent_session_ids": [native_id] });
        if let Some(event) = parser
            .events
            .iter_mut()
            .find(|event| event.key == format!("subagent.{agent_id}"))
            && let Some(Value::Object(fields)) = event.payload.as_mut()
        {
            fields.insert("subagent_session_ids".to_string(), json!([native_id]));
        }
        if let Some(call_id) = delegating_call(&parser.events, &row)
            && let Some(result) = parser.events.iter_mut().find(|event| {
                event.kind == EventType::ToolResponse
                    && event.tool_call_id.as_deref() == Some(call_id.as_str())
            })
        {
            result.payload = Some(link);
        }
        let meta = SessionMeta {
            title: text_field(&row, "title"),
            cwd: parent.cwd.clone(),
            model: child.model.clone(),
            parent_native_id: Some(parent_id.to_string()),
            agent_name: text_field(&row, "profile"),
            started_at: child.events.iter().find_map(|event| event.timestamp),
            ..SessionMeta::default()
        };
        let grandchildren = child_sessions(&mut child, &native_id, &meta, facts, depth + 1);
        parser.warnings.append(&mut child.warnings);
        sessions.push(ParsedSession {
            source: Source::Windsurf,
            native_id,
            meta,
            events: child.events,
        });
        sessions.extend(grandchildren);
    }
    sessions
}

/// The prompt row a sub-agent's `childMessages` (`rows`) start from when none of them is a
/// `user_message`: the `subagent` row's `task`, timed as the row; `None` when a row is a
/// prompt or the row has no task.
fn task_prompt<'r>(
    row: &Value,
    mut rows: impl Iterator<Item = &'r Value>,
) -> Option<StoredMessage> {
    if rows.any(|message| text_field(message, "kind").as_deref() == Some("user_message")) {
        return None;
    }
    let task = text_field(row, "task").filter(|task| !task.trim().is_empty())?;
    let payload = json!({
        "kind": "user_message",
        "sourceEventTimestampMs": row.get("sourceEventTimestampMs"),
        "content": [{"sessionUpdate": "user_message_chunk",
                     "content": {"type": "text", "text": task}}],
    });
    Some(StoredMessage {
        position: 0,
        kind: "user_message".to_string(),
        payload,
    })
}

/// The call id of the `run_subagent` call that started the sub-agent of `row`: the call its
/// `toolCallId` names, else the only `run_subagent` call whose `task` argument is the row's.
fn delegating_call(events: &[RawEvent], row: &Value) -> Option<String> {
    let calls = || {
        events
            .iter()
            .filter(|event| event.kind == EventType::ToolCall)
    };
    if let Some(call_id) = text_field(row, "toolCallId")
        && calls().any(|event| event.tool_call_id.as_deref() == Some(call_id.as_str()))
    {
        return Some(call_id);
    }
    let task = text_field(row, "task")?;
    let mut matching = calls().filter(|event| {
        event.tool_name.as_deref() == Some(SUBAGENT_TOOL)
            && event
                .payload
                .as_ref()
                .and_then(|arguments| text_field(arguments, "task"))
                .as_deref()
                == Some(task.as_str())
    });
    let call = matching.next()?;
    if matching.next().is_some() {
        return None;
    }
    call.tool_call_id.clone()
}

/// The kind of message a chunk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Run {
    Prompt,
    Reply,
    Thought,
}

impl Run {
    fn of(kind: &str) -> Option<Run> {
        match kind {
            "user_message_chunk" => Some(Run::Prompt),
            "agent_message_chunk" => Some(Run::Reply),
            "agent_thought_chunk" => Some(Run::Thought),
            _ => None,
        }
    }

    /// The kind of message a message-store row of `kind` holds.
    fn of_message(kind: &str) -> Option<Run> {
        match kind {
            "user_message" => Some(Run::Prompt),
            "agent_message" => Some(Run::Reply),
            "agent_thought" => Some(Run::Thought),
            _ => None,
        }
    }

    fn event_type(self) -> EventType {
        match self {
            Run::Prompt => EventType::UserInput,
            Run::Reply => EventType::AssistantResponse,
            Run::Thought => EventType::Reasoning,
        }
    }

    /// The `_meta` field naming the message a chunk belongs to.
    fn id_field(self) -> &'static str {
        match self {
            Run::Prompt => CLIENT_MESSAGE_ID,
            Run::Reply | Run::Thought => STREAMING_MESSAGE_ID,
        }
    }

    /// What goes between two chunks' texts: a line break between a prompt's blocks, nothing
    /// between streamed pieces.
    fn separator(self) -> &'static str {
        match self {
            Run::Prompt => "\n",
            Run::Reply | Run::Thought => "",
        }
    }
}

/// Where a record is: its line (a message store's row: its position + 1), its place among the
/// chunks of that row (0 for a log's line), and its time.
#[derive(Debug, Clone, Copy)]
struct At {
    line: u64,
    part: usize,
    time: Option<DateTime<Utc>>,
}

impl At {
    /// The key of an event a record opens: its line's, and its part's after the first.
    fn key(self) -> String {
        match self.part {
            0 => format!("line.{}", self.line),
            part => format!("line.{}.{part}", self.line),
        }
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// The event of each message, by its kind and id.
    messages: HashMap<(Run, String), usize>,
    /// The event the last chunk without a message id went to.
    loose: Option<(Run, usize)>,
    /// Call id -> (tool name, index of its call event).
    calls: HashMap<String, (String, usize)>,
    /// Call ids whose result was read.
    answered: HashSet<String>,
    /// What was skipped (warned about once each).
    skipped: HashSet<String>,
    /// The session's model (the store's).
    model: Option<String>,
    /// The first `providerId` of the log's lines.
    provider: Option<String>,
    /// The first `sessionId` of the log's notifications.
    session_id: Option<String>,
    /// The newest `session_info_update` title.
    title: Option<String>,
    /// The `subagent` rows of a message store, by agent id (a row rewritten keeps its place).
    subagents: Vec<(String, Value)>,
}

impl Parser {
    /// A parser whose session's model is the store's.
    fn with_facts(facts: Option<&Value>) -> Parser {
        Parser {
            model: facts.and_then(|facts| text_field(facts, "model")),
            ..Parser::default()
        }
    }

    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        if self.provider.is_none() {
            self.provider = text_field(record, "providerId");
        }
        let Some((update, kind)) = update_of(record) else {
            self.skip(line.number, "line without an ACP notification");
            return;
        };
        if self.session_id.is_none() {
            self.session_id = record
                .get("notification")
                .and_then(|notification| text_field(notification, "sessionId"));
        }
        let at = At {
            line: line.number,
            part: 0,
            time: meta_value(update, TIMESTAMP)
                .or_else(|| meta_value(record, TIMESTAMP))
                .and_then(parse_timestamp),
        };
        if let Some(run) = Run::of(kind) {
            self.chunk(run, update, at);
            return;
        }
        match kind {
            "tool_call" => self.call(update, at),
            "tool_call_update" => self.call_update(update, at),
            "session_info_update" => {
                if let Some(title) = text_field(update, "title") {
                    self.title = Some(title);
                }
            }
            kind if UNREAD_UPDATES.contains(&kind) => {}
            kind => self.skip(line.number, &format!("ACP update {kind:?}")),
        }
    }

    /// One row of a message store: a message's chunks, or a call as it last stood (with its
    /// result once finished). A row is one message: chunks without an id join only within it.
    fn message_row(&mut self, message: &StoredMessage) {
        let line = u64::try_from(message.position).unwrap_or_default() + 1;
        let payload = &message.payload;
        if !payload.is_object() {
            self.skip(line, "message row that is not a JSON object");
            return;
        }
        let kind = text_field(payload, "kind").unwrap_or_else(|| message.kind.clone());
        let row_time = epoch_time(
            payload
                .get("sourceEventTimestampMs")
                .and_then(Value::as_i64),
        );
        self.loose = None;
        let content = payload.get("content").unwrap_or(&Value::Null);
        if kind == "tool_call" && content.is_object() {
            let at = At {
                line,
                part: 0,
                time: meta_value(content, TIMESTAMP)
                    .and_then(parse_timestamp)
                    .or(row_time),
            };
            self.call(content, at);
            return;
        }
        if let (Some(row_run), Some(chunks)) = (Run::of_message(&kind), content.as_array()) {
            for (part, chunk) in chunks.iter().enumerate() {
                let run = chunk
                    .get("sessionUpdate")
                    .and_then(Value::as_str)
                    .and_then(Run::of)
                    .unwrap_or(row_run);
                let at = At {
                    line,
                    part,
                    time: meta_value(chunk, TIMESTAMP)
                        .and_then(parse_timestamp)
                        .or(row_time),
                };
                self.chunk(run, chunk, at);
            }
            return;
        }
        if kind == SUBAGENT_KIND {
            self.subagent(
                payload,
                At {
                    line,
                    part: 0,
                    time: row_time,
                },
            );
            return;
        }
        if !UNREAD_MESSAGES.contains(&kind.as_str()) {
            self.skip(line, &format!("ACP message kind {kind:?}"));
        }
    }

    /// A `subagent` row: a `system` event of the parent saying what it delegated (the link to
    /// the child session is added once the session's id is known, [`child_sessions`]), and the
    /// row kept for the child. A row of an agent already seen replaces it (the newest wins).
    fn subagent(&mut self, payload: &Value, at: At) {
        let Some(agent_id) = text_field(payload, "agentId") else {
            self.skip(at.line, "subagent row without an agentId");
            return;
        };
        let mut facts = Map::new();
        for name in SUBAGENT_FIELDS {
            if let Some(value) = payload.get(name).filter(|value| !value.is_null()) {
                facts.insert(name.to_string(), value.clone());
            }
        }
        let text = [text_field(payload, "title"), text_field(payload, "task")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        let key = format!("subagent.{agent_id}");
        let event = RawEvent {
            payload: Some(Value::Object(facts)),
            originating_model: self.model.clone(),
            ..plain_event(
                key.clone(),
                EventType::System,
                at.line,
                at.time,
                text,
                Some(SUBAGENT_KIND),
            )
        };
        match self.events.iter_mut().find(|event| event.key == key) {
            Some(seen) => *seen = event,
            None => self.events.push(event),
        }
        match self
            .subagents
            .iter_mut()
            .find(|(seen, _)| *seen == agent_id)
        {
            Some((_, seen)) => *seen = payload.clone(),
            None => self.subagents.push((agent_id, payload.clone())),
        }
    }

    /// Warns once about each kind of thing skipped.
    fn skip(&mut self, line: u64, what: &str) {
        if self.skipped.insert(what.to_string()) {
            self.warnings.push(ParseWarning {
                line,
                message: format!("{what} skipped"),
            });
        }
    }

    /// A chunk: added to its message's event, or the first of a new message.
    fn chunk(&mut self, run: Run, update: &Value, at: At) {
        let text = content_text(update.get("content").unwrap_or(&Value::Null));
        let id = meta_text(update, run.id_field());
        let joined = match &id {
            Some(id) => self.messages.get(&(run, id.clone())).copied(),
            None => self
                .loose
                .filter(|&(open, index)| open == run && index + 1 == self.events.len())
                .map(|(_, index)| index),
        };
        if let Some(event) = joined.and_then(|index| self.events.get_mut(index)) {
            append(&mut event.text, &text, run.separator());
            return;
        }
        let index = self.events.len();
        let mut event = plain_event(at.key(), run.event_type(), at.line, at.time, text, None);
        event.originating_model = self.model.clone();
        match run {
            Run::Prompt => event.starts_turn = true,
            Run::Reply | Run::Thought => event.model = self.model.clone(),
        }
        self.events.push(event);
        match id {
            Some(id) => {
                self.messages.insert((run, id), index);
                self.loose = None;
            }
            None => self.loose = Some((run, index)),
        }
    }

    /// A `tool_call`: the call (a call sent again is read as an update), and its result when
    /// it arrives finished.
    fn call(&mut self, update: &Value, at: At) {
        let Some(call_id) = text_field(update, "toolCallId") else {
            self.skip(at.line, "tool_call without a toolCallId");
            return;
        };
        if self.calls.contains_key(&call_id) {
            self.call_update(update, at);
            return;
        }
        let name = meta_text(update, TOOL_NAME)
            .or_else(|| text_field(update, "title"))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let input = update.get("rawInput").cloned().unwrap_or(Value::Null);
        let key = format!("call.{call_id}");
        let mut event = tool_call(key, at.line, at.time, &name, Some(&call_id), input);
        event.originating_model = self.model.clone();
        self.calls.insert(call_id, (name, self.events.len()));
        self.events.push(event);
        if is_terminal(update) {
            self.call_update(update, at);
        }
    }

    /// A `tool_call_update`: arguments the call lacked, and the call's result when finished.
    fn call_update(&mut self, update: &Value, at: At) {
        let Some(call_id) = text_field(update, "toolCallId") else {
            return;
        };
        let Some((name, index)) = self.calls.get(&call_id).cloned() else {
            if is_terminal(update) {
                self.skip(at.line, "result of a tool call not in the log");
            }
            return;
        };
        self.fill_input(index, &name, update);
        if !is_terminal(update) || !self.answered.insert(call_id.clone()) {
            return;
        }
        let failed = update.get("status").and_then(Value::as_str) == Some("failed");
        let text = update_result_text(update);
        let key = format!("result.{call_id}");
        let mut event = tool_response(key, at.line, at.time, &name, Some(&call_id), text, failed);
        event.exit_code = meta_value(update, EXIT_CODE)
            .and_then(Value::as_i64)
            .or_else(|| {
                meta_value(update, TERMINAL_EXIT)
                    .and_then(|exit| exit.get("exit_code"))
                    .and_then(Value::as_i64)
            })
            .or_else(|| update.get("rawOutput").and_then(exit_code));
        if event.exit_code.is_some_and(|code| code != 0) {
            event.subtype = Some("error".to_string());
        }
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    /// The arguments of a call that had none, from a later update's `rawInput`.
    fn fill_input(&mut self, index: usize, name: &str, update: &Value) {
        let Some(input) = update.get("rawInput").filter(|input| !input.is_null()) else {
            return;
        };
        if let Some(event) = self.events.get_mut(index)
            && event.payload.is_none()
        {
            event.text = tool_call_text(name, input);
            event.payload = Some(input.clone());
        }
    }

    /// Trims the messages, drops those whose chunks held no text, marks the replies that end
    /// their turns.
    fn finish(&mut self) {
        for event in self
            .events
            .iter_mut()
            .filter(|event| is_message(event.kind))
        {
            event.text = event.text.trim().to_string();
        }
        self.events
            .retain(|event| !is_message(event.kind) || !event.text.is_empty());
        mark_terminal_replies(&mut self.events);
    }
}

/// A prompt, reply or reasoning (an event made of chunks).
fn is_message(kind: EventType) -> bool {
    matches!(
        kind,
        EventType::UserInput | EventType::AssistantResponse | EventType::Reasoning
    )
}

/// The text of a chunk's `content`: one ACP content block, an array of them (joined by line
/// breaks), or a string.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(chunk_text)
            .filter(|text| !text.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        block => chunk_text(block),
    }
}

/// Adds a chunk's text to its message's, `separator` between two non-empty texts.
fn append(text: &mut String, chunk: &str, separator: &str) {
    if !text.is_empty() && !chunk.is_empty() {
        text.push_str(separator);
    }
    text.push_str(chunk);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;
    use crate::model::TurnEnd;
    use rusqlite::params;
    use serde_json::json;

    const CADET: &str = "acp/devin-cli/brindle-cadet";
    const CADET_LOG: &str = "0b7e2c1a-5d7e-4c1f-9a55-3f0c2d9e8a11";
    const OTTER: &str = "acp/devin-cli/quiet-otter";
    const OTTER_LOG: &str = "5c2d9e8a-11aa-4b7e-8c1f-0b7e2c1a3f0c";

    /// A line of a `devin-cli` session's log.
    fn line(notification: Value) -> Value {
        json!({"providerId": "devin-cli", "notification": notification})
    }

    /// The first session, exactly as the research notes give it: a prompt, a reasoning chunk,
    /// a call and its failed result, a reply.
    fn cadet_lines() -> Vec<Value> {
        vec![
            line(json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": "Why does test_io flake?"},
                "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:53.000Z",
                    "cognition.ai/clientMessageId": "m1"}})),
            line(json!({"sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": "Check the fixture."},
                "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:55.000Z",
                    "cognition.ai/streamingMessageId": "t1"}})),
            line(
                json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Run pytest",
                "kind": "execute", "status": "in_progress",
                "rawInput": {"command": "pytest tests/test_io.py"},
                "_meta": {"cognition.ai/timestamp": "2026-06-07T03:09:56.000Z",
                    "cognition.ai/inferenceToolName": "run_command"}}),
            ),
            line(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
                "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": "1 failed"}}],
                "_meta": {"cognition.ai/timestamp": "2026-06-07T03:10:00.000Z"}}),
            ),
            line(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "It races on tmp_path."},
                "_meta": {"cognition.ai/timestamp": "2026-06-07T03:10:03.000Z",
                    "cognition.ai/streamingMessageId": "a1"}})),
        ]
    }

    /// `_meta` with a time and, when given, a message id field.
    fn meta(second: u32, id: Option<(&str, &str)>) -> Value {
        let mut meta =
            json!({"cognition.ai/timestamp": format!("2026-06-08T10:00:{second:02}.000Z")});
        if let Some((field, value)) = id {
            meta[field] = json!(value);
        }
        meta
    }

    fn text(text: &str) -> Value {
        json!({"type": "text", "text": text})
    }

    /// The second session: every message split over several lines (a reply's chunks around a
    /// tool call), with UI updates between them.
    fn otter_lines() -> Vec<Value> {
        let user = |id| Some((CLIENT_MESSAGE_ID, id));
        let agent = |id| Some((STREAMING_MESSAGE_ID, id));
        let chunk = |kind: &str, content: Value, fields: Value| {
            line(json!({"sessionUpdate": kind, "content": content, "_meta": fields}))
        };
        vec![
            chunk(
                "user_message_chunk",
                text("Rename load_cfg to load_config."),
                meta(1, user("u1")),
            ),
            chunk(
                "user_message_chunk",
                json!({"type": "resource", "resource": {"uri": "file:///home/u/app/src/config.rs",
                    "text": "fn load_cfg() {}"}}),
                meta(1, user("u1")),
            ),
            chunk(
                "agent_thought_chunk",
                text("Find the "),
                meta(2, agent("t1")),
            ),
            chunk(
                "agent_thought_chunk",
                text("callers."),
                meta(2, agent("t1")),
            ),
            chunk(
                "agent_message_chunk",
                text("I'll rename "),
                meta(3, agent("a1")),
            ),
            line(
                json!({"sessionUpdate": "tool_call", "toolCallId": "c7", "title": "Search",
                "kind": "search", "status": "pending", "rawInput": {"pattern": "load_cfg"},
                "_meta": {"cognition.ai/timestamp": "2026-06-08T10:00:04.000Z",
                    "cognition.ai/inferenceToolName": "grep_search"}}),
            ),
            chunk(
                "agent_message_chunk",
                text("it in two files."),
                meta(4, agent("a1")),
            ),
            line(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c7",
                "status": "in_progress", "_meta": meta(5, None)}),
            ),
            line(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c7",
                "status": "completed",
                "content": [{"type": "content", "content": text("src/config.rs:1")}],
                "_meta": meta(6, None)}),
            ),
            line(json!({"sessionUpdate": "session_info_update", "title": "Rename load_cfg"})),
            line(json!({"sessionUpdate": "plan",
                "entries": [{"content": "Rename", "status": "completed"}]})),
            line(
                json!({"sessionUpdate": "usage_update", "used": 5120, "size": 200000,
                "cost": {"amount": 0.02, "currency": "USD"}}),
            ),
            chunk("agent_message_chunk", text("Done: "), meta(7, agent("a2"))),
            chunk(
                "agent_message_chunk",
                text("renamed."),
                meta(7, agent("a2")),
            ),
        ]
    }

    fn ndjson(values: &[Value]) -> String {
        values.iter().map(|value| format!("{value}\n")).collect()
    }

    /// A `User` directory holding both logs and a global store with their ACP keys, beside
    /// the plaintext API key no reader may touch.
    fn user_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        write_user_dir(dir.path());
        dir
    }

    /// Writes [`user_dir`]'s logs and global store into `dir`.
    fn write_user_dir(dir: &Path) {
        let events = dir.join(EVENTS_FOLDER);
        std::fs::create_dir_all(&events).expect("mkdir");
        for (uuid, lines) in [(CADET_LOG, cadet_lines()), (OTTER_LOG, otter_lines())] {
            std::fs::write(events.join(format!("{uuid}.ndjson")), ndjson(&lines)).expect("log");
        }
        let global = dir.join("globalStorage");
        std::fs::create_dir_all(&global).expect("mkdir");
        let store = Connection::open(global.join("state.vscdb")).expect("store");
        store
            .execute_batch(
                "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
            )
            .expect("table");
        let cache = json!({"version": 11, "sessions": [{"sessionId": CADET,
            "providerId": "devin-cli", "status": "end_turn", "title": "Fix flaky test",
            "cwd": "file:///home/u/proj", "workspaceDirs": ["/home/u/proj"],
            "updatedAt": "2026-06-07T03:10:03.000Z",
            "configOptions": [{"id": "model", "currentValue": "swe-1-6"}],
            "_meta": {"cognition.ai/createdAt": "2026-06-07T03:09:52.477Z",
                "cognition.ai/isArchived": false}}]});
        let index = json!({
            CADET: {"uuid": CADET_LOG, "eventCount": 5, "lastUpdated": 1_780_801_814_955_i64},
            OTTER: {"uuid": OTTER_LOG, "eventCount": 14, "lastUpdated": 1_780_900_000_000_i64}});
        let info = json!({"providerId": "devin-cli", "info": {"sessionId": OTTER,
            "title": "Rename the config loader", "cwd": "/home/u/app",
            "configOptions": [{"id": "model", "currentValue": "swe-1-5"}],
            "_meta": {"cognition.ai/createdAt": "2026-06-08T10:00:00.000Z"}}});
        let auth = json!({"apiKey": "devin-session-token$never-read"});
        let insert = "INSERT INTO ItemTable (key, value) VALUES (?1, ?2)";
        store
            .execute(insert, params![METADATA_KEY, cache.to_string()])
            .expect("cache");
        store
            .execute(
                insert,
                params![EVENT_LOG_INDEX_KEY, index.to_string().into_bytes()],
            )
            .expect("index as a blob");
        let info_key = format!("{SESSION_INFO_PREFIX}{OTTER}");
        store
            .execute(insert, params![info_key, info.to_string()])
            .expect("info");
        store
            .execute(insert, params!["windsurfAuthStatus", auth.to_string()])
            .expect("auth");
    }

    fn log_path(user: &Path, uuid: &str) -> PathBuf {
        user.join(EVENTS_FOLDER).join(format!("{uuid}.ndjson"))
    }

    /// A log's lines as the indexer gives them, parsed with its facts from the store.
    fn parse_log(user: &Path, uuid: &str) -> ParseOutput {
        let path = log_path(user, uuid);
        let bytes = std::fs::read(&path).expect("log");
        let split = split_json_lines(&bytes);
        assert!(sniff(&split.lines), "sniffed");
        parse(&path, &split.lines, read_sidecar(&path).as_ref())
    }

    fn kinds(session: &ParsedSession) -> Vec<EventType> {
        session.events.iter().map(|event| event.kind).collect()
    }

    fn count(session: &ParsedSession, kind: EventType) -> usize {
        session
            .events
            .iter()
            .filter(|event| event.kind == kind)
            .count()
    }

    #[test]
    fn the_store_names_each_log_and_only_its_acp_keys_are_read() {
        let user = user_dir();
        let cadet = read_sidecar(&log_path(user.path(), CADET_LOG)).expect("facts");
        assert_eq!(
            cadet,
            json!({"sessionId": CADET, "providerId": "devin-cli", "title": "Fix flaky test",
                "cwd": "/home/u/proj", "model": "swe-1-6",
                "createdAt": "2026-06-07T03:09:52.477Z"})
        );
        let otter = read_sidecar(&log_path(user.path(), OTTER_LOG)).expect("facts");
        assert_eq!(
            otter["title"], "Rename the config loader",
            "from its session info"
        );
        assert_eq!(otter["model"], "swe-1-5");
        for facts in [&cadet, &otter] {
            assert!(!facts.to_string().contains("never-read"), "{facts}");
        }
        let unlisted = log_path(user.path(), "ffffffff-0000-4000-8000-000000000000");
        assert_eq!(read_sidecar(&unlisted), None);
    }

    #[test]
    fn a_session_reads_its_prompt_reasoning_failed_call_and_reply() {
        let user = user_dir();
        let output = parse_log(user.path(), CADET_LOG);
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        assert_eq!(output.sessions.len(), 1);
        let session = &output.sessions[0];
        assert_eq!(
            kinds(session),
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(count(session, EventType::UserInput), 1, "prompts");
        assert_eq!(count(session, EventType::ToolCall), 1, "tool calls");
        assert_eq!(count(session, EventType::ToolResponse), 1, "tool results");
        assert_eq!(count(session, EventType::AssistantResponse), 1, "replies");

        assert_eq!(session.source, Source::Windsurf);
        assert_eq!(session.native_id, CADET);
        assert_eq!(session.meta.title.as_deref(), Some("Fix flaky test"));
        assert_eq!(
            session.meta.cwd.as_deref(),
            Some("/home/u/proj"),
            "file:// stripped"
        );
        assert_eq!(session.meta.model.as_deref(), Some("swe-1-6"));
        assert_eq!(session.meta.agent_name.as_deref(), Some("devin-cli"));
        assert_eq!(
            session.meta.started_at,
            parse_timestamp(&json!("2026-06-07T03:09:52.477Z"))
        );

        let events = &session.events;
        assert_eq!(events[0].text, "Why does test_io flake?");
        assert!(events[0].starts_turn);
        assert_eq!(
            events[0].timestamp,
            parse_timestamp(&json!("2026-06-07T03:09:53Z"))
        );
        assert_eq!(events[1].text, "Check the fixture.");
        assert_eq!(events[2].tool_name.as_deref(), Some("run_command"));
        assert_eq!(events[2].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(
            events[2].payload,
            Some(json!({"command": "pytest tests/test_io.py"}))
        );
        let result = &events[3];
        assert_eq!(result.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(result.tool_name.as_deref(), Some("run_command"));
        assert_eq!(result.text, "1 failed");
        assert_eq!(
            result.subtype.as_deref(),
            Some("error"),
            "failed is an error"
        );
        assert_eq!(events[4].text, "It races on tmp_path.");
        assert_eq!(events[4].model.as_deref(), Some("swe-1-6"));
        assert_eq!(events[4].turn_end, Some(TurnEnd::Terminal));
    }

    #[test]
    fn chunks_of_one_message_join_across_lines() {
        let user = user_dir();
        let output = parse_log(user.path(), OTTER_LOG);
        assert!(
            output.warnings.is_empty(),
            "UI updates are no warnings: {:?}",
            output.warnings
        );
        let session = &output.sessions[0];
        assert_eq!(
            kinds(session),
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let texts: Vec<&str> = session
            .events
            .iter()
            .map(|event| event.text.as_str())
            .collect();
        assert_eq!(
            texts[0],
            "Rename load_cfg to load_config.\nfn load_cfg() {}"
        );
        assert_eq!(texts[1], "Find the callers.");
        assert_eq!(
            texts[2], "I'll rename it in two files.",
            "joined around the call"
        );
        assert_eq!(texts[4], "src/config.rs:1");
        assert_eq!(texts[5], "Done: renamed.");
        assert_eq!(
            session.events[2].key, "line.5",
            "a message keeps its first line's key"
        );
        assert_eq!(session.events[3].tool_name.as_deref(), Some("grep_search"));
        assert_eq!(session.events[4].subtype, None);
        assert_eq!(session.native_id, OTTER);
        assert_eq!(
            session.meta.title.as_deref(),
            Some("Rename the config loader")
        );
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/u/app"));

        // Without the store: the log's own title, provider and the file's uuid.
        let path = log_path(user.path(), OTTER_LOG);
        let bytes = std::fs::read(&path).expect("log");
        let alone = parse(&path, &split_json_lines(&bytes).lines, None);
        let session = &alone.sessions[0];
        assert_eq!(session.native_id, OTTER_LOG);
        assert_eq!(session.meta.title.as_deref(), Some("Rename load_cfg"));
        assert_eq!(session.meta.agent_name.as_deref(), Some("devin-cli"));
        assert_eq!(session.meta.model, None);
        assert_eq!(session.events.len(), 6);
    }

    #[test]
    fn a_half_written_last_line_is_held_back_then_read_once_complete() {
        let complete = ndjson(&cadet_lines());
        let next = line(json!({"sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": "Now fix it."},
            "_meta": {"cognition.ai/timestamp": "2026-06-07T03:11:00.000Z",
                "cognition.ai/clientMessageId": "m2"}}));
        let whole = format!("{complete}{next}\n");
        let path = Path::new("/u/User/acp-events/0b7e2c1a-5d7e-4c1f-9a55-3f0c2d9e8a11.ndjson");

        let cut = whole.len() - 12;
        let partial = split_json_lines(&whole.as_bytes()[..cut]);
        assert!(partial.held_back, "the half-written line is held back");
        assert!(partial.malformed.is_empty(), "and not counted as malformed");
        assert_eq!(partial.lines.len(), 5);
        assert_eq!(
            partial.complete_offset,
            complete.len() as u64,
            "read again from there"
        );
        let before = parse(path, &partial.lines, None);
        assert_eq!(before.sessions[0].events.len(), 5);

        let read = split_json_lines(whole.as_bytes());
        assert!(!read.held_back);
        assert_eq!(read.lines.len(), 6);
        let after = parse(path, &read.lines, None);
        let events = &after.sessions[0].events;
        assert_eq!(events.len(), 6);
        assert_eq!(events[5].text, "Now fix it.");
        assert!(events[5].starts_turn);
        let keys = |output: &ParseOutput| -> Vec<String> {
            output.sessions[0]
                .events
                .iter()
                .map(|event| event.key.clone())
                .collect()
        };
        assert_eq!(
            keys(&before)[..],
            keys(&after)[..5],
            "earlier events keep their keys"
        );

        // A torn line followed by others is skipped and counted.
        let torn = format!("{}\n{complete}", &whole[..40]);
        let split = split_json_lines(torn.as_bytes());
        assert_eq!(split.malformed.len(), 1);
        assert_eq!(split.lines.len(), 5);
    }

    #[test]
    fn logs_are_told_by_their_folder_and_their_lines() {
        assert!(is_event_log_path(Path::new(
            "/u/User/acp-events/0b7e.ndjson"
        )));
        assert!(!is_event_log_path(Path::new(
            "/u/User/acp-events/0b7e.jsonl"
        )));
        assert!(!is_event_log_path(Path::new(
            "/u/User/acp-messages/0b7e.ndjson"
        )));
        assert_eq!(
            global_store_of(Path::new("/u/User/acp-events/0b7e.ndjson")),
            Some(PathBuf::from("/u/User/globalStorage/state.vscdb"))
        );
        let text = ndjson(&cadet_lines());
        let split = split_json_lines(text.as_bytes());
        assert_eq!(
            crate::ingest::line_format(&split),
            Some(crate::ingest::Format::WindsurfAcp)
        );
        let grok = json!({"method": "session/update", "params": {"sessionId": "s",
            "update": {"sessionUpdate": "user_message_chunk"}}});
        let split = split_json_lines(format!("{grok}\n").as_bytes());
        assert!(!sniff(&split.lines), "Grok's envelopes are Grok's");
    }

    // ---- the message store

    const PLOVER: &str = "acp/devin-cli/amber-plover";
    const PLOVER_STORE: &str = "9d1f6c2e-3b4a-4e5f-8a7b-6c5d4e3f2a1b";

    /// A time of the session, `second` seconds after 09:00.
    fn at(second: u32) -> Value {
        json!({"cognition.ai/timestamp": format!("2026-10-02T09:00:{second:02}.000Z")})
    }

    /// A message store's rows: a prompt of two chunks sharing a client message id, a thought of
    /// two chunks with no `sessionUpdate` and no id, a shell call that failed (exit 2 in
    /// `terminal_exit`), a reply of two chunks, a read answered by its `rawOutput` (its time only
    /// the row's `sourceEventTimestampMs`), a plan, a sub-agent, and two replies with no ids in
    /// two rows.
    fn plover_rows() -> Vec<(i64, &'static str, Value)> {
        let prompt = |second: u32, text: &str| {
            let mut meta = at(second);
            meta["cognition.ai/clientMessageId"] = json!("m1");
            json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": text}, "_meta": meta})
        };
        let reply = |text: &str| {
            let mut meta = at(4);
            meta["cognition.ai/streamingMessageId"] = json!("a1");
            json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text}, "_meta": meta})
        };
        let mut shell_meta = at(3);
        shell_meta["cognition.ai/inferenceToolName"] = json!("exec");
        shell_meta["terminal_exit"] = json!({"exit_code": 2});
        vec![
            (
                0,
                "user_message",
                json!({"kind": "user_message", "content": [
                prompt(1, "Why is the build slow?"), prompt(1, "Look at build.rs.")]}),
            ),
            (
                1,
                "agent_thought",
                json!({"kind": "agent_thought", "content": [
                {"content": {"type": "text", "text": "Profile "}, "_meta": at(2)},
                {"content": {"type": "text", "text": "first."}, "_meta": at(2)}]}),
            ),
            (
                2,
                "tool_call",
                json!({"kind": "tool_call", "id": "tool:exec-1", "content": {
                "toolCallId": "exec-1", "title": "Run cargo build --timings", "kind": "execute",
                "status": "failed", "rawInput": {"command": "cargo build --timings"},
                "content": [{"type": "content",
                    "content": {"type": "text", "text": "error: linker failed"}}],
                "_meta": shell_meta}}),
            ),
            (
                3,
                "agent_message",
                json!({"kind": "agent_message", "content": [
                reply("The linker "), reply("fails.")]}),
            ),
            (
                4,
                "tool_call",
                json!({"kind": "tool_call", "sourceEventTimestampMs": 1_759_395_605_000_i64,
                "content": {"toolCallId": "read-1", "title": "Read build.rs", "kind": "read",
                    "status": "completed", "rawInput": {"path": "build.rs"},
                    "rawOutput": "fn main() {}",
                    "_meta": {"cognition.ai/inferenceToolName": "read_file"}}}),
            ),
            (
                5,
                "plan",
                json!({"kind": "plan", "content": {"sessionUpdate": "plan",
                "entries": [{"content": "Switch linker", "status": "completed"}]}}),
            ),
            (
                6,
                "subagent",
                json!({"kind": "subagent", "agentId": "a7", "title": "Explore",
                "status": "completed", "childMessages": []}),
            ),
            (
                7,
                "agent_message",
                json!({"kind": "agent_message", "content": [
                {"content": {"type": "text", "text": "Fixed: "}, "_meta": at(8)}]}),
            ),
            (
                8,
                "agent_message",
                json!({"kind": "agent_message", "content": [
                {"content": {"type": "text", "text": "use lld."}, "_meta": at(9)}]}),
            ),
        ]
    }

    /// A `User` directory holding one message store with its own `info`, and (when `named`) a
    /// global store naming it by a `windsurf.acp.messageStore.session.*` row, beside its
    /// session-info row and the plaintext API key no reader may touch.
    fn message_store_dir(named: bool, truncated: bool) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join(MESSAGES_FOLDER);
        std::fs::create_dir_all(&folder).expect("mkdir");
        let path = folder.join(format!("{PLOVER_STORE}.db"));
        let store = Connection::open(&path).expect("store");
        store
            .execute_batch(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); \
                 CREATE TABLE messages (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, \
                 payload TEXT NOT NULL)",
            )
            .expect("tables");
        let info = json!({"sessionId": PLOVER, "title": "Plover's own title",
            "cwd": "/home/u/plover",
            "configOptions": [{"id": "model", "currentValue": "swe-2-high"}],
            "_meta": {"cognition.ai/createdAt": "2026-10-02T08:59:58.000Z"}});
        let mut meta = vec![
            ("schema_version", "1".to_string()),
            ("info", info.to_string()),
            ("message_count", "9".to_string()),
        ];
        if truncated {
            meta.push(("truncated", "1".to_string()));
        }
        for (key, value) in meta {
            store
                .execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                    params![key, value],
                )
                .expect("meta");
        }
        for (position, kind, payload) in plover_rows() {
            store
                .execute(
                    "INSERT INTO messages (position, kind, payload) VALUES (?1, ?2, ?3)",
                    params![position, kind, payload.to_string()],
                )
                .expect("message");
        }
        if named {
            let global = dir.path().join("globalStorage");
            std::fs::create_dir_all(&global).expect("mkdir");
            let state = Connection::open(global.join("state.vscdb")).expect("state");
            state
                .execute_batch(
                    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
                )
                .expect("table");
            let pointer = json!({"uuid": PLOVER_STORE, "lastUpdated": 1_759_395_610_000_i64});
            let info = json!({"providerId": "devin-cli", "info": {"sessionId": PLOVER,
                "title": "Speed up the build", "cwd": "file:///home/u/plover",
                "configOptions": [{"id": "model", "currentValue": "swe-1-6"}],
                "_meta": {"cognition.ai/createdAt": "2026-10-02T09:00:00.000Z"}}});
            let auth = json!({"apiKey": "devin-session-token$never-read"});
            for (key, value) in [
                (format!("{MESSAGE_STORE_PREFIX}{PLOVER}"), pointer),
                (format!("{SESSION_INFO_PREFIX}{PLOVER}"), info),
                ("windsurfAuthStatus".to_string(), auth),
            ] {
                state
                    .execute(
                        "INSERT INTO ItemTable (key, value) VALUES (?1, ?2)",
                        params![key, value.to_string()],
                    )
                    .expect("item");
            }
        }
        (dir, path)
    }

    /// The store at `path` read and parsed as the indexer does, with its one session's stamp.
    fn read_store(path: &Path) -> (Vec<(String, String)>, ParseOutput) {
        let connection = Connection::open(path).expect("open");
        assert!(has_message_schema(&connection).expect("schema"));
        let stamps = message_store_stamps(&connection, path).expect("stamps");
        let store = read_message_store(&connection, path).expect("read");
        (stamps, parse_message_store(path, &store))
    }

    #[test]
    fn a_message_store_is_one_session_named_by_the_global_store() {
        let (dir, path) = message_store_dir(true, false);
        assert!(is_message_store_path(&path));
        assert!(is_message_store_path(&path.with_extension("db-wal")));
        assert!(!is_message_store_path(&dir.path().join("acp-events/x.db")));
        assert!(!is_event_log_path(&path));
        let facts = read_sidecar(&path).expect("facts");
        assert_eq!(
            facts,
            json!({"sessionId": PLOVER, "providerId": "devin-cli",
                "title": "Speed up the build", "cwd": "/home/u/plover", "model": "swe-1-6",
                "createdAt": "2026-10-02T09:00:00.000Z"})
        );
        assert!(!facts.to_string().contains("never-read"));
        assert!(message_store_facts(&path).contains("Speed up the build"));

        let (stamps, output) = read_store(&path);
        assert_eq!(stamps.len(), 1);
        assert_eq!(stamps[0].0, PLOVER, "the store is named by its session id");
        let warnings: Vec<&str> = output
            .warnings
            .iter()
            .map(|warning| warning.message.as_str())
            .collect();
        assert!(warnings.is_empty(), "the plan is UI state: {warnings:?}");
        assert_eq!(
            output.sessions.len(),
            1,
            "a sub-agent with no rows of its own is no session"
        );
        let session = &output.sessions[0];
        assert_eq!(
            kinds(session),
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::System,
                EventType::AssistantResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(session.source, Source::Windsurf);
        assert_eq!(session.native_id, PLOVER);
        assert_eq!(session.meta.title.as_deref(), Some("Speed up the build"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/u/plover"));
        assert_eq!(session.meta.model.as_deref(), Some("swe-1-6"));
        assert_eq!(session.meta.agent_name.as_deref(), Some("devin-cli"));
        let events = &session.events;
        let texts: Vec<&str> = events.iter().map(|event| event.text.as_str()).collect();
        assert_eq!(texts[0], "Why is the build slow?\nLook at build.rs.");
        assert_eq!(texts[1], "Profile first.");
        assert_eq!(texts[4], "The linker fails.");
        assert_eq!(texts[6], "fn main() {}", "a result in rawOutput only");
        assert_eq!(texts[7], "Explore", "the sub-agent's row, by its title");
        assert_eq!(
            events[7].payload,
            Some(json!({"agentId": "a7", "title": "Explore", "status": "completed"})),
            "no child session to link to"
        );
        assert_eq!(
            &texts[8..],
            ["Fixed:", "use lld."],
            "two rows are two messages"
        );
        let keys: Vec<&str> = events.iter().map(|event| event.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "line.1",
                "line.2",
                "call.exec-1",
                "result.exec-1",
                "line.4",
                "call.read-1",
                "result.read-1",
                "subagent.a7",
                "line.8",
                "line.9",
            ]
        );
        assert_eq!(events[2].tool_name.as_deref(), Some("exec"));
        assert_eq!(
            events[2].payload,
            Some(json!({"command": "cargo build --timings"}))
        );
        let failed = &events[3];
        assert_eq!(failed.text, "error: linker failed");
        assert_eq!(failed.subtype.as_deref(), Some("error"));
        assert_eq!(failed.exit_code, Some(2), "from _meta.terminal_exit");
        assert_eq!(events[5].tool_name.as_deref(), Some("read_file"));
        assert_eq!(
            events[5].timestamp,
            epoch_time(Some(1_759_395_605_000)),
            "the row's time when the call has none"
        );
        assert_eq!(events[6].subtype, None);
        assert_eq!(
            events[0].timestamp,
            parse_timestamp(&json!("2026-10-02T09:00:01.000Z"))
        );
        assert_eq!(events[9].turn_end, Some(TurnEnd::Terminal));
    }

    /// A store whose session delegated twice, in the shapes public Devin Desktop readers read:
    /// a `run_subagent` call (its `task` the sub-agent's) answered, then the `subagent` row with
    /// its own rows in `childMessages` (among them a sub-agent of its own), written once
    /// running and rewritten when done; a background sub-agent naming its call by `toolCallId`.
    fn delegating_store() -> MessageStore {
        let text = |kind: &str, chunk: &str, text: &str| {
            json!({"kind": kind, "content": [{"sessionUpdate": chunk,
                "content": {"type": "text", "text": text}, "_meta": at(1)}]})
        };
        let call = |id: &str, name: &str, input: Value| {
            json!({"kind": "tool_call", "content": {"toolCallId": id, "title": name,
                "status": "completed", "rawInput": input, "rawOutput": "done",
                "_meta": {"cognition.ai/inferenceToolName": name}}})
        };
        let task = "Find where sessions are saved";
        let explore = |status: &str| {
            json!({"kind": "subagent", "agentId": "ex1", "title": "Explore", "task": task,
            "profile": "subagent_explore", "status": status, "isBackground": false,
            "childMessages": [
                text("user_message", "user_message_chunk", task),
                call("grep-1", "grep", json!({"pattern": "save"})),
                {"kind": "subagent", "agentId": "deep", "title": "Deeper",
                 "childMessages": [text("agent_message", "agent_message_chunk", "Deep.")]},
                text("agent_message", "agent_message_chunk", "In store.rs."),
            ]})
        };
        let rows = vec![
            text(
                "user_message",
                "user_message_chunk",
                "Where are sessions saved?",
            ),
            call(
                "spawn-1",
                "run_subagent",
                json!({"title": "Explore", "task": task, "profile": "subagent_explore"}),
            ),
            explore("running"),
            json!({"kind": "subagent", "agentId": "bg2", "title": "Lint", "task": "Lint it",
                "toolCallId": "spawn-2", "isBackground": true, "status": "running",
                "childMessages": [text("agent_message", "agent_message_chunk", "Linting.")]}),
            call("spawn-2", "run_subagent", json!({"task": "Lint it"})),
            text("agent_message", "agent_message_chunk", "In store.rs."),
        ];
        let mut messages: Vec<StoredMessage> = rows
            .into_iter()
            .enumerate()
            .map(|(position, payload)| StoredMessage {
                position: position as i64,
                kind: text_field(&payload, "kind").unwrap_or_default(),
                payload,
            })
            .collect();
        messages[2].payload = explore("completed");
        MessageStore {
            uuid: PLOVER_STORE.to_string(),
            meta: Map::new(),
            messages,
            facts: Some(json!({"sessionId": PLOVER, "cwd": "/home/u/plover", "model": "swe-1-6"})),
        }
    }

    #[test]
    fn subagent_rows_are_child_sessions_linked_from_the_parent() {
        let output = parse_message_store(Path::new("x.db"), &delegating_store());
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        let ids: Vec<&str> = output
            .sessions
            .iter()
            .map(|s| s.native_id.as_str())
            .collect();
        let explore = format!("{PLOVER}-sub-ex1");
        let deep = format!("{explore}-sub-deep");
        let lint = format!("{PLOVER}-sub-bg2");
        assert_eq!(
            ids,
            [PLOVER, explore.as_str(), deep.as_str(), lint.as_str()]
        );

        let parent = &output.sessions[0];
        let keys: Vec<&str> = parent
            .events
            .iter()
            .map(|event| event.key.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "line.1",
                "call.spawn-1",
                "result.spawn-1",
                "subagent.ex1",
                "subagent.bg2",
                "call.spawn-2",
                "result.spawn-2",
                "line.6",
            ],
            "the sub-agents' rows stay in their own sessions"
        );
        let event = |key: &str| {
            parent
                .events
                .iter()
                .find(|event| event.key == key)
                .expect(key)
        };
        assert_eq!(
            event("result.spawn-1").payload,
            Some(json!({"subagent_session_ids": [explore]})),
            "the call whose task is the row's"
        );
        assert_eq!(
            event("result.spawn-2").payload,
            Some(json!({"subagent_session_ids": [lint]})),
            "the call the row's toolCallId names"
        );
        let row = event("subagent.ex1");
        assert_eq!(row.kind, EventType::System);
        assert_eq!(row.subtype.as_deref(), Some("subagent"));
        assert_eq!(row.text, "Explore\nFind where sessions are saved");
        assert_eq!(
            row.payload.as_ref().unwrap()["status"],
            json!("completed"),
            "the newest"
        );
        assert_eq!(
            row.payload.as_ref().unwrap()["subagent_session_ids"],
            json!([explore])
        );

        let child = &output.sessions[1];
        assert_eq!(child.source, Source::Windsurf);
        assert_eq!(child.meta.parent_native_id.as_deref(), Some(PLOVER));
        assert_eq!(child.meta.title.as_deref(), Some("Explore"));
        assert_eq!(child.meta.agent_name.as_deref(), Some("subagent_explore"));
        assert_eq!(child.meta.cwd.as_deref(), Some("/home/u/plover"));
        assert_eq!(child.meta.model.as_deref(), Some("swe-1-6"));
        assert_eq!(
            kinds(child),
            [
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::System,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(child.events[0].text, "Find where sessions are saved");
        assert_eq!(
            output.sessions[2].meta.parent_native_id.as_deref(),
            Some(explore.as_str())
        );
        assert_eq!(output.sessions[2].events.len(), 1);
        assert_eq!(
            output.sessions[3].meta.parent_native_id.as_deref(),
            Some(PLOVER)
        );
        let lint_child = &output.sessions[3];
        assert_eq!(
            kinds(lint_child),
            [EventType::UserInput, EventType::AssistantResponse],
            "a child without a prompt row starts from its task"
        );
        assert_eq!(lint_child.events[0].text, "Lint it");
        assert_eq!(lint_child.events[1].text, "Linting.");
        assert_eq!(
            output.sessions[2].events.len(),
            1,
            "a child without a task gets no prompt"
        );
    }

    #[test]
    fn without_the_global_store_the_stores_own_info_names_the_session() {
        let (_dir, path) = message_store_dir(false, true);
        assert_eq!(read_sidecar(&path), None);
        assert_eq!(message_store_facts(&path), "");
        let (stamps, output) = read_store(&path);
        assert_eq!(stamps[0].0, PLOVER, "the info's session id");
        let session = &output.sessions[0];
        assert_eq!(session.native_id, PLOVER);
        assert_eq!(session.meta.title.as_deref(), Some("Plover's own title"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/u/plover"));
        assert_eq!(session.meta.model.as_deref(), Some("swe-2-high"));
        assert_eq!(
            session.meta.started_at,
            parse_timestamp(&json!("2026-10-02T08:59:58.000Z"))
        );
        // The nine message rows, and the `subagent` row's marker.
        assert_eq!(session.events.len(), 10);
        assert_eq!(
            session
                .events
                .iter()
                .filter(|event| event.subtype.as_deref() == Some("subagent"))
                .count(),
            1
        );
        assert!(
            output
                .warnings
                .iter()
                .any(|warning| warning.message.contains("truncated")),
            "{:?}",
            output.warnings
        );
    }

    #[test]
    fn a_store_without_messages_holds_no_session() {
        let (_dir, path) = message_store_dir(false, false);
        let owner = Connection::open(&path).expect("open");
        owner.execute("DELETE FROM messages", []).expect("empty");
        let stamps = message_store_stamps(&owner, &path).expect("stamps");
        assert!(
            stamps.is_empty(),
            "a cloud session's placeholder or a draft"
        );
        owner
            .execute_batch("DROP TABLE messages; CREATE TABLE messages (x INTEGER)")
            .expect("other table");
        assert!(!has_message_schema(&owner).expect("schema"));
    }

    // ---- a `devin-cli` session the Devin CLI also records

    /// A machine home holding the `User` directory `user` (moved there) as Devin Desktop's on
    /// Linux, and a Devin CLI folder whose store holds `cli` sessions (name, hidden, the client
    /// message id of its prompt); returns the home and the moved `User` directory.
    fn home_with_cli(
        user: &Path,
        cli: &[(&str, i64, Option<&str>)],
    ) -> (tempfile::TempDir, PathBuf) {
        let home = tempfile::tempdir().expect("temp dir");
        let moved = home.path().join(".config/Devin/User");
        std::fs::create_dir_all(home.path().join(".config/Devin")).expect("mkdir");
        std::fs::rename(user, &moved).expect("move the User directory");
        let cli_folder = home.path().join(".local/share/devin/cli");
        devin_pair::testing::write_cli_folder(&cli_folder, cli);
        (home, moved)
    }

    #[test]
    fn a_cli_copy_in_the_facts_takes_the_session_only_when_a_prompt_is_shared() {
        let bytes = ndjson(&cadet_lines());
        let split = split_json_lines(bytes.as_bytes());
        let path = Path::new("/u/acp-events/cadet.ndjson");
        let facts = |ids: Value| {
            json!({"sessionId": CADET, "providerId": "devin-cli",
                "cliCopy": {"name": "brindle-cadet", "clientMessageIds": ids}})
        };
        let shared = parse(path, &split.lines, Some(&facts(json!(["m0", "m1"]))));
        assert!(shared.sessions.is_empty(), "the CLI's copy is the session");
        assert_eq!(
            shared
                .warnings
                .iter()
                .map(|warning| warning.message.as_str())
                .collect::<Vec<_>>(),
            ["Devin Desktop copy of CLI session brindle-cadet: the CLI's copy is indexed"]
        );
        let elsewhere = parse(path, &split.lines, Some(&facts(json!(["m9"]))));
        assert_eq!(
            elsewhere.sessions.len(),
            1,
            "a name alone does not pair the copies"
        );
        assert!(elsewhere.warnings.is_empty(), "{:?}", elsewhere.warnings);
        let none = parse(path, &split.lines, Some(&facts(json!([]))));
        assert_eq!(none.sessions.len(), 1, "no id to confirm the pair by");
    }

    #[test]
    fn a_log_the_cli_of_the_same_home_holds_is_left_to_it_unless_hidden() {
        let user = user_dir();
        let (_home, user) = home_with_cli(
            user.path(),
            &[
                ("brindle-cadet", 0, Some("m1")),
                ("quiet-otter", 1, Some("u1")),
            ],
        );
        let cadet_log = log_path(&user, CADET_LOG);
        let facts = read_sidecar(&cadet_log).expect("facts");
        assert_eq!(
            facts[devin_pair::FACTS_KEY],
            json!({"name": "brindle-cadet", "clientMessageIds": ["m1"]}),
            "the CLI's copy is part of the log's sidecar, hashed in its checkpoint"
        );
        let cadet = parse_log(&user, CADET_LOG);
        assert!(cadet.sessions.is_empty(), "{:?}", cadet.sessions);
        assert!(is_left_to_cli_copy(&cadet_log));
        let otter_log = log_path(&user, OTTER_LOG);
        assert_eq!(
            read_sidecar(&otter_log).and_then(|facts| facts.get(devin_pair::FACTS_KEY).cloned()),
            None,
            "a hidden session is not the CLI's indexed copy"
        );
        let otter = parse_log(&user, OTTER_LOG);
        assert_eq!(otter.sessions.len(), 1);
        assert_eq!(otter.sessions[0].native_id, OTTER);
    }

    #[test]
    fn a_message_store_the_cli_holds_lists_its_copy_in_its_stamp_and_gives_no_session() {
        let (dir, _) = message_store_dir(true, false);
        let (_home, user) = home_with_cli(dir.path(), &[("amber-plover", 0, Some("m1"))]);
        let path = user
            .join(MESSAGES_FOLDER)
            .join(format!("{PLOVER_STORE}.db"));
        assert!(message_store_facts(&path).contains(devin_pair::FACTS_KEY));
        let (stamps, output) = read_store(&path);
        assert_eq!(
            stamps.len(),
            1,
            "the row is listed; the indexer takes its session out"
        );
        assert_eq!(stamps[0].0, PLOVER);
        assert!(
            stamps[0].1.contains(devin_pair::FACTS_KEY),
            "{}",
            stamps[0].1
        );
        assert!(output.sessions.is_empty(), "{:?}", output.sessions);
        assert!(is_left_to_cli_copy(&path));
    }

    #[test]
    fn a_message_store_sharing_only_its_name_with_the_cli_keeps_its_session() {
        let (dir, _) = message_store_dir(true, false);
        let (_home, user) = home_with_cli(dir.path(), &[("amber-plover", 0, Some("cli-only"))]);
        let path = user
            .join(MESSAGES_FOLDER)
            .join(format!("{PLOVER_STORE}.db"));
        let (_, output) = read_store(&path);
        assert_eq!(output.sessions.len(), 1);
        assert_eq!(output.sessions[0].native_id, PLOVER);
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
    }
}
