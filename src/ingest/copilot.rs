//! GitHub Copilot CLI session logs (`~/.copilot/session-state/<uuid>/events.jsonl`, also a flat
//! `<uuid>.jsonl`): an append-only event log whose records are `{type, id, parentId, timestamp,
//! data}`, with the session's title and cwd in `workspace.yaml` beside it.
//!
//! Event types read: `session.start` (id, version, cwd, branch), `session.model_change`,
//! `session.info` / `session.error` / `system.message` (notices, errors, the system prompt),
//! `user.message` (`content` is what the user typed, `transformedContent` what was sent),
//! `assistant.message` (`reasoningText`, `content`, `toolRequests[]`, `outputTokens`),
//! `assistant.reasoning`, `tool.execution_start` / `tool.execution_complete` (paired by
//! `toolCallId`), `permission.completed` (a denied call's only result), `abort`,
//! `session.compaction_complete`, `subagent.*`, `skill.invoked` and `session.shutdown`.
//!
//! Sub-agents (the `task` tool) write into the same log; their records become child sessions
//! linked to the session (see [`SubAgents`]).
//!
//! Token usage: each `assistant.message` records only its `outputTokens`; the authoritative
//! per-run totals come with `session.shutdown` (`modelMetrics.<model>.usage`, absent when the
//! CLI was killed). Replies carry their output tokens; the shutdown event carries the run's
//! input side (prompt tokens, cache reads, reasoning) plus whatever output the replies did not
//! already account for, so a session's sum equals the CLI's totals.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::content::{
    UNKNOWN_TOOL, arguments_of, plain_event, reported_exit_code, text_field, tool_call,
    tool_response, usage_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd, parse_timestamp,
};

/// Record types that are bookkeeping only (nothing a reader of the session needs).
const SILENT_TYPES: [&str; 7] = [
    "session.start",
    "session.resume",
    "assistant.turn_start",
    "assistant.turn_end",
    "hook.start",
    "hook.end",
    "permission.requested",
];

/// A Copilot CLI event log: a record whose `type` is a dotted Copilot event name with a `data`
/// object and an `id`, such as `session.start` (`producer: copilot-agent`).
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let record = &line.value;
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let shaped = record.get("data").is_some_and(Value::is_object)
            && record.get("id").is_some_and(Value::is_string)
            && record.get("timestamp").is_some();
        shaped
            && (kind == "session.start"
                || kind.starts_with("user.")
                || kind.starts_with("assistant.")
                || kind.starts_with("tool.execution_"))
    })
}

/// `workspace.yaml` beside an `events.jsonl`, read into a JSON object of its top-level scalars.
pub fn read_workspace(path: &Path) -> Option<Value> {
    if path.file_name()? != "events.jsonl" {
        return None;
    }
    let text = std::fs::read_to_string(path.with_file_name("workspace.yaml")).ok()?;
    Some(Value::Object(flat_yaml_scalars(&text)))
}

/// The `key: value` pairs at the top level of a flat YAML mapping (the shape the CLI writes),
/// with plain, single- and double-quoted scalars; nested or block values are left out.
fn flat_yaml_scalars(text: &str) -> Map<String, Value> {
    let mut fields = Map::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some((key, raw)) = line.split_once(':') else {
            continue;
        };
        let raw = raw.trim();
        let value = if let Some(quoted) = raw.strip_prefix('"') {
            serde_json::from_str::<String>(&format!("\"{quoted}")).ok()
        } else if let Some(quoted) = raw.strip_prefix('\'') {
            quoted
                .strip_suffix('\'')
                .map(|inner| inner.replace("''", "'"))
        } else if raw.is_empty() || raw.starts_with(['|', '>', '[', '{', '&', '*']) {
            None
        } else {
            Some(raw.to_string())
        };
        if let Some(value) = value {
            fields.insert(key.trim().to_string(), Value::String(value));
        }
    }
    fields
}

pub fn parse(path: &Path, lines: &[JsonLine], workspace: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::new(lines);
    let mut sub_agents = SubAgents::default();
    let mut owners: Vec<Option<String>> = Vec::new();
    for line in lines {
        let owner = sub_agents.owner_of(&line.value);
        parser.record(line);
        sub_agents.follow(&line.value);
        owners.resize(parser.events.len(), owner);
    }
    let native_id = parser
        .native_id
        .take()
        .or_else(|| workspace.and_then(|fields| text_field(fields, "id")))
        .unwrap_or_else(|| session_id_from_path(path));
    let mut meta = parser.meta;
    if let Some(fields) = workspace {
        meta.title = text_field(fields, "name").or(meta.title);
        meta.summary = text_field(fields, "summary");
        meta.cwd = meta.cwd.or_else(|| text_field(fields, "cwd"));
        meta.git_branch = meta.git_branch.or_else(|| text_field(fields, "branch"));
    }
    let (events, children) = sub_agents.split(parser.events, owners, &native_id, &meta);
    let mut sessions = vec![ParsedSession {
        source: Source::Copilot,
        native_id,
        meta,
        events,
    }];
    sessions.extend(children);
    ParseOutput {
        sessions,
        warnings: parser.warnings,
    }
}

