//! The Kiro IDE's chats before 1.0 (`kiro`, format `kiro_ide`): a home holding
//! `tests/standalone-fixtures/kiro-ide/kiro.kiroagent` (hand-made in the shapes public readers
//! document, see its README) at its Linux place, `~/.config/Kiro/User/globalStorage`, indexed
//! with no PATH. Every count is also taken from the raw files by this test's own reading: a
//! prompt is a history `user` message with words, the last `input.data.messages` entry of an
//! execution log no history names (unless its session's history already ends with those
//! words), or a chat `human` entry that is neither the system prompt nor steering rules; a reply
//! a `say` action with words, an `assistant` message (else its `promptLogs` completion) whose
//! execution log has no `say`, or a chat `bot` entry other than the acknowledgement; a call a
//! tool action, a result a tool action's `output`, a history `tool` message or a chat `tool`
//! entry, failed on a non-zero `Exit Code`; only the fullest snapshot of an execution's chat,
//! and no chat of an execution whose log is read. The extension's own files (its settings, its
//! dev data) are never read nor listed as skipped, `esker doctor` lists the folder, the sessions
//! have no resume command, a new execution log adds exactly its events, and a half-written one
//! is skipped with a counted warning until it is whole.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use super::{
    Counts, assert_no_resume, count_events, doctor_location, index_home, indexed_counts, number,
    rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

/// The extension's folder in the home (Linux).
const STORE: &str = ".config/Kiro/User/globalStorage/kiro.kiroagent";
/// A workspace's execution logs folder.
const EXECUTIONS: &str = "414d1636299d2b9e4ce7e17fb11f63e9";
/// The workspace folder of `/home/dev/src/heron` (its sessions listed in `workspace-sessions`).
const HERON: &str = "0a7d856b6cb6f14fc43bd1d559cee43e";
/// The workspace folder of `/home/dev/src/egret` (execution logs only).
const EGRET: &str = "82f1ca04ab3dcad983515b043cd6dd50";
/// Sessions of the heron index.
const FIX: &str = "7d3f2a10-4c5b-4e6f-8a9b-0c1d2e3f4a5b";
const LOGS: &str = "8e4a3b21-5d6c-4f70-9bac-1d2e3f4a5b6c";
/// The egret logs' `chatSessionId`.
const MODULES: &str = "9f5b4c32-6e7d-4081-8cbd-2e3f4a5b6c7d";
/// Kiro's sessions in the store.
const KIRO: &str = "source = 'kiro'";

/// How the system prompt and rules Kiro sends as `human` chat entries begin.
const SYSTEM_PREFIXES: [&str; 5] = [
    "# System Prompt",
    "# Identity",
    "<identity>",
    "## Included Rules",
    "You are operating in a workspace",
];
const TOOL_ACTIONS: [&str; 7] = [
    "readCode",
    "readFile",
    "readFiles",
    "replace",
    "create",
    "runCommand",
    "mcp",
];

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("kiro-ide").join("kiro.kiroagent"),
        &home.path().join(STORE),
    );
    home
}

/// The store's files as this test reads them.
#[derive(Default)]
struct RawStore {
    executions: Vec<Value>,
    session_files: Vec<Value>,
    /// The ids `sessions.json` and the session files list.
    listed: BTreeSet<String>,
    /// Every chat snapshot.
    chats: Vec<Value>,
    /// Files of those kinds that are not JSON.
    unreadable: i64,
}

