//! Hermes Agent (NousResearch/hermes-agent): the sessions of a Hermes home (`$HERMES_HOME`,
//! default `~/.hermes`, and each `profiles/<name>` inside it). A home keeps them in three
//! places, all in OpenAI's chat message shape (`{role, content, tool_calls, tool_call_id,
//! tool_name, reasoning, finish_reason, timestamp}`):
//! - `state.db` (SQLite, `hermes_state.py` / `hermes_state_common.py` `SCHEMA_SQL`): one
//!   `sessions` row per session (`source`, `model`, `parent_session_id`, `started_at` /
//!   `ended_at` epoch seconds, `end_reason`, token totals `input_tokens` (uncached),
//!   `cache_read_tokens`, `cache_write_tokens`, `output_tokens`, `reasoning_tokens`; later
//!   versions add `title`, `cwd`, `git_branch` and more) and its `messages` rows (`tool_calls`
//!   as JSON text, `timestamp` epoch seconds); read by [`store`];
//! - `sessions/session_<id>.json` (`run_agent.py` `_save_session_log`): the whole session
//!   rewritten after each turn, `{session_id, model, base_url, platform, session_start,
//!   last_updated, message_count, messages}`;
//! - `sessions/<id>.jsonl` (the messaging gateway's transcript, `gateway/session.py`
//!   `append_to_transcript`): a `{role: "session_meta", tools, model, platform, timestamp}`
//!   line, then one message a line.
//!
//! With a `state.db` the home is read as one store ([`store`]): a session is read from its
//! rows, or from its file when it has no message rows (a session the database does not know is
//! read from its file alone), so no session is read twice. Without one, each file is read
//! alone (format `hermes_session`; a gateway transcript beside a `session_<id>.json` of the
//! same session is left to the JSON log, which holds every message). File times are naive
//! local wall-clock times, read as UTC like every naive time esker reads.
//!
//! Messages become events: a user message the prompt (a `/skill` invocation by the words typed
//! with it, Hermes's context-compaction summary a `compaction` event, its background-review
//! prompts and `display_kind: hidden` rows `system` events), an assistant message its
//! reasoning (`reasoning`, `reasoning_content`, `reasoning_details`, a leading `<think>`
//! block), reply and tool calls (`function.arguments` parsed), a tool message the result of
//! its call, paired by `tool_call_id` (a JSON result with a non-zero `exit_code`, an `error`
//! or `success: false` is a failure). The session's token totals go on its last reply; a
//! `parent_session_id` links a session to the one it continues (a compression split or a
//! branch) or to the session that delegated it. Shapes verified in NousResearch/hermes-agent
//! (`hermes_state_common.py`, `run_agent.py`, `gateway/run.py`, `agent/usage_pricing.py`
//! `CanonicalUsage`) and in agentsview's Hermes reader (`internal/parser/hermes.go`), and
//! checked against a real public schema-17 `state.db` (github.com/kingyx3/hermes), whose
//! `messages` also hold `session_meta` rows (skipped) and whose `model` is sometimes the text
//! `null` (no model).

