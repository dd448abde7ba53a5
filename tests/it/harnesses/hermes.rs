//! Hermes Agent (`hermes`): a home holding the fixture's `~/.hermes` (`state.db` with a
//! session, the session it was compressed into and a gateway session without message rows;
//! the CLI's JSON log of the first one, the gateway transcript of the third, a JSON log the
//! database does not know) and a profile without a database (`profiles/work`: a JSON log with
//! the gateway transcript of the same session, and a transcript alone with a line that is not
//! JSON), from `tests/standalone-fixtures/hermes`, indexed with no PATH. Every count is also
//! taken from the raw store and files by this test's own reading, with Hermes's rule for which
//! copy of a session to read; new rows and lines add exactly their events, and a search finds
//! a reply.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::index_home;
use super::{
    Counts, assert_tools_paired, count_events, indexed_counts, number, rows, texts,
    turns_without_prompt,
};
use crate::support::copy_tree;
use crate::support::{
    corpus_dir, corpus_store, query_count, run_esker, standalone_fixture, stderr_of,
};

const NAS: &str = "20261005_091500_a1b2c3";
const NAS_2: &str = "20261005_101200_d4e5f6";
const WEATHER: &str = "20261005_120000_778899";
const PING: &str = "20261006_083000_f00d01";

/// A temp home with the fixture's `~/.hermes`.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("hermes").join("hermes"),
        &home.path().join(".hermes"),
    );
    home
}

/// What the raw store and files hold, counted from the messages themselves.
#[derive(Debug, Default, PartialEq)]
struct HermesCounts {
    base: Counts,
    malformed: i64,
    compactions: i64,
    /// Sessions with an event before their first prompt: those open with a turn of their own.
    preambles: i64,
    usages: i64,
}

/// A session file's messages: a JSON log's `messages`, a transcript's lines but its
/// `session_meta` (a line that is not JSON counted as malformed).
fn file_messages(path: &Path, counts: &mut HermesCounts) -> Vec<Value> {
    let text = fs::read_to_string(path).expect("session file");
    if path
        .extension()
        .is_some_and(|extension| extension == "json")
    {
        let log: Value = serde_json::from_str(&text).expect("log");
        return log["messages"].as_array().expect("messages").clone();
    }
    let mut messages = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(message) if message["role"] == "session_meta" => {}
            Ok(message) => messages.push(message),
            Err(_) => counts.malformed += 1,
        }
    }
    messages
}

/// The session files of a `sessions` folder by id, the JSON log first.
fn session_files(folder: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(folder).expect("sessions") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .expect("name");
        let id = match name.strip_suffix(".jsonl") {
            Some(id) => id,
            None => match name
                .strip_prefix("session_")
                .and_then(|rest| rest.strip_suffix(".json"))
            {
                Some(id) => id,
                None => continue,
            },
        };
        files.entry(id.to_string()).or_default().push(path);
    }
    for paths in files.values_mut() {
        paths.sort_by_key(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        });
    }
    files
}

/// The database's sessions: (id, messages, whether its row carries token totals).
fn store_sessions(database: &Path) -> Vec<(String, Vec<Value>, bool)> {
    let connection =
        Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open");
    let mut statement = connection
        .prepare("SELECT id, input_tokens + output_tokens > 0 FROM sessions ORDER BY id")
        .expect("prepare");
    let sessions: Vec<(String, bool)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("query")
        .map(|row| row.expect("row"))
        .collect();
    let mut messages = connection
        .prepare(
            "SELECT role, content, tool_calls, reasoning FROM messages WHERE session_id = ?1 \
             ORDER BY timestamp, id",
        )
        .expect("prepare");
    sessions
        .into_iter()
        .map(|(id, usage)| {
            let rows: Vec<Value> = messages
                .query_map([&id], |row| {
                    let calls: Option<String> = row.get(2)?;
                    Ok(json!({
                        "role": row.get::<_, String>(0)?,
                        "content": row.get::<_, Option<String>>(1)?,
                        "tool_calls": calls.map(|calls| serde_json::from_str::<Value>(&calls).expect("calls")),
                        "reasoning": row.get::<_, Option<String>>(3)?,
                    }))
                })
                .expect("query")
                .map(|row| row.expect("row"))
                .collect();
            (id, rows, usage)
        })
        .collect()
}

