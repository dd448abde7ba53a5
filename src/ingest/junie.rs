//! Junie (JetBrains' coding agent: the `junie` CLI, and the agent AI Assistant runs in the IDE):
//! `${JUNIE_HOME:-~/.junie}/sessions/<session id>/events.jsonl`, one event a line
//! `{kind, timestampMs, ...}`, with `sessions/index.jsonl` (a line per session: `sessionId`,
//! `projectDir`, `taskName`, `createdAt`, `updatedAt`) and the session folder's `state.json`
//! read beside it; `transcript.md` (a rendering of the same log), `state.json`, `index.jsonl`
//! and the `task-*` folders are never read as logs of their own ([`is_companion_path`]).
//!
//! Records:
//! - `UserPromptEvent`: what the person typed (`presentablePrompt`, else `prompt`, the words
//!   sent); a second record with the same `requestId` updates the first;
//!   `UserResponseEvent` (`prompt`) answers a question of the agent;
//! - `SessionA2uxEvent{event: {state, agentEvent: {kind, stepId, ...}}}`: the agent's work, one
//!   block per step updated in place, folded by `stepId` (the last update wins; a finished task
//!   replays its blocks with `state: COMPLETED`, which fold into the steps they repeat):
//!   `TerminalBlockUpdatedEvent` (`command`, `status` `FAILED` on a non-zero `exitCode`,
//!   `output`/`details`), `ViewFilesBlockUpdatedEvent` (`files[].relativePath`),
//!   `FileChangesBlockUpdatedEvent` (`changes[]` with `beforeRelativePath`/`afterRelativePath`
//!   and `beforeContent.text`/`afterContent.text`), `ToolBlockUpdatedEvent`,
//!   `McpBlockUpdatedEvent` and `CustomAgentBlockUpdatedEvent` (a sub-agent run inside this
//!   session) as tool calls with their results; `MarkdownBlockUpdatedEvent` (`text`) and
//!   `ResultBlockUpdatedEvent` (`result`, after an `<!-- ANSWER -->` marker) as replies;
//!   `AgentThoughtBlockUpdatedEvent` as reasoning; `ContextCompactionBlockUpdatedEvent` as a
//!   compaction; `LlmResponseMetadataEvent` (`modelUsage[]`: `model`, `inputTokens`,
//!   `outputTokens`, `cacheInputTokens`, `cacheCreateTokens`) as one model call's usage;
//!   `CurrentDirectoryUpdatedEvent` (`currentDirectory`) as the working directory;
//!   `AgentFailureEvent` (`message`, `errorCode`) as a failure;
//! - `SystemMessageEvent`, `AgentTaskFailedEvent`, `SessionTitleSetEvent` (`name`).
//!
//! A headless run (`junie "task"`) writes no `UserPromptEvent`: its task is `state.json`'s
//! `issue.description`, with the `<additional_context>` blocks hooks put in front of it cut.
//!
//! Sources: vshulcz/deja-vu `docs/registry/junie.md` (checked on Junie CLI 3110.7, 2026-10-08);
//! agentsview's Junie reader (`UserPromptEvent` by `requestId`, `presentablePrompt`,
//! `SessionTitleSetEvent`, `SystemMessageEvent`, `<!-- ANSWER -->`, `index.jsonl`); ctxrs/ctx's
//! Junie reader and its tests recorded from Junie CLI (`LlmResponseMetadataEvent.modelUsage`,
//! `TerminalBlockUpdatedEvent.details`, `FileChangesBlockUpdatedEvent.changes`,
//! `AgentFailureEvent`, `CurrentDirectoryUpdatedEvent`); public tests of other readers
//! (`McpBlockUpdatedEvent`, `CustomAgentBlockUpdatedEvent`, `state.json`'s `issue`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::content::{
    mark_terminal_replies, plain_event, strip_tagged, text_field, tool_call, tool_response,
    totals_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The session log's file name in a session folder.
pub const EVENTS_FILE: &str = "events.jsonl";
/// The folder holding the session folders and `index.jsonl`.
const SESSIONS_FOLDER: &str = "sessions";
/// The marker Junie puts before a task's answer.
const ANSWER_MARKER: &str = "<!-- ANSWER -->";

