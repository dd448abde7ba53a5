//! Sessions stored across several files (an Antigravity conversation: transcripts, chunk
//! segments, its `.db` trajectory, its annotation; an OpenCode session of the legacy `storage/`
//! tree: its session, message and part files), and sessions stored as rows of a SQLite store
//! (OpenCode's `opencode.db`, Goose's `sessions.db`, Crush's `crush.db`, cursor-agent's
//! `chats/<hash>/<chat>/store.db`, one chat each, the Cursor IDE's `globalStorage/state.vscdb`,
//! one session per composer, Zed's `threads/threads.db`, an OpenClaw agent's
//! `agent/openclaw-agent.sqlite`, a Hermes Agent home's `state.db` with its `sessions/`
//! files, Warp's `warp.sqlite`, a Windsurf 2.x / Devin Desktop `acp-messages/<uuid>.db`, one
//! session each, Devin CLI's `sessions.db`, the sessions without a trajectory); Cline and Roo Code task
//! folders are groups too, and so are the legacy Qwen Code recordings of one session
//! (`ingest::qwen_legacy`) and a VS Code chat session (its `chatSessions/<id>.jsonl` log, the
//! stale `<id>.json` snapshot beside it, the workspace's `workspace.json`) and a workspace of the
//! Kiro IDE's pre-1.0 chats (its `.chat` files, execution logs and `workspace-sessions`
//! folder, `ingest::kiro_ide`). Discovery maps every member file to its
//! group's key (a directory); the group's checkpoint (kept in `state.json` under the key, like
//! a file's) holds a fingerprint of every member's (path, size, mtime, inode) plus the facts the
//! session takes from shared files (titles, working directories), so a change to any of them
//! re-reads the whole session, and nothing is read while none changed. A re-read session
//! replaces its stored rows; its events keep their ids (keys come from the harness's step
//! numbers or record ids, not from file offsets), so only new events are new. A store is one
//! source: its file fingerprint (database and `-wal`) skips it when nothing changed, and a row
//! checkpoint per session (`<store>#session=<id>`) re-reads only the sessions whose rows changed.
//! The store's checkpoint lists every session its rows give, sub-agent sessions included: a
//! session no row gives any more (a row deleted or hidden, a sub-agent its re-read parent no
//! longer names) is removed.
//! A Devin Desktop message store whose session is left to the Devin CLI's copy
//! (`ingest::devin_pair`, its facts part of the fingerprint) lists no session, so a copy indexed
//! before is removed (with its sub-agent sessions), and comes back when the CLI's copy goes.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use std::collections::BTreeMap;

use super::assemble::assemble;
use super::run::{FileIssue, FileOutcome, IndexOptions, IngestedFile};
use crate::ids::{StableHasher, session_id};
use crate::ingest::Format;
use crate::ingest::antigravity::{self, group as agy_group, home::HomeIndex};
use crate::ingest::cline;
use crate::ingest::crush;
use crate::ingest::cursor::ide_store::{self as cursor_ide_store, Workspaces};
use crate::ingest::cursor::{ide as cursor_ide, store as cursor_store};
use crate::ingest::devin;
use crate::ingest::goose;
use crate::ingest::hermes::{self, store as hermes_store};
use crate::ingest::kimi;
use crate::ingest::kimi_code;
use crate::ingest::kiro_db::{self, Flavor as KiroFlavor};
use crate::ingest::kiro_ide;
use crate::ingest::lines::JsonLine;
use crate::ingest::openclaw;
use crate::ingest::opencode::{self, store as opencode_store, tree as opencode_tree};
use crate::ingest::reader::{StreamedLines, stream_json_lines};
use crate::ingest::sqlite::{StoreReadError, classify, open_snapshot, wal_path};
use crate::ingest::vscode_copilot::{self, ChatRead};
use crate::ingest::warp;
use crate::ingest::windsurf;
use crate::ingest::windsurf_acp;
use crate::ingest::zed;
use crate::ingest::{qwen, qwen_legacy};
use crate::model::{ParseOutput, ParseWarning, Source};
use crate::redact::Redactor;
use crate::store::rows::AssembledSession;
use crate::store::state::Checkpoint;

/// The harnesses whose sessions are groups of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKind {
    Antigravity,
    /// A session of OpenCode's legacy `storage/` tree, keyed by `storage/message/<ses>`.
    OpenCodeTree,
    /// A Kimi CLI session folder (`sessions/<hash>/<uuid>`).
    Kimi,
    /// A Kimi Code session folder (`sessions/<workDirKey>/<id>` with `agents/`).
    KimiCode,
    /// A Cline task folder (`tasks/<id>`, or any folder holding `ui_messages.json`).
    Cline,
    /// A Roo Code task folder.
    Roo,
    /// The legacy Qwen Code recordings of one session (`chats/session-*-<id>.json`, keyed by
    /// `chats/session-<id>`).
    QwenChats,
    /// A VS Code chat session (`chatSessions/<id>.jsonl` or `.json`, keyed by
    /// `chatSessions/<id>`).
    VscodeChat,
    /// A workspace of the Kiro IDE's pre-1.0 chats (`kiro.kiroagent/<workspace hash>`).
    KiroIde,
}

