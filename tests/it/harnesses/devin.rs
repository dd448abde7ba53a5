//! Devin CLI (`devin`): a home holding `tests/standalone-fixtures/devin/cli` as
//! `~/.local/share/devin/cli` (two ATIF trajectories under `transcripts/` and the `sessions.db`
//! beside them), indexed with no PATH from the default location. Every count is also taken from
//! the raw trajectories by this test's own reading (a prompt is a `user` step with text that
//! Devin does not mark `is_user_input: false`; a reply an `agent` step with a message; a call a
//! `tool_calls` entry; a result an `observation.results` entry, failed on a non-zero
//! `extra.exit_code`); the step that is not an object is skipped with a counted warning, the
//! store row gives title, cwd, model and start (epoch seconds), token usage is each step's
//! `metrics` (or the legacy `metadata.metrics`), resume is `devin --resume`, `esker doctor`
//! lists the folder, a half-written trajectory waits and an appended turn adds exactly its
//! events.
//!
//! The live store (format `devin_db`): a home whose `sessions.db` is built here from
//! `tests/standalone-fixtures/devin-live/store.json`, counted by this test's own walk of each
//! session's `message_nodes` forest (the main chain, the chains a compaction replaced, a copied
//! message once, and each sub-agent's chain, from the `subagent/chain_node_id` a result of the
//! conversation names, as a session of its own); the hidden session is not read, the one whose
//! trajectory is written is the trajectory's, a sub-agent is a child session named after its
//! parent and linked from the `run_subagent` result, new nodes add exactly their events, and a
//! trajectory written at the end takes the session over. A child session goes with its parent:
//! when the CLI hides the parent, and when the parent's trajectory is written.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, columns, count_events, doctor_location,
    index_home, indexed_counts, number, resume_line, rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

const MAIN: &str = "bald-ketch";
const LEGACY: &str = "quiet-otter";
/// The live session that ran a sub-agent, and the sub-agent's child session.
const OSPREY: &str = "gilded-osprey";
const OSPREY_CHILD: &str = "gilded-osprey-sub-5b1e07c2";
/// Devin's sessions in the store.
const DEVIN: &str = "source = 'devin'";

fn cli_folder(home: &Path) -> PathBuf {
    home.join(".local/share/devin/cli")
}

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("devin").join("cli"),
        &cli_folder(home.path()),
    );
    home
}

fn trajectories(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(cli_folder(home).join("transcripts"))
        .expect("transcripts")
        .map(|entry| entry.expect("entry").path())
        .collect();
    found.sort();
    found
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("JSON")
}

