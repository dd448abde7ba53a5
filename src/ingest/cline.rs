//! Cline and Roo Code task folders (VS Code `globalStorage/{saoudrizwan.claude-dev,
//! rooveterinaryinc.roo-cline}/tasks/<taskId>/`, `~/.cline/data/tasks/<taskId>/`): one grouped
//! session per folder, read from `ui_messages.json` (the ClineMessage array the extension shows:
//! `{ts, type: say|ask, say|ask, text, partial, modelInfo}`), with Roo's `history_item.json`
//! (parent task link, workspace) and `task_metadata.json` beside it. The first `say:text` is the
//! task prompt and `user_feedback` the later ones; `reasoning`, `text` and `completion_result`
//! are the model's; `tool` (JSON), `command` + `command_output` and `use_mcp_server` +
//! `mcp_server_response` (Roo's `newTask` + `subtask_result`) are tool calls with their results
//! (paired by position: the log has no call ids, so each call's id is its message's `ts`); `api_req_started` carries each API
//! request's tokens (`tokensIn` + cache reads and writes in, `tokensOut` out), put on the reply
//! that request produced; `api_req_failed`, `error` and a cancelled request are terminal
//! `runtime` events. The request text Cline sends (`<task>` wrapper, environment details) is
//! never a prompt.
//!
//! `api_conversation_history.json` (the Anthropic-style messages sent to the model) fills what
//! `ui_messages.json` lacks, never adding events: when it holds one assistant message per API
//! request, request `n`'s assistant message gives that request's usage when its
//! `api_req_started` has none (`metrics.tokens{prompt, cached, completion}`: prompt + cached in,
//! cached as cache reads, completion out), and, when the request's tool calls and the message's
//! `tool_use` blocks are as many, their real call ids (`tool_use.id`, on the call and its
//! response) and failures (`tool_result.is_error`).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, plain_event, reported_exit_code, text_field, tool_call,
    tool_response, usage_carrier,
};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd,
};

/// The file every task folder has; the others are read when present.
pub const UI_MESSAGES: &str = "ui_messages.json";
const MEMBER_FILES: [&str; 4] = [
    UI_MESSAGES,
    "api_conversation_history.json",
    "task_metadata.json",
    "history_item.json",
];
/// Roo Code's extension id (a folder under VS Code's `globalStorage`).
pub const ROO_EXTENSION: &str = "rooveterinaryinc.roo-cline";

/// The extension ids whose `globalStorage` folders hold task folders.
pub const EXTENSION_IDS: [&str; 2] = ["saoudrizwan.claude-dev", ROO_EXTENSION];

/// The task folder `path` belongs to, and whether it is Roo's: a file of a folder holding
/// `ui_messages.json`.
pub fn key_of(path: &Path) -> Option<(PathBuf, bool)> {
    let name = path.file_name()?.to_str()?;
    if !MEMBER_FILES.contains(&name) {
        return None;
    }
    let folder = path.parent()?;
    if name != UI_MESSAGES && !folder.join(UI_MESSAGES).is_file() {
        return None;
    }
    let roo = folder.ancestors().any(|ancestor| {
        ancestor
            .file_name()
            .is_some_and(|name| name == ROO_EXTENSION)
    }) || folder.join("history_item.json").is_file();
    Some((folder.to_path_buf(), roo))
}

/// The files of a task folder that exist.
pub fn members(folder: &Path) -> Vec<PathBuf> {
    MEMBER_FILES
        .iter()
        .map(|name| folder.join(name))
        .filter(|path| path.is_file())
        .collect()
}

/// True when `value` is a ClineMessage array.
pub fn sniff(value: &Value) -> bool {
    value.as_array().is_some_and(|messages| {
        messages.first().is_some_and(|first| {
            first.get("ts").is_some_and(Value::is_i64)
                && matches!(
                    first.get("type").and_then(Value::as_str),
                    Some("say" | "ask")
                )
        })
    })
}

