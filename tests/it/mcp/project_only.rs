//! `esker serve --project-only` end to end over the real MCP client (issue #13): Claude
//! sessions of project A (a Git checkout, at its root and in a subdirectory) and of project B
//! (a sibling directory whose name extends A's, `proj` / `proj2`), all saying the same word and
//! editing the same project-relative file. Launched inside A with the flag, no tool answers a
//! B session and every B id is `not_found`, exactly as a missing id; without it, both are seen.
//! The same holds for the `agtrace` and `relay` profiles, each reporting "not found" its way.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use esker::mcp::server::EskerServer;
use esker::service::catalog::{AnswerPath, Catalog};
use esker::service::project_scope::{ProjectScope, SCOPED_PROFILES, ServingScope};
use serde_json::{Value, json};

use super::client::{EskerClient, strings_at};
use crate::support::{index_into, query_rows};

/// The word every session's prompt holds.
pub(crate) const WORD: &str = "amberfox";
/// The file every session edits, relative to its project.
const TAIL: &str = "src/app.rs";
/// The Claude slug every session carries: one chain of three sessions, two in A and one in B.
const SLUG: &str = "shared-amber-fox";

/// Project A (`proj/`, with `.git/`), project B (`proj2/`) and the store of their sessions.
pub(crate) struct Projects {
    pub(crate) project_a: PathBuf,
    pub(crate) data: PathBuf,
    /// Session ids of A (its root and `proj/crates/core`) and of B, from the tables.
    pub(crate) sessions_a: Vec<String>,
    pub(crate) sessions_b: Vec<String>,
}

/// The two projects' store, built once per test run (also served over HTTP, `mcp::http`).
pub(crate) fn projects() -> &'static Projects {
    static PROJECTS: OnceLock<Projects> = OnceLock::new();
    PROJECTS.get_or_init(|| {
        let base = tempfile::Builder::new()
            .prefix("esker-project-only-")
            .tempdir()
            .expect("temp dir")
            .keep()
            .canonicalize()
            .expect("canonical temp dir");
        let (project_a, project_b) = (base.join("proj"), base.join("proj2"));
        let nested_a = project_a.join("crates/core");
        fs::create_dir_all(project_a.join(".git")).expect("proj/.git");
        fs::create_dir_all(&nested_a).expect("proj/crates/core");
        fs::create_dir_all(&project_b).expect("proj2");
        let logs = base.join("logs");
        fs::create_dir_all(&logs).expect("logs dir");
        let sessions = [
            ("aaaaaaaa-0000-4000-8000-00000000000a", &project_a, "09"),
            ("aaaaaaaa-0000-4000-8000-00000000000b", &nested_a, "10"),
            ("bbbbbbbb-0000-4000-8000-00000000000b", &project_b, "11"),
        ];
        for (native_id, cwd, hour) in sessions {
            let log = claude_session(native_id, &text(cwd), hour);
            fs::write(logs.join(format!("{native_id}.jsonl")), log).expect("write log");
        }
        let data = base.join("data");
        index_into(&data, &[&logs]);
        let sessions_in = |cwd_prefix: &Path| {
            let rows = query_rows(&data, "SELECT session_id, cwd FROM sessions");
            let mut ids: Vec<String> = rows
                .iter()
                .filter(|row| {
                    row["cwd"]
                        .as_str()
                        .is_some_and(|cwd| in_dir(cwd, cwd_prefix))
                })
                .map(|row| row["session_id"].as_str().expect("id").to_owned())
                .collect();
            ids.sort();
            ids
        };
        let (sessions_a, sessions_b) = (sessions_in(&project_a), sessions_in(&project_b));
        assert_eq!(
            (sessions_a.len(), sessions_b.len()),
            (2, 1),
            "fixture sessions"
        );
        Projects {
            project_a,
            data,
            sessions_a,
            sessions_b,
        }
    })
}

fn in_dir(cwd: &str, dir: &Path) -> bool {
    Path::new(cwd).starts_with(dir)
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_owned()
}

