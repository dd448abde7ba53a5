//! open(turn): turn metadata, its session's title, a compact summary, one-line summaries of
//! every event, and traversal to the adjacent turns and the first and last event.

use serde_json::{Value, json};

use super::{
    excerpt_json, json_array_column, neighbourhood, ordinal_parameter, row_error, timestamp_json,
};
use crate::model::harness_of;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::service::directory::TURN_BY_ID;
use crate::service::envelope::{ToolError, ToolSuccess};
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::{format_timestamp, one_line_summary, plain};
use crate::service::usage::row_usage_json;

const TURN_ALONE: NamedQuery = NamedQuery {
    name: "open_turn_alone",
    sql: include_str!("../../../queries/open_turn_alone.sql"),
};
const EVENTS: NamedQuery = NamedQuery {
    name: "open_turn_events",
    sql: include_str!("../../../queries/open_turn_events.sql"),
};
/// Chars of event text `open_turn_events.sql` fetches (`left(text, 4000)`).
const TEXT_HEAD_CHARS: i64 = 4000;

/// open(turn): the turn's session and ordinal by its id (`queries/turn_by_id.sql`), then at
/// once its row, its events and its neighbourhood (session names, adjacent turns).
pub async fn open(snapshot: &WarmSnapshot, turn_id: &str) -> Result<ToolSuccess, ToolError> {
    let brief = snapshot
        .run(TURN_BY_ID, vec![text_parameter(turn_id)])
        .await?;
    let Some(brief) = brief.first() else {
        return Err(ToolError::not_found("turn", turn_id));
    };
    let session_id = brief
        .string("session_id")
        .map_err(row_error(TURN_BY_ID.name))?;
    let ordinal = brief.i64("ordinal").map_err(row_error(TURN_BY_ID.name))?;
    let (turn_rows, event_rows, around) = tokio::try_join!(
        turn_row(snapshot, session_id, turn_id),
        turn_events(snapshot, session_id, turn_id, ordinal),
        neighbourhood(snapshot, session_id, turn_id, ordinal),
    )?;
    let Some(around) = around else {
        return Err(ToolError::internal(format!(
            "turn {turn_id} has no session {session_id}"
        )));
    };
    let Some(row) = turn_rows.first() else {
        return Err(ToolError::not_found("turn", turn_id));
    };
    let events = summaries_of(&event_rows)?;
    let names = SessionNames {
        title: &around.title,
        source: &around.source,
    };
    let mut data = turn_json(&row, &names).map_err(row_error(TURN_ALONE.name))?;
    data["events"] = Value::Array(events);
    data["traversal"] = traversal_json(&row, around.previous_turn_id, around.next_turn_id)?;
    let text = summarize(&data);
    Ok(ToolSuccess::new(data, text))
}

/// The turn's row (`queries/open_turn_alone.sql`): the keyed `turns` scan opens only the
/// bucket files holding the session and reads only its rows.
async fn turn_row(
    snapshot: &WarmSnapshot,
    session_id: &str,
    turn_id: &str,
) -> Result<Rows, ToolError> {
    let parameters = vec![text_parameter(session_id), text_parameter(turn_id)];
    Ok(snapshot.run(TURN_ALONE, parameters).await?)
}

/// The turn's events by ordinal (`queries/open_turn_events.sql`), in the partition the index
/// locates them in; none when the index has no event of the turn.
async fn turn_events(
    snapshot: &WarmSnapshot,
    session_id: &str,
    turn_id: &str,
    turn_ordinal: i64,
) -> Result<Rows, ToolError> {
    let Some(location) = snapshot.locate_turn(turn_id)? else {
        return Ok(Rows::default());
    };
    let parameters = vec![
        text_parameter(&location.source),
        text_parameter(&location.month),
        text_parameter(session_id),
        ordinal_parameter(turn_ordinal),
    ];
    Ok(snapshot.run(EVENTS, parameters).await?)
}

/// The session's title and source, as the response shows them.
struct SessionNames<'a> {
    title: &'a str,
    source: &'a str,
}

