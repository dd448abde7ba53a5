//! The titles Claude Desktop's Code tab gives the Claude Code sessions it drives: an index
//! `cliSessionId -> title` of the Code records (`<user data>/claude-code-sessions/<account>/
//! <org>/local_<id>.json`, `ingest::claude_desktop`) of the home a transcript is under, so the
//! `claude` session of a transcript a record names takes the title the app shows (and the
//! person may have renamed).
//!
//! The lookup runs for every Claude Code transcript on every pass (the unchanged check reads a
//! log's sidecar too, and a home may hold 100k transcripts), so it is a map lookup: a path
//! split, a lock and two map lookups, no system call. Each home's index is kept in a
//! process-wide cache and checked once per indexing pass ([`pass_started`], called as a pass
//! begins), on the pass's first lookup in that home, against a fingerprint of its record files
//! (path, size and modification time of every `local_*.json` under the Code folders: one
//! `read_dir` per folder and one `stat` per record, nothing read). Only a changed fingerprint
//! reads the records again, each whole (they reach hundreds of kilobytes with their MCP
//! configuration; only `cliSessionId` and `title` are kept). Per pass rather than once per N
//! milliseconds: a pass sees one state of the records throughout, and the first pass over the
//! transcript after a rename sees it however soon it comes, where a timer would let a pass
//! begun within N ms of the last check miss it and leave it to a later pass. Directory times
//! are left out: the walk lists every record, so an added, removed or rewritten record changes
//! the fingerprint, and a temporary file the app writes beside them does not.
//!
//! The home of a transcript `<claude home>/projects/<slug>/<id>.jsonl` is the folder holding
//! its `.claude`; a Claude home otherwise named (`$CLAUDE_CONFIG_DIR`, a `harness_homes` entry)
//! is `$HOME`'s. `$HOME`'s user data folders follow this process's variables
//! (`XDG_CONFIG_HOME`, `APPDATA`, `LOCALAPPDATA`); another home's are its default ones and, as a
//! Windows profile seen from WSL has them, those of its `AppData`. A record that cannot be read
//! or parsed (logged at debug level), or names no session or no title, is left out. When two
//! records name one session, the one written last gives the title.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use serde::Deserialize;

use super::claude_desktop::{CODE_FOLDER, is_record_name, user_data_folders};

/// How many folder levels under a Code folder hold records (`<account>/<org>/local_<id>.json`,
/// and one level more in case the app adds one).
const RECORD_DEPTH: usize = 4;

/// A record file larger than this is not read (a record with its MCP configuration is a few
/// hundred kilobytes).
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// The passes begun in this process ([`pass_started`]).
static PASS: AtomicU64 = AtomicU64::new(0);

/// The index of every home looked up in this process, with the pass it was last checked in.
static TITLES: Mutex<BTreeMap<PathBuf, CheckedTitles>> = Mutex::new(BTreeMap::new());

/// A home's index and the pass that last compared its fingerprint.
struct CheckedTitles {
    pass: u64,
    titles: CodeTitles,
}

/// Tells the cache a pass begins: each home's records are checked again on its next lookup.
pub fn pass_started() {
    PASS.fetch_add(1, Ordering::Relaxed);
}

/// The title the Code tab gives the Claude Code session whose transcript is at `path`, when a
/// Code record of the transcript's home names it; `None` for a sub-agent's transcript and a
/// file outside a `projects/<slug>/` folder.
pub fn title_of_transcript(path: &Path) -> Option<String> {
    let session = main_transcript_session(path)?;
    let home = home_of_transcript(path)?;
    let pass = PASS.load(Ordering::Relaxed);
    let mut cache = TITLES.lock().unwrap_or_else(PoisonError::into_inner);
    let checked = match cache.entry(home) {
        Entry::Occupied(mut entry) => {
            if entry.get().pass != pass {
                let folders = code_folders(entry.key());
                let checked = entry.get_mut();
                checked.titles.refresh(&folders);
                checked.pass = pass;
            }
            entry.into_mut()
        }
        Entry::Vacant(entry) => {
            let titles = CodeTitles::read(&code_folders(entry.key()));
            entry.insert(CheckedTitles { pass, titles })
        }
    };
    checked.titles.title_of(session).map(str::to_string)
}

