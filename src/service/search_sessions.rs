//! `search_sessions`: BM25 search over event text, scoped to a session or turn and filtered by
//! event type, returning ranked hits with turn and session metadata, a snippet and open handles.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::model::EventType;
use crate::model::harness_of;
use crate::search::SearchHit;
use crate::service::catalog::{
    Catalog, IndexSearch, NamedQuery, WarmSnapshot, hit_location_parameters, text_list_parameter,
    text_parameter,
};
use crate::service::chain::{ChainBrief, chain_json, chain_of};
use crate::service::directory::TURN_BY_ID;
use crate::service::envelope::{ErrorCode, SlaTarget, ToolError, ToolName, ToolSuccess};
use crate::service::handler::ToolHandler;
use crate::service::origin::{Contradictory, OriginFilter};
use crate::service::project_scope;
use crate::service::rows::{Row, RowError, Rows};
use crate::service::text::{format_timestamp, normalize_score, plain, snippet};
use crate::service::validate::{
    Arguments, IdKind, McpId, optional_field, optional_integer_in_range, optional_string,
    parse_id_field, reject_unknown_fields,
};

pub const FIELDS: [&str; 6] = [
    "query",
    "within_id",
    "event_types",
    "n_hits",
    "harness",
    "source",
];
pub const DEFAULT_N_HITS: i64 = 10;
pub const MAX_N_HITS: i64 = 50;
pub const MAX_QUERY_CHARS: usize = 4096;
/// The spec: a response or `deadline_exceeded` within 5 s.
pub const DEADLINE: Duration = Duration::from_secs(5);

const SLA_ALL_SESSIONS: SlaTarget = SlaTarget::ms(750);
const SLA_WITHIN_SESSION: SlaTarget = SlaTarget::ms(500);
const SLA_WITHIN_TURN: SlaTarget = SlaTarget::ms(300);

const SCOPE_SESSION: NamedQuery = NamedQuery {
    name: "search_scope_session",
    sql: include_str!("../../queries/search_scope_session.sql"),
};
const HIT_EVENTS: NamedQuery = NamedQuery {
    name: "search_hit_events",
    sql: include_str!("../../queries/search_hit_events.sql"),
};
const HIT_PARENTS: NamedQuery = NamedQuery {
    name: "search_hit_parents",
    sql: include_str!("../../queries/search_hit_parents.sql"),
};

/// A validated `search_sessions` request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// Trimmed query text.
    pub query: String,
    /// A session or turn id (never an event id).
    pub within: Option<McpId>,
    /// De-duplicated, in canonical order.
    pub event_types: Vec<EventType>,
    pub n_hits: usize,
    /// The caller listed some event type more than once.
    pub had_duplicate_types: bool,
    /// Moraine's `harness` / `source` filters.
    pub origin: OriginFilter,
}

pub struct SearchSessions;

impl ToolHandler for SearchSessions {
    type Request = SearchRequest;

    const NAME: ToolName = ToolName::SearchSessions;

    fn parse(arguments: &Arguments) -> Result<SearchRequest, ToolError> {
        reject_unknown_fields(arguments, &FIELDS)?;
        let query = parse_query(arguments)?;
        let within = parse_within_id(arguments)?;
        let (event_types, had_duplicate_types) = parse_event_types(arguments)?;
        let n_hits = optional_integer_in_range(arguments, "n_hits", 1, MAX_N_HITS)?
            .unwrap_or(DEFAULT_N_HITS) as usize;
        Ok(SearchRequest {
            query,
            within,
            event_types,
            n_hits,
            had_duplicate_types,
            origin: OriginFilter::parse(arguments)?,
        })
    }

    fn rejected_sla(_arguments: &Arguments) -> SlaTarget {
        SLA_ALL_SESSIONS
    }

    fn canonical(request: &SearchRequest) -> Value {
        let mut canonical = json!({
            "query": request.query,
            "within_id": request.within.as_ref().map(|id| id.text.as_str()),
            "event_types": request.event_types.iter().map(|kind| kind.as_str()).collect::<Vec<_>>(),
            "n_hits": request.n_hits,
        });
        request.origin.echo(&mut canonical);
        canonical
    }