impl GroupKind {
    pub fn format(self) -> Format {
        match self {
            GroupKind::Antigravity => Format::Antigravity,
            GroupKind::OpenCodeTree => Format::OpenCodeTree,
            GroupKind::Kimi => Format::Kimi,
            GroupKind::KimiCode => Format::KimiCode,
            GroupKind::Cline => Format::ClineTask,
            GroupKind::Roo => Format::RooTask,
            GroupKind::QwenChats => Format::QwenJson,
            GroupKind::VscodeChat => Format::VscodeChat,
            GroupKind::KiroIde => Format::KiroIde,
        }
    }
}

/// The harnesses whose sessions are rows of a SQLite store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoreKind {
    OpenCode,
    Goose,
    Crush,
    /// A cursor-agent chat store (one chat).
    Cursor,
    /// The Cursor IDE's global `state.vscdb` (one session per composer).
    CursorIde,
    /// Zed's `threads/threads.db`.
    Zed,
    /// An OpenClaw agent's `agent/openclaw-agent.sqlite`.
    OpenClaw,
    /// A Hermes Agent home: its `state.db` and its `sessions/` files.
    Hermes,
    /// Kiro CLI's `kiro-cli/data.sqlite3` (`conversations_v2`).
    Kiro,
    /// Amazon Q Developer CLI's `amazon-q/data.sqlite3` (`conversations`).
    AmazonQ,
    /// Warp's `warp.sqlite` (its AI tables).
    Warp,
    /// A Windsurf 2.x / Devin Desktop ACP message store, `acp-messages/<uuid>.db` (one session).
    WindsurfAcp,
    /// Devin CLI's `devin/cli/sessions.db`: the sessions without a trajectory, from their
    /// `message_nodes`.
    Devin,
}

impl StoreKind {
    fn format(self) -> Format {
        match self {
            StoreKind::OpenCode => Format::OpenCodeDb,
            StoreKind::Goose => Format::GooseDb,
            StoreKind::Crush => Format::CrushDb,
            StoreKind::Cursor => Format::CursorStore,
            StoreKind::CursorIde => Format::CursorIdeStore,
            StoreKind::Zed => Format::ZedDb,
            StoreKind::OpenClaw => Format::OpenClawDb,
            StoreKind::Hermes => Format::HermesDb,
            StoreKind::Kiro => Format::KiroDb,
            StoreKind::AmazonQ => Format::AmazonQDb,
            StoreKind::Warp => Format::WarpDb,
            StoreKind::WindsurfAcp => Format::WindsurfAcpDb,
            StoreKind::Devin => Format::DevinDb,
        }
    }

    /// The CLI of a Kiro-family store.
    fn kiro_flavor(self) -> Option<KiroFlavor> {
        match self {
            StoreKind::Kiro => Some(KiroFlavor::Kiro),
            StoreKind::AmazonQ => Some(KiroFlavor::AmazonQ),
            _ => None,
        }
    }

    fn source(self) -> Source {
        match self {
            StoreKind::OpenCode => Source::OpenCode,
            StoreKind::Goose => Source::Goose,
            StoreKind::Crush => Source::Crush,
            StoreKind::Cursor => Source::Cursor,
            StoreKind::CursorIde => Source::CursorIde,
            StoreKind::Zed => Source::Zed,
            StoreKind::OpenClaw => Source::OpenClaw,
            StoreKind::Hermes => Source::Hermes,
            StoreKind::Kiro => Source::Kiro,
            StoreKind::AmazonQ => Source::AmazonQ,
            StoreKind::Warp => Source::Warp,
            StoreKind::WindsurfAcp => Source::Windsurf,
            StoreKind::Devin => Source::Devin,
        }
    }

    fn has_schema(self, connection: &rusqlite::Connection) -> rusqlite::Result<bool> {
        match self {
            StoreKind::OpenCode => opencode_store::has_schema(connection),
            StoreKind::Goose => goose::has_schema(connection),
            StoreKind::Crush => crush::has_schema(connection),
            StoreKind::Cursor => cursor_store::has_schema(connection),
            StoreKind::CursorIde => cursor_ide_store::has_schema(connection),
            StoreKind::Zed => zed::has_schema(connection),
            StoreKind::OpenClaw => openclaw::has_schema(connection),
            StoreKind::Hermes => hermes_store::has_schema(connection),
            StoreKind::Warp => warp::has_schema(connection),
            StoreKind::WindsurfAcp => windsurf_acp::has_message_schema(connection),
            StoreKind::Devin => devin::has_schema(connection),
            StoreKind::Kiro | StoreKind::AmazonQ => match self.kiro_flavor() {
                Some(flavor) => kiro_db::has_schema(connection, flavor),
                None => Ok(false),
            },
        }
    }

    fn session_stamps(
        self,
        connection: &rusqlite::Connection,
        database: &Path,
    ) -> rusqlite::Result<Vec<(String, String)>> {
        match self {
            StoreKind::Cursor => cursor_store::session_stamps(connection, database),
            StoreKind::OpenCode => opencode_store::session_stamps(connection),
            StoreKind::Goose => goose::session_stamps(connection),
            StoreKind::Crush => crush::session_stamps(connection),
            StoreKind::CursorIde => cursor_ide_store::session_stamps(connection),
            StoreKind::Zed => zed::session_stamps(connection),
            StoreKind::OpenClaw => openclaw::session_stamps(connection),
            StoreKind::Hermes => hermes_store::session_stamps(connection, database),
            StoreKind::Warp => warp::session_stamps(connection),
            StoreKind::WindsurfAcp => windsurf_acp::message_store_stamps(connection, database),
            StoreKind::Devin => devin::session_stamps(connection, database),
            StoreKind::Kiro | StoreKind::AmazonQ => match self.kiro_flavor() {
                Some(flavor) => kiro_db::session_stamps(connection, flavor),
                None => Ok(Vec::new()),
            },
        }
    }

