//! Devin Desktop's copy of a Devin CLI session, and the rule that keeps one of the two. A
//! `devin-cli` session run in Devin Desktop (or Windsurf 2.x's agent window) is recorded by both
//! harnesses: by the Desktop as `acp/devin-cli/<name>` (`ingest::windsurf_acp`) and by the CLI it
//! runs as `<name>` (`ingest::devin`), the same conversation (`docs/HARNESS-RESEARCH.md` section
//! 6). The Desktop's copy is left to the CLI's when
//! - the Devin CLI of the same machine home holds `<name>` as `ingest::devin` indexes it: its
//!   `sessions` row is there and not hidden, or its trajectory `transcripts/<name>.json` is
//!   written; and
//! - one of the Desktop's prompts is one of the CLI's: a `cognition.ai/clientMessageId` of the
//!   Desktop's prompt chunks is the `metadata.extensions["chisel/client-message-id"]` of one of
//!   the CLI's user nodes (`message_nodes`; when they name none, of its trajectory's user steps,
//!   in their `metadata` or `extra`).
//!
//! The CLI's copy is the one kept: it has the token usage, the full tool output and the forest.
//! [`cli_copy`] says what the CLI holds of `<name>` (a [`CliCopy`]: the ids of its prompts);
//! `ingest::windsurf_acp` adds it to the Desktop session's facts, which the Desktop file's
//! checkpoint hashes, so a CLI copy that appears or goes (hidden, deleted) reads the Desktop's
//! again, and its parser compares the ids ([`CliCopy::shares_a_prompt`]).
//!
//! The CLI folder is found from the Desktop's `User` directory (`<app data>/<product>/User`):
//! `<app data>/devin/cli` (the same folder on macOS, `~/Library/Application Support`, and on
//! Windows, `%APPDATA%`), then the Devin folders of the home `<app data>` is in (`~/.config`,
//! `~/Library/Application Support`, `~/AppData/Roaming`: `ingest::devin::cli_folders`, with this
//! process's `$XDG_DATA_HOME` for its own `$HOME`, and for the app data folder its
//! `$XDG_CONFIG_HOME` names). Its `sessions.db` is read through a private copy
//! (`ingest::sqlite::open_snapshot`): one row and one indexed query per session, for every
//! `devin-cli` session the Desktop names at once; the answers are kept for the process until the
//! store, its `-wal` or its `transcripts` folder changes. A store that is missing, unreadable or
//! not Devin's holds nothing (the Desktop's copy is kept; a debug log says why); a busy one keeps
//! its last answers until it can be read.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Value, json};

use super::devin::{self, STORE_NAME, TRANSCRIPTS_FOLDER};
use super::sqlite::{
    StoreReadError, classify, open_snapshot, row_as_object, rows_of, stamp, table_names, wal_path,
};

/// What a Devin CLI session's id starts with in the Desktop's stores: `acp/devin-cli/<name>`.
pub const DESKTOP_PREFIX: &str = "acp/devin-cli/";
/// The field of a Desktop session's facts holding its [`CliCopy`].
pub const FACTS_KEY: &str = "cliCopy";
/// The extension of a CLI user node (and trajectory user step) naming its client message.
const CLIENT_MESSAGE_ID: &str = "chisel/client-message-id";
/// Trajectories larger than this are not read for their client message ids.
const TRAJECTORY_LIMIT: u64 = 64 * 1024 * 1024;

/// What the Devin CLI holds of one session: it indexes it, and its prompts carry these client
/// message ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliCopy {
    /// The CLI's session id, `<name>`.
    pub name: String,
    /// The client message ids of its prompts (empty when it records none).
    pub client_message_ids: BTreeSet<String>,
}

impl CliCopy {
    /// The copy as the Desktop session's facts keep it: `{name, clientMessageIds}` (sorted, so
    /// the facts' hash changes only when the copy does).
    pub fn to_json(&self) -> Value {
        json!({"name": self.name, "clientMessageIds": self.client_message_ids})
    }

    /// A copy as [`CliCopy::to_json`] wrote it.
    pub fn from_json(value: &Value) -> Option<CliCopy> {
        let name = value.get("name")?.as_str()?.to_string();
        let client_message_ids = value
            .get("clientMessageIds")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        Some(CliCopy {
            name,
            client_message_ids,
        })
    }

