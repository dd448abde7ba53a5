//! Kiro CLI session files (its v2 agent engine): `~/.kiro/sessions/cli/<session id>.jsonl`,
//! with the session's metadata in `<session id>.json` beside it.
//!
//! Each line is an envelope `{version: "v1", kind, data: {message_id, content: [...]}}`:
//! - `Prompt`: the user's words, `content` blocks `{kind: text, data}`, the time in
//!   `data.meta.timestamp` (epoch seconds);
//! - `AssistantMessage`: `text` blocks (the reply) and `toolUse` blocks
//!   `{toolUseId, name, input}` (no time of its own);
//! - `ToolResults`: `toolResult` blocks `{toolUseId, content: [{kind: text|json, data}],
//!   status}`, and `data.results` by call id (`result: "Cancelled"` for a call the user
//!   stopped). `status` is the tool harness's verdict (`error` for rejected input and cancelled
//!   calls); a shell command's own exit code is in its JSON output (`exit_status: "exit status:
//!   N"`), so a non-zero one fails the call too;
//! - `Clear` (`/clear` continues the same file).
//!
//! The metadata file gives the session id, `cwd`, `title`, `created_at` and
//! `session_state`: the model (`rts_model_state.model_info.model_id`; `auto` means none was
//! pinned) and per-turn counters (`conversation_metadata.user_turn_metadatas[]`
//! `input_token_count`/`output_token_count`, which Kiro 2.5 and later leave at zero: read as
//! the session's totals only when not zero; credits are not tokens and are not read).
//!
//! Sources: real sessions recorded from live Kiro CLI 2.5 to 2.6 in `ingo-eichhorst/Irrlicht`
//! `replaydata/agents/kiro-cli` (MIT; some are this reader's test data) and its parser
//! (`core/adapters/inbound/agents/kirocli/parser.go`, which documents `status` and
//! cancellation); agentsview's `internal/parser/kiro.go`; an aws-bench Kiro agent that reads
//! all three stores. Kiro CLI's legacy SQLite store is `ingest::kiro_db`; its v3 (KAS) engine's
//! `~/.kiro/sessions/<workspace>/sess_<id>/` folders are `ingest::kiro_v3`'s.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, epoch_time, mark_terminal_replies, plain_event, text_field, tool_call,
    tool_response, totals_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The envelope kinds Kiro writes.
const KINDS: [&str; 4] = ["Prompt", "AssistantMessage", "ToolResults", "Clear"];

/// The model id Kiro records when no model was pinned.
const AUTO_MODEL: &str = "auto";

/// A Kiro CLI session file: an envelope with a `version`, a known `kind` and a `data` object.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(3).any(|line| {
        let record = &line.value;
        record.get("version").is_some_and(Value::is_string)
            && record
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|kind| KINDS.contains(&kind))
            && record.get("data").is_some_and(Value::is_object)
    })
}

/// A session's metadata file: `<id>.json` in a `sessions/cli` folder with `<id>.jsonl` beside
/// it (read with its session, never as a log of its own).
pub fn is_metadata_path(path: &Path) -> bool {
    let in_sessions_cli = path.parent().is_some_and(|folder| {
        folder.file_name() == Some("cli".as_ref())
            && folder.parent().and_then(Path::file_name) == Some("sessions".as_ref())
    });
    in_sessions_cli
        && path.extension() == Some("json".as_ref())
        && path.with_extension("jsonl").is_file()
}

