//! Kimi Code (0.28+, `$KIMI_CODE_HOME`, default `~/.kimi-code`): one grouped session per
//! `sessions/<workDirKey>/<sessionId>/` folder holding `state.json` (`title`, `workDir`,
//! `createdAt`, `updatedAt`) and one `agents/<agentId>/wire.jsonl` per agent. The main agent
//! (`main`, else the one that started first) is the session; every other agent is a sub-agent
//! session `<sessionId>-<agentId>` whose parent is the session. Wire records are
//! `{type, time (RFC 3339), …}`: `turn.prompt{input}` (the prompt; its echo as a user
//! `context.append_message` is skipped), `context.append_message{message{role, content}}`
//! (other user-role messages are injected context: `system`), `context.append_loop_event{event}`
//! with `content.part{part{type: text|think, text}}`, `tool.call{name, toolCallId, args}` and
//! `tool.result{toolCallId, result{output, error}}`, and `usage.record` (`input_tokens`,
//! `output_tokens`, cache reads as `cached_input_tokens` or `cache_read_tokens`, flat or under
//! `usage`). The format is read as the public parsers describe it (cass `kimi.rs`); no real file
//! was available.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, block_text, mark_terminal_replies, plain_event, text_field,
    tool_call, tool_response,
};
use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The agent whose wire is the session itself.
const MAIN_AGENT: &str = "main";

/// The session folder a file belongs to: `<folder>/state.json` of a folder with `agents/`, or
/// `<folder>/agents/<agentId>/wire.jsonl`.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    match name {
        "wire.jsonl" => {
            let agents = path.parent()?.parent()?;
            (agents.file_name()? == "agents")
                .then(|| agents.parent())
                .flatten()
                .map(Path::to_path_buf)
        }
        "state.json" => {
            let folder = path.parent()?;
            folder.join("agents").is_dir().then(|| folder.to_path_buf())
        }
        _ => None,
    }
}

/// The agents' wire logs of a session folder, by agent id, in order.
pub fn wires(folder: &Path) -> Vec<(String, PathBuf)> {
    let mut wires: Vec<(String, PathBuf)> = fs::read_dir(folder.join("agents"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| {
            let id = entry.file_name().to_string_lossy().into_owned();
            (id, entry.path().join("wire.jsonl"))
        })
        .filter(|(_, wire)| wire.is_file())
        .collect();
    wires.sort();
    wires
}

/// Every file of a session folder: `state.json` and the agents' wires.
pub fn members(folder: &Path) -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = wires(folder).into_iter().map(|(_, wire)| wire).collect();
    let state = folder.join("state.json");
    if state.is_file() {
        members.push(state);
    }
    members
}

/// A Kimi Code wire log: records with a dotted `type` and a `time`.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(8).any(|line| {
        line.value
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| {
                kind.starts_with("turn.")
                    || kind.starts_with("context.")
                    || kind.starts_with("llm.")
                    || kind == "usage.record"
            })
            && line.value.get("time").is_some()
    })
}

/// The session's `state.json`: title, working directory, creation time.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub created: Option<chrono::DateTime<chrono::Utc>>,
}

