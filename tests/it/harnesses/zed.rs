//! Zed agent threads (`zed`): a home holding a thread store at Zed's Linux place (today's table,
//! three threads of the current agent, zstd-compressed, and one torn frame) and one at its macOS
//! place (the original five columns, a thread of the earlier agent stored as plain JSON), from
//! `tests/standalone-fixtures/zed`, indexed with no PATH. Every count is also taken from the raw
//! stores by this test's own reading of the documents; a thread saved again adds exactly its new
//! messages, and a pass over an unchanged store adds nothing.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::index_home;
use super::{assert_tools_paired, count, number, rows, texts};
use crate::support::{corpus_dir, corpus_store, query_count, standalone_fixture};

const LINUX_STORE: &str = ".local/share/zed/threads/threads.db";
const MACOS_STORE: &str = "Library/Application Support/Zed/threads/threads.db";

/// A temp home with the fixture stores at Zed's Linux and macOS data directories.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("zed");
    for (from, to) in [("linux", LINUX_STORE), ("macos", MACOS_STORE)] {
        let target = home.path().join(to);
        fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        fs::copy(fixture.join(from).join("threads.db"), &target).expect("copy store");
    }
    home
}

/// What the raw stores hold, counted from the documents themselves.
#[derive(Debug, Default, PartialEq)]
struct RawCounts {
    threads: i64,
    unreadable: i64,
    prompts: i64,
    replies: i64,
    reasoning: i64,
    calls: i64,
    results: i64,
    resumes: i64,
    usages: i64,
}

/// Every thread document of the store at `path` (decompressed when `zstd`); `None` for a row
/// whose data does not decode.
fn documents(path: &Path) -> Vec<Option<Value>> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY;
    let connection = Connection::open_with_flags(path, flags).expect("open store");
    let mut statement = connection
        .prepare("SELECT data_type, data FROM threads ORDER BY id")
        .expect("prepare");
    let rows = statement
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Vec<u8>>(1)?))
        })
        .expect("query");
    rows.map(|row| {
        let (data_type, data) = row.expect("row");
        let json = if data_type == "zstd" {
            zstd::stream::decode_all(&data[..]).ok()?
        } else {
            data
        };
        serde_json::from_slice(&json).ok()
    })
    .collect()
}

fn count_document(document: &Value, counts: &mut RawCounts) {
    counts.threads += 1;
    let messages = document["messages"].as_array().expect("messages");
    let array_len = |value: &Value| value.as_array().map_or(0, Vec::len) as i64;
    let object_len = |value: &Value| value.as_object().map_or(0, |map| map.len()) as i64;
    if document["version"] == "0.3.0" {
        for message in messages {
            if message == "Resume" {
                counts.resumes += 1;
            } else if let Some(content) = message.pointer("/User/content") {
                let typed = content.as_array().expect("content").iter();
                counts.prompts += i64::from(typed.clone().any(|block| block.get("Text").is_some()));
            } else if let Some(agent) = message.get("Agent") {
                for block in agent["content"].as_array().expect("content") {
                    counts.replies += i64::from(block.get("Text").is_some());
                    counts.reasoning += i64::from(block.get("Thinking").is_some());
                    counts.calls += i64::from(block.get("ToolUse").is_some());
                }
                counts.results += object_len(&agent["tool_results"]);
            }
        }
        let per_request = object_len(&document["request_token_usage"]);
        let cumulative = document["cumulative_token_usage"].is_object();
        counts.usages += if per_request > 0 {
            per_request
        } else {
            i64::from(cumulative)
        };
        return;
    }
    for message in messages {
        for segment in message["segments"].as_array().into_iter().flatten() {
            match (message["role"].as_str(), segment["type"].as_str()) {
                (Some("user"), Some("text")) => counts.prompts += 1,
                (Some("assistant"), Some("text")) => counts.replies += 1,
                (Some("assistant"), Some("thinking")) => counts.reasoning += 1,
                _ => {}
            }
        }
        counts.calls += array_len(&message["tool_uses"]);
        counts.results += array_len(&message["tool_results"]);
    }
    let usages = document["request_token_usage"]
        .as_array()
        .expect("usage list");
    counts.usages += usages.iter().filter(|usage| object_len(usage) > 0).count() as i64;
}

fn raw_counts(stores: &[PathBuf]) -> RawCounts {
    let mut counts = RawCounts::default();
    for store in stores {
        for document in documents(store) {
            match document {
                Some(document) => count_document(&document, &mut counts),
                None => counts.unreadable += 1,
            }
        }
    }
    counts
}

fn indexed_counts(dir: &Path) -> RawCounts {
    let of_type = |kind: &str| {
        count(
            dir,
            &format!("SELECT count(*) FROM events WHERE type = '{kind}'"),
        )
    };
    RawCounts {
        threads: count(dir, "SELECT count(*) FROM sessions WHERE source = 'zed'"),
        unreadable: 0,
        prompts: of_type("user_input"),
        replies: of_type("assistant_response"),
        reasoning: of_type("reasoning"),
        calls: of_type("tool_call"),
        results: of_type("tool_response"),
        resumes: count(
            dir,
            "SELECT count(*) FROM events WHERE type = 'system' AND subtype = 'resume'",
        ),
        usages: count(
            dir,
            "SELECT count(*) FROM events WHERE input_tokens IS NOT NULL",
        ),
    }
}

