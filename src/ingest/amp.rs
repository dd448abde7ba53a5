//! Amp (Sourcegraph) threads (`$XDG_DATA_HOME/amp/threads/T-<uuid>.json`): one JSON document
//! per thread, rewritten whole as it grows: `{v, id: "T-…", created (epoch ms), title,
//! messages[], env.initial {trees[{uri}], platform {clientVersion}}, usageLedger, ~debug}`.
//!
//! Messages carry Anthropic-style blocks: user messages `text` and `tool_result {toolUseID,
//! run {status, result, error}}`, with `meta.sentAt` (epoch ms) as their time; assistant
//! messages `thinking`, `text` and `tool_use {id, name, input}`, with `state.stopReason` and
//! `usage {model, inputTokens, cacheCreationInputTokens, cacheReadInputTokens,
//! totalInputTokens, outputTokens, timestamp?}` per inference. Assistant messages without a
//! usage timestamp get inferred times. `~debug` (the last request, replayed history included)
//! is not conversation and is never read; neither is the `secrets.json` beside the threads.
//! A thread handed off from another names it in `relationships[{type: "handoff", role:
//! "parent", threadID}]`: its parent session.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, block_text, only_tagged_blocks, plain_event, reported_exit_code, text_field,
    tool_call, tool_response,
};
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd, add_counts, parse_timestamp,
};

/// An Amp thread: an object whose `id` is `T-…` with a `messages` array.
pub fn sniff(value: &Value) -> bool {
    value
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.starts_with("T-"))
        && value.get("messages").is_some_and(Value::is_array)
        && (value.get("v").is_some() || value.get("created").is_some())
}

/// The thread this one was handed off from: `relationships[{type: "handoff", role: "parent",
/// threadID}]` names the parent thread.
fn handoff_parent(thread: &Value) -> Option<String> {
    thread
        .get("relationships")?
        .as_array()?
        .iter()
        .find(|relation| {
            relation.get("type").and_then(Value::as_str) == Some("handoff")
                && relation.get("role").and_then(Value::as_str) == Some("parent")
        })
        .and_then(|relation| text_field(relation, "threadID"))
}

pub fn parse(path: &Path, thread: &Value) -> ParseOutput {
    let mut parser = Parser::default();
    let messages = thread
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, message) in messages.iter().enumerate() {
        parser.message(index, message);
    }
    let native_id = text_field(thread, "id").unwrap_or_else(|| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("thread")
            .to_string()
    });
    let initial = thread.pointer("/env/initial");
    let meta = SessionMeta {
        title: text_field(thread, "title"),
        cwd: initial
            .and_then(|initial| initial.pointer("/trees/0/uri"))
            .and_then(Value::as_str)
            .map(|uri| uri.strip_prefix("file://").unwrap_or(uri).to_string()),
        harness_version: initial
            .and_then(|initial| initial.pointer("/platform/clientVersion"))
            .and_then(Value::as_str)
            .map(str::to_string),
        started_at: thread.get("created").and_then(parse_timestamp),
        model: parser.first_model.clone(),
        parent_native_id: handoff_parent(thread),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Amp,
            native_id,
            meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// Tool call id -> tool name.
    calls: HashMap<String, String>,
    first_model: Option<String>,
    model: Option<String>,
}

