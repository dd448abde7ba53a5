//! `esker ui`, the local web view, run as the real binary: its guard (foreign Host or Origin
//! 403, no token 401, the security headers), its API against the CLI's answers, and a real
//! headless Chromium driven by Selenium (`tests/python/ui_browser.py`): search finds a known
//! prompt, the hit opens its turn, a tool call unfolds, the usage totals equal
//! `esker usage --json`, an appended log line shows up without reload. The browser tests skip
//! with a message when Chromium, its driver or Selenium is missing, unless
//! `ESKER_REQUIRE_PYTHON=1` (`.ci/run`), where that fails.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use serde_json::{Value, json};

use crate::cli::esker_command;
use crate::python::python_has;
use crate::support::{BACKGROUND_WAIT, fixture_store, manifest_dir, query_rows, run_esker};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A running `esker ui --port 0`, killed when dropped.
struct UiServer {
    child: Child,
    port: u16,
    token: String,
    /// Everything it printed on stderr after the start URL (drained so it never blocks).
    _stderr: std::thread::JoinHandle<()>,
}

impl UiServer {
    /// `esker ui --port 0 --data-dir DIR` plus `args`, with `HOME` set to `home`.
    fn start(data_dir: &Path, home: &Path, args: &[&str]) -> UiServer {
        let mut all = vec![
            "ui",
            "--port",
            "0",
            "--data-dir",
            data_dir.to_str().expect("utf-8 path"),
        ];
        all.extend_from_slice(args);
        let mut child = esker_command(home, &all)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("esker ui starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (sender, receiver) = mpsc::channel();
        let drain = std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(url) = line.strip_prefix("esker ui: ") {
                    sent = sender.send(url.trim().to_owned()).is_ok();
                } else {
                    eprintln!("[esker ui] {line}");
                }
            }
        });
        let url = match receiver.recv_timeout(BACKGROUND_WAIT) {
            Ok(url) => url,
            Err(error) => {
                let _ = child.kill();
                panic!("esker ui printed no start URL: {error}");
            }
        };
        let (port, token) = parse_start_url(&url);
        UiServer {
            child,
            port,
            token,
            _stderr: drain,
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn start_url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// A request with this server's Host and the token in the query.
    fn get(&self, path: &str) -> HttpReply {
        let separator = if path.contains('?') { '&' } else { '?' };
        let target = format!("{path}{separator}token={}", self.token);
        http(self.port, "GET", &target, &[("Host", &self.host())], None)
    }

    fn get_json(&self, path: &str) -> Value {
        let reply = self.get(path);
        assert_eq!(reply.status, 200, "GET {path}: {}", reply.body);
        serde_json::from_str(&reply.body).expect("JSON answer")
    }

    fn post_tool(&self, tool: &str, arguments: &Value) -> HttpReply {
        let target = format!("/api/tool/{tool}?token={}", self.token);
        let origin = format!("http://{}", self.host());
        http(
            self.port,
            "POST",
            &target,
            &[("Host", &self.host()), ("Origin", &origin)],
            Some(&arguments.to_string()),
        )
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Port and token of `http://127.0.0.1:PORT/?token=TOKEN`.
fn parse_start_url(url: &str) -> (u16, String) {
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("start URL on 127.0.0.1: {url}"));
    let (port, token) = rest
        .split_once("/?token=")
        .unwrap_or_else(|| panic!("start URL with a token: {url}"));
    assert_eq!(token.len(), 64, "a 32-byte hex token: {url}");
    (port.parse().expect("numeric port"), token.to_owned())
}

struct HttpReply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl HttpReply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// One HTTP/1.1 request written by hand, so Host and Origin are exactly what the test says.
fn http(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> HttpReply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to esker ui");
    stream
        .set_read_timeout(Some(BACKGROUND_WAIT))
        .expect("read timeout");
    let mut request = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body.unwrap_or_default());
    stream.write_all(request.as_bytes()).expect("send request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read reply");
    parse_reply(&String::from_utf8_lossy(&raw))
}

