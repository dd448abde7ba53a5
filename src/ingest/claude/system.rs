//! `system` records (compaction, turn ends, API errors, hooks, local commands) and
//! `attachment` records (context the harness injected).

use serde_json::{Map, Value};

use super::parser::{Parser, unknown_event};
use super::text::{
    content_text, pick, slash_command, str_field, str_field_of, strip_ansi, strip_local_output,
};
use crate::ingest::lines::JsonLine;
use crate::model::{EventType, TurnEnd};

impl Parser<'_> {
    pub(super) fn system(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let subtype = str_field(record, "subtype").unwrap_or("system");
        let content = str_field(record, "content").map(strip_ansi);
        let mut event = self.base_event(key.to_string(), EventType::System, record, line);
        event.subtype = Some(subtype.to_string());
        match subtype {
            "compact_boundary" => {
                event.kind = EventType::Compaction;
                event.text = content.unwrap_or_else(|| "Conversation compacted".to_string());
                event.payload = record.get("compactMetadata").cloned();
            }
            "turn_duration" => {
                event.kind = EventType::Runtime;
                event.turn_end = Some(TurnEnd::Normal);
                let duration = record.get("durationMs").and_then(Value::as_f64);
                event.text = match duration {
                    Some(millis) => format!("turn completed in {:.1} s", millis / 1000.0),
                    None => "turn completed".to_string(),
                };
                event.payload = pick(record, &["durationMs", "messageCount"]);
            }
            "api_error" => {
                event.kind = EventType::Runtime;
                let cause = record
                    .get("error")
                    .and_then(|error| {
                        str_field_of(error, "message")
                            .map(str::to_string)
                            .or_else(|| {
                                error
                                    .get("cause")
                                    .and_then(|cause| str_field_of(cause, "code"))
                                    .map(str::to_string)
                            })
                    })
                    .or_else(|| {
                        record
                            .get("cause")
                            .and_then(|cause| str_field_of(cause, "code"))
                            .map(str::to_string)
                    });
                let mut text = content.unwrap_or_else(|| {
                    format!("API error: {}", cause.as_deref().unwrap_or("unknown"))
                });
                if let (Some(attempt), Some(max)) = (
                    record.get("retryAttempt").and_then(Value::as_i64),
                    record.get("maxRetries").and_then(Value::as_i64),
                ) {
                    text.push_str(&format!(" (retry {attempt}/{max})"));
                }
                event.text = text;
                event.payload = pick(
                    record,
                    &[
                        "level",
                        "error",
                        "cause",
                        "retryInMs",
                        "retryAttempt",
                        "maxRetries",
                    ],
                );
            }
            "stop_hook_summary" => {
                event.kind = EventType::Runtime;
                let commands: Vec<&str> = record
                    .get("hookInfos")
                    .and_then(Value::as_array)
                    .map(|infos| {
                        infos
                            .iter()
                            .filter_map(|info| str_field_of(info, "command"))
                            .collect()
                    })
                    .unwrap_or_default();
                event.text =
                    content.unwrap_or_else(|| format!("stop hooks ran: {}", commands.join("; ")));
                event.payload = pick(
                    record,
                    &[
                        "hookCount",
                        "hookErrors",
                        "preventedContinuation",
                        "stopReason",
                    ],
                );
            }
            "local_command" => {
                event.kind = EventType::Runtime;
                let raw = content.unwrap_or_default();
                event.text = match slash_command(&raw) {
                    Some(command) => command,
                    None => strip_local_output(&raw),
                };
            }
            _ => {
                if str_field(record, "level") == Some("error") {
                    event.kind = EventType::Runtime;
                }
                event.text = content.unwrap_or_else(|| subtype.to_string());
            }
        }
        self.push(session, event);
    }

    pub(super) fn attachment(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let Some(attachment) = record.get("attachment").and_then(Value::as_object) else {
            let mut event = unknown_event(line, record);
            event.key = key.to_string();
            self.push(session, event);
            return;
        };
        let kind = str_field(attachment, "type").unwrap_or("attachment");
        let mut event = self.base_event(key.to_string(), EventType::System, record, line);
        event.subtype = Some(kind.to_string());
        match kind {
            "queued_command" => {
                let prompt = attachment
                    .get("prompt")
                    .map(content_text)
                    .unwrap_or_default();
                let origin = attachment
                    .get("origin")
                    .and_then(|origin| str_field_of(origin, "kind"));
                let mode = str_field(attachment, "commandMode");
                let human = matches!(origin, None | Some("human"))
                    && matches!(mode, None | Some("prompt"))
                    && !prompt.trim_start().starts_with("<task-notification>");
                if human {
                    // Typed while the agent was busy: real input, joined to the running turn.
                    event.kind = EventType::UserInput;
                    event.text = prompt;
                } else {
                    event.text = prompt;
                }
            }
            kind if kind.starts_with("hook_") && kind != "hook_additional_context" => {
                event.kind = EventType::Runtime;
                let hook = str_field(attachment, "hookName").unwrap_or("hook");
                let output = [
                    attachment.get("content").map(content_text),
                    str_field(attachment, "stdout").map(str::to_string),
                    str_field(attachment, "stderr").map(str::to_string),
                ]
                .into_iter()
                .flatten()
                .map(|text| text.trim().to_string())
                .find(|text| !text.is_empty());
                event.text = match output {
                    Some(output) => format!("{hook}: {output}"),
                    None => format!("{hook}: {kind}"),
                };
                event.exit_code = attachment.get("exitCode").and_then(Value::as_i64);
            }
            _ => {
                event.text = match attachment.get("content") {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                    Some(other) => other.to_string(),
                    None => Value::Object(attachment.clone()).to_string(),
                };
            }
        }
        self.push(session, event);
    }
}
