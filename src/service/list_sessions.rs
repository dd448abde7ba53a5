//! `list_sessions`: compact metadata of the sessions overlapping a datetime window, optionally
//! of one mode, sorted by (updated_at, id) and keyset-paginated with an opaque cursor. With a
//! `slug` (additive, seed 002) only that continuation chain is listed, in chain order
//! (started_at, id) with each session's `session_number`.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use datafusion::scalar::ScalarValue;
use serde_json::{Value, json};

use crate::model::TokenUsage;
use crate::model::harness_of;
use crate::service::catalog::{
    Catalog, NamedQuery, WarmSnapshot, text_parameter, timestamp_parameter,
};
use crate::service::chain::{ChainBrief, chain_json, chain_of};
use crate::service::cursor::{self, CursorError, KeysetPosition};
use crate::service::envelope::{SlaTarget, ToolError, ToolName, ToolSuccess};
use crate::service::handler::ToolHandler;
use crate::service::origin::{Contradictory, OriginFilter};
use crate::service::rows::{Row, RowError};
use crate::service::text::{format_timestamp, plain};
use crate::service::usage::{usage_json, usage_of};
use crate::service::validate::{
    Arguments, optional_integer_in_range, optional_string, parse_datetime_field,
    reject_unknown_fields, required_string,
};

pub const FIELDS: [&str; 9] = [
    "start_datetime",
    "end_datetime",
    "limit",
    "cursor",
    "mode",
    "sort",
    "slug",
    "harness",
    "source",
];
pub const MODES: [&str; 4] = ["web_search", "mcp_internal", "tool_calling", "chat"];
pub const SORTS: [&str; 2] = ["desc", "asc"];
pub const DEFAULT_LIMIT: i64 = 20;
/// Longest `slug` accepted (Claude's are three short words).
pub const MAX_SLUG_CHARS: usize = 256;
pub const MAX_LIMIT: i64 = 50;
/// A window longer than this is a "broad window" in the spec's SLA table.
pub const BROAD_WINDOW: chrono::TimeDelta = chrono::TimeDelta::days(7);

const SLA_TYPICAL: SlaTarget = SlaTarget::ms(300);
const SLA_BROAD: SlaTarget = SlaTarget::ms(1000);
const SLA_BROAD_ONE_MODE: SlaTarget = SlaTarget::ms(1200);
const DEADLINE_TYPICAL: Duration = Duration::from_secs(2);
const DEADLINE_BROAD: Duration = Duration::from_secs(3);

const NEWEST_FIRST: NamedQuery = NamedQuery {
    name: "list_sessions_desc",
    sql: include_str!("../../queries/list_sessions_desc.sql"),
};
const OLDEST_FIRST: NamedQuery = NamedQuery {
    name: "list_sessions_asc",
    sql: include_str!("../../queries/list_sessions_asc.sql"),
};
const ONE_CHAIN: NamedQuery = NamedQuery {
    name: "list_sessions_chain",
    sql: include_str!("../../queries/list_sessions_chain.sql"),
};

/// Listing order by (updated_at, session id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Desc,
    Asc,
}

impl Sort {
    fn as_str(self) -> &'static str {
        match self {
            Sort::Desc => "desc",
            Sort::Asc => "asc",
        }
    }
}

/// A validated `list_sessions` request.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub limit: usize,
    /// The cursor as given, and the position it decodes to (in a slug listing the position's
    /// `updated_at_nanos` holds the session's started_at, the key of chain order).
    pub cursor: Option<(String, KeysetPosition)>,
    pub mode: Option<&'static str>,
    /// `Asc` in a slug listing (chain order).
    pub sort: Sort,
    /// Only the chain of this slug, in chain order.
    pub slug: Option<String>,
    /// Moraine's `harness` / `source` filters.
    pub origin: OriginFilter,
}

impl ListRequest {
    fn is_broad(&self) -> bool {
        self.end - self.start > BROAD_WINDOW
    }

    fn fingerprint(&self) -> String {
        fingerprint_of(
            self.start,
            self.end,
            self.mode,
            self.sort,
            self.slug.as_deref(),
            &self.origin,
        )
    }
}

fn fingerprint_of(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    mode: Option<&str>,
    sort: Sort,
    slug: Option<&str>,
    origin: &OriginFilter,
) -> String {
    let mut canonical_filter = format!(
        "{}|{}|{}|{}",
        nanos_of(start),
        nanos_of(end),
        mode.unwrap_or_default(),
        sort.as_str()
    );
    if let Some(slug) = slug {
        canonical_filter.push_str(&format!("|slug={slug}"));
    }
    if let Some(harness) = origin.harness {
        canonical_filter.push_str(&format!("|harness={}", harness.harness()));
    }
    if let Some(source) = origin.source {
        canonical_filter.push_str(&format!("|source={}", source.as_str()));
    }
    cursor::filter_fingerprint(&canonical_filter)
}

