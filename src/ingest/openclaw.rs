//! OpenClaw (and its QClaw and Kimi Claw builds): per-agent sessions under an OpenClaw home
//! (`$OPENCLAW_STATE_DIR`, default `~/.openclaw`; `~/.qclaw`, `~/.kimi_openclaw`, the older
//! `~/.clawdbot`). The records are Pi's session records (`session` header, `message`,
//! `model_change`, `compaction`, ...: read by `ingest::pi`); this file owns where they are and
//! what OpenClaw adds:
//!
//! - before 2026.8, one append-only `agents/<agent id>/sessions/<session id>.jsonl` per session
//!   (a Pi-format file found there is OpenClaw's; `sessions.json`, compaction checkpoints
//!   `<id>.checkpoint.<uuid>.jsonl` and reset or delete archives are not transcripts);
//! - since 2026.8, the per-agent SQLite store `agents/<agent id>/agent/openclaw-agent.sqlite`:
//!   `transcript_events(session_id, seq, event_json, created_at)`, one Pi record per row in
//!   `seq` order, and `session_windows(session_id, session_key, previous_session_id, reason,
//!   display_name, model, ...)`. Since 2026.9 (`src/config/sessions/transcript-payload.ts`) an
//!   event of 1 KiB or more is stored as a zstd frame in `event_zstd` with its UTF-8 length in
//!   `event_utf8_bytes` and `event_json` NULL (never above 4 MiB; a header never compressed);
//! - `custom` records with `customType` `model-snapshot` (`data.modelId`): the model when no
//!   message names one.

use std::path::Path;

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::ingest::content::text_field;
use crate::ingest::lines::JsonLine;
use crate::ingest::pi;
use crate::ingest::sqlite::{self, row_as_object, table_names};
use crate::model::{ParseOutput, ParseWarning, Source};

/// The largest compressed event OpenClaw writes (`MAX_COMPRESSED_EVENT_BYTES`), compressed or
/// decoded: a row claiming more is malformed.
const MAX_EVENT_BYTES: i64 = 4 << 20;

/// The homes OpenClaw and its rebuilds keep their state in, under the user's home.
pub const HOMES: [&str; 4] = [".openclaw", ".qclaw", ".kimi_openclaw", ".clawdbot"];

/// A transcript OpenClaw wrote before its SQLite store: `agents/<agent>/sessions/<id>.jsonl`,
/// not a compaction checkpoint.
pub fn is_transcript_path(path: &Path) -> bool {
    in_sessions_folder(path) && !is_checkpoint_path(path)
}

/// A compaction checkpoint beside the transcripts, `<id>.checkpoint.<uuid>.jsonl`: a copy of
/// a transcript's head, never read (the transcript holds the same records).
pub fn is_checkpoint_path(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    in_sessions_folder(path) && name.contains(".checkpoint.")
}

/// A `.jsonl` file in `agents/<agent>/sessions`.
fn in_sessions_folder(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let mut ancestors = path.ancestors().skip(1).map(Path::file_name);
    let sessions = ancestors.next().flatten();
    let agents = ancestors.nth(1).flatten();
    name.ends_with(".jsonl")
        && sessions.is_some_and(|folder| folder == "sessions")
        && agents.is_some_and(|folder| folder == "agents")
}

/// OpenClaw's per-agent store: `agents/<agent>/agent/openclaw-agent.sqlite` (or its `-wal`).
pub fn is_store_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    let mut ancestors = path.ancestors().skip(1).map(Path::file_name);
    let agent = ancestors.next().flatten();
    let agents = ancestors.nth(1).flatten();
    matches!(
        name,
        Some("openclaw-agent.sqlite" | "openclaw-agent.sqlite-wal")
    ) && agent.is_some_and(|folder| folder == "agent")
        && agents.is_some_and(|folder| folder == "agents")
}