#[test]
fn zed_thread_stores_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "formats: zed_db=2;",
        "sessions: 4;",
        "events: 25 new",
        "parser warnings: 1;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let raw = raw_counts(&[home.path().join(LINUX_STORE), home.path().join(MACOS_STORE)]);
    assert_eq!(
        raw,
        RawCounts {
            threads: 4,
            unreadable: 1,
            prompts: 5,
            replies: 7,
            reasoning: 2,
            calls: 5,
            results: 5,
            resumes: 1,
            usages: 6,
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(
        indexed_counts(dir),
        RawCounts {
            unreadable: 0,
            ..raw
        },
        "every message of every readable thread is indexed once"
    );
    assert_eq!(
        count(dir, "SELECT sum(turn_count) FROM sessions"),
        raw.prompts,
        "one turn per prompt"
    );
    assert_tools_paired(dir);

    let sessions = rows(
        dir,
        "SELECT native_id, title, cwd, model, turn_count, event_count, \
         input_tokens, cached_input_tokens, output_tokens, harness_version FROM sessions \
         ORDER BY native_id",
    );
    let column = |row: &serde_json::Map<String, Value>, name: &str| {
        row.get(name).cloned().unwrap_or(Value::Null)
    };
    let summary: Vec<Value> = sessions
        .iter()
        .map(|row| {
            json!([
                column(row, "native_id"),
                column(row, "title"),
                column(row, "cwd"),
                column(row, "model"),
                column(row, "turn_count"),
                column(row, "event_count"),
                column(row, "input_tokens"),
                column(row, "cached_input_tokens"),
                column(row, "output_tokens"),
                column(row, "harness_version"),
            ])
        })
        .collect();
    assert_eq!(
        summary,
        [
            json!([
                "0f9a8b7c-osprey",
                "Osprey nest count drifts",
                "/home/dev/osprey",
                "claude-sonnet-4-5",
                2,
                13,
                1200 + 300 + 4000 + 1100 + 5000,
                9000,
                260,
                "thread v0.3.0"
            ]),
            json!([
                "1e0b9c8d-osprey-sub",
                "Find every nests.lock",
                "/home/dev/osprey",
                "claude-haiku-4-5",
                1,
                4,
                400,
                null,
                40,
                "thread v0.3.0"
            ]),
            json!([
                "2d1c0b9a-kestrel",
                "Kestrel CSV header",
                null,
                "qwen3-coder",
                1,
                2,
                150,
                null,
                12,
                "thread v0.3.0"
            ]),
            json!([
                "4b3a2918-heron",
                "Heron survey totals",
                "/Users/dev/heron",
                "claude-3-7-sonnet-latest",
                1,
                6,
                900,
                null,
                70,
                "thread v0.2.0"
            ]),
        ]
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM sessions WHERE native_id = '1e0b9c8d-osprey-sub' \
             AND parent_session_id = (SELECT session_id FROM sessions \
             WHERE native_id = '0f9a8b7c-osprey')"
        ),
        Some(1),
        "the sub-agent thread links to the thread that spawned it"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'tool_response' AND subtype = 'error'"
        ),
        ["nests.lock: no such file"]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY session_id, seq"
        ),
        [
            "why does the osprey nest count drift between runs?",
            "sort them then",
            "find every nests.lock under osprey",
            "what is the kestrel CSV header?",
            "total the heron survey",
        ]
    );
}

#[test]
fn a_thread_saved_again_adds_exactly_its_new_messages() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");

    let store = home.path().join(LINUX_STORE);
    let connection = Connection::open(&store).expect("open store");
    let data_of = |id: &str| -> Vec<u8> {
        connection
            .query_row("SELECT data FROM threads WHERE id = ?1", [id], |row| {
                row.get(0)
            })
            .expect("row")
    };
    let mut document: Value = serde_json::from_slice(
        &zstd::stream::decode_all(&data_of("2d1c0b9a-kestrel")[..]).unwrap(),
    )
    .expect("document");
    let messages = document["messages"].as_array_mut().expect("messages");
    messages
        .push(json!({"User": {"id": "c3f2e4d6-0002", "content": [{"Text": "and the order?"}]}}));
    messages
        .push(json!({"Agent": {"content": [{"Text": "Always that order."}], "tool_results": {}}}));
    let frame = zstd::stream::encode_all(&serde_json::to_vec(&document).unwrap()[..], 3).unwrap();
    connection
        .execute(
            "UPDATE threads SET data = ?1, updated_at = '2026-11-21T14:05:00+00:00' WHERE id = ?2",
            rusqlite::params![frame, "2d1c0b9a-kestrel"],
        )
        .expect("save thread");
    drop(connection);

    let saved = index_home(home.path(), data.path());
    assert!(saved.contains("events: 2 new"), "{saved}");
    assert_eq!(
        count(
            data.path(),
            "SELECT turn_count FROM sessions WHERE native_id = '2d1c0b9a-kestrel'"
        ),
        2
    );
    let last = index_home(home.path(), data.path());
    assert!(last.contains("events: 0 new"), "{last}");
}

/// The Zed thread stores under `dir` (`threads/threads.db`).
fn thread_stores(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(thread_stores(&path));
        } else if path.file_name().is_some_and(|name| name == "threads.db")
            && esker::ingest::zed::is_store_path(&path)
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn corpus_zed_threads_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real Zed thread store checked");
        return;
    };
    let stores = thread_stores(&corpus);
    if stores.is_empty() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no Zed thread store (threads/threads.db); only the \
             fixtures are checked"
        );
        return;
    }
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(stderr.contains("zed_db="), "{stderr}");
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'zed'"
        ) > 0,
        "Zed stores in the corpus: {stores:?}"
    );
}
