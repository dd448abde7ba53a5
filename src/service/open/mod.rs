//! `open`: expands a session, turn or event id into structured context. Validation and
//! dispatch live here; each kind's response is built in its own module.

mod event;
mod page;
mod range;
mod session;
mod turn;

use std::time::Duration;

use serde_json::{Value, json};

use crate::service::catalog::{Catalog, WarmSnapshot, text_parameter};
use crate::service::directory::TURN_NEIGHBOURHOOD;
use crate::service::envelope::{SlaTarget, ToolError, ToolName, ToolSuccess};
use crate::service::handler::ToolHandler;
use crate::service::project_scope;
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::format_timestamp;
use crate::service::validate::{
    Arguments, IdKind, McpId, optional_string, parse_id_field, reject_unknown_fields,
    required_string,
};

pub const FIELDS: [&str; 4] = ["id", "sessions", "limit", "cursor"];
/// The spec sets no deadline for `open`; this bounds a pathological request.
pub const DEADLINE: Duration = Duration::from_secs(5);

const SLA_EVENT: SlaTarget = SlaTarget::ms(200);
const SLA_TURN: SlaTarget = SlaTarget::ms(300);
const SLA_SESSION: SlaTarget = SlaTarget::ms(500);
/// open(session) of a session with more than 100 (up to 1000) turns.
const SLA_LARGE_SESSION: SlaTarget = SlaTarget::ms(1500);
const LARGE_SESSION_TURNS: usize = 100;

pub struct Open;

/// An open request: the id, and for a session id optionally a range of its chain's sessions
/// (additive, relay-search's syntax).
#[derive(Debug, Clone)]
pub struct OpenRequest {
    pub id: McpId,
    pub sessions: Option<String>,
    /// Moraine's paging of the children (`limit`, `cursor`); `None`: every child.
    pub page: Option<page::Page>,
}

impl ToolHandler for Open {
    type Request = OpenRequest;

    const NAME: ToolName = ToolName::Open;

    fn parse(arguments: &Arguments) -> Result<OpenRequest, ToolError> {
        reject_unknown_fields(arguments, &FIELDS)?;
        let text = required_string(arguments, "id")?;
        let id = parse_id_field("id", text)?;
        let sessions = optional_string(arguments, "sessions")?.map(str::to_owned);
        if sessions.is_some() && id.kind != IdKind::Session {
            return Err(ToolError::invalid_request(
                "sessions",
                "sessions selects members of a session's chain: pass a session id",
            ));
        }
        let page = page::requested(arguments, &id)?;
        if page.is_some() && sessions.is_some() {
            return Err(ToolError::invalid_request(
                "limit",
                "limit and cursor page one session or turn; open a chain range without them",
            ));
        }
        Ok(OpenRequest { id, sessions, page })
    }

    fn rejected_sla(arguments: &Arguments) -> SlaTarget {
        let kind = arguments
            .get("id")
            .and_then(Value::as_str)
            .and_then(McpId::parse)
            .map(|id| id.kind);
        kind.map(sla_for_kind).unwrap_or(SLA_EVENT)
    }

    fn canonical(request: &OpenRequest) -> Value {
        let mut canonical = json!({ "id": request.id.text });
        if let Some(sessions) = &request.sessions {
            canonical["sessions"] = json!(sessions);
        }
        if let Some(page) = request.page {
            canonical["limit"] = json!(page.limit);
            if page.offset > 0 {
                canonical["cursor"] = json!(page::encode(page, &request.id.text));
            }
        }
        canonical
    }

    fn sla(request: &OpenRequest) -> SlaTarget {
        sla_for_kind(request.id.kind)
    }

    fn deadline(_request: &OpenRequest) -> Duration {
        DEADLINE
    }

    async fn execute(catalog: &Catalog, request: &OpenRequest) -> Result<ToolSuccess, ToolError> {
        let snapshot = catalog.snapshot().await?;
        let id = &request.id;
        // A project-only server answers an id of another project as it answers a missing one.
        if !project_scope::admits(&snapshot, id).await? {
            return Err(ToolError::not_found(id.kind.noun(), &id.text));
        }
        let mut success = match &request.sessions {
            Some(sessions) => range::open(&snapshot, &id.text, sessions).await?,
            None => open_one(&snapshot, request).await?,
        };
        if let Some(in_scope) = snapshot.sessions_in_scope().await? {
            project_scope::hide_links_outside(&mut success.data, &in_scope);
        }
        Ok(success)
    }
}

