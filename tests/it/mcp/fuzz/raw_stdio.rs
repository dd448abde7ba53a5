//! Below any client library: `esker serve` driven by hand-written JSON-RPC lines after a
//! proper initialize handshake. Lines that are not JSON, requests whose `arguments` is not an
//! object, unknown tools, multi-megabyte and oversized lines, nesting past the parser's limit
//! and lone surrogates; after each, a valid `tools/call` must still be answered. The stdio
//! guard (`src/mcp/stdio.rs`) answers what rmcp would drop, with the request's id.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::support::{esker_bin, fixture_store};

const REPLY_TIMEOUT: Duration = Duration::from_secs(30);
/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawServer {
    async fn start() -> RawServer {
        let mut child = Command::new(esker_bin())
            .args(["serve", "--no-index", "--data-dir"])
            .arg(fixture_store())
            .env("HOME", "/nonexistent-esker-test-home")
            .env_remove("ESKER_DATA_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("esker serve starts");
        let mut server = RawServer {
            stdin: child.stdin.take().expect("stdin"),
            stdout: BufReader::new(child.stdout.take().expect("stdout")),
            child,
            next_id: 1,
        };
        server.initialize().await;
        server
    }

    async fn initialize(&mut self) {
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "esker-raw-stdio-test", "version": "0"},
        });
        let (reply, _) = self.request("initialize", params).await;
        assert_eq!(reply["result"]["serverInfo"]["name"], "esker", "{reply}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
            .await;
    }

    async fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes()).await;
    }

    async fn send_bytes(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.expect("write a line");
        self.stdin.write_all(b"\n").await.expect("write a newline");
        self.stdin.flush().await.expect("flush");
    }

    async fn read_message(&mut self) -> Value {
        let mut line = String::new();
        let read = tokio::time::timeout(REPLY_TIMEOUT, self.stdout.read_line(&mut line))
            .await
            .expect("the server answers in time")
            .expect("stdout is readable");
        assert!(read > 0, "the server closed stdout");
        serde_json::from_str(&line).expect("every line the server writes is JSON")
    }

    /// Sends a request with a fresh id; returns its response and anything read before it.
    async fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string()).await;
        self.response_to(&json!(id)).await
    }

    /// Reads until the response with `id`; returns it and the messages read before it.
    async fn response_to(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut earlier = Vec::new();
        loop {
            let message = self.read_message().await;
            if &message["id"] == id {
                return (message, earlier);
            }
            earlier.push(message);
        }
    }

    /// A valid search still succeeds; returns whatever the server wrote before its answer.
    async fn still_serves(&mut self) -> Vec<Value> {
        let params =
            json!({"name": "search_sessions", "arguments": {"query": "parquet", "n_hits": 1}});
        let (reply, earlier) = self.request("tools/call", params).await;
        let result = &reply["result"];
        assert_eq!(result["isError"], false, "{reply}");
        assert_eq!(
            result["structuredContent"]["schema_version"],
            "moraine.mcp.search_sessions.v1"
        );
        earlier
    }

    /// The in-band error envelope answering request `id`.
    async fn in_band_error(&mut self, id: &Value) -> Value {
        let (reply, _) = self.response_to(id).await;
        assert_eq!(reply["result"]["isError"], true, "{}", abbreviated(&reply));
        let envelope = reply["result"]["structuredContent"].clone();
        assert_eq!(envelope["schema_version"], "moraine.mcp.error.v1");
        envelope
    }
}

fn abbreviated(value: &Value) -> String {
    value.to_string().chars().take(500).collect()
}

/// A `tools/call` line with a string id and raw `arguments` JSON text.
fn call_line(id: &str, tool: &str, raw_arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{tool}","arguments":{raw_arguments}}}}}"#
    )
}

/// An error reply no request id can be attached to: JSON-RPC's `id: null` (rmcp omits it).
fn is_unattributed_error(message: &Value, code: i64) -> bool {
    message["id"].is_null() && message["error"]["code"] == code
}

#[tokio::test]
async fn the_raw_transport_survives_hostile_lines_and_keeps_answering() {
    let mut server = RawServer::start().await;
    server.still_serves().await;
    not_json(&mut server).await;
    arguments_not_an_object(&mut server).await;
    null_arguments_are_no_arguments(&mut server).await;
    unknown_tools(&mut server).await;
    a_multi_megabyte_line(&mut server).await;
    an_oversized_line(&mut server).await;
    nesting_past_the_parser_limit(&mut server).await;
    a_lone_surrogate(&mut server).await;
    assert!(
        server.child.try_wait().expect("status").is_none(),
        "the server is still running"
    );
}

async fn not_json(server: &mut RawServer) {
    let lines: [&[u8]; 4] = [
        b"this is not json {",
        b"{\"jsonrpc\":\"2.0\",",
        b"\xff\xfe\x00garbage",
        b"]",
    ];
    for line in lines {
        server.send_bytes(line).await;
        let earlier = server.still_serves().await;
        assert!(
            earlier.len() == 1 && is_unattributed_error(&earlier[0], PARSE_ERROR),
            "{}: a parse error with id null, got {earlier:?}",
            String::from_utf8_lossy(line)
        );
    }
}