    fn sla(request: &SearchRequest) -> SlaTarget {
        match request.within.as_ref().map(|id| id.kind) {
            Some(IdKind::Turn) => SLA_WITHIN_TURN,
            Some(_) => SLA_WITHIN_SESSION,
            None => SLA_ALL_SESSIONS,
        }
    }

    fn deadline(_request: &SearchRequest) -> Duration {
        DEADLINE
    }

    async fn execute(catalog: &Catalog, request: &SearchRequest) -> Result<ToolSuccess, ToolError> {
        let snapshot = catalog.snapshot().await?;
        let scope = resolve_scope(&snapshot, request.within.as_ref()).await?;
        let source = match request.origin.source() {
            Ok(source) => source,
            Err(Contradictory) => return Ok(no_hits(request)),
        };
        let results = snapshot
            .search(IndexSearch {
                text: request.query.clone(),
                session_id: scope.session_id,
                turn_id: scope.turn_id,
                event_types: request.event_types.clone(),
                source: source.map(|source| source.as_str().to_owned()),
                limit: request.n_hits,
            })
            .await?;
        let (hits, missing) = hits_json(&snapshot, request, &results.hits).await?;
        let mut warnings = Vec::new();
        if request.had_duplicate_types {
            warnings.push("duplicate event_types were removed".to_owned());
        }
        if missing > 0 {
            warnings.push(format!(
                "{missing} indexed hits have no table rows and were left out"
            ));
        }
        let truncated = results.total_matches > hits.len() + missing;
        let text = summarize(request, &hits, results.total_matches);
        let data = json!({
            "result_count": hits.len(),
            "limit": request.n_hits,
            "truncated": truncated,
            "results": hits,
        });
        Ok(ToolSuccess {
            warnings,
            ..ToolSuccess::new(data, text)
        })
    }
}

/// An answer with no hits (filters that no session can meet).
fn no_hits(request: &SearchRequest) -> ToolSuccess {
    let data = json!({
        "result_count": 0,
        "limit": request.n_hits,
        "truncated": false,
        "results": [],
    });
    ToolSuccess::new(data, summarize(request, &[], 0))
}