/// open of one session, turn or event, paged when asked.
async fn open_one(
    snapshot: &WarmSnapshot,
    request: &OpenRequest,
) -> Result<ToolSuccess, ToolError> {
    let id = &request.id;
    let mut success = match id.kind {
        IdKind::Session => session::open(snapshot, &id.text).await,
        IdKind::Turn => turn::open(snapshot, &id.text).await,
        IdKind::Event => event::open(snapshot, &id.text).await,
    }?;
    if let Some(page) = request.page {
        page::apply(&mut success.data, page, &id.text);
    }
    Ok(success)
}

fn sla_for_kind(kind: IdKind) -> SlaTarget {
    match kind {
        IdKind::Session => SLA_SESSION,
        IdKind::Turn => SLA_TURN,
        IdKind::Event => SLA_EVENT,
    }
}

/// Row decoding failures are internal errors naming the query.
fn row_error(query: &'static str) -> impl Fn(RowError) -> ToolError {
    move |error| ToolError::internal(format!("{query}: {error}"))
}

/// A nullable timestamp column as an RFC 3339 string or null.
fn timestamp_json(row: &Row<'_>, column: &str) -> Result<Value, RowError> {
    Ok(row
        .opt_timestamp_nanos(column)?
        .map(format_timestamp)
        .map_or(Value::Null, Value::String))
}

/// A JSON-array string column (`tools_called`, `event_types`) as an array.
fn json_array_column(row: &Row<'_>, column: &str) -> Result<Value, RowError> {
    let text = row.opt_string(column)?.unwrap_or("[]");
    Ok(serde_json::from_str::<Value>(text)
        .ok()
        .filter(Value::is_array)
        .unwrap_or_else(|| json!([])))
}

/// `{event_id, text, truncated}` from a turn's excerpt columns, or null without an event.
fn excerpt_json(row: &Row<'_>, prefix: &str) -> Result<Value, RowError> {
    let Some(event_id) = row.opt_string(&format!("{prefix}_event_id"))? else {
        return Ok(Value::Null);
    };
    Ok(json!({
        "event_id": event_id,
        "text": row.opt_string(&format!("{prefix}_text"))?.unwrap_or_default(),
        "truncated": row.opt_bool(&format!("{prefix}_truncated"))?.unwrap_or(false),
    }))
}

/// What open(turn) and open(event) show of a turn's surroundings, from
/// `queries/turn_neighbourhood.sql`.
struct Neighbourhood {
    completed: bool,
    title: String,
    source: String,
    /// The ids of the turns at `ordinal - 1` and `ordinal + 1` (null at the ends).
    previous_turn_id: Value,
    next_turn_id: Value,
}

/// The turn `turn_id` at `ordinal` of the session, its session's names and the turns around
/// it; `None` when the session has no such turn.
async fn neighbourhood(
    snapshot: &WarmSnapshot,
    session_id: &str,
    turn_id: &str,
    ordinal: i64,
) -> Result<Option<Neighbourhood>, ToolError> {
    let parameters = vec![
        text_parameter(session_id),
        ordinal_parameter(ordinal - 1),
        ordinal_parameter(ordinal),
        ordinal_parameter(ordinal + 1),
    ];
    let rows = snapshot.run(TURN_NEIGHBOURHOOD, parameters).await?;
    Neighbourhood::of(&rows, turn_id, ordinal).map_err(row_error(TURN_NEIGHBOURHOOD.name))
}

impl Neighbourhood {
    fn of(rows: &Rows, turn_id: &str, ordinal: i64) -> Result<Option<Neighbourhood>, RowError> {
        let mut turn = None;
        for row in rows.iter() {
            if row.string("turn_id")? == turn_id && row.i64("ordinal")? == ordinal {
                turn = Some(row);
            }
        }
        let Some(turn) = turn else {
            return Ok(None);
        };
        let (previous_turn_id, next_turn_id) = neighbours(rows, "turn_id", ordinal)?;
        Ok(Some(Neighbourhood {
            completed: turn.bool("completed")?,
            title: turn.string("title")?.to_owned(),
            source: turn.string("source")?.to_owned(),
            previous_turn_id,
            next_turn_id,
        }))
    }
}

/// An INT ordinal parameter.
fn ordinal_parameter(ordinal: i64) -> datafusion::scalar::ScalarValue {
    datafusion::scalar::ScalarValue::Int32(Some(ordinal as i32))
}

/// From rows of `(id_column, ordinal)`, the ids just before and after `ordinal`.
fn neighbours(rows: &Rows, id_column: &str, ordinal: i64) -> Result<(Value, Value), RowError> {
    let mut previous = Value::Null;
    let mut next = Value::Null;
    for row in rows.iter() {
        let id = Value::String(row.string(id_column)?.to_owned());
        match row.i64("ordinal")? {
            neighbour if neighbour == ordinal - 1 => previous = id,
            neighbour if neighbour == ordinal + 1 => next = id,
            _ => {}
        }
    }
    Ok((previous, next))
}
