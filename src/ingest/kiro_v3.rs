//! Kiro CLI's v3 (KAS) agent engine sessions, the default since Kiro CLI 3.0 (`kiro-cli --v3`
//! before it), which Kiro IDE 1.0 writes too: one folder per session,
//! `~/.kiro/sessions/<workspace hash>/sess_<id>/`, holding `messages.jsonl` (the append-only
//! log, read here) and `session.json` (its metadata, read with it). The v2 engine's
//! `~/.kiro/sessions/cli/<id>.jsonl` files are `ingest::kiro`'s, the legacy SQLite store
//! `ingest::kiro_db`'s.
//!
//! Each line is `{id, timestamp (RFC 3339), payload: {type, ...}}`. The payloads read:
//! - `user {content, images, documents}`: a prompt, which starts a turn;
//! - `assistant {operationType, content, executionId}`: `Say` a reply; `Reasoning` the model's
//!   thinking, which Kiro stores encrypted (`content` is a literal `...`, the thinking only as
//!   `reasoningSignature`): a `reasoning` event `[encrypted reasoning]` whose model is
//!   `reasoningModelId` (`qdev::<model>`, read without its `qdev::` namespace; `auto` is no
//!   model), its text when a build ever stores it in the clear; `Summary` a compaction (after
//!   a `tombstone` of kind `summarization`); another operation is kept as `unknown`;
//! - `tool_call {toolCallId, toolName, args, status, kind}` and `tool_result {toolCallId,
//!   content, success}`: a call and its result, failed when `success` is false (a denied call's
//!   result), or when a shell result's `Exit Code: N` is not 0 (N is its exit code); a call id
//!   seen again is the same call (only its first call and first result are read);
//! - `sub_agent_start {subSessionId, subAgentName, prompt}` and `sub_agent_complete
//!   {subSessionId, response}`: a sub-agent run, as a call of the tool `subagent` and its result;
//! - `turn_end {stopReason}`: a stop reason other than `end_turn` is a `runtime` event that ends
//!   the turn; otherwise the turn's last reply ends it.
//!
//! Not read, as bookkeeping: `turn_start`, `usage_summary` (the turn's cost in credits, which
//! are not tokens: v3 records no token counts), `session_metadata` (context use),
//! `session_event`, `pending_interaction`/`interaction_resolved` (tool approvals; the call itself
//! is read), `steering_inclusion`, `session_start` (the system prompt) and `tombstone`. Another
//! type is kept as an `unknown` event with its record. Lines that are not JSON (a line a crash
//! left half-written) are counted by the line splitter.
//!
//! `session.json` gives the session id (`id`, else the folder's name), `title`, the cwd
//! (`workspacePaths[0]`, else `rootPaths[0]`), the start (`createdAt`), the model (`modelId`;
//! `auto` is none, and then the first reasoning's model is the session's) and the session it
//! came from (`parentSessionId`: forked from it when `createdReason` is `tangent`, else its
//! sub-agent). Every other file of a session folder is read with its session, never as a log.
//!
//! Sources (no real v3 session is published under a license that lets it be copied, so the
//! fixture is written in these shapes): the v3 readers and their tests in the public file
//! index: `IronDeploy/IronBrake` `internal/watch` (its Kiro v3 test: the folder layout with a
//! 16-hex workspace hash, `tool_call`/`tool_result` with `toolCallId`, `toolName`, `args`,
//! `status` `completed`/`denied`, `kind`, `success`), an agent dashboard's `kiro-session` test
//! ("measured against 6 live transcripts": `operationType` `Say`/`Reasoning`, the redacted
//! `...` with `reasoningSignature` and `reasoningModelId` `qdev::auto`, `turn_start`/`turn_end`
//! with `executionId`), a Rust indexer's Kiro reader (`sub_agent_start`/`sub_agent_complete`,
//! `tombstone` and `Summary`, `steering_inclusion`, `parentSessionId`/`createdReason`,
//! `workspacePaths`/`rootPaths`), a harness-layout probe ("Kiro 1.0 and CLI 3.0 session
//! header"), a usage reader's fixtures (`usage_summary` `promptTurnSummaries` in credits,
//! `session_metadata` `contextUsage`), `vshulcz/deja-vu` `docs/registry/kiro.md` (`session.json`
//! with `workspacePaths`, `messages.jsonl` lines with `payload.type` and an RFC 3339
//! `timestamp`) and its CHANGELOG (v3 stores thinking as an encrypted assistant record).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, mark_terminal_replies, plain_event, reported_exit_code, text_field, tool_call,
    tool_response,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TurnEnd, parse_timestamp,
};

