//! The response envelopes every tool returns: the success envelope (`moraine.mcp.<tool>.v1`),
//! the error envelope (`moraine.mcp.error.v1`), the typed tool error behind it, and the
//! `performance` block (elapsed time against the spec's SLA target for the request).

use std::fmt;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

/// The schema version of every error envelope.
pub const ERROR_SCHEMA_VERSION: &str = "moraine.mcp.error.v1";

/// The tools of the moraine contract: spec 000's three, then Moraine's later additions
/// (`file_attention`, `get_ingest_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    SearchSessions,
    Open,
    ListSessions,
    FileAttention,
    GetIngestStatus,
}

impl ToolName {
    pub const ALL: [ToolName; 5] = [
        ToolName::SearchSessions,
        ToolName::Open,
        ToolName::ListSessions,
        ToolName::FileAttention,
        ToolName::GetIngestStatus,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::SearchSessions => "search_sessions",
            ToolName::Open => "open",
            ToolName::ListSessions => "list_sessions",
            ToolName::FileAttention => "file_attention",
            ToolName::GetIngestStatus => "get_ingest_status",
        }
    }

    /// `schema_version` of this tool's success envelope, exactly as the spec writes it.
    pub fn schema_version(self) -> &'static str {
        match self {
            ToolName::SearchSessions => "moraine.mcp.search_sessions.v1",
            ToolName::Open => "moraine.mcp.open.v1",
            ToolName::ListSessions => "moraine.mcp.list_sessions.v1",
            ToolName::FileAttention => "moraine.mcp.file_attention.v1",
            ToolName::GetIngestStatus => "moraine.mcp.get_ingest_status.v1",
        }
    }

    pub fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|tool| tool.as_str() == name)
    }
}

/// The spec's required error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidRequest,
    InvalidId,
    NotFound,
    UnsupportedEventType,
    DeadlineExceeded,
    InternalError,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidRequest,
        ErrorCode::InvalidId,
        ErrorCode::NotFound,
        ErrorCode::UnsupportedEventType,
        ErrorCode::DeadlineExceeded,
        ErrorCode::InternalError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidId => "invalid_id",
            ErrorCode::NotFound => "not_found",
            ErrorCode::UnsupportedEventType => "unsupported_event_type",
            ErrorCode::DeadlineExceeded => "deadline_exceeded",
            ErrorCode::InternalError => "internal_error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Longest error message, in characters. Messages quote the offending input (a field name, an
/// event type) and the spec wants them concise; `details` keeps the machine-readable values.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// A rejected request or failed lookup, reported in-band as the error envelope.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    /// Concise, lowercase, no trailing period.
    pub message: String,
    /// Machine-readable context: the offending `field`, the `id` that was not found, ...
    pub details: Map<String, Value>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: concise(message.into()),
            details: Map::new(),
        }
    }

    /// `invalid_request` about one input field.
    pub fn invalid_request(field: &str, message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidRequest, message).with_detail("field", field)
    }

    /// `invalid_id`: the value of `field` is not a well-formed id.
    pub fn invalid_id(field: &str) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidId,
            format!("{field} is not a valid Moraine MCP ID"),
        )
        .with_detail("field", field)
    }

    /// `not_found`: a well-formed id of `kind` (session, turn, event) names nothing.
    pub fn not_found(kind: &str, id: &str) -> ToolError {
        ToolError::new(ErrorCode::NotFound, format!("{kind} not found")).with_detail("id", id)
    }

    pub fn deadline_exceeded(deadline: Duration) -> ToolError {
        ToolError::new(
            ErrorCode::DeadlineExceeded,
            format!("request did not finish within {} ms", deadline.as_millis()),
        )
        .with_detail("deadline_ms", deadline.as_millis() as u64)
    }

    pub fn internal(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InternalError, message)
    }

    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> ToolError {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "code": self.code.as_str(),
            "message": self.message,
            "details": self.details,
        })
    }
}

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters, ending in `…` when cut.
fn concise(message: String) -> String {
    if message.chars().count() <= MAX_MESSAGE_CHARS {
        return message;
    }
    let mut cut: String = message.chars().take(MAX_MESSAGE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// Measures a tool call from receipt to response.
#[derive(Debug, Clone, Copy)]
pub struct Timer {
    started_at: Instant,
}

impl Timer {
    pub fn start() -> Timer {
        Timer {
            started_at: Instant::now(),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started_at.elapsed()
    }
}

/// The SLA target (P95 of the spec's table) that applies to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlaTarget {
    pub target_ms: u64,
}

impl SlaTarget {
    pub const fn ms(target_ms: u64) -> SlaTarget {
        SlaTarget { target_ms }
    }

    fn performance(self, timer: &Timer) -> Value {
        let elapsed_ms = timer.elapsed().as_millis() as u64;
        json!({
            "elapsed_ms": elapsed_ms,
            "sla_target_ms": self.target_ms,
            "met_sla": elapsed_ms <= self.target_ms,
        })
    }
}

/// What one tool call answers: the envelope for `structuredContent`, whether it is an error,
/// and the short human-readable text for `content`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReply {
    pub envelope: Value,
    pub is_error: bool,
    pub text: String,
}

/// The parts of a successful answer that a tool computes; the envelope adds the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSuccess {
    pub data: Value,
    pub warnings: Vec<String>,
    pub text: String,
    /// A target chosen from what execution found (open(session) of more than 100 turns).
    pub sla_override: Option<SlaTarget>,
}

