//! Handlers for the session's own records: response items, `event_msg` events, turn context,
//! compaction and inter-agent messages (TRAE CLI's `history_mutation` in `mutation`,
//! `item_completed` turn items in `items`).

use serde_json::{Map, Value, json};

use super::index::ReplySource;
use super::parser::Parser;
use super::text::{
    content_text, environment_cwd, generic_text, injected_kind, match_text, reasoning_parts,
    str_field, token_count_text, tool_search_text,
};
use super::tools::{
    ToolOutput, call_arguments, call_name_and_id, event_call_id, is_tool_event, tool_output,
};
use super::{Line, NULL};
use crate::model::{EventType, TurnEnd};

impl Parser<'_, '_, '_> {
    pub(super) fn on_record(&mut self, position: usize, record: &Line<'_>) {
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
            "history_mutation" => self.on_history_mutation(record),
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
                self.push_call_output(record)
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

    /// A call output item (a response item, or one a `history_mutation` append carries).
    pub(super) fn push_call_output(&mut self, record: &Line<'_>) {
        let payload = record.payload;
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

    /// A message item (a response item, or one a `history_mutation` append carries that no
    /// response item repeats).
    pub(super) fn on_message(&mut self, record: &Line<'_>) {
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
                } else if self.index.has_user_message_events || self.reads_trae_prompts() {
                    let typed = match_text(payload.get("content").unwrap_or(&NULL));
                    if self.index.user_message_texts.contains(&typed)
                        || self.index.item_user_texts.contains(&typed)
                        || self.index.mutation.prompt_texts.contains(&typed)
                    {
                        // The model-facing copy of a prompt read from an event: skipped.
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
                if !self
                    .index
                    .reply_read_before(ReplySource::AgentMessageEvent, text.trim())
                {
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
                let trimmed = text.trim();
                if !self.index.reasoning_texts.contains(trimmed)
                    && !self.index.mutation.reasoning_texts.contains(trimmed)
                {
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
                self.count_tokens(payload);
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
}