/// The MCP schema types `arguments` as an object, so this is not a tool call with a bad
/// argument value but a malformed `tools/call`: MCP's invalid params (`-32602`) answering the
/// request's id, never a tool result and never "method not found".
async fn arguments_not_an_object(server: &mut RawServer) {
    for raw in ["\"parquet\"", "[\"parquet\"]", "42", "true"] {
        server
            .send(&call_line("not-an-object", "search_sessions", raw))
            .await;
        let (reply, earlier) = server.response_to(&json!("not-an-object")).await;
        assert!(earlier.is_empty(), "arguments {raw}: {earlier:?}");
        assert_eq!(
            reply["error"]["code"], INVALID_PARAMS,
            "arguments {raw}: {reply}"
        );
        server.still_serves().await;
    }
}

async fn null_arguments_are_no_arguments(server: &mut RawServer) {
    server
        .send(&call_line("null-arguments", "open", "null"))
        .await;
    let envelope = server.in_band_error(&json!("null-arguments")).await;
    assert_eq!(envelope["error"]["code"], "invalid_request");
    assert_eq!(envelope["error"]["details"]["field"], "id");
}

/// MCP: an unknown tool is a protocol error (`-32602`) answering the request, not a tool
/// result; the Moraine error envelope names one of the three tools, so it cannot carry it.
async fn unknown_tools(server: &mut RawServer) {
    let long_name = "t".repeat(10_000);
    for name in [
        "search",
        "",
        "Open",
        "open\u{0}",
        "list_sessions ",
        long_name.as_str(),
    ] {
        let params = json!({"name": name, "arguments": {"query": "parquet"}});
        let (reply, _) = server.request("tools/call", params).await;
        assert_eq!(
            reply["error"]["code"],
            INVALID_PARAMS,
            "{}",
            abbreviated(&reply)
        );
        assert!(reply.get("result").is_none());
        server.still_serves().await;
    }
}

/// 5 MB is under rmcp's 16 MiB line limit: parsed, then rejected in-band as too long.
async fn a_multi_megabyte_line(server: &mut RawServer) {
    let query = "x".repeat(5 << 20);
    server
        .send(&call_line(
            "five-mb",
            "search_sessions",
            &json!({"query": query}).to_string(),
        ))
        .await;
    let envelope = server.in_band_error(&json!("five-mb")).await;
    assert_eq!(envelope["error"]["code"], "invalid_request");
    assert_eq!(envelope["error"]["details"]["field"], "query");
    server.still_serves().await;
}

/// Past rmcp's 16 MiB line limit (which drops lines unanswered) the guard answers an invalid
/// request carrying the id it finds at the start of the line.
async fn an_oversized_line(server: &mut RawServer) {
    let query = "x".repeat(17 << 20);
    server
        .send(&call_line(
            "seventeen-mb",
            "search_sessions",
            &json!({"query": query}).to_string(),
        ))
        .await;
    let (reply, earlier) = server.response_to(&json!("seventeen-mb")).await;
    assert!(earlier.is_empty(), "{earlier:?}");
    assert_eq!(reply["error"]["code"], INVALID_REQUEST, "{reply}");
    server.still_serves().await;
}

/// 10 000 nested arrays: serde_json refuses past 127 levels, so the line is unparsable; the
/// guard answers a parse error with the request's id.
async fn nesting_past_the_parser_limit(server: &mut RawServer) {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for raw in [
        format!("{{\"query\":{deep}}}"),
        format!("{{\"query\":\"x\",\"extra\":{deep}}}"),
    ] {
        server
            .send(&call_line("deep", "search_sessions", &raw))
            .await;
        let (reply, earlier) = server.response_to(&json!("deep")).await;
        assert!(earlier.is_empty(), "{earlier:?}");
        assert_eq!(reply["error"]["code"], PARSE_ERROR, "{reply}");
        server.still_serves().await;
    }
}

/// `"\ud800"` is grammatical JSON but no Unicode string; serde_json rejects it, so the guard
/// turns a lone surrogate into U+FFFD and the call is answered. A valid pair is a character.
async fn a_lone_surrogate(server: &mut RawServer) {
    server
        .send(&call_line(
            "lone",
            "search_sessions",
            r#"{"query":"parquet \ud800"}"#,
        ))
        .await;
    let (reply, _) = server.response_to(&json!("lone")).await;
    assert_eq!(reply["result"]["isError"], false, "{}", abbreviated(&reply));
    assert_eq!(
        reply["result"]["structuredContent"]["request"]["query"],
        "parquet \u{fffd}"
    );
    server
        .send(&call_line(
            "pair",
            "search_sessions",
            r#"{"query":"parquet \ud83e\udd80"}"#,
        ))
        .await;
    let (reply, _) = server.response_to(&json!("pair")).await;
    assert_eq!(reply["result"]["isError"], false, "{}", abbreviated(&reply));
    assert_eq!(
        reply["result"]["structuredContent"]["request"]["query"],
        "parquet 🦀"
    );
}