/// One sub-agent a `subagent.started` record announced: the `task` call that delegated to it
/// and what the record says of it.
struct SubAgent {
    call_id: String,
    name: Option<String>,
    title: Option<String>,
    model: Option<String>,
}

/// Sub-agents run inside the parent's log: their records come between `subagent.started` and
/// `subagent.completed` / `subagent.failed` (same `toolCallId`), or name the delegating call in
/// `data.parentToolCallId`. They become child sessions (`<session>-sub-<toolCallId>`) linked to
/// the session; the delegation records and the `task` call's own execution stay in the parent.
#[derive(Default)]
struct SubAgents {
    started: Vec<SubAgent>,
    /// Call ids of the sub-agents running at this point of the log, innermost last.
    running: Vec<String>,
}

impl SubAgents {
    /// The sub-agent (its call id) a record belongs to, `None` for the parent's.
    fn owner_of(&self, record: &Value) -> Option<String> {
        let kind = record_type(record);
        let data = record.get("data")?;
        let delegating = |id: &str| self.started.iter().any(|agent| agent.call_id == id);
        let own_call = text_field(data, "toolCallId").is_some_and(|id| delegating(&id));
        if kind.starts_with("subagent.") || (kind.starts_with("tool.execution_") && own_call) {
            return None;
        }
        text_field(data, "parentToolCallId")
            .filter(|id| delegating(id))
            .or_else(|| self.running.last().cloned())
    }

    /// Opens or closes a sub-agent's span.
    fn follow(&mut self, record: &Value) {
        let kind = record_type(record);
        let Some(data) = record.get("data") else {
            return;
        };
        let Some(call_id) = text_field(data, "toolCallId") else {
            return;
        };
        match kind {
            "subagent.started" => {
                self.running.push(call_id.clone());
                self.started.push(SubAgent {
                    call_id,
                    name: text_field(data, "agentName"),
                    title: text_field(data, "agentDescription")
                        .or_else(|| text_field(data, "agentDisplayName")),
                    model: text_field(data, "model"),
                });
            }
            "subagent.completed" | "subagent.failed" => {
                self.running.retain(|running| running != &call_id);
            }
            _ => {}
        }
    }

    /// The parent's events and one child session per sub-agent that has events.
    fn split(
        self,
        events: Vec<RawEvent>,
        owners: Vec<Option<String>>,
        parent_id: &str,
        parent: &SessionMeta,
    ) -> (Vec<RawEvent>, Vec<ParsedSession>) {
        if self.started.is_empty() {
            return (events, Vec::new());
        }
        let mut own = Vec::new();
        let mut by_agent: HashMap<String, Vec<RawEvent>> = HashMap::new();
        for (event, owner) in events.into_iter().zip(owners) {
            match owner {
                Some(call_id) => by_agent.entry(call_id).or_default().push(event),
                None => own.push(event),
            }
        }
        let children = self
            .started
            .into_iter()
            .filter_map(|agent| {
                let events = by_agent.remove(&agent.call_id)?;
                Some(ParsedSession {
                    source: Source::Copilot,
                    native_id: format!("{parent_id}-sub-{}", agent.call_id),
                    meta: SessionMeta {
                        title: agent.title,
                        cwd: parent.cwd.clone(),
                        git_branch: parent.git_branch.clone(),
                        model: agent.model.or_else(|| parent.model.clone()),
                        harness_version: parent.harness_version.clone(),
                        parent_native_id: Some(parent_id.to_string()),
                        agent_name: agent.name,
                        ..SessionMeta::default()
                    },
                    events,
                })
            })
            .collect();
        (own, children)
    }
}

/// The session id a path names: the `<uuid>` directory of `<uuid>/events.jsonl`, else the stem.
fn session_id_from_path(path: &Path) -> String {
    let directory = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    let stem = path.file_stem().and_then(|stem| stem.to_str());
    match (path.file_name().and_then(|name| name.to_str()), directory) {
        (Some("events.jsonl"), Some(directory)) => directory.to_string(),
        _ => stem.unwrap_or("session").to_string(),
    }
}

struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    meta: SessionMeta,
    native_id: Option<String>,
    /// Model in effect (last `session.model_change` or message model).
    model: Option<String>,
    /// Tool call id -> tool name, for every call emitted so far.
    calls: HashMap<String, String>,
    /// Call ids that have a `tool.execution_complete` anywhere in the file.
    completed: HashSet<String>,
    /// Output tokens the replies of the current run carried (the shutdown adds only the rest).
    run_output: i64,
    /// Record ids used as event keys so far (a repeated id falls back to the line number).
    keys: HashSet<String>,
}

impl Parser {
    fn new(lines: &[JsonLine]) -> Parser {
        let completed = lines
            .iter()
            .filter(|line| record_type(&line.value) == "tool.execution_complete")
            .filter_map(|line| text_field(line.value.get("data")?, "toolCallId"))
            .collect();
        Parser {
            events: Vec::new(),
            warnings: Vec::new(),
            meta: SessionMeta::default(),
            native_id: None,
            model: None,
            calls: HashMap::new(),
            completed,
            run_output: 0,
            keys: HashSet::new(),
        }
    }

    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        let Some(kind) = record.get("type").and_then(Value::as_str) else {
            self.warn(line.number, "record without a type skipped");
            return;
        };
        let empty = Value::Object(Map::new());
        let data = record.get("data").unwrap_or(&empty);
        let key = text_field(record, "id")
            .filter(|id| self.keys.insert(id.clone()))
            .unwrap_or_else(|| format!("line.{}", line.number));
        let at = Record {
            key,
            line: line.number,
            time: record.get("timestamp").and_then(parse_timestamp),
        };
        match kind {
            "session.start" | "session.resume" => self.session_start(data),
            "session.model_change" => self.model_change(&at, data),
            "session.info" => {
                let subtype = text_field(data, "infoType");
                let text = text_field(data, "message").unwrap_or_default();
                self.push(
                    &at,
                    EventType::System,
                    text,
                    subtype.as_deref().or(Some("info")),
                );
            }
            "session.error" => {
                let text = text_field(data, "message").unwrap_or_default();
                self.push(&at, EventType::Runtime, text, Some("error"));
            }
            "system.message" => {
                let text = text_field(data, "content").unwrap_or_default();
                self.push(&at, EventType::System, text, Some("system_prompt"));
            }
            "user.message" => self.user_message(&at, data),
            "assistant.message" => self.assistant_message(&at, data),
            "assistant.reasoning" => {
                let text = text_field(data, "content").unwrap_or_default();
                if !text.is_empty() {
                    let model = self.model.clone();
                    let event = self.push(&at, EventType::Reasoning, text, None);
                    event.model = model;
                }
            }
            "tool.execution_start" => self.execution_start(&at, data),
            "tool.execution_complete" => self.execution_complete(&at, data),
            "permission.completed" => self.permission_completed(&at, data),
            "abort" => {
                let reason = text_field(data, "reason").unwrap_or_else(|| "unknown".into());
                let event = self.push(
                    &at,
                    EventType::Runtime,
                    format!("aborted: {reason}"),
                    Some("abort"),
                );
                event.turn_end = Some(TurnEnd::Terminal);
            }
            "session.compaction_complete" => {
                let text = text_field(data, "summaryContent")
                    .or_else(|| text_field(data, "summary"))
                    .unwrap_or_else(|| "conversation compacted".into());
                self.push(&at, EventType::Compaction, text, Some("compaction"));
            }
            "session.task_complete" => {
                let text = text_field(data, "summary").unwrap_or_else(|| "task complete".into());
                let event = self.push(&at, EventType::System, text, Some("task_complete"));
                event.turn_end = Some(TurnEnd::Normal);
            }
            "session.shutdown" => self.shutdown(&at, data),
            kind if kind.starts_with("subagent.") || kind == "skill.invoked" => {
                let name = ["agentDisplayName", "agentName", "name", "skillName"]
                    .iter()
                    .find_map(|field| text_field(data, field))
                    .unwrap_or_default();
                let text = format!("{kind} {name}").trim().to_string();
                self.push(&at, EventType::System, text, Some(kind));
            }
            kind if SILENT_TYPES.contains(&kind) || kind.starts_with("session.") => {}
            other => {
                let event = self.push(&at, EventType::Unknown, String::new(), Some(other));
                event.payload = Some(record.clone());
            }
        }
    }

    fn session_start(&mut self, data: &Value) {
        if self.native_id.is_none() {
            self.native_id = text_field(data, "sessionId");
        }
        self.meta.harness_version =
            text_field(data, "copilotVersion").or(self.meta.harness_version.take());
        self.meta.started_at = self
            .meta
            .started_at
            .or_else(|| data.get("startTime").and_then(parse_timestamp));
        if let Some(context) = data.get("context") {
            self.meta.cwd = self.meta.cwd.take().or_else(|| text_field(context, "cwd"));
            self.meta.git_branch = self
                .meta
                .git_branch
                .take()
                .or_else(|| text_field(context, "branch"));
        }
    }

    fn model_change(&mut self, at: &Record, data: &Value) {
        let Some(model) = text_field(data, "newModel") else {
            return;
        };
        self.meta.model.get_or_insert_with(|| model.clone());
        self.model = Some(model.clone());
        self.push(
            at,
            EventType::System,
            format!("model changed to {model}"),
            Some("model_change"),
        );
    }

    fn user_message(&mut self, at: &Record, data: &Value) {
        let typed = text_field(data, "content");
        let sent = text_field(data, "transformedContent");
        let Some(text) = typed.clone().or_else(|| sent.clone()) else {
            self.warn(at.line, "user message without content skipped");
            return;
        };
        let mut payload = Map::new();
        if let Some(sent) = sent.filter(|sent| Some(sent) != typed.as_ref()) {
            payload.insert("transformedContent".into(), Value::String(sent));
        }
        if let Some(attachments) = data
            .get("attachments")
            .filter(|list| list.as_array().is_some_and(|list| !list.is_empty()))
        {
            payload.insert("attachments".into(), attachments.clone());
        }
        let event = self.push(at, EventType::UserInput, text, None);
        event.starts_turn = true;
        event.payload = (!payload.is_empty()).then_some(Value::Object(payload));
    }

    fn assistant_message(&mut self, at: &Record, data: &Value) {
        if let Some(model) = text_field(data, "model") {
            self.meta.model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        let model = self.model.clone();
        let first_event = self.events.len();
        if let Some(reasoning) = text_field(data, "reasoningText") {
            let event = self.push_keyed(
                format!("{}.reasoning", at.key),
                at,
                EventType::Reasoning,
                reasoning,
            );
            event.model = model.clone();
        }
        let requests = data
            .get("toolRequests")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if let Some(reply) = text_field(data, "content") {
            let event = self.push_keyed(at.key.clone(), at, EventType::AssistantResponse, reply);
            event.model = model.clone();
            if requests.is_empty() {
                event.turn_end = Some(TurnEnd::Terminal);
            }
        }
        for (index, request) in requests.iter().enumerate() {
            let call_id = text_field(request, "toolCallId");
            let name = text_field(request, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
            let mut event = tool_call(
                format!("{}.call.{index}", at.key),
                at.line,
                at.time,
                &name,
                call_id.as_deref(),
                arguments_of(request.get("arguments")),
            );
            event.originating_model = model.clone();
            self.events.push(event);
            if let Some(call_id) = call_id {
                self.calls.insert(call_id, name);
            }
        }
        if let Some(output) = data.get("outputTokens").and_then(Value::as_i64) {
            self.run_output += output;
            let usage = TokenUsage {
                output: Some(output),
                ..TokenUsage::default()
            }
            .with_derived_total();
            self.attach_usage(first_event, usage);
        }
    }

    fn execution_start(&mut self, at: &Record, data: &Value) {
        let Some(call_id) = text_field(data, "toolCallId") else {
            return;
        };
        if self.calls.contains_key(&call_id) {
            return; // already emitted from the assistant message's tool requests
        }
        let name = text_field(data, "toolName").unwrap_or_else(|| UNKNOWN_TOOL.into());
        let mut event = tool_call(
            at.key.clone(),
            at.line,
            at.time,
            &name,
            Some(&call_id),
            arguments_of(data.get("arguments")),
        );
        event.originating_model = self.model.clone();
        self.events.push(event);
        self.calls.insert(call_id, name);
    }

    fn execution_complete(&mut self, at: &Record, data: &Value) {
        let call_id = text_field(data, "toolCallId");
        let name = self.tool_name(call_id.as_deref());
        let succeeded = data.get("success").and_then(Value::as_bool) != Some(false);
        let result = data.get("result");
        let output = result
            .and_then(|result| {
                text_field(result, "content").or_else(|| text_field(result, "detailedContent"))
            })
            .or_else(|| result.and_then(Value::as_str).map(str::to_string));
        let error = data.get("error").and_then(|error| {
            text_field(error, "message").or_else(|| error.as_str().map(str::to_string))
        });
        let text = [output, error]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        let mut event = tool_response(
            at.key.clone(),
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            !succeeded,
        );
        event.exit_code = reported_exit_code(&event.text);
        event.originating_model = self.model.clone();
        let detailed = result.and_then(|result| result.get("detailedContent"));
        if let Some(detailed) = detailed.filter(|detailed| !detailed.is_null()) {
            event.payload = Some(json!({ "detailedContent": detailed }));
        }
        self.events.push(event);
    }

    /// A call the user denied never runs: the denial is its only result.
    fn permission_completed(&mut self, at: &Record, data: &Value) {
        let kind = data
            .get("result")
            .and_then(|result| text_field(result, "kind"))
            .unwrap_or_default();
        let Some(call_id) = text_field(data, "toolCallId") else {
            return;
        };
        if !kind.starts_with("denied") || self.completed.contains(&call_id) {
            return;
        }
        let name = self.tool_name(Some(&call_id));
        let mut event = tool_response(
            at.key.clone(),
            at.line,
            at.time,
            &name,
            Some(&call_id),
            format!("permission {kind}"),
            true,
        );
        event.subtype = Some("denied".into());
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    fn shutdown(&mut self, at: &Record, data: &Value) {
        let kind = text_field(data, "shutdownType").unwrap_or_else(|| "shutdown".into());
        let usage = run_usage(data).map(|usage| TokenUsage {
            output: usage.output.map(|output| output - self.run_output),
            ..usage
        });
        if usage.is_some() {
            self.run_output = 0;
        }
        if let Some(model) = text_field(data, "currentModel") {
            self.meta.model.get_or_insert(model);
        }
        let event = self.push(
            at,
            EventType::Runtime,
            format!("session ended ({kind})"),
            Some("shutdown"),
        );
        if let Some(usage) = usage {
            event.usage = Some(TokenUsage {
                total: Some(usage.input.unwrap_or(0) + usage.output.unwrap_or(0)),
                ..usage
            });
        }
    }

    fn tool_name(&self, call_id: Option<&str>) -> String {
        call_id
            .and_then(|id| self.calls.get(id))
            .cloned()
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string())
    }

    fn push(
        &mut self,
        at: &Record,
        kind: EventType,
        text: String,
        subtype: Option<&str>,
    ) -> &mut RawEvent {
        let mut event = plain_event(at.key.clone(), kind, at.line, at.time, text, subtype);
        event.originating_model = self.model.clone();
        self.events.push(event);
        self.events.last_mut().expect("just pushed")
    }

    fn push_keyed(
        &mut self,
        key: String,
        at: &Record,
        kind: EventType,
        text: String,
    ) -> &mut RawEvent {
        let mut event = plain_event(key, kind, at.line, at.time, text, None);
        event.originating_model = self.model.clone();
        self.events.push(event);
        self.events.last_mut().expect("just pushed")
    }

    /// Sets a message's usage on its reply (else its first event, else the event before it).
    fn attach_usage(&mut self, first_event: usize, usage: TokenUsage) {
        match usage_carrier(&self.events, first_event) {
            Some(target) => TokenUsage::attach(&mut self.events[target], usage),
            None => self.run_output -= usage.output.unwrap_or(0),
        }
    }

    fn warn(&mut self, line: u64, message: &str) {
        self.warnings.push(ParseWarning {
            line,
            message: message.to_string(),
        });
    }
}

/// Where a record sits: its key, line and time.
struct Record {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

fn record_type(record: &Value) -> &str {
    record.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The run's token totals from `session.shutdown`: every model's usage summed. `inputTokens`
/// already counts cache reads and writes.
fn run_usage(data: &Value) -> Option<TokenUsage> {
    let metrics = data.get("modelMetrics")?.as_object()?;
    TokenUsage::sum(metrics.values().filter_map(|metric| {
        let usage = metric.get("usage")?;
        let count = |field: &str| usage.get(field).and_then(Value::as_i64);
        Some(TokenUsage {
            input: count("inputTokens"),
            cached_input: count("cacheReadTokens"),
            output: count("outputTokens"),
            reasoning: count("reasoningTokens"),
            total: None,
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_yaml_scalars_are_read() {
        let fields = flat_yaml_scalars(
            "id: abc\nname: \"Fix: the \\\"bug\\\"\"\nsummary: 'it''s done'\nnested:\n  a: 1\ncwd: /home/x\n",
        );
        assert_eq!(fields["id"], "abc");
        assert_eq!(fields["name"], "Fix: the \"bug\"");
        assert_eq!(fields["summary"], "it's done");
        assert_eq!(fields["cwd"], "/home/x");
        assert!(!fields.contains_key("nested"));
        assert!(!fields.contains_key("a"));
    }
}
