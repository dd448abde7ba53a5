//! Ingest end to end: real corpus and fixtures through the real binary, invariants checked with
//! SQL over the written Parquet tables; incremental appends, rewrites and read-only SQL.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::support::{
    corpus_dir, corpus_store, fixture_store, fixtures_dir, index_into, query_count, query_rows,
    run_esker, stderr_of,
};

/// Invariants every store must satisfy, whatever the logs.
fn assert_store_invariants(data_dir: &Path) {
    let count = |sql: &str| query_count(data_dir, sql);
    assert!(count("SELECT count(*) FROM events") > 0, "store has events");

    // Ids unique and well-formed.
    for (table, column, prefix) in [
        ("events", "event_id", "event"),
        ("turns", "turn_id", "turn"),
        ("sessions", "session_id", "session"),
    ] {
        assert_eq!(
            count(&format!(
                "SELECT count(*) - count(DISTINCT {column}) FROM {table}"
            )),
            0,
            "{table}.{column} unique"
        );
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM {table} WHERE NOT regexp_like({column}, '^{prefix}:[A-Za-z0-9_-]{{1,256}}$')"
            )),
            0,
            "{table}.{column} well-formed"
        );
    }

    // Every event's turn and session exist; every turn's session exists.
    assert_eq!(
        count(
            "SELECT count(*) FROM events e LEFT JOIN turns t ON e.turn_id = t.turn_id WHERE t.turn_id IS NULL"
        ),
        0
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM events e LEFT JOIN sessions s ON e.session_id = s.session_id WHERE s.session_id IS NULL"
        ),
        0
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM turns t LEFT JOIN sessions s ON t.session_id = s.session_id WHERE s.session_id IS NULL"
        ),
        0
    );

    // Ordinals contiguous from 1: events within turns, seq within sessions, turns within sessions.
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT turn_id, min(ordinal) lo, max(ordinal) hi, count(*) n, \
             count(DISTINCT ordinal) d FROM events GROUP BY turn_id) WHERE lo <> 1 OR hi <> n OR d <> n"
        ),
        0,
        "event ordinals contiguous within turns"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT session_id, min(seq) lo, max(seq) hi, count(*) n FROM events \
             GROUP BY session_id) WHERE lo <> 1 OR hi <> n"
        ),
        0,
        "seq contiguous within sessions"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT session_id, min(ordinal) lo, max(ordinal) hi, count(*) n FROM turns \
             GROUP BY session_id) WHERE lo <> 1 OR hi <> n"
        ),
        0,
        "turn ordinals contiguous within sessions"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM turns t JOIN (SELECT turn_id, count(*) n FROM events GROUP BY turn_id) e \
             ON t.turn_id = e.turn_id WHERE t.event_count <> e.n"
        ),
        0,
        "turn event counts match events"
    );

    // Tool calls and responses carry a tool name, never a call id. (A response may equal its
    // call id only when a call really has that name; the sanitized other-formats fixtures
    // replace both name and id with the same placeholder.)
    assert_eq!(
        count(
            "SELECT count(*) FROM events WHERE type IN ('tool_call', 'tool_response') AND \
             (tool_name IS NULL OR tool_name = '')"
        ),
        0,
        "tool events have tool names"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM events r WHERE r.type = 'tool_response' AND r.tool_name = r.tool_call_id \
             AND r.tool_name <> '[trimmed for fixture]' AND NOT EXISTS (SELECT 1 FROM events c WHERE c.session_id = r.session_id \
             AND c.type = 'tool_call' AND c.tool_name = r.tool_name)"
        ),
        0,
        "tool responses are named after their call, not its id"
    );

    // Tool call count per file equals its distinct call ids (formats without call ids, like
    // Cursor transcripts, and the sanitized fixtures' placeholder ids aside).
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT source_path, count(tool_call_id) calls, \
             count(DISTINCT tool_call_id) ids FROM events WHERE type = 'tool_call' \
             AND tool_call_id <> '[trimmed for fixture]' GROUP BY source_path) WHERE calls <> ids"
        ),
        0,
        "one tool_call per call id"
    );

    // No injected context counted as user input.
    assert_eq!(
        count(
            "SELECT count(*) FROM events WHERE type = 'user_input' AND (\
             text LIKE '%<environment_context>%' OR text LIKE '%<user_instructions>%' \
             OR text LIKE '%<local-command-stdout>%' OR text LIKE '%<local-command-caveat>%' \
             OR text LIKE '%<task-notification>%' OR text LIKE '# AGENTS.md instructions%' \
             OR text LIKE '<turn_aborted>%' OR text LIKE '%<command-message>%' \
             OR (source IN ('copilot', 'cursor', 'qwen', 'pi', 'factory', 'amp', 'aider', 'crush', 'cline', 'roo') AND (\
             text LIKE '%<system-reminder>%' OR text LIKE '%<user_query>%' \
             OR text LIKE '%<current_datetime>%' OR text LIKE '%<git_diff_from_branch_to_main>%')))"
        ),
        0,
        "no injected context as user_input"
    );

    // Every session has a title; completed turns have exactly one terminal event, others none.
    assert_eq!(
        count("SELECT count(*) FROM sessions WHERE title IS NULL OR trim(title) = ''"),
        0
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM turns t LEFT JOIN (SELECT turn_id, count(*) n, max(event_id) id FROM events \
             WHERE terminal GROUP BY turn_id) e ON t.turn_id = e.turn_id \
             WHERE (t.completed AND (e.n IS NULL OR e.n <> 1 OR e.id <> t.terminal_event_id)) \
             OR (NOT t.completed AND e.n IS NOT NULL)"
        ),
        0,
        "completed turns have exactly one terminal event"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM sessions s JOIN turns t ON s.last_turn_id = t.turn_id \
             WHERE s.completed <> t.completed"
        ),
        0,
        "session completed = last turn completed"
    );
}

#[test]
fn fixtures_satisfy_store_invariants() {
    assert_store_invariants(fixture_store());
}

