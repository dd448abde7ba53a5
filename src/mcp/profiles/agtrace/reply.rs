//! The agtrace profile's responses: the seed's structured error `{error:{code, message,
//! details, retryable}}` with its codes, and the reply of a call (the response object as
//! `structuredContent` and as JSON text, the way AgTrace clients read it).

use serde_json::{Map, Value, json};

use crate::service::catalog::CatalogError;
use crate::service::envelope::ToolReply;

/// The seed's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgErrorCode {
    SessionNotFound,
    AmbiguousSessionPrefix,
    InvalidEventIndex,
    InvalidCursor,
    InvalidParameter,
    SearchTimeout,
    InternalError,
}

impl AgErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            AgErrorCode::SessionNotFound => "session_not_found",
            AgErrorCode::AmbiguousSessionPrefix => "ambiguous_session_prefix",
            AgErrorCode::InvalidEventIndex => "invalid_event_index",
            AgErrorCode::InvalidCursor => "invalid_cursor",
            AgErrorCode::InvalidParameter => "invalid_parameter",
            AgErrorCode::SearchTimeout => "search_timeout",
            AgErrorCode::InternalError => "internal_error",
        }
    }

    /// Whether the same request may succeed later (timeouts and internal failures).
    fn retryable(self) -> bool {
        matches!(
            self,
            AgErrorCode::SearchTimeout | AgErrorCode::InternalError
        )
    }
}

/// A failed agtrace call, reported in-band.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct AgError {
    pub code: AgErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
}

impl AgError {
    pub fn new(code: AgErrorCode, message: impl Into<String>) -> AgError {
        AgError {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// `invalid_parameter` about one argument.
    pub fn invalid_parameter(parameter: &str, message: impl Into<String>) -> AgError {
        AgError::new(AgErrorCode::InvalidParameter, message).with_detail("parameter", parameter)
    }

    pub fn internal(message: impl Into<String>) -> AgError {
        AgError::new(AgErrorCode::InternalError, message)
    }

    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> AgError {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "error": {
                "code": self.code.as_str(),
                "message": self.message,
                "details": self.details,
                "retryable": self.code.retryable(),
            }
        })
    }
}

impl From<CatalogError> for AgError {
    fn from(error: CatalogError) -> AgError {
        tracing::error!(%error, "agtrace tool failed");
        AgError::internal(error.to_string())
    }
}

impl From<crate::service::envelope::ToolError> for AgError {
    fn from(error: crate::service::envelope::ToolError) -> AgError {
        AgError::internal(error.message)
    }
}

impl From<crate::service::rows::RowError> for AgError {
    fn from(error: crate::service::rows::RowError) -> AgError {
        AgError::internal(format!("unexpected query result: {error}"))
    }
}

/// The reply of a successful call: the response as structured content and as its JSON text.
pub fn success(response: Value) -> ToolReply {
    ToolReply {
        text: response.to_string(),
        envelope: response,
        is_error: false,
    }
}

/// The reply of a failed call: the structured error, `isError: true`.
pub fn failure(error: &AgError) -> ToolReply {
    let envelope = error.to_json();
    ToolReply {
        text: envelope.to_string(),
        envelope,
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_have_the_seed_shape() {
        let error = AgError::new(AgErrorCode::SessionNotFound, "Session not found: fb3c")
            .with_detail("session_id", "fb3c");
        let reply = failure(&error);
        assert!(reply.is_error);
        assert_eq!(
            reply.envelope,
            json!({"error": {
                "code": "session_not_found",
                "message": "Session not found: fb3c",
                "details": {"session_id": "fb3c"},
                "retryable": false,
            }})
        );
        let text: Value = serde_json::from_str(&reply.text).unwrap();
        assert_eq!(text, reply.envelope);
        assert_eq!(
            failure(&AgError::internal("x")).envelope["error"]["retryable"],
            true
        );
    }
}
