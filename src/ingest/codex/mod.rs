//! OpenAI Codex CLI rollout parser (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`).
//!
//! Two on-disk generations are handled:
//! - the current envelope `{timestamp, type, payload}` with `type` one of `session_meta`,
//!   `response_item`, `event_msg`, `turn_context`, `compacted` (plus newer `world_state`,
//!   `inter_agent_communication*`);
//! - the legacy 2025 format: a bare header `{id, timestamp, instructions, git?}`, bare
//!   `ResponseItem`s (`{type: message|function_call|reasoning|...}`) and `{"record_type":"state"}`.
//!
//! Normalization (see the tests for each rule):
//! - `event_msg user_message` is the canonical user input. `response_item` user messages repeat it
//!   (skipped) or carry injected context (system, never a turn start). A file with no
//!   `user_message` event at all (legacy) uses its real role=user response items instead.
//! - Assistant text comes from `response_item` assistant messages (`phase` -> subtype); the
//!   `agent_message` / `agent_reasoning` events are copies and are only kept when the file lacks
//!   the response item with the same text.
//! - Tool calls come from the response items; `exec_command_end` (and friends) duplicate them and
//!   only contribute exit codes, unless no response item carries that call id (then they are
//!   turned into the call/response themselves).
//! - Forked rollouts: the first `session_meta` is the session's own. A later `session_meta` with
//!   another id starts the copy of the parent's history, which is skipped (one `system` marker
//!   event records it) until the first line that is provably the child's own: the child's
//!   `session_meta` written again, a `turn_context`/`task_started` whose UUIDv7 `turn_id` was
//!   minted at or after the child's creation, or a pause of one second or more after the copy
//!   burst (the copy is written in one burst with re-stamped timestamps).
//!
//! Keys are `L<line>` (1-based) plus `.<n>` for the n-th extra event of a line: rollouts are
//! append-only, so a line number never changes meaning.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TurnEnd,
    parse_timestamp, tool_call_text,
};

static NULL: Value = Value::Null;

/// Envelope record types of the current format.
const ENVELOPE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// `type` values of bare legacy response items.
const LEGACY_ITEM_TYPES: [&str; 8] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
];

/// Copied parent history is written in one burst; a pause this long ends it.
const REPLAY_GAP_MILLIS: i64 = 1000;

/// True iff these first lines of a file look like a Codex rollout (current or legacy format).
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().any(|line| {
        let Some(object) = line.value.as_object() else {
            return false;
        };
        let kind = object.get("type").and_then(Value::as_str);
        if let Some(kind) = kind
            && ENVELOPE_TYPES.contains(&kind)
            && object.get("payload").is_some_and(Value::is_object)
        {
            return true;
        }
        if object.get("record_type").and_then(Value::as_str) == Some("state") {
            return true;
        }
        if is_legacy_header(object) {
            return true;
        }
        // A bare legacy ResponseItem: no Claude/Gemini style identity fields, and the shape of
        // an OpenAI Responses item.
        let foreign = ["sessionId", "uuid", "parentUuid", "message", "payload"]
            .iter()
            .any(|key| object.contains_key(*key));
        match kind {
            Some(kind) if !foreign && LEGACY_ITEM_TYPES.contains(&kind) => match kind {
                "message" => {
                    object.get("role").is_some_and(Value::is_string)
                        && object.get("content").is_some_and(Value::is_array)
                }
                "reasoning" => object.contains_key("summary"),
                _ => object.contains_key("call_id"),
            },
            _ => false,
        }
    })
}

fn is_legacy_header(object: &Map<String, Value>) -> bool {
    !object.contains_key("type")
        && object.get("id").is_some_and(Value::is_string)
        && object.get("timestamp").is_some_and(Value::is_string)
        && object
            .keys()
            .all(|key| matches!(key.as_str(), "id" | "timestamp" | "instructions" | "git"))
}

/// One source line, normalized to `(kind, payload)` for both format generations.
struct Line<'a> {
    number: u64,
    /// Envelope type (`response_item`, `event_msg`, ...); `session_meta` for a legacy header,
    /// `response_item` for a bare legacy item, `state` for legacy state lines.
    kind: &'a str,
    payload: &'a Value,
    raw: &'a Value,
    timestamp: Option<DateTime<Utc>>,
}

impl Line<'_> {
    fn payload_type(&self) -> &str {
        str_field(self.payload, "type").unwrap_or("")
    }
}

fn normalize_line(line: &JsonLine) -> Option<Line<'_>> {
    let object = line.value.as_object()?;
    let timestamp = object.get("timestamp").and_then(parse_timestamp);
    let (kind, payload) = match object.get("type").and_then(Value::as_str) {
        Some(kind) if object.contains_key("payload") => {
            (kind, object.get("payload").unwrap_or(&NULL))
        }
        Some(kind) if LEGACY_ITEM_TYPES.contains(&kind) || !object.contains_key("payload") => {
            ("response_item", &line.value)
        }
        _ if object.get("record_type").and_then(Value::as_str) == Some("state") => {
            ("state", &line.value)
        }
        _ if is_legacy_header(object) => ("session_meta", &line.value),
        _ => ("unknown", &line.value),
    };
    Some(Line {
        number: line.number,
        kind,
        payload,
        raw: &line.value,
        timestamp,
    })
}

/// Parses one rollout file into its session.
pub fn parse(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut warnings = Vec::new();
    let mut records = Vec::with_capacity(lines.len());
    for line in lines {
        match normalize_line(line) {
            Some(record) => records.push(record),
            None => warnings.push(ParseWarning {
                line: line.number,
                message: "codex: line is not a JSON object; skipped".to_string(),
            }),
        }
    }
    if records.is_empty() {
        return ParseOutput {
            sessions: Vec::new(),
            warnings,
        };
    }
    let mut parser = Parser::new(&records, path, &mut warnings);
    let session = parser.run();
    ParseOutput {
        sessions: vec![session],
        warnings,
    }
}

/// What the fork detection found: which lines are copied parent history.
struct ReplayScan {
    in_replay: Vec<bool>,
    /// Index of the line that starts each copied block, with its parent id and copied-line count.
    markers: Vec<(usize, String, usize)>,
    /// Lines that repeat the session's own `session_meta`.
    own_meta_repeats: HashSet<usize>,
    unterminated: bool,
}

