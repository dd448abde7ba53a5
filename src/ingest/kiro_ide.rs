//! The Kiro IDE's chats before 1.0 (issue #49): what its `kiro.kiroagent` extension keeps in
//! `<app data>/Kiro/User/globalStorage/kiro.kiroagent/`, where the app data folder is
//! `~/.config` on Linux (`$XDG_CONFIG_HOME`), `~/Library/Application Support` on macOS and
//! `%APPDATA%` on Windows, as for every VS Code fork (`$VSCODE_APPDATA` moves all three). Kiro
//! IDE 1.0 and later write Kiro CLI's v3 session folders instead (`ingest::kiro_v3`); the
//! sessions read here are Kiro's too (`Source::Kiro`). Per workspace, the folder holds:
//! - `<workspace hash>/<file hash>.chat`, the oldest form: `{executionId, chat: [{role, content}],
//!   metadata: {modelId, startTime, endTime}}`, the conversation one execution sent the model.
//!   Several files can be snapshots of one execution: the one with the most entries (then the
//!   newest) is read, as the session `<workspace hash>-<executionId>` (agentsview writes a
//!   colon, which would make esker's session id a hash instead of readable words). A `human`
//!   entry is a prompt (its `<kiro-ide-message>` wrapper taken off) unless it is the system
//!   prompt or the steering rules Kiro sends as `human` (`# System Prompt`, `# Identity`,
//!   `<identity>`, `## Included Rules`, `You are operating in a workspace`); a `bot` entry a
//!   reply (not the `I will follow these instructions.` that acknowledges them) by
//!   `metadata.modelId`; a `tool` entry the result of a call the chat does not record. The
//!   chat of an execution whose log is read (below) is not read again.
//! - `workspace-sessions/<base64url of the workspace path>/sessions.json`, the index
//!   (`[{sessionId, title, dateCreated (epoch ms, a string), workspaceDirectory}]`), and
//!   `<sessionId>.json` beside it (`{sessionId, title, workspaceDirectory, history: [{message:
//!   {role, content, id}, executionId, promptLogs: [{completion}]}]}`): one session per index
//!   entry or session file. A `user` message is a prompt; an `assistant` message names the
//!   execution whose log holds the turn's replies and tool calls, its own content (often a stub,
//!   `On it.`), else its `promptLogs` completions, standing in when that log has no `say`
//!   action; a `tool` message is a result.
//! - `<workspace hash>/414d1636299d2b9e4ce7e17fb11f63e9/<id>` (the folder is the first 32 hex
//!   digits of the SHA-256 of `KIRO::EXECUTION::SAVES`, the workspace hash those of the
//!   workspace's path): one execution log per turn, `{executionId, chatSessionId, status,
//!   startTime, endTime, input: {data: {messages}}, actions: [{actionId, actionType, emittedAt,
//!   input, output}], workspaceContext: {cwd}}`. `say` actions are the replies (one per part Kiro
//!   streamed); `readCode`, `readFile`, `readFiles`, `replace`, `create`, `runCommand` and `mcp`
//!   (named by its `toolName`, its `toolArgs` the arguments) are tool calls with the `actionId` as
//!   call id, answered by their `output` when they have one (`response`, else `message`; a
//!   command's `Exit Code: N` is its exit code, the call failed when it is not 0); another action
//!   type is kept as an `unknown` event. An `aborted` execution ends its turn with a `runtime`
//!   event. A log no history names is a turn of the session its `chatSessionId` names (its
//!   prompt the last `input.data.messages` entry, left out when the history ends with the same
//!   words: a turn still running), else of a session of its own with the other logs of that
//!   `chatSessionId`. `context.messages` (the earlier turns again, whose own logs are read) and
//!   `usageSummary` (credits, not tokens: no token counts are stored) are not read.
//!
//! A workspace is one group (`indexer::grouped`) keyed by its `<workspace hash>` folder: its
//! chats, its execution logs and the `workspace-sessions` folder whose workspace path (the
//! folder's name decoded, else its index's `workspaceDirectory`) hashes to it. A change to any
//! of them re-reads the workspace (the store is no longer written by a current Kiro). A file
//! that is not JSON, is caught mid-write or has another shape is skipped with a counted
//! warning, the rest read. The extension's other files (settings, code index, dev data) are
//! never read.
//!
//! Sources (no real pre-1.0 file is public, so the fixture is hand-made; see
//! `docs/HARNESS-RESEARCH.md` section 3): agentsview's `internal/parser/kiro_ide.go` (MIT; the
//! folders per OS, the `.chat`, index and session shapes, the system-prompt filters, the
//! workspace hash and execution folder, the `say`/`replace`/`create`/`readCode` actions), a
//! Python chat forker's `KiroIdeProvider` (execution logs: `chatSessionId`, `status`,
//! `input.data.messages`, `mcp` and `runCommand` actions), an attribution reader's test fixture
//! (`dateCreated` as a string, the folder name as `base64.RawURLEncoding` of the workspace path,
//! credits in `usageSummary`) and a remote-control extension's notes (`say` actions streamed
//! with `emittedAt`).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::content::{
    UNKNOWN_TOOL, block_text, epoch_time, mark_terminal_replies, plain_event, reported_exit_code,
    text_field, tool_call, tool_response,
};
use super::reader::ReadLimits;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TurnEnd,
};

/// The extension's folder in the IDE's `User/globalStorage`.
pub const STORE_FOLDER: &str = "kiro.kiroagent";
/// A workspace's execution logs folder: the first 32 hex digits of the SHA-256 of
/// `KIRO::EXECUTION::SAVES`.
const EXECUTIONS_FOLDER: &str = "414d1636299d2b9e4ce7e17fb11f63e9";
/// The folder of the workspaces' session indexes.
const SESSIONS_FOLDER: &str = "workspace-sessions";
/// A workspace's session index, in its `workspace-sessions` folder.
const INDEX_FILE: &str = "sessions.json";
const CHAT_EXTENSION: &str = ".chat";
const JSON_EXTENSION: &str = ".json";
/// The hex digits of a workspace hash.
const HASH_DIGITS: usize = 32;

