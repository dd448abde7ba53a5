//! Text helpers: readable text of parts and thoughts, and part predicates.

use serde_json::Value;

pub(super) fn has_function_responses(record: &Value) -> bool {
    record
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts
                .iter()
                .any(|part| part.get("functionResponse").is_some())
        })
}

pub(super) fn thought_text(thought: &Value) -> String {
    match thought {
        Value::String(text) => text.trim().to_string(),
        Value::Object(fields) => {
            let subject = fields
                .get("subject")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            let description = fields
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            match (subject.is_empty(), description.is_empty()) {
                (false, false) => format!("{subject}\n{description}"),
                (false, true) => subject.to_string(),
                (true, false) => description.to_string(),
                (true, true) => String::new(),
            }
        }
        _ => String::new(),
    }
}

/// Text of a `PartListUnion`: a string, one part, or an array of parts/strings. Thought parts and
/// function calls/responses are left out; inline/file data become a short placeholder.
pub(super) fn parts_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(part_text).collect::<Vec<_>>().concat(),
        Value::Object(_) => part_text(value),
        _ => String::new(),
    }
}

pub(super) fn part_text(part: &Value) -> String {
    match part {
        Value::String(text) => text.clone(),
        Value::Object(fields) => {
            if fields.get("thought").and_then(Value::as_bool) == Some(true) {
                return String::new();
            }
            if let Some(text) = fields.get("text").and_then(Value::as_str) {
                return text.to_string();
            }
            if let Some(data) = fields.get("inlineData") {
                let mime = data
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("data");
                return format!("[inline {mime}]");
            }
            if let Some(data) = fields.get("fileData") {
                let uri = data.get("fileUri").and_then(Value::as_str).unwrap_or("");
                return format!("[file {uri}]");
            }
            String::new()
        }
        _ => String::new(),
    }
}