    /// Whether one of `prompts` (the Desktop's prompts' client message ids) is one of the CLI's:
    /// the two copies are then one session.
    pub fn shares_a_prompt<'a>(&self, prompts: impl IntoIterator<Item = &'a str>) -> bool {
        prompts
            .into_iter()
            .any(|id| self.client_message_ids.contains(id))
    }
}

/// The CLI's name of a Desktop session: `<name>` of `acp/devin-cli/<name>`, when it is a plain
/// file name (it names the trajectory `transcripts/<name>.json`).
pub fn cli_name(desktop_id: &str) -> Option<&str> {
    desktop_id
        .strip_prefix(DESKTOP_PREFIX)
        .filter(|name| Path::new(name).file_name() == Some(OsStr::new(name)))
}

/// What the Devin CLI of the home the Desktop `User` directory `user` is in holds of session
/// `name`; `None` when it does not index it or cannot be read. When the CLI's store must be read,
/// the sessions `names` gives (every `devin-cli` session the Desktop names) are read with it.
pub fn cli_copy(user: &Path, name: &str, names: impl Fn() -> Vec<String>) -> Option<CliCopy> {
    cli_folders_of(user)
        .iter()
        .find_map(|folder| copy_in(folder, name, &names))
}

/// The Devin CLI folders (`<data>/devin/cli`) that exist for the Desktop `User` directory
/// `user`, most likely first.
pub fn cli_folders_of(user: &Path) -> Vec<PathBuf> {
    candidate_folders(user, &process_env)
        .into_iter()
        .filter(|folder| folder.is_dir())
        .collect()
}

/// A variable of this process naming a folder, when set and not empty.
fn process_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// Where the Devin CLI of the home `user` is in may keep its folder, existing or not:
/// `<app data>/devin/cli`, then the CLI folders of that home (with `env` for this process's own
/// home and its `$XDG_CONFIG_HOME`).
fn candidate_folders(user: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let Some(app_data) = user.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    let own_home = env("HOME");
    let mut folders = vec![app_data.join("devin").join("cli")];
    if let Some(home) = home_of(app_data) {
        if own_home.as_ref() == Some(&home) {
            folders.extend(devin::cli_folders(&home, env));
        } else {
            folders.extend(devin::cli_folders(&home, &|_: &str| None));
        }
    }
    if let Some(home) = own_home
        && env("XDG_CONFIG_HOME").as_deref() == Some(app_data)
    {
        folders.extend(devin::cli_folders(&home, env));
    }
    let mut unique: Vec<PathBuf> = Vec::new();
    for folder in folders {
        if !unique.contains(&folder) {
            unique.push(folder);
        }
    }
    unique
}

/// The app data folders a home holds, as a path under it: Linux's `.config`, macOS's
/// `Library/Application Support`, Windows' `AppData/Roaming`.
const APP_DATA_UNDER_HOME: [&str; 3] =
    [".config", "Library/Application Support", "AppData/Roaming"];

/// The home an app data folder is in, when it is one of [`APP_DATA_UNDER_HOME`].
fn home_of(app_data: &Path) -> Option<PathBuf> {
    APP_DATA_UNDER_HOME.iter().find_map(|under| {
        let under = Path::new(under);
        if !app_data.ends_with(under) {
            return None;
        }
        let home = app_data.ancestors().nth(under.components().count())?;
        Some(home.to_path_buf())
    })
}

// ---------------------------------------------------------------------------------------------
// Reading a CLI folder, kept per change

/// The size and time of a CLI folder's store, its `-wal` and its `transcripts` folder.
type FolderStamp = [Option<(u64, SystemTime)>; 3];

/// What a CLI folder was found to hold, by session name.
#[derive(Default)]
struct Known {
    /// The stamp the names in `fresh` were read at; `None` after a busy read (read again).
    stamp: Option<FolderStamp>,
    /// The last answer read for each name (kept while the store is busy).
    copies: HashMap<String, Option<CliCopy>>,
    /// The names read at `stamp`.
    fresh: HashSet<String>,
}

/// What every CLI folder read in this process holds.
static KNOWN: Mutex<BTreeMap<PathBuf, Known>> = Mutex::new(BTreeMap::new());

fn folder_stamp(folder: &Path) -> FolderStamp {
    let store = folder.join(STORE_NAME);
    [
        stamp(&store),
        stamp(&wal_path(&store)),
        stamp(&folder.join(TRANSCRIPTS_FOLDER)),
    ]
}

