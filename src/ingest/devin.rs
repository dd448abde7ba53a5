//! Devin CLI (Cognition's `devin` terminal agent) sessions: one ATIF trajectory JSON per
//! session, `<data>/devin/cli/transcripts/<session id>.json`, read with the session's row of
//! `<data>/devin/cli/sessions.db` beside the folder. `<data>` is `$XDG_DATA_HOME` (default
//! `~/.local/share`) on Linux, `~/Library/Application Support` on macOS, `%APPDATA%` on Windows.
//!
//! A trajectory is ATIF (Agent Trajectory Interchange Format, Harbor's RFC 0001):
//! `{schema_version ("ATIF-v1.x"), session_id, agent {name, version, model_name, extra},
//! steps [...], final_metrics {total_prompt_tokens, total_completion_tokens,
//! total_cached_tokens, total_cost_usd, total_steps, extra}, notes, extra}`, each step
//! `{step_id, timestamp (ISO 8601), source (system | user | agent), model_name, message (a
//! string, or ContentPart objects `{type: text, text}` / `{type: image, ...}` from v1.6),
//! reasoning_content, tool_calls [{tool_call_id, function_name, arguments}], observation
//! {results [{source_call_id, content, subagent_trajectory_ref [{session_id,
//! trajectory_path}]}]}, metrics {prompt_tokens (cache hits included), completion_tokens,
//! cached_tokens, cost_usd, extra}, extra}`. Devin adds per-step `metadata` / `extra`
//! (`generation_model`, `created_at`, `is_user_input`, `committed_acu_cost`; older files keep
//! their token counts in `metadata.metrics {input_tokens, output_tokens, cache_read_tokens,
//! cache_creation_tokens}`).
//!
//! What is read, per step in file order:
//! - `user`: the prompt (opens a turn); a user step Devin marks `is_user_input: false` is
//!   context the CLI injected: `system`;
//! - `system`: its message as `system`;
//! - `agent`: `reasoning_content` as reasoning, `message` as the reply, each `tool_calls` entry
//!   a call (named by `function_name`, arguments `arguments`), and each `observation.results`
//!   entry a result paired to its call by `source_call_id` (ATIF records no error status; a
//!   result whose `extra` says `is_error: true` or a non-zero `exit_code` is failed). A result
//!   that names `subagent_trajectory_ref` sessions keeps their ids in its payload;
//! - `metrics` (else `metadata.metrics`) is the step's token usage, on its reply (else its first
//!   event); when no step has any, `final_metrics`' totals go on the last reply. Costs and
//!   Devin's ACU charges are not kept (esker has no cost column).
//!
//! Steps that are not objects, or whose `source` is none of the three, are skipped with a
//! counted warning. The file is rewritten whole, so a half-written one (invalid JSON) is held
//! back and read again once complete (`ingest::recognise_whole`); a changed file is re-read
//! whole, its events keyed by step position (`s<N>:...`) so an appended step adds only its own.
//!
//! `sessions.db` (times in epoch seconds) is opened read-only and immutable (`mode=ro&
//! immutable=1`: no lock taken, no `-wal`/`-shm` created; rows still only in its WAL are not
//! seen, and the trajectory's own facts are used then). Its `sessions` row gives the title,
//! `working_directory` (the cwd: ATIF has none), `model`, `created_at` (the start).
//!
//! The same `sessions.db` is also read as a store of `indexer::grouped` (a private copy with its
//! `-wal`, through `ingest::sqlite`), for the sessions that have no trajectory: one still running
//! (the trajectory is written when it ends), or one of a CLI that wrote none (3000.11.3's
//! `transcripts/` was seen empty). Such a session is read from its `message_nodes`: a forest
//! per session (`node_id`, `parent_node_id`, `chat_message` JSON, `created_at` epoch seconds,
//! `metadata` JSON) whose conversation is the chain from `sessions.main_chain_id` (else the
//! largest `node_id`) up `parent_node_id` to a root; a compaction starts a new chain whose
//! continuation node names the old chain's head in `metadata.summarized_from`, so that chain is
//! read too (and the one it names, transitively), all of it in `node_id` order. A sub-agent runs
//! in the same forest, in a tree of its own: the `tool` node of the conversation that reports a
//! `run_subagent` result carries `metadata.extensions` `subagent/agent_id`,
//! `subagent/chain_node_id` (the head of the sub-agent's chain), `subagent/profile_name` and
//! `subagent/model`; a background run's result names the agent only, and its head is then the
//! `subagent_heads` row (schema 17) of that agent id. Each such chain (walked as the
//! conversation is, its nodes not the conversation's) is a child session `<id>-sub-<agent id>`
//! naming the session as its parent (title from the `run_subagent` call's `title` argument, the
//! profile as agent name), and the result node lists the child's id in its payload
//! (`subagent_session_ids`). Other nodes (retried or edited turns, copies made when the CLI
//! rebuilt its context, chains no result or head names, and the summarizer's thread) are not
//! read, and a node whose `message_id` was already read (a
//! copy) is read once. A `chat_message` is `{message_id, role, content (a string, or text
//! parts), metadata {created_at (RFC 3339), is_user_input, generation_model, metrics,
//! extensions}, tool_calls?, tool_call_id?, thinking?}`:
//! - `system`: the system prompt when its node's `metadata.is_system_prefix` is true (not read),
//!   else context the CLI added (`system`); a node with `summarized_from` is the compaction's
//!   continuation (`compaction`);
//! - `user`: the prompt (opens a turn), or `system` when `metadata.is_user_input` is false;
//! - `assistant`: `thinking` (`{thinking, signature}`, or a string) as reasoning, `content` as
//!   the reply, each `tool_calls` entry a call (`{id, name, arguments}`, or `{id, function:
//!   {name, arguments}}`), `metadata.metrics` its usage (the legacy trajectory split, above),
//!   `metadata.generation_model` its model;
//! - `tool`: the result of the call `tool_call_id` names; failed when its
//!   `metadata.extensions["chisel/tool_result_meta"].success` is false or its exit code
//!   (`chisel/terminal_output.exit.exit_code`, else, for `exec`, the `Exit code: N` its output
//!   reports) is not zero.
//!
//! Hidden sessions (`hidden = 1`: retired by the CLI, not in `devin list`) are not read. A
//! session with a trajectory is left to it (the record once written; a live copy read before is
//! replaced by it when it has at least as many events, `indexer::run`'s rule for a session found
//! in two files). Events are keyed by node (`n<node id>:...`). `tool_call_state` (ACP copies of
//! the calls) is not read.
//!
//! Sources: the ATIF RFC (harbor-framework/harbor `rfcs/0001-trajectory-format.md`, read as the
//! mirror OpenAgentsInc/openagents `docs/atif/0001-trajectory-format.md`, v1.4, and the v1.5-v1.7
//! changes as public readers use them); kenn-io/agentsview `internal/parser/devin.go`,
//! `internal/parser/devin_test.go`, `docs/internal/session-format-sources.md` (the layout,
//! `transcripts/<id>.json`, the `sessions` columns, epoch seconds) and `README.md`;
//! getagentseal/codeburn `docs/providers/devin.md` and `tests/providers/devin.test.ts` (ATIF-v1.7,
//! Devin's `metadata`/`extra` step fields, legacy `metadata.metrics`); jazzyalex/agent-sessions
//! `AgentSessionsTests/DevinSqliteReaderTests.swift` (the `sessions` and `message_nodes` schema)
//! and `AgentSessions/DevinResume/DevinResumeCommandBuilder.swift` (`devin --resume <id>`);
//! entireio/external-agents#52 (the trajectory is written when a session ends);
//! rajbos/ai-engineering-fluency#1598 (`%APPDATA%\devin\cli\sessions.db` on Windows). The live
//! reader: `docs/HARNESS-RESEARCH.md` section 5 (agentsview's `message_nodes` fallback,
//! agent-sessions' reader and its survey of 253 real sessions, roshbhatia/traces' reader, a Rust
//! adapter written against a live 3000.11.3 store, and a sanitized real v17 fixture's notes and
//! chain tests). Sub-agent chains: that fixture's notes (a real session's `tool` node with
//! `subagent/chain_node_id = 35`, `subagent/agent_id`, `subagent/profile_name`, its chain of 4
//! nodes rooted at its own system node, sharing none with the conversation; `subagent_heads`
//! empty there, a head row added only by its tests), two TypeScript readers' tests (the four
//! `subagent/*` keys on a `run_subagent` result; a background completion without a chain id)
//! and a Go reader's test (a `subagent_heads` row naming a sub-session); section 5 of
//! `docs/HARNESS-RESEARCH.md`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value, json};

use super::content::{
    UNKNOWN_TOOL, arguments_of, block_text, epoch_time, mark_terminal_replies, plain_event,
    reported_exit_code, text_field, tool_call, tool_response, totals_carrier, usage_carrier,
};
use super::sqlite::{self, row_as_object, rows_as_objects, table_names};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The session index beside the `transcripts` folder.
pub const STORE_NAME: &str = "sessions.db";
/// The folder of trajectories under Devin's `cli` data folder.
pub const TRANSCRIPTS_FOLDER: &str = "transcripts";