/// A Claude transcript in `cwd` on 2026-03-02 at `hour`, in the chain of [`SLUG`]: a prompt
/// naming [`WORD`], then an `Edit` of [`TAIL`] under `cwd`.
fn claude_session(session_id: &str, cwd: &str, hour: &str) -> String {
    let record = |index: usize, kind: &str, message: Value| {
        json!({
            "type": kind, "uuid": format!("{session_id}-{index}"),
            "parentUuid": if index == 0 { Value::Null } else { json!(format!("{session_id}-{}", index - 1)) },
            "sessionId": session_id, "timestamp": format!("2026-03-02T{hour}:00:0{index}Z"),
            "cwd": cwd, "version": "2.0.50", "isSidechain": false, "slug": SLUG, "message": message,
        })
        .to_string()
    };
    let prompt = json!({"role": "user", "content": format!("polish the {WORD} widget in {cwd}")});
    let edit = json!({
        "role": "assistant", "id": format!("msg-{session_id}"),
        "model": "claude-sonnet-4-5-20250929", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu-1", "name": "Edit",
            "input": {"file_path": format!("{cwd}/{TAIL}"), "old_string": "a", "new_string": "b"}}],
    });
    [record(0, "user", prompt), record(1, "assistant", edit)].join("\n") + "\n"
}

/// A window holding every fixture session.
fn every_session() -> Value {
    json!({"start_datetime": "2026-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z"})
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items.dedup();
    items
}

async fn listed_sessions(client: &EskerClient) -> Vec<String> {
    let data = client.list(every_session()).await;
    sorted(strings_at(&data["sessions"], "/id"))
}

async fn searched_sessions(client: &EskerClient) -> Vec<String> {
    let data = client.search(json!({"query": WORD, "n_hits": 50})).await;
    sorted(strings_at(&data["results"], "/session/id"))
}

/// The sessions `file_attention` finds for `path` in `scope`, and its warnings.
async fn attending_sessions(client: &EskerClient, path: &str, scope: &str) -> (Vec<String>, Value) {
    let envelope = client
        .success("file_attention", json!({"path": path, "scope": scope}))
        .await;
    let sessions = sorted(strings_at(&envelope["data"]["sessions"], "/id"));
    (sessions, envelope["warnings"].clone())
}

/// A turn and an event of `session_id`, from the tables.
fn turn_and_event_of(data: &Path, session_id: &str) -> (String, String) {
    let first = |sql: String, column: &str| {
        query_rows(data, &sql)
            .first()
            .and_then(|row| row[column].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("no rows for {sql}"))
    };
    let turn = first(
        format!("SELECT turn_id FROM turns WHERE session_id = '{session_id}'"),
        "turn_id",
    );
    let event = first(
        format!(
            "SELECT event_id FROM events WHERE session_id = '{session_id}' AND type = 'user_input'"
        ),
        "event_id",
    );
    (turn, event)
}

/// An id of the same kind and shape as `id` that names nothing (its last character changed).
fn missing_like(id: &str) -> String {
    let (body, last) = id.split_at(id.len() - 1);
    let other = if last == "0" { "1" } else { "0" };
    format!("{body}{other}")
}

/// `error` of a failed call, with its `details.id` left out (it echoes the id asked for).
async fn error_without_id(client: &EskerClient, tool: &str, arguments: Value) -> Value {
    let mut error = client.failure(tool, arguments).await["error"].take();
    error["details"]
        .as_object_mut()
        .expect("details object")
        .remove("id");
    error
}

#[tokio::test]
async fn a_project_only_server_answers_nothing_of_another_project() {
    let projects = projects();
    let launch_dir = projects.project_a.join("crates/core");
    let client = EskerClient::start_in_with(&projects.data, &launch_dir, &["--project-only"]).await;
    let info = client.service().peer_info().expect("initialized");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("scoped") && instructions.contains(&text(&projects.project_a)),
        "the instructions name the scope: {instructions}"
    );

    assert_eq!(listed_sessions(&client).await, projects.sessions_a);
    assert_eq!(searched_sessions(&client).await, projects.sessions_a);
    // Absolute (the launch directory is below the root): the tail every session's edit has.
    let edited = format!("{}/{TAIL}", text(&projects.project_a));
    let (attending, warnings) = attending_sessions(&client, &edited, "all").await;
    assert_eq!(attending, projects.sessions_a);
    assert!(
        warnings.to_string().contains("scoped to the project"),
        "scope all is narrowed, and says so: {warnings}"
    );
    let opened = client.open(&projects.sessions_a[0]).await;
    assert_eq!(opened["session"]["id"], projects.sessions_a[0].as_str());

    let session_b = &projects.sessions_b[0];
    let (turn_b, event_b) = turn_and_event_of(&projects.data, session_b);
    for id_b in [session_b, &turn_b, &event_b] {
        let missing_id = missing_like(id_b);
        let hidden = error_without_id(&client, "open", json!({"id": id_b})).await;
        let absent = error_without_id(&client, "open", json!({"id": missing_id})).await;
        assert_eq!(hidden["code"], "not_found", "{id_b}: {hidden}");
        assert_eq!(hidden, absent, "{id_b} answers as a missing id does");
    }
    for arguments in [
        json!({"id": session_b, "sessions": "1"}),
        json!({"id": session_b, "limit": 1}),
    ] {
        let code = client.error_code("open", arguments.clone()).await;
        assert_eq!(code, "not_found", "{arguments}");
    }
    for within_id in [session_b, &turn_b] {
        let arguments = json!({"query": WORD, "within_id": within_id});
        let code = client.error_code("search_sessions", arguments).await;
        assert_eq!(code, "not_found", "search within {within_id}");
    }
}

