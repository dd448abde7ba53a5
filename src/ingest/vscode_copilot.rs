//! VS Code chat sessions (GitHub Copilot Chat, the Agents window; source `vscode-copilot`),
//! written by VS Code's own chat service (`microsoft/vscode`
//! `src/vs/workbench/contrib/chat/common/model/{chatSessionStore,chatSessionOperationLog,
//! objectMutationLog,chatModel}.ts`) under a VS Code user directory (`~/.config/Code/User`,
//! `~/Library/Application Support/Code/User`, `%APPDATA%/Code/User`, and the same for `Code -
//! Insiders`, `VSCodium`, `Cursor`, `Windsurf`):
//!
//! - `workspaceStorage/<hash>/chatSessions/<sessionId>.json`: before VS Code 1.109, the whole
//!   session (`ISerializableChatData`, version 1–3) rewritten on every save;
//! - `workspaceStorage/<hash>/chatSessions/<sessionId>.jsonl`: from 1.109 on, an operation log
//!   (`ObjectMutationLog`): `{"kind":0,"v":STATE}` (the whole state; written again when the log
//!   is compacted), then `{"kind":1,"k":PATH,"v":VALUE}` (set; no `v`: the value became
//!   undefined), `{"kind":2,"k":PATH,"v":[ITEMS],"i":N}` (truncate the array at `PATH` to `N`
//!   when `i` is given, then append the items) and `{"kind":3,"k":PATH}` (delete). `PATH` mixes
//!   object keys and array indices (`["requests", 3, "response"]`). VS Code reads the `.jsonl`
//!   when there is one and the `.json` only otherwise, so a `.json` left beside a `.jsonl` is
//!   stale and never read here either;
//! - `globalStorage/emptyWindowChatSessions/<sessionId>.json[l]`: sessions of windows with no
//!   folder (and `workspaceStorage/no-workspace/chatSessions`, their older place);
//! - `workspaceStorage/<hash>/workspace.json` (`{"folder": "file:///…"}`): the session's working
//!   directory (a multi-root `"workspace"` file gives none).
//!
//! A session is `{version, sessionId, creationDate, customTitle (v3) | computedTitle (v2),
//! requests: [...], workingDirectory?}`; each request is one turn: `message.text` (what the
//! user typed; the old format has a string), `timestamp` (ms), `modelId` (`copilot/<model>`),
//! `variableData.variables` (attachments, kept as the prompt's payload), `modeInfo.kind`,
//! `agent`, `response` (the parts shown, in order), `modelState {value: 0 pending, 1 complete,
//! 2 cancelled, 3 failed, 4 needs input; completedAt}` (older: `isCanceled`), `result
//! {errorDetails, timings.totalElapsed, metadata}` and, newer, `promptTokens` /
//! `completionTokens`. Response parts: markdown (`{value}` with no `kind`, or `{kind:
//! "markdownContent" | "markdownVuln", content: {value}}`; adjacent ones are one reply, as VS
//! Code merges them), `inlineReference` (a file or symbol named inside the reply), `thinking`
//! (`value`: reasoning), `toolInvocationSerialized` (`toolId`, `toolCallId`,
//! `invocationMessage` / `pastTenseMessage`, `isConfirmed` (a boolean before 1.104, else
//! `{type}` with 0 denied, 5 skipped), `isComplete`, `resultDetails {input, output[{type:
//! "embed", value, isText}], isError}` or a list of locations, `toolSpecificData` (`terminal`:
//! `commandLine.{original, toolEdited, userEdited}`, `terminalCommandOutput.text`,
//! `terminalCommandState.exitCode`; `input`: `rawInput`; `subagent`: `prompt`, `result`)),
//! `warning` / `info` / `systemNotification` (`content`: `system` events), and UI parts kept out
//! (listed in [`SILENT_PARTS`]); any other kind is an `unknown` event `response:<kind>`.
//!
//! The Copilot Chat extension's `result.metadata` adds what the parts lack: `toolCallRounds[]
//! .toolCalls[{id, name, arguments}]` (a call's real arguments, JSON text, by its id) and
//! `toolCallResults{<id>: {content: [{value}]}}` (what the tool returned), `promptTokens` /
//! `outputTokens` (one count per request, put on its last reply: no cache split is recorded)
//! and `resolvedModel` (the model an `auto` pick ran). A call's arguments come from its round,
//! else `resultDetails.input`, the terminal command or `rawInput`; its result from
//! `toolCallResults`, else the terminal output, the embedded text outputs, or the past-tense
//! message VS Code showed. Events of a response have no times of their own: the prompt has the
//! request's, the request's last event its completion time (`modelState.completedAt`, else the
//! request time plus `result.timings.totalElapsed`), the others are inferred.
//!
//! Shapes checked against the producer's source named above and the public parsers that read
//! these files (agentsview's `vscode_copilot.go`, session-trace); no real session file was
//! available (`../shared/corpus` has none).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::antigravity::home::path_of_file_uri;
use super::content::{
    UNKNOWN_TOOL, arguments_of, mark_terminal_replies, plain_event, text_field, tool_call,
    tool_response,
};
use super::lines::JsonLine;
use super::reader::{ReadLimits, stream_json_lines};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd,
};

/// The folders VS Code keeps chat sessions in: a workspace's `chatSessions` and the empty
/// windows' `globalStorage/emptyWindowChatSessions`.
pub const SESSION_FOLDERS: [&str; 2] = ["chatSessions", "emptyWindowChatSessions"];

/// Response parts that are UI state or repeat what other parts say: never indexed, never
/// reported as unknown.
const SILENT_PARTS: [&str; 41] = [
    "prepareToolInvocation",
    "undoStop",
    "codeblockUri",
    "textEditGroup",
    "notebookEditGroup",
    "textEdit",
    "notebookEdit",
    "workspaceEdit",
    "externalEdit",
    "progressMessage",
    "progressTask",
    "progressTaskSerialized",
    "progressTaskResult",
    "confirmation",
    "elicitation",
    "elicitation2",
    "elicitationSerialized",
    "command",
    "treeData",
    "extensions",
    "pullRequest",
    "multiDiffData",
    "mcpServersStarting",
    "mcpServersStartingSerialized",
    "mcpServersStartingSlow",
    "mcpAuthenticationRequired",
    "hook",
    "questionCarousel",
    "planReview",
    "disabledClaudeHooks",
    "autoModeResolution",
    "clearToPreviousToolInvocation",
    "move",
    "voiceProgress",
    "usedContext",
    "reference",
    "codeCitation",
    "toolInvocationUpdate",
    "externalToolInvocationUpdate",
    "inlineReferenceResolving",
    "markdownVulnResolving",
];

