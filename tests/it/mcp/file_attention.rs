//! `file_attention` end to end over the real MCP client: a project with a main checkout and a
//! linked worktree (laid out as `git worktree add` does), Claude and Codex sessions in both
//! editing, reading and patching the same project-relative file, one session of another
//! project, and the real corpus (a file a Claude session edited, found from the raw JSON).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::client::{EskerClient, strings_at};
use crate::support::{corpus_dir, corpus_store, index_into, query_rows};

/// The file every session touches, relative to its worktree root.
const TAIL: &str = "src/app.rs";

/// A temporary project: `main/` (a checkout with `.git/`), `feat/` (a linked worktree of it),
/// the session logs and the store built from them.
struct Project {
    main: PathBuf,
    feat: PathBuf,
    /// The working directory of the session of another project.
    other: String,
    data: PathBuf,
}

fn project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let base = tempfile::Builder::new()
            .prefix("esker-attention-")
            .tempdir()
            .expect("temp dir")
            .keep()
            .canonicalize()
            .expect("canonical temp dir");
        let (main, feat) = (base.join("main"), base.join("feat"));
        link_worktree(&main, &feat);
        let other = "/nonexistent-esker-other/project".to_owned();
        let logs = base.join("logs");
        write_sessions(&logs, &main, &feat, &other);
        let data = base.join("data");
        index_into(&data, &[&logs]);
        Project {
            main,
            feat,
            other,
            data,
        }
    })
}

/// `main/.git` and a worktree `feat` registered in it, as `git worktree add ../feat` leaves them.
fn link_worktree(main: &Path, feat: &Path) {
    let admin = main.join(".git/worktrees/feat");
    fs::create_dir_all(&admin).expect("git admin dir");
    fs::create_dir_all(main.join("src")).expect("main/src");
    fs::create_dir_all(feat.join("src")).expect("feat/src");
    fs::write(feat.join(".git"), format!("gitdir: {}\n", admin.display())).expect(".git file");
    fs::write(admin.join("commondir"), "../..\n").expect("commondir");
    fs::write(
        admin.join("gitdir"),
        format!("{}\n", feat.join(".git").display()),
    )
    .expect("gitdir");
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_owned()
}

/// Claude sessions A (main, and one call from feat), B (feat), C (another project) and a Codex
/// session D (main) applying a patch.
fn write_sessions(logs: &Path, main: &Path, feat: &Path, other: &str) {
    let (main, feat) = (text(main), text(feat));
    let claude = logs.join("claude");
    fs::create_dir_all(&claude).expect("logs dir");
    let session_a = claude_session(
        "aaaaaaaa-0000-4000-8000-000000000001",
        &main,
        &[
            (
                "09:00:01",
                &main,
                "Read",
                json!({"file_path": format!("{main}/{TAIL}")}),
            ),
            (
                "09:00:02",
                &main,
                "Read",
                json!({"file_path": format!("{main}/src/app.rsx")}),
            ),
            (
                "09:00:02.500",
                &main,
                "Read",
                json!({"file_path": format!("{main}/xsrc/app.rs")}),
            ),
            (
                "09:00:03",
                &main,
                "Edit",
                json!({"file_path": format!("{main}/{TAIL}"), "old_string": "a", "new_string": "b"}),
            ),
            (
                "09:00:04",
                &feat,
                "Edit",
                json!({"file_path": format!("{feat}/{TAIL}"), "old_string": "b", "new_string": "c"}),
            ),
        ],
    );
    let session_b = claude_session(
        "bbbbbbbb-0000-4000-8000-000000000002",
        &feat,
        &[(
            "10:00:01",
            &feat,
            "Bash",
            json!({"command": format!("cat {TAIL} | head -n 5"), "description": "look"}),
        )],
    );
    let session_c = claude_session(
        "cccccccc-0000-4000-8000-000000000003",
        other,
        &[(
            "08:00:00",
            other,
            "Write",
            json!({"file_path": format!("{other}/{TAIL}"), "content": "x"}),
        )],
    );
    for (name, lines) in [("a", session_a), ("b", session_b), ("c", session_c)] {
        fs::write(claude.join(format!("{name}.jsonl")), lines).expect("write claude log");
    }
    let codex = logs.join("codex");
    fs::create_dir_all(&codex).expect("codex dir");
    fs::write(codex.join("rollout-d.jsonl"), codex_patch_session(&main)).expect("write codex log");
}

