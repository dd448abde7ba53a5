//! Reads the Cursor IDE's chat store, `<app data>/Cursor/User/globalStorage/state.vscdb`,
//! through `ingest::sqlite` (a private read-only copy): one composer (a Composer / Agent chat)
//! with its bubbles (messages) in order, and the folder it ran in. Parsing them is [`super::ide`].
//!
//! The store is VS Code's `state.vscdb` with Cursor's own table beside `ItemTable`:
//! `cursorDiskKV(key, value)`, JSON values (TEXT or BLOB). `composerData:<composer id>` holds
//! the composer: `name`, `createdAt` (ms), `modelConfig.modelName`, `subagentInfo`, and its
//! bubble order in `fullConversationHeadersOnly` (`[{bubbleId, type}]`; builds before the split
//! kept the bubbles inline in `conversation`). `bubbleId:<composer id>:<bubble id>` holds one
//! bubble. Cursor lists more headers than it stores bubbles (some are folded into a neighbour):
//! a header without a row is passed over silently, a row without a header follows the headers
//! by `createdAt`. Only the fields the parser uses are kept: a composer also carries encryption
//! keys and file snapshots, a bubble its attached context.
//!
//! The folder comes from the composer's `workspaceIdentifier.uri`, else its entry in the global
//! `ItemTable` row `composer.composerHeaders` (newer builds), else the workspace whose
//! `workspaceStorage/<hash>/state.vscdb` lists it in `composer.composerData` (its
//! `workspace.json` names the folder); the parser falls back on the bubbles' own workspace
//! fields. Nothing else of `ItemTable` is read: it holds Cursor's auth tokens.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use crate::ingest::sqlite::{open_snapshot, rows_of, table_names};
use crate::ingest::vscode_copilot::{folder_of_uri, workspace_folder};
use crate::model::ParseWarning;
use crate::model::parse_timestamp;

/// The composer fields the parser reads.
const COMPOSER_FIELDS: [&str; 11] = [
    "composerId",
    "name",
    "createdAt",
    "lastUpdatedAt",
    "modelConfig",
    "subagentInfo",
    "unifiedMode",
    "isAgentic",
    "status",
    "agentBackend",
    "workspaceIdentifier",
];

/// The bubble fields the parser reads.
const BUBBLE_FIELDS: [&str; 14] = [
    "type",
    "bubbleId",
    "text",
    "createdAt",
    "timestamp",
    "thinking",
    "allThinkingBlocks",
    "capabilityType",
    "toolFormerData",
    "tokenCount",
    "modelInfo",
    "workspaceUris",
    "workspaceProjectDir",
    "errorDetails",
];

/// One composer read from the store, ready to redact and parse.
#[derive(Debug, Clone)]
pub struct IdeComposer {
    pub id: String,
    /// The composer's fields esker reads ([`COMPOSER_FIELDS`]).
    pub composer: Value,
    /// Its bubbles in conversation order.
    pub bubbles: Vec<IdeBubble>,
    /// The folder of the workspace it ran in, when the store says.
    pub cwd: Option<String>,
    /// Rows that could not be read (not JSON, or not an object), skipped.
    pub warnings: Vec<ParseWarning>,
}

/// One bubble: its id (the key its events derive from) and its fields ([`BUBBLE_FIELDS`]).
#[derive(Debug, Clone)]
pub struct IdeBubble {
    pub id: String,
    pub value: Value,
}

/// `state.vscdb` (or its `-wal`) in a `globalStorage` folder.
pub fn is_store_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    matches!(name, Some("state.vscdb" | "state.vscdb-wal"))
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|folder| folder == "globalStorage")
}

/// Cursor's table: `cursorDiskKV` (VS Code's own `state.vscdb` has only `ItemTable`).
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    Ok(table_names(connection)?
        .iter()
        .any(|table| table == "cursorDiskKV"))
}

/// Every composer with the stamp of its rows (its composerData row and its bubbles).
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    crate::ingest::sqlite::session_stamps(
        connection,
        include_str!("../../../queries/cursor_ide_stamps.sql"),
    )
}