/// The log's file name in a session folder.
pub const MESSAGES_FILE: &str = "messages.jsonl";
/// The session's metadata beside it.
pub const SESSION_FILE: &str = "session.json";

/// The payload types Kiro's v3 engine writes.
const TYPES: [&str; 16] = [
    "user",
    "assistant",
    "tool_call",
    "tool_result",
    "turn_start",
    "turn_end",
    "usage_summary",
    "session_metadata",
    "session_event",
    "session_start",
    "pending_interaction",
    "interaction_resolved",
    "steering_inclusion",
    "sub_agent_start",
    "sub_agent_complete",
    "tombstone",
];

/// The text of a reasoning record Kiro stored encrypted.
const ENCRYPTED_REASONING: &str = "[encrypted reasoning]";
/// The tool name a sub-agent run is recorded under.
const SUBAGENT_TOOL: &str = "subagent";

/// A v3 session log: records `{timestamp, payload: {type}}` (no `type` of their own, unlike a
/// Codex rollout's) whose payload type is one Kiro writes.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(3).any(|line| {
        let record = &line.value;
        record.get("type").is_none()
            && record.get("timestamp").is_some_and(Value::is_string)
            && record
                .pointer("/payload/type")
                .and_then(Value::as_str)
                .is_some_and(|kind| TYPES.contains(&kind))
    })
}

/// A folder Kiro keeps a v3 session in: `session.json` beside `messages.jsonl`.
fn is_session_folder(folder: &Path) -> bool {
    folder.join(SESSION_FILE).is_file() && folder.join(MESSAGES_FILE).is_file()
}

/// True for a file of a v3 session folder other than its log (`session.json`, and whatever
/// else Kiro keeps there): read with the session, never as a log of its own.
pub fn is_side_file(path: &Path) -> bool {
    if path.file_name() == Some(MESSAGES_FILE.as_ref()) {
        return false;
    }
    path.ancestors().skip(1).take(3).any(is_session_folder)
}

/// The fields of `session.json` [`parse`] reads. Kiro rewrites the file on every turn
/// (`lastModifiedAt`, `status`), so only these are kept: the checkpoint hashes the sidecar, and
/// a change to one of them alone re-reads the log.
const READ_FIELDS: [&str; 8] = [
    "id",
    "title",
    "workspacePaths",
    "rootPaths",
    "createdAt",
    "modelId",
    "parentSessionId",
    "createdReason",
];

/// `session.json` beside a session's log: the fields [`parse`] reads.
pub fn read_sidecar(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path.with_file_name(SESSION_FILE)).ok()?;
    let Value::Object(mut metadata) = serde_json::from_str::<Value>(&text).ok()? else {
        return None;
    };
    metadata.retain(|field, _| READ_FIELDS.contains(&field.as_str()));
    Some(Value::Object(metadata))
}

/// A model id without Kiro's `qdev::` namespace; `auto` (no pinned model) is none.
fn model_name(id: &str) -> Option<String> {
    let name = id.rsplit("::").next().unwrap_or(id).trim();
    super::kiro::is_pinned_model(name).then(|| name.to_string())
}

/// The first non-empty path of `field` (an array of paths).
fn first_path(metadata: &Value, field: &str) -> Option<String> {
    metadata
        .get(field)?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|path| !path.is_empty())
        .map(str::to_string)
}

