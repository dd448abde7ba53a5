//! Session assembly: identity and metadata (sub-agent links, cwd, model), classification of
//! every message, event emission, and unique keys.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::classify::{Class, classify, mark_steering_turns, terminal_replies};
use super::messages::Builder;
use super::{Origin, Slot, warning};
use crate::model::{ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, parse_timestamp};

/// The `sessionId` the Gemini CLI A2A server gives every session it records.
const A2A_SESSION_ID: &str = "a2a-server";

pub(super) fn build_session(
    path: &Path,
    meta_fields: &Map<String, Value>,
    slots: &[Slot],
    warnings: &mut Vec<ParseWarning>,
) -> ParsedSession {
    let text_field = |name: &str| {
        meta_fields
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let session_id = text_field("sessionId");
    let file_stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("session")
        .to_string();
    let parent_dir = path
        .parent()
        .and_then(|parent| parent.file_name())
        .and_then(|name| name.to_str())
        .map(str::to_string);
    let nested_in_chats = parent_dir.as_deref().is_some_and(|dir| dir != "chats")
        && path
            .parent()
            .and_then(Path::parent)
            .and_then(|grand| grand.file_name())
            .and_then(|name| name.to_str())
            == Some("chats");
    let is_subagent =
        meta_fields.get("kind").and_then(Value::as_str) == Some("subagent") || nested_in_chats;

    let mut meta = SessionMeta::default();
    if is_subagent {
        meta.parent_native_id = text_field("parentSessionId")
            .or_else(|| text_field("parentId"))
            .or_else(|| {
                if nested_in_chats {
                    parent_dir.clone()
                } else {
                    None
                }
            });
    }
    let native_id = match session_id {
        Some(id) if is_subagent && meta.parent_native_id.as_deref() == Some(id.as_str()) => {
            format!("{id}-{file_stem}")
        }
        // The A2A server writes every session under the id `a2a-server`: its file tells them
        // apart (`session-<start>-a2a-serv.jsonl`).
        Some(id) if id == A2A_SESSION_ID => format!("{id}-{file_stem}"),
        Some(id) => id,
        None => {
            warnings.push(warning(
                0,
                "Gemini session without sessionId; using the file name",
            ));
            file_stem.clone()
        }
    };
    meta.summary = text_field("summary");
    meta.title = meta.summary.clone();
    meta.started_at = meta_fields.get("startTime").and_then(parse_timestamp);
    meta.cwd = meta_fields
        .get("directories")
        .and_then(Value::as_array)
        .and_then(|dirs| dirs.iter().find_map(Value::as_str))
        .map(str::to_string);

    // Classify first (turn ends need to look ahead).
    let mut classes = Vec::with_capacity(slots.len());
    let mut seen_user = false;
    for slot in slots {
        let class = classify(slot, is_subagent, !seen_user);
        if matches!(
            class,
            Class::UserPrompt { .. } | Class::SubagentPrompt { .. } | Class::Steering { .. }
        ) {
            seen_user = true;
        }
        classes.push(class);
    }
    mark_steering_turns(slots, &mut classes);
    let terminal = terminal_replies(slots, &classes);
    let recorded_calls: HashMap<&str, &str> = slots
        .iter()
        .filter(|slot| slot.origin != Origin::Unknown)
        .filter_map(|slot| slot.record.get("toolCalls").and_then(Value::as_array))
        .flatten()
        .filter_map(|call| {
            let id = call.get("id").and_then(Value::as_str)?;
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            Some((id, name))
        })
        .collect();

    let mut builder = Builder {
        events: Vec::new(),
        model: None,
        recorded_calls,
    };
    for (position, slot) in slots.iter().enumerate() {
        builder.emit(slot, &classes[position], terminal[position], warnings);
        if meta.cwd.is_none()
            && let Class::Info { text } = &classes[position]
        {
            meta.cwd = workspace_directory(text);
        }
    }
    meta.model = builder.events.iter().find_map(|event| event.model.clone());
    if meta.started_at.is_none() {
        meta.started_at = builder.events.iter().find_map(|event| event.timestamp);
    }
    let mut events = builder.events;
    make_keys_unique(&mut events);
    ParsedSession {
        source: Source::Gemini,
        native_id,
        meta,
        events,
    }
}

/// `/directory show` output: "Current workspace directories:\n- /path\n- /other".
fn workspace_directory(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("Current workspace directories:")?;
    rest.lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::trim)
        .find(|dir| !dir.is_empty())
        .map(str::to_string)
}

/// Keys come from the CLI's ids; a duplicated id (never written by the CLI) gets a suffix with
/// its source line so the key stays unique and stable.
fn make_keys_unique(events: &mut [RawEvent]) {
    let mut seen = HashSet::new();
    for event in events.iter_mut() {
        if seen.contains(&event.key) {
            let base = format!("{}.dup.{}", event.key, event.line);
            let mut candidate = base.clone();
            let mut counter = 1;
            while seen.contains(&candidate) {
                counter += 1;
                candidate = format!("{base}.{counter}");
            }
            event.key = candidate;
        }
        seen.insert(event.key.clone());
    }
}