type Call<'a> = (&'a str, &'a str, &'a str, Value);

/// A Claude transcript: one prompt, then one assistant `tool_use` per call (time, cwd, tool,
/// input) on 2026-03-02.
fn claude_session(session_id: &str, cwd: &str, calls: &[Call<'_>]) -> String {
    let record = |index: usize, time: &str, cwd: &str, kind: &str, message: Value| {
        json!({
            "type": kind, "uuid": format!("{session_id}-{index}"),
            "parentUuid": if index == 0 { Value::Null } else { json!(format!("{session_id}-{}", index - 1)) },
            "sessionId": session_id, "timestamp": format!("2026-03-02T{time}Z"),
            "cwd": cwd, "version": "2.0.50", "isSidechain": false, "message": message,
        })
        .to_string()
    };
    let first_time = calls.first().map_or("07:00:00", |call| call.0);
    let mut lines = vec![record(
        0,
        first_time,
        cwd,
        "user",
        json!({"role": "user", "content": "work on the app"}),
    )];
    for (index, (time, call_cwd, tool, input)) in calls.iter().enumerate() {
        let message = json!({
            "role": "assistant", "id": format!("msg-{session_id}-{index}"),
            "model": "claude-sonnet-4-5-20250929", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": format!("toolu-{index}"), "name": tool, "input": input}],
        });
        lines.push(record(index + 1, time, call_cwd, "assistant", message));
    }
    lines.join("\n") + "\n"
}

/// A Codex rollout in `cwd` whose one call is an `apply_patch` updating [`TAIL`].
fn codex_patch_session(cwd: &str) -> String {
    let patch = format!("*** Begin Patch\n*** Update File: {TAIL}\n@@\n-a\n+b\n*** End Patch\n");
    [
        json!({"timestamp": "2026-03-02T11:00:00.000Z", "type": "session_meta", "payload": {"id": "019cebc9-0000-7000-8000-00000000000d", "timestamp": "2026-03-02T11:00:00.000Z", "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli", "model_provider": "openai"}}),
        json!({"timestamp": "2026-03-02T11:00:01.000Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "patch the app"}]}}),
        json!({"timestamp": "2026-03-02T11:00:02.000Z", "type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed", "call_id": "call_patch", "name": "apply_patch", "input": patch}}),
        json!({"timestamp": "2026-03-02T11:00:03.000Z", "type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "Success. Updated the following files:\nM src/app.rs"}}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n")
        + "\n"
}

/// `data` of a successful `file_attention`.
async fn attention(client: &EskerClient, arguments: Value) -> Value {
    client.success("file_attention", arguments).await["data"].take()
}

fn session_of(native_prefix: &str) -> String {
    format!("session:{native_prefix}")
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}

fn root_labels(data: &Value) -> Vec<String> {
    sorted(strings_at(&data["roots"], "/root"))
}

#[tokio::test]
async fn sessions_in_two_worktrees_editing_one_file_are_all_found() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    let data = attention(&client, json!({"path": TAIL, "scope": "all"})).await;
    assert_eq!(data["tail"], TAIL);
    let sessions = sorted(strings_at(&data["sessions"], "/id"));
    assert_eq!(
        sessions,
        [
            session_of("claude-aaaaaaaa-0000-4000-8000-000000000001"),
            session_of("claude-bbbbbbbb-0000-4000-8000-000000000002"),
            session_of("claude-cccccccc-0000-4000-8000-000000000003"),
            session_of("codex-019cebc9-0000-7000-8000-00000000000d"),
        ]
    );
    let summary = &data["summary"];
    assert_eq!(
        summary["total_touches"], 6,
        "decoys app.rsx and xsrc/app.rs excluded: {data:#}"
    );
    assert_eq!(summary["distinct_sessions"], 4);
    assert_eq!(summary["distinct_known_roots"], 3);
    assert_eq!(summary["ambiguous"], true);
    assert_eq!(summary["first_touch"], "2026-03-02T08:00:00.000Z");
    assert_eq!(summary["last_touch"], "2026-03-02T11:00:02.000Z");
    assert_eq!(
        root_labels(&data),
        sorted(vec![
            text(&project.main),
            text(&project.feat),
            project.other.clone()
        ])
    );
    let main_root = data["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|root| root["root"] == text(&project.main).as_str())
        .unwrap();
    assert_eq!(
        (
            main_root["touch_count"].clone(),
            main_root["session_count"].clone()
        ),
        (json!(3), json!(2))
    );
    // Most recent touch first: the Codex patch, then the Bash read in feat, then A.
    assert_eq!(data["sessions"][0]["session"]["harness"], "codex");
    assert_eq!(
        data["sessions"][0]["session"]["match_kinds"],
        json!(["patch"])
    );
    let session_a = data["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| {
            item["id"] == session_of("claude-aaaaaaaa-0000-4000-8000-000000000001").as_str()
        })
        .unwrap();
    assert_eq!(session_a["session"]["touch_count"], 3);
    assert_eq!(session_a["session"]["tools"], json!(["Edit", "Read"]));
    assert_eq!(
        session_a["session"]["worktree_roots"],
        json!(sorted(vec![text(&project.feat), text(&project.main)])),
        "a call made from the other worktree is rooted there"
    );
    assert_eq!(session_a["session"]["harness"], "claude-code");
}

#[tokio::test]
async fn project_scope_keeps_the_launch_projects_worktrees_only() {
    let project = project();
    for launch_dir in [&project.main, &project.feat] {
        let client = EskerClient::start_in(&project.data, launch_dir).await;
        let envelope = client
            .success("file_attention", json!({"path": TAIL}))
            .await;
        assert_eq!(envelope["request"]["scope"], "project");
        let data = &envelope["data"];
        assert_eq!(data["summary"]["distinct_sessions"], 3, "{data:#}");
        assert!(!root_labels(data).contains(&project.other), "{data:#}");
        // The absolute path of the file in either worktree names the same tail.
        let absolute = format!("{}/{TAIL}", text(&project.feat));
        let by_path = attention(&client, json!({"path": absolute})).await;
        assert_eq!(by_path["tail"], TAIL);
        assert_eq!(by_path["summary"], data["summary"]);
    }
    let client = EskerClient::start_in(&project.data, &project.main.join("src")).await;
    let data = attention(&client, json!({"path": "app.rs"})).await;
    assert_eq!(data["tail"], TAIL, "relative to the launch directory");
    assert_eq!(data["summary"]["distinct_sessions"], 3);
}

#[tokio::test]
async fn every_returned_handle_opens() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    for granularity in ["sessions", "events"] {
        let data = attention(
            &client,
            json!({"path": TAIL, "scope": "all", "granularity": granularity}),
        )
        .await;
        for item in data[granularity].as_array().unwrap() {
            for (field, kind) in [
                ("session_id", "session"),
                ("event_id", "event"),
                ("turn_id", "turn"),
            ] {
                let id = item["open"][field]
                    .as_str()
                    .unwrap_or_else(|| panic!("{field} in {item}"));
                let opened = client.open(id).await;
                assert_eq!(opened["kind"], kind, "{id}");
            }
        }
    }
}

#[tokio::test]
async fn events_granularity_is_the_touch_timeline() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    let data = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "granularity": "events"}),
    )
    .await;
    let events = data["events"].as_array().unwrap();
    assert_eq!(events.len(), 6);
    assert!(data.get("sessions").is_none());
    let times = strings_at(&data["events"], "/event/timestamp");
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "{times:?}");
    let ranks: Vec<u64> = events
        .iter()
        .filter_map(|event| event["rank"].as_u64())
        .collect();
    assert_eq!(ranks, (1..=6).collect::<Vec<u64>>());
    let first = &events[0]["event"];
    assert_eq!(first["tool_name"], "apply_patch");
    assert_eq!(first["mutation"], true);
    assert_eq!(first["match_kind"], "patch");
    assert_eq!(first["worktree_root"], text(&project.main).as_str());
    let bash = &events[1]["event"];
    assert_eq!(
        (
            bash["tool_name"].clone(),
            bash["match_kind"].clone(),
            bash["mutation"].clone()
        ),
        (json!("Bash"), json!("shell"), json!(false))
    );
    assert_eq!(bash["worktree_root"], text(&project.feat).as_str());
}

