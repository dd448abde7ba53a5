//! Claude Desktop's Code tab and Cowork tasks: the app's session records
//! (`<user data>/claude-code-sessions/<account>/<org>/local_<id>.json` and
//! `<user data>/local-agent-mode-sessions/<account>/<org>/local_<id>.json`) and Cowork's Claude
//! Code transcripts (`local_<id>/.claude/projects/<encoded dir>/<cliSessionId>.jsonl`, sub-agents
//! in `<cliSessionId>/subagents/agent-<id>.jsonl`), read with the Claude Code parser.
//!
//! A record is JSON: `sessionId` (`local_<uuid>`, the app's id), `cliSessionId` (the Claude Code
//! session it drives: its transcript's name), `title`, `cwd` (else `originCwd`, `worktreePath`
//! or the first of `userSelectedFolders`), `model`, `createdAt` / `lastActivityAt` (epoch
//! milliseconds), `isArchived`, `initialMessage`, and the whole MCP configuration (records
//! reach hundreds of kilobytes). A Code session's transcript is Claude Code's own
//! (`~/.claude/projects/<slug>/<cliSessionId>.jsonl`, read as `claude`, here through
//! [`parse_code_transcript`]); a Cowork task's is in its folder beside the record, read here as
//! `cowork` with the record's title, cwd, model and start. A record whose transcript is missing
//! (the app lists sessions whose transcript is gone, or not written yet) is still a session:
//! zero events and the record's facts, as `claude-desktop` (Code) or `cowork`. A record whose
//! transcript exists adds no session of its own (the transcript's session is the one).
//!
//! The `claude` session of a transcript a Code record names takes the record's `title` (found
//! through `ingest::claude_desktop_titles`, given to the parser as the transcript's sidecar, so
//! a rename in the app re-reads the transcript): the app shows that title and the person may
//! rename it there. It wins over the transcript's own title (a `custom-title`, `ai-title` or
//! `summary` record); a `summary` stays the session's summary. The record's other facts (cwd,
//! model, start) are the transcript's to give.
//!
//! User data folders (Electron's): `~/Library/Application Support/Claude` (macOS),
//! `$XDG_CONFIG_HOME/Claude` (`~/.config/Claude`, Linux builds), `%APPDATA%\Claude` and the
//! MSIX package's `%LOCALAPPDATA%\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming\Claude`
//! (Windows).
//!
//! Sources: agentsview's Cowork reader (`internal/parser/cowork.go`, `cowork_paths.go`: layout,
//! transcript lookup, the Windows folders), public readers of both record trees (a Claude
//! Desktop session browser's `desktopSessions.js`: the `local_<id>.json` fields, the task
//! folder beside its record), and peers-2026-12 §5 (about a third of Code records had no
//! transcript on one machine). Not a documented format: every field is optional.

use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use super::content::{epoch_time, text_field};
use super::lines::JsonLine;
use crate::model::{ParseOutput, ParsedSession, SessionMeta, Source};

/// The Code tab's records folder in a user data folder.
pub const CODE_FOLDER: &str = "claude-code-sessions";
/// Cowork's records and task folders in a user data folder.
pub const COWORK_FOLDER: &str = "local-agent-mode-sessions";

/// Claude Desktop's user data folders under `home` (existing or not).
pub(super) fn user_data_folders(
    home: &Path,
    env: &impl Fn(&str) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let mut folders = vec![
        home.join("Library")
            .join("Application Support")
            .join("Claude"),
        env("XDG_CONFIG_HOME")
            .unwrap_or_else(|| home.join(".config"))
            .join("Claude"),
    ];
    if let Some(appdata) = env("APPDATA") {
        folders.push(appdata.join("Claude"));
    }
    if let Some(local) = env("LOCALAPPDATA") {
        folders.push(
            local
                .join("Packages")
                .join("Claude_pzs8sxrjxfjjc")
                .join("LocalCache")
                .join("Roaming")
                .join("Claude"),
        );
    }
    folders
}

