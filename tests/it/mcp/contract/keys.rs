//! The one place the tests keep each profile's response key sets (issue #48), read from the
//! seed texts in `shared/seeds` (000 Moraine, 004 AgTrace, 002 relay-search, 001 codex-mem),
//! and where a seed shows only part of an object, from what the peer's own source does
//! (`shared/research/seed-contracts.md`; Moraine's later tools from its
//! `docs/agent-mcp-search/interface.md` and `scripts/ci/mcp_smoke.py`). `seed` keys are the
//! contract's; `esker` keys are esker's additions, each documented in docs/MCP.md; `optional`
//! keys appear in some answers only. Where the peer's own test compares key sets exactly
//! (Moraine's `coverage` and `get_ingest_status`), esker adds nothing.

use super::walk::{Object, Shape};

// ---------------------------------------------------------------------------------------
// Moraine (default profile): seed 000 and Moraine's later contract.
// ---------------------------------------------------------------------------------------

/// Seed 000, "Response Envelope" (and "Error Envelope").
const ENVELOPE: [&str; 6] = [
    "schema_version",
    "tool",
    "request",
    "data",
    "warnings",
    "performance",
];
const ERROR_ENVELOPE: [&str; 6] = [
    "schema_version",
    "tool",
    "request",
    "error",
    "warnings",
    "performance",
];
/// Seed 000, "Response Envelope": performance.
const PERFORMANCE: [&str; 3] = ["elapsed_ms", "sla_target_ms", "met_sla"];
/// Moraine's smoke test (`assert_structured_content`): exactly these three.
const COVERAGE: [&str; 3] = ["state", "reason", "observed_at_unix_ms"];
/// docs/MCP.md, "Additive fields": `usage`.
const USAGE: [&str; 5] = [
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
];
/// docs/MCP.md, "Additive fields": `chain`.
const CHAIN: [&str; 3] = ["slug", "session_number", "session_count"];
/// Seed 000, "Opening A Session": a turn's user_input / final_response.
const EXCERPT: [&str; 3] = ["event_id", "text", "truncated"];
/// Seed 000, "Opening A Session": session.
const OPENED_SESSION: [&str; 8] = [
    "id",
    "title",
    "source",
    "started_at",
    "updated_at",
    "completed",
    "turn_count",
    "event_count",
];
/// docs/MCP.md, "Additive fields" and "Moraine's later additions": what esker's opened session
/// adds (the list item's mode/slug/summary, harness, chain, usage, models, and the session's
/// agent, directory, branch, project and model, and its resume command).
const OPENED_SESSION_ESKER: [&str; 13] = [
    "resume_command",
    "harness",
    "chain",
    "usage",
    "models",
    "mode",
    "session_slug",
    "session_summary",
    "agent_name",
    "cwd",
    "git_branch",
    "project",
    "model",
];
/// Seed 000, "Opening A Session": turn summary shape.
const TURN_SUMMARY: [&str; 12] = [
    "id",
    "ordinal",
    "completed",
    "terminal_event_id",
    "event_count",
    "started_at",
    "updated_at",
    "user_input",
    "final_response",
    "tools_called",
    "event_types",
    "open",
];
/// Seed 000, "Opening A Session": traversal; esker adds the sub-agent and fork links.
const SESSION_TRAVERSAL: [&str; 2] = ["previous_session_id", "next_session_id"];
const SESSION_TRAVERSAL_ESKER: [&str; 3] = [
    "parent_session_id",
    "child_session_ids",
    "forked_from_session_id",
];
/// Moraine's paged `open` (docs/MCP.md, "Moraine's later additions").
const PAGE: [&str; 3] = ["offset", "limit", "total"];

const fn envelope(name: &'static str, objects: &'static [Object]) -> Shape {
    Shape {
        name,
        objects,
        free: &[],
    }
}

