//! A Cline `api_conversation_history.json` on its own, without the task folder's
//! `ui_messages.json` (people commit it to a repository root; issue #48): the Anthropic-style
//! messages Cline sent to the model, `[{role, content: [text | tool_use {id, name, input} |
//! tool_result {tool_use_id, content, is_error} | image], ts, modelInfo?, metrics?}]`, read as
//! one session. Beside a `ui_messages.json` the file only fills gaps (`cline.rs`).
//!
//! * The user's words are the tagged parts of user text blocks: `<task>` (the first prompt),
//!   `<feedback>` (said to a tool result or completion), `<answer>` (to a follow-up question),
//!   `<user_message>`; each is one prompt. The rest of a user text block is context Cline adds
//!   (`<environment_details>`, attached files, reminders): a `system` event.
//! * Tool results are `tool_result` blocks (paired by id) or, as Cline writes them now, user text
//!   blocks opening `[<tool> for '<subject>'] Result:`, paired in order with the calls of the
//!   model's messages before them (the name in brackets is not always the call's: `[subagents]`
//!   answers `use_subagents`).
//! * An assistant message's text is one reply; its `tool_use` blocks are tool calls, or, in the
//!   format before native tool calls, the XML tool elements in its text (`<read_file><path>…`),
//!   the reply then being the text before the first of them. `metrics.tokens{prompt, cached,
//!   completion}` is its model call's usage (prompt + cached in), `modelInfo.modelId` its model.

use std::collections::VecDeque;
use std::path::Path;

use serde_json::{Map, Value};

use super::content::{epoch_time, plain_event, tool_call, tool_response};
use crate::ids::stable_hash_hex;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
};

/// The file name Cline gives the messages it sent.
pub const FILE_NAME: &str = "api_conversation_history.json";

/// The tags Cline wraps the user's own words in.
const PROMPT_TAGS: [&str; 4] = ["task", "feedback", "answer", "user_message"];

/// The tools of Cline's XML tool format (before native tool calls).
const XML_TOOLS: [&str; 15] = [
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "new_task",
    "load_mcp_documentation",
];

/// An Anthropic-style message array written by Cline: every element a `user`/`assistant`
/// message with content, the first a user message, and Cline's marks on it (a `<task>` in the
/// first message, or the `ts` Cline stamps every message with).
pub fn sniff(value: &Value) -> bool {
    let Some(messages) = value.as_array().filter(|messages| !messages.is_empty()) else {
        return false;
    };
    let shaped = messages.iter().all(|message| {
        matches!(
            message.get("role").and_then(Value::as_str),
            Some("user" | "assistant")
        ) && message
            .get("content")
            .is_some_and(|content| content.is_array() || content.is_string())
    });
    let first = &messages[0];
    shaped
        && first.get("role").and_then(Value::as_str) == Some("user")
        && (first.get("ts").is_some_and(Value::is_i64)
            || texts(first).any(|text| text.contains("<task>")))
}

/// The text blocks of a message (a string content is one block).
fn texts(message: &Value) -> impl Iterator<Item = &str> {
    let content = message.get("content");
    let whole = content.and_then(Value::as_str);
    let blocks = content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str));
    whole.into_iter().chain(blocks)
}

/// Parses the file (`value` is its JSON array).
pub fn parse(path: &Path, value: &Value) -> ParseOutput {
    let messages = value.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut parser = Parser::default();
    for (index, message) in messages.iter().enumerate() {
        parser.message(index as u64 + 1, message);
    }
    if parser.events.is_empty() {
        return ParseOutput::default();
    }
    let meta = SessionMeta {
        cwd: parser.cwd,
        model: parser.model,
        started_at: messages
            .first()
            .and_then(|message| epoch_time(message.get("ts").and_then(Value::as_i64))),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Cline,
            native_id: native_id(path, messages),
            meta,
            events: parser.events,
        }],
        warnings: Vec::new(),
    }
}

