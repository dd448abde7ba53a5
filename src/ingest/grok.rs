//! Grok Build (xAI's `grok` CLI) sessions: `$GROK_HOME/sessions/<url-encoded cwd>/<id>/updates.jsonl`
//! (default `~/.grok`), read with `summary.json` and `signals.json` beside it.
//!
//! `updates.jsonl` is Grok's authoritative log (`chat_history.jsonl` is a cache it rebuilds from
//! it): one envelope a line, `{timestamp (epoch seconds), method, params}`, where `method` is
//! `session/update` (an ACP `SessionNotification`) or `_x.ai/session/update` (Grok's own), and
//! `params` is `{sessionId, update: {sessionUpdate, ...}, _meta: {eventId, agentTimestampMs}}`
//! (a legacy line is `params` alone). The updates read:
//! - `user_message_chunk` (`content` an ACP content block; consecutive chunks with the same
//!   `_meta.promptIndex` are one prompt; `_meta.hostTurn` or `hideFromScrollback` chunks are
//!   the harness's own words, not the user's: `system`);
//! - `agent_message_chunk` / `agent_thought_chunk`: consecutive chunks are one reply / one
//!   reasoning block;
//! - `tool_call {toolCallId, title (the tool's wire name), rawInput, _meta["x.ai/tool"].name}`
//!   and `tool_call_update {toolCallId, status, content, rawInput, rawOutput}`: the first update
//!   with status `completed` or `failed` is the call's result;
//! - `turn_completed {prompt_id, stop_reason, usage}` (Grok's): the turn's token usage
//!   (`inputTokens` with cache reads, `cachedReadTokens`, `outputTokens` with reasoning,
//!   `reasoningTokens`, `totalTokens`); a `prompt_id` completed again replaces its usage;
//! - `response_started {model}` (Grok's): the model of the replies that follow;
//! - `compaction_checkpoint` (Grok's): a compaction.
//!
//! Other updates (plans, hook runs, status lines, ...) are UI state and not read. `summary.json`
//! gives the id (`info.id`), cwd (`info.cwd`), title (`generated_title`, else
//! `session_summary`), model (`current_model_id`), start (`created_at`), and the session a
//! fork or sub-agent came from (`parent_session_id`, `session_kind`); a sub-agent's parent is
//! also found from the parent's `subagents/<child id>/meta.json`. `signals.json` is counters
//! and is read only for the model when `summary.json` names none.
//!
//! Source: Grok Build's own code (`xai-org/grok-build`, crates `xai-grok-shell`
//! `session/storage/mod.rs` (`SessionUpdateEnvelope`, file names), `extensions/notification.rs`
//! (`TurnCompleted`, `PromptUsage`), `session/persistence.rs` (`Summary`),
//! `agent/subagent/mod.rs` (`SubagentMeta`), `docs/user-guide/17-sessions.md`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::content::{UNKNOWN_TOOL, epoch_time, plain_event, text_field, tool_call, tool_response};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage, TurnEnd,
    parse_timestamp,
};

/// The log's file name in a session folder.
pub const UPDATES_FILE: &str = "updates.jsonl";
/// The session's metadata beside it.
const SUMMARY_FILE: &str = "summary.json";
const SIGNALS_FILE: &str = "signals.json";
const ACP_METHOD: &str = "session/update";
const XAI_METHOD: &str = "_x.ai/session/update";

/// The `params` of an update line: the envelope's, or the line itself (legacy lines).
fn params(record: &Value) -> Option<&Value> {
    match record.get("method") {
        Some(_) => record.get("params"),
        None => Some(record),
    }
}

/// The `update` object of a line and its `sessionUpdate` kind.
fn update_of(record: &Value) -> Option<(&Value, &str)> {
    let update = params(record)?.get("update")?;
    let kind = update.get("sessionUpdate")?.as_str()?;
    Some((update, kind))
}

/// A Grok Build update log: envelopes with an ACP or Grok `session/update` method (or legacy
/// bare notifications with a `sessionId`) whose update names its `sessionUpdate`.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(3).any(|line| {
        let record = &line.value;
        let method_ok = match record.get("method").and_then(Value::as_str) {
            Some(method) => method == ACP_METHOD || method == XAI_METHOD,
            None => record.get("sessionId").is_some_and(Value::is_string),
        };
        method_ok && update_of(record).is_some()
    })
}

