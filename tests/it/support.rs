//! Shared helpers: run the real `esker` binary, build stores from fixtures or the real corpus
//! once per test run, and read query results as JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Map, Value};

/// How long a test waits for something a background server or watcher does (a pass finishing,
/// an append showing up). CI runs the whole suite at once on two cores, where a debug server's
/// first pass has taken longer than 15 s; every wait ends as soon as it sees what it waits for,
/// so the bound costs nothing when the behaviour is right.
pub const BACKGROUND_WAIT: Duration = Duration::from_secs(120);

/// [`BACKGROUND_WAIT`] as a number of polls `interval` apart.
pub fn background_polls(interval: Duration) -> u32 {
    (BACKGROUND_WAIT.as_millis() / interval.as_millis().max(1)) as u32
}

pub fn esker_bin() -> &'static str {
    env!("CARGO_BIN_EXE_esker")
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fixtures only their own tests index (`tests/standalone-fixtures`): kept out of
/// `tests/fixtures`, which the shared fixture store, the crash tests and the bundled sample
/// corpus (`data/sample`) read whole.
pub fn standalone_fixture(name: &str) -> PathBuf {
    manifest_dir().join("tests/standalone-fixtures").join(name)
}

pub fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests").join("fixtures")
}

/// `../shared/corpus` (real logs), when this checkout has it.
pub fn corpus_dir() -> Option<PathBuf> {
    let corpus = manifest_dir().join("..").join("shared").join("corpus");
    corpus
        .is_dir()
        .then(|| corpus.canonicalize().unwrap_or(corpus))
}

/// Runs `esker` with `args` and an isolated environment (no real agent history leaks in).
pub fn run_esker(args: &[&str]) -> Output {
    let mut command = Command::new(esker_bin());
    command
        .args(args)
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_DATA_DIR")
        .env_remove("ESKER_MEMORY_LIMIT_MB")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("GEMINI_CLI_HOME");
    clear_harness_env(&mut command);
    command.output().expect("esker binary runs")
}

/// Removes the environment variables that move the newer harnesses' log locations, so no real
/// agent history leaks into a test.
pub fn clear_harness_env(command: &mut Command) {
    for name in esker::ingest::locations::ENV_VARS {
        command.env_remove(name);
    }
}

pub fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Indexes `paths` into `data_dir`, asserting success; returns stderr.
pub fn index_into(data_dir: &Path, paths: &[&Path]) -> String {
    let mut args = vec![
        "index",
        "--data-dir",
        data_dir.to_str().expect("utf-8 path"),
    ];
    args.extend(paths.iter().map(|path| path.to_str().expect("utf-8 path")));
    let output = run_esker(&args);
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "esker index failed: {stderr}");
    stderr
}

fn kept_temp_dir(prefix: &str) -> PathBuf {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("temp dir")
        .keep()
}

/// A store built once from `tests/fixtures`.
pub fn fixture_store() -> &'static Path {
    static STORE: OnceLock<PathBuf> = OnceLock::new();
    STORE.get_or_init(|| {
        let data_dir = kept_temp_dir("esker-fixtures-");
        index_into(&data_dir, &[&fixtures_dir()]);
        data_dir
    })
}

/// A store built once from the real corpus, with the first run's stderr; `None` (and a
/// message) when the corpus is absent.
pub fn corpus_store() -> Option<&'static (PathBuf, String)> {
    static STORE: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let corpus = corpus_dir()?;
            let data_dir = kept_temp_dir("esker-corpus-");
            let stderr = index_into(&data_dir, &[&corpus]);
            Some((data_dir, stderr))
        })
        .as_ref()
        .or_else(|| {
            eprintln!("SKIPPED: ../shared/corpus is absent; real-corpus checks not run");
            None
        })
}

/// Runs read-only SQL through `esker query --format json` and returns the rows.
pub fn query_rows(data_dir: &Path, sql: &str) -> Vec<Map<String, Value>> {
    let output = run_esker(&[
        "query",
        "--data-dir",
        data_dir.to_str().expect("utf-8 path"),
        "--format",
        "json",
        sql,
    ]);
    assert!(
        output.status.success(),
        "query failed: {sql}\n{}",
        stderr_of(&output)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    let value: Value = serde_json::from_str(trimmed).expect("query output is JSON");
    value
        .as_array()
        .expect("JSON array of rows")
        .iter()
        .map(|row| row.as_object().expect("row object").clone())
        .collect()
}

/// The session ids of the store at `data_dir`, sorted.
pub fn session_ids(data_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = query_rows(data_dir, "SELECT session_id FROM sessions")
        .iter()
        .map(|row| row["session_id"].as_str().expect("an id").to_owned())
        .collect();
    ids.sort();
    ids
}

/// Runs SQL that returns a single integer (first column of the first row).
pub fn query_count(data_dir: &Path, sql: &str) -> i64 {
    let rows = query_rows(data_dir, sql);
    let row = rows.first().unwrap_or_else(|| panic!("no rows for {sql}"));
    row.values()
        .next()
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("not an integer result for {sql}: {row:?}"))
}

/// Copies a directory tree (fixtures are never indexed in place when a test changes them).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk fixtures");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
