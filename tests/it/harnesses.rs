//! The harnesses added after the first three, one module each: their fixture indexed through
//! the real binary and checked with SQL over the written tables (prompts, replies, reasoning,
//! tool pairing, failed tools, token usage, titles, injected context), plus an append that adds
//! exactly the new events. Shared helpers live here.

mod aider;
mod amp;
mod auggie;
mod claude_desktop;
mod cline;
mod codebuddy;
mod copilot;
mod cursor;
mod cursor_ide;
mod cursor_store;
mod factory;
mod grok;
mod hermes;
mod junie;
mod kiro;
mod openclaw;
mod pi;
mod qwen;
mod trae;
mod vscode_copilot;
mod windsurf;
mod zed;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::support::{fixtures_dir, index_into, query_rows};

/// A fixture file of `tests/fixtures`.
pub fn fixture(relative: &str) -> PathBuf {
    fixtures_dir().join(relative)
}

/// A fresh store holding only the fixtures under `tests/fixtures/<harness>`.
pub fn store_of(harness: &str) -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[&fixtures_dir().join(harness)]);
    data
}

/// Rows of `sql`.
pub fn rows(data_dir: &Path, sql: &str) -> Vec<Map<String, Value>> {
    query_rows(data_dir, sql)
}

/// One text column of `sql`, in order (null as "").
pub fn texts(data_dir: &Path, sql: &str) -> Vec<String> {
    rows(data_dir, sql)
        .into_iter()
        .map(|row| {
            row.values()
                .next()
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// One integer of `sql` (first column of the first row; null as `None`).
pub fn number(data_dir: &Path, sql: &str) -> Option<i64> {
    rows(data_dir, sql)
        .first()
        .and_then(|row| row.values().next().cloned())
        .and_then(|value| value.as_i64())
}

/// Every tool call of the store has exactly one tool response with its call id and name, and
/// every response answers a call.
pub fn assert_tools_paired(data_dir: &Path) {
    let unpaired = number(
        data_dir,
        "SELECT count(*) FROM events c WHERE c.type = 'tool_call' AND (SELECT count(*) FROM events r \
         WHERE r.type = 'tool_response' AND r.session_id = c.session_id \
         AND r.tool_call_id = c.tool_call_id AND r.tool_name = c.tool_name) <> 1",
    );
    assert_eq!(unpaired, Some(0), "every call has one response of its name");
    let orphans = number(
        data_dir,
        "SELECT count(*) FROM events r WHERE r.type = 'tool_response' AND NOT EXISTS (SELECT 1 FROM \
         events c WHERE c.type = 'tool_call' AND c.session_id = r.session_id \
         AND c.tool_call_id = r.tool_call_id)",
    );
    assert_eq!(orphans, Some(0), "every response answers a call");
}

/// Writes the first `head_lines` lines of `log` (with the files beside it) into a temp tree,
/// indexes it, appends the rest and indexes again: the second pass must add exactly
/// `expected_new` events, and the result must equal indexing the whole file at once.
pub fn assert_append_adds(log: &Path, head_lines: usize, expected_new: usize) {
    let logs = tempfile::tempdir().expect("temp dir");
    let directory = logs.path().join("session");
    fs::create_dir_all(&directory).expect("mkdir");
    for entry in fs::read_dir(log.parent().expect("parent")).expect("read dir") {
        let entry = entry.expect("entry");
        if entry.path().is_file() && entry.path() != log {
            fs::copy(entry.path(), directory.join(entry.file_name())).expect("copy sidecar");
        }
    }
    let live = directory.join(log.file_name().expect("file name"));
    let text = fs::read_to_string(log).expect("read log");
    let lines: Vec<&str> = text.lines().collect();
    assert!(head_lines < lines.len(), "the split leaves lines to append");
    fs::write(&live, format!("{}\n", lines[..head_lines].join("\n"))).expect("write head");
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);

    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&live)
        .expect("open live log");
    file.write_all(format!("{}\n", lines[head_lines..].join("\n")).as_bytes())
        .expect("append rest");
    file.flush().expect("flush");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(
        stderr.contains(&format!("events: {expected_new} new")),
        "{}: appending adds exactly {expected_new} events: {stderr}",
        log.display()
    );
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");

    let one_shot = tempfile::tempdir().expect("temp dir");
    index_into(one_shot.path(), &[logs.path()]);
    let snapshot = |dir: &Path| {
        rows(
            dir,
            "SELECT event_id, turn_id, ordinal, seq, type, terminal, tool_name, tool_call_id, \
             exit_code, text, input_tokens, output_tokens FROM events ORDER BY event_id",
        )
    };
    assert_eq!(
        snapshot(data.path()),
        snapshot(one_shot.path()),
        "appending equals indexing once"
    );
}

/// `esker index` with no PATH in `home` (its default locations), into `data`; returns stderr.
pub fn index_home(home: &Path, data: &Path) -> String {
    let output = crate::cli::esker_command(
        home,
        &["index", "--data-dir", data.to_str().expect("utf-8")],
    )
    .output()
    .expect("esker runs");
    let stderr = crate::support::stderr_of(&output);
    assert!(output.status.success(), "esker index failed: {stderr}");
    stderr
}