fn scan_replay(records: &[Line<'_>], own_meta: Option<usize>, own_id: &str) -> ReplayScan {
    let mut scan = ReplayScan {
        in_replay: vec![false; records.len()],
        markers: Vec::new(),
        own_meta_repeats: HashSet::new(),
        unterminated: false,
    };
    let own_start = own_meta.and_then(|index| {
        let meta = &records[index];
        uuid_v7_millis(own_id)
            .or_else(|| {
                meta.payload
                    .get("timestamp")
                    .and_then(parse_timestamp)
                    .map(|time| time.timestamp_millis())
            })
            .or_else(|| meta.timestamp.map(|time| time.timestamp_millis()))
    });
    let mut replaying = false;
    let mut last_time: Option<DateTime<Utc>> = None;
    for (index, record) in records.iter().enumerate() {
        if Some(index) == own_meta {
            continue;
        }
        let meta_id = (record.kind == "session_meta").then(|| meta_id(record.payload));
        if replaying {
            if meta_id.as_deref() == Some(own_id) && !own_id.is_empty() {
                replaying = false;
                scan.own_meta_repeats.insert(index);
                continue;
            }
            let own_turn = turn_id_of(record)
                .and_then(uuid_v7_millis)
                .zip(own_start)
                .is_some_and(|(turn, start)| turn >= start);
            let paused = last_time
                .zip(record.timestamp)
                .is_some_and(|(last, now)| (now - last).num_milliseconds() >= REPLAY_GAP_MILLIS);
            if own_turn || paused {
                replaying = false;
            } else {
                scan.in_replay[index] = true;
                if let Some(marker) = scan.markers.last_mut() {
                    marker.2 += 1;
                }
                last_time = record.timestamp.or(last_time);
                continue;
            }
        }
        if let Some(id) = meta_id {
            if !id.is_empty() && id != own_id && own_meta.is_some() {
                replaying = true;
                scan.in_replay[index] = true;
                scan.markers.push((index, id, 0));
                last_time = record.timestamp;
            } else {
                scan.own_meta_repeats.insert(index);
            }
        }
    }
    scan.unterminated = replaying;
    scan
}

fn meta_id(payload: &Value) -> String {
    str_field(payload, "id")
        .or_else(|| str_field(payload, "session_id"))
        .unwrap_or("")
        .to_string()
}

fn turn_id_of<'a>(record: &Line<'a>) -> Option<&'a str> {
    let starts_turn = record.kind == "turn_context"
        || (record.kind == "event_msg"
            && matches!(record.payload_type(), "task_started" | "turn_started"));
    if starts_turn {
        str_field(record.payload, "turn_id")
    } else {
        None
    }
}

/// Milliseconds since the epoch encoded in a UUIDv7, if `text` is one.
fn uuid_v7_millis(text: &str) -> Option<i64> {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) || text.len() != 36 {
        return None;
    }
    if hex.as_bytes().get(12) != Some(&b'7') {
        return None;
    }
    i64::from_str_radix(hex.get(..12)?, 16).ok()
}

/// Facts gathered over the whole file before events are emitted (the copies and their originals
/// can come in either order).
#[derive(Default)]
struct Index {
    /// call id -> tool name, from every call record (copied history included).
    call_names: HashMap<String, String>,
    /// Call ids carried by the session's own call response items.
    response_call_ids: HashSet<String>,
    /// Call ids of `*_end` events (so their `*_begin` twins can be dropped).
    ended_call_ids: HashSet<String>,
    /// `exec_command_end` exit codes by call id.
    exit_codes: HashMap<String, i64>,
    user_message_texts: HashSet<String>,
    has_user_message_events: bool,
    assistant_texts: HashSet<String>,
    reasoning_texts: HashSet<String>,
    /// web_search_call line index -> the call id it was paired with.
    web_search_ids: HashMap<usize, String>,
    /// web_search_end call ids that were paired with a web_search_call item.
    paired_web_search_ends: HashSet<String>,
}

struct Parser<'r, 'a, 'w> {
    records: &'r [Line<'a>],
    path: &'r Path,
    warnings: &'w mut Vec<ParseWarning>,
    replay: ReplayScan,
    index: Index,
    own_meta: Option<usize>,
    native_id: String,
    meta: SessionMeta,
    events: Vec<RawEvent>,
    current_model: Option<String>,
    emitted_call_ids: HashSet<String>,
    /// Line number and count of events already emitted for it (for `.n` keys).
    line_slot: (u64, usize),
}

