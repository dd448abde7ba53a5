//! `cursor-agent` chat stores: `~/.cursor/chats/<md5 of the workspace>/<chat id>/store.db`, one
//! SQLite file (WAL) per chat, read through `ingest::sqlite` (a private read-only copy).
//!
//! Tables `meta(key, value)`, where key `0` holds hex-encoded JSON `{agentId,
//! latestRootBlobId, name, mode, createdAt (ms), lastUsedModel?}`, and `blobs(id, data)`,
//! content-addressed by SHA-256. A blob is either a JSON message (`role` system / user /
//! assistant / tool; `content` a string or a list of `text`, `reasoning`, `tool-call
//! {toolCallId, toolName, args}`, `tool-result {toolCallId, toolName, result, isError?}` items)
//! or a protobuf node. The chat is the root node named by `latestRootBlobId`: field 1 lists the
//! message blob ids in order (32 raw bytes each), field 4 holds a message not yet stored as a
//! blob (inline JSON), field 9 the workspace URI. Other nodes (earlier roots, per-turn UI
//! records) repeat what the messages say and are not read.
//!
//! Messages carry no timestamps (times are inferred from `createdAt`), and no token counts.
//! What the user typed sits inside `<user_query>` tags in newer builds; the other tagged blocks
//! (`<user_info>`, `<project_layout>`, `<git_status>`, `<rules>`) are context the CLI attached.
//! A tool result failed when it says `isError`, or when Cursor's own record of it
//! (`providerOptions.cursor.highLevelToolCallResult`) has an error or an outcome other than
//! `success` (`permissionDenied`, `writePermissionDenied`, ...). The store records no parent
//! chat: cursor-agent chats have no sub-agent links.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use super::{REDACTED_REPLY, user_text_events};
use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, block_text, epoch_time, mark_terminal_replies, plain_event,
    text_field, tool_call, tool_response,
};
use crate::ingest::protowire;
use crate::ingest::sqlite::table_names;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source,
};

/// The name cursor-agent gives a chat before it has one.
const DEFAULT_NAME: &str = "New Agent";

/// The root node's fields.
const ROOT_MESSAGES: u32 = 1;
const ROOT_INLINE_MESSAGE: u32 = 4;
const ROOT_WORKSPACE: u32 = 9;

/// One chat: its metadata, its messages in order, and the workspace it ran in.
#[derive(Debug, Clone)]
pub struct CursorChat {
    pub id: String,
    pub meta: Map<String, Value>,
    pub messages: Vec<CursorMessage>,
    pub workspace: Option<String>,
    /// Message blobs the root names that the store does not hold (or that are not JSON).
    pub unreadable: Vec<String>,
}

/// One message and the key its events derive from (its blob id, stable as the chat grows).
#[derive(Debug, Clone)]
pub struct CursorMessage {
    pub key: String,
    pub value: Value,
}

/// A `store.db` (or its `-wal`) in a chat folder: `chats/<32 hex>/<chat id>/store.db`.
pub fn is_store_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    if !matches!(name, Some("store.db" | "store.db-wal")) {
        return false;
    }
    let mut ancestors = path.ancestors().skip(2);
    let workspace = ancestors.next().and_then(Path::file_name);
    let chats = ancestors.next().and_then(Path::file_name);
    let is_hash = workspace
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.len() == 32 && name.bytes().all(|byte| byte.is_ascii_hexdigit()));
    is_hash && chats.is_some_and(|name| name == "chats")
}

/// cursor-agent's tables: `meta` and `blobs`.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    Ok(["meta", "blobs"]
        .iter()
        .all(|table| tables.iter().any(|name| name == table)))
}

