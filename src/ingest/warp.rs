//! Warp (the agentic terminal's Agent Mode / Oz conversations): its SQLite store `warp.sqlite`.
//! The file is Warp's whole app state (windows, terminal blocks, command history, Drive
//! objects); only three of its tables are ever queried, and the store is read from a private
//! copy (`ingest::sqlite`), never in place.
//!
//! Where it is (warpdotdev/warp `app/src/persistence/sqlite.rs` `app_database_file_path` and
//! `crates/warp_core/src/paths.rs` `secure_state_dir` / `state_dir` / `project_dirs_for_app_id`):
//! the `directories` crate's state directory of Warp's app id, i.e.
//! `$XDG_STATE_HOME/warp-terminal/warp.sqlite` (default `~/.local/state`; Preview
//! `warp-terminal-preview`) on Linux; on macOS the App Group container
//! `~/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/<bundle id>/`
//! (`dev.warp.Warp-Stable`, `dev.warp.Warp-Preview`), else `~/Library/Application
//! Support/<bundle id>/`; `%LOCALAPPDATA%\warp\Warp\data\` (Preview `WarpPreview`) on Windows.
//! The `warp` TUI keeps its own store in a `tui` folder beside it (`tui_state_dir`).
//!
//! Tables (the migrations of `crates/persistence/migrations/`: `2024-08-16-205602_add_ai_ids`,
//! `2024-08-20-201322_split_ai_exchanges_table`, the `model_id` / `planning_model_id` /
//! `coding_model_id` additions of 2025, `2025-06-09-013710_create_agent_conversations_table`,
//! `2025-09-30-013004_drop_active_task_id_from_conversations`,
//! `2026-07-07-000000_add_summary_to_agent_conversations`):
//! - `ai_queries(exchange_id, conversation_id, start_ts, input, working_directory, output_status,
//!   model_id, planning_model_id, coding_model_id)`: one row per prompt sent
//!   (`app/src/persistence/block_list.rs`): `input` is JSON `[{"Query": {"text", "context",
//!   "referenced_attachments"}}]`, `output_status` the JSON of `"Pending" | "Cancelled" |
//!   "Failed" | "Completed"`, `start_ts` a UTC time written without a zone. Warp keeps these rows
//!   longer than conversations (it evicts conversations beyond 200).
//! - `agent_conversations(conversation_id, conversation_data, last_modified_at, summary)`
//!   (`app/src/persistence/agent.rs`): `conversation_data` is the JSON of
//!   `AgentConversationData` (`crates/persistence/src/model.rs`): `conversation_usage_metadata.
//!   token_usage[]` holds `{model_id, warp_tokens, byok_tokens, custom_endpoint_tokens}` per
//!   model for the whole conversation (no input/output split), beside `parent_conversation_id`
//!   and `agent_name` for a child agent.
//! - `agent_tasks(conversation_id, task_id, task, last_modified_at)`: `task` is a protobuf
//!   `warp.multi_agent.v1.Task` (warpdotdev/warp-proto-apis `apis/multi_agent/v1/task.proto`,
//!   with `attachment.proto`, `file_content.proto`, `input_context.proto`): `id` 1,
//!   `description` 2, `dependencies.parent_task_id` 3.1, `messages` 5, each a `Message` with
//!   `id` 1, `timestamp` 14 and one of `user_query` 2 (`query`, `context.directory.pwd`),
//!   `agent_output` 3, `tool_call` 4, `tool_call_result` 5, `system_query` 9, `agent_reasoning`
//!   15, `summarization` 16, `web_search` 19, `web_fetch` 20, `model_used` 25 (and kinds esker
//!   does not index: server events, todos, review comments, debug output, artifacts, messages
//!   between agents).
//!
//! One session per conversation: the messages of its parentless tasks in row order (a task
//! with a parent, a sub-agent's, is a session of its own naming the conversation as parent).
//! A user query is a prompt opening a turn; an agent output a reply; reasoning; a tool call and
//! its result paired by `tool_call_id` (named by the call's kind, an MCP call by its tool's
//! name; a shell command's result carries its exit code and fails when it is non-zero, a
//! result's `error`, a denied or cancelled call fails too); a system query a `system` event; a
//! conversation summary a compaction. A conversation with no readable root task (one older than
//! `agent_conversations`, evicted from it, or whose root blob is torn) is read from
//! `ai_queries`: its prompts alone.
//! Model: the first `model_used`, else the queries' `model_id` (not `auto`); cwd: the first
//! directory a message's context names, else the queries' `working_directory`; title: the root
//! task's description; times: each message's timestamp, the queries' `start_ts`; token usage:
//! the conversation's totals (`warp_tokens + byok_tokens + custom_endpoint_tokens`, as
//! agentsview and tokscale sum them) on its last reply. A task blob that is not a `Task`, or
//! `conversation_data` that is not JSON, is skipped with a counted warning.
//!
//! A conversation is re-read when its rows change: its stamp is the conversation row's time
//! and size, its tasks' count, sizes and times, and its queries' count, times and statuses.
//! Read against: warpdotdev/warp (the files named above, and `app/src/ai/blocklist/
//! persistence.rs`, `app/src/ai/blocklist/history_model.rs` for the query status), the proto
//! files of warpdotdev/warp-proto-apis, kenn-io/agentsview `internal/parser/warp.go` (ai_queries
//! prompts, token sums) and junhoyeo/tokscale `crates/tokscale-core/src/sessions/warp.rs`
//! (timestamps, token sums); DocterJac/warp-thinking-browser `README.md` reports the same task
//! layout (1 id, 2 title, 5 messages; a message's 15 reasoning, 3 reply, 4 tool call, 5 tool
//! result) from inspecting real blobs. No real store was available to check against.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value, json};

use super::content::{
    UNKNOWN_TOOL, mark_terminal_replies, plain_event, tool_call, tool_response, totals_carrier,
};
use super::protowire::{self, all_bytes, bytes, varint};
use super::sqlite::{self, table_names};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// The store's file name.
pub const STORE_NAME: &str = "warp.sqlite";

/// The tables esker reads.
const TABLES: [&str; 3] = ["ai_queries", "agent_conversations", "agent_tasks"];

type Fields<'a> = Vec<(u32, protowire::Value<'a>)>;

/// A Warp store (or its `-wal`): `warp.sqlite` wherever it is (Warp's state directory, a copy).
pub fn is_store_path(path: &std::path::Path) -> bool {
    matches!(
        path.file_name().and_then(|name| name.to_str()),
        Some("warp.sqlite" | "warp.sqlite-wal")
    )
}

