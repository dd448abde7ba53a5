//! A session's events as AgTrace sees a turn: the user's message, then model-call steps (an
//! assistant's reasoning and message with its tool calls and their results). Read from
//! `queries/agtrace_session_events.sql`; token counts are attached when the store has them.

use std::collections::HashMap;

use datafusion::scalar::ScalarValue;

use super::reply::AgError;
use super::sessions::SessionKey;
use crate::model::EventType;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_list_parameter, text_parameter};
use crate::service::rows::{Row, RowError};

const SESSION_EVENTS: NamedQuery = NamedQuery {
    name: "agtrace_session_events",
    sql: include_str!("../../../../queries/agtrace_session_events.sql"),
};
const EVENT_TOKENS: NamedQuery = NamedQuery {
    name: "agtrace_event_tokens",
    sql: include_str!("../../../../queries/agtrace_event_tokens.sql"),
};
const TURN_TOKENS: NamedQuery = NamedQuery {
    name: "agtrace_turn_tokens",
    sql: include_str!("../../../../queries/agtrace_turn_tokens.sql"),
};
const SESSION_TOKENS: NamedQuery = NamedQuery {
    name: "agtrace_session_tokens",
    sql: include_str!("../../../../queries/agtrace_session_tokens.sql"),
};

/// Token counts of an event, turn or session (each null when the harness records none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: Option<i64>,
    pub cached_input: Option<i64>,
    pub output: Option<i64>,
    pub reasoning: Option<i64>,
    pub total: Option<i64>,
}

impl Tokens {
    fn from_row(row: &Row<'_>) -> Result<Tokens, RowError> {
        Ok(Tokens {
            input: row.opt_i64("input_tokens")?,
            cached_input: row.opt_i64("cached_input_tokens")?,
            output: row.opt_i64("output_tokens")?,
            reasoning: row.opt_i64("reasoning_tokens")?,
            total: row.opt_i64("total_tokens")?,
        })
    }

    /// The total, else input plus output when either is known.
    pub fn best_total(&self) -> Option<i64> {
        self.total.or(match (self.input, self.output) {
            (None, None) => None,
            (input, output) => Some(input.unwrap_or(0) + output.unwrap_or(0)),
        })
    }

    fn add(&mut self, other: &Tokens) {
        let sum = |left: Option<i64>, right: Option<i64>| match (left, right) {
            (None, None) => None,
            (left, right) => Some(left.unwrap_or(0) + right.unwrap_or(0)),
        };
        self.input = sum(self.input, other.input);
        self.cached_input = sum(self.cached_input, other.cached_input);
        self.output = sum(self.output, other.output);
        self.reasoning = sum(self.reasoning, other.reasoning);
        self.total = sum(self.total, other.total);
    }

    pub fn is_empty(&self) -> bool {
        *self == Tokens::default()
    }
}

/// One event of `queries/agtrace_session_events.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLine {
    pub seq: i64,
    pub turn_ordinal: i64,
    pub kind: EventType,
    pub subtype: Option<String>,
    /// UTC nanoseconds.
    pub timestamp: Option<i64>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub exit_code: Option<i64>,
    pub text: String,
    pub text_chars: i64,
    pub payload: Option<String>,
    pub payload_chars: i64,
    /// Digest of a tool call's arguments (loop detection).
    pub arguments_digest: Option<String>,
    pub failed: bool,
    pub tokens: Option<Tokens>,
}

impl EventLine {
    fn from_row(row: &Row<'_>) -> Result<EventLine, RowError> {
        Ok(EventLine {
            seq: row.i64("seq")?,
            turn_ordinal: row.i64("turn_ordinal")?,
            kind: EventType::parse(row.string("type")?).unwrap_or_default(),
            subtype: row.opt_string("subtype")?.map(str::to_owned),
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            tool_name: row.opt_string("tool_name")?.map(str::to_owned),
            tool_call_id: row.opt_string("tool_call_id")?.map(str::to_owned),
            exit_code: row.opt_i64("exit_code")?,
            text: row.opt_string("text_head")?.unwrap_or_default().to_owned(),
            text_chars: row.opt_i64("text_chars")?.unwrap_or(0),
            payload: row.opt_string("payload_head")?.map(str::to_owned),
            payload_chars: row.opt_i64("payload_chars")?.unwrap_or(0),
            arguments_digest: row.opt_string("arguments_digest")?.map(str::to_owned),
            failed: row.opt_bool("failed")?.unwrap_or(false),
            tokens: None,
        })
    }

