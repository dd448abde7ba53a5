//! The stdio transport with a guard in front of rmcp: a line rmcp cannot parse (not JSON,
//! nested past serde_json's limit) is answered with a JSON-RPC parse error, carrying the
//! request's id when it can be recovered, instead of being dropped so the client waits forever;
//! lone UTF-16 surrogate escapes (valid JSON that serde_json refuses) become U+FFFD.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Buffer between the guard and rmcp, each way.
const PIPE_BYTES: usize = 1 << 20;
/// rmcp drops longer lines unanswered (16 MiB); the guard answers them itself.
const MAX_REQUEST_BYTES: usize = 15 << 20;
/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// The transport to hand rmcp, and the task that owns stdout (await it after the service
/// ends so every reply is flushed).
pub struct GuardedStdio {
    pub transport: (DuplexStream, DuplexStream),
    pub writer: JoinHandle<()>,
}

/// Guards the process's stdin and stdout.
pub fn guarded_stdio() -> GuardedStdio {
    guard(tokio::io::stdin(), tokio::io::stdout())
}

/// Guards any line-delimited JSON-RPC stream (stdin/stdout in production).
pub fn guard(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> GuardedStdio {
    let (rmcp_input, guard_feed) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_output, guard_drain) = tokio::io::duplex(PIPE_BYTES);
    let (errors, error_lines) = mpsc::unbounded_channel::<String>();
    tokio::spawn(feed_rmcp(input, guard_feed, errors));
    let writer = tokio::spawn(write_lines(guard_drain, error_lines, output));
    GuardedStdio {
        transport: (rmcp_input, rmcp_output),
        writer,
    }
}

/// Forwards parseable lines to rmcp; answers the others on the `errors` channel.
async fn feed_rmcp(
    input: impl AsyncRead + Unpin,
    mut rmcp: DuplexStream,
    errors: mpsc::UnboundedSender<String>,
) {
    let mut lines = BufReader::new(input).split(b'\n');
    while let Ok(Some(line)) = lines.next_segment().await {
        let forwarded = match vet_line(&line) {
            Vetted::Forward(line) => line,
            Vetted::Answer(error) => {
                let _ = errors.send(error);
                continue;
            }
        };
        if rmcp.write_all(&forwarded).await.is_err() || rmcp.write_all(b"\n").await.is_err() {
            break;
        }
    }
    let _ = rmcp.shutdown().await;
}

/// Copies rmcp's output lines and the guard's error lines to `output`, one whole line at a
/// time, until rmcp closes its side.
async fn write_lines(
    rmcp: DuplexStream,
    mut error_lines: mpsc::UnboundedReceiver<String>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut replies = BufReader::new(rmcp).split(b'\n');
    let mut errors_open = true;
    loop {
        // Errors first: an error line answers an input line read before any line rmcp has
        // yet to answer, so this keeps replies in input order when both are ready.
        let line = tokio::select! {
            biased;
            error = error_lines.recv(), if errors_open => match error {
                Some(line) => line.into_bytes(),
                None => {
                    errors_open = false;
                    continue;
                }
            },
            reply = replies.next_segment() => match reply {
                Ok(Some(line)) => line,
                _ => break,
            },
        };
        if output.write_all(&line).await.is_err()
            || output.write_all(b"\n").await.is_err()
            || output.flush().await.is_err()
        {
            break;
        }
    }
    while let Ok(line) = error_lines.try_recv() {
        let _ = output.write_all(format!("{line}\n").as_bytes()).await;
    }
    let _ = output.flush().await;
}

/// What to do with one input line.
#[derive(Debug, PartialEq)]
enum Vetted {
    /// Hand it (possibly repaired) to rmcp.
    Forward(Vec<u8>),
    /// Reply with this JSON-RPC error line instead.
    Answer(String),
}

fn vet_line(line: &[u8]) -> Vetted {
    if line.len() > MAX_REQUEST_BYTES {
        let head = String::from_utf8_lossy(&line[..4096]);
        tracing::warn!(
            bytes = line.len(),
            "oversized JSON-RPC line answered with -32600"
        );
        return Vetted::Answer(error_line(
            recover_id(&head),
            INVALID_REQUEST,
            format!(
                "Invalid request: {} bytes exceeds the {MAX_REQUEST_BYTES}-byte limit",
                line.len()
            ),
        ));
    }
    let text = String::from_utf8_lossy(line);
    if text.trim().is_empty() {
        return Vetted::Forward(line.to_vec());
    }
    if let Ok(message) = serde_json::from_str::<Value>(&text) {
        return Vetted::Forward(with_initialize_defaults(message).unwrap_or_else(|| line.to_vec()));
    }
    let repaired = replace_lone_surrogates(&text);
    if repaired != text && serde_json::from_str::<Value>(&repaired).is_ok() {
        return Vetted::Forward(repaired.into_bytes());
    }
    let reason = match serde_json::from_str::<Value>(&text) {
        Err(error) => error.to_string(),
        Ok(_) => "unreadable request".to_string(),
    };
    tracing::warn!(%reason, bytes = line.len(), "unparseable JSON-RPC line answered with -32700");
    Vetted::Answer(error_line(
        recover_id(&text),
        PARSE_ERROR,
        format!("Parse error: {reason}"),
    ))
}