/// The store holds the three AI tables.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let names = table_names(connection)?;
    Ok(TABLES
        .iter()
        .all(|table| names.iter().any(|name| name == table)))
}

/// Every conversation id (of `agent_conversations` or `ai_queries`) with the stamp of its rows.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../queries/warp_session_stamps.sql"),
    )
}

/// One conversation's rows, its task blobs decoded.
#[derive(Debug, Clone, Default)]
pub struct WarpConversation {
    pub id: String,
    /// `conversation_data` as JSON: `Null` when there is no row or it is not JSON.
    pub data: Value,
    /// `conversation_data` exists but is not JSON.
    pub data_invalid: bool,
    /// The `ai_queries` rows, oldest first, each an object of its columns (`input` parsed).
    pub queries: Vec<Value>,
    /// The `agent_tasks` rows in row order: `{task_id, task}` with the decoded `Task`, or
    /// `{task_id, problem}` when the blob is not one.
    pub tasks: Vec<Value>,
}

/// Reads conversation `id`'s rows.
pub fn read_session(connection: &Connection, id: &str) -> rusqlite::Result<WarpConversation> {
    let data: Option<String> = connection
        .query_row(
            include_str!("../../queries/warp_conversation.sql"),
            [id],
            |row| row.get(0),
        )
        .optional()?;
    let (data, data_invalid) = match data {
        None => (Value::Null, false),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(value) => (value, false),
            Err(_) => (Value::Null, true),
        },
    };
    let queries = sqlite::rows_of(
        connection,
        include_str!("../../queries/warp_queries.sql"),
        id,
        |row| {
            let input: Option<String> = row.get(2)?;
            let input = input
                .map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text)))
                .unwrap_or(Value::Null);
            let status: Option<String> = row.get(4)?;
            let status = status.map(|text| {
                serde_json::from_str::<String>(&text).unwrap_or_else(|_| text.trim().to_string())
            });
            Ok(json!({
                "exchange_id": row.get::<_, Option<String>>(0)?,
                "start_ts": row.get::<_, Option<String>>(1)?,
                "input": input,
                "working_directory": row.get::<_, Option<String>>(3)?,
                "output_status": status,
                "model_id": row.get::<_, Option<String>>(5)?,
            }))
        },
    )?;
    let tasks = sqlite::rows_of(
        connection,
        include_str!("../../queries/warp_tasks.sql"),
        id,
        |row| {
            let task_id: Option<String> = row.get(0)?;
            let blob = blob_or_text(row.get_ref(1)?);
            Ok(match decode_task(&blob) {
                Some(task) => json!({"task_id": task_id, "task": task}),
                None => json!({"task_id": task_id, "problem": "not a protobuf Task"}),
            })
        },
    )?;
    Ok(WarpConversation {
        id: id.to_string(),
        data,
        data_invalid,
        queries,
        tasks,
    })
}

fn blob_or_text(value: rusqlite::types::ValueRef<'_>) -> Vec<u8> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Blob(bytes) | ValueRef::Text(bytes) => bytes.to_vec(),
        _ => Vec::new(),
    }
}

// ---- protobuf -> JSON (the parts of a Task esker reads)

/// Field `number` as text (not trimmed; invalid UTF-8 replaced), `None` when absent or empty.
fn string(fields: &Fields<'_>, number: u32) -> Option<String> {
    bytes(fields, number)
        .map(|raw| String::from_utf8_lossy(raw).into_owned())
        .filter(|text| !text.is_empty())
}

/// Every field `number` as text.
fn strings(fields: &Fields<'_>, number: u32) -> Vec<String> {
    all_bytes(fields, number)
        .into_iter()
        .map(|raw| String::from_utf8_lossy(raw).into_owned())
        .collect()
}

/// Field `number` as a nested message (an empty message when present with no bytes).
fn nested<'a>(fields: &Fields<'a>, number: u32) -> Option<Fields<'a>> {
    bytes(fields, number).and_then(protowire::fields)
}

/// Every field `number` as a nested message (invalid ones left out).
fn all_nested<'a>(fields: &Fields<'a>, number: u32) -> Vec<Fields<'a>> {
    all_bytes(fields, number)
        .into_iter()
        .filter_map(protowire::fields)
        .collect()
}

/// An `int32` field (negative values are ten-byte varints).
fn int32(fields: &Fields<'_>, number: u32) -> Option<i64> {
    varint(fields, number).map(|raw| i64::from(raw as i64 as i32))
}

/// The first of `numbers` present in `fields`: which member of a oneof is set.
fn oneof(fields: &Fields<'_>, numbers: &[u32]) -> Option<u32> {
    fields
        .iter()
        .map(|(number, _)| *number)
        .find(|number| numbers.contains(number))
}

/// Inserts `value` under `name` when it is not null or empty.
fn put(object: &mut Map<String, Value>, name: &str, value: Value) {
    let empty = match &value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    if !empty {
        object.insert(name.to_string(), value);
    }
}

/// A `Task` as JSON: `{id, description, parent_task_id, messages}`; `None` when the bytes are
/// not a message or carry no task id.
pub fn decode_task(blob: &[u8]) -> Option<Value> {
    let fields = protowire::fields(blob)?;
    let id = string(&fields, 1)?;
    let parent = nested(&fields, 3).and_then(|dependencies| string(&dependencies, 1));
    let messages: Vec<Value> = all_bytes(&fields, 5)
        .into_iter()
        .map(decode_message)
        .collect();
    let mut task = Map::new();
    task.insert("id".to_string(), Value::String(id));
    put(
        &mut task,
        "description",
        string(&fields, 2).map_or(Value::Null, Value::String),
    );
    put(
        &mut task,
        "parent_task_id",
        parent.map_or(Value::Null, Value::String),
    );
    task.insert("messages".to_string(), Value::Array(messages));
    Some(Value::Object(task))
}

