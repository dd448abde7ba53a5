//! Devin CLI (Cognition's `devin` terminal agent) sessions: one ATIF trajectory JSON per
//! session, `<data>/devin/cli/transcripts/<session id>.json`, read with the session's row of
//! `<data>/devin/cli/sessions.db` beside the folder. `<data>` is `$XDG_DATA_HOME` (default
//! `~/.local/share`) on Linux, `~/Library/Application Support` on macOS, `%APPDATA%` on Windows.
//!
//! A trajectory is ATIF (Agent Trajectory Interchange Format, Harbor's RFC 0001):
//! `{schema_version ("ATIF-v1.x"), session_id, agent {name, version, model_name, extra},
//! steps [...], final_metrics {total_prompt_tokens, total_completion_tokens,
//! total_cached_tokens, total_cost_usd, total_steps, extra}, notes, extra}`, each step
//! `{step_id, timestamp (ISO 8601), source (system | user | agent), model_name, message (a
//! string, or ContentPart objects `{type: text, text}` / `{type: image, ...}` from v1.6),
//! reasoning_content, tool_calls [{tool_call_id, function_name, arguments}], observation
//! {results [{source_call_id, content, subagent_trajectory_ref [{session_id,
//! trajectory_path}]}]}, metrics {prompt_tokens (cache hits included), completion_tokens,
//! cached_tokens, cost_usd, extra}, extra}`. Devin adds per-step `metadata` / `extra`
//! (`generation_model`, `created_at`, `is_user_input`, `committed_acu_cost`; older files keep
//! their token counts in `metadata.metrics {input_tokens, output_tokens, cache_read_tokens,
//! cache_creation_tokens}`).
//!
//! What is read, per step in file order:
//! - `user`: the prompt (opens a turn); a user step Devin marks `is_user_input: false` is
//!   context the CLI injected: `system`;
//! - `system`: its message as `system`;
//! - `agent`: `reasoning_content` as reasoning, `message` as the reply, each `tool_calls` entry
//!   a call (named by `function_name`, arguments `arguments`), and each `observation.results`
//!   entry a result paired to its call by `source_call_id` (ATIF records no error status; a
//!   result whose `extra` says `is_error: true` or a non-zero `exit_code` is failed). A result
//!   that names `subagent_trajectory_ref` sessions keeps their ids in its payload;
//! - `metrics` (else `metadata.metrics`) is the step's token usage, on its reply (else its first
//!   event); when no step has any, `final_metrics`' totals go on the last reply. Costs and
//!   Devin's ACU charges are not kept (esker has no cost column).
//!
//! Steps that are not objects, or whose `source` is none of the three, are skipped with a
//! counted warning. The file is rewritten whole, so a half-written one (invalid JSON) is held
//! back and read again once complete (`ingest::recognise_whole`); a changed file is re-read
//! whole, its events keyed by step position (`s<N>:...`) so an appended step adds only its own.
//!
//! `sessions.db` (times in epoch seconds) is opened read-only and immutable (`mode=ro&
//! immutable=1`: no lock taken, no `-wal`/`-shm` created; rows still only in its WAL are not
//! seen, and the trajectory's own facts are used then). Its `sessions` row gives the title,
//! `working_directory` (the cwd: ATIF has none), `model`, `created_at` (the start). The store's
//! `message_nodes` forest (the live conversation Devin keeps while a session runs; the
//! trajectory is written when the session ends) is not read: a running session appears once its
//! trajectory is written.
//!
//! Sources: the ATIF RFC (harbor-framework/harbor `rfcs/0001-trajectory-format.md`, read as the
//! mirror OpenAgentsInc/openagents `docs/atif/0001-trajectory-format.md`, v1.4, and the v1.5-v1.7
//! changes as public readers use them); kenn-io/agentsview `internal/parser/devin.go`,
//! `internal/parser/devin_test.go`, `docs/internal/session-format-sources.md` (the layout,
//! `transcripts/<id>.json`, the `sessions` columns, epoch seconds) and `README.md`;
//! getagentseal/codeburn `docs/providers/devin.md` and `tests/providers/devin.test.ts` (ATIF-v1.7,
//! Devin's `metadata`/`extra` step fields, legacy `metadata.metrics`); jazzyalex/agent-sessions
//! `AgentSessionsTests/DevinSqliteReaderTests.swift` (the `sessions` and `message_nodes` schema)
//! and `AgentSessions/DevinResume/DevinResumeCommandBuilder.swift` (`devin --resume <id>`);
//! entireio/external-agents#52 (the trajectory is written when a session ends);
//! rajbos/ai-engineering-fluency#1598 (`%APPDATA%\devin\cli\sessions.db` on Windows).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::content::{
    UNKNOWN_TOOL, arguments_of, block_text, epoch_time, mark_terminal_replies, plain_event,
    text_field, tool_call, tool_response, totals_carrier, usage_carrier,
};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The session index beside the `transcripts` folder.
pub const STORE_NAME: &str = "sessions.db";
/// The folder of trajectories under Devin's `cli` data folder.
pub const TRANSCRIPTS_FOLDER: &str = "transcripts";