/// The session a main transcript `projects/<slug>/<session>.jsonl` is named after; `None` for a
/// sub-agent's (`agent-<id>.jsonl`, beside it or under `<session>/subagents/`).
fn main_transcript_session(path: &Path) -> Option<&str> {
    let in_projects = path
        .parent()?
        .parent()?
        .file_name()
        .is_some_and(|name| name == "projects");
    let session = path.file_stem()?.to_str()?;
    (in_projects && !session.starts_with("agent-")).then_some(session)
}

/// The home a transcript's Desktop records are under: the folder holding its `.claude`, else
/// (a Claude home moved by `$CLAUDE_CONFIG_DIR`) `$HOME`.
fn home_of_transcript(path: &Path) -> Option<PathBuf> {
    let claude_home = path.parent()?.parent()?.parent()?;
    if claude_home.file_name() == Some(OsStr::new(".claude")) {
        return claude_home.parent().map(Path::to_path_buf);
    }
    env_dir("HOME")
}

/// The Code folders of every user data folder of `home`.
fn code_folders(home: &Path) -> Vec<PathBuf> {
    let is_this_home = env_dir("HOME").is_some_and(|this| this == home);
    let env = |name: &str| {
        if is_this_home {
            env_dir(name)
        } else {
            profile_dir(home, name)
        }
    };
    user_data_folders(home, &env)
        .into_iter()
        .map(|data| data.join(CODE_FOLDER))
        .collect()
}

/// A variable of this process naming a folder, when set and not empty.
fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// `%APPDATA%` and `%LOCALAPPDATA%` of a home that may be a Windows profile.
fn profile_dir(home: &Path, name: &str) -> Option<PathBuf> {
    let app_data = home.join("AppData");
    match name {
        "APPDATA" => Some(app_data.join("Roaming")),
        "LOCALAPPDATA" => Some(app_data.join("Local")),
        _ => None,
    }
}

/// The Code-tab titles of one home by `cliSessionId`, with the fingerprint of the record files
/// they were read from.
#[derive(Debug)]
struct CodeTitles {
    fingerprint: u64,
    titles: HashMap<String, String>,
}

impl CodeTitles {
    /// Reads the records under the Code folders `folders`.
    fn read(folders: &[PathBuf]) -> CodeTitles {
        let files = record_files(folders);
        CodeTitles {
            fingerprint: fingerprint(&files),
            titles: titles_of(&files),
        }
    }

    /// Reads the records again when their fingerprint changed.
    fn refresh(&mut self, folders: &[PathBuf]) {
        let files = record_files(folders);
        let now = fingerprint(&files);
        if now != self.fingerprint {
            tracing::debug!(records = files.len(), "Claude Desktop Code records changed");
            self.fingerprint = now;
            self.titles = titles_of(&files);
        }
    }

    /// The title of the Code session driving Claude Code session `cli_session_id`.
    fn title_of(&self, cli_session_id: &str) -> Option<&str> {
        self.titles.get(cli_session_id).map(String::as_str)
    }
}

/// A record file as the fingerprint sees it.
struct RecordFile {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
}

/// The record files under `folders`, by path.
fn record_files(folders: &[PathBuf]) -> Vec<RecordFile> {
    let mut files = Vec::new();
    for folder in folders {
        collect_records(folder, RECORD_DEPTH, &mut files);
    }
    files.sort_by(|left, right| left.path.cmp(&right.path));
    files
}

