//! The normalized record model every log format parses into: sources, event types and the raw
//! per-file output (`ParsedSession`, `RawEvent`) that `indexer::assemble` turns into table rows.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The harness that wrote a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Codex,
    Claude,
    Gemini,
    Copilot,
    Cursor,
    Qwen,
    Pi,
    Factory,
    Amp,
    Aider,
    Antigravity,
    OpenCode,
    Kimi,
    Goose,
    Crush,
    Cline,
    Roo,
    /// VS Code's chat (GitHub Copilot Chat, the Agents window): `chatSessions` files.
    #[serde(rename = "vscode-copilot")]
    VscodeCopilot,
    /// The Cursor IDE's Composer / Agent chats: its global `state.vscdb` (not the cursor-agent
    /// CLI, which is `Cursor`).
    #[serde(rename = "cursor-ide")]
    CursorIde,
    /// Zed's agent panel threads (`threads/threads.db`).
    Zed,
    /// OpenClaw (and QClaw, Kimi Claw): Pi-format transcripts and the per-agent SQLite store.
    OpenClaw,
    /// Windsurf's Cascade, from the transcripts its hooks write (`~/.windsurf/transcripts`).
    Windsurf,
    /// Hermes Agent (Nous Research): `state.db` and the session files of `~/.hermes`.
    Hermes,
    /// TRAE CLI 2.0 (`traex`): Codex rollouts under a TRAE home (`~/.trae/cli/sessions`).
    #[serde(rename = "trae-cli")]
    TraeCli,
    /// CodeBuddy Code (Tencent): `~/.codebuddy/projects/<cwd-slug>/<session>.jsonl`.
    #[serde(rename = "codebuddy")]
    CodeBuddy,
    /// WorkBuddy (Tencent's desktop app running CodeBuddy's agent): the same transcripts under
    /// `~/.workbuddy/projects` and `~/.workbuddy-ai/projects`.
    #[serde(rename = "workbuddy")]
    WorkBuddy,
    /// Kiro CLI: `~/.kiro/sessions/cli/<id>.jsonl` (v2), `~/.kiro/sessions/<workspace>/sess_<id>/`
    /// (v3, which Kiro IDE 1.0 writes too) and its SQLite `data.sqlite3`; the Kiro IDE's pre-1.0
    /// chats (`globalStorage/kiro.kiroagent`).
    Kiro,
    /// Amazon Q Developer CLI (Kiro CLI's predecessor): its SQLite `amazon-q/data.sqlite3`.
    #[serde(rename = "amazon-q")]
    AmazonQ,
    /// Junie (JetBrains), CLI and IDE: `~/.junie/sessions/<id>/events.jsonl`.
    Junie,
    /// Auggie (Augment Code's CLI): `~/.augment/sessions/<id>.json`.
    Auggie,
    /// Grok Build (xAI's `grok` CLI): `~/.grok/sessions/<cwd>/<id>/updates.jsonl`.
    Grok,
    /// Claude Desktop's Code tab: `claude-code-sessions/**/local_<id>.json` records (a session
    /// whose Claude Code transcript is missing; one with a transcript is `Claude`'s).
    #[serde(rename = "claude-desktop")]
    ClaudeDesktop,
    /// Claude Desktop's Cowork tasks: `local-agent-mode-sessions/**/local_<id>.json` and the
    /// Claude Code transcript in the task's folder.
    Cowork,
    /// Devin CLI (Cognition's `devin`): ATIF trajectories `devin/cli/transcripts/<id>.json`
    /// with the `sessions.db` beside them.
    Devin,
    /// Warp (the terminal's agent conversations): its SQLite `warp.sqlite`.
    Warp,
}

