//! Ingest: recognises each log file's format from its content, reads it and parses it into
//! the model's `ParsedSession`s: readers and pure parsers that import only `model` and `ids`
//! (see `tests/it/layering.rs`). Turning sessions into table rows and driving an indexing
//! pass is `crate::indexer`'s.

pub mod aider;
pub mod amp;
pub mod antigravity;
pub mod auggie;
pub mod claude;
pub mod claude_desktop;
pub mod claude_desktop_titles;
pub mod cline;
pub mod cline_api;
pub mod codebuddy;
pub mod codex;
pub mod content;
pub mod copilot;
pub mod copilot_history;
pub mod crush;
pub mod cursor;
pub mod devin;
pub mod devin_pair;
pub mod factory;
pub mod gemini;
pub mod goose;
pub mod grok;
pub mod hermes;
pub mod homes;
pub mod junie;
pub mod kimi;
pub mod kimi_code;
pub mod kiro;
pub mod kiro_db;
pub mod kiro_ide;
pub mod kiro_v3;
pub mod lines;
pub mod locations;
pub mod openclaw;
pub mod opencode;
pub mod pi;
pub mod protowire;
pub mod qwen;
pub mod qwen_legacy;
pub mod reader;
pub mod sqlite;
pub mod trae;
pub mod vscode_copilot;
pub mod warp;
pub mod windsurf;
pub mod windsurf_acp;
pub mod zed;

use std::path::Path;

use serde_json::Value;

use crate::model::{ParseOutput, Source};
use lines::{JsonLine, SplitLines, split_json_lines};

/// How many leading lines format sniffing looks at.
const SNIFF_LINES: usize = 8;

