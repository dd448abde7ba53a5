//! The Cursor IDE's chat store (`cursor-ide`): a home holding the fixture's `Cursor/User`
//! (`tests/standalone-fixtures/cursor-ide`, written by its `make_fixture.py`) at its Linux place,
//! indexed with no PATH. Composers with split bubbles, an older build's inline conversation and
//! a sub-agent become sessions with exact counts, counted again here straight from the fixture's
//! rows; the working directory comes from a workspace's `state.vscdb`, the global composer
//! headers or a bubble; a draft is no session; a JSON-null bubble and a broken composer are
//! counted warnings; Cursor's auth token and the composers' encryption keys are never read.
//! Rows a live Cursor adds (WAL, never checkpointed) add exactly their events, a rewritten
//! bubble none, and the owner's files are left unchanged.

use std::fs;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::index_home;
use super::{assert_tools_paired, count, rows, texts};
use crate::sqlite_harnesses::files_and_bytes;
use crate::support::copy_tree;
use crate::support::{corpus_dir, standalone_fixture};

const HERON: &str = "0b7c2e4a-1d3f-4a5b-8c6d-7e8f9a0b1c2d";
const EGRET: &str = "1c8d3f5b-2e4a-4b6c-9d7e-8f9a0b1c2d3e";
const KESTREL: &str = "2d9e4a6c-3f5b-4c7d-8e8f-9a0b1c2d3e4f";
const SCOUT: &str = "3e0f5b7d-4a6c-4d8e-9f9a-0b1c2d3e4f5a";

/// Where the global store sits in the home.
const GLOBAL_STORE: &str = ".config/Cursor/User/globalStorage/state.vscdb";

/// A temp home with the fixture's `Cursor/User` under `~/.config`.
fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("cursor-ide").join("Cursor"),
        &home.path().join(".config/Cursor"),
    );
    home
}

/// What the fixture's rows hold, counted straight from `cursorDiskKV` without esker.
#[derive(Debug, Default, PartialEq)]
struct RawCounts {
    sessions: i64,
    prompts: i64,
    replies: i64,
    reasoning: i64,
    tool_calls: i64,
    tool_results: i64,
    failed_results: i64,
    compactions: i64,
    usage_events: i64,
    input_tokens: i64,
    output_tokens: i64,
}

impl RawCounts {
    fn events(&self) -> i64 {
        self.prompts
            + self.replies
            + self.reasoning
            + self.tool_calls
            + self.tool_results
            + self.compactions
    }

    fn add_bubble(&mut self, bubble: &Map<String, Value>) {
        let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or("").to_string();
        let kind = bubble.get("type").and_then(Value::as_i64);
        let has_text = !text(bubble.get("text")).trim().is_empty();
        match kind {
            Some(1) => self.prompts += i64::from(has_text),
            Some(2) if bubble.get("capabilityType") == Some(&json!(22)) => self.compactions += 1,
            Some(2) => {
                self.replies += i64::from(has_text);
                let thinking = text(bubble.get("thinking").and_then(|t| t.get("text")));
                self.reasoning += i64::from(!thinking.is_empty());
                if let Some(tool) = bubble.get("toolFormerData") {
                    self.tool_calls += 1;
                    let status = text(tool.get("status"));
                    if ["completed", "error", "cancelled"].contains(&status.as_str()) {
                        self.tool_results += 1;
                    }
                    let result: Value =
                        serde_json::from_str(&text(tool.get("result"))).unwrap_or(Value::Null);
                    let exit = result.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
                    if status != "completed" || exit != 0 {
                        self.failed_results += 1;
                    }
                }
            }
            _ => {}
        }
        let count = |name: &str| {
            bubble
                .get("tokenCount")
                .and_then(|counts| counts.get(name))
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        if count("inputTokens") + count("outputTokens") > 0 {
            self.usage_events += 1;
            self.input_tokens += count("inputTokens");
            self.output_tokens += count("outputTokens");
        }
    }
}

/// The JSON of a value column (text or blob); `None` when it is not a JSON object.
fn object_of(value: rusqlite::types::ValueRef<'_>) -> Option<Map<String, Value>> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => serde_json::from_slice(bytes).ok(),
        _ => None,
    }
}

