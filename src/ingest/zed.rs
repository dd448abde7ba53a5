//! Zed's agent threads (`<Zed data dir>/threads/threads.db`): a SQLite store, one row per thread
//! in `threads(id, summary, updated_at, data_type, data, parent_id?, folder_paths?,
//! folder_paths_order?, created_at?)` (the last four added by later `ALTER TABLE`s: read by
//! name). `data` is the thread document as JSON, a zstd frame of it when `data_type` is `zstd`.
//!
//! A document of Zed's current agent (version `0.3.0`, `crates/agent/src/db.rs` `DbThread`)
//! holds `messages` in Rust's externally tagged shape: `{"User": {id, content: [{"Text"},
//! {"Mention": {uri, content}}, {"Image"}]}}`, `{"Agent": {content: [{"Text"}, {"Thinking":
//! {text}}, {"RedactedThinking"}, {"ToolUse": {id, name, input}}], tool_results: {<id>:
//! {tool_use_id, tool_name, is_error, content, output}}}}` and `"Resume"`; beside them `title`,
//! `model {provider, model}`, `request_token_usage` (user message id -> usage of that request),
//! `cumulative_token_usage`, `initial_project_snapshot.worktree_snapshots[].worktree_path` and
//! `subagent_context.parent_thread_id`. A document of the earlier agent (`0.1.0`, `0.2.0`,
//! unversioned; `crates/agent/src/legacy_thread.rs`) names the title `summary` and holds
//! `{id, role, segments: [{type: text|thinking|RedactedThinking}], tool_uses, tool_results,
//! context, is_hidden}` messages (an unversioned one `text` instead of segments) with
//! `request_token_usage` indexed by message; Zed rewrites a thread in the current shape only
//! when it saves it again, so a store mixes both. No message carries a time.

use std::collections::HashMap;
use std::io::Read;

use rusqlite::Connection;
use serde_json::{Map, Value, json};

use crate::ingest::content::{
    UNKNOWN_TOOL, mark_terminal_replies, plain_event, text_field, tool_call, tool_response,
    totals_carrier, usage_carrier,
};
use crate::ingest::sqlite::{self, row_as_object, table_names};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    add_counts, parse_timestamp,
};

/// The largest thread document read (decompressed): a bigger one is skipped with a warning.
const MAX_DOCUMENT_BYTES: u64 = 512 << 20;

/// One thread's row (its text columns, by name) and its decoded document.
#[derive(Debug, Clone)]
pub struct ZedThread {
    pub id: String,
    pub info: Map<String, Value>,
    /// The thread document; `Null` when it could not be read (see `problem`).
    pub document: Value,
    /// Why the document could not be read, if it could not.
    pub problem: Option<String>,
}

/// Why a thread's `data` could not be turned into its document.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("thread data is not a zstd frame: {0}")]
    Zstd(std::io::Error),
    #[error("thread data is larger than {MAX_DOCUMENT_BYTES} bytes once decompressed")]
    TooLarge,
    #[error("thread data of unknown data_type {0:?}")]
    UnknownType(String),
    #[error("thread data is not JSON: {0}")]
    Json(serde_json::Error),
}

/// A database file where Zed keeps its threads: `threads/threads.db` (or its `-wal`).
pub fn is_store_path(path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    let folder = path
        .parent()
        .and_then(|parent| parent.file_name())
        .and_then(|name| name.to_str());
    matches!(name, Some("threads.db" | "threads.db-wal")) && folder == Some("threads")
}

/// Zed's table: `threads` with the columns the reader needs.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    if !table_names(connection)?
        .iter()
        .any(|name| name == "threads")
    {
        return Ok(false);
    }
    let probe = connection.prepare(include_str!("../../queries/zed_threads_probe.sql"));
    Ok(probe.is_ok())
}

/// Every thread id with the stamp of its row.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../queries/zed_session_stamps.sql"),
    )
}

