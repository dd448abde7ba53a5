//! A conversation's files on disk: which files belong to the conversation keyed by its
//! `<home>/brain/<uuid>` directory, and reading them into a [`Conversation`].

use std::fs;
use std::path::{Path, PathBuf};

use super::home::{HomeIndex, product_of_home};
use super::{Conversation, ConversationMeta, Form, Transcript, sniff, trajectory};
use crate::ingest::reader::{ReadLimits, stream_json_lines};
use crate::ingest::sqlite::{StoreReadError, wal_path};
use crate::model::ParseWarning;

/// How a file of an Antigravity home takes part in indexing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A file of the conversation whose key (`<home>/brain/<uuid>`) is given.
    Member(PathBuf),
    /// An encrypted trajectory (`conversations/*.pb`, `implicit/*.pb`): unreadable.
    Encrypted,
}

/// The role of `path` in an Antigravity home, if it has one.
pub fn role_of(path: &Path) -> Option<Role> {
    let name = path.file_name()?.to_str()?;
    let parent = path.parent()?;
    let parent_name = parent.file_name()?.to_str()?;
    // brain/<uuid>/.system_generated/logs/{transcript,transcript_full}.jsonl | overview.txt
    if matches!(
        name,
        "transcript.jsonl" | "transcript_full.jsonl" | "overview.txt"
    ) && parent_name == "logs"
    {
        return conversation_of_logs(parent).map(Role::Member);
    }
    // brain/<uuid>/.system_generated/logs/chunks/{transcript,transcript_full}/NNNNNNNN.jsonl
    if matches!(parent_name, "transcript" | "transcript_full") && is_chunk_name(name) {
        let chunks = parent.parent()?;
        if chunks.file_name()? == "chunks" {
            return conversation_of_logs(chunks.parent()?).map(Role::Member);
        }
        return None;
    }
    // <home>/{conversations,implicit,annotations}/<uuid>.<ext>
    let home = parent.parent()?;
    if !is_home(home) {
        return None;
    }
    let (stem, extension) = name.split_once('.')?;
    if !is_uuid(stem) {
        return None;
    }
    match (parent_name, extension) {
        ("conversations" | "implicit", "pb") => Some(Role::Encrypted),
        ("conversations", "db" | "db-wal") | ("annotations", "pbtxt") => {
            Some(Role::Member(home.join("brain").join(stem)))
        }
        _ => None,
    }
}

/// `<home>/brain/<uuid>` for a `…/brain/<uuid>/.system_generated/logs` directory.
fn conversation_of_logs(logs: &Path) -> Option<PathBuf> {
    let generated = logs.parent()?;
    let conversation = generated.parent()?;
    let id = conversation.file_name()?.to_str()?;
    let brain = conversation.parent()?;
    (generated.file_name()? == ".system_generated" && brain.file_name()? == "brain" && is_uuid(id))
        .then(|| conversation.to_path_buf())
}

fn is_chunk_name(name: &str) -> bool {
    name.strip_suffix(".jsonl")
        .is_some_and(|stem| !stem.is_empty() && stem.bytes().all(|byte| byte.is_ascii_digit()))
}

/// A product home: named like one, or holding a `brain/` directory.
fn is_home(home: &Path) -> bool {
    product_of_home(home).is_some() || home.join("brain").is_dir()
}

fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

/// The home of a conversation key (`<home>/brain/<uuid>`) and its id.
pub fn home_and_id(key: &Path) -> Option<(PathBuf, String)> {
    let id = key.file_name()?.to_str()?.to_string();
    let home = key.parent()?.parent()?.to_path_buf();
    Some((home, id))
}

/// Every transcript file of the conversation keyed `key`, with its form, in reading order.
pub fn transcript_files(key: &Path) -> Vec<(PathBuf, Form)> {
    let logs = key.join(".system_generated").join("logs");
    let mut files = Vec::new();
    for (name, form) in [
        ("transcript_full.jsonl", Form::Full),
        ("transcript.jsonl", Form::Compact),
        ("overview.txt", Form::Compact),
    ] {
        let path = logs.join(name);
        if path.is_file() {
            files.push((path, form));
        }
    }
    for (directory, form) in [
        ("transcript_full", Form::Full),
        ("transcript", Form::Compact),
    ] {
        let mut chunks: Vec<PathBuf> = fs::read_dir(logs.join("chunks").join(directory))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(is_chunk_name)
            })
            .collect();
        chunks.sort();
        files.extend(chunks.into_iter().map(|path| (path, form)));
    }
    files
}