fn traversal_json(
    row: &Row<'_>,
    previous_turn_id: Value,
    next_turn_id: Value,
) -> Result<Value, ToolError> {
    let column = |name: &str| row.string(name).map_err(row_error(TURN_ALONE.name));
    Ok(json!({
        "session_id": column("session_id")?,
        "previous_turn_id": previous_turn_id,
        "next_turn_id": next_turn_id,
        "first_event_id": column("first_event_id")?,
        "last_event_id": column("last_event_id")?,
    }))
}

/// `kind`, `turn`, `session` and `summary` of the response.
fn turn_json(row: &Row<'_>, session: &SessionNames<'_>) -> Result<Value, RowError> {
    Ok(json!({
        "kind": "turn",
        "turn": {
            "id": row.string("turn_id")?,
            "session_id": row.string("session_id")?,
            "ordinal": row.i64("ordinal")?,
            "completed": row.bool("completed")?,
            "terminal_event_id": row.opt_string("terminal_event_id")?,
            "event_count": row.i64("event_count")?,
            "started_at": timestamp_json(row, "started_at")?,
            "updated_at": timestamp_json(row, "updated_at")?,
            "usage": row_usage_json(row)?,
        },
        "session": {
            "id": row.string("session_id")?,
            "title": session.title,
            "source": session.source,
            "harness": harness_of(session.source),
        },
        "summary": {
            "user_input": excerpt_json(row, "user_input")?,
            "final_response": excerpt_json(row, "final_response")?,
            "tools_called": json_array_column(row, "tools_called")?,
            "event_types": json_array_column(row, "event_types")?,
        },
    }))
}

/// The one-line summaries of the rows of `queries/open_turn_events.sql`.
fn summaries_of(rows: &Rows) -> Result<Vec<Value>, ToolError> {
    rows.iter()
        .map(|row| EventSummary::from_row(&row).map(|summary| event_summary_json(&summary)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(row_error(EVENTS.name))
}

/// What an event's line in open(turn) shows.
struct EventSummary<'a> {
    event_id: &'a str,
    ordinal: i64,
    event_type: &'a str,
    /// UTC nanoseconds.
    timestamp: Option<i64>,
    terminal: bool,
    tool_name: Option<&'a str>,
    model: Option<&'a str>,
    /// The first `TEXT_HEAD_CHARS` chars of the text.
    text_head: &'a str,
    text_chars: i64,
}

impl<'a> EventSummary<'a> {
    fn from_row(row: &Row<'a>) -> Result<EventSummary<'a>, RowError> {
        Ok(EventSummary {
            event_id: row.string("event_id")?,
            ordinal: row.i64("ordinal")?,
            event_type: row.string("type")?,
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            terminal: row.bool("terminal")?,
            tool_name: row.opt_string("tool_name")?,
            model: row.opt_string("model")?,
            text_head: row.string("text_head")?,
            text_chars: row.i64("text_chars")?,
        })
    }
}

/// The spec's event summary shape: one line of at most 200 chars.
fn event_summary_json(event: &EventSummary<'_>) -> Value {
    let summary = one_line_summary(event.text_head);
    let text_was_cut = event.text_chars > TEXT_HEAD_CHARS;
    json!({
        "id": event.event_id,
        "ordinal": event.ordinal,
        "type": event.event_type,
        "timestamp": event.timestamp.map(format_timestamp),
        "terminal": event.terminal,
        "tool_name": event.tool_name,
        "model": event.model,
        "summary": summary.text,
        "truncated": summary.truncated || text_was_cut,
    })
}

fn summarize(data: &Value) -> String {
    let turn = &data["turn"];
    let mut text = format!(
        "turn {} (#{} of session {} \"{}\", {} events, {})",
        plain(&turn["id"]),
        turn["ordinal"],
        plain(&data["session"]["id"]),
        plain(&data["session"]["title"]),
        turn["event_count"],
        if turn["completed"] == true {
            "completed"
        } else {
            "incomplete"
        },
    );
    for event in data["events"].as_array().into_iter().flatten() {
        text.push_str(&format!(
            "\n{}. {} {}: {}",
            event["ordinal"],
            plain(&event["id"]),
            plain(&event["type"]),
            plain(&event["summary"]),
        ));
    }
    let traversal = &data["traversal"];
    text.push_str(&format!(
        "\nprevious turn: {} | next turn: {}",
        plain(&traversal["previous_turn_id"]),
        plain(&traversal["next_turn_id"]),
    ));
    text
}