/// Parses a legacy transcript: Pi's records as OpenClaw's sessions; `index` is the
/// `sessions.json` beside it, when there is one (the name a person gave the session).
pub fn parse(path: &Path, lines: &[JsonLine], index: Option<&Value>) -> ParseOutput {
    let mut output = pi::parse_as(Source::OpenClaw, path, lines);
    apply_model_snapshot(&mut output, lines);
    for session in &mut output.sessions {
        let named = index.and_then(|index| display_name_of(index, &session.native_id));
        session.meta.title = session.meta.title.take().or(named);
    }
    output
}

/// The `sessions.json` index beside a legacy transcript.
pub fn read_index(transcript: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(transcript.with_file_name("sessions.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// The model of a `model-snapshot` record, for a session whose messages name none.
fn apply_model_snapshot(output: &mut ParseOutput, lines: &[JsonLine]) {
    let snapshot = lines.iter().find_map(|line| {
        let record = &line.value;
        let custom_type = record.get("customType").and_then(Value::as_str);
        let is_snapshot = record.get("type").and_then(Value::as_str) == Some("custom")
            && matches!(custom_type, Some("model-snapshot" | "model_snapshot"));
        is_snapshot
            .then(|| record.pointer("/data/modelId").and_then(Value::as_str))
            .flatten()
    });
    for session in &mut output.sessions {
        if session.meta.model.is_none() {
            session.meta.model = snapshot.map(str::to_string);
        }
    }
}

/// One session of the SQLite store: its events (decoded, in `seq` order), its window row and
/// the events that could not be read.
#[derive(Debug, Clone, Default)]
pub struct StoreSession {
    pub id: String,
    pub lines: Vec<JsonLine>,
    pub window: Map<String, Value>,
    pub warnings: Vec<ParseWarning>,
}

/// Why a stored event could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("event has neither event_json nor a zstd frame in bounds")]
    NoPayload,
    #[error("compressed event is not a zstd frame: {0}")]
    Zstd(std::io::Error),
    #[error("compressed event decodes to {actual} bytes, its row says {expected}")]
    Length { expected: i64, actual: usize },
    #[error("event is not JSON: {0}")]
    Json(serde_json::Error),
}

/// OpenClaw's store: `transcript_events` with the columns the reader needs.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    if !table_names(connection)?
        .iter()
        .any(|name| name == "transcript_events")
    {
        return Ok(false);
    }
    let probe = connection.prepare(include_str!("../../queries/openclaw_events_probe.sql"));
    Ok(probe.is_ok())
}

/// Every session id with the stamp of its events.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../queries/openclaw_session_stamps.sql"),
    )
}

/// True when the store has the compressed payload columns (OpenClaw 2026.9 and later).
fn has_compressed_events(connection: &Connection) -> rusqlite::Result<bool> {
    connection
        .query_row(
            include_str!("../../queries/openclaw_has_zstd.sql"),
            [],
            |row| row.get::<_, i64>(0),
        )
        .map(|count| count > 0)
}

/// One session's events and window.
pub fn read_session(connection: &Connection, id: &str) -> rusqlite::Result<StoreSession> {
    let sql = if has_compressed_events(connection)? {
        include_str!("../../queries/openclaw_events_zstd.sql")
    } else {
        include_str!("../../queries/openclaw_events.sql")
    };
    let rows = sqlite::rows_of(connection, sql, id, |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, Option<String>>(1)?,
            row.get::<_, Option<Vec<u8>>>(2)?,
            row.get::<_, Option<i64>>(3)?,
        ))
    })?;
    let mut session = StoreSession {
        id: id.to_string(),
        window: window_of(connection, id)?,
        ..StoreSession::default()
    };
    for (seq, json, frame, utf8_bytes) in rows {
        let number = u64::try_from(seq).unwrap_or(0);
        match decode_event(json, frame.as_deref(), utf8_bytes) {
            Ok(value) => session.lines.push(JsonLine { number, value }),
            Err(error) => session.warnings.push(ParseWarning {
                line: number,
                message: format!("event seq {seq}: {error}; skipped"),
            }),
        }
    }
    Ok(session)
}

