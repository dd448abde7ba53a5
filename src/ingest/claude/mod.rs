//! Claude Code transcript parser (`~/.claude/projects/<project>/<session>.jsonl`, sub-agent files
//! `agent-<id>.jsonl` beside it or under `<session>/subagents/`).
//!
//! One JSONL record per line. The records this parser understands:
//! - `user` / `assistant`: one API message is split over several lines sharing `message.id`, one
//!   content block per line (usually); every block becomes one event keyed `<uuid>:<block index>`.
//!   Tool results come back as `tool_result` blocks in `user` records.
//! - `system`: `compact_boundary` (compaction), `turn_duration` (turn finished normally),
//!   `api_error`, `local_command`, `stop_hook_summary`, `away_summary`, `informational`, ...
//! - `attachment`: context the harness injected (hooks, skill listings, queued prompts, ...).
//! - `summary`, `custom-title`, `ai-title`: session title/summary, no event.
//! - Pure bookkeeping without conversation content, skipped: `file-history-snapshot` (undo
//!   checkpoints), `queue-operation` (the prompt queue; the prompt itself is recorded again as a
//!   user record or a `queued_command` attachment), `permission-mode`/`mode`, `last-prompt` (resume
//!   bookmark repeating a prompt), `agent-name` (repeats `custom-title`), `progress` (streaming tool
//!   and sub-agent progress, repeated by the final tool result and the sub-agent transcript),
//!   `pr-link`, `bridge-session`, `atis-latch`.
//!
//! Sub-agents (`isSidechain: true` records) become their own sessions linked to the parent.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TurnEnd,
    parse_timestamp, tool_call_text,
};

/// Record types that only Claude Code writes (besides `user`/`assistant`/`system`/`attachment`,
/// which also need `sessionId` + `uuid` to count).
const CLAUDE_ONLY_TYPES: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "last-prompt",
    "custom-title",
    "ai-title",
    "agent-name",
];

/// Bookkeeping record types skipped without an event (see the module comment for why).
const SKIPPED_TYPES: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "mode",
    "last-prompt",
    "agent-name",
    "progress",
    "pr-link",
    "bridge-session",
    "atis-latch",
];

/// Model name Claude Code writes on messages it synthesized itself (API errors, interrupts).
const SYNTHETIC_MODEL: &str = "<synthetic>";

/// Longest string kept from `toolUseResult` in a tool response's metadata.
const MAX_METADATA_STRING: usize = 200;

/// True iff the first valid lines look like a Claude Code transcript.
pub fn sniff(lines: &[JsonLine]) -> bool {
    let mut positive = false;
    for line in lines {
        let Some(record) = line.value.as_object() else {
            continue;
        };
        // Qwen Code writes look-alike records (uuid/sessionId/type user) with `message.parts`.
        if record
            .get("message")
            .and_then(|message| message.get("parts"))
            .is_some()
        {
            return false;
        }
        let Some(kind) = record.get("type").and_then(Value::as_str) else {
            continue;
        };
        let has_ids = record.contains_key("sessionId") && record.contains_key("uuid");
        let looks_like_claude = match kind {
            "summary" => {
                record.contains_key("leafUuid")
                    || record.get("summary").is_some_and(Value::is_string)
            }
            "user" | "assistant" | "system" | "attachment" | "progress" => has_ids,
            other if CLAUDE_ONLY_TYPES.contains(&other) => [
                "sessionId",
                "snapshot",
                "customTitle",
                "aiTitle",
                "lastPrompt",
                "permissionMode",
                "operation",
            ]
            .iter()
            .any(|field| record.contains_key(*field)),
            _ => false,
        };
        positive |= looks_like_claude;
    }
    positive
}

/// Parses one Claude Code transcript file into its session and any sub-agent sessions.
pub fn parse(path: &Path, lines: &[JsonLine], sidecar: Option<&serde_json::Value>) -> ParseOutput {
    let mut parser = Parser::new(path, lines, sidecar);
    for line in lines {
        parser.record(line);
    }
    parser.finish()
}

/// Facts gathered in a first pass over the whole file.
#[derive(Default)]
struct Index {
    /// uuid -> (isSidechain, parentUuid) of every record with a uuid.
    records: HashMap<String, (bool, Option<String>)>,
    /// tool_use id -> tool name.
    tool_names: HashMap<String, String>,
    /// Task/Agent tool_use prompt -> (subagent_type, description), to name inline sub-agents.
    task_prompts: HashMap<String, (Option<String>, Option<String>)>,
    /// message ids with `stop_reason: end_turn` on any of their lines.
    end_turn_messages: HashSet<String>,
    /// sessionId of non-sidechain conversation records, in file order, deduplicated.
    main_session_ids: Vec<String>,
    /// First sessionId of any record.
    any_session_id: Option<String>,
    /// Line where each assistant message id first appears.
    first_message_line: HashMap<String, u64>,
    /// parentUuid -> message ids of the assistant records answering it.
    answers: HashMap<String, Vec<String>>,
    /// Line where each tool_use id first gets a tool_result.
    first_result_line: HashMap<String, u64>,
}