impl<'r, 'a, 'w> Parser<'r, 'a, 'w> {
    fn new(records: &'r [Line<'a>], path: &'r Path, warnings: &'w mut Vec<ParseWarning>) -> Self {
        let own_meta = records.iter().position(|r| r.kind == "session_meta");
        let native_id = own_meta
            .map(|index| meta_id(records[index].payload))
            .filter(|id| !id.is_empty())
            .unwrap_or_default();
        let replay = scan_replay(records, own_meta, &native_id);
        Parser {
            records,
            path,
            warnings,
            replay,
            index: Index::default(),
            own_meta,
            native_id,
            meta: SessionMeta::default(),
            events: Vec::new(),
            current_model: None,
            emitted_call_ids: HashSet::new(),
            line_slot: (0, 0),
        }
    }

    fn is_own(&self, index: usize) -> bool {
        !self.replay.in_replay[index] && !self.replay.own_meta_repeats.contains(&index)
    }

    fn run(&mut self) -> ParsedSession {
        if self.native_id.is_empty() {
            self.native_id = id_from_path(self.path);
            self.warnings.push(ParseWarning {
                line: self.records.first().map_or(0, |r| r.number),
                message: format!(
                    "codex: no session_meta id; using '{}' from the file name",
                    self.native_id
                ),
            });
        }
        if self.replay.unterminated
            && let Some((index, _, count)) = self.replay.markers.last()
        {
            self.warnings.push(ParseWarning {
                line: self.records[*index].number,
                message: format!(
                    "codex: copied parent history never ended; {count} lines after it skipped"
                ),
            });
        }
        self.build_index();
        for position in 0..self.records.len() {
            let records = self.records;
            let record = &records[position];
            if Some(position) == self.own_meta {
                self.on_own_meta(record);
                continue;
            }
            if let Some((_, parent, copied)) = self
                .replay
                .markers
                .iter()
                .find(|(start, _, _)| *start == position)
                .cloned()
            {
                self.on_fork_marker(record, &parent, copied);
                continue;
            }
            if !self.is_own(position) {
                continue;
            }
            self.on_record(position, record);
        }
        self.finish()
    }

    fn build_index(&mut self) {
        let records = self.records;
        let mut web_search_calls = Vec::new();
        let mut web_search_ends: Vec<(String, Value)> = Vec::new();
        for (position, record) in records.iter().enumerate() {
            let own = self.is_own(position);
            let payload = record.payload;
            match (record.kind, record.payload_type()) {
                ("response_item", item) => {
                    if let Some((name, id)) = call_name_and_id(payload) {
                        if let Some(id) = id {
                            self.index.call_names.insert(id.clone(), name);
                            if own {
                                self.index.response_call_ids.insert(id);
                            }
                        }
                    } else if own && item == "message" {
                        if str_field(payload, "role") == Some("assistant") {
                            let text = match_text(payload.get("content").unwrap_or(&NULL));
                            self.index.assistant_texts.insert(text);
                        }
                    } else if own && item == "reasoning" {
                        for text in reasoning_parts(payload) {
                            self.index.reasoning_texts.insert(text.trim().to_string());
                        }
                    }
                    if own && item == "web_search_call" {
                        web_search_calls.push(position);
                    }
                }
                ("event_msg", event) if own => {
                    let call_id = event_call_id(payload);
                    match event {
                        "user_message" => {
                            self.index.has_user_message_events = true;
                            let text = str_field(payload, "message").unwrap_or("");
                            self.index
                                .user_message_texts
                                .insert(text.trim().to_string());
                        }
                        "exec_command_end" => {
                            if let (Some(id), Some(code)) =
                                (call_id, payload.get("exit_code").and_then(Value::as_i64))
                            {
                                self.index.exit_codes.insert(id.to_string(), code);
                            }
                        }
                        "web_search_end" => {
                            if let Some(id) = call_id {
                                web_search_ends.push((
                                    id.to_string(),
                                    payload.get("action").cloned().unwrap_or(Value::Null),
                                ));
                            }
                        }
                        _ => {}
                    }
                    if let Some(id) = call_id
                        && (event.ends_with("_end") || event.ends_with("_response"))
                    {
                        self.index.ended_call_ids.insert(id.to_string());
                    }
                }
                _ => {}
            }
        }
        // Pair each web_search_call item (which usually has no id on disk) with the
        // web_search_end event of the same search: same id, else same action.
        let mut claimed = HashSet::new();
        for position in web_search_calls {
            let payload = records[position].payload;
            let own_id = str_field(payload, "call_id").or_else(|| str_field(payload, "id"));
            let action = payload.get("action").unwrap_or(&NULL);
            let paired = web_search_ends
                .iter()
                .find(|(id, _)| Some(id.as_str()) == own_id && !claimed.contains(id))
                .or_else(|| {
                    web_search_ends
                        .iter()
                        .find(|(id, end_action)| end_action == action && !claimed.contains(id))
                })
                .map(|(id, _)| id.clone());
            let id = str_field(payload, "call_id")
                .map(str::to_string)
                .or_else(|| paired.clone())
                .or_else(|| own_id.map(str::to_string));
            if let Some(paired) = paired {
                claimed.insert(paired.clone());
                self.index.paired_web_search_ends.insert(paired);
            }
            if let Some(id) = id {
                self.index
                    .call_names
                    .insert(id.clone(), "web_search".to_string());
                self.index.response_call_ids.insert(id.clone());
                self.index.web_search_ids.insert(position, id);
            }
        }
    }

    fn finish(&mut self) -> ParsedSession {
        // Events before the first turn_context ran under the model it then declares.
        if let Some(first_model) = self
            .events
            .iter()
            .find_map(|event| event.originating_model.clone())
        {
            for event in self
                .events
                .iter_mut()
                .take_while(|event| event.originating_model.is_none())
            {
                event.originating_model = Some(first_model.clone());
                if matches!(
                    event.kind,
                    EventType::AssistantResponse | EventType::Reasoning
                ) {
                    event.model = Some(first_model.clone());
                }
            }
        }
        if self.meta.started_at.is_none() {
            self.meta.started_at = self.events.iter().find_map(|event| event.timestamp);
        }
        ParsedSession {
            source: Source::Codex,
            native_id: self.native_id.clone(),
            meta: std::mem::take(&mut self.meta),
            events: std::mem::take(&mut self.events),
        }
    }

    // ---- emission helpers -------------------------------------------------------------------

    fn push(&mut self, record: &Line<'_>, kind: EventType, text: String) -> &mut RawEvent {
        let key = if self.line_slot.0 == record.number {
            self.line_slot.1 += 1;
            format!("L{}.{}", record.number, self.line_slot.1)
        } else {
            self.line_slot = (record.number, 0);
            format!("L{}", record.number)
        };
        let mut event = RawEvent::new(key, kind, record.number);
        event.timestamp = record.timestamp;
        event.text = text;
        event.originating_model = self.current_model.clone();
        if matches!(kind, EventType::AssistantResponse | EventType::Reasoning) {
            event.model = self.current_model.clone();
        }
        self.events.push(event);
        let last = self.events.len() - 1;
        &mut self.events[last]
    }

    fn push_tool_call(
        &mut self,
        record: &Line<'_>,
        name: &str,
        call_id: Option<String>,
        arguments: Value,
    ) {
        if let Some(id) = &call_id
            && !self.emitted_call_ids.insert(id.clone())
        {
            self.warnings.push(ParseWarning {
                line: record.number,
                message: format!("codex: call id {id} called twice; repeat skipped"),
            });
            return;
        }
        if let Some(id) = &call_id {
            self.index
                .call_names
                .entry(id.clone())
                .or_insert_with(|| name.to_string());
        }
        let text = tool_call_text(name, &arguments);
        let event = self.push(record, EventType::ToolCall, text);
        event.tool_name = Some(name.to_string());
        event.tool_call_id = call_id;
        event.payload = (!arguments.is_null()).then_some(arguments);
    }

    fn push_tool_response(
        &mut self,
        record: &Line<'_>,
        name: String,
        call_id: Option<String>,
        output: ToolOutput,
    ) {
        let exit_code = call_id
            .as_ref()
            .and_then(|id| self.index.exit_codes.get(id).copied())
            .or(output.exit_code);
        let event = self.push(record, EventType::ToolResponse, output.text);
        event.tool_name = Some(name);
        event.tool_call_id = call_id;
        event.exit_code = exit_code;
        event.payload = output.extras;
    }

    fn push_generic(&mut self, record: &Line<'_>, kind: EventType, subtype: &str) {
        let text = generic_text(subtype, record.payload);
        let payload = record.payload.clone();
        let event = self.push(record, kind, text);
        event.subtype = Some(subtype.to_string());
        event.payload = Some(payload);
    }

    fn push_unknown(&mut self, record: &Line<'_>) {
        let label = match (record.kind, record.payload_type()) {
            (kind, "") => kind.to_string(),
            (kind, item) => format!("{kind}/{item}"),
        };
        let raw = record.raw.clone();
        let event = self.push(
            record,
            EventType::Unknown,
            format!("[unknown record {label}]"),
        );
        event.subtype = Some(label);
        event.payload = Some(raw);
    }

    fn resolve_tool_name(&self, call_id: Option<&str>, fallback: &str) -> String {
        call_id
            .and_then(|id| self.index.call_names.get(id))
            .cloned()
            .unwrap_or_else(|| fallback.to_string())
    }

    // ---- record handlers ----------------------------------------------------------------------

    fn on_own_meta(&mut self, record: &Line<'_>) {
        let payload = record.payload;
        let meta = &mut self.meta;
        meta.cwd = str_field(payload, "cwd").map(str::to_string);
        meta.git_branch = payload
            .get("git")
            .and_then(|git| str_field(git, "branch"))
            .map(str::to_string);
        meta.harness_version = str_field(payload, "cli_version").map(str::to_string);
        meta.started_at = payload
            .get("timestamp")
            .and_then(parse_timestamp)
            .or(record.timestamp);
        meta.forked_from_native_id = str_field(payload, "forked_from_id")
            .filter(|id| !id.is_empty())
            .map(str::to_string);
        let source = payload.get("source").unwrap_or(&NULL);
        meta.started_by_mcp = match source {
            Value::String(text) => text.eq_ignore_ascii_case("mcp"),
            Value::Object(fields) => fields.contains_key("mcp"),
            _ => false,
        };
        if let Some(subagent) = source.get("subagent") {
            let spawn = subagent.get("thread_spawn").unwrap_or(&NULL);
            meta.parent_native_id = str_field(spawn, "parent_thread_id").map(str::to_string);
            let nickname =
                str_field(spawn, "agent_nickname").or_else(|| str_field(payload, "agent_nickname"));
            let role = str_field(spawn, "agent_role").or_else(|| str_field(payload, "agent_role"));
            meta.agent_name = match (nickname, role) {
                (Some(nickname), Some(role)) => Some(format!("{nickname} ({role})")),
                (Some(name), None) | (None, Some(name)) => Some(name.to_string()),
                (None, None) => match subagent {
                    Value::String(kind) => Some(kind.clone()),
                    Value::Object(fields) => fields
                        .get("other")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .or_else(|| fields.keys().next().cloned()),
                    _ => None,
                },
            };
        }
        if meta.parent_native_id.is_none() {
            meta.parent_native_id = str_field(payload, "parent_thread_id").map(str::to_string);
        }
        if let Some(model) = str_field(payload, "model") {
            self.set_model(model);
        }
        // One system event keeps what SessionMeta has no field for (originator, provider, source).
        let mut extras = Map::new();
        for key in [
            "originator",
            "cli_version",
            "model_provider",
            "source",
            "thread_source",
            "forked_from_id",
            "git",
        ] {
            if let Some(value) = payload.get(key).filter(|value| !value.is_null()) {
                extras.insert(key.to_string(), value.clone());
            }
        }
        let mut text = format!("Codex session {}", self.native_id);
        if let Some(cwd) = &self.meta.cwd {
            text.push_str(&format!(" in {cwd}"));
        }
        let described: Vec<String> = ["originator", "cli_version", "model_provider"]
            .iter()
            .filter_map(|key| str_field(payload, key).map(|value| format!("{key}={value}")))
            .collect();
        if !described.is_empty() {
            text.push_str(&format!(" ({})", described.join(", ")));
        }
        let event = self.push(record, EventType::System, text);
        event.subtype = Some("session_meta".to_string());
        event.payload = (!extras.is_empty()).then_some(Value::Object(extras));
    }

    fn on_fork_marker(&mut self, record: &Line<'_>, parent: &str, copied: usize) {
        if self.meta.forked_from_native_id.is_none() && !parent.is_empty() {
            self.meta.forked_from_native_id = Some(parent.to_string());
        }
        let text = format!(
            "Forked from session {parent}: {copied} lines of its copied history are not part of \
             this session"
        );
        let event = self.push(record, EventType::System, text);
        event.subtype = Some("fork_replay".to_string());
        event.payload = Some(json!({"parent_id": parent, "copied_lines": copied}));
    }

    fn set_model(&mut self, model: &str) {
        if model.is_empty() {
            return;
        }
        self.current_model = Some(model.to_string());
        if self.meta.model.is_none() {
            self.meta.model = Some(model.to_string());
        }
    }

    fn on_record(&mut self, position: usize, record: &Line<'_>) {
        match record.kind {
            "response_item" => self.on_response_item(position, record),
            "event_msg" => self.on_event_msg(record),
            "turn_context" => {
                // Settings snapshot per turn: only its model/cwd matter (bookkeeping otherwise).
                if let Some(model) = str_field(record.payload, "model") {
                    self.set_model(model);
                }
                if self.meta.cwd.is_none() {
                    self.meta.cwd = str_field(record.payload, "cwd").map(str::to_string);
                }
            }
            "compacted" => self.on_compacted(record),
            // Legacy `{"record_type":"state"}` lines and inter-agent trigger flags are pure
            // bookkeeping with no content.
            "state" | "inter_agent_communication_metadata" => {}
            // Snapshot of the model-visible context baseline (AGENTS.md, environment), which the
            // injected-context messages already carry; only its model is used.
            "world_state" => {
                let state = record.payload.get("state").unwrap_or(&NULL);
                if let Some(model) = str_field(state, "model") {
                    self.set_model(model);
                }
            }
            "inter_agent_communication" => {
                let text = content_text(record.payload.get("content").unwrap_or(&NULL));
                let text = if text.is_empty() {
                    generic_text("inter_agent_communication", record.payload)
                } else {
                    text
                };
                let payload = record.payload.clone();
                let event = self.push(record, EventType::System, text);
                event.subtype = Some("inter_agent_communication".to_string());
                event.payload = Some(payload);
            }
            _ => self.push_unknown(record),
        }
    }

    fn on_response_item(&mut self, position: usize, record: &Line<'_>) {
        let payload = record.payload;
        match record.payload_type() {
            "message" => self.on_message(record),
            "reasoning" => {
                let parts = reasoning_parts(payload);
                let text = if !parts.is_empty() {
                    parts.join("\n\n")
                } else if payload
                    .get("encrypted_content")
                    .is_some_and(|value| !value.is_null())
                {
                    "[encrypted reasoning]".to_string()
                } else {
                    "[reasoning without summary]".to_string()
                };
                self.push(record, EventType::Reasoning, text);
            }
            "function_call"
            | "custom_tool_call"
            | "local_shell_call"
            | "tool_search_call"
            | "image_generation_call" => {
                let (name, id) = call_name_and_id(payload).unwrap_or_default();
                self.push_tool_call(record, &name, id, call_arguments(payload));
            }
            "web_search_call" => {
                let id = self.index.web_search_ids.get(&position).cloned();
                let action = payload.get("action").cloned().unwrap_or(Value::Null);
                self.push_tool_call(record, "web_search", id, action);
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                let call_id = str_field(payload, "call_id").map(str::to_string);
                let fallback = match record.payload_type() {
                    "custom_tool_call_output" => "custom_tool",
                    "tool_search_output" => "tool_search",
                    _ => "function",
                };
                let name = self.resolve_tool_name(call_id.as_deref(), fallback);
                let output = if record.payload_type() == "tool_search_output" {
                    ToolOutput {
                        text: tool_search_text(payload),
                        extras: None,
                        exit_code: None,
                    }
                } else {
                    tool_output(payload.get("output").unwrap_or(&NULL))
                };
                self.push_tool_response(record, name, call_id, output);
            }
            "compaction" | "compaction_summary" => {
                let text = str_field(payload, "summary")
                    .map(str::to_string)
                    .unwrap_or_else(|| "[encrypted compaction summary]".to_string());
                let event = self.push(record, EventType::Compaction, text);
                event.subtype = Some(record.payload_type().to_string());
            }
            "agent_message" => {
                // Inter-agent message (author/recipient) delivered into this thread's context.
                let text = content_text(payload.get("content").unwrap_or(&NULL));
                let mut extras = Map::new();
                for key in ["author", "recipient"] {
                    if let Some(value) = payload.get(key) {
                        extras.insert(key.to_string(), value.clone());
                    }
                }
                let event = self.push(record, EventType::System, text);
                event.subtype = Some("agent_message".to_string());
                event.payload = Some(Value::Object(extras));
            }
            // Git snapshot taken for /undo: pure bookkeeping, no conversation content.
            "ghost_snapshot" => {}
            _ => self.push_unknown(record),
        }
    }

    fn on_message(&mut self, record: &Line<'_>) {
        let payload = record.payload;
        let text = content_text(payload.get("content").unwrap_or(&NULL));
        let role = str_field(payload, "role").unwrap_or("");
        let phase = str_field(payload, "phase").map(str::to_string);
        match role {
            "assistant" => {
                let final_answer = phase.as_deref() == Some("final_answer");
                let event = self.push(record, EventType::AssistantResponse, text);
                event.subtype = phase;
                if final_answer {
                    event.turn_end = Some(TurnEnd::Terminal);
                }
            }
            "user" => {
                if let Some(kind) = injected_kind(&text) {
                    if kind == "environment_context" && self.meta.cwd.is_none() {
                        self.meta.cwd = environment_cwd(&text);
                    }
                    let event = self.push(record, EventType::System, text);
                    event.subtype = Some(kind);
                } else if self.index.has_user_message_events {
                    let typed = match_text(payload.get("content").unwrap_or(&NULL));
                    if self.index.user_message_texts.contains(&typed) {
                        // The model-facing copy of an `event_msg user_message`: skipped.
                    } else {
                        // Model-visible user-role text no human typed in this regime.
                        let event = self.push(record, EventType::System, text);
                        event.subtype = Some("user_context".to_string());
                    }
                } else {
                    let event = self.push(record, EventType::UserInput, text);
                    event.starts_turn = true;
                }
            }
            _ => {
                let event = self.push(record, EventType::System, text);
                event.subtype = Some(if role.is_empty() { "message" } else { role }.to_string());
            }
        }
    }

    fn on_compacted(&mut self, record: &Line<'_>) {
        let payload = record.payload;
        let history = payload
            .get("replacement_history")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let text = match str_field(payload, "message").filter(|m| !m.trim().is_empty()) {
            Some(message) => message.to_string(),
            None if history.iter().any(|item| {
                matches!(
                    str_field(item, "type"),
                    Some("compaction" | "compaction_summary")
                )
            }) =>
            {
                format!(
                    "[context compacted: encrypted summary, {} history items kept]",
                    history.len()
                )
            }
            None => format!("[context compacted: {} history items kept]", history.len()),
        };
        let event = self.push(record, EventType::Compaction, text);
        event.subtype = Some("compacted".to_string());
        event.payload = Some(json!({"replacement_history_items": history.len()}));
    }

    fn on_event_msg(&mut self, record: &Line<'_>) {
        let payload = record.payload;
        let kind = record.payload_type().to_string();
        let call_id = event_call_id(payload).map(str::to_string);
        match kind.as_str() {
            "user_message" => {
                let text = str_field(payload, "message").unwrap_or("").to_string();
                let message_kind = str_field(payload, "kind").unwrap_or("plain");
                let injected = injected_kind(&text).or_else(|| {
                    (!message_kind.is_empty() && message_kind != "plain")
                        .then(|| message_kind.to_string())
                });
                let mut extras = Map::new();
                for key in ["images", "local_images"] {
                    if let Some(list) = payload
                        .get(key)
                        .filter(|v| v.as_array().is_some_and(|items| !items.is_empty()))
                    {
                        extras.insert(key.to_string(), list.clone());
                    }
                }
                let event = self.push(
                    record,
                    if injected.is_some() {
                        EventType::System
                    } else {
                        EventType::UserInput
                    },
                    text,
                );
                event.starts_turn = injected.is_none();
                event.subtype = injected;
                event.payload = (!extras.is_empty()).then_some(Value::Object(extras));
            }
            "agent_message" => {
                let text = str_field(payload, "message").unwrap_or("").to_string();
                if !self.index.assistant_texts.contains(text.trim()) {
                    let phase = str_field(payload, "phase").map(str::to_string);
                    let final_answer = phase.as_deref() == Some("final_answer");
                    let event = self.push(record, EventType::AssistantResponse, text);
                    event.subtype = phase;
                    if final_answer {
                        event.turn_end = Some(TurnEnd::Terminal);
                    }
                }
            }
            "agent_reasoning" | "agent_reasoning_raw_content" => {
                let text = str_field(payload, "text").unwrap_or("").to_string();
                if !self.index.reasoning_texts.contains(text.trim()) {
                    let event = self.push(record, EventType::Reasoning, text);
                    event.subtype = Some(kind);
                }
            }
            // Streaming/bookkeeping markers with no content: section breaks, output deltas,
            // item starts (their completion is recorded), settings already applied via model.
            "agent_reasoning_section_break" | "exec_command_output_delta" | "item_started" => {}
            "thread_settings_applied" => {
                if let Some(model) = payload
                    .get("thread_settings")
                    .and_then(|settings| str_field(settings, "model"))
                {
                    self.set_model(model);
                }
            }
            "token_count" => {
                let text = token_count_text(payload);
                let event = self.push(record, EventType::Runtime, text);
                event.subtype = Some(kind);
                event.payload = Some(payload.clone());
            }
            "task_started" | "turn_started" => self.push_generic(record, EventType::Runtime, &kind),
            "task_complete" | "turn_complete" => {
                let mut extras = payload.clone();
                if let Some(fields) = extras.as_object_mut() {
                    fields.remove("last_agent_message");
                }
                let text = match payload.get("error").and_then(|e| str_field(e, "message")) {
                    Some(error) => format!("task complete (error: {error})"),
                    None => "task complete".to_string(),
                };
                let event = self.push(record, EventType::Runtime, text);
                event.subtype = Some(kind);
                event.payload = Some(extras);
                event.turn_end = Some(TurnEnd::Normal);
            }
            "turn_aborted" => {
                let reason = str_field(payload, "reason").unwrap_or("aborted");
                let event = self.push(
                    record,
                    EventType::Runtime,
                    format!("turn aborted: {reason}"),
                );
                event.subtype = Some(kind);
                event.payload = Some(payload.clone());
                event.turn_end = Some(TurnEnd::Terminal);
            }
            "context_compacted" => {
                let event = self.push(record, EventType::Compaction, "[context compacted]".into());
                event.subtype = Some(kind);
            }
            "thread_name_updated" | "session_name_updated" => {
                let name = str_field(payload, "thread_name")
                    .or_else(|| str_field(payload, "name"))
                    .or_else(|| str_field(payload, "title"));
                if let Some(name) = name.filter(|n| !n.trim().is_empty()) {
                    self.meta.title = Some(name.to_string());
                }
                self.push_generic(record, EventType::System, &kind);
            }
            "entered_review_mode" | "exited_review_mode" | "thread_goal_updated" => {
                self.push_generic(record, EventType::System, &kind)
            }
            "item_completed" => self.on_item_completed(record),
            _ if call_id.is_some() && is_tool_event(&kind) => {
                self.on_tool_event(record, &kind, call_id)
            }
            _ => self.push_generic(record, EventType::Runtime, &kind),
        }
    }

    /// `item_completed` (newer rollouts) repeats conversation items; only content with no
    /// response-item twin is kept.
    fn on_item_completed(&mut self, record: &Line<'_>) {
        let item = record.payload.get("item").unwrap_or(&NULL);
        match str_field(item, "type").unwrap_or("") {
            "AgentMessage" => {
                let content = item.get("content").unwrap_or(&NULL);
                let text = content_text(content);
                if !self.index.assistant_texts.contains(&match_text(content)) {
                    let phase = str_field(item, "phase").map(str::to_string);
                    let event = self.push(record, EventType::AssistantResponse, text);
                    event.subtype = phase;
                }
            }
            "Plan" => {
                let text = str_field(item, "text").unwrap_or("").to_string();
                let event = self.push(record, EventType::System, text);
                event.subtype = Some("plan".to_string());
            }
            // UserMessage, Reasoning, CommandExecution, McpToolCall, FileChange, web search
            // extensions...: copies of the user_message event and response items.
            _ => {}
        }
    }

    /// Tool lifecycle events: copies of response items (kept only for exit codes) unless no
    /// response item has their call id, in which case they stand for the call themselves.
    fn on_tool_event(&mut self, record: &Line<'_>, kind: &str, call_id: Option<String>) {
        let payload = record.payload;
        let id = call_id.clone().unwrap_or_default();
        let duplicate = self.index.response_call_ids.contains(&id)
            || self.index.paired_web_search_ends.contains(&id);
        if duplicate {
            return;
        }
        if kind.ends_with("_begin") {
            // A begin whose end is also logged is a copy of it; a lone begin is a call that
            // never finished.
            if !self.index.ended_call_ids.contains(&id) {
                self.push_generic(record, EventType::Runtime, kind);
            }
            return;
        }
        match kind {
            "exec_command_end" => {
                let arguments = pick(payload, &["command", "cwd"]);
                self.push_tool_call(record, "exec_command", call_id.clone(), arguments);
                let text = str_field(payload, "aggregated_output")
                    .filter(|t| !t.is_empty())
                    .or_else(|| str_field(payload, "formatted_output"))
                    .map(str::to_string)
                    .unwrap_or_else(|| {
                        let stdout = str_field(payload, "stdout").unwrap_or("");
                        let stderr = str_field(payload, "stderr").unwrap_or("");
                        format!("{stdout}{stderr}")
                    });
                let output = ToolOutput {
                    text,
                    extras: Some(pick(payload, &["status", "duration"])),
                    exit_code: payload.get("exit_code").and_then(Value::as_i64),
                };
                self.push_tool_response(record, "exec_command".into(), call_id, output);
            }
            "mcp_tool_call_end" => {
                let invocation = payload.get("invocation").unwrap_or(&NULL);
                let name = format!(
                    "mcp__{}__{}",
                    str_field(invocation, "server").unwrap_or("server"),
                    str_field(invocation, "tool").unwrap_or("tool")
                );
                let arguments = invocation.get("arguments").cloned().unwrap_or(Value::Null);
                self.push_tool_call(record, &name, call_id.clone(), arguments);
                let result = payload.get("result").unwrap_or(&NULL);
                let output = match (result.get("Ok"), result.get("Err")) {
                    (Some(ok), _) => ToolOutput {
                        text: content_text(ok.get("content").unwrap_or(&NULL)),
                        extras: ok.get("isError").map(|e| json!({"is_error": e})),
                        exit_code: None,
                    },
                    (None, Some(err)) => ToolOutput {
                        text: err.as_str().map_or_else(|| err.to_string(), str::to_string),
                        extras: Some(json!({"is_error": true})),
                        exit_code: None,
                    },
                    _ => ToolOutput {
                        text: compact_json(result),
                        extras: None,
                        exit_code: None,
                    },
                };
                self.push_tool_response(record, name, call_id, output);
            }
            "patch_apply_end" => {
                let files: Vec<Value> = payload
                    .get("changes")
                    .and_then(Value::as_object)
                    .map(|changes| changes.keys().map(|k| Value::String(k.clone())).collect())
                    .unwrap_or_default();
                self.push_tool_call(
                    record,
                    "apply_patch",
                    call_id.clone(),
                    json!({"files": files}),
                );
                let stdout = str_field(payload, "stdout").unwrap_or("");
                let stderr = str_field(payload, "stderr").unwrap_or("");
                let output = ToolOutput {
                    text: format!("{stdout}{stderr}"),
                    extras: Some(pick(payload, &["success", "status"])),
                    exit_code: None,
                };
                self.push_tool_response(record, "apply_patch".into(), call_id, output);
            }
            "web_search_end" => {
                let arguments = payload
                    .get("action")
                    .cloned()
                    .unwrap_or_else(|| pick(payload, &["query"]));
                self.push_tool_call(record, "web_search", call_id.clone(), arguments);
                if let Some(results) = payload.get("results").and_then(Value::as_array) {
                    let output = ToolOutput {
                        text: web_results_text(results),
                        extras: None,
                        exit_code: None,
                    };
                    self.push_tool_response(record, "web_search".into(), call_id, output);
                }
            }
            "view_image_tool_call" => {
                self.push_tool_call(record, "view_image", call_id, pick(payload, &["path"]));
            }
            "image_generation_end" => {
                let arguments = pick(payload, &["revised_prompt"]);
                self.push_tool_call(record, "image_generation", call_id.clone(), arguments);
                let mut text = format!(
                    "[image generation {}]",
                    str_field(payload, "status").unwrap_or("finished")
                );
                if let Some(path) = str_field(payload, "saved_path") {
                    text.push_str(&format!(" saved to {path}"));
                }
                let output = ToolOutput {
                    text,
                    extras: None,
                    exit_code: None,
                };
                self.push_tool_response(record, "image_generation".into(), call_id, output);
            }
            "dynamic_tool_call_request" | "dynamic_tool_call_response" => {
                let name = str_field(payload, "tool")
                    .unwrap_or("dynamic_tool")
                    .to_string();
                if !self.emitted_call_ids.contains(&id) {
                    let arguments = payload.get("arguments").cloned().unwrap_or(Value::Null);
                    self.push_tool_call(record, &name, call_id.clone(), arguments);
                }
                if kind == "dynamic_tool_call_response" {
                    let output = ToolOutput {
                        text: content_text(payload.get("content_items").unwrap_or(&NULL)),
                        extras: Some(pick(payload, &["success", "error"])),
                        exit_code: None,
                    };
                    self.push_tool_response(record, name, call_id, output);
                }
            }
            _ => self.push_generic(record, EventType::Runtime, kind),
        }
    }
}