/// How the system prompt and steering rules Kiro sends as `human` chat entries begin.
const SYSTEM_PREFIXES: [&str; 5] = [
    "# System Prompt",
    "# Identity",
    "<identity>",
    "## Included Rules",
    "You are operating in a workspace",
];
/// The reply that acknowledges them.
const ACKNOWLEDGEMENT: &str = "I will follow these instructions.";
/// The wrapper around the user's words in a chat.
const MESSAGE_OPEN: &str = "<kiro-ide-message>";
const MESSAGE_CLOSE: &str = "</kiro-ide-message>";
/// The action types that are tool calls.
const TOOL_ACTIONS: [&str; 7] = [
    "readCode",
    "readFile",
    "readFiles",
    "replace",
    "create",
    "runCommand",
    "mcp",
];
/// The fields of an execution log [`parse`] reads; the rest (`context` above all, every earlier
/// turn again) is dropped as it is read.
const EXECUTION_FIELDS: [&str; 8] = [
    "executionId",
    "chatSessionId",
    "status",
    "startTime",
    "endTime",
    "input",
    "actions",
    "workspaceContext",
];

/// The `kiro.kiroagent` folder `path` is in, if any.
fn store_root(path: &Path) -> Option<&Path> {
    path.ancestors()
        .skip(1)
        .find(|ancestor| ancestor.file_name() == Some(STORE_FOLDER.as_ref()))
}

/// True for any file in a `kiro.kiroagent` folder: only its chats, execution logs and
/// workspace sessions are read (as their workspace, [`key_of`]), never a file of its own.
pub fn is_store_file(path: &Path) -> bool {
    store_root(path).is_some()
}

fn is_workspace_hash(name: &str) -> bool {
    name.len() == HASH_DIGITS && name.bytes().all(|byte| byte.is_ascii_hexdigit())
}

fn is_chat_name(name: &str) -> bool {
    name.len() > CHAT_EXTENSION.len() && name.ends_with(CHAT_EXTENSION)
}

fn is_json_name(name: &str) -> bool {
    name.ends_with(JSON_EXTENSION)
}

fn is_execution_name(name: &str) -> bool {
    !name.starts_with('.')
}

/// The group key of a file of the store: `<store>/<workspace hash>`, the workspace its chat,
/// execution log or workspace session belongs to (that folder need not exist). `None` for any
/// other file.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let root = store_root(path)?;
    let parts: Vec<&str> = path
        .strip_prefix(root)
        .ok()?
        .iter()
        .map(|part| part.to_str())
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [workspace, name] if is_workspace_hash(workspace) && is_chat_name(name) => {
            Some(root.join(workspace))
        }
        [workspace, EXECUTIONS_FOLDER, name]
            if is_workspace_hash(workspace) && is_execution_name(name) =>
        {
            Some(root.join(workspace))
        }
        [SESSIONS_FOLDER, _, name] if is_json_name(name) => {
            let folder = path.parent()?;
            Some(root.join(workspace_hash(&sessions_folder_key(folder))))
        }
        _ => None,
    }
}

/// The files of the workspace `key` names that exist: its chats, its execution logs, and the
/// JSON files of its `workspace-sessions` folder.
pub fn members(key: &Path) -> Vec<PathBuf> {
    let mut files = files_in(key, is_chat_name);
    files.extend(files_in(&key.join(EXECUTIONS_FOLDER), is_execution_name));
    for folder in sessions_folders(key) {
        files.extend(files_in(&folder, is_json_name));
    }
    files
}

/// The files of `folder` whose names `keep` accepts, sorted.
fn files_in(folder: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_str().is_some_and(&keep))
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// The `workspace-sessions` folders of the workspace `key` names: those whose workspace
/// hashes to its name.
fn sessions_folders(key: &Path) -> Vec<PathBuf> {
    let (Some(root), Some(hash)) = (key.parent(), key.file_name().and_then(|name| name.to_str()))
    else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(root.join(SESSIONS_FOLDER)) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|folder| folder.is_dir() && workspace_hash(&sessions_folder_key(folder)) == hash)
        .collect();
    folders.sort();
    folders
}

