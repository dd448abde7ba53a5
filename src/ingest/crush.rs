//! Crush (charmbracelet): a SQLite store per project, `<project>/.crush/crush.db` (also
//! `~/.crush/crush.db`), read through `ingest::sqlite`. Tables `sessions(id, parent_session_id,
//! title, prompt_tokens, completion_tokens, created_at, updated_at, …)` (columns grow by version:
//! read by name) and `messages(id, session_id, role, parts, model, provider, created_at, …)`,
//! `parts` being `[{type, data}]` of `text`, `reasoning`, `tool_call{id, name, input}`,
//! `tool_result{tool_call_id, name, content, is_error}`, `finish{reason, message, details}`,
//! `image_url`, `binary`. Times are epoch seconds (the schema says milliseconds; both are read).
//! A sub-agent (`agent` tool) is a session with `parent_session_id`. Crush keeps token counts per
//! session only: they are put on the session's last reply.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, epoch_time, plain_event, text_field, tool_call, tool_response,
    totals_carrier,
};
use crate::ingest::sqlite::{self, row_as_object, table_names};
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage, TurnEnd,
};

/// Titles Crush gives a session before it names it: the first prompt is a better title.
const DEFAULT_TITLES: [&str; 3] = ["New Session", "New Agent Session", "Generate a title"];

/// One session's row (by column name), its messages and the project the store belongs to.
#[derive(Debug, Clone)]
pub struct CrushSession {
    pub id: String,
    pub info: Map<String, Value>,
    pub messages: Vec<CrushMessage>,
    /// The directory holding `.crush/` (the session's working directory when the row has none).
    pub project: Option<String>,
}

#[derive(Debug, Clone)]
pub struct CrushMessage {
    pub id: String,
    pub role: String,
    pub parts: Value,
    pub model: Option<String>,
    pub created: Option<i64>,
}

/// A database file named like Crush's.
pub fn is_store_name(name: &str) -> bool {
    name == "crush.db"
}

/// Crush's tables: `sessions`, and `messages` with `parts`.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    if !["sessions", "messages"]
        .iter()
        .all(|table| tables.iter().any(|name| name == table))
    {
        return Ok(false);
    }
    let probe = connection.prepare(include_str!("../../queries/crush_messages_probe.sql"));
    Ok(probe.is_ok())
}

/// Every session id with the stamp of its rows.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../queries/crush_session_stamps.sql"),
    )
}

/// The project a store at `database` belongs to: the parent of its `.crush` directory.
pub fn project_of(database: &Path) -> Option<String> {
    let directory = database.parent()?;
    (directory.file_name()? == ".crush")
        .then(|| directory.parent())
        .flatten()
        .map(|project| project.to_string_lossy().into_owned())
}

/// One session's row and messages.
pub fn read_session(
    connection: &Connection,
    id: &str,
    database: &Path,
) -> rusqlite::Result<CrushSession> {
    let info = row_as_object(
        connection,
        include_str!("../../queries/crush_session.sql"),
        id,
    )?;
    let messages = sqlite::rows_of(
        connection,
        include_str!("../../queries/crush_messages.sql"),
        id,
        |row| {
            Ok(CrushMessage {
                id: row.get(0)?,
                role: row.get(1)?,
                parts: sqlite::json_column(row, 2)?,
                model: row
                    .get::<_, Option<String>>(3)?
                    .filter(|model| !model.is_empty()),
                created: row.get(4)?,
            })
        },
    )?;
    Ok(CrushSession {
        id: id.to_string(),
        info,
        messages,
        project: project_of(database),
    })
}

/// Parses one session.
pub fn parse(session: &CrushSession) -> ParseOutput {
    let mut parser = Parser::default();
    for (index, message) in session.messages.iter().enumerate() {
        parser.message(index as u64 + 1, message);
    }
    let mut events = parser.events;
    attach_session_usage(&session.info, &mut events);
    let info = Value::Object(session.info.clone());
    let field = |name: &str| text_field(&info, name);
    let meta = SessionMeta {
        title: field("title").filter(|title| !DEFAULT_TITLES.contains(&title.as_str())),
        cwd: field("workspace_cwd").or_else(|| session.project.clone()),
        parent_native_id: field("parent_session_id"),
        started_at: epoch_time(session.info.get("created_at").and_then(Value::as_i64)),
        model: parser.first_model,
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Crush,
            native_id: session.id.clone(),
            meta,
            events,
        }],
        warnings: parser.warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<crate::model::ParseWarning>,
    /// Tool names by call id (results often leave their name empty).
    calls: HashMap<String, String>,
    first_model: Option<String>,
}