/// The Code and Cowork folders of every user data folder, labelled.
pub fn folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<(Source, PathBuf)> {
    user_data_folders(home, env)
        .into_iter()
        .flat_map(|data| {
            [
                (Source::ClaudeDesktop, data.join(CODE_FOLDER)),
                (Source::Cowork, data.join(COWORK_FOLDER)),
            ]
        })
        .collect()
}

/// Whether `path` has a folder named `name` among its components.
fn has_component(path: &Path, name: &str) -> bool {
    path.components()
        .any(|component| component == Component::Normal(name.as_ref()))
}

/// A record's file name: `local_<id>.json`.
pub(super) fn is_record_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("local_") && name.ends_with(".json"))
}

/// Which files under a Claude Desktop folder are logs: the records, and (under Cowork) the
/// Claude Code transcripts in a task's `.claude/projects`. Everything else there (uploads,
/// outputs, the skills plugin mirror, the app's caches) is not. `None` outside those folders.
pub fn is_log_path(path: &Path) -> Option<bool> {
    if has_component(path, COWORK_FOLDER) {
        let transcript = is_cowork_path(path)
            && path.extension() == Some("jsonl".as_ref())
            && !path.to_string_lossy().ends_with(".meta.json");
        return Some(transcript || (is_record_name(path) && !is_in_task_folder(path)));
    }
    if has_component(path, CODE_FOLDER) {
        return Some(is_record_name(path));
    }
    None
}

/// A file inside a Cowork task's `.claude/projects` folder.
pub fn is_cowork_path(path: &Path) -> bool {
    has_component(path, COWORK_FOLDER) && task_folder(path).is_some()
}

/// The task folder (`local_<id>`) holding a Cowork transcript: the part of the path before its
/// `.claude/projects`.
fn task_folder(path: &Path) -> Option<PathBuf> {
    let parts: Vec<Component> = path.components().collect();
    let at = parts.windows(2).position(|pair| {
        pair[0] == Component::Normal(".claude".as_ref())
            && pair[1] == Component::Normal("projects".as_ref())
    })?;
    Some(parts[..at].iter().collect())
}

/// A record-named file inside a task folder (the task's own files), not a record.
fn is_in_task_folder(path: &Path) -> bool {
    path.ancestors().skip(1).any(|folder| {
        folder
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("local_"))
    })
}

/// A Claude Desktop session record: an object naming the Claude Code session it drives
/// (`cliSessionId`) or with an app id `local_<...>`, and a title, cwd or activity time.
pub fn sniff(value: &Value) -> bool {
    let Some(record) = value.as_object() else {
        return false;
    };
    let names_session = record.get("cliSessionId").is_some_and(Value::is_string)
        || record
            .get("sessionId")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with("local_"));
    let described = [
        "title",
        "cwd",
        "createdAt",
        "lastActivityAt",
        "userSelectedFolders",
    ]
    .iter()
    .any(|field| record.contains_key(*field));
    names_session && described
}

/// The record of a Cowork transcript's task (`<task folder>.json`) and the transcript's own
/// Claude sub-agent `.meta.json`: `{record, meta}`.
pub fn transcript_sidecar(path: &Path) -> Option<Value> {
    let record = task_folder(path).and_then(|folder| read_json(&folder.with_extension("json")));
    let meta = super::claude::subagent_meta(path);
    (record.is_some() || meta.is_some()).then(|| json!({"record": record, "meta": meta}))
}

/// The sidecar of a Claude Code transcript (format `claude_transcript`) that a Code record of
/// its home names: `{desktopTitle, meta}`, the record's title and the `.meta.json` beside the
/// transcript (Claude Code writes none beside a main transcript; kept so the parser reads what
/// it read before). `None` when no record names it, a sub-agent's transcript included: its
/// `.meta.json` alone is then its sidecar (`indexer::run`), as before.
pub fn code_transcript_sidecar(path: &Path) -> Option<Value> {
    let title = super::claude_desktop_titles::title_of_transcript(path)?;
    Some(json!({"desktopTitle": title, "meta": super::claude::subagent_meta(path)}))
}