/// One thread's row and document; an unreadable document is a `problem`, not an error.
pub fn read_session(connection: &Connection, id: &str) -> rusqlite::Result<ZedThread> {
    let mut info = row_as_object(connection, include_str!("../../queries/zed_thread.sql"), id)?;
    // A `json` row may hold its document as text: it is read below, once.
    info.remove("data");
    let (data_type, data): (String, Vec<u8>) = connection.query_row(
        include_str!("../../queries/zed_thread_data.sql"),
        [id],
        |row| Ok((row.get(0)?, blob_or_text(row.get_ref(1)?))),
    )?;
    let (document, problem) = match decode_document(&data_type, &data) {
        Ok(document) => (document, None),
        Err(error) => (Value::Null, Some(error.to_string())),
    };
    Ok(ZedThread {
        id: id.to_string(),
        info,
        document,
        problem,
    })
}

/// The bytes of a column Zed writes as a blob (a `json` row may hold text).
fn blob_or_text(value: rusqlite::types::ValueRef<'_>) -> Vec<u8> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Blob(bytes) | ValueRef::Text(bytes) => bytes.to_vec(),
        _ => Vec::new(),
    }
}

/// The thread document of a row's `data`, decompressed when `data_type` is `zstd`.
pub fn decode_document(data_type: &str, data: &[u8]) -> Result<Value, DocumentError> {
    let json = match data_type {
        "zstd" => decompress(data)?,
        "json" => data.to_vec(),
        other => return Err(DocumentError::UnknownType(other.to_string())),
    };
    serde_json::from_slice(&json).map_err(DocumentError::Json)
}

/// A zstd frame's content, bounded by [`MAX_DOCUMENT_BYTES`].
fn decompress(frame: &[u8]) -> Result<Vec<u8>, DocumentError> {
    let decoder = zstd::stream::read::Decoder::new(frame).map_err(DocumentError::Zstd)?;
    let mut json = Vec::new();
    decoder
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut json)
        .map_err(DocumentError::Zstd)?;
    if json.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge);
    }
    Ok(json)
}

/// Parses one thread.
pub fn parse(thread: &ZedThread) -> ParseOutput {
    let mut warnings = Vec::new();
    if let Some(problem) = &thread.problem {
        warnings.push(ParseWarning {
            line: 0,
            message: format!("thread {}: {problem}; skipped", thread.id),
        });
    }
    let document = &thread.document;
    let mut parser = Parser {
        model: model_of(document),
        ..Parser::default()
    };
    let messages = document
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let legacy = is_legacy(document);
    for (index, message) in messages.iter().enumerate() {
        if legacy {
            parser.legacy_message(index, message);
        } else {
            parser.message(index, message);
        }
    }
    if legacy {
        parser.attach_legacy_usage(document);
    } else {
        parser.attach_request_usage(document);
    }
    parser.attach_cumulative_usage(document);
    mark_terminal_replies(&mut parser.events);
    warnings.append(&mut parser.warnings);
    let session = ParsedSession {
        source: Source::Zed,
        native_id: thread.id.clone(),
        meta: meta_of(thread, parser.model.clone()),
        events: parser.events,
    };
    ParseOutput {
        sessions: vec![session],
        warnings,
    }
}

/// A document of the earlier agent: its messages carry a `role`.
fn is_legacy(document: &Value) -> bool {
    let version = document.get("version").and_then(Value::as_str);
    match version {
        Some("0.3.0") => false,
        Some(_) => true,
        None => document
            .get("messages")
            .and_then(Value::as_array)
            .and_then(|messages| messages.first())
            .is_some_and(|message| message.get("role").is_some()),
    }
}

/// `model.model` (`model.provider` left out, as other harnesses record the model alone).
fn model_of(document: &Value) -> Option<String> {
    document
        .pointer("/model/model")
        .and_then(Value::as_str)
        .filter(|model| !model.is_empty())
        .map(str::to_string)
}