    /// 0-based position in the session, as AgTrace addresses events.
    pub fn event_index(&self) -> i64 {
        self.seq - 1
    }

    fn is_model_output(&self) -> bool {
        matches!(
            self.kind,
            EventType::Reasoning | EventType::AssistantResponse | EventType::ToolCall
        )
    }
}

/// Loads the events of turns `first..end` (ordinals) with text and payload cut to
/// `head_chars`, token counts attached when the store has them.
pub async fn load_events(
    snapshot: &WarmSnapshot,
    session: &SessionKey,
    turns: std::ops::Range<i64>,
    head_chars: i64,
) -> Result<Vec<EventLine>, AgError> {
    let window = partition_window_parameters(session, &turns);
    let mut parameters = window.clone();
    parameters.push(ScalarValue::Int64(Some(head_chars)));
    let rows = snapshot.run(SESSION_EVENTS, parameters).await?;
    let mut events = rows
        .iter()
        .map(|row| EventLine::from_row(&row))
        .collect::<Result<Vec<_>, _>>()?;
    if has_token_columns(snapshot).await {
        let token_rows = snapshot.run(EVENT_TOKENS, window).await?;
        let mut by_seq = HashMap::new();
        for row in token_rows.iter() {
            by_seq.insert(row.i64("seq")?, Tokens::from_row(&row)?);
        }
        for event in &mut events {
            event.tokens = by_seq.remove(&event.seq);
        }
    }
    Ok(events)
}

/// Token sums of the turns `first..end` by ordinal (empty without token columns).
pub async fn turn_tokens(
    snapshot: &WarmSnapshot,
    session_id: &str,
    turns: std::ops::Range<i64>,
) -> Result<HashMap<i64, Tokens>, AgError> {
    if !has_token_columns(snapshot).await {
        return Ok(HashMap::new());
    }
    let rows = snapshot
        .run(TURN_TOKENS, window_parameters(session_id, &turns))
        .await?;
    let mut by_ordinal = HashMap::new();
    for row in rows.iter() {
        by_ordinal.insert(row.i64("ordinal")?, Tokens::from_row(&row)?);
    }
    Ok(by_ordinal)
}

/// Total tokens of each of `session_ids` that records any (empty without token columns).
pub async fn session_totals(
    snapshot: &WarmSnapshot,
    session_ids: &[&str],
) -> Result<HashMap<String, i64>, AgError> {
    if session_ids.is_empty() || !has_token_columns(snapshot).await {
        return Ok(HashMap::new());
    }
    let rows = snapshot
        .run(SESSION_TOKENS, vec![text_list_parameter(session_ids)])
        .await?;
    let mut totals = HashMap::new();
    for row in rows.iter() {
        if let Some(total) = row.opt_i64("total_tokens")? {
            totals.insert(row.string("session_id")?.to_owned(), total);
        }
    }
    Ok(totals)
}

/// Whether the store has the token columns (added after the first stores were written).
pub async fn has_token_columns(snapshot: &WarmSnapshot) -> bool {
    snapshot.has_column("events", "total_tokens").await
        && snapshot.has_column("turns", "total_tokens").await
        && snapshot.has_column("sessions", "total_tokens").await
}

/// The session, its partition (source, month) and a turn window: `$1..$5` of the events queries.
fn partition_window_parameters(
    session: &SessionKey,
    turns: &std::ops::Range<i64>,
) -> Vec<ScalarValue> {
    vec![
        text_parameter(&session.session_id),
        text_parameter(&session.source),
        text_parameter(&session.month),
        ordinal_parameter(turns.start),
        ordinal_parameter(turns.end),
    ]
}

fn window_parameters(session_id: &str, turns: &std::ops::Range<i64>) -> Vec<ScalarValue> {
    vec![
        text_parameter(session_id),
        ordinal_parameter(turns.start),
        ordinal_parameter(turns.end),
    ]
}