impl Index {
    fn build(lines: &[JsonLine]) -> Index {
        let mut index = Index::default();
        for line in lines {
            let Some(record) = line.value.as_object() else {
                continue;
            };
            let sidechain = is_sidechain(record);
            if let Some(uuid) = str_field(record, "uuid") {
                let parent = str_field(record, "parentUuid").map(str::to_string);
                index
                    .records
                    .entry(uuid.to_string())
                    .or_insert((sidechain, parent));
            }
            if index.any_session_id.is_none() {
                index.any_session_id = str_field(record, "sessionId").map(str::to_string);
            }
            let kind = str_field(record, "type").unwrap_or_default();
            if !sidechain
                && matches!(kind, "user" | "assistant" | "system" | "attachment")
                && let Some(session_id) = str_field(record, "sessionId")
                && !index.main_session_ids.iter().any(|id| id == session_id)
            {
                index.main_session_ids.push(session_id.to_string());
            }
            let Some(message) = record.get("message").and_then(Value::as_object) else {
                continue;
            };
            index.note_replay_markers(kind, record, message, line.number);
            if str_field(message, "stop_reason") == Some("end_turn")
                && let Some(id) = str_field(message, "id")
            {
                index.end_turn_messages.insert(id.to_string());
            }
            let Some(blocks) = message.get("content").and_then(Value::as_array) else {
                continue;
            };
            for block in blocks {
                if !matches!(
                    str_field_of(block, "type"),
                    Some("tool_use" | "server_tool_use")
                ) {
                    continue;
                }
                let (Some(id), Some(name)) =
                    (str_field_of(block, "id"), str_field_of(block, "name"))
                else {
                    continue;
                };
                index.tool_names.insert(id.to_string(), name.to_string());
                if matches!(name, "Task" | "Agent")
                    && let Some(input) = block.get("input")
                    && let Some(prompt) = str_field_of(input, "prompt")
                {
                    index.task_prompts.insert(
                        prompt.trim().to_string(),
                        (
                            str_field_of(input, "subagent_type").map(str::to_string),
                            str_field_of(input, "description").map(str::to_string),
                        ),
                    );
                }
            }
        }
        index
    }

    fn note_replay_markers(
        &mut self,
        kind: &str,
        record: &Map<String, Value>,
        message: &Map<String, Value>,
        line_number: u64,
    ) {
        if kind == "assistant"
            && let Some(message_id) = str_field(message, "id")
        {
            self.first_message_line
                .entry(message_id.to_string())
                .or_insert(line_number);
            if let Some(parent) = str_field(record, "parentUuid") {
                self.answers
                    .entry(parent.to_string())
                    .or_default()
                    .push(message_id.to_string());
            }
        }
        if kind == "user"
            && let Some(blocks) = message.get("content").and_then(Value::as_array)
        {
            for block in blocks {
                if str_field_of(block, "type") == Some("tool_result")
                    && let Some(id) = str_field_of(block, "tool_use_id")
                {
                    self.first_result_line
                        .entry(id.to_string())
                        .or_insert(line_number);
                }
            }
        }
    }

    /// A user record re-written under a new uuid by a resume or compaction replay: it is
    /// answered by an assistant message first seen earlier in the file, or it only carries
    /// tool results that an earlier line already delivered.
    fn is_replayed_user_record(
        &self,
        uuid: Option<&str>,
        record: &Map<String, Value>,
        line_number: u64,
    ) -> bool {
        let answered_earlier =
            uuid.and_then(|uuid| self.answers.get(uuid))
                .is_some_and(|message_ids| {
                    message_ids.iter().any(|id| {
                        self.first_message_line
                            .get(id)
                            .is_some_and(|&first| first < line_number)
                    })
                });
        let result_ids: Vec<&str> = record
            .get("message")
            .and_then(|message| message.get("content"))
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|block| str_field_of(block, "type") == Some("tool_result"))
                    .filter_map(|block| str_field_of(block, "tool_use_id"))
                    .collect()
            })
            .unwrap_or_default();
        let results_delivered_earlier = !result_ids.is_empty()
            && result_ids.iter().all(|id| {
                self.first_result_line
                    .get(*id)
                    .is_some_and(|&first| first < line_number)
            });
        answered_earlier || results_delivered_earlier
    }

    /// The first record of the sidechain chain `uuid` belongs to.
    fn sidechain_root<'a>(&'a self, uuid: &'a str) -> &'a str {
        let mut current = uuid;
        let mut steps = 0usize;
        while let Some((_, Some(parent))) = self.records.get(current) {
            match self.records.get(parent.as_str()) {
                Some((true, _)) if steps < self.records.len() => {
                    current = parent.as_str();
                    steps += 1;
                }
                _ => break,
            }
        }
        current
    }
}

/// One session being built.
struct Builder {
    session: ParsedSession,
    keys: HashSet<String>,
    current_model: Option<String>,
    is_subagent: bool,
    has_user_input: bool,
    /// Non-sidechain conversation records were routed here (main session only).
    has_records: bool,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
}

impl Builder {
    fn new(native_id: String, is_subagent: bool) -> Builder {
        Builder {
            session: ParsedSession {
                source: Source::Claude,
                native_id,
                meta: SessionMeta::default(),
                events: Vec::new(),
            },
            keys: HashSet::new(),
            current_model: None,
            is_subagent,
            has_user_input: false,
            has_records: false,
            custom_title: None,
            ai_title: None,
            summary: None,
        }
    }