fn meta_of(thread: &ZedThread, model: Option<String>) -> SessionMeta {
    let column = |name: &str| {
        thread
            .info
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let document = &thread.document;
    let title = column("summary")
        .or_else(|| text_field(document, "title"))
        .or_else(|| text_field(document, "summary"));
    let started_at = ["created_at", "updated_at"]
        .iter()
        .find_map(|name| thread.info.get(*name).and_then(parse_timestamp));
    let parent = column("parent_id").or_else(|| {
        document
            .pointer("/subagent_context/parent_thread_id")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let version = text_field(document, "version").unwrap_or_else(|| "0.0.0".into());
    SessionMeta {
        title,
        summary: text_field(document, "detailed_summary"),
        cwd: workspace_of(thread),
        model,
        harness_version: Some(format!("thread v{version}")),
        parent_native_id: parent,
        started_at,
        ..SessionMeta::default()
    }
}

/// The thread's first workspace folder: `folder_paths` (sorted paths, newline-joined) in the
/// display order `folder_paths_order` gives, else the document's first worktree.
fn workspace_of(thread: &ZedThread) -> Option<String> {
    let column = |name: &str| thread.info.get(name).and_then(Value::as_str);
    if let Some(paths) = column("folder_paths").filter(|paths| !paths.is_empty()) {
        return Some(first_folder(
            paths,
            column("folder_paths_order").unwrap_or(""),
        ));
    }
    thread
        .document
        .pointer("/initial_project_snapshot/worktree_snapshots/0/worktree_path")
        .and_then(Value::as_str)
        .filter(|path| !path.is_empty())
        .map(str::to_string)
}

/// The path Zed shows first: the one whose display index (`order`, comma-joined, one per
/// sorted path) is 0; the first sorted path when the order does not fit.
pub fn first_folder(paths: &str, order: &str) -> String {
    let sorted: Vec<&str> = paths.split('\n').collect();
    let indexes: Vec<usize> = order
        .split(',')
        .filter_map(|index| index.trim().parse().ok())
        .collect();
    let shown_first = (indexes.len() == sorted.len())
        .then(|| indexes.iter().position(|&index| index == 0))
        .flatten()
        .unwrap_or(0);
    sorted[shown_first].to_string()
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    model: Option<String>,
    /// Tool use id -> tool name, for results.
    calls: HashMap<String, String>,
    /// Per user message id of a current document: the first event of its request.
    requests: Vec<(String, usize)>,
    /// Per message index of a legacy document: its first event.
    message_starts: Vec<(usize, usize)>,
}

impl Parser {
    /// One message of a current (`0.3.0`) document.
    fn message(&mut self, index: usize, message: &Value) {
        let key = index.to_string();
        if message.as_str() == Some("Resume") {
            let text = "Continue where you left off".to_string();
            self.push(plain_event(
                key,
                EventType::System,
                line_of(index),
                None,
                text,
                Some("resume"),
            ));
            return;
        }
        if let Some(user) = message.get("User") {
            self.user(index, user);
        } else if let Some(agent) = message.get("Agent") {
            self.agent(index, agent);
        } else {
            let variant = variant_name(message);
            let mut event = RawEvent::new(key, EventType::Unknown, line_of(index));
            event.subtype = Some(format!("message:{variant}"));
            event.payload = Some(message.clone());
            self.push(event);
        }
    }

    /// A user message: typed text is the prompt; mentions (with the text Zed attached) and
    /// images go in its payload.
    fn user(&mut self, index: usize, user: &Value) {
        let blocks = user.get("content").and_then(Value::as_array);
        let mut typed = Vec::new();
        let mut mentions = Vec::new();
        let mut images = 0;
        for block in blocks.into_iter().flatten() {
            if let Some(text) = block.get("Text").and_then(Value::as_str) {
                typed.push(text.to_string());
            } else if let Some(mention) = block.get("Mention") {
                mentions.push(mention.clone());
            } else if block.get("Image").is_some() {
                images += 1;
            }
        }
        let mut text = typed.join("\n");
        if text.trim().is_empty() {
            text = mentions
                .iter()
                .filter_map(mention_link)
                .collect::<Vec<_>>()
                .join(" ");
        }
        if text.trim().is_empty() {
            return;
        }
        let first_event = self.events.len();
        let mut event = plain_event(
            index.to_string(),
            EventType::UserInput,
            line_of(index),
            None,
            text,
            None,
        );
        event.starts_turn = true;
        if !mentions.is_empty() || images > 0 {
            event.payload = Some(json!({"mentions": mentions, "images": images}));
        }
        self.push(event);
        if let Some(id) = user.get("id").and_then(Value::as_str) {
            self.requests.push((id.to_string(), first_event));
        }
    }

    /// An agent message: its blocks in order, then the results of its tool uses.
    fn agent(&mut self, index: usize, agent: &Value) {
        let blocks = agent.get("content").and_then(Value::as_array);
        for (block_index, block) in blocks.into_iter().flatten().enumerate() {
            let key = format!("{index}.{block_index}");
            if let Some(text) = block.get("Text").and_then(Value::as_str) {
                self.reply(key, index, EventType::AssistantResponse, text);
            } else if let Some(text) = block.pointer("/Thinking/text").and_then(Value::as_str) {
                self.reply(key, index, EventType::Reasoning, text);
            } else if let Some(tool_use) = block.get("ToolUse") {
                let input = tool_input(tool_use);
                self.call(key, index, tool_use, input);
            }
        }
        let results = agent.get("tool_results").and_then(Value::as_object);
        for (id, result) in results.into_iter().flatten() {
            let key = format!("{index}.result.{id}");
            let name = text_field(result, "tool_name");
            let failed = result.get("is_error").and_then(Value::as_bool) == Some(true);
            self.result(key, index, id, name, result_text(result), failed);
        }
    }

    /// One message of an earlier agent's document.
    fn legacy_message(&mut self, index: usize, message: &Value) {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        self.message_starts.push((index, self.events.len()));
        let hidden = message.get("is_hidden").and_then(Value::as_bool) == Some(true);
        match role {
            "user" => {
                let text = legacy_text(message, "text");
                if !text.trim().is_empty() {
                    let kind = if hidden {
                        EventType::System
                    } else {
                        EventType::UserInput
                    };
                    let subtype = hidden.then_some("hidden");
                    let mut event =
                        plain_event(index.to_string(), kind, line_of(index), None, text, subtype);
                    event.starts_turn = !hidden;
                    if let Some(context) = text_field(message, "context") {
                        event.payload = Some(json!({"context": context}));
                    }
                    self.push(event);
                }
            }
            "assistant" => self.legacy_assistant(index, message),
            "system" => {
                let text = legacy_text(message, "text");
                self.push(plain_event(
                    index.to_string(),
                    EventType::System,
                    line_of(index),
                    None,
                    text,
                    Some("system"),
                ));
            }
            other => self.warnings.push(ParseWarning {
                line: line_of(index),
                message: format!("message of role {other:?} skipped"),
            }),
        }
        self.legacy_results(index, message);
    }

    fn legacy_assistant(&mut self, index: usize, message: &Value) {
        let segments = message.get("segments").and_then(Value::as_array);
        for (segment_index, segment) in segments.into_iter().flatten().enumerate() {
            let key = format!("{index}.{segment_index}");
            let text = segment.get("text").and_then(Value::as_str);
            match (segment.get("type").and_then(Value::as_str), text) {
                (Some("text"), Some(text)) => {
                    self.reply(key, index, EventType::AssistantResponse, text)
                }
                (Some("thinking"), Some(text)) => {
                    self.reply(key, index, EventType::Reasoning, text)
                }
                _ => {}
            }
        }
        if let Some(text) = message.get("text").and_then(Value::as_str) {
            self.reply(
                format!("{index}.text"),
                index,
                EventType::AssistantResponse,
                text,
            );
        }
        let uses = message.get("tool_uses").and_then(Value::as_array);
        for tool_use in uses.into_iter().flatten() {
            let id = text_field(tool_use, "id").unwrap_or_default();
            let input = tool_use.get("input").cloned().unwrap_or(Value::Null);
            self.call(format!("{index}.use.{id}"), index, tool_use, input);
        }
    }

    /// A legacy message's `tool_results` (on the assistant message since 0.2.0, on the next
    /// user message before).
    fn legacy_results(&mut self, index: usize, message: &Value) {
        let results = message.get("tool_results").and_then(Value::as_array);
        for result in results.into_iter().flatten() {
            let id = text_field(result, "tool_use_id").unwrap_or_default();
            let failed = result.get("is_error").and_then(Value::as_bool) == Some(true);
            let key = format!("{index}.result.{id}");
            self.result(key, index, &id, None, result_text(result), failed);
        }
    }

    fn reply(&mut self, key: String, index: usize, kind: EventType, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let mut event = plain_event(key, kind, line_of(index), None, text.to_string(), None);
        event.model = self.model.clone();
        self.push(event);
    }

    fn call(&mut self, key: String, index: usize, tool_use: &Value, input: Value) {
        let name = text_field(tool_use, "name").unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let id = text_field(tool_use, "id");
        if let Some(id) = &id {
            self.calls.insert(id.clone(), name.clone());
        }
        self.push(tool_call(
            key,
            line_of(index),
            None,
            &name,
            id.as_deref(),
            input,
        ));
    }

    fn result(
        &mut self,
        key: String,
        index: usize,
        id: &str,
        name: Option<String>,
        text: String,
        failed: bool,
    ) {
        let name = self
            .calls
            .get(id)
            .cloned()
            .or(name)
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        self.push(tool_response(
            key,
            line_of(index),
            None,
            &name,
            Some(id),
            text,
            failed,
        ));
    }

    fn push(&mut self, mut event: RawEvent) {
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    /// A current document's `request_token_usage`: each user request's usage on the last reply
    /// of its turn (the events up to the next request).
    fn attach_request_usage(&mut self, document: &Value) {
        let Some(usages) = document
            .get("request_token_usage")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (position, (id, first_event)) in self.requests.iter().enumerate() {
            let Some(usage) = usages.get(id).and_then(usage_of) else {
                continue;
            };
            let end = self
                .requests
                .get(position + 1)
                .map_or(self.events.len(), |(_, next)| *next);
            let turn = &self.events[*first_event..end];
            let carrier = turn
                .iter()
                .rposition(|event| event.kind == EventType::AssistantResponse)
                .unwrap_or(turn.len() - 1);
            TokenUsage::attach(&mut self.events[first_event + carrier], usage);
        }
    }

    /// A legacy document's `request_token_usage`: entry `i` is message `i`'s request.
    fn attach_legacy_usage(&mut self, document: &Value) {
        let Some(usages) = document
            .get("request_token_usage")
            .and_then(Value::as_array)
        else {
            return;
        };
        let starts = self.message_starts.clone();
        for (position, (index, first_event)) in starts.iter().enumerate() {
            let Some(usage) = usages.get(*index).and_then(usage_of) else {
                continue;
            };
            let end = starts
                .get(position + 1)
                .map_or(self.events.len(), |(_, next)| *next);
            if end == *first_event {
                continue;
            }
            if let Some(carrier) = usage_carrier(&self.events[..end], *first_event) {
                TokenUsage::attach(&mut self.events[carrier], usage);
            }
        }
    }

    /// A thread with no per-request usage: its `cumulative_token_usage` on its last reply.
    fn attach_cumulative_usage(&mut self, document: &Value) {
        if self.events.iter().any(|event| event.usage.is_some()) {
            return;
        }
        let Some(usage) = document.get("cumulative_token_usage").and_then(usage_of) else {
            return;
        };
        if let Some(carrier) = totals_carrier(&self.events) {
            TokenUsage::attach(&mut self.events[carrier], usage);
        }
    }
}

/// A message's line: its 1-based position in `messages`.
fn line_of(index: usize) -> u64 {
    index as u64 + 1
}

/// The variant name of an externally tagged value (`{"Name": ...}` or `"Name"`).
fn variant_name(value: &Value) -> String {
    match value {
        Value::String(name) => name.clone(),
        Value::Object(fields) => fields.keys().next().cloned().unwrap_or_default(),
        _ => "unknown".to_string(),
    }
}

/// A mention as the link Zed shows for it.
fn mention_link(mention: &Value) -> Option<String> {
    let uri = mention.get("uri")?;
    Some(match uri.as_str() {
        Some(text) => format!("@{text}"),
        None => format!("@{}", variant_name(uri)),
    })
}

/// A legacy message's text: its `text` segments (or an unversioned message's `text`).
fn legacy_text(message: &Value, plain_field: &str) -> String {
    let segments = message.get("segments").and_then(Value::as_array);
    let texts: Vec<&str> = segments
        .into_iter()
        .flatten()
        .filter(|segment| segment.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|segment| segment.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return message
            .get(plain_field)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
    }
    texts.join("\n")
}

/// A tool use's input: `input` as written, or its `{type: json|text, value}` envelope opened.
fn tool_input(tool_use: &Value) -> Value {
    let input = tool_use.get("input").cloned().unwrap_or(Value::Null);
    let envelope = input.as_object().filter(|fields| fields.len() == 2);
    match envelope.and_then(|fields| Some((fields.get("type")?.as_str()?, fields.get("value")?))) {
        Some(("json" | "text", value)) => value.clone(),
        _ => input,
    }
}

/// A tool result's text: its `content` (a string, `{"Text": ...}`, `{type: text, text}`,
/// `{text}`, an image, or a list of these), else its `output`.
fn result_text(result: &Value) -> String {
    let content = result.get("content").map(content_text).unwrap_or_default();
    if !content.is_empty() {
        return content;
    }
    match result.get("output") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(content_text)
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(fields) => {
            let text = ["Text", "text"]
                .iter()
                .find_map(|name| fields.get(*name).and_then(Value::as_str));
            match text {
                Some(text) => text.to_string(),
                None if fields.contains_key("Image") || fields.contains_key("source") => {
                    "[image]".to_string()
                }
                None => String::new(),
            }
        }
        _ => String::new(),
    }
}

/// Zed's `TokenUsage` (`input_tokens` without the cache; fields left out when zero).
fn usage_of(usage: &Value) -> Option<TokenUsage> {
    let fields = usage.as_object()?;
    if fields.is_empty() {
        return None;
    }
    let count = |name: &str| fields.get(name).and_then(Value::as_i64);
    let cache_read = count("cache_read_input_tokens");
    let input = add_counts(
        add_counts(count("input_tokens"), count("cache_creation_input_tokens")),
        cache_read,
    );
    Some(
        TokenUsage {
            input: Some(input.unwrap_or(0)),
            cached_input: cache_read,
            output: Some(count("output_tokens").unwrap_or(0)),
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TurnEnd;

    fn thread(document: Value, info: Value) -> ZedThread {
        ZedThread {
            id: "t1".into(),
            info: info.as_object().cloned().unwrap_or_default(),
            document,
            problem: None,
        }
    }

    fn kinds(output: &ParseOutput) -> Vec<EventType> {
        output.sessions[0]
            .events
            .iter()
            .map(|event| event.kind)
            .collect()
    }

    #[test]
    fn a_current_thread_pairs_tools_and_puts_each_request_usage_on_its_reply() {
        let document = json!({"version": "0.3.0", "title": "Heron gaps",
            "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
            "messages": [
                {"User": {"id": "u1", "content": [{"Text": "why are there gaps?"},
                    {"Mention": {"uri": {"File": {"abs_path": "/srv/heron/a.csv"}}, "content": "1,2"}}]}},
                {"Agent": {"content": [{"Thinking": {"text": "Read it.", "signature": null}},
                    {"ToolUse": {"id": "toolu_1", "name": "read_file", "raw_input": "{}",
                        "input": {"path": "a.csv"}, "is_input_complete": true}}],
                    "tool_results": {"toolu_1": {"tool_use_id": "toolu_1", "tool_name": "read_file",
                        "is_error": true, "content": {"Text": "no such file"}, "output": null}}}},
                {"Agent": {"content": [{"Text": "The file is missing."}], "tool_results": {}}},
                "Resume",
                {"Compaction": {"summary": "x"}}
            ],
            "request_token_usage": {"u1": {"input_tokens": 10, "output_tokens": 5,
                "cache_read_input_tokens": 90}}});
        let output = parse(&thread(
            document,
            json!({"summary": "Heron gaps",
            "folder_paths": "/srv/a\n/srv/heron", "folder_paths_order": "1,0"}),
        ));
        assert_eq!(
            kinds(&output),
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::System,
                EventType::Unknown,
            ]
        );
        let session = &output.sessions[0];
        assert_eq!(session.meta.cwd.as_deref(), Some("/srv/heron"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4-5"));
        let response = &session.events[3];
        assert_eq!(response.tool_name.as_deref(), Some("read_file"));
        assert_eq!(response.subtype.as_deref(), Some("error"));
        assert_eq!(response.text, "no such file");
        assert_eq!(session.events[4].turn_end, Some(TurnEnd::Terminal));
        let carriers = session.usage_carriers();
        assert_eq!(carriers.len(), 1);
        assert_eq!(carriers[0].0, "2.0");
        assert_eq!(carriers[0].1.input, Some(100));
        assert_eq!(carriers[0].1.cached_input, Some(90));
        assert_eq!(
            session.events[6].subtype.as_deref(),
            Some("message:Compaction")
        );
    }

    #[test]
    fn a_legacy_thread_reads_segments_uses_and_results_of_the_next_message() {
        let document = json!({"version": "0.1.0", "summary": "Old thread",
            "updated_at": "2025-05-01T10:00:00Z",
            "messages": [
                {"id": 0, "role": "user", "segments": [{"type": "text", "text": "list files"}]},
                {"id": 1, "role": "assistant", "segments": [{"type": "text", "text": "Listing."}],
                    "tool_uses": [{"id": "t1", "name": "list_directory", "input": {"path": "."}}]},
                {"id": 2, "role": "user", "segments": [],
                    "tool_results": [{"tool_use_id": "t1", "is_error": false,
                        "content": "a.rs\nb.rs", "output": null}]},
                {"id": 3, "role": "assistant", "segments": [{"type": "text", "text": "Two files."}]}
            ],
            "request_token_usage": [{}, {"input_tokens": 7, "output_tokens": 3}, {},
                {"input_tokens": 9, "output_tokens": 4}],
            "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/srv/old"}]}});
        let output = parse(&thread(
            document,
            json!({"updated_at": "2025-05-01T10:00:00+00:00"}),
        ));
        assert_eq!(
            kinds(&output),
            [
                EventType::UserInput,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let session = &output.sessions[0];
        assert_eq!(session.meta.title.as_deref(), Some("Old thread"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/srv/old"));
        assert_eq!(
            session.events[3].tool_name.as_deref(),
            Some("list_directory")
        );
        assert_eq!(session.usage_carriers().len(), 2);
    }

    #[test]
    fn documents_decode_from_zstd_or_json_and_bad_data_is_an_error() {
        let text = br#"{"version":"0.3.0","messages":[]}"#;
        let frame = zstd::stream::encode_all(&text[..], 3).expect("compress");
        assert_eq!(decode_document("zstd", &frame).unwrap()["version"], "0.3.0");
        assert_eq!(decode_document("json", text).unwrap()["version"], "0.3.0");
        assert!(matches!(
            decode_document("zstd", text),
            Err(DocumentError::Zstd(_))
        ));
        assert!(matches!(
            decode_document("lz4", text),
            Err(DocumentError::UnknownType(_))
        ));
        let output = parse(&ZedThread {
            id: "bad".into(),
            info: Map::new(),
            document: Value::Null,
            problem: Some("thread data is not JSON".into()),
        });
        assert_eq!(output.warnings.len(), 1);
        assert!(output.sessions[0].events.is_empty());
    }

    #[test]
    fn store_paths_and_folder_order() {
        assert!(is_store_path(std::path::Path::new(
            "/h/.local/share/zed/threads/threads.db"
        )));
        assert!(is_store_path(std::path::Path::new(
            "/h/zed/threads/threads.db-wal"
        )));
        assert!(!is_store_path(std::path::Path::new(
            "/h/zed/other/threads.db"
        )));
        assert_eq!(first_folder("/a\n/b", "1,0"), "/b");
        assert_eq!(first_folder("/a\n/b", ""), "/a");
    }
}
