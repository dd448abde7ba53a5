//! Load bench of `esker serve --http` (issue #54), loopback only and bounded: indexes a
//! generated corpus (`bench-corpus`), starts the real binary on a free port with one token, then N
//! client threads, each on its own keep-alive connection, send `initialize` and R
//! `search_sessions` calls. Prints p50/p95/p99 of the search round trips as the clients see
//! them (a 429 retried is part of its call's round trip), the throughput, and how many 429s
//! were answered (none unless the token's limit is set below the load).
//!
//! Run: `cargo bench --bench http_load` (ESKER_BENCH_CLIENTS=N clients, default 16;
//! ESKER_BENCH_ROUNDS=R calls per client, default 50; ESKER_BENCH_DOCS=D documents of the
//! corpus, default 20000; ESKER_BENCH_STORE=DIR serves an existing store, e.g. the 1M store of
//! `benches/scale`, instead of indexing a corpus; ESKER_BENCH_MAX_CONCURRENT=M gives the token
//! M requests in flight instead of N, so the clients past M get 429 and retry, as a team
//! server's default limits would answer them; ESKER_BENCH_PROJECTS=DIR[:DIR...] scopes the
//! token to those project directories, as a team token is). Before the timed calls, one
//! client warms the server up (ESKER_BENCH_WARMUP calls, default 18, then
//! ESKER_BENCH_SETTLE_SECS, default 3, for the background directory load).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::json;

#[path = "common/announced_server.rs"]
mod announced_server;
use announced_server::spawn_announced;

#[path = "common/indexed_corpus.rs"]
mod indexed_corpus;
use indexed_corpus::index_generated_corpus;

const ESKER: &str = env!("CARGO_BIN_EXE_esker");
const TOKEN: &str = "http-load-bench-token-0123456789";
const QUERIES: [&str; 6] = [
    "parse error in the config",
    "failing test",
    "database migration",
    "timeout",
    "fix the build",
    "refactor the handler",
];

fn main() -> anyhow::Result<()> {
    let clients = env_number("ESKER_BENCH_CLIENTS", 16);
    let rounds = env_number("ESKER_BENCH_ROUNDS", 50);
    let docs = env_number("ESKER_BENCH_DOCS", 20_000);
    let max_concurrent = env_number("ESKER_BENCH_MAX_CONCURRENT", clients);
    let work_dir = tempfile::tempdir()?;
    let data_dir = match std::env::var_os("ESKER_BENCH_STORE") {
        Some(store) => std::path::PathBuf::from(store),
        None => {
            let data_dir = work_dir.path().join("data");
            index_generated_corpus(ESKER, work_dir.path(), &data_dir, docs as u64, 54)?;
            data_dir
        }
    };
    let tokens = work_dir.path().join("tokens.toml");
    let projects = match std::env::var("ESKER_BENCH_PROJECTS") {
        Ok(dirs) => serde_json::to_string(&dirs.split(':').collect::<Vec<_>>())?,
        Err(_) => "\"all\"".to_owned(),
    };
    std::fs::write(
        &tokens,
        format!("[[tokens]]\nname = \"bench\"\ntoken = \"{TOKEN}\"\nprojects = {projects}\n"),
    )?;
    let mut server = Server::start(&data_dir, &tokens, max_concurrent)?;
    warm_up(server.address)?;
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|client| {
            let address = server.address;
            std::thread::spawn(move || run_client(address, client, rounds))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut refused = 0;
    for worker in workers {
        let outcome = worker
            .join()
            .map_err(|_| anyhow::anyhow!("a client panicked"))??;
        latencies.extend(outcome.latencies);
        refused += outcome.refused;
    }
    let elapsed = started.elapsed();
    server.stop();
    report(clients, rounds, &mut latencies, refused, elapsed);
    Ok(())
}

/// Untimed calls before the clients start: the server answers at once but loads its
/// in-memory directory in the background (seconds at 1M), and the first search of each query
/// reads its index terms from disk; the timed calls measure the warm server.
fn warm_up(address: SocketAddr) -> anyhow::Result<()> {
    let rounds = env_number("ESKER_BENCH_WARMUP", 3 * QUERIES.len());
    run_client(address, 0, rounds)?;
    std::thread::sleep(Duration::from_secs(
        env_number("ESKER_BENCH_SETTLE_SECS", 3) as u64,
    ));
    Ok(())
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The server under load; killed on [`Server::stop`] or drop.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(data_dir: &Path, tokens: &Path, max_concurrent: usize) -> anyhow::Result<Server> {
        let (child, url) = spawn_announced(
            Command::new(ESKER)
                .args(["serve", "--no-index", "--data-dir"])
                .arg(data_dir)
                .args(["--http", "127.0.0.1:0", "--tokens"])
                .arg(tokens)
                .args(["--max-concurrent", &max_concurrent.to_string()])
                .args(["--rate-limit", "1000000"]),
            "esker serve: MCP over HTTP at http://",
        )?;
        let url = url.trim_end_matches("/mcp");
        Ok(Server {
            child,
            address: url.parse()?,
        })
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What one client measured.
struct Outcome {
    latencies: Vec<Duration>,
    refused: usize,
}

fn run_client(address: SocketAddr, client: usize, rounds: usize) -> anyhow::Result<Outcome> {
    let mut connection = Connection::open(address)?;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "http_load", "version": "0"}},
    });
    let mut outcome = Outcome {
        latencies: Vec::with_capacity(rounds),
        refused: 0,
    };
    outcome.refused += connection.post_until_answered(&initialize.to_string(), "initialize")?;
    for round in 0..rounds {
        let query = QUERIES[(client + round) % QUERIES.len()];
        let call = json!({
            "jsonrpc": "2.0", "id": round + 1, "method": "tools/call",
            "params": {"name": "search_sessions", "arguments": {"query": query}},
        });
        // The round trip counts from the first attempt, as the client waits.
        let started = Instant::now();
        outcome.refused += connection.post_until_answered(&call.to_string(), "search_sessions")?;
        outcome.latencies.push(started.elapsed());
    }
    Ok(outcome)
}