/// The task id: the folder's name when it is one (`tasks/<epoch ms>`), else the first
/// message's time (Cline stamps the task's first message as it creates the task), else a hash
/// of the path.
fn native_id(path: &Path, messages: &[Value]) -> String {
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .filter(|name| !name.is_empty() && name.bytes().all(|byte| byte.is_ascii_digit()));
    if let Some(task) = folder {
        return task.to_string();
    }
    match messages
        .first()
        .and_then(|message| message.get("ts"))
        .and_then(Value::as_i64)
    {
        Some(ts) => format!("api-{ts}"),
        None => {
            let hash = stable_hash_hex(&[path.to_string_lossy().as_bytes()]);
            format!("api-{}", &hash[..hash.len().min(16)])
        }
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    /// Calls not yet answered, oldest first: (call id, tool name).
    open_calls: VecDeque<(String, String)>,
    cwd: Option<String>,
    model: Option<String>,
}

impl Parser {
    fn message(&mut self, line: u64, message: &Value) {
        let at = epoch_time(message.get("ts").and_then(Value::as_i64));
        let blocks: Vec<Value> = match message.get("content") {
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            Some(Value::Array(blocks)) => blocks.clone(),
            _ => Vec::new(),
        };
        match message.get("role").and_then(Value::as_str) {
            Some("user") => {
                for (index, block) in blocks.iter().enumerate() {
                    self.user_block(&format!("m{line}.{index}"), line, at, block);
                }
            }
            Some("assistant") => self.assistant(line, at, message, &blocks),
            _ => {}
        }
    }

    fn user_block(
        &mut self,
        key: &str,
        line: u64,
        at: Option<chrono::DateTime<chrono::Utc>>,
        block: &Value,
    ) {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                let id = block.get("tool_use_id").and_then(Value::as_str);
                let name = id
                    .and_then(|id| self.take_call(id))
                    .unwrap_or_else(|| super::content::UNKNOWN_TOOL.to_string());
                let text = super::content::block_text(block.get("content").unwrap_or(&Value::Null));
                let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
                self.events.push(tool_response(
                    format!("{key}.result"),
                    line,
                    at,
                    &name,
                    id,
                    text,
                    failed,
                ));
            }
            Some("text") => {
                let text = block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.user_text(key, line, at, text);
            }
            _ => {}
        }
    }

    fn user_text(
        &mut self,
        key: &str,
        line: u64,
        at: Option<chrono::DateTime<chrono::Utc>>,
        text: &str,
    ) {
        if self.cwd.is_none() {
            self.cwd = super::cline::working_directory(text);
        }
        if is_tool_result(text) {
            let (id, name) = self
                .open_calls
                .pop_front()
                .map_or((None, result_tool_name(text)), |(id, name)| {
                    (Some(id), name)
                });
            let failed = text.contains("The user denied this operation");
            self.events.push(tool_response(
                format!("{key}.result"),
                line,
                at,
                &name,
                id.as_deref(),
                text.to_string(),
                failed,
            ));
        }
        let (prompts, rest) = tagged_prompts(text);
        for (number, prompt) in prompts.into_iter().enumerate() {
            let mut event = plain_event(
                format!("{key}.prompt.{number}"),
                EventType::UserInput,
                line,
                at,
                prompt,
                None,
            );
            event.starts_turn = true;
            self.events.push(event);
        }
        if !is_tool_result(text) && !rest.trim().is_empty() {
            self.events.push(plain_event(
                format!("{key}.context"),
                EventType::System,
                line,
                at,
                rest.trim().to_string(),
                Some("context"),
            ));
        }
    }

    fn take_call(&mut self, id: &str) -> Option<String> {
        let position = self.open_calls.iter().position(|(open, _)| open == id)?;
        self.open_calls.remove(position).map(|(_, name)| name)
    }

    fn assistant(
        &mut self,
        line: u64,
        at: Option<chrono::DateTime<chrono::Utc>>,
        message: &Value,
        blocks: &[Value],
    ) {
        let model = message
            .pointer("/modelInfo/modelId")
            .and_then(Value::as_str)
            .map(str::to_string);
        if self.model.is_none() {
            self.model.clone_from(&model);
        }
        let first_event = self.events.len();
        let text: String = blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        let xml_calls = xml_tool_calls(&text);
        let visible = match xml_calls.first() {
            Some((start, _, _)) => &text[..*start],
            None => text.as_str(),
        };
        if !visible.trim().is_empty() {
            let mut reply = plain_event(
                format!("m{line}.reply"),
                EventType::AssistantResponse,
                line,
                at,
                visible.trim().to_string(),
                None,
            );
            reply.model.clone_from(&model);
            reply.originating_model.clone_from(&model);
            self.events.push(reply);
        }
        for (index, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let name = block
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or(super::content::UNKNOWN_TOOL);
            let id = block
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("m{line}.{index}"), str::to_string);
            let arguments = block.get("input").cloned().unwrap_or(Value::Null);
            self.events.push(tool_call(
                format!("m{line}.{index}.call"),
                line,
                at,
                name,
                Some(&id),
                arguments,
            ));
            self.open_calls.push_back((id, name.to_string()));
        }
        for (number, (_, name, arguments)) in xml_calls.into_iter().enumerate() {
            let id = format!("m{line}.xml{number}");
            self.events.push(tool_call(
                format!("{id}.call"),
                line,
                at,
                name,
                Some(&id),
                Value::Object(arguments),
            ));
            self.open_calls.push_back((id, name.to_string()));
        }
        if let Some(usage) = metrics_usage(message)
            && first_event < self.events.len()
        {
            let carrier = (first_event..self.events.len())
                .find(|&index| self.events[index].kind == EventType::AssistantResponse)
                .unwrap_or(first_event);
            TokenUsage::attach(&mut self.events[carrier], usage);
        }
    }
}