/// True for a file of a Grok session folder other than its log (`summary.json`,
/// `chat_history.jsonl`, `signals.json`, `subagents/<id>/meta.json`,
/// `compaction_checkpoints/<id>.json`, ...): read with the session, never as a log of its own.
pub fn is_side_file(path: &Path) -> bool {
    if path.file_name() == Some(UPDATES_FILE.as_ref()) {
        return false;
    }
    path.ancestors()
        .skip(1)
        .take(3)
        .any(|folder| folder.join(SUMMARY_FILE).is_file() && is_session_folder(folder))
}

/// A folder Grok keeps a session in: `summary.json` beside its log or its chat history.
fn is_session_folder(folder: &Path) -> bool {
    folder.join(UPDATES_FILE).is_file() || folder.join("chat_history.jsonl").is_file()
}

/// The session's metadata for the log at `path`: `{summary, signals, subagent}`, each when
/// present (`subagent` is the parent's `subagents/<id>/meta.json` that names this session).
pub fn read_sidecar(path: &Path) -> Option<Value> {
    let folder = path.parent()?;
    let read = |name: &str| -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(folder.join(name)).ok()?).ok()
    };
    let summary = read(SUMMARY_FILE);
    let signals = read(SIGNALS_FILE);
    let is_subagent = summary
        .as_ref()
        .and_then(|summary| summary.get("session_kind")?.as_str())
        .is_some_and(|kind| kind.starts_with("subagent"));
    let subagent = if is_subagent {
        folder
            .file_name()
            .and_then(|id| subagent_meta(folder.parent()?, id.to_str()?))
    } else {
        None
    };
    if summary.is_none() && signals.is_none() {
        return None;
    }
    Some(json!({"summary": summary, "signals": signals, "subagent": subagent}))
}

/// The `subagents/<id>/meta.json` of a session in `group` (the child's cwd group, where Grok
/// keeps its parent when both ran in one directory) that spawned the session `id`.
fn subagent_meta(group: &Path, id: &str) -> Option<Value> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(group)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    folders.sort();
    folders.into_iter().find_map(|folder| {
        let text =
            std::fs::read_to_string(folder.join("subagents").join(id).join("meta.json")).ok()?;
        let meta: Value = serde_json::from_str(&text).ok()?;
        (meta.get("child_session_id").and_then(Value::as_str) == Some(id)).then_some(meta)
    })
}

/// Parses one `updates.jsonl`, with its session's [`read_sidecar`] when there is one.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::default();
    let mut native_id = None;
    for line in lines {
        if native_id.is_none() {
            native_id = params(&line.value).and_then(|params| text_field(params, "sessionId"));
        }
        parser.record(line);
    }
    parser.flush();
    let mut meta = SessionMeta::default();
    let summary = sidecar
        .and_then(|sidecar| sidecar.get("summary"))
        .filter(|summary| summary.is_object());
    if let Some(summary) = summary {
        if let Some(id) = summary.pointer("/info/id").and_then(Value::as_str) {
            native_id = Some(id.to_string());
        }
        meta.cwd = summary
            .pointer("/info/cwd")
            .and_then(Value::as_str)
            .map(str::to_string);
        meta.title = text_field(summary, "generated_title");
        meta.summary = text_field(summary, "session_summary");
        meta.model = text_field(summary, "current_model_id");
        meta.started_at = summary.get("created_at").and_then(parse_timestamp);
        meta.git_branch = text_field(summary, "head_branch");
        let kind = summary
            .get("session_kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let parent = text_field(summary, "parent_session_id");
        let spawner = sidecar
            .and_then(|sidecar| sidecar.get("subagent"))
            .filter(|meta| meta.is_object());
        match kind {
            "subagent" | "subagent_fork" => {
                meta.parent_native_id = spawner
                    .and_then(|spawner| text_field(spawner, "parent_session_id"))
                    .or(parent);
            }
            "subagent_resume" => {
                meta.parent_native_id =
                    spawner.and_then(|spawner| text_field(spawner, "parent_session_id"));
                meta.forked_from_native_id = parent;
            }
            _ => meta.forked_from_native_id = parent,
        }
        meta.agent_name = spawner.and_then(|spawner| text_field(spawner, "subagent_type"));
    }
    if meta.model.is_none() {
        meta.model = sidecar
            .and_then(|sidecar| sidecar.pointer("/signals/primaryModelId"))
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let native_id = native_id.unwrap_or_else(|| {
        path.parent()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .unwrap_or("session")
            .to_string()
    });
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Grok,
            native_id,
            meta,
            events: parser.events,
        }],
        // Lines that are not JSON are counted by the line splitter; other updates are UI state.
        warnings: Vec::new(),
    }
}

