//! `events.tool_name` holds a tool's name, never the id of one call (issue #48), over the
//! fixtures and the real corpus. A name is a call id when it equals the event's own call id or
//! has the shape harnesses give call ids: OpenAI's `call_…`/`fc_…`, Anthropic's `toolu_…`,
//! Gemini CLI's `<tool>-<epoch ms>-<hex>`, Antigravity's `step-N-call-N`, Kimi's
//! `functions.<name>:N`, a UUID. Tool names that merely start with `call_` (Antigravity's
//! `call_mcp_tool`, 4 rows of the corpus) are names; the sanitized `other-formats/` samples
//! replace both a call's name and its id with `[trimmed for fixture]`, which is their data.

use std::path::Path;

use crate::support::{corpus_store, fixture_store, query_rows};

/// What the sanitized corpus samples put in place of every value they trimmed.
const SANITIZED: &str = "[trimmed for fixture]";

/// The rows whose tool name is a call id, as `source | tool_name | tool_call_id`.
fn call_ids_as_tool_names(data_dir: &Path) -> Vec<String> {
    let call_id_shapes = [
        "^(call|fc|toolu|tooluse)_[A-Za-z0-9]{8,}$",
        "-[0-9]{13}-[0-9a-f]+$",
        "^step-[0-9]+-call-[0-9]+$",
        "^functions\\.[A-Za-z0-9_.-]+:[0-9]+$",
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    ];
    let shaped = call_id_shapes
        .iter()
        .map(|pattern| format!("regexp_like(tool_name, '{pattern}')"))
        .collect::<Vec<_>>()
        .join(" OR ");
    let sql = format!(
        "SELECT source, tool_name, tool_call_id, count(*) AS n FROM events \
         WHERE tool_name IS NOT NULL \
         AND ((tool_name = tool_call_id AND tool_name <> '{SANITIZED}') OR {shaped}) \
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    );
    query_rows(data_dir, &sql)
        .iter()
        .map(|row| {
            format!(
                "{} | {} | {} ({} rows)",
                row["source"].as_str().unwrap_or_default(),
                row["tool_name"].as_str().unwrap_or_default(),
                row["tool_call_id"].as_str().unwrap_or_default(),
                row["n"]
            )
        })
        .collect()
}

#[test]
fn no_fixture_event_names_its_tool_by_a_call_id() {
    let found = call_ids_as_tool_names(fixture_store());
    assert!(found.is_empty(), "tool names that are call ids: {found:#?}");
}

#[test]
fn no_corpus_event_names_its_tool_by_a_call_id() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let found = call_ids_as_tool_names(data_dir);
    assert!(found.is_empty(), "tool names that are call ids: {found:#?}");
    // The check sees the names it must let through.
    let names = query_rows(
        data_dir,
        "SELECT count(*) AS n FROM events WHERE tool_name = 'call_mcp_tool'",
    );
    assert!(names[0]["n"].as_i64().unwrap_or(0) > 0, "{names:?}");
}