/// An ATIF trajectory: a `session_id`, a `steps` array and an ATIF `schema_version` or the
/// `agent` object ATIF requires.
pub fn sniff(value: &Value) -> bool {
    let atif_version = value
        .get("schema_version")
        .and_then(Value::as_str)
        .is_some_and(|version| version.starts_with("ATIF"));
    value.get("session_id").is_some_and(Value::is_string)
        && value.get("steps").is_some_and(Value::is_array)
        && (atif_version || value.get("agent").is_some_and(Value::is_object))
}

/// Devin's `cli` data folders: `$XDG_DATA_HOME/devin/cli` (default `~/.local/share`),
/// `~/Library/Application Support/devin/cli` (macOS) and `%APPDATA%\devin\cli` (Windows, when
/// set).
pub fn cli_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let data_dirs = [
        Some(env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"))),
        Some(home.join("Library").join("Application Support")),
        env("APPDATA"),
    ];
    let mut folders: Vec<PathBuf> = Vec::new();
    for data_dir in data_dirs.into_iter().flatten() {
        let folder = data_dir.join("devin").join("cli");
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    folders
}

/// The trajectory folders esker walks: `transcripts` in each of [`cli_folders`].
pub fn transcript_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    cli_folders(home, env)
        .into_iter()
        .map(|folder| folder.join(TRANSCRIPTS_FOLDER))
        .collect()
}

/// The `sessions` row of the trajectory at `path` (`<cli>/transcripts/<id>.json`) from
/// `<cli>/sessions.db`, as `{"session": {column: value}}`; `None` when the store or the row is
/// missing or cannot be read.
pub fn read_sidecar(path: &Path) -> Option<Value> {
    let id = path.file_stem()?.to_str()?;
    let store = path.parent()?.parent()?.join(STORE_NAME);
    if !store.is_file() {
        return None;
    }
    let connection = open_immutable(&store).ok()?;
    let row = row_as_object(&connection, "SELECT * FROM sessions WHERE id = ?1", id).ok()?;
    Some(json!({ "session": row }))
}

/// Opens `store` read-only and immutable: SQLite takes no lock and writes no `-wal`/`-shm`, so
/// the running CLI is never blocked and its files are never changed.
fn open_immutable(store: &Path) -> rusqlite::Result<Connection> {
    let path = store
        .to_string_lossy()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23");
    let uri = format!("file:{path}?mode=ro&immutable=1");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags)
}

// ---------------------------------------------------------------------------------------------
// The live store: `message_nodes`

/// A session of `sessions.db` read from its `message_nodes`: its row and the nodes of its
/// conversation.
#[derive(Debug, Clone)]
pub struct StoreSession {
    pub id: String,
    /// The `sessions` row, every column this version of the store has.
    pub row: Map<String, Value>,
    /// The conversation's nodes, in `node_id` order.
    pub nodes: Vec<MessageNode>,
    /// How many of the session's nodes are not on its conversation.
    pub off_chain: usize,
    /// True when no `main_chain_id` named a node and the largest node was taken as the head.
    pub head_fallback: bool,
    /// The sub-agents the conversation started whose chains the forest holds, in the order
    /// the conversation names them.
    pub subagents: Vec<SubagentChain>,
}

/// A sub-agent's chain in its parent session's forest: named on the parent's conversation by a
/// `tool` node's `subagent/agent_id` and `subagent/chain_node_id` extensions (the result of a
/// foreground `run_subagent` call), else by the `subagent_heads` row of its agent id.
#[derive(Debug, Clone)]
pub struct SubagentChain {
    /// `subagent/agent_id`.
    pub agent_id: String,
    /// `subagent/profile_name` (`Explore`, ...).
    pub profile: Option<String>,
    /// The call id of the `tool` node that names it (the parent's `run_subagent` call).
    pub call_id: Option<String>,
    /// The chain's nodes (from its head up `parent_node_id`, with what its compactions
    /// splice in), in `node_id` order; none of them on the parent's conversation.
    pub nodes: Vec<MessageNode>,
}

/// One row of `message_nodes`.
#[derive(Debug, Clone)]
pub struct MessageNode {
    pub node_id: i64,
    pub parent: Option<i64>,
    /// `created_at`, epoch seconds.
    pub created_at: Option<i64>,
    /// `chat_message`, parsed (null when it is not JSON).
    pub message: Value,
    /// The node's `metadata` (`summarized_from`, `is_system_prefix`, ...), parsed (null when
    /// absent or not JSON).
    pub metadata: Value,
}

/// `sessions.db` (or its `-wal`) in a Devin CLI data folder, `devin/cli/sessions.db`.
pub fn is_store_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    if !matches!(name, Some("sessions.db" | "sessions.db-wal")) {
        return false;
    }
    let cli = path.parent();
    let devin = cli.and_then(Path::parent);
    cli.and_then(Path::file_name)
        .is_some_and(|folder| folder == "cli")
        && devin
            .and_then(Path::file_name)
            .is_some_and(|folder| folder == "devin")
}

/// Devin's tables: `sessions` and `message_nodes` with the columns the live reader needs.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    let has = |name: &str| tables.iter().any(|table| table == name);
    if !has("sessions") || !has("message_nodes") {
        return Ok(false);
    }
    Ok(connection
        .prepare(include_str!("../../queries/devin_nodes_probe.sql"))
        .is_ok())
}

/// The trajectory of session `id` beside the store `database`: `transcripts/<id>.json`.
fn trajectory_of(database: &Path, id: &str) -> PathBuf {
    database
        .with_file_name(TRANSCRIPTS_FOLDER)
        .join(format!("{id}.json"))
}

/// The names of the trajectories beside the CLI store at `database`, sorted, one per line:
/// part of the store's fingerprint, so a trajectory written after the store's last change
/// still hands its session over.
pub fn trajectory_names(database: &Path) -> String {
    let folder = database.with_file_name(TRANSCRIPTS_FOLDER);
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort_unstable();
    names.join("\n")
}

/// Every session the CLI has not hidden, with the stamp of its row and its nodes, and whether
/// its trajectory is written (the session is then left to it).
pub fn session_stamps(
    connection: &Connection,
    database: &Path,
) -> rusqlite::Result<Vec<(String, String)>> {
    let current = connection
        .prepare(include_str!("../../queries/devin_stamp_columns_probe.sql"))
        .is_ok();
    let sql = if current {
        include_str!("../../queries/devin_session_stamps.sql")
    } else {
        include_str!("../../queries/devin_session_stamps_all.sql")
    };
    let mut stamps = sqlite::session_stamps(connection, sql)?;
    for (id, stamp) in &mut stamps {
        if trajectory_of(database, id).is_file() {
            stamp.push_str("|trajectory");
        }
    }
    Ok(stamps)
}

/// Session `id` from its `message_nodes`; `None` when its trajectory is written (the session's
/// record then) or the store no longer holds its row.
pub fn read_store_session(
    connection: &Connection,
    database: &Path,
    id: &str,
) -> rusqlite::Result<Option<StoreSession>> {
    if trajectory_of(database, id).is_file() {
        return Ok(None);
    }
    let row = match row_as_object(
        connection,
        include_str!("../../queries/devin_session.sql"),
        id,
    ) {
        Ok(row) => row,
        Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
        Err(error) => return Err(error),
    };
    let rows = rows_as_objects(
        connection,
        include_str!("../../queries/devin_message_nodes.sql"),
        id,
    )?;
    let forest: Vec<MessageNode> = rows.iter().filter_map(node_of_row).collect();
    let named_head = row
        .get("main_chain_id")
        .and_then(Value::as_i64)
        .filter(|head| forest.iter().any(|node| node.node_id == *head));
    let head = named_head.or_else(|| forest.iter().map(|node| node.node_id).max());
    let kept = conversation(&forest, head);
    let heads = subagent_heads(connection, id)?;
    let mut subagents = subagent_links(&forest, &kept, &heads);
    let mut taken = kept.clone();
    for subagent in &mut subagents {
        let head = subagent.nodes.first().map(|node| node.node_id);
        let chain = conversation(&forest, head);
        subagent.nodes = forest
            .iter()
            .filter(|node| chain.contains(&node.node_id) && taken.insert(node.node_id))
            .cloned()
            .collect();
    }
    subagents.retain(|subagent| !subagent.nodes.is_empty());
    let off_chain = forest.len() - taken.len();
    let nodes = forest
        .into_iter()
        .filter(|node| kept.contains(&node.node_id))
        .collect();
    Ok(Some(StoreSession {
        id: id.to_string(),
        row,
        nodes,
        off_chain,
        head_fallback: named_head.is_none(),
        subagents,
    }))
}

/// The `subagent_heads` rows of session `id` (agent id, head node), none before schema 17.
fn subagent_heads(connection: &Connection, id: &str) -> rusqlite::Result<HashMap<String, i64>> {
    if !table_names(connection)?
        .iter()
        .any(|table| table == "subagent_heads")
    {
        return Ok(HashMap::new());
    }
    // The heads only stand in for a chain id no result names: a table of another shape is read
    // as empty rather than failing the session.
    let Ok(rows) = rows_as_objects(
        connection,
        include_str!("../../queries/devin_subagent_heads.sql"),
        id,
    ) else {
        return Ok(HashMap::new());
    };
    Ok(rows
        .iter()
        .filter_map(|row| {
            let agent = row.get("agent_id").and_then(value_text)?;
            Some((agent, row.get("chain_node_id")?.as_i64()?))
        })
        .collect())
}

