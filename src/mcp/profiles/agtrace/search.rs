//! `search_event_previews`: ranked full-text search over events through the shared tantivy
//! search (the seed's own implementation scans logs), filtered by provider, AgTrace event type
//! and session, returning the seed's typed previews in its `McpResponse` wrapper with offset
//! cursors bound to the request.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::args::{
    AgEventType, limit, optional_text, provider, provider_of, reject_unknown, required_text,
};
use super::cursor;
use super::event::{PreviewSource, preview};
use super::reply::{AgError, AgErrorCode};
use super::steps::{Tokens, has_token_columns};
use super::{AgTool, Context};
use crate::model::EventType;
use crate::search::SearchHit;
use crate::service::catalog::{
    IndexSearch, NamedQuery, WarmSnapshot, hit_location_parameters, text_list_parameter,
};
use crate::service::text::format_timestamp;
use crate::service::validate::Arguments;

const PREVIEW_EVENTS: NamedQuery = NamedQuery {
    name: "agtrace_preview_events",
    sql: include_str!("../../../../queries/agtrace_preview_events.sql"),
};
const TOKENS_BY_EVENT: NamedQuery = NamedQuery {
    name: "agtrace_tokens_by_event",
    sql: include_str!("../../../../queries/agtrace_tokens_by_event.sql"),
};

const FIELDS: [&str; 6] = [
    "query",
    "limit",
    "cursor",
    "provider",
    "event_type",
    "session_id",
];
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;
const MAX_QUERY_CHARS: usize = 4096;
/// Deepest result a cursor reaches.
const MAX_OFFSET: i64 = 5_000;
/// Most candidates read when an event type is narrower than the index's types.
const MAX_CANDIDATES: usize = 20_000;
const CURSOR_TAG: &str = "previews";

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewRequest {
    pub query: String,
    pub limit: usize,
    pub offset: usize,
    pub source: Option<&'static str>,
    pub event_type: Option<AgEventType>,
    pub session_id: Option<String>,
}

impl PreviewRequest {
    fn filter(&self) -> String {
        format!(
            "{}|{:?}|{:?}|{:?}",
            self.query, self.source, self.event_type, self.session_id
        )
    }
}

pub struct SearchPreviews;

impl AgTool for SearchPreviews {
    type Request = PreviewRequest;

    const NAME: &'static str = "search_event_previews";

    fn parse(arguments: &Arguments) -> Result<PreviewRequest, AgError> {
        reject_unknown(arguments, &FIELDS)?;
        let query = required_text(arguments, "query")?.to_owned();
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(AgError::invalid_parameter(
                "query",
                format!("query must be at most {MAX_QUERY_CHARS} characters"),
            ));
        }
        let mut request = PreviewRequest {
            query,
            limit: limit(arguments, DEFAULT_LIMIT, MAX_LIMIT)?,
            offset: 0,
            source: provider(arguments)?,
            event_type: AgEventType::parse(arguments)?,
            session_id: optional_text(arguments, "session_id")?
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(str::to_owned),
        };
        if let Some(text) = optional_text(arguments, "cursor")? {
            let position = cursor::decode(CURSOR_TAG, &request.filter(), text, 1)?;
            let offset = cursor::number(&position[0], text)?;
            if !(0..=MAX_OFFSET).contains(&offset) {
                return Err(AgError::new(
                    AgErrorCode::InvalidCursor,
                    format!("invalid cursor: results deeper than {MAX_OFFSET} are not paged"),
                )
                .with_detail("cursor", text));
            }
            request.offset = offset as usize;
        }
        Ok(request)
    }

    async fn execute(context: &Context<'_>, request: &PreviewRequest) -> Result<Value, AgError> {
        let snapshot = &context.snapshot;
        let session = match &request.session_id {
            Some(text) => Some(context.resolve(text).await?),
            None => None,
        };
        let wanted = request.offset + request.limit + 1;
        let types = request
            .event_type
            .map_or_else(|| EventType::SEARCHABLE.to_vec(), AgEventType::esker_types);
        let mut fetch = wanted;
        let candidates = loop {
            let results = snapshot
                .search(IndexSearch {
                    text: request.query.clone(),
                    session_id: session.as_ref().map(|key| key.session_id.to_string()),
                    turn_id: None,
                    event_types: types.clone(),
                    source: request.source.map(str::to_owned),
                    limit: fetch,
                })
                .await?;
            let exhausted = results.hits.len() < fetch;
            let candidates = candidates_of(snapshot, &results.hits).await?;
            let matching: Vec<Candidate> = candidates
                .into_iter()
                .filter(|candidate| request.event_type.is_none_or(|kind| candidate.kind == kind))
                .collect();
            if matching.len() >= wanted || exhausted || fetch >= MAX_CANDIDATES {
                break matching;
            }
            fetch = (fetch * 4).min(MAX_CANDIDATES);
        };
        let has_more = candidates.len() > request.offset + request.limit;
        let mut page: Vec<Candidate> = candidates
            .into_iter()
            .skip(request.offset)
            .take(request.limit)
            .collect();
        complete_page(snapshot, &mut page).await?;
        let keys = context.keys().await?;
        let matches: Vec<Value> = page
            .iter()
            .map(|candidate| {
                let native_id = keys
                    .by_session_id(&candidate.session_id)
                    .map_or(candidate.session_id.as_str(), |key| key.native_id.as_ref());
                json!({
                    "session_id": native_id,
                    "event_index": candidate.seq.map(|seq| seq - 1),
                    "timestamp": candidate.timestamp.map(format_timestamp),
                    "event_type": candidate.kind.as_str(),
                    "provider": provider_of(&candidate.source),
                    "preview": preview(&PreviewSource {
                        kind: candidate.kind,
                        tool_name: candidate.tool_name.as_deref(),
                        text: &candidate.text,
                        payload: candidate.payload.as_deref(),
                        payload_chars: candidate.payload_chars,
                        tokens: candidate.tokens,
                    }),
                })
            })
            .collect();
        let next_cursor = has_more.then(|| {
            let offset = request.offset + request.limit;
            cursor::encode(CURSOR_TAG, &request.filter(), &[offset.to_string()])
        });
        Ok(json!({
            "data": { "matches": matches },
            "pagination": {
                "total_in_page": matches.len(),
                "next_cursor": next_cursor,
                "has_more": has_more,
            },
            "hint": "Use get_event_details(session_id, event_index) to retrieve full event payload",
        }))
    }
}