impl Source {
    pub const ALL: [Source; 35] = [
        Source::Codex,
        Source::Claude,
        Source::Gemini,
        Source::Copilot,
        Source::Cursor,
        Source::Qwen,
        Source::Pi,
        Source::Factory,
        Source::Amp,
        Source::Aider,
        Source::Antigravity,
        Source::OpenCode,
        Source::Kimi,
        Source::Goose,
        Source::Crush,
        Source::Cline,
        Source::Roo,
        Source::VscodeCopilot,
        Source::CursorIde,
        Source::Zed,
        Source::OpenClaw,
        Source::Windsurf,
        Source::Hermes,
        Source::TraeCli,
        Source::CodeBuddy,
        Source::WorkBuddy,
        Source::Kiro,
        Source::AmazonQ,
        Source::Junie,
        Source::Auggie,
        Source::Grok,
        Source::ClaudeDesktop,
        Source::Cowork,
        Source::Devin,
        Source::Warp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Codex => "codex",
            Source::Claude => "claude",
            Source::Gemini => "gemini",
            Source::Copilot => "copilot",
            Source::Cursor => "cursor",
            Source::Qwen => "qwen",
            Source::Pi => "pi",
            Source::Factory => "factory",
            Source::Amp => "amp",
            Source::Aider => "aider",
            Source::Antigravity => "antigravity",
            Source::OpenCode => "opencode",
            Source::Kimi => "kimi",
            Source::Goose => "goose",
            Source::Crush => "crush",
            Source::Cline => "cline",
            Source::Roo => "roo",
            Source::VscodeCopilot => "vscode-copilot",
            Source::CursorIde => "cursor-ide",
            Source::Zed => "zed",
            Source::OpenClaw => "openclaw",
            Source::Windsurf => "windsurf",
            Source::Hermes => "hermes",
            Source::TraeCli => "trae-cli",
            Source::CodeBuddy => "codebuddy",
            Source::WorkBuddy => "workbuddy",
            Source::Kiro => "kiro",
            Source::AmazonQ => "amazon-q",
            Source::Junie => "junie",
            Source::Auggie => "auggie",
            Source::Grok => "grok",
            Source::ClaudeDesktop => "claude-desktop",
            Source::Cowork => "cowork",
            Source::Devin => "devin",
            Source::Warp => "warp",
        }
    }

    pub fn parse(text: &str) -> Option<Source> {
        Source::ALL
            .into_iter()
            .find(|source| source.as_str() == text)
    }

    /// The harness name Moraine's clients filter by (`claude-code`, `gemini-cli`, ...).
    pub fn harness(self) -> &'static str {
        match self {
            Source::Codex => "codex",
            Source::Claude => "claude-code",
            Source::Gemini => "gemini-cli",
            Source::Copilot => "copilot-cli",
            Source::Cursor => "cursor",
            Source::Qwen => "qwen-code",
            Source::Pi => "pi-coding-agent",
            Source::Factory => "factory-droid",
            Source::Amp => "amp",
            Source::Aider => "aider",
            Source::Antigravity => "antigravity",
            Source::OpenCode => "opencode",
            Source::Kimi => "kimi-cli",
            Source::Goose => "goose",
            Source::Crush => "crush",
            Source::Cline => "cline",
            Source::Roo => "roo-code",
            Source::VscodeCopilot => "vscode-copilot",
            Source::CursorIde => "cursor-ide",
            Source::Zed => "zed",
            Source::OpenClaw => "openclaw",
            Source::Windsurf => "windsurf",
            Source::Hermes => "hermes-agent",
            Source::TraeCli => "trae-cli",
            Source::CodeBuddy => "codebuddy-code",
            Source::WorkBuddy => "workbuddy",
            Source::Kiro => "kiro-cli",
            Source::AmazonQ => "amazon-q-cli",
            Source::Junie => "junie",
            Source::Auggie => "auggie",
            Source::Grok => "grok-build",
            Source::ClaudeDesktop => "claude-desktop",
            Source::Cowork => "claude-cowork",
            Source::Devin => "devin-cli",
            Source::Warp => "warp",
        }
    }

    /// The source of a Moraine harness name.
    pub fn from_harness(harness: &str) -> Option<Source> {
        Source::ALL
            .into_iter()
            .find(|source| source.harness() == harness)
    }
}

/// The harness name of a `source` column value (the value itself when it names no source).
pub fn harness_of(source: &str) -> &str {
    Source::parse(source).map_or(source, |known| known.harness())
}