/// Adds the record files of `folder` and of its folders down to `depth` levels (links are not
/// followed).
fn collect_records(folder: &Path, depth: usize, files: &mut Vec<RecordFile>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth > 1 {
            collect_records(&path, depth - 1, files);
        } else if kind.is_file()
            && is_record_name(&path)
            && let Ok(metadata) = entry.metadata()
        {
            files.push(RecordFile {
                path,
                size: metadata.len(),
                modified: metadata.modified().ok(),
            });
        }
    }
}

/// A hash of the files' paths, sizes and modification times.
fn fingerprint(files: &[RecordFile]) -> u64 {
    let mut hasher = DefaultHasher::new();
    files.len().hash(&mut hasher);
    for file in files {
        file.path.hash(&mut hasher);
        file.size.hash(&mut hasher);
        file.modified.hash(&mut hasher);
    }
    hasher.finish()
}

/// The title of each session the records name; of two records naming one session, the one
/// modified last.
fn titles_of(files: &[RecordFile]) -> HashMap<String, String> {
    let mut oldest_first: Vec<&RecordFile> = files.iter().collect();
    oldest_first
        .sort_by(|left, right| (left.modified, &left.path).cmp(&(right.modified, &right.path)));
    oldest_first.into_iter().filter_map(session_title).collect()
}

/// The two fields of a record the index keeps (serde skips the rest).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TitleFields {
    #[serde(default)]
    cli_session_id: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// The session a record names and its title, both trimmed and not empty.