pub fn state_of(folder: &Path) -> State {
    let state: Value = fs::read(folder.join("state.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null);
    State {
        title: text_field(&state, "title"),
        cwd: text_field(&state, "workDir").or_else(|| text_field(&state, "work_dir")),
        created: state.get("createdAt").and_then(parse_timestamp),
    }
}

/// Parses the agents of session `session_id`: `(agent id, wire records)` each.
pub fn parse(
    session_id: &str,
    agents: &[(String, Vec<JsonLine>)],
    state: &State,
) -> (Vec<ParsedSession>, Vec<ParseWarning>) {
    let mut parsed: Vec<(String, Vec<RawEvent>)> = agents
        .iter()
        .map(|(agent, lines)| (agent.clone(), parse_wire(lines)))
        .collect();
    let main = main_agent(&parsed);
    let mut sessions = Vec::new();
    for (agent, events) in parsed.drain(..) {
        let is_main = Some(agent.as_str()) == main.as_deref();
        let meta = SessionMeta {
            title: state.title.clone().filter(|_| is_main),
            cwd: state.cwd.clone(),
            started_at: state.created.filter(|_| is_main),
            parent_native_id: (!is_main).then(|| session_id.to_string()),
            agent_name: (!is_main).then(|| agent.clone()),
            ..SessionMeta::default()
        };
        sessions.push(ParsedSession {
            source: Source::Kimi,
            native_id: if is_main {
                session_id.to_string()
            } else {
                format!("{session_id}-{agent}")
            },
            meta,
            events,
        });
    }
    (sessions, Vec::new())
}

/// `main` when there is such an agent, else the agent whose first event is earliest.
fn main_agent(agents: &[(String, Vec<RawEvent>)]) -> Option<String> {
    if agents.iter().any(|(agent, _)| agent == MAIN_AGENT) {
        return Some(MAIN_AGENT.to_string());
    }
    agents
        .iter()
        .min_by_key(|(_, events)| events.iter().find_map(|event| event.timestamp))
        .map(|(agent, _)| agent.clone())
}

/// One agent's wire records as events.
fn parse_wire(lines: &[JsonLine]) -> Vec<RawEvent> {
    let mut events: Vec<RawEvent> = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut last_prompt: Option<String> = None;
    for line in lines {
        let record = &line.value;
        let key = format!("w{}", line.number);
        let time = record.get("time").and_then(parse_timestamp);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let event = match kind {
            "turn.prompt" => {
                let text = block_text(record.get("input").unwrap_or(&Value::Null));
                if text.trim().is_empty() {
                    continue;
                }
                last_prompt = Some(text.trim().to_string());
                let mut event =
                    plain_event(key, EventType::UserInput, line.number, time, text, None);
                event.starts_turn = true;
                event
            }
            "context.append_message" => {
                let message = record.get("message").unwrap_or(&Value::Null);
                let role = message.get("role").and_then(Value::as_str).unwrap_or("");
                let text = block_text(message.get("content").unwrap_or(&Value::Null));
                if text.trim().is_empty() {
                    continue;
                }
                match role {
                    "user" | "human" if last_prompt.as_deref() == Some(text.trim()) => {
                        last_prompt = None;
                        continue;
                    }
                    "assistant" => plain_event(
                        key,
                        EventType::AssistantResponse,
                        line.number,
                        time,
                        text,
                        None,
                    ),
                    _ => plain_event(key, EventType::System, line.number, time, text, Some(role)),
                }
            }
            "context.append_loop_event" => {
                let Some(event) = loop_event(key, line.number, time, record, &mut names) else {
                    continue;
                };
                event
            }
            "usage.record" => {
                attach_usage(&mut events, record);
                continue;
            }
            _ => continue,
        };
        events.push(event);
    }
    mark_terminal_replies(&mut events);
    events
}

/// A loop event: a content part, a tool call or a tool result.
fn loop_event(
    key: String,
    line: u64,
    time: Option<chrono::DateTime<chrono::Utc>>,
    record: &Value,
    names: &mut HashMap<String, String>,
) -> Option<RawEvent> {
    let event = record.get("event")?;
    match event.get("type").and_then(Value::as_str)? {
        "content.part" => {
            let part = event.get("part")?;
            let think = part.get("type").and_then(Value::as_str) == Some("think");
            let text = text_field(part, "text").or_else(|| text_field(part, "think"))?;
            let kind = if think {
                EventType::Reasoning
            } else {
                EventType::AssistantResponse
            };
            Some(plain_event(key, kind, line, time, text, None))
        }
        "tool.call" => {
            let name = text_field(event, "name").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let call_id = text_field(event, "toolCallId");
            if let Some(id) = &call_id {
                names.insert(id.clone(), name.clone());
            }
            let arguments = arguments_of(event.get("args"));
            Some(tool_call(
                key,
                line,
                time,
                &name,
                call_id.as_deref(),
                arguments,
            ))
        }
        "tool.result" => {
            let call_id = text_field(event, "toolCallId");
            let name = call_id
                .as_ref()
                .and_then(|id| names.get(id).cloned())
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let result = event.get("result").unwrap_or(&Value::Null);
            let error = result.get("error").filter(|error| !error.is_null());
            let text = match (result.get("output"), error) {
                (_, Some(error)) => text_or_json(error),
                (Some(output), None) => block_text(output),
                (None, None) => block_text(result),
            };
            Some(tool_response(
                key,
                line,
                time,
                &name,
                call_id.as_deref(),
                text,
                error.is_some(),
            ))
        }
        _ => None,
    }
}

/// The readable text of a value, else the value as JSON.
fn text_or_json(value: &Value) -> String {
    let text = block_text(value);
    if text.is_empty() {
        value.to_string()
    } else {
        text
    }
}

/// A `usage.record`'s tokens on the agent's latest model event.
fn attach_usage(events: &mut [RawEvent], record: &Value) {
    let block = record.get("usage").unwrap_or(record);
    let count = |name: &str| {
        block
            .get(name)
            .or_else(|| block.pointer(&format!("/tokens/{name}")))
            .and_then(Value::as_i64)
    };
    let (input, output) = (count("input_tokens"), count("output_tokens"));
    if input.is_none() && output.is_none() {
        return;
    }
    let usage = TokenUsage {
        input,
        cached_input: count("cached_input_tokens").or_else(|| count("cache_read_tokens")),
        output,
        ..TokenUsage::default()
    }
    .with_derived_total();
    let carrier = events.iter().rposition(|event| {
        matches!(
            event.kind,
            EventType::AssistantResponse | EventType::Reasoning | EventType::ToolCall
        )
    });
    if let Some(index) = carrier.or_else(|| events.len().checked_sub(1)) {
        TokenUsage::attach(&mut events[index], usage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::numbered_lines;
    use crate::model::TurnEnd;
    use serde_json::json;

    #[test]
    fn prompts_parts_tools_failures_usage_and_sub_agents() {
        let main = numbered_lines(&[
            json!({"type": "turn.prompt", "time": "2026-02-14T09:00:00Z", "input": "list the ibis logs"}),
            json!({"type": "context.append_message", "time": "2026-02-14T09:00:00Z",
                "message": {"role": "user", "content": "list the ibis logs"}}),
            json!({"type": "context.append_message", "time": "2026-02-14T09:00:00Z",
                "message": {"role": "user", "content": "<system-reminder>cwd is /srv/ibis</system-reminder>"}}),
            json!({"type": "context.append_loop_event", "time": "2026-02-14T09:00:01Z",
                "event": {"type": "content.part", "part": {"type": "think", "text": "Use ls."}}}),
            json!({"type": "context.append_loop_event", "time": "2026-02-14T09:00:02Z",
                "event": {"type": "tool.call", "name": "Shell", "toolCallId": "call_ibis_1",
                    "args": {"command": "ls logs"}}}),
            json!({"type": "context.append_loop_event", "time": "2026-02-14T09:00:03Z",
                "event": {"type": "tool.result", "toolCallId": "call_ibis_1",
                    "result": {"output": "", "error": "ls: logs: No such file"}}}),
            json!({"type": "context.append_loop_event", "time": "2026-02-14T09:00:04Z",
                "event": {"type": "content.part", "part": {"type": "text", "text": "There is no logs folder."}}}),
            json!({"type": "usage.record", "time": "2026-02-14T09:00:04Z",
                "usage": {"input_tokens": 1500, "output_tokens": 60, "cache_read_tokens": 1000}}),
        ]);
        let helper = numbered_lines(&[json!({"type": "turn.prompt",
            "time": "2026-02-14T09:00:02Z", "input": [{"type": "text", "text": "search ibis"}]})]);
        let state = State {
            title: Some("Ibis logs".into()),
            cwd: Some("/srv/ibis".into()),
            created: None,
        };
        let agents = vec![
            ("main".to_string(), main),
            ("explore-1".to_string(), helper),
        ];
        let (sessions, _) = parse("sess-ibis", &agents, &state);
        let main = sessions
            .iter()
            .find(|s| s.native_id == "sess-ibis")
            .expect("main");
        let kinds: Vec<EventType> = main.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::UserInput,
                EventType::System,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ],
            "the prompt's echo is skipped; injected context is system"
        );
        assert_eq!(main.events[4].tool_name.as_deref(), Some("Shell"));
        assert_eq!(main.events[4].subtype.as_deref(), Some("error"));
        assert_eq!(main.events[4].text, "ls: logs: No such file");
        assert_eq!(main.events[5].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(main.usage_carriers()[0].1.total, Some(1560));
        assert_eq!(main.meta.title.as_deref(), Some("Ibis logs"));
        let helper = sessions
            .iter()
            .find(|s| s.native_id == "sess-ibis-explore-1")
            .expect("sub-agent");
        assert_eq!(helper.meta.parent_native_id.as_deref(), Some("sess-ibis"));
        assert_eq!(helper.events[0].text, "search ibis");
    }

    #[test]
    fn members_are_the_state_and_agent_wires() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("sessions/wd/sess-1");
        fs::create_dir_all(folder.join("agents/main")).expect("mkdir");
        fs::write(folder.join("agents/main/wire.jsonl"), "").expect("wire");
        fs::write(folder.join("state.json"), "{}").expect("state");
        assert_eq!(
            key_of(&folder.join("agents/main/wire.jsonl")),
            Some(folder.clone())
        );
        assert_eq!(key_of(&folder.join("state.json")), Some(folder.clone()));
        assert_eq!(key_of(&dir.path().join("state.json")), None);
        assert_eq!(members(&folder).len(), 2);
    }
}
