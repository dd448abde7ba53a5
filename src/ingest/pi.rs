//! Pi (`pi-coding-agent`) sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`): a
//! header line `{type: "session", version?, id, timestamp, cwd, parentSession?}` (v1 headers
//! also carry `provider`/`modelId`), then entries `{type, id, parentId, timestamp, ...}` (v1
//! entries have no ids) that form a tree; a branch is a later entry whose parent is an earlier
//! one, so the file is read in append order, every branch included.
//!
//! Entries: `message` with `message.role` `user` (the prompt), `assistant` (`thinking`, `text`
//! and `toolCall {id, name, arguments}` blocks, `model`, `usage {input, output, cacheRead,
//! cacheWrite, totalTokens}`, `stopReason`, `errorMessage`), `toolResult` (`toolCallId`,
//! `toolName`, `content`, `isError`), `bashExecution` (a command the user ran with `!`: a call
//! and its result), `custom` (extension messages: context); `model_change`, `compaction`,
//! `branch_summary`, `custom_message` (context) and `session_info` (`name`: the title).
//! `parentSession` (the file a session was forked or spawned from) links it to its parent.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::content::{
    UNKNOWN_TOOL, block_text, plain_event, reported_exit_code, text_field, tool_call,
    tool_response, usage_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd, add_counts, parse_timestamp,
};

/// A Pi session: its header line (`type: "session"` with an `id` and a `cwd`), or message
/// entries in Pi's own shape (a `toolResult` role or `toolCall` blocks).
pub fn sniff(lines: &[JsonLine]) -> bool {
    let header = lines.first().is_some_and(|line| is_header(&line.value));
    header
        || lines.iter().any(|line| {
            let record = &line.value;
            let message = record.get("message");
            record.get("type").and_then(Value::as_str) == Some("message")
                && message.is_some_and(|message| {
                    message.get("role").and_then(Value::as_str) == Some("toolResult")
                        || message
                            .get("content")
                            .and_then(Value::as_array)
                            .is_some_and(|blocks| {
                                blocks.iter().any(|block| {
                                    block.get("type").and_then(Value::as_str) == Some("toolCall")
                                })
                            })
                })
        })
}

fn is_header(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("session")
        && record.get("id").is_some_and(Value::is_string)
        && record.get("cwd").is_some_and(Value::is_string)
}

pub fn parse(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    parse_as(Source::Pi, path, lines)
}