/// `<session id>.json` beside a session file.
pub fn read_metadata(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path.with_extension("json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Parses one session file, with its metadata file when there is one.
pub fn parse(path: &Path, lines: &[JsonLine], metadata: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    mark_terminal_replies(&mut parser.events);
    let mut meta = SessionMeta::default();
    let mut native_id = None;
    if let Some(metadata) = metadata {
        native_id = text_field(metadata, "session_id");
        meta.cwd = text_field(metadata, "cwd");
        meta.title = text_field(metadata, "title");
        meta.started_at = metadata.get("created_at").and_then(parse_timestamp);
        meta.model = metadata
            .pointer("/session_state/rts_model_state/model_info/model_id")
            .and_then(Value::as_str)
            .filter(|model| is_pinned_model(model))
            .map(str::to_string);
        if let Some(usage) = turn_totals(metadata)
            && let Some(carrier) = totals_carrier(&parser.events)
        {
            TokenUsage::attach(&mut parser.events[carrier], usage);
        }
    }
    let native_id = native_id.unwrap_or_else(|| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
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
        // Lines that are not JSON are counted by the line splitter; unknown kinds are kept.
        warnings: Vec::new(),
    }
}

/// The sum of the turns' token counters, when any is not zero.
fn turn_totals(metadata: &Value) -> Option<TokenUsage> {
    let turns = metadata
        .pointer("/session_state/conversation_metadata/user_turn_metadatas")?
        .as_array()?;
    let sum = |field: &str| {
        turns
            .iter()
            .filter_map(|turn| turn.get(field).and_then(Value::as_i64))
            .sum::<i64>()
    };
    let (input, output) = (sum("input_token_count"), sum("output_token_count"));
    (input > 0 || output > 0).then(|| {
        TokenUsage {
            input: Some(input),
            output: Some(output),
            ..TokenUsage::default()
        }
        .with_derived_total()
    })
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    /// The time of the latest prompt (assistant messages and results carry none).
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        let data = record.get("data").unwrap_or(&Value::Null);
        let base =
            text_field(data, "message_id").unwrap_or_else(|| format!("line.{}", line.number));
        let blocks: &[Value] = data
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        match record.get("kind").and_then(Value::as_str).unwrap_or("") {
            "Prompt" => {
                if let Some(time) = data.pointer("/meta/timestamp").and_then(Value::as_i64) {
                    self.time = epoch_time(Some(time));
                }
                let text = texts(blocks);
                if !text.trim().is_empty() {
                    let mut event = plain_event(
                        base,
                        EventType::UserInput,
                        line.number,
                        self.time,
                        text,
                        None,
                    );
                    event.starts_turn = true;
                    self.events.push(event);
                }
            }
            "AssistantMessage" => self.assistant(&base, line.number, blocks),
            "ToolResults" => self.results(&base, line.number, blocks, data.get("results")),
            "Clear" => self.events.push(plain_event(
                base,
                EventType::System,
                line.number,
                self.time,
                "/clear".to_string(),
                Some("clear"),
            )),
            other => {
                let subtype = if other.is_empty() { "untyped" } else { other };
                let mut event = plain_event(
                    base,
                    EventType::Unknown,
                    line.number,
                    self.time,
                    String::new(),
                    Some(subtype),
                );
                event.payload = Some(record.clone());
                self.events.push(event);
            }
        }
    }

    fn assistant(&mut self, base: &str, line: u64, blocks: &[Value]) {
        let text = texts(blocks);
        if !text.trim().is_empty() {
            let key = format!("{base}.text");
            self.events.push(plain_event(
                key,
                EventType::AssistantResponse,
                line,
                self.time,
                text,
                None,
            ));
        }
        for block in blocks_of(blocks, "toolUse") {
            let name = text_field(block, "name").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let call_id = text_field(block, "toolUseId");
            let key = format!("{base}.{}", call_id.as_deref().unwrap_or(&name));
            let input = block.get("input").cloned().unwrap_or(Value::Null);
            self.events.push(tool_call(
                key,
                line,
                self.time,
                &name,
                call_id.as_deref(),
                input,
            ));
            if let Some(call_id) = call_id {
                self.calls.insert(call_id, name);
            }
        }
    }

    fn results(&mut self, base: &str, line: u64, blocks: &[Value], details: Option<&Value>) {
        for (index, block) in blocks_of(blocks, "toolResult").enumerate() {
            let call_id = text_field(block, "toolUseId");
            let name = call_id
                .as_ref()
                .and_then(|id| self.calls.get(id).cloned())
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let parts: &[Value] = block
                .get("content")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let exit_code = parts.iter().find_map(shell_exit_code);
            let cancelled = call_id
                .as_deref()
                .and_then(|id| details?.get(id)?.get("result")?.as_str())
                == Some("Cancelled");
            let status = block
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("success");
            let failed =
                status != "success" || cancelled || exit_code.is_some_and(|code| code != 0);
            let key = format!(
                "{base}.{}",
                call_id.clone().unwrap_or_else(|| index.to_string())
            );
            let mut event = tool_response(
                key,
                line,
                self.time,
                &name,
                call_id.as_deref(),
                result_text(parts),
                failed,
            );
            event.exit_code = exit_code;
            self.events.push(event);
        }
    }
}

/// The blocks of `kind`, their `data`.
fn blocks_of<'b>(blocks: &'b [Value], kind: &'b str) -> impl Iterator<Item = &'b Value> {
    blocks
        .iter()
        .filter(move |block| block.get("kind").and_then(Value::as_str) == Some(kind))
        .filter_map(|block| block.get("data"))
}

/// The `text` blocks' words, joined by blank lines.
fn texts(blocks: &[Value]) -> String {
    blocks_of(blocks, "text")
        .filter_map(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A result's text: text parts as they are, JSON parts as JSON text.
fn result_text(parts: &[Value]) -> String {
    parts
        .iter()
        .map(
            |part| match (part.get("kind").and_then(Value::as_str), part.get("data")) {
                (Some("text"), Some(Value::String(text))) => text.clone(),
                (_, Some(data)) => data.to_string(),
                (_, None) => part.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// The exit code of a shell result's JSON part: `exit_status: "exit status: N"`.
/// Whether a model id names a model: Kiro CLI (every engine) and Amazon Q write `auto` when
/// none was pinned.
pub(crate) fn is_pinned_model(model: &str) -> bool {
    !model.is_empty() && model != AUTO_MODEL
}

fn shell_exit_code(part: &Value) -> Option<i64> {
    let status = part.pointer("/data/exit_status")?.as_str()?;
    status.rsplit(':').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;
    use serde_json::json;

    fn parse_records(records: &[Value], metadata: Option<&Value>) -> ParseOutput {
        let text: String = records.iter().map(|record| format!("{record}\n")).collect();
        let split = split_json_lines(text.as_bytes());
        parse(
            Path::new("/h/.kiro/sessions/cli/s1.jsonl"),
            &split.lines,
            metadata,
        )
    }

    fn envelope(kind: &str, data: Value) -> Value {
        json!({"version": "v1", "kind": kind, "data": data})
    }

    #[test]
    fn reads_prompts_calls_results_and_replies() {
        let records = [
            envelope(
                "Prompt",
                json!({"message_id": "p1", "meta": {"timestamp": 1_787_363_522},
                "content": [{"kind": "text", "data": "run false"}]}),
            ),
            envelope(
                "AssistantMessage",
                json!({"message_id": "a1", "content": [
                {"kind": "text", "data": ""},
                {"kind": "toolUse", "data": {"toolUseId": "t1", "name": "shell",
                    "input": {"command": "false"}}},
                {"kind": "toolUse", "data": {"toolUseId": "t2", "name": "read",
                    "input": {"path": "x"}}}]}),
            ),
            envelope(
                "ToolResults",
                json!({"message_id": "r1", "content": [
                {"kind": "toolResult", "data": {"toolUseId": "t1", "status": "success",
                    "content": [{"kind": "json", "data": {"exit_status": "exit status: 1",
                        "stdout": "", "stderr": ""}}]}},
                {"kind": "toolResult", "data": {"toolUseId": "t2", "status": "error",
                    "content": [{"kind": "text", "data": "Tool use was cancelled by the user"}]}}],
                "results": {"t2": {"result": "Cancelled"}}}),
            ),
            envelope(
                "AssistantMessage",
                json!({"message_id": "a2",
                "content": [{"kind": "text", "data": "it failed"}]}),
            ),
            envelope("Clear", json!({})),
        ];
        let metadata = json!({"session_id": "sess-1", "cwd": "/w", "title": "run false",
            "created_at": "2026-08-22T01:52:02.394163Z",
            "session_state": {"rts_model_state": {"model_info": {"model_id": "auto"}},
                "conversation_metadata": {"user_turn_metadatas": [
                    {"input_token_count": 0, "output_token_count": 0}]}}});
        let output = parse_records(&records, Some(&metadata));
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "sess-1");
        assert_eq!(session.meta.cwd.as_deref(), Some("/w"));
        assert_eq!(session.meta.model, None, "auto is no model");
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::System,
            ]
        );
        let (shell, read) = (&session.events[3], &session.events[4]);
        assert_eq!(
            (shell.exit_code, shell.subtype.as_deref()),
            (Some(1), Some("error"))
        );
        assert_eq!(shell.tool_name.as_deref(), Some("shell"));
        assert_eq!(read.subtype.as_deref(), Some("error"));
        assert_eq!(read.tool_name.as_deref(), Some("read"));
        assert!(
            session.events.iter().all(|event| event.usage.is_none()),
            "zero counters"
        );
        assert_eq!(
            session.events[0].timestamp.map(|time| time.timestamp()),
            Some(1_787_363_522)
        );
    }

    #[test]
    fn counters_that_are_set_are_the_session_totals() {
        let records = [
            envelope(
                "Prompt",
                json!({"content": [{"kind": "text", "data": "hi"}]}),
            ),
            envelope(
                "AssistantMessage",
                json!({"content": [{"kind": "text", "data": "hello"}]}),
            ),
        ];
        let metadata = json!({"session_state": {"conversation_metadata": {"user_turn_metadatas": [
            {"input_token_count": 120, "output_token_count": 8}]}}});
        let output = parse_records(&records, Some(&metadata));
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "s1", "no metadata id: the file's name");
        assert_eq!(
            session.events[1].usage.and_then(|usage| usage.input),
            Some(120)
        );
        assert_eq!(session.events[0].key, "line.1");
    }
}
