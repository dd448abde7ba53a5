//! `get_session_details`: a session at one of four detail levels (summary, turns, steps,
//! full), each within its size budget. A page holds the turns that fit; the rest follow with
//! `next_cursor` and a hint saying so, never a silent cut.

use std::collections::HashMap;

use datafusion::scalar::ScalarValue;
use serde_json::{Map, Value, json};

use super::args::{flag, optional_text, provider_of, reject_unknown, required_text, truncate};
use super::budget::{Resume, TurnPiece, pack};
use super::cursor;
use super::reply::AgError;
use super::sessions::SessionKey;
use super::steps::{
    EventLine, Step, Tokens, TurnSteps, by_turn, load_events, session_totals, split_turn,
    turn_tokens,
};
use super::{AgTool, Context};
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::service::rows::Row;
use crate::service::text::{collapse_whitespace, format_timestamp};
use crate::service::validate::Arguments;

const SESSION: NamedQuery = NamedQuery {
    name: "agtrace_session",
    sql: include_str!("../../../../queries/agtrace_session.sql"),
};
const TURNS: NamedQuery = NamedQuery {
    name: "agtrace_session_turns",
    sql: include_str!("../../../../queries/agtrace_session_turns.sql"),
};

const FIELDS: [&str; 4] = ["session_id", "detail_level", "include_reasoning", "cursor"];
const CURSOR_TAG: &str = "details";
/// The seed's user_message cut.
const USER_MESSAGE_CHARS: usize = 200;
/// The seed's payload cut at the steps level (and reasoning at the turns level).
const PAYLOAD_CHARS: usize = 500;
/// Longest one-line step summary at the turns level.
const STEP_SUMMARY_CHARS: usize = 300;
/// Further turn windows read when a page is still under half its budget.
const MORE_WINDOWS: u32 = 2;
/// Bytes kept free for the page's cursor and hint.
const TAIL_RESERVE: usize = 700;

/// The seed's four levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Summary,
    Turns,
    Steps,
    Full,
}

impl Level {
    const ALL: [Level; 4] = [Level::Summary, Level::Turns, Level::Steps, Level::Full];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Summary => "summary",
            Level::Turns => "turns",
            Level::Steps => "steps",
            Level::Full => "full",
        }
    }

    /// The most bytes of JSON one response of this level holds (the seed's maxima; `full` is
    /// paged under the seed's 100 KB server-side cap).
    pub fn budget(self) -> usize {
        match self {
            Level::Summary => 15_000,
            Level::Turns => 30_000,
            Level::Steps | Level::Full => 100_000,
        }
    }

    /// Turns read per page before packing (a page never holds more).
    fn window(self) -> i64 {
        match self {
            Level::Summary => 150,
            Level::Turns => 60,
            Level::Steps => 20,
            Level::Full => 6,
        }
    }

    /// Characters of event text and payload read.
    fn head_chars(self) -> i64 {
        match self {
            Level::Summary => 0,
            Level::Turns | Level::Steps => PAYLOAD_CHARS as i64 + 1,
            Level::Full => i64::from(i32::MAX),
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Level::Summary => "Use detail_level='turns' to see tool execution summaries",
            Level::Turns => "Use detail_level='steps' for detailed payloads",
            Level::Steps => {
                "Payloads are truncated to 500 chars. Use search_event_previews(query, session_id) to find specific content, get_event_details(session_id, event_index) for one event, or detail_level='full' for complete data"
            }
            Level::Full => {
                "Complete payloads. Use search_event_previews(query, session_id) to find specific events, or detail_level='steps' for truncated payloads"
            }
        }
    }
}

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailsRequest {
    pub session_id: String,
    pub level: Level,
    pub include_reasoning: bool,
    pub cursor: Option<String>,
}

pub struct SessionDetails;

impl AgTool for SessionDetails {
    type Request = DetailsRequest;

    const NAME: &'static str = "get_session_details";