#[test]
fn corpus_ingests_every_real_log_with_its_format() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(stderr.contains("0 failed"), "{stderr}");
    let megabytes_read: f64 = stderr
        .split(" MB read")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|figure| figure.parse().ok())
        .unwrap_or_else(|| panic!("no MB read figure:\n{stderr}"));
    assert!(
        megabytes_read > 1.0,
        "the summary counts bytes read: {stderr}"
    );
    let corpus = corpus_dir().expect("corpus present");
    let expectations = [
        ("codex", ".jsonl", "codex_rollout"),
        ("claude", ".jsonl", "claude_transcript"),
        ("gemini", ".json", "gemini_json"),
        ("gemini", ".jsonl", "gemini_jsonl"),
        ("copilot", ".jsonl", "copilot_events"),
        ("cursor", ".jsonl", "cursor_transcript"),
        ("cursor", "store.db", "cursor_store"),
        ("qwen", ".jsonl", "qwen_jsonl"),
        ("qwen", ".json", "qwen_json"),
        ("pi", ".jsonl", "pi_session"),
        ("factory", ".jsonl", "factory_session"),
        ("amp", ".json", "amp_thread"),
        ("aider", ".aider.chat.history.md", "aider_history"),
    ];
    for (harness, extension, format) in expectations {
        for entry in walkdir::WalkDir::new(corpus.join(harness)) {
            let entry = entry.expect("walk corpus");
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_log = name.ends_with(extension)
                && !name.ends_with(".meta.json")
                && name != "logs.json"
                && !(extension == ".json" && name.ends_with(".jsonl"));
            if !is_log {
                continue;
            }
            let path = entry.path().canonicalize().expect("canonical path");
            let listed = format!("{format:<17}  {}", path.display());
            assert!(
                stderr.contains(&listed) || stderr.contains(&qwen_legacy_group(&path, format)),
                "{} not listed as {format}:\n{stderr}",
                path.display()
            );
        }
    }
    assert_store_invariants(data_dir);

    for sources in [
        "codex", "claude", "gemini", "copilot", "cursor", "qwen", "pi",
    ] {
        assert!(
            query_count(
                data_dir,
                &format!("SELECT count(*) FROM events WHERE source = '{sources}'")
            ) > 0,
            "{sources} events present"
        );
    }
}

#[test]
fn corpus_second_run_finds_nothing_new() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let corpus = corpus_dir().expect("corpus present");
    let before = query_count(data_dir, "SELECT count(*) FROM events");
    let stderr = index_into(data_dir, &[&corpus]);
    assert!(stderr.contains(" 0 ingested"), "{stderr}");
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert_eq!(query_count(data_dir, "SELECT count(*) FROM events"), before);
}

#[test]
fn corpus_sub_agents_link_to_their_parents() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let rows = query_rows(
        data_dir,
        "SELECT source_path, parent_session_id FROM sessions WHERE source_path LIKE '%/subagents/agent-%' \
         OR source_path LIKE '%/agent-c8d9b115.jsonl' OR source_path LIKE '%/xb7gtb.json' \
         OR source_path LIKE '%019d781a-be34-7041-abb1-577f9360b907.jsonl'",
    );
    assert!(
        rows.len() >= 4,
        "all four sub-agent layouts found: {rows:?}"
    );
    for row in rows {
        assert!(
            row.get("parent_session_id")
                .is_some_and(|parent| parent.is_string()),
            "sub-agent without parent: {row:?}"
        );
    }
}

#[test]
fn query_answers_counts_by_source_and_refuses_writes() {
    let data_dir = fixture_store();
    let data_dir_text = data_dir.to_str().expect("utf-8");
    let output = run_esker(&[
        "query",
        "--data-dir",
        data_dir_text,
        "SELECT source, count(*) AS n FROM events GROUP BY source ORDER BY source",
    ]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    for source in ["claude", "codex", "gemini"] {
        assert!(table.contains(source), "{source} missing in\n{table}");
    }
    let csv = run_esker(&[
        "query",
        "--data-dir",
        data_dir_text,
        "--format",
        "csv",
        "SELECT source FROM sessions ORDER BY source LIMIT 1",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&csv.stdout).lines().next(),
        Some("source")
    );

    for forbidden in [
        "CREATE TABLE x AS SELECT 1",
        "INSERT INTO sessions SELECT * FROM sessions",
        "COPY (SELECT 1) TO '/tmp/esker-copy-test.csv'",
        "DROP TABLE events",
    ] {
        let output = run_esker(&["query", "--data-dir", data_dir_text, forbidden]);
        assert!(!output.status.success(), "{forbidden} must be refused");
        assert!(
            !stderr_of(&output).is_empty(),
            "{forbidden} explains itself"
        );
    }
    let bad_sql = run_esker(&["query", "--data-dir", data_dir_text, "SELEC nonsense"]);
    assert!(!bad_sql.status.success());
    assert!(
        stderr_of(&bad_sql).contains("esker query:"),
        "{}",
        stderr_of(&bad_sql)
    );
}

/// A temporary Claude log tree (`<logs>/projects/-home-dev-app/`) and an empty data dir.
fn claude_workspace() -> (tempfile::TempDir, tempfile::TempDir, std::path::PathBuf) {
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects").join("-home-dev-app");
    fs::create_dir_all(&project).expect("mkdir");
    (logs, data, project)
}

const CLAUDE_SESSION: &str = "5b0c8a52-7d1e-4a8e-9f3c-1d2e3f4a5b6c";

fn claude_user_line(uuid: &str, parent: Option<&str>, text: &str) -> String {
    serde_json::json!({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": CLAUDE_SESSION,
        "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/home/dev/app", "version": "2.0.50",
        "isSidechain": false, "userType": "external",
        "message": {"role": "user", "content": text}
    })
    .to_string()
}

fn claude_assistant_line(uuid: &str, parent: &str, message_id: &str, text: &str) -> String {
    serde_json::json!({
        "type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": CLAUDE_SESSION,
        "timestamp": "2026-03-01T10:00:05.000Z", "cwd": "/home/dev/app", "version": "2.0.50",
        "isSidechain": false, "userType": "external",
        "message": {"id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
    })
    .to_string()
}

fn events_with_text(data_dir: &Path, needle: &str) -> Vec<String> {
    query_rows(
        data_dir,
        &format!("SELECT text FROM events WHERE text LIKE '%{needle}%' ORDER BY seq"),
    )
    .into_iter()
    .filter_map(|row| {
        row.get("text")
            .and_then(|text| text.as_str())
            .map(str::to_string)
    })
    .collect()
}

#[test]
fn half_written_line_is_held_back_then_ingested_once_whole() {
    let (logs, data, project) = claude_workspace();
    let log_path = project.join(format!("{CLAUDE_SESSION}.jsonl"));
    let first = claude_user_line("u-1", None, "why does the zebra migration fail");
    let answer = claude_assistant_line("a-1", "u-1", "msg_1", "the zebra migration lacks an index");
    fs::write(&log_path, format!("{first}\n{answer}\n")).expect("write log");
    index_into(data.path(), &[logs.path()]);
    assert_eq!(events_with_text(data.path(), "zebra").len(), 2);

    let appended = claude_user_line("u-2", Some("a-1"), "now add the giraffe column please");
    let (head, tail) = appended.split_at(appended.len() / 2);
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&log_path)
        .expect("open");
    file.write_all(head.as_bytes()).expect("append half");
    file.flush().expect("flush");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert!(
        events_with_text(data.path(), "giraffe").is_empty(),
        "half a line is held back"
    );

    file.write_all(format!("{tail}\n").as_bytes())
        .expect("append rest");
    file.flush().expect("flush");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 1 new"), "{stderr}");
    assert_eq!(
        events_with_text(data.path(), "giraffe"),
        vec!["now add the giraffe column please".to_string()],
        "the event appears once, whole"
    );
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert_eq!(
        events_with_text(data.path(), "giraffe").len(),
        1,
        "never twice"
    );
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM turns WHERE completed"),
        1,
        "the first turn is completed by its end_turn reply; the new one is still open"
    );
}

