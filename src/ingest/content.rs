//! Helpers the parsers of the newer harnesses share: readable text of content blocks, the
//! tagged blocks a harness wraps around (or injects beside) the user's words, tool call and
//! tool response events, and small JSON accessors.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::model::{EventType, RawEvent, TurnEnd, tool_call_text};

/// Tool name used when a log names no tool for a call or result.
pub const UNKNOWN_TOOL: &str = "unknown_tool";

/// A string field, trimmed, when present and not empty.
pub fn text_field(value: &Value, name: &str) -> Option<String> {
    value
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// Readable text of a message's content: a string, or an array of blocks whose `text` (or
/// plain string items) are joined by newlines. Other blocks (images, tool blocks) are left out.
pub fn block_text(content: &Value) -> String {
    text_of_blocks(content, |kind| kind == "text")
}

/// [`block_text`] where a block is text when `is_text_kind` accepts its `type` (a block
/// without one is text): formats whose text parts have several types (`input_text`,
/// `output_text`, ...).
pub fn text_of_blocks(content: &Value, is_text_kind: impl Fn(&str) -> bool) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                Value::String(text) => Some(text.as_str()),
                Value::Object(fields) => {
                    let is_text = fields
                        .get("type")
                        .and_then(Value::as_str)
                        .is_none_or(&is_text_kind);
                    is_text
                        .then(|| fields.get("text").and_then(Value::as_str))
                        .flatten()
                }
                _ => None,
            })
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(fields) => fields
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// Text between the first `<tag>` and the following `</tag>` (to the end when unclosed).
pub fn tag_content<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close).unwrap_or(rest.len());
    rest.get(..end)
}

/// `text` with every `<tag>...</tag>` span removed.
pub fn strip_tagged(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut kept = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        kept.push_str(&rest[..start]);
        let after = &rest[start..];
        rest = after
            .find(&close)
            .map_or("", |end| &after[end + close.len()..]);
    }
    kept.push_str(rest);
    kept
}

/// True when `text` is nothing but `<tag>...</tag>` blocks (any lowercase tag names) and
/// whitespace: context a harness attached, not words the user typed.
pub fn only_tagged_blocks(text: &str) -> bool {
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(tag) = leading_tag(rest) else {
            return false;
        };
        let close = format!("</{tag}>");
        let Some(end) = rest.find(&close) else {
            return false;
        };
        rest = rest[end + close.len()..].trim_start();
    }
    true
}

/// The name of the `<tag>` `text` starts with, when it is a plain lowercase tag name.
fn leading_tag(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('<')?;
    let end = inner.find('>')?;
    let name = &inner[..end];
    let valid = !name.is_empty()
        && name.starts_with(|first: char| first.is_ascii_lowercase())
        && name
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "_-".contains(character));
    valid.then_some(name)
}