/// What `folder` holds of `name`: known from an earlier read while the folder is unchanged,
/// else read now with the sessions `names` gives.
fn copy_in(folder: &Path, name: &str, names: &impl Fn() -> Vec<String>) -> Option<CliCopy> {
    let now = folder_stamp(folder);
    {
        let known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(folder_known) = known.get(folder)
            && folder_known.stamp == Some(now)
            && folder_known.fresh.contains(name)
        {
            return folder_known.copies.get(name).cloned().flatten();
        }
    }
    let mut wanted = names();
    wanted.push(name.to_string());
    wanted.sort();
    wanted.dedup();
    let read = read_copies(folder, &wanted);
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let folder_known = known.entry(folder.to_path_buf()).or_default();
    if folder_known.stamp != Some(now) {
        folder_known.stamp = Some(now);
        folder_known.fresh.clear();
    }
    match read {
        Ok(copies) => {
            folder_known.fresh.extend(copies.keys().cloned());
            folder_known.copies.extend(copies);
        }
        Err(StoreReadError::Busy { path }) => {
            tracing::debug!(store = %path.display(), "Devin CLI store busy: its last answers kept");
            folder_known.stamp = None;
        }
        Err(error) => {
            tracing::debug!(
                folder = %folder.display(),
                %error,
                "Devin CLI store not read: Desktop copies of its sessions are kept"
            );
            for wanted_name in wanted {
                folder_known.copies.insert(wanted_name.clone(), None);
                folder_known.fresh.insert(wanted_name);
            }
        }
    }
    folder_known.copies.get(name).cloned().flatten()
}

/// What the CLI folder `folder` holds of each of `names`, its `sessions.db` read through a
/// private copy (a folder without one holds only its trajectories).
fn read_copies(
    folder: &Path,
    names: &[String],
) -> Result<HashMap<String, Option<CliCopy>>, StoreReadError> {
    let store = folder.join(STORE_NAME);
    let snapshot = if store.is_file() {
        Some(open_snapshot(&store)?)
    } else {
        None
    };
    let connection = snapshot.as_ref().map(|snapshot| &snapshot.connection);
    let store_error = |error| classify(&store, error);
    let reader = CliReader::new(folder, connection).map_err(store_error)?;
    names
        .iter()
        .map(|name| {
            let copy = reader.copy_of(name).map_err(store_error)?;
            Ok((name.clone(), copy))
        })
        .collect()
}

/// A CLI folder being read: its store's connection and which of the tables read it has.
struct CliReader<'c> {
    folder: &'c Path,
    connection: Option<&'c Connection>,
    has_sessions: bool,
    has_nodes: bool,
}

impl<'c> CliReader<'c> {
    fn new(folder: &'c Path, connection: Option<&'c Connection>) -> rusqlite::Result<Self> {
        let tables = match connection {
            Some(connection) => table_names(connection)?,
            None => Vec::new(),
        };
        let has = |name: &str| tables.iter().any(|table| table == name);
        Ok(CliReader {
            folder,
            connection,
            has_sessions: has("sessions"),
            has_nodes: has("message_nodes"),
        })
    }

    /// What the CLI holds of `name`: a copy when its row is listed or its trajectory written,
    /// with its prompts' client message ids (the nodes', else the trajectory's).
    fn copy_of(&self, name: &str) -> rusqlite::Result<Option<CliCopy>> {
        let trajectory = self
            .folder
            .join(TRANSCRIPTS_FOLDER)
            .join(format!("{name}.json"));
        let written = trajectory.is_file();
        if !written && !self.is_listed(name)? {
            return Ok(None);
        }
        let mut client_message_ids = self.node_client_ids(name)?;
        if client_message_ids.is_empty() && written {
            client_message_ids = trajectory_client_ids(&trajectory);
        }
        Ok(Some(CliCopy {
            name: name.to_string(),
            client_message_ids,
        }))
    }