pub mod store;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::content::{
    UNKNOWN_TOOL, arguments_of, block_text, mark_terminal_replies, plain_event, strip_tagged,
    tag_content, text_field, tool_call, tool_response, totals_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// How Hermes opens the summary that replaces compacted turns (`agent/context_compressor.py`).
const COMPACTION_PREFIXES: [&str; 2] = [
    "[CONTEXT COMPACTION - REFERENCE ONLY]",
    "[CONTEXT COMPACTION \u{2013} REFERENCE ONLY]",
];
/// Prompts of Hermes's background skill and memory review (`agent/background_review.py`).
const REVIEW_PREFIXES: [&str; 2] = [
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
];
/// How a `/skill` invocation starts the user message Hermes builds for it.
const SKILL_PREFIX: &str = "[SYSTEM: The user has invoked the \"";
const SKILL_INSTRUCTION: &str =
    "The user has provided the following instruction alongside the skill invocation: ";

/// One message of a session, with the key and line (row id or line number) it is read at.
#[derive(Debug, Clone)]
pub struct Message {
    pub key: String,
    pub line: u64,
    pub value: Value,
}

/// One session as read from a store row or a file.
#[derive(Debug, Clone, Default)]
pub struct HermesSession {
    pub id: String,
    /// The `sessions` row (empty for a session read from a file alone).
    pub info: Map<String, Value>,
    /// `end_reason` and `model_config` of the session `parent_session_id` names, if any.
    pub parent: Map<String, Value>,
    /// A file's header: the JSON log's fields other than its messages, or a gateway
    /// transcript's `session_meta` line.
    pub header: Map<String, Value>,
    pub messages: Vec<Message>,
    /// Problems met reading it (a file that is not JSON, lines that are not).
    pub warnings: Vec<ParseWarning>,
}

/// The folder of a Hermes home that holds its session files.
const SESSIONS_FOLDER: &str = "sessions";

/// A session file of a Hermes home: `sessions/session_<id>.json` or `sessions/<id>.jsonl`,
/// with its session id.
pub fn session_file_id(path: &Path) -> Option<String> {
    let folder = path.parent()?.file_name()?;
    if folder != SESSIONS_FOLDER {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let id = match name.strip_suffix(".jsonl") {
        Some(stem) => stem,
        None => name.strip_prefix("session_")?.strip_suffix(".json")?,
    };
    (!id.is_empty()).then(|| id.to_string())
}

/// The `state.db` of the home a session file belongs to.
pub fn home_store(path: &Path) -> Option<PathBuf> {
    session_file_id(path)?;
    Some(path.parent()?.parent()?.join("state.db"))
}

/// A gateway transcript whose session also has a `session_<id>.json` beside it: the JSON log
/// is read instead.
pub fn is_shadowed_transcript(path: &Path) -> bool {
    let is_jsonl = path
        .extension()
        .is_some_and(|extension| extension == "jsonl");
    is_jsonl
        && session_file_id(path)
            .is_some_and(|id| path.with_file_name(format!("session_{id}.json")).is_file())
}

/// A gateway transcript: a `session_meta` line, or OpenAI chat messages with times.
pub fn sniff_jsonl(lines: &[JsonLine]) -> bool {
    let role = |line: &JsonLine| {
        line.value
            .get("role")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if lines
        .iter()
        .any(|line| role(line).as_deref() == Some("session_meta"))
    {
        return true;
    }
    !lines.is_empty()
        && lines.iter().all(|line| {
            let record = &line.value;
            matches!(
                role(line).as_deref(),
                Some("user" | "assistant" | "tool" | "system")
            ) && record.get("timestamp").is_some_and(Value::is_string)
                && record.get("type").is_none()
                && record.get("message").is_none()
        })
}

/// A session log: `session_id`, `messages` and the log's own fields.
pub fn sniff_json(value: &Value) -> bool {
    value.get("session_id").is_some_and(Value::is_string)
        && value.get("messages").is_some_and(Value::is_array)
        && ["session_start", "last_updated", "base_url", "platform"]
            .iter()
            .any(|field| value.get(*field).is_some())
}

/// A gateway transcript read alone.
pub fn parse_jsonl(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let id = session_file_id(path).unwrap_or_else(|| stem_of(path));
    parse_session(&session_of_lines(id, lines))
}

/// A session JSON log read alone.
pub fn parse_json(path: &Path, value: &Value) -> ParseOutput {
    let id = text_field(value, "session_id")
        .or_else(|| session_file_id(path))
        .unwrap_or_else(|| stem_of(path));
    parse_session(&session_of_log(id, value))
}

fn stem_of(path: &Path) -> String {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session")
        .to_string()
}

/// A gateway transcript's lines as a session.
pub fn session_of_lines(id: String, lines: &[JsonLine]) -> HermesSession {
    let mut session = HermesSession {
        id,
        ..HermesSession::default()
    };
    for line in lines {
        let role = line.value.get("role").and_then(Value::as_str);
        if role == Some("session_meta") {
            if let Value::Object(fields) = &line.value {
                session.header.extend(fields.clone());
            }
            continue;
        }
        session.messages.push(Message {
            key: format!("line.{}", line.number),
            line: line.number,
            value: line.value.clone(),
        });
    }
    session
}

/// A JSON log's document as a session.
pub fn session_of_log(id: String, log: &Value) -> HermesSession {
    let mut header = log.as_object().cloned().unwrap_or_default();
    let messages = match header.remove("messages") {
        Some(Value::Array(messages)) => messages,
        _ => Vec::new(),
    };
    HermesSession {
        id,
        header,
        messages: messages
            .into_iter()
            .enumerate()
            .map(|(index, value)| Message {
                key: format!("message.{index}"),
                line: index as u64 + 1,
                value,
            })
            .collect(),
        ..HermesSession::default()
    }
}

/// Parses one session.
pub fn parse_session(session: &HermesSession) -> ParseOutput {
    let mut parser = Parser {
        model: info_text(session, "model").filter(|model| is_model_name(model)),
        ..Parser::default()
    };
    for message in &session.messages {
        parser.message(message);
    }
    if let Some(usage) = usage_of(&session.info)
        && let Some(target) = totals_carrier(&parser.events)
    {
        TokenUsage::attach(&mut parser.events[target], usage);
    }
    mark_terminal_replies(&mut parser.events);
    let mut warnings = session.warnings.clone();
    warnings.append(&mut parser.warnings);
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Hermes,
            native_id: session.id.clone(),
            meta: meta_of(session, parser.model.clone()),
            events: parser.events,
        }],
        warnings,
    }
}