fn parse_reply(raw: &str) -> HttpReply {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP status line: {raw:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    HttpReply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

fn no_home() -> PathBuf {
    PathBuf::from("/nonexistent-esker-test-home")
}

fn fixture_ui() -> UiServer {
    UiServer::start(fixture_store(), &no_home(), &["--no-index"])
}

#[test]
fn ui_refuses_foreign_hosts_foreign_origins_and_requests_without_the_token() {
    let ui = fixture_ui();
    let host = ui.host();
    let with_token = format!("/api/sessions?token={}", ui.token);
    let status =
        |target: &str, headers: &[(&str, &str)]| http(ui.port, "GET", target, headers, None).status;
    // DNS rebinding: a foreign name resolving to 127.0.0.1, even with the token.
    assert_eq!(status(&with_token, &[("Host", "evil.example")]), 403);
    assert_eq!(
        status(
            &with_token,
            &[("Host", &format!("evil.example:{}", ui.port))]
        ),
        403
    );
    let no_host = status(&with_token, &[]);
    assert!(matches!(no_host, 400 | 403), "no Host at all: {no_host}");
    // Cross-site requests.
    for origin in ["http://evil.example", "null", "https://127.0.0.1"] {
        assert_eq!(
            status(&with_token, &[("Host", &host), ("Origin", origin)]),
            403,
            "{origin}"
        );
    }
    let foreign_post = http(
        ui.port,
        "POST",
        &format!("/api/tool/search_sessions?token={}", ui.token),
        &[("Host", &host), ("Origin", "http://evil.example")],
        Some(r#"{"query": "ferret"}"#),
    );
    assert_eq!(foreign_post.status, 403);
    // No token, or a wrong one.
    for target in ["/", "/api/sessions", "/assets/js/app.js", "/api/events"] {
        assert_eq!(status(target, &[("Host", &host)]), 401, "{target}");
    }
    let wrong = format!("/api/sessions?token={}", "0".repeat(64));
    assert_eq!(status(&wrong, &[("Host", &host)]), 401);
    let wrong_cookie = format!("esker_ui_{}={}", ui.port, "0".repeat(64));
    assert_eq!(
        status(
            "/api/sessions",
            &[("Host", &host), ("Cookie", &wrong_cookie)]
        ),
        401
    );

    // The start URL: the page, the cookie that carries the token on, the strict headers.
    let page = http(
        ui.port,
        "GET",
        &format!("/?token={}", ui.token),
        &[("Host", &format!("localhost:{}", ui.port))],
        None,
    );
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("/assets/js/app.js"));
    let cookie = page.header("set-cookie").expect("the token cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let csp = page.header("content-security-policy").expect("a CSP");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    let cookie_pair = cookie.split(';').next().expect("name=value");
    let by_cookie = http(
        ui.port,
        "GET",
        "/api/sessions",
        &[("Host", &host), ("Cookie", cookie_pair)],
        None,
    );
    assert_eq!(by_cookie.status, 200, "{}", by_cookie.body);
    // Refusals carry the headers too.
    let refused = http(ui.port, "GET", "/", &[("Host", &host)], None);
    assert!(refused.header("content-security-policy").is_some());
}

#[test]
fn ui_api_answers_what_the_cli_and_the_mcp_tools_answer() {
    let ui = fixture_ui();
    let data_dir = fixture_store().to_str().expect("utf-8").to_owned();
    let cli_json = |args: &[&str]| -> Value {
        let mut all = args.to_vec();
        all.extend(["--data-dir", &data_dir, "--json"]);
        let output = run_esker(&all);
        serde_json::from_slice(&output.stdout).expect("CLI JSON")
    };

    // Usage: exactly `esker usage --json`, for every grouping.
    for by in ["day", "model", "source", "project"] {
        assert_eq!(
            ui.get_json(&format!("/api/usage?by={by}")),
            cli_json(&["usage", "--by", by]),
            "{by}"
        );
    }

    // Files touched most: the store's own count of sessions and touches per tail.
    let top = ui.get_json("/api/files/top?limit=5");
    let files = top["files"].as_array().expect("a list of files");
    assert!(!files.is_empty(), "{top}");
    let counted = query_rows(
        fixture_store(),
        "SELECT tail, count(DISTINCT session_id) AS sessions, count(*) AS touches \
         FROM file_touches GROUP BY tail ORDER BY sessions DESC, touches DESC, tail LIMIT 5",
    );
    let shown: Vec<(&Value, &Value, &Value)> = files
        .iter()
        .map(|file| (&file["tail"], &file["sessions"], &file["touches"]))
        .collect();
    let expected: Vec<(&Value, &Value, &Value)> = counted
        .iter()
        .map(|row| (&row["tail"], &row["sessions"], &row["touches"]))
        .collect();
    assert_eq!(shown, expected);
    let busiest = files[0]["tail"].as_str().expect("a tail");
    let reply = ui.post_tool(
        "file_attention",
        &json!({"path": busiest, "scope": "all", "limit": 50}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let attention: Value = serde_json::from_str(&reply.body).expect("JSON envelope");
    assert!(
        attention["data"]["sessions"].as_array().map_or(0, Vec::len) as u64
            >= files[0]["sessions"].as_u64().unwrap(),
        "{attention}"
    );

    // Search: the CLI's hits, in its order, each with its session's facts.
    let ids = |value: &Value, list: &str| -> Vec<String> {
        value[list]
            .as_array()
            .expect("a list")
            .iter()
            .map(|item| item["id"].as_str().expect("id").to_owned())
            .collect()
    };
    let searched = ui.get_json("/api/search?q=ferret%20deploy&limit=20");
    assert_eq!(
        ids(&searched, "results"),
        ids(
            &cli_json(&["search", "-n", "20", "ferret", "deploy"]),
            "results"
        )
    );
    assert!(searched["results"][0]["facts"].get("project").is_some());
    let filtered = ui.get_json("/api/search?q=ferret&sources=amp,codex&types=user_input");
    assert_eq!(
        ids(&filtered, "results"),
        ids(
            &cli_json(&[
                "search",
                "-n",
                "20",
                "--source",
                "amp",
                "--source",
                "codex",
                "--type",
                "user_input",
                "ferret"
            ]),
            "results"
        )
    );

    // Sessions: the CLI's list.
    assert_eq!(
        ids(&ui.get_json("/api/sessions?limit=15"), "sessions"),
        ids(&cli_json(&["sessions", "-n", "15"]), "sessions")
    );

    // Memory entries: `esker memory list`.
    assert_eq!(
        ui.get_json("/api/memory"),
        cli_json(&["memory", "list", "-n", "50"])
    );

    // Tools: the MCP envelope, by name; only the read-only moraine tools.
    let reply = ui.post_tool("search_sessions", &json!({"query": "ferret"}));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let envelope: Value = serde_json::from_str(&reply.body).expect("envelope");
    assert!(envelope["data"]["result_count"].as_u64().unwrap_or(0) > 0);
    let session_id = envelope["data"]["results"][0]["session"]["id"]
        .as_str()
        .expect("a session id")
        .to_owned();
    let opened: Value =
        serde_json::from_str(&ui.post_tool("open", &json!({"id": session_id})).body)
            .expect("open envelope");
    assert_eq!(opened["data"]["session"]["id"], session_id);
    let invalid: Value =
        serde_json::from_str(&ui.post_tool("open", &json!({"id": "not-an-id"})).body)
            .expect("error envelope");
    assert_eq!(invalid["error"]["code"], "invalid_id");
    assert_eq!(ui.post_tool("save_memory", &json!({})).status, 404);
    assert_eq!(ui.post_tool("no_such_tool", &json!({})).status, 404);

    // Export: the session as Markdown, with its prompts.
    let exported = ui.get(&format!("/api/export/{session_id}"));
    assert_eq!(exported.status, 200);
    assert!(
        exported
            .header("content-type")
            .is_some_and(|kind| kind.starts_with("text/markdown"))
    );
    let first_prompt = opened["data"]["turns"][0]["user_input"]["text"]
        .as_str()
        .expect("a first prompt");
    assert!(
        exported.body.contains(first_prompt.trim()),
        "{first_prompt:?} in\n{}",
        exported.body
    );

    // Pages: every view has a path; unknown paths do not.
    for page in [
        "/",
        "/search?q=x",
        "/sessions",
        "/usage",
        "/memory",
        "/session/abc",
    ] {
        assert_eq!(ui.get(page).status, 200, "{page}");
    }
    assert_eq!(ui.get("/nope").status, 404);
    assert_eq!(ui.get("/assets/js/app.js").status, 200);
    assert_eq!(ui.get("/assets/../Cargo.toml").status, 404);
}

/// Whether the browser tests can run here; a missing piece fails under
/// `ESKER_REQUIRE_PYTHON=1`.
fn browser_available() -> bool {
    if !python_has("selenium") {
        return false;
    }
    let present = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
    if !present {
        assert!(
            std::env::var("ESKER_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "{CHROMIUM} and {CHROMEDRIVER} are required (ESKER_REQUIRE_PYTHON=1)"
        );
        eprintln!(
            "SKIPPED: no {CHROMIUM} or {CHROMEDRIVER} (apt-get install chromium chromium-driver)"
        );
    }
    present
}

fn run_browser_script(args: &[&str]) {
    let output = Command::new("python3")
        .arg(manifest_dir().join("tests/python/ui_browser.py"))
        .args(args)
        .env("CHROMIUM", CHROMIUM)
        .env("CHROMEDRIVER", CHROMEDRIVER)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "ui_browser.py {} failed\nstdout:\n{}\nstderr:\n{}",
        args.first().copied().unwrap_or_default(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn ui_in_a_browser_searches_opens_unfolds_and_totals_usage() {
    if !browser_available() {
        return;
    }
    let ui = fixture_ui();
    let usage = run_esker(&[
        "usage",
        "--data-dir",
        fixture_store().to_str().expect("utf-8"),
        "--json",
    ]);
    let usage_file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(usage_file.path(), &usage.stdout).expect("write usage");
    // The README's screenshots are refreshed only when asked (ESKER_UPDATE_SCREENSHOTS=1), so a
    // test run leaves the checkout as it found it.
    let scratch = tempfile::tempdir().expect("temp screenshots");
    let screenshots = if std::env::var_os("ESKER_UPDATE_SCREENSHOTS").is_some() {
        manifest_dir().join("docs/screenshots")
    } else {
        scratch.path().to_path_buf()
    };
    run_browser_script(&[
        "views",
        &ui.start_url(),
        usage_file.path().to_str().expect("utf-8"),
        screenshots.to_str().expect("utf-8"),
    ]);
    for view in [
        "search", "session", "sessions", "usage", "activity", "files",
    ] {
        let shot = screenshots.join(format!("{view}.png"));
        let bytes = std::fs::metadata(&shot).map_or(0, |meta| meta.len());
        assert!(
            bytes > 1_000,
            "the {view} screenshot was taken: {}",
            shot.display()
        );
    }
}

#[test]
fn ui_in_a_browser_shows_an_appended_log_line_without_reload() {
    if !browser_available() {
        return;
    }
    let home = tempfile::tempdir().expect("temp home");
    let data = tempfile::tempdir().expect("temp data");
    let project = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let log = project.join("6f1d2c3b-0a9e-4b8c-8d7e-5f4a3b2c1d0e.jsonl");
    std::fs::write(
        &log,
        format!("{}\n", claude_prompt("u1", "why is the pelican cache cold")),
    )
    .expect("write log");
    // Full passes only hourly: the append must be picked up by the file watcher.
    let ui = UiServer::start(data.path(), home.path(), &["--full-pass-every", "3600"]);
    let appended_line = claude_prompt("u2", "and the flamingo cache too");
    run_browser_script(&[
        "live",
        &ui.start_url(),
        log.to_str().expect("utf-8"),
        &appended_line,
    ]);
}

/// A session of 300 turns: the page shows its first turns at once and the rest in slices
/// (`session.js` `drawRest`) until every turn is there in order; a deep link to turn 250 draws
/// up to it at once and focuses it.
#[test]
fn ui_in_a_browser_draws_a_long_session_in_slices() {
    if !browser_available() {
        return;
    }
    let home = tempfile::tempdir().expect("temp home");
    let data = tempfile::tempdir().expect("temp data");
    let project = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let session = "7a2e3d4c-1b0f-4c9d-8e7f-6a5b4c3d2e1f";
    let mut lines = String::new();
    for turn in 1..=300 {
        let line = json!({
            "type": "user", "uuid": format!("u{turn}"), "parentUuid": null,
            "sessionId": session,
            "timestamp": format!("2026-03-04T{:02}:{:02}:00.000Z", turn / 60, turn % 60),
            "cwd": "/home/dev/app", "isSidechain": false,
            "message": {"role": "user", "content": format!("long session prompt number {turn}")}
        });
        lines.push_str(&format!("{line}\n"));
    }
    std::fs::write(project.join(format!("{session}.jsonl")), lines).expect("write log");
    index_into_for_ui(data.path(), &project);
    let turns = query_rows(data.path(), "SELECT turn_id FROM turns ORDER BY ordinal");
    assert_eq!(turns.len(), 300, "one turn per prompt");
    let turn_250 = turns[249]["turn_id"].as_str().expect("turn id").to_owned();
    let ui = UiServer::start(data.path(), home.path(), &["--no-index"]);
    run_browser_script(&[
        "long",
        &ui.start_url(),
        &format!("session:claude-{session}"),
        &turn_250,
        "300",
    ]);
}

fn index_into_for_ui(data_dir: &Path, logs: &Path) {
    let output = run_esker(&[
        "index",
        "--quiet",
        "--data-dir",
        data_dir.to_str().expect("utf-8"),
        logs.to_str().expect("utf-8"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One Claude Code user record of the session the live test appends to.
fn claude_prompt(uuid: &str, text: &str) -> String {
    json!({
        "type": "user", "uuid": uuid, "parentUuid": null,
        "sessionId": "6f1d2c3b-0a9e-4b8c-8d7e-5f4a3b2c1d0e",
        "timestamp": "2026-03-03T08:00:00.000Z", "cwd": "/home/dev/app", "isSidechain": false,
        "message": {"role": "user", "content": text}
    })
    .to_string()
}

#[test]
fn chunked_replies_are_read_whole() {
    let reply = parse_reply(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, "abcde");
}