/// An ATIF trajectory: a `session_id`, a `steps` array and an ATIF `schema_version` or the
/// `agent` object ATIF requires.
pub fn sniff(value: &Value) -> bool {
    let atif_version = value
        .get("schema_version")
        .and_then(Value::as_str)
        .is_some_and(|version| version.starts_with("ATIF"));
    value.get("session_id").is_some_and(Value::is_string)
        && value.get("steps").is_some_and(Value::is_array)
        && (atif_version || value.get("agent").is_some_and(Value::is_object))
}

/// Devin's `cli` data folders: `$XDG_DATA_HOME/devin/cli` (default `~/.local/share`),
/// `~/Library/Application Support/devin/cli` (macOS) and `%APPDATA%\devin\cli` (Windows, when
/// set).
pub fn cli_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let data_dirs = [
        Some(env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"))),
        Some(home.join("Library").join("Application Support")),
        env("APPDATA"),
    ];
    let mut folders: Vec<PathBuf> = Vec::new();
    for data_dir in data_dirs.into_iter().flatten() {
        let folder = data_dir.join("devin").join("cli");
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    folders
}

/// The trajectory folders esker walks: `transcripts` in each of [`cli_folders`].
pub fn transcript_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    cli_folders(home, env)
        .into_iter()
        .map(|folder| folder.join(TRANSCRIPTS_FOLDER))
        .collect()
}

/// The `sessions` row of the trajectory at `path` (`<cli>/transcripts/<id>.json`) from
/// `<cli>/sessions.db`, as `{"session": {column: value}}`; `None` when the store or the row is
/// missing or cannot be read.
pub fn read_sidecar(path: &Path) -> Option<Value> {
    let id = path.file_stem()?.to_str()?;
    let store = path.parent()?.parent()?.join(STORE_NAME);
    if !store.is_file() {
        return None;
    }
    let connection = open_immutable(&store).ok()?;
    let row = super::sqlite::row_as_object(&connection, "SELECT * FROM sessions WHERE id = ?1", id)
        .ok()?;
    Some(json!({ "session": row }))
}

/// Opens `store` read-only and immutable: SQLite takes no lock and writes no `-wal`/`-shm`, so
/// the running CLI is never blocked and its files are never changed.
fn open_immutable(store: &Path) -> rusqlite::Result<Connection> {
    let path = store
        .to_string_lossy()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23");
    let uri = format!("file:{path}?mode=ro&immutable=1");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags)
}

/// A non-negative count field of `value`.
fn count(value: &Value, name: &str) -> Option<i64> {
    value.get(name).and_then(Value::as_i64).filter(|n| *n >= 0)
}