/// Whether a `model` value names a model: some Hermes versions write a missing model as the
/// text `null` (seen in a real schema-17 `state.db`) or `None`.
fn is_model_name(model: &str) -> bool {
    !matches!(model, "null" | "None")
}

/// A text field of the session's row, else of its file's header.
fn info_text(session: &HermesSession, name: &str) -> Option<String> {
    text_field(&Value::Object(session.info.clone()), name)
        .or_else(|| text_field(&Value::Object(session.header.clone()), name))
}

fn meta_of(session: &HermesSession, model: Option<String>) -> SessionMeta {
    let info = &session.info;
    let started_at = info.get("started_at").and_then(time_of).or_else(|| {
        ["session_start", "timestamp"]
            .iter()
            .find_map(|field| session.header.get(*field).and_then(time_of))
    });
    let parent = info_text(session, "parent_session_id");
    let continues = parent.is_some()
        && (session.parent.get("end_reason").and_then(Value::as_str) == Some("compression")
            || model_config(info).get("_branched_from").is_some());
    let (parent_native_id, forked_from_native_id) = if continues {
        (None, parent)
    } else {
        (parent, None)
    };
    SessionMeta {
        title: info_text(session, "title"),
        cwd: info_text(session, "cwd"),
        git_branch: info_text(session, "git_branch"),
        model,
        parent_native_id,
        forked_from_native_id,
        started_at,
        ..SessionMeta::default()
    }
}

/// The session's `model_config` JSON (text in the row).
fn model_config(info: &Map<String, Value>) -> Map<String, Value> {
    match info.get("model_config") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_default(),
        Some(Value::Object(config)) => config.clone(),
        _ => Map::new(),
    }
}

/// The session's totals: `input_tokens` excludes the cache (Hermes's `CanonicalUsage`, whose
/// prompt tokens are input + cache reads + cache writes); reasoning is part of the output.
fn usage_of(info: &Map<String, Value>) -> Option<TokenUsage> {
    let count = |name: &str| {
        info.get(name)
            .and_then(Value::as_i64)
            .filter(|count| *count > 0)
    };
    let (input, output, cache_read, cache_write, reasoning) = (
        count("input_tokens"),
        count("output_tokens"),
        count("cache_read_tokens"),
        count("cache_write_tokens"),
        count("reasoning_tokens"),
    );
    if [input, output, cache_read, cache_write]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    let prompt = [input, cache_read, cache_write]
        .iter()
        .map(|count| count.unwrap_or(0))
        .sum::<i64>();
    Some(
        TokenUsage {
            input: Some(prompt),
            cached_input: cache_read,
            output,
            reasoning,
            total: None,
        }
        .with_derived_total(),
    )
}

