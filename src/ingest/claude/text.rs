//! Text helpers: slash commands, local command output, tag and ANSI stripping, exit codes,
//! readable content text, and small JSON accessors.

use serde_json::{Map, Value};

/// `/name args` for a `<command-name>` record, `None` for anything else.
pub(super) fn slash_command(text: &str) -> Option<String> {
    let name = tag_content(text, "command-name")?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let mut command = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    if let Some(args) = tag_content(text, "command-args") {
        let args = args.trim();
        if !args.is_empty() {
            command.push(' ');
            command.push_str(args);
        }
    }
    Some(command)
}

/// Output of a local command without its wrapper tags and terminal escapes.
pub(super) fn strip_local_output(text: &str) -> String {
    let mut parts = Vec::new();
    for tag in [
        "local-command-stdout",
        "local-command-stderr",
        "bash-stdout",
        "bash-stderr",
    ] {
        if let Some(inner) = tag_content(text, tag) {
            let inner = strip_ansi(inner);
            if !inner.trim().is_empty() {
                parts.push(inner.trim().to_string());
            }
        }
    }
    let has_tags = ["<local-command-std", "<bash-std"]
        .iter()
        .any(|open| text.contains(open));
    if has_tags {
        parts.join("\n")
    } else {
        strip_ansi(text).trim().to_string()
    }
}

/// Text between the first `<tag>` and the following `</tag>`.
pub(super) fn tag_content<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close).unwrap_or(rest.len());
    rest.get(..end)
}

/// `text` with every `<tag>...</tag>` span removed.
pub(super) fn strip_tagged(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut result = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        result.push_str(&rest[..start]);
        let after = &rest[start..];
        match after.find(&close) {
            Some(end) => rest = &after[end + close.len()..],
            None => {
                rest = "";
            }
        }
    }
    result.push_str(rest);
    result
}

/// Removes ANSI escape sequences (CSI, OSC and two-byte escapes).
pub(super) fn strip_ansi(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(character) = chars.next() {
        if character != '\u{1b}' {
            result.push(character);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for next in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&next) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(next) = chars.next() {
                    if next == '\u{7}' {
                        break;
                    }
                    if next == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    result
}

/// `N` from a tool result that starts with `Exit code N` (optionally after `Error: `).
pub(super) fn exit_code_from_text(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let text = text.strip_prefix("Error: ").unwrap_or(text);
    let rest = text.strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|character| character.is_ascii_digit() || *character == '-')
        .collect();
    digits.parse().ok()
}

/// Human-readable text of a message or tool-result content (string or block array).
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                Value::String(text) => Some(text.clone()),
                Value::Object(fields) => match fields.get("text").and_then(Value::as_str) {
                    Some(text) => Some(text.to_string()),
                    None => match fields.get("type").and_then(Value::as_str) {
                        Some("tool_reference") => Some(format!(
                            "[tool_reference: {}]",
                            fields
                                .get("tool_name")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                        )),
                        Some(kind) => Some(format!("[{kind}]")),
                        None => None,
                    },
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(super) fn pick(record: &Map<String, Value>, names: &[&str]) -> Option<Value> {
    let picked: Map<String, Value> = names
        .iter()
        .filter_map(|name| {
            record
                .get(*name)
                .filter(|value| !value.is_null())
                .map(|value| (name.to_string(), value.clone()))
        })
        .collect();
    (!picked.is_empty()).then_some(Value::Object(picked))
}

pub(super) fn sanitize_key(uuid: &str) -> String {
    uuid.chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || matches!(character, '_' | '.' | ':' | '-') {
                character
            } else {
                '_'
            }
        })
        .collect()
}

pub(super) fn is_sidechain(record: &Map<String, Value>) -> bool {
    record.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

pub(super) fn bool_field(record: &Map<String, Value>, name: &str) -> bool {
    record.get(name).and_then(Value::as_bool) == Some(true)
}

pub(super) fn str_field<'v>(record: &'v Map<String, Value>, name: &str) -> Option<&'v str> {
    record.get(name).and_then(Value::as_str)
}

/// The record's `sessionId` when it names one: an empty or blank id names no session.
pub(super) fn session_id_of(record: &Map<String, Value>) -> Option<&str> {
    str_field(record, "sessionId").filter(|id| !id.trim().is_empty())
}

pub(super) fn str_field_of<'v>(value: &'v Value, name: &str) -> Option<&'v str> {
    value.get(name).and_then(Value::as_str)
}

pub(super) fn fill(slot: &mut Option<String>, value: Option<&str>) {
    if slot.is_none()
        && let Some(value) = value.filter(|value| !value.is_empty())
    {
        *slot = Some(value.to_string());
    }
}