/// The folders the store's workspaces give composers, loaded on first use and kept for the
/// rest of the pass.
#[derive(Debug, Default)]
pub struct Workspaces {
    /// `composer.composerHeaders` entries of the global store, by composer id.
    headers: Option<HashMap<String, Value>>,
    /// Workspace folders by composer id, from `workspaceStorage/*/state.vscdb`.
    folders: Option<HashMap<String, String>>,
}

impl Workspaces {
    /// The folder of composer `id`: its own `workspaceIdentifier`, its header's, its
    /// workspace's.
    fn folder_of(
        &mut self,
        connection: &Connection,
        database: &Path,
        id: &str,
        composer: &Value,
    ) -> rusqlite::Result<Option<String>> {
        if let Some(folder) = identifier_folder(composer) {
            return Ok(Some(folder));
        }
        if self.headers.is_none() {
            self.headers = Some(read_headers(connection)?);
        }
        let header = self.headers.as_ref().and_then(|headers| headers.get(id));
        if let Some(folder) = header.and_then(identifier_folder) {
            return Ok(Some(folder));
        }
        let folders = self
            .folders
            .get_or_insert_with(|| workspace_folders(database));
        Ok(folders.get(id).cloned())
    }
}

/// The folder a `workspaceIdentifier.uri` names (`fsPath`, else `path`, else `external`).
fn identifier_folder(value: &Value) -> Option<String> {
    let uri = value.pointer("/workspaceIdentifier/uri")?;
    ["fsPath", "path"]
        .iter()
        .find_map(|field| uri.get(*field).and_then(Value::as_str))
        .filter(|path| !path.is_empty())
        .map(str::to_string)
        .or_else(|| {
            uri.get("external")
                .and_then(Value::as_str)
                .and_then(folder_of_uri)
        })
}

/// The JSON of one `ItemTable` item (TEXT or BLOB), `None` when absent or not JSON; also
/// reads Windsurf's `windsurf.acp.*` keys (`ingest::windsurf_acp`).
pub(crate) fn read_item(connection: &Connection, key: &str) -> rusqlite::Result<Option<Value>> {
    let values = rows_of(
        connection,
        include_str!("../../../queries/cursor_ide_item.sql"),
        key,
        |row| Ok(json_of(row.get_ref(0)?)),
    )?;
    Ok(values.into_iter().next().flatten())
}

/// The global `composer.composerHeaders` entries by composer id.
fn read_headers(connection: &Connection) -> rusqlite::Result<HashMap<String, Value>> {
    let Some(headers) = read_item(connection, "composer.composerHeaders")? else {
        return Ok(HashMap::new());
    };
    Ok(composers_listed(&headers)
        .map(|(id, head)| (id, head.clone()))
        .collect())
}

/// The `allComposers` entries of a composer index, with their ids.
fn composers_listed(index: &Value) -> impl Iterator<Item = (String, &Value)> {
    index
        .get("allComposers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|head| {
            let id = head.get("composerId").and_then(Value::as_str)?;
            Some((id.to_string(), head))
        })
}

/// Workspace folders by composer id: every `workspaceStorage/<hash>/state.vscdb` beside the
/// global store whose `composer.composerData` lists the composer (in `allComposers` or as
/// selected), with the folder its `workspace.json` names. A workspace that cannot be read is
/// passed over.
fn workspace_folders(database: &Path) -> HashMap<String, String> {
    let mut folders = HashMap::new();
    let Some(user) = database.parent().and_then(Path::parent) else {
        return folders;
    };
    let Ok(workspaces) = fs::read_dir(user.join("workspaceStorage")) else {
        return folders;
    };
    let mut workspaces: Vec<_> = workspaces
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    workspaces.sort();
    for workspace in workspaces {
        let Some(folder) = fs::read(workspace.join("workspace.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|manifest| workspace_folder(&manifest))
        else {
            continue;
        };
        for id in workspace_composers(&workspace.join("state.vscdb")) {
            folders.entry(id).or_insert_with(|| folder.clone());
        }
    }
    folders
}

/// The composers a workspace's `state.vscdb` lists; none when it cannot be read.
fn workspace_composers(database: &Path) -> Vec<String> {
    if !database.is_file() {
        return Vec::new();
    }
    let index = open_snapshot(database)
        .map_err(|error| error.to_string())
        .and_then(|snapshot| {
            read_item(&snapshot.connection, "composer.composerData")
                .map_err(|error| error.to_string())
        });
    let index = match index {
        Ok(Some(index)) => index,
        Ok(None) => return Vec::new(),
        Err(error) => {
            tracing::debug!(workspace = %database.display(), %error, "workspace store not read");
            return Vec::new();
        }
    };
    let mut ids: Vec<String> = composers_listed(&index).map(|(id, _)| id).collect();
    for list in ["selectedComposerIds", "lastFocusedComposerIds"] {
        let listed = index.get(list).and_then(Value::as_array).into_iter();
        ids.extend(
            listed
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string),
        );
    }
    ids
}

/// A SQLite value as JSON (text or blob holding JSON); `None` when it is not JSON.
pub(crate) fn json_of(value: ValueRef<'_>) -> Option<Value> {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => serde_json::from_slice(bytes).ok(),
        _ => None,
    }
}