/// The session a file of a chat session folder belongs to: `<folder>/<sessionId>` for
/// `<folder>/<sessionId>.json` and `<folder>/<sessionId>.jsonl`.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let folder = path.parent()?;
    let folder_name = folder.file_name()?.to_str()?;
    if !SESSION_FOLDERS.contains(&folder_name) {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".jsonl")
        .or_else(|| name.strip_suffix(".json"))?;
    (!stem.is_empty() && !stem.starts_with('.')).then(|| folder.join(stem))
}

/// The operation log of the session `key`.
fn log_path(key: &Path) -> PathBuf {
    with_extension(key, "jsonl")
}

/// The whole-file snapshot of the session `key`.
fn snapshot_path(key: &Path) -> PathBuf {
    with_extension(key, "json")
}

fn with_extension(key: &Path, extension: &str) -> PathBuf {
    let mut name = key.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(extension);
    key.with_file_name(name)
}

/// The `workspace.json` of the workspace whose `chatSessions` folder holds `key`.
fn workspace_manifest(key: &Path) -> Option<PathBuf> {
    let folder = key.parent()?;
    if folder.file_name()? != "chatSessions" {
        return None;
    }
    Some(folder.parent()?.join("workspace.json"))
}

/// The files of the session `key` that exist: its log, its snapshot, its workspace manifest.
pub fn members(key: &Path) -> Vec<PathBuf> {
    [
        Some(log_path(key)),
        Some(snapshot_path(key)),
        workspace_manifest(key),
    ]
    .into_iter()
    .flatten()
    .filter(|path| path.is_file())
    .collect()
}

/// The working directory a workspace manifest names: its `folder` URI as a path (`file://`
/// decoded; the path part of a remote URI), `None` for a multi-root `workspace` file.
pub fn workspace_folder(manifest: &Value) -> Option<String> {
    let uri = text_field(manifest, "folder")?;
    folder_of_uri(&uri)
}

/// A folder URI as a path (a plain absolute path stays as it is).
pub fn folder_of_uri(uri: &str) -> Option<String> {
    if uri.starts_with("file://") {
        return Some(path_of_file_uri(uri)).filter(|path| !path.is_empty());
    }
    // `vscode-remote://ssh-remote%2Bhost/srv/app`: the path after the authority.
    let Some((_, rest)) = uri.split_once("://") else {
        return Some(uri.to_string()).filter(|path| path.starts_with('/'));
    };
    let start = rest.find('/')?;
    let end = rest.find(['?', '#']).unwrap_or(rest.len()).max(start);
    let path = percent_encoding::percent_decode_str(&rest[start..end])
        .decode_utf8_lossy()
        .into_owned();
    Some(path)
}

/// One session read from its folder, ready to redact and parse.
#[derive(Debug, Clone)]
pub struct ChatSession {
    /// The file the session was read from (the log, else the snapshot).
    pub path: PathBuf,
    /// The session's state: the snapshot, or the log replayed.
    pub state: Value,
    /// The working directory of the workspace the session belongs to.
    pub workspace: Option<String>,
    /// Lines of the log that are not JSON, skipped.
    pub malformed: Vec<ParseWarning>,
    /// Log entries that could not be applied, skipped.
    pub warnings: Vec<ParseWarning>,
    pub bytes_read: u64,
}

/// What reading a session's files gave.
#[derive(Debug)]
pub enum ChatRead {
    Session(Box<ChatSession>),
    /// The files are not a VS Code chat session.
    NotChat,
    /// Half-written: the snapshot ends mid-document, or the log has no complete line yet.
    Incomplete(ParseWarning),
    /// Unusable: not valid JSON, too large, unreadable, or a log without its initial state.
    Unreadable(ParseWarning),
}

/// Reads the session `key` (`<folder>/<sessionId>`): its log when there is one, else its
/// snapshot.
pub fn read(key: &Path, limits: ReadLimits) -> ChatRead {
    let workspace = workspace_manifest(key)
        .and_then(|manifest| fs::read(manifest).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|manifest| workspace_folder(&manifest));
    let log = log_path(key);
    let read = if log.is_file() {
        read_log(&log, limits)
    } else {
        read_snapshot(&snapshot_path(key), limits)
    };
    match read {
        ChatRead::Session(mut session) => {
            session.workspace = workspace;
            ChatRead::Session(session)
        }
        other => other,
    }
}

fn problem(path: &Path, message: impl std::fmt::Display) -> ParseWarning {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    ParseWarning {
        line: 0,
        message: format!("{name}: {message}"),
    }
}

fn read_log(path: &Path, limits: ReadLimits) -> ChatRead {
    let streamed = match fs::File::open(path).and_then(|file| stream_json_lines(file, limits)) {
        Ok(streamed) => streamed,
        Err(error) => return ChatRead::Unreadable(problem(path, error)),
    };
    let split = streamed.split;
    if split.lines.is_empty() {
        return if split.malformed.is_empty() {
            ChatRead::Incomplete(problem(path, "no complete line yet (being written?)"))
        } else {
            ChatRead::Unreadable(problem(path, "no readable line"))
        };
    }
    if !sniff_log(&split.lines) {
        // A log whose initial line could not be read (not JSON, or over the line limit) and
        // whose other lines are log entries.
        let first_line_lost = split.malformed.first().is_some_and(|malformed| {
            split
                .lines
                .first()
                .is_some_and(|line| malformed.line < line.number)
        });
        let entries_follow = split.lines.first().is_some_and(|line| {
            line.value.get("kind").is_some_and(Value::is_u64)
                && line.value.get("k").is_some_and(Value::is_array)
        });
        return if first_line_lost && entries_follow {
            let lost = &split.malformed[0];
            ChatRead::Unreadable(problem(
                path,
                format!("line {}: {}", lost.line, lost.message),
            ))
        } else {
            ChatRead::NotChat
        };
    }
    let (state, warnings) = replay(
        split
            .lines
            .into_iter()
            .map(|line| (line.number, line.value)),
    );
    let Some(state) = state else {
        return ChatRead::Unreadable(problem(path, "no initial state"));
    };
    ChatRead::Session(Box::new(ChatSession {
        path: path.to_path_buf(),
        state,
        workspace: None,
        malformed: split.malformed,
        warnings,
        bytes_read: split.complete_offset,
    }))
}

fn read_snapshot(path: &Path, limits: ReadLimits) -> ChatRead {
    let size = fs::metadata(path)
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    if size > limits.max_json_file_bytes {
        return ChatRead::Unreadable(problem(
            path,
            format!(
                "{size} bytes, over the {} byte limit",
                limits.max_json_file_bytes
            ),
        ));
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return ChatRead::Unreadable(problem(path, error)),
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(state) if sniff(&state) => ChatRead::Session(Box::new(ChatSession {
            path: path.to_path_buf(),
            state,
            workspace: None,
            malformed: Vec::new(),
            warnings: Vec::new(),
            bytes_read: bytes.len() as u64,
        })),
        Ok(_) => ChatRead::NotChat,
        Err(error) if error.is_eof() => ChatRead::Incomplete(problem(
            path,
            format!("ends mid-document (being written?): {error}"),
        )),
        Err(error) => ChatRead::Unreadable(problem(path, format!("not valid JSON: {error}"))),
    }
}