/// The trajectory database of the conversation, when there is one.
pub fn database_of(key: &Path) -> Option<PathBuf> {
    let (home, id) = home_and_id(key)?;
    let path = home.join("conversations").join(format!("{id}.db"));
    path.is_file().then_some(path)
}

/// Every file whose change re-reads the conversation.
pub fn members(key: &Path) -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = transcript_files(key)
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    if let Some(database) = database_of(key) {
        let wal = wal_path(&database);
        members.push(database);
        if wal.is_file() {
            members.push(wal);
        }
    }
    if let Some((home, id)) = home_and_id(key) {
        let annotation = home.join("annotations").join(format!("{id}.pbtxt"));
        if annotation.is_file() {
            members.push(annotation);
        }
    }
    members
}

/// The facts the home's shared indexes give about the conversation keyed `key`.
pub fn meta_of(key: &Path, index: &HomeIndex) -> ConversationMeta {
    match home_and_id(key) {
        Some((home, id)) => index.meta_of(&home, &id),
        None => ConversationMeta::default(),
    }
}

/// A conversation read from disk, with what reading it found.
pub struct ReadConversation {
    pub conversation: Conversation,
    pub bytes_read: u64,
    /// Malformed lines of its transcripts.
    pub malformed: Vec<ParseWarning>,
}

/// Reads the conversation keyed `key`; `Ok(None)` when none of its transcripts holds step
/// records (not an Antigravity conversation after all).
pub fn read(
    key: &Path,
    meta: ConversationMeta,
    limits: ReadLimits,
) -> Result<Option<ReadConversation>, StoreReadError> {
    let Some((_, id)) = home_and_id(key) else {
        return Ok(None);
    };
    let logs = key.join(".system_generated").join("logs");
    let mut transcripts = Vec::new();
    let mut malformed = Vec::new();
    let mut bytes_read = 0;
    for (path, form) in transcript_files(key) {
        let name = path
            .strip_prefix(&logs)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let Ok(file) = fs::File::open(&path) else {
            continue;
        };
        let Ok(streamed) = stream_json_lines(file, limits) else {
            continue;
        };
        bytes_read += streamed.split.complete_offset;
        malformed.extend(
            streamed
                .split
                .malformed
                .into_iter()
                .map(|warning| ParseWarning {
                    line: warning.line,
                    message: format!("{name}: {}", warning.message),
                }),
        );
        transcripts.push(Transcript {
            name,
            form,
            lines: streamed.split.lines,
        });
    }
    if !transcripts
        .iter()
        .any(|transcript| sniff(&transcript.lines))
    {
        return Ok(None);
    }
    let trajectory = database_of(key).map(|database| trajectory::read(&database));
    let trajectory = trajectory.transpose()?;
    Ok(Some(ReadConversation {
        conversation: Conversation {
            id,
            transcripts,
            meta,
            trajectory,
        },
        bytes_read,
        malformed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_a_home_have_their_roles() {
        let id = "6b284218-b68c-4df8-b633-5aca70fd92a5";
        let home = Path::new("/h/.gemini/antigravity-cli");
        let key = home.join("brain").join(id);
        let logs = key.join(".system_generated/logs");
        for member in [
            logs.join("transcript.jsonl"),
            logs.join("transcript_full.jsonl"),
            logs.join("chunks/transcript_full/00000001.jsonl"),
            home.join(format!("conversations/{id}.db")),
            home.join(format!("annotations/{id}.pbtxt")),
        ] {
            assert_eq!(
                role_of(&member),
                Some(Role::Member(key.clone())),
                "{member:?}"
            );
        }
        assert_eq!(
            role_of(&home.join(format!("implicit/{id}.pb"))),
            Some(Role::Encrypted)
        );
        assert_eq!(role_of(&logs.join("chunks/transcript/notes.jsonl")), None);
        assert_eq!(role_of(&home.join("history.jsonl")), None);
        assert_eq!(
            role_of(Path::new(
                "/x/brain/not-a-uuid/.system_generated/logs/transcript.jsonl"
            )),
            None
        );
        assert_eq!(role_of(Path::new("/x/y/conversations/abc.db")), None);
    }
}