/// The sub-agents the conversation `kept` names: each `subagent/agent_id` on one of its nodes,
/// with the chain head its `subagent/chain_node_id` names, else its `subagent_heads` row (a
/// background run's result names the agent only); a head that is no node of the forest is no
/// chain. Each returned link holds its head node alone (the chain is walked by the caller).
fn subagent_links(
    forest: &[MessageNode],
    kept: &BTreeSet<i64>,
    heads: &HashMap<String, i64>,
) -> Vec<SubagentChain> {
    let mut links: Vec<SubagentChain> = Vec::new();
    for node in forest.iter().filter(|node| kept.contains(&node.node_id)) {
        let message = &node.message;
        let Some(agent_id) = extension(message, SUBAGENT_AGENT_ID).and_then(value_text) else {
            continue;
        };
        let named = extension(message, SUBAGENT_CHAIN_NODE_ID).and_then(Value::as_i64);
        let profile = extension(message, SUBAGENT_PROFILE).and_then(value_text);
        let call_id = text_field(message, "tool_call_id");
        if let Some(link) = links.iter_mut().find(|link| link.agent_id == agent_id) {
            link.profile = link.profile.take().or(profile);
            if link.call_id.is_none() && named.is_some() {
                link.call_id = call_id;
            }
            if let Some(head) = named.and_then(|head| node_of(forest, head)) {
                link.nodes = vec![head];
            }
            continue;
        }
        let head = named
            .or_else(|| heads.get(&agent_id).copied())
            .and_then(|head| node_of(forest, head));
        links.push(SubagentChain {
            agent_id,
            profile,
            call_id,
            nodes: head.into_iter().collect(),
        });
    }
    links.retain(|link| !link.nodes.is_empty());
    links
}

/// Node `node_id` of the forest, copied.
fn node_of(forest: &[MessageNode], node_id: i64) -> Option<MessageNode> {
    forest.iter().find(|node| node.node_id == node_id).cloned()
}

/// A string or a number as text (Devin writes agent ids as strings).
fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_string()).filter(|text| !text.is_empty()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The native id of a sub-agent's session: its parent's, `-sub-` and its agent id (as
/// Copilot's sub-agents are named).
pub fn subagent_session_id(parent: &str, agent_id: &str) -> String {
    format!("{parent}-sub-{agent_id}")
}

/// A `message_nodes` row as a node; `None` without a `node_id`.
fn node_of_row(row: &Map<String, Value>) -> Option<MessageNode> {
    let node_id = row.get("node_id")?.as_i64()?;
    let parsed = |column: &str| {
        row.get(column)
            .and_then(Value::as_str)
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .unwrap_or(Value::Null)
    };
    Some(MessageNode {
        node_id,
        parent: row.get("parent_node_id").and_then(Value::as_i64),
        created_at: row.get("created_at").and_then(Value::as_i64),
        message: parsed("chat_message"),
        metadata: parsed("metadata"),
    })
}

/// The extensions a `run_subagent` result (and a background run's completion) carries.
const SUBAGENT_AGENT_ID: &str = "subagent/agent_id";
const SUBAGENT_CHAIN_NODE_ID: &str = "subagent/chain_node_id";
const SUBAGENT_PROFILE: &str = "subagent/profile_name";

/// An extension of a chat message, `metadata.extensions[name]` (Devin's vendor fields: their
/// names hold `/`).
fn extension<'v>(message: &'v Value, name: &str) -> Option<&'v Value> {
    message.get("metadata")?.get("extensions")?.get(name)
}

/// The nodes of a session's conversation: the chain from `head` up `parent_node_id` to its
/// root, and the chain each of its nodes' `summarized_from` names (transitively: a compaction's
/// continuation names the head of the chain it replaced).
fn conversation(forest: &[MessageNode], head: Option<i64>) -> BTreeSet<i64> {
    let by_id: HashMap<i64, &MessageNode> =
        forest.iter().map(|node| (node.node_id, node)).collect();
    let mut kept = BTreeSet::new();
    let mut heads: Vec<i64> = head.into_iter().collect();
    while let Some(start) = heads.pop() {
        let mut next = Some(start);
        while let Some(node_id) = next {
            let Some(node) = by_id.get(&node_id) else {
                break;
            };
            if !kept.insert(node_id) {
                break;
            }
            if let Some(from) = node.metadata.get("summarized_from").and_then(Value::as_i64) {
                heads.push(from);
            }
            next = node.parent;
        }
    }
    kept
}

/// Parses a session read from its `message_nodes` ([`read_store_session`]): the session, then
/// one child session per sub-agent chain (`<id>-sub-<agent id>`, naming the session as its
/// parent); the parent's result that names a sub-agent lists the child's id in its payload
/// (`subagent_session_ids`, as the trajectory's `subagent_trajectory_ref` results do).
pub fn parse_store_session(session: &StoreSession) -> ParseOutput {
    let row_text = |name: &str| non_empty(session.row.get(name));
    let children: HashMap<String, String> = session
        .subagents
        .iter()
        .map(|subagent| {
            let child = subagent_session_id(&session.id, &subagent.agent_id);
            (subagent.agent_id.clone(), child)
        })
        .collect();
    let mut parser = Parser {
        events: Vec::new(),
        warnings: Vec::new(),
        calls: HashMap::new(),
        default_model: row_text("model"),
        first_model: None,
        any_step_usage: false,
        children,
    };
    parser.nodes(&session.nodes);
    let started_at = session
        .row
        .get("created_at")
        .and_then(Value::as_i64)
        .filter(|seconds| *seconds > 0)
        .and_then(|seconds| epoch_time(Some(seconds)))
        .or_else(|| parser.events.iter().find_map(|event| event.timestamp));
    let meta = SessionMeta {
        title: row_text("title"),
        cwd: row_text("working_directory"),
        model: row_text("model").or(parser.first_model.take()),
        started_at,
        ..SessionMeta::default()
    };
    let mut sessions = Vec::new();
    let mut warnings = Vec::new();
    for subagent in &session.subagents {
        let mut child = Parser {
            events: Vec::new(),
            warnings: Vec::new(),
            calls: HashMap::new(),
            default_model: row_text("model"),
            first_model: None,
            any_step_usage: false,
            children: HashMap::new(),
        };
        child.nodes(&subagent.nodes);
        let title = subagent
            .call_id
            .as_deref()
            .and_then(|call_id| call_arguments(&parser.events, call_id))
            .and_then(|arguments| text_field(arguments, "title"));
        warnings.append(&mut child.warnings);
        sessions.push(ParsedSession {
            source: Source::Devin,
            native_id: subagent_session_id(&session.id, &subagent.agent_id),
            meta: SessionMeta {
                title,
                cwd: meta.cwd.clone(),
                model: child.first_model.take().or_else(|| meta.model.clone()),
                parent_native_id: Some(session.id.clone()),
                agent_name: subagent.profile.clone(),
                started_at: child.events.iter().find_map(|event| event.timestamp),
                ..SessionMeta::default()
            },
            events: child.events,
        });
    }
    sessions.insert(
        0,
        ParsedSession {
            source: Source::Devin,
            native_id: session.id.clone(),
            meta,
            events: parser.events,
        },
    );
    parser.warnings.append(&mut warnings);
    ParseOutput {
        sessions,
        warnings: parser.warnings,
    }
}

/// The arguments of the call `call_id` among `events` (its payload).
fn call_arguments<'e>(events: &'e [RawEvent], call_id: &str) -> Option<&'e Value> {
    events
        .iter()
        .find(|event| {
            event.kind == EventType::ToolCall && event.tool_call_id.as_deref() == Some(call_id)
        })
        .and_then(|event| event.payload.as_ref())
}

/// A non-negative count field of `value`.
fn count(value: &Value, name: &str) -> Option<i64> {
    value.get(name).and_then(Value::as_i64).filter(|n| *n >= 0)
}

