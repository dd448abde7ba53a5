//! The files a tool call touched, for the `file_touches` table behind `file_attention`: path
//! arguments of every harness's file tools (`file_path`, `path`, `notebook_path`, `filePath`,
//! `absolute_path`, `paths[]`, `files[]`), the headers of Codex patches (`*** Update File:`,
//! `*** Add File:`, `*** Delete File:`, `*** Move to:`), and the path-like words of shell
//! commands (`Bash`, `shell`, `exec_command`, `run_shell_command`, ...). Each touch is located
//! under its worktree root ([`paths::locate`]) and says whether the call changed the file.
//! Pure functions over a call's name and arguments.

pub mod paths;
pub mod shell;

use serde_json::Value;

use crate::model::{EventType, RawEvent};
use crate::store::rows::{EventRow, TouchRow};
use paths::Location;

/// How a touch was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MatchKind {
    /// A path argument of the tool (`file_path`, `path`, ...).
    Argument,
    /// A file header of a Codex patch.
    Patch,
    /// A path-like word of a shell command.
    Shell,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Argument => "argument",
            MatchKind::Patch => "patch",
            MatchKind::Shell => "shell",
        }
    }
}

/// One file one tool call touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// The path as the call wrote it.
    pub path: String,
    pub location: Location,
    /// The call changed the file (edit, write, patch, delete, or a shell command that writes).
    pub mutation: bool,
    pub kind: MatchKind,
}

/// Argument keys holding one file path.
const PATH_KEYS: [&str; 6] = [
    "file_path",
    "path",
    "notebook_path",
    "filePath",
    "absolute_path",
    "target_file",
];
/// Argument keys holding a list of file paths.
const PATH_LIST_KEYS: [&str; 2] = ["paths", "files"];
/// Argument keys holding the directory a command runs in.
const WORKDIR_KEYS: [&str; 4] = ["workdir", "working_directory", "cwd", "directory"];
/// Argument keys holding a shell command (a script string or an argv array).
const COMMAND_KEYS: [&str; 2] = ["command", "cmd"];
/// Argument keys that may hold a Codex patch (the file contents a tool writes never count).
const PATCH_KEYS: [&str; 4] = ["input", "patch", "command", "cmd"];
/// The marker of a Codex patch.
const PATCH_BEGIN: &str = "*** Begin Patch";
/// Codex patch headers that name a file.
const PATCH_HEADERS: [&str; 4] = [
    "*** Update File:",
    "*** Add File:",
    "*** Delete File:",
    "*** Move to:",
];
/// Words in a tool name that mean it changes the files it names.
const MUTATING_WORDS: [&str; 11] = [
    "edit", "write", "replace", "patch", "delete", "remove", "create", "move", "rename", "insert",
    "append",
];
/// Longest path argument kept (anything longer is content, not a path).
const MAX_PATH_CHARS: usize = 4096;

/// Every file the call `tool(arguments)` touched, one touch per located path (a path found
/// twice is kept once, as a mutation when either find says so). `cwd` is the working directory
/// recorded for the call or its session: the worktree root of the touches under it, and where
/// relative paths resolve from (unless the call names its own `workdir`).
pub fn touches_of_call(tool: &str, arguments: &Value, cwd: Option<&str>) -> Vec<Touch> {
    let Value::Object(fields) = arguments else {
        return Vec::new();
    };
    let workdir = WORKDIR_KEYS
        .iter()
        .find_map(|key| fields.get(*key).and_then(Value::as_str))
        .filter(|dir| !dir.trim().is_empty());
    let base = resolve_base(cwd, workdir);
    let roots: Vec<&str> = cwd
        .into_iter()
        .chain(base.as_deref().filter(|_| workdir.is_some()))
        .collect();
    let mut found: Vec<(String, bool, MatchKind)> = Vec::new();
    let tool_mutates = is_mutating_tool(tool);
    for (key, value) in fields {
        let key = key.as_str();
        if PATH_KEYS.contains(&key) {
            found.extend(
                value
                    .as_str()
                    .map(|path| (path.to_owned(), tool_mutates, MatchKind::Argument)),
            );
        } else if PATH_LIST_KEYS.contains(&key) {
            found.extend(
                string_items(value)
                    .map(|path| (path.to_owned(), tool_mutates, MatchKind::Argument)),
            );
        }
    }
    let patch_texts = PATCH_KEYS
        .iter()
        .filter_map(|key| fields.get(*key))
        .flat_map(string_items);
    for text in patch_texts {
        found.extend(
            patch_paths(text)
                .into_iter()
                .map(|path| (path, true, MatchKind::Patch)),
        );
    }
    for key in COMMAND_KEYS {
        if let Some(command) = fields.get(key) {
            found.extend(
                command_paths(command)
                    .into_iter()
                    .map(|found| (found.path, found.mutation, MatchKind::Shell)),
            );
        }
    }
    let mut touches: Vec<Touch> = Vec::new();
    for (path, mutation, kind) in found {
        if !is_single_path(&path) {
            continue;
        }
        let Some(location) = paths::locate(&path, base.as_deref(), &roots) else {
            continue;
        };
        match touches
            .iter_mut()
            .find(|touch| touch.location.resolved == location.resolved)
        {
            Some(existing) => existing.mutation |= mutation,
            None => touches.push(Touch {
                path,
                location,
                mutation,
                kind,
            }),
        }
    }
    touches
}