/// A chat session document: a snapshot (`sessionId`, `requests`) or an exported chat
/// (`requests`, `responderUsername`).
pub fn sniff(value: &Value) -> bool {
    let has_requests = value.get("requests").is_some_and(Value::is_array);
    let snapshot = value.get("sessionId").is_some_and(Value::is_string)
        && (value.get("creationDate").is_some_and(Value::is_number)
            || value.get("version").is_some_and(Value::is_number));
    let export = value.get("responderUsername").is_some_and(Value::is_string)
        && value.get("initialLocation").is_some();
    has_requests && (snapshot || export)
}

/// An operation log: its first line is the initial entry of a chat session.
pub fn sniff_log(lines: &[JsonLine]) -> bool {
    lines.first().is_some_and(|line| {
        line.value.get("kind").and_then(Value::as_u64) == Some(0)
            && line.value.get("v").is_some_and(sniff)
    })
}

/// Replays an operation log: the state it ends in (`None` without an initial entry) and a
/// warning for each entry that could not be applied (skipped, as VS Code would fail the whole
/// session).
pub fn replay(
    entries: impl IntoIterator<Item = (u64, Value)>,
) -> (Option<Value>, Vec<ParseWarning>) {
    let mut state = None;
    let mut warnings = Vec::new();
    for (line, entry) in entries {
        if let Err(message) = apply(&mut state, entry) {
            warnings.push(ParseWarning { line, message });
        }
    }
    (state, warnings)
}

fn apply(state: &mut Option<Value>, mut entry: Value) -> Result<(), String> {
    let kind = entry
        .get("kind")
        .and_then(Value::as_u64)
        .ok_or("log entry without a numeric kind")?;
    let value = entry.get_mut("v").map(Value::take);
    if kind == 0 {
        *state = Some(value.ok_or("initial entry without a value")?);
        return Ok(());
    }
    let root = state.as_mut().ok_or("log entry before the initial state")?;
    let path = match entry.get_mut("k").map(Value::take) {
        Some(Value::Array(path)) => path,
        _ => return Err(format!("log entry of kind {kind} without a path")),
    };
    let described = || describe(&path);
    match kind {
        1 => match value {
            Some(value) => set(root, &path, value),
            None => delete(root, &path),
        },
        2 => {
            let truncate_at = entry.get("i").and_then(Value::as_u64);
            push(root, &path, value, truncate_at)
        }
        3 => delete(root, &path),
        other => return Err(format!("unknown log entry kind {other}")),
    }
    .then_some(())
    .ok_or_else(|| format!("log entry of kind {kind}: no {} in the state", described()))
}

/// A path as `requests[3].response`.
fn describe(path: &[Value]) -> String {
    let mut text = String::new();
    for segment in path {
        match segment {
            Value::Number(index) => text.push_str(&format!("[{index}]")),
            Value::String(key) if text.is_empty() => text.push_str(key),
            Value::String(key) => text.push_str(&format!(".{key}")),
            other => text.push_str(&format!(".{other}")),
        }
    }
    if text.is_empty() {
        "root".to_string()
    } else {
        text
    }
}

fn child<'v>(node: &'v mut Value, segment: &Value) -> Option<&'v mut Value> {
    match (node, segment) {
        (Value::Object(fields), Value::String(key)) => fields.get_mut(key),
        (Value::Object(fields), Value::Number(key)) => fields.get_mut(&key.to_string()),
        (Value::Array(items), Value::Number(index)) => items.get_mut(index_of(index)?),
        _ => None,
    }
}

fn index_of(index: &serde_json::Number) -> Option<usize> {
    index.as_u64().and_then(|index| usize::try_from(index).ok())
}

fn walk<'v>(root: &'v mut Value, path: &[Value]) -> Option<&'v mut Value> {
    path.iter()
        .try_fold(root, |node, segment| child(node, segment))
}

