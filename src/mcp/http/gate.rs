//! The `/mcp` endpoint of `esker serve --http` (issue #54): who a request is (its bearer
//! token, or the one local client of a loopback server without tokens), whether its limits
//! admit it, the MCP service of its scope that answers it, and one log line per request
//! (target `esker::mcp::http`: token name, HTTP and JSON-RPC method, tool name, status,
//! latency; never arguments or results).

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, RETRY_AFTER, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde::Deserialize;

use crate::mcp::http::limits::{Limiter, Refusal};
use crate::mcp::http::tokens::{bearer_token, find};
use crate::mcp::server::EskerServer;

/// The request log's target (`ESKER_LOG=esker::mcp::http=info` shows it; `serve --http` does
/// by default).
pub const LOG_TARGET: &str = "esker::mcp::http";

/// The largest request body read (rmcp's own limit).
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// The rmcp service answering one scope's requests.
pub type McpService = StreamableHttpService<EskerServer, NeverSessionManager>;

/// One client of the server: a token, or the local client of an unauthenticated loopback
/// server.
pub struct Client {
    /// Its name in the request log.
    pub name: String,
    /// The service of its scope (shared by the clients of one scope).
    pub service: McpService,
    pub limiter: Limiter,
}

/// Who may call the server.
pub enum Access {
    /// A loopback server without `--tokens`: every request is this client.
    Local(Box<Client>),
    /// Bearer tokens: `digests[i]` is the SHA-256 of `clients[i]`'s token.
    Tokens {
        digests: Vec<[u8; 32]>,
        clients: Vec<Client>,
    },
}

/// Why a request was not identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unauthorized {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token no entry has.
    Invalid,
}

impl Access {
    fn identify(&self, headers: &HeaderMap) -> Result<&Client, Unauthorized> {
        let (digests, clients) = match self {
            Access::Local(client) => return Ok(client.as_ref()),
            Access::Tokens { digests, clients } => (digests, clients),
        };
        let token = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(bearer_token)
            .ok_or(Unauthorized::Missing)?;
        find(digests, token)
            .map(|index| &clients[index])
            .ok_or(Unauthorized::Invalid)
    }
}

/// What the request log says of a request, read from its headers and body.
struct Logged {
    started: Instant,
    http_method: Method,
    rpc_method: String,
    tool: String,
}

impl Logged {
    fn write(&self, client: &str, status: StatusCode, refused: Option<&str>) {
        let present = |text: &str| (!text.is_empty()).then(|| text.to_owned());
        let latency_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        tracing::info!(
            target: LOG_TARGET,
            token = client,
            http_method = %self.http_method,
            rpc_method = present(&self.rpc_method),
            tool = present(&self.tool),
            status = status.as_u16(),
            latency_ms = %format_args!("{latency_ms:.2}"),
            refused,
            "request"
        );
    }
}

/// The `/mcp` handler: identify, admit, answer, log. A request's body is read only once
/// its token is known and its limits admit it.
pub async fn endpoint(State(access): State<Arc<Access>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let mut logged = Logged {
        started: Instant::now(),
        http_method: parts.method.clone(),
        rpc_method: String::new(),
        tool: String::new(),
    };
    let client = match access.identify(&parts.headers) {
        Ok(client) => client,
        Err(unauthorized) => {
            let response = unauthorized_response(unauthorized);
            logged.write("-", response.status(), Some("unauthorized"));
            return response;
        }
    };
    let permit = match client.limiter.admit() {
        Ok(permit) => permit,
        Err(refusal) => {
            let response = too_many_requests(refusal);
            logged.write(&client.name, response.status(), Some(refusal.limit()));
            return response;
        }
    };
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        let response = (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response();
        logged.write(&client.name, response.status(), Some("body_size"));
        return response;
    };
    (logged.rpc_method, logged.tool) = rpc_summary(&body);
    let request = Request::from_parts(parts, Body::from(body));
    let response = client.service.handle(request).await.map(Body::new);
    drop(permit);
    logged.write(&client.name, response.status(), None);
    response
}

/// 401 with the challenge RFC 6750 asks for.
fn unauthorized_response(unauthorized: Unauthorized) -> Response {
    let (challenge, message) = match unauthorized {
        Unauthorized::Missing => (
            r#"Bearer realm="esker""#,
            "an Authorization: Bearer token is required",
        ),
        Unauthorized::Invalid => (
            r#"Bearer realm="esker", error="invalid_token""#,
            "the bearer token is not valid",
        ),
    };
    let mut response = (StatusCode::UNAUTHORIZED, message).into_response();
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

/// 429 with `Retry-After`.
fn too_many_requests(refusal: Refusal) -> Response {
    let message = match refusal {
        Refusal::Busy => "too many requests in flight for this token",
        Refusal::TooFast(_) => "request rate exceeded for this token",
    };
    let mut response = (StatusCode::TOO_MANY_REQUESTS, message).into_response();
    response.headers_mut().insert(
        RETRY_AFTER,
        HeaderValue::from(refusal.retry_after_seconds()),
    );
    response
}

/// The JSON-RPC method and, for `tools/call`, the tool name of a request body; empty when
/// the body is not one JSON-RPC message (`batch` for an array). Nothing else is read.
fn rpc_summary(body: &Bytes) -> (String, String) {
    #[derive(Deserialize)]
    struct Message {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(Deserialize)]
    struct Params {
        name: Option<serde_json::Value>,
    }
    if body.first() == Some(&b'[') {
        return ("batch".to_owned(), String::new());
    }
    let Ok(message) = serde_json::from_slice::<Message>(body) else {
        return (String::new(), String::new());
    };
    let method = message.method.unwrap_or_default();
    let tool = match (&method[..], message.params.and_then(|params| params.name)) {
        ("tools/call", Some(serde_json::Value::String(name))) => name,
        _ => String::new(),
    };
    (method, tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_the_method_and_tool_only() {
        let call = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open","arguments":{"id":"secret words"}}}"#,
        );
        assert_eq!(rpc_summary(&call), ("tools/call".into(), "open".into()));
        let list = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        assert_eq!(rpc_summary(&list), ("tools/list".into(), String::new()));
        assert_eq!(rpc_summary(&Bytes::from_static(b"[{}]")).0, "batch");
        assert_eq!(rpc_summary(&Bytes::from_static(b"not json")).0, "");
    }

    #[test]
    fn a_missing_token_and_a_wrong_one_are_told_apart_in_the_challenge() {
        let missing = unauthorized_response(Unauthorized::Missing);
        assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            missing.headers()[WWW_AUTHENTICATE],
            r#"Bearer realm="esker""#
        );
        let invalid = unauthorized_response(Unauthorized::Invalid);
        assert!(
            invalid.headers()[WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .contains("invalid_token")
        );
    }
}
