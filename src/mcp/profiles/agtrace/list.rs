//! `list_sessions` (newest sessions first, filtered by provider, project and start time,
//! keyset-paginated) and `get_project_info` (sessions grouped by project root).

use chrono::{DateTime, Utc};
use datafusion::scalar::ScalarValue;
use serde_json::{Value, json};

use super::args::{
    datetime, limit, optional_text, provider, provider_of, reject_unknown, truncate,
};
use super::cursor;
use super::reply::AgError;
use super::steps::session_totals;
use super::{AgTool, Context};
use crate::service::catalog::{NamedQuery, text_parameter, timestamp_parameter};
use crate::service::rows::RowError;
use crate::service::text::{collapse_whitespace, format_timestamp};
use crate::service::validate::Arguments;

/// Both queries read the sessions of one definition, `queries/agtrace_sessions.sql` (the
/// scope is its `$1`, `$2`), so a project's `session_count` is what `list_sessions` lists for
/// its hash.
const LIST: NamedQuery = NamedQuery {
    name: "agtrace_list_sessions",
    sql: concat!(
        include_str!("../../../../queries/agtrace_sessions.sql"),
        include_str!("../../../../queries/agtrace_list_sessions.sql")
    ),
};
const PROJECTS: NamedQuery = NamedQuery {
    name: "agtrace_projects",
    sql: concat!(
        include_str!("../../../../queries/agtrace_sessions.sql"),
        include_str!("../../../../queries/agtrace_projects.sql")
    ),
};

const LIST_FIELDS: [&str; 6] = [
    "limit",
    "cursor",
    "provider",
    "project_hash",
    "since",
    "until",
];
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;
const SNIPPET_CHARS: usize = 200;
const CURSOR_TAG: &str = "sessions";
/// Most projects get_project_info lists (its response stays within the seed's 20 KB).
const MAX_PROJECTS: usize = 60;

/// A validated `list_sessions` request.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    pub limit: usize,
    pub source: Option<&'static str>,
    pub project_hash: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// The cursor as given and the (started_at nanos, session id) after which the page starts.
    pub cursor: Option<(String, i64, String)>,
}

impl ListRequest {
    fn filter(&self) -> String {
        let nanos = |time: Option<DateTime<Utc>>| time.and_then(|t| t.timestamp_nanos_opt());
        format!(
            "{:?}|{:?}|{:?}|{:?}",
            self.source,
            self.project_hash,
            nanos(self.since),
            nanos(self.until)
        )
    }
}

pub struct ListSessions;

impl AgTool for ListSessions {
    type Request = ListRequest;

    const NAME: &'static str = "list_sessions";

    fn parse(arguments: &Arguments) -> Result<ListRequest, AgError> {
        reject_unknown(arguments, &LIST_FIELDS)?;
        let mut request = ListRequest {
            limit: limit(arguments, DEFAULT_LIMIT, MAX_LIMIT)?,
            source: provider(arguments)?,
            project_hash: optional_text(arguments, "project_hash")?
                .map(|hash| hash.trim().to_ascii_lowercase())
                .filter(|hash| !hash.is_empty()),
            since: datetime(arguments, "since")?,
            until: datetime(arguments, "until")?,
            cursor: None,
        };
        if let Some(text) = optional_text(arguments, "cursor")? {
            let position = cursor::decode(CURSOR_TAG, &request.filter(), text, 2)?;
            let nanos = cursor::number(&position[0], text)?;
            request.cursor = Some((text.to_owned(), nanos, position[1].clone()));
        }
        Ok(request)
    }