/// Parses one `messages.jsonl`, with its `session.json` when there is one.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    mark_terminal_replies(&mut parser.events);
    let mut meta = SessionMeta::default();
    let mut native_id = None;
    if let Some(metadata) = sidecar {
        native_id = text_field(metadata, "id");
        meta.title = text_field(metadata, "title");
        meta.cwd =
            first_path(metadata, "workspacePaths").or_else(|| first_path(metadata, "rootPaths"));
        meta.started_at = metadata.get("createdAt").and_then(parse_timestamp);
        meta.model = text_field(metadata, "modelId").and_then(|id| model_name(&id));
        if let Some(parent) = text_field(metadata, "parentSessionId") {
            if metadata.get("createdReason").and_then(Value::as_str) == Some("tangent") {
                meta.forked_from_native_id = Some(parent);
            } else {
                meta.parent_native_id = Some(parent);
            }
        }
    }
    if meta.model.is_none() {
        meta.model = parser.events.iter().find_map(|event| event.model.clone());
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
            source: Source::Kiro,
            native_id,
            meta,
            events: parser.events,
        }],
        // Lines that are not JSON are counted by the line splitter; unknown types are kept.
        warnings: Vec::new(),
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    /// Call ids whose result was read.
    answered: HashSet<String>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        let payload = record.get("payload").unwrap_or(&Value::Null);
        let base = text_field(record, "id").unwrap_or_else(|| format!("line.{}", line.number));
        let time = record.get("timestamp").and_then(parse_timestamp);
        let kind = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => {
                let text = content_text(payload.get("content"));
                if !text.trim().is_empty() {
                    let mut event =
                        plain_event(base, EventType::UserInput, line.number, time, text, None);
                    event.starts_turn = true;
                    self.events.push(event);
                }
            }
            "assistant" => self.assistant(base, line.number, time, record, payload),
            "tool_call" => {
                let name =
                    text_field(payload, "toolName").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let arguments = payload.get("args").cloned().unwrap_or(Value::Null);
                self.call(
                    base,
                    line.number,
                    time,
                    &name,
                    text_field(payload, "toolCallId"),
                    arguments,
                );
            }
            "sub_agent_start" => {
                let arguments = serde_json::json!({
                    "agent": payload.get("subAgentName").cloned().unwrap_or(Value::Null),
                    "prompt": payload.get("prompt").cloned().unwrap_or(Value::Null),
                });
                let id = text_field(payload, "subSessionId");
                self.call(base, line.number, time, SUBAGENT_TOOL, id, arguments);
            }
            "tool_result" => {
                let text = content_text(payload.get("content"));
                let exit_code = reported_exit_code(&text);
                let failed = payload.get("success").and_then(Value::as_bool) == Some(false)
                    || exit_code.is_some_and(|code| code != 0);
                let id = text_field(payload, "toolCallId");
                self.result(base, line.number, time, id, text, failed, exit_code);
            }
            "sub_agent_complete" => {
                let text = content_text(payload.get("response"));
                let id = text_field(payload, "subSessionId");
                self.result(base, line.number, time, id, text, false, None);
            }
            "turn_end" => {
                let reason = text_field(payload, "stopReason");
                if let Some(reason) = reason.filter(|reason| reason != "end_turn") {
                    let mut event = plain_event(
                        base,
                        EventType::Runtime,
                        line.number,
                        time,
                        format!("turn ended: {reason}"),
                        Some("turn_end"),
                    );
                    event.turn_end = Some(TurnEnd::Terminal);
                    self.events.push(event);
                }
            }
            "turn_start"
            | "usage_summary"
            | "session_metadata"
            | "session_event"
            | "session_start"
            | "pending_interaction"
            | "interaction_resolved"
            | "steering_inclusion"
            | "tombstone" => {}
            other => {
                let subtype = if other.is_empty() { "untyped" } else { other };
                let mut event = plain_event(
                    base,
                    EventType::Unknown,
                    line.number,
                    time,
                    String::new(),
                    Some(subtype),
                );
                event.payload = Some(record.clone());
                self.events.push(event);
            }
        }
    }

    fn assistant(
        &mut self,
        base: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        record: &Value,
        payload: &Value,
    ) {
        let text = content_text(payload.get("content"));
        let model = text_field(payload, "reasoningModelId").and_then(|id| model_name(&id));
        let operation = payload.get("operationType").and_then(Value::as_str);
        let event = match operation.unwrap_or("Say") {
            "Say" if text.trim().is_empty() => return,
            "Say" => plain_event(base, EventType::AssistantResponse, line, time, text, None),
            "Reasoning" => {
                let clear = text.trim();
                let encrypted = clear.is_empty() || clear == "...";
                let (text, subtype) = if encrypted {
                    (ENCRYPTED_REASONING.to_string(), Some("encrypted"))
                } else {
                    (text, None)
                };
                plain_event(base, EventType::Reasoning, line, time, text, subtype)
            }
            "Summary" if text.trim().is_empty() => return,
            "Summary" => plain_event(base, EventType::Compaction, line, time, text, None),
            other => {
                let mut event =
                    plain_event(base, EventType::Unknown, line, time, text, Some(other));
                event.payload = Some(record.clone());
                event
            }
        };
        self.events.push(RawEvent { model, ..event });
    }

    fn call(
        &mut self,
        base: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        name: &str,
        call_id: Option<String>,
        arguments: Value,
    ) {
        if let Some(id) = &call_id {
            if self.calls.contains_key(id) {
                return;
            }
            self.calls.insert(id.clone(), name.to_string());
        }
        self.events.push(tool_call(
            base,
            line,
            time,
            name,
            call_id.as_deref(),
            arguments,
        ));
    }

    #[allow(clippy::too_many_arguments)]
    fn result(
        &mut self,
        base: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        call_id: Option<String>,
        text: String,
        failed: bool,
        exit_code: Option<i64>,
    ) {
        if let Some(id) = &call_id
            && !self.answered.insert(id.clone())
        {
            return;
        }
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let mut event = tool_response(base, line, time, &name, call_id.as_deref(), text, failed);
        event.exit_code = exit_code;
        self.events.push(event);
    }
}