/// Top-level record kinds only Junie writes (besides `SessionA2uxEvent`).
const KINDS: [&str; 9] = [
    "UserPromptEvent",
    "UserResponseEvent",
    "TaskStartedEvent",
    "SessionTitleSetEvent",
    "SystemMessageEvent",
    "AgentTaskFailedEvent",
    "UserMessagesCommittedToHistory",
    "UserMessagesDroppedFromHistory",
    "UserAsyncResponseEvent",
];

/// A Junie session log: a leading record is a `SessionA2uxEvent` with its `event` object, or a
/// known top-level kind with `timestampMs`.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let record = &line.value;
        let Some(kind) = record.get("kind").and_then(Value::as_str) else {
            return false;
        };
        let a2ux = kind == "SessionA2uxEvent"
            && record
                .get("event")
                .is_some_and(|event| event.get("agentEvent").is_some_and(Value::is_object));
        let known =
            KINDS.contains(&kind) && record.get("timestampMs").is_some_and(Value::is_number);
        (a2ux || known) && record.get("version").is_none() && record.get("type").is_none()
    })
}

/// A file of a Junie store that is not a session log: `sessions/index.jsonl`, and everything in
/// a session folder (one with `events.jsonl`, in a `sessions` folder) or its `task-*` folders
/// but its `events.jsonl` (`state.json`, `transcript.md`, ...).
pub fn is_companion_path(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let parent = path.parent();
    if name == "index.jsonl"
        && parent.and_then(Path::file_name) == Some(SESSIONS_FOLDER.as_ref())
        && parent.is_some_and(|sessions| sessions.join("index.jsonl").is_file())
        && parent.is_some_and(holds_session_folder)
    {
        return true;
    }
    path.ancestors()
        .skip(1)
        .take(3)
        .filter(|folder| {
            folder.parent().and_then(Path::file_name) == Some(SESSIONS_FOLDER.as_ref())
        })
        .any(|folder| path != folder.join(EVENTS_FILE) && folder.join(EVENTS_FILE).is_file())
}

/// Whether a `sessions` folder holds a Junie session folder.
fn holds_session_folder(sessions: &Path) -> bool {
    std::fs::read_dir(sessions).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.path().join(EVENTS_FILE).is_file())
    })
}