/// A step's token usage: ATIF `metrics` (`prompt_tokens` includes `cached_tokens`), else
/// Devin's legacy `metadata.metrics` (Anthropic's split: input without the cache buckets).
fn step_usage(step: &Value) -> Option<TokenUsage> {
    if let Some(metrics) = step.get("metrics").filter(|metrics| metrics.is_object()) {
        let usage = TokenUsage {
            input: count(metrics, "prompt_tokens"),
            cached_input: count(metrics, "cached_tokens"),
            output: count(metrics, "completion_tokens"),
            reasoning: metrics
                .get("extra")
                .and_then(|extra| count(extra, "reasoning_tokens")),
            total: None,
        };
        if usage.input.is_some() || usage.output.is_some() || usage.cached_input.is_some() {
            return Some(usage.with_derived_total());
        }
    }
    let legacy = step.pointer("/metadata/metrics")?;
    let input = count(legacy, "input_tokens");
    let read = count(legacy, "cache_read_tokens");
    let written = count(legacy, "cache_creation_tokens");
    let output = count(legacy, "output_tokens");
    if input.is_none() && read.is_none() && written.is_none() && output.is_none() {
        return None;
    }
    let input = [input, read, written]
        .into_iter()
        .flatten()
        .reduce(|sum, part| sum + part);
    Some(
        TokenUsage {
            input,
            cached_input: read,
            output,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

/// `final_metrics`' totals as one usage.
fn final_usage(trajectory: &Value) -> Option<TokenUsage> {
    let totals = trajectory.get("final_metrics")?;
    let usage = TokenUsage {
        input: count(totals, "total_prompt_tokens"),
        cached_input: count(totals, "total_cached_tokens"),
        output: count(totals, "total_completion_tokens"),
        ..TokenUsage::default()
    };
    (usage.input.is_some() || usage.output.is_some()).then(|| usage.with_derived_total())
}

/// A field of a step, looked up in the step, then its `extra`, then its `metadata`.
fn step_field<'v>(step: &'v Value, name: &str) -> Option<&'v Value> {
    step.get(name)
        .or_else(|| step.get("extra").and_then(|extra| extra.get(name)))
        .or_else(|| step.get("metadata").and_then(|meta| meta.get(name)))
}

fn non_empty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// Where and by which model an agent's words were said (a step's line or a node's).
struct Said<'m> {
    line: u64,
    timestamp: Option<DateTime<Utc>>,
    model: &'m Option<String>,
}

struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// Tool names by call id, for the results.
    calls: HashMap<String, String>,
    default_model: Option<String>,
    first_model: Option<String>,
    any_step_usage: bool,
    /// The child session of each sub-agent, by agent id (a live store's sub-agent chains).
    children: HashMap<String, String>,
}

impl Parser {
    /// A chain's nodes in order, each `message_id` read once (the CLI copies messages when it
    /// rebuilds its context), and the replies that end their turns marked.
    fn nodes(&mut self, nodes: &[MessageNode]) {
        let mut read_ids = HashSet::new();
        for node in nodes {
            let copy =
                text_field(&node.message, "message_id").is_some_and(|id| !read_ids.insert(id));
            if !copy {
                self.node(node);
            }
        }
        mark_terminal_replies(&mut self.events);
    }

    fn step(&mut self, index: usize, step: &Value) {
        let line = index as u64 + 1;
        if !step.is_object() {
            self.warn(line, "step is not an object");
            return;
        }
        let source = step.get("source").and_then(Value::as_str).unwrap_or("");
        let timestamp = step
            .get("timestamp")
            .and_then(parse_timestamp)
            .or_else(|| step_field(step, "created_at").and_then(parse_timestamp));
        let key = |part: &str| format!("s{line}:{part}");
        let text = step.get("message").map(block_text).unwrap_or_default();
        let first_event = self.events.len();
        match source {
            "user" => {
                let injected =
                    step_field(step, "is_user_input").and_then(Value::as_bool) == Some(false);
                if !text.trim().is_empty() {
                    let event = if injected {
                        plain_event(
                            key("system"),
                            EventType::System,
                            line,
                            timestamp,
                            text,
                            None,
                        )
                    } else {
                        RawEvent {
                            starts_turn: true,
                            ..plain_event(
                                key("prompt"),
                                EventType::UserInput,
                                line,
                                timestamp,
                                text,
                                None,
                            )
                        }
                    };
                    self.events.push(event);
                }
            }
            "system" => {
                if !text.trim().is_empty() {
                    self.events.push(plain_event(
                        key("system"),
                        EventType::System,
                        line,
                        timestamp,
                        text,
                        None,
                    ));
                }
            }
            "agent" => {
                let model = non_empty(step.get("model_name"))
                    .or_else(|| non_empty(step_field(step, "generation_model")))
                    .or_else(|| self.default_model.clone());
                if self.first_model.is_none() {
                    self.first_model.clone_from(&model);
                }
                let reasoning = non_empty(step.get("reasoning_content"));
                let said = Said {
                    line,
                    timestamp,
                    model: &model,
                };
                self.reasoning_and_reply(&key, &said, reasoning, text);
                self.tool_calls(step, line, timestamp, model.as_deref());
            }
            other => {
                self.warn(line, &format!("unknown step source {other:?}"));
                return;
            }
        }
        self.observations(step, line, timestamp);
        if let Some(usage) = step_usage(step) {
            self.any_step_usage = true;
            if let Some(carrier) = usage_carrier(&self.events, first_event) {
                TokenUsage::attach(&mut self.events[carrier], usage);
            }
        }
    }

    /// An agent turn's reasoning (when it has any) and reply (when it says anything), both
    /// credited to the model that wrote them.
    fn reasoning_and_reply(
        &mut self,
        key: &dyn Fn(&str) -> String,
        said: &Said<'_>,
        reasoning: Option<String>,
        text: String,
    ) {
        let parts = [
            ("reasoning", EventType::Reasoning, reasoning),
            (
                "reply",
                EventType::AssistantResponse,
                Some(text).filter(|text| !text.trim().is_empty()),
            ),
        ];
        for (part, kind, body) in parts {
            let Some(body) = body else { continue };
            self.events.push(RawEvent {
                model: said.model.clone(),
                originating_model: said.model.clone(),
                ..plain_event(key(part), kind, said.line, said.timestamp, body, None)
            });
        }
    }

    fn tool_calls(
        &mut self,
        step: &Value,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        model: Option<&str>,
    ) {
        let Some(calls) = step.get("tool_calls").and_then(Value::as_array) else {
            return;
        };
        for (position, call) in calls.iter().enumerate() {
            let name =
                non_empty(call.get("function_name")).unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let id = text_field(call, "tool_call_id");
            if let Some(id) = &id {
                self.calls.insert(id.clone(), name.clone());
            }
            let mut event = tool_call(
                format!("s{line}:call{position}"),
                line,
                timestamp,
                &name,
                id.as_deref(),
                arguments_of(call.get("arguments")),
            );
            event.originating_model = model.map(str::to_string);
            self.events.push(event);
        }
    }