/// A content value's text: a string as it is, text blocks (`{type: text, text}`) joined by
/// blank lines, anything else as JSON text.
fn content_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|block| match block {
                Value::String(text) => text.clone(),
                other => other
                    .get("text")
                    .and_then(Value::as_str)
                    .map_or_else(|| other.to_string(), str::to_string),
            })
            .filter(|text| !text.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;
    use serde_json::json;

    fn parse_records(records: &[Value], sidecar: Option<&Value>) -> ParseOutput {
        let text: String = records.iter().map(|record| format!("{record}\n")).collect();
        let split = split_json_lines(text.as_bytes());
        parse(
            Path::new("/h/.kiro/sessions/0123456789abcdef/sess_fallback/messages.jsonl"),
            &split.lines,
            sidecar,
        )
    }

    fn line(id: &str, second: u32, payload: Value) -> Value {
        json!({"id": id, "timestamp": format!("2026-11-02T09:14:{second:02}.000Z"),
            "payload": payload})
    }

    #[test]
    fn reads_prompts_replies_encrypted_reasoning_calls_and_results() {
        let records = [
            line(
                "s",
                0,
                json!({"type": "session_start", "content": "You are Kiro CLI"}),
            ),
            line(
                "u1",
                1,
                json!({"type": "user", "content": "run false", "images": []}),
            ),
            line("ts", 1, json!({"type": "turn_start", "executionId": "e1"})),
            line(
                "r1",
                2,
                json!({"type": "assistant", "operationType": "Reasoning",
                "content": "...", "reasoningSignature": "sig",
                "reasoningModelId": "qdev::claude-opus-4.8", "executionId": "e1"}),
            ),
            line(
                "c1",
                3,
                json!({"type": "tool_call", "toolCallId": "t1",
                "toolName": "execute_bash", "args": {"command": "false"},
                "status": "completed", "kind": "execute"}),
            ),
            line(
                "c1again",
                3,
                json!({"type": "tool_call", "toolCallId": "t1",
                "toolName": "execute_bash", "args": {"command": "false"},
                "status": "completed", "kind": "execute"}),
            ),
            line(
                "o1",
                4,
                json!({"type": "tool_result", "toolCallId": "t1",
                "content": "Output:\n\nExit Code: 1", "success": true}),
            ),
            line(
                "c2",
                5,
                json!({"type": "tool_call", "toolCallId": "t2",
                "toolName": "fs_write", "args": {"path": "x"}, "status": "denied"}),
            ),
            line(
                "o2",
                6,
                json!({"type": "tool_result", "toolCallId": "t2",
                "content": "denied", "success": false}),
            ),
            line(
                "a1",
                7,
                json!({"type": "assistant", "operationType": "Say",
                "content": "it failed", "executionId": "e1"}),
            ),
            line(
                "us",
                7,
                json!({"type": "usage_summary", "promptTurnSummaries":
                [{"unit": "credit", "usage": 0.5}]}),
            ),
            line(
                "te",
                8,
                json!({"type": "turn_end", "executionId": "e1",
                "stopReason": "end_turn"}),
            ),
            line("x", 9, json!({"type": "brand_new_record"})),
        ];
        let sidecar = json!({"id": "sess_1", "title": "run false", "modelId": "auto",
            "workspacePaths": ["/w"], "createdAt": "2026-11-02T09:13:59.000Z"});
        let output = parse_records(&records, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "sess_1");
        assert_eq!(session.meta.cwd.as_deref(), Some("/w"));
        assert_eq!(session.meta.title.as_deref(), Some("run false"));
        assert_eq!(
            session.meta.model.as_deref(),
            Some("claude-opus-4.8"),
            "auto is no model: the reasoning's"
        );
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::Unknown,
            ]
        );
        let reasoning = &session.events[1];
        assert_eq!(reasoning.text, ENCRYPTED_REASONING);
        assert_eq!(reasoning.subtype.as_deref(), Some("encrypted"));
        assert_eq!(reasoning.model.as_deref(), Some("claude-opus-4.8"));
        let (shell, write) = (&session.events[3], &session.events[5]);
        assert_eq!(
            (
                shell.exit_code,
                shell.subtype.as_deref(),
                shell.tool_name.as_deref()
            ),
            (Some(1), Some("error"), Some("execute_bash"))
        );
        assert_eq!(
            (write.subtype.as_deref(), write.tool_name.as_deref()),
            (Some("error"), Some("fs_write"))
        );
        assert_eq!(session.events[6].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(session.events[0].key, "u1");
        assert!(session.events[0].starts_turn);
        assert_eq!(
            session.events[0].timestamp.map(|time| time.to_rfc3339()),
            Some("2026-11-02T09:14:01+00:00".to_string())
        );
        assert!(
            session.events.iter().all(|event| event.usage.is_none()),
            "credits are not tokens"
        );
    }

    #[test]
    fn sub_agents_summaries_and_stopped_turns() {
        let records = [
            line("u1", 1, json!({"type": "user", "content": "review it"})),
            line(
                "sa",
                2,
                json!({"type": "sub_agent_start", "subSessionId": "sess_child",
                "subAgentName": "reviewer", "prompt": "review src"}),
            ),
            line(
                "sc",
                3,
                json!({"type": "sub_agent_complete", "subSessionId": "sess_child",
                "response": "looks right"}),
            ),
            line(
                "tb",
                4,
                json!({"type": "tombstone", "kind": "summarization"}),
            ),
            line(
                "sm",
                5,
                json!({"type": "assistant", "operationType": "Summary",
                "content": "The user asked for a review."}),
            ),
            line(
                "te",
                6,
                json!({"type": "turn_end", "stopReason": "cancelled"}),
            ),
        ];
        let sidecar = json!({"parentSessionId": "sess_parent", "createdReason": "tangent",
            "rootPaths": ["/r"]});
        let output = parse_records(&records, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(
            session.native_id, "sess_fallback",
            "no id: the folder's name"
        );
        assert_eq!(session.meta.cwd.as_deref(), Some("/r"));
        assert_eq!(
            session.meta.forked_from_native_id.as_deref(),
            Some("sess_parent")
        );
        assert_eq!(session.meta.model, None);
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::Compaction,
                EventType::Runtime,
            ]
        );
        assert_eq!(session.events[1].tool_name.as_deref(), Some(SUBAGENT_TOOL));
        assert_eq!(
            session.events[2].tool_call_id.as_deref(),
            Some("sess_child")
        );
        assert_eq!(session.events[2].text, "looks right");
        assert_eq!(session.events[4].turn_end, Some(TurnEnd::Terminal));
    }

    #[test]
    fn sniffs_v3_records_but_not_codex_or_v2_ones() {
        let sniffed = |text: &str| sniff(&split_json_lines(text.as_bytes()).lines);
        assert!(sniffed(
            "{\"id\":\"1\",\"timestamp\":\"2026-11-02T09:14:00Z\",\"payload\":{\"type\":\"user\",\"content\":\"hi\"}}\n"
        ));
        assert!(!sniffed(
            "{\"timestamp\":\"2026-11-02T09:14:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\"}}\n"
        ));
        assert!(!sniffed(
            "{\"version\":\"v1\",\"kind\":\"Prompt\",\"data\":{\"content\":[]}}\n"
        ));
    }

    #[test]
    fn only_the_log_of_a_session_folder_is_a_log() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("0123456789abcdef").join("sess_1");
        std::fs::create_dir_all(folder.join("sub-executions")).expect("mkdir");
        for name in [MESSAGES_FILE, "sub-executions/x.json"] {
            std::fs::write(folder.join(name), "{}\n").expect("write");
        }
        std::fs::write(
            folder.join(SESSION_FILE),
            r#"{"id": "sess_1", "status": "idle", "lastModifiedAt": "2026-11-02T09:14:00Z"}"#,
        )
        .expect("write");
        assert!(!is_side_file(&folder.join(MESSAGES_FILE)));
        assert!(is_side_file(&folder.join(SESSION_FILE)));
        assert!(is_side_file(&folder.join("sub-executions/x.json")));
        assert!(!is_side_file(&dir.path().join("cli").join("x.json")));
        assert_eq!(
            read_sidecar(&folder.join(MESSAGES_FILE)),
            Some(json!({"id": "sess_1"})),
            "only what is read: a new status or time alone does not re-read the log"
        );
    }
}
