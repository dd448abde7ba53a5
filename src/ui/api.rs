//! The web view's JSON API, a thin adapter over what the MCP server and the CLI already run:
//!
//! - `POST /api/tool/{name}`: a `moraine` tool (`search_sessions`, `open`, `list_sessions`,
//!   `file_attention`, `get_ingest_status`) run by the MCP server's own profile with the JSON
//!   body as arguments; answers the tool's envelope (errors in-band, as over MCP).
//! - `GET /api/search`: `esker search` (the tool plus the CLI's source/project/time filters).
//! - `GET /api/sessions`: `esker sessions` (list_sessions pages, filtered).
//! - `GET /api/usage`: `esker usage --json`.
//! - `GET /api/memory`: `esker memory search --json` with `q`, else `esker memory list --json`.
//! - `GET /api/resume/{id}`, `GET /api/export/{id}`: a session's resume command and Markdown.
//! - `GET /api/files/top?limit=N`: the files touched in the most sessions
//!   ([`crate::service::file_attention::top`]).
//!
//! List parameters are comma-separated (`sources=codex,claude`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::cli::search::{Found, SearchOptions, find};
use crate::cli::sessions::{SessionsOptions, list};
use crate::cli::usage::{UsageOptions, report};
use crate::cli::{CliError, SessionFacts};
use crate::service::envelope::ToolName;
use crate::ui::AppState;

/// An API failure: a JSON `{"error": {"code", "message"}}` with its HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no tool named {0:?} here")]
    UnknownTool(String),
    #[error(transparent)]
    Cli(#[from] CliError),
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
    #[error(transparent)]
    TopFiles(#[from] crate::service::file_attention::top::TopFilesError),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            ApiError::UnknownTool(_) => (StatusCode::NOT_FOUND, "unknown_tool".to_owned()),
            ApiError::Cli(CliError::Usage(_)) => {
                (StatusCode::BAD_REQUEST, "invalid_request".to_owned())
            }
            ApiError::Cli(CliError::Tool { code, .. }) => (StatusCode::BAD_REQUEST, code.clone()),
            ApiError::Cli(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error".to_owned(),
            ),
            ApiError::Memory(_) => (StatusCode::BAD_REQUEST, "memory_error".to_owned()),
            ApiError::TopFiles(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error".to_owned(),
            ),
        };
        let body = json!({"error": {"code": code, "message": self.to_string()}});
        (status, Json(body)).into_response()
    }
}

/// `POST /api/tool/{name}`: the tool's envelope, exactly as an MCP client receives it.
pub async fn tool(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Json(arguments): Json<Map<String, Value>>,
) -> Result<Json<Value>, ApiError> {
    if ToolName::parse(&name).is_none() {
        return Err(ApiError::UnknownTool(name));
    }
    let reply = state
        .profiles
        .call(&state.reader.catalog, &name, &arguments)
        .await
        .ok_or(ApiError::UnknownTool(name))?;
    Ok(Json(reply.envelope))
}