#[tokio::test]
async fn without_the_flag_every_project_is_answered() {
    let projects = projects();
    let client = EskerClient::start_in_with(&projects.data, &projects.project_a, &[]).await;
    let info = client.service().peer_info().expect("initialized");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        !instructions.contains("scoped to the project"),
        "{instructions}"
    );
    let every = sorted([projects.sessions_a.clone(), projects.sessions_b.clone()].concat());
    assert_eq!(listed_sessions(&client).await, every);
    assert_eq!(searched_sessions(&client).await, every);
    assert_eq!(attending_sessions(&client, TAIL, "all").await.0, every);
    assert_eq!(
        attending_sessions(&client, TAIL, "project").await.0,
        projects.sessions_a,
        "file_attention's own project scope is unchanged"
    );
    let session_b = &projects.sessions_b[0];
    let (turn_b, event_b) = turn_and_event_of(&projects.data, session_b);
    for id_b in [session_b, &turn_b, &event_b] {
        client.success("open", json!({"id": id_b})).await;
    }
}

#[tokio::test]
async fn project_only_refuses_a_profile_it_cannot_scope() {
    let projects = projects();
    let output = std::process::Command::new(crate::support::esker_bin())
        .args([
            "serve",
            "--no-index",
            "--project-only",
            "--profile",
            "memory",
        ])
        .arg("--data-dir")
        .arg(&projects.data)
        .current_dir(&projects.project_a)
        .env("HOME", "/nonexistent-esker-test-home")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("esker runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("memory profile is not scoped"), "{stderr}");
}

/// A client of `esker serve --profile <profile>` launched in project A, scoped or not.
async fn profile_client(profile: &str, scoped: bool) -> EskerClient {
    let projects = projects();
    let mut arguments = vec!["--profile", profile];
    if scoped {
        arguments.push("--project-only");
    }
    EskerClient::start_in_with(&projects.data, &projects.project_a, &arguments).await
}

/// The JSON a profile's client reads from a call (its text content), and whether the call
/// was an MCP error.
async fn answer(client: &EskerClient, tool: &str, arguments: Value) -> (Value, bool) {
    let result = client.call(tool, arguments.clone()).await;
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_else(|| panic!("{tool} {arguments}: no text"));
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{tool} {arguments}: not JSON: {text}"));
    (value, result.is_error == Some(true))
}

/// The native ids of sessions (esker ids), from the tables.
fn native_ids(esker_ids: &[String]) -> Vec<String> {
    let rows = query_rows(
        &projects().data,
        "SELECT session_id, native_id FROM sessions",
    );
    sorted(
        rows.iter()
            .filter(|row| {
                esker_ids
                    .iter()
                    .any(|id| row["session_id"].as_str() == Some(id))
            })
            .map(|row| row["native_id"].as_str().expect("native id").to_owned())
            .collect(),
    )
}

/// `answer` with the id asked for written as `<id>`: a hidden session's answer must read
/// exactly as a missing one's.
fn without(answer: &Value, id: &str) -> String {
    answer.to_string().replace(id, "<id>")
}

/// The failed answers of `call(id)` for B's session and for an id naming nothing, each with the
/// id blanked; they must be equal, and failures.
async fn hidden_and_missing(
    client: &EskerClient,
    tool: &str,
    call: impl Fn(&str) -> Value,
) -> (String, String) {
    let session_b = &native_ids(&projects().sessions_b)[0];
    let missing = missing_like(session_b);
    let (hidden, hidden_failed) = answer(client, tool, call(session_b)).await;
    let (absent, absent_failed) = answer(client, tool, call(&missing)).await;
    assert_eq!(
        (hidden_failed, absent_failed),
        (absent_failed, absent_failed),
        "{tool}: {hidden} / {absent}"
    );
    (without(&hidden, session_b), without(&absent, &missing))
}

async fn agtrace_listed(client: &EskerClient) -> Vec<String> {
    let (listed, failed) = answer(client, "list_sessions", json!({"limit": 50})).await;
    assert!(!failed, "{listed}");
    sorted(strings_at(&listed["sessions"], "/id"))
}

async fn agtrace_searched(client: &EskerClient, arguments: Value) -> (Vec<String>, Value) {
    let (previews, failed) = answer(client, "search_event_previews", arguments).await;
    if failed {
        return (Vec::new(), previews);
    }
    (
        sorted(strings_at(&previews["data"]["matches"], "/session_id")),
        previews,
    )
}

#[tokio::test]
async fn a_project_only_agtrace_server_answers_nothing_of_another_project() {
    let projects = projects();
    let (natives_a, natives_b) = (
        native_ids(&projects.sessions_a),
        native_ids(&projects.sessions_b),
    );
    let every = sorted([natives_a.clone(), natives_b.clone()].concat());
    let unscoped = profile_client("agtrace", false).await;
    assert_eq!(agtrace_listed(&unscoped).await, every);
    assert_eq!(
        agtrace_searched(&unscoped, json!({"query": WORD})).await.0,
        every
    );

    let client = profile_client("agtrace", true).await;
    let instructions = client
        .service()
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.contains("get_session_details")
            && instructions.contains("scoped")
            && instructions.contains(&text(&projects.project_a)),
        "{instructions}"
    );
    assert_eq!(agtrace_listed(&client).await, natives_a);
    assert_eq!(
        agtrace_searched(&client, json!({"query": WORD})).await.0,
        natives_a
    );
    let (projects_info, failed) = answer(&client, "get_project_info", json!({})).await;
    assert!(!failed, "{projects_info}");
    let roots = strings_at(&projects_info["projects"], "/root_path");
    assert!(!roots.is_empty());
    for root in &roots {
        assert!(in_dir(root, &projects.project_a), "{root} is in A");
    }
    let (details_a, failed) = answer(
        &client,
        "get_session_details",
        json!({"session_id": natives_a[0]}),
    )
    .await;
    assert!(!failed, "{details_a}");

    for tool in ["get_session_details", "analyze_session"] {
        let (hidden, absent) =
            hidden_and_missing(&client, tool, |id| json!({"session_id": id})).await;
        assert_eq!(hidden, absent, "{tool}");
        assert!(hidden.contains("session_not_found"), "{tool}: {hidden}");
    }
    let (hidden, absent) = hidden_and_missing(
        &client,
        "get_event_details",
        |id| json!({"session_id": id, "event_index": 0}),
    )
    .await;
    assert_eq!(hidden, absent);
    assert!(hidden.contains("session_not_found"), "{hidden}");
    let (hidden, absent) = hidden_and_missing(
        &client,
        "search_event_previews",
        |id| json!({"query": WORD, "session_id": id}),
    )
    .await;
    assert_eq!(hidden, absent);
    assert!(hidden.contains("session_not_found"), "{hidden}");
    let prefix_b = &natives_b[0][..8];
    let (by_prefix, failed) =
        answer(&client, "analyze_session", json!({"session_id": prefix_b})).await;
    assert!(
        failed && by_prefix.to_string().contains("session_not_found"),
        "{by_prefix}"
    );
}