/// Nanoseconds since the epoch, clamped to what a timestamp column holds (1677..2262): a
/// window opening in year 1 starts before every session, one closing in 9999 after all.
fn nanos_of(time: DateTime<Utc>) -> i64 {
    time.timestamp_nanos_opt()
        .unwrap_or(if time.timestamp() < 0 {
            i64::MIN
        } else {
            i64::MAX
        })
}

pub struct ListSessions;

impl ToolHandler for ListSessions {
    type Request = ListRequest;

    const NAME: ToolName = ToolName::ListSessions;

    fn parse(arguments: &Arguments) -> Result<ListRequest, ToolError> {
        reject_unknown_fields(arguments, &FIELDS)?;
        let start = parse_datetime_argument(arguments, "start_datetime")?;
        let end = parse_datetime_argument(arguments, "end_datetime")?;
        if end <= start {
            return Err(ToolError::invalid_request(
                "end_datetime",
                "end_datetime must be later than start_datetime",
            ));
        }
        let limit = optional_integer_in_range(arguments, "limit", 1, MAX_LIMIT)?
            .unwrap_or(DEFAULT_LIMIT) as usize;
        let mode = parse_choice(arguments, "mode", &MODES)?;
        let slug = parse_slug(arguments)?;
        let sort = match (parse_choice(arguments, "sort", &SORTS)?, &slug) {
            (Some("desc"), Some(_)) => {
                return Err(ToolError::invalid_request(
                    "sort",
                    "a slug lists its chain oldest first: sort must be asc or absent",
                ));
            }
            (Some("asc"), _) | (None, Some(_)) => Sort::Asc,
            _ => Sort::Desc,
        };
        let origin = OriginFilter::parse(arguments)?;
        let fingerprint = fingerprint_of(start, end, mode, sort, slug.as_deref(), &origin);
        let cursor = parse_cursor(arguments, &fingerprint)?;
        Ok(ListRequest {
            start,
            end,
            limit,
            cursor,
            mode,
            sort,
            slug,
            origin,
        })
    }

    fn rejected_sla(_arguments: &Arguments) -> SlaTarget {
        SLA_TYPICAL
    }

    fn canonical(request: &ListRequest) -> Value {
        let mut canonical = json!({
            "start_datetime": canonical_datetime(request.start),
            "end_datetime": canonical_datetime(request.end),
            "limit": request.limit,
            "cursor": request.cursor.as_ref().map(|(text, _)| text.as_str()),
            "mode": request.mode,
            "sort": request.sort.as_str(),
        });
        request.origin.echo(&mut canonical);
        if let Some(slug) = &request.slug {
            canonical["slug"] = json!(slug);
        }
        canonical
    }

    fn sla(request: &ListRequest) -> SlaTarget {
        match (request.is_broad(), request.mode) {
            (false, _) => SLA_TYPICAL,
            (true, None) => SLA_BROAD,
            (true, Some(_)) => SLA_BROAD_ONE_MODE,
        }
    }

    fn deadline(request: &ListRequest) -> Duration {
        if request.is_broad() {
            DEADLINE_BROAD
        } else {
            DEADLINE_TYPICAL
        }
    }

    async fn execute(catalog: &Catalog, request: &ListRequest) -> Result<ToolSuccess, ToolError> {
        let snapshot = catalog.snapshot().await?;
        let page = match request.origin.source() {
            Err(Contradictory) => build_page(request, &[]),
            Ok(_) => page_by_sql(&snapshot, request).await?,
        };
        let text = summarize(request, &page);
        Ok(ToolSuccess::new(page, text))
    }
}

/// The page from `queries/list_sessions_*.sql` over `session_index` (in memory once loaded,
/// else the view over Parquet), limited to the project of a project-only server.
async fn page_by_sql(snapshot: &WarmSnapshot, request: &ListRequest) -> Result<Value, ToolError> {
    let (query, mut parameters) = match (&request.slug, request.sort) {
        (Some(slug), _) => (ONE_CHAIN, chain_parameters(slug, request)),
        (None, Sort::Desc) => (NEWEST_FIRST, parameters(request)),
        (None, Sort::Asc) => (OLDEST_FIRST, parameters(request)),
    };
    parameters.extend(snapshot.scope_parameters().await?);
    let rows = snapshot.run(query, parameters).await?;
    let listed: Vec<ListedSession<'_>> = rows
        .iter()
        .map(|row| ListedSession::from_row(&row))
        .collect::<Result<_, _>>()
        .map_err(|error| ToolError::internal(format!("{}: {error}", query.name)))?;
    Ok(build_page(request, &listed))
}

