//! Parses one Cursor IDE composer (a Composer / Agent chat of the global `state.vscdb`, read by
//! [`super::ide_store`]) into a session of source `cursor-ide`.
//!
//! A bubble is one message: `type` 1 is the user's (`text`, what they typed), 2 the
//! assistant's. An assistant bubble gives, in order: its reasoning (`thinking.text`, a bare
//! `thinking` string, or `allThinkingBlocks[].text`), its reply (`text`, model from
//! `modelInfo.modelName`), and its tool (`toolFormerData`: `name`, arguments from `rawArgs`
//! else `params`, both JSON text, call id `toolCallId` else the bubble id) with the result in
//! the same bubble (`result`, JSON text: a terminal's `output` and `exitCode`, else the JSON
//! as text) once `status` is final. A call failed when its status is `error` or `cancelled`,
//! the user rejected it, it reports an `error` or `rejected`, or its exit code is non-zero; a
//! running call has no result yet. A bubble with `capabilityType` 22 marks a `/summarize`
//! (the summary stays on Cursor's server): a `compaction` event. `errorDetails` is a `runtime`
//! error. `tokenCount` (`inputTokens`, `outputTokens`, no cache split; zero counts are no
//! usage) is the bubble's model call, on its reply else its first event. Events are keyed by
//! bubble id, so a re-read composer adds only what is new. Times are the bubbles'
//! `createdAt` (ISO text, or ms); older inline conversations have none.
//!
//! The session: title `name`, start `createdAt`, model the first bubble's, else
//! `modelConfig.modelName` (`default` is Cursor's automatic choice, no model), parent
//! `subagentInfo.parentComposerId` (agent name `subagentTypeName`), cwd the workspace's, else
//! a bubble's `workspaceProjectDir` or first `workspaceUris` entry.

use serde_json::Value;

use super::ide_store::{IdeBubble, IdeComposer};
use super::user_text_events;
use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, epoch_time, mark_terminal_replies, plain_event, text_field,
    tool_call, tool_response, usage_carrier,
};
use crate::ingest::vscode_copilot::folder_of_uri;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp,
};

/// Bubble types.
const USER_BUBBLE: i64 = 1;
const ASSISTANT_BUBBLE: i64 = 2;
/// The `capabilityType` of a `/summarize` marker.
const SUMMARIZE_MARKER: i64 = 22;
/// Cursor's automatic model choice: names no model.
const AUTO_MODEL: &str = "default";

/// Parses one composer.
pub fn parse(composer: &IdeComposer) -> ParseOutput {
    let mut parser = Parser {
        composer_model: model_config(&composer.composer),
        ..Parser::default()
    };
    for (index, bubble) in composer.bubbles.iter().enumerate() {
        parser.bubble(index as u64 + 1, bubble);
    }
    mark_terminal_replies(&mut parser.events);
    let mut warnings = composer.warnings.clone();
    warnings.extend(parser.warnings);
    let session = ParsedSession {
        source: Source::CursorIde,
        native_id: composer.id.clone(),
        meta: session_meta(composer, parser.first_model),
        events: parser.events,
    };
    ParseOutput {
        sessions: vec![session],
        warnings,
    }
}

fn session_meta(composer: &IdeComposer, first_model: Option<String>) -> SessionMeta {
    let fields = &composer.composer;
    let subagent = fields.get("subagentInfo").unwrap_or(&Value::Null);
    SessionMeta {
        title: text_field(fields, "name")
            .map(|name| name.trim().to_string())
            .filter(|name| !name.is_empty()),
        cwd: composer
            .cwd
            .clone()
            .or_else(|| composer.bubbles.iter().find_map(bubble_folder)),
        model: first_model.or_else(|| model_config(fields)),
        started_at: epoch_time(fields.get("createdAt").and_then(Value::as_i64)),
        parent_native_id: text_field(subagent, "parentComposerId"),
        agent_name: text_field(subagent, "subagentTypeName"),
        ..SessionMeta::default()
    }
}

/// `modelConfig.modelName`, unless it is Cursor's automatic choice.
fn model_config(composer: &Value) -> Option<String> {
    composer
        .pointer("/modelConfig/modelName")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty() && *name != AUTO_MODEL)
        .map(str::to_string)
}

/// The folder a bubble names: `workspaceProjectDir`, else its first `workspaceUris` entry.
fn bubble_folder(bubble: &IdeBubble) -> Option<String> {
    text_field(&bubble.value, "workspaceProjectDir").or_else(|| {
        bubble
            .value
            .get("workspaceUris")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .find_map(folder_of_uri)
    })
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    composer_model: Option<String>,
    first_model: Option<String>,
}

