//! The parser state over one transcript: dispatch of each record by type, deduplication of
//! replayed records, titles and summaries, event emission, and the final session assembly.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::index::Index;
use super::sessions::Builder;
use super::text::{sanitize_key, session_id_of, str_field};
use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, RawEvent, TokenUsage, TurnEnd, parse_timestamp,
};

/// Bookkeeping record types skipped without an event (see the `claude` module comment for why).
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
    // Claude Code 2.1.2xx: `/rewind` backup bookkeeping, a fork's reference to the parent
    // history it starts from (its folder already links it), an artifact link.
    "file-history-delta",
    "fork-context-ref",
    "frame-link",
];

/// The usage of one API message and the event that carries it.
pub(super) struct MessageUsage {
    pub(super) session: usize,
    /// The message's last event (or, when it produced none, the event before it).
    pub(super) event: Option<usize>,
    pub(super) usage: TokenUsage,
}

pub(super) struct Parser<'a> {
    pub(super) index: Index,
    pub(super) stem: String,
    /// Session uuid from a `<session>/subagents/agent-<id>.jsonl` path.
    pub(super) directory_session: Option<String>,
    pub(super) sidecar: Option<&'a Value>,
    pub(super) main_id: String,
    pub(super) builders: Vec<Builder>,
    pub(super) by_id: HashMap<String, usize>,
    pub(super) seen_uuids: HashSet<String>,
    /// (message id, block fingerprint) already emitted.
    pub(super) seen_blocks: HashSet<(String, String)>,
    /// message id -> (builder, event index) of its last assistant_response.
    pub(super) last_text: HashMap<String, (usize, usize)>,
    /// Token usage per API message id (Claude repeats one message over several records: it
    /// counts once), with the event it is set on.
    pub(super) message_usage: HashMap<String, MessageUsage>,
    pub(super) warnings: Vec<ParseWarning>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(path: &Path, lines: &[JsonLine], sidecar: Option<&'a Value>) -> Parser<'a> {
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
            message_usage: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    pub(super) fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.warnings.push(ParseWarning {
            line,
            message: message.into(),
        });
    }

    pub(super) fn push(&mut self, session: usize, mut event: RawEvent) -> Option<usize> {
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

    pub(super) fn record(&mut self, line: &JsonLine) {
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
        let target = session_id_of(record)
            .and_then(|id| self.by_id.get(id).copied())
            .unwrap_or_else(|| self.main());
        let builder = &mut self.builders[target];
        if kind == "custom-title" {
            builder.custom_title = Some(text.to_string());
        } else {
            builder.ai_title = Some(text.to_string());
        }
    }

    pub(super) fn base_event(
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

    pub(super) fn finish(mut self) -> ParseOutput {
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
        for (_, usage) in std::mem::take(&mut self.message_usage) {
            if let Some(event) = usage.event.and_then(|index| {
                self.builders
                    .get_mut(usage.session)?
                    .session
                    .events
                    .get_mut(index)
            }) {
                TokenUsage::attach(event, usage.usage);
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

pub(super) fn unknown_event(line: &JsonLine, record: &Map<String, Value>) -> RawEvent {
    let mut event = RawEvent::new(
        format!("line{}", line.number),
        EventType::Unknown,
        line.number,
    );
    event.timestamp = record.get("timestamp").and_then(parse_timestamp);
    event.text = str_field(record, "type")
        .map(|kind| format!("[{kind}]"))
        .unwrap_or_default();
    // The record type names the unknown event (`esker index` counts them per type).
    event.subtype = Some(str_field(record, "type").unwrap_or("untyped").to_string());
    event.payload = Some(Value::Object(record.clone()));
    event
}