#[test]
fn malformed_middle_line_is_counted_not_fatal() {
    let (logs, data, project) = claude_workspace();
    let first = claude_user_line("u-1", None, "walrus question");
    let answer = claude_assistant_line("a-1", "u-1", "msg_1", "walrus answer");
    fs::write(
        project.join(format!("{CLAUDE_SESSION}.jsonl")),
        format!("{first}\n{{\"type\": broken\n{answer}\n"),
    )
    .expect("write");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("malformed lines: 1"), "{stderr}");
    assert_eq!(events_with_text(data.path(), "walrus").len(), 2);
}

#[test]
fn rewritten_file_replaces_what_came_from_it() {
    let (logs, data, project) = claude_workspace();
    let log_path = project.join(format!("{CLAUDE_SESSION}.jsonl"));
    let first = claude_user_line("u-1", None, "okapi question");
    let answer = claude_assistant_line("a-1", "u-1", "msg_1", "okapi answer");
    fs::write(&log_path, format!("{first}\n{answer}\n")).expect("write");
    index_into(data.path(), &[logs.path()]);
    assert_eq!(events_with_text(data.path(), "okapi").len(), 2);

    fs::write(&log_path, format!("{first}\n")).expect("rewrite shorter");
    index_into(data.path(), &[logs.path()]);
    assert_eq!(
        events_with_text(data.path(), "okapi"),
        vec!["okapi question".to_string()]
    );
    assert_eq!(query_count(data.path(), "SELECT count(*) FROM turns"), 1);
}

#[test]
fn unknown_files_are_skipped_not_fatal() {
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    fs::write(logs.path().join("notes.json"), "{\"hello\": \"world\"}").expect("write");
    fs::write(logs.path().join("list.jsonl"), "[1,2]\n[3]\n").expect("write");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("2 skipped"), "{stderr}");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(
        stderr.contains("2 unchanged"),
        "skipped files are remembered: {stderr}"
    );
}

#[test]
fn tables_have_the_declared_columns() {
    let data_dir = fixture_store();
    let columns =
        |table: &str| -> Vec<String> {
            query_rows(
            data_dir,
            &format!(
                "SELECT column_name FROM information_schema.columns WHERE table_name = '{table}' \
                 ORDER BY ordinal_position"
            ),
        )
        .into_iter()
        .filter_map(|row| row.get("column_name").and_then(|name| name.as_str()).map(str::to_string))
        .collect()
        };
    let events = columns("events");
    for required in [
        "event_id",
        "session_id",
        "turn_id",
        "turn_ordinal",
        "ordinal",
        "seq",
        "type",
        "timestamp",
        "terminal",
        "model",
        "originating_model",
        "tool_name",
        "tool_call_id",
        "exit_code",
        "text",
        "payload",
        "source",
        "source_path",
    ] {
        assert!(
            events.iter().any(|column| column == required),
            "events.{required}"
        );
    }
    assert!(
        columns("turns")
            .iter()
            .any(|column| column == "terminal_event_id")
    );
    assert!(
        columns("sessions")
            .iter()
            .any(|column| column == "next_session_id")
    );
    let layout_ok = fixtures_dir().join("codex").is_dir();
    assert!(layout_ok, "codex fixtures present");
}

fn write_claude_session(dir: &Path, session_id: &str, prompt: &str) {
    let line = serde_json::json!({
        "type": "user", "uuid": format!("{session_id}-u1"), "parentUuid": null, "sessionId": session_id,
        "timestamp": "2026-03-02T09:00:00.000Z", "cwd": "/home/dev/app", "version": "2.0.50",
        "isSidechain": false, "userType": "external",
        "message": {"role": "user", "content": prompt}
    });
    fs::write(dir.join(format!("{session_id}.jsonl")), format!("{line}\n")).expect("write session");
}

fn parquet_files_in(dir: &Path) -> usize {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .path()
                .extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .count()
}

#[test]
fn many_small_commits_are_compacted_and_nothing_is_lost() {
    let (logs, data, project) = claude_workspace();
    let session_count = 12;
    for index in 0..session_count {
        write_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{index:012}"),
            &format!("prompt number {index} about capybaras"),
        );
        index_into(data.path(), &[logs.path()]);
        let partition = data
            .path()
            .join("current/events/source=claude/month=2026-03");
        let files = parquet_files_in(&partition);
        assert!(
            (1..=8).contains(&files),
            "partition holds {files} files after commit {index}"
        );
    }
    assert_eq!(
        events_with_text(data.path(), "capybaras").len(),
        session_count
    );
    assert_eq!(
        query_count(data.path(), "SELECT count(DISTINCT session_id) FROM events"),
        session_count as i64
    );
    let generations = fs::read_dir(data.path().join("generations"))
        .expect("generations")
        .filter(|entry| entry.as_ref().is_ok_and(|entry| entry.path().is_dir()))
        .count();
    assert!(
        generations <= 2,
        "old generations are removed, {generations} left"
    );
}