/// [`parse`] for a harness that writes Pi's session records (OpenClaw), its sessions under
/// `source`.
pub fn parse_as(source: Source, path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.entry(line);
    }
    let native_id = parser
        .native_id
        .take()
        .unwrap_or_else(|| session_id_of(path));
    ParseOutput {
        sessions: vec![ParsedSession {
            source,
            native_id,
            meta: parser.meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

/// The session id in a Pi file name `<time>_<id>.jsonl` (the whole stem otherwise).
fn session_id_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session");
    stem.rsplit_once('_').map_or(stem, |(_, id)| id).to_string()
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    meta: SessionMeta,
    native_id: Option<String>,
    model: Option<String>,
    /// Tool call id -> tool name.
    calls: HashMap<String, String>,
    keys: HashSet<String>,
}

/// Where an entry sits: its key, line and time.
struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn entry(&mut self, line: &JsonLine) {
        let record = &line.value;
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "session" {
            self.header(record);
            return;
        }
        let key = text_field(record, "id")
            .filter(|id| self.keys.insert(id.clone()))
            .unwrap_or_else(|| format!("line.{}", line.number));
        let message = record.get("message").unwrap_or(&Value::Null);
        let time = record
            .get("timestamp")
            .and_then(parse_timestamp)
            .or_else(|| message.get("timestamp").and_then(parse_timestamp));
        let at = At {
            key,
            line: line.number,
            time,
        };
        match kind {
            "message" => self.message(&at, message),
            "model_change" => {
                if let Some(model) = text_field(record, "modelId") {
                    self.meta.model.get_or_insert_with(|| model.clone());
                    self.model = Some(model.clone());
                    self.push(
                        &at,
                        EventType::System,
                        format!("model changed to {model}"),
                        Some("model_change"),
                    );
                }
            }
            "compaction" => {
                let summary = text_field(record, "summary").unwrap_or_else(|| "compacted".into());
                self.push(&at, EventType::Compaction, summary, Some("compaction"));
            }
            "branch_summary" => {
                let summary = text_field(record, "summary").unwrap_or_default();
                self.push(&at, EventType::System, summary, Some("branch_summary"));
            }
            "custom_message" => {
                let text = block_text(record.get("content").unwrap_or(&Value::Null));
                let subtype = text_field(record, "customType").unwrap_or_else(|| "custom".into());
                self.push(&at, EventType::System, text, Some(&subtype));
            }
            "session_info" => {
                self.meta.title = text_field(record, "name").or(self.meta.title.take());
            }
            // Thinking-level switches, labels and extension state are not conversation.
            "thinking_level_change" | "label" | "custom" => {}
            other => self.warnings.push(ParseWarning {
                line: line.number,
                message: format!("entry of type {other:?} skipped"),
            }),
        }
    }

    fn header(&mut self, record: &Value) {
        self.native_id = self.native_id.take().or_else(|| text_field(record, "id"));
        self.meta.cwd = text_field(record, "cwd");
        self.meta.started_at = record.get("timestamp").and_then(parse_timestamp);
        self.meta.harness_version = record
            .get("version")
            .and_then(Value::as_i64)
            .map(|version| format!("session v{version}"));
        if let Some(model) = text_field(record, "modelId") {
            self.meta.model = Some(model.clone());
            self.model = Some(model);
        }
        self.meta.parent_native_id = text_field(record, "parentSession")
            .or_else(|| text_field(record, "branchedFrom"))
            .map(|parent| session_id_of(Path::new(&parent)));
    }

    fn message(&mut self, at: &At, message: &Value) {
        let content = message.get("content").unwrap_or(&Value::Null);
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" => {
                let text = block_text(content);
                if !text.trim().is_empty() {
                    self.push(at, EventType::UserInput, text, None).starts_turn = true;
                }
            }
            "assistant" => self.assistant(at, message, content),
            "toolResult" => {
                let call_id = text_field(message, "toolCallId");
                let name = call_id
                    .as_ref()
                    .and_then(|id| self.calls.get(id).cloned())
                    .or_else(|| text_field(message, "toolName"))
                    .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
                let mut event = tool_response(
                    at.key.clone(),
                    at.line,
                    at.time,
                    &name,
                    call_id.as_deref(),
                    block_text(content),
                    failed,
                );
                event.exit_code = reported_exit_code(&event.text);
                event.originating_model = self.model.clone();
                self.events.push(event);
            }
            "bashExecution" => self.user_command(at, message),
            "custom" => {
                let subtype = text_field(message, "customType").unwrap_or_else(|| "custom".into());
                self.push(at, EventType::System, block_text(content), Some(&subtype));
            }
            "branchSummary" | "compactionSummary" => {
                let summary = text_field(message, "summary").unwrap_or_default();
                self.push(at, EventType::Compaction, summary, Some("summary"));
            }
            other => self.warnings.push(ParseWarning {
                line: at.line,
                message: format!("message of role {other:?} skipped"),
            }),
        }
    }

    fn assistant(&mut self, at: &At, message: &Value, content: &Value) {
        if let Some(model) = text_field(message, "model") {
            self.meta.model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        let model = self.model.clone();
        let first_event = self.events.len();
        let blocks = content.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut has_calls = false;
        let mut reply_at = None;
        for (index, block) in blocks.iter().enumerate() {
            let key = format!("{}.{index}", at.key);
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "thinking" => {
                    if let Some(text) = text_field(block, "thinking") {
                        let event = self.push_keyed(key, at, EventType::Reasoning, text);
                        event.model = model.clone();
                    }
                }
                "text" => {
                    if let Some(text) = text_field(block, "text") {
                        let event = self.push_keyed(key, at, EventType::AssistantResponse, text);
                        event.model = model.clone();
                        reply_at = Some(self.events.len() - 1);
                    }
                }
                "toolCall" => {
                    has_calls = true;
                    let name = text_field(block, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
                    let call_id = text_field(block, "id");
                    let arguments = block.get("arguments").cloned().unwrap_or(Value::Null);
                    let mut event =
                        tool_call(key, at.line, at.time, &name, call_id.as_deref(), arguments);
                    event.originating_model = model.clone();
                    self.events.push(event);
                    if let Some(call_id) = call_id {
                        self.calls.insert(call_id, name);
                    }
                }
                _ => {}
            }
        }
        let stop = text_field(message, "stopReason");
        match stop.as_deref() {
            Some("stop") if !has_calls => {
                if let Some(reply) = reply_at {
                    self.events[reply].turn_end = Some(TurnEnd::Terminal);
                }
            }
            Some(reason @ ("aborted" | "error")) => {
                let text =
                    text_field(message, "errorMessage").unwrap_or_else(|| reason.to_string());
                let event =
                    self.push_keyed(format!("{}.stop", at.key), at, EventType::Runtime, text);
                event.subtype = Some(reason.to_string());
                event.turn_end = Some(TurnEnd::Terminal);
            }
            _ => {}
        }
        if let Some(usage) = message.get("usage").and_then(usage_of)
            && let Some(target) = usage_carrier(&self.events, first_event)
        {
            TokenUsage::attach(&mut self.events[target], usage);
        }
    }

    /// A shell command the user ran (`!cmd`): a `bash` call and its result.
    fn user_command(&mut self, at: &At, message: &Value) {
        let command = text_field(message, "command").unwrap_or_default();
        let call_id = at.key.clone();
        let mut call = tool_call(
            format!("{}.call", at.key),
            at.line,
            at.time,
            "bash",
            Some(&call_id),
            json!({ "command": command }),
        );
        call.subtype = Some("user_command".into());
        self.events.push(call);
        let exit_code = message.get("exitCode").and_then(Value::as_i64);
        let cancelled = message.get("cancelled").and_then(Value::as_bool) == Some(true);
        let failed = cancelled || exit_code.is_some_and(|code| code != 0);
        let output = text_field(message, "output").unwrap_or_default();
        let mut result = tool_response(
            at.key.clone(),
            at.line,
            at.time,
            "bash",
            Some(&call_id),
            output,
            failed,
        );
        result.exit_code = exit_code;
        if cancelled {
            result.subtype = Some("cancelled".into());
        }
        self.events.push(result);
    }

    fn push(
        &mut self,
        at: &At,
        kind: EventType,
        text: String,
        subtype: Option<&str>,
    ) -> &mut RawEvent {
        let mut event = plain_event(at.key.clone(), kind, at.line, at.time, text, subtype);
        event.originating_model = self.model.clone();
        self.events.push(event);
        self.events.last_mut().expect("just pushed")
    }

    fn push_keyed(&mut self, key: String, at: &At, kind: EventType, text: String) -> &mut RawEvent {
        let mut event = plain_event(key, kind, at.line, at.time, text, None);
        event.originating_model = self.model.clone();
        self.events.push(event);
        self.events.last_mut().expect("just pushed")
    }
}

/// Pi's `usage`: `input` is the uncached prompt part, cache reads and writes come apart;
/// `totalTokens` (when written) is the sum of all four.
fn usage_of(usage: &Value) -> Option<TokenUsage> {
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    let (input, output, cache_read, cache_write) = (
        count("input"),
        count("output"),
        count("cacheRead"),
        count("cacheWrite"),
    );
    if [input, output, cache_read, cache_write]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    Some(
        TokenUsage {
            input: add_counts(add_counts(input, cache_read), cache_write),
            cached_input: cache_read,
            output,
            reasoning: None,
            total: count("totalTokens").filter(|total| *total > 0),
        }
        .with_derived_total(),
    )
}