fn raw_counts(store: &Path) -> RawCounts {
    let uri = format!("file:{}?mode=ro&immutable=1", store.display());
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let connection = rusqlite::Connection::open_with_flags(uri, flags).expect("open fixture");
    let mut statement = connection
        .prepare("SELECT key, value FROM cursorDiskKV")
        .expect("prepare");
    let mut composers: Vec<(String, Map<String, Value>)> = Vec::new();
    let mut bubbles: Vec<(String, Map<String, Value>)> = Vec::new();
    let mut found = statement.query([]).expect("query");
    while let Some(row) = found.next().expect("row") {
        let key: String = row.get(0).expect("key");
        let Some(value) = object_of(row.get_ref(1).expect("value")) else {
            continue;
        };
        if let Some(id) = key.strip_prefix("composerData:") {
            composers.push((id.to_string(), value));
        } else if let Some(rest) = key.strip_prefix("bubbleId:") {
            bubbles.push((rest.to_string(), value));
        }
    }
    let mut counts = RawCounts::default();
    for (id, composer) in &composers {
        let inline: Vec<Map<String, Value>> = composer
            .get("conversation")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|bubble| bubble.as_object().cloned())
            .collect();
        let own: Vec<&Map<String, Value>> = bubbles
            .iter()
            .filter(|(key, _)| key.starts_with(&format!("{id}:")))
            .map(|(_, bubble)| bubble)
            .collect();
        let listed: Vec<&Map<String, Value>> = if inline.is_empty() {
            own
        } else {
            inline.iter().collect()
        };
        counts.sessions += i64::from(!listed.is_empty());
        for bubble in listed {
            counts.add_bubble(bubble);
        }
    }
    counts
}

