//! Windsurf's Cascade transcripts (`~/.windsurf/transcripts/<trajectory_id>.jsonl`): the JSONL
//! file Windsurf writes for one Cascade conversation (a trajectory) when the user turns on the
//! `post_cascade_response_with_transcript` hook, rewritten whole after each response (the
//! hook's `tool_info.transcript_path`; Windsurf keeps the newest 100, mode 0600). One session
//! per file.
//!
//! Each line is one step of the trajectory, `{status, type, <type>: {...}}`, the step's data
//! under a key named after its type (Windsurf's own example: `user_input {rules_applied,
//! user_response}`, `planner_response {response}`, `code_action {new_content, path}`), with
//! `timestamp`, `trajectory_id`, `execution_id` and `model_name` on the steps that carry them:
//! - `user_input {user_response, rules_applied {always_on, manual}}`: the user's prompt;
//! - `planner_response {response, thinking?}`: Cascade's reply (and its reasoning);
//! - every other step is an action Cascade took, named by its type (`code_action {path,
//!   new_content, explanation}`, `command_action {command_line, cwd, output, exit_code}`,
//!   `read_action {path}`, `search_action {query}`, `mcp_tool_use {mcp_server_name,
//!   mcp_tool_name, mcp_tool_arguments, mcp_result}`, `tool_use {tool_name}`, ...): one tool
//!   call with the step's request as arguments (an MCP step's `mcp_tool_arguments`, under its
//!   tool's name) and one result (its output, else its status) paired by the step's line,
//!   since the steps carry no call ids. A step whose `status` (beside its type or inside its
//!   data) is `error`, `failed` or `cancelled`, or whose exit code is not zero, is a failed call.
//!
//! The format is Windsurf's documented hook output (docs.windsurf.com/windsurf/cascade/hooks,
//! "post_cascade_response_with_transcript": the full conversation from its beginning, "the
//! exact structure of each step may change in future versions", files written 0600, the
//! directory pruned to 100 files); the other step shapes follow the readers that consume it
//! (AIWG's Windsurf session adapter `StepSchema`, the Go `cascadeTranscriptRecord` of a Windsurf
//! hook adapter, a `.audit` transcript renderer, a hook test's `mcp_tool_use` step), which agree.
//! An unknown step type is read as an action, never dropped. The transcript holds no token
//! counts. Cascade's own history (`~/.codeium/windsurf/cascade/*.pb`) is encrypted:
//! `indexer::grouped` counts those files as encrypted and never reads them; the IDE's
//! `state.vscdb` keeps no documented Cascade chat record (only the ACP agent window's index,
//! read with its event logs by `ingest::windsurf_acp`).

use std::collections::HashSet;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::content::{mark_terminal_replies, plain_event, text_field, tool_call, tool_response};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source,
    parse_timestamp,
};

/// The step types that are not actions.
const PROMPT_STEP: &str = "user_input";
const REPLY_STEP: &str = "planner_response";

/// Fields of an action step that hold what the action gave back, not what it was asked.
const RESULT_FIELDS: [&str; 6] = [
    "output",
    "result",
    "response",
    "mcp_result",
    "content",
    "error",
];

/// Statuses of a step that did not complete.
const FAILED_STATUSES: [&str; 4] = ["error", "failed", "cancelled", "canceled"];

/// The folder Windsurf writes transcripts to: `transcripts` in a `.windsurf` folder.
pub fn is_transcript_path(path: &Path) -> bool {
    let folder = path.parent();
    let home = folder.and_then(Path::parent);
    path.extension()
        .is_some_and(|extension| extension == "jsonl")
        && folder
            .and_then(Path::file_name)
            .is_some_and(|name| name == "transcripts")
        && home
            .and_then(Path::file_name)
            .is_some_and(|name| name == ".windsurf")
}