/// A `Message` as JSON: `{id, time, kind, ...}`; `{kind: "invalid"}` when it does not decode.
fn decode_message(raw: &[u8]) -> Value {
    let Some(fields) = protowire::fields(raw) else {
        return json!({"kind": "invalid"});
    };
    let mut message = Map::new();
    put(
        &mut message,
        "id",
        string(&fields, 1).map_or(Value::Null, Value::String),
    );
    if let Some(time) = nested(&fields, 14).and_then(|stamp| proto_time(&stamp)) {
        message.insert("time".to_string(), Value::String(time.to_rfc3339()));
    }
    let kinds = [
        2, 3, 4, 5, 6, 9, 10, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    ];
    let kind = oneof(&fields, &kinds);
    let body = kind.and_then(|number| nested(&fields, number));
    let body = body.unwrap_or_default();
    let (name, content) = match kind {
        Some(2) => ("user_query", user_query(&body)),
        Some(3) => ("agent_output", json!({"text": string(&body, 1)})),
        Some(15) => ("agent_reasoning", json!({"text": string(&body, 1)})),
        Some(4) => ("tool_call", decode_tool_call(&body)),
        Some(5) => ("tool_call_result", decode_tool_result(&body)),
        Some(9) => ("system_query", system_query(&body)),
        Some(16) => {
            let summary = nested(&body, 1).and_then(|summary| string(&summary, 1));
            ("summarization", json!({"summary": summary}))
        }
        Some(19) => ("web_search", web_search(&body)),
        Some(20) => ("web_fetch", web_fetch(&body)),
        Some(25) => (
            "model_used",
            json!({"model_id": string(&body, 1), "display_name": string(&body, 2)}),
        ),
        Some(23) => {
            let query = nested(&body, 2).map(|query| user_query(&query));
            ("invoke_skill", json!({"user_query": query}))
        }
        _ => ("other", json!({"field": kind})),
    };
    message.insert("kind".to_string(), Value::String(name.to_string()));
    if let Value::Object(content) = content {
        for (key, value) in content {
            put(&mut message, &key, value);
        }
    }
    Value::Object(message)
}

/// A `google.protobuf.Timestamp` (`seconds` 1, `nanos` 2).
fn proto_time(stamp: &Fields<'_>) -> Option<DateTime<Utc>> {
    let seconds = varint(stamp, 1).map(|raw| raw as i64)?;
    let nanos = varint(stamp, 2).unwrap_or(0) as u32;
    DateTime::from_timestamp(seconds, nanos.min(999_999_999))
}

/// The working directory of an `InputContext` (`directory` 1 . `pwd` 1).
fn context_pwd(context: Option<Fields<'_>>) -> Option<String> {
    context
        .and_then(|context| nested(&context, 1))
        .and_then(|directory| string(&directory, 1))
}

fn user_query(body: &Fields<'_>) -> Value {
    json!({"query": string(body, 1), "pwd": context_pwd(nested(body, 2))})
}

fn system_query(body: &Fields<'_>) -> Value {
    const TYPES: [(u32, &str); 7] = [
        (1, "auto_code_diff"),
        (3, "resume_conversation"),
        (4, "generate_passive_suggestions"),
        (5, "create_new_project"),
        (6, "clone_repository"),
        (7, "summarize_conversation"),
        (8, "fetch_review_comments"),
    ];
    let numbers: Vec<u32> = TYPES.iter().map(|(number, _)| *number).collect();
    let kind = oneof(body, &numbers);
    let name = TYPES
        .iter()
        .find(|(number, _)| Some(*number) == kind)
        .map_or("system_query", |(_, name)| name);
    let detail = kind.and_then(|number| nested(body, number));
    let text = detail.and_then(|detail| string(&detail, 1));
    json!({"type": name, "query": text, "pwd": context_pwd(nested(body, 2))})
}

/// `ToolCall` oneof members: field number and name (task.proto).
const TOOLS: [(u32, &str); 30] = [
    (2, "run_shell_command"),
    (3, "search_codebase"),
    (4, "server"),
    (5, "read_files"),
    (6, "apply_file_diffs"),
    (7, "suggest_plan"),
    (8, "suggest_create_plan"),
    (9, "grep"),
    (10, "file_glob"),
    (11, "read_mcp_resource"),
    (12, "call_mcp_tool"),
    (13, "write_to_long_running_shell_command"),
    (14, "suggest_new_conversation"),
    (15, "file_glob_v2"),
    (16, "suggest_prompt"),
    (17, "open_code_review"),
    (18, "init_project"),
    (19, "subagent"),
    (20, "read_documents"),
    (21, "edit_documents"),
    (22, "create_documents"),
    (23, "read_shell_command_output"),
    (24, "use_computer"),
    (25, "insert_review_comments"),
    (26, "read_skill"),
    (27, "request_computer_use"),
    (28, "fetch_conversation"),
    (29, "start_agent"),
    (30, "send_message_to_agent"),
    (31, "transfer_shell_command_control_to_user"),
];

/// `ToolCallResult` oneof members: field number, name and the number of its `error` member.
const RESULTS: [(u32, &str, Option<u32>); 31] = [
    (2, "run_shell_command", None),
    (3, "search_codebase", Some(2)),
    (4, "server", None),
    (5, "read_files", Some(2)),
    (6, "apply_file_diffs", Some(2)),
    (7, "suggest_plan", None),
    (8, "suggest_create_plan", None),
    (9, "grep", Some(2)),
    (10, "file_glob", Some(2)),
    (14, "cancel", None),
    (15, "read_mcp_resource", Some(2)),
    (16, "call_mcp_tool", Some(2)),
    (17, "write_to_long_running_shell_command", Some(3)),
    (18, "suggest_new_conversation", None),
    (19, "file_glob_v2", Some(2)),
    (20, "suggest_prompt", None),
    (21, "open_code_review", None),
    (22, "init_project", None),
    (23, "subagent", None),
    (24, "read_documents", Some(2)),
    (25, "edit_documents", Some(2)),
    (26, "create_documents", Some(2)),
    (27, "read_shell_command_output", Some(4)),
    (28, "use_computer", Some(2)),
    (29, "insert_review_comments", Some(3)),
    (30, "read_skill", Some(2)),
    (31, "request_computer_use", Some(3)),
    (32, "fetch_conversation", Some(2)),
    (33, "start_agent", Some(2)),
    (34, "send_message_to_agent", Some(2)),
    (35, "transfer_shell_command_control_to_user", Some(3)),
];

/// Simple text arguments of a tool: (field number, argument name, repeated).
fn simple_arguments(tool: u32) -> &'static [(u32, &'static str, bool)] {
    match tool {
        2 => &[(1, "command", false)],
        3 => &[
            (1, "query", false),
            (2, "path_filters", true),
            (3, "codebase_path", false),
        ],
        4 => &[(1, "payload", false)],
        9 => &[(1, "queries", true), (2, "path", false)],
        10 => &[(1, "patterns", true), (2, "path", false)],
        11 => &[(1, "uri", false), (2, "server_id", false)],
        13 => &[(1, "input", false), (3, "command_id", false)],
        15 => &[(1, "patterns", true), (2, "search_dir", false)],
        19 => &[(1, "task_id", false), (2, "payload", false)],
        23 => &[(1, "command_id", false)],
        26 => &[
            (1, "skill_path", false),
            (2, "bundled_skill_id", false),
            (3, "name", false),
        ],
        28 => &[(1, "conversation_id", false)],
        29 => &[(1, "name", false), (2, "prompt", false)],
        30 => &[
            (1, "addresses", true),
            (2, "subject", false),
            (3, "message", false),
        ],
        31 => &[(1, "reason", false)],
        _ => &[],
    }
}