    fn parse(arguments: &Arguments) -> Result<DetailsRequest, AgError> {
        reject_unknown(arguments, &FIELDS)?;
        let session_id = required_text(arguments, "session_id")?.to_owned();
        let level = match optional_text(arguments, "detail_level")? {
            None => Level::Summary,
            Some(name) => Level::ALL
                .into_iter()
                .find(|level| level.as_str() == name)
                .ok_or_else(|| {
                    AgError::invalid_parameter(
                        "detail_level",
                        format!("unknown detail_level: {name}"),
                    )
                    .with_detail("allowed", json!(["summary", "turns", "steps", "full"]))
                })?,
        };
        Ok(DetailsRequest {
            session_id,
            level,
            include_reasoning: flag(arguments, "include_reasoning", false)?,
            cursor: optional_text(arguments, "cursor")?.map(str::to_owned),
        })
    }

    async fn execute(context: &Context<'_>, request: &DetailsRequest) -> Result<Value, AgError> {
        let key = context.resolve(&request.session_id).await?;
        let snapshot = &context.snapshot;
        let filter = format!(
            "{}|{}|{}",
            key.session_id,
            request.level.as_str(),
            request.include_reasoning
        );
        let start = match &request.cursor {
            Some(text) => {
                let position = cursor::decode(CURSOR_TAG, &filter, text, 2)?;
                Resume {
                    turn_index: cursor::number(&position[0], text)?,
                    step_index: cursor::number(&position[1], text)? as usize,
                }
            }
            None => Resume {
                turn_index: 0,
                step_index: 0,
            },
        };
        let turn_count = key.turn_count;
        let session_ids = [key.session_id.as_ref()];
        let (session_rows, totals, page) = tokio::try_join!(
            async {
                Ok::<_, AgError>(
                    snapshot
                        .run(SESSION, vec![text_parameter(&key.session_id)])
                        .await?,
                )
            },
            session_totals(snapshot, &session_ids),
            PageSource::load(
                snapshot,
                &key,
                start.turn_index + 1,
                request.level.window(),
                request.level
            ),
        )?;
        let session = session_rows
            .first()
            .ok_or_else(|| AgError::internal("resolved session has no sessions row"))?;
        let total_tokens = totals.get(key.session_id.as_ref()).copied();
        let mut response = skeleton(&session, request.level, total_tokens)?;
        let budget = request.level.budget() - size_of(&response) - TAIL_RESERVE;
        let mut packed = pack(page.pieces(request), start.step_index, budget, 0);
        let mut turns = std::mem::take(&mut packed.turns);
        let mut next_ordinal = page.next_ordinal;
        // A page that used less than half its budget takes more turns (up to
        // MORE_WINDOWS more reads, each twice as wide as the last).
        for round in 1..=MORE_WINDOWS {
            let Some(from_ordinal) = next_ordinal else {
                break;
            };
            if packed.resume.is_some() || packed.used * 2 > budget {
                break;
            }
            let width = request.level.window() << round;
            let page = PageSource::load(snapshot, &key, from_ordinal, width, request.level).await?;
            packed = pack(page.pieces(request), 0, budget, packed.used);
            turns.append(&mut packed.turns);
            next_ordinal = page.next_ordinal;
        }
        // Where the page stopped: inside what it read, else at the first turn it did not read.
        let resume = packed.resume.or_else(|| {
            next_ordinal.map(|ordinal| Resume {
                turn_index: ordinal - 1,
                step_index: 0,
            })
        });
        let next_cursor = resume.map(|resume| {
            cursor::encode(
                CURSOR_TAG,
                &filter,
                &[resume.turn_index.to_string(), resume.step_index.to_string()],
            )
        });
        let hint = match resume {
            Some(resume) => format!(
                "Showing {} of {turn_count} turns to stay within {} KB; pass next_cursor to continue at turn_index {}{}. {}",
                turns.len(),
                request.level.budget() / 1000,
                resume.turn_index,
                if resume.step_index > 0 {
                    format!(" step_index {}", resume.step_index)
                } else {
                    String::new()
                },
                request.level.hint()
            ),
            None => request.level.hint().to_owned(),
        };
        response.insert("turns".into(), Value::Array(turns));
        response.insert("next_cursor".into(), json!(next_cursor));
        response.insert("hint".into(), hint.into());
        Ok(Value::Object(response))
    }
}