/// The normalized event vocabulary of the MCP contract, in its canonical order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    UserInput,
    AssistantResponse,
    Reasoning,
    ToolCall,
    ToolResponse,
    Compaction,
    System,
    Runtime,
    #[default]
    Unknown,
}

impl EventType {
    /// Every type, canonical order.
    pub const ALL: [EventType; 9] = [
        EventType::UserInput,
        EventType::AssistantResponse,
        EventType::Reasoning,
        EventType::ToolCall,
        EventType::ToolResponse,
        EventType::Compaction,
        EventType::System,
        EventType::Runtime,
        EventType::Unknown,
    ];

    /// The types `search_sessions` accepts (everything but `unknown`), canonical order.
    pub const SEARCHABLE: [EventType; 8] = [
        EventType::UserInput,
        EventType::AssistantResponse,
        EventType::Reasoning,
        EventType::ToolCall,
        EventType::ToolResponse,
        EventType::Compaction,
        EventType::System,
        EventType::Runtime,
    ];

    /// The default `search_sessions` filter.
    pub const SEARCH_DEFAULT: [EventType; 3] = [
        EventType::UserInput,
        EventType::AssistantResponse,
        EventType::ToolResponse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::UserInput => "user_input",
            EventType::AssistantResponse => "assistant_response",
            EventType::Reasoning => "reasoning",
            EventType::ToolCall => "tool_call",
            EventType::ToolResponse => "tool_response",
            EventType::Compaction => "compaction",
            EventType::System => "system",
            EventType::Runtime => "runtime",
            EventType::Unknown => "unknown",
        }
    }

    pub fn parse(text: &str) -> Option<EventType> {
        EventType::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    pub fn is_searchable(self) -> bool {
        self != EventType::Unknown
    }
}

/// How an event bears on the completion of the turn it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnEnd {
    /// The log proves the turn ended normally here (Codex `task_complete`, Claude `turn_duration`):
    /// the terminal event is the turn's last `assistant_response` at or before this event, or this
    /// event itself when the turn has no assistant response.
    Normal,
    /// This very event ends the turn and is its terminal event (a final assistant reply with
    /// `stop_reason: end_turn`, or the runtime event of an interrupt, abort or cancellation).
    Terminal,
}

/// One normalized event as a parser emits it, before turns and ids are assigned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawEvent {
    /// Stable key derived from the harness's own identity (record uuid, message id + block
    /// index, or line number in an append-only file), unique within its session. Never run order.
    pub key: String,
    pub kind: EventType,
    /// UTC time the harness recorded, if any.
    pub timestamp: Option<DateTime<Utc>>,
    /// The model that produced this event (assistant responses and reasoning only).
    pub model: Option<String>,
    /// The model in effect for the session when this event happened (any event type).
    pub originating_model: Option<String>,
    /// Tool name for tool calls and tool responses (resolved through the call id for responses;
    /// never the call id itself).
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub exit_code: Option<i64>,
    /// Full human-readable text (for tool calls see [`tool_call_text`]).
    pub text: String,
    /// Structured content as JSON: tool arguments for tool calls, `{output, metadata...}` for
    /// tool responses, the raw record for unknown events, `None` when text says it all.
    pub payload: Option<Value>,
    /// True for a real user input that opens a new turn.
    pub starts_turn: bool,
    /// Set when this event proves the turn ended.
    pub turn_end: Option<TurnEnd>,
    /// Harness-specific subtype worth keeping (`final_answer`, `task_complete`, `compact_boundary`).
    pub subtype: Option<String>,
    /// 1-based line (or message index for whole-file JSON) in the source file, for diagnostics.
    pub line: u64,
    /// Token usage of the model call this event belongs to, set on exactly one event per call.
    pub usage: Option<TokenUsage>,
    /// The working directory recorded with this tool call when the log records one per record
    /// (Claude); `None` means the session's `cwd`. Roots the files the call touched.
    pub cwd: Option<String>,
}

/// Token counts of one model call (or a sum of calls), normalized across harnesses:
/// `input` counts every prompt token (cache reads and writes included), `cached_input` the part
/// read from a cache, `output` every generated token (reasoning included), `reasoning` the part
/// spent reasoning, `total` = input + output unless the harness reports its own total.
/// A field is `None` when the harness does not record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TokenUsage {
    pub input: Option<i64>,
    pub cached_input: Option<i64>,
    pub output: Option<i64>,
    pub reasoning: Option<i64>,
    pub total: Option<i64>,
}

