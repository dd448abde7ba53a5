//! open(event): full event metadata and content (tool arguments, exit code, full output),
//! its parent turn and session, and traversal to adjacent events and turns.

use serde_json::{Map, Value, json};

use super::{TURN, adjacent_turn_ids, neighbours, ordinal_parameter, row_error};
use crate::mcp::catalog::{NamedQuery, WarmSnapshot, text_parameter};
use crate::mcp::envelope::{ToolError, ToolSuccess};
use crate::mcp::rows::{Row, RowError, Rows};
use crate::mcp::text::{format_timestamp, plain};
use crate::model::harness_of;
use crate::search::IndexedEvent;

const EVENT: NamedQuery = NamedQuery {
    name: "open_event",
    sql: include_str!("../../../queries/open_event.sql"),
};
const EVENT_IN_SESSION: NamedQuery = NamedQuery {
    name: "open_event_in_session",
    sql: include_str!("../../../queries/open_event_in_session.sql"),
};
const ADJACENT_EVENTS: NamedQuery = NamedQuery {
    name: "open_adjacent_events",
    sql: include_str!("../../../queries/open_adjacent_events.sql"),
};

pub async fn open(snapshot: &WarmSnapshot, event_id: &str) -> Result<ToolSuccess, ToolError> {
    if let Some(answer) = open_indexed(snapshot, event_id).await? {
        return Ok(answer);
    }
    let event_rows = event_rows(snapshot, event_id).await?;
    let Some(row) = event_rows.first() else {
        return Err(ToolError::not_found("event", event_id));
    };
    let position = EventPosition::of(&row).map_err(row_error(EVENT.name))?;
    let (turn_rows, (previous_event_id, next_event_id), (previous_turn_id, next_turn_id)) = tokio::try_join!(
        async {
            Ok(snapshot
                .run(TURN, vec![text_parameter(&position.turn_id)])
                .await?)
        },
        adjacent_event_ids(snapshot, &position),
        adjacent_turn_ids(snapshot, &position.session_id, position.turn_ordinal),
    )?;
    let turn_row = turn_rows
        .first()
        .ok_or_else(|| ToolError::internal(format!("event {event_id} has no turn row")))?;
    let view = EventView::from_row(&row).map_err(row_error(EVENT.name))?;
    let mut data = event_json(&view);
    let (session, turn) = parents_json(&turn_row).map_err(row_error(TURN.name))?;
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

/// open(event) from the index's stored event and the in-memory directory: no SQL, unless a
/// neighbour is an unindexed (`unknown`) event. `None` when the fast path does not apply.
async fn open_indexed(
    snapshot: &WarmSnapshot,
    event_id: &str,
) -> Result<Option<ToolSuccess>, ToolError> {
    let Some(directory) = snapshot.directory() else {
        return Ok(None);
    };
    let Some(event) = snapshot.indexed_event(event_id)? else {
        return Ok(None);
    };
    let (Some(turn), Some(session)) = (
        directory.turn(&event.turn_id),
        directory.session(&event.session_id),
    ) else {
        return Ok(None);
    };
    let (previous_event_id, next_event_id) =
        match snapshot.indexed_neighbours(&event.turn_id, event.ordinal)? {
            // Ordinals are contiguous: a missing neighbour inside the turn is an unindexed event.
            (previous, next)
                if (previous.is_some() || event.ordinal <= 1)
                    && (next.is_some() || event.ordinal >= turn.event_count) =>
            {
                (json!(previous), json!(next))
            }
            _ => {
                let position = EventPosition {
                    session_id: event.session_id.clone(),
                    turn_id: event.turn_id.clone(),
                    turn_ordinal: turn.ordinal,
                    ordinal: event.ordinal,
                };
                adjacent_event_ids(snapshot, &position).await?
            }
        };
    let (previous_turn_id, next_turn_id) =
        directory.adjacent_turns(&event.session_id, turn.ordinal);
    let mut data = event_json(&EventView::from_index(&event));
    data["session"] = json!({
        "id": event.session_id,
        "title": session.title,
        "source": session.source,
        "harness": harness_of(&session.source),
    });
    data["turn"] = json!({
        "id": event.turn_id,
        "ordinal": turn.ordinal,
        "completed": turn.completed,
    });
    data["traversal"] = json!({
        "session_id": event.session_id,
        "turn_id": event.turn_id,
        "previous_event_id": previous_event_id,
        "next_event_id": next_event_id,
        "previous_turn_id": previous_turn_id,
        "next_turn_id": next_turn_id,
    });
    let text = summarize(&data);
    Ok(Some(ToolSuccess::new(data, text)))
}

/// The event's row: located through the search index (partition and row-group pruning by
/// source and session) when it is indexed, else by scanning `event_id` everywhere.
async fn event_rows(snapshot: &WarmSnapshot, event_id: &str) -> Result<Rows, ToolError> {
    if let Some(location) = snapshot.locate_event(event_id)? {
        let parameters = vec![
            text_parameter(event_id),
            text_parameter(&location.session_id),
            text_parameter(&location.source),
        ];
        let rows = snapshot.run(EVENT_IN_SESSION, parameters).await?;
        if !rows.is_empty() {
            return Ok(rows);
        }
    }
    Ok(snapshot.run(EVENT, vec![text_parameter(event_id)]).await?)
}

/// Where an event sits: its session, turn and ordinals.
struct EventPosition {
    session_id: String,
    turn_id: String,
    turn_ordinal: i64,
    ordinal: i64,
}

impl EventPosition {
    fn of(row: &Row<'_>) -> Result<EventPosition, RowError> {
        Ok(EventPosition {
            session_id: row.string("session_id")?.to_owned(),
            turn_id: row.string("turn_id")?.to_owned(),
            turn_ordinal: row.i64("turn_ordinal")?,
            ordinal: row.i64("ordinal")?,
        })
    }
}

async fn adjacent_event_ids(
    snapshot: &WarmSnapshot,
    position: &EventPosition,
) -> Result<(Value, Value), ToolError> {
    let parameters = vec![
        text_parameter(&position.session_id),
        text_parameter(&position.turn_id),
        ordinal_parameter(position.ordinal - 1),
        ordinal_parameter(position.ordinal + 1),
    ];
    let rows = snapshot.run(ADJACENT_EVENTS, parameters).await?;
    neighbours(&rows, "event_id", position.ordinal).map_err(row_error(ADJACENT_EVENTS.name))
}

/// The event's columns, from a row of `queries/open_event*.sql` or from the index.
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

    fn from_index(event: &'a IndexedEvent) -> EventView<'a> {
        let detail = &event.detail;
        EventView {
            event_id: &event.event_id,
            session_id: &event.session_id,
            turn_id: &event.turn_id,
            ordinal: event.ordinal,
            event_type: &event.event_type,
            timestamp: event.timestamp_micros.map(|micros| micros * 1000),
            terminal: event.terminal,
            model: detail.model.as_deref(),
            originating_model: detail.originating_model.as_deref(),
            tool_name: detail.tool_name.as_deref(),
            tool_call_id: detail.tool_call_id.as_deref(),
            exit_code: detail.exit_code,
            subtype: detail.subtype.as_deref(),
            text: &event.text,
            payload: detail.payload.as_deref(),
        }
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

/// The compact `session` and `turn` parents of the event.
fn parents_json(turn_row: &Row<'_>) -> Result<(Value, Value), RowError> {
    let session = json!({
        "id": turn_row.string("session_id")?,
        "title": turn_row.string("title")?,
        "source": turn_row.string("source")?,
        "harness": harness_of(turn_row.string("source")?),
    });
    let turn = json!({
        "id": turn_row.string("turn_id")?,
        "ordinal": turn_row.i64("ordinal")?,
        "completed": turn_row.bool("completed")?,
    });
    Ok((session, turn))
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
