//! Tool calls and their results: `toolCalls` entries, unrecorded `functionResponse` parts in
//! user messages, result text and shell exit codes.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::messages::Builder;
use super::text::part_text;
use crate::model::{EventType, parse_timestamp, tool_call_text};

impl Builder<'_> {
    pub(super) fn tool_call(
        &mut self,
        call: &Value,
        index: usize,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let call_id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_string);
        let suffix = call_id.clone().unwrap_or_else(|| index.to_string());
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .unwrap_or("unknown_tool")
            .to_string();
        let arguments = match call.get("args") {
            Some(Value::String(text)) => {
                serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
            Some(other) => other.clone(),
            None => Value::Null,
        };
        let mut event = self.event(
            format!("{key}.call.{suffix}"),
            EventType::ToolCall,
            line,
            timestamp,
            tool_call_text(&name, &arguments),
        );
        event.tool_name = Some(name.clone());
        event.tool_call_id = call_id.clone();
        event.payload = (!arguments.is_null()).then_some(arguments);
        self.events.push(event);

        let status = call.get("status").and_then(Value::as_str).unwrap_or("");
        let result = call.get("result").filter(|result| !result.is_null());
        let display = call
            .get("resultDisplay")
            .filter(|display| !display.is_null());
        let finished = matches!(status, "success" | "error" | "cancelled");
        if result.is_none() && display.is_none() && !finished {
            return; // still pending: no result recorded yet
        }
        let text = tool_result_text(result, display);
        let mut payload = Map::new();
        if !status.is_empty() {
            payload.insert("status".into(), Value::String(status.to_string()));
        }
        if let Some(Value::Object(display)) = display {
            // Structured display (file diff + stats, sub-agent progress); the whole-file before /
            // after copies are left out (the diff and the call arguments carry them).
            let kept: Map<String, Value> = display
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "originalContent" | "newContent"))
                .map(|(name, field)| (name.clone(), field.clone()))
                .collect();
            payload.insert("resultDisplay".into(), Value::Object(kept));
        }
        let response_time = call
            .get("timestamp")
            .and_then(parse_timestamp)
            .or(timestamp);
        let mut response = self.event(
            format!("{key}.result.{suffix}"),
            EventType::ToolResponse,
            line,
            response_time,
            text,
        );
        response.exit_code = exit_code(&response.text);
        response.tool_name = Some(name);
        response.tool_call_id = call_id;
        response.payload = (!payload.is_empty()).then_some(Value::Object(payload));
        if status != "success" && !status.is_empty() {
            response.subtype = Some(status.to_string());
        }
        self.events.push(response);
    }

    /// `functionResponse` parts in a user message whose call was never recorded in `toolCalls`
    /// (recorded ones are duplicates and skipped).
    pub(super) fn user_tool_results(
        &mut self,
        record: &Value,
        key: &str,
        line: u64,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(parts) = record.get("content").and_then(Value::as_array) else {
            return;
        };
        for (index, part) in parts.iter().enumerate() {
            let Some(response) = part.get("functionResponse") else {
                continue;
            };
            let call_id = response
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            if call_id.is_some_and(|id| self.recorded_calls.contains_key(id)) {
                continue;
            }
            let name = response
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .unwrap_or("unknown_tool")
                .to_string();
            let suffix = call_id
                .map(str::to_string)
                .unwrap_or_else(|| index.to_string());
            let text = function_response_text(response.get("response").unwrap_or(&Value::Null));
            let mut event = self.event(
                format!("{key}.result.{suffix}"),
                EventType::ToolResponse,
                line,
                timestamp,
                text,
            );
            event.exit_code = exit_code(&event.text);
            event.tool_name = Some(name);
            event.tool_call_id = call_id.map(str::to_string);
            self.events.push(event);
        }
    }
}

/// Tool output as the model received it (`functionResponse.response.output`/`.error`), else the
/// displayed result.
fn tool_result_text(result: Option<&Value>, display: Option<&Value>) -> String {
    let mut pieces = Vec::new();
    if let Some(result) = result {
        let parts: Vec<&Value> = match result {
            Value::Array(parts) => parts.iter().collect(),
            other => vec![other],
        };
        for part in parts {
            if let Some(response) = part.get("functionResponse") {
                let text = function_response_text(response.get("response").unwrap_or(&Value::Null));
                if !text.is_empty() {
                    pieces.push(text);
                }
            } else {
                let text = part_text(part);
                if !text.is_empty() {
                    pieces.push(text);
                }
            }
        }
    }
    if pieces.is_empty() {
        match display {
            Some(Value::String(text)) => pieces.push(text.clone()),
            Some(Value::Object(fields)) => {
                if let Some(diff) = fields.get("fileDiff").and_then(Value::as_str) {
                    pieces.push(diff.to_string());
                }
            }
            _ => {}
        }
    }
    pieces.join("\n")
}

fn function_response_text(response: &Value) -> String {
    match response {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Object(fields) => {
            let output = fields.get("output").and_then(Value::as_str);
            let error = fields.get("error").and_then(Value::as_str);
            match (output, error) {
                (Some(output), Some(error)) => format!("{output}\n{error}"),
                (Some(output), None) => output.to_string(),
                (None, Some(error)) => error.to_string(),
                (None, None) => response.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// `run_shell_command` output carries an `Exit Code: N` line.
fn exit_code(text: &str) -> Option<i64> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Exit Code:"))
        .find_map(|code| code.trim().parse::<i64>().ok())
}
