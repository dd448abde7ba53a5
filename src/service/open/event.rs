//! open(event): full event metadata and content (tool arguments, exit code, full output),
//! its parent turn and session, and traversal to adjacent events and turns.

use serde_json::{Map, Value, json};

use super::{neighbourhood, row_error};
use crate::model::harness_of;
use crate::search::EventLocation;
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::service::envelope::{ToolError, ToolSuccess};
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::{format_timestamp, plain};

const EVENT: NamedQuery = NamedQuery {
    name: "open_event_located",
    sql: include_str!("../../../queries/open_event_located.sql"),
};
const ADJACENT_EVENTS: NamedQuery = NamedQuery {
    name: "open_adjacent_events",
    sql: include_str!("../../../queries/open_adjacent_events.sql"),
};

/// open(event): the index locates the row (partition, session, seq); its row and its
/// neighbours in the session are SQL, run at once; then its turn, session and adjacent turns
/// (`queries/turn_neighbourhood.sql`).
pub async fn open(snapshot: &WarmSnapshot, event_id: &str) -> Result<ToolSuccess, ToolError> {
    let Some(location) = snapshot.locate_event(event_id)? else {
        return Err(ToolError::not_found("event", event_id));
    };
    let (event_rows, adjacent_rows) = tokio::try_join!(
        event_rows(snapshot, event_id, &location),
        adjacent_rows(snapshot, &location),
    )?;
    let Some(row) = event_rows.first() else {
        return Err(ToolError::not_found("event", event_id));
    };
    let position = EventPosition::of(&row).map_err(row_error(EVENT.name))?;
    let (previous_event_id, next_event_id) =
        same_turn_neighbours(&adjacent_rows, &position, location.seq)
            .map_err(row_error(ADJACENT_EVENTS.name))?;
    let Parents {
        session,
        turn,
        previous_turn_id,
        next_turn_id,
    } = parents(snapshot, &position, event_id).await?;
    let view = EventView::from_row(&row).map_err(row_error(EVENT.name))?;
    let mut data = event_json(&view);
    data["session"] = session;
    data["turn"] = turn;
    data["traversal"] = json!({
        "session_id": position.session_id,
        "turn_id": position.turn_id,
        "previous_event_id": previous_event_id,
        "next_event_id": next_event_id,
        "previous_turn_id": previous_turn_id,
        "next_turn_id": next_turn_id,
    });
    let text = summarize(&data);
    Ok(ToolSuccess::new(data, text))
}

/// The event's `session` and `turn` parents and the turns around its turn.
struct Parents {
    session: Value,
    turn: Value,
    previous_turn_id: Value,
    next_turn_id: Value,
}

/// The parents, from the turn's neighbourhood in its session.
async fn parents(
    snapshot: &WarmSnapshot,
    position: &EventPosition,
    event_id: &str,
) -> Result<Parents, ToolError> {
    let around = neighbourhood(
        snapshot,
        &position.session_id,
        &position.turn_id,
        position.turn_ordinal,
    )
    .await?
    .ok_or_else(|| ToolError::internal(format!("event {event_id} has no turn row")))?;
    Ok(Parents {
        session: json!({
            "id": position.session_id,
            "title": around.title,
            "source": around.source,
            "harness": harness_of(&around.source),
        }),
        turn: json!({
            "id": position.turn_id,
            "ordinal": position.turn_ordinal,
            "completed": around.completed,
        }),
        previous_turn_id: around.previous_turn_id,
        next_turn_id: around.next_turn_id,
    })
}

/// The event's row, where the index located it.
async fn event_rows(
    snapshot: &WarmSnapshot,
    event_id: &str,
    location: &EventLocation,
) -> Result<Rows, ToolError> {
    let mut parameters = location_parameters(location);
    parameters.push(seq_parameter(location.seq));
    parameters.push(text_parameter(event_id));
    Ok(snapshot.run(EVENT, parameters).await?)
}

/// The rows just before and after the located event in its session.
async fn adjacent_rows(
    snapshot: &WarmSnapshot,
    location: &EventLocation,
) -> Result<Rows, ToolError> {
    let mut parameters = location_parameters(location);
    parameters.push(seq_parameter(location.seq - 1));
    parameters.push(seq_parameter(location.seq + 1));
    Ok(snapshot.run(ADJACENT_EVENTS, parameters).await?)
}

/// `$1..$3` of the located queries: source, month, session id.
fn location_parameters(location: &EventLocation) -> Vec<datafusion::scalar::ScalarValue> {
    vec![
        text_parameter(&location.source),
        text_parameter(&location.month),
        text_parameter(&location.session_id),
    ]
}

/// A BIGINT `seq` parameter.
fn seq_parameter(seq: i64) -> datafusion::scalar::ScalarValue {
    datafusion::scalar::ScalarValue::Int64(Some(seq))
}