/// Sum of two token counts; `None` only when both are unknown.
pub fn add_counts(left: Option<i64>, right: Option<i64>) -> Option<i64> {
    match (left, right) {
        (None, None) => None,
        (left, right) => Some(left.unwrap_or(0).saturating_add(right.unwrap_or(0))),
    }
}

/// Field-wise sum; a field stays `None` only when it is `None` on both sides.
impl std::ops::Add for TokenUsage {
    type Output = TokenUsage;

    fn add(self, other: TokenUsage) -> TokenUsage {
        let plus = add_counts;
        TokenUsage {
            input: plus(self.input, other.input),
            cached_input: plus(self.cached_input, other.cached_input),
            output: plus(self.output, other.output),
            reasoning: plus(self.reasoning, other.reasoning),
            total: plus(self.total, other.total),
        }
    }
}

impl TokenUsage {
    /// Sums usages; `None` when there is none at all.
    pub fn sum<I: IntoIterator<Item = TokenUsage>>(usages: I) -> Option<TokenUsage> {
        usages.into_iter().reduce(|sum, usage| sum + usage)
    }

    /// Fills `total` as input + output when the harness gave no total.
    pub fn with_derived_total(mut self) -> TokenUsage {
        if self.total.is_none() && (self.input.is_some() || self.output.is_some()) {
            self.total = Some(self.input.unwrap_or(0) + self.output.unwrap_or(0));
        }
        self
    }

    /// Adds `usage` to the event's usage (an event that already carries one keeps both).
    pub fn attach(event: &mut RawEvent, usage: TokenUsage) {
        event.usage = Some(match event.usage {
            Some(existing) => existing + usage,
            None => usage,
        });
    }
}

impl RawEvent {
    pub fn new(key: impl Into<String>, kind: EventType, line: u64) -> RawEvent {
        RawEvent {
            key: key.into(),
            kind,
            line,
            ..RawEvent::default()
        }
    }
}

/// Session-level facts a parser found in the file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionMeta {
    /// Harness title or summary, if the log has one (Claude `summary`/`ai-title`, ...).
    pub title: Option<String>,
    /// Harness-written summary of the session (Claude `summary` records, Gemini summary).
    pub summary: Option<String>,
    /// Claude `slug`.
    pub slug: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    /// The session's main model (first one seen).
    pub model: Option<String>,
    /// Harness version that wrote the file (`cli_version`, `version`).
    pub harness_version: Option<String>,
    /// Native id of the parent session for sub-agents.
    pub parent_native_id: Option<String>,
    /// Native id of the session this one was forked or resumed from.
    pub forked_from_native_id: Option<String>,
    /// True when an MCP client started the session (Codex `source: mcp`).
    pub started_by_mcp: bool,
    /// Sub-agent name or role, when the session is a sub-agent.
    pub agent_name: Option<String>,
    /// Native session start time (falls back to the first event time).
    pub started_at: Option<DateTime<Utc>>,
}

/// One session found in a source file: its native id, metadata and events in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSession {
    pub source: Source,
    /// The harness's own session id (Codex/Claude/Gemini session uuid, or `agent-<id>` for a
    /// Claude sub-agent). Unique within `source`.
    pub native_id: String,
    pub meta: SessionMeta,
    pub events: Vec<RawEvent>,
}

#[cfg(test)]
impl ParsedSession {
    /// The events that carry a model call's usage, with their keys, in order.
    pub fn usage_carriers(&self) -> Vec<(&str, TokenUsage)> {
        self.events
            .iter()
            .filter_map(|event| event.usage.map(|usage| (event.key.as_str(), usage)))
            .collect()
    }
}

/// A problem in a source file that was skipped, not fatal.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseWarning {
    pub line: u64,
    pub message: String,
}

/// What a parser returns for one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParseOutput {
    pub sessions: Vec<ParsedSession>,
    pub warnings: Vec<ParseWarning>,
}