/// The store's one chat with the stamp of its content (the root blob id changes with every
/// message); nothing when the store has no metadata yet.
pub fn session_stamps(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<Vec<(String, String)>> {
    let Some(meta) = read_meta(connection)? else {
        return Ok(Vec::new());
    };
    let root = text_field(&Value::Object(meta.clone()), "latestRootBlobId").unwrap_or_default();
    Ok(vec![(chat_id(&meta, database), root)])
}

/// The chat's id: `agentId`, else the name of its folder.
fn chat_id(meta: &Map<String, Value>, database: &Path) -> String {
    meta.get("agentId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .or_else(|| {
            database
                .parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "chat".to_string())
}

/// The decoded `meta` row (hex-encoded JSON; plain JSON is accepted too).
fn read_meta(connection: &Connection) -> rusqlite::Result<Option<Map<String, Value>>> {
    let mut statement = connection.prepare(include_str!("../../../queries/cursor_meta.sql"))?;
    let mut rows = statement.query([])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let text = match row.get_ref(0)? {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            String::from_utf8_lossy(bytes).into_owned()
        }
        _ => return Ok(None),
    };
    let json = decode_hex(text.trim())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or(text);
    Ok(serde_json::from_str::<Value>(&json)
        .ok()
        .and_then(|value| value.as_object().cloned()))
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).ok())
        .collect()
}

fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// One blob's bytes, `None` when the store does not hold it.
fn read_blob(connection: &Connection, id: &str) -> rusqlite::Result<Option<Vec<u8>>> {
    let mut statement =
        connection.prepare_cached(include_str!("../../../queries/cursor_blob.sql"))?;
    let mut rows = statement.query([id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    Ok(match row.get_ref(0)? {
        ValueRef::Blob(bytes) | ValueRef::Text(bytes) => Some(bytes.to_vec()),
        _ => None,
    })
}

/// The chat: its metadata and the messages its root names, in order.
pub fn read_session(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<Option<CursorChat>> {
    let Some(meta) = read_meta(connection)? else {
        return Ok(None);
    };
    let mut chat = CursorChat {
        id: chat_id(&meta, database),
        messages: Vec::new(),
        workspace: None,
        unreadable: Vec::new(),
        meta,
    };
    let root_id = chat.meta.get("latestRootBlobId").and_then(Value::as_str);
    let root = match root_id {
        Some(id) => read_blob(connection, id)?,
        None => None,
    };
    let Some(fields) = root.as_deref().and_then(protowire::fields) else {
        chat.unreadable.extend(root_id.map(str::to_string));
        return Ok(Some(chat));
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for child in protowire::all_bytes(&fields, ROOT_MESSAGES) {
        let id = encode_hex(child);
        let value = read_blob(connection, &id)?
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .filter(Value::is_object);
        let Some(value) = value else {
            chat.unreadable.push(id);
            continue;
        };
        // The same message twice (two identical prompts) is one blob: number the repeats.
        let repeat = seen.entry(id.clone()).or_default();
        *repeat += 1;
        let mut key = id[..id.len().min(16)].to_string();
        if *repeat > 1 {
            key.push_str(&format!("#{repeat}"));
        }
        chat.messages.push(CursorMessage { key, value });
    }
    for (index, inline) in protowire::all_bytes(&fields, ROOT_INLINE_MESSAGE)
        .into_iter()
        .enumerate()
    {
        if let Some(value) = serde_json::from_slice::<Value>(inline)
            .ok()
            .filter(Value::is_object)
        {
            let key = format!("inline.{index}");
            chat.messages.push(CursorMessage { key, value });
        }
    }
    chat.workspace = protowire::text(&fields, ROOT_WORKSPACE).map(|uri| {
        uri.strip_prefix("file://")
            .map_or_else(|| uri.clone(), str::to_string)
    });
    Ok(Some(chat))
}

/// Parses one chat.
pub fn parse(chat: &CursorChat) -> ParseOutput {
    let meta = Value::Object(chat.meta.clone());
    let mut parser = Parser {
        model: text_field(&meta, "lastUsedModel"),
        ..Parser::default()
    };
    for (index, message) in chat.messages.iter().enumerate() {
        parser.message(index as u64 + 1, message);
    }
    mark_terminal_replies(&mut parser.events);
    let mut warnings = parser.warnings;
    warnings.extend(chat.unreadable.iter().map(|id| ParseWarning {
        line: 0,
        message: format!("message blob {id} is missing or not JSON: skipped"),
    }));
    let title = text_field(&meta, "name")
        .map(|name| name.chars().filter(|c| !c.is_control()).collect::<String>())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty() && name != DEFAULT_NAME);
    let session_meta = SessionMeta {
        title,
        cwd: chat.workspace.clone(),
        model: text_field(&meta, "lastUsedModel").or(parser.first_model),
        started_at: epoch_time(chat.meta.get("createdAt").and_then(Value::as_i64)),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Cursor,
            native_id: chat.id.clone(),
            meta: session_meta,
            events: parser.events,
        }],
        warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// Tool names by call id.
    calls: HashMap<String, String>,
    /// The chat's model (`lastUsedModel`), for events whose message names none.
    model: Option<String>,
    first_model: Option<String>,
}

impl Parser {
    fn message(&mut self, line: u64, message: &CursorMessage) {
        let value = &message.value;
        let role = value.get("role").and_then(Value::as_str).unwrap_or("");
        let content = value.get("content").unwrap_or(&Value::Null);
        let items: Vec<&Value> = match content {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for (index, item) in items.into_iter().enumerate() {
            let key = format!("{}.{index}", message.key);
            let kind = match item {
                Value::String(_) => "text",
                other => other.get("type").and_then(Value::as_str).unwrap_or(""),
            };
            match (role, kind) {
                ("system", _) => {
                    let text = block_text(item);
                    if !text.trim().is_empty() {
                        self.events.push(plain_event(
                            key,
                            EventType::System,
                            line,
                            None,
                            text,
                            Some("system_prompt"),
                        ));
                    }
                }
                ("user", "text") => {
                    let events = user_text_events(&key, line, None, &block_text(item));
                    self.events.extend(events);
                }
                ("assistant", "text") => {
                    let text = block_text(item);
                    if !text.trim().is_empty() && text.trim() != REDACTED_REPLY {
                        self.model_event(key, EventType::AssistantResponse, line, item, text);
                    }
                }
                ("assistant", "reasoning") => {
                    let text = text_field(item, "text").unwrap_or_default();
                    if !text.is_empty() {
                        self.model_event(key, EventType::Reasoning, line, item, text);
                    }
                }
                (_, "tool-call") => self.tool_call(key, line, item),
                (_, "tool-result") => self.tool_result(key, line, item, value),
                (_, "image" | "file") => {}
                _ => self.warnings.push(ParseWarning {
                    line,
                    message: format!("{role} item of type {kind:?} skipped"),
                }),
            }
        }
    }

    /// A reply or reasoning: its model is the one Cursor names on the item, else the chat's.
    fn model_event(&mut self, key: String, kind: EventType, line: u64, item: &Value, text: String) {
        let named = item
            .pointer("/providerOptions/cursor/modelName")
            .and_then(Value::as_str)
            .map(str::to_string);
        if self.first_model.is_none() {
            self.first_model.clone_from(&named);
        }
        let model = named.or_else(|| self.model.clone());
        let mut event = plain_event(key, kind, line, None, text, None);
        event.model.clone_from(&model);
        event.originating_model = model;
        self.events.push(event);
    }

    fn tool_call(&mut self, key: String, line: u64, item: &Value) {
        let name = text_field(item, "toolName").unwrap_or_else(|| UNKNOWN_TOOL.into());
        let call_id = text_field(item, "toolCallId");
        if let Some(id) = &call_id {
            self.calls.insert(id.clone(), name.clone());
        }
        let arguments = arguments_of(item.get("args"));
        let mut event = tool_call(key, line, None, &name, call_id.as_deref(), arguments);
        event.originating_model.clone_from(&self.model);
        self.events.push(event);
    }

    fn tool_result(&mut self, key: String, line: u64, item: &Value, message: &Value) {
        let call_id = text_field(item, "toolCallId");
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .or_else(|| text_field(item, "toolName"))
            .unwrap_or_else(|| UNKNOWN_TOOL.into());
        let text = match item.get("result") {
            Some(Value::String(text)) if !text.is_empty() => text.clone(),
            Some(Value::Null) | None => {
                block_text(item.get("experimental_content").unwrap_or(&Value::Null))
            }
            Some(Value::String(_)) => String::new(),
            Some(other) => other.to_string(),
        };
        let failed = item.get("isError").and_then(Value::as_bool) == Some(true)
            || cursor_says_failed(message);
        self.events.push(tool_response(
            key,
            line,
            None,
            &name,
            call_id.as_deref(),
            text,
            failed,
        ));
    }
}

/// Cursor's own record of a tool's outcome (on the tool message) says it failed: `isError`,
/// or an outcome other than `success`.
fn cursor_says_failed(message: &Value) -> bool {
    let Some(outcome) = message.pointer("/providerOptions/cursor/highLevelToolCallResult") else {
        return false;
    };
    if outcome.get("isError").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    outcome
        .get("output")
        .and_then(Value::as_object)
        .is_some_and(|output| !output.is_empty() && !output.contains_key("success"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(key: &str, value: Value) -> CursorMessage {
        CursorMessage {
            key: key.to_string(),
            value,
        }
    }

    #[test]
    fn store_paths_are_chat_folders_under_chats() {
        let chat = "/home/u/.cursor/chats/243eade30fba771a455250a4d61e9793/6d469ac7/store.db";
        assert!(is_store_path(Path::new(chat)));
        assert!(is_store_path(Path::new(&format!("{chat}-wal"))));
        assert!(!is_store_path(Path::new("/srv/app/data/store.db")));
        assert!(!is_store_path(Path::new(
            "/home/u/.cursor/chats/short/6d469ac7/store.db"
        )));
    }

    #[test]
    fn prompts_context_tools_failures_and_models() {
        let mut meta = Map::new();
        meta.insert("agentId".into(), json!("chat-1"));
        meta.insert("name".into(), json!(DEFAULT_NAME));
        meta.insert("createdAt".into(), json!(1_767_382_461_324_i64));
        let chat = CursorChat {
            id: "chat-1".into(),
            meta,
            workspace: Some("/srv/heron".into()),
            unreadable: vec!["ab".into()],
            messages: vec![
                message(
                    "s",
                    json!({"role": "system", "content": "You are an agent."}),
                ),
                message(
                    "c",
                    json!({"role": "user", "content": "<user_info>\nOS: linux\n</user_info>"}),
                ),
                message(
                    "u",
                    json!({"role": "user", "content": [{"type": "text",
                        "text": "<user_query>\nlist the herons\n</user_query>"}]}),
                ),
                message(
                    "a",
                    json!({"id": "1", "role": "assistant", "content": [
                        {"type": "reasoning", "text": "Use ls.",
                            "providerOptions": {"cursor": {"modelName": "claude-4.5-sonnet"}}},
                        {"type": "tool-call", "toolCallId": "t1", "toolName": "Shell",
                            "args": {"command": "ls herons"}}]}),
                ),
                message(
                    "r",
                    json!({"role": "tool", "id": "t1", "content": [{"type": "tool-result",
                        "toolName": "Shell", "toolCallId": "t1",
                        "result": "Permission denied"}],
                        "providerOptions": {"cursor": {"highLevelToolCallResult":
                            {"output": {"permissionDenied": {"command": "ls herons"}}}}}}),
                ),
                message(
                    "b",
                    json!({"id": "1", "role": "assistant", "content": [
                        {"type": "text", "text": "I cannot list them."}]}),
                ),
            ],
        };
        let output = parse(&chat);
        let parsed = &output.sessions[0];
        let kinds: Vec<EventType> = parsed.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::System,
                EventType::System,
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(parsed.events[2].text, "list the herons");
        assert_eq!(parsed.events[3].model.as_deref(), Some("claude-4.5-sonnet"));
        assert_eq!(parsed.events[5].tool_name.as_deref(), Some("Shell"));
        assert_eq!(parsed.events[5].subtype.as_deref(), Some("error"));
        assert!(parsed.events[6].turn_end.is_some());
        assert_eq!(parsed.meta.title, None, "the default name is no title");
        assert_eq!(parsed.meta.cwd.as_deref(), Some("/srv/heron"));
        assert_eq!(parsed.meta.model.as_deref(), Some("claude-4.5-sonnet"));
        assert_eq!(output.warnings.len(), 1, "the missing blob is reported");
    }
}