async fn relay_listed(client: &EskerClient) -> Vec<String> {
    let (listed, failed) = answer(client, "list_sessions", json!({"limit": 50})).await;
    assert!(!failed, "{listed}");
    sorted(strings_at(&listed, "/session_id"))
}

async fn relay_searched(client: &EskerClient) -> Vec<String> {
    let (hits, failed) = answer(
        client,
        "search_history",
        json!({"query": WORD, "limit": 50}),
    )
    .await;
    assert!(!failed, "{hits}");
    sorted(strings_at(&hits, "/session_id"))
}

/// The sessions `list_sessions(slug)` lists for [`SLUG`] (sorted) and their session numbers.
async fn chain_members(client: &EskerClient) -> (Vec<String>, Vec<i64>) {
    let (listed, failed) = answer(client, "list_sessions", json!({"slug": SLUG})).await;
    assert!(!failed, "{listed}");
    let numbers = listed
        .as_array()
        .expect("a list")
        .iter()
        .map(|session| session["session_number"].as_i64().expect("numbered"))
        .collect();
    (sorted(strings_at(&listed, "/session_id")), numbers)
}

#[tokio::test]
async fn a_project_only_relay_server_answers_nothing_of_another_project() {
    let projects = projects();
    let (natives_a, natives_b) = (
        native_ids(&projects.sessions_a),
        native_ids(&projects.sessions_b),
    );
    let every = sorted([natives_a.clone(), natives_b.clone()].concat());
    let unscoped = profile_client("relay", false).await;
    assert_eq!(relay_listed(&unscoped).await, every);
    assert_eq!(relay_searched(&unscoped).await, every);
    let conversation = |id: &str| json!({"session_id_or_slug": id, "format": "json"});
    let (seen, _) = answer(&unscoped, "get_conversation", conversation(&natives_b[0])).await;
    assert!(seen.get("error").is_none(), "{seen}");
    assert_eq!(
        chain_members(&unscoped).await,
        (every.clone(), vec![1, 2, 3])
    );

    let client = profile_client("relay", true).await;
    let instructions = client
        .service()
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.contains("search_history") && instructions.contains("scoped"),
        "{instructions}"
    );
    assert_eq!(relay_listed(&client).await, natives_a);
    assert_eq!(relay_searched(&client).await, natives_a);
    let (opened_a, _) = answer(&client, "get_conversation", conversation(&natives_a[0])).await;
    assert!(opened_a.get("error").is_none(), "{opened_a}");
    assert_eq!(
        chain_members(&client).await,
        (natives_a.clone(), vec![1, 2])
    );
    let (in_chain, _) = answer(&client, "get_conversation", conversation(SLUG)).await;
    assert_eq!(
        sorted(strings_at(&in_chain["sessions"], "/session_id")),
        natives_a
    );
    assert_eq!(
        sorted(strings_at(&in_chain["messages"], "/session_id")),
        natives_a
    );
    let (hidden, absent) = hidden_and_missing(&client, "get_conversation", conversation).await;
    assert_eq!(hidden, absent);
    assert_eq!(
        hidden,
        json!({"error": "Session not found: <id>"}).to_string()
    );
    let (by_esker_id, _) = answer(
        &client,
        "get_conversation",
        conversation(&projects.sessions_b[0]),
    )
    .await;
    assert_eq!(
        by_esker_id,
        json!({"error": format!("Session not found: {}", projects.sessions_b[0])})
    );
    let (markdown, failed) = answer(
        &client,
        "get_conversation",
        json!({"session_id_or_slug": natives_b[0]}),
    )
    .await;
    assert!(!failed);
    assert_eq!(
        markdown,
        json!({"error": format!("Session not found: {}", natives_b[0])})
    );
}