/// A turn ordinal as the INT the column is (so the filter prunes row groups).
fn ordinal_parameter(ordinal: i64) -> ScalarValue {
    ScalarValue::Int32(Some(ordinal.clamp(0, i64::from(i32::MAX)) as i32))
}

/// A tool call and its result (either may be missing from the log).
#[derive(Debug, Clone, Default)]
pub struct ToolUse<'a> {
    pub call: Option<&'a EventLine>,
    pub result: Option<&'a EventLine>,
}

impl ToolUse<'_> {
    pub fn name(&self) -> &str {
        self.call
            .or(self.result)
            .and_then(|event| event.tool_name.as_deref())
            .unwrap_or("unknown_tool")
    }

    pub fn failed(&self) -> bool {
        self.result.is_some_and(|result| result.failed)
    }
}

/// One model call: its reasoning, messages and tool uses, and the token events it produced.
#[derive(Debug, Clone, Default)]
pub struct Step<'a> {
    pub reasoning: Vec<&'a EventLine>,
    pub messages: Vec<&'a EventLine>,
    pub tools: Vec<ToolUse<'a>>,
    /// Every event of the step, in order (token counts are summed over them).
    pub events: Vec<&'a EventLine>,
}

impl Step<'_> {
    pub fn failed_tools(&self) -> usize {
        self.tools.iter().filter(|tool| tool.failed()).count()
    }

    pub fn tool_calls(&self) -> usize {
        self.tools.iter().filter(|tool| tool.call.is_some()).count()
    }

    pub fn tokens(&self) -> Tokens {
        let mut sum = Tokens::default();
        for tokens in self.events.iter().filter_map(|event| event.tokens.as_ref()) {
            sum.add(tokens);
        }
        sum
    }

    fn has_results(&self) -> bool {
        self.tools.iter().any(|tool| tool.result.is_some())
    }
}

/// A turn as steps: the user's input events, then the model-call steps.
#[derive(Debug, Clone, Default)]
pub struct TurnSteps<'a> {
    pub user: Vec<&'a EventLine>,
    pub steps: Vec<Step<'a>>,
}

/// How a turn went, from its tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// No tool result failed.
    Success,
    /// Some, not all, tool results failed.
    Partial,
    /// Every tool result failed.
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Partial => "partial",
            Outcome::Failed => "failed",
        }
    }
}

impl TurnSteps<'_> {
    pub fn outcome(&self) -> Outcome {
        let results = self
            .steps
            .iter()
            .flat_map(|step| &step.tools)
            .filter(|tool| tool.result.is_some());
        let (total, failed) = results.fold((0, 0), |(total, failed), tool| {
            (total + 1, failed + usize::from(tool.failed()))
        });
        match failed {
            0 => Outcome::Success,
            _ if failed == total => Outcome::Failed,
            _ => Outcome::Partial,
        }
    }

    /// Tool names in first-use order.
    pub fn tools_used(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for tool in self.steps.iter().flat_map(|step| &step.tools) {
            if !names.contains(&tool.name()) {
                names.push(tool.name());
            }
        }
        names
    }
}

/// Splits one turn's events (session order) into the user's input and model-call steps. A
/// step starts at the first model output (reasoning, message or tool call) after the previous
/// step received tool results, or at reasoning or a message following a message. Tool results
/// join the call with their call id (else the current step); other events join the current
/// step (token counts) or, before any step, are left out.
pub fn split_turn<'a>(events: &[&'a EventLine]) -> TurnSteps<'a> {
    let mut turn = TurnSteps::default();
    for &event in events {
        if event.kind == EventType::UserInput && turn.steps.is_empty() {
            turn.user.push(event);
            continue;
        }
        if event.is_model_output() && starts_new_step(turn.steps.last(), event) {
            turn.steps.push(Step::default());
        }
        let Some(step) = turn.steps.last_mut() else {
            continue;
        };
        step.events.push(event);
        match event.kind {
            EventType::Reasoning => step.reasoning.push(event),
            EventType::AssistantResponse => step.messages.push(event),
            EventType::ToolCall => step.tools.push(ToolUse {
                call: Some(event),
                result: None,
            }),
            EventType::ToolResponse => attach_result(&mut turn.steps, event),
            _ => {}
        }
    }
    turn
}

