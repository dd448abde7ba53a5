//! OpenCode's legacy `storage/` tree: a session is its `session/<project>/<ses>.json`, the
//! messages in `message/<ses>/` and their parts in `part/<msg>/`. The group key of a session is
//! its `storage/message/<ses>` directory.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{MessageRecord, SessionRecord};

/// Largest JSON file of the tree read (parts hold tool outputs).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// The session key (`<storage>/message/<ses>`) of a file of the tree, if it is one.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    let parent = path.parent()?;
    let kind_dir = |levels: usize| {
        let mut dir = path;
        for _ in 0..levels {
            dir = dir.parent()?;
        }
        let storage = dir.parent()?;
        let kind = dir.file_name()?.to_str()?.to_string();
        (storage.file_name()? == "storage").then_some((kind, storage))
    };
    if stem.starts_with("ses_") {
        let (kind, storage) = kind_dir(2)?;
        return (kind == "session").then(|| storage.join("message").join(stem));
    }
    if stem.starts_with("msg_") {
        let (kind, _) = kind_dir(2)?;
        let session = parent.file_name()?.to_str()?;
        return (kind == "message" && session.starts_with("ses_")).then(|| parent.to_path_buf());
    }
    if stem.starts_with("prt_") {
        let (kind, storage) = kind_dir(2)?;
        if kind != "part" {
            return None;
        }
        let part = read_json(path)?;
        let session = part.get("sessionID").and_then(Value::as_str)?;
        return Some(storage.join("message").join(session));
    }
    None
}

fn read_json(path: &Path) -> Option<Value> {
    let metadata = fs::metadata(path).ok()?;
    if metadata.len() > MAX_FILE_BYTES {
        return None;
    }
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    files.sort();
    files
}

fn storage_and_id(key: &Path) -> Option<(PathBuf, String)> {
    let id = key.file_name()?.to_str()?.to_string();
    Some((key.parent()?.parent()?.to_path_buf(), id))
}

/// `session/<project>/<ses>.json` of the session keyed `key`.
fn session_file(key: &Path) -> Option<PathBuf> {
    let (storage, id) = storage_and_id(key)?;
    fs::read_dir(storage.join("session"))
        .ok()?
        .filter_map(Result::ok)
        .map(|project| project.path().join(format!("{id}.json")))
        .find(|path| path.is_file())
}

/// Every file whose change re-reads the session.
pub fn members(key: &Path) -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = session_file(key).into_iter().collect();
    let Some((storage, _)) = storage_and_id(key) else {
        return members;
    };
    for message in json_files(key) {
        let parts = message
            .file_stem()
            .map(|stem| storage.join("part").join(stem))
            .map(|dir| json_files(&dir))
            .unwrap_or_default();
        members.push(message);
        members.extend(parts);
    }
    members
}

/// The session keyed `key`, with the bytes read; `None` when it has no messages.
pub fn read(key: &Path) -> Option<(SessionRecord, u64)> {
    let (storage, id) = storage_and_id(key)?;
    let mut bytes = 0;
    let mut read_counted = |path: &Path| {
        bytes += fs::metadata(path)
            .map(|metadata| metadata.len())
            .unwrap_or(0);
        read_json(path)
    };
    let info = session_file(key)
        .and_then(|path| read_counted(&path))
        .unwrap_or(Value::Null);
    let mut messages = Vec::new();
    for message_path in json_files(key) {
        let Some(message) = read_counted(&message_path) else {
            continue;
        };
        let message_id = message
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| Some(message_path.file_stem()?.to_str()?.to_string()))?;
        let parts = json_files(&storage.join("part").join(&message_id))
            .into_iter()
            .filter_map(|path| {
                let part = read_counted(&path)?;
                let part_id = part.get("id").and_then(Value::as_str)?.to_string();
                Some((part_id, part))
            })
            .collect();
        messages.push(MessageRecord {
            id: message_id,
            info: message,
            parts,
        });
    }
    if messages.is_empty() {
        return None;
    }
    Some((SessionRecord { id, info, messages }, bytes))
}
