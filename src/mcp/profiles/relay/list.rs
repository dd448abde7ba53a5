//! `list_sessions`: the most recently active sessions, or with `slug` that slug's chain in
//! chain order, each numbered in the whole chain (`session_number`); `project` (ignored with a
//! slug, as relay-search ignores it), `date_from` and `date_to` filter by overlap.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use datafusion::scalar::ScalarValue;

use super::RelayTool;
use super::args::{
    Bound, clamped_limit, date_bound, nanos, no_tags, optional_text, reject_unknown,
};
use super::reply::{RelayError, Response, Shape};
use super::sessions::{self, RelaySession};
use crate::service::catalog::{NamedQuery, WarmSnapshot, text_parameter, timestamp_parameter};
use crate::service::validate::Arguments;

const RECENT: NamedQuery = NamedQuery {
    name: "relay_list_sessions",
    sql: include_str!("../../../../queries/relay_list_sessions.sql"),
};

const FIELDS: [&str; 6] = ["limit", "project", "date_from", "date_to", "tags", "slug"];
const DEFAULT_LIMIT: i64 = 20;

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    pub limit: usize,
    /// Lowercased substring of the project directory.
    pub project: Option<String>,
    pub date_from: Option<DateTime<Utc>>,
    pub date_to: Option<DateTime<Utc>>,
    pub slug: Option<String>,
}

impl ListRequest {
    /// Whether `session` overlaps the date range.
    fn overlaps(&self, session: &RelaySession) -> bool {
        let ends_after_start = self
            .date_from
            .is_none_or(|from| session.updated_at.is_some_and(|at| at >= nanos(from)));
        let starts_before_end = self
            .date_to
            .is_none_or(|to| session.started_at.is_some_and(|at| at <= nanos(to)));
        ends_after_start && starts_before_end
    }
}

pub struct ListSessions;

impl RelayTool for ListSessions {
    type Request = ListRequest;

    const NAME: &'static str = "list_sessions";
    const SHAPE: Shape = Shape::List;

    fn parse(arguments: &Arguments) -> Result<ListRequest, RelayError> {
        reject_unknown(arguments, &FIELDS)?;
        no_tags(arguments)?;
        let non_empty = |name| -> Result<Option<String>, RelayError> {
            Ok(optional_text(arguments, name)?
                .filter(|text| !text.is_empty())
                .map(str::to_owned))
        };
        Ok(ListRequest {
            limit: clamped_limit(arguments, DEFAULT_LIMIT)?,
            project: non_empty("project")?.map(|project| project.to_lowercase()),
            date_from: date_bound(arguments, "date_from", Bound::From)?,
            date_to: date_bound(arguments, "date_to", Bound::To)?,
            slug: non_empty("slug")?,
        })
    }

    async fn execute(
        snapshot: &Arc<WarmSnapshot>,
        request: &ListRequest,
    ) -> Result<Response, RelayError> {
        let (listed, numbered) = match &request.slug {
            Some(slug) => {
                let chain = sessions::chain(snapshot, slug).await?;
                let listed: Vec<RelaySession> = chain
                    .into_iter()
                    .filter(|session| request.overlaps(session))
                    .take(request.limit)
                    .collect();
                (listed, true)
            }
            None => {
                let mut parameters = parameters(request);
                parameters.extend(snapshot.scope_parameters().await?);
                let listed = sessions::run_sessions(snapshot, RECENT, parameters).await?;
                (listed, false)
            }
        };
        let rows = sessions::rows_json(snapshot, &listed, numbered).await?;
        Ok(Response::List(rows))
    }
}

/// `$1..$6` of `queries/relay_list_sessions.sql` (the scope, `$7` and `$8`, follows).
fn parameters(request: &ListRequest) -> Vec<ScalarValue> {
    let bound = |time: Option<DateTime<Utc>>| {
        let bound_nanos = time.map(nanos);
        (
            ScalarValue::Boolean(Some(bound_nanos.is_some())),
            timestamp_parameter(bound_nanos.unwrap_or(0)),
        )
    };
    let (has_from, from) = bound(request.date_from);
    let (has_to, to) = bound(request.date_to);
    vec![
        text_parameter(request.project.as_deref().unwrap_or_default()),
        has_from,
        from,
        has_to,
        to,
        ScalarValue::Int64(Some(request.limit as i64)),
    ]
}