/// A file of Cascade's own history, encrypted: `~/.codeium/<channel>/cascade/<id>.pb` (and
/// `cascade/implicit/<id>.pb`) of Windsurf, Windsurf Next or Windsurf Insiders.
pub fn is_encrypted_history(path: &Path) -> bool {
    if path.extension().is_none_or(|extension| extension != "pb") {
        return false;
    }
    let ancestors: Vec<&str> = path
        .ancestors()
        .skip(1)
        .take(4)
        .filter_map(|folder| folder.file_name()?.to_str())
        .collect();
    let cascade_at = match ancestors.as_slice() {
        ["cascade", ..] => 0,
        ["implicit", "cascade", ..] => 1,
        _ => return false,
    };
    let product = ancestors.get(cascade_at + 1).copied();
    let codeium = ancestors.get(cascade_at + 2).copied();
    matches!(
        product,
        Some("windsurf" | "windsurf-next" | "windsurf-insiders")
    ) && codeium == Some(".codeium")
}

/// A Cascade trajectory: steps whose `type` names the key holding their data.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| step_type(&line.value).is_some())
}

/// The type of a step: its `type`, a lowercase name, with an object of that name beside it.
fn step_type(record: &Value) -> Option<&str> {
    let kind = record.get("type").and_then(Value::as_str)?;
    let lowercase = !kind.is_empty()
        && kind
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte == b'_' || byte.is_ascii_digit());
    (lowercase && record.get(kind).is_some_and(Value::is_object)).then_some(kind)
}

pub fn parse(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.step(line);
    }
    mark_terminal_replies(&mut parser.events);
    let native_id = parser.trajectory.take().unwrap_or_else(|| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("trajectory")
            .to_string()
    });
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Windsurf,
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
    trajectory: Option<String>,
    /// The model of the newest step that named one.
    model: Option<String>,
    /// Step types already warned about as data-less.
    unknown: HashSet<String>,
}

/// Where a step is: its key, line and time.
struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn step(&mut self, line: &JsonLine) {
        let record = &line.value;
        let Some(kind) = step_type(record) else {
            let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
            if self.unknown.insert(kind.to_string()) {
                self.warnings.push(ParseWarning {
                    line: line.number,
                    message: format!("line without Cascade step data (type {kind:?}) skipped"),
                });
            }
            return;
        };
        let data = &record[kind];
        if self.trajectory.is_none() {
            self.trajectory = text_field(record, "trajectory_id");
        }
        if let Some(model) =
            text_field(record, "model_name").or_else(|| text_field(record, "model"))
        {
            self.meta.model.get_or_insert(model.clone());
            self.model = Some(model);
        }
        let at = At {
            key: format!("line.{}", line.number),
            line: line.number,
            time: ["timestamp", "created_at"]
                .iter()
                .find_map(|field| record.get(*field).and_then(parse_timestamp)),
        };
        if self.meta.started_at.is_none() {
            self.meta.started_at = at.time;
        }
        match kind {
            PROMPT_STEP => self.prompt(&at, data),
            REPLY_STEP => self.reply(&at, data),
            action => {
                let status = text_field(record, "status").or_else(|| text_field(data, "status"));
                self.action(&at, action, data, status);
            }
        }
    }

    fn push(&mut self, mut event: RawEvent) {
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    /// A user prompt; the rules Windsurf applied to it go in its payload.
    fn prompt(&mut self, at: &At, data: &Value) {
        let Some(text) = ["user_response", "text", "user_prompt"]
            .iter()
            .find_map(|field| text_field(data, field))
        else {
            return;
        };
        let mut event = plain_event(
            at.key.clone(),
            EventType::UserInput,
            at.line,
            at.time,
            text,
            None,
        );
        event.starts_turn = true;
        event.payload = data
            .get("rules_applied")
            .filter(|rules| !rules.is_null())
            .map(|rules| json!({ "rules_applied": rules }));
        self.push(event);
    }

    /// Cascade's reasoning (when recorded) and reply.
    fn reply(&mut self, at: &At, data: &Value) {
        if let Some(thinking) = text_field(data, "thinking") {
            let key = format!("{}.thinking", at.key);
            self.push(plain_event(
                key,
                EventType::Reasoning,
                at.line,
                at.time,
                thinking,
                None,
            ));
        }
        let Some(text) =
            text_field(data, "response").or_else(|| text_field(data, "modified_response"))
        else {
            return;
        };
        let mut event = plain_event(
            at.key.clone(),
            EventType::AssistantResponse,
            at.line,
            at.time,
            text,
            None,
        );
        event.model = self.model.clone();
        self.push(event);
    }

    /// An action step: a call with the step's request, and its result.
    fn action(&mut self, at: &At, kind: &str, data: &Value, status: Option<String>) {
        let name = ["tool_name", "mcp_tool_name"]
            .iter()
            .find_map(|field| text_field(data, field))
            .unwrap_or_else(|| kind.to_string());
        let call_id = format!("step-{}", at.line);
        let fields = data.as_object().cloned().unwrap_or_default();
        let arguments = match fields.get("mcp_tool_arguments") {
            Some(mcp_arguments) => mcp_arguments.clone(),
            None => Value::Object(
                fields
                    .iter()
                    .filter(|(field, _)| {
                        !RESULT_FIELDS.contains(&field.as_str())
                            && !matches!(field.as_str(), "exit_code" | "status")
                    })
                    .map(|(field, value)| (field.clone(), value.clone()))
                    .collect(),
            ),
        };
        if kind == "command_action" && self.meta.cwd.is_none() {
            self.meta.cwd = text_field(data, "cwd");
        }
        let call = tool_call(
            format!("{}.call", at.key),
            at.line,
            at.time,
            &name,
            Some(&call_id),
            arguments,
        );
        self.push(call);
        let exit_code = data.get("exit_code").and_then(Value::as_i64);
        let error = data.get("error").filter(|error| !error.is_null());
        let status_failed = status
            .as_deref()
            .is_some_and(|status| FAILED_STATUSES.contains(&status.to_ascii_lowercase().as_str()));
        let failed = status_failed || error.is_some() || exit_code.is_some_and(|code| code != 0);
        let text = RESULT_FIELDS
            .iter()
            .filter_map(|field| fields.get(*field))
            .find_map(result_text)
            .or(status)
            .unwrap_or_default();
        let mut result = tool_response(
            format!("{}.result", at.key),
            at.line,
            at.time,
            &name,
            Some(&call_id),
            text,
            failed,
        );
        result.exit_code = exit_code;
        self.push(result);
    }
}

