//! Auggie (Augment Code's CLI, npm `@augmentcode/auggie`): one JSON snapshot per session,
//! `~/.augment/sessions/<session id>.json`, rewritten whole as the session goes on. Its
//! `<id>-backup<N>.json` siblings (copies kept before a rewind) are not sessions
//! ([`is_backup_path`]); its `<id>.json.<ms>.tmp` write files are not `.json` files.
//!
//! The file: `{sessionId, created, modified, title?, customTitle?, workspaceRoot?,
//! parentConversationId?, rootTaskUuid?, agentState: {modelId, ...}, chatHistory: [...]}`; each
//! `chatHistory` entry is `{exchange, completed, sequenceId, finishedAt, isHistorySummary, ...}`
//! and its exchange `{request_id, request_message, response_text, model_id, request_nodes[],
//! response_nodes[]}`:
//! - request nodes (`type` 0 text `text_node.content`, 1 `tool_result_node {tool_use_id,
//!   content, content_nodes[{text_content}], is_error}`, 4 `ide_state_node {workspace_folders
//!   [{repository_root, folder_root}], current_terminal.current_working_directory}`, 10
//!   `history_summary_node`): the results of the previous exchange's tool calls arrive in the
//!   next exchange's request, whose `request_message` is then empty;
//! - response nodes (`type` 0 text `content`, 5 `tool_use {tool_use_id, tool_name, input_json
//!   (JSON text), is_partial}`, 7 the same call starting, 8 `thinking {summary, content}`, 10
//!   `token_usage {input_tokens, output_tokens, cache_read_input_tokens,
//!   cache_creation_input_tokens, ...}`, one observation per exchange (Anthropic's split: input
//!   does not include the cache buckets)).
//!
//! An exchange marked `isHistorySummary` (or holding a history summary node) is a compaction,
//! not the user's words. A session started by another names it in `parentConversationId`.
//!
//! Sources: ctxrs/ctx's Auggie reader (`auggie_session_json`: `chatHistory`, `exchange`,
//! `request_message`/`response_text`, text nodes, `workspaceRoot`, `parentConversationId`);
//! junhoyeo/tokscale's Augment parser (`token_usage` on response nodes, one per turn, read once;
//! `agentState.modelId`, `model_id`); public readers of real session files in the code index
//! (`tool_use`, `tool_result_node`, `is_error`, `ide_state_node`, `thinking.summary`,
//! `isHistorySummary`, `customTitle`/`title`, the backup files; the node type numbers are those
//! of Augment's chat protocol).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, arguments_of, mark_terminal_replies, plain_event, text_field, tool_call,
    tool_response, usage_carrier,
};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    add_counts, parse_timestamp,
};

/// Request node types.
const TOOL_RESULT_NODE: u64 = 1;
const HISTORY_SUMMARY_NODE: u64 = 10;
/// Response node types.
const RAW_TEXT_NODE: u64 = 0;
const TOOL_USE_NODE: u64 = 5;
const TOOL_USE_START_NODE: u64 = 7;
const THINKING_NODE: u64 = 8;

/// An Auggie session snapshot: a `sessionId` and a `chatHistory` array.
pub fn sniff(value: &Value) -> bool {
    value.get("sessionId").is_some_and(Value::is_string)
        && value.get("chatHistory").is_some_and(Value::is_array)
}

/// `<id>-backup<N>.json` beside a session file: a copy kept before a rewind, not a session.
pub fn is_backup_path(path: &Path) -> bool {
    let Some(stem) = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_suffix(".json"))
    else {
        return false;
    };
    let in_sessions = path.parent().and_then(Path::file_name) == Some("sessions".as_ref());
    stem.rsplit_once("-backup").is_some_and(|(id, number)| {
        in_sessions
            && !id.is_empty()
            && !number.is_empty()
            && number.chars().all(|character| character.is_ascii_digit())
    })
}