/// The kind of chunk run being gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Prompt,
    Context,
    Reply,
    Thought,
}

/// A run of consecutive chunks read as one event.
struct Chunks {
    run: Run,
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
    text: String,
    prompt_index: Option<i64>,
    message_id: Option<String>,
}

impl Chunks {
    /// A run of one chunk: the update's content block.
    fn of(run: Run, key: String, line: u64, time: Option<DateTime<Utc>>, update: &Value) -> Chunks {
        Chunks {
            run,
            key,
            line,
            time,
            text: chunk_text(update.get("content").unwrap_or(&Value::Null)),
            prompt_index: None,
            message_id: None,
        }
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    open: Option<Chunks>,
    /// Call id -> (tool name, index of its call event).
    calls: HashMap<String, (String, usize)>,
    /// Call ids whose result was read.
    answered: std::collections::HashSet<String>,
    /// Index of the event opening the current turn.
    turn_start: usize,
    /// prompt id -> index of the event carrying its usage.
    turn_usage: HashMap<String, usize>,
    /// The model of the replies being read.
    model: Option<String>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        let Some((update, kind)) = update_of(record) else {
            return;
        };
        let params = params(record).unwrap_or(&Value::Null);
        let time = params
            .pointer("/_meta/agentTimestampMs")
            .and_then(Value::as_i64)
            .and_then(DateTime::from_timestamp_millis)
            .or_else(|| match record.get("timestamp") {
                Some(Value::Number(number)) => epoch_time(number.as_i64()),
                Some(other) => parse_timestamp(other),
                None => None,
            });
        let key = params
            .pointer("/_meta/eventId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map_or_else(|| format!("line.{}", line.number), str::to_string);
        match kind {
            "user_message_chunk" => {
                let hidden = ["hostTurn", "hideFromScrollback"]
                    .iter()
                    .any(|flag| update.pointer(&format!("/_meta/{flag}")) == Some(&json!(true)));
                if let Some(model) = update.pointer("/_meta/modelId").and_then(Value::as_str) {
                    self.model = Some(model.to_string());
                }
                let run = if hidden { Run::Context } else { Run::Prompt };
                let mut chunk = Chunks::of(run, key, line.number, time, update);
                chunk.prompt_index = update.pointer("/_meta/promptIndex").and_then(Value::as_i64);
                self.chunk(chunk);
            }
            "agent_message_chunk" => {
                let mut chunk = Chunks::of(Run::Reply, key, line.number, time, update);
                chunk.message_id = text_field(update, "messageId");
                self.chunk(chunk);
            }
            "agent_thought_chunk" => {
                self.chunk(Chunks::of(Run::Thought, key, line.number, time, update));
            }
            "tool_call" => {
                self.flush();
                self.call(update, line.number, time);
            }
            "tool_call_update" => {
                self.flush();
                self.call_update(update, line.number, time);
            }
            "turn_completed" => {
                self.flush();
                self.turn_completed(update);
            }
            "response_started" => {
                if let Some(model) = text_field(update, "model") {
                    self.model = Some(model);
                }
            }
            "compaction_checkpoint" => {
                self.flush();
                let text = ["summary", "summary_preview"]
                    .iter()
                    .find_map(|field| text_field(update, field))
                    .unwrap_or_default();
                self.events.push(plain_event(
                    key,
                    EventType::Compaction,
                    line.number,
                    time,
                    text,
                    Some("compaction_checkpoint"),
                ));
            }
            _ => {}
        }
    }

    /// Adds a chunk (a one-chunk run) to the open run, or closes that and opens this one.
    fn chunk(&mut self, chunk: Chunks) {
        let continues = self.open.as_ref().is_some_and(|open| {
            open.run == chunk.run
                && open.prompt_index == chunk.prompt_index
                && (chunk.message_id.is_none()
                    || open.message_id.is_none()
                    || open.message_id == chunk.message_id)
        });
        if !continues {
            self.flush();
            self.open = Some(chunk);
            return;
        }
        if let Some(open) = self.open.as_mut() {
            if open.run == Run::Prompt && !open.text.is_empty() && !chunk.text.is_empty() {
                open.text.push('\n');
            }
            open.text.push_str(&chunk.text);
            if open.message_id.is_none() {
                open.message_id = chunk.message_id;
            }
        }
    }

    /// Closes the open run into its event.
    fn flush(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let text = open.text.trim().to_string();
        if text.is_empty() {
            return;
        }
        let (kind, subtype) = match open.run {
            Run::Prompt => (EventType::UserInput, None),
            Run::Context => (EventType::System, Some("host_turn")),
            Run::Reply => (EventType::AssistantResponse, None),
            Run::Thought => (EventType::Reasoning, None),
        };
        let mut event = plain_event(open.key, kind, open.line, open.time, text, subtype);
        event.originating_model = self.model.clone();
        match open.run {
            Run::Prompt => {
                event.starts_turn = true;
                self.turn_start = self.events.len();
            }
            Run::Reply | Run::Thought => event.model = self.model.clone(),
            Run::Context => {}
        }
        self.events.push(event);
    }

    fn call(&mut self, update: &Value, line: u64, time: Option<DateTime<Utc>>) {
        let Some(call_id) = text_field(update, "toolCallId") else {
            return;
        };
        if self.calls.contains_key(&call_id) {
            // Sent again (a status change): read as an update.
            self.call_update(update, line, time);
            return;
        }
        let name = update
            .pointer("/_meta/x.ai~1tool/name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| text_field(update, "title"))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let input = update.get("rawInput").cloned().unwrap_or(Value::Null);
        let mut event = tool_call(
            format!("call.{call_id}"),
            line,
            time,
            &name,
            Some(&call_id),
            input,
        );
        event.originating_model = self.model.clone();
        self.calls
            .insert(call_id.clone(), (name, self.events.len()));
        self.events.push(event);
        if is_terminal(update) {
            self.call_update(update, line, time);
        }
    }

    fn call_update(&mut self, update: &Value, line: u64, time: Option<DateTime<Utc>>) {
        let Some(call_id) = text_field(update, "toolCallId") else {
            return;
        };
        let Some((name, index)) = self.calls.get(&call_id).cloned() else {
            return;
        };
        if let Some(input) = update.get("rawInput").filter(|input| !input.is_null())
            && self.events[index].payload.is_none()
        {
            let event = &mut self.events[index];
            event.text = crate::model::tool_call_text(&name, input);
            event.payload = Some(input.clone());
        }
        if !is_terminal(update) || self.answered.contains(&call_id) {
            return;
        }
        let failed = update.get("status").and_then(Value::as_str) == Some("failed");
        let output = update.get("rawOutput").filter(|output| !output.is_null());
        let text = update_result_text(update);
        let mut event = tool_response(
            format!("result.{call_id}"),
            line,
            time,
            &name,
            Some(&call_id),
            text,
            failed,
        );
        event.exit_code = output.and_then(exit_code);
        if event.exit_code.is_some_and(|code| code != 0) {
            event.subtype = Some("error".to_string());
        }
        event.originating_model = self.model.clone();
        self.answered.insert(call_id);
        self.events.push(event);
    }

    /// A turn's end: its usage on its last reply (else its last event), replacing the usage
    /// of an earlier completion of the same prompt.
    fn turn_completed(&mut self, update: &Value) {
        let start = self.turn_start.min(self.events.len());
        let reply = (start..self.events.len())
            .rev()
            .find(|&index| self.events[index].kind == EventType::AssistantResponse);
        if let Some(reply) = reply {
            self.events[reply].turn_end = Some(TurnEnd::Normal);
        }
        let Some(usage) = update.get("usage").and_then(turn_usage) else {
            return;
        };
        let Some(carrier) = reply.or_else(|| self.events.len().checked_sub(1)) else {
            return;
        };
        if let Some(prompt) = text_field(update, "prompt_id")
            && let Some(previous) = self.turn_usage.insert(prompt, carrier)
        {
            self.events[previous].usage = None;
        }
        TokenUsage::attach(&mut self.events[carrier], usage);
    }
}

/// A result or a terminal status: `completed` or `failed` (also read by `ingest::windsurf_acp`).
pub(crate) fn is_terminal(update: &Value) -> bool {
    matches!(
        update.get("status").and_then(Value::as_str),
        Some("completed" | "failed")
    )
}

/// A turn's `usage` (`PromptUsage`): input with cache reads, output with reasoning.
fn turn_usage(usage: &Value) -> Option<TokenUsage> {
    let field = |name: &str| usage.get(name).and_then(Value::as_i64);
    let usage = TokenUsage {
        input: field("inputTokens"),
        cached_input: field("cachedReadTokens"),
        output: field("outputTokens"),
        reasoning: field("reasoningTokens"),
        total: field("totalTokens").filter(|total| *total > 0),
    };
    (usage.input.is_some() || usage.output.is_some()).then(|| usage.with_derived_total())
}

/// Readable text of one ACP content block: text, a resource's text, a link's URI, `[image]`.
pub(crate) fn chunk_text(content: &Value) -> String {
    match content.get("type").and_then(Value::as_str) {
        Some("text") | None => content
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Some("resource_link") => text_field(content, "uri").unwrap_or_default(),
        Some("resource") => content
            .pointer("/resource/text")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                content
                    .pointer("/resource/uri")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_default(),
        Some(other) => format!("[{other}]"),
    }
}

/// A result's text from its ACP `content` (one item or an array): content blocks' text, a
/// diff as `path` and its new text, a terminal by id.
fn result_text(content: &Value) -> String {
    let items: Vec<&Value> = match content {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    };
    items
        .into_iter()
        .map(|item| match item.get("type").and_then(Value::as_str) {
            Some("content") => chunk_text(item.get("content").unwrap_or(&Value::Null)),
            Some("diff") => {
                let path = text_field(item, "path").unwrap_or_default();
                let new = item
                    .get("newText")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                format!("{path}\n{new}")
            }
            Some("terminal") => format!(
                "[terminal {}]",
                text_field(item, "terminalId").unwrap_or_default()
            ),
            _ => chunk_text(item),
        })
        .filter(|text| !text.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a terminal ACP `tool_call_update`: its `content` ([`result_text`]), else its
/// `rawOutput` (a string as is, anything else as JSON).
pub(crate) fn update_result_text(update: &Value) -> String {
    let text = update.get("content").map(result_text).unwrap_or_default();
    if !text.trim().is_empty() {
        return text;
    }
    match update.get("rawOutput").filter(|output| !output.is_null()) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// A shell result's exit code in its `rawOutput` (`exit_code` / `exitCode`).
pub(crate) fn exit_code(output: &Value) -> Option<i64> {
    ["exit_code", "exitCode"]
        .iter()
        .find_map(|field| output.get(field).and_then(Value::as_i64))
}

/// The sessions folders of Grok homes: `$GROK_HOME/sessions`, else `~/.grok/sessions`.
pub fn sessions_folder(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> PathBuf {
    env("GROK_HOME")
        .unwrap_or_else(|| home.join(".grok"))
        .join("sessions")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;

    fn acp(event: &str, update: Value) -> Value {
        json!({"timestamp": 1_787_000_000, "method": ACP_METHOD,
            "params": {"sessionId": "s1", "update": update, "_meta": {"eventId": event}}})
    }

    fn xai(event: &str, update: Value) -> Value {
        json!({"timestamp": 1_787_000_100, "method": XAI_METHOD,
            "params": {"sessionId": "s1", "update": update, "_meta": {"eventId": event}}})
    }

    fn parse_records(records: &[Value], sidecar: Option<&Value>) -> ParseOutput {
        let text: String = records.iter().map(|record| format!("{record}\n")).collect();
        let split = split_json_lines(text.as_bytes());
        assert!(sniff(&split.lines), "sniffed");
        parse(
            Path::new("/h/.grok/sessions/%2Fw/s1/updates.jsonl"),
            &split.lines,
            sidecar,
        )
    }

    fn records() -> Vec<Value> {
        vec![
            acp(
                "e1",
                json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": "run the tests"},
                "_meta": {"promptIndex": 0, "modelId": "grok-build"}}),
            ),
            acp(
                "e2",
                json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": "and fix them"},
                "_meta": {"promptIndex": 0}}),
            ),
            xai(
                "e3",
                json!({"sessionUpdate": "response_started", "model": "grok-4.5-build"}),
            ),
            acp(
                "e4",
                json!({"sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": "Run cargo "}}),
            ),
            acp(
                "e5",
                json!({"sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": "test."}}),
            ),
            acp(
                "e6",
                json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "bash",
                "kind": "other", "status": "pending", "rawInput": {"command": "cargo test"},
                "_meta": {"x.ai/tool": {"name": "run_terminal_cmd"}}}),
            ),
            xai(
                "e7",
                json!({"sessionUpdate": "hook_execution", "event_name": "pre_tool_use"}),
            ),
            acp(
                "e8",
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
                "title": "cargo test", "status": "in_progress"}),
            ),
            acp(
                "e9",
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
                "status": "failed", "rawOutput": {"exit_code": 101},
                "content": [{"type": "content", "content": {"type": "text", "text": "1 failed"}}]}),
            ),
            acp(
                "e10",
                json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "One test "}}),
            ),
            acp(
                "e11",
                json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "fails."}}),
            ),
            xai(
                "e12",
                json!({"sessionUpdate": "turn_completed", "prompt_id": "p1",
                "stop_reason": "end_turn", "usage": {"inputTokens": 1000, "outputTokens": 50,
                "cachedReadTokens": 800, "reasoningTokens": 20, "totalTokens": 1050}}),
            ),
            acp(
                "e13",
                json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": "background task finished"},
                "_meta": {"hostTurn": true}}),
            ),
        ]
    }

    #[test]
    fn reads_prompts_reasoning_calls_results_replies_and_usage() {
        let sidecar = json!({"summary": {"info": {"id": "019f-aaaa", "cwd": "/w"},
            "generated_title": "Fix the tests", "session_summary": "tests",
            "current_model_id": "grok-build", "created_at": "2026-08-20T10:00:00Z"},
            "signals": {"primaryModelId": "other"}});
        let output = parse_records(&records(), Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Grok);
        assert_eq!(session.native_id, "019f-aaaa");
        assert_eq!(session.meta.title.as_deref(), Some("Fix the tests"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/w"));
        assert_eq!(session.meta.model.as_deref(), Some("grok-build"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::System,
            ]
        );
        let events = &session.events;
        assert_eq!(events[0].text, "run the tests\nand fix them");
        assert_eq!(events[0].key, "e1");
        assert!(events[0].starts_turn);
        assert_eq!(events[1].text, "Run cargo test.");
        assert_eq!(events[2].tool_name.as_deref(), Some("run_terminal_cmd"));
        assert_eq!(events[2].payload, Some(json!({"command": "cargo test"})));
        let result = &events[3];
        assert_eq!(result.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(result.tool_name.as_deref(), Some("run_terminal_cmd"));
        assert_eq!(
            (result.exit_code, result.subtype.as_deref()),
            (Some(101), Some("error"))
        );
        assert_eq!(result.text, "1 failed");
        assert_eq!(events[4].text, "One test fails.");
        assert_eq!(events[4].model.as_deref(), Some("grok-4.5-build"));
        assert_eq!(events[4].turn_end, Some(TurnEnd::Normal));
        assert_eq!(
            events[4].usage,
            Some(TokenUsage {
                input: Some(1000),
                cached_input: Some(800),
                output: Some(50),
                reasoning: Some(20),
                total: Some(1050),
            })
        );
        assert_eq!(events[5].subtype.as_deref(), Some("host_turn"));
    }

    #[test]
    fn a_prompt_completed_again_replaces_its_usage_and_a_subagent_names_its_parent() {
        let mut records = records();
        records.push(xai(
            "e14",
            json!({"sessionUpdate": "turn_completed", "prompt_id": "p1",
            "stop_reason": "end_turn", "usage": {"inputTokens": 1200, "outputTokens": 60}}),
        ));
        let sidecar = json!({"summary": {"info": {"id": "child", "cwd": "/w"},
            "session_kind": "subagent", "current_model_id": "grok-build"},
            "subagent": {"parent_session_id": "parent", "child_session_id": "child",
            "subagent_type": "explore"}});
        let output = parse_records(&records, Some(&sidecar));
        let session = &output.sessions[0];
        let carriers = session.usage_carriers();
        assert_eq!(carriers.len(), 1, "{carriers:?}");
        assert_eq!(carriers[0].1.input, Some(1200));
        assert_eq!(session.meta.parent_native_id.as_deref(), Some("parent"));
        assert_eq!(session.meta.agent_name.as_deref(), Some("explore"));
    }

    #[test]
    fn without_metadata_the_id_is_the_logs_and_legacy_lines_are_read() {
        let legacy = json!({"sessionId": "s-legacy", "update": {"sessionUpdate":
            "user_message_chunk", "content": {"type": "text", "text": "hello"}}});
        let output = parse_records(&[legacy], None);
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "s-legacy");
        assert_eq!(session.events[0].key, "line.1");
        assert_eq!(session.events[0].kind, EventType::UserInput);
    }
}