/// Base files per bucket of a `turns`/`sessions` directory (`part-bNN-g…`), by bucket.
fn base_files_per_bucket(table_dir: &Path) -> std::collections::BTreeMap<String, usize> {
    let mut buckets = std::collections::BTreeMap::new();
    for entry in fs::read_dir(table_dir).expect("table dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some((bucket, rest)) = name.split_once("-g") {
            assert!(rest.ends_with(".parquet"), "{name}");
            *buckets.entry(bucket.to_string()).or_default() += 1;
        }
    }
    buckets
}

#[test]
fn bulk_loads_add_base_files_instead_of_rewriting_buckets_and_lose_nothing() {
    let (logs, data, project) = claude_workspace();
    let session_count = 2_700;
    for index in 0..session_count {
        write_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{index:012}"),
            &format!("prompt number {index:04} about capybaras"),
        );
    }
    // Ten bulk commits of 270 sessions (a bulk commit touches over 256; the files are all
    // the same size).
    let session_bytes = fs::metadata(project.join("00000000-0000-4000-8000-000000000000.jsonl"))
        .expect("session file")
        .len();
    let batch_bytes = (session_bytes * 270).to_string();
    let data_dir = data.path().to_str().expect("utf-8 path");
    let logs_dir = logs.path().to_str().expect("utf-8 path");
    let output = run_esker(&[
        "index",
        "--data-dir",
        data_dir,
        "--batch-bytes",
        &batch_bytes,
        logs_dir,
    ]);
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("commits: 10;"), "{stderr}");
    for table in ["turns", "sessions"] {
        let buckets = base_files_per_bucket(&data.path().join("current").join(table));
        assert_eq!(buckets.len(), 16, "{table}: {buckets:?}");
        // Each bulk commit added a base file per bucket; the ninth merged the eight (all of
        // a size) into the one it wrote, and the tenth added a second.
        assert!(
            buckets.values().all(|&files| files == 2),
            "{table}: {buckets:?}"
        );
    }
    // The first nine commits left their index segments unmerged; the last one merged them.
    let meta: serde_json::Value = serde_json::from_slice(
        &fs::read(data.path().join("current/tantivy/meta.json")).expect("index meta"),
    )
    .expect("meta json");
    let segments = meta["segments"].as_array().expect("segments").len();
    assert!((1..8).contains(&segments), "{segments} segments: {meta}");
    let clean = tempfile::tempdir().expect("temp dir");
    index_into(clean.path(), &[logs.path()]);
    for sql in SUMMARY_TABLES_SQL {
        assert_eq!(
            query_rows(data.path(), sql),
            query_rows(clean.path(), sql),
            "{sql}"
        );
    }
    assert_eq!(
        events_with_text(data.path(), "capybaras").len(),
        session_count
    );
}

#[test]
fn a_session_found_again_after_its_commit_keeps_the_fuller_stored_copy() {
    // The same session in two files, committed in separate batches: the state entry of the
    // first copy is evicted from memory after its commit and must be read back when the
    // second, shorter copy arrives.
    let (logs, data, _) = claude_workspace();
    let fuller = logs.path().join("projects").join("-a-fuller");
    let shorter = logs.path().join("projects").join("-b-shorter");
    for dir in [&fuller, &shorter] {
        fs::create_dir_all(dir).expect("mkdir");
    }
    let first = claude_user_line("u-1", None, "why does the walrus migration fail");
    let answer = claude_assistant_line("a-1", "u-1", "msg_1", "the walrus table lacks an index");
    fs::write(
        fuller.join(format!("{CLAUDE_SESSION}.jsonl")),
        format!("{first}\n{answer}\n"),
    )
    .expect("write fuller copy");
    fs::write(
        shorter.join(format!("{CLAUDE_SESSION}.jsonl")),
        format!("{first}\n"),
    )
    .expect("write shorter copy");
    let output = run_esker(&[
        "index",
        "--data-dir",
        data.path().to_str().expect("utf-8 path"),
        "--batch-bytes",
        "1",
        logs.path().to_str().expect("utf-8 path"),
    ]);
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("commits: 2;"), "{stderr}");
    assert_eq!(
        events_with_text(data.path(), "walrus"),
        [
            "why does the walrus migration fail",
            "the walrus table lacks an index"
        ]
    );
}

#[test]
fn a_lost_master_index_is_restored_from_the_current_generation() {
    let (logs, data, project) = claude_workspace();
    write_claude_session(
        &project,
        "00000000-0000-4000-8000-00000000000a",
        "first about narwhals",
    );
    index_into(data.path(), &[logs.path()]);
    // Simulate a crash that left the master index unusable.
    fs::remove_dir_all(data.path().join("tantivy")).expect("remove master index");
    write_claude_session(
        &project,
        "00000000-0000-4000-8000-00000000000b",
        "second about narwhals",
    );
    index_into(data.path(), &[logs.path()]);
    let index = esker::search::SearchIndex::open_dir(&data.path().join("current/tantivy"))
        .expect("open published index");
    assert_eq!(index.document_count(), 2, "both sessions searchable");
}

