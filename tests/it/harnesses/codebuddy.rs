//! CodeBuddy Code (`codebuddy`) and WorkBuddy (`workbuddy`): a home holding
//! `tests/standalone-fixtures/codebuddy` as `~/.codebuddy` and `~/.workbuddy-ai`, indexed with no
//! PATH from the default locations. Every count is also taken from the raw records by this
//! test's own reading of the format (a prompt is a `user` `message` that is neither a repeat of
//! an earlier id nor flagged in `providerData`; a reply an `assistant` `message` with text; a call
//! a `function_call`; a result a `function_call_result`); the sessions carry their source in the
//! tables, `esker sessions` and `esker doctor`, the sub-agent names its session, CodeBuddy's
//! resume is `codebuddy -r`, and an appended turn adds exactly its events.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_no_resume, assert_rest_adds, assert_tools_paired, count_events, doctor,
    head_lines, index_home, indexed_counts, location, number, resume_line, rows, texts,
};
use crate::cli::{esker_at_home, stdout_of};
use crate::support::{copy_tree, standalone_fixture, stderr_of};

const SESSION: &str = "1b7c2f4e-5a6d-4e8f-9a0b-1c2d3e4f5a6b";
const AGENT: &str = "agent-a1b2c3d4";
const WORKBUDDY: &str = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f";

/// A temp home with the fixture's CodeBuddy and WorkBuddy AI homes.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("codebuddy");
    copy_tree(&fixture.join("codebuddy"), &home.path().join(".codebuddy"));
    copy_tree(
        &fixture.join("workbuddy-ai"),
        &home.path().join(".workbuddy-ai"),
    );
    home
}

fn transcripts(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(folder)
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect();
    found.sort();
    found
}

/// What the raw transcripts hold, counted from their records.
#[derive(Debug, Default, PartialEq)]
struct BuddyCounts {
    base: Counts,
    /// Injected context records.
    context: i64,
    /// Model calls with usage (records sharing a `providerData.messageId` are one call).
    model_calls: i64,
}