/// `[read_file for 'x'] Result:` / `[subagents] Result:` at the start of a text block.
fn is_tool_result(text: &str) -> bool {
    let text = text.trim_start();
    let Some(rest) = text.strip_prefix('[') else {
        return false;
    };
    let Some(close) = rest.find("] Result:") else {
        return false;
    };
    let inside = &rest[..close];
    let name = inside.split(" for ").next().unwrap_or(inside);
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// The tool named in a result's brackets (for a result whose call is not known).
fn result_tool_name(text: &str) -> String {
    let inside = text.trim_start().trim_start_matches('[');
    inside
        .split([' ', ']'])
        .next()
        .filter(|name| !name.is_empty())
        .unwrap_or(super::content::UNKNOWN_TOOL)
        .to_string()
}

/// The user's words in a text block (each `<task>`, `<feedback>`, `<answer>`,
/// `<user_message>` element, in order) and the text around them.
fn tagged_prompts(text: &str) -> (Vec<String>, String) {
    let mut prompts = Vec::new();
    let mut rest = String::new();
    let mut remaining = text;
    loop {
        let next = PROMPT_TAGS
            .iter()
            .filter_map(|tag| remaining.find(&format!("<{tag}>")).map(|at| (at, *tag)))
            .min();
        let Some((start, tag)) = next else {
            rest.push_str(remaining);
            break;
        };
        rest.push_str(&remaining[..start]);
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let inner_start = start + open.len();
        let inner_end = remaining[inner_start..]
            .find(&close)
            .map_or(remaining.len(), |end| inner_start + end);
        let prompt = remaining[inner_start..inner_end].trim();
        if !prompt.is_empty() {
            prompts.push(prompt.to_string());
        }
        remaining = remaining.get(inner_end + close.len()..).unwrap_or_default();
    }
    (prompts, rest)
}

/// The XML tool elements of a reply in Cline's format before native tool calls: (start, tool,
/// parameters), each `<param>value</param>` child a parameter.
fn xml_tool_calls(text: &str) -> Vec<(usize, &'static str, Map<String, Value>)> {
    let mut calls = Vec::new();
    let mut offset = 0;
    while let Some((start, tool)) = XML_TOOLS
        .iter()
        .filter_map(|tool| {
            text[offset..]
                .find(&format!("<{tool}>"))
                .map(|at| (offset + at, *tool))
        })
        .min()
    {
        let body_start = start + tool.len() + 2;
        let close = format!("</{tool}>");
        let body_end = text[body_start..]
            .find(&close)
            .map_or(text.len(), |end| body_start + end);
        calls.push((start, tool, xml_parameters(&text[body_start..body_end])));
        offset = (body_end + close.len()).min(text.len());
    }
    calls
}

fn xml_parameters(body: &str) -> Map<String, Value> {
    let mut parameters = Map::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(name_end) = after.find('>') else {
            break;
        };
        let name = &after[..name_end];
        if name.starts_with('/') || name.contains(' ') {
            rest = &after[name_end + 1..];
            continue;
        }
        let value_start = name_end + 1;
        let close = format!("</{name}>");
        let Some(value_end) = after[value_start..].find(&close) else {
            break;
        };
        let value = after[value_start..value_start + value_end].trim();
        parameters.insert(name.to_string(), Value::String(value.to_string()));
        rest = &after[value_start + value_end + close.len()..];
    }
    parameters
}