/// The log formats esker reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    CodexRollout,
    ClaudeTranscript,
    GeminiJson,
    GeminiJsonl,
    CopilotEvents,
    CursorTranscript,
    QwenJsonl,
    QwenJson,
    PiSession,
    FactorySession,
    AmpThread,
    AiderHistory,
    /// Antigravity transcripts; read as a conversation (`indexer::grouped`), or alone outside a home.
    Antigravity,
    /// OpenCode's `opencode.db` (SQLite).
    OpenCodeDb,
    /// A session of OpenCode's legacy `storage/` JSON tree.
    OpenCodeTree,
    /// A Kimi CLI session folder (`wire.jsonl`, `context.jsonl`, ...).
    Kimi,
    /// Goose's `sessions.db` (SQLite).
    GooseDb,
    /// A legacy Copilot CLI `history-session-state/<id>.json`.
    CopilotHistory,
    /// A Kimi Code session folder (`state.json`, `agents/<id>/wire.jsonl`).
    KimiCode,
    /// Goose's legacy `<session>.jsonl` (before v1.20).
    GooseJsonl,
    /// Crush's `crush.db` (SQLite).
    CrushDb,
    /// A Cline task folder (`ui_messages.json`, ...).
    ClineTask,
    /// A Roo Code task folder.
    RooTask,
    /// A cursor-agent chat store (`chats/<hash>/<chat>/store.db`, SQLite).
    CursorStore,
    /// A Cline `api_conversation_history.json` without its task folder's `ui_messages.json`.
    ClineApiHistory,
    /// A VS Code chat session: read from its `chatSessions` folder (`indexer::grouped`), or a
    /// lone snapshot, export or operation log.
    VscodeChat,
    /// The Cursor IDE's global `state.vscdb` (SQLite, `cursorDiskKV`), one session per composer.
    CursorIdeStore,
    /// Zed's agent threads, `threads/threads.db` (SQLite).
    ZedDb,
    /// An OpenClaw transcript, `agents/<agent>/sessions/<id>.jsonl` (Pi's records).
    OpenClawSession,
    /// OpenClaw's per-agent store, `agents/<agent>/agent/openclaw-agent.sqlite`.
    OpenClawDb,
    /// A Windsurf Cascade transcript, `~/.windsurf/transcripts/<trajectory>.jsonl`.
    WindsurfTranscript,
    /// A Windsurf 2.x / Devin Desktop ACP agent-window event log,
    /// `<User dir>/acp-events/<uuid>.ndjson` (read with the global `state.vscdb`'s ACP keys).
    WindsurfAcp,
    /// A Hermes Agent session file read alone (no `state.db` beside it): a
    /// `sessions/session_<id>.json` log or a gateway `sessions/<id>.jsonl` transcript.
    HermesSession,
    /// A Hermes Agent home read as one store: its `state.db` and its session files.
    HermesDb,
    /// A Codex rollout TRAE CLI 2.0 wrote, `<TRAE CLI home>/sessions/YYYY/MM/DD/rollout-*.jsonl`.
    TraeRollout,
    /// A CodeBuddy Code transcript, `~/.codebuddy/projects/<cwd-slug>/<session>.jsonl`.
    CodeBuddySession,
    /// The same transcript WorkBuddy wrote, under `~/.workbuddy{,-ai}/projects`.
    WorkBuddySession,
    /// A Kiro CLI session file, `~/.kiro/sessions/cli/<id>.jsonl` (with `<id>.json`).
    KiroSession,
    /// A Kiro CLI v3 (KAS) session log, `~/.kiro/sessions/<workspace>/sess_<id>/messages.jsonl`
    /// (with `session.json`).
    KiroV3Session,
    /// Kiro CLI's SQLite store, `kiro-cli/data.sqlite3` (`conversations_v2`).
    KiroDb,
    /// Amazon Q Developer CLI's SQLite store, `amazon-q/data.sqlite3` (`conversations`).
    AmazonQDb,
    /// A Kiro IDE workspace of its pre-1.0 chats (`globalStorage/kiro.kiroagent`: `.chat` files,
    /// execution logs, `workspace-sessions`), read as one group (`indexer::grouped`).
    KiroIde,
    /// A Junie session log, `~/.junie/sessions/<id>/events.jsonl` (with `sessions/index.jsonl`).
    JunieSession,
    /// An Auggie session snapshot, `~/.augment/sessions/<id>.json`.
    AuggieSession,
    /// A Devin CLI ATIF trajectory, `devin/cli/transcripts/<id>.json`.
    DevinTrajectory,
    /// A Grok Build session log, `~/.grok/sessions/<cwd>/<id>/updates.jsonl`.
    GrokUpdates,
    /// A Claude Desktop Code or Cowork session record, `local_<id>.json`.
    ClaudeDesktopRecord,
    /// A Claude Code transcript in a Cowork task's folder (`local-agent-mode-sessions`).
    CoworkTranscript,
    /// Warp's `warp.sqlite` (SQLite: `ai_queries`, `agent_conversations`, `agent_tasks`).
    WarpDb,
    /// A Windsurf 2.x / Devin Desktop ACP message store, `<User dir>/acp-messages/<uuid>.db`
    /// (SQLite, one session; read with the global `state.vscdb`'s ACP keys).
    WindsurfAcpDb,
    /// Devin CLI's `devin/cli/sessions.db` (SQLite): the sessions without a trajectory, read
    /// from their `message_nodes`.
    DevinDb,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::CodexRollout => "codex_rollout",
            Format::ClaudeTranscript => "claude_transcript",
            Format::GeminiJson => "gemini_json",
            Format::GeminiJsonl => "gemini_jsonl",
            Format::CopilotEvents => "copilot_events",
            Format::CursorTranscript => "cursor_transcript",
            Format::QwenJsonl => "qwen_jsonl",
            Format::QwenJson => "qwen_json",
            Format::PiSession => "pi_session",
            Format::FactorySession => "factory_session",
            Format::AmpThread => "amp_thread",
            Format::AiderHistory => "aider_history",
            Format::Antigravity => "antigravity",
            Format::OpenCodeDb => "opencode_db",
            Format::OpenCodeTree => "opencode_tree",
            Format::Kimi => "kimi",
            Format::GooseDb => "goose_db",
            Format::CopilotHistory => "copilot_history",
            Format::KimiCode => "kimi_code",
            Format::GooseJsonl => "goose_jsonl",
            Format::CrushDb => "crush_db",
            Format::ClineTask => "cline_task",
            Format::RooTask => "roo_task",
            Format::CursorStore => "cursor_store",
            Format::ClineApiHistory => "cline_api_history",
            Format::VscodeChat => "vscode_chat",
            Format::CursorIdeStore => "cursor_ide",
            Format::ZedDb => "zed_db",
            Format::OpenClawSession => "openclaw_session",
            Format::OpenClawDb => "openclaw_db",
            Format::WindsurfTranscript => "windsurf_transcript",
            Format::WindsurfAcp => "windsurf_acp",
            Format::HermesSession => "hermes_session",
            Format::HermesDb => "hermes_db",
            Format::TraeRollout => "trae_rollout",
            Format::CodeBuddySession => "codebuddy_session",
            Format::WorkBuddySession => "workbuddy_session",
            Format::KiroSession => "kiro_session",
            Format::KiroV3Session => "kiro_v3_session",
            Format::KiroDb => "kiro_db",
            Format::AmazonQDb => "amazon_q_db",
            Format::KiroIde => "kiro_ide",
            Format::JunieSession => "junie_session",
            Format::AuggieSession => "auggie_session",
            Format::DevinTrajectory => "devin_trajectory",
            Format::GrokUpdates => "grok_updates",
            Format::ClaudeDesktopRecord => "claude_desktop_record",
            Format::CoworkTranscript => "cowork_transcript",
            Format::WarpDb => "warp_db",
            Format::WindsurfAcpDb => "windsurf_acp_db",
            Format::DevinDb => "devin_db",
        }
    }
}