/// Parses one session snapshot.
pub fn parse(path: &Path, session: &Value) -> ParseOutput {
    let native_id = text_field(session, "sessionId").unwrap_or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let mut parser = Parser {
        time: session.get("created").and_then(parse_timestamp),
        model: session
            .pointer("/agentState/modelId")
            .and_then(Value::as_str)
            .filter(|model| !model.trim().is_empty())
            .map(str::to_string),
        ..Parser::default()
    };
    let history: &[Value] = session
        .get("chatHistory")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, entry) in history.iter().enumerate() {
        parser.entry(index, entry);
    }
    mark_terminal_replies(&mut parser.events);
    let meta = SessionMeta {
        title: text_field(session, "customTitle").or_else(|| text_field(session, "title")),
        cwd: text_field(session, "workspaceRoot").or(parser.cwd),
        model: session
            .pointer("/agentState/modelId")
            .and_then(Value::as_str)
            .filter(|model| !model.trim().is_empty())
            .map(str::to_string)
            .or(parser.first_model),
        parent_native_id: text_field(session, "parentConversationId"),
        started_at: session.get("created").and_then(parse_timestamp),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Auggie,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    keys: HashSet<String>,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    cwd: Option<String>,
    model: Option<String>,
    first_model: Option<String>,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn entry(&mut self, index: usize, entry: &Value) {
        // Whole-file JSON: the entry's position stands for its line.
        let line = index as u64 + 1;
        let Some(exchange) = entry
            .get("exchange")
            .filter(|exchange| exchange.is_object())
            .or_else(|| entry.get("request_message").map(|_| entry))
        else {
            self.warnings.push(ParseWarning {
                line,
                message: format!("chatHistory[{index}] holds no exchange; skipped"),
            });
            return;
        };
        if let Some(time) = entry.get("finishedAt").and_then(parse_timestamp) {
            self.time = Some(time);
        }
        let base = text_field(exchange, "request_id")
            .or_else(|| {
                entry
                    .get("sequenceId")
                    .filter(|sequence| sequence.is_number() || sequence.is_string())
                    .map(|sequence| format!("seq.{sequence}"))
            })
            .unwrap_or_else(|| format!("entry.{index}"));
        if let Some(model) = text_field(exchange, "model_id") {
            self.first_model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        let request_nodes = nodes(exchange, "request_nodes");
        let response_nodes = nodes(exchange, "response_nodes");
        if self.cwd.is_none() {
            self.cwd = request_nodes.iter().find_map(ide_directory);
        }
        for node in request_nodes {
            if let Some(result) = node
                .get("tool_result_node")
                .filter(|result| result.is_object())
                .filter(|_| node_type(node).is_none_or(|kind| kind == TOOL_RESULT_NODE))
            {
                self.result(&base, line, result);
            }
        }
        let summary = entry.get("isHistorySummary").and_then(Value::as_bool) == Some(true)
            || request_nodes.iter().any(|node| {
                node_type(node) == Some(HISTORY_SUMMARY_NODE)
                    || node.get("history_summary_node").is_some()
            });
        let request = text_field(exchange, "request_message").or_else(|| {
            let texts: Vec<String> = request_nodes
                .iter()
                .filter(|node| node_type(node).is_none_or(|kind| kind == 0))
                .filter_map(|node| node.pointer("/text_node/content"))
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_string)
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        });
        if summary {
            let text = request_nodes
                .iter()
                .find_map(|node| {
                    node.get("history_summary_node").and_then(|summary| {
                        text_field(summary, "summary_text")
                            .or_else(|| text_field(summary, "summary"))
                    })
                })
                .or(request)
                .unwrap_or_else(|| "History summarized".to_string());
            let event = plain_event(
                format!("{base}.summary"),
                EventType::Compaction,
                line,
                self.time,
                text,
                None,
            );
            self.push(event);
        } else if let Some(text) = request {
            let mut event = plain_event(
                format!("{base}.request"),
                EventType::UserInput,
                line,
                self.time,
                text,
                None,
            );
            event.starts_turn = true;
            self.push(event);
        }
        let first_response = self.events.len();
        self.response(&base, line, exchange, response_nodes);
        if let Some(usage) = response_nodes.iter().find_map(usage_of)
            && let Some(carrier) = usage_carrier(&self.events, first_response)
        {
            TokenUsage::attach(&mut self.events[carrier], usage);
        }
    }

    fn result(&mut self, base: &str, line: u64, result: &Value) {
        let call_id = text_field(result, "tool_use_id");
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let text = text_field(result, "content").unwrap_or_else(|| {
            result
                .get("content_nodes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|node| node.get("text_content").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let failed = result.get("is_error").and_then(Value::as_bool) == Some(true);
        let key = format!(
            "{base}.result.{}",
            call_id.as_deref().unwrap_or(&self.events.len().to_string())
        );
        let event = tool_response(
            key,
            line,
            self.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        self.push(event);
    }

    fn response(&mut self, base: &str, line: u64, exchange: &Value, response_nodes: &[Value]) {
        for (index, node) in response_nodes.iter().enumerate() {
            if node_type(node) != Some(THINKING_NODE) {
                continue;
            }
            let Some(thinking) = node.get("thinking").filter(|thinking| thinking.is_object())
            else {
                continue;
            };
            if let Some(text) =
                text_field(thinking, "summary").or_else(|| text_field(thinking, "content"))
            {
                let id = node_id(node).unwrap_or(index as u64);
                let event = plain_event(
                    format!("{base}.thinking.{id}"),
                    EventType::Reasoning,
                    line,
                    node_time(node).or(self.time),
                    text,
                    None,
                );
                self.push(event);
            }
        }
        let reply = text_field(exchange, "response_text").or_else(|| {
            let text: String = response_nodes
                .iter()
                .filter(|node| node_type(node) == Some(RAW_TEXT_NODE))
                .filter_map(|node| node.get("content").and_then(Value::as_str))
                .collect();
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_string())
        });
        if let Some(text) = reply {
            let mut event = plain_event(
                format!("{base}.response"),
                EventType::AssistantResponse,
                line,
                self.time,
                text,
                None,
            );
            event.model = self.model.clone();
            self.push(event);
        }
        // A call is written as it starts (7) and when whole (5): read the whole one, else the
        // start, once per call id.
        let whole = response_nodes
            .iter()
            .any(|node| node_type(node) == Some(TOOL_USE_NODE));
        let mut seen = HashSet::new();
        for node in response_nodes {
            let kind = node_type(node);
            let wanted = match kind {
                Some(TOOL_USE_NODE) => true,
                Some(TOOL_USE_START_NODE) => !whole,
                None => true,
                _ => false,
            };
            let Some(call) = node.get("tool_use").filter(|call| call.is_object()) else {
                continue;
            };
            if !wanted {
                continue;
            }
            let name = text_field(call, "tool_name").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let call_id = text_field(call, "tool_use_id");
            if let Some(id) = &call_id
                && !seen.insert(id.clone())
            {
                continue;
            }
            let arguments = arguments_of(call.get("input_json"));
            let key = format!(
                "{base}.call.{}",
                call_id.as_deref().unwrap_or(&self.events.len().to_string())
            );
            let time = call
                .get("started_at_ms")
                .and_then(parse_timestamp)
                .or_else(|| node_time(node))
                .or(self.time);
            let mut event = tool_call(key, line, time, &name, call_id.as_deref(), arguments);
            event.originating_model = self.model.clone();
            if self.push(event).is_some()
                && let Some(id) = call_id
            {
                self.calls.insert(id, name);
            }
        }
    }

    /// Pushes an event unless its key is taken (a repeated exchange).
    fn push(&mut self, mut event: RawEvent) -> Option<usize> {
        if !self.keys.insert(event.key.clone()) {
            return None;
        }
        if event.originating_model.is_none() {
            event.originating_model = self.model.clone();
        }
        self.events.push(event);
        Some(self.events.len() - 1)
    }
}

fn nodes<'v>(exchange: &'v Value, field: &str) -> &'v [Value] {
    exchange
        .get(field)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn node_type(node: &Value) -> Option<u64> {
    node.get("type").and_then(Value::as_u64)
}

fn node_id(node: &Value) -> Option<u64> {
    node.get("id").and_then(Value::as_u64)
}

fn node_time(node: &Value) -> Option<DateTime<Utc>> {
    node.get("timestamp_ms").and_then(parse_timestamp)
}

/// The working directory an IDE state node names: its first workspace folder, else its
/// terminal's directory.
fn ide_directory(node: &Value) -> Option<String> {
    let state = node.get("ide_state_node")?;
    state
        .get("workspace_folders")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|folder| {
            text_field(folder, "repository_root").or_else(|| text_field(folder, "folder_root"))
        })
        .or_else(|| {
            state
                .get("current_terminal")
                .and_then(|terminal| text_field(terminal, "current_working_directory"))
        })
}

/// A response node's token usage, when it counts anything.
fn usage_of(node: &Value) -> Option<TokenUsage> {
    let usage = node.get("token_usage").filter(|usage| usage.is_object())?;
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    let fresh = count("input_tokens");
    let cache_read = count("cache_read_input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    let output = count("output_tokens");
    let counted = [fresh, cache_read, cache_write, output]
        .into_iter()
        .flatten()
        .any(|value| value > 0);
    counted.then(|| {
        TokenUsage {
            input: add_counts(add_counts(fresh, cache_read), cache_write),
            cached_input: cache_read,
            output,
            ..TokenUsage::default()
        }
        .with_derived_total()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(request_id: &str, exchange: Value, finished: &str) -> Value {
        let mut exchange = exchange;
        exchange["request_id"] = json!(request_id);
        json!({"exchange": exchange, "completed": true, "sequenceId": 1,
            "finishedAt": finished, "changedFiles": [], "isHistorySummary": false,
            "source": "local"})
    }

    fn session() -> Value {
        let ide = json!({"id": 2, "type": 4, "ide_state_node": {"workspace_folders":
            [{"repository_root": "/w/heron", "folder_root": "/w/heron"}],
            "current_terminal": {"terminal_id": 0, "current_working_directory": "/w/heron"}}});
        json!({
            "sessionId": "s-1", "created": "2026-10-02T03:29:00.000Z",
            "customTitle": "heron fixes", "parentConversationId": "s-0",
            "agentState": {"modelId": "claude-sonnet-4-5"},
            "chatHistory": [
                entry("r1", json!({"request_message": "run the tests",
                    "request_nodes": [{"id": 1, "type": 0, "text_node": {"content": "run the tests"}}, ide],
                    "response_text": "Running them.",
                    "response_nodes": [
                        {"id": 0, "type": 8, "content": "", "thinking": {"summary": "tests first"}},
                        {"id": 1, "type": 0, "content": "Running them."},
                        {"id": 2, "type": 7, "content": "", "tool_use": {"tool_use_id": "t1",
                            "tool_name": "launch-process", "input_json": "{\"command\"", "is_partial": true}},
                        {"id": 2, "type": 5, "content": "", "tool_use": {"tool_use_id": "t1",
                            "tool_name": "launch-process", "input_json": "{\"command\": \"cargo test\", \"cwd\": \"/w/heron\"}",
                            "is_partial": false}},
                        {"id": 3, "type": 10, "content": "", "token_usage": {"input_tokens": 10,
                            "output_tokens": 221, "cache_read_input_tokens": 100,
                            "cache_creation_input_tokens": 11315, "max_context_tokens": 204800}}]}),
                    "2026-10-02T03:30:00.000Z"),
                entry("r2", json!({"request_message": "",
                    "request_nodes": [{"id": 1, "type": 1, "tool_result_node": {"tool_use_id": "t1",
                        "content": "<return-code>\n101\n</return-code>", "is_error": true}}],
                    "response_text": "They fail.",
                    "response_nodes": [{"id": 0, "type": 0, "content": "They fail."}]}),
                    "2026-10-02T03:31:00.000Z"),
                json!("not an exchange"),
                json!({"exchange": {"request_id": "r3", "request_message": "<summary>s</summary>",
                    "request_nodes": [{"id": 0, "type": 10, "history_summary_node": {"summary_text": "ran tests"}}],
                    "response_text": "", "response_nodes": []}, "isHistorySummary": true}),
            ]
        })
    }

    #[test]
    fn exchanges_become_prompts_calls_results_and_replies() {
        let output = parse(Path::new("/h/.augment/sessions/s-1.json"), &session());
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "s-1");
        assert_eq!(session.meta.title.as_deref(), Some("heron fixes"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/w/heron"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(session.meta.parent_native_id.as_deref(), Some("s-0"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::Compaction,
            ]
        );
        let call = &session.events[3];
        assert_eq!(call.tool_name.as_deref(), Some("launch-process"));
        assert_eq!(
            call.payload
                .as_ref()
                .and_then(|payload| payload.get("command")),
            Some(&json!("cargo test"))
        );
        let result = &session.events[4];
        assert_eq!(result.tool_name.as_deref(), Some("launch-process"));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(session.events[6].text, "ran tests");
        let usage = session.events[2].usage.expect("usage on the reply");
        assert_eq!(
            (usage.input, usage.cached_input, usage.output),
            (Some(11425), Some(100), Some(221))
        );
        assert_eq!(session.usage_carriers().len(), 1);
        assert_eq!(output.warnings.len(), 1, "{:?}", output.warnings);
    }

    #[test]
    fn sniffs_sessions_and_tells_backups() {
        assert!(sniff(&session()));
        assert!(!sniff(&json!({"sessionId": "x", "chatMessages": []})));
        assert!(is_backup_path(Path::new(
            "/h/.augment/sessions/s-1-backup2.json"
        )));
        assert!(!is_backup_path(Path::new("/h/.augment/sessions/s-1.json")));
        assert!(!is_backup_path(Path::new("/h/elsewhere/s-1-backup2.json")));
    }
}