/// What a `workspace-sessions` folder's workspace hash is taken from: its workspace's path
/// ([`sessions_folder_workspace`]), else its own name (which then names no workspace folder,
/// the same on every pass).
fn sessions_folder_key(folder: &Path) -> String {
    sessions_folder_workspace(folder).unwrap_or_else(|| {
        folder
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

/// The workspace path of a `workspace-sessions/<name>` folder: its name, base64url-decoded,
/// else the first `workspaceDirectory` of its `sessions.json`.
fn sessions_folder_workspace(folder: &Path) -> Option<String> {
    let name = folder.file_name()?.to_str()?;
    decode_base64(name)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|path| looks_like_path(path))
        .or_else(|| indexed_workspace(folder))
}

/// The first `workspaceDirectory` of a folder's `sessions.json`.
fn indexed_workspace(folder: &Path) -> Option<String> {
    let bytes = fs::read(folder.join(INDEX_FILE)).ok()?;
    let index: Value = serde_json::from_slice(&bytes).ok()?;
    index
        .as_array()?
        .iter()
        .find_map(|entry| text_field(entry, "workspaceDirectory"))
}

/// An absolute path: `/...`, `\\...` or `C:...`.
fn looks_like_path(text: &str) -> bool {
    text.starts_with('/') || text.starts_with('\\') || text.as_bytes().get(1) == Some(&b':')
}

/// The first 32 hex digits of the SHA-256 of a workspace path: the name of the workspace's
/// folder in the store.
fn workspace_hash(workspace: &str) -> String {
    Sha256::digest(workspace.as_bytes())
        .iter()
        .take(HASH_DIGITS / 2)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The bytes of base64 text, URL-safe or standard alphabet, padded or not; `None` when it is
/// not base64.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=');
    if digits.is_empty() || digits.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(digits.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits: u32 = 0;
    for character in digits.bytes() {
        let value = match character {
            b'A'..=b'Z' => character - b'A',
            b'a'..=b'z' => character - b'a' + 26,
            b'0'..=b'9' => character - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(bytes)
}

/// Why a file of a workspace was skipped.
#[derive(Debug, thiserror::Error)]
enum MemberError {
    #[error("cannot read it: {0}")]
    Io(#[from] std::io::Error),
    #[error("{size} bytes, over the {limit} byte limit")]
    TooLarge { size: u64, limit: u64 },
    #[error("it ends mid-document (being written?)")]
    Torn,
    #[error("not valid JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("not a Kiro IDE {0}")]
    OtherShape(&'static str),
}

/// What a file of a workspace is.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Index,
    Session,
    Execution,
    Chat,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Index => "session index",
            Kind::Session => "workspace session",
            Kind::Execution => "execution log",
            Kind::Chat => "chat",
        }
    }

    /// `value` has this kind's shape.
    fn fits(self, value: &Value) -> bool {
        match self {
            Kind::Index => value.is_array(),
            Kind::Session => {
                value.get("history").is_some_and(Value::is_array)
                    || value.get("sessionId").is_some_and(Value::is_string)
            }
            Kind::Execution => value.get("executionId").is_some_and(Value::is_string),
            Kind::Chat => value.get("chat").is_some_and(Value::is_array),
        }
    }
}

/// One file of a workspace, read: its name and what [`parse`] reads of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub name: String,
    pub value: Value,
}

/// The files of one workspace, read, ready to redact and [`parse`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workspace {
    /// The workspace hash: the name of the group key.
    pub hash: String,
    /// The workspace's path, from its `workspace-sessions` folder.
    pub path: Option<String>,
    /// The `sessions.json` of its `workspace-sessions` folder.
    pub indexes: Vec<Document>,
    /// The session files beside it.
    pub sessions: Vec<Document>,
    /// The execution logs, only their [`EXECUTION_FIELDS`].
    pub executions: Vec<Document>,
    /// One chat per execution: its fullest snapshot.
    pub chats: Vec<Document>,
    /// One warning per file skipped.
    pub skipped: Vec<ParseWarning>,
    /// Bytes read from the files.
    pub bytes_read: u64,
}

impl Workspace {
    /// Every JSON value read (what redaction goes over).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.indexes
            .iter_mut()
            .chain(self.sessions.iter_mut())
            .chain(self.executions.iter_mut())
            .chain(self.chats.iter_mut())
            .map(|document| &mut document.value)
    }
}

/// Reads the workspace `key` names (`<store>/<workspace hash>`, from [`key_of`]).
pub fn read(key: &Path, limits: ReadLimits) -> Workspace {
    let mut reader = Reader {
        limits,
        root: key.parent().map(Path::to_path_buf).unwrap_or_default(),
        workspace: Workspace {
            hash: key
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            ..Workspace::default()
        },
    };
    for folder in sessions_folders(key) {
        if reader.workspace.path.is_none() {
            reader.workspace.path = sessions_folder_workspace(&folder);
        }
        for file in files_in(&folder, is_json_name) {
            if file.file_name() == Some(INDEX_FILE.as_ref()) {
                reader.index(&file);
            } else {
                reader.session(&file);
            }
        }
    }
    for file in files_in(&key.join(EXECUTIONS_FOLDER), is_execution_name) {
        reader.execution(&file);
    }
    reader.chats(files_in(key, is_chat_name));
    reader.workspace
}

/// Reads a workspace's files into it.
struct Reader {
    limits: ReadLimits,
    /// The store folder (file names in warnings are relative to it).
    root: PathBuf,
    workspace: Workspace,
}

impl Reader {
    fn index(&mut self, path: &Path) {
        if let Some(document) = self.document(path, Kind::Index) {
            self.workspace.indexes.push(document);
        }
    }

    fn session(&mut self, path: &Path) {
        if let Some(document) = self.document(path, Kind::Session) {
            self.workspace.sessions.push(document);
        }
    }

    fn execution(&mut self, path: &Path) {
        if let Some(mut document) = self.document(path, Kind::Execution) {
            slim_execution(&mut document.value);
            self.workspace.executions.push(document);
        }
    }

    /// The chats, one per execution: the snapshot with the most entries, then the newest.
    fn chats(&mut self, files: Vec<PathBuf>) {
        type Rank = (usize, Option<SystemTime>);
        let mut fullest: HashMap<String, (Rank, Document)> = HashMap::new();
        for path in files {
            let Some(document) = self.document(&path, Kind::Chat) else {
                continue;
            };
            let execution =
                text_field(&document.value, "executionId").unwrap_or_else(|| document.name.clone());
            let entries = document
                .value
                .get("chat")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let modified = fs::metadata(&path)
                .and_then(|metadata| metadata.modified())
                .ok();
            let rank = (entries, modified);
            let fuller = fullest.get(&execution).is_none_or(|(kept, _)| rank > *kept);
            if fuller {
                fullest.insert(execution, (rank, document));
            }
        }
        let mut chats: Vec<Document> = fullest
            .into_values()
            .map(|(_, document)| document)
            .collect();
        chats.sort_by(|left, right| left.name.cmp(&right.name));
        self.workspace.chats = chats;
    }

    /// The file at `path` as a `kind` document; `None`, with a warning, when it cannot be one.
    fn document(&mut self, path: &Path, kind: Kind) -> Option<Document> {
        let read = read_json(path, self.limits).and_then(|(value, size)| {
            if kind.fits(&value) {
                Ok((value, size))
            } else {
                Err(MemberError::OtherShape(kind.name()))
            }
        });
        match read {
            Ok((value, size)) => {
                self.workspace.bytes_read += size;
                let name = path
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Some(Document { name, value })
            }
            Err(error) => {
                let shown = path.strip_prefix(&self.root).unwrap_or(path);
                self.workspace.skipped.push(ParseWarning {
                    line: 0,
                    message: format!("{}: {error}; skipped", shown.display()),
                });
                None
            }
        }
    }
}

/// A whole JSON file, with its size, within the size limit.
fn read_json(path: &Path, limits: ReadLimits) -> Result<(Value, u64), MemberError> {
    let size = fs::metadata(path)?.len();
    let limit = limits.max_json_file_bytes;
    if size > limit {
        return Err(MemberError::TooLarge { size, limit });
    }
    let bytes = fs::read(path)?;
    let value = serde_json::from_slice(&bytes).map_err(|error| {
        if error.is_eof() {
            MemberError::Torn
        } else {
            MemberError::NotJson(error)
        }
    })?;
    Ok((value, bytes.len() as u64))
}

/// Keeps only the [`EXECUTION_FIELDS`] of an execution log, and of its input messages only
/// the last (the turn's prompt).
fn slim_execution(log: &mut Value) {
    let Value::Object(fields) = log else {
        return;
    };
    fields.retain(|name, _| EXECUTION_FIELDS.contains(&name.as_str()));
    if let Some(messages) = fields
        .get_mut("input")
        .and_then(|input| input.pointer_mut("/data/messages"))
        .and_then(Value::as_array_mut)
    {
        let prompt = messages.pop();
        messages.clear();
        messages.extend(prompt);
    }
}

/// Parses a workspace [`read`] gave: its workspace sessions, the sessions of the execution
/// logs no index lists, its chats.
pub fn parse(workspace: &Workspace) -> ParseOutput {
    let executions = Executions::of(&workspace.executions);
    let named = named_executions(workspace);
    let listed = listed_sessions(workspace);
    let mut sessions: Vec<ParsedSession> = listed
        .iter()
        .map(|session| {
            let own: Vec<&Value> = executions
                .in_order
                .iter()
                .copied()
                .filter(|log| {
                    !named.contains(execution_id(log))
                        && chat_session_of(log) == Some(session.id.as_str())
                })
                .collect();
            workspace_session(session, &own, &executions, workspace.path.as_deref())
        })
        .collect();
    let listed_ids: HashSet<&str> = listed.iter().map(|session| session.id.as_str()).collect();
    for (id, logs) in unlisted_executions(&executions, &named, &listed_ids) {
        sessions.push(execution_session(id, &logs));
    }
    let read_again = |chat: &&Document| {
        chat.value
            .get("executionId")
            .and_then(Value::as_str)
            .is_some_and(|id| executions.by_id.contains_key(id))
    };
    sessions.extend(
        workspace
            .chats
            .iter()
            .filter(|chat| !read_again(chat))
            .map(|chat| chat_session(&workspace.hash, chat, workspace.path.as_deref())),
    );
    ParseOutput {
        sessions,
        // The files skipped are the indexer's to count (`Workspace::skipped`).
        warnings: Vec::new(),
    }
}

/// A workspace's execution logs, by id and in start order.
struct Executions<'w> {
    by_id: HashMap<&'w str, &'w Value>,
    in_order: Vec<&'w Value>,
}

