//! Qwen Code chat recordings, both generations:
//!
//! * JSONL (`~/.qwen/projects/<cwd-dir>/chats/<sessionId>.jsonl`, Qwen Code 0.5+): one
//!   `ChatRecord` per line, `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd,
//!   version, gitBranch?, message?: {role, parts[]}, model?, usageMetadata?, toolCallResult?,
//!   systemPayload?}`. `type` is `user` (the prompt; `<system-reminder>` blocks Qwen adds are
//!   context, not the user's words), `assistant` (Gemini-style parts: `thought` text is
//!   reasoning, `functionCall {id, name, args}` a tool call; `usageMetadata` its tokens),
//!   `tool_result` (`functionResponse {id, name, response}` paired by id, `toolCallResult.status`
//!   telling a failed call) or `system` (`chat_compression`, `slash_command`, `custom_title`,
//!   `parent_session` — the sub-session link — and bookkeeping such as `ui_telemetry`, whose
//!   token counts duplicate the assistant records' and are not counted again).
//! * Legacy whole-file JSON (`~/.qwen/tmp/<hash>/chats/session-*.json`): the Gemini CLI
//!   recording with `qwen` messages, parsed by the Gemini parser and relabelled `qwen` here.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, arguments_of, plain_event, reported_exit_code, strip_tagged, text_field,
    tool_call, tool_response, usage_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd, add_counts, parse_timestamp,
};

/// The block Qwen Code prepends to prompts (agent lists, reminders): never the user's words.
const REMINDER_TAG: &str = "system-reminder";

/// A Qwen Code JSONL record: `uuid` + `sessionId` with Gemini-style `message.parts`, a
/// `systemPayload`, or the Qwen-only `tool_result` type (Claude Code has none of these).
pub fn sniff_jsonl(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let record = &line.value;
        let has_ids = record.get("uuid").is_some_and(Value::is_string)
            && record.get("sessionId").is_some_and(Value::is_string);
        let qwen_shaped = record
            .get("message")
            .and_then(|message| message.get("parts"))
            .is_some_and(Value::is_array)
            || record.get("systemPayload").is_some()
            || record.get("type").and_then(Value::as_str) == Some("tool_result");
        has_ids && qwen_shaped
    })
}

/// A legacy Gemini-shaped chat recording written by Qwen Code: its model messages are typed
/// `qwen`.
pub fn sniff_json(value: &Value) -> bool {
    super::gemini::sniff_json(value)
        && value
            .get("messages")
            .and_then(Value::as_array)
            .is_some_and(|messages| {
                messages
                    .iter()
                    .any(|message| message.get("type").and_then(Value::as_str) == Some("qwen"))
            })
}

/// A legacy chat recording: the Gemini parse, labelled `qwen`, with the `<system-reminder>`
/// blocks Qwen prepends to prompts moved out of the user's words.
pub fn parse_json(path: &Path, value: &Value) -> ParseOutput {
    let mut output = super::gemini::parse_json(path, value);
    for session in &mut output.sessions {
        session.source = Source::Qwen;
        for event in &mut session.events {
            if event.kind == EventType::UserInput {
                move_reminders_out(event);
            }
        }
    }
    output
}

/// Keeps only the user's words of a prompt; the full sent text goes to the payload. A prompt
/// that is nothing but reminders becomes a `system` event.
fn move_reminders_out(event: &mut RawEvent) {
    if !event.text.contains(&format!("<{REMINDER_TAG}>")) {
        return;
    }
    let typed = strip_tagged(&event.text, REMINDER_TAG).trim().to_string();
    let sent = std::mem::replace(&mut event.text, typed);
    if event.payload.is_none() {
        event.payload = Some(serde_json::json!({ "content": sent }));
    }
    if event.text.is_empty() {
        event.text = sent;
        event.kind = EventType::System;
        event.subtype = Some("context".into());
        event.starts_turn = false;
    }
}

pub fn parse_jsonl(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    let native_id = parser.native_id.take().unwrap_or_else(|| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("session")
            .to_string()
    });
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Qwen,
            native_id,
            meta: parser.meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
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

