//! What the server advertises: the tool definitions (descriptions, strict input schemas,
//! output schemas, read-only annotations) and the server instructions.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::model::{EventType, Source};
use crate::service::envelope::{ERROR_SCHEMA_VERSION, ErrorCode, ToolName};
use crate::service::file_attention::request as file_attention;
use crate::service::list_sessions::{self, MODES};
use crate::service::search_sessions;

/// Server instructions: the narrow-to-wide workflow in a few lines.
pub const INSTRUCTIONS: &str = "esker indexes local coding-agent session history (Codex, Claude Code, Gemini CLI) as sessions > turns > events. Work narrow to wide:
1. search_sessions with a few keywords finds events; each hit carries open handles.
2. open(event id) gives the exact content (full text, tool arguments, output, exit code).
3. open(turn id) shows the surrounding exchange; open(session id) maps the whole conversation.
4. Follow traversal ids (previous/next event or turn, parent session) instead of searching again.
For time-based questions (\"yesterday\", \"this morning\") call list_sessions with an explicit-timezone window, then open a listed session.
For \"who touched this file?\" call file_attention with the file's project-relative path: every session (or event) that read or changed it, across worktrees, with open handles.
IDs are opaque: pass them back exactly as returned. Errors come back as a moraine.mcp.error.v1 envelope with a code (invalid_request, invalid_id, not_found, ...).";

const ID_PATTERN: &str = "^(session|turn|event):[A-Za-z0-9_-]{1,256}$";
const SCOPE_ID_PATTERN: &str = "^(session|turn):[A-Za-z0-9_-]{1,256}$";

/// The tools, in a stable order.
pub fn tool_definitions() -> Vec<Tool> {
    ToolName::ALL.into_iter().map(tool_definition).collect()
}

fn tool_definition(tool: ToolName) -> Tool {
    let (title, description, input_schema) = match tool {
        ToolName::SearchSessions => (
            "Search session history",
            SEARCH_DESCRIPTION,
            search_input_schema(),
        ),
        ToolName::Open => (
            "Open a session, turn or event",
            OPEN_DESCRIPTION,
            open_input_schema(),
        ),
        ToolName::ListSessions => (
            "List sessions by time window",
            LIST_DESCRIPTION,
            list_input_schema(),
        ),
        ToolName::FileAttention => (
            "Sessions that touched a file",
            FILE_ATTENTION_DESCRIPTION,
            file_attention_input_schema(),
        ),
        ToolName::GetIngestStatus => (
            "Ingestion status",
            STATUS_DESCRIPTION,
            json!({"type": "object", "additionalProperties": false, "properties": {}}),
        ),
    };
    Tool::new(tool.as_str(), description, object(input_schema))
        .with_title(title)
        .with_raw_output_schema(object(output_schema(tool)))
        .with_annotations(
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are JSON objects"),
    }
}

const SEARCH_DESCRIPTION: &str = "Find events in indexed coding-agent sessions by keywords (BM25). Words and identifiers (snake_case, camelCase, kebab-case, dotted names, paths) found exactly as typed rank above word variants; \"quoted text\" must appear as a phrase. Returns ranked hits (score in [0,1], ordered by score, then newest, then id) with event, turn and session metadata, a short snippet, and open handles; never full payloads. Searches user_input, assistant_response and tool_response by default. Scope with within_id (a session or turn id). Use open on a hit's ids for the full content.";

const OPEN_DESCRIPTION: &str = "Expand an id from search_sessions, list_sessions or open. event id: full content (text, tool arguments, tool output and exit code) plus traversal to adjacent events and turns. turn id: turn metadata, one-line summaries of all its events, adjacent turns, first and last event. session id: session metadata, a compact summary of every turn, continuation/parent/sub-agent links.";

const LIST_DESCRIPTION: &str = "List sessions active in a time window (updated_at >= start_datetime and started_at < end_datetime), newest first by default, with compact metadata only (no transcript text). Datetimes need an explicit timezone offset or Z. Paginate with next_cursor; a cursor only continues the same filter and sort. With slug, only that continuation chain, oldest first, each with its session_number.";

const STATUS_DESCRIPTION: &str = "Health, historical coverage, freshness and readiness of the index, with the progress of a running indexing pass, the last passes and the ingest rate. Call with {}. Use it when a search finds nothing and you need to know whether the history is fully indexed.";

const FILE_ATTENTION_DESCRIPTION: &str = "Every session that touched a file (edits, writes, reads, patches, shell commands naming it), across every worktree of the project. The path is reduced to a project-relative tail and matched by suffix, so the main checkout, sibling worktrees and agent worktrees unify; roots lists the distinct worktree roots that matched (ambiguous when more than one). granularity sessions (default) gives one rollup per session (touch_count, tools), most recent touch first; events gives the touch-by-touch timeline. Each item carries session/event/turn ids for open. scope project (default) keeps sessions run inside the launch directory's project; all drops that.";

fn file_attention_input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["path"],
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "The file: a project-relative path (src/lib.rs, resolved from the launch directory) or an absolute one. No surrounding whitespace, no file:// URI, no trailing slash.",
            },
            "scope": {
                "type": ["string", "null"],
                "enum": ["project", "all", null],
                "default": "project",
                "description": "project (default): only sessions whose working directory is inside the launch directory's project (its Git checkout and linked worktrees); all: every session.",
            },
            "granularity": {
                "type": ["string", "null"],
                "enum": ["sessions", "events", null],
                "default": "sessions",
                "description": "sessions (default): one rollup per session; events: the flat touch-by-touch timeline.",
            },
            "start_datetime": {
                "type": ["string", "null"],
                "description": "Only touches at or after this time: RFC 3339 with an explicit offset or Z, at most millisecond precision.",
            },
            "end_datetime": {
                "type": ["string", "null"],
                "description": "Only touches before this time (exclusive), RFC 3339 with an explicit offset or Z; later than start_datetime.",
            },
            "tool": {
                "type": ["string", "null"],
                "description": "Only touches by this tool name (Edit, Read, apply_patch, exec_command, ...).",
            },
            "harness": harness_schema(),
            "source": source_schema(),
            "mutations_only": {
                "type": ["boolean", "null"],
                "default": false,
                "description": "Only touches that changed the file (edits, writes, patches, deletes, shell writes); excludes reads.",
            },
            "limit": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": file_attention::MAX_LIMIT,
                "default": file_attention::DEFAULT_LIMIT,
                "description": "Most sessions (or events) to return, an integer from 1 to 50. Default 25.",
            },
            "cursor": {
                "type": ["string", "null"],
                "description": "next_cursor from a previous file_attention response with the same path and filters.",
            },
        },
    })
}

