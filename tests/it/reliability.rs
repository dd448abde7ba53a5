//! Reliability: crashes at every commit point and `kill -9` loops lose and duplicate nothing,
//! a damaged store is rebuilt, hostile logs are counted and survived with bounded memory,
//! secrets never reach the tables or the index, and `esker index --watch` follows appends.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    esker_bin, fixture_store, fixtures_dir, index_into, query_count, query_rows, run_esker,
    stderr_of,
};

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// What must be equal between a store and a clean reference: every event id (and the rows
/// that hang off it), turn, session and file touch counts, and one search document per
/// searchable event.
#[derive(Debug, PartialEq)]
struct StoreContent {
    event_ids: Vec<String>,
    turns: i64,
    sessions: i64,
    file_touches: i64,
    search_documents: u64,
    searchable_events: i64,
}

fn store_content(data_dir: &Path) -> StoreContent {
    let event_ids = query_rows(data_dir, "SELECT event_id FROM events ORDER BY event_id")
        .into_iter()
        .map(|row| row["event_id"].as_str().unwrap_or_default().to_string())
        .collect();
    let store = esker::store::Store::open_existing(data_dir).expect("store opens");
    let snapshot = store.pin_current().expect("current generation");
    let index = esker::search::SearchIndex::open(&snapshot).expect("search index opens");
    StoreContent {
        event_ids,
        turns: query_count(data_dir, "SELECT count(*) FROM turns"),
        sessions: query_count(data_dir, "SELECT count(*) FROM sessions"),
        file_touches: query_count(data_dir, "SELECT count(*) FROM file_touches"),
        search_documents: index.document_count(),
        searchable_events: query_count(
            data_dir,
            "SELECT count(DISTINCT event_id) FROM events WHERE type <> 'unknown'",
        ),
    }
}

fn assert_no_duplicates(content: &StoreContent) {
    let mut unique = content.event_ids.clone();
    unique.dedup();
    assert_eq!(unique.len(), content.event_ids.len(), "duplicate event ids");
    assert_eq!(
        content.search_documents, content.searchable_events as u64,
        "one search document per searchable event"
    );
}