fn parse_query(arguments: &Arguments) -> Result<String, ToolError> {
    let blank = || ToolError::invalid_request("query", "query must be a non-empty string");
    let query = match arguments.get("query") {
        Some(Value::String(text)) => text.trim(),
        _ => return Err(blank()),
    };
    if query.is_empty() {
        return Err(blank());
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ToolError::invalid_request(
            "query",
            format!("query must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    Ok(query.to_owned())
}

fn parse_within_id(arguments: &Arguments) -> Result<Option<McpId>, ToolError> {
    let Some(text) = optional_string(arguments, "within_id")? else {
        return Ok(None);
    };
    let id = parse_id_field("within_id", text)?;
    if id.kind == IdKind::Event {
        return Err(ToolError::invalid_request(
            "within_id",
            "within_id accepts session and turn IDs, not event IDs",
        ));
    }
    Ok(Some(id))
}

/// The event type filter, de-duplicated in canonical order, and whether duplicates were seen.
fn parse_event_types(arguments: &Arguments) -> Result<(Vec<EventType>, bool), ToolError> {
    let Some(value) = optional_field(arguments, "event_types") else {
        return Ok((EventType::SEARCH_DEFAULT.to_vec(), false));
    };
    let not_a_list =
        || ToolError::invalid_request("event_types", "event_types must be an array of strings");
    let entries = value.as_array().ok_or_else(not_a_list)?;
    if entries.is_empty() {
        return Err(ToolError::invalid_request(
            "event_types",
            "event_types must contain at least one event type",
        ));
    }
    let mut requested = Vec::with_capacity(entries.len());
    for entry in entries {
        let name = entry.as_str().ok_or_else(not_a_list)?;
        let kind = EventType::parse(name)
            .filter(|kind| kind.is_searchable())
            .ok_or_else(|| unsupported_event_type(name))?;
        requested.push(kind);
    }
    let canonical: Vec<EventType> = EventType::SEARCHABLE
        .into_iter()
        .filter(|kind| requested.contains(kind))
        .collect();
    let had_duplicates = canonical.len() < requested.len();
    Ok((canonical, had_duplicates))
}

fn unsupported_event_type(name: &str) -> ToolError {
    let supported: Vec<&str> = EventType::SEARCHABLE
        .iter()
        .map(|kind| kind.as_str())
        .collect();
    ToolError::new(
        ErrorCode::UnsupportedEventType,
        format!("unsupported event type: {name}"),
    )
    .with_detail("field", "event_types")
    .with_detail("supported", supported)
}

/// The index filters a `within_id` resolves to.
#[derive(Debug, Default)]
struct Scope {
    session_id: Option<String>,
    turn_id: Option<String>,
}

async fn resolve_scope(
    snapshot: &WarmSnapshot,
    within: Option<&McpId>,
) -> Result<Scope, ToolError> {
    let Some(within) = within else {
        return Ok(Scope::default());
    };
    // A project-only server answers a within_id of another project as a missing one.
    if !scope_exists(snapshot, within).await? || !project_scope::admits(snapshot, within).await? {
        return Err(ToolError::not_found(within.kind.noun(), &within.text));
    }
    Ok(match within.kind {
        IdKind::Turn => Scope {
            session_id: None,
            turn_id: Some(within.text.clone()),
        },
        _ => Scope {
            session_id: Some(within.text.clone()),
            turn_id: None,
        },
    })
}

/// Whether the session or turn exists (`queries/search_scope_session.sql`,
/// `queries/turn_by_id.sql`).
async fn scope_exists(snapshot: &WarmSnapshot, within: &McpId) -> Result<bool, ToolError> {
    let query = match within.kind {
        IdKind::Session => SCOPE_SESSION,
        IdKind::Turn => TURN_BY_ID,
        IdKind::Event => unreachable!("validation rejects event scopes"),
    };
    let rows = snapshot
        .run(query, vec![text_parameter(&within.text)])
        .await?;
    Ok(!rows.is_empty())
}

/// The hits as JSON in index order, and how many had no table rows (left out): the index
/// gives ids and locations; two statements run at once give the rest, the events' rows from
/// Parquet (`queries/search_hit_events.sql`) and their turns' and sessions' columns
/// (`queries/search_hit_parents.sql`, in memory once loaded). One statement joining the three
/// cost 3-4 ms more to plan at 1M documents than the two.
async fn hits_json(
    snapshot: &WarmSnapshot,
    request: &SearchRequest,
    hits: &[SearchHit],
) -> Result<(Vec<Value>, usize), ToolError> {
    if hits.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let turn_ids: Vec<&str> = hits.iter().map(|hit| hit.turn_id.as_str()).collect();
    let session_ids: Vec<&str> = hits.iter().map(|hit| hit.session_id.as_str()).collect();
    let (events, parents) = tokio::try_join!(
        snapshot.run_spread(HIT_EVENTS, hit_location_parameters(hits)),
        snapshot.run(
            HIT_PARENTS,
            vec![
                text_list_parameter(&turn_ids),
                text_list_parameter(&session_ids)
            ],
        ),
    )?;
    let results = build_hits(request, hits, &events, &parents)?;
    let missing = hits.len() - results.len();
    Ok((results, missing))
}

/// The hits in index order, each with its event row and its turn's row (which carries its
/// session's columns); hits without both are skipped.
fn build_hits(
    request: &SearchRequest,
    hits: &[SearchHit],
    events: &Rows,
    parents: &Rows,
) -> Result<Vec<Value>, ToolError> {
    let events_by_id = rows_by(events, "event_id")?;
    let turns_by_id = rows_by(parents, "turn_id")?;
    let mut results = Vec::with_capacity(hits.len());
    for hit in hits {
        let (Some(event), Some(parent)) = (
            events_by_id.get(hit.event_id.as_str()),
            turns_by_id.get(hit.turn_id.as_str()),
        ) else {
            tracing::warn!(event_id = %hit.event_id, "search hit has no events or turns row");
            continue;
        };
        let view = HitView::from_rows(hit, event, parent).map_err(internal)?;
        let rank = results.len() + 1;
        results.push(hit_json(request, rank, &view));
    }
    Ok(results)
}

/// `rows` by the value of their `key` column.
fn rows_by<'a>(rows: &'a Rows, key: &str) -> Result<HashMap<&'a str, Row<'a>>, ToolError> {
    rows.iter()
        .map(|row| Ok((row.string(key)?, row)))
        .collect::<Result<_, RowError>>()
        .map_err(internal)
}

fn internal(error: RowError) -> ToolError {
    ToolError::internal(format!("search hits: {error}"))
}

/// Everything a hit shows.
struct HitView<'a> {
    raw_score: f32,
    event_id: &'a str,
    event_type: &'a str,
    /// UTC nanoseconds.
    timestamp: Option<i64>,
    ordinal: i64,
    terminal: bool,
    text: &'a str,
    turn_id: &'a str,
    turn_ordinal: i64,
    turn_completed: bool,
    turn_event_count: i64,
    session_id: &'a str,
    title: &'a str,
    source: &'a str,
    started_at: Option<i64>,
    updated_at: Option<i64>,
    session_completed: bool,
    chain: Option<ChainBrief>,
}

impl<'a> HitView<'a> {
    /// From a row of `queries/search_hit_events.sql` and one of `search_hit_parents.sql`.
    fn from_rows(
        hit: &SearchHit,
        row: &Row<'a>,
        parent: &Row<'a>,
    ) -> Result<HitView<'a>, RowError> {
        Ok(HitView {
            raw_score: hit.raw_score,
            event_id: row.string("event_id")?,
            event_type: row.string("type")?,
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            ordinal: row.i64("ordinal")?,
            terminal: row.bool("terminal")?,
            text: row.string("text")?,
            turn_id: parent.string("turn_id")?,
            turn_ordinal: parent.i64("turn_ordinal")?,
            turn_completed: parent.bool("turn_completed")?,
            turn_event_count: parent.i64("turn_event_count")?,
            session_id: parent.string("session_id")?,
            title: parent.string("title")?,
            source: parent.string("source")?,
            started_at: parent.opt_timestamp_nanos("started_at")?,
            updated_at: parent.opt_timestamp_nanos("updated_at")?,
            session_completed: parent.bool("session_completed")?,
            chain: chain_of(parent)?,
        })
    }
}