    fn observations(&mut self, step: &Value, line: u64, timestamp: Option<DateTime<Utc>>) {
        let Some(results) = step
            .pointer("/observation/results")
            .and_then(Value::as_array)
        else {
            return;
        };
        for (position, result) in results.iter().enumerate() {
            let call_id = text_field(result, "source_call_id");
            let name = call_id
                .as_ref()
                .and_then(|id| self.calls.get(id))
                .cloned()
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let text = result.get("content").map(block_text).unwrap_or_default();
            let extra = result.get("extra");
            let exit_code = extra
                .and_then(|extra| extra.get("exit_code"))
                .and_then(Value::as_i64);
            let failed = extra
                .and_then(|extra| extra.get("is_error"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
                || exit_code.is_some_and(|code| code != 0);
            let children: Vec<Value> = result
                .get("subagent_trajectory_ref")
                .and_then(Value::as_array)
                .map(|refs| {
                    refs.iter()
                        .filter_map(|child| child.get("session_id").cloned())
                        .collect()
                })
                .unwrap_or_default();
            let mut event = tool_response(
                format!("s{line}:result{position}"),
                line,
                timestamp,
                &name,
                call_id.as_deref(),
                text,
                failed,
            );
            event.exit_code = exit_code;
            if !children.is_empty() {
                event.payload = Some(json!({ "subagent_session_ids": children }));
            }
            self.events.push(event);
        }
    }

    /// One node of a session's conversation ([`parse_store_session`]).
    fn node(&mut self, node: &MessageNode) {
        let line = u64::try_from(node.node_id).unwrap_or_default();
        let message = &node.message;
        if !message.is_object() {
            self.node_warning(node, "chat_message is not a JSON object");
            return;
        }
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let timestamp = message
            .pointer("/metadata/created_at")
            .and_then(parse_timestamp)
            .or_else(|| epoch_time(node.created_at.filter(|seconds| *seconds > 0)));
        let key = |part: &str| format!("n{}:{part}", node.node_id);
        let text = message.get("content").map(block_text).unwrap_or_default();
        let has_text = !text.trim().is_empty();
        let summarized = node
            .metadata
            .get("summarized_from")
            .is_some_and(|from| !from.is_null());
        let first_event = self.events.len();
        match role {
            _ if summarized => {
                if has_text {
                    self.events.push(plain_event(
                        key("compaction"),
                        EventType::Compaction,
                        line,
                        timestamp,
                        text,
                        None,
                    ));
                }
            }
            "system" => {
                let prefix = node
                    .metadata
                    .get("is_system_prefix")
                    .and_then(Value::as_bool)
                    == Some(true);
                if has_text && !prefix {
                    self.events.push(plain_event(
                        key("system"),
                        EventType::System,
                        line,
                        timestamp,
                        text,
                        None,
                    ));
                }
            }
            "user" => {
                let injected =
                    step_field(message, "is_user_input").and_then(Value::as_bool) == Some(false);
                if has_text && injected {
                    self.events.push(plain_event(
                        key("system"),
                        EventType::System,
                        line,
                        timestamp,
                        text,
                        None,
                    ));
                } else if has_text {
                    self.events.push(RawEvent {
                        starts_turn: true,
                        ..plain_event(
                            key("prompt"),
                            EventType::UserInput,
                            line,
                            timestamp,
                            text,
                            None,
                        )
                    });
                }
            }
            "assistant" => self.assistant_node(node, line, timestamp, text),
            "tool" => self.tool_node(node, line, timestamp, text),
            other => {
                self.node_warning(node, &format!("unknown role {other:?}"));
                return;
            }
        }
        if role == "assistant"
            && let Some(usage) = step_usage(message)
        {
            self.any_step_usage = true;
            if let Some(carrier) = usage_carrier(&self.events, first_event) {
                TokenUsage::attach(&mut self.events[carrier], usage);
            }
        }
    }

    /// An `assistant` node: its reasoning, its reply and its calls.
    fn assistant_node(
        &mut self,
        node: &MessageNode,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        text: String,
    ) {
        let message = &node.message;
        let key = |part: &str| format!("n{}:{part}", node.node_id);
        let model = non_empty(message.pointer("/metadata/generation_model"))
            .or_else(|| self.default_model.clone());
        if self.first_model.is_none() {
            self.first_model.clone_from(&model);
        }
        let thinking = message.get("thinking");
        let reasoning = non_empty(thinking.and_then(|thinking| thinking.get("thinking")))
            .or_else(|| non_empty(thinking));
        let said = Said {
            line,
            timestamp,
            model: &model,
        };
        self.reasoning_and_reply(&key, &said, reasoning, text);
        let Some(calls) = message.get("tool_calls").and_then(Value::as_array) else {
            return;
        };
        for (position, call) in calls.iter().enumerate() {
            let function = call.get("function");
            let name = non_empty(call.get("name"))
                .or_else(|| non_empty(function.and_then(|function| function.get("name"))))
                .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
            let id = text_field(call, "id");
            if let Some(id) = &id {
                self.calls.insert(id.clone(), name.clone());
            }
            let arguments = call
                .get("arguments")
                .or_else(|| function.and_then(|function| function.get("arguments")));
            let mut event = tool_call(
                key(&format!("call{position}")),
                line,
                timestamp,
                &name,
                id.as_deref(),
                arguments_of(arguments),
            );
            event.originating_model = model.clone();
            self.events.push(event);
        }
    }

    /// A `tool` node: the result of the call its `tool_call_id` names.
    fn tool_node(
        &mut self,
        node: &MessageNode,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        text: String,
    ) {
        let message = &node.message;
        let call_id = text_field(message, "tool_call_id");
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id))
            .cloned()
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let exit_code = extension(message, "chisel/terminal_output")
            .and_then(|output| output.pointer("/exit/exit_code"))
            .and_then(Value::as_i64)
            .or_else(|| {
                (name == "exec")
                    .then(|| reported_exit_code(&text))
                    .flatten()
            });
        let unsuccessful = extension(message, "chisel/tool_result_meta")
            .and_then(|meta| meta.get("success"))
            .and_then(Value::as_bool)
            == Some(false);
        let failed = unsuccessful || exit_code.is_some_and(|code| code != 0);
        let mut event = tool_response(
            format!("n{}:result", node.node_id),
            line,
            timestamp,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        event.exit_code = exit_code;
        let child = extension(message, SUBAGENT_AGENT_ID)
            .and_then(value_text)
            .and_then(|agent_id| self.children.get(&agent_id));
        if let Some(child) = child {
            event.payload = Some(json!({ "subagent_session_ids": [child] }));
        }
        self.events.push(event);
    }

    fn node_warning(&mut self, node: &MessageNode, problem: &str) {
        self.warnings.push(ParseWarning {
            line: u64::try_from(node.node_id).unwrap_or_default(),
            message: format!("Devin message node {}: {problem}, skipped", node.node_id),
        });
    }

    fn warn(&mut self, line: u64, message: &str) {
        self.warnings.push(ParseWarning {
            line,
            message: format!("Devin trajectory step {line}: {message}, skipped"),
        });
    }
}

/// Parses one trajectory; `sidecar` is [`read_sidecar`]'s row of `sessions.db`.
pub fn parse(path: &Path, trajectory: &Value, sidecar: Option<&Value>) -> ParseOutput {
    let row = sidecar.and_then(|sidecar| sidecar.get("session"));
    let row_text = |name: &str| non_empty(row.and_then(|row| row.get(name)));
    let native_id = text_field(trajectory, "session_id").unwrap_or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let agent_model = non_empty(trajectory.pointer("/agent/model_name"));
    let mut parser = Parser {
        events: Vec::new(),
        warnings: Vec::new(),
        calls: HashMap::new(),
        default_model: agent_model.clone().or_else(|| row_text("model")),
        first_model: None,
        any_step_usage: false,
        children: HashMap::new(),
    };
    let steps: &[Value] = trajectory
        .get("steps")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, step) in steps.iter().enumerate() {
        parser.step(index, step);
    }
    if !parser.any_step_usage
        && let Some(usage) = final_usage(trajectory)
        && let Some(carrier) = totals_carrier(&parser.events)
    {
        TokenUsage::attach(&mut parser.events[carrier], usage);
    }
    mark_terminal_replies(&mut parser.events);
    let started_at = row
        .and_then(|row| row.get("created_at"))
        .and_then(Value::as_i64)
        .filter(|seconds| *seconds > 0)
        .and_then(|seconds| epoch_time(Some(seconds)))
        .or_else(|| parser.events.iter().find_map(|event| event.timestamp));
    let meta = SessionMeta {
        title: row_text("title"),
        cwd: row_text("working_directory"),
        model: row_text("model").or(agent_model).or(parser.first_model),
        harness_version: non_empty(trajectory.pointer("/agent/version")),
        started_at,
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Devin,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trajectory(steps: Value) -> Value {
        json!({
            "schema_version": "ATIF-v1.7",
            "session_id": "bald-ketch",
            "agent": {"name": "devin", "version": "3000.5.20", "model_name": "swe-1-7"},
            "steps": steps,
        })
    }

    fn kinds(output: &ParseOutput) -> Vec<(String, EventType)> {
        output.sessions[0]
            .events
            .iter()
            .map(|event| (event.key.clone(), event.kind))
            .collect()
    }

    #[test]
    fn sniffs_atif_trajectories_only() {
        assert!(sniff(&trajectory(json!([]))));
        assert!(sniff(&json!({"session_id": "x", "steps": [], "agent": {}})));
        assert!(!sniff(&json!({"session_id": "x", "steps": []})));
        assert!(!sniff(
            &json!({"session_id": "x", "messages": [], "agent": {}})
        ));
    }

    #[test]
    fn steps_become_prompts_replies_reasoning_calls_and_results() {
        let value = trajectory(json!([
            {"step_id": 1, "source": "system", "message": "You are Devin."},
            {"step_id": 2, "source": "user", "timestamp": "2026-08-01T10:00:00Z",
             "message": [{"type": "text", "text": "Fix the build"}, {"type": "image", "source": {}}]},
            {"step_id": 3, "source": "agent", "timestamp": "2026-08-01T10:00:05Z",
             "model_name": "claude-sonnet-4-6", "reasoning_content": "Look first.",
             "message": "Reading.",
             "tool_calls": [{"tool_call_id": "c1", "function_name": "exec", "arguments": {"command": "make"}}],
             "observation": {"results": [{"source_call_id": "c1", "content": "error: boom",
                                          "extra": {"exit_code": 2}}]},
             "metrics": {"prompt_tokens": 1000, "completion_tokens": 50, "cached_tokens": 800,
                         "extra": {"reasoning_tokens": 10}}},
            {"step_id": 4, "source": "user", "message": "<context/>", "metadata": {"is_user_input": false}},
            {"step_id": 5, "source": "agent", "message": "Fixed."},
        ]));
        let output = parse(Path::new("/t/bald-ketch.json"), &value, None);
        assert!(output.warnings.is_empty());
        assert_eq!(
            kinds(&output),
            [
                ("s1:system".to_string(), EventType::System),
                ("s2:prompt".to_string(), EventType::UserInput),
                ("s3:reasoning".to_string(), EventType::Reasoning),
                ("s3:reply".to_string(), EventType::AssistantResponse),
                ("s3:call0".to_string(), EventType::ToolCall),
                ("s3:result0".to_string(), EventType::ToolResponse),
                ("s4:system".to_string(), EventType::System),
                ("s5:reply".to_string(), EventType::AssistantResponse),
            ]
        );
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "bald-ketch");
        assert_eq!(session.events[1].text, "Fix the build");
        assert!(session.events[1].starts_turn);
        let result = &session.events[5];
        assert_eq!(result.tool_name.as_deref(), Some("exec"));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(result.exit_code, Some(2));
        assert_eq!(
            session.usage_carriers(),
            [(
                "s3:reply",
                TokenUsage {
                    input: Some(1000),
                    cached_input: Some(800),
                    output: Some(50),
                    reasoning: Some(10),
                    total: Some(1050),
                }
            )]
        );
        assert_eq!(
            session.events[3].model.as_deref(),
            Some("claude-sonnet-4-6")
        );
        assert_eq!(session.events[7].model.as_deref(), Some("swe-1-7"));
        assert_eq!(session.meta.model.as_deref(), Some("swe-1-7"));
        assert_eq!(session.meta.harness_version.as_deref(), Some("3000.5.20"));
        assert_eq!(
            session.events[7].turn_end,
            Some(crate::model::TurnEnd::Terminal)
        );
    }