impl Parser {
    fn message(&mut self, line: u64, message: &CrushMessage) {
        let Some(parts) = message.parts.as_array() else {
            self.warnings.push(crate::model::ParseWarning {
                line,
                message: format!("message {}: parts are not a JSON list", message.id),
            });
            return;
        };
        let time = epoch_time(message.created);
        if message.role == "user" {
            self.prompt(line, message, parts);
            return;
        }
        if message.role == "assistant" && self.first_model.is_none() {
            self.first_model = message.model.clone();
        }
        let mut reply: Option<usize> = None;
        for (index, part) in parts.iter().enumerate() {
            let key = format!("{}.{index}", message.id);
            let data = part.get("data").cloned().unwrap_or(Value::Null);
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
            let event = match (message.role.as_str(), kind) {
                ("assistant", "text") => {
                    let text = text_field(&data, "text").unwrap_or_default();
                    if text.is_empty() {
                        continue;
                    }
                    reply = Some(self.events.len());
                    self.model_event(key, EventType::AssistantResponse, line, message, text)
                }
                ("assistant", "reasoning") => {
                    let text = text_field(&data, "thinking").unwrap_or_default();
                    if text.is_empty() {
                        continue;
                    }
                    self.model_event(key, EventType::Reasoning, line, message, text)
                }
                (_, "tool_call") => {
                    let name = text_field(&data, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
                    let call_id = text_field(&data, "id");
                    if let Some(id) = &call_id {
                        self.calls.insert(id.clone(), name.clone());
                    }
                    let arguments = arguments_of(data.get("input"));
                    let mut event =
                        tool_call(key, line, time, &name, call_id.as_deref(), arguments);
                    event.originating_model = message.model.clone();
                    event
                }
                (_, "tool_result") => {
                    let call_id = text_field(&data, "tool_call_id");
                    let name = call_id
                        .as_ref()
                        .and_then(|id| self.calls.get(id).cloned())
                        .or_else(|| text_field(&data, "name"))
                        .unwrap_or_else(|| UNKNOWN_TOOL.into());
                    let failed = data.get("is_error").and_then(Value::as_bool) == Some(true);
                    let text = text_field(&data, "content").unwrap_or_default();
                    tool_response(key, line, time, &name, call_id.as_deref(), text, failed)
                }
                (_, "finish") => {
                    self.finish(key, line, time, &data, reply);
                    continue;
                }
                (_, "text") => plain_event(
                    key,
                    EventType::System,
                    line,
                    time,
                    text_field(&data, "text").unwrap_or_default(),
                    Some(message.role.as_str()),
                ),
                _ => continue,
            };
            self.events.push(event);
        }
    }

    /// A user message: its text parts are the prompt (attachments are left out).
    fn prompt(&mut self, line: u64, message: &CrushMessage, parts: &[Value]) {
        let text: Vec<String> = parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("data").and_then(|data| text_field(data, "text")))
            .collect();
        if text.is_empty() {
            return;
        }
        let mut event = plain_event(
            message.id.clone(),
            EventType::UserInput,
            line,
            epoch_time(message.created),
            text.join("\n\n"),
            None,
        );
        event.starts_turn = true;
        self.events.push(event);
    }

    fn model_event(
        &self,
        key: String,
        kind: EventType,
        line: u64,
        message: &CrushMessage,
        text: String,
    ) -> RawEvent {
        let mut event = plain_event(key, kind, line, epoch_time(message.created), text, None);
        event.model = message.model.clone();
        event.originating_model = message.model.clone();
        event
    }

    /// A message's `finish` part: a normal end makes its reply terminal; an error, a
    /// cancellation or a denied permission is a runtime event that ends the turn.
    fn finish(
        &mut self,
        key: String,
        line: u64,
        time: Option<chrono::DateTime<chrono::Utc>>,
        data: &Value,
        reply: Option<usize>,
    ) {
        let reason = text_field(data, "reason").unwrap_or_default();
        match reason.as_str() {
            "end_turn" | "stop" => {
                if let Some(reply) = reply {
                    self.events[reply].turn_end = Some(TurnEnd::Terminal);
                }
            }
            "error" | "canceled" | "permission_denied" => {
                let text = [text_field(data, "message"), text_field(data, "details")]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(": ");
                let text = if text.is_empty() {
                    reason.clone()
                } else {
                    text
                };
                let mut event =
                    plain_event(key, EventType::Runtime, line, time, text, Some(&reason));
                event.turn_end = Some(TurnEnd::Terminal);
                self.events.push(event);
            }
            _ => {}
        }
    }
}