/// `value` with only `fields` kept; `None` when it is not an object.
fn kept(value: Value, fields: &[&str]) -> Option<Value> {
    let Value::Object(mut object) = value else {
        return None;
    };
    let kept: Map<String, Value> = fields
        .iter()
        .filter_map(|field| {
            object
                .remove(*field)
                .map(|value| (field.to_string(), value))
        })
        .collect();
    Some(Value::Object(kept))
}

/// Composer `id` with its bubbles in order and its folder; `None` when the store no longer
/// holds it.
pub fn read_composer(
    connection: &Connection,
    database: &Path,
    id: &str,
    workspaces: &mut Workspaces,
) -> rusqlite::Result<Option<IdeComposer>> {
    let values = rows_of(
        connection,
        include_str!("../../../queries/cursor_ide_value.sql"),
        &format!("composerData:{id}"),
        |row| Ok(json_of(row.get_ref(0)?)),
    )?;
    let Some(found) = values.into_iter().next() else {
        return Ok(None);
    };
    let mut read = IdeComposer {
        id: id.to_string(),
        composer: Value::Null,
        bubbles: Vec::new(),
        cwd: None,
        warnings: Vec::new(),
    };
    let Some(whole) = found.filter(Value::is_object) else {
        read.warnings.push(warning(format!(
            "composerData:{id} is not a JSON object: skipped"
        )));
        return Ok(Some(read));
    };
    read.cwd = workspaces.folder_of(connection, database, id, &whole)?;
    let order = bubble_order(&whole);
    let inline = inline_conversation(&whole);
    read.composer = kept(whole, &COMPOSER_FIELDS).unwrap_or(Value::Null);
    if let Some(inline) = inline {
        read.bubbles = inline;
        return Ok(Some(read));
    }
    let rows = rows_of(
        connection,
        include_str!("../../../queries/cursor_ide_bubbles.sql"),
        id,
        |row| Ok((row.get::<_, String>(0)?, json_of(row.get_ref(1)?))),
    )?;
    let (bubbles, warnings) = ordered_bubbles(&order, rows);
    read.bubbles = bubbles;
    read.warnings.extend(warnings);
    Ok(Some(read))
}

fn warning(message: String) -> ParseWarning {
    ParseWarning { line: 0, message }
}

