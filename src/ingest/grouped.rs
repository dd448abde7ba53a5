//! Sessions stored across several files (an Antigravity conversation: transcripts, chunk
//! segments, its `.db` trajectory, its annotation). Discovery maps every member file to its
//! group's key (a directory); the group's checkpoint (kept in `state.json` under the key, like
//! a file's) holds a fingerprint of every member's (path, size, mtime, inode) plus the facts the
//! session takes from shared files (titles, working directories), so a change to any of them
//! re-reads the whole session, and nothing is read while none changed. A re-read session
//! replaces its stored rows; its events keep their ids (keys come from the harness's step
//! numbers, not from file offsets), so only new events are new.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::Format;
use super::antigravity::{self, group as agy_group, home::HomeIndex};
use super::assemble::assemble;
use super::run::{FileIssue, FileOutcome, IndexOptions, IngestedFile};
use super::sqlite::StoreReadError;
use crate::ids::StableHasher;
use crate::store::state::Checkpoint;

/// The harnesses whose sessions are groups of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKind {
    Antigravity,
}

impl GroupKind {
    pub fn format(self) -> Format {
        match self {
            GroupKind::Antigravity => Format::Antigravity,
        }
    }
}

/// One grouped session source: its kind and key (the directory that names the session).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Group {
    pub kind: GroupKind,
    pub key: PathBuf,
}

/// How discovery treats a file that belongs to a grouped source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// A member of this group: the whole group is read instead of the file.
    Member(Group),
    /// A file of a known harness that cannot be read (encrypted): counted, skipped.
    Encrypted,
}

/// The role of `path` in a grouped source, if it has one.
pub fn claim(path: &Path) -> Option<Claim> {
    match agy_group::role_of(path)? {
        agy_group::Role::Member(key) => Some(Claim::Member(Group {
            kind: GroupKind::Antigravity,
            key,
        })),
        agy_group::Role::Encrypted => Some(Claim::Encrypted),
    }
}

/// Shared files read once per pass (a home's indexes serve all its conversations).
#[derive(Default)]
pub struct SharedIndexes {
    antigravity_homes: HashMap<PathBuf, HomeIndex>,
}

impl SharedIndexes {
    fn antigravity_home(&mut self, key: &Path) -> &HomeIndex {
        let home = agy_group::home_and_id(key)
            .map(|(home, _)| home)
            .unwrap_or_default();
        self.antigravity_homes
            .entry(home.clone())
            .or_insert_with(|| HomeIndex::load(&home))
    }
}

/// The (size, mtime, inode) of every member and the group's shared facts, hashed.
struct Fingerprint {
    hash: String,
    total_size: u64,
    newest_mtime_ns: i128,
}

fn fingerprint(members: &[PathBuf], shared_facts: &str) -> Fingerprint {
    let mut hasher = StableHasher::new();
    let mut total_size = 0;
    let mut newest_mtime_ns = 0;
    for member in members {
        let Ok(metadata) = fs::metadata(member) else {
            continue;
        };
        let mtime_ns =
            i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec());
        total_size += metadata.len();
        newest_mtime_ns = newest_mtime_ns.max(mtime_ns);
        hasher.update(member.to_string_lossy().as_bytes());
        hasher.update(&metadata.len().to_le_bytes());
        hasher.update(&mtime_ns.to_le_bytes());
        hasher.update(&metadata.ino().to_le_bytes());
    }
    hasher.update(shared_facts.as_bytes());
    Fingerprint {
        hash: hasher.finish_hex(),
        total_size,
        newest_mtime_ns,
    }
}

/// Reads `group` unless its fingerprint equals its checkpoint's.
pub(super) fn read_group(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
    shared: &mut SharedIndexes,
) -> FileOutcome {
    match group.kind {
        GroupKind::Antigravity => read_antigravity(group, previous, options, shared),
    }
}

fn read_antigravity(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
    shared: &mut SharedIndexes,
) -> FileOutcome {
    let key = &group.key;
    let meta = agy_group::meta_of(key, shared.antigravity_home(key));
    let members = agy_group::members(key);
    let stamp = fingerprint(&members, &format!("{meta:?}"));
    let format = group.kind.format();
    let unchanged = previous.is_some_and(|checkpoint| {
        checkpoint.content_hash == stamp.hash && checkpoint.format == format.name()
    });
    if unchanged {
        return FileOutcome::Unchanged;
    }
    let read = match agy_group::read(key, meta, options.limits) {
        Ok(Some(read)) => read,
        Ok(None) => return FileOutcome::Skipped(checkpoint_of(&stamp, "unknown", Vec::new(), 0)),
        Err(StoreReadError::Busy { path }) => return FileOutcome::Busy(path),
        Err(error) => return FileOutcome::Failed(error.to_string()),
    };
    let mut conversation = read.conversation;
    let secrets_redacted = if options.redact {
        conversation
            .transcripts
            .iter_mut()
            .flat_map(|transcript| transcript.lines.iter_mut())
            .map(|line| options.redactor.redact_value(&mut line.value) as u64)
            .sum()
    } else {
        0
    };
    let output = antigravity::parse(&conversation);
    let mut issues: Vec<FileIssue> = read
        .malformed
        .iter()
        .map(|warning| FileIssue {
            line: warning.line,
            message: warning.message.clone(),
        })
        .collect();
    let malformed_lines = issues.len() as u64;
    issues.extend(output.warnings.iter().map(|warning| FileIssue {
        line: warning.line,
        message: warning.message.clone(),
    }));
    let fallback_time = DateTime::<Utc>::from_timestamp_nanos(
        stamp.newest_mtime_ns.clamp(0, i128::from(i64::MAX)) as i64,
    );
    let mut sessions: Vec<_> = output
        .sessions
        .iter()
        .filter(|session| !session.events.is_empty())
        .map(|session| assemble(session, key, fallback_time))
        .collect();
    if options.redact {
        for session in &mut sessions {
            redact_session_facts(&options.redactor, &mut session.session);
        }
    }
    let session_ids: Vec<String> = sessions
        .iter()
        .map(|session| session.session.session_id.clone())
        .collect();
    let removed_sessions = previous
        .map(|checkpoint| {
            checkpoint
                .sessions
                .iter()
                .filter(|old| !session_ids.contains(old))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut checkpoint = checkpoint_of(&stamp, format.name(), session_ids, malformed_lines);
    checkpoint.complete_offset = read.bytes_read;
    FileOutcome::Ingested(Box::new(IngestedFile {
        format,
        checkpoint,
        sessions,
        removed_sessions,
        malformed_lines,
        parser_warnings: output.warnings.len() as u64,
        secrets_redacted,
        issues,
    }))
}

/// Titles and working directories come from files other than the transcripts: redacted
/// like everything else.
fn redact_session_facts(
    redactor: &crate::redact::Redactor,
    session: &mut crate::store::rows::SessionRow,
) {
    for field in [Some(&mut session.title), session.cwd.as_mut()]
        .into_iter()
        .flatten()
    {
        if let Some((redacted, _)) = redactor.redact_text(field) {
            *field = redacted;
        }
    }
}

fn checkpoint_of(
    stamp: &Fingerprint,
    format: &str,
    sessions: Vec<String>,
    malformed_lines: u64,
) -> Checkpoint {
    Checkpoint {
        size: stamp.total_size,
        mtime_ns: stamp.newest_mtime_ns,
        device: 0,
        inode: 0,
        complete_offset: stamp.total_size,
        content_hash: stamp.hash.clone(),
        format: format.to_string(),
        sessions,
        malformed_lines,
    }
}