/// A task folder's files, read.
#[derive(Debug, Clone, Default)]
pub struct TaskFolder {
    pub id: String,
    pub roo: bool,
    pub messages: Value,
    /// Roo's `history_item.json` (or `Value::Null`).
    pub history_item: Value,
    /// `api_conversation_history.json` (or `Value::Null`).
    pub api_history: Value,
    pub bytes_read: u64,
}

/// Reads a task folder; `None` when its `ui_messages.json` is missing or not a ClineMessage
/// array.
pub fn read(folder: &Path, roo: bool) -> Option<TaskFolder> {
    let bytes = fs::read(folder.join(UI_MESSAGES)).ok()?;
    let messages: Value = serde_json::from_slice(&bytes).ok()?;
    if !sniff(&messages) {
        return None;
    }
    let history_bytes = fs::read(folder.join("history_item.json")).unwrap_or_default();
    let history_item = serde_json::from_slice(&history_bytes).unwrap_or(Value::Null);
    let api_bytes = fs::read(folder.join("api_conversation_history.json")).unwrap_or_default();
    let api_history = serde_json::from_slice(&api_bytes).unwrap_or(Value::Null);
    let id = folder
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some(TaskFolder {
        id,
        roo,
        messages,
        history_item,
        api_history,
        bytes_read: (bytes.len() + history_bytes.len() + api_bytes.len()) as u64,
    })
}

