//! What the relay profile answers, in relay-search's shapes: a failure is `{"error": "..."}`
//! (`[{"error": "..."}]` from the tools that answer lists), never an MCP `isError`. A reply's
//! text is the markdown itself or the response's JSON; its structured content is the object,
//! or `{"result": ...}` around a list or markdown (FastMCP's wrapping of non-object results).

use serde_json::{Value, json};

use crate::service::catalog::CatalogError;
use crate::service::envelope::ToolReply;
use crate::service::rows::RowError;

/// A failed relay call: the message relay-search would put under `error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RelayError {
    pub message: String,
}

impl RelayError {
    pub fn new(message: impl Into<String>) -> RelayError {
        RelayError {
            message: message.into(),
        }
    }
}

impl From<CatalogError> for RelayError {
    fn from(error: CatalogError) -> RelayError {
        tracing::error!(%error, "relay tool failed");
        RelayError::new(format!("internal error: {error}"))
    }
}

impl From<RowError> for RelayError {
    fn from(error: RowError) -> RelayError {
        tracing::error!(%error, "relay query returned unexpected rows");
        RelayError::new(format!("internal error: unexpected query result: {error}"))
    }
}

/// A successful answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    Object(Value),
    List(Vec<Value>),
    Markdown(String),
}

/// How a tool answers, and so how its failures look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A dict (or markdown): a failure is `{"error": ...}`.
    Object,
    /// A list: a failure is `[{"error": ...}]`.
    List,
}

pub fn success(response: Response) -> ToolReply {
    match response {
        Response::Object(object) => ToolReply {
            text: object.to_string(),
            envelope: object,
            is_error: false,
        },
        Response::List(items) => {
            let list = Value::Array(items);
            ToolReply {
                text: list.to_string(),
                envelope: json!({ "result": list }),
                is_error: false,
            }
        }
        Response::Markdown(markdown) => ToolReply {
            envelope: json!({ "result": markdown }),
            text: markdown,
            is_error: false,
        },
    }
}

pub fn failure(error: &RelayError, shape: Shape) -> ToolReply {
    let object = json!({ "error": error.message });
    match shape {
        Shape::Object => success(Response::Object(object)),
        Shape::List => success(Response::List(vec![object])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_relays_error_objects_never_is_error() {
        let error = RelayError::new("Session not found: x");
        let object = failure(&error, Shape::Object);
        assert!(!object.is_error);
        assert_eq!(object.envelope, json!({"error": "Session not found: x"}));
        assert_eq!(object.text, r#"{"error":"Session not found: x"}"#);
        let list = failure(&error, Shape::List);
        assert_eq!(
            list.envelope,
            json!({"result": [{"error": "Session not found: x"}]})
        );
        assert_eq!(list.text, r#"[{"error":"Session not found: x"}]"#);
    }

    #[test]
    fn markdown_travels_as_text() {
        let reply = success(Response::Markdown("## quiet-amber-fox".into()));
        assert_eq!(reply.text, "## quiet-amber-fox");
        assert_eq!(reply.envelope, json!({"result": "## quiet-amber-fox"}));
    }
}
