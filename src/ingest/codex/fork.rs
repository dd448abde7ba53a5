//! Fork replay detection: which lines of a forked rollout are the copy of its parent's history,
//! and the one `system` marker event that stands for each copied block.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::Line;
use super::parser::Parser;
use super::text::str_field;
use crate::model::{EventType, parse_timestamp};

/// Copied parent history is written in one burst; a pause this long ends it.
const REPLAY_GAP_MILLIS: i64 = 1000;

/// What the fork detection found: which lines are copied parent history.
pub(super) struct ReplayScan {
    pub(super) in_replay: Vec<bool>,
    /// Index of the line that starts each copied block, with its parent id and copied-line count.
    pub(super) markers: Vec<(usize, String, usize)>,
    /// Lines that repeat the session's own `session_meta`.
    pub(super) own_meta_repeats: HashSet<usize>,
    pub(super) unterminated: bool,
}

pub(super) fn scan_replay(
    records: &[Line<'_>],
    own_meta: Option<usize>,
    own_id: &str,
) -> ReplayScan {
    let mut scan = ReplayScan {
        in_replay: vec![false; records.len()],
        markers: Vec::new(),
        own_meta_repeats: HashSet::new(),
        unterminated: false,
    };
    let own_start = own_meta.and_then(|index| {
        let meta = &records[index];
        uuid_v7_millis(own_id)
            .or_else(|| {
                meta.payload
                    .get("timestamp")
                    .and_then(parse_timestamp)
                    .map(|time| time.timestamp_millis())
            })
            .or_else(|| meta.timestamp.map(|time| time.timestamp_millis()))
    });
    let mut replaying = false;
    let mut last_time: Option<DateTime<Utc>> = None;
    for (index, record) in records.iter().enumerate() {
        if Some(index) == own_meta {
            continue;
        }
        let meta_id = (record.kind == "session_meta").then(|| meta_id(record.payload));
        if replaying {
            if meta_id.as_deref() == Some(own_id) && !own_id.is_empty() {
                replaying = false;
                scan.own_meta_repeats.insert(index);
                continue;
            }
            let own_turn = turn_id_of(record)
                .and_then(uuid_v7_millis)
                .zip(own_start)
                .is_some_and(|(turn, start)| turn >= start);
            let paused = last_time
                .zip(record.timestamp)
                .is_some_and(|(last, now)| (now - last).num_milliseconds() >= REPLAY_GAP_MILLIS);
            if own_turn || paused {
                replaying = false;
            } else {
                scan.in_replay[index] = true;
                if let Some(marker) = scan.markers.last_mut() {
                    marker.2 += 1;
                }
                last_time = record.timestamp.or(last_time);
                continue;
            }
        }
        if let Some(id) = meta_id {
            if !id.is_empty() && id != own_id && own_meta.is_some() {
                replaying = true;
                scan.in_replay[index] = true;
                scan.markers.push((index, id, 0));
                last_time = record.timestamp;
            } else {
                scan.own_meta_repeats.insert(index);
            }
        }
    }
    scan.unterminated = replaying;
    if scan.markers.is_empty()
        && let (Some(meta), Some(start)) = (own_meta, own_start)
        && let Some(parent) = str_field(records[meta].payload, "forked_from_id")
    {
        scan_truncated_copy(records, meta, start, parent, &mut scan);
    }
    scan
}

/// A fork that copied only its parent's last turns (codex-rs `fork_turns`: the copy starts at
/// the Nth-last user message, so the parent's `session_meta` is not in it). Such a copy is
/// told by its turn ids, minted before this session's own id: the lines from after the own
/// `session_meta` to this session's first own turn are the copy when they hold a turn of the
/// parent's. Without that evidence nothing is marked.
fn scan_truncated_copy(
    records: &[Line<'_>],
    own_meta: usize,
    own_start: i64,
    parent: &str,
    scan: &mut ReplayScan,
) {
    let is_own_turn = |record: &Line<'_>| {
        turn_id_of(record)
            .and_then(uuid_v7_millis)
            .map(|turn| turn >= own_start)
    };
    let after = own_meta + 1;
    let first_own = (after..records.len())
        .find(|index| is_own_turn(&records[*index]) == Some(true))
        .unwrap_or(records.len());
    let holds_parent_turn =
        (after..first_own).any(|index| is_own_turn(&records[index]) == Some(false));
    if !holds_parent_turn {
        return;
    }
    let copied: Vec<usize> = (after..first_own)
        .filter(|index| !scan.own_meta_repeats.contains(index))
        .collect();
    let Some(&first) = copied.first() else {
        return;
    };
    for index in &copied {
        scan.in_replay[*index] = true;
    }
    scan.markers.push((first, parent.to_string(), copied.len()));
    scan.unterminated = first_own == records.len();
}

pub(super) fn meta_id(payload: &Value) -> String {
    str_field(payload, "id")
        .or_else(|| str_field(payload, "session_id"))
        .unwrap_or("")
        .to_string()
}

fn turn_id_of<'a>(record: &Line<'a>) -> Option<&'a str> {
    let starts_turn = record.kind == "turn_context"
        || (record.kind == "event_msg"
            && matches!(record.payload_type(), "task_started" | "turn_started"));
    if starts_turn {
        str_field(record.payload, "turn_id")
    } else {
        None
    }
}

/// Milliseconds since the epoch encoded in a UUIDv7, if `text` is one.
pub(super) fn uuid_v7_millis(text: &str) -> Option<i64> {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) || text.len() != 36 {
        return None;
    }
    if hex.as_bytes().get(12) != Some(&b'7') {
        return None;
    }
    i64::from_str_radix(hex.get(..12)?, 16).ok()
}

impl Parser<'_, '_, '_> {
    pub(super) fn on_fork_marker(&mut self, record: &Line<'_>, parent: &str, copied: usize) {
        if self.meta.forked_from_native_id.is_none() && !parent.is_empty() {
            self.meta.forked_from_native_id = Some(parent.to_string());
        }
        let text = format!(
            "Forked from session {parent}: {copied} lines of its copied history are not part of \
             this session"
        );
        let event = self.push(record, EventType::System, text);
        event.subtype = Some("fork_replay".to_string());
        event.payload = Some(json!({"parent_id": parent, "copied_lines": copied}));
    }
}