fn session_title(file: &RecordFile) -> Option<(String, String)> {
    let path = &file.path;
    if file.size > MAX_RECORD_BYTES {
        tracing::debug!(
            record = %path.display(),
            size = file.size,
            "Code record too large; skipped"
        );
        return None;
    }
    let bytes = std::fs::read(path)
        .inspect_err(|error| {
            tracing::debug!(record = %path.display(), %error, "Code record not read");
        })
        .ok()?;
    let fields: TitleFields = serde_json::from_slice(&bytes)
        .inspect_err(|error| {
            tracing::debug!(record = %path.display(), %error, "Code record not parsed");
        })
        .ok()?;
    let trimmed = |text: Option<String>| {
        text.map(|text| text.trim().to_string())
            .filter(|text| !text.is_empty())
    };
    Some((trimmed(fields.cli_session_id)?, trimmed(fields.title)?))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use super::*;

    /// A Code records folder under `home`'s `~/.config/Claude`, with `<account>/<org>` made.
    fn records_folder(home: &Path) -> (PathBuf, PathBuf) {
        let code = home.join(".config").join("Claude").join(CODE_FOLDER);
        let org = code.join("acct").join("org");
        fs::create_dir_all(&org).expect("mkdir");
        (code, org)
    }

    fn write_record(folder: &Path, id: &str, record: &serde_json::Value) {
        fs::write(folder.join(format!("local_{id}.json")), record.to_string()).expect("write");
    }

    #[test]
    fn the_index_names_each_recorded_session_and_skips_bad_records() {
        let home = tempfile::tempdir().expect("temp dir");
        let (code, org) = records_folder(home.path());
        write_record(
            &org,
            "1",
            &json!({"sessionId": "local_1", "cliSessionId": "c1", "title": " Tidy the README ",
                "mcpServers": {"docs": {"command": "docs"}}}),
        );
        write_record(
            &org,
            "2",
            &json!({"cliSessionId": "c2", "title": "Bisect the login test"}),
        );
        write_record(&org, "3", &json!({"cliSessionId": "c3", "title": "  "}));
        write_record(&org, "4", &json!({"title": "No session named"}));
        write_record(&org, "5", &json!({"cliSessionId": "c5", "title": 7}));
        fs::write(org.join("local_6.json"), "{\"cliSessionId\": \"c6\", ").expect("write");
        fs::write(
            org.join("other.json"),
            json!({"cliSessionId": "c7", "title": "not a record"}).to_string(),
        )
        .expect("write");

        let index = CodeTitles::read(&[code, home.path().join("missing")]);
        assert_eq!(index.title_of("c1"), Some("Tidy the README"));
        assert_eq!(index.title_of("c2"), Some("Bisect the login test"));
        assert_eq!(index.titles.len(), 2, "{:?}", index.titles);
    }

    #[test]
    fn a_rewritten_record_is_read_again_only_when_its_fingerprint_changes() {
        let home = tempfile::tempdir().expect("temp dir");
        let (code, org) = records_folder(home.path());
        write_record(&org, "1", &json!({"cliSessionId": "c1", "title": "Tidy"}));
        let folders = [code];
        let mut index = CodeTitles::read(&folders);
        assert_eq!(index.title_of("c1"), Some("Tidy"));

        // The same size and time: the fingerprint holds, nothing is read.
        let record = org.join("local_1.json");
        let modified = fs::metadata(&record)
            .expect("stat")
            .modified()
            .expect("time");
        write_record(&org, "1", &json!({"cliSessionId": "c1", "title": "Tody"}));
        let file = fs::File::options().write(true).open(&record).expect("open");
        file.set_modified(modified).expect("set time");
        index.refresh(&folders);
        assert_eq!(index.title_of("c1"), Some("Tidy"));

        // Renamed in the app: read again.
        write_record(
            &org,
            "1",
            &json!({"cliSessionId": "c1", "title": "Tidy the README"}),
        );
        index.refresh(&folders);
        assert_eq!(index.title_of("c1"), Some("Tidy the README"));

        // A new record is seen, a removed one goes.
        write_record(&org, "2", &json!({"cliSessionId": "c2", "title": "Bisect"}));
        fs::remove_file(&record).expect("remove");
        index.refresh(&folders);
        assert_eq!(index.title_of("c1"), None);
        assert_eq!(index.title_of("c2"), Some("Bisect"));
    }

    #[test]
    fn a_main_transcript_of_a_home_finds_its_record_title_each_pass() {
        let home = tempfile::tempdir().expect("temp dir");
        let (_, org) = records_folder(home.path());
        write_record(&org, "1", &json!({"cliSessionId": "c1", "title": "Tidy"}));
        write_record(&org, "2", &json!({"cliSessionId": "c2", "title": "Gone"}));
        let projects = home.path().join(".claude").join("projects").join("-p");
        fs::create_dir_all(projects.join("c1").join("subagents")).expect("mkdir");
        let transcript = projects.join("c1.jsonl");
        fs::write(&transcript, "{}\n").expect("write");

        pass_started();
        assert_eq!(title_of_transcript(&transcript).as_deref(), Some("Tidy"));
        assert_eq!(title_of_transcript(&projects.join("c3.jsonl")), None);
        let subagent = projects.join("c1").join("subagents").join("agent-a.jsonl");
        assert_eq!(title_of_transcript(&subagent), None);
        assert_eq!(title_of_transcript(&projects.join("agent-c1.jsonl")), None);

        write_record(
            &org,
            "1",
            &json!({"cliSessionId": "c1", "title": "Tidy the README"}),
        );
        pass_started();
        assert_eq!(
            title_of_transcript(&transcript).as_deref(),
            Some("Tidy the README")
        );
    }

    #[test]
    fn a_transcript_home_is_above_its_claude_folder() {
        assert_eq!(
            home_of_transcript(Path::new("/h/u/.claude/projects/-p/c1.jsonl")),
            Some(PathBuf::from("/h/u"))
        );
        assert_eq!(
            main_transcript_session(Path::new("/h/u/.claude/projects/-p/c1.jsonl")),
            Some("c1")
        );
        assert_eq!(
            main_transcript_session(Path::new("/h/u/logs/c1.jsonl")),
            None
        );
        let windows = code_folders(Path::new("/mnt/c/Users/u"));
        assert!(windows.contains(&PathBuf::from(
            "/mnt/c/Users/u/AppData/Roaming/Claude/claude-code-sessions"
        )));
    }
}