/// Human-readable rendering of a tool call, as in the MCP contract's example:
/// `exec_command(cmd="cargo test", workdir="/src")`. Non-object arguments are rendered as JSON.
pub fn tool_call_text(tool_name: &str, arguments: &Value) -> String {
    let rendered_arguments = match arguments {
        Value::Object(fields) => fields
            .iter()
            .map(|(name, value)| format!("{name}={}", render_argument(value)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => render_argument(other),
    };
    format!("{tool_name}({rendered_arguments})")
}

fn render_argument(value: &Value) -> String {
    match value {
        Value::String(text) => Value::String(text.clone()).to_string(),
        other => other.to_string(),
    }
}

/// Parses an RFC 3339 timestamp (or a bare epoch-millis number) into UTC.
pub fn parse_timestamp(value: &Value) -> Option<DateTime<Utc>> {
    match value {
        Value::String(text) => DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|time| time.with_timezone(&Utc))
            .or_else(|| parse_naive_as_utc(text)),
        Value::Number(number) => number
            .as_i64()
            .and_then(DateTime::<Utc>::from_timestamp_millis),
        _ => None,
    }
}

/// A timestamp written without a timezone ("2026-03-02T09:00:00", "2026-03-02 09:00:00.123"):
/// the harnesses write UTC, so it is read as UTC.
fn parse_naive_as_utc(text: &str) -> Option<DateTime<Utc>> {
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| chrono::NaiveDateTime::parse_from_str(text.trim(), format).ok())
        .map(|naive| naive.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timestamps_without_a_timezone_are_read_as_utc() {
        let expected = DateTime::parse_from_rfc3339("2026-03-02T09:00:00.250Z")
            .map(|time| time.with_timezone(&Utc))
            .ok();
        assert_eq!(parse_timestamp(&json!("2026-03-02T09:00:00.250")), expected);
        assert_eq!(parse_timestamp(&json!("2026-03-02 09:00:00.250")), expected);
        assert_eq!(
            parse_timestamp(&json!("2026-03-02T09:00:00.250Z")),
            expected
        );
        assert_eq!(parse_timestamp(&json!("yesterday")), None);
        assert_eq!(parse_timestamp(&json!(true)), None);
    }

    #[test]
    fn tool_call_text_renders_like_the_contract() {
        let arguments = json!({"cmd": "cargo test --workspace --locked", "workdir": "/src"});
        assert_eq!(
            tool_call_text("exec_command", &arguments),
            r#"exec_command(cmd="cargo test --workspace --locked", workdir="/src")"#
        );
        assert_eq!(tool_call_text("noop", &Value::Null), "noop()");
    }

    #[test]
    fn event_type_names_round_trip() {
        for kind in EventType::ALL {
            assert_eq!(EventType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EventType::parse("debug_trace"), None);
        assert!(!EventType::SEARCHABLE.contains(&EventType::Unknown));
    }

    #[test]
    fn usages_add_field_wise_and_keep_unknowns_unknown() {
        let claude = TokenUsage {
            input: Some(10),
            output: Some(5),
            ..TokenUsage::default()
        };
        let codex = TokenUsage {
            input: Some(1),
            cached_input: Some(1),
            output: Some(2),
            reasoning: Some(1),
            total: Some(3),
        };
        let sum = TokenUsage::sum([claude, codex]).unwrap();
        assert_eq!(sum.input, Some(11));
        assert_eq!(sum.cached_input, Some(1));
        assert_eq!(sum.reasoning, Some(1));
        assert_eq!(sum.total, Some(3));
        assert_eq!(TokenUsage::sum(std::iter::empty()), None);
        assert_eq!(claude.with_derived_total().total, Some(15));
        assert_eq!(TokenUsage::default().with_derived_total().total, None);
    }

    #[test]
    fn timestamps_parse_to_utc() {
        let parsed = parse_timestamp(&json!("2026-04-29T14:42:31.125-04:00")).unwrap();
        assert_eq!(parsed.to_rfc3339(), "2026-04-29T18:42:31.125+00:00");
        assert!(parse_timestamp(&json!("yesterday")).is_none());
    }
}