fn parse_datetime_argument(arguments: &Arguments, field: &str) -> Result<DateTime<Utc>, ToolError> {
    let text = required_string(arguments, field)?;
    parse_datetime_field(field, text)
}

/// An optional string that must be one of `choices` (null means the default).
fn parse_choice(
    arguments: &Arguments,
    field: &str,
    choices: &[&'static str],
) -> Result<Option<&'static str>, ToolError> {
    let invalid = || {
        ToolError::invalid_request(
            field,
            format!("{field} must be one of {}", choices.join(", ")),
        )
        .with_detail("allowed", choices.to_vec())
    };
    let Some(text) = optional_string(arguments, field).map_err(|_| invalid())? else {
        return Ok(None);
    };
    let choice = choices
        .iter()
        .find(|choice| **choice == text)
        .ok_or_else(invalid)?;
    Ok(Some(*choice))
}

/// The optional `slug`: a non-blank string of at most [`MAX_SLUG_CHARS`] characters.
fn parse_slug(arguments: &Arguments) -> Result<Option<String>, ToolError> {
    let Some(slug) = optional_string(arguments, "slug")? else {
        return Ok(None);
    };
    if slug.trim().is_empty() || slug.chars().count() > MAX_SLUG_CHARS {
        return Err(ToolError::invalid_request(
            "slug",
            format!("slug must be a non-blank string of at most {MAX_SLUG_CHARS} characters"),
        ));
    }
    Ok(Some(slug.to_owned()))
}

fn parse_cursor(
    arguments: &Arguments,
    fingerprint: &str,
) -> Result<Option<(String, KeysetPosition)>, ToolError> {
    let Some(text) = optional_string(arguments, "cursor")? else {
        return Ok(None);
    };
    let position = cursor::decode(text, fingerprint).map_err(|error| {
        let message = match error {
            CursorError::Malformed => "cursor is not a cursor returned by list_sessions",
            CursorError::FilterChanged => {
                "cursor belongs to a listing with a different filter or sort; restart without it"
            }
        };
        ToolError::invalid_request("cursor", message)
    })?;
    Ok(Some((text.to_owned(), position)))
}

/// The canonical UTC form of a datetime (millisecond precision unless finer was given).
fn canonical_datetime(time: DateTime<Utc>) -> String {
    if time.timestamp_subsec_nanos().is_multiple_of(1_000_000) {
        time.to_rfc3339_opts(SecondsFormat::Millis, true)
    } else {
        time.to_rfc3339_opts(SecondsFormat::AutoSi, true)
    }
}

/// `$1..$9` of `list_sessions_chain.sql`: the slug, then [`parameters`].
fn chain_parameters(slug: &str, request: &ListRequest) -> Vec<ScalarValue> {
    let mut parameters = parameters(request);
    parameters.insert(0, text_parameter(slug));
    parameters
}

/// `$1..$8` of `list_sessions_{asc,desc}.sql`; one row beyond the limit tells if more exist.
fn parameters(request: &ListRequest) -> Vec<ScalarValue> {
    let (has_cursor, cursor_nanos, cursor_session_id) = match &request.cursor {
        Some((_, position)) => (
            true,
            position.updated_at_nanos,
            position.session_id.as_str(),
        ),
        None => (false, 0, ""),
    };
    vec![
        timestamp_parameter(nanos_of(request.start)),
        timestamp_parameter(nanos_of(request.end)),
        text_parameter(request.mode.unwrap_or_default()),
        ScalarValue::Boolean(Some(has_cursor)),
        timestamp_parameter(cursor_nanos),
        text_parameter(cursor_session_id),
        ScalarValue::Int64(Some(request.limit as i64 + 1)),
        text_parameter(
            request
                .origin
                .source()
                .ok()
                .flatten()
                .map_or("", |s| s.as_str()),
        ),
    ]
}

/// What a page shows of a session, from a row of `queries/list_sessions_*.sql`.
struct ListedSession<'a> {
    session_id: &'a str,
    title: &'a str,
    source: &'a str,
    /// UTC nanoseconds.
    started_at: Option<i64>,
    updated_at: Option<i64>,
    completed: bool,
    turn_count: i64,
    event_count: i64,
    mode: &'a str,
    session_slug: Option<&'a str>,
    session_summary: Option<&'a str>,
    usage: Option<TokenUsage>,
    chain: Option<ChainBrief>,
}