/// Text of an ATIF message: a string or content parts.
fn message_text(message: &Value) -> String {
    match message {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|part| part["type"] == "text")
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// This test's own reading of the raw trajectories; also returns the records that are not
/// steps.
fn raw_counts(files: &[PathBuf]) -> (Counts, i64) {
    let mut counts = Counts::default();
    let mut not_steps = 0;
    for file in files {
        counts.sessions += 1;
        not_steps += count_steps(&read_json(file), &mut counts);
    }
    (counts, not_steps)
}

/// Counts one trajectory's steps into `counts`; returns the records that are not steps.
fn count_steps(trajectory: &Value, counts: &mut Counts) -> i64 {
    let mut not_steps = 0;
    for step in trajectory["steps"].as_array().expect("steps") {
        if !step.is_object() {
            not_steps += 1;
            continue;
        }
        let has_text = !message_text(&step["message"]).trim().is_empty();
        match step["source"].as_str() {
            Some("user") => {
                let injected = step["metadata"]["is_user_input"] == json!(false);
                counts.prompts += i64::from(has_text && !injected);
            }
            Some("agent") => {
                counts.replies += i64::from(has_text);
                counts.reasoning += i64::from(step["reasoning_content"].is_string());
                counts.calls += step["tool_calls"].as_array().map_or(0, Vec::len) as i64;
            }
            _ => {}
        }
        for result in step["observation"]["results"]
            .as_array()
            .into_iter()
            .flatten()
        {
            counts.results += 1;
            let exit = result["extra"]["exit_code"].as_i64().unwrap_or(0);
            counts.failed += i64::from(exit != 0);
        }
    }
    not_steps
}

#[test]
fn devin_sessions_are_read_from_their_trajectories_with_the_store_row() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let (raw, not_steps) = raw_counts(&trajectories(home.path()));
    assert_eq!(
        (raw, not_steps),
        (
            Counts {
                sessions: 2,
                prompts: 3,
                replies: 5,
                reasoning: 1,
                calls: 5,
                results: 5,
                failed: 1,
            },
            1
        ),
        "the fixture, as this test reads it"
    );
    for expected in ["devin_trajectory=2", "parser warnings: 1;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(indexed_counts(dir, DEVIN), raw, "every step read once");
    assert_tools_paired(dir);

    // The store row gives title, cwd, model and the start (epoch seconds); a trajectory with no
    // row keeps its own facts (its title is then the first prompt, as for any untitled session).
    let facts: Vec<Value> = rows(
        dir,
        "SELECT native_id, title, cwd, model FROM sessions WHERE source = 'devin' \
         ORDER BY native_id",
    )
    .into_iter()
    .map(|row| {
        json!([
            row.get("native_id"),
            row.get("title"),
            row.get("cwd"),
            row.get("model")
        ])
    })
    .collect();
    assert_eq!(
        facts,
        [
            json!([
                MAIN,
                "Fix heron's failing parse test",
                "/home/dev/src/heron",
                "claude-sonnet-4-6"
            ]),
            json!([LEGACY, "list the files", null, "swe-1-7"]),
        ]
    );
    let main = format!("session:devin-{MAIN}");
    let started = rows(
        dir,
        &format!("SELECT started_at FROM sessions WHERE session_id = '{main}'"),
    );
    assert!(
        started[0]["started_at"]
            .as_str()
            .is_some_and(|time| time.starts_with("2026-11-18T11:06:40")),
        "created_at 1795000000 read as seconds, before the first step: {started:?}"
    );

    // Prompts are the user's words; injected context and the system prompt are `system`.
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' AND session_id = '{main}' \
                 ORDER BY seq"
            )
        ),
        [
            "Why does `cargo test` fail in heron? Fix it.",
            "Also find every caller of parse.",
        ]
    );
    assert_eq!(
        count_events(dir, DEVIN, "type = 'system'"),
        2,
        "the system prompt and the injected reminder"
    );
    let failed = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["tool_name"], "exec");
    assert_eq!(failed[0]["exit_code"], 101);

    // Token usage: each step's metrics (prompt tokens include the cached ones).
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(12000 + 15000 + 15500 + 16000 + 16500)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(cached_input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(9000 + 12000 + 15000 + 15500 + 16000)
    );
    // The legacy file's `metadata.metrics`: input plus both cache buckets.
    assert_eq!(
        number(
            dir,
            &format!(
                "SELECT sum(input_tokens) FROM events WHERE session_id = 'session:devin-{LEGACY}'"
            )
        ),
        Some(300 + 100 + 50 + 40 + 450)
    );

    // Resume by id in the session's directory.
    let resume = resume_line(home.path(), dir, &main);
    assert_eq!(
        resume,
        format!("cd /home/dev/src/heron && devin --resume {MAIN}")
    );

    // `esker doctor` lists the trajectory folder with its two sessions.
    let folder = cli_folder(home.path()).join("transcripts");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "devin-cli");
    assert_eq!(location["sessions"].as_u64(), Some(2), "{location:#}");
}