pub const MORAINE_SEARCH: Shape = envelope(
    "moraine search_sessions",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        // Seed 000, "Successful Response Shape"; harness/source echoed when given (Moraine's
        // smoke test reads them back).
        Object::seed("request", &["query", "within_id", "event_types", "n_hits"])
            .optional(&["harness", "source"]),
        Object::with(
            "data",
            &["result_count", "limit", "truncated", "results"],
            &["coverage"],
        ),
        Object::seed("data.coverage", &COVERAGE),
        // Seed 000, "Search Hit Shape".
        Object::seed(
            "data.results[]",
            &[
                "rank", "score", "id", "event", "turn", "session", "snippet", "open",
            ],
        ),
        Object::seed(
            "data.results[].event",
            &["id", "type", "timestamp", "ordinal", "terminal"],
        ),
        Object::seed(
            "data.results[].turn",
            &["id", "ordinal", "completed", "event_count"],
        ),
        Object::with(
            "data.results[].session",
            &[
                "id",
                "title",
                "source",
                "started_at",
                "updated_at",
                "completed",
            ],
            &["harness", "chain"],
        ),
        Object::seed("data.results[].session.chain", &CHAIN),
        Object::seed("data.results[].snippet", &["text", "truncated"]),
        Object::seed(
            "data.results[].open",
            &["event_id", "turn_id", "session_id"],
        ),
    ],
);

pub const MORAINE_LIST: Shape = envelope(
    "moraine list_sessions",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        // Seed 000, list_sessions "Request Schema".
        Object::seed(
            "request",
            &[
                "start_datetime",
                "end_datetime",
                "limit",
                "cursor",
                "mode",
                "sort",
            ],
        )
        .optional(&["harness", "source", "slug"]),
        // Seed 000, list_sessions "Response Shape".
        Object::with(
            "data",
            &[
                "result_count",
                "limit",
                "truncated",
                "sessions",
                "next_cursor",
            ],
            &["coverage"],
        ),
        Object::seed("data.coverage", &COVERAGE),
        Object::seed("data.sessions[]", &["rank", "id", "session", "open"])
            .optional(&["session_number"]),
        Object::with(
            "data.sessions[].session",
            &[
                "id",
                "title",
                "source",
                "started_at",
                "updated_at",
                "completed",
                "turn_count",
                "event_count",
                "mode",
                "session_slug",
                "session_summary",
            ],
            &["harness", "chain", "usage"],
        ),
        Object::seed("data.sessions[].session.chain", &CHAIN),
        Object::seed("data.sessions[].session.usage", &USAGE),
        Object::seed("data.sessions[].open", &["session_id"]),
    ],
);

pub const MORAINE_OPEN_SESSION: Shape = envelope(
    "moraine open(session)",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("request", &["id"]).optional(&["limit", "cursor"]),
        // Seed 000, "Session response shape".
        Object::with(
            "data",
            &["kind", "session", "turns", "traversal"],
            &["coverage"],
        )
        .optional(&["next_cursor", "page"]),
        Object::seed("data.coverage", &COVERAGE),
        Object::seed("data.page", &PAGE),
        Object::with("data.session", &OPENED_SESSION, &OPENED_SESSION_ESKER),
        Object::seed("data.session.chain", &CHAIN),
        Object::seed("data.session.usage", &USAGE),
        Object::with("data.turns[]", &TURN_SUMMARY, &["usage"]),
        Object::seed("data.turns[].usage", &USAGE),
        Object::seed("data.turns[].user_input", &EXCERPT),
        Object::seed("data.turns[].final_response", &EXCERPT),
        Object::seed("data.turns[].open", &["turn_id", "terminal_event_id"]),
        Object::with(
            "data.traversal",
            &SESSION_TRAVERSAL,
            &SESSION_TRAVERSAL_ESKER,
        ),
    ],
);

