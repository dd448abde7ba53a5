//! Tool calls and responses: call/response emission, tool lifecycle events (`*_end`), and
//! resolution of tool names, arguments, output text and exit codes.

use serde_json::{Value, json};

use super::parser::Parser;
use super::text::{compact_json, content_text, pick, str_field, web_results_text};
use super::{Line, NULL};
use crate::model::{EventType, ParseWarning, tool_call_text};

impl Parser<'_, '_, '_> {
    pub(super) fn push_tool_call(
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

    pub(super) fn push_tool_response(
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

    pub(super) fn resolve_tool_name(&self, call_id: Option<&str>, fallback: &str) -> String {
        call_id
            .and_then(|id| self.index.call_names.get(id))
            .cloned()
            .unwrap_or_else(|| fallback.to_string())
    }

    /// Tool lifecycle events: copies of call items (kept only for exit codes) unless no response
    /// item or `history_mutation` append has their call id, in which case they stand for the
    /// call themselves.
    pub(super) fn on_tool_event(&mut self, record: &Line<'_>, kind: &str, call_id: Option<String>) {
        let payload = record.payload;
        let id = call_id.clone().unwrap_or_default();
        let duplicate =
            self.index.call_in_items(&id) || self.index.paired_web_search_ends.contains(&id);
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

pub(super) fn is_tool_event(kind: &str) -> bool {
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

/// Whether an item of this `type` is the output of a call.
pub(super) fn is_call_output(kind: &str) -> bool {
    matches!(
        kind,
        "function_call_output" | "custom_tool_call_output" | "tool_search_output"
    )
}

pub(super) fn event_call_id(payload: &Value) -> Option<&str> {
    str_field(payload, "call_id").or_else(|| str_field(payload, "callId"))
}

/// Tool name and call id of a call response item, `None` if the item is not a call.
pub(super) fn call_name_and_id(payload: &Value) -> Option<(String, Option<String>)> {
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

pub(super) fn call_arguments(payload: &Value) -> Value {
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

pub(super) struct ToolOutput {
    pub(super) text: String,
    pub(super) extras: Option<Value>,
    pub(super) exit_code: Option<i64>,
}

/// Text, structured extras and exit code of a `*_call_output.output` in any of its shapes: plain
/// text, a JSON string `{output, metadata:{exit_code,...}}`, `{content, success}`, or a list of
/// content items.
pub(super) fn tool_output(output: &Value) -> ToolOutput {
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
pub(super) fn exit_code_from_text(text: &str) -> Option<i64> {
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