fn size_of(fields: &Map<String, Value>) -> usize {
    serde_json::to_string(fields).map_or(0, |text| text.len())
}

/// The session fields of a response, before its turns. `stats` is the seed's
/// `{total_turns, total_tokens, duration_seconds}` (`total_tokens` null when the harness records
/// no usage), the same figures `list_sessions` shows for the session.
fn skeleton(
    session: &Row<'_>,
    level: Level,
    total_tokens: Option<i64>,
) -> Result<Map<String, Value>, AgError> {
    let started = session.opt_timestamp_nanos("started_at")?;
    let updated = session.opt_timestamp_nanos("updated_at")?;
    let duration_seconds = started
        .zip(updated)
        .map(|(start, end)| (end - start).max(0) / 1_000_000_000);
    let mut fields = Map::new();
    fields.insert("session_id".into(), session.string("native_id")?.into());
    fields.insert(
        "provider".into(),
        provider_of(session.string("source")?).into(),
    );
    fields.insert(
        "project_hash".into(),
        session.string("project_hash")?.into(),
    );
    fields.insert("start_time".into(), json!(started.map(format_timestamp)));
    fields.insert("end_time".into(), json!(updated.map(format_timestamp)));
    fields.insert("detail_level".into(), level.as_str().into());
    fields.insert(
        "stats".into(),
        json!({
            "total_turns": session.i64("turn_count")?,
            "total_tokens": total_tokens,
            "duration_seconds": duration_seconds,
        }),
    );
    Ok(fields)
}

/// The rows behind one page: the window's turns, events and token sums.
struct PageSource {
    level: Level,
    turns: Vec<TurnRow>,
    events: Vec<EventLine>,
    tokens: HashMap<i64, Tokens>,
    /// The ordinal of the first stored turn after the window, when there is one.
    next_ordinal: Option<i64>,
}

struct TurnRow {
    ordinal: i64,
    started_at: Option<i64>,
    user_input_text: Option<String>,
}

impl PageSource {
    /// The next `count` stored turns of `session` from ordinal `from_ordinal` on, with their
    /// events and token sums.
    async fn load(
        snapshot: &WarmSnapshot,
        session: &SessionKey,
        from_ordinal: i64,
        count: i64,
        level: Level,
    ) -> Result<PageSource, AgError> {
        let session_id: &str = &session.session_id;
        let turn_parameters = vec![
            text_parameter(session_id),
            ScalarValue::Int32(Some(from_ordinal.clamp(0, i64::from(i32::MAX)) as i32)),
            ScalarValue::Int64(Some(count + 1)),
        ];
        // Ordinals run 1..n without gaps, so the window's events are read beside its turns;
        // should the turns say otherwise, the events of the turns read are read again.
        let guessed = from_ordinal..from_ordinal + count;
        let (turn_rows, events, tokens) = tokio::try_join!(
            async { Ok::<_, AgError>(snapshot.run(TURNS, turn_parameters).await?) },
            load_events(snapshot, session, guessed.clone(), level.head_chars()),
            turn_tokens(snapshot, session_id, guessed.clone()),
        )?;
        let mut turns = turn_rows
            .iter()
            .map(|row| {
                Ok(TurnRow {
                    ordinal: row.i64("ordinal")?,
                    started_at: row.opt_timestamp_nanos("started_at")?,
                    user_input_text: row.opt_string("user_input_text")?.map(str::to_owned),
                })
            })
            .collect::<Result<Vec<_>, crate::service::rows::RowError>>()?;
        let next_ordinal = (turns.len() as i64 > count)
            .then(|| turns.pop().map(|turn| turn.ordinal))
            .flatten();
        let read = match (turns.first(), turns.last()) {
            (Some(first), Some(last)) => first.ordinal..last.ordinal + 1,
            _ => guessed.clone(),
        };
        let within_guess = read.start >= guessed.start && read.end <= guessed.end;
        let (events, tokens) = if within_guess || turns.is_empty() {
            (events, tokens)
        } else {
            tokio::try_join!(
                load_events(snapshot, session, read.clone(), level.head_chars()),
                turn_tokens(snapshot, session_id, read),
            )?
        };
        Ok(PageSource {
            level,
            turns,
            events,
            tokens,
            next_ordinal,
        })
    }