#[test]
fn processes_opening_a_new_store_at_once_all_succeed() {
    let data = tempfile::tempdir().expect("temp dir");
    let data_dir = data.path().join("fresh");
    let data_dir_text = data_dir.to_str().expect("utf-8").to_string();
    let logs = tempfile::tempdir().expect("temp dir");
    let logs_text = logs.path().to_str().expect("utf-8").to_string();
    let children: Vec<_> = (0..6)
        .map(|_| {
            std::process::Command::new(crate::support::esker_bin())
                .args([
                    "index",
                    "-q",
                    "--wait",
                    "--data-dir",
                    &data_dir_text,
                    &logs_text,
                ])
                .env("HOME", "/nonexistent-esker-test-home")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn esker")
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("esker exits");
        assert!(output.status.success(), "{}", stderr_of(&output));
    }
    assert_eq!(query_count(&data_dir, "SELECT count(*) FROM events"), 0);
}

#[test]
fn a_second_writer_fails_clearly_or_waits_when_asked() {
    let (logs, data, project) = claude_workspace();
    write_claude_session(
        &project,
        "00000000-0000-4000-8000-00000000000c",
        "lock about ibises",
    );
    index_into(data.path(), &[logs.path()]);
    // A live writer (this test process) holds the lock.
    let lock = fs::OpenOptions::new()
        .write(true)
        .open(data.path().join("index.lock"))
        .expect("open lock file");
    lock.try_lock().expect("lock is free");
    fs::write(data.path().join("index.lock"), "pid 1234: test writer\n").expect("holder");
    write_claude_session(
        &project,
        "00000000-0000-4000-8000-00000000000d",
        "second ibises",
    );
    let data_arg = data.path().to_str().expect("utf-8");
    let logs_arg = logs.path().to_str().expect("utf-8");
    let refused = run_esker(&["index", "-q", "--data-dir", data_arg, logs_arg]);
    assert!(!refused.status.success());
    let message = stderr_of(&refused);
    assert!(
        message.contains("another esker writer (pid 1234: test writer)")
            && message.contains("--wait"),
        "{message}"
    );

    let child = std::process::Command::new(crate::support::esker_bin())
        .args(["index", "-q", "--wait", "--data-dir", data_arg, logs_arg])
        .env("HOME", "/nonexistent-esker-test-home")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn esker index");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        events_with_text(data.path(), "ibises").len(),
        1,
        "still waiting"
    );
    drop(lock);
    let output = child.wait_with_output().expect("index exits");
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert_eq!(events_with_text(data.path(), "ibises").len(), 2);
}

/// Every event row that matters for equality, in a stable order.
fn event_snapshot(data_dir: &Path) -> Vec<serde_json::Map<String, serde_json::Value>> {
    query_rows(
        data_dir,
        "SELECT event_id, session_id, turn_id, ordinal, seq, type, terminal, tool_name, exit_code, text \
         FROM events ORDER BY event_id",
    )
}

/// Feeds `source` into a live copy in five uneven pieces (cutting lines in half), indexing after
/// each piece, and checks the result equals indexing the whole file at once.
fn assert_incremental_equals_one_shot(source: &Path) {
    let bytes = fs::read(source).expect("read log");
    let live_logs = tempfile::tempdir().expect("temp dir");
    let live_data = tempfile::tempdir().expect("temp dir");
    let live_path = live_logs
        .path()
        .join(source.file_name().expect("file name"));
    let cuts: Vec<usize> = [0.13, 0.41, 0.58, 0.87, 1.0]
        .iter()
        .map(|fraction| ((bytes.len() as f64) * fraction) as usize)
        .collect();
    let mut written = 0;
    for cut in cuts {
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&live_path)
            .expect("open live log");
        file.write_all(&bytes[written..cut]).expect("append piece");
        written = cut;
        index_into(live_data.path(), &[live_logs.path()]);
    }
    let one_shot_data = tempfile::tempdir().expect("temp dir");
    index_into(one_shot_data.path(), &[live_logs.path()]);
    let incremental = event_snapshot(live_data.path());
    assert!(
        !incremental.is_empty(),
        "{} produced events",
        source.display()
    );
    assert_eq!(
        incremental,
        event_snapshot(one_shot_data.path()),
        "{}: appending in pieces must equal indexing once",
        source.display()
    );
    for sql in SUMMARY_TABLES_SQL {
        assert_eq!(
            query_rows(live_data.path(), sql),
            query_rows(one_shot_data.path(), sql),
            "{}: appending in pieces must equal indexing once: {sql}",
            source.display()
        );
    }
}

/// Every column of the summary tables, in a stable order.
const SUMMARY_TABLES_SQL: [&str; 3] = [
    "SELECT * FROM turns ORDER BY turn_id",
    "SELECT * FROM sessions ORDER BY session_id",
    "SELECT * FROM file_touches ORDER BY event_id, path",
];

/// Inode and row count of each Parquet file in `dir`, by file name.
fn parquet_file_rows(dir: &Path) -> std::collections::BTreeMap<String, (u64, usize)> {
    use std::os::unix::fs::MetadataExt;
    fs::read_dir(dir)
        .expect("table dir")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .map(|path| {
            let rows = esker::store::parquet_io::read_parquet(&path)
                .expect("read parquet")
                .iter()
                .map(|batch| batch.num_rows())
                .sum();
            let inode = fs::metadata(&path).expect("metadata").ino();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            (name, (inode, rows))
        })
        .collect()
}

/// The files of `after` whose inode was not in `before` (written, not linked), by name.
fn new_files(
    before: &std::collections::BTreeMap<String, (u64, usize)>,
    after: &std::collections::BTreeMap<String, (u64, usize)>,
) -> Vec<(String, usize)> {
    after
        .iter()
        .filter(|(_, (inode, _))| !before.values().any(|(old, _)| old == inode))
        .map(|(name, (_, rows))| (name.clone(), *rows))
        .collect()
}

const ACTIVE_SESSION: &str = "bbbbbbbb-0000-4000-8000-000000000001";

/// Line `n` of the active session: a prompt for even `n`, its answer for odd `n`.
fn active_session_line(n: usize) -> String {
    let uuid = format!("{ACTIVE_SESSION}-{n}");
    let parent = n
        .checked_sub(1)
        .map(|previous| format!("{ACTIVE_SESSION}-{previous}"));
    let timestamp = format!("2026-03-05T10:{n:02}:00.000Z");
    let line = if n.is_multiple_of(2) {
        serde_json::json!({
            "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": ACTIVE_SESSION,
            "timestamp": timestamp, "cwd": "/home/dev/app", "version": "2.0.50",
            "isSidechain": false, "userType": "external",
            "message": {"role": "user", "content": format!("question {n} about egrets")}
        })
    } else {
        serde_json::json!({
            "type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": ACTIVE_SESSION,
            "timestamp": timestamp, "cwd": "/home/dev/app", "version": "2.0.50",
            "isSidechain": false, "userType": "external",
            "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": format!("answer {n}")}],
                "stop_reason": "end_turn"}
        })
    };
    format!("{line}\n")
}