/// A result field as text: a string as is, anything else but null as JSON.
fn result_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) if text.trim().is_empty() => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::numbered_lines;
    use crate::model::{EventType, TurnEnd};

    fn trajectory() -> Vec<JsonLine> {
        numbered_lines(&[
            json!({"status": "done", "type": "user_input", "trajectory_id": "traj-1",
                "timestamp": "2026-11-02T09:00:00Z", "model_name": "SWE-1.5",
                "user_input": {"user_response": "make the parser skip blank lines",
                    "rules_applied": {"always_on": ["style.md"], "manual": []}}}),
            json!({"status": "done", "type": "planner_response",
                "timestamp": "2026-11-02T09:00:04Z",
                "planner_response": {"response": "I'll read the parser first.",
                    "thinking": "Blank lines come from the splitter."}}),
            json!({"status": "done", "type": "command_action",
                "timestamp": "2026-11-02T09:00:09Z",
                "command_action": {"command_line": "cargo test", "cwd": "/home/dev/kite",
                    "output": "test result: FAILED", "exit_code": 101}}),
            json!({"status": "done", "type": "code_action",
                "code_action": {"path": "file:///home/dev/kite/src/parse.rs",
                    "new_content": "fn parse() {}", "explanation": "skip blanks"}}),
            json!({"status": "done", "type": "planner_response",
                "planner_response": {"response": "Blank lines are skipped now."}}),
            json!({"type": "checkpoint"}),
        ])
    }

    #[test]
    fn steps_become_prompts_replies_and_paired_actions() {
        let output = parse(Path::new("/h/.windsurf/transcripts/x.jsonl"), &trajectory());
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "traj-1");
        assert_eq!(session.meta.model.as_deref(), Some("SWE-1.5"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/dev/kite"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let command = &session.events[3];
        assert_eq!(command.tool_name.as_deref(), Some("command_action"));
        assert_eq!(
            command.payload.as_ref().unwrap()["command_line"],
            "cargo test"
        );
        assert!(command.payload.as_ref().unwrap().get("output").is_none());
        let result = &session.events[4];
        assert_eq!(result.tool_call_id, command.tool_call_id);
        assert_eq!(result.text, "test result: FAILED");
        assert_eq!(result.exit_code, Some(101));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        let edit_result = &session.events[6];
        assert_eq!(edit_result.text, "done");
        assert_eq!(edit_result.subtype, None);
        assert_eq!(session.events[7].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(session.events[2].model.as_deref(), Some("SWE-1.5"));
        assert_eq!(
            output.warnings.len(),
            1,
            "the data-less step is one warning"
        );
    }

    #[test]
    fn an_mcp_step_is_a_call_of_its_tool() {
        let lines = numbered_lines(&[
            json!({"type": "mcp_tool_use", "mcp_tool_use": {"mcp_server_name": "tracker",
                "mcp_tool_name": "search_issues", "mcp_tool_arguments": {"jql": "status = open"},
                "mcp_result": "2 issues", "status": "error"}}),
        ]);
        let output = parse(Path::new("/h/.windsurf/transcripts/t.jsonl"), &lines);
        let events = &output.sessions[0].events;
        assert_eq!(events[0].tool_name.as_deref(), Some("search_issues"));
        assert_eq!(events[0].payload, Some(json!({"jql": "status = open"})));
        assert_eq!(events[1].text, "2 issues");
        assert_eq!(
            events[1].subtype.as_deref(),
            Some("error"),
            "the status inside the step"
        );
    }

    #[test]
    fn the_file_name_is_the_id_without_a_trajectory_id() {
        let lines = numbered_lines(&[json!({"status": "done", "type": "user_input",
            "user_input": {"user_response": "hi"}})]);
        assert!(sniff(&lines));
        let output = parse(Path::new("/h/.windsurf/transcripts/abc-123.jsonl"), &lines);
        assert_eq!(output.sessions[0].native_id, "abc-123");
        assert!(is_transcript_path(Path::new(
            "/h/.windsurf/transcripts/abc-123.jsonl"
        )));
        assert!(!is_transcript_path(Path::new(
            "/h/transcripts/abc-123.jsonl"
        )));
    }

    #[test]
    fn cascade_history_files_are_told_apart() {
        for encrypted in [
            "/h/.codeium/windsurf/cascade/0b7e.pb",
            "/h/.codeium/windsurf/cascade/implicit/0b7e.pb",
            "/h/.codeium/windsurf-next/cascade/0b7e.pb",
            "/h/.codeium/windsurf-insiders/cascade/0b7e.pb",
        ] {
            assert!(is_encrypted_history(Path::new(encrypted)), "{encrypted}");
        }
        for other in [
            "/h/.codeium/windsurf/user_settings.pb",
            "/h/.codeium/windsurf/cascade/notes.json",
            "/h/.gemini/antigravity/conversations/0b7e.pb",
        ] {
            assert!(!is_encrypted_history(Path::new(other)), "{other}");
        }
    }

    #[test]
    fn a_trajectory_is_recognised_as_windsurf() {
        let bytes = trajectory()
            .iter()
            .map(|line| format!("{}\n", line.value))
            .collect::<String>();
        let split = crate::ingest::lines::split_json_lines(bytes.as_bytes());
        assert_eq!(
            crate::ingest::line_format(&split),
            Some(crate::ingest::Format::WindsurfTranscript)
        );
    }

    #[test]
    fn other_formats_are_not_trajectories() {
        let antigravity = numbered_lines(&[json!({"type": "USER_INPUT", "content": "x"})]);
        let claude = numbered_lines(&[json!({"type": "user", "message": {"role": "user"}})]);
        assert!(!sniff(&antigravity));
        assert!(!sniff(&claude));
    }
}
