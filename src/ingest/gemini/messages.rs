//! Event emission per message: prompts, hints, notices and synthetic history, and `gemini`
//! messages (reasoning, reply text, then their tool calls).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::classify::Class;
use super::text::{has_function_responses, parts_text, thought_text};
use super::{Slot, warning};
use crate::ingest::content::usage_carrier;
use crate::model::{
    EventType, ParseWarning, RawEvent, TokenUsage, TurnEnd, add_counts, parse_timestamp,
};

pub(super) struct Builder<'a> {
    pub(super) events: Vec<RawEvent>,
    /// Model in effect (last model seen on a gemini message).
    pub(super) model: Option<String>,
    /// Tool call id -> tool name for every call recorded in a `toolCalls` array.
    pub(super) recorded_calls: HashMap<&'a str, &'a str>,
}

impl Builder<'_> {
    pub(super) fn event(
        &self,
        key: String,
        kind: EventType,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        text: String,
    ) -> RawEvent {
        RawEvent {
            timestamp,
            text,
            originating_model: self.model.clone(),
            ..RawEvent::new(key, kind, line)
        }
    }

    pub(super) fn emit(
        &mut self,
        slot: &Slot,
        class: &Class,
        terminal: bool,
        warnings: &mut Vec<ParseWarning>,
    ) {
        let record = slot.record;
        let key = slot
            .id
            .map(str::to_string)
            .unwrap_or_else(|| slot.fallback_key.clone());
        let timestamp = record.get("timestamp").and_then(parse_timestamp);
        let line = slot.line;
        match class {
            Class::UserPrompt { text, sent } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = true;
                event.payload = sent
                    .as_ref()
                    .map(|sent| serde_json::json!({ "content": sent }));
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::SubagentPrompt { text } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = true;
                event.subtype = Some("subagent_prompt".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::Steering { text, new_turn } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::UserInput,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.starts_turn = *new_turn;
                event.subtype = Some("steering".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::Continuation { text } => {
                let mut event = self.event(
                    key.clone(),
                    EventType::System,
                    line,
                    timestamp,
                    text.clone(),
                );
                event.subtype = Some("continuation".into());
                self.events.push(event);
                self.user_tool_results(record, &key, line, timestamp);
            }
            Class::NoUserText => {
                // Tool results sent back as a user message duplicate `toolCalls[].result`; only
                // results of calls that were never recorded are emitted.
                let before = self.events.len();
                self.user_tool_results(record, &key, line, timestamp);
                if self.events.len() == before && !has_function_responses(record) {
                    warnings.push(warning(line, "user message without text skipped"));
                }
            }
            Class::Gemini => self.gemini(record, &key, line, timestamp, terminal),
            Class::Info { text } => {
                let mut event = self.event(key, EventType::System, line, timestamp, text.clone());
                event.subtype = Some("info".into());
                self.events.push(event);
            }
            Class::Warning { text } => {
                let mut event = self.event(key, EventType::System, line, timestamp, text.clone());
                event.subtype = Some("warning".into());
                self.events.push(event);
            }
            Class::Error { text } => {
                let mut event = self.event(key, EventType::Runtime, line, timestamp, text.clone());
                event.subtype = Some("error".into());
                self.events.push(event);
            }
            Class::Cancelled { text } => {
                let mut event = self.event(key, EventType::Runtime, line, timestamp, text.clone());
                event.subtype = Some("cancelled".into());
                event.turn_end = Some(TurnEnd::Terminal);
                self.events.push(event);
            }
            Class::Synthetic { text } => {
                let kind = if text.contains("<state_snapshot>") {
                    EventType::Compaction
                } else {
                    EventType::System
                };
                let mut event = self.event(key, kind, line, timestamp, text.clone());
                event.subtype = Some("history_sync".into());
                self.events.push(event);
            }
            Class::Unknown => {
                let text = record.get("content").map(parts_text).unwrap_or_default();
                let mut event = self.event(key, EventType::Unknown, line, timestamp, text);
                event.payload = Some(record.clone());
                event.subtype = record
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.events.push(event);
            }
        }
    }

    fn gemini(
        &mut self,
        record: &Value,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
        terminal: bool,
    ) {
        let model = record
            .get("model")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|model| !model.is_empty())
            .map(str::to_string);
        if model.is_some() {
            self.model = model.clone();
        }
        let first_event = self.events.len();
        if let Some(thoughts) = record.get("thoughts").and_then(Value::as_array) {
            for (index, thought) in thoughts.iter().enumerate() {
                let text = thought_text(thought);
                if text.is_empty() {
                    continue;
                }
                let time = thought
                    .get("timestamp")
                    .and_then(parse_timestamp)
                    .or(timestamp);
                let mut event = self.event(
                    format!("{key}.thought.{index}"),
                    EventType::Reasoning,
                    line,
                    time,
                    text,
                );
                event.model = model.clone();
                self.events.push(event);
            }
        }
        let reply = parts_text(record.get("content").unwrap_or(&Value::Null));
        if !reply.trim().is_empty() {
            let mut event = self.event(
                key.to_string(),
                EventType::AssistantResponse,
                line,
                timestamp,
                reply,
            );
            event.model = model.clone();
            if terminal {
                event.turn_end = Some(TurnEnd::Terminal);
            }
            self.events.push(event);
        }
        if let Some(calls) = record.get("toolCalls").and_then(Value::as_array) {
            for (index, call) in calls.iter().enumerate() {
                self.tool_call(call, index, key, line, timestamp);
            }
        }
        if let Some(usage) = record.get("tokens").and_then(gemini_usage) {
            self.attach_usage(first_event, usage);
        }
    }

    /// Sets a message's usage on its reply (else its first event, else the event before it).
    fn attach_usage(&mut self, first_event: usize, usage: TokenUsage) {
        if let Some(target) = usage_carrier(&self.events, first_event) {
            TokenUsage::attach(&mut self.events[target], usage);
        }
    }
}

/// A Gemini `tokens` object `{input, output, cached, thoughts, tool, total}`: tool-use prompt
/// tokens count as input and thoughts as output, so input + output = Gemini's total.
fn gemini_usage(tokens: &Value) -> Option<TokenUsage> {
    let count = |field: &str| tokens.get(field).and_then(Value::as_i64);
    let (input, tool, output, thoughts) = (
        count("input"),
        count("tool"),
        count("output"),
        count("thoughts"),
    );
    if [input, tool, output, thoughts, count("total")]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    Some(
        TokenUsage {
            input: add_counts(input, tool),
            cached_input: count("cached"),
            output: add_counts(output, thoughts),
            reasoning: thoughts,
            total: count("total"),
        }
        .with_derived_total(),
    )
}