/// A JSON file, when it can be read and parsed.
fn read_json(file: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()
}

/// The facts a record gives a session.
fn record_meta(record: &Value) -> SessionMeta {
    let cwd = ["cwd", "originCwd", "worktreePath"]
        .iter()
        .find_map(|field| text_field(record, field))
        .or_else(|| {
            record
                .get("userSelectedFolders")?
                .as_array()?
                .iter()
                .find_map(|folder| folder.as_str().map(str::to_string))
        });
    SessionMeta {
        title: text_field(record, "title"),
        cwd,
        model: text_field(record, "model"),
        started_at: epoch_time(record.get("createdAt").and_then(Value::as_i64)),
        ..SessionMeta::default()
    }
}

/// Parses a Cowork transcript with the Claude Code parser, as `cowork`, with its task record's
/// title, cwd, model and start on the task's session.
pub fn parse_transcript(path: &Path, lines: &[JsonLine], sidecar: Option<&Value>) -> ParseOutput {
    let meta = sidecar
        .and_then(|sidecar| sidecar.get("meta"))
        .filter(|meta| meta.is_object());
    let mut output = super::claude::parse(path, lines, meta);
    let record = sidecar
        .and_then(|sidecar| sidecar.get("record"))
        .filter(|record| record.is_object());
    let cli = record.and_then(|record| text_field(record, "cliSessionId"));
    for session in &mut output.sessions {
        session.source = Source::Cowork;
        if let Some(record) = record
            && cli.as_deref() == Some(session.native_id.as_str())
        {
            let facts = record_meta(record);
            let meta = &mut session.meta;
            meta.title = facts.title.or(meta.title.take());
            meta.cwd = facts.cwd.or(meta.cwd.take());
            meta.model = facts.model.or(meta.model.take());
            meta.started_at = facts.started_at.or(meta.started_at);
        }
    }
    output
}

/// Parses a Claude Code transcript with the Claude Code parser, as `claude`. With a
/// [`code_transcript_sidecar`] (a Code record names the transcript), the session the
/// transcript is named after takes the record's title, over the transcript's own (a `summary`
/// stays its summary), and the parser gets the sidecar's `meta`; otherwise the sidecar is the
/// parser's as it is (a sub-agent's `.meta.json`).
pub fn parse_code_transcript(
    path: &Path,
    lines: &[JsonLine],
    sidecar: Option<&Value>,
) -> ParseOutput {
    let Some(title) = sidecar.and_then(|sidecar| text_field(sidecar, "desktopTitle")) else {
        return super::claude::parse(path, lines, sidecar);
    };
    let meta = sidecar
        .and_then(|sidecar| sidecar.get("meta"))
        .filter(|meta| meta.is_object());
    let mut output = super::claude::parse(path, lines, meta);
    let cli = path.file_stem().and_then(|stem| stem.to_str());
    for session in &mut output.sessions {
        if cli == Some(session.native_id.as_str()) {
            session.meta.title = Some(title.clone());
        }
    }
    output
}