#[test]
fn a_bulk_commit_leaves_every_bucket_a_single_base_file() {
    let (logs, data, project) = claude_workspace();
    for n in 0..10 {
        write_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{n:012}"),
            &format!("prompt {n} about terns"),
        );
    }
    index_into(data.path(), &[logs.path()]);
    for n in 10..310 {
        write_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{n:012}"),
            &format!("prompt {n} about terns"),
        );
    }
    index_into(data.path(), &[logs.path()]);
    for table in ["turns", "sessions"] {
        let files = parquet_file_rows(&data.path().join("current").join(table));
        assert!(
            files.keys().all(|name| !name.contains("-h")),
            "{table}: {files:?}"
        );
        assert_eq!(
            files.values().map(|(_, rows)| rows).sum::<usize>(),
            310,
            "{table}"
        );
    }
}

#[test]
fn appends_write_only_the_new_events_and_then_only_the_hot_bucket_files() {
    let (logs, data, project) = claude_workspace();
    for n in 0..40 {
        write_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{n:012}"),
            &format!("prompt {n} about herons"),
        );
    }
    let active_log = project.join(format!("{ACTIVE_SESSION}.jsonl"));
    let append = |n: usize| {
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&active_log)
            .expect("open active log");
        file.write_all(active_session_line(n).as_bytes())
            .expect("append line");
    };
    append(0);
    append(1);
    index_into(data.path(), &[logs.path()]);
    let current = data.path().join("current");
    let partition = current.join("events/source=claude/month=2026-03");
    let table = |name: &str| parquet_file_rows(&current.join(name));

    let hot_files = |files: &std::collections::BTreeMap<String, (u64, usize)>| -> Vec<usize> {
        files
            .iter()
            .filter(|(name, _)| name.contains("-h"))
            .map(|(_, (_, rows))| *rows)
            .collect()
    };
    assert!(hot_files(&table("turns")).is_empty(), "no hot file yet");

    // The first update: the stored events stay, only the new one is written; the session
    // leaves its bucket's base file for the bucket's hot file.
    let (events_before, turns_before) = (parquet_file_rows(&partition), table("turns"));
    append(2);
    index_into(data.path(), &[logs.path()]);
    let assert_only_new_event_written =
        |before: &std::collections::BTreeMap<String, (u64, usize)>| {
            let after = parquet_file_rows(&partition);
            for (name, (inode, _)) in before {
                assert_eq!(
                    after.get(name).map(|(after, _)| after),
                    Some(inode),
                    "{name} is linked, not rewritten: {after:?}"
                );
            }
            let written: Vec<usize> = new_files(before, &after)
                .iter()
                .map(|(_, rows)| *rows)
                .collect();
            assert_eq!(
                written,
                [1],
                "only the appended event is written: {after:?}"
            );
        };
    assert_only_new_event_written(&events_before);
    let turns_mid = table("turns");
    assert_eq!(
        hot_files(&turns_mid),
        [2],
        "the session's two turns: {turns_mid:?}"
    );
    // The bucket's base is rewritten without the session (unless it held nothing else).
    assert!(
        (1..=2).contains(&new_files(&turns_before, &turns_mid).len()),
        "{turns_mid:?}"
    );
    assert_eq!(hot_files(&table("sessions")), [1]);

    // The next update: only the new event and the hot files are written.
    let (events_before, sessions_mid) = (parquet_file_rows(&partition), table("sessions"));
    append(3);
    index_into(data.path(), &[logs.path()]);
    assert_only_new_event_written(&events_before);
    for (before, after) in [
        (&turns_mid, table("turns")),
        (&sessions_mid, table("sessions")),
    ] {
        let written = new_files(before, &after);
        assert_eq!(written.len(), 1, "only the hot file is written: {after:?}");
        assert!(written[0].0.contains("-h"), "{written:?}");
    }

    // Identical to a store that saw the whole log at once.
    let clean = tempfile::tempdir().expect("temp dir");
    index_into(clean.path(), &[logs.path()]);
    assert_eq!(event_snapshot(data.path()), event_snapshot(clean.path()));
    for sql in SUMMARY_TABLES_SQL {
        assert_eq!(
            query_rows(data.path(), sql),
            query_rows(clean.path(), sql),
            "{sql}"
        );
    }
    assert_eq!(events_with_text(data.path(), "egrets").len(), 2);
}

#[test]
fn appending_in_pieces_equals_indexing_once() {
    let mut logs: Vec<std::path::PathBuf> = walkdir::WalkDir::new(fixtures_dir())
        .into_iter()
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .filter(|path| !path.to_string_lossy().contains("/subagents/"))
        // Sessions stored across several files have their own incremental tests
        // (`antigravity::…`, `sqlite_harnesses::…`).
        .filter(|path| esker::indexer::grouped::claim(path).is_none())
        // The Antigravity homes' shared indexes (`history.jsonl`) are not sessions.
        .filter(|path| !path.to_string_lossy().contains("/fixtures/antigravity/"))
        .collect();
    match corpus_dir() {
        Some(corpus) => logs.extend([
            corpus.join("codex/blubber_dotfiles/sessions/2026/02/07/rollout-2026-02-07T09-18-16-019c372e-2526-7e72-83e1-9cba8efad18d.jsonl"),
            corpus.join("claude/daaain_claude-code-log/projects/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"),
            corpus.join("gemini/wingorithm_Vibe-Coding-Comparison-Project/tmp/ticketing-vc/chats/session-2026-04-25T08-46-c737eb36.jsonl"),
        ]),
        None => eprintln!("SKIPPED: ../shared/corpus is absent; incremental check uses fixtures only"),
    }
    assert!(logs.len() >= 4, "fixtures of every JSONL format: {logs:?}");
    for log in logs {
        assert_incremental_equals_one_shot(&log);
    }
}

