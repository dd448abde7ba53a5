//! `get_event_details` (one event's full, untruncated payload by session and 0-based index)
//! and the seed's typed event previews that `search_event_previews` shows.

use datafusion::scalar::ScalarValue;
use serde_json::{Value, json};

use super::args::{AgEventType, reject_unknown, required_text, truncate};
use super::reply::{AgError, AgErrorCode};
use super::sessions::SessionKey;
use super::steps::Tokens;
use super::{AgTool, Context};
use crate::service::catalog::{NamedQuery, text_parameter};
use crate::service::rows::Row;
use crate::service::text::{collapse_whitespace, format_timestamp};
use crate::service::validate::{Arguments, optional_field};

const EVENT_AT: NamedQuery = NamedQuery {
    name: "agtrace_event_at",
    sql: include_str!("../../../../queries/agtrace_event_at.sql"),
};
const EVENT_TOKENS: NamedQuery = NamedQuery {
    name: "agtrace_event_tokens",
    sql: include_str!("../../../../queries/agtrace_event_tokens.sql"),
};

const FIELDS: [&str; 2] = ["session_id", "event_index"];
/// The seed's preview sizes.
pub const ARGUMENTS_PREVIEW_CHARS: usize = 100;
pub const TEXT_PREVIEW_CHARS: usize = 300;

/// What a preview shows of an event.
#[derive(Debug, Clone, Copy)]
pub struct PreviewSource<'a> {
    pub kind: AgEventType,
    pub tool_name: Option<&'a str>,
    pub text: &'a str,
    pub payload: Option<&'a str>,
    /// Characters of the whole payload (the given one may be a head).
    pub payload_chars: usize,
    pub tokens: Option<Tokens>,
}

/// The seed's typed preview: ToolCall `{tool, arguments}` (arguments over 100 characters become
/// their JSON text cut to 100), ToolResult `{preview}`, text events `{text}` (300 characters),
/// TokenUsage `{input, output}`.
pub fn preview(source: &PreviewSource<'_>) -> Value {
    match source.kind {
        AgEventType::ToolCall => {
            let arguments = match source.payload {
                None => Value::Null,
                Some(payload) if source.payload_chars <= ARGUMENTS_PREVIEW_CHARS => {
                    serde_json::from_str(payload).unwrap_or_else(|_| Value::String(payload.into()))
                }
                Some(payload) => Value::String(truncate(payload, ARGUMENTS_PREVIEW_CHARS)),
            };
            json!({ "tool": source.tool_name.unwrap_or("unknown_tool"), "arguments": arguments })
        }
        AgEventType::ToolResult => json!({ "preview": text_preview(source.text) }),
        AgEventType::TokenUsage => {
            let tokens = usage_of(source.tokens, source.payload).unwrap_or_default();
            json!({ "input": tokens.input, "output": tokens.output })
        }
        AgEventType::User
        | AgEventType::Message
        | AgEventType::Reasoning
        | AgEventType::Notification => json!({ "text": text_preview(source.text) }),
    }
}

/// A TokenUsage event's counts: its token columns, else what its Codex `token_count` payload
/// records for the model call (`info.last_token_usage`).
pub fn usage_of(columns: Option<Tokens>, payload: Option<&str>) -> Option<Tokens> {
    columns
        .filter(|tokens| !tokens.is_empty())
        .or_else(|| payload.and_then(token_count_payload))
}

fn token_count_payload(payload: &str) -> Option<Tokens> {
    let value: Value = serde_json::from_str(payload).ok()?;
    let usage = value.get("info")?.get("last_token_usage")?;
    let count = |name: &str| usage.get(name).and_then(Value::as_i64);
    Some(Tokens {
        input: count("input_tokens"),
        cached_input: count("cached_input_tokens"),
        output: count("output_tokens"),
        reasoning: count("reasoning_output_tokens"),
        total: count("total_tokens"),
    })
}

fn text_preview(text: &str) -> String {
    truncate(&collapse_whitespace(text), TEXT_PREVIEW_CHARS)
}

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRequest {
    pub session_id: String,
    pub event_index: i64,
}

pub struct EventDetails;

impl AgTool for EventDetails {
    type Request = EventRequest;

    const NAME: &'static str = "get_event_details";

    fn parse(arguments: &Arguments) -> Result<EventRequest, AgError> {
        reject_unknown(arguments, &FIELDS)?;
        let session_id = required_text(arguments, "session_id")?.to_owned();
        let event_index = match optional_field(arguments, "event_index") {
            None => {
                return Err(AgError::invalid_parameter(
                    "event_index",
                    "missing required parameter: event_index",
                ));
            }
            Some(value) => value.as_i64().filter(|_| value.is_i64() || value.is_u64()),
        };
        let event_index = event_index.ok_or_else(|| {
            AgError::invalid_parameter("event_index", "event_index must be an integer")
        })?;
        Ok(EventRequest {
            session_id,
            event_index,
        })
    }

    async fn execute(context: &Context<'_>, request: &EventRequest) -> Result<Value, AgError> {
        let key = context.resolve(&request.session_id).await?;
        let max_index = key.event_count - 1;
        if !(0..=max_index).contains(&request.event_index) {
            return Err(out_of_bounds(
                &key.native_id,
                request.event_index,
                max_index,
            ));
        }
        let seq = request.event_index + 1;
        let snapshot = &context.snapshot;
        let rows = snapshot
            .run(
                EVENT_AT,
                vec![
                    text_parameter(&key.session_id),
                    text_parameter(&key.source),
                    text_parameter(&key.month),
                    ScalarValue::Int64(Some(seq)),
                ],
            )
            .await?;
        let row = rows
            .first()
            .ok_or_else(|| out_of_bounds(&key.native_id, request.event_index, max_index))?;
        let kind = AgEventType::of(row.string("type")?, row.opt_string("subtype")?);
        let tokens = if kind == AgEventType::TokenUsage {
            event_tokens(context, &key, &row, seq).await?
        } else {
            None
        };
        Ok(json!({
            "session_id": key.native_id.as_ref(),
            "event_index": request.event_index,
            "turn_index": row.i64("turn_ordinal")? - 1,
            "timestamp": row.opt_timestamp_nanos("timestamp")?.map(format_timestamp),
            "event_type": kind.as_str(),
            "payload": payload(kind, &row, tokens)?,
            "esker_event_id": row.string("event_id")?,
        }))
    }
}