fn hit_json(request: &SearchRequest, rank: usize, hit: &HitView<'_>) -> Value {
    let excerpt = snippet(hit.text, &request.query);
    let timestamp = |nanos: Option<i64>| nanos.map(format_timestamp);
    json!({
        "rank": rank,
        "score": normalize_score(hit.raw_score),
        "id": hit.event_id,
        "event": {
            "id": hit.event_id,
            "type": hit.event_type,
            "timestamp": timestamp(hit.timestamp),
            "ordinal": hit.ordinal,
            "terminal": hit.terminal,
        },
        "turn": {
            "id": hit.turn_id,
            "ordinal": hit.turn_ordinal,
            "completed": hit.turn_completed,
            "event_count": hit.turn_event_count,
        },
        "session": {
            "id": hit.session_id,
            "title": hit.title,
            "source": hit.source,
            "harness": harness_of(hit.source),
            "started_at": timestamp(hit.started_at),
            "updated_at": timestamp(hit.updated_at),
            "completed": hit.session_completed,
            "chain": chain_json(hit.chain.as_ref()),
        },
        "snippet": {
            "text": excerpt.text,
            "truncated": excerpt.truncated,
        },
        "open": {
            "event_id": hit.event_id,
            "turn_id": hit.turn_id,
            "session_id": hit.session_id,
        },
    })
}

