//! `esker handoff --write`: a new session in the target harness's own format, holding the
//! hand-off pack as its first user message and a short assistant acknowledgement, so that the
//! harness's resume command opens it with the pack in context. Where each harness keeps its
//! sessions, the file's name and its records are built here as pure functions; the one IO step
//! creates the file, never replacing one ([`create_new`]).
//!
//! The records follow what each harness writes and what esker's own parsers read
//! (`src/ingest/claude/`, `src/ingest/codex/`):
//! - Claude Code: `<config dir>/projects/<cwd with every character outside [A-Za-z0-9] made
//!   '-'>/<session uuid>.jsonl`, one `user` and one `assistant` record chained by
//!   `uuid`/`parentUuid` with `sessionId`, `cwd`, `timestamp`; the assistant message carries
//!   the model name Claude Code gives the messages it writes itself (`<synthetic>`).
//! - Codex: `<codex home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl` (local
//!   time, as Codex names them), a `session_meta` then the user message as a `response_item`
//!   and an `event_msg` `user_message` (the session list shows only rollouts with one), and the
//!   acknowledgement likewise as a `response_item` and an `agent_message`.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::model::Source;

/// The assistant's answer to the pack in a written session.
pub const ACKNOWLEDGEMENT: &str = "Hand-off received. I have the goal, the last state, the files \
    touched and the open problems above, each with the esker id it came from (`esker show ID` \
    opens one in full). Tell me what to do next, or say \"continue\" and I will pick up the \
    work where it stopped.";

/// Longest project directory name Claude Code writes before shortening it with a hash.
const CLAUDE_MAX_DIR_NAME: usize = 200;

/// A harness whose session files `--write` can create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeFormat {
    ClaudeCode,
    Codex,
}

impl NativeFormat {
    /// The format of `source`'s sessions, when esker writes them.
    pub fn of(source: Source) -> Option<NativeFormat> {
        match source {
            Source::Claude => Some(NativeFormat::ClaudeCode),
            Source::Codex => Some(NativeFormat::Codex),
            _ => None,
        }
    }

    pub fn source(self) -> Source {
        match self {
            NativeFormat::ClaudeCode => Source::Claude,
            NativeFormat::Codex => Source::Codex,
        }
    }
}

/// The names `--write` supports, for messages.
pub const WRITABLE: &str = "claude, codex";

/// Where the harnesses keep their sessions: `$CLAUDE_CONFIG_DIR` (default `~/.claude`) and
/// `$CODEX_HOME` (default `~/.codex`), as `esker index` reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Homes {
    pub claude_config_dir: PathBuf,
    pub codex_home: PathBuf,
}

impl Homes {
    /// From the environment through `lookup` (`None` for unset or empty); `None` when a
    /// harness's variable is unset and there is no `HOME` to find its default under.
    pub fn from_env(lookup: impl Fn(&str) -> Option<PathBuf>) -> Option<Homes> {
        let home = lookup("HOME");
        let under_home = |name: &str| home.as_ref().map(|home| home.join(name));
        let claude_config_dir = lookup("CLAUDE_CONFIG_DIR").or_else(|| under_home(".claude"))?;
        let codex_home = lookup("CODEX_HOME").or_else(|| under_home(".codex"))?;
        Some(Homes {
            claude_config_dir,
            codex_home,
        })
    }

    /// [`Homes::from_env`] over this process's environment.
    pub fn from_process() -> Option<Homes> {
        Homes::from_env(|name| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        })
    }
}

/// A session file to write: where, its harness's id for it and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeSessionFile {
    pub format: NativeFormat,
    pub path: PathBuf,
    /// The harness's own session id (what its resume command takes).
    pub native_id: String,
    pub contents: String,
}

/// The moment a session is written, in UTC (record times) and local time (Codex's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenAt {
    pub utc: DateTime<Utc>,
    pub local: NaiveDateTime,
}

impl WrittenAt {
    pub fn now() -> WrittenAt {
        WrittenAt {
            utc: Utc::now(),
            local: chrono::Local::now().naive_local(),
        }
    }
}