/// `metrics.tokens{prompt, cached, completion}`: prompt + cached in, cached as cache reads.
fn metrics_usage(message: &Value) -> Option<TokenUsage> {
    let tokens = message.pointer("/metrics/tokens")?;
    let count = |name: &str| tokens.get(name).and_then(Value::as_i64);
    let (prompt, cached, completion) = (count("prompt"), count("cached"), count("completion"));
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    Some(
        TokenUsage {
            input: crate::model::add_counts(prompt, cached),
            cached_input: cached,
            output: completion,
            ..TokenUsage::default()
        }
        .with_derived_total(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history() -> Value {
        json!([
            {"role": "user", "ts": 1770976800100_i64, "content": [
                {"type": "text", "text": "<task>\nrename the heron flag\n</task>"},
                {"type": "text", "text": "<environment_details>\n# Current Working Directory (/src/heron) Files\nmain.py\n</environment_details>"}
            ]},
            {"role": "assistant", "ts": 1770976805000_i64,
             "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"},
             "metrics": {"tokens": {"prompt": 1000, "completion": 50, "cached": 200}},
             "content": [
                {"type": "text", "text": "I'll read both files."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "main.py"}},
                {"type": "tool_use", "id": "toolu_2", "name": "use_subagents", "input": {"prompt_1": "scan"}}
            ]},
            {"role": "user", "ts": 1770976806000_i64, "content": [
                {"type": "text", "text": "[read_file for 'main.py'] Result:\nimport heron"},
                {"type": "text", "text": "[subagents] Result:\nTotal: 1"},
                {"type": "text", "text": "<environment_details>\n# Current Time\n</environment_details>"}
            ]},
            {"role": "assistant", "ts": 1770976807000_i64, "content": [
                {"type": "tool_use", "id": "toolu_3", "name": "ask_followup_question", "input": {"question": "Which name?"}}
            ]},
            {"role": "user", "ts": 1770976808000_i64, "content": [
                {"type": "text", "text": "[ask_followup_question for 'Which name?'] Result:\n<answer>\nheron_v2\n</answer>"}
            ]},
            {"role": "assistant", "ts": 1770976809000_i64, "content": [
                {"type": "text", "text": "<thinking>Renaming.</thinking>\n<write_to_file>\n<path>main.py</path>\n<content>import heron_v2</content>\n</write_to_file>"}
            ]},
            {"role": "user", "ts": 1770976810000_i64, "content": [
                {"type": "tool_result", "tool_use_id": "m6.xml0", "content": "written"},
                {"type": "text", "text": "[write_to_file for 'main.py'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nkeep the old import too\n</feedback>"}
            ]}
        ])
    }

    fn of_kind(session: &ParsedSession, kind: EventType) -> Vec<&RawEvent> {
        session
            .events
            .iter()
            .filter(|event| event.kind == kind)
            .collect()
    }

    #[test]
    fn cline_histories_are_told_from_other_message_arrays() {
        assert!(sniff(&history()));
        assert!(!sniff(&json!([{"role": "user", "content": "hello"}])));
        assert!(!sniff(&json!([{"ts": 1, "type": "say", "say": "text"}])));
        assert!(!sniff(&json!({"messages": []})));
    }

    #[test]
    fn prompts_calls_results_and_replies_of_a_lone_history() {
        let output = parse(Path::new("/repo/api_conversation_history.json"), &history());
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Cline);
        assert_eq!(session.native_id, "api-1770976800100");
        assert_eq!(session.meta.cwd.as_deref(), Some("/src/heron"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-sonnet-4-5"));
        let prompts: Vec<&str> = of_kind(session, EventType::UserInput)
            .iter()
            .map(|event| event.text.as_str())
            .collect();
        assert_eq!(
            prompts,
            [
                "rename the heron flag",
                "heron_v2",
                "keep the old import too"
            ]
        );
        let calls = of_kind(session, EventType::ToolCall);
        let names: Vec<_> = calls
            .iter()
            .map(|call| call.tool_name.as_deref().unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            [
                "read_file",
                "use_subagents",
                "ask_followup_question",
                "write_to_file"
            ]
        );
        assert_eq!(
            calls[3].payload,
            Some(json!({"path": "main.py", "content": "import heron_v2"}))
        );
        let results = of_kind(session, EventType::ToolResponse);
        let paired: Vec<_> = results
            .iter()
            .map(|result| {
                (
                    result.tool_name.as_deref().unwrap_or_default(),
                    result.tool_call_id.as_deref().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            paired,
            [
                ("read_file", "toolu_1"),
                ("use_subagents", "toolu_2"),
                ("ask_followup_question", "toolu_3"),
                ("write_to_file", "m6.xml0"),
                // The text result after the `tool_result` block has no call left to answer.
                ("write_to_file", ""),
            ]
        );
        assert_eq!(results[4].subtype.as_deref(), Some("error"));
        let replies = of_kind(session, EventType::AssistantResponse);
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[1].text, "<thinking>Renaming.</thinking>");
        let usage = replies[0].usage.expect("metrics usage");
        assert_eq!(
            (usage.input, usage.cached_input, usage.output),
            (Some(1200), Some(200), Some(50))
        );
    }
}