fn is_tool_event(kind: &str) -> bool {
    kind.starts_with("exec_command_")
        || kind.starts_with("patch_apply_")
        || kind.starts_with("mcp_tool_call_")
        || kind.starts_with("web_search_")
        || kind.starts_with("image_generation_")
        || kind.starts_with("dynamic_tool_call_")
        || kind.starts_with("collab_")
        || kind == "view_image_tool_call"
        || kind == "terminal_interaction"
}

fn event_call_id(payload: &Value) -> Option<&str> {
    str_field(payload, "call_id").or_else(|| str_field(payload, "callId"))
}

/// Tool name and call id of a call response item, `None` if the item is not a call.
fn call_name_and_id(payload: &Value) -> Option<(String, Option<String>)> {
    let kind = str_field(payload, "type")?;
    let name = match kind {
        "function_call" | "custom_tool_call" => str_field(payload, "name").unwrap_or("function"),
        "local_shell_call" => "local_shell",
        "tool_search_call" => "tool_search",
        "image_generation_call" => "image_generation",
        _ => return None,
    };
    let id = str_field(payload, "call_id")
        .or_else(|| str_field(payload, "id"))
        .map(str::to_string);
    Some((name.to_string(), id))
}

fn call_arguments(payload: &Value) -> Value {
    match str_field(payload, "type").unwrap_or("") {
        "function_call" => match payload.get("arguments") {
            Some(Value::String(text)) => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
            Some(other) => other.clone(),
            None => Value::Null,
        },
        "custom_tool_call" => match payload.get("input") {
            Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                Ok(parsed @ Value::Object(_)) => parsed,
                _ => json!({"input": text}),
            },
            Some(other) => other.clone(),
            None => Value::Null,
        },
        "local_shell_call" => payload.get("action").cloned().unwrap_or(Value::Null),
        "tool_search_call" => payload.get("arguments").cloned().unwrap_or(Value::Null),
        "image_generation_call" => pick(payload, &["revised_prompt"]),
        _ => Value::Null,
    }
}