/// Fresh ids for a written session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewIds {
    pub session: String,
    pub user_record: String,
    pub assistant_record: String,
    pub message: String,
}

impl NewIds {
    pub fn random() -> NewIds {
        let fresh = || uuid::Uuid::new_v4().to_string();
        NewIds {
            session: fresh(),
            user_record: fresh(),
            assistant_record: fresh(),
            message: format!("msg_esker_{}", uuid::Uuid::new_v4().simple()),
        }
    }
}

/// The session file holding `pack` as its first user message, run in `cwd`.
pub fn native_session(
    format: NativeFormat,
    homes: &Homes,
    cwd: &str,
    pack: &str,
    at: WrittenAt,
    ids: &NewIds,
) -> NativeSessionFile {
    let (path, contents) = match format {
        NativeFormat::ClaudeCode => (
            homes
                .claude_config_dir
                .join("projects")
                .join(claude_project_dir_name(cwd))
                .join(format!("{}.jsonl", ids.session)),
            jsonl(&claude_records(cwd, pack, at.utc, ids)),
        ),
        NativeFormat::Codex => (
            codex_rollout_path(&homes.codex_home, at.local, &ids.session),
            jsonl(&codex_records(cwd, pack, at.utc, &ids.session)),
        ),
    };
    NativeSessionFile {
        format,
        path,
        native_id: ids.session.clone(),
        contents,
    }
}