/// docs/MCP.md, "Additive fields": `open({id, sessions})`, a chain range.
pub const MORAINE_OPEN_RANGE: Shape = envelope(
    "moraine open(session range)",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("request", &["id", "sessions"]),
        Object::with(
            "data",
            &[],
            &["kind", "sessions", "session_count", "members", "coverage"],
        ),
        Object::seed("data.coverage", &COVERAGE),
        Object::with(
            "data.members[]",
            &["kind", "session", "turns", "traversal"],
            &["session_number"],
        ),
        Object::with(
            "data.members[].session",
            &OPENED_SESSION,
            &OPENED_SESSION_ESKER,
        ),
        Object::seed("data.members[].session.chain", &CHAIN),
        Object::seed("data.members[].session.usage", &USAGE),
        Object::with("data.members[].turns[]", &TURN_SUMMARY, &["usage"]),
        Object::seed("data.members[].turns[].usage", &USAGE),
        Object::seed("data.members[].turns[].user_input", &EXCERPT),
        Object::seed("data.members[].turns[].final_response", &EXCERPT),
        Object::seed(
            "data.members[].turns[].open",
            &["turn_id", "terminal_event_id"],
        ),
        Object::with(
            "data.members[].traversal",
            &SESSION_TRAVERSAL,
            &SESSION_TRAVERSAL_ESKER,
        ),
    ],
);

pub const MORAINE_OPEN_TURN: Shape = envelope(
    "moraine open(turn)",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("request", &["id"]).optional(&["limit", "cursor"]),
        // Seed 000, "Turn response shape".
        Object::with(
            "data",
            &["kind", "turn", "session", "summary", "events", "traversal"],
            &["coverage"],
        )
        .optional(&["next_cursor", "page"]),
        Object::seed("data.coverage", &COVERAGE),
        Object::seed("data.page", &PAGE),
        Object::with(
            "data.turn",
            &[
                "id",
                "session_id",
                "ordinal",
                "completed",
                "terminal_event_id",
                "event_count",
                "started_at",
                "updated_at",
            ],
            &["usage"],
        ),
        Object::seed("data.turn.usage", &USAGE),
        Object::with("data.session", &["id", "title", "source"], &["harness"]),
        Object::seed(
            "data.summary",
            &[
                "user_input",
                "final_response",
                "tools_called",
                "event_types",
            ],
        ),
        Object::seed("data.summary.user_input", &EXCERPT),
        Object::seed("data.summary.final_response", &EXCERPT),
        // Seed 000, "Event summary shape inside events".
        Object::seed(
            "data.events[]",
            &[
                "id",
                "ordinal",
                "type",
                "timestamp",
                "terminal",
                "tool_name",
                "model",
                "summary",
                "truncated",
            ],
        ),
        Object::seed(
            "data.traversal",
            &[
                "session_id",
                "previous_turn_id",
                "next_turn_id",
                "first_event_id",
                "last_event_id",
            ],
        ),
    ],
);

pub const MORAINE_OPEN_EVENT: Shape = Shape {
    name: "moraine open(event)",
    objects: &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("request", &["id"]),
        // Seed 000, "Event response shape".
        Object::with(
            "data",
            &["kind", "event", "content", "session", "turn", "traversal"],
            &["coverage"],
        ),
        Object::seed("data.coverage", &COVERAGE),
        Object::with(
            "data.event",
            &[
                "id",
                "session_id",
                "turn_id",
                "ordinal",
                "type",
                "timestamp",
                "terminal",
                "model",
                "originating_model",
                "tool_name",
            ],
            &["subtype", "tool_call_id"],
        ),
        // Seed 000, "Common content fields" and the tool call / tool response examples;
        // "Structured event payloads may include additional fields": esker's `payload`.
        Object::seed("data.content", &["format", "text", "truncated"]).optional(&["payload"]),
        Object::seed(
            "data.content",
            &["format", "tool_name", "arguments", "text", "truncated"],
        ),
        Object::seed(
            "data.content",
            &["format", "tool_name", "exit_code", "text", "truncated"],
        )
        .optional(&["payload"]),
        Object::with("data.session", &["id", "title", "source"], &["harness"]),
        Object::seed("data.turn", &["id", "ordinal", "completed"]),
        Object::seed(
            "data.traversal",
            &[
                "session_id",
                "turn_id",
                "previous_event_id",
                "next_event_id",
                "previous_turn_id",
                "next_turn_id",
            ],
        ),
    ],
    free: &["data.content.arguments", "data.content.payload"],
};