    fn absorb_meta(&mut self, record: &Map<String, Value>) {
        let meta = &mut self.session.meta;
        fill(&mut meta.cwd, str_field(record, "cwd"));
        fill(&mut meta.git_branch, str_field(record, "gitBranch"));
        fill(&mut meta.harness_version, str_field(record, "version"));
        fill(&mut meta.slug, str_field(record, "slug"));
        if meta.started_at.is_none() {
            meta.started_at = record.get("timestamp").and_then(parse_timestamp);
        }
    }

    fn set_model(&mut self, model: &str) {
        self.current_model = Some(model.to_string());
        fill(&mut self.session.meta.model, Some(model));
    }
}

/// A classified piece of user-record text.
struct Classified {
    kind: EventType,
    subtype: Option<&'static str>,
    text: String,
    starts_turn: bool,
    turn_end: Option<TurnEnd>,
}

struct Parser<'a> {
    index: Index,
    stem: String,
    /// Session uuid from a `<session>/subagents/agent-<id>.jsonl` path.
    directory_session: Option<String>,
    sidecar: Option<&'a Value>,
    main_id: String,
    builders: Vec<Builder>,
    by_id: HashMap<String, usize>,
    seen_uuids: HashSet<String>,
    /// (message id, block fingerprint) already emitted.
    seen_blocks: HashSet<(String, String)>,
    /// message id -> (builder, event index) of its last assistant_response.
    last_text: HashMap<String, (usize, usize)>,
    warnings: Vec<ParseWarning>,
}