struct ToolOutput {
    text: String,
    extras: Option<Value>,
    exit_code: Option<i64>,
}

/// Text, structured extras and exit code of a `*_call_output.output` in any of its shapes: plain
/// text, a JSON string `{output, metadata:{exit_code,...}}`, `{content, success}`, or a list of
/// content items.
fn tool_output(output: &Value) -> ToolOutput {
    let mut result = ToolOutput {
        text: String::new(),
        extras: None,
        exit_code: None,
    };
    match output {
        Value::String(text) => {
            let parsed = text
                .trim_start()
                .starts_with('{')
                .then(|| serde_json::from_str::<Value>(text).ok())
                .flatten();
            match parsed {
                Some(Value::Object(fields))
                    if fields.get("output").is_some_and(Value::is_string) =>
                {
                    result.text = fields
                        .get("output")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    if let Some(metadata) = fields.get("metadata") {
                        result.exit_code = metadata.get("exit_code").and_then(Value::as_i64);
                        result.extras = Some(json!({"metadata": metadata}));
                    }
                }
                _ => result.text = text.clone(),
            }
        }
        Value::Object(fields) => {
            let body = fields
                .get("content")
                .or_else(|| fields.get("content_items"))
                .or_else(|| fields.get("text"))
                .or_else(|| fields.get("output"));
            result.text = match body {
                Some(body) => content_text(body),
                None => compact_json(output),
            };
            let extras = pick(output, &["success", "metadata"]);
            if extras.as_object().is_some_and(|e| !e.is_empty()) {
                result.exit_code = fields
                    .get("metadata")
                    .and_then(|m| m.get("exit_code"))
                    .and_then(Value::as_i64);
                result.extras = Some(extras);
            }
        }
        Value::Array(_) => result.text = content_text(output),
        Value::Null => {}
        other => result.text = other.to_string(),
    }
    if result.exit_code.is_none() {
        result.exit_code = exit_code_from_text(&result.text);
    }
    result
}

