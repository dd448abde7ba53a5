//! Kiro CLI's and Amazon Q Developer CLI's SQLite conversation stores: `data.sqlite3` in
//! `<local data dir>/kiro-cli` (table `conversations_v2`: `key` the working directory,
//! `conversation_id`, `value`, `created_at`, `updated_at` in epoch milliseconds; Kiro CLI's
//! legacy v1 agent engine) and `<local data dir>/amazon-q` (table `conversations`: `key` the
//! working directory, `value`; one conversation per directory, the newest). The local data dir
//! is `$XDG_DATA_HOME` (default `~/.local/share`) on Linux, `~/Library/Application Support` on
//! macOS and `%LOCALAPPDATA%` on Windows. The same file holds the CLI's `auth` and `state`
//! tables: only the conversation table is ever queried.
//!
//! `value` is the CLI's serialized `ConversationState` (aws/amazon-q-developer-cli
//! `crates/chat-cli/src/cli/chat/conversation.rs` and `message.rs`, which Kiro CLI forked):
//! `conversation_id`, `history[]` of `{user, assistant, request_metadata}` where
//! - `user.content` is `{"Prompt": {prompt}}`, `{"ToolUseResults": {tool_use_results}}` or
//!   `{"CancelledToolUses": {prompt, tool_use_results}}`; a result is `{tool_use_id, content:
//!   [{"Text": ...} | {"Json": ...}], status: "Success" | "Error"}`; `user.timestamp` (RFC 3339)
//!   and `user.env_context.env_state.current_working_directory`;
//! - `assistant` is `{"Response": {message_id, content}}` or `{"ToolUse": {message_id, content,
//!   tool_uses: [{id, name, orig_name, args, orig_args}]}}`;
//! - `request_metadata` has `stream_end_timestamp_ms` and `model_id`.
//!
//! The state also has `latest_summary` (`/compact`'s summary) and `model_info.model_id`
//! (`model` before 1.13.3). No token counts are stored.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, epoch_time, mark_terminal_replies, plain_event, reported_exit_code, text_field,
    tool_call, tool_response,
};
use super::sqlite::{self, table_names};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source,
    parse_timestamp,
};

/// Which CLI wrote a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Kiro CLI: `kiro-cli/data.sqlite3`, table `conversations_v2`.
    Kiro,
    /// Amazon Q Developer CLI: `amazon-q/data.sqlite3`, table `conversations`.
    AmazonQ,
}

impl Flavor {
    /// The folder of the local data directory the store is in.
    pub fn folder(self) -> &'static str {
        match self {
            Flavor::Kiro => "kiro-cli",
            Flavor::AmazonQ => "amazon-q",
        }
    }

    fn table(self) -> &'static str {
        match self {
            Flavor::Kiro => "conversations_v2",
            Flavor::AmazonQ => "conversations",
        }
    }

    pub fn source(self) -> Source {
        match self {
            Flavor::Kiro => Source::Kiro,
            Flavor::AmazonQ => Source::AmazonQ,
        }
    }
}

/// The store's file name.
pub const STORE_NAME: &str = "data.sqlite3";

/// The flavor of a store file (or its `-wal`): `data.sqlite3` in a `kiro-cli` or `amazon-q`
/// folder.
pub fn store_flavor(path: &Path) -> Option<Flavor> {
    let name = path.file_name()?.to_str()?;
    if name != STORE_NAME && name != "data.sqlite3-wal" {
        return None;
    }
    match path.parent()?.file_name()?.to_str()? {
        "kiro-cli" => Some(Flavor::Kiro),
        "amazon-q" => Some(Flavor::AmazonQ),
        _ => None,
    }
}

/// The store has its conversation table.
pub fn has_schema(connection: &Connection, flavor: Flavor) -> rusqlite::Result<bool> {
    Ok(table_names(connection)?
        .iter()
        .any(|name| name == flavor.table()))
}

/// Every conversation id with the stamp of its row(s).
pub fn session_stamps(
    connection: &Connection,
    flavor: Flavor,
) -> rusqlite::Result<Vec<(String, String)>> {
    let sql = match flavor {
        Flavor::Kiro => include_str!("../../queries/kiro_session_stamps.sql"),
        Flavor::AmazonQ => include_str!("../../queries/amazon_q_session_stamps.sql"),
    };
    sqlite::session_stamps(connection, sql)
}

/// One conversation of a store: its row's key (a working directory), times and state.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub id: String,
    pub flavor: Flavor,
    /// The working directory the row is stored under.
    pub key: Option<String>,
    pub created_at: Option<i64>,
    pub updated_at: Option<i64>,
    /// The `ConversationState`; `Null` when the value is not JSON.
    pub state: Value,
}