fn esker_index(data_dir: &Path, logs: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(esker_bin());
    command
        .args(["index", "-q", "--data-dir", path_arg(data_dir)])
        .args(extra)
        .arg(logs)
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_CRASH_AT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

#[test]
fn a_crash_at_any_commit_point_then_a_rerun_equals_a_clean_run() {
    let reference = store_content(fixture_store());
    assert_no_duplicates(&reference);
    assert!(!reference.event_ids.is_empty());
    let logs = fixtures_dir();
    for point in esker::store::faults::CRASH_POINTS {
        for nth in ["1", "3"] {
            let data = tempfile::tempdir().expect("temp dir");
            // Small batches: several commits, so the nth crash lands mid-run.
            let crashed = esker_index(data.path(), &logs, &["--batch-bytes", "6000"])
                .env("ESKER_CRASH_AT", format!("{point}:{nth}"))
                .output()
                .expect("esker runs");
            assert!(
                !crashed.status.success(),
                "{point}:{nth} did not crash: {}",
                stderr_of(&crashed)
            );
            let rerun = esker_index(data.path(), &logs, &[])
                .output()
                .expect("esker runs");
            assert!(
                rerun.status.success(),
                "rerun after {point}:{nth}: {}",
                stderr_of(&rerun)
            );
            assert_eq!(
                store_content(data.path()),
                reference,
                "after a crash at {point}:{nth}"
            );
        }
    }
}

#[test]
fn a_crash_while_restoring_the_search_index_then_a_rerun_equals_a_clean_run() {
    let reference = store_content(fixture_store());
    let logs = fixtures_dir();
    let data = tempfile::tempdir().expect("temp dir");
    // A crash after the master index committed but before the flip: the next run finds the
    // master ahead of the current generation and restores it from the published copy.
    let ahead = esker_index(data.path(), &logs, &["--batch-bytes", "6000"])
        .env("ESKER_CRASH_AT", "after-search-commit:2")
        .output()
        .expect("esker runs");
    assert!(!ahead.status.success(), "{}", stderr_of(&ahead));
    let published_files = fs::read_dir(data.path().join("current/tantivy"))
        .expect("published index")
        .count();
    assert!(published_files > 3, "{published_files} published files");
    // Crash after each file the restore copies in turn; each rerun must restore again.
    for nth in 1..published_files {
        let restoring = esker_index(data.path(), &logs, &[])
            .env(
                "ESKER_CRASH_AT",
                format!("{}:{nth}", esker::search::writer::RESTORE_CRASH_POINT),
            )
            .output()
            .expect("esker runs");
        assert!(
            !restoring.status.success(),
            "no crash after copied file {nth}: {}",
            stderr_of(&restoring)
        );
    }
    let rerun = esker_index(data.path(), &logs, &[])
        .output()
        .expect("esker runs");
    assert!(rerun.status.success(), "{}", stderr_of(&rerun));
    assert_eq!(store_content(data.path()), reference);
}

/// Writes `count` small Claude sessions (two turns each) under a project directory.
fn write_claude_sessions(project: &Path, count: usize) {
    fs::create_dir_all(project).expect("mkdir");
    for index in 0..count {
        let session_id = format!("00000000-0000-4000-8000-{index:012}");
        let lines: Vec<String> = (0..4)
            .map(|step| {
                let kind = if step % 2 == 0 { "user" } else { "assistant" };
                let content = if kind == "user" {
                    json!(format!("question {step} about heron {index}"))
                } else {
                    json!([{"type": "text", "text": format!("answer {step} on egret {index}")}])
                };
                json!({
                    "type": kind, "uuid": format!("{session_id}-{step}"),
                    "parentUuid": if step == 0 { Value::Null } else { json!(format!("{session_id}-{}", step - 1)) },
                    "sessionId": session_id, "timestamp": format!("2026-03-02T09:00:{step:02}.000Z"),
                    "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
                    "message": {"role": kind, "content": content,
                                "id": format!("msg-{index}-{step}")}
                })
                .to_string()
            })
            .collect();
        fs::write(
            project.join(format!("{session_id}.jsonl")),
            lines.join("\n") + "\n",
        )
        .expect("write session");
    }
}

#[test]
fn kill_9_at_random_moments_loses_and_duplicates_nothing() {
    let logs = tempfile::tempdir().expect("temp dir");
    write_claude_sessions(&logs.path().join("projects/-home-dev-app"), 120);
    let reference_dir = tempfile::tempdir().expect("temp dir");
    index_into(reference_dir.path(), &[logs.path()]);
    let reference = store_content(reference_dir.path());
    assert_no_duplicates(&reference);

    let rounds: u64 = std::env::var("ESKER_KILL_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(8);
    let data = tempfile::tempdir().expect("temp dir");
    let mut killed = 0;
    for round in 0..rounds {
        let mut child = esker_index(data.path(), logs.path(), &["--batch-bytes", "3000"])
            .spawn()
            .expect("spawn esker index");
        // Spread the kills over the run: early (opening), mid-commit, late.
        std::thread::sleep(Duration::from_millis(40 + (round * 97) % 600));
        if child.try_wait().expect("poll child").is_none() {
            child.kill().expect("SIGKILL");
            killed += 1;
        }
        let _ = child.wait();
    }
    eprintln!("kill loop: {killed} of {rounds} runs killed mid-way");
    let finish = esker_index(data.path(), logs.path(), &[])
        .output()
        .expect("esker runs");
    assert!(finish.status.success(), "{}", stderr_of(&finish));
    assert_eq!(store_content(data.path()), reference);
}

#[test]
fn a_damaged_store_says_how_to_recover_and_rebuild_restores_it() {
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[&fixtures_dir()]);
    let reference = store_content(data.path());
    let current = fs::read_link(data.path().join("current")).expect("current link");
    fs::remove_dir_all(data.path().join(&current)).expect("damage the store");

    let query = run_esker(&["query", "--data-dir", path_arg(data.path()), "SELECT 1"]);
    assert!(!query.status.success());
    assert!(
        stderr_of(&query).contains("esker index --rebuild"),
        "{}",
        stderr_of(&query)
    );
    let index = run_esker(&[
        "index",
        "--data-dir",
        path_arg(data.path()),
        path_arg(&fixtures_dir()),
    ]);
    assert!(
        !index.status.success(),
        "a plain index refuses a damaged store"
    );

    let rebuild = run_esker(&[
        "index",
        "--rebuild",
        "-q",
        "--data-dir",
        path_arg(data.path()),
        path_arg(&fixtures_dir()),
    ]);
    assert!(rebuild.status.success(), "{}", stderr_of(&rebuild));
    assert_eq!(store_content(data.path()), reference);
}

#[test]
fn a_missing_data_dir_is_a_clear_error_for_readers() {
    let missing = tempfile::tempdir()
        .expect("temp dir")
        .path()
        .join("nothing");
    let query = run_esker(&["query", "--data-dir", path_arg(&missing), "SELECT 1"]);
    assert!(!query.status.success());
    assert!(
        stderr_of(&query).contains("no esker store at")
            && stderr_of(&query).contains("esker index"),
        "{}",
        stderr_of(&query)
    );
    assert!(!missing.exists(), "a reader does not create a store");
}

#[test]
fn query_errors_are_messages_not_panics() {
    let data_dir = path_arg(fixture_store());
    for sql in [
        "SELEC nonsense",
        "SELECT no_such_column FROM events",
        "DROP TABLE events",
        "INSERT INTO sessions VALUES (1)",
        "COPY events TO '/tmp/esker-escape.csv'",
        "CREATE TABLE x AS SELECT 1",
        "",
        "SELECT 1; SELECT 2",
    ] {
        let output = run_esker(&["query", "--data-dir", data_dir, sql]);
        let stderr = stderr_of(&output);
        assert_eq!(output.status.code(), Some(2), "{sql}: {stderr}");
        assert!(
            stderr.starts_with("esker query: ") && !stderr.contains("panicked"),
            "{sql}: {stderr}"
        );
    }
    assert!(!Path::new("/tmp/esker-escape.csv").exists());
}

/// A Claude line; `timestamp` may be anything (or absent when `None`).
fn claude_line(session_id: &str, uuid: &str, timestamp: Option<Value>, text: &str) -> String {
    let mut line = json!({
        "type": "user", "uuid": uuid, "parentUuid": null, "sessionId": session_id,
        "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
        "message": {"role": "user", "content": text}
    });
    if let Some(timestamp) = timestamp {
        line["timestamp"] = timestamp;
    }
    line.to_string()
}

fn peak_memory_mb(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix("peak memory: "))
        .and_then(|rest| rest.trim_end_matches(" MB").parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line in {stderr}"))
}

/// Writes the hostile corpus; returns the Claude file whose lines are checked by number.
fn write_hostile_logs(root: &Path) -> PathBuf {
    let project = root.join("projects/-home-dev-app");
    fs::create_dir_all(&project).expect("mkdir");
    let session = "11111111-2222-4333-8444-555555555555";
    let mixed = project.join(format!("{session}.jsonl"));
    let lines = [
        claude_line(session, "h1", Some(json!("2026-03-02T09:00:00Z")), "first kittiwake"),
        "{not json at all".to_string(),
        "\u{0}\u{1}binary\u{7f} garbage \u{fffd}".to_string(),
        json!({"type": "mystery-record", "uuid": "h2", "sessionId": session}).to_string(),
        json!({"type": "user", "uuid": 42, "sessionId": session, "message": {"role": "user", "content": {"nested": [1, 2]}}, "timestamp": 7}).to_string(),
        claude_line(session, "h3", None, "no timestamp kittiwake"),
        claude_line(session, "h4", Some(json!("2026-03-02 09:05:00")), "naive time kittiwake"),
        claude_line(session, "h5", Some(json!(["wrong", "type"])), "array time kittiwake"),
        claude_line(session, "h6", Some(json!("2026-03-02T09:10:00Z")), "last kittiwake"),
    ];
    fs::write(&mixed, lines.join("\n") + "\n").expect("write mixed");

    // A Codex rollout with a 200 MB line between two good ones.
    let codex_dir = root.join("sessions/2026/03/02");
    fs::create_dir_all(&codex_dir).expect("mkdir");
    let codex =
        codex_dir.join("rollout-2026-03-02T09-00-00-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.jsonl");
    let mut file = fs::File::create(&codex).expect("create codex log");
    use std::io::Write;
    writeln!(file, "{}", json!({"timestamp": "2026-03-02T09:00:00Z", "type": "session_meta", "payload": {"id": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "timestamp": "2026-03-02T09:00:00Z", "cwd": "/home/dev/app", "originator": "codex_cli_rs", "cli_version": "0.116.0"}})).expect("write");
    let chunk = vec![b'x'; 1 << 20];
    file.write_all(b"{\"huge\":\"").expect("write");
    for _ in 0..200 {
        file.write_all(&chunk).expect("write");
    }
    file.write_all(b"\"}\n").expect("write");
    writeln!(file, "{}", json!({"timestamp": "2026-03-02T09:01:00Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "after the huge line comes a puffin"}]}})).expect("write");
    drop(file);

    // Truncated mid-line, binary junk, an empty file, a wrong-typed Gemini JSON.
    let truncated = project.join("22222222-2222-4333-8444-555555555555.jsonl");
    let whole = claude_line(
        "22222222-2222-4333-8444-555555555555",
        "t1",
        Some(json!("2026-03-02T09:00:00Z")),
        "truncated guillemot",
    );
    fs::write(
        &truncated,
        format!("{whole}\n{}", &whole[..whole.len() / 2]),
    )
    .expect("write");
    fs::write(root.join("junk.jsonl"), [0u8, 159, 146, 150, 255, 10, 0, 0]).expect("write");
    fs::write(root.join("empty.json"), b"").expect("write");
    let gemini_dir = root.join("tmp/app/chats");
    fs::create_dir_all(&gemini_dir).expect("mkdir");
    fs::write(
        gemini_dir.join("session-2026-03-02T09-00-badtypes.json"),
        json!({"sessionId": "badtypes", "projectHash": 12, "startTime": false, "lastUpdated": null,
               "messages": [{"id": 1, "type": "user", "content": 5, "timestamp": "2026-03-02T09:00:00Z"},
                            {"id": "m2", "type": "user", "content": "gemini gannet", "timestamp": "2026-03-02T09:01:00"},
                            "not an object"]})
        .to_string(),
    )
    .expect("write gemini");

    // A symlink loop and a dangling link.
    std::os::unix::fs::symlink(root, root.join("projects/loop")).expect("symlink loop");
    std::os::unix::fs::symlink(root.join("gone.jsonl"), root.join("dangling.jsonl"))
        .expect("dangling symlink");
    mixed
}

#[test]
fn hostile_logs_are_counted_reported_and_survived_in_bounded_memory() {
    let logs = tempfile::tempdir().expect("temp dir");
    let mixed = write_hostile_logs(logs.path());
    let data = tempfile::tempdir().expect("temp dir");
    let output = esker_index(data.path(), logs.path(), &[])
        .output()
        .expect("esker runs");
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "{stderr}");

    // Every skipped line is reported with its file and line.
    for line in [2, 3] {
        assert!(
            stderr.contains(&format!(
                "{}:{line}: malformed JSON line skipped",
                mixed.display()
            )),
            "line {line} reported: {stderr}"
        );
    }
    assert!(stderr.contains("exceeds the"), "{stderr}");
    assert!(stderr.contains("malformed lines: 3"), "{stderr}");
    assert!(
        stderr.contains("walk errors: 2"),
        "loop + dangling link: {stderr}"
    );
    // The 200 MB line was streamed past, never held.
    assert!(peak_memory_mb(&stderr) < 150, "{stderr}");

    let data_dir = data.path();
    let texts: Vec<String> = query_rows(data_dir, "SELECT text FROM events ORDER BY seq")
        .into_iter()
        .map(|row| row["text"].as_str().unwrap_or_default().to_string())
        .collect();
    for expected in [
        "first kittiwake",
        "no timestamp kittiwake",
        "naive time kittiwake",
        "array time kittiwake",
        "last kittiwake",
        "after the huge line comes a puffin",
        "truncated guillemot",
        "gemini gannet",
    ] {
        assert_eq!(
            texts.iter().filter(|text| text.contains(expected)).count(),
            1,
            "{expected} ingested once: {texts:?}"
        );
    }
    let naive = query_rows(
        data_dir,
        "SELECT CAST(timestamp AS VARCHAR) AS t FROM events WHERE text LIKE '%naive time kittiwake%'",
    );
    assert!(
        naive[0]["t"]
            .as_str()
            .unwrap_or_default()
            .starts_with("2026-03-02T09:05:00"),
        "a timestamp without timezone is read as UTC: {naive:?}"
    );

    // The truncated line is held back, then read once whole; a shrunk file replaces its rows.
    let truncated = logs
        .path()
        .join("projects/-home-dev-app/22222222-2222-4333-8444-555555555555.jsonl");
    let mut text = fs::read_to_string(&truncated).expect("read");
    let whole_first = text.split('\n').next().expect("first line").to_string();
    text = format!(
        "{whole_first}\n{}\n",
        claude_line(
            "22222222-2222-4333-8444-555555555555",
            "t2",
            Some(json!("2026-03-02T09:02:00Z")),
            "completed guillemot"
        )
    );
    fs::write(&truncated, &text).expect("complete the line");
    let again = esker_index(data_dir, logs.path(), &[])
        .output()
        .expect("runs");
    assert!(again.status.success(), "{}", stderr_of(&again));
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE text LIKE '%guillemot%'"
        ),
        2
    );
    fs::write(
        &mixed,
        claude_line(
            "11111111-2222-4333-8444-555555555555",
            "h1",
            Some(json!("2026-03-02T09:00:00Z")),
            "first kittiwake",
        ) + "\n",
    )
    .expect("shrink");
    let shrunk = esker_index(data_dir, logs.path(), &[])
        .output()
        .expect("runs");
    assert!(shrunk.status.success(), "{}", stderr_of(&shrunk));
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE text LIKE '%kittiwake%'"
        ),
        1,
        "the shrunk file's rows replace the old ones"
    );
    assert_no_duplicates(&store_content(data_dir));
}