    /// Whether the store has a `sessions` row for `name` that is not hidden (what
    /// `ingest::devin` reads from the store).
    fn is_listed(&self, name: &str) -> rusqlite::Result<bool> {
        let Some(connection) = self.connection.filter(|_| self.has_sessions) else {
            return Ok(false);
        };
        match row_as_object(
            connection,
            include_str!("../../queries/devin_session.sql"),
            name,
        ) {
            Ok(row) => {
                let hidden = row.get("hidden").and_then(Value::as_i64).unwrap_or(0);
                Ok(hidden == 0)
            }
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// The client message ids of `name`'s user nodes.
    fn node_client_ids(&self, name: &str) -> rusqlite::Result<BTreeSet<String>> {
        let Some(connection) = self.connection.filter(|_| self.has_nodes) else {
            return Ok(BTreeSet::new());
        };
        let ids = rows_of(
            connection,
            include_str!("../../queries/devin_client_message_ids.sql"),
            name,
            |row| Ok(id_text(row.get_ref(0)?)),
        )?;
        Ok(ids.into_iter().flatten().collect())
    }
}

/// A client message id as SQLite gives it: text (trimmed, not empty) or a number.
fn id_text(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Text(text) => {
            let text = String::from_utf8_lossy(text).trim().to_string();
            Some(text).filter(|text| !text.is_empty())
        }
        ValueRef::Integer(number) => Some(number.to_string()),
        _ => None,
    }
}

/// A client message id as JSON gives it: text (trimmed, not empty) or a number.
fn json_id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_string()).filter(|text| !text.is_empty()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The client message ids of a trajectory's user steps (`metadata.extensions` or
/// `extra.extensions`); none when the file is too large, unreadable or not JSON.
fn trajectory_client_ids(path: &Path) -> BTreeSet<String> {
    let size = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
    if size > TRAJECTORY_LIMIT {
        tracing::debug!(file = %path.display(), size, "Devin trajectory too large to pair");
        return BTreeSet::new();
    }
    let trajectory: Value = match std::fs::read(path)
        .map_err(|error| error.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|error| error.to_string()))
    {
        Ok(trajectory) => trajectory,
        Err(error) => {
            tracing::debug!(file = %path.display(), %error, "Devin trajectory not read to pair");
            return BTreeSet::new();
        }
    };
    let steps = trajectory.get("steps").and_then(Value::as_array);
    steps
        .into_iter()
        .flatten()
        .filter(|step| step.get("source").and_then(Value::as_str) == Some("user"))
        .flat_map(|step| {
            ["metadata", "extra"].into_iter().filter_map(move |field| {
                step.get(field)?
                    .get("extensions")?
                    .get(CLIENT_MESSAGE_ID)
                    .and_then(json_id_text)
            })
        })
        .collect()
}