    fn pieces(&self, request: &DetailsRequest) -> Vec<TurnPiece> {
        let events_by_turn: HashMap<i64, Vec<&EventLine>> =
            by_turn(&self.events).into_iter().collect();
        let no_events = Vec::new();
        self.turns
            .iter()
            .map(|turn| {
                let events = events_by_turn.get(&turn.ordinal).unwrap_or(&no_events);
                let steps = split_turn(events);
                let tokens = self.tokens.get(&turn.ordinal).copied().unwrap_or_default();
                match self.level {
                    Level::Summary => summary_turn(turn, &steps, &tokens),
                    Level::Turns => turns_turn(turn, &steps, request.include_reasoning),
                    Level::Steps => steps_turn(turn, &steps, Some(PAYLOAD_CHARS)),
                    Level::Full => steps_turn(turn, &steps, None),
                }
            })
            .collect()
    }
}

fn fields_of(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(fields) => fields,
        _ => Map::new(),
    }
}

/// The user's message: the turn's user input events (as read), else the stored first
/// ~200 chars; cut to `max_chars` on one line when given.
fn user_message(turn: &TurnRow, steps: &TurnSteps<'_>, max_chars: Option<usize>) -> Value {
    let text = if steps.user.is_empty() {
        turn.user_input_text.clone()
    } else {
        Some(joined_text(&steps.user, None))
    };
    match (text, max_chars) {
        (None, _) => Value::Null,
        (Some(text), Some(max_chars)) => truncate(&collapse_whitespace(&text), max_chars).into(),
        (Some(text), None) => text.into(),
    }
}

/// A summary turn's `stats`: the seed's `{input_tokens, output_tokens}`, null without usage.
fn tokens_json(tokens: &Tokens) -> Value {
    if tokens.is_empty() {
        return Value::Null;
    }
    json!({
        "input_tokens": tokens.input,
        "output_tokens": tokens.output,
    })
}

fn summary_turn(turn: &TurnRow, steps: &TurnSteps<'_>, tokens: &Tokens) -> TurnPiece {
    let turn_index = turn.ordinal - 1;
    TurnPiece {
        turn_index,
        fields: fields_of(json!({
            "id": format!("turn-{turn_index}"),
            "turn_index": turn_index,
            "timestamp": turn.started_at.map(format_timestamp),
            "user_message": user_message(turn, &TurnSteps::default(), Some(USER_MESSAGE_CHARS)),
            "step_count": steps.steps.len(),
            "stats": tokens_json(tokens),
        })),
        steps: None,
    }
}

fn turns_turn(turn: &TurnRow, steps: &TurnSteps<'_>, include_reasoning: bool) -> TurnPiece {
    let turn_index = turn.ordinal - 1;
    let step_values = steps
        .steps
        .iter()
        .enumerate()
        .map(|(step_index, step)| {
            let tokens = step.tokens();
            let mut fields = fields_of(json!({
                "step_index": step_index,
                "summary": step_summary(step),
                "tool_calls": step.tool_calls(),
                "failed_tools": step.failed_tools(),
                "tokens": (!tokens.is_empty()).then(|| json!({"input": tokens.input, "output": tokens.output})),
            }));
            if include_reasoning && !step.reasoning.is_empty() {
                fields.insert(
                    "reasoning".into(),
                    joined_text(&step.reasoning, Some(PAYLOAD_CHARS)).into(),
                );
            }
            Value::Object(fields)
        })
        .collect();
    let mut key_actions = Vec::new();
    let tools = steps.tools_used();
    if !tools.is_empty() {
        key_actions.push(format!("Used tools: {}", tools.join(", ")));
    }
    let failed: usize = steps.steps.iter().map(Step::failed_tools).sum();
    if failed > 0 {
        key_actions.push(format!("{failed} tool execution(s) failed"));
    }
    TurnPiece {
        turn_index,
        fields: fields_of(json!({
            "turn_index": turn_index,
            "user_message": user_message(turn, steps, Some(USER_MESSAGE_CHARS)),
            "outcome": steps.outcome().as_str(),
            "key_actions": key_actions,
        })),
        steps: Some(step_values),
    }
}