impl ToolSuccess {
    pub fn new(data: Value, text: String) -> ToolSuccess {
        ToolSuccess {
            data,
            warnings: Vec::new(),
            text,
            sla_override: None,
        }
    }
}

impl ToolReply {
    pub fn success(
        tool: ToolName,
        request: Value,
        success: ToolSuccess,
        sla: SlaTarget,
        timer: &Timer,
    ) -> ToolReply {
        let sla = success.sla_override.unwrap_or(sla);
        let envelope = json!({
            "schema_version": tool.schema_version(),
            "tool": tool.as_str(),
            "request": request,
            "data": success.data,
            "warnings": success.warnings,
            "performance": sla.performance(timer),
        });
        ToolReply {
            envelope,
            is_error: false,
            text: success.text,
        }
    }

    pub fn failure(
        tool: ToolName,
        request: Value,
        error: &ToolError,
        sla: SlaTarget,
        timer: &Timer,
    ) -> ToolReply {
        let envelope = json!({
            "schema_version": ERROR_SCHEMA_VERSION,
            "tool": tool.as_str(),
            "request": request,
            "error": error.to_json(),
            "warnings": [],
            "performance": sla.performance(timer),
        });
        ToolReply {
            envelope,
            is_error: true,
            text: format!("{} error: {}: {}", tool.as_str(), error.code, error.message),
        }
    }

    /// The MCP tool result: text summary in `content`, envelope in `structuredContent`.
    pub fn into_call_tool_result(self) -> CallToolResult {
        let mut result = if self.is_error {
            CallToolResult::error(vec![ContentBlock::text(self.text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(self.text)])
        };
        result.structured_content = Some(self.envelope);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_envelope_has_the_spec_shape() {
        let error = ToolError::invalid_request("query", "query must be a non-empty string");
        let reply = ToolReply::failure(
            ToolName::SearchSessions,
            json!({"query": "   "}),
            &error,
            SlaTarget::ms(750),
            &Timer::start(),
        );
        let envelope = &reply.envelope;
        assert!(reply.is_error);
        assert_eq!(envelope["schema_version"], "moraine.mcp.error.v1");
        assert_eq!(envelope["tool"], "search_sessions");
        assert_eq!(envelope["error"]["code"], "invalid_request");
        assert_eq!(envelope["error"]["details"]["field"], "query");
        assert_eq!(envelope["warnings"], json!([]));
        assert_eq!(envelope["performance"]["sla_target_ms"], 750);
        assert_eq!(envelope["performance"]["met_sla"], true);
    }

    #[test]
    fn success_becomes_structured_content_and_text() {
        let success = ToolSuccess::new(json!({"kind": "session"}), "opened".into());
        let reply = ToolReply::success(
            ToolName::Open,
            json!({"id": "session:x"}),
            success,
            SlaTarget::ms(500),
            &Timer::start(),
        );
        let result = reply.into_call_tool_result();
        assert_eq!(result.is_error, Some(false));
        let structured = result.structured_content.unwrap();
        assert_eq!(structured["schema_version"], "moraine.mcp.open.v1");
        assert_eq!(structured["data"]["kind"], "session");
    }

    #[test]
    fn messages_quoting_huge_input_stay_concise() {
        let huge = "x".repeat(1 << 20);
        let error = ToolError::invalid_request(&huge, format!("unknown field: {huge}"));
        assert_eq!(error.message.chars().count(), MAX_MESSAGE_CHARS);
        assert!(error.message.starts_with("unknown field: xxx"));
        assert!(error.message.ends_with('…'));
        assert_eq!(
            error.details["field"],
            huge.as_str(),
            "details keep the full value"
        );
        let short = ToolError::invalid_request("query", "query is required");
        assert_eq!(short.message, "query is required");
    }

    #[test]
    fn tool_names_round_trip() {
        for tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
        }
        assert_eq!(ToolName::parse("search"), None);
    }
}