impl Parser {
    fn message(&mut self, index: usize, message: &Value) {
        let line = index as u64 + 1;
        let id = message
            .get("messageId")
            .map(|id| id.to_string())
            .unwrap_or_else(|| format!("index{index}"));
        let key = format!("msg.{id}");
        let usage = message.get("usage");
        let time = message
            .pointer("/meta/sentAt")
            .and_then(parse_timestamp)
            .or_else(|| {
                usage
                    .and_then(|usage| usage.get("timestamp"))
                    .and_then(parse_timestamp)
            });
        let blocks = message
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" => {
                for (block_index, block) in blocks.iter().enumerate() {
                    self.user_block(format!("{key}.{block_index}"), line, time, block);
                }
            }
            "assistant" => self.assistant(&key, line, time, message, blocks),
            other => self.warnings.push(ParseWarning {
                line,
                message: format!("message of role {other:?} skipped"),
            }),
        }
    }

    fn user_block(&mut self, key: String, line: u64, time: Option<DateTime<Utc>>, block: &Value) {
        match block.get("type").and_then(Value::as_str).unwrap_or("text") {
            "text" => {
                let text = block_text(block);
                if text.trim().is_empty() {
                    return;
                }
                if only_tagged_blocks(&text) {
                    self.events.push(plain_event(
                        key,
                        EventType::System,
                        line,
                        time,
                        text,
                        Some("context"),
                    ));
                } else {
                    let mut event = plain_event(key, EventType::UserInput, line, time, text, None);
                    event.starts_turn = true;
                    self.events.push(event);
                }
            }
            "tool_result" => self.tool_result(key, line, time, block),
            other => self.warnings.push(ParseWarning {
                line,
                message: format!("user block of type {other:?} skipped"),
            }),
        }
    }

    fn tool_result(&mut self, key: String, line: u64, time: Option<DateTime<Utc>>, block: &Value) {
        let call_id = text_field(block, "toolUseID").or_else(|| text_field(block, "tool_use_id"));
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let run = block.get("run").unwrap_or(&Value::Null);
        let status = text_field(run, "status").unwrap_or_default();
        let result = run.get("result").filter(|result| !result.is_null());
        let failed = status == "error"
            || status == "cancelled"
            || status.starts_with("rejected")
            || result
                .and_then(|result| result.get("success"))
                .and_then(Value::as_bool)
                == Some(false);
        let text = match result {
            Some(result) => result_text(result),
            None => run
                .get("error")
                .and_then(|error| text_field(error, "message"))
                .unwrap_or_else(|| format!("[{status}]")),
        };
        let mut event = tool_response(key, line, time, &name, call_id.as_deref(), text, failed);
        if status == "cancelled" {
            event.subtype = Some("cancelled".into());
        }
        event.exit_code = result
            .and_then(|result| result.get("exitCode"))
            .and_then(Value::as_i64)
            .or_else(|| reported_exit_code(&event.text));
        event.originating_model = self.model.clone();
        self.events.push(event);
    }

    fn assistant(
        &mut self,
        key: &str,
        line: u64,
        time: Option<DateTime<Utc>>,
        message: &Value,
        blocks: &[Value],
    ) {
        let usage = message.get("usage");
        if let Some(model) = usage.and_then(|usage| text_field(usage, "model")) {
            self.first_model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        let model = self.model.clone();
        let first_event = self.events.len();
        let mut reply_at = None;
        for (index, block) in blocks.iter().enumerate() {
            let block_key = format!("{key}.{index}");
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            let event = match kind {
                "thinking" => text_field(block, "thinking").map(|text| {
                    plain_event(block_key, EventType::Reasoning, line, time, text, None)
                }),
                "text" => text_field(block, "text").map(|text| {
                    plain_event(
                        block_key,
                        EventType::AssistantResponse,
                        line,
                        time,
                        text,
                        None,
                    )
                }),
                "tool_use" => {
                    let name = text_field(block, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
                    let call_id = text_field(block, "id");
                    let arguments = block.get("input").cloned().unwrap_or(Value::Null);
                    if let Some(call_id) = &call_id {
                        self.calls.insert(call_id.clone(), name.clone());
                    }
                    Some(tool_call(
                        block_key,
                        line,
                        time,
                        &name,
                        call_id.as_deref(),
                        arguments,
                    ))
                }
                _ => None,
            };
            if let Some(mut event) = event {
                if event.kind != EventType::ToolCall {
                    event.model = model.clone();
                }
                event.originating_model = model.clone();
                if event.kind == EventType::AssistantResponse {
                    reply_at = Some(self.events.len());
                }
                self.events.push(event);
            }
        }
        let stop = message.pointer("/state/stopReason").and_then(Value::as_str);
        if let (Some("end_turn"), Some(reply)) = (stop, reply_at) {
            self.events[reply].turn_end = Some(TurnEnd::Terminal);
        }
        if let Some(usage) = usage.and_then(usage_of) {
            let own = first_event..self.events.len();
            let target = reply_at
                .or_else(|| (!own.is_empty()).then_some(first_event))
                .or_else(|| self.events.len().checked_sub(1));
            if let Some(target) = target {
                TokenUsage::attach(&mut self.events[target], usage);
            }
        }
    }
}

/// A tool's result: a string, the `output` / `content` / `diff` of an object, else its JSON.
fn result_text(result: &Value) -> String {
    match result {
        Value::String(text) => text.clone(),
        Value::Object(fields) => ["output", "content", "diff"]
            .iter()
            .find_map(|field| fields.get(*field))
            .map(|field| match field {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .unwrap_or_else(|| result.to_string()),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// One inference's usage: the prompt is split into fresh, cache-write and cache-read buckets
/// (`totalInputTokens` is their sum).
fn usage_of(usage: &Value) -> Option<TokenUsage> {
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    let buckets = add_counts(
        add_counts(count("inputTokens"), count("cacheCreationInputTokens")),
        count("cacheReadInputTokens"),
    );
    let input = count("totalInputTokens").or(buckets);
    let output = count("outputTokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(
        TokenUsage {
            input,
            cached_input: count("cacheReadInputTokens"),
            output,
            reasoning: None,
            total: None,
        }
        .with_derived_total(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_handed_off_thread_links_to_its_parent() {
        let thread = json!({"v": 200, "id": "T-child", "created": 1761596306663_i64,
            "relationships": [
                {"type": "handoff", "role": "child", "threadID": "T-grandchild"},
                {"type": "handoff", "role": "parent", "threadID": "T-parent", "comment": "continue"}
            ],
            "messages": [{"role": "user", "messageId": 0,
                "content": [{"type": "text", "text": "carry on with the ferret deploy"}]}]});
        let output = parse(Path::new("T-child.json"), &thread);
        assert_eq!(
            output.sessions[0].meta.parent_native_id.as_deref(),
            Some("T-parent")
        );
        let alone = json!({"v": 200, "id": "T-alone", "created": 1, "messages": []});
        let output = parse(Path::new("T-alone.json"), &alone);
        assert!(
            output
                .sessions
                .iter()
                .all(|session| session.meta.parent_native_id.is_none())
        );
    }
}