#[test]
fn an_unreadable_file_is_reported_and_the_run_continues() {
    if std::env::var("USER").as_deref() == Ok("root") || is_root() {
        eprintln!("SKIPPED: running as root, which can read a mode-000 file");
        return;
    }
    let logs = tempfile::tempdir().expect("temp dir");
    write_claude_sessions(&logs.path().join("projects/-home-dev-app"), 2);
    let locked = logs.path().join("projects/-home-dev-app/locked.jsonl");
    fs::write(&locked, "{}\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    let data = tempfile::tempdir().expect("temp dir");
    let output = esker_index(data.path(), logs.path(), &[])
        .output()
        .expect("runs");
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("failed") && stderr.contains("locked.jsonl"),
        "{stderr}"
    );
    assert_eq!(query_count(data.path(), "SELECT count(*) FROM sessions"), 2);
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .map(|status| {
            status
                .lines()
                .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// One fake credential per kind, assembled at run time so this source holds none verbatim.
fn fake_secrets() -> Vec<(&'static str, String)> {
    let tail = "Q7v9Xk2Lm4Np6Rs8Tu0Wy1Za3Bc5De7Fg9Hj";
    vec![
        (
            "private_key",
            // Short body lines: tantivy drops tokens over 40 characters, and the test searches one.
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowQ7v9Xk2Lm4\nNp6Rs8Tu0Wy1Za3B\n-----END RSA PRIVATE KEY-----"
                .to_string(),
        ),
        ("aws_access_key", format!("AKIA{}", "QWERTYUIOPASDFGH")),
        (
            "github_token",
            format!("ghp_{}", &format!("{tail}{tail}")[..36]),
        ),
        ("gitlab_token", format!("glpat-{}", &tail[..20])),
        ("openai_api_key", format!("sk-proj-{tail}")),
        ("anthropic_api_key", format!("sk-ant-api03-{tail}")),
        (
            "google_api_key",
            format!("AIza{}", &format!("{tail}{tail}")[..35]),
        ),
        ("slack_token", format!("xoxb-1234567890-{}", &tail[..16])),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}",
                &tail[..24]
            ),
        ),
        (
            "bearer_token",
            format!("Authorization: Bearer {}", &tail[..30]),
        ),
        ("password", format!("password={}", "hunter2-correct-horse")),
        ("secret", format!("client_secret: \"{}\"", &tail[..20])),
    ]
}