#[test]
fn an_appended_turn_adds_exactly_its_events_and_a_half_written_trajectory_waits() {
    let home = home_with_fixture();
    let live = cli_folder(home.path())
        .join("transcripts")
        .join(format!("{MAIN}.json"));
    let whole_text = fs::read_to_string(&live).expect("trajectory");
    let mut trajectory: Value = serde_json::from_str(&whole_text).expect("JSON");
    let steps = trajectory["steps"].as_array().expect("steps").clone();
    // Written after the first turn (the system prompt and five steps).
    trajectory["steps"] = Value::Array(steps[..5].to_vec());
    let head = serde_json::to_string_pretty(&trajectory).expect("JSON");
    let (_, added) = assert_rest_adds(
        home.path(),
        &live,
        (&head, &whole_text),
        DEVIN,
        |data, before| {
            // Caught mid-write: not JSON yet, nothing read, nothing lost.
            fs::write(&live, &whole_text[..whole_text.len() / 2]).expect("half");
            let waiting = index_home(home.path(), data);
            assert!(waiting.contains("1 held back"), "{waiting}");
            assert_eq!(count_events(data, DEVIN, "true"), before);
        },
    );
    // The injected reminder; a prompt; a reply, a call and its result; a reply.
    assert_eq!(added, 6);
}

// ---- the live store: sessions without a trajectory, read from `sessions.db`'s `message_nodes`

/// The live-store fixture (`tests/standalone-fixtures/devin-live/store.json`).
fn live_fixture() -> Value {
    read_json(&standalone_fixture("devin-live").join("store.json"))
}

/// The v17 `sessions` and `message_nodes` DDL (also the Devin CLI store of
/// `windsurf_acp.rs`'s pairing tests).
pub(super) const LIVE_DDL: &str = "
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY, working_directory TEXT NOT NULL, backend_type TEXT NOT NULL,
      model TEXT NOT NULL, agent_mode TEXT NOT NULL, created_at INTEGER NOT NULL,
      last_activity_at INTEGER NOT NULL, title TEXT, main_chain_id INTEGER,
      shell_last_seen_index INTEGER DEFAULT 0, cogs_json TEXT, workspace_dirs TEXT,
      hidden INTEGER NOT NULL DEFAULT 0, metadata TEXT);
    CREATE TABLE message_nodes (
      row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
      node_id INTEGER NOT NULL, parent_node_id INTEGER, chat_message TEXT NOT NULL,
      created_at INTEGER NOT NULL, metadata TEXT, UNIQUE(session_id, node_id));";

/// Inserts one node of the fixture's shape into the store.
fn insert_node(connection: &rusqlite::Connection, node: &Value) {
    let metadata = Some(&node["metadata"])
        .filter(|metadata| !metadata.is_null())
        .map(Value::to_string);
    connection
        .execute(
            "INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, \
             created_at, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![
                node["session_id"].as_str(),
                node["node_id"].as_i64(),
                node["parent_node_id"].as_i64(),
                node["chat_message"].to_string(),
                node["created_at"].as_i64(),
                metadata
            ],
        )
        .expect("node");
}

/// A home whose Devin CLI folder holds the fixture's `sessions.db` (built here) and trajectory.
fn home_with_live_store() -> (tempfile::TempDir, Value) {
    let fixture = live_fixture();
    let home = tempfile::tempdir().expect("temp dir");
    let cli = cli_folder(home.path());
    fs::create_dir_all(cli.join("transcripts")).expect("mkdir");
    let connection = rusqlite::Connection::open(cli.join("sessions.db")).expect("create store");
    connection.execute_batch(LIVE_DDL).expect("tables");
    for session in fixture["sessions"].as_array().expect("sessions") {
        connection
            .execute(
                "INSERT INTO sessions (id, working_directory, backend_type, model, agent_mode, \
                 created_at, last_activity_at, title, main_chain_id, hidden) \
                 VALUES (?1, '/home/dev/src/kestrel', 'windsurf', ?2, 'normal', 1795000000, \
                 1795000100, ?3, ?4, ?5)",
                rusqlite::params![
                    session[0].as_str(),
                    session[2].as_str(),
                    session[1].as_str(),
                    session[3].as_i64(),
                    session[4].as_i64()
                ],
            )
            .expect("session");
    }
    for node in fixture["nodes"].as_array().expect("nodes") {
        insert_node(&connection, node);
    }
    for (id, trajectory) in fixture["trajectories"].as_object().expect("trajectories") {
        fs::write(
            cli.join("transcripts").join(format!("{id}.json")),
            trajectory.to_string(),
        )
        .expect("trajectory");
    }
    (home, fixture)
}