/// A file's content, split the way its format needs.
pub enum Content {
    Lines(SplitLines),
    Whole(Value),
}

/// The outcome of reading one file's bytes.
pub enum Recognised {
    /// Known format, with the content to parse and the byte offset of its complete part.
    Known {
        format: Format,
        content: Content,
        complete_offset: u64,
    },
    /// Not a session log of any known format.
    Unknown,
    /// A whole-file JSON log caught mid-rewrite (not valid JSON yet): try again later.
    Incomplete,
}

/// Recognises the format of `bytes` from content, not the file name. `previous_format` is the
/// format this file had before, if any (lets a Gemini JSON file caught mid-write be held back).
pub fn recognise(bytes: &[u8], previous_format: Option<Format>) -> Recognised {
    let split = split_json_lines(bytes);
    if let Some(format) = line_format(&split) {
        let complete_offset = split.complete_offset;
        return Recognised::Known {
            format,
            content: Content::Lines(split),
            complete_offset,
        };
    }
    recognise_whole(bytes, previous_format)
}

/// The JSONL format whose records the leading lines are, if any.
pub fn line_format(split: &SplitLines) -> Option<Format> {
    let leading: Vec<JsonLine> = split.lines.iter().take(SNIFF_LINES).cloned().collect();
    if leading.is_empty() {
        None
    } else if codebuddy::sniff(&leading) {
        // Before Codex and Claude: CodeBuddy's items look like Codex's legacy ones, and its
        // bookkeeping records (`ai-title`, `file-history-snapshot`) like Claude's.
        Some(Format::CodeBuddySession)
    } else if codex::sniff(&leading) {
        Some(Format::CodexRollout)
    } else if qwen::sniff_jsonl(&leading) {
        // Before Claude: Qwen records look like Claude's (uuid, sessionId, type user).
        Some(Format::QwenJsonl)
    } else if claude::sniff(&leading) {
        Some(Format::ClaudeTranscript)
    } else if gemini::sniff_jsonl(&leading) {
        Some(Format::GeminiJsonl)
    } else if copilot::sniff(&leading) {
        Some(Format::CopilotEvents)
    } else if cursor::sniff(&leading) {
        Some(Format::CursorTranscript)
    } else if pi::sniff(&leading) {
        Some(Format::PiSession)
    } else if factory::sniff(&leading) {
        Some(Format::FactorySession)
    } else if antigravity::sniff(&leading) {
        Some(Format::Antigravity)
    } else if windsurf::sniff(&leading) {
        Some(Format::WindsurfTranscript)
    } else if windsurf_acp::sniff(&leading) {
        Some(Format::WindsurfAcp)
    } else if goose::sniff_jsonl(&leading) {
        Some(Format::GooseJsonl)
    } else if vscode_copilot::sniff_log(&leading) {
        Some(Format::VscodeChat)
    } else if kiro::sniff(&leading) {
        Some(Format::KiroSession)
    } else if kiro_v3::sniff(&leading) {
        Some(Format::KiroV3Session)
    } else if junie::sniff(&leading) {
        Some(Format::JunieSession)
    } else if grok::sniff(&leading) {
        Some(Format::GrokUpdates)
    } else if hermes::sniff_jsonl(&leading) {
        Some(Format::HermesSession)
    } else {
        None
    }
}