/// The protocol version assumed for an `initialize` that names none.
const DEFAULT_PROTOCOL_VERSION: &str = "2025-06-18";

/// An `initialize` request whose params lack `protocolVersion`, `capabilities` or `clientInfo`
/// (Moraine's own test client sends `{}`), completed with defaults so rmcp answers it instead
/// of closing the connection; `None` for every other message (forwarded untouched).
fn with_initialize_defaults(mut message: Value) -> Option<Vec<u8>> {
    if message.get("method").and_then(Value::as_str) != Some("initialize") {
        return None;
    }
    let object = message.as_object_mut()?;
    let params = object.entry("params").or_insert_with(|| json!({}));
    if params.is_null() {
        *params = json!({});
    }
    let params = params.as_object_mut()?;
    let defaults = [
        ("protocolVersion", json!(DEFAULT_PROTOCOL_VERSION)),
        ("capabilities", json!({})),
        (
            "clientInfo",
            json!({"name": "unknown-client", "version": "0"}),
        ),
    ];
    let mut changed = false;
    for (key, default) in defaults {
        if !params.contains_key(key) {
            params.insert(key.to_string(), default);
            changed = true;
        }
    }
    changed.then(|| message.to_string().into_bytes())
}

fn error_line(id: Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

static SURROGATE_ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\\+)u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|(\\+)u([dD][c-fC-F][0-9a-fA-F]{2})")
        .expect("constant regex")
});

/// Replaces `\uD800`-style escapes that are not half of a valid pair by `\uFFFD`.
fn replace_lone_surrogates(text: &str) -> String {
    SURROGATE_ESCAPE
        .replace_all(text, |captures: &regex::Captures<'_>| {
            let whole = &captures[0];
            let backslashes = captures
                .get(1)
                .or_else(|| captures.get(4))
                .map_or(0, |run| run.as_str().len());
            let escaped = backslashes % 2 == 1;
            let paired = captures.get(3).is_some();
            if !escaped || paired {
                return whole.to_string();
            }
            format!("{}ufffd", "\\".repeat(backslashes))
        })
        .into_owned()
}

static TOP_LEVEL_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*\{(?:[^{}\[\]]*?,)?\s*"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,19})"#)
        .expect("constant regex")
});

/// The request id, when it appears among the leading top-level members; else `null`.
fn recover_id(text: &str) -> Value {
    TOP_LEVEL_ID
        .captures(text)
        .and_then(|captures| serde_json::from_str(&captures[1]).ok())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_initialize_gets_the_default_params_and_a_full_one_passes_untouched() {
        let bare = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let Vetted::Forward(forwarded) = vet_line(bare) else {
            panic!("forwarded");
        };
        let repaired: Value = serde_json::from_slice(&forwarded).unwrap();
        assert_eq!(repaired["params"]["capabilities"], json!({}));
        assert_eq!(repaired["params"]["clientInfo"]["name"], "unknown-client");
        assert_eq!(
            repaired["params"]["protocolVersion"],
            DEFAULT_PROTOCOL_VERSION
        );
        let no_params = br#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#;
        let Vetted::Forward(forwarded) = vet_line(no_params) else {
            panic!("forwarded");
        };
        assert!(String::from_utf8(forwarded).unwrap().contains("clientInfo"));
        let full = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(vet_line(full), Vetted::Forward(full.to_vec()));
    }

    #[test]
    fn valid_lines_pass_untouched() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(vet_line(line), Vetted::Forward(line.to_vec()));
    }

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        let lone = r#"{"id":2,"params":{"q":"a\ud800b"}}"#;
        assert_eq!(
            vet_line(lone.as_bytes()),
            Vetted::Forward(br#"{"id":2,"params":{"q":"a\ufffdb"}}"#.to_vec())
        );
        let trailing = r#"{"id":2,"params":{"q":"\udc00"}}"#;
        assert!(matches!(vet_line(trailing.as_bytes()), Vetted::Forward(_)));
        let pair = r#"{"q":"\ud83d\ude00"}"#;
        assert_eq!(replace_lone_surrogates(pair), pair);
        let escaped_backslash = r#"{"q":"\\ud800"}"#;
        assert_eq!(
            replace_lone_surrogates(escaped_backslash),
            escaped_backslash
        );
    }

    #[test]
    fn unparseable_lines_get_a_parse_error_with_the_id_when_recoverable() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let Vetted::Answer(answer) = vet_line(deep.as_bytes()) else {
            panic!("too deep to parse");
        };
        let answer: Value = serde_json::from_str(&answer).expect("answer is JSON");
        assert_eq!(answer["id"], "req-7");
        assert_eq!(answer["error"]["code"], -32700);

        let Vetted::Answer(garbage) = vet_line(b"not json {") else {
            panic!("garbage");
        };
        let garbage: Value = serde_json::from_str(&garbage).expect("answer is JSON");
        assert_eq!(garbage["id"], Value::Null);
    }

    #[test]
    fn a_nested_id_is_not_taken_for_the_request_id() {
        assert_eq!(recover_id(r#"{"params":{"id":5},"id":6 ["#), Value::Null);
        assert_eq!(recover_id(r#"{"jsonrpc":"2.0","id":42,"x":["#), json!(42));
    }
}