/// The session's `session_windows` row by column name (empty when the table or row is missing).
fn window_of(connection: &Connection, id: &str) -> rusqlite::Result<Map<String, Value>> {
    if !table_names(connection)?
        .iter()
        .any(|name| name == "session_windows")
    {
        return Ok(Map::new());
    }
    match row_as_object(
        connection,
        include_str!("../../queries/openclaw_window.sql"),
        id,
    ) {
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(Map::new()),
        other => other,
    }
}

/// A stored event: `event_json`, else its zstd frame checked against `event_utf8_bytes`.
pub fn decode_event(
    json: Option<String>,
    frame: Option<&[u8]>,
    utf8_bytes: Option<i64>,
) -> Result<Value, EventError> {
    let text = match (json, frame, utf8_bytes) {
        (Some(json), _, _) => json.into_bytes(),
        (None, Some(frame), Some(expected))
            if !frame.is_empty()
                && frame.len() as i64 <= MAX_EVENT_BYTES
                && (1..=MAX_EVENT_BYTES).contains(&expected) =>
        {
            decompress(frame, expected)?
        }
        _ => return Err(EventError::NoPayload),
    };
    serde_json::from_slice(&text).map_err(EventError::Json)
}

/// A frame's content, which must be exactly `expected` bytes.
fn decompress(frame: &[u8], expected: i64) -> Result<Vec<u8>, EventError> {
    use std::io::Read;
    let decoder = zstd::stream::read::Decoder::new(frame).map_err(EventError::Zstd)?;
    let mut text = Vec::new();
    decoder
        .take(expected as u64 + 1)
        .read_to_end(&mut text)
        .map_err(EventError::Zstd)?;
    if text.len() as i64 != expected {
        return Err(EventError::Length {
            expected,
            actual: text.len(),
        });
    }
    Ok(text)
}