/// The transcript a record points at, when it exists: in the task folder beside a Cowork record
/// (any `.claude/projects/<dir>/<cliSessionId>.jsonl`), in Claude Code's projects folders
/// (`$CLAUDE_CONFIG_DIR`, `~/.claude`) for a Code record.
fn transcript_of(path: &Path, cli: &str, cowork: bool) -> Option<PathBuf> {
    let file = format!("{cli}.jsonl");
    let homes: Vec<PathBuf> = if cowork {
        vec![path.with_extension("").join(".claude")]
    } else {
        let env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        [
            env("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            env("HOME").map(|home| PathBuf::from(home).join(".claude")),
        ]
        .into_iter()
        .flatten()
        .collect()
    };
    homes.into_iter().find_map(|home| {
        std::fs::read_dir(home.join("projects"))
            .ok()?
            .filter_map(Result::ok)
            .map(|entry| entry.path().join(&file))
            .find(|candidate| candidate.is_file())
    })
}

/// Parses a record: a session of its own only when its transcript is missing (zero events,
/// the record's facts), as `cowork` under a Cowork folder, else `claude-desktop`.
pub fn parse_record(path: &Path, record: &Value) -> ParseOutput {
    let cowork = has_component(path, COWORK_FOLDER);
    let cli = text_field(record, "cliSessionId");
    if let Some(cli) = cli.as_deref()
        && transcript_of(path, cli, cowork).is_some()
    {
        return ParseOutput::default();
    }
    let native_id = cli
        .or_else(|| text_field(record, "sessionId"))
        .unwrap_or_else(|| {
            path.file_stem()
                .and_then(|stem| stem.to_str())
                .unwrap_or("session")
                .to_string()
        });
    let mut meta = record_meta(record);
    if meta.title.is_none() {
        meta.title = text_field(record, "initialMessage")
            .map(|message| message.lines().next().unwrap_or_default().to_string());
    }
    ParseOutput {
        sessions: vec![ParsedSession {
            source: if cowork {
                Source::Cowork
            } else {
                Source::ClaudeDesktop
            },
            native_id,
            meta,
            events: Vec::new(),
        }],
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::split_json_lines;

    #[test]
    fn folders_of_every_user_data_folder_are_labelled() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "APPDATA").then(|| PathBuf::from("/w/Roaming"));
        let found = folders(home, &env);
        for (source, path) in [
            (
                Source::ClaudeDesktop,
                "/home/u/Library/Application Support/Claude/claude-code-sessions",
            ),
            (
                Source::Cowork,
                "/home/u/.config/Claude/local-agent-mode-sessions",
            ),
            (
                Source::Cowork,
                "/w/Roaming/Claude/local-agent-mode-sessions",
            ),
        ] {
            assert!(found.contains(&(source, PathBuf::from(path))), "{path}");
        }
    }

    #[test]
    fn only_records_and_task_transcripts_are_logs() {
        let cowork = "/h/.config/Claude/local-agent-mode-sessions/a/o";
        let code = "/h/.config/Claude/claude-code-sessions/a/o";
        for (path, expected) in [
            (format!("{cowork}/local_1.json"), Some(true)),
            (
                format!("{cowork}/local_1/.claude/projects/-p/c1.jsonl"),
                Some(true),
            ),
            (
                format!("{cowork}/local_1/.claude/projects/-p/c1/subagents/agent-a.jsonl"),
                Some(true),
            ),
            (format!("{cowork}/local_1/outputs/data.json"), Some(false)),
            (
                format!("{cowork}/local_1/uploads/local_x.json"),
                Some(false),
            ),
            (
                "/h/.config/Claude/local-agent-mode-sessions/cowork_settings.json".into(),
                Some(false),
            ),
            (format!("{code}/local_2.json"), Some(true)),
            (format!("{code}/other.json"), Some(false)),
            ("/h/.claude/projects/-p/c1.jsonl".into(), None),
        ] {
            assert_eq!(is_log_path(Path::new(&path)), expected, "{path}");
        }
        assert!(is_cowork_path(Path::new(&format!(
            "{cowork}/local_1/.claude/projects/-p/c1.jsonl"
        ))));
        assert!(!is_cowork_path(Path::new(
            "/h/.claude/projects/-p/c1.jsonl"
        )));
    }

    #[test]
    fn a_record_without_its_transcript_is_a_session_with_its_facts() {
        let root = tempfile::tempdir().expect("temp dir");
        let folder = root.path().join(COWORK_FOLDER).join("a").join("o");
        std::fs::create_dir_all(&folder).expect("mkdir");
        let path = folder.join("local_t1.json");
        let record = json!({"sessionId": "local_t1", "cliSessionId": "c1", "title": "Plan the trip",
            "model": "claude-opus-4-5", "createdAt": 1_787_000_000_000_i64,
            "userSelectedFolders": ["/Users/u/trip"], "mcpServers": {}});
        assert!(sniff(&record));
        assert!(!sniff(&json!({"title": "x"})));
        let output = parse_record(&path, &record);
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Cowork);
        assert_eq!(session.native_id, "c1");
        assert!(session.events.is_empty());
        assert_eq!(session.meta.title.as_deref(), Some("Plan the trip"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/Users/u/trip"));
        assert_eq!(session.meta.model.as_deref(), Some("claude-opus-4-5"));
        assert_eq!(
            session.meta.started_at.map(|time| time.timestamp()),
            Some(1_787_000_000)
        );

        // Once the transcript exists, the transcript is the session.
        let projects = folder
            .join("local_t1")
            .join(".claude")
            .join("projects")
            .join("-p");
        std::fs::create_dir_all(&projects).expect("mkdir");
        let transcript = projects.join("c1.jsonl");
        let line = json!({"type": "user", "uuid": "u1", "sessionId": "c1",
            "timestamp": "2026-08-17T10:00:00Z", "cwd": "/sessions/x",
            "message": {"role": "user", "content": "plan it"}});
        std::fs::write(&transcript, format!("{line}\n")).expect("write");
        std::fs::write(&path, record.to_string()).expect("write record");
        assert!(parse_record(&path, &record).sessions.is_empty());

        let split = split_json_lines(format!("{line}\n").as_bytes());
        let sidecar = transcript_sidecar(&transcript).expect("sidecar");
        let output = parse_transcript(&transcript, &split.lines, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Cowork);
        assert_eq!(session.native_id, "c1");
        assert_eq!(session.meta.title.as_deref(), Some("Plan the trip"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/Users/u/trip"));
        assert_eq!(session.events.len(), 1);
    }

    #[test]
    fn a_code_record_titles_the_transcript_it_names() {
        let home = tempfile::tempdir().expect("temp dir");
        let records = home.path().join(".config").join("Claude").join(CODE_FOLDER);
        let records = records.join("a").join("o");
        std::fs::create_dir_all(&records).expect("mkdir");
        let record = json!({"sessionId": "local_1", "cliSessionId": "c1",
            "title": "Tidy the README", "cwd": "/elsewhere"});
        std::fs::write(records.join("local_1.json"), record.to_string()).expect("write");
        let projects = home.path().join(".claude").join("projects").join("-p");
        std::fs::create_dir_all(&projects).expect("mkdir");
        let user = json!({"type": "user", "uuid": "u1", "sessionId": "c1", "cwd": "/w/readme",
            "timestamp": "2026-08-17T10:00:00Z",
            "message": {"role": "user", "content": "tidy it"}});
        let summary = json!({"type": "summary", "summary": "Numbered the steps", "leafUuid": "u1"});
        let text = format!("{user}\n{summary}\n");
        let transcript = projects.join("c1.jsonl");
        std::fs::write(&transcript, &text).expect("write");
        let split = split_json_lines(text.as_bytes());

        let sidecar = code_transcript_sidecar(&transcript).expect("sidecar");
        assert_eq!(
            sidecar,
            json!({"desktopTitle": "Tidy the README", "meta": null})
        );
        let output = parse_code_transcript(&transcript, &split.lines, Some(&sidecar));
        let session = &output.sessions[0];
        assert_eq!(session.source, Source::Claude);
        assert_eq!(session.native_id, "c1");
        assert_eq!(session.meta.title.as_deref(), Some("Tidy the README"));
        assert_eq!(session.meta.summary.as_deref(), Some("Numbered the steps"));
        assert_eq!(session.meta.cwd.as_deref(), Some("/w/readme"));

        // No record: the transcript's own title; a sub-agent's `.meta.json` goes to the parser.
        let own = parse_code_transcript(&transcript, &split.lines, None);
        assert_eq!(
            own.sessions[0].meta.title.as_deref(),
            Some("Numbered the steps")
        );
        let meta = json!({"agentType": "general-purpose", "description": "Research"});
        assert_eq!(
            parse_code_transcript(&transcript, &split.lines, Some(&meta)),
            crate::ingest::claude::parse(&transcript, &split.lines, Some(&meta))
        );
        let other = projects.join("c2.jsonl");
        assert!(code_transcript_sidecar(&other).is_none());
    }
}