fn out_of_bounds(native_id: &str, requested: i64, max_index: i64) -> AgError {
    AgError::new(
        AgErrorCode::InvalidEventIndex,
        format!("Event index {requested} out of bounds for session {native_id} (max: {max_index})"),
    )
    .with_detail("session_id", native_id)
    .with_detail("requested_index", requested)
    .with_detail("max_index", max_index)
}

/// The token counts of a TokenUsage event, when the store has token columns.
async fn event_tokens(
    context: &Context<'_>,
    session: &SessionKey,
    row: &Row<'_>,
    seq: i64,
) -> Result<Option<Tokens>, AgError> {
    if !super::steps::has_token_columns(&context.snapshot).await {
        return Ok(None);
    }
    let turn = row.i64("turn_ordinal")? as i32;
    let rows = context
        .snapshot
        .run(
            EVENT_TOKENS,
            vec![
                text_parameter(&session.session_id),
                text_parameter(&session.source),
                text_parameter(&session.month),
                ScalarValue::Int32(Some(turn)),
                ScalarValue::Int32(Some(turn + 1)),
            ],
        )
        .await?;
    for token_row in rows.iter() {
        if token_row.i64("seq")? == seq {
            return Ok(Some(Tokens {
                input: token_row.opt_i64("input_tokens")?,
                cached_input: token_row.opt_i64("cached_input_tokens")?,
                output: token_row.opt_i64("output_tokens")?,
                reasoning: token_row.opt_i64("reasoning_tokens")?,
                total: token_row.opt_i64("total_tokens")?,
            }));
        }
    }
    Ok(None)
}

/// The full payload, shaped by type: ToolCall `{name, arguments, call_id}`, ToolResult
/// `{tool, call_id, output, is_error, exit_code, details}`, TokenUsage the counts, text events
/// `{text}` (plus `subtype` and `details` for notifications).
fn payload(kind: AgEventType, row: &Row<'_>, tokens: Option<Tokens>) -> Result<Value, AgError> {
    let structured = row.opt_string("payload")?.map(|payload| {
        serde_json::from_str(payload).unwrap_or_else(|_| Value::String(payload.into()))
    });
    let text = row.string("text")?;
    Ok(match kind {
        AgEventType::ToolCall => json!({
            "name": row.opt_string("tool_name")?,
            "arguments": structured,
            "call_id": row.opt_string("tool_call_id")?,
        }),
        AgEventType::ToolResult => json!({
            "tool": row.opt_string("tool_name")?,
            "call_id": row.opt_string("tool_call_id")?,
            "output": text,
            "is_error": row.opt_bool("failed")?.unwrap_or(false),
            "exit_code": row.opt_i64("exit_code")?,
            "details": structured,
        }),
        AgEventType::TokenUsage => {
            let tokens = usage_of(tokens, row.opt_string("payload")?).unwrap_or_default();
            json!({
                "input": tokens.input,
                "cached_input": tokens.cached_input,
                "output": tokens.output,
                "reasoning": tokens.reasoning,
                "total": tokens.total,
                "text": text,
                "details": structured,
            })
        }
        AgEventType::Notification => json!({
            "text": text,
            "subtype": row.opt_string("subtype")?,
            "details": structured,
        }),
        AgEventType::User | AgEventType::Message | AgEventType::Reasoning => json!({
            "text": text,
            "model": row.opt_string("model")?,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(kind: AgEventType, text: &str, payload: Option<&str>) -> PreviewSource<'static> {
        let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let payload = payload.map(|p| &*Box::leak(p.to_owned().into_boxed_str()));
        PreviewSource {
            kind,
            tool_name: Some("Read"),
            text,
            payload,
            payload_chars: payload.map_or(0, |p| p.chars().count()),
            tokens: None,
        }
    }

    #[test]
    fn previews_are_typed_and_bounded() {
        let call = preview(&source(
            AgEventType::ToolCall,
            "",
            Some(r#"{"file_path":"/a.rs"}"#),
        ));
        assert_eq!(
            call,
            json!({"tool": "Read", "arguments": {"file_path": "/a.rs"}})
        );
        let long_arguments = format!(r#"{{"content":"{}"}}"#, "x".repeat(500));
        let call = preview(&source(AgEventType::ToolCall, "", Some(&long_arguments)));
        assert_eq!(call["arguments"].as_str().unwrap().chars().count(), 100);
        let result = preview(&source(AgEventType::ToolResult, &"y".repeat(1000), None));
        assert_eq!(result["preview"].as_str().unwrap().chars().count(), 300);
        let text = preview(&source(AgEventType::User, "hello\n  world", None));
        assert_eq!(text, json!({"text": "hello world"}));
        let usage = preview(&source(AgEventType::TokenUsage, "", None));
        assert_eq!(usage, json!({"input": null, "output": null}));
        let token_count = r#"{"type":"token_count","info":{"last_token_usage":{"input_tokens":10480,"output_tokens":212}}}"#;
        let usage = preview(&source(AgEventType::TokenUsage, "", Some(token_count)));
        assert_eq!(usage, json!({"input": 10480, "output": 212}));
    }
}
