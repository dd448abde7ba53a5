//! TRAE CLI's own `history_mutation` records: what an `append` adds to the model's history
//! (prompts, replies, reasoning, tool calls and results) is read where no Codex record carries
//! it; a `replace` or `rollback` leaves one marker; any other operation is an unknown record.
//!
//! Shapes and rules from `docs/HARNESS-RESEARCH.md` section 2 (deja-vu's TRAE registry page and
//! the readers it names): `{turn_id, operation, display_completions?: [{turn_id, item}], items}`
//! where `items` are Responses-API items as in `response_item` payloads and
//! `display_completions` turn items as in `item_completed`. A call seen both here and as a
//! response item is read once, by `call_id`; a message a response item repeats is read once
//! per time it is said; a `replace` re-sends history the file already holds and is not read
//! again (nor a `rollback`'s items: readers treat both as historical replacements).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::index::{Index, user_message_item_text};
use super::parser::Parser;
use super::text::{match_text, reasoning_parts, str_field};
use super::tools::{call_arguments, call_name_and_id, is_call_output};
use super::{Line, NULL};
use crate::model::EventType;

/// Item types an append may hold that carry nothing to read: Codex's `/undo` git snapshots and
/// TRAE's own bookkeeping (shape unknown, ignored by every reader).
const CONTENTLESS_ITEM_TYPES: [&str; 2] = ["ghost_snapshot", "trae_extra_info"];

/// What the session's own `history_mutation` appends carry, gathered before any event is
/// emitted (their copies elsewhere can come before or after them).
#[derive(Default)]
pub(super) struct MutationIndex {
    /// Call ids of their calls: a tool lifecycle event or turn item of one is a copy.
    pub(super) call_ids: HashSet<String>,
    /// Their assistant reply texts: an `item_completed` `AgentMessage` or `agent_message`
    /// event with one is a copy.
    pub(super) reply_texts: HashSet<String>,
    /// Their reasoning texts: an `agent_reasoning` event with one is a copy.
    pub(super) reasoning_texts: HashSet<String>,
    /// Their `display_completions` `UserMessage` texts: TRAE's prompts.
    pub(super) prompt_texts: HashSet<String>,
    /// Whether the session has an append at all (Codex's own rollouts have none).
    pub(super) has_appends: bool,
}

/// What the appends read so far gave (a later append may show it again).
#[derive(Default)]
pub(super) struct MutationProgress {
    /// Call ids whose result was read from an append.
    answered_call_ids: HashSet<String>,
    /// Prompts read from `display_completions`, by turn id and text.
    displayed_prompts: HashSet<(String, String)>,
}

/// The array `payload[key]`, empty when absent or not an array.
fn list<'v>(payload: &'v Value, key: &str) -> &'v [Value] {
    payload
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn is_append(payload: &Value) -> bool {
    str_field(payload, "operation") == Some("append")
}

/// An assistant message on a reasoning channel (`analysis` / `reasoning`) is reasoning.
fn is_reasoning_channel(item: &Value) -> bool {
    matches!(str_field(item, "channel"), Some("analysis" | "reasoning"))
}

/// A displayed `UserMessage`'s text, empty for any other turn item.
fn displayed_prompt_text(completion: &Value) -> String {
    let item = completion.get("item").unwrap_or(&NULL);
    if str_field(item, "type") == Some("UserMessage") {
        user_message_item_text(item)
    } else {
        String::new()
    }
}

impl Index {
    /// Records what an own `history_mutation` append carries.
    pub(super) fn index_history_mutation(&mut self, payload: &Value) {
        if !is_append(payload) {
            return;
        }
        self.mutation.has_appends = true;
        for completion in list(payload, "display_completions") {
            let text = displayed_prompt_text(completion);
            if !text.is_empty() {
                self.mutation.prompt_texts.insert(text);
            }
        }
        for item in list(payload, "items") {
            self.index_appended_item(item);
        }
    }

    fn index_appended_item(&mut self, item: &Value) {
        if let Some((name, Some(id))) = call_name_and_id(item) {
            self.call_names.entry(id.clone()).or_insert(name);
            self.mutation.call_ids.insert(id);
            return;
        }
        match str_field(item, "type") {
            Some("reasoning") => {
                let parts = reasoning_parts(item).into_iter();
                let texts = parts.map(|part| part.trim().to_string());
                self.mutation.reasoning_texts.extend(texts);
            }
            Some("message") if str_field(item, "role") == Some("assistant") => {
                let text = match_text(item.get("content").unwrap_or(&NULL));
                if is_reasoning_channel(item) {
                    self.mutation.reasoning_texts.insert(text);
                } else {
                    self.mutation.reply_texts.insert(text);
                }
            }
            _ => {}
        }
    }
}