impl<'w> Executions<'w> {
    fn of(documents: &'w [Document]) -> Executions<'w> {
        let mut in_order: Vec<&'w Value> =
            documents.iter().map(|document| &document.value).collect();
        let order = |log: &Value| {
            let start = log.get("startTime").and_then(Value::as_i64);
            (start.unwrap_or(i64::MAX), execution_id(log).to_string())
        };
        in_order.sort_by_key(|log| order(log));
        let mut by_id = HashMap::new();
        for log in in_order.iter().copied() {
            by_id.entry(execution_id(log)).or_insert(log);
        }
        Executions { by_id, in_order }
    }
}

fn execution_id(log: &Value) -> &str {
    log.get("executionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn chat_session_of(log: &Value) -> Option<&str> {
    log.get("chatSessionId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// The executions some session's history names.
fn named_executions(workspace: &Workspace) -> HashSet<&str> {
    workspace
        .sessions
        .iter()
        .filter_map(|document| document.value.get("history").and_then(Value::as_array))
        .flatten()
        .filter_map(|entry| entry.get("executionId").and_then(Value::as_str))
        .collect()
}

/// A session of the workspace's index or session files.
struct Listed<'w> {
    id: String,
    /// Its `sessions.json` entry.
    entry: Option<&'w Value>,
    /// Its session file.
    file: Option<&'w Value>,
}

/// The sessions the index lists (in its order), then those only a session file holds.
fn listed_sessions(workspace: &Workspace) -> Vec<Listed<'_>> {
    let mut listed: Vec<Listed<'_>> = Vec::new();
    let entries = workspace
        .indexes
        .iter()
        .filter_map(|index| index.value.as_array())
        .flatten();
    for entry in entries {
        if let Some(id) = text_field(entry, "sessionId")
            && !listed.iter().any(|session| session.id == id)
        {
            listed.push(Listed {
                id,
                entry: Some(entry),
                file: None,
            });
        }
    }
    for document in &workspace.sessions {
        let id = text_field(&document.value, "sessionId").unwrap_or_else(|| {
            let stem = document.name.strip_suffix(JSON_EXTENSION);
            stem.unwrap_or(document.name.as_str()).to_string()
        });
        match listed.iter_mut().find(|session| session.id == id) {
            Some(session) => session.file = Some(&document.value),
            None => listed.push(Listed {
                id,
                entry: None,
                file: Some(&document.value),
            }),
        }
    }
    listed
}

/// The execution logs neither a history nor a listed session claims, by `chatSessionId`
/// (else their own id), in the order their first log started.
fn unlisted_executions<'w>(
    executions: &Executions<'w>,
    named: &HashSet<&str>,
    listed: &HashSet<&str>,
) -> Vec<(String, Vec<&'w Value>)> {
    let mut sessions: Vec<(String, Vec<&'w Value>)> = Vec::new();
    for log in executions.in_order.iter().copied() {
        let id = execution_id(log);
        let session = chat_session_of(log).unwrap_or(id);
        if named.contains(id) || listed.contains(session) {
            continue;
        }
        match sessions.iter_mut().find(|(name, _)| name == session) {
            Some((_, logs)) => logs.push(log),
            None => sessions.push((session.to_string(), vec![log])),
        }
    }
    sessions
}

/// A session of the index or a session file: its history, then the logs of its turns the
/// history does not name yet.
fn workspace_session(
    listed: &Listed<'_>,
    own: &[&Value],
    executions: &Executions<'_>,
    workspace_path: Option<&str>,
) -> ParsedSession {
    let mut turns = Turns::default();
    let history: &[Value] = listed
        .file
        .and_then(|file| file.get("history"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    turns.history(history, executions);
    let waiting = last_prompt(history);
    for (index, log) in own.iter().enumerate() {
        let repeated = index == 0 && waiting.as_deref() == Some(execution_prompt(log).trim());
        turns.execution(log, !repeated);
    }
    let facts = [listed.entry, listed.file];
    let fact = |name: &str| {
        facts
            .iter()
            .flatten()
            .find_map(|value| text_field(value, name))
    };
    let started_at = listed
        .entry
        .and_then(|entry| entry.get("dateCreated"))
        .and_then(epoch_value)
        .or(turns.started_at);
    let meta = SessionMeta {
        title: fact("title"),
        cwd: fact("workspaceDirectory")
            .or(turns.cwd.take())
            .or_else(|| workspace_path.map(str::to_string)),
        started_at,
        ..SessionMeta::default()
    };
    turns.session(listed.id.clone(), meta)
}

/// The words of a history's last message when it is the user's (a turn not answered yet).
fn last_prompt(history: &[Value]) -> Option<String> {
    let message = history.last()?.get("message")?;
    (message.get("role").and_then(Value::as_str) == Some("user"))
        .then(|| content_text(message.get("content").unwrap_or(&Value::Null)))
        .map(|text| text.trim().to_string())
}

/// A session of execution logs alone, a turn each.
fn execution_session(id: String, logs: &[&Value]) -> ParsedSession {
    let mut turns = Turns::default();
    for log in logs {
        turns.execution(log, true);
    }
    let meta = SessionMeta {
        cwd: turns.cwd.take(),
        started_at: turns.started_at,
        ..SessionMeta::default()
    };
    turns.session(id, meta)
}

/// A `.chat` file's session, `<workspace hash>-<executionId>`.
fn chat_session(hash: &str, chat: &Document, workspace_path: Option<&str>) -> ParsedSession {
    let value = &chat.value;
    let metadata = value.get("metadata").unwrap_or(&Value::Null);
    let model = text_field(metadata, "modelId");
    let start = time_field(metadata, "startTime");
    let mut turns = Turns::default();
    let entries: &[Value] = value
        .get("chat")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, entry) in entries.iter().enumerate() {
        let line = index as u64 + 1;
        let key = format!("chat.{index}");
        let text = content_text(entry.get("content").unwrap_or(&Value::Null));
        match entry.get("role").and_then(Value::as_str).unwrap_or("") {
            "human" => {
                if let Some(prompt) = chat_prompt(&text) {
                    turns.prompt(key, line, start, prompt);
                }
            }
            "bot" if text.trim() != ACKNOWLEDGEMENT => {
                turns.reply(key, line, start, &text, model.as_deref());
            }
            "tool" => turns.orphan_result(key, line, start, text),
            _ => {}
        }
    }
    if let (Some(end), Some(last)) = (time_field(metadata, "endTime"), turns.events.last_mut()) {
        last.timestamp = Some(end);
    }
    let execution = text_field(value, "executionId").unwrap_or_else(|| {
        let stem = chat.name.strip_suffix(CHAT_EXTENSION);
        stem.unwrap_or(chat.name.as_str()).to_string()
    });
    let meta = SessionMeta {
        model,
        cwd: workspace_path.map(str::to_string),
        started_at: start,
        ..SessionMeta::default()
    };
    turns.session(format!("{hash}-{execution}"), meta)
}

/// The user's words in a chat's `human` entry, its `<kiro-ide-message>` wrapper taken off;
/// `None` for the system prompt and the steering rules.
fn chat_prompt(text: &str) -> Option<&str> {
    let text = text.trim();
    if SYSTEM_PREFIXES
        .iter()
        .any(|prefix| text.starts_with(prefix))
    {
        return None;
    }
    let words = text.strip_prefix(MESSAGE_OPEN).map_or(text, |inner| {
        inner.strip_suffix(MESSAGE_CLOSE).unwrap_or(inner)
    });
    Some(words.trim())
}

/// The prompt of an execution log: its last `input.data.messages` entry, the user's.
fn execution_prompt(log: &Value) -> String {
    log.pointer("/input/data/messages")
        .and_then(Value::as_array)
        .and_then(|messages| messages.last())
        .filter(|message| {
            message
                .get("role")
                .and_then(Value::as_str)
                .is_none_or(|role| role == "user")
        })
        .map(|message| content_text(message.get("content").unwrap_or(&Value::Null)))
        .unwrap_or_default()
}

/// The `promptLogs` completions of a history entry, joined.
fn completions(entry: &Value) -> String {
    entry
        .get("promptLogs")
        .and_then(Value::as_array)
        .map(|logs| {
            logs.iter()
                .filter_map(|log| text_field(log, "completion"))
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default()
}

/// A content value's text: a string as it is, text blocks joined, anything else as JSON text.
fn content_text(content: &Value) -> String {
    match content {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(_) => block_text(content),
        other => other.to_string(),
    }
}

/// What an action's `output` says: its `response` (an MCP tool's), else its `message`, else
/// the whole output as JSON text; `None` when it has none.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::Null => None,
        Value::Object(fields) if fields.is_empty() => None,
        Value::Object(fields) => Some(
            fields
                .get("response")
                .or_else(|| fields.get("message"))
                .map_or_else(|| output.to_string(), content_text),
        ),
        other => Some(content_text(other)),
    }
}

/// A time in epoch milliseconds, written as a number or as a string of digits (0 is none).
fn epoch_value(value: &Value) -> Option<DateTime<Utc>> {
    let millis = match value {
        Value::Number(number) => number.as_i64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    };
    epoch_time(millis.filter(|&millis| millis > 0))
}

fn time_field(value: &Value, name: &str) -> Option<DateTime<Utc>> {
    value.get(name).and_then(epoch_value)
}

/// The events of one session as they are read, with the facts its execution logs give.
#[derive(Default)]
struct Turns {
    events: Vec<RawEvent>,
    /// Replies pushed so far.
    replies: usize,
    /// Execution logs read (a log named twice is read once).
    read: HashSet<String>,
    /// The first `workspaceContext.cwd` of the logs read.
    cwd: Option<String>,
    /// The earliest start of the logs read.
    started_at: Option<DateTime<Utc>>,
}

impl Turns {
    fn session(mut self, native_id: String, meta: SessionMeta) -> ParsedSession {
        mark_terminal_replies(&mut self.events);
        ParsedSession {
            source: Source::Kiro,
            native_id,
            meta,
            events: self.events,
        }
    }

    fn prompt(&mut self, key: String, line: u64, time: Option<DateTime<Utc>>, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let mut event = plain_event(
            key,
            EventType::UserInput,
            line,
            time,
            text.to_string(),
            None,
        );
        event.starts_turn = true;
        self.events.push(event);
    }

    fn reply(
        &mut self,
        key: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        text: &str,
        model: Option<&str>,
    ) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let event = plain_event(
            key,
            EventType::AssistantResponse,
            line,
            time,
            text.to_string(),
            None,
        );
        self.events.push(RawEvent {
            model: model.map(str::to_string),
            ..event
        });
        self.replies += 1;
    }

    /// A result whose call is not recorded (a `tool` message or chat entry).
    fn orphan_result(&mut self, key: String, line: u64, time: Option<DateTime<Utc>>, text: String) {
        if text.trim().is_empty() {
            return;
        }
        let event = tool_response(key, line, time, UNKNOWN_TOOL, None, text, false);
        self.events.push(event);
    }

    /// A session file's history, each `assistant` message with the log of its execution.
    fn history(&mut self, history: &[Value], executions: &Executions<'_>) {
        for (index, entry) in history.iter().enumerate() {
            let line = index as u64 + 1;
            let message = entry.get("message").unwrap_or(&Value::Null);
            let key = text_field(message, "id").unwrap_or_else(|| format!("history.{index}"));
            let text = content_text(message.get("content").unwrap_or(&Value::Null));
            match message.get("role").and_then(Value::as_str).unwrap_or("") {
                "user" => self.prompt(key, line, None, &text),
                "assistant" => {
                    let log = text_field(entry, "executionId")
                        .and_then(|id| executions.by_id.get(id.as_str()).copied());
                    self.assistant(key, line, entry, &text, log);
                }
                "tool" => self.orphan_result(key, line, None, text),
                "" => {}
                other => self.unknown(key, line, None, other, entry),
            }
        }
    }

    /// An `assistant` message: its execution's actions; its content (else its `promptLogs`
    /// completions) when they hold no reply; the runtime event of an aborted execution.
    fn assistant(
        &mut self,
        key: String,
        line: u64,
        entry: &Value,
        content: &str,
        log: Option<&Value>,
    ) {
        let log = log.filter(|log| self.read.insert(execution_id(log).to_string()));
        let replies_before = self.replies;
        if let Some(log) = log {
            self.actions(log);
        }
        if self.replies == replies_before {
            let text = if content.trim().is_empty() {
                completions(entry)
            } else {
                content.to_string()
            };
            let time = log.and_then(|log| time_field(log, "endTime"));
            self.reply(key, line, time, &text, None);
        }
        if let Some(log) = log {
            self.stop(log);
        }
    }

    /// An execution log as a turn of its own: its prompt (when `with_prompt`), its actions. A
    /// log already read adds nothing.
    fn execution(&mut self, log: &Value, with_prompt: bool) {
        if !self.read.insert(execution_id(log).to_string()) {
            return;
        }
        if with_prompt {
            let key = format!("{}.prompt", execution_id(log));
            let time = time_field(log, "startTime");
            self.prompt(key, 0, time, &execution_prompt(log));
        }
        self.actions(log);
        self.stop(log);
    }

    /// A log's actions: `say` the replies, tool actions calls with their results, any other
    /// kept as `unknown`.
    fn actions(&mut self, log: &Value) {
        let execution = execution_id(log);
        let start = time_field(log, "startTime");
        self.started_at = match (self.started_at, start) {
            (Some(earliest), Some(time)) => Some(earliest.min(time)),
            (earliest, time) => earliest.or(time),
        };
        if self.cwd.is_none() {
            self.cwd = log
                .pointer("/workspaceContext/cwd")
                .and_then(Value::as_str)
                .filter(|cwd| !cwd.is_empty())
                .map(str::to_string);
        }
        let actions: &[Value] = log
            .get("actions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, action) in actions.iter().enumerate() {
            let line = index as u64 + 1;
            let action_id = text_field(action, "actionId");
            let key = match &action_id {
                Some(id) => format!("{execution}.{id}"),
                None => format!("{execution}.action.{index}"),
            };
            let time = time_field(action, "emittedAt").or(start);
            match action
                .get("actionType")
                .and_then(Value::as_str)
                .unwrap_or("")
            {
                "say" => {
                    let said = action.pointer("/output/message").map(content_text);
                    self.reply(key, line, time, &said.unwrap_or_default(), None);
                }
                kind if TOOL_ACTIONS.contains(&kind) => {
                    self.tool(key, line, time, kind, action, action_id);
                }
                other => {
                    let subtype = if other.is_empty() { "untyped" } else { other };
                    self.unknown(key, line, time, subtype, action);
                }
            }
        }
    }

    /// An entry or action of a kind this reader does not know, kept whole as an `unknown`
    /// event of that subtype.
    fn unknown(
        &mut self,
        key: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        subtype: &str,
        payload: &Value,
    ) {
        let mut event = plain_event(
            key,
            EventType::Unknown,
            line,
            time,
            String::new(),
            Some(subtype),
        );
        event.payload = Some(payload.clone());
        self.events.push(event);
    }

    /// A tool action: its call, and its result when it has an `output`.
    fn tool(
        &mut self,
        key: String,
        line: u64,
        time: Option<DateTime<Utc>>,
        kind: &str,
        action: &Value,
        action_id: Option<String>,
    ) {
        let input = action.get("input").unwrap_or(&Value::Null);
        let (name, arguments) = match text_field(input, "toolName") {
            Some(tool) if kind == "mcp" => (tool, input.get("toolArgs").cloned()),
            _ => (kind.to_string(), Some(input.clone())),
        };
        let call_id = action_id.unwrap_or_else(|| key.clone());
        let arguments = arguments.unwrap_or(Value::Null);
        let call = tool_call(
            key.clone(),
            line,
            time,
            &name,
            Some(call_id.as_str()),
            arguments,
        );
        self.events.push(call);
        let Some(text) = action.get("output").and_then(output_text) else {
            return;
        };
        let exit_code = if kind == "runCommand" {
            reported_exit_code(&text)
        } else {
            None
        };
        let failed = exit_code.is_some_and(|code| code != 0);
        let result_key = format!("{key}.result");
        let call_id = Some(call_id.as_str());
        let mut result = tool_response(result_key, line, time, &name, call_id, text, failed);
        result.exit_code = exit_code;
        self.events.push(result);
    }

    /// The runtime event that ends a turn Kiro aborted.
    fn stop(&mut self, log: &Value) {
        if log.get("status").and_then(Value::as_str) != Some("aborted") {
            return;
        }
        let mut event = plain_event(
            format!("{}.aborted", execution_id(log)),
            EventType::Runtime,
            0,
            time_field(log, "endTime"),
            "turn ended: aborted".to_string(),
            Some("aborted"),
        );
        event.turn_end = Some(TurnEnd::Terminal);
        self.events.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HERON: &str = "/home/dev/src/heron";
    /// `HERON`, base64url without padding.
    const HERON_FOLDER: &str = "L2hvbWUvZGV2L3NyYy9oZXJvbg";

    fn document(name: &str, value: Value) -> Document {
        Document {
            name: name.to_string(),
            value,
        }
    }

    fn kinds(session: &ParsedSession) -> Vec<EventType> {
        session.events.iter().map(|event| event.kind).collect()
    }

    fn texts_of(session: &ParsedSession, kind: EventType) -> Vec<&str> {
        session
            .events
            .iter()
            .filter(|event| event.kind == kind)
            .map(|event| event.text.as_str())
            .collect()
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    #[test]
    fn workspace_folders_are_named_by_the_hash_of_the_path_their_sessions_folder_encodes() {
        assert_eq!(
            decode_base64(HERON_FOLDER).and_then(|bytes| String::from_utf8(bytes).ok()),
            Some(HERON.to_string())
        );
        assert_eq!(decode_base64("-_8"), Some(vec![0xfb, 0xff]), "URL-safe");
        assert_eq!(decode_base64("+/8="), Some(vec![0xfb, 0xff]), "standard");
        assert_eq!(decode_base64("a"), None);
        assert_eq!(decode_base64("no spaces"), None);
        // `sha256sum` of the path, its first 32 hex digits.
        assert_eq!(workspace_hash(HERON), "0a7d856b6cb6f14fc43bd1d559cee43e");
    }

    #[test]
    fn every_member_names_its_workspace_and_the_extensions_other_files_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("globalStorage").join(STORE_FOLDER);
        let hash = workspace_hash(HERON);
        let workspace = store.join(&hash);
        let chat = workspace.join("0123456789abcdef0123456789abcdef.chat");
        let log = workspace.join(EXECUTIONS_FOLDER).join("c3470c42");
        let sessions = store.join(SESSIONS_FOLDER).join(HERON_FOLDER);
        let index = sessions.join(INDEX_FILE);
        let session = sessions.join("s1.json");
        let other_sessions = store.join(SESSIONS_FOLDER).join("L290aGVy");
        let other = other_sessions.join("s2.json");
        let settings = store.join("config.json");
        for file in [&chat, &log, &index, &session, &other, &settings] {
            write(file, "{}");
        }
        for member in [&chat, &log, &index, &session] {
            assert_eq!(key_of(member), Some(workspace.clone()), "{member:?}");
        }
        assert_eq!(
            key_of(&other),
            Some(store.join(workspace_hash("/other"))),
            "another workspace's sessions"
        );
        assert_eq!(key_of(&settings), None);
        assert!(is_store_file(&settings));
        assert!(!is_store_file(&dir.path().join("config.json")));
        assert_eq!(
            members(&workspace),
            [chat, log, session, index],
            "names sorted"
        );
    }

    #[test]
    fn a_session_is_its_history_with_the_logs_of_its_executions() {
        let workspace = Workspace {
            hash: workspace_hash(HERON),
            path: Some(HERON.to_string()),
            indexes: vec![document(
                INDEX_FILE,
                json!([{"sessionId": "s1", "title": "Fix the parser",
                    "dateCreated": "1750000000000", "workspaceDirectory": HERON}]),
            )],
            sessions: vec![document(
                "s1.json",
                json!({"sessionId": "s1", "history": [
                    {"message": {"role": "user", "id": "u1",
                        "content": [{"type": "text", "text": "why does it fail?"}]}},
                    {"message": {"role": "assistant", "id": "a1", "content": "On it."},
                        "executionId": "e1"},
                    {"message": {"role": "user", "id": "u2", "content": "trim it"}},
                    {"message": {"role": "assistant", "id": "a2", "content": "On it."},
                        "executionId": "e2"},
                    {"message": {"role": "tool", "id": "t1", "content": "2 files changed"}},
                    {"message": {"role": "user", "id": "u3", "content": "thanks"}},
                    {"message": {"role": "assistant", "id": "a3", "content": ""},
                        "promptLogs": [{"completion": "You are welcome."}]},
                    {"message": {"role": "user", "id": "u4", "content": "and the docs?"}}
                ]}),
            )],
            executions: vec![
                document(
                    "x2",
                    json!({"executionId": "e2", "chatSessionId": "s1", "status": "aborted",
                    "startTime": 1_750_000_100_000_i64, "endTime": 1_750_000_160_000_i64,
                    "actions": [
                        {"actionId": "r1", "actionType": "runCommand",
                            "input": {"command": "cargo test"},
                            "output": {"message": "1 failed\nExit Code: 101"}},
                        {"actionId": "m1", "actionType": "model", "input": {}}
                    ]}),
                ),
                document(
                    "x1",
                    json!({"executionId": "e1", "chatSessionId": "s1", "status": "succeed",
                    "startTime": 1_750_000_010_000_i64, "workspaceContext": {"cwd": "/elsewhere"},
                    "actions": [
                        {"actionId": "s1", "actionType": "say", "emittedAt": 1_750_000_011_000_i64,
                            "output": {"message": "Reading the test."}},
                        {"actionId": "c1", "actionType": "readCode", "input": {"file": "a.rs"}},
                        {"actionId": "c2", "actionType": "mcp",
                            "input": {"toolName": "cargo_test", "toolArgs": {"package": "heron"}},
                            "output": {"response": "1 failed"}},
                        {"actionId": "s2", "actionType": "say", "output": {"message": "Trim it?"}}
                    ]}),
                ),
                document(
                    "x3",
                    json!({"executionId": "e3", "chatSessionId": "s1", "status": "running",
                    "startTime": 1_750_000_200_000_i64,
                    "input": {"data": {"messages": [
                        {"role": "user", "content": [{"type": "text", "text": "and the docs?"}]}]}},
                    "actions": [{"actionId": "s3", "actionType": "say",
                        "output": {"message": "Updating the docs."}}]}),
                ),
            ],
            ..Workspace::default()
        };
        let output = parse(&workspace);
        assert_eq!(output.sessions.len(), 1, "every log is the session's");
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "s1");
        assert_eq!(session.source, Source::Kiro);
        assert_eq!(session.meta.title.as_deref(), Some("Fix the parser"));
        assert_eq!(session.meta.cwd.as_deref(), Some(HERON), "the index's");
        assert_eq!(
            session.meta.started_at.map(|time| time.timestamp_millis()),
            Some(1_750_000_000_000)
        );
        assert_eq!(
            kinds(session),
            [
                EventType::UserInput,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::Unknown,
                EventType::AssistantResponse,
                EventType::Runtime,
                EventType::ToolResponse,
                EventType::UserInput,
                EventType::AssistantResponse,
                EventType::UserInput,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(
            texts_of(session, EventType::AssistantResponse),
            [
                "Reading the test.",
                "Trim it?",
                "On it.",
                "You are welcome.",
                "Updating the docs."
            ],
            "the stub stands in only for a log with no `say`; the running turn's prompt is \
             the history's last"
        );
        let mcp = &session.events[3];
        assert_eq!(mcp.tool_name.as_deref(), Some("cargo_test"));
        assert_eq!(mcp.tool_call_id.as_deref(), Some("c2"));
        assert_eq!(mcp.payload, Some(json!({"package": "heron"})));
        let command = &session.events[8];
        assert_eq!(
            (
                command.tool_name.as_deref(),
                command.exit_code,
                command.subtype.as_deref()
            ),
            (Some("runCommand"), Some(101), Some("error"))
        );
        assert_eq!(session.events[11].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(session.events[12].tool_name.as_deref(), Some(UNKNOWN_TOOL));
        assert_eq!(
            session.events[1]
                .timestamp
                .map(|time| time.timestamp_millis()),
            Some(1_750_000_011_000),
            "emittedAt"
        );
        assert!(
            session.events.iter().all(|event| event.usage.is_none()),
            "credits are not tokens"
        );
    }

    #[test]
    fn logs_no_index_lists_are_sessions_of_their_chat_session() {
        let log = |id: &str, session: &str, start: i64, prompt: &str| {
            document(
                id,
                json!({"executionId": id, "chatSessionId": session, "startTime": start,
                "workspaceContext": {"cwd": "/w"},
                "input": {"data": {"messages": [{"role": "user", "content": prompt}]}},
                "actions": [{"actionId": "say", "actionType": "say",
                    "output": {"message": format!("done: {prompt}")}},
                    {"actionType": "readFiles", "input": {"files": ["a", "b"]}}]}),
            )
        };
        let workspace = Workspace {
            executions: vec![
                log("e2", "c1", 20, "second"),
                log("e1", "c1", 10, "first"),
                log("e3", "c2", 30, "other"),
            ],
            ..Workspace::default()
        };
        let output = parse(&workspace);
        let ids: Vec<&str> = output
            .sessions
            .iter()
            .map(|session| session.native_id.as_str())
            .collect();
        assert_eq!(ids, ["c1", "c2"]);
        let first = &output.sessions[0];
        assert_eq!(
            texts_of(first, EventType::UserInput),
            ["first", "second"],
            "in start order"
        );
        assert_eq!(first.meta.cwd.as_deref(), Some("/w"));
        let calls: Vec<Option<&str>> = first
            .events
            .iter()
            .filter(|event| event.kind == EventType::ToolCall)
            .map(|event| event.tool_call_id.as_deref())
            .collect();
        assert_eq!(
            calls,
            [Some("e1.action.1"), Some("e2.action.1")],
            "no actionId: the key"
        );
    }

    #[test]
    fn a_chat_keeps_the_users_words_and_the_replies() {
        let chat = document(
            "0123.chat",
            json!({"executionId": "k1", "chat": [
                {"role": "human", "content": "# System Prompt\nYou are Kiro"},
                {"role": "bot", "content": ACKNOWLEDGEMENT},
                {"role": "human", "content": "## Included Rules (a.md)\nbe brief"},
                {"role": "human", "content": "<kiro-ide-message>rename the key</kiro-ide-message>"},
                {"role": "bot", "content": "Renamed."},
                {"role": "tool", "content": "1 line changed"},
                {"role": "human", "content": "plain words"}
            ], "metadata": {"modelId": "claude-sonnet-4", "startTime": 1_749_000_000_000_i64,
                "endTime": 1_749_000_090_000_i64}}),
        );
        let workspace = Workspace {
            hash: "9346".to_string(),
            chats: vec![chat],
            ..Workspace::default()
        };
        let output = parse(&workspace);
        let session = &output.sessions[0];
        assert_eq!(session.native_id, "9346-k1");
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4"));
        assert_eq!(
            texts_of(session, EventType::UserInput),
            ["rename the key", "plain words"]
        );
        assert_eq!(
            texts_of(session, EventType::AssistantResponse),
            ["Renamed."]
        );
        assert_eq!(session.events[1].model.as_deref(), Some("claude-sonnet-4"));
        assert_eq!(
            session
                .events
                .last()
                .and_then(|event| event.timestamp)
                .map(|time| time.timestamp_millis()),
            Some(1_749_000_090_000),
            "the chat ends at its endTime"
        );
    }

    #[test]
    fn the_fullest_chat_snapshot_is_read_and_a_chat_of_a_log_read_is_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = dir.path().join(STORE_FOLDER).join(workspace_hash("/k"));
        let chat = |entries: usize, execution: &str| {
            let entries: Vec<Value> = (0..entries)
                .map(|index| json!({"role": "human", "content": format!("prompt {index}")}))
                .collect();
            json!({"executionId": execution, "chat": entries}).to_string()
        };
        write(&key.join("aaaa.chat"), &chat(3, "k1"));
        write(&key.join("bbbb.chat"), &chat(5, "k1"));
        write(&key.join("cccc.chat"), &chat(2, "e1"));
        write(
            &key.join(EXECUTIONS_FOLDER).join("e1"),
            &json!({"executionId": "e1", "context": {"messages": ["dropped"]},
                "input": {"data": {"messages": ["old", {"role": "user", "content": "go"}]}}})
            .to_string(),
        );
        let workspace = read(&key, ReadLimits::default());
        let names: Vec<&str> = workspace
            .chats
            .iter()
            .map(|chat| chat.name.as_str())
            .collect();
        assert_eq!(names, ["bbbb.chat", "cccc.chat"]);
        assert_eq!(
            workspace.executions[0].value,
            json!({"executionId": "e1",
                "input": {"data": {"messages": [{"role": "user", "content": "go"}]}}}),
            "only what is read"
        );
        let output = parse(&workspace);
        let ids: Vec<&str> = output
            .sessions
            .iter()
            .map(|session| session.native_id.as_str())
            .collect();
        let k1 = format!("{}-k1", workspace.hash);
        assert_eq!(ids, ["e1", k1.as_str()]);
        assert_eq!(output.sessions[1].events.len(), 5);
    }

    #[test]
    fn files_that_cannot_be_read_are_skipped_with_a_warning_each() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join(STORE_FOLDER);
        let key = store.join(workspace_hash(HERON));
        let logs = key.join(EXECUTIONS_FOLDER);
        write(
            &logs.join("torn"),
            "{\"executionId\": \"e1\", \"actions\": [",
        );
        write(&logs.join("not-json"), "executionId: e2");
        write(&logs.join("other"), "{\"chat\": []}");
        write(
            &logs.join("fine"),
            "{\"executionId\": \"e4\", \"chatSessionId\": \"c\", \"input\": {\"data\": \
             {\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}}}",
        );
        write(
            &store
                .join(SESSIONS_FOLDER)
                .join(HERON_FOLDER)
                .join(INDEX_FILE),
            "[{\"sessionId\": ",
        );
        let workspace = read(&key, ReadLimits::default());
        let mut messages: Vec<&str> = workspace
            .skipped
            .iter()
            .map(|warning| warning.message.as_str())
            .collect();
        messages.sort();
        assert_eq!(messages.len(), 4, "{messages:?}");
        let torn = format!("{}/{EXECUTIONS_FOLDER}/torn", workspace.hash);
        assert!(
            messages
                .iter()
                .any(|message| message.starts_with(&torn) && message.contains("mid-document"))
        );
        assert!(
            messages
                .iter()
                .any(|message| message.contains("not a Kiro IDE execution log"))
        );
        assert!(
            messages
                .iter()
                .any(|message| message.starts_with("workspace-sessions/"))
        );
        assert_eq!(workspace.executions.len(), 1);
        assert_eq!(workspace.path.as_deref(), Some(HERON));
        let output = parse(&workspace);
        assert_eq!(output.sessions.len(), 1);
        assert_eq!(texts_of(&output.sessions[0], EventType::UserInput), ["hi"]);
    }
}