/// This test's own reading of a session's forest: the conversation is [`chain_of`] the node
/// `main_chain_id` names (else the largest node); a node of it whose `chat_message` extensions
/// name a `subagent/chain_node_id` (a `run_subagent` result) starts a sub-agent's chain, walked
/// the same way without the nodes already taken, a session of its own. Each is counted by
/// [`count_nodes`].
fn count_forest(nodes: &[&Value], head: Option<i64>, counts: &mut Counts) {
    let by_id: HashMap<i64, &Value> = nodes
        .iter()
        .map(|node| (node["node_id"].as_i64().expect("node id"), *node))
        .collect();
    let kept = chain_of(&by_id, head.or_else(|| by_id.keys().max().copied()));
    count_nodes(&by_id, &kept, counts);
    let mut taken = kept.clone();
    for id in &kept {
        let extensions = &by_id[id]["chat_message"]["metadata"]["extensions"];
        let tip = extensions["subagent/chain_node_id"].as_i64();
        let chain: BTreeSet<i64> = chain_of(&by_id, tip)
            .into_iter()
            .filter(|node| taken.insert(*node))
            .collect();
        if !chain.is_empty() {
            counts.sessions += 1;
            count_nodes(&by_id, &chain, counts);
        }
    }
}

/// The nodes of the chain from `head` up `parent_node_id`, plus the chains `summarized_from`
/// names (a compaction's continuation names the head of the chain it replaced).
fn chain_of(by_id: &HashMap<i64, &Value>, head: Option<i64>) -> BTreeSet<i64> {
    let mut kept = BTreeSet::new();
    let mut heads: Vec<i64> = head.into_iter().collect();
    while let Some(start) = heads.pop() {
        let mut next = Some(start);
        while let Some(id) = next {
            let Some(node) = by_id.get(&id) else { break };
            if !kept.insert(id) {
                break;
            }
            heads.extend(node["metadata"]["summarized_from"].as_i64());
            next = node["parent_node_id"].as_i64();
        }
    }
    kept
}

/// Counts one session's nodes `ids`, in node order, a `message_id` read once: a prompt (a user
/// node with text Devin does not mark `is_user_input: false`), a reply (assistant text),
/// reasoning (`thinking.thinking`), calls (`tool_calls` entries) and results (tool nodes,
/// failed when `chisel/tool_result_meta` says `success: false` or `chisel/terminal_output` a
/// non-zero exit code).
fn count_nodes(by_id: &HashMap<i64, &Value>, ids: &BTreeSet<i64>, counts: &mut Counts) {
    let mut read_ids = HashSet::new();
    for id in ids {
        let message = &by_id[id]["chat_message"];
        if !read_ids.insert(message["message_id"].to_string()) {
            continue;
        }
        let has_text = message["content"]
            .as_str()
            .is_some_and(|text| !text.is_empty());
        let extensions = &message["metadata"]["extensions"];
        match message["role"].as_str() {
            Some("user") => {
                let typed = message["metadata"]["is_user_input"] != json!(false);
                counts.prompts += i64::from(has_text && typed);
            }
            Some("assistant") => {
                counts.replies += i64::from(has_text);
                counts.reasoning += i64::from(message["thinking"]["thinking"].is_string());
                counts.calls += message["tool_calls"].as_array().map_or(0, Vec::len) as i64;
            }
            Some("tool") => {
                counts.results += 1;
                let unsuccessful = extensions["chisel/tool_result_meta"]["success"] == json!(false);
                let exit = extensions["chisel/terminal_output"]["exit"]["exit_code"]
                    .as_i64()
                    .unwrap_or(0);
                counts.failed += i64::from(unsuccessful || exit != 0);
            }
            _ => {}
        }
    }
}