impl<'a> ListedSession<'a> {
    fn from_row(row: &Row<'a>) -> Result<ListedSession<'a>, RowError> {
        Ok(ListedSession {
            session_id: row.string("session_id")?,
            title: row.string("title")?,
            source: row.string("source")?,
            started_at: row.opt_timestamp_nanos("started_at")?,
            updated_at: row.opt_timestamp_nanos("updated_at")?,
            completed: row.bool("completed")?,
            turn_count: row.i64("turn_count")?,
            event_count: row.i64("event_count")?,
            mode: row.string("mode")?,
            session_slug: row.opt_string("session_slug")?,
            session_summary: row.opt_string("session_summary")?,
            usage: usage_of(row)?,
            chain: chain_of(row)?,
        })
    }
}

/// A page of at most `request.limit` sessions from up to `limit + 1` listed ones (one more
/// means there is a next page).
fn build_page(request: &ListRequest, listed: &[ListedSession<'_>]) -> Value {
    let first_rank = request
        .cursor
        .as_ref()
        .map_or(0, |(_, position)| position.rank)
        + 1;
    let mut sessions = Vec::with_capacity(request.limit);
    let mut last_position = None;
    for (offset, session) in listed.iter().take(request.limit).enumerate() {
        let rank = first_rank + offset;
        let mut item = listed_session_json(rank, session);
        let sort_key = match &request.slug {
            Some(_) => {
                item["session_number"] = json!(session.chain.as_ref().map_or(1, |c| c.number));
                session.started_at
            }
            None => session.updated_at,
        };
        sessions.push(item);
        last_position = Some(KeysetPosition {
            updated_at_nanos: sort_key.unwrap_or_default(),
            session_id: session.session_id.to_owned(),
            rank,
        });
    }
    let truncated = listed.len() > request.limit;
    let next_cursor = last_position
        .filter(|_| truncated)
        .map(|position| cursor::encode(&request.fingerprint(), &position));
    json!({
        "result_count": sessions.len(),
        "limit": request.limit,
        "truncated": truncated,
        "sessions": sessions,
        "next_cursor": next_cursor,
    })
}

fn listed_session_json(rank: usize, session: &ListedSession<'_>) -> Value {
    json!({
        "rank": rank,
        "id": session.session_id,
        "session": {
            "id": session.session_id,
            "title": session.title,
            "source": session.source,
            "harness": harness_of(session.source),
            "started_at": session.started_at.map(format_timestamp),
            "updated_at": session.updated_at.map(format_timestamp),
            "completed": session.completed,
            "turn_count": session.turn_count,
            "event_count": session.event_count,
            "mode": session.mode,
            "session_slug": session.session_slug,
            "session_summary": session.session_summary,
            "usage": usage_json(session.usage),
            "chain": chain_json(session.chain.as_ref()),
        },
        "open": { "session_id": session.session_id },
    })
}

fn summarize(request: &ListRequest, page: &Value) -> String {
    let chain = match &request.slug {
        Some(slug) => format!(" of the chain {slug}"),
        None => String::new(),
    };
    let mut text = format!(
        "{} sessions{chain} active between {} and {} ({}, {})",
        page["result_count"],
        canonical_datetime(request.start),
        canonical_datetime(request.end),
        request.mode.unwrap_or("any mode"),
        request.sort.as_str(),
    );
    for listed in page["sessions"].as_array().into_iter().flatten() {
        let session = &listed["session"];
        let number = match listed["session_number"].as_i64() {
            Some(number) => format!(" session {number}"),
            None => String::new(),
        };
        text.push_str(&format!(
            "\n{}.{number} {} \"{}\" ({}, {}, {} turns) updated {}",
            listed["rank"],
            plain(&listed["id"]),
            plain(&session["title"]),
            plain(&session["source"]),
            plain(&session["mode"]),
            session["turn_count"],
            plain(&session["updated_at"]),
        ));
    }
    if let Some(next_cursor) = page["next_cursor"].as_str() {
        text.push_str(&format!("\nmore sessions: pass cursor \"{next_cursor}\""));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::envelope::ErrorCode;

    fn parse(value: Value) -> Result<ListRequest, ToolError> {
        ListSessions::parse(value.as_object().unwrap())
    }

    fn window() -> Value {
        json!({
            "start_datetime": "2026-04-30T09:00:00-04:00",
            "end_datetime": "2026-04-30T13:00:00-04:00",
        })
    }

    fn with(extra: Value) -> Value {
        let mut arguments = window();
        for (key, value) in extra.as_object().unwrap() {
            arguments[key] = value.clone();
        }
        arguments
    }

    #[test]
    fn defaults_are_applied_and_datetimes_normalized() {
        let request = parse(window()).unwrap();
        assert_eq!(
            ListSessions::canonical(&request),
            json!({
                "start_datetime": "2026-04-30T13:00:00.000Z",
                "end_datetime": "2026-04-30T17:00:00.000Z",
                "limit": 20,
                "cursor": null,
                "mode": null,
                "sort": "desc",
            })
        );
        assert_eq!(ListSessions::sla(&request).target_ms, 300);
    }

    #[test]
    fn bad_inputs_are_invalid_requests() {
        let cases = [
            json!({"start_datetime": "2026-04-30T09:00:00Z"}),
            json!({"end_datetime": "2026-04-30T09:00:00Z"}),
            with(json!({"start_datetime": "2026-04-30T09:00:00"})),
            with(json!({"end_datetime": "2026-04-30T09:00:00-04:00"})),
            with(json!({"end_datetime": "2026-04-30T08:00:00-04:00"})),
            with(json!({"limit": 0})),
            with(json!({"limit": 51})),
            with(json!({"limit": 2.5})),
            with(json!({"mode": "browsing"})),
            with(json!({"mode": 3})),
            with(json!({"sort": "newest"})),
            with(json!({"cursor": "garbage"})),
            with(json!({"query": "x"})),
        ];
        for arguments in cases {
            let error = parse(arguments.clone()).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{arguments}");
        }
    }

    #[test]
    fn a_cursor_only_works_for_its_own_filter_and_sort() {
        let request = parse(window()).unwrap();
        let position = KeysetPosition {
            updated_at_nanos: 5,
            session_id: "session:s1".into(),
            rank: 20,
        };
        let issued = cursor::encode(&request.fingerprint(), &position);
        assert!(parse(with(json!({"cursor": issued, "limit": 5}))).is_ok());
        for changed in [json!({"sort": "asc"}), json!({"mode": "chat"})] {
            let mut arguments = with(changed);
            arguments["cursor"] = json!(issued);
            let error = parse(arguments).unwrap_err();
            assert!(
                error.message.contains("different filter"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn a_slug_lists_one_chain_oldest_first_and_binds_its_cursors() {
        let request = parse(with(json!({"slug": "quiet-amber-fox"}))).unwrap();
        assert_eq!(request.sort, Sort::Asc);
        assert_eq!(
            ListSessions::canonical(&request)["slug"],
            json!("quiet-amber-fox")
        );
        assert!(parse(with(json!({"slug": "x", "sort": "asc"}))).is_ok());
        for bad in [
            json!({"slug": "x", "sort": "desc"}),
            json!({"slug": ""}),
            json!({"slug": "  "}),
            json!({"slug": 3}),
            json!({"slug": "s".repeat(MAX_SLUG_CHARS + 1)}),
        ] {
            let error = parse(with(bad.clone())).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{bad}");
        }
        let position = KeysetPosition {
            updated_at_nanos: 5,
            session_id: "session:s1".into(),
            rank: 1,
        };
        let issued = cursor::encode(&request.fingerprint(), &position);
        assert!(parse(with(json!({"slug": "quiet-amber-fox", "cursor": issued}))).is_ok());
        for other in [
            json!({"slug": "other-slug", "cursor": issued}),
            json!({"sort": "asc", "cursor": issued}),
            json!({"cursor": issued}),
        ] {
            let error = parse(with(other.clone())).unwrap_err();
            assert!(error.message.contains("different filter"), "{other}");
        }
        assert!(
            ListSessions::canonical(&parse(window()).unwrap())
                .get("slug")
                .is_none(),
            "no slug key unless given"
        );
    }

    #[test]
    fn broad_windows_get_the_broad_targets() {
        let broad = json!({
            "start_datetime": "2026-01-01T00:00:00Z",
            "end_datetime": "2026-04-01T00:00:00Z",
        });
        let request = parse(broad.clone()).unwrap();
        assert_eq!(ListSessions::sla(&request).target_ms, 1000);
        assert_eq!(ListSessions::deadline(&request), DEADLINE_BROAD);
        let mut one_mode = broad;
        one_mode["mode"] = json!("chat");
        assert_eq!(ListSessions::sla(&parse(one_mode).unwrap()).target_ms, 1200);
    }
}
