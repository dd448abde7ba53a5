//! relay-search's messages over esker's events: `user` (prompts), `assistant` (replies),
//! `tool_summary` (one line per tool call, `[Bash] cargo test`) and `plan` (Claude's
//! `ExitPlanMode` plans), as `{id, session_id, role, content, timestamp, model}`; and reading a
//! chain's messages in time order, first `limit` or around a time.

use std::cmp::Ordering;

use datafusion::scalar::ScalarValue;
use futures::future::try_join_all;
use serde_json::{Value, json};

use super::reply::RelayError;
use super::sessions::RelaySession;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter, timestamp_parameter};
use crate::service::rows::{Row, RowError};
use crate::service::text::format_timestamp;

const FIRST: NamedQuery = NamedQuery {
    name: "relay_messages",
    sql: include_str!("../../../../queries/relay_messages.sql"),
};
const BEFORE: NamedQuery = NamedQuery {
    name: "relay_messages_before",
    sql: include_str!("../../../../queries/relay_messages_before.sql"),
};

/// The Claude tool whose arguments hold a plan.
const PLAN_TOOL: &str = "ExitPlanMode";
/// How much of a command a tool summary keeps (relay-search's `cmd[:200]`).
const SUMMARY_ARGUMENT_CHARS: usize = 200;
/// Messages on each side of `around_timestamp` (relay-search's 10 + 10).
pub const AROUND: usize = 10;

/// relay-search's message roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolSummary,
    Plan,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::ToolSummary, Role::Plan];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolSummary => "tool_summary",
            Role::Plan => "plan",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }

    /// The role of an esker event, `None` for events relay-search never extracts (tool
    /// results, reasoning, system records).
    fn of(event_type: &str, tool_name: Option<&str>) -> Option<Role> {
        match (event_type, tool_name) {
            ("user_input", _) => Some(Role::User),
            ("assistant_response", _) => Some(Role::Assistant),
            ("tool_call", Some(PLAN_TOOL)) => Some(Role::Plan),
            ("tool_call", _) => Some(Role::ToolSummary),
            _ => None,
        }
    }
}

/// One message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub event_id: String,
    /// esker session id.
    pub session_id: String,
    pub role: Role,
    pub content: String,
    /// The event's own text (what the search index matched).
    pub text: String,
    /// UTC nanoseconds.
    pub timestamp: Option<i64>,
    pub seq: i64,
    pub model: Option<String>,
}

impl Message {
    /// The message of a row of `queries/relay_messages*.sql` or `relay_hit_events.sql`;
    /// `None` for an event of no relay role.
    pub fn from_row(row: &Row<'_>) -> Result<Option<Message>, RowError> {
        let tool_name = row.opt_string("tool_name")?;
        let Some(role) = Role::of(row.string("type")?, tool_name) else {
            return Ok(None);
        };
        let text = row.string("text")?;
        Ok(Some(Message {
            event_id: row.string("event_id")?.to_owned(),
            session_id: row.string("session_id")?.to_owned(),
            role,
            content: content(role, text, tool_name, row.opt_string("payload")?),
            text: text.to_owned(),
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            seq: row.opt_i64("seq")?.unwrap_or(0),
            model: row.opt_string("model")?.map(str::to_owned),
        }))
    }

    /// relay-search's message object, with the session's native id.
    pub fn to_json(&self, native_session_id: &str) -> Value {
        json!({
            "id": self.event_id,
            "session_id": native_session_id,
            "role": self.role.as_str(),
            "content": self.content,
            "timestamp": self.timestamp.map(format_timestamp),
            "model": self.model,
        })
    }
}

/// A message's content: the text of prompts and replies, the plan of a plan, one summary line
/// of a tool call.
fn content(role: Role, text: &str, tool_name: Option<&str>, payload: Option<&str>) -> String {
    let arguments = payload.and_then(|payload| serde_json::from_str::<Value>(payload).ok());
    match role {
        Role::User | Role::Assistant => text.to_owned(),
        Role::Plan => arguments
            .as_ref()
            .and_then(|arguments| arguments.get("plan"))
            .and_then(Value::as_str)
            .map_or_else(|| text.to_owned(), str::to_owned),
        Role::ToolSummary => tool_summary(tool_name.unwrap_or("tool"), arguments.as_ref()),
    }
}

/// One line for a tool call, as relay-search writes them: `[Read] src/main.rs`,
/// `[Bash] cargo test`, `[Grep] pattern=… path=…`, `[Task] description`; `[Name]` alone when
/// no argument says what it did.
pub fn tool_summary(name: &str, arguments: Option<&Value>) -> String {
    let argument = |key: &str| arguments.and_then(|arguments| argument_text(arguments.get(key)?));
    if name == "Grep" {
        let parts: Vec<String> = ["pattern", "path"]
            .into_iter()
            .filter_map(|key| Some(format!("{key}={}", argument(key)?)))
            .collect();
        if !parts.is_empty() {
            return format!("[{name}] {}", parts.join(" "));
        }
    }
    const TELLING_ARGUMENTS: [&str; 10] = [
        "file_path",
        "notebook_path",
        "path",
        "command",
        "cmd",
        "pattern",
        "description",
        "url",
        "query",
        "prompt",
    ];
    match TELLING_ARGUMENTS.into_iter().find_map(argument) {
        Some(text) => format!("[{name}] {text}"),
        None => format!("[{name}]"),
    }
}

/// A string argument (or a command given as a list of words) on one line, cut to 200 chars.
fn argument_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Array(words) => words
            .iter()
            .map(|word| word.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()?
            .join(" "),
        _ => return None,
    };
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then(|| line.chars().take(SUMMARY_ARGUMENT_CHARS).collect())
}