impl<'a> Parser<'a> {
    fn new(path: &Path, lines: &[JsonLine], sidecar: Option<&'a Value>) -> Parser<'a> {
        let index = Index::build(lines);
        let stem = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default()
            .to_string();
        let directory_session = path
            .parent()
            .filter(|parent| parent.file_name().and_then(|name| name.to_str()) == Some("subagents"))
            .and_then(Path::parent)
            .and_then(|session_dir| session_dir.file_name())
            .and_then(|name| name.to_str())
            .map(str::to_string);
        // The file's own session: its file name when records agree, else the latest sessionId
        // of its non-sidechain records. A sub-agent-only file has no main session; its records
        // carry the parent's sessionId, which keeps this id from colliding with `agent-<id>`.
        let main_id = if index.main_session_ids.contains(&stem) {
            stem.clone()
        } else if let Some(last) = index.main_session_ids.last() {
            last.clone()
        } else if let Some(any) = &index.any_session_id {
            any.clone()
        } else if !stem.is_empty() && !stem.starts_with("agent-") {
            stem.clone()
        } else {
            format!("{stem}-main")
        };
        Parser {
            index,
            stem,
            directory_session,
            sidecar,
            main_id: main_id.clone(),
            builders: Vec::new(),
            by_id: HashMap::new(),
            seen_uuids: HashSet::new(),
            seen_blocks: HashSet::new(),
            last_text: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The file's own (non-sidechain) session, created on first use.
    fn main(&mut self) -> usize {
        if let Some(&index) = self.by_id.get(&self.main_id) {
            return index;
        }
        let main_id = self.main_id.clone();
        let index = self.builder(&main_id, false);
        let forked = self
            .index
            .main_session_ids
            .iter()
            .find(|id| **id != main_id)
            .cloned();
        self.builders[index].session.meta.forked_from_native_id = forked;
        index
    }

    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.warnings.push(ParseWarning {
            line,
            message: message.into(),
        });
    }

    fn builder(&mut self, native_id: &str, is_subagent: bool) -> usize {
        if let Some(&index) = self.by_id.get(native_id) {
            return index;
        }
        self.builders
            .push(Builder::new(native_id.to_string(), is_subagent));
        let index = self.builders.len() - 1;
        self.by_id.insert(native_id.to_string(), index);
        index
    }

    /// The session a record belongs to (creating sub-agent sessions on first sight).
    fn route(&mut self, record: &Map<String, Value>, uuid: Option<&str>) -> usize {
        if !is_sidechain(record) {
            let main = self.main();
            if matches!(
                str_field(record, "type"),
                Some("user" | "assistant" | "system" | "attachment")
            ) {
                self.builders[main].has_records = true;
            }
            return main;
        }
        let session_id = str_field(record, "sessionId");
        let agent_id = str_field(record, "agentId").filter(|id| !id.is_empty());
        let mut inline = false;
        let native_id = if let Some(agent_id) = agent_id {
            format!("agent-{agent_id}")
        } else if self.stem.starts_with("agent-") {
            self.stem.clone()
        } else {
            let root = uuid
                .map(|uuid| self.index.sidechain_root(uuid).to_string())
                .unwrap_or_else(|| "orphan".to_string());
            inline = true;
            format!(
                "{}-sidechain-{root}",
                session_id.unwrap_or(self.main_id.as_str())
            )
        };
        if let Some(&existing) = self.by_id.get(&native_id) {
            return existing;
        }
        let index = self.builder(&native_id, true);
        let parent = session_id
            .map(str::to_string)
            .or_else(|| self.directory_session.clone())
            .unwrap_or_else(|| self.main_id.clone());
        let meta = &mut self.builders[index].session.meta;
        meta.parent_native_id = Some(parent);
        if let Some(sidecar) = self.sidecar {
            meta.agent_name = str_field_of(sidecar, "agentType").map(str::to_string);
            meta.title = str_field_of(sidecar, "description").map(str::to_string);
        }
        // Inline sub-agents: find the Task call whose prompt is the sidechain's first message.
        if inline
            && meta.agent_name.is_none()
            && let Some(prompt) = record
                .get("message")
                .and_then(|message| message.get("content"))
                .map(content_text)
            && let Some((agent_type, description)) = self.index.task_prompts.get(prompt.trim())
        {
            meta.agent_name = agent_type.clone();
            meta.title = description.clone();
        }
        index
    }

    fn push(&mut self, session: usize, mut event: RawEvent) -> Option<usize> {
        let builder = &mut self.builders[session];
        if !builder.keys.insert(event.key.clone()) {
            let line = event.line;
            let key = event.key;
            self.warn(line, format!("duplicate event key {key} skipped"));
            return None;
        }
        event.originating_model = builder.current_model.clone();
        if event.kind == EventType::UserInput {
            builder.has_user_input = true;
        }
        builder.session.events.push(event);
        Some(builder.session.events.len() - 1)
    }

    fn record(&mut self, line: &JsonLine) {
        let Some(record) = line.value.as_object() else {
            self.warn(line.number, "record is not a JSON object");
            return;
        };
        let Some(kind) = str_field(record, "type") else {
            let session = self.route(record, None);
            let event = unknown_event(line, record);
            self.push(session, event);
            return;
        };
        match kind {
            "summary" => {
                self.summary(record);
                return;
            }
            "custom-title" | "ai-title" => {
                self.title(record, kind);
                return;
            }
            skipped if SKIPPED_TYPES.contains(&skipped) => return,
            _ => {}
        }
        let uuid = str_field(record, "uuid");
        if let Some(uuid) = uuid
            && !self.seen_uuids.insert(uuid.to_string())
        {
            // Resume replays write the same record again: one event.
            return;
        }
        if kind == "user"
            && self
                .index
                .is_replayed_user_record(uuid, record, line.number)
        {
            // Replays that re-key the records still answer with already-seen message ids.
            return;
        }
        let session = self.route(record, uuid);
        self.builders[session].absorb_meta(record);
        let key = uuid
            .map(sanitize_key)
            .unwrap_or_else(|| format!("line{}", line.number));
        match kind {
            "user" => self.user(session, record, line, &key),
            "assistant" => self.assistant(session, record, line, &key),
            "system" => self.system(session, record, line, &key),
            "attachment" => self.attachment(session, record, line, &key),
            _ => {
                let mut event = unknown_event(line, record);
                event.key = key;
                self.push(session, event);
            }
        }
    }

    fn summary(&mut self, record: &Map<String, Value>) {
        let Some(text) = str_field(record, "summary").filter(|text| !text.trim().is_empty()) else {
            return;
        };
        // Claude Code writes the project's summary index into whichever file is active, so a
        // summary describes this session only when its leaf message is in this file.
        let belongs = match str_field(record, "leafUuid") {
            Some(leaf) => self.index.records.contains_key(leaf),
            None => true,
        };
        if belongs {
            let main = self.main();
            self.builders[main].summary = Some(text.to_string());
        }
    }

    fn title(&mut self, record: &Map<String, Value>, kind: &str) {
        let field = if kind == "custom-title" {
            "customTitle"
        } else {
            "aiTitle"
        };
        let Some(text) = str_field(record, field)
            .or_else(|| str_field(record, "title"))
            .filter(|text| !text.trim().is_empty())
        else {
            return;
        };
        let target = str_field(record, "sessionId")
            .and_then(|id| self.by_id.get(id).copied())
            .unwrap_or_else(|| self.main());
        let builder = &mut self.builders[target];
        if kind == "custom-title" {
            builder.custom_title = Some(text.to_string());
        } else {
            builder.ai_title = Some(text.to_string());
        }
    }

    fn base_event(
        &self,
        key: String,
        kind: EventType,
        record: &Map<String, Value>,
        line: &JsonLine,
    ) -> RawEvent {
        let mut event = RawEvent::new(key, kind, line.number);
        event.timestamp = record.get("timestamp").and_then(parse_timestamp);
        event
    }

    fn user(&mut self, session: usize, record: &Map<String, Value>, line: &JsonLine, key: &str) {
        let Some(content) = record
            .get("message")
            .and_then(|message| message.get("content"))
        else {
            self.warn(line.number, "user record without message content skipped");
            return;
        };
        if bool_field(record, "isCompactSummary") {
            let mut event = self.base_event(key.to_string(), EventType::Compaction, record, line);
            event.subtype = Some("compact_summary".to_string());
            event.text = content_text(content);
            self.push(session, event);
            return;
        }
        if bool_field(record, "isMeta") {
            let text = content_text(content);
            let mut event = self.base_event(key.to_string(), EventType::System, record, line);
            event.subtype = Some(if is_caveat(&text) {
                "local_command_caveat".to_string()
            } else {
                "meta".to_string()
            });
            event.text = text;
            self.push(session, event);
            return;
        }
        let builder = &self.builders[session];
        if builder.is_subagent && !builder.has_user_input && !has_tool_result(content) {
            // A sub-agent's first user record is the prompt from its parent agent.
            let mut event = self.base_event(key.to_string(), EventType::UserInput, record, line);
            event.text = content_text(content);
            event.subtype = Some("agent_prompt".to_string());
            event.starts_turn = true;
            self.push(session, event);
            return;
        }
        match content {
            Value::String(text) => {
                let classified = classify_user_text(text);
                let mut event = self.base_event(key.to_string(), classified.kind, record, line);
                event.subtype = classified.subtype.map(str::to_string);
                event.text = classified.text;
                event.starts_turn = classified.starts_turn;
                event.turn_end = classified.turn_end;
                self.push(session, event);
            }
            Value::Array(blocks) => {
                let tool_results = blocks
                    .iter()
                    .filter(|block| str_field_of(block, "type") == Some("tool_result"))
                    .count();
                let mut events = Vec::new();
                let mut user_parts: Vec<String> = Vec::new();
                let mut user_position = None;
                for (block_index, block) in blocks.iter().enumerate() {
                    let block_key = format!("{key}:{block_index}");
                    match str_field_of(block, "type") {
                        Some("tool_result") => {
                            let event = self.tool_response(
                                block,
                                record,
                                line,
                                block_key,
                                tool_results == 1,
                            );
                            events.push(event);
                        }
                        Some("text") => {
                            let text = str_field_of(block, "text").unwrap_or_default();
                            let classified = classify_user_text(text);
                            if classified.kind == EventType::UserInput
                                && classified.subtype.is_none()
                            {
                                user_position.get_or_insert(events.len());
                                user_parts.push(classified.text);
                                continue;
                            }
                            let mut event =
                                self.base_event(block_key, classified.kind, record, line);
                            event.subtype = classified.subtype.map(str::to_string);
                            event.text = classified.text;
                            event.starts_turn = classified.starts_turn;
                            event.turn_end = classified.turn_end;
                            events.push(event);
                        }
                        Some(other @ ("image" | "document")) => {
                            user_position.get_or_insert(events.len());
                            user_parts.push(format!("[{other}]"));
                        }
                        _ => {
                            let mut event =
                                self.base_event(block_key, EventType::Unknown, record, line);
                            event.text = str_field_of(block, "type")
                                .map(|kind| format!("[{kind}]"))
                                .unwrap_or_default();
                            event.payload = Some(block.clone());
                            events.push(event);
                        }
                    }
                }
                if let Some(position) = user_position {
                    let mut event =
                        self.base_event(key.to_string(), EventType::UserInput, record, line);
                    event.text = user_parts.join("\n\n");
                    event.starts_turn = true;
                    events.insert(position.min(events.len()), event);
                }
                for event in events {
                    self.push(session, event);
                }
            }
            _ => {
                self.warn(line.number, "user record with unusable content skipped");
            }
        }
    }

    fn tool_response(
        &self,
        block: &Value,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: String,
        owns_tool_use_result: bool,
    ) -> RawEvent {
        let mut event = self.base_event(key, EventType::ToolResponse, record, line);
        let call_id = str_field_of(block, "tool_use_id").map(str::to_string);
        event.tool_name = Some(
            call_id
                .as_deref()
                .and_then(|id| self.index.tool_names.get(id))
                .cloned()
                .unwrap_or_else(|| "unknown".to_string()),
        );
        event.tool_call_id = call_id;
        event.text = block.get("content").map(content_text).unwrap_or_default();
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let tool_use_result = if owns_tool_use_result {
            record.get("toolUseResult")
        } else {
            None
        };
        let mut payload = Map::new();
        if is_error {
            payload.insert("is_error".to_string(), Value::Bool(true));
        }
        if let Some(Value::Object(result)) = tool_use_result {
            event.exit_code = result.get("exitCode").and_then(Value::as_i64);
            let metadata: Map<String, Value> = result
                .iter()
                .filter(|(_, value)| match value {
                    Value::Bool(_) | Value::Number(_) => true,
                    Value::String(text) => {
                        !text.is_empty() && text.chars().count() <= MAX_METADATA_STRING
                    }
                    _ => false,
                })
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            if !metadata.is_empty() {
                payload.insert("metadata".to_string(), Value::Object(metadata));
            }
        }
        if event.exit_code.is_none() && is_error {
            event.exit_code = exit_code_from_text(&event.text).or_else(|| {
                tool_use_result
                    .and_then(Value::as_str)
                    .and_then(exit_code_from_text)
            });
        }
        if !payload.is_empty() {
            event.payload = Some(Value::Object(payload));
        }
        event
    }

    fn assistant(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let Some(message) = record.get("message").and_then(Value::as_object) else {
            self.warn(line.number, "assistant record without message skipped");
            return;
        };
        let content = message.get("content");
        if bool_field(record, "isApiErrorMessage") {
            let mut event = self.base_event(key.to_string(), EventType::Runtime, record, line);
            event.subtype = Some("api_error".to_string());
            event.text = content.map(content_text).unwrap_or_default();
            event.turn_end = Some(TurnEnd::Terminal);
            self.push(session, event);
            return;
        }
        let model = str_field(message, "model")
            .filter(|model| *model != SYNTHETIC_MODEL && !model.is_empty());
        if let Some(model) = model {
            self.builders[session].set_model(model);
        }
        let message_id = str_field(message, "id").map(str::to_string);
        let blocks: Vec<Value> = match content {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            _ => {
                self.warn(line.number, "assistant record without content skipped");
                return;
            }
        };
        for (block_index, block) in blocks.iter().enumerate() {
            let block_kind = str_field_of(block, "type").unwrap_or_default();
            if let Some(message_id) = &message_id {
                let fingerprint = match block_kind {
                    "tool_use" | "server_tool_use" => format!(
                        "{block_kind}:{}",
                        str_field_of(block, "id").unwrap_or_default()
                    ),
                    _ => format!("{block_kind}:{block}"),
                };
                if !self.seen_blocks.insert((message_id.clone(), fingerprint)) {
                    // The same block of the same API message was already emitted.
                    continue;
                }
            }
            let block_key = format!("{key}:{block_index}");
            let mut event = self.base_event(block_key, EventType::Unknown, record, line);
            match block_kind {
                "text" => {
                    let text = str_field_of(block, "text").unwrap_or_default();
                    if text.trim().is_empty() {
                        continue;
                    }
                    event.kind = EventType::AssistantResponse;
                    event.text = text.to_string();
                    event.model = model.map(str::to_string);
                }
                "thinking" => {
                    event.kind = EventType::Reasoning;
                    let thinking = str_field_of(block, "thinking").unwrap_or_default();
                    event.text = if thinking.trim().is_empty() {
                        "[encrypted reasoning]".to_string()
                    } else {
                        thinking.to_string()
                    };
                    event.model = model.map(str::to_string);
                }
                "redacted_thinking" => {
                    event.kind = EventType::Reasoning;
                    event.text = "[redacted reasoning]".to_string();
                    event.model = model.map(str::to_string);
                }
                "tool_use" | "server_tool_use" => {
                    event.kind = EventType::ToolCall;
                    let name = str_field_of(block, "name").unwrap_or("unknown");
                    let arguments = match block.get("input") {
                        Some(Value::String(text)) => serde_json::from_str(text)
                            .unwrap_or_else(|_| Value::String(text.clone())),
                        Some(other) => other.clone(),
                        None => Value::Null,
                    };
                    event.text = tool_call_text(name, &arguments);
                    event.tool_name = Some(name.to_string());
                    event.tool_call_id = str_field_of(block, "id").map(str::to_string);
                    event.payload = Some(arguments);
                }
                kind if kind.ends_with("_tool_result") => {
                    // Server-side tool results (web search) arrive inside the assistant message.
                    event.kind = EventType::ToolResponse;
                    let call_id = str_field_of(block, "tool_use_id").map(str::to_string);
                    event.tool_name = Some(
                        call_id
                            .as_deref()
                            .and_then(|id| self.index.tool_names.get(id))
                            .cloned()
                            .unwrap_or_else(|| "unknown".to_string()),
                    );
                    event.tool_call_id = call_id;
                    event.text = block.get("content").map(content_text).unwrap_or_default();
                }
                _ => {
                    event.text = format!("[{block_kind}]");
                    event.payload = Some(block.clone());
                }
            }
            let is_text = event.kind == EventType::AssistantResponse;
            if let Some(index) = self.push(session, event)
                && is_text
                && let Some(message_id) = &message_id
            {
                self.last_text.insert(message_id.clone(), (session, index));
            }
        }
    }

    fn system(&mut self, session: usize, record: &Map<String, Value>, line: &JsonLine, key: &str) {
        let subtype = str_field(record, "subtype").unwrap_or("system");
        let content = str_field(record, "content").map(strip_ansi);
        let mut event = self.base_event(key.to_string(), EventType::System, record, line);
        event.subtype = Some(subtype.to_string());
        match subtype {
            "compact_boundary" => {
                event.kind = EventType::Compaction;
                event.text = content.unwrap_or_else(|| "Conversation compacted".to_string());
                event.payload = record.get("compactMetadata").cloned();
            }
            "turn_duration" => {
                event.kind = EventType::Runtime;
                event.turn_end = Some(TurnEnd::Normal);
                let duration = record.get("durationMs").and_then(Value::as_f64);
                event.text = match duration {
                    Some(millis) => format!("turn completed in {:.1} s", millis / 1000.0),
                    None => "turn completed".to_string(),
                };
                event.payload = pick(record, &["durationMs", "messageCount"]);
            }
            "api_error" => {
                event.kind = EventType::Runtime;
                let cause = record
                    .get("error")
                    .and_then(|error| {
                        str_field_of(error, "message")
                            .map(str::to_string)
                            .or_else(|| {
                                error
                                    .get("cause")
                                    .and_then(|cause| str_field_of(cause, "code"))
                                    .map(str::to_string)
                            })
                    })
                    .or_else(|| {
                        record
                            .get("cause")
                            .and_then(|cause| str_field_of(cause, "code"))
                            .map(str::to_string)
                    });
                let mut text = content.unwrap_or_else(|| {
                    format!("API error: {}", cause.as_deref().unwrap_or("unknown"))
                });
                if let (Some(attempt), Some(max)) = (
                    record.get("retryAttempt").and_then(Value::as_i64),
                    record.get("maxRetries").and_then(Value::as_i64),
                ) {
                    text.push_str(&format!(" (retry {attempt}/{max})"));
                }
                event.text = text;
                event.payload = pick(
                    record,
                    &[
                        "level",
                        "error",
                        "cause",
                        "retryInMs",
                        "retryAttempt",
                        "maxRetries",
                    ],
                );
            }
            "stop_hook_summary" => {
                event.kind = EventType::Runtime;
                let commands: Vec<&str> = record
                    .get("hookInfos")
                    .and_then(Value::as_array)
                    .map(|infos| {
                        infos
                            .iter()
                            .filter_map(|info| str_field_of(info, "command"))
                            .collect()
                    })
                    .unwrap_or_default();
                event.text =
                    content.unwrap_or_else(|| format!("stop hooks ran: {}", commands.join("; ")));
                event.payload = pick(
                    record,
                    &[
                        "hookCount",
                        "hookErrors",
                        "preventedContinuation",
                        "stopReason",
                    ],
                );
            }
            "local_command" => {
                event.kind = EventType::Runtime;
                let raw = content.unwrap_or_default();
                event.text = match slash_command(&raw) {
                    Some(command) => command,
                    None => strip_local_output(&raw),
                };
            }
            _ => {
                if str_field(record, "level") == Some("error") {
                    event.kind = EventType::Runtime;
                }
                event.text = content.unwrap_or_else(|| subtype.to_string());
            }
        }
        self.push(session, event);
    }

    fn attachment(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let Some(attachment) = record.get("attachment").and_then(Value::as_object) else {
            let mut event = unknown_event(line, record);
            event.key = key.to_string();
            self.push(session, event);
            return;
        };
        let kind = str_field(attachment, "type").unwrap_or("attachment");
        let mut event = self.base_event(key.to_string(), EventType::System, record, line);
        event.subtype = Some(kind.to_string());
        match kind {
            "queued_command" => {
                let prompt = attachment
                    .get("prompt")
                    .map(content_text)
                    .unwrap_or_default();
                let origin = attachment
                    .get("origin")
                    .and_then(|origin| str_field_of(origin, "kind"));
                let mode = str_field(attachment, "commandMode");
                let human = matches!(origin, None | Some("human"))
                    && matches!(mode, None | Some("prompt"))
                    && !prompt.trim_start().starts_with("<task-notification>");
                if human {
                    // Typed while the agent was busy: real input, joined to the running turn.
                    event.kind = EventType::UserInput;
                    event.text = prompt;
                } else {
                    event.text = prompt;
                }
            }
            kind if kind.starts_with("hook_") && kind != "hook_additional_context" => {
                event.kind = EventType::Runtime;
                let hook = str_field(attachment, "hookName").unwrap_or("hook");
                let output = [
                    attachment.get("content").map(content_text),
                    str_field(attachment, "stdout").map(str::to_string),
                    str_field(attachment, "stderr").map(str::to_string),
                ]
                .into_iter()
                .flatten()
                .map(|text| text.trim().to_string())
                .find(|text| !text.is_empty());
                event.text = match output {
                    Some(output) => format!("{hook}: {output}"),
                    None => format!("{hook}: {kind}"),
                };
                event.exit_code = attachment.get("exitCode").and_then(Value::as_i64);
            }
            _ => {
                event.text = match attachment.get("content") {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                    Some(other) => other.to_string(),
                    None => Value::Object(attachment.clone()).to_string(),
                };
            }
        }
        self.push(session, event);
    }

    fn finish(mut self) -> ParseOutput {
        for (message_id, (session, index)) in std::mem::take(&mut self.last_text) {
            if self.index.end_turn_messages.contains(&message_id)
                && let Some(event) = self
                    .builders
                    .get_mut(session)
                    .and_then(|builder| builder.session.events.get_mut(index))
            {
                event.turn_end = Some(TurnEnd::Terminal);
            }
        }
        let mut sessions = Vec::new();
        for builder in self.builders {
            if !builder.is_subagent && !builder.has_records && builder.session.events.is_empty() {
                continue;
            }
            if builder.is_subagent && builder.session.events.is_empty() {
                continue;
            }
            let mut session = builder.session;
            let title = builder
                .custom_title
                .or(builder.ai_title)
                .or(builder.summary.clone());
            if title.is_some() {
                session.meta.title = title;
            }
            if builder.summary.is_some() {
                session.meta.summary = builder.summary;
            }
            sessions.push(session);
        }
        ParseOutput {
            sessions,
            warnings: self.warnings,
        }
    }
}

fn unknown_event(line: &JsonLine, record: &Map<String, Value>) -> RawEvent {
    let mut event = RawEvent::new(
        format!("line{}", line.number),
        EventType::Unknown,
        line.number,
    );
    event.timestamp = record.get("timestamp").and_then(parse_timestamp);
    event.text = str_field(record, "type")
        .map(|kind| format!("[{kind}]"))
        .unwrap_or_default();
    event.payload = Some(Value::Object(record.clone()));
    event
}

/// Classifies the text of a user record (or one text block of it).
fn classify_user_text(raw: &str) -> Classified {
    let text = raw.trim();
    let make = |kind, subtype, text: String| Classified {
        kind,
        subtype,
        text,
        starts_turn: false,
        turn_end: None,
    };
    if text.starts_with("[Request interrupted by user") {
        let mut classified = make(EventType::Runtime, Some("interrupt"), text.to_string());
        classified.turn_end = Some(TurnEnd::Terminal);
        return classified;
    }
    if let Some(command) = slash_command(text) {
        let mut classified = make(EventType::UserInput, Some("slash_command"), command);
        classified.starts_turn = true;
        return classified;
    }
    if text.starts_with("<local-command-stdout>")
        || text.starts_with("<local-command-stderr>")
        || text.starts_with("<bash-stdout>")
        || text.starts_with("<bash-stderr>")
    {
        return make(
            EventType::Runtime,
            Some("local_command_output"),
            strip_local_output(text),
        );
    }
    if let Some(input) =
        tag_content(text, "bash-input").filter(|_| text.starts_with("<bash-input>"))
    {
        let mut classified = make(
            EventType::UserInput,
            Some("bash_input"),
            format!("!{input}"),
        );
        classified.starts_turn = true;
        return classified;
    }
    if is_caveat(text) {
        return make(
            EventType::System,
            Some("local_command_caveat"),
            text.to_string(),
        );
    }
    if text.starts_with("<task-notification>") {
        return make(
            EventType::System,
            Some("task_notification"),
            text.to_string(),
        );
    }
    if text.starts_with("<ide_") {
        return make(EventType::System, Some("ide_context"), text.to_string());
    }
    let without_reminders = strip_tagged(text, "system-reminder");
    let without_reminders = without_reminders.trim();
    if without_reminders.is_empty() {
        return make(EventType::System, Some("system_reminder"), text.to_string());
    }
    let mut classified = make(EventType::UserInput, None, without_reminders.to_string());
    classified.starts_turn = true;
    classified
}

fn is_caveat(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("<local-command-caveat>")
        || text.starts_with(
            "Caveat: The messages below were generated by the user while running local commands",
        )
}

/// `/name args` for a `<command-name>` record, `None` for anything else.
fn slash_command(text: &str) -> Option<String> {
    let name = tag_content(text, "command-name")?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let mut command = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    if let Some(args) = tag_content(text, "command-args") {
        let args = args.trim();
        if !args.is_empty() {
            command.push(' ');
            command.push_str(args);
        }
    }
    Some(command)
}

/// Output of a local command without its wrapper tags and terminal escapes.
fn strip_local_output(text: &str) -> String {
    let mut parts = Vec::new();
    for tag in [
        "local-command-stdout",
        "local-command-stderr",
        "bash-stdout",
        "bash-stderr",
    ] {
        if let Some(inner) = tag_content(text, tag) {
            let inner = strip_ansi(inner);
            if !inner.trim().is_empty() {
                parts.push(inner.trim().to_string());
            }
        }
    }
    let has_tags = ["<local-command-std", "<bash-std"]
        .iter()
        .any(|open| text.contains(open));
    if has_tags {
        parts.join("\n")
    } else {
        strip_ansi(text).trim().to_string()
    }
}

/// Text between the first `<tag>` and the following `</tag>`.
fn tag_content<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close).unwrap_or(rest.len());
    rest.get(..end)
}

