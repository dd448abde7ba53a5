//! What the agtrace profile advertises: its six tools (descriptions and input schemas as in
//! seed 004) and the server instructions for the progressive-disclosure workflow.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::args::{AgEventType, PROVIDERS};

pub const INSTRUCTIONS: &str = "esker serves local coding-agent history (Codex, Claude Code, Gemini CLI) with AgTrace's tools. Drill down progressively:
1. list_sessions (or get_project_info, then list_sessions with project_hash) to find a session.
2. analyze_session for a health check (failures, loops, token outliers).
3. get_session_details with detail_level summary, then turns, then steps; full only when needed. Follow next_cursor when a response is cut to its size budget.
4. search_event_previews finds events by keywords; get_event_details(session_id, event_index) gives one event's full payload.
Session ids are the harness's native ids; an 8-character prefix is usually enough. Errors are {error:{code, message, details, retryable}}.";

/// The six tools, in the seed's order.
pub fn tool_definitions() -> Vec<Tool> {
    vec![
        tool(
            "list_sessions",
            "Browse recent sessions, newest first, with pagination: id (native session id), project_hash, provider, start_time, snippet (first prompt, at most 200 chars), turn_count, duration_seconds, total_tokens. Page with next_cursor (null on the last page).",
            list_sessions_schema(),
        ),
        tool(
            "get_project_info",
            "List indexed projects: hash (SHA-256 hex of the project root path, the project_hash list_sessions filters on), root_path, session_count, last_activity.",
            object_schema(json!({}), &[]),
        ),
        tool(
            "get_session_details",
            "Session data at a chosen detail level: summary (turn list, at most 15 KB), turns (tool summaries and outcome per model-call step, at most 30 KB), steps (reasoning, messages, tool calls and results cut to 500 chars, at most 100 KB) or full (untruncated, paged so no response exceeds 100 KB). When the session does not fit, fewer turns are returned with next_cursor and a hint.",
            details_schema(),
        ),
        tool(
            "analyze_session",
            "Diagnostic health check of a session: score 0-100 and insights (turn_index, severity Critical|Warning|Info, lens Failures|Loops|TokenUsage, message), plus event counts.",
            analyze_schema(),
        ),
        tool(
            "search_event_previews",
            "Find events across sessions by keywords (ranked full-text search); returns event previews (about 300 chars) with session_id and event_index for get_event_details. Filter by provider, event_type or session_id; page with next_cursor.",
            search_schema(),
        ),
        tool(
            "get_event_details",
            "The full, untruncated payload of one event, by session_id and event_index (its 0-based position in the session, as search_event_previews returns it).",
            event_schema(),
        ),
    ]
}

fn tool(name: &'static str, description: &'static str, input_schema: Value) -> Tool {
    let Value::Object(schema) = input_schema else {
        unreachable!("schemas are JSON objects")
    };
    let schema: Arc<JsonObject> = Arc::new(schema);
    Tool::new(name, description, schema).with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    })
}

fn session_id_property() -> Value {
    json!({
        "type": "string",
        "description": "A native session id (as list_sessions shows it), a unique prefix of one (8 characters is typical), or an esker session:... id.",
    })
}

fn limit_property() -> Value {
    json!({
        "type": ["integer", "null"],
        "minimum": 1,
        "maximum": 50,
        "default": 10,
        "description": "Items per page, 1 to 50 (default 10). The server may return fewer.",
    })
}

fn cursor_property() -> Value {
    json!({
        "type": ["string", "null"],
        "description": "next_cursor from the previous page of the same request; omit or null to start.",
    })
}

fn provider_property() -> Value {
    let providers: Vec<&str> = PROVIDERS.iter().map(|(provider, _)| *provider).collect();
    json!({ "type": ["string", "null"], "enum": providers })
}

fn list_sessions_schema() -> Value {
    object_schema(
        json!({
            "limit": limit_property(),
            "cursor": cursor_property(),
            "provider": provider_property(),
            "project_hash": { "type": ["string", "null"], "description": "Only sessions of this project (hash from get_project_info)." },
            "since": { "type": ["string", "null"], "format": "date-time", "description": "ISO 8601 with a timezone: sessions started at or after." },
            "until": { "type": ["string", "null"], "format": "date-time", "description": "ISO 8601 with a timezone: sessions started before." },
        }),
        &[],
    )
}

fn details_schema() -> Value {
    object_schema(
        json!({
            "session_id": session_id_property(),
            "detail_level": {
                "type": ["string", "null"],
                "enum": ["summary", "turns", "steps", "full", null],
                "default": "summary",
            },
            "include_reasoning": {
                "type": ["boolean", "null"],
                "default": false,
                "description": "At detail_level turns: add each step's reasoning (cut to 500 chars). steps and full always include it.",
            },
            "cursor": cursor_property(),
        }),
        &["session_id"],
    )
}

fn analyze_schema() -> Value {
    object_schema(
        json!({
            "session_id": session_id_property(),
            "include_failures": { "type": ["boolean", "null"], "default": true },
            "include_loops": { "type": ["boolean", "null"], "default": false },
        }),
        &["session_id"],
    )
}

fn search_schema() -> Value {
    let event_types: Vec<&str> = AgEventType::ALL.iter().map(|kind| kind.as_str()).collect();
    object_schema(
        json!({
            "query": { "type": "string", "minLength": 1, "description": "Keywords to find in event text, tool arguments and outputs." },
            "limit": limit_property(),
            "cursor": cursor_property(),
            "provider": provider_property(),
            "event_type": { "type": ["string", "null"], "enum": event_types },
            "session_id": {
                "type": ["string", "null"],
                "description": "Only events of this session (native id, unique prefix or esker id).",
            },
        }),
        &["query"],
    )
}

fn event_schema() -> Value {
    object_schema(
        json!({
            "session_id": session_id_property(),
            "event_index": { "type": "integer", "minimum": 0, "description": "0-based position of the event in its session." },
        }),
        &["session_id", "event_index"],
    )
}