/// Parses one task folder.
pub fn parse(folder: &TaskFolder) -> ParseOutput {
    let mut parser = Parser::default();
    let messages = folder.messages.as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (index, message) in messages.iter().enumerate() {
        parser.message(index as u64 + 1, message);
    }
    parser.close_request();
    apply_api_history(&mut parser.events, &parser.requests, &folder.api_history);
    let history = &folder.history_item;
    let meta = SessionMeta {
        title: text_field(history, "task"),
        cwd: text_field(history, "workspace").or(parser.cwd),
        parent_native_id: text_field(history, "parentTaskId"),
        model: parser.first_model,
        agent_name: text_field(history, "mode"),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: if folder.roo {
                Source::Roo
            } else {
                Source::Cline
            },
            native_id: folder.id.clone(),
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

/// Where one message is: its key, line and time.
struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    keys: HashSet<String>,
    /// The API request whose reply events start at this index, with its usage.
    request: Option<(usize, Option<TokenUsage>)>,
    /// Every API request: the index its events start at, and whether it reported usage.
    requests: Vec<(usize, bool)>,
    /// The open command or MCP call awaiting output: its event index.
    open_call: Option<usize>,
    first_model: Option<String>,
    cwd: Option<String>,
    seen_prompt: bool,
}

impl Parser {
    fn message(&mut self, line: u64, message: &Value) {
        let Some(ts) = message.get("ts").and_then(Value::as_i64) else {
            self.warnings.push(ParseWarning {
                line,
                message: "message without ts".to_string(),
            });
            return;
        };
        let at = At {
            key: self.unique_key(ts),
            line,
            time: DateTime::from_timestamp_millis(ts),
        };
        let model = message
            .pointer("/modelInfo/modelId")
            .and_then(Value::as_str)
            .map(str::to_string);
        if self.first_model.is_none() {
            self.first_model.clone_from(&model);
        }
        let text = message
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
        let subtype = message
            .get(kind)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match (kind, subtype.as_str()) {
            ("say", "text" | "task") if !self.seen_prompt => self.prompt(&at, text),
            ("say", "user_feedback") => self.prompt(&at, text),
            ("say", "text") => self.reply(&at, model, text, false),
            ("say", "completion_result") => self.reply(&at, model, text, true),
            ("ask", "followup") => {
                let question = json_text(&text, "question");
                self.reply(&at, model, question, true);
            }
            ("ask", "plan_mode_respond") => {
                let response = json_text(&text, "response");
                self.reply(&at, model, response, true);
            }
            ("say", "reasoning") if !text.trim().is_empty() => {
                let mut event =
                    plain_event(at.key, EventType::Reasoning, line, at.time, text, None);
                event.model = model;
                self.events.push(event);
            }
            ("say" | "ask", "tool") => self.tool(&at, &text),
            ("say" | "ask", "command") => {
                let arguments = serde_json::json!({ "command": text });
                self.open(&at, "execute_command", arguments);
            }
            ("say" | "ask", "command_output") => self.output(&at, text, false),
            ("ask", "use_mcp_server") => self.mcp_call(&at, &text),
            ("say", "subtask_result") => self.output(&at, text, false),
            ("say", "mcp_server_response") => {
                let failed = text.trim_start().starts_with("Error");
                self.output(&at, text, failed);
            }
            ("say", "api_req_started") => self.request_started(&at, &text),
            ("ask", "api_req_failed") | ("say", "error" | "diff_error") => {
                let message = json_text(&text, "message");
                self.runtime(&at, message, "error");
            }
            ("say", "task_progress") if !text.trim().is_empty() => {
                self.events.push(plain_event(
                    at.key,
                    EventType::System,
                    line,
                    at.time,
                    text,
                    Some("task_progress"),
                ));
            }
            (_, message_type) if !is_bookkeeping(kind, message_type) => {
                // A message type esker does not know: kept, named `say:<type>` / `ask:<type>`.
                let name = format!("{kind}:{message_type}");
                let mut event =
                    plain_event(at.key, EventType::Unknown, line, at.time, text, Some(&name));
                event.payload = Some(message.clone());
                self.events.push(event);
            }
            _ => {}
        }
    }

    /// A key from the message's `ts`, made unique (two messages can share a millisecond).
    fn unique_key(&mut self, ts: i64) -> String {
        let mut key = format!("ts{ts}");
        let mut suffix = 1;
        while !self.keys.insert(key.clone()) {
            suffix += 1;
            key = format!("ts{ts}.{suffix}");
        }
        key
    }

    fn prompt(&mut self, at: &At, text: String) {
        self.seen_prompt = true;
        self.open_call = None;
        if text.trim().is_empty() {
            return;
        }
        let mut event = plain_event(
            at.key.clone(),
            EventType::UserInput,
            at.line,
            at.time,
            text,
            None,
        );
        event.starts_turn = true;
        self.events.push(event);
    }

    fn reply(&mut self, at: &At, model: Option<String>, text: String, ends_turn: bool) {
        if text.trim().is_empty() {
            return;
        }
        let mut event = plain_event(
            at.key.clone(),
            EventType::AssistantResponse,
            at.line,
            at.time,
            text,
            None,
        );
        event.model.clone_from(&model);
        event.originating_model = model;
        if ends_turn {
            event.turn_end = Some(TurnEnd::Terminal);
        }
        self.events.push(event);
    }

    /// A `tool` message: `{tool, path, content, diff, …}`. For the tools that list, search or
    /// read, `content` is what the tool returned (the response); for the others it is part of
    /// the call (a new file's text, a sub-task's message). A sub-task (`newTask`) is answered
    /// by its `subtask_result`; other calls by what the message says they did.
    fn tool(&mut self, at: &At, text: &str) {
        let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let name = fields
            .remove("tool")
            .and_then(|name| name.as_str().map(str::to_string))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let returns_content = ["list", "search", "read", "codebase", "fetch"]
            .iter()
            .any(|prefix| name.starts_with(prefix));
        let content = if returns_content {
            fields.remove("content")
        } else {
            None
        };
        let summary = [
            Some(name.as_str()),
            fields.get("path").and_then(Value::as_str),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        let call = self.open(at, &name, Value::Object(fields));
        if name == "newTask" {
            return;
        }
        let output = match content {
            Some(Value::String(text)) => text,
            Some(other) => other.to_string(),
            None => summary,
        };
        self.respond(at, call, format!("{}.result", at.key), output, false);
        self.open_call = None;
    }

    /// A `use_mcp_server` request: the MCP tool call (`toolName` on `serverName`).
    fn mcp_call(&mut self, at: &At, text: &str) {
        let request: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let name = text_field(&request, "toolName")
            .or_else(|| text_field(&request, "uri").map(|_| "access_mcp_resource".to_string()))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let mut arguments = arguments_of(request.get("arguments"));
        if let (Value::Object(fields), Some(server)) =
            (&mut arguments, text_field(&request, "serverName"))
        {
            fields.insert("server".to_string(), Value::String(server));
        }
        self.open(at, &name, arguments);
    }

    /// A tool call whose result is a later message; returns its index.
    fn open(&mut self, at: &At, name: &str, arguments: Value) -> usize {
        let event = tool_call(
            at.key.clone(),
            at.line,
            at.time,
            name,
            Some(&at.key),
            arguments,
        );
        self.events.push(event);
        let index = self.events.len() - 1;
        self.open_call = Some(index);
        index
    }

    /// Output of the open call: the first becomes its response, later chunks are appended.
    fn output(&mut self, at: &At, text: String, failed: bool) {
        let Some(call) = self.open_call else {
            return;
        };
        let answered = self.events.iter().rposition(|event| {
            event.kind == EventType::ToolResponse
                && event.tool_call_id == self.events[call].tool_call_id
        });
        match answered {
            Some(response) => {
                let event = &mut self.events[response];
                event.text.push_str(&text);
                if failed || exited_with_failure(&event.text) {
                    event.subtype = Some("error".to_string());
                }
            }
            None => self.respond(at, call, at.key.clone(), text, failed),
        }
    }

    fn respond(&mut self, at: &At, call: usize, key: String, text: String, failed: bool) {
        let name = self.events[call]
            .tool_name
            .clone()
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let call_id = self.events[call].tool_call_id.clone();
        let failed = failed || exited_with_failure(&text);
        self.events.push(tool_response(
            key,
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        ));
    }

    fn runtime(&mut self, at: &At, text: String, subtype: &str) {
        let mut event = plain_event(
            at.key.clone(),
            EventType::Runtime,
            at.line,
            at.time,
            text,
            Some(subtype),
        );
        event.turn_end = Some(TurnEnd::Terminal);
        self.events.push(event);
    }

    /// `api_req_started`: closes the previous request (its usage goes on its reply) and opens
    /// this one. The request text gives the working directory; a cancelled request ends the
    /// turn.
    fn request_started(&mut self, at: &At, text: &str) {
        self.close_request();
        let request: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        if self.cwd.is_none() {
            self.cwd = request
                .get("request")
                .and_then(Value::as_str)
                .and_then(working_directory);
        }
        let usage = usage_of(&request);
        self.requests.push((self.events.len(), usage.is_some()));
        self.request = Some((self.events.len(), usage));
        if let Some(reason) = text_field(&request, "cancelReason") {
            let message = text_field(&request, "streamingFailedMessage").unwrap_or(reason.clone());
            self.runtime(at, message, &reason);
        }
    }

    fn close_request(&mut self) {
        if let Some((first_event, Some(usage))) = self.request.take()
            && let Some(target) = usage_carrier(&self.events, first_event)
        {
            TokenUsage::attach(&mut self.events[target], usage);
        }
    }
}

/// Fills request usage and call ids from the API history (see the module doc): only when it
/// holds exactly one assistant message per API request of `ui_messages.json`.
fn apply_api_history(events: &mut [RawEvent], requests: &[(usize, bool)], history: &Value) {
    let messages = history.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let replies: Vec<&Value> = messages
        .iter()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("assistant"))
        .collect();
    if replies.is_empty() || replies.len() != requests.len() {
        return;
    }
    let results = tool_results(messages);
    for (number, (&(start, has_usage), reply)) in requests.iter().zip(&replies).enumerate() {
        let end = requests
            .get(number + 1)
            .map_or(events.len(), |&(next, _)| next);
        if !has_usage
            && let Some(usage) = metrics_usage(reply)
            && let Some(target) = usage_carrier(&events[..end], start)
        {
            TokenUsage::attach(&mut events[target], usage);
        }
        adopt_call_ids(events, start..end, reply, &results);
    }
}

/// `tool_result` blocks of the history's user messages: failed or not, by `tool_use_id`.
fn tool_results(messages: &[Value]) -> HashMap<String, bool> {
    messages
        .iter()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("user"))
        .filter_map(|message| message.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter_map(|block| {
            let id = text_field(block, "tool_use_id")?;
            Some((
                id,
                block.get("is_error").and_then(Value::as_bool) == Some(true),
            ))
        })
        .collect()
}

/// An assistant message's `metrics.tokens`.
fn metrics_usage(reply: &Value) -> Option<TokenUsage> {
    let tokens = reply.pointer("/metrics/tokens")?;
    let count = |name: &str| tokens.get(name).and_then(Value::as_i64);
    let (prompt, completion) = (count("prompt"), count("completion"));
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    let cached = count("cached");
    Some(
        TokenUsage {
            input: Some(prompt.unwrap_or(0) + cached.unwrap_or(0)),
            cached_input: cached,
            output: completion,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

/// The request's tool calls take the ids of the reply's `tool_use` blocks, in order, when they
/// are as many; their responses follow, and a `tool_result` with `is_error` marks a failure.
fn adopt_call_ids(
    events: &mut [RawEvent],
    request: std::ops::Range<usize>,
    reply: &Value,
    results: &HashMap<String, bool>,
) {
    let uses: Vec<String> = reply
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|block| text_field(block, "id"))
        .collect();
    let calls: Vec<usize> = request
        .clone()
        .filter(|&index| events[index].kind == EventType::ToolCall)
        .collect();
    if uses.is_empty() || uses.len() != calls.len() {
        return;
    }
    for (call, id) in calls.into_iter().zip(uses) {
        let Some(old) = events[call].tool_call_id.replace(id.clone()) else {
            continue;
        };
        let failed = results.get(&id).copied().unwrap_or(false);
        for event in events[request.start..].iter_mut() {
            if event.kind == EventType::ToolResponse && event.tool_call_id.as_deref() == Some(&old)
            {
                event.tool_call_id = Some(id.clone());
                if failed {
                    event.subtype = Some("error".to_string());
                }
            }
        }
    }
}

/// True when a command's output reports a non-zero exit code.
/// Message types Cline and Roo write that carry nothing esker indexes: UI state, retries,
/// checkpoints, approval prompts (their content is in the messages around them).
const BOOKKEEPING: [&str; 30] = [
    "checkpoint_created",
    "api_req_finished",
    "api_req_retried",
    "api_req_deleted",
    "deleted_api_reqs",
    "error_retry",
    "resume_task",
    "resume_completed_task",
    "completion_result",
    "mcp_server_request_started",
    "load_mcp_documentation",
    "auto_approval_max_req_reached",
    "mistake_limit_reached",
    "shell_integration_warning",
    "shell_integration_warning_with_suggestion",
    "browser_action_launch",
    "browser_action",
    "browser_action_result",
    "new_task",
    "condense",
    "condense_context",
    "clineignore_error",
    "info",
    "user_feedback_diff",
    "hook",
    "hook_output",
    "use_mcp_server",
    "text",
    "reasoning",
    "task_progress",
];

/// Whether a message type is known and carries nothing to index (or nothing in this shape:
/// an empty `reasoning`, a second `ask:completion_result`...).
fn is_bookkeeping(kind: &str, message_type: &str) -> bool {
    !matches!(kind, "say" | "ask") || message_type.is_empty() || BOOKKEEPING.contains(&message_type)
}

fn exited_with_failure(output: &str) -> bool {
    reported_exit_code(output).is_some_and(|code| code != 0)
}

/// A field of a JSON text (`{"question": …}`), or the text itself when it is not JSON.
fn json_text(text: &str, field: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => text_field(&value, field).unwrap_or_default(),
        Err(_) => text.to_string(),
    }
}

/// An API request's usage: `tokensIn` plus cache reads and writes in, `tokensOut` out.
fn usage_of(request: &Value) -> Option<TokenUsage> {
    let count = |name: &str| request.get(name).and_then(Value::as_i64);
    let (tokens_in, tokens_out) = (count("tokensIn"), count("tokensOut"));
    if tokens_in.is_none() && tokens_out.is_none() {
        return None;
    }
    let cache_reads = count("cacheReads");
    let input =
        tokens_in.unwrap_or(0) + cache_reads.unwrap_or(0) + count("cacheWrites").unwrap_or(0);
    Some(
        TokenUsage {
            input: Some(input),
            cached_input: cache_reads,
            output: tokens_out,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

/// The directory in Cline's environment details: `# Current Working Directory (<dir>) Files`
/// (Roo: `# Current Workspace Directory (<dir>) Files`).
pub(super) fn working_directory(request: &str) -> Option<String> {
    [
        "# Current Working Directory (",
        "# Current Workspace Directory (",
    ]
    .iter()
    .find_map(|marker| {
        let start = request.find(marker)? + marker.len();
        let rest = &request[start..];
        let end = rest.find(") Files").or_else(|| rest.find(')'))?;
        Some(rest[..end].trim().to_string())
    })
    .filter(|dir| !dir.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn folder(messages: Value, history_item: Value) -> TaskFolder {
        TaskFolder {
            id: "1767644899093".to_string(),
            roo: false,
            messages,
            history_item,
            api_history: Value::Null,
            bytes_read: 0,
        }
    }

    #[test]
    fn prompts_tools_commands_usage_and_failures() {
        let model =
            json!({"providerId": "anthropic", "modelId": "claude-sonnet-4-5", "mode": "act"});
        let request = |tokens_in: i64, tokens_out: i64| {
            json!({"request": "<task>\nfix the heron test\n</task>\n\n# Current Working Directory (/src/heron) Files\nCargo.toml",
                "tokensIn": tokens_in, "tokensOut": tokens_out, "cacheReads": 100, "cacheWrites": 10})
            .to_string()
        };
        let messages = json!([
            {"ts": 1000, "type": "say", "say": "text", "text": "fix the heron test", "modelInfo": model},
            {"ts": 1001, "type": "say", "say": "api_req_started", "text": request(50, 20)},
            {"ts": 1002, "type": "say", "say": "reasoning", "text": "Run the tests first."},
            {"ts": 1003, "type": "say", "say": "command", "text": "cargo test heron"},
            {"ts": 1004, "type": "ask", "ask": "command_output", "text": "test heron ... FAILED\n"},
            {"ts": 1005, "type": "ask", "ask": "command_output", "text": "exit code: 101"},
            {"ts": 1006, "type": "say", "say": "api_req_started", "text": request(60, 30)},
            {"ts": 1007, "type": "say", "say": "tool", "text": "{\"tool\":\"readFile\",\"path\":\"src/heron.rs\",\"content\":\"/src/heron/src/heron.rs\"}"},
            {"ts": 1008, "type": "say", "say": "completion_result", "text": "The heron test expects 12 nests.", "modelInfo": model},
            {"ts": 1009, "type": "ask", "ask": "completion_result", "text": ""},
            {"ts": 1010, "type": "say", "say": "user_feedback", "text": "and the egret test?"},
            {"ts": 1011, "type": "ask", "ask": "api_req_failed", "text": "{\"message\":\"rate limited\"}"}
        ]);
        let output = parse(&folder(messages, Value::Null));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Cline);
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::UserInput,
                EventType::Runtime,
            ]
        );
        let command = &session.events[3];
        assert_eq!(command.tool_name.as_deref(), Some("execute_command"));
        assert_eq!(command.tool_call_id.as_deref(), Some("ts1003"));
        assert_eq!(command.text, "test heron ... FAILED\nexit code: 101");
        assert_eq!(command.subtype.as_deref(), Some("error"));
        assert_eq!(session.events[4].tool_name.as_deref(), Some("readFile"));
        assert_eq!(
            session.events[4].payload,
            Some(json!({"path": "src/heron.rs"}))
        );
        assert_eq!(session.events[5].text, "/src/heron/src/heron.rs");
        assert_eq!(session.events[6].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(session.events[8].text, "rate limited");
        let carriers = session.usage_carriers();
        assert_eq!(carriers.len(), 2);
        assert_eq!(
            carriers[0].0, "ts1002",
            "no reply: the request's first event"
        );
        assert_eq!(carriers[0].1.input, Some(160));
        assert_eq!(carriers[1].0, "ts1008", "the request's reply");
        assert_eq!(carriers[1].1.total, Some(170 + 30));
        assert_eq!(session.meta.cwd.as_deref(), Some("/src/heron"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4-5"));
    }

    #[test]
    fn api_history_fills_usage_and_ids_only_when_it_aligns_with_the_requests() {
        let messages = json!([
            {"ts": 1, "type": "say", "say": "text", "text": "count the voles"},
            {"ts": 2, "type": "say", "say": "api_req_started", "text": "{\"request\": \"x\"}"},
            {"ts": 3, "type": "say", "say": "command", "text": "wc -l voles.csv"},
            {"ts": 4, "type": "ask", "ask": "command_output", "text": "wc: voles.csv: No such file"},
            {"ts": 5, "type": "say", "say": "completion_result", "text": "There is no vole file."}
        ]);
        let reply = json!({"role": "assistant", "metrics": {"tokens":
            {"prompt": 100, "cached": 50, "completion": 7}},
            "content": [{"type": "tool_use", "id": "toolu_vole", "name": "execute_command",
                "input": {"command": "wc -l voles.csv"}}]});
        let result = json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_vole", "is_error": true, "content": "No such file"}]});
        let mut task = folder(messages.clone(), Value::Null);
        task.api_history = json!([{"role": "user", "content": "count the voles"}, reply, result]);
        let session = &parse(&task).sessions[0];
        assert_eq!(session.events.len(), 4, "the history adds no events");
        assert_eq!(
            session.events[1].tool_call_id.as_deref(),
            Some("toolu_vole")
        );
        assert_eq!(
            session.events[2].tool_call_id.as_deref(),
            Some("toolu_vole")
        );
        assert_eq!(session.events[2].subtype.as_deref(), Some("error"));
        let carriers = session.usage_carriers();
        assert_eq!(carriers.len(), 1);
        assert_eq!(carriers[0].1.input, Some(150));
        assert_eq!(carriers[0].1.output, Some(7));

        let mut misaligned = folder(messages, Value::Null);
        misaligned.api_history = json!([reply.clone(), reply]);
        let session = &parse(&misaligned).sessions[0];
        assert_eq!(session.events[1].tool_call_id.as_deref(), Some("ts3"));
        assert!(
            session.usage_carriers().is_empty(),
            "two replies, one request"
        );
    }

    #[test]
    fn roo_history_items_give_parent_workspace_and_title() {
        let messages =
            json!([{"ts": 1, "type": "say", "say": "text", "text": "write the egret docs"}]);
        let history = json!({"id": "child", "task": "Egret docs", "workspace": "/src/egret",
            "parentTaskId": "parent-task", "mode": "architect"});
        let mut task = folder(messages, history);
        task.roo = true;
        let session = &parse(&task).sessions[0];
        assert_eq!(session.source, Source::Roo);
        assert_eq!(
            session.meta.parent_native_id.as_deref(),
            Some("parent-task")
        );
        assert_eq!(session.meta.cwd.as_deref(), Some("/src/egret"));
        assert_eq!(session.meta.title.as_deref(), Some("Egret docs"));
    }
}