/// Moraine's `file_attention` (its interface.md: input, `summary`, `roots`, items with `open`;
/// the item fields beyond those it shows are esker's, docs/MCP.md "file_attention").
pub const MORAINE_FILE_ATTENTION: Shape = envelope(
    "moraine file_attention",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed(
            "request",
            &[
                "path",
                "scope",
                "granularity",
                "start_datetime",
                "end_datetime",
                "tool",
                "harness",
                "source",
                "mutations_only",
                "limit",
            ],
        )
        .with_esker(&["cursor"]),
        Object::with(
            "data",
            &[
                "tail",
                "summary",
                "path",
                "scope",
                "granularity",
                "limit",
                "truncated",
                "roots",
                "coverage",
            ],
            &[
                "result_count",
                "next_cursor",
                "stripped_root",
                "tail_is_absolute",
            ],
        )
        .optional(&["sessions", "events"]),
        Object::seed("data.coverage", &COVERAGE),
        Object::seed(
            "data.summary",
            &[
                "total_touches",
                "distinct_sessions",
                "distinct_roots",
                "distinct_known_roots",
                "unknown_root_touches",
                "first_touch",
                "last_touch",
                "ambiguous",
                "scan_truncated",
            ],
        ),
        Object::seed("data.roots[]", &["root", "touch_count", "session_count"]),
        Object::seed("data.sessions[]", &["rank", "id", "session", "open"]),
        Object::with(
            "data.sessions[].session",
            &["harness", "touch_count", "tools"],
            &[
                "id",
                "source",
                "first_touch",
                "last_touch",
                "mutation_count",
                "worktree_roots",
                "match_kinds",
            ],
        ),
        Object::seed(
            "data.sessions[].open",
            &["session_id", "event_id", "turn_id"],
        ),
        Object::with("data.events[]", &["rank", "id", "open"], &["event"]),
        Object::with(
            "data.events[].event",
            &["session_id", "tool_name", "worktree_root"],
            &[
                "id",
                "turn_id",
                "timestamp",
                "harness",
                "source",
                "mutation",
                "match_kind",
                "matched_path",
            ],
        ),
        Object::seed("data.events[].open", &["session_id", "event_id", "turn_id"]),
    ],
);