/// The ids of the events just before and after the event at `seq` within its turn (a turn's
/// events are consecutive in the session, so those are its session neighbours when they
/// share its turn).
fn same_turn_neighbours(
    rows: &Rows,
    position: &EventPosition,
    seq: i64,
) -> Result<(Value, Value), RowError> {
    let mut previous = Value::Null;
    let mut next = Value::Null;
    for row in rows.iter() {
        if row.string("turn_id")? != position.turn_id {
            continue;
        }
        let id = Value::String(row.string("event_id")?.to_owned());
        match row.i64("seq")? {
            neighbour if neighbour == seq - 1 => previous = id,
            neighbour if neighbour == seq + 1 => next = id,
            _ => {}
        }
    }
    Ok((previous, next))
}

/// Where an event sits: its session, turn and turn ordinal.
struct EventPosition {
    session_id: String,
    turn_id: String,
    turn_ordinal: i64,
}

impl EventPosition {
    fn of(row: &Row<'_>) -> Result<EventPosition, RowError> {
        Ok(EventPosition {
            session_id: row.string("session_id")?.to_owned(),
            turn_id: row.string("turn_id")?.to_owned(),
            turn_ordinal: row.i64("turn_ordinal")?,
        })
    }
}

/// The event's columns, from a row of `queries/open_event_located.sql`.
struct EventView<'a> {
    event_id: &'a str,
    session_id: &'a str,
    turn_id: &'a str,
    ordinal: i64,
    event_type: &'a str,
    /// UTC nanoseconds.
    timestamp: Option<i64>,
    terminal: bool,
    model: Option<&'a str>,
    originating_model: Option<&'a str>,
    tool_name: Option<&'a str>,
    tool_call_id: Option<&'a str>,
    exit_code: Option<i64>,
    subtype: Option<&'a str>,
    text: &'a str,
    payload: Option<&'a str>,
}

impl<'a> EventView<'a> {
    fn from_row(row: &Row<'a>) -> Result<EventView<'a>, RowError> {
        Ok(EventView {
            event_id: row.string("event_id")?,
            session_id: row.string("session_id")?,
            turn_id: row.string("turn_id")?,
            ordinal: row.i64("ordinal")?,
            event_type: row.string("type")?,
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            terminal: row.bool("terminal")?,
            model: row.opt_string("model")?,
            originating_model: row.opt_string("originating_model")?,
            tool_name: row.opt_string("tool_name")?,
            tool_call_id: row.opt_string("tool_call_id")?,
            exit_code: row.opt_i64("exit_code")?,
            subtype: row.opt_string("subtype")?,
            text: row.string("text")?,
            payload: row.opt_string("payload")?,
        })
    }
}

/// `kind`, `event` and `content` of the response.
fn event_json(event: &EventView<'_>) -> Value {
    json!({
        "kind": "event",
        "event": {
            "id": event.event_id,
            "session_id": event.session_id,
            "turn_id": event.turn_id,
            "ordinal": event.ordinal,
            "type": event.event_type,
            "timestamp": event.timestamp.map(format_timestamp),
            "terminal": event.terminal,
            "model": event.model,
            "originating_model": event.originating_model,
            "tool_name": event.tool_name,
            "tool_call_id": event.tool_call_id,
            "subtype": event.subtype,
        },
        "content": content_json(event),
    })
}

/// Full content: `text` always; tool calls add `tool_name` and parsed `arguments`; tool
/// responses add `tool_name` and `exit_code`; any other structured payload rides along.
fn content_json(event: &EventView<'_>) -> Value {
    let payload = event
        .payload
        .map(|text| serde_json::from_str::<Value>(text).unwrap_or(Value::String(text.into())));
    let mut content = Map::new();
    match event.event_type {
        "tool_call" => {
            content.insert("format".into(), json!("tool_call"));
            content.insert("tool_name".into(), json!(event.tool_name));
            content.insert("arguments".into(), payload.unwrap_or(Value::Null));
        }
        "tool_response" => {
            content.insert("format".into(), json!("tool_response"));
            content.insert("tool_name".into(), json!(event.tool_name));
            content.insert("exit_code".into(), json!(event.exit_code));
            if let Some(payload) = payload {
                content.insert("payload".into(), payload);
            }
        }
        _ => {
            content.insert("format".into(), json!("text"));
            if let Some(payload) = payload {
                content.insert("payload".into(), payload);
            }
        }
    }
    content.insert("text".into(), json!(event.text));
    content.insert("truncated".into(), json!(false));
    Value::Object(content)
}

/// The text summary carries the full content: text-only clients need the evidence too.
fn summarize(data: &Value) -> String {
    let event = &data["event"];
    let traversal = &data["traversal"];
    let tool = event["tool_name"]
        .as_str()
        .map(|name| format!(" {name}"))
        .unwrap_or_default();
    format!(
        "event {} ({}{}, #{} of turn {}, session \"{}\", {})\n\n{}\n\nprevious event: {} | next event: {} | turn: {} | session: {}",
        plain(&event["id"]),
        plain(&event["type"]),
        tool,
        event["ordinal"],
        plain(&traversal["turn_id"]),
        plain(&data["session"]["title"]),
        plain(&event["timestamp"]),
        plain(&data["content"]["text"]),
        plain(&traversal["previous_event_id"]),
        plain(&traversal["next_event_id"]),
        plain(&traversal["turn_id"]),
        plain(&traversal["session_id"]),
    )
}
