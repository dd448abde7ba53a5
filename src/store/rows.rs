//! Row types of the `events`, `turns`, `sessions` and `file_touches` tables, as the assembler
//! produces them.

use chrono::{DateTime, Utc};

use crate::model::{EventType, Source, TokenUsage};

/// One row of `events`.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct EventRow {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub turn_ordinal: i32,
    pub ordinal: i32,
    pub seq: i64,
    pub event_type: EventType,
    /// The harness's time, or an inferred one (`timestamp_inferred`): never missing.
    pub timestamp: DateTime<Utc>,
    /// True when the log had no time for the record and `timestamp` was inferred.
    pub timestamp_inferred: bool,
    pub terminal: bool,
    pub model: Option<String>,
    pub originating_model: Option<String>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub exit_code: Option<i64>,
    pub subtype: Option<String>,
    pub text: String,
    /// JSON text.
    pub payload: Option<String>,
    pub source_path: String,
    pub source_line: i64,
    /// Usage of the model call this event carries (one event per call).
    pub usage: Option<TokenUsage>,
    pub source: Source,
    /// `YYYY-MM` of the session start: the partition.
    pub month: String,
}

/// A one-turn assistant event of `session` with `text` (seq, ordinal and source line 1): the
/// event the unit tests of the index and the store start from.
#[cfg(test)]
pub(crate) fn sample_event(id: &str, session: &str, text: &str) -> EventRow {
    EventRow {
        event_id: id.into(),
        session_id: session.into(),
        turn_id: format!("turn:{session}"),
        turn_ordinal: 1,
        ordinal: 1,
        seq: 1,
        event_type: EventType::AssistantResponse,
        timestamp: DateTime::UNIX_EPOCH,
        timestamp_inferred: false,
        terminal: false,
        model: None,
        originating_model: None,
        tool_name: None,
        tool_call_id: None,
        exit_code: None,
        subtype: None,
        text: text.into(),
        payload: None,
        source_path: "/x".into(),
        source_line: 1,
        usage: None,
        source: Source::Codex,
        month: "2026-03".into(),
    }
}

/// A short text excerpt pointing at an event.
#[derive(Debug, Clone, PartialEq)]
pub struct EventExcerpt {
    pub event_id: String,
    pub text: String,
    pub truncated: bool,
}

/// One row of `turns`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRow {
    pub turn_id: String,
    pub session_id: String,
    pub source: Source,
    pub ordinal: i32,
    pub completed: bool,
    pub terminal_event_id: Option<String>,
    pub event_count: i32,
    pub started_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Sum of the turn's events' usage; `None` when none of them records any.
    pub usage: Option<TokenUsage>,
    pub first_event_id: String,
    pub last_event_id: String,
    pub user_input: Option<EventExcerpt>,
    pub final_response: Option<EventExcerpt>,
    pub tools_called: Vec<String>,
    pub event_types: Vec<String>,
}

/// One row of `sessions`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub session_id: String,
    pub source: Source,
    pub native_id: String,
    pub title: String,
    pub session_summary: Option<String>,
    pub session_slug: Option<String>,
    pub mode: String,
    pub cwd: Option<String>,
    pub project: Option<String>,
    pub git_branch: Option<String>,
    pub model: Option<String>,
    pub harness_version: Option<String>,
    pub agent_name: Option<String>,
    pub started_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub completed: bool,
    pub turn_count: i32,
    pub event_count: i32,
    /// Sum of the session's events' usage; `None` when none of them records any.
    pub usage: Option<TokenUsage>,
    /// Distinct models that produced events, in first-use order.
    pub models: Vec<String>,
    pub first_turn_id: Option<String>,
    pub last_turn_id: Option<String>,
    pub parent_session_id: Option<String>,
    pub forked_from_session_id: Option<String>,
    /// Filled at commit time over all sessions (continuation chains).
    pub previous_session_id: Option<String>,
    pub next_session_id: Option<String>,
    /// Filled at commit time (see `store::chains`): the chain's slug, the session's 1-based
    /// position in it and its length; `None` for a session alone.
    pub chain: Option<ChainPosition>,
    pub source_path: String,
}

/// Where a session sits in its continuation chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainPosition {
    /// The session id of the chain's first session.
    pub id: String,
    pub slug: Option<String>,
    pub number: i32,
    pub length: i32,
}

/// One row of `file_touches`: a file one tool call touched (see `indexer::touches`).
#[derive(Debug, Clone, PartialEq)]
pub struct TouchRow {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub timestamp: DateTime<Utc>,
    pub source: Source,
    /// The working directory of the call (or its session), when the log records one.
    pub cwd: Option<String>,
    /// The worktree root `tail` is relative to; `None` when the path is under no known root.
    pub root: Option<String>,
    /// The path as the call wrote it.
    pub path: String,
    /// The path resolved against the call's directory and normalized.
    pub resolved_path: String,
    /// `resolved_path` relative to `root`, or `resolved_path` when there is no root.
    pub tail: String,
    /// The last segment of `tail`.
    pub file_name: String,
    pub tool: String,
    /// The call changed the file.
    pub mutation: bool,
    /// `argument`, `patch` or `shell`.
    pub match_kind: &'static str,
}

/// Everything one parsed session becomes.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembledSession {
    pub session: SessionRow,
    pub turns: Vec<TurnRow>,
    pub events: Vec<EventRow>,
    /// The files its tool calls touched, in event order.
    pub touches: Vec<TouchRow>,
}

impl AssembledSession {
    pub fn month(&self) -> String {
        month_of(self.session.started_at)
    }
}

/// The partition month of a session start.
pub fn month_of(started_at: DateTime<Utc>) -> String {
    started_at.format("%Y-%m").to_string()
}