fn text_of(content: &Value) -> String {
    content
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .or_else(|| content.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn raw_counts(files: &[PathBuf]) -> BuddyCounts {
    let mut counts = BuddyCounts::default();
    for file in files {
        counts.base.sessions += 1;
        let mut user_ids = HashSet::new();
        let mut usage_ids = HashSet::new();
        for line in fs::read_to_string(file).expect("transcript").lines() {
            let record: Value = serde_json::from_str(line).expect("JSON line");
            let provider = &record["providerData"];
            let has_usage = ["usage", "rawUsage"]
                .iter()
                .any(|field| provider[field].is_object());
            if has_usage && usage_ids.insert(provider["messageId"].to_string()) {
                counts.model_calls += 1;
            }
            match (record["type"].as_str(), record["role"].as_str()) {
                (Some("message"), Some("user")) => {
                    if !user_ids.insert(record["id"].to_string()) {
                        continue;
                    }
                    if provider["isMeta"] == true {
                        counts.context += 1;
                    } else {
                        counts.base.prompts += 1;
                    }
                }
                (Some("message"), Some("assistant")) => {
                    counts.base.replies += i64::from(!text_of(&record["content"]).is_empty());
                }
                (Some("reasoning"), _) => counts.base.reasoning += 1,
                (Some("function_call"), _) => counts.base.calls += 1,
                (Some("function_call_result"), _) => {
                    counts.base.results += 1;
                    let text = record["output"]["text"].as_str().unwrap_or_default();
                    let exit = text.rsplit_once("Exit Code: ").map(|(_, code)| code.trim());
                    let failed = provider["toolResult"]["error"].is_string()
                        || exit.is_some_and(|code| code != "0");
                    counts.base.failed += i64::from(failed);
                }
                _ => {}
            }
        }
    }
    counts
}

fn buddy_counts(dir: &Path, source: &str) -> BuddyCounts {
    let sessions = format!("source = '{source}'");
    BuddyCounts {
        base: indexed_counts(dir, &sessions),
        context: count_events(dir, &sessions, "type = 'system' AND subtype = 'context'"),
        model_calls: count_events(dir, &sessions, "input_tokens IS NOT NULL"),
    }
}

#[test]
fn codebuddy_and_workbuddy_transcripts_are_read_whole() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in ["codebuddy_session=2", "workbuddy_session=1", "sessions: 3;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let codebuddy = transcripts(&home.path().join(".codebuddy"));
    let raw = raw_counts(&codebuddy);
    assert_eq!(
        raw,
        BuddyCounts {
            base: Counts {
                sessions: 2,
                prompts: 3,
                replies: 4,
                reasoning: 1,
                calls: 5,
                results: 5,
                failed: 2
            },
            context: 1,
            model_calls: 8
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(
        buddy_counts(dir, "codebuddy"),
        raw,
        "every record read once"
    );
    let workbuddy = transcripts(&home.path().join(".workbuddy-ai"));
    let raw_workbuddy = raw_counts(&workbuddy);
    assert_eq!(
        raw_workbuddy,
        BuddyCounts {
            base: Counts {
                sessions: 1,
                prompts: 1,
                replies: 1,
                reasoning: 0,
                calls: 1,
                results: 1,
                failed: 0
            },
            context: 0,
            model_calls: 2
        }
    );
    assert_eq!(buddy_counts(dir, "workbuddy"), raw_workbuddy);
    assert_tools_paired(dir);

    let sessions = rows(
        dir,
        "SELECT native_id, source, title, cwd, model, parent_session_id, turn_count \
         FROM sessions ORDER BY native_id",
    );
    let summary: Vec<Value> = sessions
        .iter()
        .map(|row| {
            let columns = [
                "native_id",
                "source",
                "title",
                "cwd",
                "model",
                "parent_session_id",
                "turn_count",
            ];
            let column = |name: &&str| row.get(*name).cloned().unwrap_or(Value::Null);
            Value::Array(columns.iter().map(column).collect())
        })
        .collect();
    let cwd = "/home/dev/src/heron";
    assert_eq!(
        summary,
        [
            json!([
                SESSION,
                "codebuddy",
                "Importer timezone fix",
                cwd,
                "hy3",
                null,
                2
            ]),
            json!([
                WORKBUDDY,
                "workbuddy",
                "Release notes summary",
                "c:\\Users\\dev\\notes",
                "hy3",
                null,
                1
            ]),
            json!([
                AGENT,
                "codebuddy",
                "List every function that parses dates",
                cwd,
                "hy3",
                format!("session:codebuddy-{SESSION}"),
                1
            ]),
        ]
    );

    // The user's words, not the rewrite or the IDE context around them.
    assert_eq!(
        texts(
            dir,
            "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
             WHERE e.type = 'user_input' ORDER BY s.native_id, e.seq"
        ),
        [
            "why does the heron importer drop rows?",
            "fix it, keep the offset",
            "summarise the release notes page",
            "List every function that parses dates",
        ]
    );
    let failed = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error' ORDER BY seq",
    );
    let failed: Vec<(Value, Value)> = failed
        .iter()
        .map(|row| {
            let column = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
            (column("tool_name"), column("exit_code"))
        })
        .collect();
    assert_eq!(
        failed,
        [(json!("Bash"), json!(1)), (json!("Edit"), Value::Null)],
        "the shell's `Exit Code: 1` and the edit's `toolResult.error`"
    );
    // Usage: the prompt count includes the cache reads; the call repeated on a reply and its
    // tool call counts once.
    let main = format!("session:codebuddy-{SESSION}");
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(12000 + 12600 + 13100 + 13500 + 13900 + 14800)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(cached_input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(9000 + 12000 + 12500 + 13000 + 13400 + 14000)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(reasoning_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(40)
    );

    // `esker sessions` filters by either source.
    let data_arg = dir.to_str().expect("utf-8");
    for (source, expected) in [
        (
            "codebuddy",
            vec![main.clone(), format!("session:codebuddy-{AGENT}")],
        ),
        ("workbuddy", vec![format!("session:workbuddy-{WORKBUDDY}")]),
    ] {
        let listed = esker_at_home(
            home.path(),
            &[
                "sessions",
                "--data-dir",
                data_arg,
                "--json",
                "--source",
                source,
            ],
        );
        assert!(listed.status.success(), "{}", stderr_of(&listed));
        let listed: Value = serde_json::from_str(&stdout_of(&listed)).expect("JSON");
        let mut ids: Vec<String> = listed["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .map(|item| item["id"].as_str().expect("id").to_string())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, expected, "{source}");
    }

    // CodeBuddy resumes in the session's directory; WorkBuddy has no resume command.
    assert_eq!(
        resume_line(home.path(), dir, &main),
        format!("cd {cwd} && codebuddy -r {SESSION}")
    );
    assert_no_resume(home.path(), dir, &format!("session:workbuddy-{WORKBUDDY}"));

    // `esker doctor` lists both homes with their sessions.
    let diagnosis = doctor(home.path(), dir);
    for (folder, harness, sessions, format) in [
        (
            ".codebuddy/projects",
            "codebuddy-code",
            2,
            "codebuddy_session",
        ),
        (
            ".workbuddy-ai/projects",
            "workbuddy",
            1,
            "workbuddy_session",
        ),
    ] {
        let found = location(&diagnosis, &home.path().join(folder));
        assert_eq!(found["harness"], harness, "{found:#}");
        assert_eq!(found["exists"], true);
        assert_eq!(found["sessions"].as_u64(), Some(sessions), "{found:#}");
        assert_eq!(found["indexed_by_format"], json!({ format: sessions }));
        assert_eq!(found["skipped"], json!([]), "{found:#}");
    }
    let missing = location(&diagnosis, &home.path().join(".workbuddy/projects"));
    assert_eq!(missing["exists"], false, "{missing:#}");
}

#[test]
fn an_appended_turn_adds_exactly_its_events() {
    let home = home_with_fixtures();
    let live = home
        .path()
        .join(".codebuddy/projects/home-dev-src-heron")
        .join(format!("{SESSION}.jsonl"));
    let text = fs::read_to_string(&live).expect("transcript");
    // The first turn ends at its `turn-metrics` record.
    let first_turn = text
        .lines()
        .position(|line| line.contains("\"turn-metrics\""))
        .expect("a finished turn")
        + 1;
    let head = head_lines(&text, first_turn);
    let session = format!("session_id = 'session:codebuddy-{SESSION}'");
    assert_rest_adds(home.path(), &live, (&head, &text), &session, |_, _| {});
}
