//! Latency of `esker ui` (issue #51) as a person meets it: the JSON API behind each page over
//! loopback HTTP (search as you type: a request for every keystroke of a query; the sessions,
//! usage, files, memory pages; opening the store's longest session), and each page's first
//! paint and "content on screen" in Debian's headless Chromium (`paint.py` beside this file).
//!
//! 1. The store: `--store DATA_DIR` (e.g. the 1M store a scale run kept), else a generated
//!    corpus of `--docs N` documents (default 20,000) indexed by this build's `esker index`.
//! 2. Inputs by SQL from the store: the first words of past prompts (what a person types),
//!    the session with the most turns.
//! 3. Starts the real `esker ui --no-index --port 0` and times every API request from send to
//!    the last byte of the body (ureq, one keep-alive connection).
//! 4. Runs `paint.py` (when Selenium and Chromium are installed) for each page.
//! 5. Prints the Markdown table (also `WORK/figures.md` with `--work DIR`).
//!
//! Run: `cargo bench --bench ui_latency -- [--store DATA_DIR | --docs N] [--rounds R]
//! [--page-rounds P] [--work DIR]`.

#[path = "../common/announced_server.rs"]
mod announced_server;
#[path = "../common/indexed_corpus.rs"]
mod indexed_corpus;
#[path = "../common/samples.rs"]
mod samples;
#[path = "../common/sql_rows.rs"]
mod sql_rows;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use announced_server::spawn_announced;
use esker::query::context_at;
use esker::store::Store;
use samples::Samples;
use serde_json::{Value, json};

const ESKER: &str = env!("CARGO_BIN_EXE_esker");
/// Past prompts typed (their first [`TYPED_WORDS`] words).
const PROMPTS: usize = 40;
const TYPED_WORDS: usize = 3;
/// A search box starts asking from this many characters.
const MIN_TYPED: usize = 3;
const FIRST_PAINT_TARGET_MS: f64 = 300.0;
const SEARCH_AS_YOU_TYPE_TARGET_MS: f64 = 50.0;

#[derive(Debug)]
struct Options {
    store: Option<PathBuf>,
    docs: u64,
    rounds: usize,
    page_rounds: usize,
    work: Option<PathBuf>,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        store: None,
        docs: 20_000,
        rounds: 50,
        page_rounds: 10,
        work: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--store" => options.store = Some(PathBuf::from(value()?)),
            "--docs" => options.docs = value()?.parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
            "--page-rounds" => options.page_rounds = value()?.parse()?,
            "--work" => options.work = Some(PathBuf::from(value()?)),
            "--bench" => {}
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = parse_options()?;
    let scratch = tempfile::tempdir()?;
    let work = options
        .work
        .clone()
        .unwrap_or_else(|| scratch.path().to_owned());
    std::fs::create_dir_all(&work)?;
    let data_dir = match &options.store {
        Some(store) => store.clone(),
        None => {
            let data_dir = work.join("data");
            if !data_dir.exists() {
                eprintln!("ui_latency: indexing {} generated documents", options.docs);
                indexed_corpus::index_generated_corpus(ESKER, &work, &data_dir, options.docs, 51)?;
            }
            data_dir
        }
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let inputs = runtime.block_on(Inputs::read(&data_dir))?;
    eprintln!(
        "ui_latency: {} events, {} prompts typed, longest session {} ({} turns)",
        inputs.events,
        inputs.typed.len(),
        inputs.longest_session,
        inputs.longest_turns
    );
    let server = UiServer::start(&data_dir)?;
    let client = Client::new(&server.start_url)?;
    let mut rows = api_rows(&client, &inputs, options.rounds)?;
    rows.extend(paint_rows(&server.start_url, &inputs, options.page_rounds)?);
    drop(server);
    let table = render(&inputs, &rows);
    println!("{table}");
    if options.work.is_some() {
        std::fs::write(work.join("figures.md"), &table)?;
    }
    Ok(())
}

/// What the bench asks, read from the store by SQL.
struct Inputs {
    events: u64,
    /// Every prefix a person typing the prompts sends (from [`MIN_TYPED`] characters).
    typed: Vec<String>,
    /// The typed prompts, whole.
    queries: Vec<String>,
    longest_session: String,
    longest_turns: u64,
}

impl Inputs {
    async fn read(data_dir: &Path) -> anyhow::Result<Inputs> {
        let root = Store::open_existing(data_dir)?.current()?.root;
        let context = context_at(&root).await?;
        let count = sql_rows::strings(&context, "SELECT count(*) FROM events").await?;
        let events = count
            .first()
            .and_then(|row| row.first())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let prompts = sql_rows::strings(
            &context,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' \
                 AND length(text) BETWEEN 20 AND 4000 ORDER BY event_id LIMIT {PROMPTS}"
            ),
        )
        .await?;
        let queries: Vec<String> = prompts
            .into_iter()
            .filter_map(|mut row| row.pop())
            .map(|text| first_words(&text, TYPED_WORDS))
            .filter(|query| query.chars().count() >= MIN_TYPED)
            .collect();
        anyhow::ensure!(
            !queries.is_empty(),
            "the store holds no user prompt to type"
        );
        let typed = queries.iter().flat_map(|query| keystrokes(query)).collect();
        let longest = sql_rows::strings(
            &context,
            "SELECT session_id, turn_count FROM sessions ORDER BY turn_count DESC, session_id LIMIT 1",
        )
        .await?;
        let [longest_session, turns] = longest
            .into_iter()
            .next()
            .and_then(|row| <[String; 2]>::try_from(row).ok())
            .ok_or_else(|| anyhow::anyhow!("the store holds no session"))?;
        Ok(Inputs {
            events,
            typed,
            queries,
            longest_session,
            longest_turns: turns.parse().unwrap_or(0),
        })
    }