/// `text` with every `<tag>...</tag>` span removed.
fn strip_tagged(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut result = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        result.push_str(&rest[..start]);
        let after = &rest[start..];
        match after.find(&close) {
            Some(end) => rest = &after[end + close.len()..],
            None => {
                rest = "";
            }
        }
    }
    result.push_str(rest);
    result
}

/// Removes ANSI escape sequences (CSI, OSC and two-byte escapes).
fn strip_ansi(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(character) = chars.next() {
        if character != '\u{1b}' {
            result.push(character);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for next in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&next) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(next) = chars.next() {
                    if next == '\u{7}' {
                        break;
                    }
                    if next == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    result
}

/// `N` from a tool result that starts with `Exit code N` (optionally after `Error: `).
fn exit_code_from_text(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let text = text.strip_prefix("Error: ").unwrap_or(text);
    let rest = text.strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|character| character.is_ascii_digit() || *character == '-')
        .collect();
    digits.parse().ok()
}

/// Human-readable text of a message or tool-result content (string or block array).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                Value::String(text) => Some(text.clone()),
                Value::Object(fields) => match fields.get("text").and_then(Value::as_str) {
                    Some(text) => Some(text.to_string()),
                    None => match fields.get("type").and_then(Value::as_str) {
                        Some("tool_reference") => Some(format!(
                            "[tool_reference: {}]",
                            fields
                                .get("tool_name")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                        )),
                        Some(kind) => Some(format!("[{kind}]")),
                        None => None,
                    },
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn has_tool_result(content: &Value) -> bool {
    content.as_array().is_some_and(|blocks| {
        blocks
            .iter()
            .any(|block| str_field_of(block, "type") == Some("tool_result"))
    })
}

fn pick(record: &Map<String, Value>, names: &[&str]) -> Option<Value> {
    let picked: Map<String, Value> = names
        .iter()
        .filter_map(|name| {
            record
                .get(*name)
                .filter(|value| !value.is_null())
                .map(|value| (name.to_string(), value.clone()))
        })
        .collect();
    (!picked.is_empty()).then_some(Value::Object(picked))
}

fn sanitize_key(uuid: &str) -> String {
    uuid.chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || matches!(character, '_' | '.' | ':' | '-') {
                character
            } else {
                '_'
            }
        })
        .collect()
}

fn is_sidechain(record: &Map<String, Value>) -> bool {
    record.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

fn bool_field(record: &Map<String, Value>, name: &str) -> bool {
    record.get(name).and_then(Value::as_bool) == Some(true)
}

fn str_field<'v>(record: &'v Map<String, Value>, name: &str) -> Option<&'v str> {
    record.get(name).and_then(Value::as_str)
}

fn str_field_of<'v>(value: &'v Value, name: &str) -> Option<&'v str> {
    value.get(name).and_then(Value::as_str)
}

fn fill(slot: &mut Option<String>, value: Option<&str>) {
    if slot.is_none()
        && let Some(value) = value.filter(|value| !value.is_empty())
    {
        *slot = Some(value.to_string());
    }
}

#[cfg(test)]
mod tests;