/// The session's facts beside its log: `{"index": <its index.jsonl line>, "state": <state.json>}`
/// (either may be missing).
pub fn read_sidecar(path: &Path) -> Option<Value> {
    let folder = path.parent()?;
    let id = folder.file_name()?.to_str()?;
    let index = folder
        .parent()
        .and_then(|sessions| std::fs::read_to_string(sessions.join("index.jsonl")).ok())
        .and_then(|text| {
            text.lines()
                .rev()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|entry| entry.get("sessionId").and_then(Value::as_str) == Some(id))
        });
    let state = std::fs::read_to_string(folder.join("state.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    (index.is_some() || state.is_some()).then(|| json!({"index": index, "state": state}))
}

/// Parses one `events.jsonl`, with the [`read_sidecar`] facts when there are any.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    parser.finish();
    let index = sidecar
        .and_then(|sidecar| sidecar.get("index"))
        .filter(|index| index.is_object());
    let state = sidecar.and_then(|sidecar| sidecar.get("state"));
    if !parser.prompted
        && let Some(task) = state.and_then(headless_task)
    {
        let mut event = plain_event(
            "state.task".to_string(),
            EventType::UserInput,
            0,
            parser.first_time,
            task,
            None,
        );
        event.starts_turn = true;
        parser.events.insert(0, event);
    }
    mark_terminal_replies(&mut parser.events);
    let mut meta = SessionMeta {
        title: parser.title.clone(),
        cwd: parser.cwd.clone(),
        model: parser.first_model.clone(),
        started_at: parser.first_time,
        ..SessionMeta::default()
    };
    if let Some(index) = index {
        meta.cwd = text_field(index, "projectDir").or(meta.cwd);
        meta.title = meta.title.or_else(|| text_field(index, "taskName"));
        meta.started_at = index
            .get("createdAt")
            .and_then(parse_timestamp)
            .or(meta.started_at);
    }
    let native_id = index
        .and_then(|index| text_field(index, "sessionId"))
        .or_else(|| {
            path.parent()
                .and_then(Path::file_name)
                .and_then(|name| name.to_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "session".to_string());
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Junie,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

/// A headless run's task: `state.json`'s `issue.description` without the hooks' context.
fn headless_task(state: &Value) -> Option<String> {
    let description = state.pointer("/issue/description")?.as_str()?;
    let task = strip_tagged(description, "additional_context");
    let task = task.trim();
    (!task.is_empty()).then(|| task.to_string())
}

/// One folded step: the indices of its events.
#[derive(Default)]
struct Step {
    /// The call (tool steps) or the text event (replies, reasoning, compaction).
    first: usize,
    /// The result, once the step has one.
    result: Option<usize>,
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    keys: HashSet<String>,
    steps: HashMap<String, Step>,
    /// `requestId` -> the prompt's event.
    prompts: HashMap<String, usize>,
    prompted: bool,
    title: Option<String>,
    cwd: Option<String>,
    first_model: Option<String>,
    model: Option<String>,
    first_time: Option<DateTime<Utc>>,
    time: Option<DateTime<Utc>>,
    /// The newest event of the agent in the current turn (usage goes there).
    last_agent_event: Option<usize>,
    /// Usage of model calls seen before any event of the agent in their turn.
    pending_usage: Vec<TokenUsage>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        if let Some(time) = record.get("timestampMs").and_then(parse_timestamp) {
            self.time = Some(time);
            self.first_time.get_or_insert(time);
        }
        let Some(kind) = record.get("kind").and_then(Value::as_str) else {
            self.warnings.push(ParseWarning {
                line: line.number,
                message: "a Junie record without a kind; skipped".to_string(),
            });
            return;
        };
        let line_key = format!("line.{}", line.number);
        match kind {
            "UserPromptEvent" => self.prompt(record, line.number),
            "UserResponseEvent" => {
                if let Some(text) = text_field(record, "prompt") {
                    let event = plain_event(
                        line_key,
                        EventType::UserInput,
                        line.number,
                        self.time,
                        text,
                        Some("response"),
                    );
                    self.push(event);
                }
            }
            "SessionTitleSetEvent" => {
                if let Some(name) = text_field(record, "name") {
                    self.title = Some(name);
                }
            }
            "SystemMessageEvent" => {
                let text = text_field(record, "text").unwrap_or_default();
                let details = text_field(record, "details").unwrap_or_default();
                let text = if details.is_empty() || details == text {
                    text
                } else {
                    format!("{text}\n\n{details}").trim().to_string()
                };
                if !text.is_empty() {
                    let event = plain_event(
                        line_key,
                        EventType::System,
                        line.number,
                        self.time,
                        text,
                        None,
                    );
                    self.push(event);
                }
            }
            "AgentTaskFailedEvent" => {
                let event = plain_event(
                    line_key,
                    EventType::Runtime,
                    line.number,
                    self.time,
                    "Agent task failed".to_string(),
                    Some("error"),
                );
                self.push(event);
            }
            "SessionA2uxEvent" => {
                let event = record.get("event").unwrap_or(&Value::Null);
                let replayed = event.get("state").and_then(Value::as_str) == Some("COMPLETED");
                match event.get("agentEvent") {
                    Some(agent) if agent.is_object() => {
                        self.agent_event(agent, line.number, replayed)
                    }
                    _ => self.warnings.push(ParseWarning {
                        line: line.number,
                        message: "a Junie SessionA2uxEvent without its agentEvent; skipped"
                            .to_string(),
                    }),
                }
            }
            // Bookkeeping (task starts, history commits, progress) holds no words.
            _ => {}
        }
    }

    fn prompt(&mut self, record: &Value, line: u64) {
        let Some(text) =
            text_field(record, "presentablePrompt").or_else(|| text_field(record, "prompt"))
        else {
            return;
        };
        let request = text_field(record, "requestId");
        if let Some(index) = request.as_ref().and_then(|id| self.prompts.get(id)) {
            self.events[*index].text = text;
            return;
        }
        let key = request
            .as_ref()
            .map_or_else(|| format!("line.{line}"), |id| format!("prompt.{id}"));
        let mut event = plain_event(key, EventType::UserInput, line, self.time, text, None);
        event.starts_turn = true;
        if let Some(sent) = text_field(record, "prompt").filter(|sent| *sent != event.text) {
            event.payload = Some(json!({"prompt": sent}));
        }
        self.prompted = true;
        self.last_agent_event = None;
        if let Some(index) = self.push(event)
            && let Some(request) = request
        {
            self.prompts.insert(request, index);
        }
    }

    fn agent_event(&mut self, agent: &Value, line: u64, replayed: bool) {
        let kind = agent.get("kind").and_then(Value::as_str).unwrap_or("");
        let step_id = text_field(agent, "stepId");
        match kind {
            "LlmResponseMetadataEvent" => self.usage(agent),
            "CurrentDirectoryUpdatedEvent" if self.cwd.is_none() => {
                self.cwd = text_field(agent, "currentDirectory");
            }
            "AgentFailureEvent" => {
                let message = text_field(agent, "message").unwrap_or_default();
                let text = match text_field(agent, "errorCode") {
                    Some(code) if message.is_empty() => code,
                    Some(code) => format!("{code}: {message}"),
                    None => message,
                };
                if !text.is_empty() {
                    let event = plain_event(
                        format!("line.{line}"),
                        EventType::Runtime,
                        line,
                        self.time,
                        text,
                        Some("error"),
                    );
                    self.agent_push(event);
                }
            }
            "MarkdownBlockUpdatedEvent" => {
                let text = text_field(agent, "text");
                self.text_step(step_id, line, EventType::AssistantResponse, text, None);
            }
            "ResultBlockUpdatedEvent" => {
                let text = text_field(agent, "result")
                    .map(|result| result.trim_start_matches(ANSWER_MARKER).trim().to_string())
                    .filter(|result| !result.is_empty());
                self.text_step(
                    step_id,
                    line,
                    EventType::AssistantResponse,
                    text,
                    Some("result"),
                );
            }
            "AgentThoughtBlockUpdatedEvent" => {
                let text = text_field(agent, "text").or_else(|| text_field(agent, "thought"));
                self.text_step(step_id, line, EventType::Reasoning, text, None);
            }
            "ContextCompactionBlockUpdatedEvent" => {
                let text = ["summary", "text", "details"]
                    .into_iter()
                    .find_map(|field| text_field(agent, field))
                    .or_else(|| Some("Context compacted".to_string()));
                self.text_step(step_id, line, EventType::Compaction, text, None);
            }
            "TerminalBlockUpdatedEvent"
            | "ViewFilesBlockUpdatedEvent"
            | "FileChangesBlockUpdatedEvent"
            | "ToolBlockUpdatedEvent"
            | "McpBlockUpdatedEvent"
            | "CustomAgentBlockUpdatedEvent" => {
                self.tool_step(kind, agent, step_id, line, replayed)
            }
            // Plans, statuses, environment and state snapshots hold no conversation.
            _ => {}
        }
    }

    /// A reply, thought or compaction block, folded by its step.
    fn text_step(
        &mut self,
        step_id: Option<String>,
        line: u64,
        kind: EventType,
        text: Option<String>,
        subtype: Option<&str>,
    ) {
        let prefix = match kind {
            EventType::Reasoning => "thought",
            EventType::Compaction => "compaction",
            _ => "text",
        };
        if let Some(step) = step_id.as_ref().and_then(|id| self.steps.get(id)) {
            if let Some(text) = text {
                let event = &mut self.events[step.first];
                event.text = text;
                if subtype.is_some() {
                    event.subtype = subtype.map(str::to_string);
                }
            }
            return;
        }
        let Some(text) = text else {
            return;
        };
        let key = step_id
            .as_ref()
            .map_or_else(|| format!("line.{line}"), |id| format!("{prefix}.{id}"));
        let mut event = plain_event(key, kind, line, self.time, text, subtype);
        if kind == EventType::AssistantResponse {
            event.model = self.model.clone();
        }
        if let Some(index) = self.agent_push(event)
            && let Some(id) = step_id
        {
            self.steps.insert(
                id,
                Step {
                    first: index,
                    result: None,
                },
            );
        }
    }

    /// A tool block: its call where the step first appears, its result once it has one.
    fn tool_step(
        &mut self,
        kind: &str,
        agent: &Value,
        step_id: Option<String>,
        line: u64,
        replayed: bool,
    ) {
        let (name, arguments) = call_of(kind, agent);
        let id = step_id.unwrap_or_else(|| format!("line.{line}"));
        let first = match self.steps.get(&id) {
            Some(step) => {
                let call = &mut self.events[step.first];
                if arguments
                    .as_object()
                    .is_some_and(|fields| !fields.is_empty())
                {
                    let updated = tool_call(
                        call.key.clone(),
                        call.line,
                        call.timestamp,
                        &name,
                        Some(&id),
                        arguments,
                    );
                    call.text = updated.text;
                    call.payload = updated.payload;
                    call.tool_name = updated.tool_name;
                }
                step.first
            }
            None => {
                let event = tool_call(
                    format!("step.{id}"),
                    line,
                    self.time,
                    &name,
                    Some(&id),
                    arguments,
                );
                let Some(index) = self.agent_push(event) else {
                    return;
                };
                self.steps.insert(
                    id.clone(),
                    Step {
                        first: index,
                        result: None,
                    },
                );
                index
            }
        };
        let Some(outcome) = outcome_of(kind, agent, replayed) else {
            return;
        };
        let name = self.events[first]
            .tool_name
            .clone()
            .unwrap_or_else(|| name.clone());
        let result = self.steps.get(&id).and_then(|step| step.result);
        match result {
            Some(index) => {
                let event = &mut self.events[index];
                if !outcome.text.is_empty() {
                    event.text = outcome.text;
                }
                event.subtype = outcome.failed.then(|| "error".to_string());
                event.exit_code = outcome.exit_code.or(event.exit_code);
            }
            None => {
                let mut event = tool_response(
                    format!("step.{id}.result"),
                    line,
                    self.time,
                    &name,
                    Some(&id),
                    outcome.text,
                    outcome.failed,
                );
                event.exit_code = outcome.exit_code;
                if let Some(index) = self.push(event)
                    && let Some(step) = self.steps.get_mut(&id)
                {
                    step.result = Some(index);
                }
            }
        }
    }

    /// One model call's usage: on the newest event of the agent in its turn, else on the next.
    fn usage(&mut self, agent: &Value) {
        let Some(items) = agent.get("modelUsage").and_then(Value::as_array) else {
            return;
        };
        let count = |item: &Value, field: &str| item.get(field).and_then(Value::as_i64);
        let mut usage: Option<TokenUsage> = None;
        for item in items {
            if let Some(model) = text_field(item, "model") {
                self.first_model.get_or_insert_with(|| model.clone());
                self.model = Some(model);
            }
            let fresh = count(item, "inputTokens");
            let cache_read = count(item, "cacheInputTokens");
            let cache_write = count(item, "cacheCreateTokens");
            let one = TokenUsage {
                input: crate::model::add_counts(
                    crate::model::add_counts(fresh, cache_read),
                    cache_write,
                ),
                cached_input: cache_read,
                output: count(item, "outputTokens"),
                ..TokenUsage::default()
            };
            usage = Some(match usage {
                Some(sum) => sum + one,
                None => one,
            });
        }
        let Some(usage) = usage.map(TokenUsage::with_derived_total) else {
            return;
        };
        match self.last_agent_event {
            Some(index) => TokenUsage::attach(&mut self.events[index], usage),
            None => self.pending_usage.push(usage),
        }
    }

    /// Pushes an event of the agent's and hands it the usage waiting for one.
    fn agent_push(&mut self, event: RawEvent) -> Option<usize> {
        let index = self.push(event)?;
        self.last_agent_event = Some(index);
        for usage in std::mem::take(&mut self.pending_usage) {
            TokenUsage::attach(&mut self.events[index], usage);
        }
        Some(index)
    }

    /// Pushes an event unless its key is taken (a repeated record).
    fn push(&mut self, mut event: RawEvent) -> Option<usize> {
        if !self.keys.insert(event.key.clone()) {
            return None;
        }
        event.originating_model = self.model.clone();
        self.events.push(event);
        Some(self.events.len() - 1)
    }

    fn finish(&mut self) {
        let pending = std::mem::take(&mut self.pending_usage);
        if let Some(carrier) = totals_carrier(&self.events) {
            for usage in pending {
                TokenUsage::attach(&mut self.events[carrier], usage);
            }
        }
    }
}

/// A tool block's tool name and arguments.
fn call_of(kind: &str, agent: &Value) -> (String, Value) {
    match kind {
        "TerminalBlockUpdatedEvent" => {
            let command = text_field(agent, "command").unwrap_or_default();
            ("terminal".to_string(), json!({"command": command}))
        }
        "ViewFilesBlockUpdatedEvent" => {
            let paths: Vec<String> = agent
                .get("files")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|file| {
                    text_field(file, "relativePath").or_else(|| text_field(file, "path"))
                })
                .collect();
            ("view_files".to_string(), json!({"paths": paths}))
        }
        "FileChangesBlockUpdatedEvent" => {
            let paths: Vec<String> = changes_of(agent).iter().filter_map(change_path).collect();
            ("edit_files".to_string(), json!({"paths": paths}))
        }
        "CustomAgentBlockUpdatedEvent" => {
            let name = text_field(agent, "name").unwrap_or_else(|| "subagent".to_string());
            let mut arguments = json!({"name": name});
            for field in ["prompt", "task", "description"] {
                if let Some(text) = text_field(agent, field) {
                    arguments[field] = Value::String(text);
                }
            }
            ("subagent".to_string(), arguments)
        }
        _ => {
            let fallback = if kind == "McpBlockUpdatedEvent" {
                "mcp"
            } else {
                "tool"
            };
            let name = ["toolName", "name", "tool"]
                .into_iter()
                .find_map(|field| text_field(agent, field))
                .unwrap_or_else(|| fallback.to_string());
            let arguments = ["arguments", "input", "params", "parameters"]
                .into_iter()
                .find_map(|field| agent.get(field).filter(|value| !value.is_null()))
                .map(|value| super::content::arguments_of(Some(value)))
                .filter(Value::is_object)
                .or_else(|| text_field(agent, "text").map(|text| json!({"text": text})))
                .unwrap_or_else(|| json!({}));
            (name, arguments)
        }
    }
}

fn changes_of(agent: &Value) -> Vec<Value> {
    agent
        .get("changes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The file a change writes (or removes).
fn change_path(change: &Value) -> Option<String> {
    [
        "afterRelativePath",
        "beforeRelativePath",
        "relativePath",
        "path",
        "filePath",
    ]
    .into_iter()
    .find_map(|field| text_field(change, field))
}

/// What a finished tool block answered.
struct Outcome {
    text: String,
    failed: bool,
    exit_code: Option<i64>,
}

/// Statuses of a block still running.
const RUNNING: [&str; 5] = ["IN_PROGRESS", "RUNNING", "PENDING", "STARTED", "EXECUTING"];

/// A tool block's result, once it has one: output, a status that is not a running one, an exit
/// code, or the finished task's replay.
fn outcome_of(kind: &str, agent: &Value, replayed: bool) -> Option<Outcome> {
    let status = text_field(agent, "status").map(|status| status.to_ascii_uppercase());
    let exit_code = ["exitCode", "exit_code"]
        .into_iter()
        .find_map(|field| agent.get(field).and_then(Value::as_i64));
    let text = if kind == "FileChangesBlockUpdatedEvent" {
        changes_text(&changes_of(agent))
    } else {
        ["output", "details", "result"]
            .into_iter()
            .find_map(|field| {
                agent
                    .get(field)
                    .and_then(Value::as_str)
                    .filter(|text| !text.trim().is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_default()
    };
    let finished = status
        .as_deref()
        .is_some_and(|status| !RUNNING.contains(&status))
        || exit_code.is_some()
        || replayed
        || (kind != "FileChangesBlockUpdatedEvent" && !text.is_empty());
    if !finished {
        return None;
    }
    let failed = status
        .as_deref()
        .is_some_and(|status| matches!(status, "FAILED" | "ERROR" | "CANCELLED" | "REJECTED"))
        || exit_code.is_some_and(|code| code != 0)
        || agent.get("cancelled").and_then(Value::as_bool) == Some(true);
    let text = match (text.is_empty(), exit_code) {
        (true, Some(code)) => format!("exit code {code}"),
        (true, None) => status.unwrap_or_default().to_ascii_lowercase(),
        (false, _) => text,
    };
    Some(Outcome {
        text,
        failed,
        exit_code,
    })
}

/// The changed lines of each change, under its path: removed lines `- `, written lines `+ `.
fn changes_text(changes: &[Value]) -> String {
    let side = |change: &Value, field: &str| {
        change
            .get(field)
            .and_then(|content| content.get("text").or(Some(content)))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    changes
        .iter()
        .map(|change| {
            let before = side(change, "beforeContent");
            let after = side(change, "afterContent");
            let kept: HashSet<&str> = before.lines().collect();
            let written: HashSet<&str> = after.lines().collect();
            let mut text = change_path(change).unwrap_or_default();
            for removed in before.lines().filter(|line| !written.contains(line)) {
                text.push_str("\n- ");
                text.push_str(removed);
            }
            for added in after.lines().filter(|line| !kept.contains(line)) {
                text.push_str("\n+ ");
                text.push_str(added);
            }
            text
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;

    fn a2ux(time: i64, state: &str, agent: Value) -> Value {
        json!({"kind": "SessionA2uxEvent", "timestampMs": time,
            "event": {"state": state, "agentEvent": agent}})
    }

    fn parse_records(records: &[Value], sidecar: Option<&Value>) -> ParseOutput {
        let text: String = records.iter().map(|record| format!("{record}\n")).collect();
        let split = split_json_lines(text.as_bytes());
        assert!(sniff(&split.lines), "sniffed as Junie");
        parse(
            Path::new("/h/.junie/sessions/session-1/events.jsonl"),
            &split.lines,
            sidecar,
        )
    }

    #[test]
    fn blocks_fold_by_step_and_pair_calls_with_results() {
        let records = [
            json!({"kind": "UserPromptEvent", "timestampMs": 1_783_339_200_000_i64,
                "requestId": "r1", "prompt": "<ctx/>fix the build", "presentablePrompt": "fix the build"}),
            a2ux(
                1_783_339_201_000,
                "IN_PROGRESS",
                json!({"kind": "LlmResponseMetadataEvent",
                "modelUsage": [{"model": "anthropic/claude-sonnet-4", "inputTokens": 17,
                    "outputTokens": 23, "cacheInputTokens": 3, "cacheCreateTokens": 5}]}),
            ),
            a2ux(
                1_783_339_202_000,
                "IN_PROGRESS",
                json!({"kind": "TerminalBlockUpdatedEvent",
                "stepId": "t1", "command": "cargo build", "status": "IN_PROGRESS"}),
            ),
            a2ux(
                1_783_339_203_000,
                "IN_PROGRESS",
                json!({"kind": "TerminalBlockUpdatedEvent",
                "stepId": "t1", "command": "cargo build", "status": "FAILED", "exitCode": 101,
                "output": "error[E0425]"}),
            ),
            a2ux(
                1_783_339_204_000,
                "IN_PROGRESS",
                json!({"kind": "FileChangesBlockUpdatedEvent",
                "stepId": "e1", "status": "COMPLETED", "changes": [{"beforeRelativePath": "src/a.rs",
                "afterRelativePath": "src/a.rs", "beforeContent": {"kind": "text", "text": "x\n"},
                "afterContent": {"kind": "text", "text": "y\n"}}]}),
            ),
            a2ux(
                1_783_339_205_000,
                "IN_PROGRESS",
                json!({"kind": "MarkdownBlockUpdatedEvent",
                "stepId": "m1", "text": "Fixing"}),
            ),
            a2ux(
                1_783_339_206_000,
                "IN_PROGRESS",
                json!({"kind": "MarkdownBlockUpdatedEvent",
                "stepId": "m1", "text": "Fixing the import"}),
            ),
            a2ux(
                1_783_339_207_000,
                "IN_PROGRESS",
                json!({"kind": "ResultBlockUpdatedEvent",
                "stepId": "res", "result": "<!-- ANSWER -->Fixed."}),
            ),
            // The finished task replays its blocks: they fold into their steps.
            a2ux(
                1_783_339_208_000,
                "COMPLETED",
                json!({"kind": "TerminalBlockUpdatedEvent",
                "stepId": "t1", "command": "cargo build", "status": "FAILED", "exitCode": 101,
                "output": "error[E0425]"}),
            ),
            a2ux(
                1_783_339_208_000,
                "COMPLETED",
                json!({"kind": "ResultBlockUpdatedEvent",
                "stepId": "res", "result": "<!-- ANSWER -->Fixed."}),
            ),
        ];
        let sidecar = json!({"index": {"sessionId": "session-1", "projectDir": "/w/p",
            "taskName": "Fix build", "createdAt": 1_783_339_100_000_i64}, "state": null});
        let output = parse_records(&records, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "session-1");
        assert_eq!(session.meta.cwd.as_deref(), Some("/w/p"));
        assert_eq!(session.meta.title.as_deref(), Some("Fix build"));
        assert_eq!(
            session.meta.model.as_deref(),
            Some("anthropic/claude-sonnet-4")
        );
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(session.events[0].text, "fix the build");
        let terminal = &session.events[2];
        assert_eq!(
            (
                terminal.exit_code,
                terminal.subtype.as_deref(),
                terminal.text.as_str()
            ),
            (Some(101), Some("error"), "error[E0425]")
        );
        assert_eq!(session.events[3].tool_name.as_deref(), Some("edit_files"));
        assert_eq!(session.events[4].text, "src/a.rs\n- x\n+ y");
        assert_eq!(session.events[5].text, "Fixing the import");
        assert_eq!(session.events[6].text, "Fixed.");
        assert_eq!(session.events[6].subtype.as_deref(), Some("result"));
        // The call's usage went to the first event of the agent after it.
        let usage = session.events[1].usage.expect("usage on the first call");
        assert_eq!(
            (usage.input, usage.cached_input, usage.output),
            (Some(25), Some(3), Some(23))
        );
        assert_eq!(session.usage_carriers().len(), 1);
    }

    #[test]
    fn a_headless_task_comes_from_state_and_bad_records_are_warned() {
        let records = [
            json!({"kind": "TaskStartedEvent", "timestampMs": 1_783_650_432_366_i64}),
            json!({"no": "kind"}),
            a2ux(
                1_783_650_435_508,
                "FAILED",
                json!({"kind": "AgentFailureEvent",
                "message": "could not parse", "errorCode": "ExitEarly"}),
            ),
        ];
        let sidecar = json!({"index": null, "state": {"issue": {"description":
            "<additional_context>hook said</additional_context>\nlist the files"}}});
        let output = parse_records(&records, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "session-1", "the folder's name");
        assert_eq!(session.events[0].text, "list the files");
        assert!(session.events[0].starts_turn);
        assert_eq!(session.events[1].kind, EventType::Runtime);
        assert_eq!(session.events[1].text, "ExitEarly: could not parse");
        assert_eq!(output.warnings.len(), 1, "{:?}", output.warnings);
    }

    #[test]
    fn companions_are_told_from_the_log() {
        let home = tempfile::tempdir().expect("temp dir");
        let sessions = home.path().join(".junie/sessions");
        let folder = sessions.join("session-1");
        std::fs::create_dir_all(folder.join("task-1")).expect("mkdir");
        for file in [
            "events.jsonl",
            "state.json",
            "transcript.md",
            "task-1/x.json",
        ] {
            std::fs::write(folder.join(file), "{}\n").expect("write");
        }
        std::fs::write(sessions.join("index.jsonl"), "{}\n").expect("write");
        assert!(!is_companion_path(&folder.join("events.jsonl")));
        for file in ["state.json", "transcript.md", "task-1/x.json"] {
            assert!(is_companion_path(&folder.join(file)), "{file}");
        }
        assert!(is_companion_path(&sessions.join("index.jsonl")));
        assert!(!is_companion_path(
            &home.path().join(".kiro/sessions/cli/x.json")
        ));
    }
}
