//! A legacy Qwen Code session spread over several chat recordings (issue #48). Legacy Qwen
//! Code (the Gemini CLI recorder, before the JSONL format of 0.5) starts a new recording file,
//! `chats/session-<local start>-<first 8 of sessionId>.json`, each time it starts a new chat in
//! the same process: a sub-agent's chat, the chat after `/clear` or a compression. Every file
//! carries the process's `sessionId` and only the messages of its own chat (none of the real
//! files repeats another's), so the files are read together as one session: every member's
//! messages, each message id once (a copy that did repeat one would count once), in time
//! order. Read alone, each file would yield the same session id, and only one would be kept.
//!
//! Discovery claims a file for such a group only when the `chats` folder holds another
//! recording with the same id suffix and the file is a Qwen recording (Gemini CLI writes the
//! same names); a session of a single file stays a plain file.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use crate::model::{ParseOutput, ParsedSession};

const PREFIX: &str = "session-";
const SUFFIX: &str = ".json";

/// The session-id prefix in a legacy recording's file name (`session-2025-11-15T12-44-8524132a.json`
/// gives `8524132a`), when `path` is one inside a `chats` folder.
fn id_suffix(path: &Path) -> Option<&str> {
    let in_chats = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == "chats");
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (_, id) = stem.rsplit_once('-')?;
    (in_chats && id.len() == 8 && id.bytes().all(|byte| byte.is_ascii_hexdigit())).then_some(id)
}

/// The recordings of one session in `chats`, sorted by name (so by start time).
fn recordings_of(chats: &Path, id: &str) -> Vec<PathBuf> {
    let ending = format!("-{id}{SUFFIX}");
    recording_names(chats)
        .into_iter()
        .filter(|name| name.ends_with(&ending))
        .map(|name| chats.join(name))
        .filter(|path| path.is_file())
        .collect()
}

/// A `chats` folder's mtime when listed, and its legacy recording names.
type Listing = (Option<SystemTime>, Vec<String>);

thread_local! {
    /// The legacy recording names of each `chats` folder seen, with the folder's mtime: a
    /// discovery pass asks once per file, and a folder can hold thousands of recordings.
    static LISTINGS: RefCell<HashMap<PathBuf, Listing>> =
        RefCell::new(HashMap::new());
}

/// The `session-*.json` names in `chats`, sorted (listed again when the folder changed).
fn recording_names(chats: &Path) -> Vec<String> {
    let modified = fs::metadata(chats).and_then(|meta| meta.modified()).ok();
    LISTINGS.with(|listings| {
        let mut listings = listings.borrow_mut();
        if let Some((seen, names)) = listings.get(chats)
            && seen.is_some()
            && *seen == modified
        {
            return names.clone();
        }
        let mut names: Vec<String> = fs::read_dir(chats)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|entry| entry.file_name().into_string().ok())
                    .filter(|name| name.starts_with(PREFIX) && name.ends_with(SUFFIX))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        listings.insert(chats.to_path_buf(), (modified, names.clone()));
        names
    })
}

/// The group key of a legacy recording that shares its session with another recording:
/// `<chats>/session-<id>` (no such file exists). `None` for a session of one file, for
/// anything else, and for a Gemini CLI recording.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let id = id_suffix(path)?;
    let chats = path.parent()?;
    let members = recordings_of(chats, id);
    if members.len() < 2 || !is_qwen_recording(&members[0]) {
        return None;
    }
    Some(chats.join(format!("{PREFIX}{id}")))
}

fn is_qwen_recording(path: &Path) -> bool {
    fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|value| super::qwen::sniff_json(&value))
}

/// The member files of the group `key` names, sorted by start.
pub fn members(key: &Path) -> Vec<PathBuf> {
    let (Some(chats), Some(id)) = (
        key.parent(),
        key.file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix(PREFIX)),
    ) else {
        return Vec::new();
    };
    recordings_of(chats, id)
}

/// One session from the parses of its recordings (in file order): the first recording's
/// metadata (gaps filled from the others), every event key once (the first copy), ordered by
/// time (events without one keep their place after the event before them).
pub fn merge(parses: Vec<ParseOutput>) -> ParseOutput {
    let mut merged = ParseOutput::default();
    for parse in parses {
        merged.warnings.extend(parse.warnings);
        for session in parse.sessions {
            match merged
                .sessions
                .iter_mut()
                .find(|kept| kept.native_id == session.native_id)
            {
                Some(kept) => absorb(kept, session),
                None => merged.sessions.push(session),
            }
        }
    }
    for session in &mut merged.sessions {
        order_by_time(session);
    }
    merged
}