/// The conversation `id` (Kiro keeps a conversation under every directory it was used in:
/// the newest row is the conversation).
pub fn read_session(
    connection: &Connection,
    flavor: Flavor,
    id: &str,
) -> rusqlite::Result<Conversation> {
    let sql = match flavor {
        Flavor::Kiro => include_str!("../../queries/kiro_conversation.sql"),
        Flavor::AmazonQ => include_str!("../../queries/amazon_q_conversation.sql"),
    };
    connection.query_row(sql, [id], |row| {
        let value: Option<String> = row.get(1)?;
        Ok(Conversation {
            id: id.to_string(),
            flavor,
            key: row.get(0)?,
            created_at: row.get(2)?,
            updated_at: row.get(3)?,
            state: value
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(Value::Null),
        })
    })
}

/// Parses one conversation.
pub fn parse(conversation: &Conversation) -> ParseOutput {
    let state = &conversation.state;
    let mut warnings = Vec::new();
    if !state.is_object() {
        warnings.push(ParseWarning {
            line: 0,
            message: format!(
                "conversation {}: its value is not JSON; skipped",
                conversation.id
            ),
        });
    }
    let mut parser = Parser::default();
    let history: &[Value] = state
        .get("history")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    // `/compact` replaces the history with its summary: the summary comes before it.
    if let Some(summary) = state.pointer("/latest_summary/0").and_then(Value::as_str) {
        parser.events.push(plain_event(
            "summary".to_string(),
            EventType::Compaction,
            0,
            None,
            summary.to_string(),
            Some("compact_summary"),
        ));
    }
    for (index, entry) in history.iter().enumerate() {
        parser.entry(index, entry);
    }
    mark_terminal_replies(&mut parser.events);
    let meta = SessionMeta {
        cwd: parser.cwd.take().or_else(|| conversation.key.clone()),
        model: state
            .pointer("/model_info/model_id")
            .or_else(|| state.get("model"))
            .and_then(Value::as_str)
            .filter(|model| super::kiro::is_pinned_model(model))
            .map(str::to_string)
            .or(parser.model.take()),
        started_at: epoch_time(conversation.created_at),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: conversation.flavor.source(),
            native_id: conversation.id.clone(),
            meta,
            events: parser.events,
        }],
        warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    cwd: Option<String>,
    model: Option<String>,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    /// One history entry: the user's message, then the assistant's (entries are numbered from
    /// 1 as the event lines).
    fn entry(&mut self, index: usize, entry: &Value) {
        let line = index as u64 + 1;
        let user = entry.get("user").unwrap_or(&Value::Null);
        if let Some(time) = user.get("timestamp").and_then(parse_timestamp) {
            self.time = Some(time);
        }
        if self.cwd.is_none() {
            self.cwd = user
                .pointer("/env_context/env_state/current_working_directory")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let content = user.get("content").unwrap_or(&Value::Null);
        let key = format!("{index}.user");
        if let Some(prompt) = content.pointer("/Prompt/prompt").and_then(Value::as_str) {
            self.prompt(&key, line, prompt);
        }
        for variant in ["ToolUseResults", "CancelledToolUses"] {
            if let Some(results) = content.get(variant) {
                if let Some(prompt) = results.get("prompt").and_then(Value::as_str) {
                    self.prompt(&key, line, prompt);
                }
                self.results(&key, line, results);
            }
        }
        let metadata = entry.get("request_metadata").unwrap_or(&Value::Null);
        if let Some(model) =
            text_field(metadata, "model_id").filter(|model| super::kiro::is_pinned_model(model))
        {
            self.model.get_or_insert(model);
        }
        let reply_time = metadata
            .get("stream_end_timestamp_ms")
            .and_then(Value::as_i64)
            .and_then(|millis| epoch_time(Some(millis)))
            .or(self.time);
        let assistant = entry.get("assistant").unwrap_or(&Value::Null);
        let key = format!("{index}.assistant");
        if let Some(response) = assistant.get("Response") {
            self.reply(&key, line, reply_time, response);
        } else if let Some(tool_use) = assistant.get("ToolUse") {
            self.reply(&key, line, reply_time, tool_use);
            self.calls(&key, line, reply_time, tool_use);
        }
    }

    fn prompt(&mut self, key: &str, line: u64, prompt: &str) {
        if prompt.trim().is_empty() {
            return;
        }
        let mut event = plain_event(
            format!("{key}.prompt"),
            EventType::UserInput,
            line,
            self.time,
            prompt.to_string(),
            None,
        );
        event.starts_turn = true;
        self.events.push(event);
    }

    fn reply(&mut self, key: &str, line: u64, time: Option<DateTime<Utc>>, message: &Value) {
        if let Some(text) = text_field(message, "content") {
            self.events.push(plain_event(
                format!("{key}.reply"),
                EventType::AssistantResponse,
                line,
                time,
                text,
                None,
            ));
        }
    }

    fn calls(&mut self, key: &str, line: u64, time: Option<DateTime<Utc>>, tool_use: &Value) {
        let uses: &[Value] = tool_use
            .get("tool_uses")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, call) in uses.iter().enumerate() {
            let name = text_field(call, "orig_name")
                .or_else(|| text_field(call, "name"))
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let call_id = text_field(call, "id");
            let arguments = call
                .get("orig_args")
                .filter(|args| !args.is_null())
                .or_else(|| call.get("args"))
                .cloned()
                .unwrap_or(Value::Null);
            self.events.push(tool_call(
                format!("{key}.call.{index}"),
                line,
                time,
                &name,
                call_id.as_deref(),
                arguments,
            ));
            if let Some(call_id) = call_id {
                self.calls.insert(call_id, name);
            }
        }
    }

    fn results(&mut self, key: &str, line: u64, results: &Value) {
        let list: &[Value] = results
            .get("tool_use_results")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, result) in list.iter().enumerate() {
            let call_id = text_field(result, "tool_use_id");
            let name = call_id
                .as_ref()
                .and_then(|id| self.calls.get(id).cloned())
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let blocks: &[Value] = result
                .get("content")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let text = blocks.iter().map(block_text).collect::<Vec<_>>().join("\n");
            let exit_code = blocks
                .iter()
                .find_map(|block| block.pointer("/Json/exit_status"))
                .and_then(Value::as_str)
                .and_then(reported_exit_code_of_status);
            let status = result.get("status").and_then(Value::as_str).unwrap_or("");
            let failed = status == "Error" || exit_code.is_some_and(|code| code != 0);
            let mut event = tool_response(
                format!("{key}.result.{index}"),
                line,
                self.time,
                &name,
                call_id.as_deref(),
                text,
                failed,
            );
            event.exit_code = exit_code.or_else(|| reported_exit_code(&event.text));
            self.events.push(event);
        }
    }
}