fn search_input_schema() -> Value {
    let searchable: Vec<&str> = EventType::SEARCHABLE
        .iter()
        .map(|kind| kind.as_str())
        .collect();
    let default_types: Vec<&str> = EventType::SEARCH_DEFAULT
        .iter()
        .map(|kind| kind.as_str())
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["query"],
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": search_sessions::MAX_QUERY_CHARS,
                "description": "Keywords to search event text for; must contain a non-whitespace character; at most 4096 characters after trimming.",
            },
            "within_id": {
                "type": ["string", "null"],
                "pattern": SCOPE_ID_PATTERN,
                "description": "Optional session:... or turn:... id (as returned by esker) to search only inside that session or turn. Event ids are not valid scopes. Omit or null to search everything.",
            },
            "event_types": {
                "type": ["array", "null"],
                "minItems": 1,
                "items": { "type": "string", "enum": searchable },
                "default": default_types,
                "description": "Event types to search. Default: user_input, assistant_response, tool_response. Add reasoning, tool_call, compaction, system or runtime explicitly when needed; unknown is not searchable.",
            },
            "n_hits": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": search_sessions::MAX_N_HITS,
                "default": search_sessions::DEFAULT_N_HITS,
                "description": "Number of hits to return, an integer from 1 to 50. Default 10.",
            },
            "harness": harness_schema(),
            "source": source_schema(),
        },
    })
}

/// Moraine's `harness` filter: exact harness names of the sources esker reads.
fn harness_schema() -> Value {
    let names: Vec<&str> = Source::ALL.into_iter().map(Source::harness).collect();
    json!({
        "type": ["string", "null"],
        "enum": names.into_iter().map(Value::from).chain([Value::Null]).collect::<Vec<_>>(),
        "description": "Only sessions of this harness (exact, case-sensitive: codex, claude-code, gemini-cli, ...).",
    })
}