fn raw_store(store: &Path) -> RawStore {
    let mut raw = RawStore::default();
    for entry in walkdir::WalkDir::new(store).sort_by_file_name() {
        let path = entry.expect("walk").into_path();
        if !path.is_file() {
            continue;
        }
        let name_of = |path: Option<&Path>| {
            path.and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let folder = name_of(path.parent());
        let above = name_of(path.parent().and_then(Path::parent));
        let name = name_of(Some(path.as_path()));
        let is_execution = folder == EXECUTIONS;
        let is_chat = name.ends_with(".chat");
        let is_session = above == "workspace-sessions" && name.ends_with(".json");
        if !(is_execution || is_chat || is_session) {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(&fs::read_to_string(&path).expect("read"))
        else {
            raw.unreadable += 1;
            continue;
        };
        if is_execution {
            raw.executions.push(value);
        } else if is_chat {
            raw.chats.push(value);
        } else if name == "sessions.json" {
            let ids = value.as_array().into_iter().flatten();
            raw.listed
                .extend(ids.filter_map(|entry| entry["sessionId"].as_str().map(str::to_string)));
        } else {
            raw.listed
                .extend(value["sessionId"].as_str().map(str::to_string));
            raw.session_files.push(value);
        }
    }
    raw
}

/// The words of a content value: a string, or its `text` blocks.
fn words(content: &Value) -> String {
    match content {
        Value::String(text) => text.trim().to_string(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        _ => String::new(),
    }
}

fn actions(log: &Value) -> impl Iterator<Item = &Value> {
    log["actions"].as_array().into_iter().flatten()
}

/// The `say` actions of a log that have words.
fn says(log: &Value) -> i64 {
    actions(log)
        .filter(|action| action["actionType"] == "say")
        .filter(|action| !words(&action["output"]["message"]).is_empty())
        .count() as i64
}

/// The last `input.data.messages` entry's words.
fn prompt_of(log: &Value) -> String {
    log["input"]["data"]["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .map(|message| words(&message["content"]))
        .unwrap_or_default()
}

/// The exit code a command's output reports (`Exit Code: N`).
fn exit_code(text: &str) -> Option<i64> {
    let (_, rest) = text.rsplit_once("Exit Code:")?;
    rest.trim().parse().ok()
}

fn id_of(log: &Value) -> String {
    log["executionId"].as_str().unwrap_or("").to_string()
}

/// The entries of a chat snapshot.
fn entries(chat: &Value) -> usize {
    chat["chat"].as_array().map_or(0, Vec::len)
}

/// This test's own counts of the store, and the actions that are neither replies nor tools.
fn raw_counts(raw: &RawStore) -> (Counts, i64) {
    let mut counts = Counts::default();
    let mut unknown = 0;
    let by_id: BTreeMap<String, &Value> =
        raw.executions.iter().map(|log| (id_of(log), log)).collect();
    let named: HashSet<String> = raw
        .session_files
        .iter()
        .flat_map(|file| file["history"].as_array().into_iter().flatten())
        .filter_map(|entry| entry["executionId"].as_str().map(str::to_string))
        .collect();

    // Every execution log is read once: its `say` actions are replies, its tool actions calls.
    for log in &raw.executions {
        counts.replies += says(log);
        for action in actions(log) {
            let kind = action["actionType"].as_str().unwrap_or("");
            if TOOL_ACTIONS.contains(&kind) {
                counts.calls += 1;
                let output = &action["output"];
                if output.as_object().is_some_and(|fields| !fields.is_empty()) {
                    counts.results += 1;
                    let text = output["response"]
                        .as_str()
                        .or(output["message"].as_str())
                        .unwrap_or("");
                    let failed =
                        kind == "runCommand" && exit_code(text).is_some_and(|code| code != 0);
                    counts.failed += i64::from(failed);
                }
            } else if kind != "say" {
                unknown += 1;
            }
        }
    }

    // The listed sessions: their histories, then the logs of theirs no history names.
    counts.sessions += raw.listed.len() as i64;
    for file in &raw.session_files {
        let history = file["history"].as_array().cloned().unwrap_or_default();
        for entry in &history {
            let message = &entry["message"];
            let text = words(&message["content"]);
            match message["role"].as_str() {
                Some("user") => counts.prompts += i64::from(!text.is_empty()),
                Some("assistant") => {
                    let said = entry["executionId"]
                        .as_str()
                        .and_then(|id| by_id.get(id))
                        .is_some_and(|log| says(log) > 0);
                    let completion = entry["promptLogs"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|log| !words(&log["completion"]).is_empty());
                    counts.replies += i64::from(!said && (!text.is_empty() || completion));
                }
                Some("tool") => counts.results += i64::from(!text.is_empty()),
                _ => {}
            }
        }
        let waiting = history
            .last()
            .filter(|entry| entry["message"]["role"] == "user")
            .map(|entry| words(&entry["message"]["content"]));
        let mut own: Vec<&Value> = raw
            .executions
            .iter()
            .filter(|log| log["chatSessionId"] == file["sessionId"] && !named.contains(&id_of(log)))
            .collect();
        own.sort_by_key(|log| log["startTime"].as_i64());
        for (index, log) in own.iter().enumerate() {
            let prompt = prompt_of(log);
            let repeated = index == 0 && waiting.as_deref() == Some(prompt.as_str());
            counts.prompts += i64::from(!prompt.is_empty() && !repeated);
        }
    }

    // The other logs: a session per `chatSessionId`, a turn each.
    let mut unlisted = BTreeSet::new();
    for log in &raw.executions {
        let session = log["chatSessionId"].as_str().unwrap_or("").to_string();
        if named.contains(&id_of(log)) || raw.listed.contains(&session) {
            continue;
        }
        unlisted.insert(session);
        counts.prompts += i64::from(!prompt_of(log).is_empty());
    }
    counts.sessions += unlisted.len() as i64;

    // The chats: the fullest snapshot of each execution whose log is not read.
    let mut fullest: BTreeMap<String, &Value> = BTreeMap::new();
    for chat in &raw.chats {
        let execution = chat["executionId"].as_str().unwrap_or("").to_string();
        if by_id.contains_key(&execution) {
            continue;
        }
        if fullest
            .get(&execution)
            .is_none_or(|kept| entries(chat) > entries(kept))
        {
            fullest.insert(execution, chat);
        }
    }
    counts.sessions += fullest.len() as i64;
    for chat in fullest.values() {
        for entry in chat["chat"].as_array().into_iter().flatten() {
            let text = words(&entry["content"]);
            match entry["role"].as_str() {
                Some("human") => {
                    let system = SYSTEM_PREFIXES
                        .iter()
                        .any(|prefix| text.starts_with(prefix));
                    let unwrapped = text
                        .trim_start_matches("<kiro-ide-message>")
                        .trim_end_matches("</kiro-ide-message>")
                        .trim();
                    counts.prompts += i64::from(!system && !unwrapped.is_empty());
                }
                Some("bot") => {
                    let acknowledgement = text == "I will follow these instructions.";
                    counts.replies += i64::from(!acknowledgement && !text.is_empty());
                }
                Some("tool") => counts.results += i64::from(!text.is_empty()),
                _ => {}
            }
        }
    }
    (counts, unknown)
}

fn session_id(native_id: &str) -> String {
    format!("session:kiro-{native_id}")
}

/// The texts of one session's events of `kind`, in order.
fn texts_of(dir: &Path, native_id: &str, kind: &str) -> Vec<String> {
    texts(
        dir,
        &format!(
            "SELECT text FROM events WHERE type = '{kind}' AND session_id = '{}' ORDER BY seq",
            session_id(native_id)
        ),
    )
}

#[test]
fn kiro_ide_chats_are_read_per_workspace_from_their_logs_sessions_and_chats() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let store = home.path().join(STORE);
    let raw = raw_store(&store);
    let (counts, unknown) = raw_counts(&raw);
    assert_eq!(
        (counts, unknown, raw.unreadable),
        (
            Counts {
                sessions: 5,
                prompts: 10,
                replies: 11,
                reasoning: 0,
                calls: 7,
                results: 4,
                failed: 1,
            },
            1,
            0
        ),
        "the fixture, as this test reads it"
    );
    assert!(stderr.contains("kiro_ide=3"), "three workspaces: {stderr}");
    assert!(stderr.contains("malformed lines: 0;"), "{stderr}");
    assert_eq!(indexed_counts(dir, KIRO), counts, "every record read once");
    assert_eq!(
        count_events(dir, KIRO, "type = 'unknown' AND subtype = 'model'"),
        unknown,
        "an action of another type is kept"
    );
    assert_eq!(
        count_events(
            dir,
            KIRO,
            "type = 'runtime' AND subtype = 'aborted' AND terminal"
        ),
        1,
        "the aborted execution ends its turn"
    );

    // Titles from the index; the working directory from it, else from the logs; the model
    // only from a chat's metadata.
    let facts: Vec<Value> = rows(
        dir,
        "SELECT native_id, cwd, model FROM sessions WHERE source = 'kiro' ORDER BY native_id",
    )
    .into_iter()
    .map(Value::Object)
    .collect();
    let kestrel = "9346323c9d0422b759ce9c125f4e4678";
    assert_eq!(
        facts,
        [
            json!({"native_id": FIX, "cwd": "/home/dev/src/heron"}),
            json!({"native_id": LOGS, "cwd": "/home/dev/src/heron"}),
            json!({"native_id": format!("{kestrel}-exec-k1"), "model": "claude-sonnet-4"}),
            json!({"native_id": format!("{kestrel}-exec-k2"), "model": "claude-opus-4"}),
            json!({"native_id": MODULES, "cwd": "/home/dev/src/egret"}),
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!("SELECT title FROM sessions WHERE native_id = '{FIX}'")
        ),
        ["Fix the heron parse test"]
    );

    // The history's prompts; the replies of the logs it names, its stub for the log with no
    // `say`, the completion of the turn with no log.
    assert_eq!(
        texts_of(dir, FIX, "user_input"),
        [
            "Why does `cargo test` fail in heron?",
            "Yes, trim it.",
            "Thanks, that is all."
        ]
    );
    assert_eq!(
        texts_of(dir, FIX, "assistant_response"),
        [
            "Let me read the failing test.",
            "The header parser keeps a trailing space. Shall I trim it?",
            "On it.",
            "Glad the parse test passes now."
        ]
    );
    // The running turn's log adds its reply, not its prompt again.
    assert_eq!(
        texts_of(dir, LOGS, "user_input"),
        ["What does heron log on startup?", "And on shutdown?"]
    );
    assert_eq!(
        texts_of(dir, LOGS, "assistant_response"),
        [
            "It logs the config path and the parser version.",
            "On shutdown it logs how many records it parsed."
        ]
    );
    let tools: Vec<Value> = rows(
        dir,
        &format!(
            "SELECT type, tool_name, tool_call_id, exit_code, subtype FROM events WHERE \
             session_id = '{}' AND type IN ('tool_call', 'tool_response') ORDER BY seq",
            session_id(FIX)
        ),
    )
    .into_iter()
    .map(Value::Object)
    .collect();
    assert_eq!(
        tools,
        [
            json!({"type": "tool_call", "tool_name": "readCode", "tool_call_id": "act-h1-2"}),
            json!({"type": "tool_call", "tool_name": "cargo_test", "tool_call_id": "act-h1-3"}),
            json!({"type": "tool_response", "tool_name": "cargo_test",
                "tool_call_id": "act-h1-3"}),
            json!({"type": "tool_call", "tool_name": "replace", "tool_call_id": "act-h2-1"}),
            json!({"type": "tool_call", "tool_name": "runCommand", "tool_call_id": "act-h2-2"}),
            json!({"type": "tool_response", "tool_name": "runCommand",
                "tool_call_id": "act-h2-2", "exit_code": 101, "subtype": "error"}),
            json!({"type": "tool_call", "tool_name": "create", "tool_call_id": "act-h2-3"}),
        ]
    );

    // The chat of an execution whose log is read adds nothing; no system prompt, rule or
    // acknowledgement is an event, and the extension's settings are never read.
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text = \
             'The header parser keeps a trailing space. Shall I trim it?'"
        ),
        Some(1)
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%System Prompt%' \
             OR text LIKE '%Included Rules%' OR text LIKE '%identity>%' \
             OR text = 'I will follow these instructions.' OR text LIKE '%kiro-ide-message%' \
             OR text LIKE '%never-read%' OR payload LIKE '%never-read%'"
        ),
        Some(0)
    );
    assert_eq!(
        count_events(dir, KIRO, "input_tokens IS NOT NULL"),
        0,
        "credits are not tokens"
    );

    // `esker doctor` lists the folder with every session and nothing skipped: the extension's
    // own files are not logs. The IDE's chats have no resume command.
    let location = doctor_location(home.path(), dir, &store);
    assert_eq!(location["harness"], "kiro-cli");
    assert_eq!(location["sessions"].as_u64(), Some(5), "{location:#}");
    assert_eq!(location["skipped"], json!([]), "{location:#}");
    assert_no_resume(home.path(), dir, &session_id(FIX));
}