/// Which roles a request wants (all when none is named).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roles([bool; 4]);

impl Roles {
    pub fn all() -> Roles {
        Roles([true; 4])
    }

    pub fn only(roles: &[Role]) -> Roles {
        Roles(Role::ALL.map(|role| roles.contains(&role)))
    }

    fn parameters(self) -> Vec<ScalarValue> {
        self.0
            .iter()
            .map(|wanted| ScalarValue::Boolean(Some(*wanted)))
            .collect()
    }
}

/// Which of a chain's messages to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The first `n`, in time order.
    First(usize),
    /// [`AROUND`] at or before the time and [`AROUND`] after it (UTC nanoseconds).
    Around(i64),
}

/// The messages of `sessions` (chain order) of `roles` in `window`, in time order (ties in chain
/// order, then session order).
pub async fn chain_messages(
    snapshot: &WarmSnapshot,
    sessions: &[RelaySession],
    roles: Roles,
    window: Window,
) -> Result<Vec<Message>, RelayError> {
    let per_session = try_join_all(
        sessions
            .iter()
            .map(|session| session_messages(snapshot, session, roles, window)),
    )
    .await?;
    let mut messages: Vec<(usize, Message)> = per_session
        .into_iter()
        .enumerate()
        .flat_map(|(position, messages)| messages.into_iter().map(move |m| (position, m)))
        .collect();
    messages.sort_by(|(left_position, left), (right_position, right)| {
        in_time_order(left, right)
            .then(left_position.cmp(right_position))
            .then(left.seq.cmp(&right.seq))
    });
    let ordered = messages.into_iter().map(|(_, message)| message);
    Ok(match window {
        Window::First(limit) => ordered.take(limit).collect(),
        Window::Around(time) => {
            let (before, after): (Vec<Message>, Vec<Message>) =
                ordered.partition(|message| message.timestamp.is_some_and(|at| at <= time));
            let skipped = before.len().saturating_sub(AROUND);
            before
                .into_iter()
                .skip(skipped)
                .chain(after.into_iter().take(AROUND))
                .collect()
        }
    })
}

fn in_time_order(left: &Message, right: &Message) -> Ordering {
    left.timestamp.cmp(&right.timestamp)
}

/// One session's share of a window: at most what the window can take from it.
async fn session_messages(
    snapshot: &WarmSnapshot,
    session: &RelaySession,
    roles: Roles,
    window: Window,
) -> Result<Vec<Message>, RelayError> {
    let mut parameters = vec![
        text_parameter(&session.session_id),
        text_parameter(&session.source),
        text_parameter(&session.month),
    ];
    parameters.extend(roles.parameters());
    let fetch = |query: NamedQuery, parameters: Vec<ScalarValue>| async move {
        let rows = snapshot.run(query, parameters).await?;
        let messages = rows
            .iter()
            .filter_map(|row| Message::from_row(&row).transpose())
            .collect::<Result<Vec<_>, RowError>>()?;
        Ok::<_, RelayError>(messages)
    };
    let count = |count: usize| ScalarValue::Int64(Some(count as i64));
    match window {
        Window::First(limit) => {
            let mut first = parameters;
            first.extend([
                ScalarValue::Boolean(Some(false)),
                timestamp_parameter(0),
                count(limit),
            ]);
            fetch(FIRST, first).await
        }
        Window::Around(time) => {
            let mut before = parameters.clone();
            before.extend([timestamp_parameter(time), count(AROUND)]);
            let mut after = parameters;
            after.extend([
                ScalarValue::Boolean(Some(true)),
                timestamp_parameter(time),
                count(AROUND),
            ]);
            let (mut earlier, later) =
                tokio::try_join!(fetch(BEFORE, before), fetch(FIRST, after))?;
            earlier.reverse();
            earlier.extend(later);
            Ok(earlier)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_summarize_like_relay() {
        let summary = |name: &str, arguments: Value| tool_summary(name, Some(&arguments));
        assert_eq!(
            summary("Read", json!({"file_path": "/src/main.rs"})),
            "[Read] /src/main.rs"
        );
        assert_eq!(
            summary(
                "Bash",
                json!({"command": "cargo   test\n-q", "description": "Run"})
            ),
            "[Bash] cargo test -q"
        );
        assert_eq!(
            summary("Grep", json!({"pattern": "TODO", "path": "src"})),
            "[Grep] pattern=TODO path=src"
        );
        assert_eq!(
            summary("exec_command", json!({"cmd": ["bash", "-lc", "ls"]})),
            "[exec_command] bash -lc ls"
        );
        assert_eq!(summary("TodoWrite", json!({"todos": []})), "[TodoWrite]");
        assert_eq!(tool_summary("Task", None), "[Task]");
        let long = summary("Bash", json!({"command": "x".repeat(500)}));
        assert_eq!(long.chars().count(), "[Bash] ".len() + 200);
    }

    #[test]
    fn roles_come_from_event_types() {
        assert_eq!(Role::of("user_input", None), Some(Role::User));
        assert_eq!(Role::of("assistant_response", None), Some(Role::Assistant));
        assert_eq!(Role::of("tool_call", Some("Bash")), Some(Role::ToolSummary));
        assert_eq!(
            Role::of("tool_call", Some("ExitPlanMode")),
            Some(Role::Plan)
        );
        assert_eq!(Role::of("tool_response", Some("Bash")), None);
        assert_eq!(Role::of("reasoning", None), None);
        assert_eq!(
            content(
                Role::Plan,
                "ExitPlanMode(...)",
                Some("ExitPlanMode"),
                Some(r#"{"plan":"1. fix"}"#)
            ),
            "1. fix"
        );
    }
}