#[test]
fn cursor_ide_composers_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixture();
    let raw = raw_counts(&home.path().join(GLOBAL_STORE));
    let expected = RawCounts {
        sessions: 4,
        prompts: 7,
        replies: 8,
        reasoning: 1,
        tool_calls: 5,
        tool_results: 5,
        failed_results: 3,
        compactions: 1,
        usage_events: 6,
        input_tokens: 12000 + 13500 + 14000 + 8000 + 3000 + 900,
        output_tokens: 40 + 90 + 25 + 60 + 15 + 12,
    };
    assert_eq!(raw, expected, "the fixture holds what this test expects");
    assert_eq!(raw.events(), 27);

    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "files: 1 seen, 1 ingested",
        "formats: cursor_ide=1;",
        "sessions: 4;",
        "events: 27 new",
        "parser warnings: 2;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let sessions: Vec<Value> = rows(
        dir,
        "SELECT native_id, source, title, cwd, model, turn_count, event_count, input_tokens, \
         output_tokens, parent_session_id FROM sessions ORDER BY native_id",
    )
    .iter()
    .map(|row| {
        let columns = [
            "native_id",
            "source",
            "title",
            "cwd",
            "model",
            "turn_count",
            "event_count",
            "input_tokens",
            "output_tokens",
            "parent_session_id",
        ];
        let field = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
        Value::Array(columns.iter().map(|name| field(name)).collect())
    })
    .collect();
    assert_eq!(
        sessions,
        [
            json!([
                HERON,
                "cursor-ide",
                "Heron count off by one",
                "/home/dev/heron",
                "claude-4.5-sonnet",
                2,
                10,
                12000 + 13500 + 14000,
                40 + 90 + 25,
                null
            ]),
            json!([
                EGRET,
                "cursor-ide",
                "Rename Egret",
                "/home/dev/egret",
                "gpt-5",
                2,
                11,
                8000 + 3000,
                60 + 15,
                null
            ]),
            json!([
                KESTREL,
                "cursor-ide",
                "Kestrel config",
                "/srv/kestrel",
                "gpt-4.1",
                2,
                4,
                null,
                null,
                null
            ]),
            json!([
                SCOUT,
                "cursor-ide",
                "find every Egret",
                "/home/dev/egret",
                "gpt-5-mini",
                1,
                2,
                900,
                12,
                format!("session:cursor-ide-{EGRET}")
            ]),
        ],
        "cwd from a workspace DB (heron), the global headers (egret), a remote workspace \
         (kestrel) and a bubble (scout)"
    );

    assert_eq!(count(dir, "SELECT count(*) FROM sessions"), raw.sessions);
    assert_eq!(count(dir, "SELECT count(*) FROM turns"), 7);
    assert_eq!(count(dir, "SELECT count(*) FROM events"), raw.events());
    let of_type = |kind: &str| {
        count(
            dir,
            &format!("SELECT count(*) FROM events WHERE type = '{kind}'"),
        )
    };
    assert_eq!(of_type("user_input"), raw.prompts);
    assert_eq!(of_type("assistant_response"), raw.replies);
    assert_eq!(of_type("reasoning"), raw.reasoning);
    assert_eq!(of_type("tool_call"), raw.tool_calls);
    assert_eq!(of_type("tool_response"), raw.tool_results);
    assert_eq!(of_type("compaction"), raw.compactions);
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM events WHERE type = 'tool_response' AND subtype = 'error'"
        ),
        raw.failed_results
    );
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM events WHERE input_tokens IS NOT NULL"
        ),
        raw.usage_events
    );
    assert_eq!(
        count(dir, "SELECT sum(input_tokens) FROM events"),
        raw.input_tokens
    );
    assert_eq!(
        count(dir, "SELECT sum(output_tokens) FROM events"),
        raw.output_tokens
    );
    assert_tools_paired(dir);

    let responses: Vec<Value> = rows(
        dir,
        "SELECT tool_name, tool_call_id, subtype, exit_code, text FROM events \
         WHERE type = 'tool_response' ORDER BY session_id, seq",
    )
    .iter()
    .map(|row| {
        let field = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
        json!([
            field("tool_name"),
            field("tool_call_id"),
            field("subtype"),
            field("exit_code"),
            field("text")
        ])
    })
    .collect();
    assert_eq!(
        responses,
        [
            json!([
                "run_terminal_command_v2",
                "toolu_heron1",
                "error",
                101,
                "test count ... FAILED\nexpected 12, got 11\n"
            ]),
            json!([
                "read_file_v2",
                "toolu_heron2",
                null,
                null,
                "fn count_herons() -> u32 { 11 }"
            ]),
            json!([
                "edit_file_v2",
                "toolu_egret1",
                "error",
                null,
                "file is read-only"
            ]),
            json!([
                "run_terminal_command_v2",
                "toolu_egret2",
                "error",
                null,
                "cancelled"
            ]),
            json!([
                "task_v2",
                "toolu_egret3",
                null,
                null,
                "src/lib.rs:3 struct Egret"
            ]),
        ],
        "a non-zero exit code, an error and a rejected call are failures"
    );
    let terminal_call = texts(
        dir,
        "SELECT payload FROM events WHERE type = 'tool_call' AND tool_call_id = 'toolu_heron1'",
    );
    let arguments: Value = serde_json::from_str(&terminal_call[0]).expect("payload is JSON");
    assert_eq!(
        arguments,
        json!({"command": "cargo test count"}),
        "the model's own arguments (rawArgs) over Cursor's params"
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' \
                 AND session_id = 'session:cursor-ide-{HERON}' ORDER BY seq"
            )
        ),
        ["why does count_herons return 11?", "fix it"]
    );
    assert_eq!(
        count(
            dir,
            &format!(
                "SELECT count(*) FROM events WHERE timestamp_inferred \
                 AND session_id <> 'session:cursor-ide-{KESTREL}'"
            )
        ),
        0,
        "split bubbles carry their own times; only the inline conversation has none"
    );
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%fixture-token-never-read%' \
             OR text LIKE '%c2VjcmV0%' OR payload LIKE '%c2VjcmV0%'"
        ),
        0,
        "the auth token in ItemTable and the composers' encryption keys are never read"
    );

    let again = index_home(home.path(), dir);
    assert!(again.contains("events: 0 new"), "{again}");
    assert!(again.contains("1 unchanged"), "{again}");
}