    fn session_path(&self) -> String {
        let tail = self
            .longest_session
            .strip_prefix("session:")
            .unwrap_or(&self.longest_session);
        format!(
            "/session/{}",
            url::form_urlencoded::byte_serialize(tail.as_bytes()).collect::<String>()
        )
    }
}

fn first_words(text: &str, words: usize) -> String {
    text.split_whitespace()
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the search box holds after each keystroke of `query`, from [`MIN_TYPED`] characters.
fn keystrokes(query: &str) -> Vec<String> {
    let chars: Vec<char> = query.chars().collect();
    (MIN_TYPED..=chars.len())
        .map(|typed| chars[..typed].iter().collect::<String>())
        .filter(|prefix| !prefix.ends_with(' '))
        .collect()
}

/// `esker ui --no-index` on a free port; killed on drop.
struct UiServer {
    child: Child,
    start_url: String,
}

impl UiServer {
    fn start(data_dir: &Path) -> anyhow::Result<UiServer> {
        let (child, start_url) = spawn_announced(
            Command::new(ESKER)
                .args(["ui", "--no-index", "--port", "0", "--data-dir"])
                .arg(data_dir),
            "esker ui: ",
        )?;
        Ok(UiServer { child, start_url })
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive HTTP client of the API, the token in every query (as the start URL has it).
struct Client {
    agent: ureq::Agent,
    origin: String,
    token: String,
}

impl Client {
    fn new(start_url: &str) -> anyhow::Result<Client> {
        let (origin, token) = start_url
            .split_once("/?token=")
            .ok_or_else(|| anyhow::anyhow!("no token in the start URL {start_url}"))?;
        Ok(Client {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into(),
            origin: origin.to_owned(),
            token: token.to_owned(),
        })
    }

    fn url(&self, path: &str, query: &[(&str, &str)]) -> String {
        let mut serializer = url::form_urlencoded::Serializer::new(String::new());
        serializer.append_pair("token", &self.token);
        for (key, value) in query {
            serializer.append_pair(key, value);
        }
        format!("{}{path}?{}", self.origin, serializer.finish())
    }

    /// GETs `path`; the time to the body's last byte, and the body.
    fn get(&self, path: &str, query: &[(&str, &str)]) -> anyhow::Result<(Duration, Vec<u8>)> {
        let started = Instant::now();
        let mut response = self.agent.get(&self.url(path, query)).call()?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_vec()?;
        let elapsed = started.elapsed();
        anyhow::ensure!(status == 200, "GET {path} answered {status}");
        Ok((elapsed, body))
    }

    /// POSTs a tool call as the page does (`/api/tool/NAME`); the time and the envelope.
    fn tool(&self, name: &str, arguments: &Value) -> anyhow::Result<(Duration, Value)> {
        let started = Instant::now();
        let mut response = self
            .agent
            .post(&self.url(&format!("/api/tool/{name}"), &[]))
            .header("content-type", "application/json")
            .send(arguments.to_string())?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_vec()?;
        let elapsed = started.elapsed();
        anyhow::ensure!(status == 200, "POST /api/tool/{name} answered {status}");
        let envelope: Value = serde_json::from_slice(&body)?;
        anyhow::ensure!(
            envelope.get("error").is_none_or(Value::is_null),
            "{name} answered an error: {}",
            envelope["error"]
        );
        Ok((elapsed, envelope))
    }
}

/// One row of the table.
struct Row {
    what: String,
    samples: Samples,
    /// The row's target (p50 for search as you type, every load for first paint).
    target: Option<f64>,
    note: String,
}

fn api_rows(client: &Client, inputs: &Inputs, rounds: usize) -> anyhow::Result<Vec<Row>> {
    // Warm the server (the first request of a generation loads its directory tables).
    client.get("/api/sessions", &[])?;
    client.get("/api/search", &[("q", &inputs.queries[0])])?;
    let mut rows = Vec::new();
    let mut typing = Samples::default();
    let mut empty = 0;
    for (index, prefix) in inputs
        .typed
        .iter()
        .cycle()
        .take(rounds.max(inputs.typed.len()))
        .enumerate()
    {
        let (elapsed, body) = client.get("/api/search", &[("q", prefix)])?;
        typing.record(elapsed);
        if index < inputs.typed.len() && !has_results(&body) {
            empty += 1;
        }
    }
    rows.push(Row {
        what: "GET /api/search, every keystroke of a typed prompt".to_owned(),
        samples: typing,
        target: Some(SEARCH_AS_YOU_TYPE_TARGET_MS),
        note: format!("{} prefixes, {empty} without hits", inputs.typed.len()),
    });
    let mut whole = Samples::default();
    for query in inputs.queries.iter().cycle().take(rounds) {
        whole.record(client.get("/api/search", &[("q", query)])?.0);
    }
    rows.push(Row {
        what: "GET /api/search, the whole typed prompt".to_owned(),
        samples: whole,
        target: Some(SEARCH_AS_YOU_TYPE_TARGET_MS),
        note: format!("{} prompts of {TYPED_WORDS} words", inputs.queries.len()),
    });
    let pages = [
        ("GET /api/sessions (Sessions page)", "/api/sessions"),
        ("GET /api/usage (Usage and Activity pages)", "/api/usage"),
        ("GET /api/files/top (Files page)", "/api/files/top"),
        ("GET /api/memory (Memory page)", "/api/memory"),
        ("GET / (the page itself)", "/"),
    ];
    for (what, path) in pages {
        let mut samples = Samples::default();
        let mut bytes = 0;
        for _ in 0..rounds {
            let (elapsed, body) = client.get(path, &[])?;
            samples.record(elapsed);
            bytes = body.len();
        }
        rows.push(Row {
            what: what.to_owned(),
            samples,
            target: None,
            note: format!("{} KiB", bytes / 1024),
        });
    }
    let mut open = Samples::default();
    let mut turns_shown = 0;
    for _ in 0..rounds.min(20) {
        let (elapsed, envelope) = client.tool("open", &json!({"id": inputs.longest_session}))?;
        open.record(elapsed);
        turns_shown = envelope["data"]["turns"].as_array().map_or(0, Vec::len);
    }
    rows.push(Row {
        what: "POST /api/tool/open, the longest session (session page)".to_owned(),
        samples: open,
        target: None,
        note: format!(
            "{} turns, {turns_shown} in the answer",
            inputs.longest_turns
        ),
    });
    Ok(rows)
}

fn has_results(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| {
            value
                .get("results")
                .and_then(Value::as_array)
                .map(|r| !r.is_empty())
        })
        .unwrap_or(false)
}

/// The first-paint rows, from `paint.py` in Chromium; none (with a printed reason) when the
/// browser or Selenium is missing.
fn paint_rows(start_url: &str, inputs: &Inputs, rounds: usize) -> anyhow::Result<Vec<Row>> {
    if !Path::new("/usr/bin/chromium").exists() || !python_has("selenium") {
        eprintln!(
            "ui_latency: SKIPPED the browser rows (needs /usr/bin/chromium, chromedriver and \
             `pip install selenium`)"
        );
        return Ok(Vec::new());
    }
    let search = format!(
        "/search?{}",
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &inputs.queries[0])
            .finish()
    );
    let session = inputs.session_path();
    let paths = [
        "/".to_owned(),
        search,
        "/sessions".to_owned(),
        session.clone(),
        "/usage".to_owned(),
        "/activity".to_owned(),
        "/files".to_owned(),
        "/memory".to_owned(),
    ];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/ui_latency/paint.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(start_url)
        .arg(rounds.to_string())
        .args(&paths)
        .stderr(Stdio::inherit())
        .output()?;
    anyhow::ensure!(output.status.success(), "paint.py failed");
    let loads: Vec<Value> = String::from_utf8(output.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for path in &paths {
        let of_path: Vec<&Value> = loads
            .iter()
            .filter(|load| load["path"] == path.as_str())
            .collect();
        let mut fcp = Samples::default();
        let mut rendered = Samples::default();
        let mut longest_task: f64 = 0.0;
        for load in &of_path {
            fcp.record(millis(&load["fcp_ms"]));
            rendered.record(millis(&load["rendered_ms"]));
            longest_task = longest_task.max(load["longest_task_ms"].as_f64().unwrap_or(0.0));
        }
        let label = if path == &session {
            format!("/session/… ({} turns)", inputs.longest_turns)
        } else {
            path.chars().take(40).collect()
        };
        rows.push(Row {
            what: format!("{label}: first contentful paint"),
            samples: fcp,
            target: Some(FIRST_PAINT_TARGET_MS),
            note: String::new(),
        });
        rows.push(Row {
            what: format!("{label}: its data on screen"),
            samples: rendered,
            target: None,
            note: format!("longest main-thread task {longest_task:.0} ms"),
        });
    }
    Ok(rows)
}

fn millis(value: &Value) -> Duration {
    Duration::from_secs_f64(value.as_f64().unwrap_or(f64::NAN).max(0.0) / 1000.0)
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn render(inputs: &Inputs, rows: &[Row]) -> String {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "ui_latency: {} events in the store; API times from request to the body's last byte \
         over loopback; page times from navigation start in headless Chromium\n",
        inputs.events
    );
    let _ = writeln!(table, "| what | n | p50 ms | p95 ms | p99 ms | target | |");
    let _ = writeln!(table, "|---|---|---|---|---|---|---|");
    for row in rows {
        let p50 = row.samples.percentile(0.50);
        let p95 = row.samples.percentile(0.95);
        let p99 = row.samples.percentile(0.99);
        let target = match row.target {
            Some(target) if target == SEARCH_AS_YOU_TYPE_TARGET_MS => {
                format!("p50 ≤ {target:.0} ms: {}", verdict(p50 <= target))
            }
            Some(target) => format!("≤ {target:.0} ms: {}", verdict(p95 <= target)),
            None => String::new(),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {p50:.1} | {p95:.1} | {p99:.1} | {target} | {} |",
            row.what,
            row.samples.len(),
            row.note
        );
    }
    table
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "missed" }
}