/// Where a record sits: its key, line and time.
struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        self.session_fields(record);
        let key = text_field(record, "uuid")
            .filter(|uuid| self.keys.insert(uuid.clone()))
            .unwrap_or_else(|| format!("line.{}", line.number));
        let at = At {
            key,
            line: line.number,
            time: record.get("timestamp").and_then(parse_timestamp),
        };
        let parts = record
            .get("message")
            .and_then(|message| message.get("parts"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => self.user(&at, record, parts),
            "assistant" => self.assistant(&at, record, parts),
            "tool_result" => self.tool_results(&at, record, parts),
            "system" => self.system(&at, record),
            other => self.warnings.push(ParseWarning {
                line: line.number,
                message: format!("record of type {other:?} skipped"),
            }),
        }
    }

    fn session_fields(&mut self, record: &Value) {
        if self.native_id.is_none() {
            self.native_id = text_field(record, "sessionId");
        }
        let meta = &mut self.meta;
        meta.cwd = meta.cwd.take().or_else(|| text_field(record, "cwd"));
        meta.harness_version = meta
            .harness_version
            .take()
            .or_else(|| text_field(record, "version"));
        meta.git_branch = meta
            .git_branch
            .take()
            .or_else(|| text_field(record, "gitBranch"));
        if meta.forked_from_native_id.is_none() {
            meta.forked_from_native_id = record
                .get("forkedFrom")
                .and_then(|fork| text_field(fork, "sessionId"));
        }
    }

    fn user(&mut self, at: &At, record: &Value, parts: &[Value]) {
        self.function_responses(at, record, parts);
        let sent = parts_text(parts, false);
        let typed = strip_tagged(&sent, REMINDER_TAG).trim().to_string();
        if sent.trim().is_empty() {
            return;
        }
        let subtype = text_field(record, "subtype");
        let injected = matches!(
            subtype.as_deref(),
            Some("notification" | "cron" | "background_task_completed")
        ) || typed.is_empty();
        if injected {
            let subtype = subtype.unwrap_or_else(|| "context".into());
            self.push(at, EventType::System, sent, Some(&subtype));
            return;
        }
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let steering = subtype.as_deref() == Some("mid_turn_user_message");
        let different = typed != sent.trim();
        let event = self.push(at, EventType::UserInput, typed, subtype.as_deref());
        event.starts_turn = !sidechain && !steering;
        if sidechain {
            event.subtype = Some("subagent_prompt".into());
        }
        if different {
            event.payload = Some(serde_json::json!({ "content": sent }));
        }
    }

    fn assistant(&mut self, at: &At, record: &Value, parts: &[Value]) {
        if let Some(model) = text_field(record, "model") {
            self.meta.model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        let model = self.model.clone();
        let first_event = self.events.len();
        for (index, part) in parts.iter().enumerate() {
            let is_thought = part.get("thought").and_then(Value::as_bool) == Some(true);
            if is_thought && let Some(text) = text_field(part, "text") {
                let event = self.push_keyed(
                    format!("{}.thought.{index}", at.key),
                    at,
                    EventType::Reasoning,
                    text,
                );
                event.model = model.clone();
            }
        }
        let reply = parts_text(parts, false);
        let calls: Vec<&Value> = parts
            .iter()
            .filter_map(|part| part.get("functionCall"))
            .collect();
        if !reply.trim().is_empty() {
            let event = self.push_keyed(at.key.clone(), at, EventType::AssistantResponse, reply);
            event.model = model.clone();
            if calls.is_empty() {
                event.turn_end = Some(TurnEnd::Terminal);
            }
        }
        for (index, call) in calls.into_iter().enumerate() {
            let name = text_field(call, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
            let call_id = text_field(call, "id");
            let mut event = tool_call(
                format!("{}.call.{index}", at.key),
                at.line,
                at.time,
                &name,
                call_id.as_deref(),
                arguments_of(call.get("args")),
            );
            event.originating_model = model.clone();
            self.events.push(event);
            if let Some(call_id) = call_id {
                self.calls.insert(call_id, name);
            }
        }
        if let Some(usage) = record.get("usageMetadata").and_then(usage_of) {
            self.attach_usage(first_event, usage);
        }
    }

    fn tool_results(&mut self, at: &At, record: &Value, parts: &[Value]) {
        let before = self.events.len();
        self.function_responses(at, record, parts);
        if self.events.len() == before
            && let Some(result) = record.get("toolCallResult")
        {
            // A result recorded without its functionResponse part.
            let call_id = text_field(result, "callId");
            self.push_result(
                at.key.clone(),
                at,
                call_id,
                None,
                result_text(None, Some(result)),
                result,
            );
        }
    }

    /// `functionResponse` parts of a record, each a tool response paired by id.
    fn function_responses(&mut self, at: &At, record: &Value, parts: &[Value]) {
        let result = record.get("toolCallResult").unwrap_or(&Value::Null);
        for (index, part) in parts.iter().enumerate() {
            let Some(response) = part.get("functionResponse") else {
                continue;
            };
            let call_id = text_field(response, "id").or_else(|| text_field(result, "callId"));
            let named = text_field(response, "name");
            let text = result_text(response.get("response"), Some(result));
            self.push_result(
                format!("{}.result.{index}", at.key),
                at,
                call_id,
                named,
                text,
                result,
            );
        }
    }

    fn push_result(
        &mut self,
        key: String,
        at: &At,
        call_id: Option<String>,
        named: Option<String>,
        text: String,
        result: &Value,
    ) {
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .or(named)
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let status = text_field(result, "status");
        let failed = matches!(status.as_deref(), Some("error" | "cancelled"))
            || result.get("error").is_some_and(|error| !error.is_null());
        let mut event = tool_response(
            key,
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        if status.as_deref() == Some("cancelled") {
            event.subtype = Some("cancelled".into());
        }
        event.exit_code = reported_exit_code(&event.text);
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    fn system(&mut self, at: &At, record: &Value) {
        let payload = record.get("systemPayload").unwrap_or(&Value::Null);
        match text_field(record, "subtype").as_deref() {
            Some("chat_compression") => {
                let summary = payload
                    .get("compressedHistory")
                    .and_then(Value::as_array)
                    .and_then(|history| history.first())
                    .and_then(|content| content.get("parts"))
                    .and_then(Value::as_array)
                    .map(|parts| parts_text(parts, false))
                    .filter(|text| !text.trim().is_empty())
                    .unwrap_or_else(|| "chat compressed".into());
                self.push(at, EventType::Compaction, summary, Some("chat_compression"));
            }
            Some("slash_command") => {
                let command = text_field(payload, "rawCommand").unwrap_or_default();
                let invocation = text_field(payload, "phase").as_deref() != Some("result");
                if invocation && !command.is_empty() {
                    let event = self.push(at, EventType::UserInput, command, Some("slash_command"));
                    event.starts_turn = true;
                }
            }
            Some("custom_title") => {
                self.meta.title = text_field(payload, "customTitle").or(self.meta.title.take());
            }
            Some("parent_session") => {
                self.meta.parent_native_id = text_field(payload, "parentSessionId");
            }
            Some("session_model") => {
                if let Some(model) = text_field(payload, "modelId") {
                    self.meta.model.get_or_insert_with(|| model.clone());
                    self.model = Some(model);
                }
            }
            Some("notification") => {
                let text = text_field(payload, "displayText").unwrap_or_default();
                self.push(at, EventType::System, text, Some("notification"));
            }
            // Telemetry (its tokens repeat the assistant records'), snapshots and other
            // bookkeeping.
            _ => {}
        }
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

    /// Sets a record's usage on its reply (else its first event, else the event before it).
    fn attach_usage(&mut self, first_event: usize, usage: TokenUsage) {
        if let Some(target) = usage_carrier(&self.events, first_event) {
            TokenUsage::attach(&mut self.events[target], usage);
        }
    }
}

/// Text of the non-thought (or, with `thoughts`, thought) text parts, concatenated.
fn parts_text(parts: &[Value], thoughts: bool) -> String {
    parts
        .iter()
        .filter(|part| (part.get("thought").and_then(Value::as_bool) == Some(true)) == thoughts)
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .concat()
}

/// A tool's output as the model got it (`response.output` / `response.error`), else the
/// displayed result or error of `toolCallResult`.
fn result_text(response: Option<&Value>, result: Option<&Value>) -> String {
    let from_response = response.and_then(|response| match response {
        Value::String(text) => Some(text.clone()),
        Value::Object(_) => {
            let pieces: Vec<String> = ["output", "error"]
                .iter()
                .filter_map(|field| text_field(response, field))
                .collect();
            (!pieces.is_empty()).then(|| pieces.join("\n"))
        }
        _ => None,
    });
    from_response
        .or_else(|| {
            let result = result?;
            result
                .get("resultDisplay")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| {
                    result
                        .get("error")
                        .and_then(|error| text_field(error, "message"))
                })
        })
        .unwrap_or_default()
}

/// Gemini API `usageMetadata`: the prompt count includes cached tokens; thoughts are output.
fn usage_of(metadata: &Value) -> Option<TokenUsage> {
    let count = |field: &str| metadata.get(field).and_then(Value::as_i64);
    let (prompt, tool_prompt, candidates, thoughts) = (
        count("promptTokenCount"),
        count("toolUsePromptTokenCount"),
        count("candidatesTokenCount"),
        count("thoughtsTokenCount"),
    );
    if [prompt, candidates, thoughts, count("totalTokenCount")]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    Some(
        TokenUsage {
            input: add_counts(prompt, tool_prompt),
            cached_input: count("cachedContentTokenCount"),
            output: add_counts(candidates, thoughts),
            reasoning: thoughts,
            total: count("totalTokenCount"),
        }
        .with_derived_total(),
    )
}