#[tokio::test]
async fn mutations_only_tool_and_harness_filters_narrow_the_touches() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    let written = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "mutations_only": true}),
    )
    .await;
    assert_eq!(written["summary"]["total_touches"], 4, "{written:#}");
    let ids = strings_at(&written["sessions"], "/id");
    assert!(
        !ids.contains(&session_of("claude-bbbbbbbb-0000-4000-8000-000000000002")),
        "B only read"
    );
    let edits = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "tool": "Edit", "granularity": "events"}),
    )
    .await;
    assert_eq!(
        strings_at(&edits["events"], "/event/tool_name"),
        ["Edit", "Edit"]
    );
    let codex = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "harness": "codex"}),
    )
    .await;
    assert_eq!(
        strings_at(&codex["sessions"], "/id"),
        [session_of("codex-019cebc9-0000-7000-8000-00000000000d")]
    );
    let claude = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "harness": "claude-code", "source": "claude"}),
    )
    .await;
    assert_eq!(claude["summary"]["distinct_sessions"], 3);
    let window = attention(
        &client,
        json!({"path": TAIL, "scope": "all", "start_datetime": "2026-03-02T09:00:02Z", "end_datetime": "2026-03-02T10:30:00Z"}),
    )
    .await;
    assert_eq!(window["summary"]["total_touches"], 3, "{window:#}");
}