/// Exit code from the header the shell tools prepend (`Exit code: N`, `Process exited with code
/// N`) or from a sandbox failure message (`... exit code: N, stdout: ...`). Only the header lines
/// before `Output:` are read, so program output cannot fake it.
fn exit_code_from_text(text: &str) -> Option<i64> {
    for line in text.lines().take(8) {
        let line = line.trim();
        if line == "Output:" {
            break;
        }
        for prefix in ["Exit code:", "Process exited with code"] {
            if let Some(rest) = line.strip_prefix(prefix) {
                return leading_integer(rest);
            }
        }
    }
    let first_line = text.lines().next().unwrap_or("");
    if first_line.starts_with("failed in sandbox") || first_line.contains("execution error") {
        let at = first_line.find("exit code: ")?;
        return leading_integer(&first_line[at + "exit code: ".len()..]);
    }
    None
}

fn leading_integer(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let end = text
        .char_indices()
        .find(|(index, c)| !(c.is_ascii_digit() || (*index == 0 && *c == '-')))
        .map_or(text.len(), |(index, _)| index);
    text[..end].parse().ok()
}

/// Readable text of message content (string, or a list of typed parts).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::String(text) => Some(text.clone()),
                    Value::Object(_) => match str_field(part, "type").unwrap_or("") {
                        "input_image" | "image" | "inputImage" => Some("[image]".to_string()),
                        "encrypted_content" => None,
                        _ => str_field(part, "text").map(str::to_string),
                    },
                    _ => None,
                })
                .collect();
            texts.join("\n")
        }
        Value::Object(_) => str_field(content, "text")
            .map(str::to_string)
            .unwrap_or_else(|| compact_json(content)),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The typed text of message content alone (no image placeholders), trimmed: what an