/// An execution log of the egret session, with its prompt, a command and a reply.
fn egret_log(execution: &str, prompt: &str) -> Value {
    json!({
        "executionId": execution,
        "workflowType": "chat-agent",
        "status": "succeed",
        "chatSessionId": MODULES,
        "startTime": 1_750_002_200_000_i64,
        "endTime": 1_750_002_260_000_i64,
        "workspaceContext": {"cwd": "/home/dev/src/egret"},
        "input": {"data": {"messages": [
            {"role": "user", "content": [{"type": "text", "text": prompt}]}
        ]}},
        "context": {"messages": []},
        "actions": [
            {"actionId": format!("{execution}-1"), "actionType": "runCommand",
                "input": {"command": "cargo clippy -p egret"},
                "output": {"message": "warning: unused import\nExit Code: 0"}},
            {"actionId": format!("{execution}-2"), "actionType": "say",
                "output": {"message": "One warning: an unused import."}}
        ]
    })
}

#[test]
fn a_new_execution_log_adds_exactly_its_events() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let events = |dir: &Path| count_events(dir, KIRO, "true");
    let before = events(data.path());

    let log = home
        .path()
        .join(STORE)
        .join(EGRET)
        .join(EXECUTIONS)
        .join("3f6a9c2d5e8b4c1f0a7d3e6b9c2f5a81");
    let text = serde_json::to_string_pretty(&egret_log("exec-e3", "Lint egret.")).expect("JSON");
    fs::write(&log, text).expect("write");
    let stderr = index_home(home.path(), data.path());
    // A prompt, the command and its result, the reply.
    assert!(stderr.contains("events: 4 new"), "{stderr}");
    assert!(
        stderr.contains("kiro_ide=1"),
        "only its workspace is read: {stderr}"
    );
    assert_eq!(events(data.path()), before + 4);
    assert_eq!(
        texts_of(data.path(), MODULES, "user_input"),
        [
            "List the egret modules.",
            "Run the egret tests.",
            "Lint egret."
        ]
    );

    let stderr = index_home(home.path(), data.path());
    assert!(
        stderr.contains("formats: none;"),
        "nothing changed: {stderr}"
    );
    let (counts, _) = raw_counts(&raw_store(&home.path().join(STORE)));
    assert_eq!(indexed_counts(data.path(), KIRO), counts);
}