fn decode_tool_call(body: &Fields<'_>) -> Value {
    let numbers: Vec<u32> = TOOLS.iter().map(|(number, _)| *number).collect();
    let kind = oneof(body, &numbers);
    let tool = TOOLS
        .iter()
        .find(|(number, _)| Some(*number) == kind)
        .map_or(UNKNOWN_TOOL, |(_, name)| name);
    let detail = kind
        .and_then(|number| nested(body, number))
        .unwrap_or_default();
    let mut arguments = Map::new();
    for &(number, name, repeated) in simple_arguments(kind.unwrap_or(0)) {
        let value = if repeated {
            Value::from(strings(&detail, number))
        } else {
            string(&detail, number).map_or(Value::Null, Value::String)
        };
        put(&mut arguments, name, value);
    }
    let mut name = tool.to_string();
    match kind {
        Some(5) => {
            let files: Vec<String> = all_nested(&detail, 1)
                .iter()
                .filter_map(|file| string(file, 1))
                .collect();
            put(&mut arguments, "files", Value::from(files));
        }
        Some(6) => apply_file_diffs_arguments(&detail, &mut arguments),
        Some(12) => {
            if let Some(tool) = string(&detail, 1) {
                name = tool.clone();
                arguments.insert("name".to_string(), Value::String(tool));
            }
            if let Some(args) = nested(&detail, 2) {
                arguments.insert("args".to_string(), struct_json(&args));
            }
            put(
                &mut arguments,
                "server_id",
                string(&detail, 3).map_or(Value::Null, Value::String),
            );
        }
        _ => {}
    }
    json!({
        "tool_call_id": string(body, 1),
        "tool": name,
        "arguments": Value::Object(arguments),
    })
}

fn apply_file_diffs_arguments(detail: &Fields<'_>, arguments: &mut Map<String, Value>) {
    put(
        arguments,
        "summary",
        string(detail, 1).map_or(Value::Null, Value::String),
    );
    let diffs: Vec<Value> = all_nested(detail, 2)
        .iter()
        .map(|diff| {
            json!({"file_path": string(diff, 1), "search": string(diff, 2),
                "replace": string(diff, 3)})
        })
        .collect();
    put(arguments, "diffs", Value::from(diffs));
    let new_files: Vec<Value> = all_nested(detail, 3)
        .iter()
        .map(|file| json!({"file_path": string(file, 1), "content": string(file, 2)}))
        .collect();
    put(arguments, "new_files", Value::from(new_files));
    let deleted: Vec<String> = all_nested(detail, 4)
        .iter()
        .filter_map(|file| string(file, 1))
        .collect();
    put(arguments, "deleted_files", Value::from(deleted));
    let updates: Vec<String> = all_nested(detail, 5)
        .iter()
        .filter_map(|update| string(update, 1))
        .collect();
    put(arguments, "v4a_updates", Value::from(updates));
}

/// A `google.protobuf.Struct` as a JSON object (`fields` 1: map entries `{key 1, value 2}`).
/// Numbers (fixed-width doubles) are not decoded: they read as null.
fn struct_json(fields: &Fields<'_>) -> Value {
    let mut object = Map::new();
    for entry in all_nested(fields, 1) {
        if let Some(name) = string(&entry, 1) {
            let value = nested(&entry, 2).map_or(Value::Null, |value| value_json(&value));
            object.insert(name, value);
        }
    }
    Value::Object(object)
}

/// A `google.protobuf.Value`: `string_value` 3, `bool_value` 4, `struct_value` 5,
/// `list_value` 6 (`values` 1).
fn value_json(value: &Fields<'_>) -> Value {
    if let Some(text) = bytes(value, 3) {
        return Value::String(String::from_utf8_lossy(text).into_owned());
    }
    if let Some(flag) = varint(value, 4) {
        return Value::Bool(flag != 0);
    }
    if let Some(object) = nested(value, 5) {
        return struct_json(&object);
    }
    if let Some(list) = nested(value, 6) {
        return Value::Array(all_nested(&list, 1).iter().map(value_json).collect());
    }
    Value::Null
}

/// A shell command's outcome: `ShellCommandFinished` (`output` 1, `exit_code` 2) or a
/// `LongRunningShellCommandSnapshot` (`output` 1).
fn shell_outcome(finished: Option<Fields<'_>>, snapshot: Option<Fields<'_>>) -> (Value, Value) {
    if let Some(finished) = finished {
        return (
            Value::from(string(&finished, 1).unwrap_or_default()),
            Value::from(int32(&finished, 2).unwrap_or(0)),
        );
    }
    if let Some(snapshot) = snapshot {
        return (
            Value::from(string(&snapshot, 1).unwrap_or_default()),
            Value::Null,
        );
    }
    (Value::Null, Value::Null)
}

