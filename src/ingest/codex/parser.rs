//! The parser state over one rollout: the main loop, event emission with `L<line>.<n>` keys,
//! the session's own `session_meta`, and the final model back-fill.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::fork::{ReplayScan, meta_id, scan_replay};
use super::index::Index;
use super::mutation::MutationProgress;
use super::text::{generic_text, id_from_path, str_field};
use super::{Line, NULL};
use crate::model::{
    EventType, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// Events a model call produces, which carry its token usage.
fn is_model_output(kind: EventType) -> bool {
    matches!(
        kind,
        EventType::AssistantResponse | EventType::Reasoning | EventType::ToolCall
    )
}

/// A Codex usage object (`input_tokens` already includes `cached_input_tokens`, and
/// `output_tokens` includes `reasoning_output_tokens`, as in esker's columns).
fn codex_usage(usage: &Value) -> TokenUsage {
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    TokenUsage {
        input: count("input_tokens"),
        cached_input: count("cached_input_tokens"),
        output: count("output_tokens"),
        reasoning: count("reasoning_output_tokens"),
        total: count("total_tokens"),
    }
    .with_derived_total()
}

/// Field-wise `later - earlier` of two cumulative usages.
fn difference(later: TokenUsage, earlier: TokenUsage) -> TokenUsage {
    let minus =
        |later: Option<i64>, earlier: Option<i64>| later.map(|later| later - earlier.unwrap_or(0));
    TokenUsage {
        input: minus(later.input, earlier.input),
        cached_input: minus(later.cached_input, earlier.cached_input),
        output: minus(later.output, earlier.output),
        reasoning: minus(later.reasoning, earlier.reasoning),
        total: minus(later.total, earlier.total),
    }
}

pub(super) struct Parser<'r, 'a, 'w> {
    pub(super) records: &'r [Line<'a>],
    pub(super) path: &'r Path,
    /// The harness that wrote the rollout (Codex, or TRAE CLI's fork of it).
    pub(super) source: Source,
    pub(super) warnings: &'w mut Vec<ParseWarning>,
    pub(super) replay: ReplayScan,
    pub(super) index: Index,
    pub(super) own_meta: Option<usize>,
    pub(super) native_id: String,
    pub(super) meta: SessionMeta,
    pub(super) events: Vec<RawEvent>,
    pub(super) current_model: Option<String>,
    pub(super) emitted_call_ids: HashSet<String>,
    /// What the `history_mutation` appends read so far gave.
    pub(super) mutation_progress: MutationProgress,
    /// Line number and count of events already emitted for it (for `.n` keys).
    pub(super) line_slot: (u64, usize),
    /// `total_token_usage` of the last counted `token_count` (Codex repeats a report verbatim).
    pub(super) last_total_usage: Option<Value>,
    /// Usage reported before any model output it could belong to.
    pub(super) pending_usage: Option<TokenUsage>,
}

impl<'r, 'a, 'w> Parser<'r, 'a, 'w> {
    pub(super) fn new(
        records: &'r [Line<'a>],
        path: &'r Path,
        source: Source,
        warnings: &'w mut Vec<ParseWarning>,
    ) -> Self {
        let own_meta = records.iter().position(|r| r.kind == "session_meta");
        let native_id = own_meta
            .map(|index| meta_id(records[index].payload))
            .filter(|id| !id.is_empty())
            .unwrap_or_default();
        let replay = scan_replay(records, own_meta, &native_id);
        Parser {
            records,
            path,
            source,
            warnings,
            replay,
            index: Index::default(),
            own_meta,
            native_id,
            meta: SessionMeta::default(),
            events: Vec::new(),
            current_model: None,
            emitted_call_ids: HashSet::new(),
            mutation_progress: MutationProgress::default(),
            line_slot: (0, 0),
            last_total_usage: None,
            pending_usage: None,
        }
    }

    pub(super) fn is_own(&self, index: usize) -> bool {
        !self.replay.in_replay[index] && !self.replay.own_meta_repeats.contains(&index)
    }

    pub(super) fn run(&mut self) -> ParsedSession {
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
        if let Some(usage) = self.pending_usage.take()
            && let Some(last) = self.events.last_mut()
        {
            TokenUsage::attach(last, usage);
        }
        ParsedSession {
            source: self.source,
            native_id: self.native_id.clone(),
            meta: std::mem::take(&mut self.meta),
            events: std::mem::take(&mut self.events),
        }
    }

    // ---- emission helpers -------------------------------------------------------------------

    pub(super) fn push(
        &mut self,
        record: &Line<'_>,
        kind: EventType,
        text: String,
    ) -> &mut RawEvent {
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
        if is_model_output(kind)
            && let Some(usage) = self.pending_usage.take()
        {
            TokenUsage::attach(&mut event, usage);
        }
        self.events.push(event);
        let last = self.events.len() - 1;
        &mut self.events[last]
    }

    /// Counts a `token_count` report once: its per-call `last_token_usage` goes to the latest
    /// model output (or the next one, when none came yet). A report whose cumulative
    /// `total_token_usage` equals the previous one repeats it and is not counted again.
    pub(super) fn count_tokens(&mut self, payload: &Value) {
        let Some(info) = payload.get("info").filter(|info| !info.is_null()) else {
            return;
        };
        let total = info
            .get("total_token_usage")
            .filter(|total| total.is_object());
        if total.is_some() && total == self.last_total_usage.as_ref() {
            return;
        }
        let per_call = match info.get("last_token_usage").filter(|last| last.is_object()) {
            Some(last) => Some(codex_usage(last)),
            None => total.map(|total| {
                let previous = self.last_total_usage.as_ref().map(codex_usage);
                difference(codex_usage(total), previous.unwrap_or_default())
            }),
        };
        if let Some(total) = total {
            self.last_total_usage = Some(total.clone());
        }
        let Some(usage) = per_call else {
            return;
        };
        match self
            .events
            .iter_mut()
            .rev()
            .find(|event| is_model_output(event.kind))
        {
            Some(output) => TokenUsage::attach(output, usage),
            None => {
                let pending = self.pending_usage.take();
                self.pending_usage = Some(pending.map_or(usage, |earlier| earlier + usage));
            }
        }
    }

    pub(super) fn push_generic(&mut self, record: &Line<'_>, kind: EventType, subtype: &str) {
        let text = generic_text(subtype, record.payload);
        let payload = record.payload.clone();
        let event = self.push(record, kind, text);
        event.subtype = Some(subtype.to_string());
        event.payload = Some(payload);
    }

    pub(super) fn push_unknown(&mut self, record: &Line<'_>) {
        let label = match (record.kind, record.payload_type()) {
            (kind, "") => kind.to_string(),
            (kind, item) => format!("{kind}/{item}"),
        };
        self.push_unknown_as(record, label, record.raw.clone());
    }

    /// An unknown record (or part of one) under `label`, which the index run counts and reports
    /// by label; `raw` is kept as its payload.
    pub(super) fn push_unknown_as(&mut self, record: &Line<'_>, label: String, raw: Value) {
        let event = self.push(
            record,
            EventType::Unknown,
            format!("[unknown record {label}]"),
        );
        event.subtype = Some(label);
        event.payload = Some(raw);
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
        let harness = match self.source {
            Source::TraeCli => "TRAE CLI",
            _ => "Codex",
        };
        let mut text = format!("{harness} session {}", self.native_id);
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

    pub(super) fn set_model(&mut self, model: &str) {
        if model.is_empty() {
            return;
        }
        self.current_model = Some(model.to_string());
        if self.meta.model.is_none() {
            self.meta.model = Some(model.to_string());
        }
    }
}