#[test]
fn rows_a_live_cursor_writes_add_exactly_their_events() {
    let home = home_with_fixture();
    let store = home.path().join(GLOBAL_STORE);
    let owner = rusqlite::Connection::open(&store).expect("owner opens");
    owner
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .expect("wal mode");
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let before = count(data.path(), "SELECT count(*) FROM events");

    // Cursor stores a new prompt and reply, rewrites the composer's headers, and rewrites an
    // existing bubble unchanged (a new rowid: UNIQUE ON CONFLICT REPLACE).
    let composer_key = format!("composerData:{HERON}");
    let composer_bytes: Vec<u8> = owner
        .query_row(
            "SELECT value FROM cursorDiskKV WHERE key = ?1",
            [&composer_key],
            |row| row.get(0),
        )
        .expect("composer");
    let mut composer: Value = serde_json::from_slice(&composer_bytes).expect("composer JSON");
    let headers = composer["fullConversationHeadersOnly"]
        .as_array_mut()
        .expect("headers");
    headers.push(json!({"bubbleId": "h-u3", "type": 1}));
    headers.push(json!({"bubbleId": "h-a4", "type": 2}));
    let new_bubbles = [
        json!({"_v": 3, "bubbleId": "h-u3", "type": 1, "createdAt": "2026-03-02T09:10:00.000Z",
            "text": "and the egret count?"}),
        json!({"_v": 3, "bubbleId": "h-a4", "type": 2, "createdAt": "2026-03-02T09:10:03.000Z",
            "text": "Egrets are counted in egret.rs, not here.",
            "modelInfo": {"modelName": "claude-4.5-sonnet"},
            "tokenCount": {"inputTokens": 15000, "outputTokens": 20}}),
    ];
    for bubble in &new_bubbles {
        let key = format!(
            "bubbleId:{HERON}:{}",
            bubble["bubbleId"].as_str().expect("id")
        );
        owner
            .execute(
                "INSERT INTO cursorDiskKV VALUES (?1, ?2)",
                rusqlite::params![key, bubble.to_string()],
            )
            .expect("insert bubble");
    }
    owner
        .execute(
            "INSERT INTO cursorDiskKV VALUES (?1, ?2)",
            rusqlite::params![composer_key, composer.to_string()],
        )
        .expect("replace composer");
    owner
        .execute(
            "INSERT INTO cursorDiskKV SELECT key, value FROM cursorDiskKV WHERE key = ?1",
            [format!("bubbleId:{HERON}:h-a3")],
        )
        .expect("rewrite a bubble");
    let global_dir = store.parent().expect("globalStorage");
    let owner_files = files_and_bytes(global_dir);
    assert!(
        owner_files
            .iter()
            .any(|(name, bytes)| name == "state.vscdb-wal" && !bytes.is_empty()),
        "the new rows are still in the WAL"
    );

    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    assert_eq!(
        count(data.path(), "SELECT count(*) FROM events"),
        before + 2
    );
    assert_eq!(
        texts(
            data.path(),
            &format!(
                "SELECT text FROM events WHERE session_id = 'session:cursor-ide-{HERON}' \
                 ORDER BY seq DESC LIMIT 2"
            )
        ),
        [
            "Egrets are counted in egret.rs, not here.",
            "and the egret count?"
        ]
    );
    assert_eq!(
        count(
            data.path(),
            &format!("SELECT turn_count FROM sessions WHERE native_id = '{HERON}'")
        ),
        3
    );
    assert_eq!(
        files_and_bytes(global_dir),
        owner_files,
        "reading never changed the owner's files"
    );
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");
}

/// Every `globalStorage/state.vscdb` under `dir`.
fn global_stores(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(global_stores(&path));
        } else if esker::ingest::cursor::ide_store::is_store_path(&path)
            && path.file_name().is_some_and(|name| name == "state.vscdb")
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn corpus_cursor_ide_stores_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real Cursor IDE state.vscdb checked");
        return;
    };
    let stores = global_stores(&corpus);
    if stores.is_empty() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no Cursor IDE store \
             (globalStorage/state.vscdb); only the fixture is checked"
        );
        return;
    }
    for store in stores {
        // A private copy of the store's folder, so the corpus is never opened in place.
        let copy = tempfile::tempdir().expect("temp dir");
        let global = copy.path().join("Cursor/User/globalStorage");
        copy_tree(store.parent().expect("globalStorage"), &global);
        let data = tempfile::tempdir().expect("temp dir");
        let stderr = crate::support::index_into(data.path(), &[&global]);
        assert!(stderr.contains("0 failed"), "{}: {stderr}", store.display());
        assert!(
            count(
                data.path(),
                "SELECT count(*) FROM sessions WHERE source = 'cursor-ide'"
            ) > 0,
            "{}: {stderr}",
            store.display()
        );
        assert_tools_paired(data.path());
    }
}