/// The `file_touches` rows of a session: the touches of each tool call, rooted at the call's own
/// working directory when the log records one, else the session's. `raw` and `rows` are the
/// session's events in the same order.
pub fn touch_rows(raw: &[RawEvent], rows: &[EventRow], session_cwd: Option<&str>) -> Vec<TouchRow> {
    let mut touches = Vec::new();
    for (raw_event, row) in raw.iter().zip(rows) {
        let (EventType::ToolCall, Some(arguments)) = (row.event_type, &raw_event.payload) else {
            continue;
        };
        let tool = row.tool_name.as_deref().unwrap_or("unknown");
        let cwd = raw_event.cwd.as_deref().or(session_cwd);
        for touch in touches_of_call(tool, arguments, cwd) {
            let file_name = paths::file_name(&touch.location.tail).to_owned();
            touches.push(TouchRow {
                event_id: row.event_id.clone(),
                session_id: row.session_id.clone(),
                turn_id: row.turn_id.clone(),
                timestamp: row.timestamp,
                source: row.source,
                cwd: cwd.map(str::to_owned),
                root: touch.location.root,
                path: touch.path,
                resolved_path: touch.location.resolved,
                tail: touch.location.tail,
                file_name,
                tool: tool.to_owned(),
                mutation: touch.mutation,
                match_kind: touch.kind.as_str(),
            });
        }
    }
    touches
}

/// The directory relative paths resolve from: the call's own directory (joined to the
/// session's when relative), else the session's.
fn resolve_base(cwd: Option<&str>, workdir: Option<&str>) -> Option<String> {
    let workdir = workdir.map(paths::unify_separators);
    match (cwd, workdir) {
        (Some(cwd), Some(workdir)) if !paths::is_absolute(&workdir) => Some(paths::normalize(
            &format!("{}/{workdir}", paths::unify_separators(cwd)),
        )),
        (_, Some(workdir)) => Some(paths::normalize(&workdir)),
        (Some(cwd), None) => Some(cwd.to_owned()),
        (None, None) => None,
    }
}

/// Whether a tool of this name changes the files named in its arguments.
pub fn is_mutating_tool(tool: &str) -> bool {
    let lowered = tool.to_ascii_lowercase();
    MUTATING_WORDS.iter().any(|word| lowered.contains(word))
}

/// A string, or the strings of an array.
fn string_items(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::String(text) => Box::new(std::iter::once(text.as_str())),
        Value::Array(items) => Box::new(items.iter().filter_map(Value::as_str)),
        _ => Box::new(std::iter::empty()),
    }
}

/// One path on one line, not a URL, a diff or a paragraph.
fn is_single_path(path: &str) -> bool {
    let path = path.trim();
    !path.is_empty()
        && path.chars().count() <= MAX_PATH_CHARS
        && !path.contains(['\n', '\r', '\0', '*', '?'])
        && !path.contains("://")
}

/// The files named by the headers of a Codex patch in `text` (none unless it holds one).
pub fn patch_paths(text: &str) -> Vec<String> {
    if !text.contains(PATCH_BEGIN) {
        return Vec::new();
    }
    text.lines()
        .filter_map(|line| {
            PATCH_HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
                .map(|path| path.trim().to_owned())
        })
        .filter(|path| !path.is_empty())
        .collect()
}

/// The path-like words of a shell command given as a script or an argv array. A patch inside
/// it is read by [`patch_paths`], not as shell words.
fn command_paths(command: &Value) -> Vec<shell::ShellPath> {
    match command {
        Value::String(script) => shell::script_paths(script),
        Value::Array(items) => {
            let argv: Vec<String> = items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            if argv.first().is_some_and(|program| program == "apply_patch") {
                return Vec::new();
            }
            shell::argv_paths(&argv)
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