#[test]
fn gemini_json_caught_mid_rewrite_is_held_back_then_replaced_whole() {
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    let chats = logs.path().join("tmp/webapp/chats");
    fs::create_dir_all(&chats).expect("mkdir");
    let fixture =
        fixtures_dir().join("gemini/tmp/webapp/chats/session-2026-03-20T09-15-7c1e2a90.json");
    let original = fs::read_to_string(&fixture).expect("fixture");
    let live = chats.join("session-2026-03-20T09-15-7c1e2a90.json");
    fs::write(&live, &original).expect("write");
    index_into(data.path(), &[logs.path()]);
    let events_before = query_count(data.path(), "SELECT count(*) FROM events");

    // The CLI rewrites the whole file; a reader can catch it half-written.
    fs::write(&live, &original[..original.len() / 2]).expect("half rewrite");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("1 held back"), "{stderr}");
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        events_before
    );

    let mut session: serde_json::Value = serde_json::from_str(&original).expect("fixture JSON");
    session["messages"]
        .as_array_mut()
        .expect("messages")
        .push(serde_json::json!({
            "id": "9d8c7b6a-0000-4000-8000-00000000beef", "timestamp": "2026-03-20T10:00:00.000Z",
            "type": "user", "content": [{"text": "one more question about quokkas"}]
        }));
    fs::write(&live, serde_json::to_string_pretty(&session).expect("JSON")).expect("rewrite");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 1 new"), "{stderr}");
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        events_before + 1
    );
    assert_eq!(events_with_text(data.path(), "quokkas").len(), 1);
}

/// Issue #23 item 5: a file in the lean Claude Code layout that converters and retrieval
/// benchmarks write (no `uuid`/`parentUuid`) is indexed, searchable, and appending a line keeps
/// the ids of the earlier events (they derive from the session and the line).
#[test]
fn lean_claude_shaped_files_are_indexed_with_ids_from_session_and_line() {
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    let lean = |kind: &str, second: u32, text: &str| {
        serde_json::json!({"type": kind, "sessionId": "longmem-q17",
            "timestamp": format!("2024-03-01T10:00:{second:02}Z"),
            "message": {"role": kind, "content": text}})
        .to_string()
    };
    let path = logs.path().join("longmem-q17.jsonl");
    let first_lines = [
        lean("user", 1, "Where did I park the car on Tuesday?"),
        lean("assistant", 2, "In the north garage, level three."),
    ];
    fs::write(&path, format!("{}\n", first_lines.join("\n"))).expect("write");
    index_into(data.path(), &[logs.path()]);
    let ids_sql = "SELECT event_id FROM events ORDER BY seq";
    let first_ids = query_rows(data.path(), ids_sql);
    assert_eq!(first_ids.len(), 2, "{first_ids:?}");
    assert_eq!(
        query_count(
            data.path(),
            "SELECT count(*) FROM sessions WHERE session_id = 'session:claude-longmem-q17'"
        ),
        1
    );
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    writeln!(file, "{}", lean("user", 3, "And on Friday, which level?")).expect("append");
    index_into(data.path(), &[logs.path()]);
    let ids_after = query_rows(data.path(), ids_sql);
    assert_eq!(ids_after.len(), 3);
    assert_eq!(ids_after[..2], first_ids[..], "earlier ids are stable");
    let found = run_esker(&[
        "search",
        "--data-dir",
        data.path().to_str().expect("utf-8 path"),
        "--json",
        "which garage level did I park in",
    ]);
    assert!(found.status.success(), "{}", stderr_of(&found));
    assert!(String::from_utf8_lossy(&found.stdout).contains("north garage"));
}