/// The envelope of one in-process call, and whether it was an error.
async fn call_in_process(server: &EskerServer, tool: &str, arguments: Value) -> (Value, bool) {
    let arguments = arguments.as_object().expect("object arguments").clone();
    let reply = server.call(tool, &arguments).await.expect("known tool");
    (reply.envelope, reply.is_error)
}

#[tokio::test]
async fn both_answer_paths_keep_to_the_scope() {
    let projects = projects();
    let scope = ProjectScope::of_launch_dir(&projects.project_a).expect("scope");
    let session_b = &projects.sessions_b[0];
    let (turn_b, event_b) = turn_and_event_of(&projects.data, session_b);
    for path in [AnswerPath::Fastest, AnswerPath::SqlOnly] {
        let catalog = Catalog::open_with(&projects.data, path)
            .expect("store opens")
            .with_project_scope(Some(scope.clone()));
        let snapshot = catalog.snapshot().await.expect("generation opens");
        if path == AnswerPath::Fastest {
            snapshot.ready_directory().await.expect("directory loads");
            assert!(
                snapshot.directory().is_some(),
                "the index tables are in memory"
            );
        }
        let server = EskerServer::new(catalog);
        let (listed, _) = call_in_process(&server, "list_sessions", every_session()).await;
        let listed = sorted(strings_at(&listed["data"]["sessions"], "/id"));
        assert_eq!(listed, projects.sessions_a, "{path:?}");
        let search = json!({"query": WORD, "n_hits": 50});
        let (found, _) = call_in_process(&server, "search_sessions", search).await;
        let found = sorted(strings_at(&found["data"]["results"], "/session/id"));
        assert_eq!(found, projects.sessions_a, "{path:?}");
        for id_b in [session_b, &turn_b, &event_b] {
            let (envelope, is_error) = call_in_process(&server, "open", json!({"id": id_b})).await;
            assert!(is_error, "{path:?} {id_b}");
            assert_eq!(envelope["error"]["code"], "not_found", "{path:?} {id_b}");
        }
        let within = json!({"query": WORD, "within_id": turn_b});
        let (envelope, _) = call_in_process(&server, "search_sessions", within).await;
        assert_eq!(envelope["error"]["code"], "not_found", "{path:?}");
        let (opened, is_error) =
            call_in_process(&server, "open", json!({"id": projects.sessions_a[0]})).await;
        assert!(!is_error, "{path:?}: {opened}");
    }
}