    /// Reads, redacts and parses one session; returns the parse and the secrets redacted.
    /// `shared` holds what the store's sessions share, read once per pass.
    fn parse_session(
        self,
        connection: &rusqlite::Connection,
        database: &Path,
        id: &str,
        options: &IndexOptions,
        shared: &mut StoreShared,
    ) -> rusqlite::Result<(ParseOutput, u64)> {
        match self {
            StoreKind::OpenCode => {
                let mut record = opencode_store::read_session(connection, id)?;
                let redacted = redact_record(options, &mut record);
                Ok((opencode::parse(&record), redacted))
            }
            StoreKind::Goose => {
                let mut session = goose::read_session(connection, id)?;
                let messages = session.messages.iter_mut().map(|row| &mut row.content);
                let redacted = redact_all(options, messages.chain(session.info.values_mut()));
                Ok((goose::parse(&session), redacted))
            }
            StoreKind::Crush => {
                let mut session = crush::read_session(connection, id, database)?;
                let messages = session.messages.iter_mut().map(|row| &mut row.parts);
                let redacted = redact_all(options, messages.chain(session.info.values_mut()));
                Ok((crush::parse(&session), redacted))
            }
            StoreKind::Cursor => {
                let Some(mut chat) = cursor_store::read_session(connection, database)? else {
                    return Ok((ParseOutput::default(), 0));
                };
                let messages = chat.messages.iter_mut().map(|row| &mut row.value);
                let redacted = redact_all(options, messages.chain(chat.meta.values_mut()));
                Ok((cursor_store::parse(&chat), redacted))
            }
            StoreKind::CursorIde => {
                let workspaces = &mut shared.cursor_workspaces;
                let read = cursor_ide_store::read_composer(connection, database, id, workspaces)?;
                let Some(mut composer) = read else {
                    return Ok((ParseOutput::default(), 0));
                };
                let bubbles = composer.bubbles.iter_mut().map(|bubble| &mut bubble.value);
                let redacted = redact_all(
                    options,
                    bubbles.chain(std::iter::once(&mut composer.composer)),
                );
                Ok((cursor_ide::parse(&composer), redacted))
            }
            StoreKind::Zed => {
                let mut thread = zed::read_session(connection, id)?;
                let document = std::iter::once(&mut thread.document);
                let redacted = redact_all(options, document.chain(thread.info.values_mut()));
                Ok((zed::parse(&thread), redacted))
            }
            StoreKind::OpenClaw => {
                let mut session = openclaw::read_session(connection, id)?;
                let events = session.lines.iter_mut().map(|line| &mut line.value);
                let redacted = redact_all(options, events.chain(session.window.values_mut()));
                Ok((openclaw::parse_store_session(&session), redacted))
            }
            StoreKind::Hermes => {
                let mut session =
                    hermes_store::read_session(connection, database, id, options.limits)?;
                let messages = session
                    .messages
                    .iter_mut()
                    .map(|message| &mut message.value);
                let facts = session.info.values_mut().chain(session.header.values_mut());
                let redacted = redact_all(options, messages.chain(facts));
                Ok((hermes::parse_session(&session), redacted))
            }
            StoreKind::Warp => {
                let mut conversation = warp::read_session(connection, id)?;
                let values = conversation
                    .queries
                    .iter_mut()
                    .chain(conversation.tasks.iter_mut())
                    .chain(std::iter::once(&mut conversation.data));
                let redacted = redact_all(options, values);
                Ok((warp::parse(&conversation), redacted))
            }
            StoreKind::Kiro | StoreKind::AmazonQ => {
                let Some(flavor) = self.kiro_flavor() else {
                    return Ok((ParseOutput::default(), 0));
                };
                let mut conversation = kiro_db::read_session(connection, flavor, id)?;
                let redacted = redact_all(options, std::iter::once(&mut conversation.state));
                Ok((kiro_db::parse(&conversation), redacted))
            }
            StoreKind::WindsurfAcp => {
                let mut store = windsurf_acp::read_message_store(connection, database)?;
                let messages = store
                    .messages
                    .iter_mut()
                    .map(|message| &mut message.payload);
                let redacted = redact_all(options, messages.chain(store.meta.values_mut()));
                Ok((
                    windsurf_acp::parse_message_store(database, &store),
                    redacted,
                ))
            }
            StoreKind::Devin => {
                let Some(mut session) = devin::read_store_session(connection, database, id)? else {
                    return Ok((ParseOutput::default(), 0));
                };
                let children = session
                    .subagents
                    .iter_mut()
                    .flat_map(|chain| &mut chain.nodes);
                let nodes = session.nodes.iter_mut().chain(children);
                let messages = nodes.map(|node| &mut node.message);
                let redacted = redact_all(options, messages.chain(session.row.values_mut()));
                Ok((devin::parse_store_session(&session), redacted))
            }
        }
    }