#[test]
fn a_half_written_log_is_skipped_with_a_warning_until_it_is_whole() {
    let home = home_with_fixture();
    let store = home.path().join(STORE);
    let log = store
        .join(HERON)
        .join(EXECUTIONS)
        .join("9c14a3e5d27f4a01be6d9f5b4c3a2d10");
    let mut whole = egret_log("exec-h5", "Which file holds the log format?");
    whole["chatSessionId"] = json!(LOGS);
    let text = serde_json::to_string_pretty(&whole).expect("JSON");
    fs::write(&log, &text[..text.len() / 2]).expect("write half");

    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("malformed lines: 1;"), "{stderr}");
    let raw = raw_store(&store);
    assert_eq!(raw.unreadable, 1);
    let (counts, _) = raw_counts(&raw);
    assert_eq!(
        indexed_counts(data.path(), KIRO),
        counts,
        "the rest is read"
    );
    let workspace = store.join(HERON);
    let location = doctor_location(home.path(), data.path(), &store);
    assert_eq!(
        location["skipped"],
        json!([{"reason": "malformed_lines", "count": 1,
            "paths": [workspace.to_str().expect("utf-8")]}]),
        "{location:#}"
    );

    fs::write(&log, &text).expect("write whole");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("malformed lines: 0;"), "{stderr}");
    // The turn's prompt (the history does not end with it), command, result and reply.
    assert!(stderr.contains("events: 4 new"), "{stderr}");
    let (counts, _) = raw_counts(&raw_store(&store));
    assert_eq!(indexed_counts(data.path(), KIRO), counts);
    assert_eq!(
        texts_of(data.path(), LOGS, "user_input"),
        [
            "What does heron log on startup?",
            "And on shutdown?",
            "Which file holds the log format?"
        ]
    );
}