/// The text summary: one block per hit with its ids, so text-only clients can navigate too.
fn summarize(request: &SearchRequest, hits: &[Value], total_matches: usize) -> String {
    let scope = request
        .within
        .as_ref()
        .map(|id| format!(" within {}", id.text))
        .unwrap_or_default();
    let mut text = format!(
        "{} of {} matching events for \"{}\"{scope}",
        hits.len(),
        total_matches,
        request.query
    );
    for hit in hits {
        text.push_str(&format!(
            "\n\n{}. [{:.2}] {} in \"{}\" ({}) {}\n   {}\n   open: {} | {} | {}",
            hit["rank"],
            hit["score"].as_f64().unwrap_or_default(),
            plain(&hit["event"]["type"]),
            plain(&hit["session"]["title"]),
            plain(&hit["session"]["source"]),
            plain(&hit["event"]["timestamp"]),
            plain(&hit["snippet"]["text"]),
            plain(&hit["open"]["event_id"]),
            plain(&hit["open"]["turn_id"]),
            plain(&hit["open"]["session_id"]),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<SearchRequest, ToolError> {
        SearchSessions::parse(value.as_object().unwrap())
    }

    #[test]
    fn defaults_are_applied_and_query_trimmed() {
        let request = parse(json!({"query": "  cargo clippy  "})).unwrap();
        assert_eq!(
            SearchSessions::canonical(&request),
            json!({
                "query": "cargo clippy",
                "within_id": null,
                "event_types": ["user_input", "assistant_response", "tool_response"],
                "n_hits": 10,
            })
        );
    }

    #[test]
    fn event_types_are_deduplicated_in_canonical_order() {
        let request = parse(json!({
            "query": "x",
            "event_types": ["tool_response", "reasoning", "tool_call", "reasoning"],
        }))
        .unwrap();
        assert_eq!(
            SearchSessions::canonical(&request)["event_types"],
            json!(["reasoning", "tool_call", "tool_response"])
        );
        assert!(request.had_duplicate_types);
    }

    #[test]
    fn bad_inputs_get_the_spec_codes() {
        let cases = [
            (json!({"query": "   "}), ErrorCode::InvalidRequest),
            (json!({}), ErrorCode::InvalidRequest),
            (json!({"query": 3}), ErrorCode::InvalidRequest),
            (
                json!({"query": "x".repeat(4097)}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "within_id": "event:abc"}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "within_id": "nope"}),
                ErrorCode::InvalidId,
            ),
            (
                json!({"query": "x", "event_types": []}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "event_types": ["unknown"]}),
                ErrorCode::UnsupportedEventType,
            ),
            (
                json!({"query": "x", "event_types": ["debug_trace"]}),
                ErrorCode::UnsupportedEventType,
            ),
            (
                json!({"query": "x", "event_types": [3]}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "n_hits": 0}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "n_hits": 51}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "n_hits": 2.5}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "n_hits": "10"}),
                ErrorCode::InvalidRequest,
            ),
            (
                json!({"query": "x", "n_hits": true}),
                ErrorCode::InvalidRequest,
            ),
            (json!({"query": "x", "limit": 3}), ErrorCode::InvalidRequest),
        ];
        for (arguments, code) in cases {
            let error = parse(arguments.clone()).unwrap_err();
            assert_eq!(error.code, code, "{arguments}");
        }
    }

    #[test]
    fn unsupported_event_type_lists_the_searchable_types() {
        let error =
            parse(json!({"query": "migration", "event_types": ["user_input", "debug_trace"]}))
                .unwrap_err();
        assert_eq!(error.message, "unsupported event type: debug_trace");
        assert_eq!(
            error.details["supported"],
            json!([
                "user_input",
                "assistant_response",
                "reasoning",
                "tool_call",
                "tool_response",
                "compaction",
                "system",
                "runtime"
            ])
        );
    }

    #[test]
    fn sla_depends_on_the_scope() {
        let turn = parse(json!({"query": "x", "within_id": "turn:t1"})).unwrap();
        let session = parse(json!({"query": "x", "within_id": "session:s1"})).unwrap();
        let everywhere = parse(json!({"query": "x"})).unwrap();
        assert_eq!(SearchSessions::sla(&turn).target_ms, 300);
        assert_eq!(SearchSessions::sla(&session).target_ms, 500);
        assert_eq!(SearchSessions::sla(&everywhere).target_ms, 750);
    }
}