/// `root[path] = value`; an empty path leaves the state as it is (as VS Code does).
fn set(root: &mut Value, path: &[Value], value: Value) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return true;
    };
    match (walk(root, parents), last) {
        (Some(Value::Object(fields)), Value::String(key)) => {
            fields.insert(key.clone(), value);
            true
        }
        (Some(Value::Object(fields)), Value::Number(key)) => {
            fields.insert(key.to_string(), value);
            true
        }
        (Some(Value::Array(items)), Value::Number(index)) => match index_of(index) {
            Some(index) if index < items.len() => {
                items[index] = value;
                true
            }
            Some(index) if index == items.len() => {
                items.push(value);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Removes `root[path]` (an array item becomes `null`, as an undefined item serializes).
fn delete(root: &mut Value, path: &[Value]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return true;
    };
    match (walk(root, parents), last) {
        (Some(Value::Object(fields)), Value::String(key)) => {
            fields.remove(key);
            true
        }
        (Some(Value::Object(fields)), Value::Number(key)) => {
            fields.remove(&key.to_string());
            true
        }
        (Some(Value::Array(items)), Value::Number(index)) => {
            if let Some(item) = index_of(index).and_then(|index| items.get_mut(index)) {
                *item = Value::Null;
            }
            true
        }
        _ => false,
    }
}

/// Truncates the array at `path` to `truncate_at` items (when given), then appends `items`;
/// a missing array is created.
fn push(root: &mut Value, path: &[Value], items: Option<Value>, truncate_at: Option<u64>) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let Some(parent) = walk(root, parents) else {
        return false;
    };
    let target = match (parent, last) {
        (Value::Object(fields), Value::String(key)) => fields
            .entry(key.clone())
            .or_insert_with(|| Value::Array(Vec::new())),
        (parent, segment) => match child(parent, segment) {
            Some(target) => target,
            None => return false,
        },
    };
    if target.is_null() {
        *target = Value::Array(Vec::new());
    }
    let Value::Array(array) = target else {
        return false;
    };
    if let Some(length) = truncate_at.and_then(|length| usize::try_from(length).ok()) {
        array.truncate(length);
    }
    match items {
        Some(Value::Array(items)) => array.extend(items),
        None | Some(Value::Null) => {}
        Some(other) => array.push(other),
    }
    true
}

/// A lone snapshot or exported chat (a file outside a chat session folder).
pub fn parse_snapshot(path: &Path, state: &Value) -> ParseOutput {
    parse(path, state, None)
}

/// A lone operation log (a file outside a chat session folder).
pub fn parse_log(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let (state, warnings) = replay(lines.iter().map(|line| (line.number, line.value.clone())));
    let mut output = match state {
        Some(state) => parse(path, &state, None),
        None => ParseOutput::default(),
    };
    output.warnings.splice(0..0, warnings);
    output
}

/// Parses a session's state. `path` names the session when the state has no `sessionId` (an
/// exported chat); `workspace` is the working directory of its workspace.
pub fn parse(path: &Path, state: &Value, workspace: Option<String>) -> ParseOutput {
    let native_id = text_field(state, "sessionId").unwrap_or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let requests = state
        .get("requests")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut parser = Parser::default();
    for (index, request) in requests.iter().enumerate() {
        parser.request(index, request);
    }
    mark_terminal_replies(&mut parser.events);
    let cwd = text_field(state, "workingDirectory")
        .and_then(|uri| folder_of_uri(&uri))
        .or(workspace);
    let meta = SessionMeta {
        title: text_field(state, "customTitle").or_else(|| text_field(state, "computedTitle")),
        cwd,
        model: parser.first_model,
        harness_version: parser.extension_version,
        started_at: millis(state.get("creationDate")),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::VscodeCopilot,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: Vec::new(),
    }
}

fn millis(value: Option<&Value>) -> Option<DateTime<Utc>> {
    value
        .and_then(Value::as_i64)
        .and_then(DateTime::<Utc>::from_timestamp_millis)
}

/// Text of a string or of a markdown string (`{value}`).
fn markdown_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(fields) => fields
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// The model a request ran: Copilot's `resolvedModel`, else the selected `modelId` without its
/// `copilot/` vendor prefix.
fn model_of(request: &Value) -> Option<String> {
    request
        .pointer("/result/metadata/resolvedModel")
        .and_then(Value::as_str)
        .filter(|model| !model.is_empty())
        .map(str::to_string)
        .or_else(|| {
            text_field(request, "modelId")
                .map(|id| id.strip_prefix("copilot/").unwrap_or(&id).to_string())
        })
}

/// The request's token counts: Copilot's `result.metadata`, else VS Code's own fields.
fn usage_of(request: &Value) -> Option<TokenUsage> {
    let count = |pointer: &str| request.pointer(pointer).and_then(Value::as_i64);
    let (input, output) = match (
        count("/result/metadata/promptTokens"),
        count("/result/metadata/outputTokens"),
    ) {
        (None, None) => (count("/promptTokens"), count("/completionTokens")),
        found => found,
    };
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(
        TokenUsage {
            input,
            output,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

/// A call's arguments and result as Copilot's metadata recorded them, by call id.
#[derive(Default)]
struct Rounds {
    arguments: HashMap<String, Value>,
    results: HashMap<String, String>,
}

impl Rounds {
    fn of(request: &Value) -> Rounds {
        let mut rounds = Rounds::default();
        let Some(metadata) = request.pointer("/result/metadata") else {
            return rounds;
        };
        let calls = metadata
            .get("toolCallRounds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|round| round.get("toolCalls").and_then(Value::as_array))
            .flatten();
        for call in calls {
            if let Some(id) = text_field(call, "id") {
                rounds
                    .arguments
                    .insert(id, arguments_of(call.get("arguments")));
            }
        }
        if let Some(Value::Object(results)) = metadata.get("toolCallResults") {
            for (id, result) in results {
                let text = result_content_text(result);
                if !text.is_empty() {
                    rounds.results.insert(id.clone(), text);
                }
            }
        }
        rounds
    }
}

/// A tool result's text parts (`content: [{value: "..."}]`), joined.
fn result_content_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| match part {
            Value::String(text) => Some(text.as_str()),
            part => part.get("value").and_then(Value::as_str),
        })
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where a request is: its key, position and times.
struct At {
    key: String,
    line: u64,
    model: Option<String>,
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    keys: HashSet<String>,
    first_model: Option<String>,
    extension_version: Option<String>,
}

impl Parser {
    fn request(&mut self, index: usize, request: &Value) {
        let model = model_of(request);
        if self.first_model.is_none() {
            self.first_model.clone_from(&model);
        }
        if self.extension_version.is_none() {
            self.extension_version = request
                .pointer("/agent/extensionVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let request_key = text_field(request, "requestId").unwrap_or_else(|| format!("r{index}"));
        let at = At {
            key: self.unique(request_key),
            line: index as u64 + 1,
            model,
        };
        let started = millis(request.get("timestamp"));
        let first_event = self.events.len();
        self.prompt(&at, request, started);
        let response_start = self.events.len();
        let rounds = Rounds::of(request);
        let parts = match request.get("response") {
            Some(Value::Array(parts)) => parts.as_slice(),
            Some(single @ Value::String(_)) => std::slice::from_ref(single),
            _ => &[],
        };
        self.response(&at, parts, &rounds);
        self.outcome(&at, request);
        let own = response_start..self.events.len();
        if let Some(usage) = usage_of(request) {
            let target = own
                .clone()
                .rev()
                .find(|&event| self.events[event].kind == EventType::AssistantResponse)
                .or_else(|| own.clone().last())
                .or_else(|| (first_event < self.events.len()).then_some(first_event));
            if let Some(target) = target {
                TokenUsage::attach(&mut self.events[target], usage);
            }
        }
        if let (Some(last), Some(done)) = (own.last(), completed_at(request, started)) {
            self.events[last].timestamp = Some(done);
        }
    }

    /// `key`, made unique within the session.
    fn unique(&mut self, key: String) -> String {
        let mut candidate = key.clone();
        let mut number = 1;
        while !self.keys.insert(candidate.clone()) {
            number += 1;
            candidate = format!("{key}#{number}");
        }
        candidate
    }

    fn prompt(&mut self, at: &At, request: &Value, started: Option<DateTime<Utc>>) {
        let text = match request.get("message") {
            Some(Value::String(text)) => text.clone(),
            Some(message) => message
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            None => String::new(),
        };
        if text.trim().is_empty() {
            return;
        }
        let system = request.get("isSystemInitiated").and_then(Value::as_bool) == Some(true);
        let mut event = if system {
            plain_event(
                at.key.clone(),
                EventType::System,
                at.line,
                started,
                text,
                Some("system_initiated"),
            )
        } else {
            let mut event = plain_event(
                at.key.clone(),
                EventType::UserInput,
                at.line,
                started,
                text,
                None,
            );
            event.starts_turn = true;
            event.payload = prompt_payload(request);
            event
        };
        event.originating_model.clone_from(&at.model);
        self.events.push(event);
    }

    fn response(&mut self, at: &At, parts: &[Value], rounds: &Rounds) {
        let mut reply: Option<(usize, String)> = None;
        for (index, part) in parts.iter().enumerate() {
            let kind = part.get("kind").and_then(Value::as_str);
            match kind {
                None | Some("markdownContent" | "markdownVuln") => {
                    let text = match part {
                        Value::String(text) => text.clone(),
                        _ if kind.is_some() => markdown_text(part.get("content").unwrap_or(part)),
                        _ => markdown_text(part),
                    };
                    reply.get_or_insert_with(|| (index, String::new())).1 += &text;
                }
                Some("inlineReference") => {
                    let text = inline_reference_text(part);
                    reply.get_or_insert_with(|| (index, String::new())).1 += &text;
                }
                Some(kind) => {
                    self.flush_reply(at, reply.take());
                    self.part(at, index, kind, part, rounds);
                }
            }
        }
        self.flush_reply(at, reply);
    }

    fn flush_reply(&mut self, at: &At, reply: Option<(usize, String)>) {
        let Some((index, text)) = reply else {
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        let key = self.unique(format!("{}/{index}", at.key));
        let mut event = plain_event(key, EventType::AssistantResponse, at.line, None, text, None);
        event.model.clone_from(&at.model);
        event.originating_model.clone_from(&at.model);
        self.events.push(event);
    }

    /// One response part that is not reply text.
    fn part(&mut self, at: &At, index: usize, kind: &str, part: &Value, rounds: &Rounds) {
        match kind {
            "thinking" => {
                let text = match part.get("value") {
                    Some(Value::Array(pieces)) => pieces
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(""),
                    Some(value) => markdown_text(value),
                    None => String::new(),
                };
                if text.trim().is_empty() {
                    return;
                }
                let key = self.unique(format!("{}/{index}", at.key));
                let mut event = plain_event(key, EventType::Reasoning, at.line, None, text, None);
                event.model.clone_from(&at.model);
                event.originating_model.clone_from(&at.model);
                self.events.push(event);
            }
            "toolInvocationSerialized" | "toolInvocation" => {
                self.tool_invocation(at, index, part, rounds);
            }
            "warning" | "info" | "systemNotification" => {
                let text = markdown_text(part.get("content").unwrap_or(&Value::Null));
                if text.trim().is_empty() {
                    return;
                }
                let key = self.unique(format!("{}/{index}", at.key));
                let mut event =
                    plain_event(key, EventType::System, at.line, None, text, Some(kind));
                event.originating_model.clone_from(&at.model);
                self.events.push(event);
            }
            kind if SILENT_PARTS.contains(&kind) => {}
            kind => {
                let key = self.unique(format!("{}/{index}", at.key));
                let name = format!("response:{kind}");
                let mut event = plain_event(
                    key,
                    EventType::Unknown,
                    at.line,
                    None,
                    String::new(),
                    Some(&name),
                );
                event.payload = Some(part.clone());
                self.events.push(event);
            }
        }
    }

    fn tool_invocation(&mut self, at: &At, index: usize, part: &Value, rounds: &Rounds) {
        let name = text_field(part, "toolId")
            .or_else(|| text_field(part, "toolName"))
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let call_id = text_field(part, "toolCallId");
        let specific = part.get("toolSpecificData").unwrap_or(&Value::Null);
        let specific_kind = specific.get("kind").and_then(Value::as_str).unwrap_or("");
        let arguments = call_id
            .as_ref()
            .and_then(|id| rounds.arguments.get(id).cloned())
            .unwrap_or_else(|| fallback_arguments(part, specific, specific_kind));
        let key_tail = call_id.clone().unwrap_or_else(|| index.to_string());
        let key = self.unique(format!("{}/tool/{key_tail}", at.key));
        let mut call = tool_call(
            key.clone(),
            at.line,
            None,
            &name,
            call_id.as_deref(),
            arguments,
        );
        call.originating_model.clone_from(&at.model);
        self.events.push(call);

        let exit_code = (specific_kind == "terminal")
            .then(|| specific.pointer("/terminalCommandState/exitCode"))
            .flatten()
            .and_then(Value::as_i64);
        let details = part.get("resultDetails").unwrap_or(&Value::Null);
        let refusal = refusal_of(part);
        let recorded = call_id
            .as_ref()
            .and_then(|id| rounds.results.get(id).cloned());
        let text = match refusal {
            // The call never ran: what the model was told, else why.
            Some(refusal) => recorded.unwrap_or_else(|| refusal.to_string()),
            None => recorded
                .or_else(|| {
                    (specific_kind == "terminal")
                        .then(|| specific.pointer("/terminalCommandOutput/text"))
                        .flatten()
                        .and_then(Value::as_str)
                        .filter(|text| !text.is_empty())
                        .map(str::to_string)
                })
                .or_else(|| {
                    (specific_kind == "subagent")
                        .then(|| text_field(specific, "result"))
                        .flatten()
                })
                .or_else(|| details_text(details))
                .or_else(|| {
                    part.get("pastTenseMessage")
                        .or_else(|| part.get("invocationMessage"))
                        .map(markdown_text)
                        .filter(|text| !text.trim().is_empty())
                })
                .unwrap_or_default(),
        };
        let failed = refusal.is_some()
            || details.get("isError").and_then(Value::as_bool) == Some(true)
            || exit_code.is_some_and(|code| code != 0);
        let mut response = tool_response(
            self.unique(format!("{key}/result")),
            at.line,
            None,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        response.exit_code = exit_code;
        response.originating_model.clone_from(&at.model);
        self.events.push(response);
    }

    /// A failed or cancelled request ends its turn with a `runtime` event.
    fn outcome(&mut self, at: &At, request: &Value) {
        let error = request
            .pointer("/result/errorDetails/message")
            .and_then(Value::as_str)
            .filter(|message| !message.trim().is_empty());
        let state = request.pointer("/modelState/value").and_then(Value::as_u64);
        let cancelled = state == Some(2)
            || (state.is_none()
                && request.get("isCanceled").and_then(Value::as_bool) == Some(true));
        let (text, subtype) = match (error, cancelled, state) {
            (Some(message), _, _) => (message.to_string(), "error"),
            (None, true, _) => ("cancelled".to_string(), "cancelled"),
            (None, false, Some(3)) => ("failed".to_string(), "error"),
            _ => return,
        };
        let key = self.unique(format!("{}/{subtype}", at.key));
        let mut event = plain_event(key, EventType::Runtime, at.line, None, text, Some(subtype));
        event.turn_end = Some(TurnEnd::Terminal);
        event.originating_model.clone_from(&at.model);
        self.events.push(event);
    }
}

/// When the request's response ended: `modelState.completedAt`, else its start plus
/// `result.timings.totalElapsed`.
fn completed_at(request: &Value, started: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    millis(request.pointer("/modelState/completedAt")).or_else(|| {
        let elapsed = request
            .pointer("/result/timings/totalElapsed")
            .and_then(Value::as_i64)?;
        Some(started? + chrono::Duration::milliseconds(elapsed))
    })
}

/// The prompt's payload: the chat mode, the agent and the attachments' names.
fn prompt_payload(request: &Value) -> Option<Value> {
    let mut payload = Map::new();
    if let Some(mode) = request.pointer("/modeInfo/kind").and_then(Value::as_str) {
        payload.insert("mode".to_string(), Value::String(mode.to_string()));
    }
    if let Some(agent) = request.pointer("/agent/id").and_then(Value::as_str) {
        payload.insert("agent".to_string(), Value::String(agent.to_string()));
    }
    let attachments: Vec<Value> = request
        .pointer("/variableData/variables")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|variable| text_field(variable, "name").or_else(|| text_field(variable, "id")))
        .map(Value::String)
        .collect();
    if !attachments.is_empty() {
        payload.insert("attachments".to_string(), Value::Array(attachments));
    }
    (!payload.is_empty()).then_some(Value::Object(payload))
}

/// What an `inlineReference` shows: its name, else the file name of its location, as code.
fn inline_reference_text(part: &Value) -> String {
    let reference = part.get("inlineReference").unwrap_or(&Value::Null);
    let name = text_field(part, "name")
        .or_else(|| text_field(reference, "name"))
        .or_else(|| {
            let uri = reference.get("uri").unwrap_or(reference);
            let path = text_field(uri, "path")
                .or_else(|| text_field(uri, "fsPath"))
                .or_else(|| text_field(uri, "external"))?;
            path.rsplit('/').next().map(str::to_string)
        });
    name.filter(|name| !name.is_empty())
        .map(|name| format!("`{name}`"))
        .unwrap_or_default()
}

/// A call's arguments when Copilot's metadata has none: the tool's recorded input, the
/// terminal command, the raw input or the sub-agent's task; else the message VS Code showed.
fn fallback_arguments(part: &Value, specific: &Value, specific_kind: &str) -> Value {
    if let Some(input) = part.pointer("/resultDetails/input").and_then(Value::as_str)
        && !input.trim().is_empty()
    {
        return arguments_of(Some(&Value::String(input.to_string())));
    }
    match specific_kind {
        "terminal" => {
            let command = ["userEdited", "toolEdited", "original"]
                .iter()
                .find_map(|field| {
                    specific
                        .get("commandLine")
                        .and_then(|line| text_field(line, field))
                })
                .or_else(|| text_field(specific, "command"));
            if let Some(command) = command {
                return serde_json::json!({ "command": command });
            }
        }
        "input" => {
            if let Some(input) = specific.get("rawInput").filter(|input| !input.is_null()) {
                return input.clone();
            }
        }
        "subagent" => {
            let fields: Map<String, Value> = ["agentName", "description", "prompt"]
                .iter()
                .filter_map(|field| {
                    text_field(specific, field).map(|text| (field.to_string(), Value::String(text)))
                })
                .collect();
            if !fields.is_empty() {
                return Value::Object(fields);
            }
        }
        _ => {}
    }
    let message = markdown_text(part.get("invocationMessage").unwrap_or(&Value::Null));
    if message.trim().is_empty() {
        Value::Null
    } else {
        serde_json::json!({ "invocationMessage": message })
    }
}

/// Text of `resultDetails`: its embedded text outputs, or the locations it lists.
fn details_text(details: &Value) -> Option<String> {
    let texts: Vec<String> = match details {
        Value::Object(fields) => fields
            .get("output")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|output| {
                output.get("isText").and_then(Value::as_bool) == Some(true)
                    || output
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .is_some_and(|mime| mime.starts_with("text/"))
            })
            .filter_map(|output| text_field(output, "value"))
            .collect(),
        Value::Array(locations) => locations
            .iter()
            .filter_map(|location| {
                let uri = location.get("uri").unwrap_or(location);
                text_field(uri, "fsPath").or_else(|| text_field(uri, "path"))
            })
            .collect(),
        _ => Vec::new(),
    };
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// `denied` or `skipped` when the call never ran: `isConfirmed` false (before VS Code 1.104) or
/// `{type: 0 | 5}`; `cancelled` for an invocation that never completed.
fn refusal_of(part: &Value) -> Option<&'static str> {
    match part.get("isConfirmed") {
        Some(Value::Bool(false)) => return Some("denied"),
        Some(Value::Object(reason)) => match reason.get("type").and_then(Value::as_u64) {
            Some(0) => return Some("denied"),
            Some(5) => return Some("skipped"),
            _ => {}
        },
        _ => {}
    }
    (part.get("isComplete").and_then(Value::as_bool) == Some(false)).then_some("cancelled")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::numbered_lines;
    use crate::ingest::{Format, Recognised, recognise};
    use serde_json::json;

    fn entries(values: &[Value]) -> Vec<(u64, Value)> {
        numbered_lines(values)
            .into_iter()
            .map(|line| (line.number, line.value))
            .collect()
    }

    #[test]
    fn the_operation_log_replays_sets_pushes_truncations_and_deletes() {
        let log = [
            json!({"kind": 0, "v": {"version": 3, "sessionId": "s", "creationDate": 1,
                "requests": [], "hasPendingEdits": false}}),
            json!({"kind": 2, "k": ["requests"], "v": [{"requestId": "r0", "response": []}]}),
            json!({"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "a"}, {"value": "b"}]}),
            json!({"kind": 2, "k": ["requests", 0, "response"], "i": 1, "v": [{"value": "bc"}]}),
            json!({"kind": 1, "k": ["requests", 0, "result"], "v": {"metadata": {}}}),
            json!({"kind": 1, "k": ["customTitle"], "v": "Title"}),
            json!({"kind": 3, "k": ["hasPendingEdits"]}),
            json!({"kind": 1, "k": ["requests", 0, "vote"]}),
            json!({"kind": 1, "k": ["requests", 4, "result"], "v": {}}),
            json!({"kind": 9, "k": ["requests"]}),
        ];
        let (state, warnings) = replay(entries(&log));
        assert_eq!(
            state,
            Some(
                json!({"version": 3, "sessionId": "s", "creationDate": 1, "customTitle": "Title",
                "requests": [{"requestId": "r0", "response": [{"value": "a"}, {"value": "bc"}],
                    "result": {"metadata": {}}}]})
            )
        );
        let messages: Vec<(u64, &str)> = warnings
            .iter()
            .map(|warning| (warning.line, warning.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (9, "log entry of kind 1: no requests[4].result in the state"),
                (10, "unknown log entry kind 9"),
            ]
        );

        let (state, warnings) = replay(entries(&[json!({"kind": 1, "k": ["x"], "v": 1})]));
        assert_eq!(state, None);
        assert_eq!(warnings[0].message, "log entry before the initial state");
    }

    fn tool(id: &str, call: &str, extra: Value) -> Value {
        let mut part = json!({"kind": "toolInvocationSerialized", "toolId": id, "toolCallId": call,
            "invocationMessage": {"value": format!("Running {id}")}, "isComplete": true,
            "isConfirmed": {"type": 1}});
        if let (Value::Object(fields), Value::Object(more)) = (&mut part, extra) {
            fields.extend(more);
        }
        part
    }

    #[test]
    fn a_request_is_a_turn_of_prompt_reasoning_replies_and_paired_tool_calls() {
        let request = json!({
            "requestId": "request_1", "timestamp": 1_767_225_600_000_i64,
            "message": {"text": "fix the otter test", "parts": []},
            "modelId": "copilot/auto", "modeInfo": {"kind": "agent"},
            "agent": {"id": "github.copilot.editsAgent", "extensionVersion": "0.37.4"},
            "variableData": {"variables": [{"id": "file:///o/otter.rs", "name": "otter.rs"}]},
            "response": [
                {"kind": "thinking", "value": ["Run ", "it."]},
                {"value": "Running it."},
                {"kind": "prepareToolInvocation", "toolName": "run_in_terminal"},
                tool("run_in_terminal", "call_1", json!({"toolSpecificData": {"kind": "terminal",
                    "commandLine": {"original": "cargo test", "toolEdited": "cargo test otter"},
                    "terminalCommandState": {"exitCode": 1},
                    "terminalCommandOutput": {"text": "otter ... FAILED"}}})),
                tool("copilot_readFile", "call_2", json!({"pastTenseMessage": {"value": "Read otter.rs"}})),
                tool("run_in_terminal", "call_3", json!({"isConfirmed": false})),
                tool("mcp_x_search", "call_4", json!({"resultDetails": {"input": "{\"q\":\"otter\"}",
                    "output": [{"type": "embed", "isText": true, "value": "3 otters"}], "isError": true}})),
                {"value": "The otter test expects "},
                {"kind": "inlineReference", "inlineReference": {"$mid": 1, "path": "/o/otter.rs", "scheme": "file"}},
                {"kind": "inlineReference", "inlineReference": {"name": "OTTERS"}, "name": "OTTERS"},
                {"value": " to be 3."},
                {"kind": "codeblockUri", "uri": {"path": "/o/otter.rs"}},
                {"kind": "ottersNewPart", "x": 1}
            ],
            "result": {"timings": {"totalElapsed": 5000}, "metadata": {
                "promptTokens": 900, "outputTokens": 40, "resolvedModel": "gpt-5-mini",
                "toolCallRounds": [{"toolCalls": [
                    {"id": "call_2", "name": "read_file", "arguments": "{\"filePath\":\"/o/otter.rs\"}"}]}],
                "toolCallResults": {"call_2": {"content": [{"value": "const OTTERS: u8 = 2;"}]}}}},
            "modelState": {"value": 1, "completedAt": 1_767_225_604_000_i64}
        });
        let state = json!({"version": 3, "sessionId": "s1", "creationDate": 1_767_225_599_000_i64,
            "customTitle": "Otters", "requests": [request]});
        let output = parse(Path::new("s1.jsonl"), &state, Some("/o".to_string()));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::VscodeCopilot);
        assert_eq!(session.native_id, "s1");
        assert_eq!(session.meta.title.as_deref(), Some("Otters"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/o"));
        assert_eq!(session.meta.model.as_deref(), Some("gpt-5-mini"));
        assert_eq!(session.meta.harness_version.as_deref(), Some("0.37.4"));
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        use EventType::*;
        assert_eq!(
            kinds,
            [
                UserInput,
                Reasoning,
                AssistantResponse,
                ToolCall,
                ToolResponse,
                ToolCall,
                ToolResponse,
                ToolCall,
                ToolResponse,
                ToolCall,
                ToolResponse,
                AssistantResponse,
                Unknown
            ]
        );
        let events = &session.events;
        assert!(events[0].starts_turn);
        assert_eq!(
            events[0].payload,
            Some(
                json!({"mode": "agent", "agent": "github.copilot.editsAgent",
                "attachments": ["otter.rs"]})
            )
        );
        assert_eq!(events[1].text, "Run it.");
        assert_eq!(
            events[3].payload,
            Some(json!({"command": "cargo test otter"})),
            "what the tool rewrote the command to"
        );
        assert_eq!(events[4].text, "otter ... FAILED");
        assert_eq!(events[4].exit_code, Some(1));
        assert_eq!(events[4].subtype.as_deref(), Some("error"));
        assert_eq!(events[5].payload, Some(json!({"filePath": "/o/otter.rs"})));
        assert_eq!(events[6].text, "const OTTERS: u8 = 2;");
        assert_eq!(events[6].subtype, None);
        assert_eq!(events[8].text, "denied");
        assert_eq!(events[8].subtype.as_deref(), Some("error"));
        assert_eq!(events[9].payload, Some(json!({"q": "otter"})));
        assert_eq!(events[10].text, "3 otters");
        assert_eq!(events[10].subtype.as_deref(), Some("error"));
        assert_eq!(
            events[11].text,
            "The otter test expects `otter.rs``OTTERS` to be 3."
        );
        assert_eq!(events[11].model.as_deref(), Some("gpt-5-mini"));
        assert_eq!(events[11].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(
            events[12].subtype.as_deref(),
            Some("response:ottersNewPart")
        );
        let carriers = session.usage_carriers();
        assert_eq!(carriers.len(), 1);
        assert_eq!(carriers[0].0, events[11].key, "the request's last reply");
        assert_eq!(carriers[0].1.input, Some(900));
        assert_eq!(carriers[0].1.total, Some(940));
        assert_eq!(
            events[12].timestamp.map(|time| time.timestamp_millis()),
            Some(1_767_225_604_000),
            "the request's last event is when it completed"
        );
        assert_eq!(events[3].timestamp, None, "inferred");
        let keys: HashSet<&str> = events.iter().map(|event| event.key.as_str()).collect();
        assert_eq!(keys.len(), events.len(), "keys are unique");
    }

    #[test]
    fn old_snapshots_cancelled_and_failed_requests() {
        let state = json!({"version": 2, "sessionId": "s2", "creationDate": 1000,
        "computedTitle": "Old one", "requests": [
            {"requestId": "r1", "message": "plain string prompt", "timestamp": 2000,
                "response": [{"value": "half an ans"}], "isCanceled": true},
            {"requestId": "r2", "message": {"text": "again"}, "timestamp": 3000, "response": [],
                "result": {"errorDetails": {"message": "Rate limited"}, "timings": {"totalElapsed": 500}}},
            {"requestId": "r3", "message": {"text": "and now"}, "timestamp": 4000,
                "response": [{"kind": "markdownContent", "content": {"value": "Done."}}],
                "modelState": {"value": 3}, "isSystemInitiated": false}
        ]});
        let session = &parse(Path::new("s2.json"), &state, None).sessions[0];
        let summary: Vec<(EventType, &str, Option<&str>)> = session
            .events
            .iter()
            .map(|event| (event.kind, event.text.as_str(), event.subtype.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                (EventType::UserInput, "plain string prompt", None),
                (EventType::AssistantResponse, "half an ans", None),
                (EventType::Runtime, "cancelled", Some("cancelled")),
                (EventType::UserInput, "again", None),
                (EventType::Runtime, "Rate limited", Some("error")),
                (EventType::UserInput, "and now", None),
                (EventType::AssistantResponse, "Done.", None),
                (EventType::Runtime, "failed", Some("error")),
            ]
        );
        assert_eq!(session.meta.title.as_deref(), Some("Old one"));
        assert_eq!(
            session.events[4]
                .timestamp
                .map(|time| time.timestamp_millis()),
            Some(3500),
            "no response part: the error event is the request's last"
        );
    }

    #[test]
    fn session_files_map_to_their_folder_and_workspace() {
        let key = key_of(Path::new("/u/workspaceStorage/h1/chatSessions/abc.jsonl"));
        assert_eq!(
            key,
            Some(PathBuf::from("/u/workspaceStorage/h1/chatSessions/abc"))
        );
        assert_eq!(
            key_of(Path::new("/u/workspaceStorage/h1/chatSessions/abc.json")),
            key
        );
        assert_eq!(
            key_of(Path::new("/u/globalStorage/emptyWindowChatSessions/e.json")),
            Some(PathBuf::from("/u/globalStorage/emptyWindowChatSessions/e"))
        );
        assert_eq!(
            key_of(Path::new("/u/workspaceStorage/h1/workspace.json")),
            None
        );
        assert_eq!(key_of(Path::new("/u/chatSessions/notes.txt")), None);
        assert_eq!(
            workspace_manifest(Path::new("/u/workspaceStorage/h1/chatSessions/abc")),
            Some(PathBuf::from("/u/workspaceStorage/h1/workspace.json"))
        );
        assert_eq!(
            workspace_manifest(Path::new("/u/globalStorage/emptyWindowChatSessions/e")),
            None
        );
        assert_eq!(
            workspace_folder(&json!({"folder": "file:///home/dev/My%20Egret"})).as_deref(),
            Some("/home/dev/My Egret")
        );
        assert_eq!(
            workspace_folder(&json!({"folder": "file:///c%3A/Users/dev/heron"})).as_deref(),
            Some("c:/Users/dev/heron")
        );
        assert_eq!(
            workspace_folder(&json!({"folder": "vscode-remote://ssh-remote%2Bbox/srv/k%20k"}))
                .as_deref(),
            Some("/srv/k k")
        );
        assert_eq!(
            workspace_folder(&json!({"workspace": "file:///home/dev/all.code-workspace"})),
            None
        );
    }

    #[test]
    fn lone_snapshots_exports_and_logs_are_recognised_by_content() {
        let snapshot = json!({"version": 3, "sessionId": "s", "creationDate": 1, "requests": []});
        let export = json!({"initialLocation": "panel", "responderUsername": "GitHub Copilot",
            "requests": [{"message": {"text": "hi"}, "response": [{"value": "hello"}]}]});
        for document in [&snapshot, &export] {
            let bytes = serde_json::to_vec(document).expect("json");
            assert!(matches!(
                recognise(&bytes, None),
                Recognised::Known {
                    format: Format::VscodeChat,
                    ..
                }
            ));
        }
        let log = format!(
            "{}\n{}\n",
            json!({"kind": 0, "v": snapshot}),
            json!({"kind": 2, "k": ["requests"], "v": [{"requestId": "r", "message": {"text": "hi"}}]})
        );
        let Recognised::Known {
            format, content, ..
        } = recognise(log.as_bytes(), None)
        else {
            panic!("the log is recognised");
        };
        assert_eq!(format, Format::VscodeChat);
        let output = crate::ingest::parse(format, Path::new("x.jsonl"), &content, None);
        assert_eq!(
            output.sessions[0].events.len(),
            1,
            "the prompt of the pushed request"
        );
        let export_session = &parse_snapshot(Path::new("chat.json"), &export).sessions[0];
        assert_eq!(
            export_session.native_id, "chat",
            "an export is named by its file"
        );
        assert!(!sniff(&json!({"sessionId": "s", "messages": []})));
    }

    #[test]
    fn reading_prefers_the_log_and_tells_half_written_from_unusable_files() {
        let root = tempfile::tempdir().expect("temp dir");
        let workspace = root.path().join("workspaceStorage/h1");
        let folder = workspace.join("chatSessions");
        fs::create_dir_all(&folder).expect("mkdir");
        fs::write(
            workspace.join("workspace.json"),
            r#"{"folder": "file:///home/dev/otter"}"#,
        )
        .expect("write");
        let snapshot = json!({"version": 3, "sessionId": "a", "creationDate": 1,
            "requests": [{"message": {"text": "stale"}}]});
        fs::write(folder.join("a.json"), snapshot.to_string()).expect("write");
        let log = json!({"kind": 0, "v": {"version": 3, "sessionId": "a", "creationDate": 1,
            "requests": [{"message": {"text": "fresh"}}]}});
        fs::write(
            folder.join("a.jsonl"),
            format!("{log}\nnot json\n{{\"kind\":1,"),
        )
        .expect("write");
        let limits = ReadLimits::default();
        let ChatRead::Session(chat) = read(&folder.join("a"), limits) else {
            panic!("the log is read");
        };
        assert_eq!(chat.path, folder.join("a.jsonl"));
        assert_eq!(chat.workspace.as_deref(), Some("/home/dev/otter"));
        assert_eq!(
            chat.state.pointer("/requests/0/message/text"),
            Some(&json!("fresh"))
        );
        assert_eq!(
            chat.malformed.len(),
            1,
            "the middle line; the last one is held back"
        );
        assert_eq!(members(&folder.join("a")).len(), 3);

        fs::write(
            folder.join("b.json"),
            r#"{"version": 3, "sessionId": "b", "requ"#,
        )
        .expect("write");
        assert!(matches!(
            read(&folder.join("b"), limits),
            ChatRead::Incomplete(_)
        ));
        fs::write(
            folder.join("c.json"),
            r#"{"version": 3,, "sessionId": "c"}"#,
        )
        .expect("write");
        assert!(matches!(
            read(&folder.join("c"), limits),
            ChatRead::Unreadable(_)
        ));
        fs::write(folder.join("d.json"), r#"{"theme": "dark"}"#).expect("write");
        assert!(matches!(read(&folder.join("d"), limits), ChatRead::NotChat));
        fs::write(folder.join("e.jsonl"), r#"{"kind":0,"v":{"version":3"#).expect("write");
        assert!(matches!(
            read(&folder.join("e"), limits),
            ChatRead::Incomplete(_)
        ));
    }
}
