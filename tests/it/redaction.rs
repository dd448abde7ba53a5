//! Redaction end to end: a synthetic secret for every built-in rule (plus wrapped JWTs,
//! assignments and URL credentials), injected into realistic logs of each harness, never
//! reaches the tables, the search index or an MCP answer; a changed rule set re-redacts the
//! store on the next `esker index`; `esker redact --check` shows kinds and positions only;
//! the real corpus keeps its non-secrets (`redaction/corpus.rs`).

mod corpus;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::mcp::client::EskerClient;
use crate::support::{fixtures_dir, index_into, manifest_dir, query_rows, run_esker, stderr_of};

/// A secret as written in a log and the parts of it that must never be stored.
struct Planted {
    label: String,
    written: String,
    values: Vec<String>,
}

/// `src/redact/rules/examples.toml`: one synthetic true positive per built-in rule.
fn rule_examples() -> Vec<(String, String)> {
    let path = manifest_dir().join("src/redact/rules/examples.toml");
    let text = fs::read_to_string(&path).expect("examples.toml");
    let parsed: toml::Table = toml::from_str(&text).expect("examples.toml parses");
    let examples = parsed["examples"].as_table().expect("[examples]");
    examples
        .iter()
        .flat_map(|(id, list)| {
            list.as_array()
                .expect("a list")
                .iter()
                .map(|example| {
                    (
                        id.clone(),
                        example.as_str().expect("text").replace("@@", ""),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn planted_secrets() -> Vec<Planted> {
    let mut planted: Vec<Planted> = rule_examples()
        .into_iter()
        .map(|(id, secret)| Planted {
            label: id,
            written: secret.clone(),
            values: vec![secret],
        })
        .collect();
    let jwt = format!(
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6InNlcnZpY2Vfcm9sZSJ9.{}",
        "Kq3vX9mZ2LpW8sR4tY6uN1bC7dF5gH0jQeAoIiUyTr"
    );
    let pieces: Vec<String> = jwt
        .as_bytes()
        .chunks(32)
        .map(|chunk| String::from_utf8(chunk.to_vec()).expect("ascii"))
        .collect();
    planted.push(Planted {
        label: "wrapped jwt in a debug print".into(),
        written: format!(
            "Session {{\n    access_token: \"{}\",\n    expires_in: 3600,\n}}",
            pieces.join("\n")
        ),
        values: pieces.clone(),
    });
    let assignments = [
        ("env file", "DB_PASSWORD=Vq8rT2mX9zLk4", "Vq8rT2mX9zLk4"),
        (
            "yaml",
            "  client_secret: Hn5wQ1pZ7cVb3Ks",
            "Hn5wQ1pZ7cVb3Ks",
        ),
        (
            "json",
            "{\"stripe_api_key\": \"Wd4Gs8Lq2Tz6Xc9Vb\"}",
            "Wd4Gs8Lq2Tz6Xc9Vb",
        ),
        (
            "debug print",
            "Config { secret_key: \"Pm3Ry7Ua1Ei5Oo9Jx\" }",
            "Pm3Ry7Ua1Ei5Oo9Jx",
        ),
        (
            "weak name, random value",
            "export GITHUB_TOKEN=Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1",
            "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1",
        ),
        (
            "url credential",
            "DATABASE_URL=postgres://app:Tb6Nc2Vx8Mz4Lq@db.internal:5432/app",
            "Tb6Nc2Vx8Mz4Lq",
        ),
    ];
    planted.extend(assignments.iter().map(|(label, written, value)| Planted {
        label: (*label).to_string(),
        written: (*written).to_string(),
        values: vec![(*value).to_string()],
    }));
    planted
}

/// Keys whose string values are prose, prompts, commands or tool output in the fixtures.
const TEXT_KEYS: &[&str] = &[
    "text",
    "content",
    "output",
    "summary",
    "description",
    "message",
    "command",
    "arguments",
];

/// Appends `blob` to every text-like string of a log record; strings that hold JSON
/// (encoded tool arguments and outputs) are decoded, planted into and encoded again.
fn plant(value: &mut Value, parent_key: &str, blob: &str) {
    match value {
        Value::String(text) => {
            if let Ok(mut inner @ (Value::Object(_) | Value::Array(_))) =
                serde_json::from_str::<Value>(text)
            {
                plant(&mut inner, parent_key, blob);
                *text = inner.to_string();
            } else if TEXT_KEYS.contains(&parent_key) {
                text.push_str(blob);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| plant(item, parent_key, blob)),
        Value::Object(map) => map
            .iter_mut()
            .for_each(|(key, item)| plant(item, key, blob)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The fixture logs of every harness with the secrets planted in their texts.
fn write_planted_logs(root: &Path, blob: &str) {
    let fixtures = fixtures_dir();
    for entry in walkdir::WalkDir::new(&fixtures) {
        let entry = entry.expect("walk fixtures");
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = entry.path().strip_prefix(&fixtures).expect("inside");
        let target = root.join(relative);
        fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        // Binary fixtures are copied; the harnesses' SQLite stores get secrets planted in rows.
        let Ok(text) = fs::read_to_string(entry.path()) else {
            fs::copy(entry.path(), &target).expect("copy binary fixture");
            if SQLITE_STORES.contains(&entry.file_name().to_string_lossy().as_ref()) {
                plant_in_store(&target, blob);
            }
            continue;
        };
        if entry.file_name() == ".aider.chat.history.md" {
            fs::write(&target, plant_in_markdown(&text, blob)).expect("write planted log");
            continue;
        }
        let planted = match serde_json::from_str::<Value>(&text) {
            Ok(mut whole) if text.trim_end().contains('\n') => {
                plant(&mut whole, "", blob);
                serde_json::to_string_pretty(&whole).expect("json")
            }
            _ => {
                text.lines()
                    .map(|line| match serde_json::from_str::<Value>(line) {
                        Ok(mut record) => {
                            plant(&mut record, "", blob);
                            record.to_string()
                        }
                        Err(_) => line.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
                    + "\n"
            }
        };
        fs::write(&target, planted).expect("write planted log");
    }
}

/// The SQLite stores of the fixtures (OpenCode, Goose, Crush) whose rows get secrets planted.
const SQLITE_STORES: &[&str] = &["opencode.db", "sessions.db", "crush.db"];

/// Plants `blob` in every text cell of a (copied) SQLite store: JSON cells as in a log record,
/// plain cells when their column is text-like.
fn plant_in_store(database: &Path, blob: &str) {
    let connection = rusqlite::Connection::open(database).expect("open copied store");
    let tables: Vec<String> = connection
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .expect("tables")
        .query_map([], |row| row.get(0))
        .expect("tables")
        .collect::<Result<_, _>>()
        .expect("tables");
    for table in tables {
        let columns: Vec<String> = connection
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .expect("columns")
            .query_map([], |row| row.get(0))
            .expect("columns")
            .collect::<Result<_, _>>()
            .expect("columns");
        for column in columns {
            let cells: Vec<(i64, String)> = connection
                .prepare(&format!(
                    "SELECT rowid, \"{column}\" FROM \"{table}\" WHERE typeof(\"{column}\") = 'text'"
                ))
                .expect("cells")
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
                .expect("cells")
                .collect::<Result<_, _>>()
                .expect("cells");
            for (rowid, text) in cells {
                let mut value = Value::String(text.clone());
                plant(&mut value, &column, blob);
                if value.as_str() != Some(text.as_str()) {
                    connection
                        .execute(
                            &format!("UPDATE \"{table}\" SET \"{column}\" = ?1 WHERE rowid = ?2"),
                            rusqlite::params![value.as_str(), rowid],
                        )
                        .expect("plant cell");
                }
            }
        }
    }
}

/// An aider history with `blob` as reply text after every prompt.
fn plant_in_markdown(text: &str, blob: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut planted = String::new();
    for (index, line) in lines.iter().enumerate() {
        planted.push_str(line);
        planted.push('\n');
        let ends_prompt = line.starts_with("####")
            && !lines
                .get(index + 1)
                .is_some_and(|next| next.starts_with("####"));
        if ends_prompt {
            planted.push_str(&format!("\n{}\n\n", blob.trim()));
        }
    }
    planted
}

/// Every text column of every table, one string per source harness.
fn stored_text_by_source(data_dir: &Path) -> Vec<(String, String)> {
    let sql = "SELECT source, string_agg(coalesce(text, '') || ' ' || coalesce(payload, ''), '\n') AS blob \
               FROM events GROUP BY source ORDER BY source";
    let mut by_source: Vec<(String, String)> = query_rows(data_dir, sql)
        .into_iter()
        .map(|row| {
            (
                row["source"].as_str().unwrap_or_default().to_string(),
                row["blob"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    for table in ["sessions", "turns"] {
        let rows = query_rows(data_dir, &format!("SELECT * FROM {table}"));
        let text = serde_json::to_string(&rows).expect("json");
        by_source.push((table.to_string(), text));
    }
    by_source
}

/// The longest alphanumeric run tantivy indexes (≤ 40 characters) that is distinctive.
fn search_token(value: &str) -> Option<String> {
    value
        .split(|character: char| !character.is_ascii_alphanumeric())
        .filter(|part| (10..=40).contains(&part.len()))
        .max_by_key(|part| part.len())
        .map(str::to_lowercase)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn synthetic_secrets_of_every_rule_never_reach_tables_index_or_mcp() {
    let planted = planted_secrets();
    let blob: String = planted
        .iter()
        .map(|secret| format!("\n{}: {}\n", secret.label, secret.written))
        .collect();
    let logs = tempfile::tempdir().expect("temp dir");
    write_planted_logs(logs.path(), &blob);

    let plain = tempfile::tempdir().expect("temp dir");
    let output = run_esker(&[
        "index",
        "--no-redact",
        "--data-dir",
        plain.path().to_str().expect("utf-8"),
        logs.path().to_str().expect("utf-8"),
    ]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let plain_text = stored_text_by_source(plain.path());
    for harness in [
        "claude", "codex", "gemini", "copilot", "cursor", "qwen", "pi", "factory", "amp", "aider",
        "opencode", "goose", "crush", "cline", "roo",
    ] {
        let (_, text) = plain_text
            .iter()
            .find(|(source, _)| source == harness)
            .unwrap_or_else(|| panic!("no {harness} events"));
        for secret in &planted {
            for value in &secret.values {
                assert!(
                    text.contains(value),
                    "{harness}: {} not planted",
                    secret.label
                );
            }
        }
    }

    let redacted = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(redacted.path(), &[logs.path()]);
    assert!(!stderr.contains("secrets redacted: 0"), "{stderr}");
    for (source, text) in stored_text_by_source(redacted.path()) {
        for secret in &planted {
            for value in &secret.values {
                assert!(
                    !text.contains(value.as_str()),
                    "{source}: {} stored: {value}",
                    secret.label
                );
            }
        }
        // Sources read from binary stores (SQLite fixtures) had nothing planted.
        let was_planted = plain_text.iter().any(|(plain_source, plain)| {
            plain_source == &source
                && planted
                    .iter()
                    .any(|secret| secret.values.iter().any(|value| plain.contains(value)))
        });
        if was_planted {
            assert!(text.contains("[REDACTED:"), "{source} has markers");
        }
    }

    let client = EskerClient::start(redacted.path()).await;
    for secret in &planted {
        for token in secret.values.iter().filter_map(|value| search_token(value)) {
            let envelope = client
                .success("search_sessions", json!({"query": token, "event_types": ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response"]}))
                .await;
            assert_eq!(
                envelope["data"]["result_count"], 0,
                "{}: {token} found by search: {envelope:#}",
                secret.label
            );
        }
    }
    let ids = query_rows(
        redacted.path(),
        "SELECT event_id AS id FROM events UNION ALL SELECT DISTINCT turn_id AS id FROM events \
         UNION ALL SELECT DISTINCT session_id AS id FROM events",
    );
    assert!(ids.len() > 50, "fixtures have many events");
    for row in &ids {
        let id = row["id"].as_str().expect("id");
        let envelope = client.success("open", json!({"id": id})).await.to_string();
        for secret in &planted {
            for value in &secret.values {
                assert!(
                    !envelope.contains(value.as_str()),
                    "open({id}) shows {}",
                    secret.label
                );
            }
        }
    }
}

#[test]
fn a_new_rules_version_re_redacts_the_store_and_is_recorded() {
    let logs = tempfile::tempdir().expect("temp dir");
    let project = logs.path().join("projects/-home-dev-app");
    fs::create_dir_all(&project).expect("mkdir");
    let session = "44444444-2222-4333-8444-555555555555";
    let secret = "acme_live_Zx9Qw8Er7Ty6Ui5O";
    let line = json!({
        "type": "user", "uuid": "u1", "sessionId": session, "timestamp": "2026-03-02T09:00:00Z",
        "cwd": "/home/dev/app", "version": "2.0.50", "isSidechain": false,
        "message": {"role": "user", "content": format!("deploy with {secret} please")}
    });
    fs::write(
        project.join(format!("{session}.jsonl")),
        format!("{line}\n"),
    )
    .expect("write");
    let rules = logs.path().join("acme.toml");
    fs::write(
        &rules,
        "[[rules]]\nid = \"acme-key\"\nregex = '''\\b(acme_live_[A-Za-z0-9]{16})\\b'''\nkeywords = [\"acme_live_\"]\n",
    )
    .expect("write rules");
    let data = tempfile::tempdir().expect("temp dir");
    let data_arg = data.path().to_str().expect("utf-8");
    let logs_arg = project.to_str().expect("utf-8");
    let texts = || -> String {
        query_rows(data.path(), "SELECT text FROM events")
            .iter()
            .map(|row| row["text"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let state_rules = || -> String {
        let state = fs::read_to_string(data.path().join("current/state.json")).expect("state");
        let state: Value = serde_json::from_str(&state).expect("json");
        state["redaction_rules"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    index_into(data.path(), &[&project]);
    assert!(
        texts().contains(secret),
        "the built-in rules do not know acme keys"
    );
    let builtin_version = state_rules();
    assert!(builtin_version.starts_with('v'), "{builtin_version}");

    let with_rules = |extra: &[&str]| {
        let mut args = vec!["index", "--data-dir", data_arg];
        args.extend(extra);
        args.push(logs_arg);
        let output = run_esker(&args);
        assert!(output.status.success(), "{}", stderr_of(&output));
        stderr_of(&output)
    };
    let rules_arg = rules.to_str().expect("utf-8");
    with_rules(&["--rules", rules_arg]);
    assert!(!texts().contains(secret), "re-redacted with the new rules");
    assert!(texts().contains("[REDACTED:acme_key]"));
    let extended_version = state_rules();
    assert_ne!(extended_version, builtin_version);

    // Same rules again: nothing is re-read.
    let before = fs::read_link(data.path().join("current")).expect("current link");
    with_rules(&["--rules", rules_arg]);
    let after = fs::read_link(data.path().join("current")).expect("current link");
    assert_eq!(before, after, "an unchanged pass commits nothing");
    assert_eq!(state_rules(), extended_version);
}

#[test]
fn redact_check_prints_kinds_and_positions_but_never_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let secret = format!("ghp_{}", "Q7v9Xk2Lm4Np6Rs8Tu0Wy1Za3Bc5De7Fg9Hj");
    let log = dir.path().join("session.jsonl");
    fs::write(
        &log,
        format!(
            "{}\n{}\n",
            json!({"type": "user", "message": {"content": format!("use {secret}")}}),
            json!({"type": "user", "message": {"content": "nothing here"}})
        ),
    )
    .expect("write");
    let clean = dir.path().join("clean.jsonl");
    fs::write(&clean, "{\"text\":\"no secrets\"}\n").expect("write");
    let log_arg = log.to_str().expect("utf-8");
    let output = run_esker(&["redact", "--check", log_arg]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{}", stderr_of(&output));
    assert_eq!(
        stdout.trim(),
        format!("{log_arg}: line 1 /message/content bytes 4..44: github_token")
    );
    assert!(!stdout.contains(&secret) && !stderr_of(&output).contains(&secret));
    let output = run_esker(&["redact", "--check", clean.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout.is_empty());
    let output = run_esker(&["redact", "--check", "/nonexistent/log.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
}