fn absorb(kept: &mut ParsedSession, other: ParsedSession) {
    let mut keys: HashSet<String> = kept.events.iter().map(|event| event.key.clone()).collect();
    for event in other.events {
        if keys.insert(event.key.clone()) {
            kept.events.push(event);
        }
    }
    let meta = &mut kept.meta;
    let more = other.meta;
    meta.title = meta.title.take().or(more.title);
    meta.summary = meta.summary.take().or(more.summary);
    meta.cwd = meta.cwd.take().or(more.cwd);
    meta.model = meta.model.take().or(more.model);
    meta.harness_version = meta.harness_version.take().or(more.harness_version);
    meta.started_at = match (meta.started_at, more.started_at) {
        (Some(left), Some(right)) => Some(left.min(right)),
        (left, right) => left.or(right),
    };
}

/// A stable sort by timestamp; an untimed event takes the time of the event before it.
fn order_by_time(session: &mut ParsedSession) {
    let mut last = None;
    let mut keyed: Vec<_> = session
        .events
        .drain(..)
        .map(|event| {
            last = event.timestamp.or(last);
            (last, event)
        })
        .collect();
    keyed.sort_by_key(|(time, _)| *time);
    session.events = keyed.into_iter().map(|(_, event)| event).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn recording(session: &str, messages: Value) -> Value {
        json!({"sessionId": session, "projectHash": "h", "startTime": "2025-11-15T12:45:10.000Z",
               "lastUpdated": "2025-11-15T12:48:55.000Z", "messages": messages})
    }

    #[test]
    fn recordings_of_one_session_merge_with_each_message_once() {
        let id = "8524132a-9f59-45e2-b47b-fb56f1702c47";
        let main = recording(
            id,
            json!([
                {"id": "u1", "timestamp": "2025-11-15T12:45:10.000Z", "type": "user", "content": "why does wine fail"},
                {"id": "q1", "timestamp": "2025-11-15T12:45:20.000Z", "type": "qwen", "content": "Let me look.", "model": "qwen3-coder-plus"},
                {"id": "u2", "timestamp": "2025-11-15T12:46:08.000Z", "type": "user", "content": "search the web"},
                {"id": "q2", "timestamp": "2025-11-15T12:46:16.000Z", "type": "qwen", "content": "Delegating."},
                {"id": "q3", "timestamp": "2025-11-15T12:48:55.000Z", "type": "qwen", "content": "Here is what I found."}
            ]),
        );
        let sub = recording(
            id,
            json!([
                // A copy of a message of the first recording counts once.
                {"id": "q2", "timestamp": "2025-11-15T12:46:16.000Z", "type": "qwen", "content": "Delegating."},
                {"id": "s1", "timestamp": "2025-11-15T12:46:17.000Z", "type": "user", "content": "Search for ShellExecuteEx errors"},
                {"id": "s2", "timestamp": "2025-11-15T12:48:35.000Z", "type": "qwen", "content": "Based on my research..."}
            ]),
        );
        let parses = [
            ("chats/session-2025-11-15T12-44-8524132a.json", main),
            ("chats/session-2025-11-15T12-46-8524132a.json", sub),
        ]
        .into_iter()
        .map(|(path, value)| super::super::qwen::parse_json(Path::new(path), &value))
        .collect();
        let merged = merge(parses);
        assert_eq!(merged.sessions.len(), 1);
        let session = &merged.sessions[0];
        assert_eq!(session.native_id, id);
        let keys: Vec<&str> = session
            .events
            .iter()
            .map(|event| event.key.as_str())
            .collect();
        assert_eq!(keys, ["u1", "q1", "u2", "q2", "s1", "s2", "q3"]);
        assert_eq!(session.meta.model.as_deref(), Some("qwen3-coder-plus"));
    }

    #[test]
    fn only_legacy_recording_names_in_a_chats_folder_have_an_id() {
        assert_eq!(
            id_suffix(Path::new(
                "/h/.qwen/tmp/x/chats/session-2025-11-15T12-44-8524132a.json"
            )),
            Some("8524132a")
        );
        assert_eq!(
            id_suffix(Path::new("/h/x/session-2025-11-15T12-44-8524132a.json")),
            None
        );
        assert_eq!(
            id_suffix(Path::new(
                "/h/chats/session-2025-11-15T12-44-8524132a.jsonl"
            )),
            None
        );
        assert_eq!(
            id_suffix(Path::new("/h/chats/session-2025-11-15T12-44-notahex.json")),
            None
        );
    }
}