/// `event_msg` copy of the same message carries, for duplicate detection.
fn match_text(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(text) => Some(text.as_str()),
                _ => str_field(part, "text"),
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        other => content_text(other).trim().to_string(),
    }
}

/// Summary parts of a reasoning item, else its raw reasoning text parts.
fn reasoning_parts(payload: &Value) -> Vec<String> {
    let texts = |key: &str| -> Vec<String> {
        payload
            .get(key)
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|part| str_field(part, "text"))
                    .filter(|text| !text.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let summary = texts("summary");
    if summary.is_empty() {
        texts("content")
    } else {
        summary
    }
}

/// The kind of injected context a user-role text is, or `None` for text a person typed.
fn injected_kind(text: &str) -> Option<String> {
    const TAGS: [&str; 16] = [
        "environment_context",
        "user_instructions",
        "turn_aborted",
        "INSTRUCTIONS",
        "permissions instructions",
        "collaboration_mode",
        "user_shell_command",
        "subagent_notification",
        "skill",
        "personality_spec",
        "apps_instructions",
        "developer_instructions",
        "user_action",
        "model_switch",
        "realtime_conversation",
        "plugins",
    ];
    let trimmed = text.trim();
    if trimmed.starts_with("# AGENTS.md instructions") {
        return Some("agents_md".to_string());
    }
    let tag = trimmed
        .strip_prefix('<')
        .and_then(|rest| rest.split_once('>'))
        .map(|(tag, _)| tag)?;
    let name = tag.split_whitespace().next().unwrap_or("");
    if TAGS.contains(&tag) || TAGS.contains(&name) {
        return Some(tag.replace(' ', "_"));
    }
    // Any other message wrapped whole in one tag pair is harness-generated too.
    let closing = format!("</{tag}>");
    (!tag.is_empty() && !tag.contains('<') && trimmed.ends_with(&closing))
        .then(|| tag.replace(' ', "_"))
}

/// The working directory named in an `<environment_context>` block (`<cwd>X</cwd>` or the
/// 2025 `Current working directory: X` line).
fn environment_cwd(text: &str) -> Option<String> {
    let cwd = if let Some((_, rest)) = text.split_once("<cwd>") {
        rest.split_once("</cwd>").map(|(cwd, _)| cwd)
    } else {
        text.lines()
            .find_map(|line| line.trim().strip_prefix("Current working directory:"))
    };
    cwd.map(str::trim)
        .filter(|cwd| !cwd.is_empty())
        .map(str::to_string)
}

fn token_count_text(payload: &Value) -> String {
    let Some(info) = payload.get("info").filter(|info| !info.is_null()) else {
        return "token_count (rate limits only)".to_string();
    };
    let usage = info
        .get("last_token_usage")
        .or_else(|| info.get("total_token_usage"))
        .unwrap_or(&NULL);
    let fields: Vec<String> = [
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
        "total_tokens",
    ]
    .iter()
    .filter_map(|key| {
        usage
            .get(*key)
            .and_then(Value::as_i64)
            .map(|n| format!("{}={n}", key.trim_end_matches("_tokens")))
    })
    .collect();
    format!("token_count {}", fields.join(" "))
}

fn tool_search_text(payload: &Value) -> String {
    fn names(value: &Value, out: &mut Vec<String>) {
        if let Some(tools) = value.get("tools").and_then(Value::as_array) {
            for tool in tools {
                if let Some(name) = str_field(tool, "name") {
                    out.push(name.to_string());
                }
                names(tool, out);
            }
        }
    }
    let mut found = Vec::new();
    names(payload, &mut found);
    format!("tools found: {}", found.join(", "))
}

fn web_results_text(results: &[Value]) -> String {
    results
        .iter()
        .map(|result| {
            ["title", "url", "snippet"]
                .iter()
                .filter_map(|key| str_field(result, key))
                .collect::<Vec<_>>()
                .join(" - ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text for an event kind that is kept as-is: its message-like field, else its kind.
fn generic_text(kind: &str, payload: &Value) -> String {
    for key in [
        "message",
        "text",
        "reason",
        "user_facing_hint",
        "thread_name",
    ] {
        if let Some(text) = str_field(payload, key).filter(|t| !t.trim().is_empty()) {
            return format!("{kind}: {text}");
        }
    }
    if let Some(review) = payload.get("review_output") {
        let mut lines = Vec::new();
        if let Some(text) = str_field(review, "overall_explanation") {
            lines.push(text.to_string());
        }
        for finding in review
            .get("findings")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let title = str_field(finding, "title").unwrap_or("");
            let body = str_field(finding, "body").unwrap_or("");
            lines.push(format!("{title}: {body}"));
        }
        return format!("{kind}: {}", lines.join("\n"));
    }
    if let Some(objective) = payload.get("goal").and_then(|g| str_field(g, "objective")) {
        return format!("{kind}: {objective}");
    }
    kind.to_string()
}

fn pick(payload: &Value, keys: &[&str]) -> Value {
    let mut picked = Map::new();
    for key in keys {
        if let Some(value) = payload.get(*key).filter(|v| !v.is_null()) {
            picked.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(picked)
}

fn compact_json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// Session id from `rollout-<time>-<uuid>.jsonl`, else the file stem.
fn id_from_path(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("codex-session");
    let tail = stem
        .char_indices()
        .rev()
        .nth(35)
        .map(|(index, _)| &stem[index..]);
    match tail {
        Some(candidate)
            if candidate.len() == 36
                && candidate.chars().all(|c| c.is_ascii_hexdigit() || c == '-') =>
        {
            candidate.to_string()
        }
        _ => stem.to_string(),
    }
}

#[cfg(test)]
mod tests;