fn count_session(messages: &[Value], counts: &mut HermesCounts) {
    counts.base.sessions += 1;
    let mut prompted = false;
    for message in messages {
        let content = message["content"].as_str().unwrap_or_default();
        match message["role"].as_str() {
            Some("user") if content.starts_with("[CONTEXT COMPACTION") => {
                counts.compactions += 1;
                if !prompted {
                    counts.preambles += 1;
                    prompted = true;
                }
            }
            Some("user") => {
                counts.base.prompts += 1;
                prompted = true;
            }
            Some("assistant") => {
                let thinks = content.contains("<think>");
                let reply = content.split("</think>").last().unwrap_or_default();
                counts.base.reasoning += i64::from(
                    thinks
                        || message["reasoning"]
                            .as_str()
                            .is_some_and(|text| !text.is_empty()),
                );
                counts.base.replies += i64::from(!reply.trim().is_empty());
                counts.base.calls += message["tool_calls"]
                    .as_array()
                    .map_or(0, |calls| calls.len() as i64);
            }
            Some("tool") => {
                counts.base.results += 1;
                let result: Value = serde_json::from_str(content).expect("tool result");
                let failed = result["exit_code"].as_i64().is_some_and(|code| code != 0)
                    || result["success"] == false
                    || result["error"]
                        .as_str()
                        .is_some_and(|error| !error.is_empty());
                counts.base.failed += i64::from(failed);
            }
            _ => {}
        }
    }
}

/// Hermes's rule: a session's message rows, else its JSON log, else its gateway transcript;
/// a home without a database is its files alone.
fn raw_counts(hermes: &Path) -> HermesCounts {
    let mut counts = HermesCounts::default();
    let mut files = session_files(&hermes.join("sessions"));
    for (id, messages, usage) in store_sessions(&hermes.join("state.db")) {
        let paths = files.remove(&id).unwrap_or_default();
        let messages = match paths.first() {
            Some(path) if messages.is_empty() => file_messages(path, &mut counts),
            _ => messages,
        };
        counts.usages += i64::from(usage);
        count_session(&messages, &mut counts);
    }
    let profile = session_files(&hermes.join("profiles/work/sessions"));
    for paths in files.into_values().chain(profile.into_values()) {
        let messages = file_messages(&paths[0], &mut counts);
        count_session(&messages, &mut counts);
    }
    counts
}

fn hermes_counts(dir: &Path) -> HermesCounts {
    let of = |condition: &str| count_events(dir, HERMES, condition);
    HermesCounts {
        base: indexed_counts(dir, HERMES),
        malformed: 0,
        compactions: of("type = 'compaction'"),
        preambles: turns_without_prompt(dir),
        usages: of("input_tokens IS NOT NULL"),
    }
}

/// Hermes's sessions in the store.
const HERMES: &str = "source = 'hermes'";