/// Text of a list of `FileContent`s (`file_path` 1, `content` 2).
fn files_text(files: &[Fields<'_>]) -> String {
    files
        .iter()
        .map(|file| {
            let path = string(file, 1).unwrap_or_default();
            match string(file, 2) {
                Some(content) => format!("{path}\n{content}"),
                None => path,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn decode_tool_result(body: &Fields<'_>) -> Value {
    let numbers: Vec<u32> = RESULTS.iter().map(|(number, _, _)| *number).collect();
    let kind = oneof(body, &numbers);
    let (name, error_field) = RESULTS
        .iter()
        .find(|(number, _, _)| Some(*number) == kind)
        .map_or((UNKNOWN_TOOL, None), |(_, name, error)| (*name, *error));
    let detail = kind
        .and_then(|number| nested(body, number))
        .unwrap_or_default();
    let mut output = Value::Null;
    let mut exit_code = Value::Null;
    let mut failed = false;
    let mut error = error_field
        .and_then(|number| nested(&detail, number))
        .map(|error| string(&error, 1).unwrap_or_else(|| "error".to_string()));
    match kind {
        Some(2) => {
            // RunShellCommandResult: command 3, snapshot 4, finished 5, permission_denied 6;
            // the deprecated output 1 / exit_code 2 before `finished` existed.
            (output, exit_code) = shell_outcome(nested(&detail, 5), nested(&detail, 4));
            if bytes(&detail, 6).is_some() {
                error = Some("permission denied".to_string());
            } else if output.is_null() {
                output = Value::from(string(&detail, 1).unwrap_or_default());
                exit_code = int32(&detail, 2).map_or(Value::Null, Value::from);
            }
        }
        Some(17) | Some(35) => {
            (output, exit_code) = shell_outcome(nested(&detail, 2), nested(&detail, 1));
        }
        Some(27) => {
            (output, exit_code) = shell_outcome(nested(&detail, 3), nested(&detail, 2));
        }
        Some(14) => {
            failed = true;
            output = Value::from("cancelled");
        }
        Some(4) | Some(23) => output = Value::from(string(&detail, 1).unwrap_or_default()),
        Some(3) => {
            let success = nested(&detail, 1).unwrap_or_default();
            output = Value::from(files_text(&all_nested(&success, 1)));
        }
        Some(5) => {
            let text = nested(&detail, 1).map(|success| files_text(&all_nested(&success, 1)));
            let any = nested(&detail, 3).map(|success| {
                let files: Vec<Fields<'_>> = all_nested(&success, 1)
                    .iter()
                    .filter_map(|file| nested(file, 6).or_else(|| nested(file, 5)))
                    .collect();
                files_text(&files)
            });
            output = Value::from(text.or(any).unwrap_or_default());
        }
        Some(6) => {
            let success = nested(&detail, 1).unwrap_or_default();
            let mut paths: Vec<String> = all_nested(&success, 2)
                .iter()
                .filter_map(|updated| nested(updated, 1).and_then(|file| string(&file, 1)))
                .collect();
            paths.extend(
                all_nested(&success, 1)
                    .iter()
                    .filter_map(|file| string(file, 1)),
            );
            paths.extend(
                all_nested(&success, 3)
                    .iter()
                    .filter_map(|file| string(file, 1)),
            );
            output = Value::from(paths.join("\n"));
        }
        Some(9) => {
            let success = nested(&detail, 1).unwrap_or_default();
            let mut lines = Vec::new();
            for file in all_nested(&success, 1) {
                let path = string(&file, 1).unwrap_or_default();
                let numbers: Vec<Fields<'_>> = all_nested(&file, 2);
                if numbers.is_empty() {
                    lines.push(path.clone());
                }
                for line in numbers {
                    lines.push(format!("{path}:{}", varint(&line, 1).unwrap_or(0)));
                }
            }
            output = Value::from(lines.join("\n"));
        }
        Some(10) => {
            let success = nested(&detail, 1).unwrap_or_default();
            output = Value::from(string(&success, 1).unwrap_or_default());
        }
        Some(19) => {
            let success = nested(&detail, 1).unwrap_or_default();
            let paths: Vec<String> = all_nested(&success, 1)
                .iter()
                .filter_map(|file| string(file, 1))
                .collect();
            output = Value::from(paths.join("\n"));
        }
        Some(15) => {
            let success = nested(&detail, 1).unwrap_or_default();
            let contents: Vec<String> = all_nested(&success, 1)
                .iter()
                .filter_map(|content| nested(content, 2).and_then(|text| string(&text, 1)))
                .collect();
            output = Value::from(contents.join("\n"));
        }
        Some(16) => {
            let success = nested(&detail, 1).unwrap_or_default();
            let texts: Vec<String> = all_nested(&success, 1)
                .iter()
                .filter_map(|result| nested(result, 1).and_then(|text| string(&text, 1)))
                .collect();
            output = Value::from(texts.join("\n"));
        }
        _ => {}
    }
    if let Some(message) = &error {
        failed = true;
        if output.as_str().is_none_or(str::is_empty) {
            output = Value::from(message.clone());
        }
    }
    if exit_code.as_i64().is_some_and(|code| code != 0) {
        failed = true;
    }
    json!({
        "tool_call_id": string(body, 1),
        "result": name,
        "output": output,
        "exit_code": exit_code,
        "failed": failed,
        "pwd": context_pwd(nested(body, 11)),
    })
}

/// `WebSearch {status 1: searching 1 {query} | success 2 {query 1, pages 2 {url 1, title 2}} |
/// error 3}`.
fn web_search(body: &Fields<'_>) -> Value {
    let status = nested(body, 1).unwrap_or_default();
    if let Some(success) = nested(&status, 2) {
        let pages: Vec<String> = all_nested(&success, 2)
            .iter()
            .map(|page| {
                let url = string(page, 1).unwrap_or_default();
                match string(page, 2) {
                    Some(title) => format!("{title} {url}"),
                    None => url,
                }
            })
            .collect();
        return json!({"query": string(&success, 1), "state": "success",
            "output": pages.join("\n")});
    }
    let query = nested(&status, 1).and_then(|searching| string(&searching, 1));
    let state = if bytes(&status, 3).is_some() {
        "error"
    } else {
        "running"
    };
    json!({"query": query, "state": state})
}

/// `WebFetch {status 1: fetching 1 {urls 1} | success 2 {pages 1 {url 1, title 2, success 3}} |
/// error 3}`.
fn web_fetch(body: &Fields<'_>) -> Value {
    let status = nested(body, 1).unwrap_or_default();
    if let Some(success) = nested(&status, 2) {
        let pages = all_nested(&success, 1);
        let urls: Vec<String> = pages.iter().filter_map(|page| string(page, 1)).collect();
        let lines: Vec<String> = pages
            .iter()
            .map(|page| {
                let url = string(page, 1).unwrap_or_default();
                let title = string(page, 2).unwrap_or_default();
                format!("{title} {url}").trim().to_string()
            })
            .collect();
        let all_failed = !pages.is_empty() && pages.iter().all(|page| varint(page, 3).is_none());
        return json!({"urls": urls, "state": if all_failed { "error" } else { "success" },
            "output": lines.join("\n")});
    }
    let urls = nested(&status, 1).map_or_else(Vec::new, |fetching| strings(&fetching, 1));
    let state = if bytes(&status, 3).is_some() {
        "error"
    } else {
        "running"
    };
    json!({"urls": urls, "state": state})
}

// ---- JSON -> events

/// Parses one conversation: its session, and one per sub-agent task.
pub fn parse(conversation: &WarpConversation) -> ParseOutput {
    let mut warnings = Vec::new();
    let id = &conversation.id;
    if conversation.data_invalid {
        warnings.push(ParseWarning {
            line: 0,
            message: format!(
                "conversation {id}: conversation_data is not JSON; its usage is not read"
            ),
        });
    }
    let mut roots = Vec::new();
    let mut children = Vec::new();
    for (index, row) in conversation.tasks.iter().enumerate() {
        let Some(task) = row.get("task") else {
            let task_id = row.get("task_id").and_then(Value::as_str).unwrap_or("?");
            warnings.push(ParseWarning {
                line: index as u64 + 1,
                message: format!(
                    "conversation {id}: task {task_id} is not a protobuf Task; skipped"
                ),
            });
            continue;
        };
        if task.get("parent_task_id").is_some() {
            children.push(task);
        } else {
            roots.push(task);
        }
    }
    let facts = QueryFacts::of(&conversation.queries);
    let mut main = Builder::new(id, &mut warnings);
    if roots.is_empty() {
        main.queries(&conversation.queries);
    } else {
        for task in &roots {
            main.task(task);
        }
    }
    let title = roots
        .iter()
        .find_map(|task| task.get("description").and_then(Value::as_str))
        .map(str::to_string);
    let mut sessions = Vec::new();
    let data = &conversation.data;
    let mut session = main.finish(Source::Warp, id.clone(), &facts);
    if let Some(usage) = token_usage(data)
        && let Some(carrier) = totals_carrier(&session.events)
    {
        TokenUsage::attach(&mut session.events[carrier], usage);
    }
    session.meta.title = title;
    session.meta.parent_native_id = text_of(data, "parent_conversation_id");
    session.meta.agent_name = text_of(data, "agent_name");
    let parent_model = session.meta.model.clone();
    let parent_cwd = session.meta.cwd.clone();
    sessions.push(session);
    for task in children {
        let task_id = task.get("id").and_then(Value::as_str).unwrap_or_default();
        let mut child = Builder::new(id, &mut warnings);
        child.task(task);
        let mut session = child.finish(Source::Warp, format!("{id}/{task_id}"), &facts);
        session.meta.parent_native_id = Some(id.clone());
        session.meta.agent_name = task
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        session.meta.title.clone_from(&session.meta.agent_name);
        session.meta.model = session.meta.model.or_else(|| parent_model.clone());
        session.meta.cwd = session.meta.cwd.or_else(|| parent_cwd.clone());
        sessions.push(session);
    }
    ParseOutput { sessions, warnings }
}

fn text_of(value: &Value, name: &str) -> Option<String> {
    value
        .get(name)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// The conversation's total tokens over every model, when any were counted.
fn token_usage(data: &Value) -> Option<TokenUsage> {
    let models = data
        .pointer("/conversation_usage_metadata/token_usage")?
        .as_array()?;
    let total: i64 = models
        .iter()
        .flat_map(|model| {
            ["warp_tokens", "byok_tokens", "custom_endpoint_tokens"]
                .into_iter()
                .filter_map(|field| model.get(field).and_then(Value::as_i64))
        })
        .map(|tokens| tokens.max(0))
        .sum();
    (total > 0).then_some(TokenUsage {
        total: Some(total),
        ..TokenUsage::default()
    })
}

/// What a conversation's `ai_queries` rows tell about it.
#[derive(Default)]
struct QueryFacts {
    cwd: Option<String>,
    model: Option<String>,
    started_at: Option<DateTime<Utc>>,
}

impl QueryFacts {
    fn of(queries: &[Value]) -> QueryFacts {
        let text = |query: &Value, name: &str| text_of(query, name);
        QueryFacts {
            cwd: queries
                .iter()
                .find_map(|query| text(query, "working_directory")),
            model: queries
                .iter()
                .find_map(|query| text(query, "model_id").filter(|model| is_model(model))),
            started_at: queries
                .iter()
                .filter_map(|query| query.get("start_ts").and_then(parse_timestamp))
                .min(),
        }
    }
}

/// A model id that names a model: Warp writes `auto` when the user picked none.
fn is_model(model: &str) -> bool {
    !model.is_empty() && model != "auto"
}

/// Builds one session's events from task messages (or queries).
struct Builder<'w> {
    conversation: String,
    warnings: &'w mut Vec<ParseWarning>,
    events: Vec<RawEvent>,
    /// Call id -> tool name.
    calls: HashMap<String, String>,
    model: Option<String>,
    first_model: Option<String>,
    cwd: Option<String>,
    first_time: Option<DateTime<Utc>>,
    /// Messages seen: each message's line.
    line: u64,
}

impl<'w> Builder<'w> {
    fn new(conversation: &str, warnings: &'w mut Vec<ParseWarning>) -> Builder<'w> {
        Builder {
            conversation: conversation.to_string(),
            warnings,
            events: Vec::new(),
            calls: HashMap::new(),
            model: None,
            first_model: None,
            cwd: None,
            first_time: None,
            line: 0,
        }
    }

    fn finish(mut self, source: Source, native_id: String, facts: &QueryFacts) -> ParsedSession {
        mark_terminal_replies(&mut self.events);
        let started_at = match (facts.started_at, self.first_time) {
            (Some(query), Some(message)) => Some(query.min(message)),
            (query, message) => query.or(message),
        };
        ParsedSession {
            source,
            native_id,
            meta: SessionMeta {
                cwd: self.cwd.or_else(|| facts.cwd.clone()),
                model: self.first_model.or_else(|| facts.model.clone()),
                started_at,
                ..SessionMeta::default()
            },
            events: self.events,
        }
    }

    /// The prompts of a conversation read from `ai_queries` alone.
    fn queries(&mut self, queries: &[Value]) {
        for (index, query) in queries.iter().enumerate() {
            self.line += 1;
            let time = query.get("start_ts").and_then(parse_timestamp);
            self.note_time(time);
            let exchange = text_of(query, "exchange_id").unwrap_or_else(|| index.to_string());
            let inputs: &[Value] = match query.get("input") {
                Some(Value::Array(inputs)) => inputs,
                Some(Value::Null) | None => &[],
                Some(_) => {
                    self.warnings.push(ParseWarning {
                        line: self.line,
                        message: format!(
                            "conversation {}: query {exchange}'s input is not JSON; skipped",
                            self.conversation
                        ),
                    });
                    &[]
                }
            };
            for (part, input) in inputs.iter().enumerate() {
                let Some(text) = input.pointer("/Query/text").and_then(Value::as_str) else {
                    continue;
                };
                if text.trim().is_empty() {
                    continue;
                }
                let mut event = plain_event(
                    format!("query.{exchange}.{part}"),
                    EventType::UserInput,
                    self.line,
                    time,
                    text.to_string(),
                    None,
                );
                event.starts_turn = true;
                self.events.push(event);
            }
        }
    }

    fn note_time(&mut self, time: Option<DateTime<Utc>>) {
        if let Some(time) = time {
            self.first_time = Some(self.first_time.map_or(time, |first| first.min(time)));
        }
    }

    fn note_cwd(&mut self, message: &Value) {
        if self.cwd.is_none() {
            self.cwd = text_of(message, "pwd");
        }
    }

    fn task(&mut self, task: &Value) {
        let task_id = task.get("id").and_then(Value::as_str).unwrap_or_default();
        let messages: &[Value] = task
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, message) in messages.iter().enumerate() {
            self.line += 1;
            let message_id = text_of(message, "id").unwrap_or_else(|| index.to_string());
            let key = format!("{task_id}.{message_id}");
            self.message(&key, message);
        }
    }

    fn message(&mut self, key: &str, message: &Value) {
        let line = self.line;
        let time = message.get("time").and_then(parse_timestamp);
        self.note_time(time);
        let kind = message.get("kind").and_then(Value::as_str).unwrap_or("");
        let text = |name: &str| text_of(message, name);
        match kind {
            "user_query" => {
                self.note_cwd(message);
                self.prompt(key, line, time, text("query"));
            }
            "invoke_skill" => {
                let query = message.get("user_query").unwrap_or(&Value::Null);
                self.prompt(key, line, time, text_of(query, "query"));
            }
            "agent_output" => self.reply(key, EventType::AssistantResponse, time, text("text")),
            "agent_reasoning" => self.reply(key, EventType::Reasoning, time, text("text")),
            "model_used" => {
                if let Some(model) = text("model_id") {
                    self.first_model.get_or_insert_with(|| model.clone());
                    self.model = Some(model);
                }
            }
            "tool_call" => {
                let name = text("tool").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let call_id = text("tool_call_id");
                let arguments = message.get("arguments").cloned().unwrap_or(Value::Null);
                let mut event = tool_call(
                    format!("{key}.call"),
                    line,
                    time,
                    &name,
                    call_id.as_deref(),
                    arguments,
                );
                event.originating_model.clone_from(&self.model);
                self.events.push(event);
                if let Some(call_id) = call_id {
                    self.calls.insert(call_id, name);
                }
            }
            "tool_call_result" => {
                self.note_cwd(message);
                let call_id = text("tool_call_id");
                let name = call_id
                    .as_ref()
                    .and_then(|id| self.calls.get(id).cloned())
                    .or_else(|| text("result"))
                    .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let failed = message.get("failed").and_then(Value::as_bool) == Some(true);
                let mut event = tool_response(
                    format!("{key}.result"),
                    line,
                    time,
                    &name,
                    call_id.as_deref(),
                    text("output").unwrap_or_default(),
                    failed,
                );
                event.exit_code = message.get("exit_code").and_then(Value::as_i64);
                self.events.push(event);
            }
            "web_search" | "web_fetch" => self.web(key, kind, time, message),
            "system_query" => {
                self.note_cwd(message);
                let body = text("query")
                    .or_else(|| text("type"))
                    .unwrap_or_else(|| "system_query".to_string());
                self.events.push(plain_event(
                    key.to_string(),
                    EventType::System,
                    line,
                    time,
                    body,
                    text("type").as_deref(),
                ));
            }
            "summarization" => {
                if let Some(summary) = text("summary") {
                    self.events.push(plain_event(
                        key.to_string(),
                        EventType::Compaction,
                        line,
                        time,
                        summary,
                        Some("conversation_summary"),
                    ));
                }
            }
            "invalid" => self.warnings.push(ParseWarning {
                line,
                message: format!(
                    "conversation {}: message {key} is not a protobuf Message; skipped",
                    self.conversation
                ),
            }),
            _ => {}
        }
    }

    fn prompt(&mut self, key: &str, line: u64, time: Option<DateTime<Utc>>, text: Option<String>) {
        let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
            return;
        };
        let mut event = plain_event(
            key.to_string(),
            EventType::UserInput,
            line,
            time,
            text,
            None,
        );
        event.starts_turn = true;
        event.originating_model.clone_from(&self.model);
        self.events.push(event);
    }

    fn reply(
        &mut self,
        key: &str,
        kind: EventType,
        time: Option<DateTime<Utc>>,
        text: Option<String>,
    ) {
        let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
            return;
        };
        let mut event = plain_event(key.to_string(), kind, self.line, time, text, None);
        event.model.clone_from(&self.model);
        event.originating_model.clone_from(&self.model);
        self.events.push(event);
    }

    /// A web search or fetch: a call, and its result once it finished.
    fn web(&mut self, key: &str, kind: &str, time: Option<DateTime<Utc>>, message: &Value) {
        let mut arguments = Map::new();
        for name in ["query", "urls"] {
            if let Some(value) = message.get(name) {
                arguments.insert(name.to_string(), value.clone());
            }
        }
        let call_id = key.to_string();
        self.events.push(tool_call(
            format!("{key}.call"),
            self.line,
            time,
            kind,
            Some(&call_id),
            Value::Object(arguments),
        ));
        let state = message.get("state").and_then(Value::as_str).unwrap_or("");
        if state == "running" {
            return;
        }
        self.events.push(tool_response(
            format!("{key}.result"),
            self.line,
            time,
            kind,
            Some(&call_id),
            text_of(message, "output").unwrap_or_default(),
            state == "error",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint_bytes(mut value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                out.push(byte);
                return out;
            }
            out.push(byte | 0x80);
        }
    }

    fn ld(number: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = varint_bytes(u64::from(number << 3 | 2));
        out.extend(varint_bytes(payload.len() as u64));
        out.extend_from_slice(payload);
        out
    }

    fn int(number: u32, value: i64) -> Vec<u8> {
        let mut out = varint_bytes(u64::from(number << 3));
        out.extend(varint_bytes(value as u64));
        out
    }

    fn s(number: u32, text: &str) -> Vec<u8> {
        ld(number, text.as_bytes())
    }

    fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
        parts.concat()
    }

    fn message(id: &str, seconds: i64, body: Vec<u8>) -> Vec<u8> {
        ld(5, &cat(&[s(1, id), ld(14, &int(1, seconds)), body]))
    }

    fn conversation(tasks: Vec<Vec<u8>>, data: Value) -> WarpConversation {
        WarpConversation {
            id: "c1".to_string(),
            data,
            tasks: tasks
                .iter()
                .map(|blob| match decode_task(blob) {
                    Some(task) => json!({"task_id": "t", "task": task}),
                    None => json!({"task_id": "t", "problem": "x"}),
                })
                .collect(),
            ..WarpConversation::default()
        }
    }

    #[test]
    fn a_task_gives_prompts_replies_reasoning_and_paired_tools() {
        let task = cat(&[
            s(1, "root"),
            s(2, "Fix the count"),
            message(
                "m1",
                1_795_000_000,
                ld(
                    2,
                    &cat(&[s(1, "why?"), ld(2, &ld(1, &s(1, "/home/dev/app")))]),
                ),
            ),
            message("m2", 1_795_000_001, ld(25, &s(1, "claude-4-sonnet"))),
            message("m3", 1_795_000_002, ld(15, &s(1, "think"))),
            message(
                "m4",
                1_795_000_003,
                ld(4, &cat(&[s(1, "tc1"), ld(2, &s(1, "false"))])),
            ),
            message(
                "m5",
                1_795_000_004,
                ld(
                    5,
                    &cat(&[
                        s(1, "tc1"),
                        ld(
                            2,
                            &cat(&[s(3, "false"), ld(5, &cat(&[s(1, "no"), int(2, -1)]))]),
                        ),
                    ]),
                ),
            ),
            message("m6", 1_795_000_005, ld(3, &s(1, "It failed."))),
        ]);
        let data = json!({"conversation_usage_metadata": {"token_usage": [
            {"model_id": "claude-4-sonnet", "warp_tokens": 100, "byok_tokens": 20},
            {"model_id": "gpt-5-nano", "custom_endpoint_tokens": 3}]}});
        let output = parse(&conversation(vec![task], data));
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Warp);
        assert_eq!(session.meta.title.as_deref(), Some("Fix the count"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/home/dev/app"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-4-sonnet"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let call = &session.events[2];
        assert_eq!(call.tool_name.as_deref(), Some("run_shell_command"));
        assert_eq!(call.text, r#"run_shell_command(command="false")"#);
        let result = &session.events[3];
        assert_eq!(result.tool_name.as_deref(), Some("run_shell_command"));
        assert_eq!(result.tool_call_id.as_deref(), Some("tc1"));
        assert_eq!(
            (result.exit_code, result.subtype.as_deref()),
            (Some(-1), Some("error"))
        );
        assert_eq!(
            session.events[4].usage.and_then(|usage| usage.total),
            Some(123)
        );
        assert_eq!(
            session.events[0].timestamp.map(|time| time.to_rfc3339()),
            Some("2026-11-18T11:06:40+00:00".to_string())
        );
    }

    #[test]
    fn a_sub_agent_task_is_a_session_naming_the_conversation() {
        let root = cat(&[s(1, "root"), message("m1", 1, ld(2, &s(1, "go")))]);
        let child = cat(&[
            s(1, "sub"),
            s(2, "Search"),
            ld(3, &s(1, "root")),
            message("m1", 2, ld(3, &s(1, "found"))),
        ]);
        let output = parse(&conversation(vec![root, child], Value::Null));
        assert_eq!(output.sessions.len(), 2);
        let sub = &output.sessions[1];
        assert_eq!(sub.native_id, "c1/sub");
        assert_eq!(sub.meta.parent_native_id.as_deref(), Some("c1"));
        assert_eq!(sub.meta.agent_name.as_deref(), Some("Search"));
        assert_eq!(sub.events.len(), 1);
    }

    #[test]
    fn a_torn_task_and_bad_data_are_counted_warnings() {
        let good = cat(&[s(1, "root"), message("m1", 1, ld(2, &s(1, "go")))]);
        let mut torn = good.clone();
        torn.truncate(good.len() - 3);
        let mut conversation = conversation(vec![good, torn, b"\xff\xff".to_vec()], Value::Null);
        conversation.data_invalid = true;
        let output = parse(&conversation);
        assert_eq!(output.warnings.len(), 3, "{:?}", output.warnings);
        assert_eq!(output.sessions[0].events.len(), 1);
    }

    #[test]
    fn queries_alone_give_prompts() {
        let conversation = WarpConversation {
            id: "c2".to_string(),
            queries: vec![
                json!({"exchange_id": "e1", "start_ts": "2025-03-02 09:00:00.250000",
                    "input": [{"Query": {"text": "total it", "context": []}}],
                    "working_directory": "/w", "model_id": "auto"}),
                json!({"exchange_id": "e2", "start_ts": "2025-03-02 09:01:00",
                    "input": "not json", "model_id": "gpt-5"}),
            ],
            ..WarpConversation::default()
        };
        let output = parse(&conversation);
        let session = &output.sessions[0];
        assert_eq!(session.events.len(), 1);
        assert!(session.events[0].starts_turn);
        assert_eq!(session.meta.cwd.as_deref(), Some("/w"));
        assert_eq!(session.meta.model.as_deref(), Some("gpt-5"));
        assert_eq!(
            session.meta.started_at.map(|time| time.to_rfc3339()),
            Some("2025-03-02T09:00:00.250+00:00".to_string())
        );
        assert_eq!(output.warnings.len(), 1);
    }

    #[test]
    fn mcp_calls_are_named_by_their_tool_and_errors_fail() {
        let args = ld(1, &cat(&[s(1, "path"), ld(2, &s(3, "a.csv"))]));
        let call = ld(
            4,
            &cat(&[s(1, "tc"), ld(12, &cat(&[s(1, "read_csv"), ld(2, &args)]))]),
        );
        let result = ld(
            5,
            &cat(&[s(1, "tc"), ld(16, &ld(2, &s(1, "no such file")))]),
        );
        let task = cat(&[s(1, "root"), message("a", 1, call), message("b", 2, result)]);
        let output = parse(&conversation(vec![task], Value::Null));
        let events = &output.sessions[0].events;
        assert_eq!(events[0].tool_name.as_deref(), Some("read_csv"));
        assert_eq!(events[0].payload.as_ref().unwrap()["args"]["path"], "a.csv");
        assert_eq!(events[1].tool_name.as_deref(), Some("read_csv"));
        assert_eq!(events[1].text, "no such file");
        assert_eq!(events[1].subtype.as_deref(), Some("error"));
    }

    #[test]
    fn the_store_is_known_by_its_name() {
        assert!(is_store_path(std::path::Path::new(
            "/h/.local/state/warp-terminal/warp.sqlite"
        )));
        assert!(is_store_path(std::path::Path::new(
            "/h/.local/state/warp-terminal/warp.sqlite-wal"
        )));
        assert!(!is_store_path(std::path::Path::new("/h/warp.sqlite-shm")));
    }
}