/// A hit with what its preview needs.
#[derive(Debug, Clone)]
struct Candidate {
    event_id: String,
    session_id: String,
    source: String,
    kind: AgEventType,
    /// Position in the session.
    seq: Option<i64>,
    timestamp: Option<i64>,
    tool_name: Option<String>,
    text: String,
    payload: Option<String>,
    payload_chars: usize,
    tokens: Option<Tokens>,
}

/// The hits as candidates, in index order, by SQL over the rows the index locates; hits
/// without table rows are left out.
async fn candidates_of(
    snapshot: &WarmSnapshot,
    hits: &[SearchHit],
) -> Result<Vec<Candidate>, AgError> {
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    let rows = snapshot
        .run(PREVIEW_EVENTS, hit_location_parameters(hits))
        .await?;
    let mut by_id = HashMap::new();
    for row in rows.iter() {
        let candidate = Candidate {
            event_id: row.string("event_id")?.to_owned(),
            session_id: row.string("session_id")?.to_owned(),
            source: row.string("source")?.to_owned(),
            kind: AgEventType::of(row.string("type")?, row.opt_string("subtype")?),
            seq: Some(row.i64("seq")?),
            timestamp: row.opt_timestamp_nanos("timestamp")?,
            tool_name: row.opt_string("tool_name")?.map(str::to_owned),
            text: row.string("text_head")?.to_owned(),
            payload: row.opt_string("payload_head")?.map(str::to_owned),
            payload_chars: row.opt_i64("payload_chars")?.unwrap_or(0) as usize,
            tokens: None,
        };
        by_id.insert(candidate.event_id.clone(), candidate);
    }
    // Index order; hits without table rows are left out.
    Ok(hits
        .iter()
        .filter_map(|hit| by_id.remove(&hit.event_id))
        .collect())
}

/// Fills in what the page's candidates still lack: token counts of TokenUsage events.
async fn complete_page(snapshot: &WarmSnapshot, page: &mut [Candidate]) -> Result<(), AgError> {
    let token_events: Vec<&Candidate> = page
        .iter()
        .filter(|candidate| candidate.kind == AgEventType::TokenUsage)
        .collect();
    if token_events.is_empty() || !has_token_columns(snapshot).await {
        return Ok(());
    }
    let event_ids: Vec<&str> = token_events.iter().map(|c| c.event_id.as_str()).collect();
    let session_ids: Vec<&str> = token_events.iter().map(|c| c.session_id.as_str()).collect();
    let rows = snapshot
        .run(
            TOKENS_BY_EVENT,
            vec![
                text_list_parameter(&event_ids),
                text_list_parameter(&session_ids),
            ],
        )
        .await?;
    let mut tokens = HashMap::new();
    for row in rows.iter() {
        tokens.insert(
            row.string("event_id")?.to_owned(),
            Tokens {
                input: row.opt_i64("input_tokens")?,
                cached_input: row.opt_i64("cached_input_tokens")?,
                output: row.opt_i64("output_tokens")?,
                reasoning: row.opt_i64("reasoning_tokens")?,
                total: row.opt_i64("total_tokens")?,
            },
        );
    }
    for candidate in page.iter_mut() {
        candidate.tokens = candidate
            .tokens
            .or(tokens.get(&candidate.event_id).copied());
    }
    Ok(())
}