/// The part of a fake secret that must never be stored (for assignments, the value).
fn secret_value(secret: &str) -> &str {
    for separator in ["Bearer ", "password=", "client_secret: \""] {
        if let Some((_, value)) = secret.split_once(separator) {
            return value.trim_end_matches('"');
        }
    }
    if secret.starts_with("-----BEGIN") {
        return &secret[32..48];
    }
    secret
}

#[test]
fn secrets_are_redacted_everywhere_unless_opted_out() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    fs::create_dir_all(&project).expect("mkdir");
    let session = "33333333-2222-4333-8444-555555555555";
    let secrets = fake_secrets();
    let mut lines = Vec::new();
    for (index, (kind, secret)) in secrets.iter().enumerate() {
        let uuid = format!("s{index}");
        // In a prompt, in a tool call's input, and in the tool's output.
        lines.push(claude_line(
            session,
            &format!("{uuid}-u"),
            Some(json!("2026-03-02T09:00:00Z")),
            &format!("use {secret} for {kind}"),
        ));
        lines.push(json!({
            "type": "assistant", "uuid": format!("{uuid}-a"), "parentUuid": format!("{uuid}-u"), "sessionId": session,
            "timestamp": "2026-03-02T09:00:01Z", "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
            "message": {"id": format!("msg-{index}"), "role": "assistant", "content": [
                {"type": "tool_use", "id": format!("toolu_{index}"), "name": "Bash", "input": {"command": format!("export TOKEN='{secret}'")}}]}
        }).to_string());
        lines.push(json!({
            "type": "user", "uuid": format!("{uuid}-r"), "parentUuid": format!("{uuid}-a"), "sessionId": session,
            "timestamp": "2026-03-02T09:00:02Z", "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{index}"), "content": format!("echo: {secret}")}]}
        }).to_string());
    }
    fs::write(
        project.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("write");

    let redacted = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(redacted.path(), &[logs.path()]);
    assert!(!stderr.contains("secrets redacted: 0"), "{stderr}");
    let plain = tempfile::tempdir().expect("temp dir");
    let output = esker_index(plain.path(), logs.path(), &["--no-redact"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr_of(&output));

    let all_text = "SELECT coalesce(text, '') || ' ' || coalesce(payload, '') AS blob FROM events";
    let stored = |data_dir: &Path| -> String {
        query_rows(data_dir, all_text)
            .into_iter()
            .map(|row| row["blob"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let redacted_text = stored(redacted.path());
    let plain_text = stored(plain.path());
    let redacted_index = search_index(redacted.path());
    let plain_index = search_index(plain.path());
    for (kind, secret) in &secrets {
        let value = secret_value(secret);
        assert!(plain_text.contains(value), "--no-redact keeps the {kind}");
        assert!(!redacted_text.contains(value), "{kind} stored: {value}");
        assert!(
            redacted_text.contains(&format!("[REDACTED:{kind}]")),
            "{kind} marker missing"
        );
        let token = search_token(value);
        assert!(
            search_hits(&plain_index, &token) > 0,
            "{kind}: {token} searchable without redaction"
        );
        assert_eq!(
            search_hits(&redacted_index, &token),
            0,
            "{kind}: {token} found by search"
        );
    }
}

fn search_index(data_dir: &Path) -> esker::search::SearchIndex {
    let store = esker::store::Store::open_existing(data_dir).expect("store");
    let snapshot = store.pin_current().expect("snapshot");
    esker::search::SearchIndex::open(&snapshot).expect("index")
}

/// The longest alphanumeric run of a secret: what a search for it would use.
fn search_token(value: &str) -> String {
    value
        .split(|character: char| !character.is_ascii_alphanumeric())
        .max_by_key(|part| part.len())
        .unwrap_or_default()
        .to_lowercase()
}

fn search_hits(index: &esker::search::SearchIndex, token: &str) -> usize {
    index
        .search(&esker::search::SearchQuery {
            text: token,
            session_id: None,
            turn_id: None,
            event_types: &esker::model::EventType::SEARCHABLE,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        })
        .expect("search runs")
        .hits
        .len()
}

#[test]
fn index_watch_follows_appends_within_seconds() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    write_claude_sessions(&project, 1);
    let data = tempfile::tempdir().expect("temp dir");
    let mut watcher = esker_index(data.path(), logs.path(), &["--watch"])
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn esker index --watch");
    let count_of = |needle: &str| {
        let sql = format!("SELECT count(*) FROM events WHERE text LIKE '%{needle}%'");
        let output = run_esker(&[
            "query",
            "--data-dir",
            path_arg(data.path()),
            "--format",
            "json",
            &sql,
        ]);
        if !output.status.success() {
            return 0;
        }
        let rows: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        rows[0]
            .as_object()
            .and_then(|row| row.values().next())
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let wait_for = |needle: &str| {
        let started = Instant::now();
        while started.elapsed() < crate::support::BACKGROUND_WAIT {
            if count_of(needle) > 0 {
                return Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    };
    assert!(wait_for("heron").is_some(), "the first pass ran");
    let log = project.join("00000000-0000-4000-8000-000000000000.jsonl");
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open");
    use std::io::Write;
    writeln!(
        file,
        "{}",
        claude_line(
            "00000000-0000-4000-8000-000000000000",
            "late-1",
            Some(json!("2026-03-02T09:09:00Z")),
            "a late cormorant"
        )
    )
    .expect("append");
    drop(file);
    let latency = wait_for("cormorant");
    let _ = watcher.kill();
    let _ = watcher.wait();
    let latency = latency.expect("the appended line was indexed by the watcher");
    eprintln!("watch latency (debug build, includes polling with esker query): {latency:?}");
}

/// Appends one more user/assistant exchange to a session written by `write_claude_sessions`.
fn append_exchange(log: &Path, session_id: &str, round: usize) {
    let user = format!("{session_id}-r{round}-u");
    let lines = [
        json!({"type": "user", "uuid": user, "parentUuid": null, "sessionId": session_id,
               "timestamp": format!("2026-03-02T10:{round:02}:00.000Z"), "cwd": "/home/dev/app",
               "version": "2.0.50", "isSidechain": false,
               "message": {"role": "user", "content": format!("round {round} heron follow-up")}}),
        json!({"type": "assistant", "uuid": format!("{session_id}-r{round}-a"), "parentUuid": user,
               "sessionId": session_id, "timestamp": format!("2026-03-02T10:{round:02}:01.000Z"),
               "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
               "message": {"id": format!("msg-r{round}"), "role": "assistant",
                           "content": [{"type": "text", "text": format!("heron answer {round}")}]}}),
    ];
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(log)
        .expect("open log");
    use std::io::Write;
    for line in lines {
        writeln!(file, "{line}").expect("append");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_see_consistent_snapshots_while_commits_land() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    write_claude_sessions(&project, 3);
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let client = crate::mcp::client::EskerClient::start(data.path()).await;

    let writer_data = data.path().to_path_buf();
    let writer_logs = logs.path().to_path_buf();
    let writer = std::thread::spawn(move || {
        for round in 0..12 {
            let session_id = format!("00000000-0000-4000-8000-{:012}", round % 3);
            append_exchange(
                &writer_logs.join(format!("projects/-home-dev-app/{session_id}.jsonl")),
                &session_id,
                round,
            );
            let output = esker_index(&writer_data, &writer_logs, &["--wait"])
                .output()
                .expect("esker runs");
            assert!(output.status.success(), "{}", stderr_of(&output));
        }
    });

    let mut checked_hits = 0;
    while !writer.is_finished() {
        let found = client
            .success("search_sessions", json!({"query": "heron", "n_hits": 20}))
            .await;
        for hit in found["data"]["results"].as_array().expect("results") {
            // Every hit opens, even if a commit landed since the search.
            let event_id = hit["open"]["event_id"].as_str().expect("event id");
            client.success("open", json!({"id": event_id})).await;
            let session_id = hit["open"]["session_id"].as_str().expect("session id");
            let session = client.success("open", json!({"id": session_id})).await;
            let turns = session["data"]["turns"].as_array().expect("turns");
            let summary = &session["data"]["session"];
            assert_eq!(
                turns.len() as u64,
                summary["turn_count"].as_u64().unwrap_or(0)
            );
            let events: u64 = turns
                .iter()
                .map(|turn| turn["event_count"].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(
                events,
                summary["event_count"].as_u64().unwrap_or(0),
                "{session:#}"
            );
            checked_hits += 1;
        }
    }
    writer.join().expect("writer thread");
    assert!(checked_hits > 0, "the reader ran while commits landed");
    let last = client
        .success("search_sessions", json!({"query": "answer 11"}))
        .await;
    assert!(
        last["data"]["result_count"].as_u64().unwrap_or(0) > 0,
        "last commit visible"
    );
}

#[test]
fn a_pinned_generation_outlives_later_commits_and_goes_once_released() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    write_claude_sessions(&project, 1);
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let store = esker::store::Store::open_existing(data.path()).expect("store");
    let pinned = store.pin_current().expect("pin");
    let session_id = "00000000-0000-4000-8000-000000000000";
    let log = project.join(format!("{session_id}.jsonl"));
    for round in 0..3 {
        append_exchange(&log, session_id, round);
        index_into(data.path(), &[logs.path()]);
    }
    assert!(store.current().expect("current").generation >= pinned.generation + 3);
    assert!(
        pinned.root.join("state.json").is_file(),
        "the pinned generation is still on disk after three commits"
    );
    let generation_dirs = || {
        fs::read_dir(data.path().join("generations"))
            .expect("generations")
            .filter(|entry| entry.as_ref().is_ok_and(|entry| entry.path().is_dir()))
            .count()
    };
    assert_eq!(generation_dirs(), 3, "current, previous and the pinned one");
    let pinned_root = pinned.root.clone();
    drop(pinned);
    append_exchange(&log, session_id, 3);
    index_into(data.path(), &[logs.path()]);
    assert!(
        !pinned_root.exists(),
        "released, then removed by the next commit"
    );
    assert_eq!(generation_dirs(), 2);
}

#[test]
fn a_store_of_an_older_format_is_refused_by_readers_and_rebuilt_by_the_indexer() {
    let data = tempfile::tempdir().expect("temp dir");
    let fixtures = fixtures_dir();
    // Indexed in two runs from two paths, as a user who added a harness later would.
    index_into(
        data.path(),
        &[&fixtures.join("codex"), &fixtures.join("claude")],
    );
    index_into(data.path(), &[&fixtures.join("gemini")]);
    let reference = store_content(data.path());
    let current = fs::canonicalize(data.path().join("current")).expect("current generation");
    fs::write(current.join("format"), "1\n").expect("age the store");

    let query = run_esker(&["query", "--data-dir", path_arg(data.path()), "SELECT 1"]);
    assert!(!query.status.success(), "a reader refuses an older format");
    let message = stderr_of(&query);
    assert!(
        message.contains("format 1") && message.contains("esker index --rebuild"),
        "{message}"
    );

    // A plain index of one path rebuilds everything the old store had indexed.
    index_into(data.path(), &[&fixtures.join("gemini")]);
    assert_eq!(store_content(data.path()), reference);
    let rebuilt = fs::canonicalize(data.path().join("current")).expect("current generation");
    assert_eq!(
        fs::read_to_string(rebuilt.join("format"))
            .expect("format marker")
            .trim(),
        esker::store::FORMAT_VERSION.to_string()
    );
}

/// The state shards of a generation, by file name, with their inodes.
fn state_shard_inodes(generation_root: &Path) -> std::collections::BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    fs::read_dir(generation_root.join("state"))
        .expect("state shards")
        .map(|entry| {
            let entry = entry.expect("entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, entry.metadata().expect("metadata").ino())
        })
        .collect()
}

/// The shards (`sNN`) holding the keys whose entries differ between two states.
fn shards_of_changed_keys(
    before: &esker::store::state::StoreState,
    after: &esker::store::state::StoreState,
) -> std::collections::BTreeSet<String> {
    use esker::store::state::shard_of;
    let checkpoints = before
        .checkpoints
        .keys()
        .chain(after.checkpoints.keys())
        .filter(|key| before.checkpoints.get(*key) != after.checkpoints.get(*key));
    let sessions = before
        .sessions
        .keys()
        .chain(after.sessions.keys())
        .filter(|key| before.sessions.get(*key) != after.sessions.get(*key));
    checkpoints
        .chain(sessions)
        .map(|key| format!("s{:02}", shard_of(key)))
        .collect()
}

#[test]
fn a_commit_writes_a_delta_of_each_state_shard_it_changes_and_links_every_other_file() {
    use esker::store::state::{STATE_SHARDS, StoreState};
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    // Enough sessions that every shard's base outweighs a delta of one entry.
    write_claude_sessions(&project, 400);
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let store = esker::store::Store::open_existing(data.path()).expect("store");
    let before = store.pin_current().expect("pin");
    let state_before = StoreState::load(&before.root).expect("state loads");
    assert_eq!(state_before.checkpoints.len(), 400);

    let session_id = "00000000-0000-4000-8000-000000000007";
    let log = project.join(format!("{session_id}.jsonl"));
    append_exchange(&log, session_id, 0);
    index_into(data.path(), &[logs.path()]);
    let after = store.current().expect("current");
    assert_eq!(after.generation, before.generation + 1, "one commit");
    let state_after = StoreState::load(&after.root).expect("state loads");

    let key = log.to_string_lossy().into_owned();
    assert_eq!(
        state_after.checkpoints[&key].size,
        fs::metadata(&log).expect("log").len(),
        "the appended file's checkpoint is the new one"
    );
    let changed = shards_of_changed_keys(&state_before, &state_after);
    assert!(
        changed.contains(&format!("s{:02}", esker::store::state::shard_of(&key))),
        "{changed:?}"
    );
    assert!(
        changed.len() <= 2,
        "one checkpoint, one session: {changed:?}"
    );
    let old_inodes = state_shard_inodes(&before.root);
    let new_inodes = state_shard_inodes(&after.root);
    assert_eq!(
        old_inodes.len(),
        STATE_SHARDS as usize,
        "a base file per shard"
    );
    for (name, inode) in &old_inodes {
        assert_eq!(new_inodes.get(name), Some(inode), "{name} is linked");
    }
    let written: Vec<&String> = new_inodes
        .keys()
        .filter(|name| !old_inodes.contains_key(*name))
        .collect();
    assert!(
        written.iter().all(|name| name.contains(".d")),
        "only deltas are written: {written:?}"
    );
    let written_shards: std::collections::BTreeSet<String> = written
        .iter()
        .map(|name| name.split('.').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        (written.len(), written_shards),
        (changed.len(), changed),
        "one delta per shard of a changed key"
    );
}