/// This test's reading of the whole fixture: every session the CLI has not hidden, from its
/// trajectory when it has one ([`count_steps`]: a trajectory names no sub-agent session), else
/// from its forest, its sub-agents' chains included.
fn live_raw_counts(fixture: &Value) -> Counts {
    let mut counts = Counts::default();
    for session in fixture["sessions"].as_array().expect("sessions") {
        if session[4] == json!(1) {
            continue;
        }
        counts.sessions += 1;
        let id = session[0].as_str().expect("id");
        if let Some(trajectory) = fixture["trajectories"].get(id) {
            count_steps(trajectory, &mut counts);
            continue;
        }
        let nodes: Vec<&Value> = fixture["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .filter(|node| node["session_id"] == json!(id))
            .collect();
        count_forest(&nodes, session[3].as_i64(), &mut counts);
    }
    counts
}

#[test]
fn sessions_without_a_trajectory_are_read_from_the_live_store() {
    let (home, fixture) = home_with_live_store();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let raw = live_raw_counts(&fixture);
    assert_eq!(
        raw,
        Counts {
            sessions: 5,
            prompts: 6,
            replies: 6,
            reasoning: 1,
            calls: 4,
            results: 4,
            failed: 1,
        },
        "the fixture, as this test reads it"
    );
    for expected in ["devin_db=1", "devin_trajectory=1", "parser warnings: 0;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(indexed_counts(dir, DEVIN), raw, "every node read once");
    assert_tools_paired(dir);

    // The hidden session is not read; the finished one is its trajectory's, not its nodes'.
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM sessions WHERE native_id = 'dusty-wren'"
        ),
        Some(0)
    );
    assert_eq!(
        texts(
            dir,
            "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
             WHERE s.native_id = 'ember-lark' AND e.type = 'user_input'"
        ),
        ["The prompt as the trajectory holds it"]
    );

    // The live session: the store's row, its generation model for an empty `model`, its usage;
    // the store is the source of both sessions read from it.
    let facts = columns(
        dir,
        "SELECT native_id, title, cwd, model FROM sessions \
         WHERE native_id IN ('amber-kestrel', 'cobalt-finch') ORDER BY native_id",
        &["native_id", "title", "cwd", "model"],
    );
    assert_eq!(
        facts,
        [
            json!([
                "amber-kestrel",
                "Fix the parser",
                "/home/dev/src/kestrel",
                "swe-2-high"
            ]),
            json!([
                "cobalt-finch",
                "Dependency audit",
                "/home/dev/src/kestrel",
                "swe-1-6"
            ]),
        ]
    );
    for source in texts(
        dir,
        "SELECT source_path FROM sessions WHERE native_id IN ('amber-kestrel', 'cobalt-finch')",
    ) {
        assert!(source.ends_with("devin/cli/sessions.db"), "{source}");
    }
    assert_eq!(
        number(
            dir,
            "SELECT sum(e.input_tokens) FROM events e JOIN sessions s \
             ON s.session_id = e.session_id WHERE s.native_id = 'amber-kestrel'"
        ),
        Some(200 + 1000),
        "input with both cache buckets, as in the legacy trajectory metrics"
    );
    let failed = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["tool_name"], "exec");
    assert_eq!(failed[0]["exit_code"], 1);

    // The compacted session reads the chain it replaced; its continuation is the compaction.
    assert_eq!(
        texts(
            dir,
            "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
             WHERE s.native_id = 'cobalt-finch' AND e.type = 'user_input' ORDER BY e.seq"
        ),
        ["Audit the dependencies", "Now update them"]
    );
    assert_eq!(count_events(dir, DEVIN, "type = 'compaction'"), 1);
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE text LIKE '%discarded%' OR text LIKE '%Summarize%'"
        ),
        Vec::<String>::new(),
        "nodes off the chain are not read"
    );

    // The sub-agent's chain is a child session `<session>-sub-<agent id>` naming the session as
    // its parent: titled by its `run_subagent` call's `title`, its `subagent/profile_name` as
    // agent name, its model its own nodes' `generation_model`, its cwd the session's.
    let children = columns(
        dir,
        &format!(
            "SELECT native_id, title, agent_name, model, cwd FROM sessions \
             WHERE parent_session_id = (SELECT session_id FROM sessions \
             WHERE native_id = '{OSPREY}')"
        ),
        &["native_id", "title", "agent_name", "model", "cwd"],
    );
    assert_eq!(
        children,
        [json!([
            OSPREY_CHILD,
            "Config survey",
            "Explore",
            "swe-1-5",
            "/home/dev/src/kestrel"
        ])]
    );
    let agent = fixture["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find_map(|node| {
            let extensions = &node["chat_message"]["metadata"]["extensions"];
            extensions["subagent/agent_id"].as_str()
        })
        .expect("the fixture's sub-agent");
    assert_eq!(
        OSPREY_CHILD,
        format!("{OSPREY}-sub-{agent}"),
        "<parent>-sub-<agent id>"
    );
    assert_eq!(
        number(
            dir,
            &format!(
                "SELECT count(*) FROM sessions WHERE parent_session_id IS NOT NULL \
                 AND native_id <> '{OSPREY_CHILD}'"
            )
        ),
        Some(0),
        "no other session is a child"
    );
    assert!(
        texts(
            dir,
            &format!("SELECT source_path FROM sessions WHERE native_id = '{OSPREY_CHILD}'")
        )[0]
        .ends_with("devin/cli/sessions.db")
    );
    // The child holds the sub-agent's chain (its system prompt unread), none of the
    // conversation's nodes; the conversation keeps its call and the call's result.
    let kinds = |native_id: &str| {
        texts(
            dir,
            &format!(
                "SELECT e.type FROM events e JOIN sessions s ON s.session_id = e.session_id \
                 WHERE s.native_id = '{native_id}' ORDER BY e.seq"
            ),
        )
    };
    assert_eq!(
        kinds(OSPREY_CHILD),
        [
            "user_input",
            "tool_call",
            "tool_response",
            "assistant_response"
        ]
    );
    assert_eq!(
        kinds(OSPREY),
        [
            "user_input",
            "tool_call",
            "tool_response",
            "assistant_response"
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
                 WHERE s.native_id = '{OSPREY_CHILD}' AND e.type = 'user_input'"
            )
        ),
        ["Find where the config is parsed"],
        "the task, as the sub-agent's prompt"
    );
    // The `run_subagent` result lists the child.
    let link = texts(
        dir,
        "SELECT payload FROM events WHERE type = 'tool_response' AND tool_name = 'run_subagent'",
    );
    assert_eq!(link.len(), 1, "{link:?}");
    let link: Value = serde_json::from_str(&link[0]).expect("payload is JSON");
    assert_eq!(link, json!({"subagent_session_ids": [OSPREY_CHILD]}));

    // `esker doctor` counts at the store every session read from it, the child among them.
    let store = cli_folder(home.path()).join("sessions.db");
    let location = doctor_location(home.path(), dir, &store);
    assert_eq!(location["harness"], "devin-cli");
    assert_eq!(
        location["sessions"].as_u64(),
        Some(live_store_sessions(&fixture)),
        "{location:#}"
    );
}

