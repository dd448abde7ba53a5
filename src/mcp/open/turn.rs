//! open(turn): turn metadata, its session's title, a compact summary, one-line summaries of
//! every event, and traversal to the adjacent turns and the first and last event.

use serde_json::{Value, json};

use super::{TURN, adjacent_turn_ids, excerpt_json, json_array_column, row_error, timestamp_json};
use crate::mcp::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::mcp::envelope::{ToolError, ToolSuccess};
use crate::mcp::rows::{Row, RowError};
use crate::mcp::text::{one_line_summary, plain};

const EVENTS: NamedQuery = NamedQuery {
    name: "open_turn_events",
    sql: include_str!("../../../queries/open_turn_events.sql"),
};
/// Chars of event text `open_turn_events.sql` fetches (`left(text, 4000)`).
const TEXT_HEAD_CHARS: i64 = 4000;

pub async fn open(snapshot: &WarmSnapshot, turn_id: &str) -> Result<ToolSuccess, ToolError> {
    let turn_rows = snapshot.run(TURN, vec![text_parameter(turn_id)]).await?;
    let Some(row) = turn_rows.first() else {
        return Err(ToolError::not_found("turn", turn_id));
    };
    let session_id = row.string("session_id").map_err(row_error(TURN.name))?;
    let ordinal = row.i64("ordinal").map_err(row_error(TURN.name))?;
    let events_parameters = vec![text_parameter(session_id), text_parameter(turn_id)];
    let (event_rows, (previous_turn_id, next_turn_id)) = tokio::try_join!(
        async { Ok(snapshot.run(EVENTS, events_parameters).await?) },
        adjacent_turn_ids(snapshot, session_id, ordinal),
    )?;
    let events = event_rows
        .iter()
        .map(|event_row| event_summary_json(&event_row))
        .collect::<Result<Vec<_>, _>>()
        .map_err(row_error(EVENTS.name))?;
    let mut data = turn_json(&row).map_err(row_error(TURN.name))?;
    data["events"] = Value::Array(events);
    data["traversal"] = json!({
        "session_id": session_id,
        "previous_turn_id": previous_turn_id,
        "next_turn_id": next_turn_id,
        "first_event_id": row.string("first_event_id").map_err(row_error(TURN.name))?,
        "last_event_id": row.string("last_event_id").map_err(row_error(TURN.name))?,
    });
    let text = summarize(&data);
    Ok(ToolSuccess::new(data, text))
}

/// `kind`, `turn`, `session` and `summary` of the response.
fn turn_json(row: &Row<'_>) -> Result<Value, RowError> {
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
        },
        "session": {
            "id": row.string("session_id")?,
            "title": row.string("title")?,
            "source": row.string("source")?,
        },
        "summary": {
            "user_input": excerpt_json(row, "user_input")?,
            "final_response": excerpt_json(row, "final_response")?,
            "tools_called": json_array_column(row, "tools_called")?,
            "event_types": json_array_column(row, "event_types")?,
        },
    }))
}

/// The spec's event summary shape: one line of at most 200 chars.
fn event_summary_json(row: &Row<'_>) -> Result<Value, RowError> {
    let summary = one_line_summary(row.string("text_head")?);
    let text_was_cut = row.i64("text_chars")? > TEXT_HEAD_CHARS;
    Ok(json!({
        "id": row.string("event_id")?,
        "ordinal": row.i64("ordinal")?,
        "type": row.string("type")?,
        "timestamp": timestamp_json(row, "timestamp")?,
        "terminal": row.bool("terminal")?,
        "tool_name": row.opt_string("tool_name")?,
        "model": row.opt_string("model")?,
        "summary": summary.text,
        "truncated": summary.truncated || text_was_cut,
    }))
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