fn starts_new_step(current: Option<&Step<'_>>, event: &EventLine) -> bool {
    let Some(step) = current else {
        return true;
    };
    let follows_message = !step.messages.is_empty()
        && matches!(
            event.kind,
            EventType::Reasoning | EventType::AssistantResponse
        );
    step.has_results() || follows_message
}

/// Attaches a tool result to its call (by call id, latest step first), else to the current
/// step as a result without a recorded call.
fn attach_result<'a>(steps: &mut [Step<'a>], result: &'a EventLine) {
    let matching_call = result.tool_call_id.as_deref().and_then(|call_id| {
        steps.iter_mut().rev().find_map(|step| {
            step.tools.iter_mut().find(|tool| {
                tool.result.is_none()
                    && tool
                        .call
                        .and_then(|call| call.tool_call_id.as_deref())
                        .is_some_and(|id| id == call_id)
            })
        })
    });
    if let Some(tool) = matching_call {
        tool.result = Some(result);
        return;
    }
    if let Some(step) = steps.last_mut() {
        step.tools.push(ToolUse {
            call: None,
            result: Some(result),
        });
    }
}

/// The events grouped by turn ordinal, in order.
pub fn by_turn(events: &[EventLine]) -> Vec<(i64, Vec<&EventLine>)> {
    let mut turns: Vec<(i64, Vec<&EventLine>)> = Vec::new();
    for event in events {
        match turns.last_mut() {
            Some((ordinal, members)) if *ordinal == event.turn_ordinal => members.push(event),
            _ => turns.push((event.turn_ordinal, vec![event])),
        }
    }
    turns
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn line(seq: i64, kind: EventType) -> EventLine {
        EventLine {
            seq,
            turn_ordinal: 1,
            kind,
            subtype: None,
            timestamp: None,
            tool_name: None,
            tool_call_id: None,
            exit_code: None,
            text: format!("event {seq}"),
            text_chars: 8,
            payload: None,
            payload_chars: 0,
            arguments_digest: None,
            failed: false,
            tokens: None,
        }
    }

    pub fn call(seq: i64, name: &str, id: &str) -> EventLine {
        EventLine {
            tool_name: Some(name.into()),
            tool_call_id: Some(id.into()),
            arguments_digest: Some(format!("{name}-args")),
            ..line(seq, EventType::ToolCall)
        }
    }

    pub fn result(seq: i64, name: &str, id: &str, failed: bool) -> EventLine {
        EventLine {
            tool_name: Some(name.into()),
            tool_call_id: Some(id.into()),
            failed,
            ..line(seq, EventType::ToolResponse)
        }
    }

    #[test]
    fn steps_split_at_model_output_after_tool_results() {
        let events = [
            line(1, EventType::UserInput),
            line(2, EventType::Reasoning),
            call(3, "Read", "a"),
            call(4, "Grep", "b"),
            result(5, "Grep", "b", false),
            result(6, "Read", "a", true),
            line(7, EventType::AssistantResponse),
            call(8, "Edit", "c"),
            result(9, "Edit", "c", false),
            line(10, EventType::AssistantResponse),
        ];
        let refs: Vec<&EventLine> = events.iter().collect();
        let turn = split_turn(&refs);
        assert_eq!(turn.user.len(), 1);
        assert_eq!(turn.steps.len(), 3);
        let first = &turn.steps[0];
        assert_eq!(first.tool_calls(), 2);
        assert_eq!(first.failed_tools(), 1);
        assert_eq!(first.tools[0].result.unwrap().seq, 6, "paired by call id");
        assert_eq!(turn.steps[1].messages.len(), 1);
        assert_eq!(turn.outcome(), Outcome::Partial);
        assert_eq!(turn.tools_used(), ["Read", "Grep", "Edit"]);
    }

    #[test]
    fn outcomes_follow_the_tool_results() {
        let ok = [
            line(1, EventType::UserInput),
            line(2, EventType::AssistantResponse),
        ];
        let refs: Vec<&EventLine> = ok.iter().collect();
        assert_eq!(split_turn(&refs).outcome(), Outcome::Success);
        let failing = [call(1, "Bash", "x"), result(2, "Bash", "x", true)];
        let refs: Vec<&EventLine> = failing.iter().collect();
        assert_eq!(split_turn(&refs).outcome(), Outcome::Failed);
    }
}