/// The bubble ids `fullConversationHeadersOnly` lists, in order.
fn bubble_order(composer: &Value) -> Vec<String> {
    composer
        .get("fullConversationHeadersOnly")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|header| header.get("bubbleId").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The bubbles of an older build's inline `conversation`, when it has any.
fn inline_conversation(composer: &Value) -> Option<Vec<IdeBubble>> {
    let conversation = composer.get("conversation")?.as_array()?;
    let bubbles: Vec<IdeBubble> = conversation
        .iter()
        .enumerate()
        .filter_map(|(index, bubble)| {
            let id = bubble
                .get("bubbleId")
                .and_then(Value::as_str)
                .map_or_else(|| format!("inline.{index}"), str::to_string);
            let value = kept(bubble.clone(), &BUBBLE_FIELDS)?;
            Some(IdeBubble { id, value })
        })
        .collect();
    (!bubbles.is_empty()).then_some(bubbles)
}

/// The bubble rows in conversation order: those the headers list, in their order, then the
/// others by `createdAt` (then id). Rows that are not JSON objects are skipped with a warning.
fn ordered_bubbles(
    order: &[String],
    rows: Vec<(String, Option<Value>)>,
) -> (Vec<IdeBubble>, Vec<ParseWarning>) {
    let mut warnings = Vec::new();
    let mut by_id: HashMap<String, Value> = HashMap::new();
    for (id, value) in rows {
        match value.and_then(|value| kept(value, &BUBBLE_FIELDS)) {
            Some(value) => {
                by_id.insert(id, value);
            }
            None => warnings.push(warning(format!(
                "bubble {id} is not a JSON object: skipped"
            ))),
        }
    }
    let mut bubbles = Vec::new();
    let mut placed = HashSet::new();
    for id in order {
        if let Some(value) = by_id.remove(id) {
            placed.insert(id.clone());
            bubbles.push(IdeBubble {
                id: id.clone(),
                value,
            });
        }
    }
    let mut rest: Vec<IdeBubble> = by_id
        .into_iter()
        .map(|(id, value)| IdeBubble { id, value })
        .collect();
    rest.sort_by_key(|bubble| {
        let time = bubble.value.get("createdAt").and_then(parse_timestamp);
        (time, bubble.id.clone())
    });
    bubbles.extend(rest);
    (bubbles, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn store_paths_are_state_vscdb_in_global_storage() {
        let user = "/home/u/.config/Cursor/User";
        assert!(is_store_path(Path::new(&format!(
            "{user}/globalStorage/state.vscdb"
        ))));
        assert!(is_store_path(Path::new(&format!(
            "{user}/globalStorage/state.vscdb-wal"
        ))));
        assert!(!is_store_path(Path::new(&format!(
            "{user}/workspaceStorage/ab12/state.vscdb"
        ))));
        assert!(!is_store_path(Path::new(&format!(
            "{user}/globalStorage/state.vscdb.backup"
        ))));
    }

    #[test]
    fn headers_give_the_order_and_stray_rows_follow_by_time() {
        let order = vec!["b".to_string(), "missing".to_string(), "a".to_string()];
        let rows = vec![
            ("a".to_string(), Some(json!({"type": 2, "text": "second"}))),
            ("b".to_string(), Some(json!({"type": 1, "text": "first"}))),
            (
                "late".to_string(),
                Some(json!({"type": 2, "createdAt": "2026-03-02T09:10:00Z"})),
            ),
            (
                "early".to_string(),
                Some(json!({"type": 2, "createdAt": "2026-03-02T09:00:00Z"})),
            ),
            ("null".to_string(), Some(Value::Null)),
            ("broken".to_string(), None),
        ];
        let (bubbles, warnings) = ordered_bubbles(&order, rows);
        let ids: Vec<&str> = bubbles.iter().map(|bubble| bubble.id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "early", "late"]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn only_the_fields_read_are_kept() {
        let composer = json!({"composerId": "c", "name": "n",
            "blobEncryptionKey": "secret", "originalFileStates": {"a": 1}});
        assert_eq!(
            kept(composer, &COMPOSER_FIELDS),
            Some(json!({"composerId": "c", "name": "n"}))
        );
        assert_eq!(kept(json!([1]), &COMPOSER_FIELDS), None);
    }

    #[test]
    fn an_inline_conversation_is_the_bubbles() {
        let composer = json!({"conversation": [
            {"bubbleId": "u", "type": 1, "text": "q", "context": {"big": true}},
            {"type": 2, "text": "a"}]});
        let bubbles = inline_conversation(&composer).expect("inline");
        assert_eq!(bubbles[0].id, "u");
        assert_eq!(bubbles[1].id, "inline.1");
        assert!(bubbles[0].value.get("context").is_none());
        assert!(inline_conversation(&json!({"conversation": []})).is_none());
    }

    #[test]
    fn workspace_identifiers_name_folders() {
        let fs_path = json!({"workspaceIdentifier": {"id": "1", "uri": {"fsPath": "/srv/a"}}});
        assert_eq!(identifier_folder(&fs_path).as_deref(), Some("/srv/a"));
        let external = json!({"workspaceIdentifier": {"uri": {"external": "file:///srv/b%20c"}}});
        assert_eq!(identifier_folder(&external).as_deref(), Some("/srv/b c"));
        let empty_window = json!({"workspaceIdentifier": {"id": "1783251917755"}});
        assert_eq!(identifier_folder(&empty_window), None);
    }
}
