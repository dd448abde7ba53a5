//! What the memory profile advertises: the six tools of seed 001 (descriptions, input
//! schemas with the seed's defaults and limits) and the server instructions. Schemas allow
//! extra properties: the seed's compatibility rule is to ignore unknown input fields.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::memory::service::{
    DEFAULT_DEPTH, DEFAULT_SEARCH_LIMIT, MAX_BATCH_IDS, MAX_DEPTH, MAX_SEARCH_LIMIT,
};

pub const SAVE_MEMORY: &str = "save_memory";
pub const SEARCH: &str = "search";
pub const TIMELINE: &str = "timeline";
pub const GET_ENTRIES: &str = "get_entries";
pub const INGEST_DOCS: &str = "ingest_docs";
pub const RETENTION_DRY_RUN: &str = "retention_dry_run";
/// The six tool names, in the seed's order.
pub const NAMES: [&str; 6] = [
    SAVE_MEMORY,
    SEARCH,
    TIMELINE,
    GET_ENTRIES,
    INGEST_DOCS,
    RETENTION_DRY_RUN,
];

pub const INSTRUCTIONS: &str = "esker keeps durable memory entries (decisions, constraints, findings, notes) for this project, stored with the agent session history it indexes.
1. save_memory records a note as soon as something worth keeping is decided or learned; it is durable when the call returns and searchable at once.
2. search finds entries by keywords (BM25 over title and body); it returns compact items with ids.
3. get_entries fetches the full text of chosen ids in one batch; timeline shows the entries saved around one of them in the same project.
4. ingest_docs imports project documents (default docs/session-log.md, docs/decisions.md, docs/requirements.md) once per content version; retention_dry_run reports what a retention policy would remove, removing nothing.
Text holding a secret (API key, token, private key) is refused with POLICY_BLOCKED. Errors are {error:{code, message, details}}.";

/// The six tools, in the seed's order.
pub fn tool_definitions() -> Vec<Tool> {
    vec![
        tool(
            SAVE_MEMORY,
            "Save a memory entry (a decision, constraint, finding or note). Returns {status:\"saved\", id, created_at}. The title defaults to the text's first line (at most 120 chars), the project to the server's, the type to \"note\".",
            save_schema(),
            Writes::Yes,
        ),
        tool(
            SEARCH,
            "Search memory entries by keywords (BM25 over title and body; any word matches). Returns compact ranked items {id, title, entry_type, project, created_at, score} with total, limit and offset; fetch full text with get_entries.",
            search_schema(),
            Writes::No,
        ),
        tool(
            TIMELINE,
            "The entries saved just before and after one entry (anchor_id) in the same project, in created_at order, the anchor included.",
            timeline_schema(),
            Writes::No,
        ),
        tool(
            GET_ENTRIES,
            "Full entries {id, title, body, entry_type, project, session_id, source_ref, metadata, created_at} for up to 200 ids in one call, in the order asked; unknown ids are left out.",
            get_entries_schema(),
            Writes::No,
        ),
        tool(
            INGEST_DOCS,
            "Import project documents as entries, one per file, skipping files already imported with the same content (counted in duplicate_entries) and listing missing ones in skipped_sources. Paths are relative to the project root.",
            ingest_schema(),
            Writes::Yes,
        ),
        tool(
            RETENTION_DRY_RUN,
            "Report which entries a retention policy would delete (older than max_age_days, or beyond the newest max_entries_per_project of their project), by reason. Deletes nothing; at least one rule is required.",
            retention_schema(),
            Writes::No,
        ),
    ]
}

/// Whether a tool changes the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writes {
    Yes,
    No,
}

fn tool(
    name: &'static str,
    description: &'static str,
    input_schema: Value,
    writes: Writes,
) -> Tool {
    let Value::Object(schema) = input_schema else {
        unreachable!("schemas are JSON objects")
    };
    let schema: Arc<JsonObject> = Arc::new(schema);
    Tool::new(name, description, schema).with_annotations(
        ToolAnnotations::new()
            .read_only(writes == Writes::No)
            .destructive(false)
            .idempotent(writes == Writes::No)
            .open_world(false),
    )
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "required": required,
        "properties": properties,
    })
}

fn optional_string(description: &str) -> Value {
    json!({ "type": ["string", "null"], "description": description })
}

fn save_schema() -> Value {
    object_schema(
        json!({
            "text": { "type": "string", "minLength": 1, "description": "The note (at most 1 MB)." },
            "title": optional_string("Short title (at most 120 chars); default: the text's first line."),
            "project": optional_string("Project (at most 64 chars); default: the server's project."),
            "type": optional_string("Entry type, e.g. decision, constraint, finding (default note)."),
            "source_ref": optional_string("Where the note comes from (a path, URL or ticket)."),
            "session_id": optional_string("The session the note comes from."),
            "metadata": { "type": ["object", "null"], "description": "Any JSON object kept with the entry." },
        }),
        &["text"],
    )
}

fn search_schema() -> Value {
    object_schema(
        json!({
            "query": { "type": "string", "minLength": 1, "description": "Keywords." },
            "project": optional_string("Only entries of this project."),
            "type": optional_string("Only entries of this type."),
            "limit": {
                "type": ["integer", "null"], "minimum": 1, "maximum": MAX_SEARCH_LIMIT,
                "default": DEFAULT_SEARCH_LIMIT,
                "description": format!("Items per page (default {DEFAULT_SEARCH_LIMIT}, at most {MAX_SEARCH_LIMIT})."),
            },
            "offset": { "type": ["integer", "null"], "minimum": 0, "default": 0 },
        }),
        &["query"],
    )
}

fn depth(description: &str) -> Value {
    json!({
        "type": ["integer", "null"], "minimum": 0, "maximum": MAX_DEPTH, "default": DEFAULT_DEPTH,
        "description": description,
    })
}

fn timeline_schema() -> Value {
    object_schema(
        json!({
            "anchor_id": { "type": "string", "description": "An entry id." },
            "depth_before": depth("Entries before the anchor (default 3, at most 20)."),
            "depth_after": depth("Entries after the anchor (default 3, at most 20)."),
        }),
        &["anchor_id"],
    )
}

fn get_entries_schema() -> Value {
    object_schema(
        json!({
            "ids": {
                "type": "array", "items": { "type": "string" },
                "minItems": 1, "maxItems": MAX_BATCH_IDS,
            },
        }),
        &["ids"],
    )
}

fn ingest_schema() -> Value {
    object_schema(
        json!({
            "project": optional_string("Project of the imported entries; default: the server's project."),
            "sources": {
                "type": ["array", "null"], "items": { "type": "string" }, "minItems": 1, "maxItems": 100,
                "description": "Paths relative to the project root; default docs/session-log.md, docs/decisions.md, docs/requirements.md.",
            },
            "entry_type": optional_string("Entry type (default ingestion)."),
        }),
        &[],
    )
}

fn retention_schema() -> Value {
    object_schema(
        json!({
            "now": { "type": ["string", "null"], "format": "date-time", "description": "The reference time (ISO 8601); default: now." },
            "max_age_days": { "type": ["number", "null"], "exclusiveMinimum": 0 },
            "max_entries_per_project": { "type": ["integer", "null"], "minimum": 1 },
            "project": optional_string("Only entries of this project."),
        }),
        &[],
    )
}