impl Parser {
    fn bubble(&mut self, line: u64, bubble: &IdeBubble) {
        let value = &bubble.value;
        let time = value
            .get("createdAt")
            .or_else(|| value.get("timestamp"))
            .and_then(parse_timestamp);
        let first_event = self.events.len();
        match value.get("type").and_then(Value::as_i64) {
            Some(USER_BUBBLE) => {
                let text = text_field(value, "text").unwrap_or_default();
                self.events
                    .extend(user_text_events(&bubble.id, line, time, &text));
            }
            Some(ASSISTANT_BUBBLE) => self.assistant(line, time, bubble),
            other => self.warnings.push(ParseWarning {
                line,
                message: format!("bubble {} of type {other:?} skipped", bubble.id),
            }),
        }
        if let Some(usage) = usage_of(value)
            && let Some(carrier) = usage_carrier(&self.events, first_event)
        {
            TokenUsage::attach(&mut self.events[carrier], usage);
        }
    }

    fn assistant(
        &mut self,
        line: u64,
        time: Option<chrono::DateTime<chrono::Utc>>,
        bubble: &IdeBubble,
    ) {
        let value = &bubble.value;
        let id = &bubble.id;
        if value.get("capabilityType").and_then(Value::as_i64) == Some(SUMMARIZE_MARKER) {
            let text = "conversation summarized (the summary is kept on Cursor's server)";
            let event = plain_event(
                id.clone(),
                EventType::Compaction,
                line,
                time,
                text.to_string(),
                Some("summarize"),
            );
            self.events.push(event);
            return;
        }
        let model = self.model_of(value);
        let thinking = thinking_text(value);
        if !thinking.trim().is_empty() {
            let key = format!("{id}.thinking");
            self.model_event(key, EventType::Reasoning, line, time, thinking, &model);
        }
        let text = text_field(value, "text").unwrap_or_default();
        if !text.trim().is_empty() {
            self.model_event(
                id.clone(),
                EventType::AssistantResponse,
                line,
                time,
                text,
                &model,
            );
        }
        if let Some(tool) = value.get("toolFormerData").filter(|tool| tool.is_object()) {
            self.tool(line, time, bubble, tool, &model);
        }
        if let Some(details) = value
            .get("errorDetails")
            .filter(|details| !details.is_null())
        {
            let text = text_field(details, "message")
                .or_else(|| text_field(details, "error"))
                .unwrap_or_else(|| details.to_string());
            let key = format!("{id}.error");
            let event = plain_event(key, EventType::Runtime, line, time, text, Some("error"));
            self.events.push(event);
        }
    }

    /// The bubble's model (`modelInfo.modelName`), else the composer's.
    fn model_of(&mut self, bubble: &Value) -> Option<String> {
        let named = bubble
            .pointer("/modelInfo/modelName")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty() && *name != AUTO_MODEL)
            .map(str::to_string);
        if self.first_model.is_none() {
            self.first_model.clone_from(&named);
        }
        named.or_else(|| self.composer_model.clone())
    }

    fn model_event(
        &mut self,
        key: String,
        kind: EventType,
        line: u64,
        time: Option<chrono::DateTime<chrono::Utc>>,
        text: String,
        model: &Option<String>,
    ) {
        let mut event = plain_event(key, kind, line, time, text, None);
        event.model.clone_from(model);
        event.originating_model.clone_from(model);
        self.events.push(event);
    }

    /// A tool call and, once its status is final, its result.
    fn tool(
        &mut self,
        line: u64,
        time: Option<chrono::DateTime<chrono::Utc>>,
        bubble: &IdeBubble,
        tool: &Value,
        model: &Option<String>,
    ) {
        let name = text_field(tool, "name")
            .or_else(|| {
                tool.get("tool")
                    .and_then(Value::as_i64)
                    .map(|number| format!("tool_{number}"))
            })
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let call_id = text_field(tool, "toolCallId").unwrap_or_else(|| bubble.id.clone());
        let arguments = [tool.get("rawArgs"), tool.get("params")]
            .into_iter()
            .map(arguments_of)
            .find(|arguments| !is_empty_arguments(arguments))
            .unwrap_or(Value::Null);
        let key = format!("{}.call", bubble.id);
        let mut call = tool_call(key, line, time, &name, Some(&call_id), arguments);
        call.originating_model.clone_from(model);
        self.events.push(call);
        let status = text_field(tool, "status").unwrap_or_default();
        let result = arguments_of(tool.get("result"));
        let finished = matches!(status.as_str(), "completed" | "error" | "cancelled");
        if !finished && result.is_null() {
            return;
        }
        let exit_code = result.get("exitCode").and_then(Value::as_i64);
        let failed = matches!(status.as_str(), "error" | "cancelled")
            || text_field(tool, "userDecision").as_deref() == Some("rejected")
            || result.get("rejected").and_then(Value::as_bool) == Some(true)
            || tool.get("error").is_some_and(|error| !error.is_null())
            || exit_code.is_some_and(|code| code != 0);
        let text = result_text(tool, &result, &status);
        let key = format!("{}.result", bubble.id);
        let mut response = tool_response(key, line, time, &name, Some(&call_id), text, failed);
        response.exit_code = exit_code;
        self.events.push(response);
    }
}

