//! `search_history`: relay-search's FTS5 query syntax over esker's tantivy index (BM25 with
//! exact-form boosts, as `search_sessions` ranks), across prompts, replies and tool calls;
//! hits `{id, session_id, slug, project_dir, git_branch, role, timestamp, snippet,
//! session_number}` best first, snippets with `>>>`/`<<<` around the query's words.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::RelayTool;
use super::args::{
    Bound, clamped_limit, date_bound, nanos, no_tags, optional_text, reject_unknown, required_text,
};
use super::fts;
use super::messages::Message;
use super::reply::{RelayError, Response, Shape};
use super::sessions::{self, RelaySession};
use crate::model::EventType;
use crate::search::SearchHit;
use crate::service::catalog::{NamedQuery, WarmSnapshot, hit_location_parameters};
use crate::service::rows::RowError;
use crate::service::text::{format_timestamp, mark_terms, snippet};
use crate::service::validate::Arguments;

const HIT_EVENTS: NamedQuery = NamedQuery {
    name: "relay_hit_events",
    sql: include_str!("../../../../queries/relay_hit_events.sql"),
};

const FIELDS: [&str; 6] = ["query", "limit", "project", "date_from", "date_to", "tags"];
const DEFAULT_LIMIT: i64 = 10;
/// The events relay-search indexes: prompts, replies, tool calls (and plans, which are calls).
const SEARCHED: [EventType; 3] = [
    EventType::UserInput,
    EventType::AssistantResponse,
    EventType::ToolCall,
];
/// Most hits read to fill a page when project or date filters drop some.
const MAX_CANDIDATES: usize = 5_000;

/// A validated request.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: fts::FtsQuery,
    pub limit: usize,
    /// Lowercased substring of the project directory.
    pub project: Option<String>,
    pub date_from: Option<DateTime<Utc>>,
    pub date_to: Option<DateTime<Utc>>,
}

impl SearchRequest {
    fn has_filters(&self) -> bool {
        self.project.is_some() || self.date_from.is_some() || self.date_to.is_some()
    }

    fn admits(&self, message: &Message, session: &RelaySession) -> bool {
        let of_project = self.project.as_deref().is_none_or(|wanted| {
            session
                .project_dir()
                .is_some_and(|project| project.to_lowercase().contains(wanted))
        });
        let after_start = self
            .date_from
            .is_none_or(|from| message.timestamp.is_some_and(|at| at >= nanos(from)));
        let before_end = self
            .date_to
            .is_none_or(|to| message.timestamp.is_some_and(|at| at <= nanos(to)));
        of_project && after_start && before_end
    }
}

pub struct SearchHistory;

impl RelayTool for SearchHistory {
    type Request = SearchRequest;

    const NAME: &'static str = "search_history";
    const SHAPE: Shape = Shape::List;

    fn parse(arguments: &Arguments) -> Result<SearchRequest, RelayError> {
        reject_unknown(arguments, &FIELDS)?;
        let text = required_text(arguments, "query")?;
        let query = fts::parse(text).map_err(|detail| {
            RelayError::new(format!(
                "Invalid search query: {detail}. FTS5 syntax: use AND, OR, NOT, \"quoted phrases\"."
            ))
        })?;
        no_tags(arguments)?;
        Ok(SearchRequest {
            query,
            limit: clamped_limit(arguments, DEFAULT_LIMIT)?,
            project: optional_text(arguments, "project")?
                .filter(|project| !project.is_empty())
                .map(str::to_lowercase),
            date_from: date_bound(arguments, "date_from", Bound::From)?,
            date_to: date_bound(arguments, "date_to", Bound::To)?,
        })
    }

    async fn execute(
        snapshot: &Arc<WarmSnapshot>,
        request: &SearchRequest,
    ) -> Result<Response, RelayError> {
        let mut fetch = request.limit;
        loop {
            let results = snapshot
                .search_expression(request.query.expression.clone(), SEARCHED.to_vec(), fetch)
                .await?;
            let exhausted = results.hits.len() < fetch;
            let hits = page_of(snapshot, request, &results.hits).await?;
            if hits.len() >= request.limit
                || exhausted
                || !request.has_filters()
                || fetch >= MAX_CANDIDATES
            {
                return Ok(Response::List(hits));
            }
            fetch = (fetch * 4).min(MAX_CANDIDATES);
        }
    }
}

/// The hits that pass the filters, at most `limit`, as relay-search's result objects.
async fn page_of(
    snapshot: &WarmSnapshot,
    request: &SearchRequest,
    hits: &[SearchHit],
) -> Result<Vec<Value>, RelayError> {
    let messages = messages_of(snapshot, hits).await?;
    let session_ids: Vec<&str> = messages.iter().map(|m| m.session_id.as_str()).collect();
    let sessions = sessions::of_ids(snapshot, &session_ids).await?;
    Ok(messages
        .iter()
        .filter_map(|message| {
            let session = sessions.get(&message.session_id)?;
            request
                .admits(message, session)
                .then(|| hit_json(message, session, &request.query))
        })
        .take(request.limit)
        .collect())
}

fn hit_json(message: &Message, session: &RelaySession, query: &fts::FtsQuery) -> Value {
    let excerpt = snippet(&message.text, &query.marked_words);
    json!({
        "id": message.event_id,
        "session_id": session.native_id,
        "slug": session.slug(),
        "project_dir": session.project_dir(),
        "git_branch": session.git_branch,
        "role": message.role.as_str(),
        "timestamp": message.timestamp.map(format_timestamp),
        "snippet": mark_terms(
            &excerpt.text,
            &query.marked_words,
            &query.marked_prefixes,
            ">>>",
            "<<<",
        ),
        "session_number": session.session_number(),
    })
}

/// The hits' messages in rank order, by SQL over the rows the index locates.
async fn messages_of(
    snapshot: &WarmSnapshot,
    hits: &[SearchHit],
) -> Result<Vec<Message>, RelayError> {
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    let rows = snapshot
        .run(HIT_EVENTS, hit_location_parameters(hits))
        .await?;
    let mut by_id: HashMap<String, Message> = rows
        .iter()
        .filter_map(|row| Message::from_row(&row).transpose())
        .map(|message| message.map(|message| (message.event_id.clone(), message)))
        .collect::<Result<_, RowError>>()?;
    Ok(hits
        .iter()
        .filter_map(|hit| by_id.remove(&hit.event_id))
        .collect())
}