    async fn execute(context: &Context<'_>, request: &ListRequest) -> Result<Value, AgError> {
        let snapshot = &context.snapshot;
        let mut parameters = snapshot.scope_parameters().await?.to_vec();
        parameters.extend(list_parameters(request));
        let rows = snapshot.run(LIST, parameters).await?;
        let session_ids: Vec<&str> = rows
            .iter()
            .take(request.limit)
            .map(|row| row.string("session_id"))
            .collect::<Result<_, _>>()?;
        let totals = session_totals(snapshot, &session_ids).await?;
        let mut sessions = Vec::with_capacity(request.limit);
        let mut last = None;
        for row in rows.iter().take(request.limit) {
            let session_id = row.string("session_id")?;
            let started = row.opt_timestamp_nanos("started_at")?;
            let updated = row.opt_timestamp_nanos("updated_at")?;
            let prompt = row
                .opt_string("first_prompt")?
                .filter(|prompt| !prompt.trim().is_empty())
                .unwrap_or(row.string("title")?);
            sessions.push(json!({
                "id": row.string("native_id")?,
                "project_hash": row.string("project_hash")?,
                "provider": provider_of(row.string("source")?),
                "start_time": started.map(format_timestamp),
                "snippet": truncate(&collapse_whitespace(prompt), SNIPPET_CHARS),
                "turn_count": row.i64("turn_count")?,
                "duration_seconds": started.zip(updated).map(|(start, end)| (end - start).max(0) / 1_000_000_000),
                "total_tokens": totals.get(session_id),
            }));
            last = Some((started.unwrap_or(0), session_id.to_owned()));
        }
        let next_cursor = last
            .filter(|_| rows.len() > request.limit)
            .map(|(nanos, id)| {
                cursor::encode(CURSOR_TAG, &request.filter(), &[nanos.to_string(), id])
            });
        Ok(json!({
            "total_in_page": sessions.len(),
            "sessions": sessions,
            "next_cursor": next_cursor,
            "hint": "Use get_session_details(id, detail_level='summary') for turn breakdown, or analyze_session(id) for a health check",
        }))
    }
}

/// `$3..$12` of `queries/agtrace_list_sessions.sql` (after the scope, `$1` and `$2`); one row
/// beyond the limit tells if more exist.
fn list_parameters(request: &ListRequest) -> Vec<ScalarValue> {
    let bound = |time: Option<DateTime<Utc>>| {
        let nanos = time.map(|time| time.timestamp_nanos_opt().unwrap_or(i64::MAX));
        (
            ScalarValue::Boolean(Some(nanos.is_some())),
            timestamp_parameter(nanos.unwrap_or(0)),
        )
    };
    let (has_since, since) = bound(request.since);
    let (has_until, until) = bound(request.until);
    let (has_cursor, cursor_nanos, cursor_id) = match &request.cursor {
        Some((_, nanos, session_id)) => (true, *nanos, session_id.as_str()),
        None => (false, 0, ""),
    };
    vec![
        text_parameter(request.source.unwrap_or_default()),
        text_parameter(request.project_hash.as_deref().unwrap_or_default()),
        has_since,
        since,
        has_until,
        until,
        ScalarValue::Boolean(Some(has_cursor)),
        timestamp_parameter(cursor_nanos),
        text_parameter(cursor_id),
        ScalarValue::Int64(Some(request.limit as i64 + 1)),
    ]
}

pub struct ProjectInfo;

impl AgTool for ProjectInfo {
    type Request = ();

    const NAME: &'static str = "get_project_info";

    fn parse(arguments: &Arguments) -> Result<(), AgError> {
        reject_unknown(arguments, &[])
    }

    async fn execute(context: &Context<'_>, _request: &()) -> Result<Value, AgError> {
        let scope = context.snapshot.scope_parameters().await?;
        let rows = context.snapshot.run(PROJECTS, scope.to_vec()).await?;
        let projects = rows
            .iter()
            .take(MAX_PROJECTS)
            .map(|row| {
                Ok(json!({
                    "hash": row.string("hash")?,
                    "root_path": row.string("root_path")?,
                    "session_count": row.i64("session_count")?,
                    "last_activity": row.opt_timestamp_nanos("last_activity")?.map(format_timestamp),
                }))
            })
            .collect::<Result<Vec<Value>, RowError>>()?;
        let mut response = json!({ "projects": projects });
        if rows.len() > MAX_PROJECTS {
            response["total_projects"] = json!(rows.len());
            response["hint"] = json!(format!(
                "Showing the {MAX_PROJECTS} most recently active of {} projects; list_sessions(project_hash) lists a project's sessions",
                rows.len()
            ));
        }
        Ok(response)
    }
}