/// A running session's new nodes (the CLI moving `main_chain_id` to them) add exactly their
/// events; once its trajectory is written the session is the trajectory's.
#[test]
fn a_live_session_grows_with_its_nodes_and_then_becomes_its_trajectory() {
    let (home, fixture) = home_with_live_store();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);

    let store = cli_folder(home.path()).join("sessions.db");
    let connection = rusqlite::Connection::open(&store).expect("open the store");
    for (id, parent, message) in [
        (
            8,
            7,
            json!({"message_id": "u-8", "role": "user", "content": "Also run clippy",
                "metadata": {"is_user_input": true}}),
        ),
        (
            9,
            8,
            json!({"message_id": "a-9", "role": "assistant", "content": "Clippy is clean."}),
        ),
    ] {
        insert_node(
            &connection,
            &json!({"session_id": "amber-kestrel", "node_id": id, "parent_node_id": parent,
                "chat_message": message, "created_at": 1_795_000_000 + id, "metadata": null}),
        );
    }
    connection
        .execute(
            "UPDATE sessions SET main_chain_id = 9, last_activity_at = 1795000200 \
             WHERE id = 'amber-kestrel'",
            [],
        )
        .expect("move the chain head");
    drop(connection);
    let grown = index_home(home.path(), dir);
    assert!(grown.contains("devin_db=1"), "{grown}");
    assert!(grown.contains("events: 2 new"), "{grown}");
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    assert_eq!(
        indexed_counts(dir, DEVIN),
        indexed_counts(one_shot.path(), DEVIN)
    );

    // The session ends: its trajectory (the same conversation, with its system prompt) is
    // written, and holds more events than the live copy; it replaces it.
    let trajectory = json!({"schema_version": "ATIF-v1.7", "session_id": "amber-kestrel",
        "agent": {"name": "devin", "version": "3000.11.3", "model_name": "swe-2-high"},
        "steps": [
            {"step_id": 1, "source": "system", "message": "You are Devin."},
            {"step_id": 2, "source": "user", "message": "Run the tests"},
            {"step_id": 3, "source": "agent", "message": "Running.",
             "reasoning_content": "Use cargo.",
             "tool_calls": [{"tool_call_id": "exec_0#1", "function_name": "exec",
                 "arguments": {"command": "cargo test"}}],
             "observation": {"results": [{"source_call_id": "exec_0#1",
                 "content": "1 failed", "extra": {"exit_code": 1}}]}},
            {"step_id": 4, "source": "agent", "message": "",
             "tool_calls": [{"tool_call_id": "call-2", "function_name": "read_file",
                 "arguments": {"path": "src/parse.rs"}}],
             "observation": {"results": [{"source_call_id": "call-2",
                 "content": "pub fn parse() {}"}]}},
            {"step_id": 5, "source": "agent",
             "message": "Fixed: parse returns early on empty input."},
            {"step_id": 6, "source": "user", "message": "Also run clippy"},
            {"step_id": 7, "source": "agent", "message": "Clippy is clean."}]});
    let live_events = count_events(dir, "native_id = 'amber-kestrel'", "true");
    fs::write(
        cli_folder(home.path()).join("transcripts/amber-kestrel.json"),
        trajectory.to_string(),
    )
    .expect("trajectory");
    let ended = index_home(home.path(), dir);
    assert!(ended.contains("devin_trajectory=1"), "{ended}");
    assert_eq!(
        count_events(dir, "native_id = 'amber-kestrel'", "true"),
        live_events + 1,
        "the trajectory's events (its system prompt besides the live copy's)"
    );
    assert!(
        texts(
            dir,
            "SELECT source_path FROM sessions WHERE native_id = 'amber-kestrel'"
        )[0]
        .ends_with("transcripts/amber-kestrel.json")
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM sessions WHERE source = 'devin'"),
        Some(live_raw_counts(&fixture).sessions),
        "one session, not two"
    );
}