/// The session's token counters on its last reply (Crush keeps no per-message usage):
/// `prompt_tokens` (plus `cache_read_tokens` where the version has it) in, `completion_tokens`
/// out. Nothing when both are zero (a session that never reached the model).
fn attach_session_usage(info: &Map<String, Value>, events: &mut [RawEvent]) {
    let count = |name: &str| info.get(name).and_then(Value::as_i64);
    let cached = count("cache_read_tokens").filter(|&tokens| tokens > 0);
    let input = count("prompt_tokens").unwrap_or(0) + cached.unwrap_or(0);
    let output = count("completion_tokens").unwrap_or(0);
    if input == 0 && output == 0 {
        return;
    }
    let usage = TokenUsage {
        input: Some(input),
        cached_input: cached,
        output: Some(output),
        ..TokenUsage::default()
    }
    .with_derived_total();
    if let Some(index) = totals_carrier(events) {
        TokenUsage::attach(&mut events[index], usage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(id: &str, role: &str, created: i64, parts: Value) -> CrushMessage {
        CrushMessage {
            id: id.to_string(),
            role: role.to_string(),
            parts,
            model: (role == "assistant").then(|| "gpt-4o".to_string()),
            created: Some(created),
        }
    }

    #[test]
    fn prompts_tools_failures_errors_and_session_usage() {
        let mut info = Map::new();
        info.insert("title".into(), json!("New Session"));
        info.insert("parent_session_id".into(), json!("parent-1"));
        info.insert("prompt_tokens".into(), json!(1200));
        info.insert("completion_tokens".into(), json!(80));
        info.insert("created_at".into(), json!(1_754_568_953));
        let t = 1_754_568_953;
        let session = CrushSession {
            id: "child-1".into(),
            info,
            project: Some("/src/otter".into()),
            messages: vec![
                message(
                    "u1",
                    "user",
                    t,
                    json!([{"type": "text", "data": {"text": "count the otters"}},
                        {"type": "finish", "data": {"reason": "stop", "time": 0}}]),
                ),
                message(
                    "a1",
                    "assistant",
                    t + 1,
                    json!([{"type": "reasoning", "data": {"thinking": "List them."}},
                        {"type": "tool_call", "data": {"id": "call_1", "name": "bash",
                            "input": "{\"command\": \"ls otters\"}", "finished": true}},
                        {"type": "finish", "data": {"reason": "tool_use", "time": t + 2}}]),
                ),
                message(
                    "r1",
                    "tool",
                    t + 2,
                    json!([{"type": "tool_result", "data": {"tool_call_id": "call_1",
                        "name": "", "content": "ls: otters: No such file", "is_error": true}}]),
                ),
                message(
                    "a2",
                    "assistant",
                    t + 3,
                    json!([{"type": "text", "data": {"text": "There is no otters folder."}},
                        {"type": "finish", "data": {"reason": "end_turn", "time": t + 4}}]),
                ),
                message(
                    "u2",
                    "user",
                    t + 5,
                    json!([{"type": "text", "data": {"text": "try again"}}]),
                ),
                message(
                    "a3",
                    "assistant",
                    t + 6,
                    json!([{"type": "finish", "data": {"reason": "error",
                        "message": "API Error", "details": "rate limit"}}]),
                ),
            ],
        };
        let output = parse(&session);
        let parsed = &output.sessions[0];
        let kinds: Vec<EventType> = parsed.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::UserInput,
                EventType::Runtime,
            ]
        );
        let response = &parsed.events[3];
        assert_eq!(response.tool_name.as_deref(), Some("bash"));
        assert_eq!(response.subtype.as_deref(), Some("error"));
        assert_eq!(
            parsed.events[2].payload,
            Some(json!({"command": "ls otters"}))
        );
        assert_eq!(parsed.events[4].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(parsed.events[6].text, "API Error: rate limit");
        assert_eq!(parsed.events[6].turn_end, Some(TurnEnd::Terminal));
        let carriers = parsed.usage_carriers();
        assert_eq!(carriers.len(), 1);
        assert_eq!(
            carriers[0].0, "a2.0",
            "the last reply carries the session's usage"
        );
        assert_eq!(carriers[0].1.total, Some(1280));
        assert_eq!(parsed.meta.title, None, "a default title is no title");
        assert_eq!(parsed.meta.parent_native_id.as_deref(), Some("parent-1"));
        assert_eq!(parsed.meta.cwd.as_deref(), Some("/src/otter"));
        assert_eq!(parsed.meta.model.as_deref(), Some("gpt-4o"));
    }

    #[test]
    fn the_project_is_the_parent_of_the_crush_directory() {
        assert_eq!(
            project_of(Path::new("/src/otter/.crush/crush.db")).as_deref(),
            Some("/src/otter")
        );
        assert_eq!(project_of(Path::new("/tmp/crush.db")), None);
    }
}