/// Claude Code's directory name for a project: every UTF-16 unit outside `[A-Za-z0-9]` made
/// `-`, runs kept; a name over 200 units is cut there and suffixed with `-` and a base-36 hash
/// of the whole path (Claude Code's `cli.js`, as every tool that locates its transcripts
/// reproduces it, e.g. gptme/gptme#3672).
pub fn claude_project_dir_name(cwd: &str) -> String {
    let units: Vec<u16> = cwd.encode_utf16().collect();
    let sanitized: String = units
        .iter()
        .map(|&unit| match char::from_u32(u32::from(unit)) {
            Some(character) if character.is_ascii_alphanumeric() => character,
            _ => '-',
        })
        .collect();
    if sanitized.len() <= CLAUDE_MAX_DIR_NAME {
        return sanitized;
    }
    // `Math.abs(s.split("").reduce((t, c) => (t * 31 + c.charCodeAt(0)) | 0, 0)).toString(36)`
    let hash = units.iter().fold(0i32, |hash, &unit| {
        hash.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    format!(
        "{}-{}",
        &sanitized[..CLAUDE_MAX_DIR_NAME],
        base36(i64::from(hash).unsigned_abs())
    )
}

fn base36(mut value: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if value == 0 {
        return "0".to_owned();
    }
    let mut digits = Vec::new();
    while value > 0 {
        digits.push(DIGITS[(value % 36) as usize]);
        value /= 36;
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// `<codex home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`.
pub fn codex_rollout_path(codex_home: &Path, local: NaiveDateTime, session_id: &str) -> PathBuf {
    codex_home
        .join("sessions")
        .join(local.format("%Y").to_string())
        .join(local.format("%m").to_string())
        .join(local.format("%d").to_string())
        .join(format!(
            "rollout-{}-{session_id}.jsonl",
            local.format("%Y-%m-%dT%H-%M-%S")
        ))
}

/// A record time as the harnesses write it: `2026-03-14T10:00:04.190Z`.
fn record_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The pack as a user record and the acknowledgement as the assistant's answer.
pub fn claude_records(cwd: &str, pack: &str, at: DateTime<Utc>, ids: &NewIds) -> Vec<Value> {
    let answered_at = at + chrono::Duration::milliseconds(1);
    vec![
        json!({
            "parentUuid": null,
            "isSidechain": false,
            "userType": "external",
            "cwd": cwd,
            "sessionId": ids.session,
            "type": "user",
            "message": {"role": "user", "content": pack},
            "uuid": ids.user_record,
            "timestamp": record_time(at),
        }),
        json!({
            "parentUuid": ids.user_record,
            "isSidechain": false,
            "userType": "external",
            "cwd": cwd,
            "sessionId": ids.session,
            "type": "assistant",
            "message": {
                "id": ids.message,
                "type": "message",
                "role": "assistant",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": ACKNOWLEDGEMENT}],
                "stop_reason": "end_turn",
                "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
            "uuid": ids.assistant_record,
            "timestamp": record_time(answered_at),
        }),
    ]
}

/// The session's metadata, the pack as the user's message and the acknowledgement as the
/// assistant's final answer.
pub fn codex_records(cwd: &str, pack: &str, at: DateTime<Utc>, session_id: &str) -> Vec<Value> {
    let time = record_time(at);
    let answered = record_time(at + chrono::Duration::milliseconds(1));
    let envelope = |timestamp: &str, kind: &str, payload: Value| json!({"timestamp": timestamp, "type": kind, "payload": payload});
    vec![
        envelope(
            &time,
            "session_meta",
            json!({
                "id": session_id,
                "timestamp": time,
                "cwd": cwd,
                "originator": "esker",
                "cli_version": env!("CARGO_PKG_VERSION"),
                "source": "cli",
                "model_provider": "openai",
            }),
        ),
        envelope(
            &time,
            "response_item",
            json!({
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": pack}],
            }),
        ),
        envelope(
            &time,
            "event_msg",
            json!({
                "type": "user_message",
                "message": pack,
                "images": [],
                "local_images": [],
                "text_elements": [],
            }),
        ),
        envelope(
            &answered,
            "response_item",
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": ACKNOWLEDGEMENT}],
                "phase": "final_answer",
            }),
        ),
        envelope(
            &answered,
            "event_msg",
            json!({
                "type": "agent_message",
                "message": ACKNOWLEDGEMENT,
                "phase": "final_answer",
            }),
        ),
    ]
}

fn jsonl(records: &[Value]) -> String {
    records.iter().map(|record| format!("{record}\n")).collect()
}

/// Why a session file was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path} already exists; esker never replaces a session file")]
    Exists { path: String },
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// Creates `path` (and its directories) holding `contents`; an existing file is left as it is
/// and is an error.
pub fn create_new(path: &Path, contents: &str) -> Result<(), WriteError> {
    let io_error = |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error)?;
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => WriteError::Exists {
                path: path.display().to_string(),
            },
            _ => io_error(source),
        })?;
    file.write_all(contents.as_bytes()).map_err(io_error)?;
    file.sync_all().map_err(io_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Content, Recognised, recognise};
    use crate::model::{EventType, ParsedSession};

    const PACK: &str = "# Hand-off: fix the migration\n\nYou continue in codex the work of ...\n";
    const CWD: &str = "/home/dev/web_app.v2";

    fn ids() -> NewIds {
        NewIds {
            session: "3f2b8c1e-0000-4000-8000-00000000e5c1".to_owned(),
            user_record: "3f2b8c1e-0000-4000-8000-0000000000a1".to_owned(),
            assistant_record: "3f2b8c1e-0000-4000-8000-0000000000a2".to_owned(),
            message: "msg_esker_1".to_owned(),
        }
    }

    fn at() -> WrittenAt {
        let utc = DateTime::parse_from_rfc3339("2026-03-14T10:00:04.190Z")
            .unwrap()
            .with_timezone(&Utc);
        WrittenAt {
            utc,
            local: utc.naive_utc(),
        }
    }

    fn homes() -> Homes {
        Homes {
            claude_config_dir: PathBuf::from("/h/.claude"),
            codex_home: PathBuf::from("/h/.codex"),
        }
    }

    /// What esker's own parser reads back from a written file.
    fn parsed(file: &NativeSessionFile) -> Vec<ParsedSession> {
        let Recognised::Known {
            format, content, ..
        } = recognise(file.contents.as_bytes(), None)
        else {
            panic!("not recognised: {}", file.contents);
        };
        assert!(matches!(content, Content::Lines(_)));
        let output = crate::ingest::parse(format, &file.path, &content, None);
        assert!(output.warnings.is_empty(), "{:?}", output.warnings);
        output.sessions
    }

    fn assert_one_session_with_the_pack(file: &NativeSessionFile, source: Source) {
        let sessions = parsed(file);
        assert_eq!(sessions.len(), 1, "{sessions:?}");
        let session = &sessions[0];
        assert_eq!(session.source, source);
        assert_eq!(session.native_id, file.native_id);
        assert_eq!(session.meta.cwd.as_deref(), Some(CWD));
        let texts = |kind: EventType| -> Vec<&str> {
            session
                .events
                .iter()
                .filter(|event| event.kind == kind)
                .map(|event| event.text.trim())
                .collect()
        };
        assert_eq!(texts(EventType::UserInput), [PACK.trim()]);
        assert_eq!(texts(EventType::AssistantResponse), [ACKNOWLEDGEMENT]);
    }

    #[test]
    fn a_claude_session_is_read_back_as_one_session_holding_the_pack() {
        let file = native_session(NativeFormat::ClaudeCode, &homes(), CWD, PACK, at(), &ids());
        assert_eq!(
            file.path,
            PathBuf::from(
                "/h/.claude/projects/-home-dev-web-app-v2/3f2b8c1e-0000-4000-8000-00000000e5c1.jsonl"
            )
        );
        assert_eq!(file.contents.lines().count(), 2);
        assert_one_session_with_the_pack(&file, Source::Claude);
    }

    #[test]
    fn a_codex_rollout_is_read_back_as_one_session_holding_the_pack() {
        let file = native_session(NativeFormat::Codex, &homes(), CWD, PACK, at(), &ids());
        assert_eq!(
            file.path,
            PathBuf::from(
                "/h/.codex/sessions/2026/03/14/\
                 rollout-2026-03-14T10-00-04-3f2b8c1e-0000-4000-8000-00000000e5c1.jsonl"
            )
        );
        assert_one_session_with_the_pack(&file, Source::Codex);
    }

    #[test]
    fn claude_project_names_replace_every_other_character_and_shorten_long_ones() {
        assert_eq!(
            claude_project_dir_name("/home/dev/webapp"),
            "-home-dev-webapp"
        );
        assert_eq!(
            claude_project_dir_name("/a/my_repo.v2 x"),
            "-a-my-repo-v2-x"
        );
        // One `-` per UTF-16 unit: two for a character outside the BMP.
        assert_eq!(claude_project_dir_name("/ü/😀"), "-----");
        let long = format!("/{}", "a".repeat(250));
        let name = claude_project_dir_name(&long);
        assert!(name.starts_with(&format!("-{}", "a".repeat(199))), "{name}");
        assert_eq!(name.as_bytes()[CLAUDE_MAX_DIR_NAME], b'-');
        assert!(name.len() > CLAUDE_MAX_DIR_NAME + 1);
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36 * 36), "100");
    }

    #[test]
    fn homes_follow_the_harness_variables_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| PathBuf::from(value))
            }
        };
        assert_eq!(
            Homes::from_env(env(&[("HOME", "/h")])),
            Some(Homes {
                claude_config_dir: PathBuf::from("/h/.claude"),
                codex_home: PathBuf::from("/h/.codex"),
            })
        );
        assert_eq!(
            Homes::from_env(env(&[("CLAUDE_CONFIG_DIR", "/c"), ("CODEX_HOME", "/x")])),
            Some(Homes {
                claude_config_dir: PathBuf::from("/c"),
                codex_home: PathBuf::from("/x"),
            })
        );
        assert_eq!(Homes::from_env(env(&[("CODEX_HOME", "/x")])), None);
    }

    #[test]
    fn an_existing_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a").join("b.jsonl");
        create_new(&path, "first\n").unwrap();
        let error = create_new(&path, "second\n").unwrap_err();
        assert!(matches!(error, WriteError::Exists { .. }), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");
    }
}