/// The sessions `esker doctor` should count at the live store: every session
/// [`live_raw_counts`] counts (sub-agents' included) but those read from their trajectory (each
/// trajectory of the fixture is a visible session's).
fn live_store_sessions(fixture: &Value) -> u64 {
    let trajectories = fixture["trajectories"]
        .as_object()
        .expect("trajectories")
        .len();
    let sessions = live_raw_counts(fixture).sessions - trajectories as i64;
    u64::try_from(sessions).expect("a count")
}

/// The session ids of the delegating session and of its sub-agent's child session.
fn osprey_family(dir: &Path) -> Vec<String> {
    texts(
        dir,
        &format!(
            "SELECT session_id FROM sessions WHERE native_id IN ('{OSPREY}', '{OSPREY_CHILD}') \
             ORDER BY native_id"
        ),
    )
}

/// How many rows of `table` belong to one of the sessions `ids`.
fn rows_of_sessions(dir: &Path, table: &str, ids: &[String]) -> Option<i64> {
    let listed = ids
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(", ");
    number(
        dir,
        &format!("SELECT count(*) FROM {table} WHERE session_id IN ({listed})"),
    )
}

/// The CLI retires a session by hiding its row (`hidden = 1`, no longer read): the session
/// leaves the store, and its sub-agent's child session, read from the same row, goes with it;
/// neither keeps an event, and the other sessions stay as they were.
#[test]
fn a_hidden_session_takes_its_sub_agent_session_with_it() {
    let (home, mut fixture) = home_with_live_store();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);
    let family = osprey_family(dir);
    assert_eq!(family.len(), 2, "the session and its child: {family:?}");
    let events = rows_of_sessions(dir, "events", &family);
    assert!(events.is_some_and(|events| events > 0), "{events:?}");

    let store = cli_folder(home.path()).join("sessions.db");
    let connection = rusqlite::Connection::open(&store).expect("open the store");
    connection
        .execute("UPDATE sessions SET hidden = 1 WHERE id = ?1", [OSPREY])
        .expect("hide the session");
    drop(connection);
    index_home(home.path(), dir);

    assert_eq!(rows_of_sessions(dir, "sessions", &family), Some(0));
    assert_eq!(rows_of_sessions(dir, "events", &family), Some(0));
    for session in fixture["sessions"].as_array_mut().expect("sessions") {
        if session[0] == OSPREY {
            session[4] = json!(1);
        }
    }
    assert_eq!(
        indexed_counts(dir, DEVIN),
        live_raw_counts(&fixture),
        "the fixture with the session hidden"
    );
    let location = doctor_location(home.path(), dir, &store);
    assert_eq!(
        location["sessions"].as_u64(),
        Some(live_store_sessions(&fixture)),
        "{location:#}"
    );
}

