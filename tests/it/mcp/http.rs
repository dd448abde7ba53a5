//! `esker serve --http` end to end (issue #54): the real binary on a free loopback port, driven
//! by raw HTTP/1.1 over a `TcpStream` (status codes and headers as sent) and by the Python MCP
//! SDK's streamable HTTP client. Bearer tokens from a TOML file, a token scoped to one project
//! answered as `--project-only` answers, a token scoped to machines over a pulled team store,
//! 429 past a token's limits, and request logs that name the call but never its content.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::strings_at;
use super::project_only::{WORD, projects};
use crate::python::{python_has, run_python};
use crate::support::{
    BACKGROUND_WAIT, clear_harness_env, esker_bin, fixture_store, fixtures_dir, index_into,
    run_esker, session_ids, stderr_of,
};

/// The line `esker serve --http` prints once listening, before the URL.
const LISTENING: &str = "esker serve: MCP over HTTP at ";

/// A token reading every project (given to the server by its SHA-256).
const TOKEN_ALL: &str = "every-project-token-0123456789";
/// A token reading project A only (given in plain form).
const TOKEN_A: &str = "project-a-token-0123456789";

const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// A running `esker serve --no-index --http 127.0.0.1:0`; killed when dropped.
struct HttpServer {
    child: Child,
    address: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    fn start(data_dir: &Path, extra_args: &[&str]) -> HttpServer {
        let mut command = serve_command(data_dir, "127.0.0.1:0");
        command.args(extra_args).stderr(Stdio::piped());
        let mut child = command.spawn().expect("esker serve runs");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (listening, url) = mpsc::channel();
        let lines = BufReader::new(child.stderr.take().expect("piped stderr"));
        let collected = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix(LISTENING) {
                    let _ = listening.send(url.to_owned());
                }
                let mut text = collected.lock().expect("stderr lock");
                text.push_str(&line);
                text.push('\n');
            }
        });
        let url = url.recv_timeout(BACKGROUND_WAIT).unwrap_or_else(|_| {
            panic!(
                "esker serve --http never listened; stderr:\n{}",
                stderr.lock().expect("stderr lock")
            )
        });
        let address = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap_or_else(|_| panic!("an address in {url}"));
        HttpServer {
            child,
            address,
            stderr,
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    /// Waits until stderr holds `count` request log lines (not the start-up line of the
    /// same target); returns them.
    fn request_log(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + BACKGROUND_WAIT;
        loop {
            let lines: Vec<String> = self
                .stderr()
                .lines()
                .filter(|line| line.contains("esker::mcp::http: request "))
                .map(str::to_owned)
                .collect();
            if lines.len() >= count || Instant::now() > deadline {
                return lines;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `esker serve --no-index --data-dir DATA_DIR --http ADDRESS` in an isolated environment,
/// logging as it does by default.
fn serve_command(data_dir: &Path, address: &str) -> Command {
    let mut command = Command::new(esker_bin());
    command
        .args(["serve", "--no-index", "--data-dir"])
        .arg(data_dir)
        .args(["--http", address])
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_LOG")
        .env_remove("ESKER_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    clear_harness_env(&mut command);
    command
}

/// Writes `text` as a token file in a fresh directory (kept for the test run).
fn token_file(text: &str) -> PathBuf {
    let dir = tempfile::Builder::new()
        .prefix("esker-http-tokens-")
        .tempdir()
        .expect("temp dir")
        .keep();
    let path = dir.join("tokens.toml");
    std::fs::write(&path, text).expect("write tokens");
    path
}

/// A token file with [`TOKEN_ALL`] (by digest) named `name`, reading every project.
fn all_projects_tokens(name: &str) -> PathBuf {
    let digest = esker::mcp::http::tokens::hex_digest(TOKEN_ALL);
    token_file(&format!(
        "[[tokens]]\nname = \"{name}\"\nsha256 = \"{digest}\"\nprojects = \"all\"\n"
    ))
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// One HTTP response as received.
struct HttpResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl HttpResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC message of the body (a JSON body, or the last `data:` of an event stream).
    fn message(&self) -> Value {
        let json = match self.header("content-type") {
            Some(kind) if kind.starts_with("text/event-stream") => self
                .body
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .rfind(|data| data.starts_with('{'))
                .unwrap_or_default(),
            _ => self.body.as_str(),
        };
        serde_json::from_str(json).unwrap_or_else(|_| panic!("a JSON-RPC message: {}", self.body))
    }
}

/// The head of a POST to `/mcp` announcing `body_bytes` of JSON.
fn post_head(address: SocketAddr, token: Option<&str>, body_bytes: usize) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {body_bytes}\r\n\
         Connection: close\r\n"
    );
    if let Some(token) = token {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    head
}

fn post(address: SocketAddr, token: Option<&str>, body: &str) -> HttpResponse {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .write_all(format!("{}{body}", post_head(address, token, body.len())).as_bytes())
        .expect("send request");
    read_response(stream)
}

fn read_response(mut stream: TcpStream) -> HttpResponse {
    stream
        .set_read_timeout(Some(BACKGROUND_WAIT))
        .expect("read timeout");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read response");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(key, value)| key.eq_ignore_ascii_case("transfer-encoding") && value == "chunked");
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_owned()
    };
    HttpResponse {
        status,
        headers,
        body,
    }
}

fn unchunk(mut body: &str) -> String {
    let mut text = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        text.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    text
}

/// The structured result of `tool` called with `arguments` (a success or error envelope).
fn call_tool(address: SocketAddr, token: &str, tool: &str, arguments: Value) -> Value {
    let request = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let response = post(address, Some(token), &request.to_string());
    assert_eq!(response.status, 200, "{tool}: {}", response.body);
    let message = response.message();
    message["result"]["structuredContent"].clone()
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items.dedup();
    items
}

#[test]
fn without_a_known_bearer_token_a_request_gets_401_with_a_challenge() {
    let server = HttpServer::start(
        fixture_store(),
        &["--tokens", text(&all_projects_tokens("team"))],
    );
    let missing = post(server.address, None, TOOLS_LIST);
    assert_eq!(missing.status, 401, "{}", missing.body);
    let challenge = missing.header("www-authenticate").unwrap_or_default();
    assert!(challenge.starts_with("Bearer"), "{challenge:?}");
    let wrong = post(
        server.address,
        Some("not-a-token-of-this-server"),
        TOOLS_LIST,
    );
    assert_eq!(wrong.status, 401);
    let challenge = wrong.header("www-authenticate").unwrap_or_default();
    assert!(challenge.contains("invalid_token"), "{challenge:?}");

    let listed = post(server.address, Some(TOKEN_ALL), TOOLS_LIST);
    assert_eq!(listed.status, 200, "{}", listed.body);
    let tools = strings_at(&listed.message()["result"]["tools"], "/name");
    assert!(tools.contains(&"search_sessions".to_owned()), "{tools:?}");
}

#[test]
fn without_tokens_only_a_loopback_address_is_served() {
    let refused = serve_command(fixture_store(), "0.0.0.0:0")
        .stderr(Stdio::piped())
        .output()
        .expect("esker runs");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("without --tokens"), "{stderr}");

    let server = HttpServer::start(fixture_store(), &[]);
    let listed = post(server.address, None, TOOLS_LIST);
    assert_eq!(listed.status, 200, "{}", listed.body);
    // No token: a page served by another name (DNS rebinding) cannot reach it.
    let mut stream = TcpStream::connect(server.address).expect("connect");
    let head = post_head(server.address, None, TOOLS_LIST.len())
        .replace(&format!("Host: {}", server.address), "Host: evil.example");
    stream
        .write_all(format!("{head}{TOOLS_LIST}").as_bytes())
        .expect("send");
    assert_eq!(read_response(stream).status, 403);
}

#[test]
fn python_sdk_round_trip_over_http() {
    if !python_has("mcp") {
        return;
    }
    let server = HttpServer::start(
        fixture_store(),
        &["--tokens", text(&all_projects_tokens("python"))],
    );
    run_python("mcp_http_client.py", &[&server.url(), TOKEN_ALL]);
}

#[test]
fn a_token_scoped_to_a_project_is_answered_as_project_only() {
    let projects = projects();
    let digest = esker::mcp::http::tokens::hex_digest(TOKEN_ALL);
    let tokens = token_file(&format!(
        "[[tokens]]\nname = \"alpha\"\ntoken = \"{TOKEN_A}\"\nprojects = [\"{}\"]\n\n\
         [[tokens]]\nname = \"everyone\"\nsha256 = \"{digest}\"\nprojects = \"all\"\n",
        text(&projects.project_a)
    ));
    let server = HttpServer::start(&projects.data, &["--tokens", text(&tokens)]);
    let every = sorted([projects.sessions_a.clone(), projects.sessions_b.clone()].concat());

    let searched = |token: &str| {
        let envelope = call_tool(
            server.address,
            token,
            "search_sessions",
            json!({"query": WORD, "n_hits": 50}),
        );
        sorted(strings_at(&envelope["data"]["results"], "/session/id"))
    };
    assert_eq!(searched(TOKEN_A), projects.sessions_a);
    assert_eq!(searched(TOKEN_ALL), every);
    let window =
        json!({"start_datetime": "2026-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z"});
    let listed = |token: &str| {
        let envelope = call_tool(server.address, token, "list_sessions", window.clone());
        sorted(strings_at(&envelope["data"]["sessions"], "/id"))
    };
    assert_eq!(listed(TOKEN_A), projects.sessions_a);
    assert_eq!(listed(TOKEN_ALL), every);

    let session_b = &projects.sessions_b[0];
    let hidden = call_tool(server.address, TOKEN_A, "open", json!({"id": session_b}));
    assert_eq!(hidden["error"]["code"], "not_found", "{hidden}");
    let seen = call_tool(server.address, TOKEN_ALL, "open", json!({"id": session_b}));
    assert_eq!(seen["data"]["session"]["id"], session_b.as_str(), "{seen}");
    let own = call_tool(
        server.address,
        TOKEN_A,
        "open",
        json!({"id": projects.sessions_a[0]}),
    );
    assert_eq!(
        own["data"]["session"]["id"],
        projects.sessions_a[0].as_str()
    );
}

fn succeed(args: &[&str]) {
    let output = run_esker(args);
    assert!(
        output.status.success(),
        "esker {args:?}: {}",
        stderr_of(&output)
    );
}

/// A pulled team store of two machines (`alpha`: the Codex fixtures, `beta`: the Gemini
/// ones), served with a token reading `alpha` only and one reading every machine.
#[test]
fn a_token_scoped_to_machines_reads_only_what_they_published() {
    let root = tempfile::tempdir().expect("temp dir");
    let dataset = root.path().join("dataset");
    let pulled = root.path().join("pulled");
    let mut machines = Vec::new();
    for (machine, logs) in [("alpha", "codex"), ("beta", "gemini")] {
        let data_dir = root.path().join(machine);
        index_into(&data_dir, &[&fixtures_dir().join(logs)]);
        succeed(&[
            "publish",
            "--data-dir",
            text(&data_dir),
            "--machine",
            machine,
            text(&dataset),
        ]);
        machines.push(session_ids(&data_dir));
    }
    let [alpha, beta] = [machines[0].clone(), machines[1].clone()];
    assert!(!alpha.is_empty() && !beta.is_empty());
    succeed(&["pull", "--data-dir", text(&pulled), text(&dataset)]);
    let digest = esker::mcp::http::tokens::hex_digest(TOKEN_ALL);
    let tokens = token_file(&format!(
        "[[tokens]]\nname = \"alpha-only\"\ntoken = \"{TOKEN_A}\"\nprojects = \"all\"\n\
         machines = [\"alpha\", \"gamma\"]\n\n\
         [[tokens]]\nname = \"everyone\"\nsha256 = \"{digest}\"\nprojects = \"all\"\n"
    ));
    let server = HttpServer::start(&pulled, &["--tokens", text(&tokens)]);
    // A machine the store does not hold is named at start, not refused.
    assert!(server.stderr().contains("gamma"), "{}", server.stderr());
    let every = sorted([alpha.clone(), beta.clone()].concat());

    let listed = |token: &str| {
        let window = json!({"start_datetime": "2000-01-01T00:00:00Z",
                            "end_datetime": "2100-01-01T00:00:00Z", "limit": 50});
        let envelope = call_tool(server.address, token, "list_sessions", window);
        sorted(strings_at(&envelope["data"]["sessions"], "/id"))
    };
    assert_eq!(listed(TOKEN_A), alpha);
    assert_eq!(listed(TOKEN_ALL), every);

    let searched = |token: &str, query: &str| {
        let arguments = json!({"query": query, "n_hits": 50});
        let envelope = call_tool(server.address, token, "search_sessions", arguments);
        sorted(strings_at(&envelope["data"]["results"], "/session/id"))
    };
    for query in ["the", "file"] {
        let everyone = searched(TOKEN_ALL, query);
        assert!(
            everyone.iter().any(|id| beta.contains(id)),
            "{query}: the everyone token finds beta's sessions: {everyone:?}"
        );
        let alpha_only = searched(TOKEN_A, query);
        assert!(
            !alpha_only.is_empty() && alpha_only.iter().all(|id| alpha.contains(id)),
            "{query}: {alpha_only:?}"
        );
    }

    let hidden = call_tool(server.address, TOKEN_A, "open", json!({"id": beta[0]}));
    assert_eq!(hidden["error"]["code"], "not_found", "{hidden}");
    let seen = call_tool(server.address, TOKEN_ALL, "open", json!({"id": beta[0]}));
    assert_eq!(seen["data"]["session"]["id"], beta[0].as_str(), "{seen}");
    let own = call_tool(server.address, TOKEN_A, "open", json!({"id": alpha[0]}));
    assert_eq!(own["data"]["session"]["id"], alpha[0].as_str(), "{own}");
}

#[test]
fn past_its_limits_a_token_gets_429_with_retry_after() {
    let tokens = all_projects_tokens("limited");
    let server = HttpServer::start(
        fixture_store(),
        &[
            "--tokens",
            text(&tokens),
            "--max-concurrent",
            "1",
            "--rate-limit",
            "3",
        ],
    );
    // A request whose body has not all arrived holds the token's one slot.
    let mut held = TcpStream::connect(server.address).expect("connect");
    let head = post_head(server.address, Some(TOKEN_ALL), TOOLS_LIST.len());
    let (first_half, second_half) = TOOLS_LIST.split_at(10);
    held.write_all(format!("{head}{first_half}").as_bytes())
        .expect("send the head");
    std::thread::sleep(Duration::from_millis(500));
    let busy = post(server.address, Some(TOKEN_ALL), TOOLS_LIST);
    assert_eq!(busy.status, 429, "{}", busy.body);
    assert_eq!(busy.header("retry-after"), Some("1"));
    held.write_all(second_half.as_bytes())
        .expect("send the rest");
    assert_eq!(read_response(held).status, 200);

    // Three a second: a quick run of requests soon exceeds the rate.
    let statuses: Vec<HttpResponse> = (0..10)
        .map(|_| post(server.address, Some(TOKEN_ALL), TOOLS_LIST))
        .collect();
    let limited = statuses
        .iter()
        .find(|response| response.status == 429)
        .expect("a request past the rate is refused");
    assert!(limited.body.contains("rate"), "{}", limited.body);
    let retry_after: u64 = limited
        .header("retry-after")
        .and_then(|value| value.parse().ok())
        .expect("a Retry-After in seconds");
    assert!(retry_after >= 1);
    assert!(
        statuses
            .iter()
            .all(|response| [200, 429].contains(&response.status))
    );
}

#[test]
fn the_request_log_names_the_call_but_never_its_content() {
    let server = HttpServer::start(
        fixture_store(),
        &["--tokens", text(&all_projects_tokens("alice-laptop"))],
    );
    let secret_query = "zebracanary parquet migration";
    call_tool(
        server.address,
        TOKEN_ALL,
        "search_sessions",
        json!({"query": secret_query}),
    );
    assert_eq!(post(server.address, None, TOOLS_LIST).status, 401);
    let lines = server.request_log(2);
    let call = lines
        .iter()
        .find(|line| line.contains("search_sessions"))
        .unwrap_or_else(|| panic!("a line for the call: {lines:?}"));
    for part in [
        "alice-laptop",
        "POST",
        "tools/call",
        "status=200",
        "latency_ms=",
    ] {
        assert!(call.contains(part), "{part} in {call}");
    }
    assert!(
        lines.iter().any(|line| line.contains("status=401")),
        "{lines:?}"
    );
    let stderr = server.stderr();
    assert!(
        !stderr.contains("zebracanary"),
        "no request content on stderr:\n{stderr}"
    );
}
