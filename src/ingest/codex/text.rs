//! Text helpers: readable text of message content, injected-context detection, summaries of
//! bookkeeping payloads, and small JSON accessors.

use std::path::Path;

use serde_json::{Map, Value};

use super::NULL;

/// Readable text of message content (string, or a list of typed parts).
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::String(text) => Some(text.clone()),
                    Value::Object(_) => match str_field(part, "type").unwrap_or("") {
                        "input_image" | "image" | "inputImage" => Some("[image]".to_string()),
                        "encrypted_content" => None,
                        _ => str_field(part, "text").map(str::to_string),
                    },
                    _ => None,
                })
                .collect();
            texts.join("\n")
        }
        Value::Object(_) => str_field(content, "text")
            .map(str::to_string)
            .unwrap_or_else(|| compact_json(content)),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The typed text of message content alone (no image placeholders), trimmed: what an
/// `event_msg` copy of the same message carries, for duplicate detection.
pub(super) fn match_text(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(text) => Some(text.as_str()),
                _ => str_field(part, "text"),
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        other => content_text(other).trim().to_string(),
    }
}

/// Summary parts of a reasoning item, else its raw reasoning text parts.
pub(super) fn reasoning_parts(payload: &Value) -> Vec<String> {
    let texts = |key: &str| -> Vec<String> {
        payload
            .get(key)
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|part| str_field(part, "text"))
                    .filter(|text| !text.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let summary = texts("summary");
    if summary.is_empty() {
        texts("content")
    } else {
        summary
    }
}

/// The kind of injected context a user-role text is, or `None` for text a person typed.
pub(super) fn injected_kind(text: &str) -> Option<String> {
    const TAGS: [&str; 16] = [
        "environment_context",
        "user_instructions",
        "turn_aborted",
        "INSTRUCTIONS",
        "permissions instructions",
        "collaboration_mode",
        "user_shell_command",
        "subagent_notification",
        "skill",
        "personality_spec",
        "apps_instructions",
        "developer_instructions",
        "user_action",
        "model_switch",
        "realtime_conversation",
        "plugins",
    ];
    let trimmed = text.trim();
    if trimmed.starts_with("# AGENTS.md instructions") {
        return Some("agents_md".to_string());
    }
    let tag = trimmed
        .strip_prefix('<')
        .and_then(|rest| rest.split_once('>'))
        .map(|(tag, _)| tag)?;
    let name = tag.split_whitespace().next().unwrap_or("");
    if TAGS.contains(&tag) || TAGS.contains(&name) {
        return Some(tag.replace(' ', "_"));
    }
    // Any other message wrapped whole in one tag pair is harness-generated too.
    let closing = format!("</{tag}>");
    (!tag.is_empty() && !tag.contains('<') && trimmed.ends_with(&closing))
        .then(|| tag.replace(' ', "_"))
}

/// The working directory named in an `<environment_context>` block (`<cwd>X</cwd>` or the
/// 2025 `Current working directory: X` line).
pub(super) fn environment_cwd(text: &str) -> Option<String> {
    let cwd = if let Some((_, rest)) = text.split_once("<cwd>") {
        rest.split_once("</cwd>").map(|(cwd, _)| cwd)
    } else {
        text.lines()
            .find_map(|line| line.trim().strip_prefix("Current working directory:"))
    };
    cwd.map(str::trim)
        .filter(|cwd| !cwd.is_empty())
        .map(str::to_string)
}

pub(super) fn token_count_text(payload: &Value) -> String {
    let Some(info) = payload.get("info").filter(|info| !info.is_null()) else {
        return "token_count (rate limits only)".to_string();
    };
    let usage = info
        .get("last_token_usage")
        .or_else(|| info.get("total_token_usage"))
        .unwrap_or(&NULL);
    let fields: Vec<String> = [
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
        "total_tokens",
    ]
    .iter()
    .filter_map(|key| {
        usage
            .get(*key)
            .and_then(Value::as_i64)
            .map(|n| format!("{}={n}", key.trim_end_matches("_tokens")))
    })
    .collect();
    format!("token_count {}", fields.join(" "))
}

pub(super) fn tool_search_text(payload: &Value) -> String {
    fn names(value: &Value, out: &mut Vec<String>) {
        if let Some(tools) = value.get("tools").and_then(Value::as_array) {
            for tool in tools {
                if let Some(name) = str_field(tool, "name") {
                    out.push(name.to_string());
                }
                names(tool, out);
            }
        }
    }
    let mut found = Vec::new();
    names(payload, &mut found);
    format!("tools found: {}", found.join(", "))
}

pub(super) fn web_results_text(results: &[Value]) -> String {
    results
        .iter()
        .map(|result| {
            ["title", "url", "snippet"]
                .iter()
                .filter_map(|key| str_field(result, key))
                .collect::<Vec<_>>()
                .join(" - ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text for an event kind that is kept as-is: its message-like field, else its kind.
pub(super) fn generic_text(kind: &str, payload: &Value) -> String {
    for key in [
        "message",
        "text",
        "reason",
        "user_facing_hint",
        "thread_name",
    ] {
        if let Some(text) = str_field(payload, key).filter(|t| !t.trim().is_empty()) {
            return format!("{kind}: {text}");
        }
    }
    if let Some(review) = payload.get("review_output") {
        let mut lines = Vec::new();
        if let Some(text) = str_field(review, "overall_explanation") {
            lines.push(text.to_string());
        }
        for finding in review
            .get("findings")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let title = str_field(finding, "title").unwrap_or("");
            let body = str_field(finding, "body").unwrap_or("");
            lines.push(format!("{title}: {body}"));
        }
        return format!("{kind}: {}", lines.join("\n"));
    }
    if let Some(objective) = payload.get("goal").and_then(|g| str_field(g, "objective")) {
        return format!("{kind}: {objective}");
    }
    kind.to_string()
}

pub(super) fn pick(payload: &Value, keys: &[&str]) -> Value {
    let mut picked = Map::new();
    for key in keys {
        if let Some(value) = payload.get(*key).filter(|v| !v.is_null()) {
            picked.insert((*key).to_string(), value.clone());
        }
    }
    Value::Object(picked)
}

pub(super) fn compact_json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub(super) fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// Session id from `rollout-<time>-<uuid>.jsonl`, else the file stem.
pub(super) fn id_from_path(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("codex-session");
    let tail = stem
        .char_indices()
        .rev()
        .nth(35)
        .map(|(index, _)| &stem[index..]);
    match tail {
        Some(candidate)
            if candidate.len() == 36
                && candidate.chars().all(|c| c.is_ascii_hexdigit() || c == '-') =>
        {
            candidate.to_string()
        }
        _ => stem.to_string(),
    }
}