#[tokio::test]
async fn pages_follow_the_cursor_to_the_end_without_repeats() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    let mut seen = Vec::new();
    let mut cursor = Value::Null;
    for page in 1..=4 {
        let data = attention(
            &client,
            json!({"path": TAIL, "scope": "all", "limit": 1, "cursor": cursor}),
        )
        .await;
        seen.extend(strings_at(&data["sessions"], "/id"));
        assert_eq!(data["sessions"][0]["rank"], page);
        cursor = data["next_cursor"].clone();
        assert_eq!(cursor.is_null(), page == 4, "page {page}: {data:#}");
    }
    assert_eq!(sorted(seen.clone()).len(), 4);
    seen.dedup();
    assert_eq!(seen.len(), 4);
    let other_filter = client
        .error_code("file_attention", json!({"path": "src/other.rs", "scope": "all", "cursor": "fac1.0123456789abcdef.1.1.session:x."}))
        .await;
    assert_eq!(other_filter, "invalid_request");
}

#[tokio::test]
async fn generic_and_unknown_paths_warn_and_bad_paths_are_invalid_requests() {
    let project = project();
    let client = EskerClient::start(&project.data).await;
    let envelope = client
        .success("file_attention", json!({"path": "app.rs", "scope": "all"}))
        .await;
    let warnings = envelope["warnings"].to_string();
    assert!(warnings.contains("generic tail"), "{warnings}");
    assert_eq!(
        envelope["data"]["summary"]["total_touches"], 7,
        "xsrc/app.rs matches the bare name"
    );
    let absolute = client
        .success(
            "file_attention",
            json!({"path": "/nonexistent-esker-z/src/app.rs", "scope": "all"}),
        )
        .await;
    assert!(
        absolute["warnings"]
            .to_string()
            .contains("absolute path literally")
    );
    assert_eq!(absolute["data"]["tail_is_absolute"], true);
    assert_eq!(absolute["data"]["summary"]["total_touches"], 0);
    for path in [
        " src/app.rs",
        "src/app.rs ",
        "file:///x/src/app.rs",
        "src/",
        "",
    ] {
        let envelope = client
            .failure("file_attention", json!({"path": path}))
            .await;
        assert_eq!(envelope["error"]["code"], "invalid_request", "{path:?}");
        assert_eq!(envelope["error"]["details"]["field"], "path");
    }
    assert_eq!(
        client.error_code("file_attention", json!({})).await,
        "invalid_request"
    );
    assert_eq!(
        client
            .error_code("file_attention", json!({"path": TAIL, "limit": 51}))
            .await,
        "invalid_request"
    );
}