    /// Whether a row's own session is listed among the store's only while the row gives it.
    /// So a Devin Desktop message store whose session is left to the Devin CLI's copy
    /// (`ingest::devin_pair`) loses it, and has it back once the CLI's copy goes. Other stores
    /// keep listing a row's session: a Devin CLI row whose trajectory is written stays listed,
    /// the trajectory replacing its copy by `indexer::run`'s rule for a session two sources
    /// give. In every store, the sub-agent sessions a re-read row no longer gives go.
    fn lists_rows_only_while_they_give_a_session(self) -> bool {
        matches!(self, StoreKind::WindsurfAcp)
    }

    /// What a store's sessions take from files other than the store, for its fingerprint (a
    /// change there reads the store again): the global `state.vscdb`'s facts of a Windsurf
    /// message store, with the Devin CLI's copy of its session (`ingest::devin_pair`); which
    /// Devin CLI sessions have a trajectory (a session whose trajectory appears is left to
    /// it, and its live rows' sub-agent sessions go).
    fn shared_facts(self, database: &Path) -> String {
        match self {
            StoreKind::WindsurfAcp => windsurf_acp::message_store_facts(database),
            StoreKind::Devin => devin::trajectory_names(database),
            _ => String::new(),
        }
    }
}

/// What the sessions of one store share, read at most once per pass.
#[derive(Default)]
struct StoreShared {
    /// The Cursor IDE's workspace folders by composer.
    cursor_workspaces: Workspaces,
}

/// Redacts every value a store's rows gave (when redaction is on); the secrets redacted.
fn redact_all<'v>(
    options: &IndexOptions,
    values: impl Iterator<Item = &'v mut serde_json::Value>,
) -> u64 {
    if !options.redact {
        return 0;
    }
    values
        .map(|value| options.redactor.redact_value(value) as u64)
        .sum()
}

/// One SQLite store file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SqliteStore {
    pub kind: StoreKind,
    pub path: PathBuf,
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
    /// A SQLite store of a harness (or its `-wal`).
    Store(SqliteStore),
}

/// The role of `path` in a grouped source, if it has one.
pub fn claim(path: &Path) -> Option<Claim> {
    if let Some(role) = agy_group::role_of(path) {
        return Some(match role {
            agy_group::Role::Member(key) => Claim::Member(Group {
                kind: GroupKind::Antigravity,
                key,
            }),
            agy_group::Role::Encrypted => Claim::Encrypted,
        });
    }
    if windsurf::is_encrypted_history(path) {
        return Some(Claim::Encrypted);
    }
    if let Some(key) = kiro_ide::key_of(path) {
        return Some(Claim::Member(Group {
            kind: GroupKind::KiroIde,
            key,
        }));
    }
    // A Hermes home with a `state.db` is one store, its session files included; without
    // one, each session file is read alone.
    if let Some(database) = hermes::home_store(path).filter(|database| database.is_file()) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Hermes,
            path: database,
        }));
    }
    let name = path.file_name()?.to_str()?;
    let database = name.strip_suffix("-wal").unwrap_or(name);
    if cursor_store::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Cursor,
            path: path.with_file_name(database),
        }));
    }
    if cursor_ide_store::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::CursorIde,
            path: path.with_file_name(database),
        }));
    }
    if zed::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Zed,
            path: path.with_file_name(database),
        }));
    }
    if openclaw::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::OpenClaw,
            path: path.with_file_name(database),
        }));
    }
    if let Some(flavor) = kiro_db::store_flavor(path) {
        return Some(Claim::Store(SqliteStore {
            kind: match flavor {
                KiroFlavor::Kiro => StoreKind::Kiro,
                KiroFlavor::AmazonQ => StoreKind::AmazonQ,
            },
            path: path.with_file_name(kiro_db::STORE_NAME),
        }));
    }
    if warp::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Warp,
            path: path.with_file_name(warp::STORE_NAME),
        }));
    }
    if windsurf_acp::is_message_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::WindsurfAcp,
            path: path.with_file_name(database),
        }));
    }
    // Before the stores told by name alone: Goose's is `sessions.db` too.
    if devin::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Devin,
            path: path.with_file_name(devin::STORE_NAME),
        }));
    }
    if hermes_store::is_store_path(path) {
        return Some(Claim::Store(SqliteStore {
            kind: StoreKind::Hermes,
            path: path.with_file_name(database),
        }));
    }
    let store_kind = if opencode_store::is_store_name(database) {
        Some(StoreKind::OpenCode)
    } else if goose::is_store_name(database) {
        Some(StoreKind::Goose)
    } else if crush::is_store_name(database) {
        Some(StoreKind::Crush)
    } else {
        None
    };
    if let Some(kind) = store_kind {
        return Some(Claim::Store(SqliteStore {
            kind,
            path: path.with_file_name(database),
        }));
    }
    if let Some((key, roo)) = cline::key_of(path) {
        let kind = if roo {
            GroupKind::Roo
        } else {
            GroupKind::Cline
        };
        return Some(Claim::Member(Group { kind, key }));
    }
    if let Some(key) = kimi_code::key_of(path) {
        return Some(Claim::Member(Group {
            kind: GroupKind::KimiCode,
            key,
        }));
    }
    if let Some(key) = kimi::key_of(path) {
        return Some(Claim::Member(Group {
            kind: GroupKind::Kimi,
            key,
        }));
    }
    if let Some(key) = qwen_legacy::key_of(path) {
        return Some(Claim::Member(Group {
            kind: GroupKind::QwenChats,
            key,
        }));
    }
    if let Some(key) = vscode_copilot::key_of(path) {
        return Some(Claim::Member(Group {
            kind: GroupKind::VscodeChat,
            key,
        }));
    }
    opencode_tree::key_of(path).map(|key| {
        Claim::Member(Group {
            kind: GroupKind::OpenCodeTree,
            key,
        })
    })
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
        GroupKind::OpenCodeTree => read_opencode_tree(group, previous, options),
        GroupKind::Kimi => read_kimi(group, previous, options),
        GroupKind::KimiCode => read_kimi_code(group, previous, options),
        GroupKind::Cline | GroupKind::Roo => read_cline(group, previous, options),
        GroupKind::QwenChats => read_qwen_chats(group, previous, options),
        GroupKind::VscodeChat => read_vscode_chat(group, previous, options),
        GroupKind::KiroIde => read_kiro_ide(group, previous, options),
    }
}