    #[test]
    fn the_store_row_gives_title_cwd_model_and_start_in_seconds() {
        let value = trajectory(json!([{"step_id": 1, "source": "user", "message": "hi"}]));
        let sidecar = json!({"session": {"id": "bald-ketch", "title": "Fix the checks",
            "working_directory": "/w/p", "model": "glm-5-2", "created_at": 1_786_004_275}});
        let output = parse(Path::new("/t/bald-ketch.json"), &value, Some(&sidecar));
        let meta = &output.sessions[0].meta;
        assert_eq!(meta.title.as_deref(), Some("Fix the checks"));
        assert_eq!(meta.cwd.as_deref(), Some("/w/p"));
        assert_eq!(meta.model.as_deref(), Some("glm-5-2"));
        assert_eq!(
            meta.started_at,
            DateTime::from_timestamp(1_786_004_275, 0),
            "seconds, not milliseconds"
        );
    }

    #[test]
    fn malformed_steps_are_skipped_with_a_warning() {
        let value = trajectory(json!([
            "garbage",
            {"step_id": 2, "source": "robot", "message": "?"},
            {"step_id": 3, "source": "user", "message": "still read"},
        ]));
        let output = parse(Path::new("/t/x.json"), &value, None);
        assert_eq!(output.warnings.len(), 2);
        assert_eq!(output.warnings[0].line, 1);
        assert_eq!(
            kinds(&output),
            [("s3:prompt".to_string(), EventType::UserInput)]
        );
    }

    #[test]
    fn legacy_metrics_and_final_totals_are_token_usage() {
        let legacy = trajectory(json!([
            {"step_id": 1, "source": "agent", "message": "a",
             "metadata": {"metrics": {"input_tokens": 100, "output_tokens": 20,
                                      "cache_creation_tokens": 10, "cache_read_tokens": 5}}},
        ]));
        let output = parse(Path::new("/t/x.json"), &legacy, None);
        assert_eq!(
            output.sessions[0].events[0].usage,
            Some(TokenUsage {
                input: Some(115),
                cached_input: Some(5),
                output: Some(20),
                reasoning: None,
                total: Some(135),
            })
        );
        let mut totals = trajectory(json!([
            {"step_id": 1, "source": "user", "message": "q"},
            {"step_id": 2, "source": "agent", "message": "a"},
        ]));
        totals["final_metrics"] = json!({"total_prompt_tokens": 500, "total_completion_tokens": 40,
            "total_cached_tokens": 300, "total_cost_usd": 0.1});
        let output = parse(Path::new("/t/x.json"), &totals, None);
        assert_eq!(
            output.sessions[0].usage_carriers(),
            [(
                "s2:reply",
                TokenUsage {
                    input: Some(500),
                    cached_input: Some(300),
                    output: Some(40),
                    reasoning: None,
                    total: Some(540),
                }
            )]
        );
    }

    #[test]
    fn subagent_references_are_kept_on_the_result() {
        let value = trajectory(json!([
            {"step_id": 1, "source": "agent", "message": "",
             "tool_calls": [{"tool_call_id": "t", "function_name": "task", "arguments": {}}],
             "observation": {"results": [{"source_call_id": "t", "content": "done",
                 "subagent_trajectory_ref": [{"session_id": "child-1"}]}]}},
        ]));
        let output = parse(Path::new("/t/x.json"), &value, None);
        let result = &output.sessions[0].events[1];
        assert_eq!(result.tool_name.as_deref(), Some("task"));
        assert_eq!(
            result.payload,
            Some(json!({"subagent_session_ids": ["child-1"]}))
        );
    }