/// Arguments given as a JSON object, or as JSON text (parsed when it is valid JSON).
pub fn arguments_of(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(text)) => {
            serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// A `tool_call` event named `name` (never its call id), its arguments as payload.
pub fn tool_call(
    key: String,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
    name: &str,
    call_id: Option<&str>,
    arguments: Value,
) -> RawEvent {
    RawEvent {
        timestamp,
        text: tool_call_text(name, &arguments),
        tool_name: Some(name.to_string()),
        tool_call_id: call_id.map(str::to_string),
        payload: (!arguments.is_null()).then_some(arguments),
        ..RawEvent::new(key, EventType::ToolCall, line)
    }
}

/// A `tool_response` event for the call `call_id` of tool `name`; a failed one carries the
/// subtype `error`.
pub fn tool_response(
    key: String,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
    name: &str,
    call_id: Option<&str>,
    text: String,
    failed: bool,
) -> RawEvent {
    RawEvent {
        timestamp,
        text,
        tool_name: Some(name.to_string()),
        tool_call_id: call_id.map(str::to_string),
        subtype: failed.then(|| "error".to_string()),
        ..RawEvent::new(key, EventType::ToolResponse, line)
    }
}

/// An event of `kind` with `text` and an optional subtype.
pub fn plain_event(
    key: String,
    kind: EventType,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
    text: String,
    subtype: Option<&str>,
) -> RawEvent {
    RawEvent {
        timestamp,
        text,
        subtype: subtype.map(str::to_string),
        ..RawEvent::new(key, kind, line)
    }
}

/// A time given as epoch seconds or epoch milliseconds (told apart by magnitude: SQLite stores
/// such as Goose's and Crush's declare one and write the other).
pub fn epoch_time(seconds_or_millis: Option<i64>) -> Option<DateTime<Utc>> {
    let value = seconds_or_millis?;
    let millis = if value.abs() > 100_000_000_000 {
        value
    } else {
        value.saturating_mul(1000)
    };
    DateTime::from_timestamp_millis(millis)
}

/// Marks the replies that end their turns, for logs that record no turn end: a reply followed
/// by a new prompt (or the end of the log) with no tool call after it.
pub fn mark_terminal_replies(events: &mut [RawEvent]) {
    let mut last_reply: Option<usize> = None;
    for index in 0..events.len() {
        match events[index].kind {
            EventType::UserInput => {
                if let Some(reply) = last_reply.take() {
                    events[reply].turn_end = Some(TurnEnd::Terminal);
                }
            }
            EventType::AssistantResponse => last_reply = Some(index),
            EventType::ToolCall => last_reply = None,
            _ => {}
        }
    }
    if let Some(reply) = last_reply {
        events[reply].turn_end = Some(TurnEnd::Terminal);
    }
}

/// Which event carries the usage of a message whose events start at `first_event`: its reply,
/// else its first event, else (a message with no event) the event before it.
pub fn usage_carrier(events: &[RawEvent], first_event: usize) -> Option<usize> {
    let own = first_event..events.len();
    own.clone()
        .find(|&index| events[index].kind == EventType::AssistantResponse)
        .or_else(|| (!own.is_empty()).then_some(first_event))
        .or_else(|| events.len().checked_sub(1))
}

/// Which event carries a whole session's totals: its last reply, else its last event.
pub fn totals_carrier(events: &[RawEvent]) -> Option<usize> {
    events
        .iter()
        .rposition(|event| event.kind == EventType::AssistantResponse)
        .or_else(|| events.len().checked_sub(1))
}

/// The exit code a shell tool's output reports last (`exit code: 1`, `Exit code 1`,
/// `<exited with exit code 1>`, `Command exited with code 1`), if any.
pub fn reported_exit_code(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    let (at, marker) = ["exit code", "exited with code"]
        .into_iter()
        .filter_map(|marker| lower.rfind(marker).map(|at| (at, marker)))
        .max()?;
    let digits: String = lower[at + marker.len()..]
        .trim_start_matches([':', ' ', '='])
        .chars()
        .take_while(|character| character.is_ascii_digit() || *character == '-')
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn block_text_joins_text_blocks_only() {
        let content = json!([
            {"type": "text", "text": "one"},
            {"type": "tool_use", "name": "x", "text": "hidden"},
            "two",
            {"type": "image"}
        ]);
        assert_eq!(block_text(&content), "one\ntwo");
        assert_eq!(block_text(&json!("plain")), "plain");
    }

    #[test]
    fn tagged_blocks_are_told_from_typed_words() {
        assert!(only_tagged_blocks(
            "<git_diff>x</git_diff>\n<rules>y</rules>"
        ));
        assert!(!only_tagged_blocks("<rules>y</rules> fix this"));
        assert!(!only_tagged_blocks("a <b>bold</b> move"));
        assert!(!only_tagged_blocks("<Div>x</Div>"));
        assert_eq!(
            strip_tagged(
                "<system-reminder>agents</system-reminder>fix nvim",
                "system-reminder"
            ),
            "fix nvim"
        );
        assert_eq!(tag_content("<q>\nhi\n</q>", "q"), Some("\nhi\n"));
    }

    #[test]
    fn epoch_times_in_seconds_or_millis_agree() {
        let seconds = epoch_time(Some(1_754_568_953));
        assert_eq!(seconds, epoch_time(Some(1_754_568_953_000)));
        assert_eq!(
            seconds.map(|time| time.to_rfc3339()),
            Some("2025-08-07T12:15:53+00:00".to_string())
        );
        assert_eq!(epoch_time(None), None);
    }

    #[test]
    fn exit_codes_are_read_from_shell_output() {
        assert_eq!(
            reported_exit_code("boom\n<exited with exit code 2>"),
            Some(2)
        );
        assert_eq!(reported_exit_code("Exit code: 0"), Some(0));
        assert_eq!(
            reported_exit_code("FAIL\n\nCommand exited with code 1"),
            Some(1)
        );
        assert_eq!(reported_exit_code("all fine"), None);
    }
}