/// Recognises a whole-file log in `bytes`: JSON (Gemini, Qwen, Amp, Copilot's history, a lone
/// Cline API history, a lone VS Code chat session) or an aider Markdown history (kept whole as one JSON string, so
/// redaction treats it like any other value).
pub fn recognise_whole(bytes: &[u8], previous_format: Option<Format>) -> Recognised {
    if aider::sniff_text(bytes) {
        return Recognised::Known {
            format: Format::AiderHistory,
            content: Content::Whole(Value::String(String::from_utf8_lossy(bytes).into_owned())),
            complete_offset: bytes.len() as u64,
        };
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) if qwen::sniff_json(&value) => Recognised::Known {
            format: Format::QwenJson,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if auggie::sniff(&value) => Recognised::Known {
            format: Format::AuggieSession,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if copilot_history::sniff(&value) => Recognised::Known {
            format: Format::CopilotHistory,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if gemini::sniff_json(&value) => Recognised::Known {
            format: Format::GeminiJson,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if amp::sniff(&value) => Recognised::Known {
            format: Format::AmpThread,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if cline_api::sniff(&value) => Recognised::Known {
            format: Format::ClineApiHistory,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if vscode_copilot::sniff(&value) => Recognised::Known {
            format: Format::VscodeChat,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if hermes::sniff_json(&value) => Recognised::Known {
            format: Format::HermesSession,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if claude_desktop::sniff(&value) => Recognised::Known {
            format: Format::ClaudeDesktopRecord,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(value) if devin::sniff(&value) => Recognised::Known {
            format: Format::DevinTrajectory,
            content: Content::Whole(value),
            complete_offset: bytes.len() as u64,
        },
        Ok(_) => Recognised::Unknown,
        Err(_)
            if matches!(
                previous_format,
                Some(
                    Format::GeminiJson
                        | Format::QwenJson
                        | Format::AmpThread
                        | Format::CopilotHistory
                        | Format::ClineApiHistory
                        | Format::VscodeChat
                        | Format::HermesSession
                        | Format::AuggieSession
                        | Format::ClaudeDesktopRecord
                        | Format::DevinTrajectory
                )
            ) =>
        {
            Recognised::Incomplete
        }
        Err(error) if error.is_eof() && looks_like_json_object(bytes) => Recognised::Incomplete,
        Err(_) => Recognised::Unknown,
    }
}

fn looks_like_json_object(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|&byte| byte == b'{')
}

/// The format a file's place refines a recognised format into: a Pi-format transcript in an
/// OpenClaw agent's `sessions` folder is OpenClaw's (the records are the same), and an
/// OpenClaw compaction checkpoint (a copy of a transcript's head) is no session log (`None`),
/// and neither is a Hermes gateway transcript whose session's JSON log is beside it; a Codex
/// rollout in a TRAE CLI home is TRAE's.
pub fn format_at(format: Format, path: &Path) -> Option<Format> {
    match format {
        Format::CodexRollout if trae::is_rollout_path(path) => Some(Format::TraeRollout),
        Format::ClaudeTranscript if claude_desktop::is_cowork_path(path) => {
            Some(Format::CoworkTranscript)
        }
        Format::CodeBuddySession if codebuddy::is_workbuddy_path(path) => {
            Some(Format::WorkBuddySession)
        }
        Format::PiSession if openclaw::is_checkpoint_path(path) => None,
        Format::PiSession if openclaw::is_transcript_path(path) => Some(Format::OpenClawSession),
        Format::HermesSession if hermes::is_shadowed_transcript(path) => None,
        other => Some(other),
    }
}

/// The file beside a log of `format` that holds part of its session's metadata, as JSON:
/// Copilot's `workspace.yaml`, Factory's `<id>.settings.json`, OpenClaw's `sessions.json`,
/// the ACP keys of Windsurf's global `state.vscdb`, the title of the Claude Desktop Code record
/// naming a Claude Code transcript. (Claude's sub-agent `.meta.json` is read by
/// `indexer::run` when there is no such record.)
pub fn harness_sidecar(format: Format, path: &Path) -> Option<Value> {
    match format {
        Format::ClaudeTranscript => claude_desktop::code_transcript_sidecar(path),
        Format::CopilotEvents => copilot::read_workspace(path),
        Format::FactorySession => factory::read_settings(path),
        Format::KiroSession => kiro::read_metadata(path),
        Format::KiroV3Session => kiro_v3::read_sidecar(path),
        Format::JunieSession => junie::read_sidecar(path),
        Format::GrokUpdates => grok::read_sidecar(path),
        Format::WindsurfAcp => windsurf_acp::read_sidecar(path),
        Format::DevinTrajectory => devin::read_sidecar(path),
        Format::CoworkTranscript => claude_desktop::transcript_sidecar(path),
        Format::OpenClawSession => openclaw::read_index(path),
        _ => None,
    }
}

/// Parses recognised content. `sidecar` is a Claude sub-agent's `.meta.json` or the
/// [`harness_sidecar`] of the format, when present.
pub fn parse(
    format: Format,
    path: &Path,
    content: &Content,
    sidecar: Option<&Value>,
) -> ParseOutput {
    match (format, content) {
        (Format::CodexRollout, Content::Lines(split)) => codex::parse(path, &split.lines),
        (Format::TraeRollout, Content::Lines(split)) => {
            codex::parse_as(path, &split.lines, Source::TraeCli)
        }
        (Format::CodeBuddySession, Content::Lines(split)) => {
            codebuddy::parse(path, &split.lines, Source::CodeBuddy)
        }
        (Format::WorkBuddySession, Content::Lines(split)) => {
            codebuddy::parse(path, &split.lines, Source::WorkBuddy)
        }
        (Format::KiroSession, Content::Lines(split)) => kiro::parse(path, &split.lines, sidecar),
        (Format::KiroV3Session, Content::Lines(split)) => {
            kiro_v3::parse(path, &split.lines, sidecar)
        }
        (Format::JunieSession, Content::Lines(split)) => junie::parse(path, &split.lines, sidecar),
        (Format::AuggieSession, Content::Whole(value)) => auggie::parse(path, value),
        (Format::DevinTrajectory, Content::Whole(value)) => devin::parse(path, value, sidecar),
        (Format::GrokUpdates, Content::Lines(split)) => grok::parse(path, &split.lines, sidecar),
        (Format::CoworkTranscript, Content::Lines(split)) => {
            claude_desktop::parse_transcript(path, &split.lines, sidecar)
        }
        (Format::ClaudeDesktopRecord, Content::Whole(value)) => {
            claude_desktop::parse_record(path, value)
        }
        (Format::ClaudeTranscript, Content::Lines(split)) => {
            claude_desktop::parse_code_transcript(path, &split.lines, sidecar)
        }
        (Format::GeminiJsonl, Content::Lines(split)) => gemini::parse_jsonl(path, &split.lines),
        (Format::GeminiJson, Content::Whole(value)) => gemini::parse_json(path, value),
        (Format::CopilotEvents, Content::Lines(split)) => {
            copilot::parse(path, &split.lines, sidecar)
        }
        (Format::CursorTranscript, Content::Lines(split)) => cursor::parse(path, &split.lines),
        (Format::QwenJsonl, Content::Lines(split)) => qwen::parse_jsonl(path, &split.lines),
        (Format::QwenJson, Content::Whole(value)) => qwen::parse_json(path, value),
        (Format::PiSession, Content::Lines(split)) => pi::parse(path, &split.lines),
        (Format::OpenClawSession, Content::Lines(split)) => {
            openclaw::parse(path, &split.lines, sidecar)
        }
        (Format::AmpThread, Content::Whole(value)) => amp::parse(path, value),
        (Format::CopilotHistory, Content::Whole(value)) => copilot_history::parse(path, value),
        (Format::AiderHistory, Content::Whole(text)) => aider::parse(path, text),
        (Format::ClineApiHistory, Content::Whole(value)) => cline_api::parse(path, value),
        (Format::FactorySession, Content::Lines(split)) => {
            factory::parse(path, &split.lines, sidecar)
        }
        (Format::GooseJsonl, Content::Lines(split)) => goose::parse_jsonl(path, &split.lines),
        (Format::HermesSession, Content::Lines(split)) => hermes::parse_jsonl(path, &split.lines),
        (Format::HermesSession, Content::Whole(value)) => hermes::parse_json(path, value),
        (Format::WindsurfTranscript, Content::Lines(split)) => windsurf::parse(path, &split.lines),
        (Format::WindsurfAcp, Content::Lines(split)) => {
            windsurf_acp::parse(path, &split.lines, sidecar)
        }
        (Format::Antigravity, Content::Lines(split)) => {
            antigravity::parse_standalone(path, &split.lines)
        }
        (Format::VscodeChat, Content::Whole(value)) => vscode_copilot::parse_snapshot(path, value),
        (Format::VscodeChat, Content::Lines(split)) => {
            vscode_copilot::parse_log(path, &split.lines)
        }
        _ => ParseOutput::default(),
    }
}

/// Parses a format name written in a checkpoint.
pub fn format_named(name: &str) -> Option<Format> {
    [
        Format::CodexRollout,
        Format::ClaudeTranscript,
        Format::GeminiJson,
        Format::GeminiJsonl,
        Format::CopilotEvents,
        Format::CursorTranscript,
        Format::QwenJsonl,
        Format::QwenJson,
        Format::PiSession,
        Format::FactorySession,
        Format::AmpThread,
        Format::AiderHistory,
        Format::Antigravity,
        Format::OpenCodeDb,
        Format::OpenCodeTree,
        Format::Kimi,
        Format::GooseDb,
        Format::CopilotHistory,
        Format::KimiCode,
        Format::GooseJsonl,
        Format::CrushDb,
        Format::ClineTask,
        Format::RooTask,
        Format::CursorStore,
        Format::ClineApiHistory,
        Format::VscodeChat,
        Format::CursorIdeStore,
        Format::ZedDb,
        Format::OpenClawSession,
        Format::OpenClawDb,
        Format::WindsurfTranscript,
        Format::WindsurfAcp,
        Format::HermesSession,
        Format::HermesDb,
        Format::TraeRollout,
        Format::CodeBuddySession,
        Format::WorkBuddySession,
        Format::KiroSession,
        Format::KiroV3Session,
        Format::KiroDb,
        Format::AmazonQDb,
        Format::KiroIde,
        Format::JunieSession,
        Format::AuggieSession,
        Format::GrokUpdates,
        Format::ClaudeDesktopRecord,
        Format::CoworkTranscript,
        Format::DevinTrajectory,
        Format::WarpDb,
        Format::WindsurfAcpDb,
        Format::DevinDb,
    ]
    .into_iter()
    .find(|format| format.name() == name)
}