/// A team server's scopes (`Catalog::scoped`, issue #54) read one warm generation: the same
/// readers and directory, each with its own in-scope session ids.
#[tokio::test]
async fn scoped_catalogs_share_the_generation_and_keep_their_own_scope() {
    let projects = projects();
    let everything = Catalog::open(&projects.data).expect("store opens");
    let roots = vec![text(&projects.project_a)];
    let project_a = everything.scoped(Some(ServingScope::of_project(
        ProjectScope::of_roots(&roots).expect("scope"),
    )));
    let unscoped = everything.snapshot().await.expect("generation opens");
    let scoped = project_a.snapshot().await.expect("generation opens");
    assert!(
        std::ptr::eq(&**unscoped, &**scoped),
        "one GenerationReaders for both scopes"
    );
    assert!(unscoped.sessions_in_scope().await.unwrap().is_none());
    let in_scope = scoped.sessions_in_scope().await.unwrap().expect("scoped");
    assert_eq!(
        sorted(in_scope.iter().cloned().collect()),
        projects.sessions_a
    );
    let server = EskerServer::new(project_a);
    let (found, _) = call_in_process(&server, "search_sessions", json!({"query": WORD})).await;
    let found = sorted(strings_at(&found["data"]["results"], "/session/id"));
    assert_eq!(found, projects.sessions_a);
}

/// Moraine's smoke test launches `--project-only` in a project directory and checks only that
/// the initialize instructions say `scoped` (issue #48): so they must wherever the server
/// starts — a plain directory outside any Git checkout, or one whose name is not UTF-8 — for
/// every profile it can scope.
#[tokio::test]
async fn project_only_instructions_say_scoped_outside_git_too() {
    let projects = projects();
    let base = tempfile::Builder::new()
        .prefix("esker-no-git-")
        .tempdir()
        .expect("temp dir");
    let plain = base.path().canonicalize().expect("canonical").join("plain");
    fs::create_dir_all(&plain).expect("plain dir");
    let mut launch_dirs = vec![plain.clone()];
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9-project");
        let not_utf8 = base.path().join(name);
        fs::create_dir_all(&not_utf8).expect("non-UTF-8 dir");
        launch_dirs.push(not_utf8);
    }
    for launch_dir in &launch_dirs {
        assert!(
            launch_dir.ancestors().all(|dir| !dir.join(".git").exists()),
            "{} is outside any Git checkout",
            launch_dir.display()
        );
        for profile in SCOPED_PROFILES {
            let client = EskerClient::start_in_with(
                &projects.data,
                launch_dir,
                &["--project-only", "--profile", profile],
            )
            .await;
            let instructions = client
                .service()
                .peer_info()
                .and_then(|info| info.instructions.clone())
                .unwrap_or_default();
            assert!(
                instructions.contains("scoped"),
                "{profile} in {}: {instructions}",
                launch_dir.display()
            );
        }
    }
    let client = EskerClient::start_in_with(&projects.data, &plain, &["--project-only"]).await;
    let instructions = client
        .service()
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.contains(&format!("scoped to the project at {}", text(&plain))),
        "outside Git the launch directory is the project: {instructions}"
    );
    assert!(
        listed_sessions(&client).await.is_empty(),
        "no session ran there"
    );
}
