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

use super::{assert_tools_paired, index_home, number, rows, texts};
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
struct Counts {
    sessions: i64,
    prompts: i64,
    context: i64,
    replies: i64,
    reasoning: i64,
    calls: i64,
    results: i64,
    failed: i64,
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

fn raw_counts(files: &[PathBuf]) -> Counts {
    let mut counts = Counts::default();
    for file in files {
        counts.sessions += 1;
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
                        counts.prompts += 1;
                    }
                }
                (Some("message"), Some("assistant")) => {
                    counts.replies += i64::from(!text_of(&record["content"]).is_empty());
                }
                (Some("reasoning"), _) => counts.reasoning += 1,
                (Some("function_call"), _) => counts.calls += 1,
                (Some("function_call_result"), _) => {
                    counts.results += 1;
                    let text = record["output"]["text"].as_str().unwrap_or_default();
                    let exit = text.rsplit_once("Exit Code: ").map(|(_, code)| code.trim());
                    let failed = provider["toolResult"]["error"].is_string()
                        || exit.is_some_and(|code| code != "0");
                    counts.failed += i64::from(failed);
                }
                _ => {}
            }
        }
    }
    counts
}

fn indexed_counts(dir: &Path, source: &str) -> Counts {
    let count = |sql: &str| number(dir, sql).unwrap_or_else(|| panic!("no count for {sql}"));
    let of = |condition: &str| {
        count(&format!(
            "SELECT count(*) FROM events WHERE {condition} AND session_id IN \
             (SELECT session_id FROM sessions WHERE source = '{source}')"
        ))
    };
    Counts {
        sessions: count(&format!(
            "SELECT count(*) FROM sessions WHERE source = '{source}'"
        )),
        prompts: of("type = 'user_input'"),
        context: of("type = 'system' AND subtype = 'context'"),
        replies: of("type = 'assistant_response'"),
        reasoning: of("type = 'reasoning'"),
        calls: of("type = 'tool_call'"),
        results: of("type = 'tool_response'"),
        failed: of("type = 'tool_response' AND subtype = 'error'"),
        model_calls: of("input_tokens IS NOT NULL"),
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
        Counts {
            sessions: 2,
            prompts: 3,
            context: 1,
            replies: 4,
            reasoning: 1,
            calls: 5,
            results: 5,
            failed: 2,
            model_calls: 8,
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(
        indexed_counts(dir, "codebuddy"),
        raw,
        "every record read once"
    );
    let workbuddy = transcripts(&home.path().join(".workbuddy-ai"));
    let raw_workbuddy = raw_counts(&workbuddy);
    assert_eq!(
        raw_workbuddy,
        Counts {
            sessions: 1,
            prompts: 1,
            context: 0,
            replies: 1,
            reasoning: 0,
            calls: 1,
            results: 1,
            failed: 0,
            model_calls: 2,
        }
    );
    assert_eq!(indexed_counts(dir, "workbuddy"), raw_workbuddy);
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
    let resume = |id: &str| {
        esker_at_home(
            home.path(),
            &["resume", "--print", "--data-dir", data_arg, id],
        )
    };
    let codebuddy_resume = resume(&main);
    assert!(
        codebuddy_resume.status.success(),
        "{}",
        stderr_of(&codebuddy_resume)
    );
    assert_eq!(
        stdout_of(&codebuddy_resume).trim(),
        format!("cd {cwd} && codebuddy -r {SESSION}")
    );
    let workbuddy_resume = resume(&format!("session:workbuddy-{WORKBUDDY}"));
    assert_eq!(workbuddy_resume.status.code(), Some(2));

    // `esker doctor` lists both homes with their sessions.
    let doctor = esker_at_home(home.path(), &["doctor", "--json", "--data-dir", data_arg]);
    assert!(doctor.status.success(), "{}", stderr_of(&doctor));
    let diagnosis: Value = serde_json::from_str(&stdout_of(&doctor)).expect("JSON");
    let location = |path: &Path| {
        diagnosis["locations"]
            .as_array()
            .expect("locations")
            .iter()
            .find(|location| location["path"] == path.to_str().expect("utf-8"))
            .unwrap_or_else(|| panic!("{} not listed: {diagnosis:#}", path.display()))
            .clone()
    };
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
        let found = location(&home.path().join(folder));
        assert_eq!(found["harness"], harness, "{found:#}");
        assert_eq!(found["exists"], true);
        assert_eq!(found["sessions"].as_u64(), Some(sessions), "{found:#}");
        assert_eq!(found["indexed_by_format"], json!({ format: sessions }));
        assert_eq!(found["skipped"], json!([]), "{found:#}");
    }
    let missing = location(&home.path().join(".workbuddy/projects"));
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
    let lines: Vec<&str> = text.lines().collect();
    // The first turn ends at its `turn-metrics` record.
    let first_turn = lines
        .iter()
        .position(|line| line.contains("\"turn-metrics\""))
        .expect("a finished turn")
        + 1;
    fs::write(&live, format!("{}\n", lines[..first_turn].join("\n"))).expect("head");
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let session = format!("session:codebuddy-{SESSION}");
    let events_of = |dir: &Path| {
        number(
            dir,
            &format!("SELECT count(*) FROM events WHERE session_id = '{session}'"),
        )
        .expect("count")
    };
    let before = events_of(data.path());

    fs::write(&live, &text).expect("append the second turn");
    let appended = index_home(home.path(), data.path());
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    let whole = events_of(one_shot.path());
    assert!(whole > before, "the second turn has events");
    assert!(
        appended.contains(&format!("events: {} new", whole - before)),
        "{appended}"
    );
    assert_eq!(events_of(data.path()), whole);
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");
}