/// The CLI writes a delegating session's trajectory when it ends: the session is then the
/// trajectory's, and the child session its live nodes gave goes (a trajectory names no
/// sub-agent session esker reads: its results only list sub-agent trajectories' ids). Only the
/// trajectory is written: `sessions.db` is left as it was, as when the CLI saved its last nodes
/// before an index pass and wrote the trajectory after it.
#[test]
fn a_trajectory_written_for_a_delegating_session_leaves_no_live_sub_agent_behind() {
    let (home, mut fixture) = home_with_live_store();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);
    let family = osprey_family(dir);
    assert_eq!(family.len(), 2, "the session and its child: {family:?}");
    let child = &family[1..];

    let trajectory = json!({"schema_version": "ATIF-v1.7", "session_id": OSPREY,
        "agent": {"name": "devin", "version": "3000.11.3", "model_name": "swe-1-6"},
        "steps": [
            {"step_id": 1, "source": "system", "message": "You are Devin."},
            {"step_id": 2, "source": "user", "message": "Where is the config parsed?"},
            {"step_id": 3, "source": "agent", "message": "",
             "tool_calls": [{"tool_call_id": "spawn-1", "function_name": "run_subagent",
                 "arguments": {"title": "Config survey",
                     "task": "Find where the config is parsed",
                     "profile": "subagent_explore"}}],
             "observation": {"results": [{"source_call_id": "spawn-1",
                 "content": "parse_config in src/config.rs parses it."}]}},
            {"step_id": 4, "source": "agent",
             "message": "The config is parsed in src/config.rs."}]});
    fs::write(
        cli_folder(home.path()).join(format!("transcripts/{OSPREY}.json")),
        trajectory.to_string(),
    )
    .expect("trajectory");
    let ended = index_home(home.path(), dir);
    assert!(ended.contains("devin_trajectory=1"), "{ended}");

    assert_eq!(rows_of_sessions(dir, "sessions", child), Some(0));
    assert_eq!(rows_of_sessions(dir, "events", child), Some(0));
    assert!(
        texts(
            dir,
            &format!("SELECT source_path FROM sessions WHERE native_id = '{OSPREY}'")
        )[0]
        .ends_with(&format!("transcripts/{OSPREY}.json"))
    );
    fixture["trajectories"][OSPREY] = trajectory;
    assert_eq!(
        indexed_counts(dir, DEVIN),
        live_raw_counts(&fixture),
        "the session as its trajectory holds it, no child"
    );
}
