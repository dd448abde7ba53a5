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
mod devin;
mod factory;
mod grok;
mod hermes;
mod junie;
mod kiro;
mod kiro_ide;
mod kiro_v3;
mod openclaw;
mod pi;
mod qwen;
mod trae;
mod vscode_copilot;
mod warp;
mod windsurf;
mod windsurf_acp;
mod zed;

use std::fs;
use std::io::Write;
use std::ops::Add;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::cli::{esker_at_home, esker_command, stdout_of};
use crate::support::{fixtures_dir, index_into, query_rows, stderr_of};

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
/// The rows of `sql` as arrays of `names` (a null column is absent from a row).
pub fn columns(data_dir: &Path, sql: &str, names: &[&str]) -> Vec<Value> {
    rows(data_dir, sql)
        .iter()
        .map(|row| {
            Value::Array(
                names
                    .iter()
                    .map(|name| row.get(*name).cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        })
        .collect()
}

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
    index_home_with(home, data, &[])
}

/// [`index_home`] with the variables `env` set (a harness home moved elsewhere).
pub fn index_home_with(home: &Path, data: &Path, env: &[(&str, &Path)]) -> String {
    let mut command = esker_command(
        home,
        &["index", "--data-dir", data.to_str().expect("utf-8")],
    );
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("esker runs");
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "esker index failed: {stderr}");
    stderr
}

/// One count of `sql` (a `count(*)` or a `sum`), which must not be null.
pub fn count(data_dir: &Path, sql: &str) -> i64 {
    number(data_dir, sql).unwrap_or_else(|| panic!("no count for {sql}"))
}

/// How many events match `condition` in the sessions matching `sessions_where`.
pub fn count_events(data_dir: &Path, sessions_where: &str, condition: &str) -> i64 {
    count(
        data_dir,
        &format!(
            "SELECT count(*) FROM events WHERE {condition} AND session_id IN \
             (SELECT session_id FROM sessions WHERE {sessions_where})"
        ),
    )
}

/// What every harness test counts twice: by its own reading of the raw format, and in the
/// store with [`indexed_counts`]. A harness that reads no reasoning or no failures counts 0.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub sessions: i64,
    pub prompts: i64,
    pub replies: i64,
    pub reasoning: i64,
    pub calls: i64,
    pub results: i64,
    pub failed: i64,
}

impl Add for Counts {
    type Output = Counts;

    fn add(self, other: Counts) -> Counts {
        Counts {
            sessions: self.sessions + other.sessions,
            prompts: self.prompts + other.prompts,
            replies: self.replies + other.replies,
            reasoning: self.reasoning + other.reasoning,
            calls: self.calls + other.calls,
            results: self.results + other.results,
            failed: self.failed + other.failed,
        }
    }
}

/// The store's [`Counts`] over the sessions matching `sessions_where` (an SQL condition on
/// `sessions`, such as `source = 'grok'`): a failure is a tool response of subtype `error`.
pub fn indexed_counts(data_dir: &Path, sessions_where: &str) -> Counts {
    let of = |condition: &str| count_events(data_dir, sessions_where, condition);
    Counts {
        sessions: count(
            data_dir,
            &format!("SELECT count(*) FROM sessions WHERE {sessions_where}"),
        ),
        prompts: of("type = 'user_input'"),
        replies: of("type = 'assistant_response'"),
        reasoning: of("type = 'reasoning'"),
        calls: of("type = 'tool_call'"),
        results: of("type = 'tool_response'"),
        failed: of("type = 'tool_response' AND subtype = 'error'"),
    }
}

/// `esker doctor --json` of `home` over the store `data_dir`, which must succeed.
pub fn doctor(home: &Path, data_dir: &Path) -> Value {
    let data_arg = data_dir.to_str().expect("utf-8");
    let output = esker_at_home(home, &["doctor", "--json", "--data-dir", data_arg]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    serde_json::from_str(&stdout_of(&output)).expect("JSON")
}

/// The location of a `doctor` diagnosis at `path`, which must be listed.
pub fn location(diagnosis: &Value, path: &Path) -> Value {
    diagnosis["locations"]
        .as_array()
        .expect("locations")
        .iter()
        .find(|location| location["path"] == path.to_str().expect("utf-8"))
        .unwrap_or_else(|| panic!("{} not listed: {diagnosis:#}", path.display()))
        .clone()
}

/// The location `esker doctor` lists for `folder`.
pub fn doctor_location(home: &Path, data_dir: &Path, folder: &Path) -> Value {
    location(&doctor(home, data_dir), folder)
}

/// The line `esker resume --print` prints for session `id`, which must succeed.
pub fn resume_line(home: &Path, data_dir: &Path, id: &str) -> String {
    let output = resume(home, data_dir, id);
    assert!(output.status.success(), "{}", stderr_of(&output));
    stdout_of(&output).trim().to_string()
}

/// `esker resume --print` of session `id` must refuse with exit code 2: its harness has no
/// resume command esker can run.
pub fn assert_no_resume(home: &Path, data_dir: &Path, id: &str) {
    let output = resume(home, data_dir, id);
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
}

fn resume(home: &Path, data_dir: &Path, id: &str) -> std::process::Output {
    let data_arg = data_dir.to_str().expect("utf-8");
    esker_at_home(home, &["resume", "--print", "--data-dir", data_arg, id])
}

/// The first `cut` lines of `text`, each ended by a newline.
pub fn head_lines(text: &str, cut: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    format!("{}\n", lines[..cut].join("\n"))
}

/// `home` is indexed into a fresh store while its log `live` holds only `head`; `meanwhile`
/// runs on that store with its event count; `live` then gets `whole` and the home is indexed
/// again. That pass must add exactly the events an index of the whole home at once has beyond
/// the first (events counted over the sessions matching `sessions_where`), leaving the store
/// with as many, and one more pass must add none. Returns the store and the events added.
pub fn assert_rest_adds(
    home: &Path,
    live: &Path,
    (head, whole): (&str, &str),
    sessions_where: &str,
    meanwhile: impl FnOnce(&Path, i64),
) -> (tempfile::TempDir, i64) {
    fs::write(live, head).expect("write the head");
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home, data.path());
    let events = |dir: &Path| count_events(dir, sessions_where, "true");
    let before = events(data.path());
    meanwhile(data.path(), before);

    fs::write(live, whole).expect("write the rest");
    let appended = index_home(home, data.path());
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home, one_shot.path());
    let after = events(one_shot.path());
    assert!(after > before, "the rest has events");
    assert!(
        appended.contains(&format!("events: {} new", after - before)),
        "{appended}"
    );
    assert_eq!(events(data.path()), after, "appending equals indexing once");
    let again = index_home(home, data.path());
    assert!(again.contains("events: 0 new"), "{again}");
    (data, after - before)
}

/// Turns holding no prompt: a session opening with a turn of its own (a summary, a preamble).
pub fn turns_without_prompt(data_dir: &Path) -> i64 {
    count(
        data_dir,
        "SELECT count(*) FROM turns t WHERE NOT EXISTS (SELECT 1 FROM events e \
         WHERE e.turn_id = t.turn_id AND e.type = 'user_input')",
    )
}