/// Parses one session of the store: Pi's records, keyed by `seq`, the session named by its
/// store id; title and model from its window when its records give none.
pub fn parse_store_session(session: &StoreSession) -> ParseOutput {
    let mut output = pi::parse_as(Source::OpenClaw, Path::new(&session.id), &session.lines);
    apply_model_snapshot(&mut output, &session.lines);
    let window = |name: &str| {
        session
            .window
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    for parsed in &mut output.sessions {
        parsed.native_id.clone_from(&session.id);
        let meta = &mut parsed.meta;
        meta.title = meta.title.take().or_else(|| window("display_name"));
        meta.model = meta.model.take().or_else(|| window("model"));
        if window("reason").as_deref() == Some("fork") {
            meta.forked_from_native_id = window("previous_session_id");
        }
    }
    let mut warnings = session.warnings.clone();
    warnings.append(&mut output.warnings);
    output.warnings = warnings;
    output
}

/// The agent a session belongs to: `<home>/agents/<agent>/...`.
pub fn agent_of(path: &Path) -> Option<String> {
    let mut previous = None;
    for component in path.components().rev() {
        let name = component.as_os_str().to_str()?;
        if name == "agents" {
            return previous;
        }
        previous = Some(name.to_string());
    }
    None
}

/// A `sessions.json` index beside legacy transcripts: session id -> its key's entry (for the
/// display name a person gave it).
pub fn display_name_of(index: &Value, session_id: &str) -> Option<String> {
    let entries = index.as_object()?;
    entries.values().find_map(|entry| {
        (entry.get("sessionId").and_then(Value::as_str) == Some(session_id))
            .then(|| text_field(entry, "displayName").or_else(|| text_field(entry, "label")))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;
    use serde_json::json;

    fn line(number: u64, value: Value) -> JsonLine {
        JsonLine { number, value }
    }

    #[test]
    fn places_of_transcripts_and_stores() {
        let transcript = Path::new("/h/.openclaw/agents/main/sessions/9a1b.jsonl");
        assert!(is_transcript_path(transcript));
        let checkpoint = Path::new("/h/.openclaw/agents/main/sessions/9a1b.checkpoint.77.jsonl");
        assert!(!is_transcript_path(checkpoint));
        assert!(is_checkpoint_path(checkpoint));
        assert!(!is_transcript_path(Path::new(
            "/h/.pi/agent/sessions/--home--/2026_9a1b.jsonl"
        )));
        assert!(is_store_path(Path::new(
            "/h/.qclaw/agents/main/agent/openclaw-agent.sqlite"
        )));
        assert!(is_store_path(Path::new(
            "/h/.qclaw/agents/main/agent/openclaw-agent.sqlite-wal"
        )));
        assert!(!is_store_path(Path::new("/h/openclaw-agent.sqlite")));
        assert_eq!(agent_of(transcript).as_deref(), Some("main"));
    }

    #[test]
    fn compressed_events_decode_and_bad_ones_are_errors() {
        let text = r#"{"type":"message","id":"m1","message":{"role":"user","content":"hi"}}"#;
        let frame = zstd::stream::encode_all(text.as_bytes(), 1).expect("compress");
        let length = text.len() as i64;
        let value = decode_event(None, Some(&frame), Some(length)).expect("decodes");
        assert_eq!(value["id"], "m1");
        assert!(matches!(
            decode_event(None, Some(&frame), Some(length + 1)),
            Err(EventError::Length { .. })
        ));
        assert!(matches!(
            decode_event(None, Some(b"not a frame"), Some(5)),
            Err(EventError::Zstd(_))
        ));
        assert!(matches!(
            decode_event(None, None, None),
            Err(EventError::NoPayload)
        ));
        assert_eq!(
            decode_event(Some(text.into()), None, None).expect("plain")["id"],
            "m1"
        );
    }

    #[test]
    fn a_store_session_is_pi_records_with_the_window_facts() {
        let mut window = Map::new();
        window.insert("display_name".into(), json!("Nightly digest"));
        window.insert("model".into(), json!("gpt-5.1"));
        let session = StoreSession {
            id: "s-1".into(),
            lines: vec![
                line(
                    0,
                    json!({"type": "session", "version": 3, "id": "s-1",
                    "timestamp": "2026-10-01T08:00:00Z", "cwd": "/srv/claw"}),
                ),
                line(
                    1,
                    json!({"type": "custom", "customType": "model-snapshot",
                    "data": {"provider": "anthropic", "modelId": "claude-opus-4-5"}}),
                ),
                line(
                    2,
                    json!({"type": "message", "id": "m1", "parentId": null,
                    "timestamp": "2026-10-01T08:00:01Z",
                    "message": {"role": "user", "content": [{"type": "text", "text": "digest"}]}}),
                ),
            ],
            window,
            warnings: vec![ParseWarning {
                line: 3,
                message: "event seq 3: torn; skipped".into(),
            }],
        };
        let output = parse_store_session(&session);
        let parsed = &output.sessions[0];
        assert_eq!(parsed.source, Source::OpenClaw);
        assert_eq!(parsed.native_id, "s-1");
        assert_eq!(parsed.meta.title.as_deref(), Some("Nightly digest"));
        assert_eq!(parsed.meta.model.as_deref(), Some("claude-opus-4-5"));
        assert_eq!(parsed.meta.cwd.as_deref(), Some("/srv/claw"));
        assert_eq!(parsed.events[0].kind, EventType::UserInput);
        assert_eq!(output.warnings.len(), 1);
    }

    #[test]
    fn the_index_names_a_session() {
        let index = json!({"agent:main:main": {"sessionId": "s-1", "displayName": "Main"}});
        assert_eq!(display_name_of(&index, "s-1").as_deref(), Some("Main"));
        assert_eq!(display_name_of(&index, "s-2"), None);
    }
}
