//! OpenAI Codex CLI rollout parser (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`),
//! also TRAE CLI 2.0's rollouts (the same format, labelled `trae-cli`: `ingest::trae`).
//!
//! Two on-disk generations are handled:
//! - the current envelope `{timestamp, type, payload}` with `type` one of `session_meta`,
//!   `response_item`, `event_msg`, `turn_context`, `compacted` (plus newer `world_state`,
//!   `inter_agent_communication*`);
//! - the legacy 2025 format: a bare header `{id, timestamp, instructions, git?}`, bare
//!   `ResponseItem`s (`{type: message|function_call|reasoning|...}`) and `{"record_type":"state"}`.
//!
//! Normalization (see the tests for each rule):
//! - `event_msg user_message` is the canonical user input. `response_item` user messages repeat it
//!   (skipped) or carry injected context (system, never a turn start). A file with no
//!   `user_message` event at all (legacy) uses its real role=user response items instead.
//! - Assistant text comes from `response_item` assistant messages (`phase` -> subtype); the
//!   `agent_message` / `agent_reasoning` events are copies and are only kept when the file lacks
//!   the response item with the same text.
//! - Tool calls come from the response items; `exec_command_end` (and friends) duplicate them and
//!   only contribute exit codes, unless no response item carries that call id (then they are
//!   turned into the call/response themselves). An `item_completed` `FileChange` / `McpToolCall`
//!   stands for its call only when no other record has its call id.
//! - TRAE CLI's `history_mutation` appends (`mutation`) repeat response items and carry what
//!   none does: a call is read once by call id, a message once per time it is said, a reply by
//!   the first source that has it (response items, then appends, then `item_completed`
//!   `AgentMessage`, then `agent_message`: `index::ReplySource`). `replace` / `rollback` leave
//!   one `system` marker; their items are not read again.
//! - Forked rollouts: the first `session_meta` is the session's own. A later `session_meta` with
//!   another id starts the copy of the parent's history, which is skipped (one `system` marker
//!   event records it) until the first line that is provably the child's own: the child's
//!   `session_meta` written again, a `turn_context`/`task_started` whose UUIDv7 `turn_id` was
//!   minted at or after the child's creation, or a pause of one second or more after the copy
//!   burst (the copy is written in one burst with re-stamped timestamps).
//!
//! Keys are `L<line>` (1-based) plus `.<n>` for the n-th extra event of a line: rollouts are
//! append-only, so a line number never changes meaning.
//!
//! Layout: this file sniffs and normalizes lines; `parser` drives the pass and emits events;
//! `index` is the whole-file pre-pass; `fork` detects copied parent history; `records` handles
//! messages and `event_msg` events; `items` the `item_completed` turn items; `mutation` TRAE
//! CLI's `history_mutation` records; `tools` resolves calls, responses and exit codes; `text`
//! holds the text helpers.

mod fork;
mod index;
mod items;
mod mutation;
mod parser;
mod records;
mod text;
mod tools;

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::ingest::lines::JsonLine;
use crate::model::{ParseOutput, ParseWarning, Source, parse_timestamp};
use parser::Parser;
use text::str_field;

static NULL: Value = Value::Null;

/// Envelope record types of the current format.
const ENVELOPE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// `type` values of bare legacy response items.
const LEGACY_ITEM_TYPES: [&str; 8] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
];

/// True iff these first lines of a file look like a Codex rollout (current or legacy format).
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let Some(object) = line.value.as_object() else {
            return false;
        };
        let kind = object.get("type").and_then(Value::as_str);
        if let Some(kind) = kind
            && ENVELOPE_TYPES.contains(&kind)
            && object.get("payload").is_some_and(Value::is_object)
        {
            return true;
        }
        if object.get("record_type").and_then(Value::as_str) == Some("state") {
            return true;
        }
        if is_legacy_header(object) {
            return true;
        }
        // A bare legacy ResponseItem: no Claude/Gemini style identity fields, and the shape of
        // an OpenAI Responses item.
        let foreign = ["sessionId", "uuid", "parentUuid", "message", "payload"]
            .iter()
            .any(|key| object.contains_key(*key));
        match kind {
            Some(kind) if !foreign && LEGACY_ITEM_TYPES.contains(&kind) => match kind {
                "message" => {
                    object.get("role").is_some_and(Value::is_string)
                        && object.get("content").is_some_and(Value::is_array)
                }
                "reasoning" => object.contains_key("summary"),
                _ => object.contains_key("call_id"),
            },
            _ => false,
        }
    })
}

fn is_legacy_header(object: &Map<String, Value>) -> bool {
    !object.contains_key("type")
        && object.get("id").is_some_and(Value::is_string)
        && object.get("timestamp").is_some_and(Value::is_string)
        && object
            .keys()
            .all(|key| matches!(key.as_str(), "id" | "timestamp" | "instructions" | "git"))
}

/// One source line, normalized to `(kind, payload)` for both format generations.
struct Line<'a> {
    number: u64,
    /// Envelope type (`response_item`, `event_msg`, ...); `session_meta` for a legacy header,
    /// `response_item` for a bare legacy item, `state` for legacy state lines.
    kind: &'a str,
    payload: &'a Value,
    raw: &'a Value,
    timestamp: Option<DateTime<Utc>>,
}

impl Line<'_> {
    fn payload_type(&self) -> &str {
        str_field(self.payload, "type").unwrap_or("")
    }
}

fn normalize_line(line: &JsonLine) -> Option<Line<'_>> {
    let object = line.value.as_object()?;
    let timestamp = object.get("timestamp").and_then(parse_timestamp);
    let (kind, payload) = match object.get("type").and_then(Value::as_str) {
        Some(kind) if object.contains_key("payload") => {
            (kind, object.get("payload").unwrap_or(&NULL))
        }
        Some(kind) if LEGACY_ITEM_TYPES.contains(&kind) || !object.contains_key("payload") => {
            ("response_item", &line.value)
        }
        _ if object.get("record_type").and_then(Value::as_str) == Some("state") => {
            ("state", &line.value)
        }
        _ if is_legacy_header(object) => ("session_meta", &line.value),
        _ => ("unknown", &line.value),
    };
    Some(Line {
        number: line.number,
        kind,
        payload,
        raw: &line.value,
        timestamp,
    })
}

/// Parses one rollout file into its session.
pub fn parse(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    parse_as(path, lines, Source::Codex)
}

/// Parses one rollout file written by `source`: Codex itself, or a fork that writes Codex's
/// rollouts field for field (TRAE CLI 2.0, `ingest::trae`).
pub fn parse_as(path: &Path, lines: &[JsonLine], source: Source) -> ParseOutput {
    let mut warnings = Vec::new();
    let mut records = Vec::with_capacity(lines.len());
    for line in lines {
        match normalize_line(line) {
            Some(record) => records.push(record),
            None => warnings.push(ParseWarning {
                line: line.number,
                message: "codex: line is not a JSON object; skipped".to_string(),
            }),
        }
    }
    if records.is_empty() {
        return ParseOutput {
            sessions: Vec::new(),
            warnings,
        };
    }
    let mut parser = Parser::new(&records, path, source, &mut warnings);
    let session = parser.run();
    ParseOutput {
        sessions: vec![session],
        warnings,
    }
}

#[cfg(test)]
mod tests;
