//! Claude Code transcript parser (`~/.claude/projects/<project>/<session>.jsonl`, sub-agent files
//! `agent-<id>.jsonl` beside it or under `<session>/subagents/`).
//!
//! One JSONL record per line. The records this parser understands:
//! - `user` / `assistant`: one API message is split over several lines sharing `message.id`, one
//!   content block per line (usually); every block becomes one event keyed `<uuid>:<block index>`.
//!   Tool results come back as `tool_result` blocks in `user` records.
//! - `system`: `compact_boundary` (compaction), `turn_duration` (turn finished normally),
//!   `api_error`, `local_command`, `stop_hook_summary`, `away_summary`, `informational`, ...
//! - `attachment`: context the harness injected (hooks, skill listings, queued prompts, ...).
//! - `summary`, `custom-title`, `ai-title`: session title/summary, no event.
//! - Pure bookkeeping without conversation content, skipped: `file-history-snapshot` (undo
//!   checkpoints), `queue-operation` (the prompt queue; the prompt itself is recorded again as a
//!   user record or a `queued_command` attachment), `permission-mode`/`mode`, `last-prompt` (resume
//!   bookmark repeating a prompt), `agent-name` (repeats `custom-title`), `progress` (streaming tool
//!   and sub-agent progress, repeated by the final tool result and the sub-agent transcript),
//!   `pr-link`, `bridge-session` (remote-control pointer), `atis-latch`, and from 2.1.2xx
//!   `file-history-delta` (incremental `/rewind` backups), `fork-context-ref` (a fork sub-agent's
//!   reference to the parent history it inherits) and `frame-link` (an artifact link).
//! - Any other record type is an `unknown` event named by its type (`esker index` reports them).
//! - A `user` record whose `origin.kind` is not `human` (`peer`, `task-notification`) or that
//!   opens a fork with `<fork-boilerplate>` is context the harness wrote, a `system` event.
//!
//! Sub-agents (`isSidechain: true` records) become their own sessions linked to the parent.
//!
//! Layout: this file sniffs and parses; `index` is the first pass (and replay detection);
//! `parser` dispatches records and assembles the output; `sessions` routes records to the main
//! or a sub-agent session; `user`, `assistant` and `system` handle those record types (`system`
//! also attachments); `text` holds the text helpers.

mod assistant;
mod index;
mod parser;
mod sessions;
mod system;
mod text;
mod user;

use std::path::Path;

use serde_json::Value;

use crate::ingest::lines::JsonLine;
use crate::model::ParseOutput;
use parser::Parser;

/// Record types that only Claude Code writes (besides `user`/`assistant`/`system`/`attachment`,
/// which also need `sessionId` + `uuid` to count, or for `user`/`assistant` the lean layout of
/// [`is_lean_message`]).
const CLAUDE_ONLY_TYPES: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "last-prompt",
    "custom-title",
    "ai-title",
    "agent-name",
];

/// True iff the first valid lines look like a Claude Code transcript.
pub fn sniff(lines: &[JsonLine]) -> bool {
    let mut positive = false;
    for line in lines {
        let Some(record) = line.value.as_object() else {
            continue;
        };
        // Qwen Code writes look-alike records (uuid/sessionId/type user) with `message.parts`.
        if record
            .get("message")
            .and_then(|message| message.get("parts"))
            .is_some()
        {
            return false;
        }
        let Some(kind) = record.get("type").and_then(Value::as_str) else {
            continue;
        };
        let has_ids = record.contains_key("sessionId") && record.contains_key("uuid");
        let looks_like_claude = match kind {
            "summary" => {
                record.contains_key("leafUuid")
                    || record.get("summary").is_some_and(Value::is_string)
            }
            "user" | "assistant" => has_ids || is_lean_message(record),
            "system" | "attachment" | "progress" => has_ids,
            other if CLAUDE_ONLY_TYPES.contains(&other) => [
                "sessionId",
                "snapshot",
                "customTitle",
                "aiTitle",
                "lastPrompt",
                "permissionMode",
                "operation",
            ]
            .iter()
            .any(|field| record.contains_key(*field)),
            _ => false,
        };
        positive |= looks_like_claude;
    }
    positive
}

/// A lean record in Claude Code's layout, as converters and public retrieval benchmarks write
/// them (issue #23): `type`, `sessionId`, `timestamp` and `message{role, content}`, without
/// `uuid`/`parentUuid`. Its events are keyed by line (`line<N>`), so their ids derive from the
/// session and the line.
fn is_lean_message(record: &serde_json::Map<String, Value>) -> bool {
    let message = record.get("message").and_then(Value::as_object);
    record.contains_key("sessionId")
        && record.contains_key("timestamp")
        && message.is_some_and(|message| {
            message.get("role").is_some_and(Value::is_string) && message.contains_key("content")
        })
}

/// A sub-agent's `agent-<id>.meta.json` beside its transcript (`agentType`, `description`):
/// the sidecar [`parse`] names a sub-agent session from.
pub fn subagent_meta(path: &Path) -> Option<serde_json::Value> {
    let stem = path.file_stem()?.to_str()?;
    let text = std::fs::read_to_string(path.with_file_name(format!("{stem}.meta.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

/// Parses one Claude Code transcript file into its session and any sub-agent sessions.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&serde_json::Value>) -> ParseOutput {
    if let Some(skipped) = without_session_id(path, lines) {
        return skipped;
    }
    let mut parser = Parser::new(path, lines, sidecar);
    for line in lines {
        parser.record(line);
    }
    parser.finish()
}

/// A file whose conversation records name no session (`sessionId` and `agentId` missing or
/// empty, as in workflow journals `subagents/workflows/*/journal.jsonl`) yields no session: an
/// id made up from the file name would merge unrelated files. Skipped with a counted warning.
/// A sub-agent file `agent-<id>.jsonl` is named by its file.
fn without_session_id(path: &Path, lines: &[JsonLine]) -> Option<ParseOutput> {
    let is_agent_file = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .is_some_and(|stem| stem.starts_with("agent-"));
    let conversation_lines: Vec<u64> = lines
        .iter()
        .filter(|line| {
            line.value.as_object().is_some_and(|record| {
                matches!(
                    text::str_field(record, "type"),
                    Some("user" | "assistant" | "system" | "attachment")
                )
            })
        })
        .map(|line| line.number)
        .collect();
    let names_a_session = lines.iter().any(|line| {
        line.value.as_object().is_some_and(|record| {
            text::session_id_of(record).is_some()
                || text::str_field(record, "agentId").is_some_and(|id| !id.trim().is_empty())
        })
    });
    if is_agent_file {
        return None;
    }
    if names_a_session || conversation_lines.is_empty() {
        return None;
    }
    Some(ParseOutput {
        sessions: Vec::new(),
        warnings: vec![crate::model::ParseWarning {
            line: conversation_lines[0],
            message: format!(
                "claude: no record names its session (sessionId missing or empty, e.g. a \
                 workflow journal): {} records skipped",
                conversation_lines.len()
            ),
        }],
    })
}

#[cfg(test)]
mod tests;
