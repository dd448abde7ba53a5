//! MCP latency benchmark: builds a store from `tests/fixtures` replicated to a few thousand
//! events, starts the real `esker serve` over stdio, and prints p50/p95/p99 of search_sessions,
//! open and list_sessions, both as the client sees them (round trip) and as the server reports
//! them (`performance.elapsed_ms`).
//!
//! Run: `cargo bench --bench mcp_latency` (ESKER_BENCH_COPIES=N sets the replication, default
//! 40; ESKER_BENCH_ROUNDS=N the calls per workload, default 200).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const ESKER: &str = env!("CARGO_BIN_EXE_esker");
const QUERIES: [&str; 8] = [
    "parquet migration",
    "flaky test",
    "cargo test failure",
    "export job csv",
    "customer tier",
    "fix the schema",
    "read_dir order",
    "staging users email",
];

fn main() -> anyhow::Result<()> {
    let copies = env_number("ESKER_BENCH_COPIES", 40);
    let rounds = env_number("ESKER_BENCH_ROUNDS", 200);
    let work_dir = tempfile::tempdir()?;
    let logs = work_dir.path().join("logs");
    let data_dir = work_dir.path().join("data");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures");
    replicate_fixtures(&fixtures, &logs, copies)?;
    let index_started = Instant::now();
    let status = std::process::Command::new(ESKER)
        .args(["index", "--quiet", "--data-dir"])
        .arg(&data_dir)
        .arg(&logs)
        .status()?;
    anyhow::ensure!(status.success(), "esker index failed");
    eprintln!(
        "indexed {copies} copies of the fixtures in {:?}",
        index_started.elapsed()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_workloads(&data_dir, rounds))
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Copies every top-level session file `copies` times, each copy with fresh UUIDs (mapped
/// consistently within a copy so fork and parent links stay intact). Files whose identity is
/// not a UUID (sub-agent transcripts) are copied once.
fn replicate_fixtures(fixtures: &Path, logs: &Path, copies: usize) -> anyhow::Result<()> {
    let files: Vec<PathBuf> = walk(fixtures)?;
    for copy in 0..copies {
        let mut uuid_map = HashMap::new();
        for file in &files {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            let is_top_level = contains_uuid(&name) || name.starts_with("session-");
            if copy > 0 && !is_top_level {
                continue;
            }
            let relative = file.strip_prefix(fixtures)?;
            let target = logs.join(format!("copy-{copy:03}")).join(relative);
            std::fs::create_dir_all(target.parent().expect("file has a parent"))?;
            let text = std::fs::read_to_string(file)?;
            let text = if copy == 0 {
                text
            } else {
                remap_uuids(&text, copy, &mut uuid_map)
            };
            std::fs::write(target, text)?;
        }
    }
    Ok(())
}

fn walk(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files.extend(walk(&path)?);
        } else {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn is_uuid_at(bytes: &[u8], start: usize) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let mut position = start;
    for (index, length) in GROUPS.iter().enumerate() {
        let group = bytes.get(position..position + length);
        if !group.is_some_and(|group| group.iter().all(u8::is_ascii_hexdigit)) {
            return false;
        }
        position += length;
        if index < GROUPS.len() - 1 {
            if bytes.get(position) != Some(&b'-') {
                return false;
            }
            position += 1;
        }
    }
    true
}

fn contains_uuid(text: &str) -> bool {
    (0..text.len()).any(|start| is_uuid_at(text.as_bytes(), start))
}

fn remap_uuids(text: &str, copy: usize, uuid_map: &mut HashMap<String, String>) -> String {
    const UUID_LENGTH: usize = 36;
    let bytes = text.as_bytes();
    let mut output = String::with_capacity(text.len());
    let mut position = 0;
    let mut copied_up_to = 0;
    while position < bytes.len() {
        if is_uuid_at(bytes, position) {
            output.push_str(&text[copied_up_to..position]);
            let original = &text[position..position + UUID_LENGTH];
            let next_index = uuid_map.len();
            let replacement = uuid_map
                .entry(original.to_owned())
                .or_insert_with(|| format!("{copy:08x}-0000-4000-8000-{next_index:012x}"));
            output.push_str(replacement);
            position += UUID_LENGTH;
            copied_up_to = position;
        } else {
            position += 1;
        }
    }
    output.push_str(&text[copied_up_to..]);
    output
}

struct Client {
    service: RunningService<RoleClient, ()>,
}

impl Client {
    async fn start(data_dir: &Path) -> anyhow::Result<Client> {
        let command = tokio::process::Command::new(ESKER).configure(|command| {
            command
                .args(["serve", "--no-index", "--data-dir"])
                .arg(data_dir);
        });
        let service = ().serve(TokioChildProcess::new(command)?).await?;
        Ok(Client { service })
    }

    /// The envelope, the round-trip time and the server-reported elapsed time.
    async fn call(&self, tool: &str, arguments: Value) -> anyhow::Result<(Value, Duration, u64)> {
        let Value::Object(arguments) = arguments else {
            anyhow::bail!("arguments must be an object");
        };
        let started = Instant::now();
        let result = self
            .service
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
            .await?;
        let round_trip = started.elapsed();
        let envelope = result.structured_content.unwrap_or_default();
        anyhow::ensure!(result.is_error != Some(true), "{tool} failed: {envelope}");
        let server_ms = envelope["performance"]["elapsed_ms"]
            .as_u64()
            .unwrap_or_default();
        Ok((envelope, round_trip, server_ms))
    }
}

/// Latencies of one workload.
#[derive(Default)]
struct Samples {
    round_trips: Vec<Duration>,
    server_ms: Vec<u64>,
}

impl Samples {
    fn record(&mut self, round_trip: Duration, server_ms: u64) {
        self.round_trips.push(round_trip);
        self.server_ms.push(server_ms);
    }

    fn report(&mut self, name: &str) {
        self.round_trips.sort();
        self.server_ms.sort();
        let percentile = |sorted_len: usize, fraction: f64| {
            ((sorted_len as f64 * fraction).ceil() as usize).clamp(1, sorted_len) - 1
        };
        let millis = |duration: Duration| duration.as_secs_f64() * 1000.0;
        let count = self.round_trips.len();
        let [p50, p95, p99] = [0.50, 0.95, 0.99].map(|fraction| percentile(count, fraction));
        println!(
            "{name:<28} n={count:<4} round trip p50 {:>7.2} ms  p95 {:>7.2} ms  p99 {:>7.2} ms | server p50 {:>3} ms  p95 {:>3} ms  p99 {:>3} ms",
            millis(self.round_trips[p50]),
            millis(self.round_trips[p95]),
            millis(self.round_trips[p99]),
            self.server_ms[p50],
            self.server_ms[p95],
            self.server_ms[p99],
        );
    }
}

/// Ids to open, gathered from searches.
#[derive(Default)]
struct Handles {
    events: Vec<String>,
    turns: Vec<String>,
    sessions: Vec<String>,
}

async fn run_workloads(data_dir: &Path, rounds: usize) -> anyhow::Result<()> {
    let client = Client::start(data_dir).await?;
    let everything = json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 20});
    let (listed, _, _) = client.call("list_sessions", everything.clone()).await?;
    println!(
        "store: {} sessions listed in the broad window (first page {})",
        listed["data"]["result_count"], listed["data"]["limit"]
    );
    let mut handles = Handles::default();
    let mut search = Samples::default();
    for round in 0..rounds {
        let query = QUERIES[round % QUERIES.len()];
        let (envelope, round_trip, server_ms) = client
            .call("search_sessions", json!({"query": query, "n_hits": 10}))
            .await?;
        search.record(round_trip, server_ms);
        for hit in envelope["data"]["results"].as_array().into_iter().flatten() {
            handles.events.push(
                hit["open"]["event_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
            handles.turns.push(
                hit["open"]["turn_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
            handles.sessions.push(
                hit["open"]["session_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
    }
    search.report("search_sessions (all)");
    anyhow::ensure!(!handles.events.is_empty(), "searches found nothing");

    let mut scoped_session = Samples::default();
    let mut scoped_turn = Samples::default();
    for round in 0..rounds {
        let query = QUERIES[round % QUERIES.len()];
        let session_id = &handles.sessions[round % handles.sessions.len()];
        let (_, round_trip, server_ms) = client
            .call(
                "search_sessions",
                json!({"query": query, "within_id": session_id}),
            )
            .await?;
        scoped_session.record(round_trip, server_ms);
        let turn_id = &handles.turns[round % handles.turns.len()];
        let (_, round_trip, server_ms) = client
            .call(
                "search_sessions",
                json!({"query": query, "within_id": turn_id}),
            )
            .await?;
        scoped_turn.record(round_trip, server_ms);
    }
    scoped_session.report("search_sessions (session)");
    scoped_turn.report("search_sessions (turn)");

    for (name, ids) in [
        ("open(event)", &handles.events),
        ("open(turn)", &handles.turns),
        ("open(session)", &handles.sessions),
    ] {
        let mut samples = Samples::default();
        for round in 0..rounds {
            let id = &ids[(round * 7) % ids.len()];
            let (_, round_trip, server_ms) = client.call("open", json!({"id": id})).await?;
            samples.record(round_trip, server_ms);
        }
        samples.report(name);
    }

    let typical =
        json!({"start_datetime": "2026-03-14T00:00:00Z", "end_datetime": "2026-03-15T00:00:00Z"});
    for (name, arguments) in [
        ("list_sessions (typical)", typical),
        ("list_sessions (broad)", everything.clone()),
        (
            "list_sessions (broad, mode)",
            json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "mode": "tool_calling"}),
        ),
    ] {
        let mut samples = Samples::default();
        for _ in 0..rounds {
            let (_, round_trip, server_ms) =
                client.call("list_sessions", arguments.clone()).await?;
            samples.record(round_trip, server_ms);
        }
        samples.report(name);
    }
    client.service.cancel().await?;
    Ok(())
}