/// A Kiro IDE workspace: its chats, execution logs and workspace sessions, redacted and parsed;
/// a file that cannot be read is skipped, counted as a malformed line of the workspace.
fn read_kiro_ide(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let key = &group.key;
    let Some(stamp) = changed_stamp(group, previous, &kiro_ide::members(key), "") else {
        return FileOutcome::Unchanged;
    };
    let mut workspace = kiro_ide::read(key, options.limits);
    let secrets_redacted = redact_all(options, workspace.values_mut());
    let output = kiro_ide::parse(&workspace);
    if output.sessions.is_empty() && workspace.skipped.is_empty() {
        return skipped(&stamp);
    }
    let read = GroupRead {
        output,
        malformed: malformed_issues(&workspace.skipped, ""),
        bytes_read: workspace.bytes_read,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

/// A VS Code chat session: its operation log replayed (else its snapshot), redacted, parsed;
/// its rows name the file read as their source. A file that is half-written or unusable is
/// held back while a copy of the session is stored (that copy stays until the file reads
/// again), else recorded with one warning and read again when it changes.
fn read_vscode_chat(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let key = &group.key;
    let Some(stamp) = changed_stamp(group, previous, &vscode_copilot::members(key), "") else {
        return FileOutcome::Unchanged;
    };
    let mut chat = match vscode_copilot::read(key, options.limits) {
        ChatRead::Session(chat) => chat,
        ChatRead::NotChat => return skipped(&stamp),
        ChatRead::Incomplete(warning) | ChatRead::Unreadable(warning) => {
            if previous.is_some_and(|checkpoint| !checkpoint.sessions.is_empty()) {
                tracing::warn!(session = %key.display(), "{}; the stored copy is kept", warning.message);
                return FileOutcome::HeldBack;
            }
            let read = GroupRead {
                output: ParseOutput {
                    sessions: Vec::new(),
                    warnings: vec![warning],
                },
                malformed: Vec::new(),
                bytes_read: 0,
                secrets_redacted: 0,
            };
            return ingested(group, &stamp, previous, options, read);
        }
    };
    let secrets_redacted = if options.redact {
        options.redactor.redact_value(&mut chat.state) as u64
    } else {
        0
    };
    let mut output = vscode_copilot::parse(&chat.path, &chat.state, chat.workspace.take());
    output
        .warnings
        .splice(0..0, std::mem::take(&mut chat.warnings));
    let log_name = chat
        .path
        .file_name()
        .map(|name| format!("{}: ", name.to_string_lossy()))
        .unwrap_or_default();
    let read = GroupRead {
        output,
        malformed: malformed_issues(&chat.malformed, &log_name),
        bytes_read: chat.bytes_read,
        secrets_redacted,
    };
    ingested_from(group, &chat.path, &stamp, previous, options, read)
}

/// A legacy Qwen Code session's recordings, read and merged into one session; its rows name
/// the first recording as their source.
fn read_qwen_chats(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let members = qwen_legacy::members(&group.key);
    let Some(stamp) = changed_stamp(group, previous, &members, "") else {
        return FileOutcome::Unchanged;
    };
    let mut parses = Vec::new();
    let mut bytes_read = 0;
    let mut secrets_redacted = 0;
    for member in &members {
        let Ok(bytes) = fs::read(member) else {
            continue;
        };
        bytes_read += bytes.len() as u64;
        let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        if !qwen::sniff_json(&value) {
            continue;
        }
        if options.redact {
            secrets_redacted += options.redactor.redact_value(&mut value) as u64;
        }
        parses.push(qwen::parse_json(member, &value));
    }
    if parses.is_empty() {
        return skipped(&stamp);
    }
    let read = GroupRead {
        output: qwen_legacy::merge(parses),
        malformed: Vec::new(),
        bytes_read,
        secrets_redacted,
    };
    let source_path = members
        .first()
        .cloned()
        .unwrap_or_else(|| group.key.clone());
    ingested_from(group, &source_path, &stamp, previous, options, read)
}

fn read_kimi_code(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let key = &group.key;
    let Some(stamp) = changed_stamp(group, previous, &kimi_code::members(key), "") else {
        return FileOutcome::Unchanged;
    };
    let mut agents = Vec::new();
    let mut malformed = Vec::new();
    let mut secrets_redacted = 0;
    let mut bytes_read = 0;
    for (agent, wire) in kimi_code::wires(key) {
        let Ok(streamed) = stream_file(&wire, options) else {
            continue;
        };
        bytes_read += streamed.split.complete_offset;
        malformed.extend(malformed_issues(
            &streamed.split.malformed,
            &format!("agents/{agent}/wire.jsonl: "),
        ));
        let mut lines = streamed.split.lines;
        secrets_redacted += redact_lines(options, &mut lines);
        agents.push((agent, lines));
    }
    if !agents.iter().any(|(_, lines)| kimi_code::sniff(lines)) {
        return skipped(&stamp);
    }
    let (sessions, warnings) = kimi_code::parse(&group_id(key), &agents, &kimi_code::state_of(key));
    let read = GroupRead {
        output: ParseOutput { sessions, warnings },
        malformed,
        bytes_read,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

fn read_cline(group: &Group, previous: Option<&Checkpoint>, options: &IndexOptions) -> FileOutcome {
    let key = &group.key;
    let Some(stamp) = changed_stamp(group, previous, &cline::members(key), "") else {
        return FileOutcome::Unchanged;
    };
    let Some(mut task) = cline::read(key, group.kind == GroupKind::Roo) else {
        return skipped(&stamp);
    };
    let secrets_redacted = if options.redact {
        (options.redactor.redact_value(&mut task.messages)
            + options.redactor.redact_value(&mut task.history_item)
            + options.redactor.redact_value(&mut task.api_history)) as u64
    } else {
        0
    };
    let read = GroupRead {
        output: cline::parse(&task),
        malformed: Vec::new(),
        bytes_read: task.bytes_read,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

fn read_kimi(group: &Group, previous: Option<&Checkpoint>, options: &IndexOptions) -> FileOutcome {
    let key = &group.key;
    let Some(stamp) = changed_stamp(group, previous, &kimi::members(key), "") else {
        return FileOutcome::Unchanged;
    };
    let Ok(streamed) = stream_file(&key.join("wire.jsonl"), options) else {
        return skipped(&stamp);
    };
    let mut lines = streamed.split.lines;
    if !kimi::sniff(&lines) {
        return skipped(&stamp);
    }
    let mut secrets_redacted = redact_lines(options, &mut lines);
    let id = group_id(key);
    let (title, cwd) = kimi::state_of(key);
    let mut output = kimi::parse(&id, &lines, title, cwd.clone());
    for (number, path) in kimi::sub_contexts(key) {
        let Ok(streamed) = stream_file(&path, options) else {
            continue;
        };
        let mut rows = streamed.split.lines;
        secrets_redacted += redact_lines(options, &mut rows);
        let mut child = kimi::parse_sub_context(&id, number, &rows);
        child.meta.cwd.clone_from(&cwd);
        output.sessions.push(child);
    }
    let read = GroupRead {
        output,
        malformed: malformed_issues(&streamed.split.malformed, "wire.jsonl: "),
        bytes_read: streamed.split.complete_offset,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

/// The session id a group's folder name gives.
fn group_id(key: &Path) -> String {
    key.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn stream_file(path: &Path, options: &IndexOptions) -> std::io::Result<StreamedLines> {
    fs::File::open(path).and_then(|file| stream_json_lines(file, options.limits))
}

/// Redacts every line's value when the pass redacts; the number of secrets replaced.
fn redact_lines(options: &IndexOptions, lines: &mut [JsonLine]) -> u64 {
    if !options.redact {
        return 0;
    }
    lines
        .iter_mut()
        .map(|line| options.redactor.redact_value(&mut line.value) as u64)
        .sum()
}

/// A member file's malformed lines as issues, each message after `prefix` (the member's name).
fn malformed_issues(malformed: &[ParseWarning], prefix: &str) -> Vec<FileIssue> {
    malformed
        .iter()
        .map(|warning| FileIssue {
            line: warning.line,
            message: format!("{prefix}{}", warning.message),
        })
        .collect()
}

/// What reading a changed group gave: the parser's output and what the read itself counted.
struct GroupRead {
    output: ParseOutput,
    /// Lines of the group's files skipped as malformed.
    malformed: Vec<FileIssue>,
    /// Bytes read from the members: the checkpoint's complete offset.
    bytes_read: u64,
    secrets_redacted: u64,
}

/// A changed group's sessions, checkpoint and counts, from what reading it gave.
fn ingested(
    group: &Group,
    stamp: &Fingerprint,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
    read: GroupRead,
) -> FileOutcome {
    ingested_from(group, &group.key, stamp, previous, options, read)
}

/// [`ingested`], the sessions naming `source_path` as their source.
fn ingested_from(
    group: &Group,
    source_path: &Path,
    stamp: &Fingerprint,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
    read: GroupRead,
) -> FileOutcome {
    let format = group.kind.format();
    let malformed_lines = read.malformed.len() as u64;
    let mut issues = read.malformed;
    issues.extend(issues_of(&read.output));
    let sessions = assemble_all(&read.output, source_path, fallback_time(stamp), options);
    let ids = ids_of(&sessions);
    let removed_sessions = removed(previous, &ids);
    let mut checkpoint = checkpoint_of(stamp, format.name(), ids, malformed_lines);
    checkpoint.complete_offset = read.bytes_read;
    FileOutcome::Ingested(Box::new(IngestedFile {
        format,
        removed_sessions,
        sessions,
        checkpoint,
        malformed_lines,
        parser_warnings: read.output.warnings.len() as u64,
        secrets_redacted: read.secrets_redacted,
        issues,
        extra_checkpoints: Vec::new(),
    }))
}

/// The outcome of a group that is not (or no longer) a session of its kind.
fn skipped(stamp: &Fingerprint) -> FileOutcome {
    FileOutcome::Skipped(checkpoint_of(stamp, "unknown", Vec::new(), 0))
}

/// The group's fingerprint when it differs from its checkpoint's; `None` when nothing changed.
fn changed_stamp(
    group: &Group,
    previous: Option<&Checkpoint>,
    members: &[PathBuf],
    shared_facts: &str,
) -> Option<Fingerprint> {
    let stamp = fingerprint(members, shared_facts);
    (!unchanged(previous, &stamp, group.kind.format())).then_some(stamp)
}

fn unchanged(previous: Option<&Checkpoint>, stamp: &Fingerprint, format: Format) -> bool {
    previous.is_some_and(|checkpoint| {
        checkpoint.content_hash == stamp.hash && checkpoint.format == format.name()
    })
}

fn fallback_time(stamp: &Fingerprint) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_nanos(
        stamp.newest_mtime_ns.clamp(0, i128::from(i64::MAX)) as i64
    )
}

fn read_opencode_tree(
    group: &Group,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let Some(stamp) = changed_stamp(group, previous, &opencode_tree::members(&group.key), "")
    else {
        return FileOutcome::Unchanged;
    };
    let Some((mut record, bytes_read)) = opencode_tree::read(&group.key) else {
        return skipped(&stamp);
    };
    let secrets_redacted = redact_record(options, &mut record);
    let read = GroupRead {
        output: opencode::parse(&record),
        malformed: Vec::new(),
        bytes_read,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

/// Redacts every string of an OpenCode session's records.
fn redact_record(options: &IndexOptions, record: &mut opencode::SessionRecord) -> u64 {
    if !options.redact {
        return 0;
    }
    let redactor = &options.redactor;
    let mut count = redactor.redact_value(&mut record.info);
    for message in &mut record.messages {
        count += redactor.redact_value(&mut message.info);
        for (_, part) in &mut message.parts {
            count += redactor.redact_value(part);
        }
    }
    count as u64
}

fn assemble_all(
    output: &ParseOutput,
    source_path: &Path,
    fallback_time: DateTime<Utc>,
    options: &IndexOptions,
) -> Vec<AssembledSession> {
    let mut sessions: Vec<AssembledSession> = output
        .sessions
        .iter()
        .filter(|session| !session.events.is_empty())
        .map(|session| assemble(session, source_path, fallback_time))
        .collect();
    if options.redact {
        for session in &mut sessions {
            redact_session_facts(&options.redactor, &mut session.session);
        }
    }
    sessions
}

fn ids_of(sessions: &[AssembledSession]) -> Vec<String> {
    sessions
        .iter()
        .map(|session| session.session.session_id.clone())
        .collect()
}

/// The sessions `previous` recorded that `current` no longer holds.
fn removed(previous: Option<&Checkpoint>, current: &[String]) -> Vec<String> {
    let current: HashSet<&String> = current.iter().collect();
    previous
        .map(|checkpoint| {
            checkpoint
                .sessions
                .iter()
                .filter(|old| !current.contains(old))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn issues_of(output: &ParseOutput) -> Vec<FileIssue> {
    output
        .warnings
        .iter()
        .map(|warning| FileIssue {
            line: warning.line,
            message: warning.message.clone(),
        })
        .collect()
}

/// The checkpoint key of one session of a store.
pub fn row_key(store: &Path, native_id: &str) -> String {
    format!("{}{ROW_KEY_MARK}{native_id}", store.display())
}

/// What separates a store's path from a row's native id in [`row_key`].
pub const ROW_KEY_MARK: &str = "#session=";

/// Reads the sessions of `store` whose rows changed since their checkpoints (all of them when
/// `checkpoints` is empty); `previous` is the store file's own checkpoint.
pub(super) fn read_store(
    store: &SqliteStore,
    previous: Option<&Checkpoint>,
    checkpoints: &BTreeMap<String, Checkpoint>,
    options: &IndexOptions,
) -> FileOutcome {
    let kind = store.kind;
    let format = kind.format();
    let database = &store.path;
    let stamp = fingerprint(&store_files(kind, database), &kind.shared_facts(database));
    if unchanged(previous, &stamp, format) {
        return FileOutcome::Unchanged;
    }
    let snapshot = match open_snapshot(database) {
        Ok(snapshot) => snapshot,
        Err(StoreReadError::Busy { path }) => return FileOutcome::Busy(path),
        Err(error) => return FileOutcome::Failed(error.to_string()),
    };
    let connection = &snapshot.connection;
    match kind.has_schema(connection) {
        Ok(true) => {}
        Ok(false) => return skipped(&stamp),
        Err(error) => return store_error(database, error),
    }
    let stamps = match kind.session_stamps(connection, database) {
        Ok(stamps) => stamps,
        Err(error) => return store_error(database, error),
    };
    let mut sessions = Vec::new();
    let mut extra_checkpoints = Vec::new();
    let mut all_ids = Vec::new();
    let mut secrets_redacted = 0;
    let mut issues = Vec::new();
    let mut parser_warnings = 0;
    let mut shared = StoreShared::default();
    let listed_before: HashSet<&String> = previous
        .map(|checkpoint| checkpoint.sessions.iter().collect())
        .unwrap_or_default();
    let mut no_longer_given = Vec::new();
    for (native_id, row_stamp) in stamps {
        let own_id = session_id(kind.source(), &native_id);
        let key = row_key(database, &native_id);
        let row_hash = crate::ids::stable_hash_hex(&[row_stamp.as_bytes()]);
        // A row is read again when it changed, or when the session it gave is no longer listed
        // (removed while the row was hidden, and back unchanged).
        let unchanged_row = checkpoints.get(&key).filter(|checkpoint| {
            checkpoint.content_hash == row_hash
                && (!checkpoint.sessions.contains(&own_id) || listed_before.contains(&own_id))
        });
        if let Some(checkpoint) = unchanged_row {
            if !kind.lists_rows_only_while_they_give_a_session() {
                all_ids.push(own_id);
            }
            // The sessions the row gave when last read: its own and its sub-agents'.
            all_ids.extend(checkpoint.sessions.iter().cloned());
            continue;
        }
        let parsed = kind.parse_session(connection, database, &native_id, options, &mut shared);
        let (output, redacted) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => return store_error(database, error),
        };
        secrets_redacted += redacted;
        parser_warnings += output.warnings.len() as u64;
        issues.extend(issues_of(&output));
        let parsed = assemble_all(&output, database, fallback_time(&stamp), options);
        let row_ids = ids_of(&parsed);
        let keeps_own_id = !kind.lists_rows_only_while_they_give_a_session();
        if let Some(before) = checkpoints.get(&key) {
            let still_listed =
                |id: &String| row_ids.contains(id) || (keeps_own_id && *id == own_id);
            let gone = before.sessions.iter().filter(|id| !still_listed(id));
            no_longer_given.extend(gone.cloned());
        }
        if keeps_own_id {
            all_ids.push(own_id);
        }
        all_ids.extend(row_ids.iter().cloned());
        let mut row_checkpoint = checkpoint_of(&stamp, format.name(), row_ids, 0);
        row_checkpoint.content_hash = row_hash;
        extra_checkpoints.push((key, row_checkpoint));
        sessions.extend(parsed);
    }
    // Every session the store holds now, its rows' sub-agent sessions included: a child goes
    // with its parent's row, and with a parent that no longer names it.
    all_ids.sort_unstable();
    all_ids.dedup();
    let mut removed_sessions = removed(previous, &all_ids);
    for id in no_longer_given {
        if all_ids.binary_search(&id).is_err() && !removed_sessions.contains(&id) {
            removed_sessions.push(id);
        }
    }
    let checkpoint = checkpoint_of(&stamp, format.name(), all_ids, 0);
    // A store read before whose changed rows gave nothing new only moves its checkpoint; one
    // read for the first time is reported as recognised even when it holds no session yet.
    if sessions.is_empty() && removed_sessions.is_empty() && previous.is_some() {
        return FileOutcome::CheckpointOnly(checkpoint);
    }
    FileOutcome::Ingested(Box::new(IngestedFile {
        format,
        checkpoint,
        sessions,
        removed_sessions,
        malformed_lines: 0,
        parser_warnings,
        secrets_redacted,
        issues,
        extra_checkpoints,
    }))
}

/// The files whose change re-reads a store: the database and a `-wal` that holds something
/// (Cursor creates and deletes an empty `-wal` whenever it opens its `state.vscdb`; counting
/// that as a change re-read the store for nothing, as agentsview's changelog reports), and a
/// Hermes home's session files.
fn store_files(kind: StoreKind, database: &Path) -> Vec<PathBuf> {
    let wal = wal_path(database);
    let wal_holds_pages = fs::metadata(&wal).is_ok_and(|metadata| metadata.len() > 0);
    let mut files = vec![database.to_path_buf()];
    files.extend(wal_holds_pages.then_some(wal));
    if kind == StoreKind::Hermes {
        files.extend(hermes_store::member_files(database));
    }
    files
}

fn store_error(database: &Path, error: rusqlite::Error) -> FileOutcome {
    match classify(database, error) {
        StoreReadError::Busy { path } => FileOutcome::Busy(path),
        other => FileOutcome::Failed(other.to_string()),
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
    let Some(stamp) = changed_stamp(group, previous, &members, &format!("{meta:?}")) else {
        return FileOutcome::Unchanged;
    };
    let read = match agy_group::read(key, meta, options.limits) {
        Ok(Some(read)) => read,
        Ok(None) => return skipped(&stamp),
        Err(StoreReadError::Busy { path }) => return FileOutcome::Busy(path),
        Err(error) => return FileOutcome::Failed(error.to_string()),
    };
    let mut conversation = read.conversation;
    let secrets_redacted = conversation
        .transcripts
        .iter_mut()
        .map(|transcript| redact_lines(options, &mut transcript.lines))
        .sum();
    let read = GroupRead {
        output: antigravity::parse(&conversation),
        malformed: malformed_issues(&read.malformed, ""),
        bytes_read: read.bytes_read,
        secrets_redacted,
    };
    ingested(group, &stamp, previous, options, read)
}

/// Titles and working directories come from files other than the transcripts: redacted
/// like everything else.
fn redact_session_facts(redactor: &Redactor, session: &mut crate::store::rows::SessionRow) {
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
        sidecar_hash: String::new(),
    }
}