impl Parser<'_, '_, '_> {
    pub(super) fn on_history_mutation(&mut self, record: &Line<'_>) {
        match str_field(record.payload, "operation") {
            Some("append") => self.on_history_append(record),
            Some(operation @ ("replace" | "rollback")) => {
                self.push_history_marker(record, operation)
            }
            Some(operation) => {
                let label = format!("history_mutation/{operation}");
                self.push_unknown_as(record, label, record.raw.clone());
            }
            None => self.push_unknown(record),
        }
    }

    /// An append: its displayed prompt, then its items, each unless another record carries it.
    fn on_history_append(&mut self, record: &Line<'_>) {
        for completion in list(record.payload, "display_completions") {
            self.on_displayed_prompt(record, completion);
        }
        for item in list(record.payload, "items") {
            let item = Line {
                number: record.number,
                kind: record.kind,
                payload: item,
                raw: item,
                timestamp: record.timestamp,
            };
            self.on_appended_item(&item);
        }
    }

    /// TRAE's prompt as displayed, read when no `user_message` event or `item_completed` item
    /// carries the same words, once per turn.
    fn on_displayed_prompt(&mut self, record: &Line<'_>, completion: &Value) {
        let text = displayed_prompt_text(completion);
        if text.is_empty()
            || !self.reads_trae_prompts()
            || self.index.user_message_texts.contains(&text)
            || self.index.item_user_texts.contains(&text)
        {
            return;
        }
        let turn = str_field(completion, "turn_id")
            .or_else(|| str_field(record.payload, "turn_id"))
            .unwrap_or_default()
            .to_string();
        if !self
            .mutation_progress
            .displayed_prompts
            .insert((turn, text.clone()))
        {
            return;
        }
        let event = self.push(record, EventType::UserInput, text);
        event.starts_turn = true;
    }

    fn on_appended_item(&mut self, item: &Line<'_>) {
        let kind = item.payload_type();
        match kind {
            "message" => self.on_appended_message(item),
            "reasoning" => self.push_appended_reasoning(item, &reasoning_parts(item.payload)),
            _ if is_call_output(kind) => self.on_appended_output(item),
            _ if call_name_and_id(item.payload).is_some() => self.on_appended_call(item),
            _ if CONTENTLESS_ITEM_TYPES.contains(&kind) => {}
            _ => {
                let label = format!(
                    "history_mutation/{}",
                    if kind.is_empty() { "item" } else { kind }
                );
                self.push_unknown_as(item, label, item.raw.clone());
            }
        }
    }

    /// A message no response item repeats: read as a response item's would be (reasoning when
    /// on a reasoning channel).
    fn on_appended_message(&mut self, item: &Line<'_>) {
        let payload = item.payload;
        let role = str_field(payload, "role").unwrap_or("");
        let typed = match_text(payload.get("content").unwrap_or(&NULL));
        if self.index.response_messages.take(role, &typed) {
            return;
        }
        if role == "assistant" && is_reasoning_channel(payload) {
            self.push_appended_reasoning(item, &[typed]);
        } else {
            self.on_message(item);
        }
    }

    /// Reasoning with readable text that no reasoning response item carries.
    fn push_appended_reasoning(&mut self, item: &Line<'_>, parts: &[String]) {
        let parts: Vec<String> = parts
            .iter()
            .map(|part| part.trim())
            .filter(|part| !part.is_empty())
            .map(str::to_string)
            .collect();
        let known = |part: &String| self.index.reasoning_texts.contains(part);
        if parts.is_empty() || parts.iter().all(known) {
            return;
        }
        self.push(item, EventType::Reasoning, parts.join("\n\n"));
    }

    /// A call no response item (or earlier append) carries.
    fn on_appended_call(&mut self, item: &Line<'_>) {
        let (name, id) = call_name_and_id(item.payload).unwrap_or_default();
        if let Some(id) = &id
            && (self.index.response_call_ids.contains(id) || self.emitted_call_ids.contains(id))
        {
            return;
        }
        self.push_tool_call(item, &name, id, call_arguments(item.payload));
    }

    /// A call's output that no output response item (or earlier append) carries, and whose
    /// call no tool lifecycle event stands for.
    fn on_appended_output(&mut self, item: &Line<'_>) {
        if let Some(id) = str_field(item.payload, "call_id")
            && (self.index.result_outside_mutations(id)
                || !self
                    .mutation_progress
                    .answered_call_ids
                    .insert(id.to_string()))
        {
            return;
        }
        self.push_call_output(item);
    }

    /// One `system` event for a `replace` or `rollback`: its fields but the items themselves,
    /// which are not read again, with their count.
    fn push_history_marker(&mut self, record: &Line<'_>, operation: &str) {
        let items = list(record.payload, "items").len();
        let mut details: Map<String, Value> = record
            .payload
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, _)| !matches!(key.as_str(), "items" | "display_completions"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        details.insert("items".to_string(), json!(items));
        let text = match (operation, items) {
            ("rollback", 0) => "[conversation history rolled back]".to_string(),
            ("rollback", items) => {
                format!("[conversation history rolled back; its {items} items not read again]")
            }
            (_, items) => {
                format!("[conversation history replaced; its {items} items not read again]")
            }
        };
        let event = self.push(record, EventType::System, text);
        event.subtype = Some(format!("history_{operation}"));
        event.payload = Some(Value::Object(details));
    }
}