    #[test]
    fn the_store_is_read_immutably_and_left_untouched() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cli = dir.path().join("pro#ject %41").join("cli");
        std::fs::create_dir_all(cli.join(TRANSCRIPTS_FOLDER)).expect("mkdir");
        let store = cli.join(STORE_NAME);
        let owner = Connection::open(&store).expect("open");
        owner
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE sessions (id TEXT PRIMARY KEY, \
                 working_directory TEXT, model TEXT, created_at INTEGER, title TEXT); \
                 INSERT INTO sessions VALUES ('s1', '/w', 'm', 1786004275, 'T'); \
                 PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .expect("store");
        let before: Vec<_> = std::fs::read_dir(&cli)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        let sidecar = read_sidecar(&cli.join(TRANSCRIPTS_FOLDER).join("s1.json")).expect("row");
        assert_eq!(sidecar["session"]["working_directory"], "/w");
        assert!(read_sidecar(&cli.join(TRANSCRIPTS_FOLDER).join("s2.json")).is_none());
        let after: Vec<_> = std::fs::read_dir(&cli)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(before, after);
        owner
            .execute("INSERT INTO sessions (id) VALUES ('s3')", [])
            .expect("the owner still writes");
    }

    #[test]
    fn folders_follow_the_data_directory() {
        let env = |name: &str| match name {
            "XDG_DATA_HOME" => Some(PathBuf::from("/data")),
            "APPDATA" => Some(PathBuf::from("/c/AppData/Roaming")),
            _ => None,
        };
        assert_eq!(
            transcript_folders(Path::new("/h"), &env),
            [
                PathBuf::from("/data/devin/cli/transcripts"),
                PathBuf::from("/h/Library/Application Support/devin/cli/transcripts"),
                PathBuf::from("/c/AppData/Roaming/devin/cli/transcripts"),
            ]
        );
    }

    // ---- the live store

    /// The v17 `sessions` and `message_nodes` DDL (the columns a live store has).
    const STORE_DDL: &str = "
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

    /// A live session's forest: a system prompt, a prompt, a reply with reasoning, usage and a
    /// failing `exec` call, an abandoned regenerated reply beside it, the call's result, a
    /// prompt and the final reply; `main_chain_id` names that reply.
    fn live_nodes() -> Vec<(i64, Option<i64>, Value, Value)> {
        let tool_meta = json!({"extensions": {
            "chisel/tool_result_meta": {"success": false, "kind": "exec"},
            "chisel/terminal_output": {"text": "1 failed", "exit": {"exit_code": 1}}}});
        vec![
            (
                0,
                None,
                json!({"message_id": "s-0", "role": "system",
                "content": "You are Devin."}),
                json!({"is_system_prefix": true}),
            ),
            (
                1,
                Some(0),
                json!({"message_id": "u-1", "role": "user", "content": "Run the tests",
                "metadata": {"is_user_input": true,
                    "created_at": "2026-10-02T09:00:01Z"}}),
                Value::Null,
            ),
            (
                2,
                Some(1),
                json!({"message_id": "a-2", "role": "assistant", "content": "Running.",
                "thinking": {"thinking": "Use cargo.", "signature": "sealed.v1"},
                "tool_calls": [{"id": "exec_0#1", "index": 0, "kind": "function",
                    "name": "exec", "arguments": {"command": "cargo test"}}],
                "metadata": {"generation_model": "swe-2-high", "finish_reason": "tool_calls",
                    "metrics": {"input_tokens": 200, "output_tokens": 30,
                        "cache_read_tokens": 1000, "cache_creation_tokens": 0}}}),
                Value::Null,
            ),
            (
                3,
                Some(1),
                json!({"message_id": "a-3", "role": "assistant",
                "content": "Abandoned retry."}),
                Value::Null,
            ),
            (
                4,
                Some(2),
                json!({"message_id": "t-4", "role": "tool", "tool_call_id": "exec_0#1",
                "content": "1 failed", "metadata": tool_meta}),
                Value::Null,
            ),
            (
                5,
                Some(4),
                json!({"message_id": "u-5", "role": "user",
                "content": [{"type": "text", "text": "Fix it"}],
                "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                6,
                Some(5),
                json!({"message_id": "a-6", "role": "assistant", "content": "Fixed.",
                "metadata": {"finish_reason": "stop"}}),
                Value::Null,
            ),
        ]
    }

    /// A compacted session: the old chain (7..9), the summarizer's thread off the chain
    /// (20..21), the new chain (30..33) whose continuation names the old head, with a copy of
    /// the old prompt (same `message_id`) the CLI carried over.
    fn compacted_nodes() -> Vec<(i64, Option<i64>, Value, Value)> {
        let prefix = json!({"is_system_prefix": true});
        vec![
            (
                7,
                None,
                json!({"message_id": "s-7", "role": "system", "content": "You are Devin."}),
                prefix.clone(),
            ),
            (
                8,
                Some(7),
                json!({"message_id": "u-8", "role": "user", "content": "Audit deps",
                "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                9,
                Some(8),
                json!({"message_id": "a-9", "role": "assistant",
                "content": "Two are stale."}),
                Value::Null,
            ),
            (
                20,
                None,
                json!({"message_id": "s-20", "role": "user",
                "content": "Summarize the conversation"}),
                Value::Null,
            ),
            (
                21,
                Some(20),
                json!({"message_id": "a-21", "role": "assistant",
                "content": "<summary>deps audit</summary>"}),
                json!({"summarized_from": 9}),
            ),
            (
                30,
                None,
                json!({"message_id": "s-30", "role": "system", "content": "You are Devin."}),
                prefix,
            ),
            (
                31,
                Some(30),
                json!({"message_id": "c-31", "role": "system",
                "content": "You are continuing work from a previous conversation thread."}),
                json!({"summarized_from": 9}),
            ),
            (
                32,
                Some(31),
                json!({"message_id": "u-8", "role": "user", "content": "Audit deps",
                "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                33,
                Some(32),
                json!({"message_id": "u-33", "role": "user",
                "content": "Now update them", "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
        ]
    }

    /// A `cli` folder whose `sessions.db` holds the live session, the compacted one (with no
    /// `main_chain_id`: its largest node is its head), a hidden one and one whose trajectory is
    /// written.
    fn live_store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let cli = dir.path().join("devin").join("cli");
        std::fs::create_dir_all(cli.join(TRANSCRIPTS_FOLDER)).expect("mkdir");
        let database = cli.join(STORE_NAME);
        let owner = Connection::open(&database).expect("store");
        owner.execute_batch(STORE_DDL).expect("tables");
        let sessions: [(&str, Option<i64>, i64); 4] = [
            ("amber-kestrel", Some(6), 0),
            ("cobalt-finch", None, 0),
            ("dusty-wren", Some(1), 1),
            ("ember-lark", Some(1), 0),
        ];
        for (id, head, hidden) in sessions {
            owner
                .execute(
                    "INSERT INTO sessions (id, working_directory, backend_type, model, \
                     agent_mode, created_at, last_activity_at, title, main_chain_id, hidden) \
                     VALUES (?1, '/w/app', 'windsurf', '', 'normal', 1795000000, 1795000100, \
                     ?2, ?3, ?4)",
                    rusqlite::params![id, format!("Title of {id}"), head, hidden],
                )
                .expect("session");
        }
        let forests = [
            ("amber-kestrel", live_nodes()),
            ("cobalt-finch", compacted_nodes()),
            ("dusty-wren", live_nodes()),
            ("ember-lark", live_nodes()),
        ];
        for (id, nodes) in forests {
            for (node, parent, message, metadata) in nodes {
                let metadata = (!metadata.is_null()).then(|| metadata.to_string());
                owner
                    .execute(
                        "INSERT INTO message_nodes (session_id, node_id, parent_node_id, \
                         chat_message, created_at, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        rusqlite::params![
                            id,
                            node,
                            parent,
                            message.to_string(),
                            1_795_000_000 + node,
                            metadata
                        ],
                    )
                    .expect("node");
            }
        }
        std::fs::write(
            cli.join(TRANSCRIPTS_FOLDER).join("ember-lark.json"),
            trajectory(json!([])).to_string(),
        )
        .expect("trajectory");
        (dir, database)
    }

    #[test]
    fn the_live_store_lists_visible_sessions_and_leaves_trajectories_to_their_files() {
        let (_dir, database) = live_store();
        assert!(is_store_path(&database));
        assert!(is_store_path(&database.with_file_name("sessions.db-wal")));
        assert!(!is_store_path(Path::new(
            "/h/.local/share/goose/sessions/sessions.db"
        )));
        let connection = Connection::open(&database).expect("open");
        assert!(has_schema(&connection).expect("schema"));
        let stamps = session_stamps(&connection, &database).expect("stamps");
        let ids: Vec<&str> = stamps.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            ["amber-kestrel", "cobalt-finch", "ember-lark"],
            "the hidden session is not listed"
        );
        assert!(stamps[2].1.ends_with("|trajectory"), "{:?}", stamps[2]);
        assert!(!stamps[0].1.ends_with("|trajectory"));
        let left = read_store_session(&connection, &database, "ember-lark").expect("read");
        assert!(
            left.is_none(),
            "a session with a trajectory is the trajectory's"
        );
    }

    #[test]
    fn a_live_session_is_its_main_chain() {
        let (_dir, database) = live_store();
        let connection = Connection::open(&database).expect("open");
        let session = read_store_session(&connection, &database, "amber-kestrel")
            .expect("read")
            .expect("session");
        let nodes: Vec<i64> = session.nodes.iter().map(|node| node.node_id).collect();
        assert_eq!(
            nodes,
            [0, 1, 2, 4, 5, 6],
            "the abandoned retry is off the chain"
        );
        assert_eq!(session.off_chain, 1);
        assert!(!session.head_fallback);

        let output = parse_store_session(&session);
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        assert_eq!(
            kinds(&output),
            [
                ("n1:prompt".to_string(), EventType::UserInput),
                ("n2:reasoning".to_string(), EventType::Reasoning),
                ("n2:reply".to_string(), EventType::AssistantResponse),
                ("n2:call0".to_string(), EventType::ToolCall),
                ("n4:result".to_string(), EventType::ToolResponse),
                ("n5:prompt".to_string(), EventType::UserInput),
                ("n6:reply".to_string(), EventType::AssistantResponse),
            ],
            "the system prompt is not read"
        );
        let parsed = &output.sessions[0];
        assert_eq!(parsed.source, Source::Devin);
        assert_eq!(parsed.native_id, "amber-kestrel");
        assert_eq!(parsed.meta.title.as_deref(), Some("Title of amber-kestrel"));
        assert_eq!(parsed.meta.cwd.as_deref(), Some("/w/app"));
        assert_eq!(
            parsed.meta.model.as_deref(),
            Some("swe-2-high"),
            "an empty `model` falls back to the generation model"
        );
        assert_eq!(parsed.meta.started_at, epoch_time(Some(1_795_000_000)));
        let events = &parsed.events;
        assert_eq!(events[0].text, "Run the tests");
        assert!(events[0].starts_turn);
        assert_eq!(
            events[0].timestamp,
            parse_timestamp(&json!("2026-10-02T09:00:01Z")),
            "the message's own time"
        );
        assert_eq!(
            events[5].timestamp,
            epoch_time(Some(1_795_000_005)),
            "else the node's, in seconds"
        );
        assert_eq!(events[1].text, "Use cargo.");
        assert_eq!(events[3].tool_name.as_deref(), Some("exec"));
        assert_eq!(events[3].tool_call_id.as_deref(), Some("exec_0#1"));
        assert_eq!(events[3].payload, Some(json!({"command": "cargo test"})));
        let result = &events[4];
        assert_eq!(result.tool_name.as_deref(), Some("exec"));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(result.exit_code, Some(1));
        assert_eq!(events[5].text, "Fix it");
        let usage = parsed.usage_carriers();
        assert_eq!(usage.len(), 1, "{usage:?}");
        assert_eq!(usage[0].0, "n2:reply");
        assert_eq!(usage[0].1.input, Some(200 + 1000));
        assert_eq!(usage[0].1.cached_input, Some(1000));
        assert_eq!(usage[0].1.output, Some(30));
    }

    #[test]
    fn a_compacted_session_reads_the_chain_it_replaced_once() {
        let (_dir, database) = live_store();
        let connection = Connection::open(&database).expect("open");
        let session = read_store_session(&connection, &database, "cobalt-finch")
            .expect("read")
            .expect("session");
        assert!(session.head_fallback, "no main_chain_id: the largest node");
        let nodes: Vec<i64> = session.nodes.iter().map(|node| node.node_id).collect();
        assert_eq!(
            nodes,
            [7, 8, 9, 30, 31, 32, 33],
            "the old chain through summarized_from, not the summarizer's thread"
        );
        let output = parse_store_session(&session);
        assert_eq!(
            kinds(&output),
            [
                ("n8:prompt".to_string(), EventType::UserInput),
                ("n9:reply".to_string(), EventType::AssistantResponse),
                ("n31:compaction".to_string(), EventType::Compaction),
                ("n33:prompt".to_string(), EventType::UserInput),
            ],
            "the carried-over copy of the prompt (node 32) is read once"
        );
    }

    #[test]
    fn a_node_that_is_not_json_is_skipped_with_a_warning() {
        let session = StoreSession {
            id: "s".to_string(),
            row: Map::new(),
            nodes: vec![
                MessageNode {
                    node_id: 1,
                    parent: None,
                    created_at: Some(1_795_000_000),
                    message: Value::Null,
                    metadata: Value::Null,
                },
                MessageNode {
                    node_id: 2,
                    parent: Some(1),
                    created_at: None,
                    message: json!({"role": "user", "content": "hi"}),
                    metadata: Value::Null,
                },
            ],
            off_chain: 0,
            head_fallback: false,
            subagents: Vec::new(),
        };
        let output = parse_store_session(&session);
        assert_eq!(output.warnings.len(), 1);
        assert!(
            output.warnings[0].message.contains("message node 1"),
            "{:?}",
            output.warnings
        );
        assert_eq!(output.sessions[0].events.len(), 1);
    }

    /// A session that delegates twice, in the shapes of a sanitized real v17 store's notes: a
    /// foreground `run_subagent` whose result names its chain (`subagent/chain_node_id`, the
    /// chain rooted at its own system prompt, sharing no node with the parent's), and a
    /// background one whose result names the agent only, its head in `subagent_heads`.
    fn delegating_store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let cli = dir.path().join("devin").join("cli");
        std::fs::create_dir_all(&cli).expect("mkdir");
        let database = cli.join(STORE_NAME);
        let owner = Connection::open(&database).expect("store");
        owner.execute_batch(STORE_DDL).expect("tables");
        owner
            .execute_batch(
                "CREATE TABLE subagent_heads (session_id TEXT NOT NULL, agent_id TEXT NOT NULL,
                   chain_node_id INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                   PRIMARY KEY (session_id, agent_id));
                 INSERT INTO subagent_heads VALUES ('fern-heron', 'bg77', 24, 1795000024);",
            )
            .expect("heads");
        owner
            .execute(
                "INSERT INTO sessions (id, working_directory, backend_type, model, agent_mode, \
                 created_at, last_activity_at, title, main_chain_id) VALUES ('fern-heron', \
                 '/w/app', 'windsurf', 'swe-2', 'normal', 1795000000, 1795000100, 'Delegate', 8)",
                [],
            )
            .expect("session");
        let spawn = |id: &str, title: &str, task: &str| {
            json!({"id": id, "name": "run_subagent",
                "arguments": {"title": title, "task": task, "profile": "subagent_explore"}})
        };
        let nodes: Vec<(i64, Option<i64>, Value, Value)> = vec![
            (
                1,
                None,
                json!({"message_id": "s-1", "role": "system", "content": "You are Devin."}),
                json!({"is_system_prefix": true}),
            ),
            (
                2,
                Some(1),
                json!({"message_id": "u-2", "role": "user",
                "content": "Map the auth module", "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                3,
                Some(2),
                json!({"message_id": "a-3", "role": "assistant", "content": "",
                "tool_calls": [spawn("spawn-1", "Auth survey", "Explore the auth module")]}),
                Value::Null,
            ),
            // The foreground sub-agent's chain: its own system prompt, task, work and report.
            (
                11,
                None,
                json!({"message_id": "s-11", "role": "system",
                "content": "You are a sub-agent."}),
                json!({"is_system_prefix": true}),
            ),
            (
                12,
                Some(11),
                json!({"message_id": "u-12", "role": "user",
                "content": "Explore the auth module", "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                13,
                Some(12),
                json!({"message_id": "a-13", "role": "assistant", "content": "",
                "tool_calls": [{"id": "read-1", "name": "read", "arguments": {"path": "auth.rs"}}],
                "metadata": {"generation_model": "swe-1.5"}}),
                Value::Null,
            ),
            (
                14,
                Some(13),
                json!({"message_id": "t-14", "role": "tool", "tool_call_id": "read-1",
                "content": "fn login() {}"}),
                Value::Null,
            ),
            (
                15,
                Some(14),
                json!({"message_id": "a-15", "role": "assistant",
                "content": "Auth is one login function.",
                "metadata": {"generation_model": "swe-1.5"}}),
                Value::Null,
            ),
            (
                4,
                Some(3),
                json!({"message_id": "t-4", "role": "tool", "tool_call_id": "spawn-1",
                "content": "Auth is one login function.",
                "metadata": {"extensions": {"subagent/agent_id": "d8a8ea4c",
                    "subagent/chain_node_id": 15, "subagent/profile_name": "Explore",
                    "subagent/model": "Subagent Default",
                    "chisel/tool_result_meta": {"success": true, "kind": "run_subagent"}}}}),
                Value::Null,
            ),
            (
                5,
                Some(4),
                json!({"message_id": "a-5", "role": "assistant", "content": "",
                "tool_calls": [spawn("spawn-2", "Lint", "Run the linter")]}),
                Value::Null,
            ),
            // The background sub-agent's chain: its head only `subagent_heads` names.
            (
                21,
                None,
                json!({"message_id": "s-21", "role": "system",
                "content": "You are a sub-agent."}),
                json!({"is_system_prefix": true}),
            ),
            (
                22,
                Some(21),
                json!({"message_id": "u-22", "role": "user",
                "content": "Run the linter", "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            (
                24,
                Some(22),
                json!({"message_id": "a-24", "role": "assistant",
                "content": "No lint errors."}),
                Value::Null,
            ),
            (
                6,
                Some(5),
                json!({"message_id": "t-6", "role": "tool", "tool_call_id": "spawn-2",
                "content": "Started agent bg77 in the background",
                "metadata": {"extensions": {"subagent/agent_id": "bg77"}}}),
                Value::Null,
            ),
            (
                7,
                Some(6),
                json!({"message_id": "a-7", "role": "assistant",
                "content": "Auth mapped; linting in the background."}),
                Value::Null,
            ),
            (
                8,
                Some(7),
                json!({"message_id": "u-8", "role": "user", "content": "Thanks",
                "metadata": {"is_user_input": true}}),
                Value::Null,
            ),
            // A chain no result and no head row names: not read.
            (
                31,
                None,
                json!({"message_id": "u-31", "role": "user", "content": "Orphan"}),
                Value::Null,
            ),
        ];
        for (node, parent, message, metadata) in nodes {
            let metadata = (!metadata.is_null()).then(|| metadata.to_string());
            owner
                .execute(
                    "INSERT INTO message_nodes (session_id, node_id, parent_node_id, \
                     chat_message, created_at, metadata) VALUES ('fern-heron', ?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![
                        node,
                        parent,
                        message.to_string(),
                        1_795_000_000 + node,
                        metadata
                    ],
                )
                .expect("node");
        }
        (dir, database)
    }

    #[test]
    fn sub_agent_chains_are_child_sessions_linked_from_the_parents_result() {
        let (_dir, database) = delegating_store();
        let connection = Connection::open(&database).expect("open");
        let session = read_store_session(&connection, &database, "fern-heron")
            .expect("read")
            .expect("session");
        let nodes: Vec<i64> = session.nodes.iter().map(|node| node.node_id).collect();
        assert_eq!(nodes, [1, 2, 3, 4, 5, 6, 7, 8]);
        let chains: Vec<(&str, Vec<i64>)> = session
            .subagents
            .iter()
            .map(|chain| {
                let nodes = chain.nodes.iter().map(|node| node.node_id).collect();
                (chain.agent_id.as_str(), nodes)
            })
            .collect();
        assert_eq!(
            chains,
            [
                ("d8a8ea4c", vec![11, 12, 13, 14, 15]),
                ("bg77", vec![21, 22, 24])
            ],
            "the foreground chain from its result, the background one from subagent_heads"
        );
        assert_eq!(session.off_chain, 1, "only the orphan chain is left unread");

        let output = parse_store_session(&session);
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        let ids: Vec<&str> = output
            .sessions
            .iter()
            .map(|s| s.native_id.as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "fern-heron",
                "fern-heron-sub-d8a8ea4c",
                "fern-heron-sub-bg77"
            ]
        );
        let parent = &output.sessions[0];
        assert_eq!(parent.meta.parent_native_id, None);
        assert_eq!(parent.events.len(), 7, "{:?}", kinds(&output));
        let links: Vec<(&str, Option<&Value>)> = parent
            .events
            .iter()
            .filter(|event| event.kind == EventType::ToolResponse)
            .map(|event| (event.key.as_str(), event.payload.as_ref()))
            .collect();
        assert_eq!(
            links,
            [
                (
                    "n4:result",
                    Some(&json!({"subagent_session_ids": ["fern-heron-sub-d8a8ea4c"]}))
                ),
                (
                    "n6:result",
                    Some(&json!({"subagent_session_ids": ["fern-heron-sub-bg77"]}))
                ),
            ]
        );
        let explore = &output.sessions[1];
        assert_eq!(explore.source, Source::Devin);
        assert_eq!(explore.meta.parent_native_id.as_deref(), Some("fern-heron"));
        assert_eq!(
            explore.meta.title.as_deref(),
            Some("Auth survey"),
            "the call's title"
        );
        assert_eq!(explore.meta.agent_name.as_deref(), Some("Explore"));
        assert_eq!(explore.meta.model.as_deref(), Some("swe-1.5"));
        assert_eq!(explore.meta.cwd.as_deref(), Some("/w/app"));
        let keys: Vec<&str> = explore
            .events
            .iter()
            .map(|event| event.key.as_str())
            .collect();
        assert_eq!(
            keys,
            ["n12:prompt", "n13:call0", "n14:result", "n15:reply"],
            "the sub-agent's system prompt is not read"
        );
        assert_eq!(explore.events[2].tool_name.as_deref(), Some("read"));
        let lint = &output.sessions[2];
        assert_eq!(lint.meta.parent_native_id.as_deref(), Some("fern-heron"));
        assert_eq!(
            lint.meta.title.as_deref(),
            Some("Lint"),
            "the background result names its call too"
        );
        assert_eq!(
            lint.meta.model.as_deref(),
            Some("swe-2"),
            "the session's model"
        );
        assert_eq!(lint.events.len(), 2);
    }
}