/// Moraine's smoke test compares each of these key sets exactly (`expected_status_fields`,
/// `expected_condition_fields`, the alert, rate, ETA, history, current and progress sets).
pub const MORAINE_INGEST_STATUS: Shape = envelope(
    "moraine get_ingest_status",
    &[
        Object::seed("", &ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("request", &[]),
        Object::seed(
            "data",
            &[
                "observed_at_unix_ms",
                "current",
                "conditions",
                "alerts",
                "rate",
                "eta",
                "history",
            ],
        ),
        Object::seed(
            "data.conditions[]",
            &["condition_type", "state", "reason", "observed_at_unix_ms"],
        ),
        Object::seed("data.alerts[]", &["code", "observed_at_unix_ms"]),
        Object::seed("data.rate", &["bytes_per_second", "sample_seconds"]),
        Object::seed("data.eta", &["scope", "low_seconds", "high_seconds"]),
        Object::seed(
            "data.history[]",
            &[
                "ts_unix_ms",
                "queue_depth",
                "files_active",
                "queue_capacity",
                "sink_pending_rows",
                "sink_retrying",
                "discovery_complete",
                "files_total",
                "files_completed",
                "bytes_total",
                "bytes_completed",
            ],
        ),
        Object::seed(
            "data.current",
            &[
                "heartbeat_observed_at_unix_ms",
                "queue_depth",
                "files_active",
                "files_watched",
                "progress",
            ],
        ),
        Object::seed(
            "data.current.progress",
            &[
                "discovery_complete",
                "queue_capacity",
                "sink_pending_rows",
                "sink_pending_bytes",
                "sink_retrying",
                "oldest_pending_unix_ms",
                "last_durable_progress_unix_ms",
                "files_total",
                "files_completed",
                "bytes_total",
                "bytes_completed",
            ],
        ),
    ],
);

/// Seed 000, "Error Envelope": `details` is the error's own context, `request` echoes what
/// was asked.
pub const MORAINE_ERROR: Shape = Shape {
    name: "moraine error",
    objects: &[
        Object::seed("", &ERROR_ENVELOPE),
        Object::seed("performance", &PERFORMANCE),
        Object::seed("error", &["code", "message", "details"]),
    ],
    free: &["request", "error.details"],
};

// ---------------------------------------------------------------------------------------
// AgTrace (seed 004).
// ---------------------------------------------------------------------------------------

/// Seed 004, "Error Handling".
pub const AGTRACE_ERROR: Shape = Shape {
    name: "agtrace error",
    objects: &[
        Object::seed("", &["error"]),
        Object::seed("error", &["code", "message", "details", "retryable"]),
    ],
    free: &["error.details"],
};

/// Seed 004, `list_sessions` "Response".
pub const AGTRACE_LIST: Shape = envelope(
    "agtrace list_sessions",
    &[
        Object::seed("", &["sessions", "total_in_page", "next_cursor", "hint"]),
        Object::seed(
            "sessions[]",
            &[
                "id",
                "project_hash",
                "provider",
                "start_time",
                "snippet",
                "turn_count",
                "duration_seconds",
                "total_tokens",
            ],
        ),
    ],
);

/// Seed 004, `get_project_info` "Response"; over 60 projects esker adds a count and a hint.
pub const AGTRACE_PROJECTS: Shape = envelope(
    "agtrace get_project_info",
    &[
        Object::seed("", &["projects"]).optional(&["total_projects", "hint"]),
        Object::seed(
            "projects[]",
            &["hash", "root_path", "session_count", "last_activity"],
        ),
    ],
);

/// Seed 004, "Detail Level: summary": the session fields every level shares; esker adds the
/// provider, project hash, level and cursor (docs/MCP.md, get_session_details).
const DETAILS_SESSION: [&str; 6] = [
    "session_id",
    "start_time",
    "end_time",
    "stats",
    "turns",
    "hint",
];
const DETAILS_SESSION_ESKER: [&str; 4] =
    ["provider", "project_hash", "detail_level", "next_cursor"];
/// Seed 004, "Detail Level: summary": stats.
const DETAILS_STATS: [&str; 3] = ["total_turns", "total_tokens", "duration_seconds"];
/// A turn cut between steps (docs/MCP.md, get_session_details).
const CUT_TURN: [&str; 3] = ["steps_truncated", "next_step_index", "first_step_index"];

pub const AGTRACE_DETAILS_SUMMARY: Shape = envelope(
    "agtrace get_session_details(summary)",
    &[
        Object::with("", &DETAILS_SESSION, &DETAILS_SESSION_ESKER),
        Object::seed("stats", &DETAILS_STATS),
        Object::with(
            "turns[]",
            &["id", "timestamp", "user_message", "step_count", "stats"],
            &["turn_index"],
        )
        .optional(&["truncated"]),
        Object::seed("turns[].stats", &["input_tokens", "output_tokens"]),
    ],
);

pub const AGTRACE_DETAILS_TURNS: Shape = envelope(
    "agtrace get_session_details(turns)",
    &[
        Object::with("", &DETAILS_SESSION, &DETAILS_SESSION_ESKER),
        Object::seed("stats", &DETAILS_STATS),
        // Seed 004, "Detail Level: turns".
        Object::seed(
            "turns[]",
            &[
                "turn_index",
                "user_message",
                "steps",
                "outcome",
                "key_actions",
            ],
        )
        .optional(&CUT_TURN),
        Object::seed(
            "turns[].steps[]",
            &[
                "step_index",
                "summary",
                "tool_calls",
                "failed_tools",
                "tokens",
            ],
        )
        .optional(&["reasoning"]),
        Object::seed("turns[].steps[].tokens", &["input", "output"]),
    ],
);

/// Seed 004, "Detail Level: steps" shows a partial `AgentSession` (turns → steps → reasoning,
/// tools → call, result); the rest of each object is esker's (docs/MCP.md's table).
const STEPS_LEVEL: [Object; 10] = [
    Object::with("", &DETAILS_SESSION, &DETAILS_SESSION_ESKER),
    Object::seed("stats", &DETAILS_STATS),
    Object::with(
        "turns[]",
        &["steps"],
        &["turn_index", "timestamp", "user_message", "outcome"],
    )
    .optional(&CUT_TURN),
    Object::with(
        "turns[].steps[]",
        &["reasoning", "tools"],
        &["step_index", "message", "tokens"],
    )
    .optional(&["truncated"]),
    Object::seed("turns[].steps[].reasoning", &["text"]),
    Object::with("turns[].steps[].message", &[], &["text"]),
    Object::with("turns[].steps[].tokens", &[], &["input", "output"]),
    Object::seed("turns[].steps[].tools[]", &["call", "result"]),
    Object::with(
        "turns[].steps[].tools[].call",
        &["name", "arguments"],
        &["event_index"],
    ),
    Object::with(
        "turns[].steps[].tools[].result",
        &["content"],
        &["is_error", "exit_code", "event_index"],
    ),
];
const STEPS_LEVEL_FREE: [&str; 1] = ["turns[].steps[].tools[].call.arguments"];

const fn steps_level(name: &'static str) -> Shape {
    Shape {
        name,
        objects: &STEPS_LEVEL,
        free: &STEPS_LEVEL_FREE,
    }
}

pub const AGTRACE_DETAILS_STEPS: Shape = steps_level("agtrace get_session_details(steps)");
pub const AGTRACE_DETAILS_FULL: Shape = steps_level("agtrace get_session_details(full)");

/// Seed 004, `analyze_session` "Response"; esker adds the session id and the failed result
/// count, and over 25 insights a total and a hint (docs/MCP.md).
pub const AGTRACE_ANALYZE: Shape = envelope(
    "agtrace analyze_session",
    &[
        Object::with("", &["score", "insights", "summary"], &["session_id"])
            .optional(&["total_insights", "hint"]),
        Object::seed("insights[]", &["turn_index", "severity", "lens", "message"]),
        Object::with("summary", &["event_counts"], &["failed_tool_results"]),
        Object::seed(
            "summary.event_counts",
            &[
                "assistant_messages",
                "tool_calls",
                "tool_results",
                "user_messages",
            ],
        ),
    ],
);

/// Seed 004, `search_event_previews` "Response (McpResponse wrapper)" and "Preview Content
/// Types"; esker adds each match's provider.
pub const AGTRACE_PREVIEWS: Shape = Shape {
    name: "agtrace search_event_previews",
    objects: &[
        Object::seed("", &["data", "pagination", "hint"]),
        Object::seed("data", &["matches"]),
        Object::with(
            "data.matches[]",
            &[
                "session_id",
                "event_index",
                "timestamp",
                "event_type",
                "preview",
            ],
            &["provider"],
        ),
        Object::seed("data.matches[].preview", &["tool", "arguments"]),
        Object::seed("data.matches[].preview", &["preview"]),
        Object::seed("data.matches[].preview", &["text"]),
        Object::seed("data.matches[].preview", &["input", "output"]),
        Object::seed("pagination", &["total_in_page", "next_cursor", "has_more"]),
    ],
    free: &["data.matches[].preview.arguments"],
};

/// Seed 004, `get_event_details` "Response"; esker adds the turn index and its own event id,
/// and each payload's shape is docs/MCP.md's (the seed shows the ToolCall one).
pub const AGTRACE_EVENT: Shape = Shape {
    name: "agtrace get_event_details",
    objects: &[
        Object::with(
            "",
            &[
                "session_id",
                "event_index",
                "timestamp",
                "event_type",
                "payload",
            ],
            &["turn_index", "esker_event_id"],
        ),
        Object::with("payload", &["name", "arguments"], &["call_id"]),
        Object::with(
            "payload",
            &[],
            &[
                "tool",
                "call_id",
                "output",
                "is_error",
                "exit_code",
                "details",
            ],
        ),
        Object::with(
            "payload",
            &[],
            &[
                "input",
                "cached_input",
                "output",
                "reasoning",
                "total",
                "text",
                "details",
            ],
        ),
        Object::with("payload", &[], &["text", "model"]),
        Object::with("payload", &[], &["text", "subtype", "details"]),
    ],
    free: &["payload.arguments", "payload.details"],
};

// ---------------------------------------------------------------------------------------
// relay-search (seed 002; the rest from relay's source, seed-contracts.md §1).
// ---------------------------------------------------------------------------------------

/// relay's `list_sessions` row; seed 002 §2: `session_number` only with a slug.
const RELAY_SESSION: [&str; 8] = [
    "session_id",
    "project_dir",
    "slug",
    "first_timestamp",
    "last_timestamp",
    "message_count",
    "git_branch",
    "cwd",
];

/// The JSON relay's clients read (the text content).
pub const RELAY_LIST: Shape = envelope(
    "relay list_sessions",
    &[Object::seed("[]", &RELAY_SESSION).optional(&["session_number"])],
);

/// relay's `search_history` row; seed 002 §3 adds `session_number` to every result.
pub const RELAY_SEARCH: Shape = envelope(
    "relay search_history",
    &[Object::seed(
        "[]",
        &[
            "id",
            "session_id",
            "slug",
            "project_dir",
            "git_branch",
            "role",
            "timestamp",
            "snippet",
            "session_number",
        ],
    )],
);

/// relay's `get_conversation(format="json")`.
pub const RELAY_CONVERSATION: Shape = envelope(
    "relay get_conversation(json)",
    &[
        Object::seed("", &["sessions", "messages", "message_count"]),
        Object::seed("sessions[]", &RELAY_SESSION),
        Object::seed(
            "messages[]",
            &["id", "session_id", "role", "content", "timestamp", "model"],
        ),
    ],
);

/// relay's errors: `{"error": …}` (`[{"error": …}]` from the list tools).
pub const RELAY_ERROR: Shape = envelope(
    "relay error",
    &[Object::seed("", &["error"]), Object::seed("[]", &["error"])],
);

/// FastMCP's structured content around a list or markdown.
pub const RELAY_WRAPPED: Shape = Shape {
    name: "relay structuredContent",
    objects: &[Object::seed("", &["result"])],
    free: &["result"],
};

// ---------------------------------------------------------------------------------------
// codex-mem (seed 001).
// ---------------------------------------------------------------------------------------

/// Seed 001, "Common Types": EntryIndexItem.
const ENTRY_INDEX_ITEM: [&str; 6] = [
    "id",
    "title",
    "entry_type",
    "project",
    "created_at",
    "score",
];

pub const MEMORY_SAVE: Shape = envelope(
    "memory save_memory",
    &[Object::seed("", &["status", "id", "created_at"])],
);

pub const MEMORY_SEARCH: Shape = envelope(
    "memory search",
    &[
        Object::seed("", &["items", "total", "limit", "offset"]),
        Object::seed("items[]", &ENTRY_INDEX_ITEM),
    ],
);

pub const MEMORY_TIMELINE: Shape = envelope(
    "memory timeline",
    &[
        Object::seed("", &["anchor_id", "items"]),
        Object::seed("items[]", &ENTRY_INDEX_ITEM),
    ],
);

/// Seed 001, "Common Types": EntryDetailItem (`metadata` is the caller's object).
pub const MEMORY_ENTRIES: Shape = Shape {
    name: "memory get_entries",
    objects: &[
        Object::seed("", &["items"]),
        Object::seed(
            "items[]",
            &[
                "id",
                "title",
                "body",
                "entry_type",
                "project",
                "session_id",
                "source_ref",
                "metadata",
                "created_at",
            ],
        ),
    ],
    free: &["items[].metadata"],
};

pub const MEMORY_INGEST: Shape = envelope(
    "memory ingest_docs",
    &[Object::seed(
        "",
        &[
            "processed_sources",
            "imported_entries",
            "duplicate_entries",
            "skipped_sources",
        ],
    )],
);

pub const MEMORY_RETENTION: Shape = envelope(
    "memory retention_dry_run",
    &[
        Object::seed(
            "",
            &[
                "mode",
                "executed_at",
                "total_candidates",
                "by_reason",
                "candidate_ids",
            ],
        ),
        Object::seed("by_reason", &["age", "project_count"]),
    ],
);

/// Seed 001, "Common Types": Error (`details` object or null).
pub const MEMORY_ERROR: Shape = Shape {
    name: "memory error",
    objects: &[
        Object::seed("", &["error"]),
        Object::seed("error", &["code", "message", "details"]),
    ],
    free: &["error.details"],
};