/// Writes a two-record Claude session on 2026-03-DD, in a slug chain when `slug` is given.
fn write_dated_claude_session(project: &Path, native_id: &str, day: u32, slug: Option<&str>) {
    fs::create_dir_all(project).expect("mkdir");
    let lines: Vec<String> = ["user", "assistant"]
        .iter()
        .enumerate()
        .map(|(step, kind)| {
            let content = if *kind == "user" {
                serde_json::json!(format!("question about heron {native_id}"))
            } else {
                serde_json::json!([{"type": "text", "text": "an answer on egrets"}])
            };
            let mut record = serde_json::json!({
                "type": kind, "uuid": format!("{native_id}-{step}"),
                "parentUuid": if step == 0 { serde_json::Value::Null } else { serde_json::json!(format!("{native_id}-0")) },
                "sessionId": native_id, "timestamp": format!("2026-03-{day:02}T09:00:0{step}.000Z"),
                "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
                "message": {"role": kind, "content": content, "id": format!("msg-{native_id}-{step}")}
            });
            if let Some(slug) = slug {
                record["slug"] = serde_json::json!(slug);
            }
            record.to_string()
        })
        .collect();
    fs::write(
        project.join(format!("{native_id}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("write session");
}

const CHAIN_COLUMNS_SQL: &str = "SELECT native_id, previous_session_id, next_session_id, chain_id, \
     chain_slug, chain_number, chain_length FROM sessions ORDER BY native_id";

/// Inodes of the `sessions/` files of the current generation.
fn session_file_inodes(data_dir: &Path) -> std::collections::BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    fs::read_dir(data_dir.join("current/sessions"))
        .expect("sessions dir")
        .map(|entry| {
            let entry = entry.expect("entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, entry.metadata().expect("metadata").ino())
        })
        .collect()
}

#[test]
fn a_new_chain_member_committed_later_renumbers_the_chain_and_leaves_other_buckets_linked() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    for n in 0..60 {
        write_dated_claude_session(
            &project,
            &format!("00000000-0000-4000-8000-{n:012}"),
            1,
            None,
        );
    }
    let member = |n: u32| format!("aaaaaaaa-0000-4000-8000-00000000000{n}");
    write_dated_claude_session(&project, &member(1), 2, Some("quiet-river"));
    write_dated_claude_session(&project, &member(3), 6, Some("quiet-river"));
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let before = session_file_inodes(data.path());
    assert!(before.len() > 8, "sessions are bucketed: {before:?}");

    // A member that started between the two: the later one becomes number 3.
    write_dated_claude_session(&project, &member(2), 4, Some("quiet-river"));
    index_into(data.path(), &[logs.path()]);
    let chain = query_rows(
        data.path(),
        "SELECT native_id, session_id, previous_session_id, next_session_id, chain_id, \
         chain_number, chain_length, chain_slug FROM sessions WHERE chain_slug IS NOT NULL \
         ORDER BY chain_number",
    );
    let natives: Vec<&str> = chain
        .iter()
        .map(|row| row["native_id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(natives, [member(1), member(2), member(3)]);
    for (position, row) in chain.iter().enumerate() {
        assert_eq!(
            row["chain_number"],
            serde_json::json!(position + 1),
            "{row:?}"
        );
        assert_eq!(row["chain_length"], serde_json::json!(3), "{row:?}");
        assert_eq!(row["chain_slug"], serde_json::json!("quiet-river"));
        assert_eq!(row["chain_id"], chain[0]["session_id"], "{row:?}");
        let previous = position
            .checked_sub(1)
            .map(|at| chain[at]["session_id"].clone());
        let next = chain.get(position + 1).map(|row| row["session_id"].clone());
        // A null column is absent from a row.
        let column = |name: &str| row.get(name).cloned().unwrap_or_default();
        assert_eq!(
            column("previous_session_id"),
            previous.unwrap_or_default(),
            "{row:?}"
        );
        assert_eq!(
            column("next_session_id"),
            next.unwrap_or_default(),
            "{row:?}"
        );
    }

    // Identical to a store that saw every session at once.
    let clean = tempfile::tempdir().expect("temp dir");
    index_into(clean.path(), &[logs.path()]);
    assert_eq!(
        query_rows(data.path(), CHAIN_COLUMNS_SQL),
        query_rows(clean.path(), CHAIN_COLUMNS_SQL)
    );
    let after = session_file_inodes(data.path());
    // A rewritten bucket is a new base and hot file (`part-bNN-g…`, `part-bNN-h…`).
    let rewritten_buckets: std::collections::BTreeSet<&str> = after
        .iter()
        .filter(|(_, inode)| !before.values().any(|old| old == *inode))
        .map(|(name, _)| &name[..name.len().min("part-bNN".len())])
        .collect();
    assert!(
        rewritten_buckets.len() <= 3,
        "only the buckets of the new member and of the renumbered ones are rewritten: \
         {rewritten_buckets:?} of {after:?}"
    );
    // A later line in a chain member: the chain stays, its columns are carried onto the
    // member's new row.
    let line = serde_json::json!({
        "type": "user", "uuid": format!("{}-2", member(2)), "parentUuid": format!("{}-1", member(2)),
        "sessionId": member(2), "timestamp": "2026-03-04T09:30:00.000Z", "cwd": "/home/dev/app",
        "version": "2.0.50", "isSidechain": false, "slug": "quiet-river",
        "message": {"role": "user", "content": "one more question on herons"}
    });
    let mut log = fs::OpenOptions::new()
        .append(true)
        .open(project.join(format!("{}.jsonl", member(2))))
        .expect("open member log");
    log.write_all(format!("{line}\n").as_bytes())
        .expect("append line");
    index_into(data.path(), &[logs.path()]);
    let clean = tempfile::tempdir().expect("temp dir");
    index_into(clean.path(), &[logs.path()]);
    for sql in [
        CHAIN_COLUMNS_SQL,
        "SELECT * FROM sessions ORDER BY session_id",
    ] {
        assert_eq!(
            query_rows(data.path(), sql),
            query_rows(clean.path(), sql),
            "{sql}"
        );
    }
}

/// The line `esker index` lists for a legacy Qwen chat read with the other chats of its
/// session (`chats/session-<id>`, issue #48), or a line no listing holds for other files.
fn qwen_legacy_group(path: &Path, format: &str) -> String {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    match (format, name.rsplit_once('-')) {
        ("qwen_json", Some((_, suffix))) if name.starts_with("session-") => format!(
            "{format:<17}  {}",
            path.with_file_name(format!("session-{}", suffix.trim_end_matches(".json")))
                .display()
        ),
        _ => "\u{0}never listed".to_owned(),
    }
}

/// A first index reads the newest logs first (and, with small batches, commits them first):
/// the Codex fixtures, a day old, are listed before the Claude fixtures, a month old, although
/// their paths sort after them.
#[test]
fn a_first_index_reads_the_newest_logs_first() {
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    let older = logs.path().join("a-claude");
    let newer = logs.path().join("b-codex");
    crate::support::copy_tree(&fixtures_dir().join("claude"), &older);
    crate::support::copy_tree(&fixtures_dir().join("codex"), &newer);
    let now = std::time::SystemTime::now();
    let day = std::time::Duration::from_secs(86_400);
    for (tree, age) in [(&older, day * 30), (&newer, day)] {
        for entry in walkdir::WalkDir::new(tree) {
            let entry = entry.expect("walk");
            if entry.file_type().is_file() {
                let file = fs::File::options()
                    .write(true)
                    .open(entry.path())
                    .expect("open");
                file.set_modified(now - age).expect("set mtime");
            }
        }
    }
    let output = run_esker(&[
        "index",
        "--data-dir",
        data.path().to_str().unwrap(),
        "--batch-bytes",
        "1",
        logs.path().to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let listing = stderr_of(&output);
    let listed: Vec<&str> = listing
        .lines()
        .filter(|line| line.contains(".jsonl") || line.contains(".json "))
        .collect();
    let first_claude = listed.iter().position(|line| line.contains("/a-claude/"));
    let last_codex = listed.iter().rposition(|line| line.contains("/b-codex/"));
    match (first_claude, last_codex) {
        (Some(first_claude), Some(last_codex)) => assert!(
            last_codex < first_claude,
            "newest (codex) not listed first:\n{listing}"
        ),
        _ => panic!("both trees should be listed:\n{listing}"),
    }
}

#[test]
fn a_memory_limit_below_the_floor_is_refused_and_a_tight_one_loses_nothing() {
    let data = tempfile::tempdir().expect("temp dir");
    let data_dir = data.path().to_str().expect("utf-8 path");
    let fixtures = fixtures_dir();
    let fixtures = fixtures.to_str().expect("utf-8 path");
    let refused = run_esker(&[
        "index",
        "--data-dir",
        data_dir,
        "--memory-limit",
        "100",
        fixtures,
    ]);
    assert!(!refused.status.success());
    let stderr = stderr_of(&refused);
    assert!(
        stderr.contains("--memory-limit 100") && stderr.contains("at least 384 MB"),
        "{stderr}"
    );
    let limited = run_esker(&[
        "index",
        "--data-dir",
        data_dir,
        "--memory-limit",
        "384",
        fixtures,
    ]);
    assert!(limited.status.success(), "{}", stderr_of(&limited));
    let count = "SELECT count(*) AS n FROM events";
    assert_eq!(
        query_count(data.path(), count),
        query_count(fixture_store(), count),
        "a tight limit stores every event"
    );
}
