//! What the relay profile advertises: relay-search's three history tools with its parameters
//! (descriptions in esker's words), all read-only, and the server instructions.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::args::MAX_LIMIT;
use super::messages::Role;

pub const INSTRUCTIONS: &str = "esker serves local coding-agent history (Claude Code, Codex, Gemini CLI) with relay-search's history tools.
- search_history finds messages (prompts, replies, tool calls) with FTS5-style queries: words (all must match), OR, NOT, \"quoted phrases\", parentheses, NEAR(a b, N), prefixes (migrat*). Each hit names its session, slug and session_number.
- list_sessions lists recent sessions; with slug, the sessions of one continued conversation (a chain) oldest first, numbered.
- get_conversation reads a session by id, or a whole chain by slug; session (\"4\", \"4-5\", \"1,3-5\") picks members of the chain, then around_timestamp, roles and limit apply.
A chain is every session continuing one conversation: Claude Code sessions sharing a slug, or Codex resumes and forks (named chain:<source>-<id of its first session>). Errors are {\"error\": \"...\"}.";

/// The three tools, in relay-search's order.
pub fn tool_definitions() -> Vec<Tool> {
    vec![
        tool(
            "search_history",
            "Search all indexed conversations (prompts, assistant replies, tool calls) with FTS5-style syntax: terms are ANDed; OR, NOT, \"quoted phrases\" and parentheses combine them; NEAR(a b \"c d\", N) finds phrases within N tokens (default 10) in any order; migrat* and \"schema dri\"* are prefixes; ^word anchors at the start. Ranked best first (BM25). Each result: id (message id), session_id, slug, project_dir, git_branch, role, timestamp, snippet (matches marked >>>like this<<<) and session_number (the session's place in its slug chain, null without a slug).",
            search_schema(),
        ),
        tool(
            "get_conversation",
            "The messages of one session (by its id) or of every session sharing a slug, as one chronological stream. session (\"4\", \"4-5\", \"1,3,5\", \"1,3-5\", 1-based) keeps only those chain members, before around_timestamp (10 messages up to that time and 10 after; limit is then ignored), roles and limit apply; it is ignored for an exact session id. format markdown (default) or json ({sessions, messages, message_count}).",
            conversation_schema(),
        ),
        tool(
            "list_sessions",
            "Recent sessions, most recently active first: session_id, project_dir, slug, first_timestamp, last_timestamp, message_count, git_branch, cwd. With slug: only that chain, oldest first, each with session_number (slug takes precedence over project). date_from and date_to keep sessions overlapping the range.",
            list_schema(),
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

fn limit_property(default: i64) -> Value {
    json!({
        "type": ["integer", "null"],
        "default": default,
        "description": format!("Most results to return (default {default}); clamped to 1..{MAX_LIMIT}."),
    })
}

fn optional_string(description: &str) -> Value {
    json!({ "type": ["string", "null"], "description": description })
}

fn tags_property() -> Value {
    json!({
        "type": ["array", "null"],
        "items": { "type": "string" },
        "description": "Not supported: esker keeps no tags; a non-empty list is an error.",
    })
}

fn search_schema() -> Value {
    object_schema(
        json!({
            "query": { "type": "string", "description": "FTS5-style query: terms (all must match), AND, OR, NOT, \"quoted phrases\", parentheses, NEAR(a b, N), prefix*, ^first." },
            "limit": limit_property(10),
            "project": optional_string("Only messages of sessions whose project directory contains this (case-insensitive)."),
            "date_from": optional_string("Only messages at or after this ISO date or datetime (e.g. 2026-01-15)."),
            "date_to": optional_string("Only messages at or before this ISO date (the whole day) or datetime."),
            "tags": tags_property(),
        }),
        &["query"],
    )
}

fn conversation_schema() -> Value {
    let roles: Vec<&str> = Role::ALL.iter().map(|role| role.as_str()).collect();
    object_schema(
        json!({
            "session_id_or_slug": { "type": "string", "description": "A session id (as the other tools return it) or a slug (e.g. sorted-humming-fox, or chain:codex-<id> for a Codex chain)." },
            "around_timestamp": optional_string("An ISO timestamp: return the 10 messages up to it and the 10 after it."),
            "roles": {
                "type": ["array", "null"],
                "items": { "type": "string", "enum": roles },
                "description": "Only messages of these roles: user, assistant, tool_summary (tool calls), plan.",
            },
            "limit": limit_property(200),
            "format": { "type": ["string", "null"], "enum": ["markdown", "json", null], "default": "markdown" },
            "session": optional_string("Chain members to keep, 1-based by start time: \"4\", \"4-5\", \"1,3,5\", \"1,3-5\". Ignored for an exact session id."),
        }),
        &["session_id_or_slug"],
    )
}

fn list_schema() -> Value {
    object_schema(
        json!({
            "limit": limit_property(20),
            "project": optional_string("Only sessions whose project directory contains this (case-insensitive); ignored with slug."),
            "date_from": optional_string("Only sessions active at or after this ISO date or datetime."),
            "date_to": optional_string("Only sessions started at or before this ISO date (the whole day) or datetime."),
            "tags": tags_property(),
            "slug": optional_string("Only the sessions of this slug's chain, oldest first, with session_number."),
        }),
        &[],
    )
}