/// A time as Hermes writes one: epoch seconds (a REAL in `state.db`) or ISO text.
fn time_of(value: &Value) -> Option<DateTime<Utc>> {
    match value {
        Value::Number(number) => {
            let seconds = number.as_f64()?;
            let micros = if seconds.abs() > 100_000_000_000.0 {
                seconds * 1_000.0
            } else {
                seconds * 1_000_000.0
            };
            (seconds > 0.0)
                .then(|| DateTime::from_timestamp_micros(micros as i64))
                .flatten()
        }
        other => parse_timestamp(other),
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    model: Option<String>,
    /// Tool call id -> tool name.
    calls: HashMap<String, String>,
}

/// Where a message is.
struct At<'m> {
    key: &'m str,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn push(&mut self, mut event: RawEvent) {
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    fn message(&mut self, message: &Message) {
        let value = &message.value;
        let at = At {
            key: &message.key,
            line: message.line,
            time: value.get("timestamp").and_then(time_of),
        };
        let hidden = value.get("display_kind").and_then(Value::as_str) == Some("hidden");
        match value.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" if hidden => self.system(&at, value, "hidden"),
            "user" => self.user(&at, value),
            "assistant" => self.assistant(&at, value),
            "tool" => self.tool(&at, value),
            "system" => self.system(&at, value, "system"),
            "session_meta" => {}
            other => {
                let mut event = RawEvent::new(at.key, EventType::Unknown, at.line);
                event.timestamp = at.time;
                event.subtype = Some(format!("role:{other}"));
                event.payload = Some(value.clone());
                self.push(event);
            }
        }
    }

    fn system(&mut self, at: &At, value: &Value, subtype: &str) {
        let text = content_text(value);
        if !text.trim().is_empty() {
            let event = plain_event(
                at.key.to_string(),
                EventType::System,
                at.line,
                at.time,
                text,
                Some(subtype),
            );
            self.push(event);
        }
    }

    /// A user message: the prompt, unless Hermes wrote it (a compaction summary, a review
    /// prompt); a `/skill` invocation by the words typed with it.
    fn user(&mut self, at: &At, value: &Value) {
        let text = content_text(value);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        let key = at.key.to_string();
        if COMPACTION_PREFIXES
            .iter()
            .any(|prefix| trimmed.starts_with(prefix))
        {
            let event = plain_event(
                key,
                EventType::Compaction,
                at.line,
                at.time,
                text,
                Some("summary"),
            );
            self.push(event);
            return;
        }
        if REVIEW_PREFIXES
            .iter()
            .any(|prefix| trimmed.starts_with(prefix))
        {
            let event = plain_event(
                key,
                EventType::System,
                at.line,
                at.time,
                text,
                Some("background_review"),
            );
            self.push(event);
            return;
        }
        let (typed, skill) = match skill_invocation(trimmed) {
            Some((skill, instruction)) => (
                instruction.unwrap_or_else(|| format!("/{skill}")),
                Some(skill),
            ),
            None => (trimmed.to_string(), None),
        };
        let mut event = plain_event(key, EventType::UserInput, at.line, at.time, typed, None);
        event.starts_turn = true;
        if let Some(skill) = skill {
            event.payload = Some(json!({"skill": skill, "content": text}));
        }
        self.push(event);
    }

    /// An assistant message: reasoning, reply, then its tool calls.
    fn assistant(&mut self, at: &At, value: &Value) {
        if let Some(model) = text_field(value, "model").filter(|model| is_model_name(model)) {
            self.model = Some(model);
        }
        let content = content_text(value);
        let thought = tag_content(&content, "think").map(|think| think.trim().to_string());
        let reply = if thought.is_some() {
            strip_tagged(&content, "think")
        } else {
            content
        };
        let reasoning = ["reasoning", "reasoning_content"]
            .iter()
            .find_map(|field| text_field(value, field))
            .or_else(|| value.get("reasoning_details").and_then(details_text))
            .or(thought)
            .filter(|text| !text.is_empty());
        if let Some(reasoning) = reasoning {
            let key = format!("{}.reasoning", at.key);
            let mut event =
                plain_event(key, EventType::Reasoning, at.line, at.time, reasoning, None);
            event.model = self.model.clone();
            self.push(event);
        }
        if !reply.trim().is_empty() {
            let text = reply.trim().to_string();
            let mut event = plain_event(
                at.key.to_string(),
                EventType::AssistantResponse,
                at.line,
                at.time,
                text,
                value.get("finish_reason").and_then(Value::as_str),
            );
            event.model = self.model.clone();
            self.push(event);
        }
        for (index, call) in tool_calls_of(value).iter().enumerate() {
            let function = call.get("function").unwrap_or(call);
            let name = text_field(function, "name")
                .or_else(|| text_field(call, "name"))
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let call_id = text_field(call, "id").or_else(|| text_field(call, "call_id"));
            let arguments = ["arguments", "input"]
                .iter()
                .find_map(|field| function.get(*field).or_else(|| call.get(*field)))
                .filter(|arguments| arguments.as_str() != Some(""));
            let event = tool_call(
                format!("{}.call.{index}", at.key),
                at.line,
                at.time,
                &name,
                call_id.as_deref(),
                arguments_of(arguments),
            );
            self.push(event);
            if let Some(call_id) = call_id {
                self.calls.insert(call_id, name);
            }
        }
    }

    /// A tool message: the result of the call it names.
    fn tool(&mut self, at: &At, value: &Value) {
        let call_id = text_field(value, "tool_call_id");
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .or_else(|| text_field(value, "tool_name"))
            .or_else(|| text_field(value, "name"))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        if call_id.is_none() {
            self.warnings.push(ParseWarning {
                line: at.line,
                message: format!("tool result of {name} names no call"),
            });
        }
        let text = content_text(value);
        let (failed, exit_code) = outcome_of(&text);
        let mut event = tool_response(
            at.key.to_string(),
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        event.exit_code = exit_code;
        self.push(event);
    }
}