/// A step's token usage: ATIF `metrics` (`prompt_tokens` includes `cached_tokens`), else
/// Devin's legacy `metadata.metrics` (Anthropic's split: input without the cache buckets).
fn step_usage(step: &Value) -> Option<TokenUsage> {
    if let Some(metrics) = step.get("metrics").filter(|metrics| metrics.is_object()) {
        let usage = TokenUsage {
            input: count(metrics, "prompt_tokens"),
            cached_input: count(metrics, "cached_tokens"),
            output: count(metrics, "completion_tokens"),
            reasoning: metrics
                .get("extra")
                .and_then(|extra| count(extra, "reasoning_tokens")),
            total: None,
        };
        if usage.input.is_some() || usage.output.is_some() || usage.cached_input.is_some() {
            return Some(usage.with_derived_total());
        }
    }
    let legacy = step.pointer("/metadata/metrics")?;
    let input = count(legacy, "input_tokens");
    let read = count(legacy, "cache_read_tokens");
    let written = count(legacy, "cache_creation_tokens");
    let output = count(legacy, "output_tokens");
    if input.is_none() && read.is_none() && written.is_none() && output.is_none() {
        return None;
    }
    let input = [input, read, written]
        .into_iter()
        .flatten()
        .reduce(|sum, part| sum + part);
    Some(
        TokenUsage {
            input,
            cached_input: read,
            output,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

/// `final_metrics`' totals as one usage.
fn final_usage(trajectory: &Value) -> Option<TokenUsage> {
    let totals = trajectory.get("final_metrics")?;
    let usage = TokenUsage {
        input: count(totals, "total_prompt_tokens"),
        cached_input: count(totals, "total_cached_tokens"),
        output: count(totals, "total_completion_tokens"),
        ..TokenUsage::default()
    };
    (usage.input.is_some() || usage.output.is_some()).then(|| usage.with_derived_total())
}

/// A field of a step, looked up in the step, then its `extra`, then its `metadata`.
fn step_field<'v>(step: &'v Value, name: &str) -> Option<&'v Value> {
    step.get(name)
        .or_else(|| step.get("extra").and_then(|extra| extra.get(name)))
        .or_else(|| step.get("metadata").and_then(|meta| meta.get(name)))
}

fn non_empty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// Tool names by call id, for the results.
    calls: HashMap<String, String>,
    default_model: Option<String>,
    first_model: Option<String>,
    any_step_usage: bool,
}

impl Parser {
    fn step(&mut self, index: usize, step: &Value) {
        let line = index as u64 + 1;
        if !step.is_object() {
            self.warn(line, "step is not an object");
            return;
        }
        let source = step.get("source").and_then(Value::as_str).unwrap_or("");
        let timestamp = step
            .get("timestamp")
            .and_then(parse_timestamp)
            .or_else(|| step_field(step, "created_at").and_then(parse_timestamp));
        let key = |part: &str| format!("s{line}:{part}");
        let text = step.get("message").map(block_text).unwrap_or_default();
        let first_event = self.events.len();
        match source {
            "user" => {
                let injected =
                    step_field(step, "is_user_input").and_then(Value::as_bool) == Some(false);
                if !text.trim().is_empty() {
                    let event = if injected {
                        plain_event(
                            key("system"),
                            EventType::System,
                            line,
                            timestamp,
                            text,
                            None,
                        )
                    } else {
                        RawEvent {
                            starts_turn: true,
                            ..plain_event(
                                key("prompt"),
                                EventType::UserInput,
                                line,
                                timestamp,
                                text,
                                None,
                            )
                        }
                    };
                    self.events.push(event);
                }
            }
            "system" => {
                if !text.trim().is_empty() {
                    self.events.push(plain_event(
                        key("system"),
                        EventType::System,
                        line,
                        timestamp,
                        text,
                        None,
                    ));
                }
            }
            "agent" => {
                let model = non_empty(step.get("model_name"))
                    .or_else(|| non_empty(step_field(step, "generation_model")))
                    .or_else(|| self.default_model.clone());
                if self.first_model.is_none() {
                    self.first_model.clone_from(&model);
                }
                if let Some(reasoning) = non_empty(step.get("reasoning_content")) {
                    self.events.push(RawEvent {
                        model: model.clone(),
                        originating_model: model.clone(),
                        ..plain_event(
                            key("reasoning"),
                            EventType::Reasoning,
                            line,
                            timestamp,
                            reasoning,
                            None,
                        )
                    });
                }
                if !text.trim().is_empty() {
                    self.events.push(RawEvent {
                        model: model.clone(),
                        originating_model: model.clone(),
                        ..plain_event(
                            key("reply"),
                            EventType::AssistantResponse,
                            line,
                            timestamp,
                            text,
                            None,
                        )
                    });
                }
                self.tool_calls(step, line, timestamp, model.as_deref());
            }
            other => {
                self.warn(line, &format!("unknown step source {other:?}"));
                return;
            }
        }
        self.observations(step, line, timestamp);
        if let Some(usage) = step_usage(step) {
            self.any_step_usage = true;
            if let Some(carrier) = usage_carrier(&self.events, first_event) {
                TokenUsage::attach(&mut self.events[carrier], usage);
            }
        }
    }