#[test]
fn hermes_stores_and_files_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "hermes_db=1",
        "hermes_session=2",
        "sessions: 6;",
        "events: 28 new",
        "malformed lines: 1;",
        "parser warnings: 0;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let raw = raw_counts(&home.path().join(".hermes"));
    assert_eq!(
        raw,
        HermesCounts {
            base: Counts {
                sessions: 6,
                prompts: 6,
                replies: 7,
                reasoning: 2,
                calls: 6,
                results: 6,
                failed: 2
            },
            malformed: 1,
            compactions: 1,
            preambles: 1,
            usages: 2
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(
        hermes_counts(dir),
        HermesCounts {
            malformed: 0,
            ..raw
        },
        "every session is read once, from the copy Hermes's rule picks"
    );
    assert_eq!(
        number(dir, "SELECT sum(turn_count) FROM sessions"),
        Some(raw.base.prompts + raw.preambles),
        "one turn per prompt, and one for a compaction summary before the first prompt"
    );
    assert_tools_paired(dir);

    let nas = rows(
        dir,
        &format!(
            "SELECT title, cwd, git_branch, model, input_tokens, cached_input_tokens, \
             output_tokens, reasoning_tokens FROM sessions WHERE native_id = '{NAS}'"
        ),
    );
    assert_eq!(
        Value::Object(nas[0].clone()),
        json!({"title": "Nightly NAS backup failure", "cwd": "/home/ana/infra",
            "git_branch": "main", "model": "anthropic/claude-sonnet-4.5",
            "input_tokens": 5200 + 21000 + 1800, "cached_input_tokens": 21000,
            "output_tokens": 640, "reasoning_tokens": 120})
    );
    assert_eq!(
        number(
            dir,
            &format!(
                "SELECT count(*) FROM sessions WHERE native_id = '{NAS_2}' \
                 AND forked_from_session_id = 'session:hermes-{NAS}'"
            )
        ),
        Some(1),
        "the compressed session continues the one it was split from"
    );
    let failures = texts(
        dir,
        "SELECT text FROM events WHERE type = 'tool_response' AND subtype = 'error' \
         ORDER BY timestamp",
    );
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].contains("connection unexpectedly closed"),
        "{failures:?}"
    );
    assert!(failures[1].contains("File not found"), "{failures:?}");
    assert_eq!(
        number(
            dir,
            "SELECT exit_code FROM events WHERE type = 'tool_response' AND tool_name = 'terminal' \
             AND subtype = 'error'"
        ),
        Some(12)
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT tool_name FROM events WHERE type = 'tool_call' \
                 AND session_id = 'session:hermes-{WEATHER}'"
            )
        ),
        ["web_search"],
        "a session without message rows is read from its gateway transcript"
    );

    let found = run_esker(&[
        "search",
        "--data-dir",
        dir.to_str().expect("utf-8"),
        "--json",
        "rsync connection NAS",
    ]);
    assert!(found.status.success(), "{}", stderr_of(&found));
    let hits = String::from_utf8_lossy(&found.stdout);
    assert!(hits.contains(NAS), "{hits}");
}

#[test]
fn new_rows_and_lines_add_exactly_their_events() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");

    let hermes = home.path().join(".hermes");
    let connection = Connection::open(hermes.join("state.db")).expect("open store");
    connection
        .execute_batch(&format!(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES \
             ('{NAS_2}', 'user', 'and tomorrow night?', 1791288000.0), \
             ('{NAS_2}', 'assistant', 'It will run with the new timeout.', 1791288004.0); \
             UPDATE sessions SET message_count = message_count + 2 WHERE id = '{NAS_2}';"
        ))
        .expect("append rows");
    drop(connection);
    let mut transcript = fs::OpenOptions::new()
        .append(true)
        .open(hermes.join(format!("profiles/work/sessions/{PING}.jsonl")))
        .expect("open transcript");
    let line =
        json!({"role": "user", "content": "ping again", "timestamp": "2026-10-06T08:31:00.000000"});
    writeln!(transcript, "{line}").expect("append");
    drop(transcript);

    let appended = index_home(home.path(), data.path());
    assert!(appended.contains("events: 3 new"), "{appended}");
    let last = index_home(home.path(), data.path());
    assert!(last.contains("events: 0 new"), "{last}");
}

#[test]
fn corpus_hermes_sessions_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real Hermes Agent session checked");
        return;
    };
    if !corpus.join("hermes").is_dir() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no Hermes Agent home (`state.db`, `sessions/session_<id>.json`, `sessions/<id>.jsonl`)"
        );
        return;
    }
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'hermes'"
        ) > 0,
        "Hermes Agent files in the corpus: {stderr}"
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events c WHERE c.source = 'hermes' AND c.type = 'tool_call' \
             AND NOT EXISTS (SELECT 1 FROM events r WHERE r.type = 'tool_response' \
             AND r.session_id = c.session_id AND r.tool_call_id = c.tool_call_id)"
        ),
        0,
        "every real call has its result"
    );
}