/// A Devin CLI store for tests: `sessions` rows and their nodes, written with rusqlite.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::Path;

    use rusqlite::{Connection, params};
    use serde_json::json;

    use super::{CLIENT_MESSAGE_ID, STORE_NAME, TRANSCRIPTS_FOLDER};

    /// The `sessions` and `message_nodes` columns a live store has.
    const STORE_DDL: &str = "
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY, working_directory TEXT NOT NULL, backend_type TEXT NOT NULL,
          model TEXT NOT NULL, agent_mode TEXT NOT NULL, created_at INTEGER NOT NULL,
          last_activity_at INTEGER NOT NULL, title TEXT, main_chain_id INTEGER,
          hidden INTEGER NOT NULL DEFAULT 0, metadata TEXT);
        CREATE TABLE message_nodes (
          row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
          node_id INTEGER NOT NULL, parent_node_id INTEGER, chat_message TEXT NOT NULL,
          created_at INTEGER NOT NULL, metadata TEXT, UNIQUE(session_id, node_id));";

    /// Writes the CLI folder `folder` (its `sessions.db` and an empty `transcripts`) holding
    /// `sessions` (name, hidden, the client message id of its prompt, if any), each a prompt
    /// node and a reply node.
    pub fn write_cli_folder(folder: &Path, sessions: &[(&str, i64, Option<&str>)]) {
        std::fs::create_dir_all(folder.join(TRANSCRIPTS_FOLDER)).expect("mkdir");
        let store = Connection::open(folder.join(STORE_NAME)).expect("store");
        store.execute_batch(STORE_DDL).expect("tables");
        for (name, hidden, client_id) in sessions {
            store
                .execute(
                    "INSERT INTO sessions (id, working_directory, backend_type, model, \
                     agent_mode, created_at, last_activity_at, main_chain_id, hidden) \
                     VALUES (?1, '/w', 'windsurf', 'swe-1-6', 'normal', 1, 2, 2, ?2)",
                    params![name, hidden],
                )
                .expect("session");
            let extensions = client_id.map_or(json!({}), |id| json!({CLIENT_MESSAGE_ID: id}));
            let prompt = json!({"message_id": "u-1", "role": "user", "content": "Go",
                "metadata": {"is_user_input": true, "extensions": extensions}});
            let reply = json!({"message_id": "a-2", "role": "assistant", "content": "Done"});
            for (node, parent, message) in [(1, None, prompt), (2, Some(1), reply)] {
                store
                    .execute(
                        "INSERT INTO message_nodes (session_id, node_id, parent_node_id, \
                         chat_message, created_at) VALUES (?1, ?2, ?3, ?4, 1)",
                        params![name, node, parent, message.to_string()],
                    )
                    .expect("node");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CLI folder whose store holds `sessions` ([`testing::write_cli_folder`]).
    fn cli_folder(sessions: &[(&str, i64, Option<&str>)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        testing::write_cli_folder(dir.path(), sessions);
        dir
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    fn ids(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| id.to_string()).collect()
    }

    #[test]
    fn a_listed_session_is_held_with_its_prompts_client_ids() {
        let folder = cli_folder(&[
            ("brisk-heron", 0, Some("m1")),
            ("dusty-wren", 1, Some("m2")),
            ("bare-finch", 0, None),
        ]);
        let copies = read_copies(
            folder.path(),
            &names(&["brisk-heron", "dusty-wren", "bare-finch", "absent-owl"]),
        )
        .expect("read");
        assert_eq!(
            copies["brisk-heron"],
            Some(CliCopy {
                name: "brisk-heron".to_string(),
                client_message_ids: ids(&["m1"]),
            })
        );
        assert_eq!(
            copies["dusty-wren"], None,
            "a hidden session is not indexed"
        );
        assert_eq!(
            copies["bare-finch"]
                .as_ref()
                .map(|copy| copy.client_message_ids.len()),
            Some(0),
            "held, with no id to confirm the pair by"
        );
        assert_eq!(copies["absent-owl"], None);
    }

    #[test]
    fn a_written_trajectory_holds_the_session_and_gives_ids_the_nodes_lack() {
        let folder = cli_folder(&[("dusty-wren", 1, None)]);
        let trajectory = json!({"schema_version": "ATIF-v1.7", "session_id": "dusty-wren",
            "agent": {"name": "devin"}, "steps": [
                {"step_id": 1, "source": "user", "message": "Go",
                 "metadata": {"extensions": {CLIENT_MESSAGE_ID: "t1"}}},
                {"step_id": 2, "source": "agent", "message": "Done",
                 "metadata": {"extensions": {CLIENT_MESSAGE_ID: "not-a-prompt"}}},
                "not a step",
                {"step_id": 3, "source": "user", "message": "More",
                 "extra": {"extensions": {CLIENT_MESSAGE_ID: 7}}}]});
        std::fs::write(
            folder
                .path()
                .join(TRANSCRIPTS_FOLDER)
                .join("dusty-wren.json"),
            trajectory.to_string(),
        )
        .expect("trajectory");
        let copies = read_copies(folder.path(), &names(&["dusty-wren"])).expect("read");
        assert_eq!(
            copies["dusty-wren"]
                .as_ref()
                .map(|copy| &copy.client_message_ids),
            Some(&ids(&["7", "t1"])),
            "the trajectory is indexed whether hidden or not; its user steps' ids"
        );
    }

    #[test]
    fn a_folder_without_a_store_holds_only_its_trajectories() {
        let dir = tempfile::tempdir().expect("temp dir");
        let transcripts = dir.path().join(TRANSCRIPTS_FOLDER);
        std::fs::create_dir_all(&transcripts).expect("mkdir");
        std::fs::write(transcripts.join("quiet-otter.json"), "{not json").expect("write");
        let copies = read_copies(dir.path(), &names(&["quiet-otter", "absent-owl"])).expect("read");
        assert_eq!(
            copies["quiet-otter"]
                .as_ref()
                .map(|copy| copy.client_message_ids.len()),
            Some(0),
            "an unreadable trajectory holds the session but confirms nothing"
        );
        assert_eq!(copies["absent-owl"], None);
    }

    #[test]
    fn a_store_that_is_not_a_database_is_an_error_and_holds_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(STORE_NAME), b"not SQLite at all").expect("write");
        assert!(read_copies(dir.path(), &names(&["brisk-heron"])).is_err());
        assert_eq!(
            copy_in(dir.path(), "brisk-heron", &Vec::<String>::new),
            None
        );
    }

    #[test]
    fn a_store_of_another_schema_holds_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Connection::open(dir.path().join(STORE_NAME)).expect("store");
        store
            .execute_batch("CREATE TABLE other (id TEXT)")
            .expect("table");
        drop(store);
        let copies = read_copies(dir.path(), &names(&["brisk-heron"])).expect("read");
        assert_eq!(copies["brisk-heron"], None);
    }

    #[test]
    fn answers_are_read_for_every_named_session_at_once_and_change_with_the_store() {
        let folder = cli_folder(&[("brisk-heron", 0, Some("m1")), ("amber-plover", 0, None)]);
        let all = || names(&["amber-plover", "brisk-heron"]);
        let heron = copy_in(folder.path(), "brisk-heron", &all).expect("held");
        assert_eq!(heron.client_message_ids, ids(&["m1"]));
        {
            let known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
            let fresh = &known[folder.path()].fresh;
            assert!(fresh.contains("amber-plover"), "read with the first");
        }
        let store = Connection::open(folder.path().join(STORE_NAME)).expect("store");
        store
            .execute_batch(
                "UPDATE sessions SET hidden = 1 WHERE id = 'brisk-heron'; \
                 CREATE TABLE grown (padding BLOB); INSERT INTO grown VALUES (zeroblob(65536));",
            )
            .expect("hide, the store growing (its size changes whatever the clock's grain)");
        drop(store);
        assert_eq!(
            copy_in(folder.path(), "brisk-heron", &all),
            None,
            "hidden: read again once the store changed"
        );
    }

    #[test]
    fn only_a_shared_prompt_pairs_the_copies() {
        let copy = CliCopy {
            name: "brisk-heron".to_string(),
            client_message_ids: ids(&["m1", "m2"]),
        };
        assert_eq!(CliCopy::from_json(&copy.to_json()), Some(copy.clone()));
        assert!(copy.shares_a_prompt(["x", "m2"]));
        assert!(!copy.shares_a_prompt(["x"]));
        assert!(!copy.shares_a_prompt([]));
    }

    #[test]
    fn a_desktop_id_names_a_cli_session_only_when_it_is_a_plain_name() {
        assert_eq!(cli_name("acp/devin-cli/brisk-heron"), Some("brisk-heron"));
        assert_eq!(cli_name("acp/devin-cloud/brisk-heron"), None);
        assert_eq!(cli_name("acp/devin-cli/../x"), None);
        assert_eq!(cli_name("acp/devin-cli/.."), None);
        assert_eq!(cli_name("acp/devin-cli/"), None);
    }

    #[test]
    fn the_cli_folder_is_found_from_the_desktop_user_directory() {
        let env = |name: &str| match name {
            "HOME" => Some(PathBuf::from("/home/u")),
            "XDG_DATA_HOME" => Some(PathBuf::from("/data")),
            "XDG_CONFIG_HOME" => Some(PathBuf::from("/cfg")),
            _ => None,
        };
        let linux = candidate_folders(Path::new("/home/u/.config/Devin/User"), &env);
        assert!(
            linux.contains(&PathBuf::from("/data/devin/cli")),
            "{linux:?}"
        );
        let moved = candidate_folders(Path::new("/cfg/Devin/User"), &env);
        assert!(
            moved.contains(&PathBuf::from("/data/devin/cli")),
            "{moved:?}"
        );
        let other_home = candidate_folders(Path::new("/srv/box/.config/Windsurf/User"), &env);
        assert!(
            other_home.contains(&PathBuf::from("/srv/box/.local/share/devin/cli")),
            "another home's default data folder: {other_home:?}"
        );
        assert!(!other_home.contains(&PathBuf::from("/data/devin/cli")));
        let mac = candidate_folders(
            Path::new("/Users/u/Library/Application Support/Devin/User"),
            &env,
        );
        assert_eq!(
            mac.first(),
            Some(&PathBuf::from(
                "/Users/u/Library/Application Support/devin/cli"
            ))
        );
        let windows = candidate_folders(
            Path::new("/mnt/c/Users/u/AppData/Roaming/Devin - Next/User"),
            &env,
        );
        assert_eq!(
            windows.first(),
            Some(&PathBuf::from("/mnt/c/Users/u/AppData/Roaming/devin/cli"))
        );
        assert!(candidate_folders(Path::new("User"), &env).is_empty());
    }
}