    fn tool_calls(
        &mut self,
        step: &Value,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        model: Option<&str>,
    ) {
        let Some(calls) = step.get("tool_calls").and_then(Value::as_array) else {
            return;
        };
        for (position, call) in calls.iter().enumerate() {
            let name =
                non_empty(call.get("function_name")).unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let id = text_field(call, "tool_call_id");
            if let Some(id) = &id {
                self.calls.insert(id.clone(), name.clone());
            }
            let mut event = tool_call(
                format!("s{line}:call{position}"),
                line,
                timestamp,
                &name,
                id.as_deref(),
                arguments_of(call.get("arguments")),
            );
            event.originating_model = model.map(str::to_string);
            self.events.push(event);
        }
    }

    fn observations(&mut self, step: &Value, line: u64, timestamp: Option<DateTime<Utc>>) {
        let Some(results) = step
            .pointer("/observation/results")
            .and_then(Value::as_array)
        else {
            return;
        };
        for (position, result) in results.iter().enumerate() {
            let call_id = text_field(result, "source_call_id");
            let name = call_id
                .as_ref()
                .and_then(|id| self.calls.get(id))
                .cloned()
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let text = result.get("content").map(block_text).unwrap_or_default();
            let extra = result.get("extra");
            let exit_code = extra
                .and_then(|extra| extra.get("exit_code"))
                .and_then(Value::as_i64);
            let failed = extra
                .and_then(|extra| extra.get("is_error"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
                || exit_code.is_some_and(|code| code != 0);
            let children: Vec<Value> = result
                .get("subagent_trajectory_ref")
                .and_then(Value::as_array)
                .map(|refs| {
                    refs.iter()
                        .filter_map(|child| child.get("session_id").cloned())
                        .collect()
                })
                .unwrap_or_default();
            let mut event = tool_response(
                format!("s{line}:result{position}"),
                line,
                timestamp,
                &name,
                call_id.as_deref(),
                text,
                failed,
            );
            event.exit_code = exit_code;
            if !children.is_empty() {
                event.payload = Some(json!({ "subagent_session_ids": children }));
            }
            self.events.push(event);
        }
    }

    fn warn(&mut self, line: u64, message: &str) {
        self.warnings.push(ParseWarning {
            line,
            message: format!("Devin trajectory step {line}: {message}, skipped"),
        });
    }
}

/// Parses one trajectory; `sidecar` is [`read_sidecar`]'s row of `sessions.db`.
pub fn parse(path: &Path, trajectory: &Value, sidecar: Option<&Value>) -> ParseOutput {
    let row = sidecar.and_then(|sidecar| sidecar.get("session"));
    let row_text = |name: &str| non_empty(row.and_then(|row| row.get(name)));
    let native_id = text_field(trajectory, "session_id").unwrap_or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let agent_model = non_empty(trajectory.pointer("/agent/model_name"));
    let mut parser = Parser {
        events: Vec::new(),
        warnings: Vec::new(),
        calls: HashMap::new(),
        default_model: agent_model.clone().or_else(|| row_text("model")),
        first_model: None,
        any_step_usage: false,
    };
    let steps: &[Value] = trajectory
        .get("steps")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, step) in steps.iter().enumerate() {
        parser.step(index, step);
    }
    if !parser.any_step_usage
        && let Some(usage) = final_usage(trajectory)
        && let Some(carrier) = totals_carrier(&parser.events)
    {
        TokenUsage::attach(&mut parser.events[carrier], usage);
    }
    mark_terminal_replies(&mut parser.events);
    let started_at = row
        .and_then(|row| row.get("created_at"))
        .and_then(Value::as_i64)
        .filter(|seconds| *seconds > 0)
        .and_then(|seconds| epoch_time(Some(seconds)))
        .or_else(|| parser.events.iter().find_map(|event| event.timestamp));
    let meta = SessionMeta {
        title: row_text("title"),
        cwd: row_text("working_directory"),
        model: row_text("model").or(agent_model).or(parser.first_model),
        harness_version: non_empty(trajectory.pointer("/agent/version")),
        started_at,
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Devin,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trajectory(steps: Value) -> Value {
        json!({
            "schema_version": "ATIF-v1.7",
            "session_id": "bald-ketch",
            "agent": {"name": "devin", "version": "3000.5.20", "model_name": "swe-1-7"},
            "steps": steps,
        })
    }

    fn kinds(output: &ParseOutput) -> Vec<(String, EventType)> {
        output.sessions[0]
            .events
            .iter()
            .map(|event| (event.key.clone(), event.kind))
            .collect()
    }

    #[test]
    fn sniffs_atif_trajectories_only() {
        assert!(sniff(&trajectory(json!([]))));
        assert!(sniff(&json!({"session_id": "x", "steps": [], "agent": {}})));
        assert!(!sniff(&json!({"session_id": "x", "steps": []})));
        assert!(!sniff(
            &json!({"session_id": "x", "messages": [], "agent": {}})
        ));
    }

    #[test]
    fn steps_become_prompts_replies_reasoning_calls_and_results() {
        let value = trajectory(json!([
            {"step_id": 1, "source": "system", "message": "You are Devin."},
            {"step_id": 2, "source": "user", "timestamp": "2026-08-01T10:00:00Z",
             "message": [{"type": "text", "text": "Fix the build"}, {"type": "image", "source": {}}]},
            {"step_id": 3, "source": "agent", "timestamp": "2026-08-01T10:00:05Z",
             "model_name": "claude-sonnet-4-6", "reasoning_content": "Look first.",
             "message": "Reading.",
             "tool_calls": [{"tool_call_id": "c1", "function_name": "exec", "arguments": {"command": "make"}}],
             "observation": {"results": [{"source_call_id": "c1", "content": "error: boom",
                                          "extra": {"exit_code": 2}}]},
             "metrics": {"prompt_tokens": 1000, "completion_tokens": 50, "cached_tokens": 800,
                         "extra": {"reasoning_tokens": 10}}},
            {"step_id": 4, "source": "user", "message": "<context/>", "metadata": {"is_user_input": false}},
            {"step_id": 5, "source": "agent", "message": "Fixed."},
        ]));
        let output = parse(Path::new("/t/bald-ketch.json"), &value, None);
        assert!(output.warnings.is_empty());
        assert_eq!(
            kinds(&output),
            [
                ("s1:system".to_string(), EventType::System),
                ("s2:prompt".to_string(), EventType::UserInput),
                ("s3:reasoning".to_string(), EventType::Reasoning),
                ("s3:reply".to_string(), EventType::AssistantResponse),
                ("s3:call0".to_string(), EventType::ToolCall),
                ("s3:result0".to_string(), EventType::ToolResponse),
                ("s4:system".to_string(), EventType::System),
                ("s5:reply".to_string(), EventType::AssistantResponse),
            ]
        );
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "bald-ketch");
        assert_eq!(session.events[1].text, "Fix the build");
        assert!(session.events[1].starts_turn);
        let result = &session.events[5];
        assert_eq!(result.tool_name.as_deref(), Some("exec"));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(result.exit_code, Some(2));
        assert_eq!(
            session.usage_carriers(),
            [(
                "s3:reply",
                TokenUsage {
                    input: Some(1000),
                    cached_input: Some(800),
                    output: Some(50),
                    reasoning: Some(10),
                    total: Some(1050),
                }
            )]
        );
        assert_eq!(
            session.events[3].model.as_deref(),
            Some("claude-sonnet-4-6")
        );
        assert_eq!(session.events[7].model.as_deref(), Some("swe-1-7"));
        assert_eq!(session.meta.model.as_deref(), Some("swe-1-7"));
        assert_eq!(session.meta.harness_version.as_deref(), Some("3000.5.20"));
        assert_eq!(
            session.events[7].turn_end,
            Some(crate::model::TurnEnd::Terminal)
        );
    }

    #[test]
    fn the_store_row_gives_title_cwd_model_and_start_in_seconds() {
        let value = trajectory(json!([{"step_id": 1, "source": "user", "message": "hi"}]));
        let sidecar = json!({"session": {"id": "bald-ketch", "title": "Fix the checks",
            "working_directory": "/w/p", "model": "glm-5-2", "created_at": 1_786_004_275}});
        let output = parse(Path::new("/t/bald-ketch.json"), &value, Some(&sidecar));
        let meta = &output.sessions[0].meta;
        assert_eq!(meta.title.as_deref(), Some("Fix the checks"));
        assert_eq!(meta.cwd.as_deref(), Some("/w/p"));
        assert_eq!(meta.model.as_deref(), Some("glm-5-2"));
        assert_eq!(
            meta.started_at,
            DateTime::from_timestamp(1_786_004_275, 0),
            "seconds, not milliseconds"
        );
    }

    #[test]
    fn malformed_steps_are_skipped_with_a_warning() {
        let value = trajectory(json!([
            "garbage",
            {"step_id": 2, "source": "robot", "message": "?"},
            {"step_id": 3, "source": "user", "message": "still read"},
        ]));
        let output = parse(Path::new("/t/x.json"), &value, None);
        assert_eq!(output.warnings.len(), 2);
        assert_eq!(output.warnings[0].line, 1);
        assert_eq!(
            kinds(&output),
            [("s3:prompt".to_string(), EventType::UserInput)]
        );
    }

    #[test]
    fn legacy_metrics_and_final_totals_are_token_usage() {
        let legacy = trajectory(json!([
            {"step_id": 1, "source": "agent", "message": "a",
             "metadata": {"metrics": {"input_tokens": 100, "output_tokens": 20,
                                      "cache_creation_tokens": 10, "cache_read_tokens": 5}}},
        ]));
        let output = parse(Path::new("/t/x.json"), &legacy, None);
        assert_eq!(
            output.sessions[0].events[0].usage,
            Some(TokenUsage {
                input: Some(115),
                cached_input: Some(5),
                output: Some(20),
                reasoning: None,
                total: Some(135),
            })
        );
        let mut totals = trajectory(json!([
            {"step_id": 1, "source": "user", "message": "q"},
            {"step_id": 2, "source": "agent", "message": "a"},
        ]));
        totals["final_metrics"] = json!({"total_prompt_tokens": 500, "total_completion_tokens": 40,
            "total_cached_tokens": 300, "total_cost_usd": 0.1});
        let output = parse(Path::new("/t/x.json"), &totals, None);
        assert_eq!(
            output.sessions[0].usage_carriers(),
            [(
                "s2:reply",
                TokenUsage {
                    input: Some(500),
                    cached_input: Some(300),
                    output: Some(40),
                    reasoning: None,
                    total: Some(540),
                }
            )]
        );
    }

    #[test]
    fn subagent_references_are_kept_on_the_result() {
        let value = trajectory(json!([
            {"step_id": 1, "source": "agent", "message": "",
             "tool_calls": [{"tool_call_id": "t", "function_name": "task", "arguments": {}}],
             "observation": {"results": [{"source_call_id": "t", "content": "done",
                 "subagent_trajectory_ref": [{"session_id": "child-1"}]}]}},
        ]));
        let output = parse(Path::new("/t/x.json"), &value, None);
        let result = &output.sessions[0].events[1];
        assert_eq!(result.tool_name.as_deref(), Some("task"));
        assert_eq!(
            result.payload,
            Some(json!({"subagent_session_ids": ["child-1"]}))
        );
    }

    #[test]
    fn the_store_is_read_immutably_and_left_untouched() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cli = dir.path().join("pro#ject %41").join("cli");
        std::fs::create_dir_all(cli.join(TRANSCRIPTS_FOLDER)).expect("mkdir");
        let store = cli.join(STORE_NAME);
        let owner = Connection::open(&store).expect("open");
        owner
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE sessions (id TEXT PRIMARY KEY, \
                 working_directory TEXT, model TEXT, created_at INTEGER, title TEXT); \
                 INSERT INTO sessions VALUES ('s1', '/w', 'm', 1786004275, 'T'); \
                 PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .expect("store");
        let before: Vec<_> = std::fs::read_dir(&cli)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        let sidecar = read_sidecar(&cli.join(TRANSCRIPTS_FOLDER).join("s1.json")).expect("row");
        assert_eq!(sidecar["session"]["working_directory"], "/w");
        assert!(read_sidecar(&cli.join(TRANSCRIPTS_FOLDER).join("s2.json")).is_none());
        let after: Vec<_> = std::fs::read_dir(&cli)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(before, after);
        owner
            .execute("INSERT INTO sessions (id) VALUES ('s3')", [])
            .expect("the owner still writes");
    }

    #[test]
    fn folders_follow_the_data_directory() {
        let env = |name: &str| match name {
            "XDG_DATA_HOME" => Some(PathBuf::from("/data")),
            "APPDATA" => Some(PathBuf::from("/c/AppData/Roaming")),
            _ => None,
        };
        assert_eq!(
            transcript_folders(Path::new("/h"), &env),
            [
                PathBuf::from("/data/devin/cli/transcripts"),
                PathBuf::from("/h/Library/Application Support/devin/cli/transcripts"),
                PathBuf::from("/c/AppData/Roaming/devin/cli/transcripts"),
            ]
        );
    }
}