/// A message's content as text (a string, or the text of its blocks).
fn content_text(value: &Value) -> String {
    value.get("content").map(block_text).unwrap_or_default()
}

/// The `tool_calls` of an assistant message: an array, or its JSON text (`state.db`).
fn tool_calls_of(value: &Value) -> Vec<Value> {
    match value.get("tool_calls") {
        Some(Value::Array(calls)) => calls.clone(),
        Some(Value::String(text)) => match serde_json::from_str(text) {
            Ok(Value::Array(calls)) => calls,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The text of `reasoning_details` (an array of `{type, text}`, or its JSON text).
fn details_text(details: &Value) -> Option<String> {
    let parsed;
    let details = match details {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    let text = details
        .as_array()?
        .iter()
        .filter_map(|detail| text_field(detail, "text").or_else(|| text_field(detail, "summary")))
        .collect::<Vec<_>>()
        .join("\n");
    (!text.is_empty()).then_some(text)
}

/// Whether a tool's result reports a failure, and its exit code: Hermes's tools answer with a
/// JSON object (`{output, exit_code, error}` for the terminal, `{success, error}` for others).
fn outcome_of(text: &str) -> (bool, Option<i64>) {
    let Ok(Value::Object(result)) = serde_json::from_str::<Value>(text.trim()) else {
        return (false, None);
    };
    let exit_code = result.get("exit_code").and_then(Value::as_i64);
    let error = result.get("error").is_some_and(|error| match error {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.trim().is_empty(),
        _ => true,
    });
    let unsuccessful = result.get("success").and_then(Value::as_bool) == Some(false);
    (
        error || unsuccessful || exit_code.is_some_and(|code| code != 0),
        exit_code,
    )
}

/// A `/skill` invocation: the skill's name and the instruction typed with it, if any.
fn skill_invocation(text: &str) -> Option<(String, Option<String>)> {
    let rest = text.strip_prefix(SKILL_PREFIX)?;
    let name = rest.split('"').next()?.to_string();
    let instruction = text
        .split_once(SKILL_INSTRUCTION)
        .map(|(_, after)| {
            after
                .split("\n\n[Runtime note:")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .filter(|instruction| !instruction.is_empty());
    Some((name, instruction))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::numbered_lines;
    use crate::model::TurnEnd;

    fn gateway() -> Vec<JsonLine> {
        numbered_lines(&[
            json!({"role": "session_meta", "tools": [], "model": "anthropic/claude-sonnet-4",
                "platform": "telegram", "timestamp": "2026-10-04T08:00:00.000000"}),
            json!({"role": "user", "content": "check disk usage on the box",
                "timestamp": "2026-10-04T08:00:01.000000"}),
            json!({"role": "assistant", "content": "", "reasoning": "df will do.",
                "finish_reason": "tool_calls", "timestamp": "2026-10-04T08:00:03.000000",
                "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "terminal", "arguments": "{\"command\": \"df -h /\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_1", "content":
                "{\"output\": \"/dev/sda1 40G 31G 9G 78% /\", \"exit_code\": 0, \"error\": null}",
                "timestamp": "2026-10-04T08:00:04.000000"}),
            json!({"role": "assistant", "content": "78% used, 9 GB free.", "finish_reason": "stop",
                "timestamp": "2026-10-04T08:00:06.000000"}),
        ])
    }

    #[test]
    fn a_gateway_transcript_pairs_calls_and_results() {
        let lines = gateway();
        assert!(sniff_jsonl(&lines));
        let output = parse_jsonl(
            Path::new("/h/.hermes/sessions/20261004_080000_ab12cd.jsonl"),
            &lines,
        );
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "20261004_080000_ab12cd");
        assert_eq!(
            session.meta.model.as_deref(),
            Some("anthropic/claude-sonnet-4")
        );
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse
            ]
        );
        assert_eq!(
            session.events[2].payload,
            Some(json!({"command": "df -h /"}))
        );
        assert_eq!(session.events[3].tool_name.as_deref(), Some("terminal"));
        assert_eq!(session.events[3].exit_code, Some(0));
        assert_eq!(session.events[3].subtype, None);
        assert_eq!(session.events[4].turn_end, Some(TurnEnd::Terminal));
        assert!(output.warnings.is_empty());
    }

    #[test]
    fn hermes_written_user_messages_are_not_prompts() {
        let session = session_of_lines(
            "s".into(),
            &numbered_lines(&[
                json!({"role": "user", "content": "[CONTEXT COMPACTION - REFERENCE ONLY] earlier turns: ..."}),
                json!({"role": "user", "content": "Review the conversation above and consider saving to memory."}),
                json!({"role": "user", "content": format!("{SKILL_PREFIX}arxiv\" skill...]\n\n---\nbody\n---\n\n{SKILL_INSTRUCTION}find papers on KV caches")}),
                json!({"role": "user", "content": "wire it up", "display_kind": "hidden"}),
            ]),
        );
        let output = parse_session(&session);
        let events = &output.sessions[0].events;
        let kinds: Vec<(EventType, Option<&str>)> = events
            .iter()
            .map(|event| (event.kind, event.subtype.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (EventType::Compaction, Some("summary")),
                (EventType::System, Some("background_review")),
                (EventType::UserInput, None),
                (EventType::System, Some("hidden")),
            ]
        );
        assert_eq!(events[2].text, "find papers on KV caches");
        assert_eq!(events[2].payload.as_ref().unwrap()["skill"], "arxiv");
    }

    #[test]
    fn failures_are_read_from_tool_results() {
        assert_eq!(
            outcome_of("{\"output\": \"\", \"exit_code\": 2, \"error\": null}"),
            (true, Some(2))
        );
        assert_eq!(
            outcome_of("{\"success\": false, \"error\": \"not found\"}"),
            (true, None)
        );
        assert_eq!(
            outcome_of("{\"success\": true, \"error\": \"\"}"),
            (false, None)
        );
        assert_eq!(outcome_of("plain text"), (false, None));
    }

    #[test]
    fn places_and_logs_are_told_apart() {
        let json = Path::new("/h/.hermes/sessions/session_20261004_080000_ab12cd.json");
        assert_eq!(
            session_file_id(json).as_deref(),
            Some("20261004_080000_ab12cd")
        );
        assert_eq!(home_store(json), Some(PathBuf::from("/h/.hermes/state.db")));
        assert_eq!(
            session_file_id(Path::new("/h/.hermes/sessions/sessions.json")),
            None
        );
        assert_eq!(session_file_id(Path::new("/h/.hermes/logs/x.jsonl")), None);
        let log = json!({"session_id": "x", "model": "m", "platform": "cli",
            "session_start": "2026-10-04T08:00:00", "messages": []});
        assert!(sniff_json(&log));
        assert!(!sniff_json(&json!({"sessionId": "x", "messages": []})));
    }

    #[test]
    fn a_model_written_as_null_is_no_model() {
        let mut session = session_of_lines("s".into(), &gateway());
        session.header.clear();
        session.info.insert("model".into(), json!("null"));
        let output = parse_session(&session);
        assert_eq!(output.sessions[0].meta.model, None);
        session.info.insert("model".into(), json!("gemma-4-31b-it"));
        let output = parse_session(&session);
        assert_eq!(
            output.sessions[0].meta.model.as_deref(),
            Some("gemma-4-31b-it")
        );
    }

    #[test]
    fn totals_count_the_cache_as_input() {
        let mut info = Map::new();
        for (name, count) in [
            ("input_tokens", 1200),
            ("output_tokens", 300),
            ("cache_read_tokens", 8000),
            ("cache_write_tokens", 500),
            ("reasoning_tokens", 40),
        ] {
            info.insert(name.into(), json!(count));
        }
        assert_eq!(
            usage_of(&info),
            Some(TokenUsage {
                input: Some(9700),
                cached_input: Some(8000),
                output: Some(300),
                reasoning: Some(40),
                total: Some(10000),
            })
        );
        assert_eq!(
            time_of(&json!(1_790_000_000.5)).map(|time| time.timestamp_millis()),
            Some(1_790_000_000_500)
        );
    }
}