/// Moraine's `source` filter: esker's source names.
fn source_schema() -> Value {
    let names: Vec<&str> = Source::ALL.into_iter().map(Source::as_str).collect();
    json!({
        "type": ["string", "null"],
        "enum": names.into_iter().map(Value::from).chain([Value::Null]).collect::<Vec<_>>(),
        "description": "Only sessions of this ingest source (exact: codex, claude, gemini, ...).",
    })
}

fn open_input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["id"],
        "properties": {
            "id": {
                "type": "string",
                "pattern": ID_PATTERN,
                "description": "A session:..., turn:... or event:... id exactly as returned by search_sessions, list_sessions or open.",
            },
            "sessions": {
                "type": "string",
                "description": "Only with a session id: the members of its continuation chain to open, 1-based by start time (\"4\", \"4-5\", \"1,3-5\"); each session object's chain.session_count says how many there are.",
            },
            "limit": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": 1000,
                "description": "Page a session's turns or a turn's events: at most this many per answer, with next_cursor for the rest. Omit to get every child.",
            },
            "cursor": {
                "type": ["string", "null"],
                "description": "next_cursor from a previous open of the same id: the next page.",
            },
        },
    })
}

fn list_input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["start_datetime", "end_datetime"],
        "properties": {
            "start_datetime": {
                "type": "string",
                "format": "date-time",
                "description": "Inclusive window start, RFC 3339 with an explicit offset or Z, e.g. 2026-04-30T09:00:00-04:00.",
            },
            "end_datetime": {
                "type": "string",
                "format": "date-time",
                "description": "Exclusive window end, RFC 3339 with an explicit offset or Z; must be later than start_datetime.",
            },
            "limit": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": list_sessions::MAX_LIMIT,
                "default": list_sessions::DEFAULT_LIMIT,
                "description": "Most sessions to return, an integer from 1 to 50. Default 20.",
            },
            "cursor": {
                "type": ["string", "null"],
                "description": "next_cursor from a previous list_sessions response with the same window, mode, sort and slug.",
            },
            "mode": {
                "type": ["string", "null"],
                "enum": [MODES[0], MODES[1], MODES[2], MODES[3], null],
                "description": "Only sessions of this mode: web_search, mcp_internal, tool_calling or chat.",
            },
            "harness": harness_schema(),
            "source": source_schema(),
            "sort": {
                "type": ["string", "null"],
                "enum": ["desc", "asc", null],
                "default": "desc",
                "description": "desc (newest first, default) or asc (oldest first), by updated_at then id.",
            },
            "slug": {
                "type": ["string", "null"],
                "maxLength": list_sessions::MAX_SLUG_CHARS,
                "description": "Only the continuation chain of this slug (a session's chain.slug or session_slug), oldest first by started_at, each with its session_number; the window and mode still apply; sort must be asc or absent.",
            },
        },
    })
}

/// The envelope schema: the tool's success envelope or the error envelope.
fn output_schema(tool: ToolName) -> Value {
    let error_codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
    json!({
        "type": "object",
        "description": format!("Success envelope ({}) with data, or error envelope ({ERROR_SCHEMA_VERSION}) with error.", tool.schema_version()),
        "required": ["schema_version", "tool", "request", "warnings", "performance"],
        "properties": {
            "schema_version": { "type": "string", "enum": [tool.schema_version(), ERROR_SCHEMA_VERSION] },
            "tool": { "type": "string", "const": tool.as_str() },
            "request": { "type": "object", "description": "The canonical request after defaults (the raw arguments when they were rejected)." },
            "data": data_schema(tool),
            "error": {
                "type": "object",
                "required": ["code", "message", "details"],
                "properties": {
                    "code": { "type": "string", "enum": error_codes },
                    "message": { "type": "string" },
                    "details": { "type": "object" },
                },
            },
            "warnings": { "type": "array", "items": { "type": "string" } },
            "performance": {
                "type": "object",
                "required": ["elapsed_ms", "sla_target_ms", "met_sla"],
                "properties": {
                    "elapsed_ms": { "type": "integer", "minimum": 0 },
                    "sla_target_ms": { "type": "integer", "minimum": 0 },
                    "met_sla": { "type": "boolean" },
                },
            },
        },
    })
}