/// Splits a comma-separated list parameter.
fn list_parameter(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An empty text parameter is no parameter.
fn text_parameter(value: Option<String>) -> Option<String> {
    value.filter(|text| !text.trim().is_empty())
}

/// The session facts a view shows beside a tool's item.
fn facts_json(facts: &SessionFacts) -> Value {
    json!({"project": facts.project, "cwd": facts.cwd, "model": facts.model})
}

#[derive(Debug, Default, Deserialize)]
pub struct SearchParameters {
    pub q: String,
    pub sources: Option<String>,
    pub project: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub types: Option<String>,
    pub limit: Option<usize>,
}

/// `GET /api/search?q=...`: `esker search --json`, each result with its session's facts.
pub async fn search(
    State(state): State<Arc<AppState>>,
    Query(parameters): Query<SearchParameters>,
) -> Result<Json<Value>, ApiError> {
    let options = SearchOptions {
        query: parameters.q,
        sources: list_parameter(parameters.sources.as_deref()),
        project: text_parameter(parameters.project),
        since: text_parameter(parameters.since),
        until: text_parameter(parameters.until),
        event_types: list_parameter(parameters.types.as_deref()),
        limit: parameters.limit.unwrap_or(20),
        json: true,
    };
    let Found { mut data, hits } = find(&state.reader, &options, Utc::now()).await?;
    data["results"] = hits
        .iter()
        .map(|(hit, facts)| {
            let mut hit = hit.clone();
            hit["facts"] = facts_json(facts);
            hit
        })
        .collect();
    Ok(Json(data))
}

#[derive(Debug, Default, Deserialize)]
pub struct SessionsParameters {
    pub sources: Option<String>,
    pub project: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: Option<usize>,
}

/// `GET /api/sessions`: `esker sessions --json`, each item with its facts.
pub async fn sessions(
    State(state): State<Arc<AppState>>,
    Query(parameters): Query<SessionsParameters>,
) -> Result<Json<Value>, ApiError> {
    let options = SessionsOptions {
        sources: list_parameter(parameters.sources.as_deref()),
        project: text_parameter(parameters.project),
        since: text_parameter(parameters.since),
        until: text_parameter(parameters.until),
        limit: parameters.limit.unwrap_or(100).clamp(1, 1000),
        json: true,
    };
    let window = crate::cli::window::Window::parse(
        options.since.as_deref(),
        options.until.as_deref(),
        Utc::now(),
    )?;
    let listed = list(&state.reader, &options, &window).await?;
    let sessions: Vec<Value> = listed
        .into_iter()
        .map(|listed| {
            let mut item = listed.item;
            item["facts"] = facts_json(&listed.facts);
            item
        })
        .collect();
    Ok(Json(
        json!({"result_count": sessions.len(), "sessions": sessions}),
    ))
}

#[derive(Debug, Default, Deserialize)]
pub struct UsageParameters {
    pub by: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// Any value but `0`/`false`: price with the bundled table (no other table over HTTP).
    pub cost: Option<String>,
}

/// `GET /api/usage?by=day`: exactly `esker usage --json --by day`.
pub async fn usage(
    State(state): State<Arc<AppState>>,
    Query(parameters): Query<UsageParameters>,
) -> Result<Json<Value>, ApiError> {
    let with_cost = parameters
        .cost
        .as_deref()
        .is_some_and(|value| !matches!(value, "" | "0" | "false"));
    let options = UsageOptions {
        by: text_parameter(parameters.by).unwrap_or_else(|| "day".to_owned()),
        since: text_parameter(parameters.since),
        until: text_parameter(parameters.until),
        prices: with_cost.then(String::new),
        json: true,
    };
    Ok(Json(report(&state.reader, &options).await?.to_json()))
}

/// `GET /api/resume/{id}`: `{"command": ...}`, the line `esker resume --print` prints (a
/// sub-agent's is its top-level session's); null when the harness has none esker knows.
pub async fn resume(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let command = crate::cli::resume::resume_line(&state.reader, &id).await?;
    Ok(Json(json!({"session_id": id, "command": command})))
}

/// `GET /api/export/{id}`: the session as a Markdown download.
pub async fn export(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let markdown = crate::ui::export::session_markdown(&state.reader, &id).await?;
    let file_name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok((
        [
            (CONTENT_TYPE, "text/markdown; charset=utf-8".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file_name}.md\""),
            ),
        ],
        markdown,
    )
        .into_response())
}

#[derive(Debug, Default, Deserialize)]
pub struct MemoryParameters {
    pub q: Option<String>,
    pub project: Option<String>,
    #[serde(rename = "type")]
    pub entry_type: Option<String>,
    pub limit: Option<usize>,
}

/// `GET /api/memory`: entries matching `q` (ranked), else the newest.
pub async fn memory(
    State(state): State<Arc<AppState>>,
    Query(parameters): Query<MemoryParameters>,
) -> Result<Json<Value>, ApiError> {
    let limit = parameters.limit.unwrap_or(50).clamp(1, 100);
    let project = text_parameter(parameters.project);
    let entry_type = text_parameter(parameters.entry_type);
    if let Some(query) = text_parameter(parameters.q) {
        let request = crate::memory::service::SearchRequest {
            query,
            project,
            entry_type,
            limit: Some(limit as i64),
            offset: None,
        };
        let response = state.memory.search(&request)?;
        let value = serde_json::to_value(&response)
            .map_err(|error| CliError::Output(std::io::Error::other(error)))?;
        return Ok(Json(value));
    }
    let items = state
        .memory
        .recent(project.as_deref(), entry_type.as_deref(), limit)?;
    Ok(Json(json!({ "items": items })))
}

#[derive(Debug, Default, Deserialize)]
pub struct TopFilesParameters {
    pub limit: Option<usize>,
}

/// `GET /api/files/top?limit=N` (default 25): `{"files": [{tail, sessions, touches, changes,
/// last_touch}]}`, touched in the most sessions first.
pub async fn top_files(
    State(state): State<Arc<AppState>>,
    Query(parameters): Query<TopFilesParameters>,
) -> Result<Json<Value>, ApiError> {
    let limit = parameters.limit.unwrap_or(25);
    let files =
        crate::service::file_attention::top::top_files(&state.reader.catalog, limit).await?;
    Ok(Json(json!({ "files": files })))
}
