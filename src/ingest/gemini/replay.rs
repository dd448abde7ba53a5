//! JSONL replay, the way the CLI's `loadConversationRecord` does it: re-appended ids replace
//! their first copy in place, `$rewindTo` truncates, `$set` merges metadata and history
//! snapshots.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Origin, Slot, warning};
use crate::ingest::lines::JsonLine;
use crate::model::ParseWarning;

pub(super) fn is_header(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    object.get("sessionId").is_some_and(Value::is_string)
        && object.get("projectHash").is_some_and(Value::is_string)
        && !object.contains_key("id")
        && !object.contains_key("type")
        && !object.contains_key("uuid")
}

pub(super) fn replay<'a>(
    lines: &'a [JsonLine],
    warnings: &mut Vec<ParseWarning>,
) -> (Map<String, Value>, Vec<Slot<'a>>) {
    let mut meta = Map::new();
    let mut slots: Vec<Slot<'a>> = Vec::new();
    let mut index: HashMap<&'a str, usize> = HashMap::new();

    for line in lines {
        let Some(object) = line.value.as_object() else {
            warnings.push(warning(line.number, "JSONL line is not an object, skipped"));
            continue;
        };
        if let Some(target) = object.get("$rewindTo").and_then(Value::as_str) {
            match index.get(target) {
                Some(&position) => slots.truncate(position),
                None => {
                    warnings.push(warning(
                        line.number,
                        format!("$rewindTo target {target:?} not found; conversation cleared as the CLI does"),
                    ));
                    slots.clear();
                }
            }
            index = slots
                .iter()
                .enumerate()
                .filter_map(|(position, slot)| slot.id.map(|id| (id, position)))
                .collect();
        } else if let Some(id) = object.get("id").and_then(Value::as_str) {
            match index.get(id) {
                // Re-appended copy: newest content, position of the first appearance.
                Some(&position) => {
                    if let Some(slot) = slots.get_mut(position) {
                        slot.record = &line.value;
                        slot.line = line.number;
                        slot.origin = Origin::Message;
                    }
                }
                None => {
                    index.insert(id, slots.len());
                    slots.push(Slot {
                        id: Some(id),
                        record: &line.value,
                        line: line.number,
                        origin: Origin::Message,
                        fallback_key: format!("line.{}", line.number),
                    });
                }
            }
        } else if let Some(set) = object.get("$set") {
            match set.as_object() {
                Some(patch) => {
                    for (name, field) in patch {
                        if name == "messages" {
                            merge_snapshot(field, line.number, &mut slots, &mut index);
                        } else {
                            meta.insert(name.clone(), field.clone());
                        }
                    }
                }
                None => push_unknown(&mut slots, line),
            }
        } else if object.get("sessionId").is_some_and(Value::is_string) {
            // Metadata header (first line; the CLI writes it again only when migrating).
            for (name, field) in object {
                if name == "messages" {
                    merge_snapshot(field, line.number, &mut slots, &mut index);
                } else {
                    meta.insert(name.clone(), field.clone());
                }
            }
        } else {
            push_unknown(&mut slots, line);
        }
    }
    (meta, slots)
}

fn push_unknown<'a>(slots: &mut Vec<Slot<'a>>, line: &'a JsonLine) {
    slots.push(Slot {
        id: None,
        record: &line.value,
        line: line.number,
        origin: Origin::Unknown,
        fallback_key: format!("line.{}", line.number),
    });
}

/// `$set.messages` carries the CLI's whole in-memory history. Messages already recorded keep
/// their recorded copy (the snapshot version is a context rewrite, e.g. masked tool output) and
/// messages missing from it are kept (compression does not undo what happened); only ids never
/// seen before are added, at this point of the file, as synthetic history.
fn merge_snapshot<'a>(
    messages: &'a Value,
    line: u64,
    slots: &mut Vec<Slot<'a>>,
    index: &mut HashMap<&'a str, usize>,
) {
    let Some(messages) = messages.as_array() else {
        return;
    };
    for (position, message) in messages.iter().enumerate() {
        if !message.is_object() {
            continue;
        }
        let id = message.get("id").and_then(Value::as_str);
        if let Some(id) = id {
            if index.contains_key(id) {
                continue;
            }
            index.insert(id, slots.len());
        }
        slots.push(Slot {
            id,
            record: message,
            line,
            origin: Origin::Snapshot,
            fallback_key: format!("line.{line}.{position}"),
        });
    }
}