fn data_schema(tool: ToolName) -> Value {
    let nullable_string = json!({ "type": ["string", "null"] });
    match tool {
        ToolName::SearchSessions => json!({
            "type": "object",
            "required": ["result_count", "limit", "truncated", "results"],
            "properties": {
                "result_count": { "type": "integer" },
                "limit": { "type": "integer" },
                "truncated": { "type": "boolean" },
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["rank", "score", "id", "event", "turn", "session", "snippet", "open"],
                        "properties": {
                            "rank": { "type": "integer", "minimum": 1 },
                            "score": { "type": "number", "minimum": 0, "maximum": 1 },
                            "id": { "type": "string" },
                            "event": { "type": "object" },
                            "turn": { "type": "object" },
                            "session": { "type": "object" },
                            "snippet": { "type": "object" },
                            "open": {
                                "type": "object",
                                "required": ["event_id", "turn_id", "session_id"],
                            },
                        },
                    },
                },
            },
        }),
        ToolName::Open => json!({
            "type": "object",
            "required": ["kind"],
            "properties": {
                "kind": { "type": "string", "enum": ["session", "turn", "event", "session_range"] },
                "session": { "type": "object" },
                "sessions": { "type": "string" },
                "session_count": { "type": "integer" },
                "members": { "type": "array" },
                "turn": { "type": "object" },
                "event": { "type": "object" },
                "turns": { "type": "array" },
                "events": { "type": "array" },
                "summary": { "type": "object" },
                "content": { "type": "object" },
                "traversal": { "type": "object" },
            },
        }),
        ToolName::ListSessions => json!({
            "type": "object",
            "required": ["result_count", "limit", "truncated", "sessions", "next_cursor"],
            "properties": {
                "result_count": { "type": "integer" },
                "limit": { "type": "integer" },
                "truncated": { "type": "boolean" },
                "sessions": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["rank", "id", "session", "open"],
                    },
                },
                "next_cursor": nullable_string,
            },
        }),
        ToolName::FileAttention => json!({
            "type": "object",
            "required": ["path", "tail", "scope", "granularity", "summary", "roots", "result_count", "limit", "truncated", "next_cursor"],
            "properties": {
                "path": { "type": "string" },
                "tail": { "type": "string" },
                "tail_is_absolute": { "type": "boolean" },
                "stripped_root": nullable_string,
                "scope": { "type": "string", "enum": ["project", "all"] },
                "granularity": { "type": "string", "enum": ["sessions", "events"] },
                "summary": {
                    "type": "object",
                    "required": ["total_touches", "distinct_sessions", "distinct_roots", "distinct_known_roots", "unknown_root_touches", "first_touch", "last_touch", "ambiguous", "scan_truncated"],
                },
                "roots": {
                    "type": "array",
                    "items": { "type": "object", "required": ["root", "touch_count", "session_count"] },
                },
                "result_count": { "type": "integer" },
                "limit": { "type": "integer" },
                "truncated": { "type": "boolean" },
                "sessions": {
                    "type": "array",
                    "items": { "type": "object", "required": ["rank", "id", "session", "open"] },
                },
                "events": {
                    "type": "array",
                    "items": { "type": "object", "required": ["rank", "id", "event", "open"] },
                },
                "next_cursor": nullable_string,
            },
        }),
        ToolName::GetIngestStatus => json!({
            "type": "object",
            "required": ["observed_at_unix_ms", "current", "conditions", "alerts", "rate", "eta", "history"],
            "properties": {
                "observed_at_unix_ms": { "type": "integer" },
                "current": { "type": ["object", "null"] },
                "conditions": { "type": "array", "items": { "type": "object", "required": ["condition_type", "state", "reason", "observed_at_unix_ms"] } },
                "alerts": { "type": "array" },
                "rate": { "type": ["object", "null"] },
                "eta": { "type": ["object", "null"] },
                "history": { "type": "array" },
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_strict_read_only_and_has_an_output_schema() {
        let tools = tool_definitions();
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "search_sessions",
                "open",
                "list_sessions",
                "file_attention",
                "get_ingest_status"
            ]
        );
        for tool in &tools {
            assert_eq!(tool.input_schema["additionalProperties"], json!(false));
            assert_eq!(tool.input_schema["type"], "object");
            let annotations = tool.annotations.as_ref().unwrap();
            assert_eq!(annotations.read_only_hint, Some(true));
            assert!(tool.output_schema.is_some());
        }
    }
}