/// One keep-alive HTTP/1.1 connection to `/mcp`.
struct Connection {
    address: SocketAddr,
    reader: BufReader<TcpStream>,
}

impl Connection {
    fn open(address: SocketAddr) -> anyhow::Result<Connection> {
        let stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            address,
            reader: BufReader::new(stream),
        })
    }

    /// Posts `body` until it is answered 200, retrying a 429 (the token's limit) after a short
    /// pause; returns how many 429s it got.
    fn post_until_answered(&mut self, body: &str, what: &str) -> anyhow::Result<usize> {
        let mut refused = 0;
        loop {
            match self.post(body)? {
                200 => return Ok(refused),
                429 => {
                    refused += 1;
                    std::thread::sleep(Duration::from_millis(5));
                }
                status => anyhow::bail!("{what} answered HTTP {status}"),
            }
        }
    }

    /// Sends one POST and reads its whole response; returns the status.
    fn post(&mut self, body: &str) -> anyhow::Result<u16> {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes())?;
        let mut status_line = String::new();
        self.reader.read_line(&mut status_line)?;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("no status line: {status_line:?}"))?;
        let mut content_length = None;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                content_length = value.trim().parse::<usize>().ok();
            }
        }
        let length =
            content_length.ok_or_else(|| anyhow::anyhow!("a response without Content-Length"))?;
        let mut body = vec![0u8; length];
        self.reader.read_exact(&mut body)?;
        Ok(status)
    }
}

fn report(
    clients: usize,
    rounds: usize,
    latencies: &mut [Duration],
    refused: usize,
    elapsed: Duration,
) {
    latencies.sort();
    let percentile = |fraction: f64| {
        let index = ((latencies.len() as f64 * fraction).ceil() as usize).saturating_sub(1);
        latencies
            .get(index.min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |latency| latency.as_secs_f64() * 1000.0)
    };
    let calls = latencies.len();
    println!("http_load: {clients} clients x {rounds} search_sessions calls over loopback");
    println!(
        "  p50 {:.2} ms  p95 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        percentile(0.50),
        percentile(0.95),
        percentile(0.99),
        percentile(1.0)
    );
    println!(
        "  {calls} calls in {:.2} s: {:.1} calls/s; {refused} answered 429 (retried)",
        elapsed.as_secs_f64(),
        calls as f64 / elapsed.as_secs_f64()
    );
}