/// An agent launched in a subdirectory of a checkout roots its touches at that directory, while
/// an absolute query path is stripped of the checkout above it: the file named exactly is found
/// all the same (CI once cloned into a directory whose ancestor held a `.git`).
#[tokio::test]
async fn an_absolute_path_under_a_checkout_above_the_sessions_directory_is_found() {
    let base = tempfile::Builder::new()
        .prefix("esker-attention-sub-")
        .tempdir()
        .expect("temp dir")
        .keep()
        .canonicalize()
        .expect("canonical temp dir");
    let checkout = base.join("mono");
    let launched = checkout.join("app");
    fs::create_dir_all(checkout.join(".git")).expect("mono/.git");
    fs::create_dir_all(launched.join("src")).expect("mono/app/src");
    let file = format!("{}/src/lib.rs", text(&launched));
    let session = claude_session(
        "dddddddd-0000-4000-8000-000000000004",
        &text(&launched),
        &[(
            "12:00:00",
            &text(&launched),
            "Edit",
            json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        )],
    );
    let logs = base.join("logs/claude");
    fs::create_dir_all(&logs).expect("logs dir");
    fs::write(logs.join("d.jsonl"), session).expect("write claude log");
    let data = base.join("data");
    index_into(&data, &[&base.join("logs")]);
    let client = EskerClient::start(&data).await;
    let found = attention(&client, json!({"path": file, "scope": "all"})).await;
    assert_eq!(found["tail"], "app/src/lib.rs", "{found:#}");
    assert_eq!(found["summary"]["total_touches"], 1, "{found:#}");
    assert_eq!(
        strings_at(&found["sessions"], "/id"),
        [session_of("claude-dddddddd-0000-4000-8000-000000000004")],
        "{found:#}"
    );
}

#[test]
fn the_touches_table_is_queryable() {
    let project = project();
    let rows = query_rows(
        &project.data,
        "SELECT tool, mutation, match_kind, root, tail FROM file_touches WHERE file_name = 'app.rs' ORDER BY timestamp",
    );
    let tools: Vec<&str> = rows.iter().filter_map(|row| row["tool"].as_str()).collect();
    assert_eq!(
        tools,
        [
            "Write",
            "Read",
            "Read",
            "Edit",
            "Edit",
            "Bash",
            "apply_patch"
        ]
    );
}

/// The first `Edit`/`Write` of a Claude transcript in the corpus (files in name order) whose
/// file is under the record's working directory: (log file, file_path, cwd).
fn first_corpus_edit(corpus: &Path) -> Option<(PathBuf, String, String)> {
    let files: Vec<PathBuf> = walkdir::WalkDir::new(corpus.join("claude"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect();
    files.into_iter().find_map(|file| {
        let content = fs::read_to_string(&file).ok()?;
        let (path, cwd) = content.lines().find_map(|line| {
            let record = serde_json::from_str::<Value>(line).ok()?;
            let cwd = record["cwd"].as_str()?.to_owned();
            let blocks = record.pointer("/message/content")?.as_array()?.clone();
            blocks.into_iter().find_map(|block| {
                let is_edit = block["type"] == "tool_use"
                    && matches!(block["name"].as_str(), Some("Edit" | "Write"));
                let path = block.pointer("/input/file_path")?.as_str()?.to_owned();
                let under_cwd =
                    path.starts_with(&format!("{cwd}/")) || path.starts_with(&format!("{cwd}\\"));
                (is_edit && under_cwd).then(|| (path, cwd.clone()))
            })
        })?;
        Some((file, path, cwd))
    })
}

#[tokio::test]
async fn the_session_that_edited_a_corpus_file_is_found() {
    let (Some(corpus), Some((data_dir, _))) = (corpus_dir(), corpus_store()) else {
        return;
    };
    let (log, file_path, cwd) =
        first_corpus_edit(&corpus).expect("a Claude Edit/Write in the corpus");
    let path_in_json = serde_json::to_string(&file_path).expect("JSON string");
    let path_in_json = path_in_json.trim_matches('"').replace('\'', "''");
    let expected: Vec<String> = query_rows(
        data_dir,
        &format!(
            "SELECT DISTINCT session_id FROM events WHERE source_path = '{}' AND type = 'tool_call' \
             AND strpos(payload, '{path_in_json}') > 0",
            log.display(),
        ),
    )
    .into_iter()
    .filter_map(|row| row["session_id"].as_str().map(str::to_owned))
    .collect();
    assert!(!expected.is_empty(), "the edit of {file_path} is indexed");
    let client = EskerClient::start(data_dir).await;
    let tail = file_path[cwd.len() + 1..].replace('\\', "/");
    for path in [file_path.as_str(), tail.as_str()] {
        let data = attention(
            &client,
            json!({"path": path, "scope": "all", "mutations_only": true}),
        )
        .await;
        let found = strings_at(&data["sessions"], "/id");
        for session in &expected {
            assert!(found.contains(session), "{path}: {session} not in {data:#}");
        }
        let event_id = data["sessions"][0]["open"]["event_id"]
            .as_str()
            .expect("event handle");
        assert_eq!(client.open(event_id).await["kind"], "event");
    }
}