/// `Read(file_path="/x") (ok), Bash(command="cargo test") (failed)`, or the message's start.
fn step_summary(step: &Step<'_>) -> String {
    let summary = if step.tools.is_empty() {
        match (step.messages.first(), step.reasoning.first()) {
            (Some(message), _) => format!("Replied: {}", collapse_whitespace(&message.text)),
            (None, Some(_)) => "Reasoning only".to_owned(),
            (None, None) => "No model output".to_owned(),
        }
    } else {
        step.tools
            .iter()
            .map(|tool| {
                let call = tool
                    .call
                    .map(|call| truncate(&collapse_whitespace(&call.text), 100))
                    .unwrap_or_else(|| tool.name().to_owned());
                let status = match tool.result {
                    None => "no result",
                    Some(result) if result.failed => "failed",
                    Some(_) => "ok",
                };
                format!("{call} ({status})")
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    truncate(&summary, STEP_SUMMARY_CHARS)
}

fn steps_turn(turn: &TurnRow, steps: &TurnSteps<'_>, cut: Option<usize>) -> TurnPiece {
    let turn_index = turn.ordinal - 1;
    let step_values = steps
        .steps
        .iter()
        .enumerate()
        .map(|(step_index, step)| step_json(step_index, step, cut))
        .collect();
    TurnPiece {
        turn_index,
        fields: fields_of(json!({
            "turn_index": turn_index,
            "timestamp": turn.started_at.map(format_timestamp),
            "user_message": user_message(turn, steps, cut),
            "outcome": steps.outcome().as_str(),
        })),
        steps: Some(step_values),
    }
}

fn step_json(step_index: usize, step: &Step<'_>, cut: Option<usize>) -> Value {
    let text_of = |events: &[&EventLine]| {
        (!events.is_empty()).then(|| json!({ "text": joined_text(events, cut) }))
    };
    let tools: Vec<Value> = step
        .tools
        .iter()
        .map(|tool| {
            json!({
                "call": tool.call.map(|call| json!({
                    "name": tool.name(),
                    "arguments": arguments_value(call, cut),
                    "event_index": call.event_index(),
                })),
                "result": tool.result.map(|result| json!({
                    "content": cut_text(&result.text, result.text_chars, cut),
                    "is_error": result.failed,
                    "exit_code": result.exit_code,
                    "event_index": result.event_index(),
                })),
            })
        })
        .collect();
    let tokens = step.tokens();
    json!({
        "step_index": step_index,
        "reasoning": text_of(&step.reasoning),
        "message": text_of(&step.messages),
        "tools": tools,
        "tokens": (!tokens.is_empty()).then(|| json!({"input": tokens.input, "output": tokens.output})),
    })
}

fn joined_text(events: &[&EventLine], cut: Option<usize>) -> String {
    let text = events
        .iter()
        .map(|event| event.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let chars = events.iter().map(|event| event.text_chars).sum::<i64>();
    cut_text(&text, chars, cut)
}

/// Text cut to `cut` characters (`...` marks a cut, including one made by the query's head).
fn cut_text(text: &str, full_chars: i64, cut: Option<usize>) -> String {
    match cut {
        Some(max_chars) if full_chars as usize > max_chars || text.chars().count() > max_chars => {
            truncate(text, max_chars)
        }
        _ => text.to_owned(),
    }
}

/// A tool call's arguments: the JSON object when whole, else its text cut to `cut`.
fn arguments_value(call: &EventLine, cut: Option<usize>) -> Value {
    let Some(payload) = call.payload.as_deref() else {
        return Value::Null;
    };
    let whole = cut.is_none_or(|max_chars| call.payload_chars as usize <= max_chars);
    if whole && let Ok(arguments) = serde_json::from_str::<Value>(payload) {
        return arguments;
    }
    Value::String(cut_text(payload, call.payload_chars, cut))
}