/// Arguments that say nothing (absent, empty text, an empty object).
fn is_empty_arguments(arguments: &Value) -> bool {
    match arguments {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        _ => false,
    }
}

/// A tool result as text: a terminal's `output`, a file's `contents`, plain text as it is,
/// other JSON as JSON; with no result, the call's `error` or its status.
fn result_text(tool: &Value, result: &Value, status: &str) -> String {
    match result {
        Value::String(text) => text.clone(),
        Value::Null => text_field(tool, "error").unwrap_or_else(|| status.to_string()),
        other => ["output", "contents"]
            .iter()
            .find_map(|field| other.get(*field).and_then(Value::as_str))
            .map_or_else(|| other.to_string(), str::to_string),
    }
}

/// The bubble's reasoning: `thinking.text`, a bare `thinking` string, or the texts of
/// `allThinkingBlocks`.
fn thinking_text(bubble: &Value) -> String {
    match bubble.get("thinking") {
        Some(Value::String(text)) if !text.is_empty() => return text.clone(),
        Some(thinking @ Value::Object(_)) => {
            if let Some(text) = text_field(thinking, "text").filter(|text| !text.is_empty()) {
                return text;
            }
        }
        _ => {}
    }
    bubble
        .get("allThinkingBlocks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|block| text_field(block, "text"))
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The bubble's token counts; `None` when it has none or both are zero.
fn usage_of(bubble: &Value) -> Option<TokenUsage> {
    let counts = bubble.get("tokenCount")?;
    let input = counts.get("inputTokens").and_then(Value::as_i64);
    let output = counts.get("outputTokens").and_then(Value::as_i64);
    if input.unwrap_or(0) == 0 && output.unwrap_or(0) == 0 {
        return None;
    }
    Some(
        TokenUsage {
            input,
            output,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bubble(id: &str, value: Value) -> IdeBubble {
        IdeBubble {
            id: id.to_string(),
            value,
        }
    }

    fn composer(fields: Value, bubbles: Vec<IdeBubble>) -> IdeComposer {
        IdeComposer {
            id: "c1".to_string(),
            composer: fields,
            bubbles,
            cwd: None,
            warnings: Vec::new(),
        }
    }

    fn terminal(status: &str, result: Option<Value>) -> Value {
        json!({"type": 2, "createdAt": "2026-03-02T09:00:04Z", "toolFormerData": {
            "tool": 15, "toolCallId": "t1", "status": status, "name": "run_terminal_command_v2",
            "params": "{\"command\":\"cargo test\",\"cwd\":\"\"}",
            "rawArgs": "{\"command\":\"cargo test\"}",
            "result": result.map(|result| result.to_string())}})
    }

    #[test]
    fn a_conversation_gives_prompts_reasoning_replies_tools_and_usage() {
        let fields = json!({"name": " Heron ", "createdAt": 1772442000000_i64,
            "modelConfig": {"modelName": "claude-4.5-sonnet"}});
        let output = parse(&composer(
            fields,
            vec![
                bubble(
                    "u1",
                    json!({"type": 1, "text": "why 11?",
                    "createdAt": "2026-03-02T09:00:00Z"}),
                ),
                bubble(
                    "t1",
                    json!({"type": 2, "capabilityType": 30,
                    "thinking": {"text": "Run it.", "signature": "s"}}),
                ),
                bubble(
                    "a1",
                    json!({"type": 2, "text": "Running.",
                    "modelInfo": {"modelName": "gpt-5"},
                    "tokenCount": {"inputTokens": 100, "outputTokens": 7}}),
                ),
                bubble(
                    "c1",
                    terminal(
                        "completed",
                        Some(json!({"output": "FAILED\n",
                    "exitCode": 101, "rejected": false})),
                    ),
                ),
                bubble(
                    "a2",
                    json!({"type": 2, "text": "Done.",
                    "tokenCount": {"inputTokens": 0, "outputTokens": 0}}),
                ),
            ],
        ));
        let session = &output.sessions[0];
        let kinds: Vec<EventType> = session.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::UserInput,
                EventType::Reasoning,
                EventType::AssistantResponse,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        let call = &session.events[3];
        assert_eq!(
            call.payload,
            Some(json!({"command": "cargo test"})),
            "rawArgs"
        );
        assert_eq!(call.tool_call_id.as_deref(), Some("t1"));
        let result = &session.events[4];
        assert_eq!(result.text, "FAILED\n");
        assert_eq!(result.exit_code, Some(101));
        assert_eq!(result.subtype.as_deref(), Some("error"));
        assert_eq!(session.events[2].model.as_deref(), Some("gpt-5"));
        assert_eq!(
            session.events[5].model.as_deref(),
            Some("claude-4.5-sonnet"),
            "the composer's model when the bubble names none"
        );
        assert_eq!(
            session.usage_carriers(),
            [(
                "a1",
                TokenUsage {
                    input: Some(100),
                    output: Some(7),
                    total: Some(107),
                    ..TokenUsage::default()
                }
            )],
            "zero counts are no usage"
        );
        assert_eq!(session.meta.title.as_deref(), Some("Heron"));
        assert_eq!(session.meta.model.as_deref(), Some("gpt-5"));
        assert!(session.events[5].turn_end.is_some());
        assert!(output.warnings.is_empty());
    }

    #[test]
    fn tool_outcomes_running_failed_and_rejected() {
        let running = parse(&composer(
            json!({}),
            vec![bubble("c", terminal("running", None))],
        ));
        assert_eq!(running.sessions[0].events.len(), 1, "no result yet");
        let cancelled = parse(&composer(
            json!({}),
            vec![bubble("c", terminal("cancelled", None))],
        ));
        let response = &cancelled.sessions[0].events[1];
        assert_eq!(response.subtype.as_deref(), Some("error"));
        assert_eq!(response.text, "cancelled");
        let errored = json!({"type": 2, "toolFormerData": {"name": "edit_file_v2",
            "status": "error", "result": null, "error": "read-only",
            "params": "{\"relativeWorkspacePath\":\"/p/a.rs\"}"}});
        let errored = parse(&composer(json!({}), vec![bubble("e", errored)]));
        let events = &errored.sessions[0].events;
        assert_eq!(
            events[0].tool_call_id.as_deref(),
            Some("e"),
            "the bubble id"
        );
        assert_eq!(events[1].text, "read-only");
        assert_eq!(events[1].subtype.as_deref(), Some("error"));
    }

    #[test]
    fn markers_errors_unknown_types_and_fallbacks() {
        let fields = json!({"modelConfig": {"modelName": "default"},
            "subagentInfo": {"parentComposerId": "p", "subagentTypeName": "explore"}});
        let output = parse(&composer(
            fields,
            vec![
                bubble(
                    "u",
                    json!({"type": 1, "text": "go",
                    "workspaceUris": ["file:///srv/egret"]}),
                ),
                bubble("s", json!({"type": 2, "capabilityType": 22, "text": ""})),
                bubble(
                    "x",
                    json!({"type": 2, "errorDetails": {"message": "rate limited"}}),
                ),
                bubble("q", json!({"type": 7})),
                bubble(
                    "b",
                    json!({"type": 2, "allThinkingBlocks": [{"text": "one"},
                    {"text": ""}, {"text": "two"}]}),
                ),
            ],
        ));
        let session = &output.sessions[0];
        let kinds: Vec<(EventType, Option<&str>)> = session
            .events
            .iter()
            .map(|event| (event.kind, event.subtype.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (EventType::UserInput, None),
                (EventType::Compaction, Some("summarize")),
                (EventType::Runtime, Some("error")),
                (EventType::Reasoning, None),
            ]
        );
        assert_eq!(session.events[3].text, "one\n\ntwo");
        assert_eq!(output.warnings.len(), 1, "the unknown bubble type");
        assert_eq!(session.meta.model, None, "`default` is no model");
        assert_eq!(session.meta.cwd.as_deref(), Some("/srv/egret"));
        assert_eq!(session.meta.parent_native_id.as_deref(), Some("p"));
        assert_eq!(session.meta.agent_name.as_deref(), Some("explore"));
    }
}