/// A result block's text: `{"Text": ...}` as it is, `{"Json": ...}` as JSON text.
fn block_text(block: &Value) -> String {
    match (block.get("Text"), block.get("Json")) {
        (Some(Value::String(text)), _) => text.clone(),
        (_, Some(json)) => json.to_string(),
        _ => block.to_string(),
    }
}

/// The code of an `exit_status` the shell tool writes (`"0"`, or `"exit status: 1"`).
fn reported_exit_code_of_status(status: &str) -> Option<i64> {
    status.rsplit(':').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conversation(state: Value) -> Conversation {
        Conversation {
            id: "c1".to_string(),
            flavor: Flavor::Kiro,
            key: Some("/w".to_string()),
            created_at: Some(1_779_012_000_000),
            updated_at: Some(1_779_012_030_000),
            state,
        }
    }

    #[test]
    fn a_store_is_known_by_its_folder() {
        assert_eq!(
            store_flavor(Path::new("/h/.local/share/kiro-cli/data.sqlite3")),
            Some(Flavor::Kiro)
        );
        assert_eq!(
            store_flavor(Path::new(
                "/h/Library/Application Support/amazon-q/data.sqlite3-wal"
            )),
            Some(Flavor::AmazonQ)
        );
        assert_eq!(store_flavor(Path::new("/h/other/data.sqlite3")), None);
    }

    #[test]
    fn reads_the_history_of_a_conversation() {
        let state = json!({"conversation_id": "c1", "model_info": {"model_id": "claude-sonnet-4"},
        "history": [
            {"user": {"content": {"Prompt": {"prompt": "list files"}},
                "env_context": {"env_state": {"current_working_directory": "/home/dev/app"}},
                "timestamp": "2026-05-17T10:00:00Z"},
             "assistant": {"ToolUse": {"message_id": "m1", "content": "Listing.",
                "tool_uses": [{"id": "t1", "name": "execute_bash", "orig_name": "execute_bash",
                    "args": {"command": "ls"}, "orig_args": {"command": "ls"}}]}},
             "request_metadata": {"stream_end_timestamp_ms": 1_779_012_010_000_i64}},
            {"user": {"content": {"ToolUseResults": {"tool_use_results": [
                {"tool_use_id": "t1", "status": "Success",
                 "content": [{"Json": {"exit_status": "2", "stdout": "", "stderr": "boom"}}]}]}},
                "timestamp": null},
             "assistant": {"Response": {"message_id": "m2", "content": "ls failed."}}}
        ]});
        let output = parse(&conversation(state));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Kiro);
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/dev/app"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let result = &session.events[3];
        assert_eq!(result.tool_name.as_deref(), Some("execute_bash"));
        assert_eq!(
            (result.exit_code, result.subtype.as_deref()),
            (Some(2), Some("error"))
        );
        assert!(output.warnings.is_empty());
    }

    #[test]
    fn the_compaction_summary_opens_the_history_and_auto_is_no_model() {
        let state = json!({"model_info": {"model_id": "auto"}, "history": [],
            "latest_summary": ["We listed files.", {"message_id": "x"}]});
        let session = &parse(&conversation(state)).sessions[0];
        assert_eq!(session.events.len(), 1);
        assert_eq!(session.events[0].kind, EventType::Compaction);
        assert_eq!(session.meta.model, None);
        assert_eq!(
            session.meta.cwd.as_deref(),
            Some("/w"),
            "the row's directory"
        );
    }

    #[test]
    fn a_value_that_is_not_json_is_a_warning() {
        let output = parse(&conversation(Value::Null));
        assert_eq!(output.warnings.len(), 1);
        assert!(output.sessions[0].events.is_empty());
    }
}
