//! Side by side with a peer (issue #11): indexes the same generated corpus with the release
//! `esker` and with `agentsview` (`pip install agentsview`: Go, SQLite FTS, MCP server), in one
//! run, and reports for each: full index time and peak RSS, the no-change re-run, append →
//! searchable latency, `search_sessions` through each one's own MCP server over stdio (cold start
//! and p50/p95/p99), bytes on disk, and the ratio agentsview / esker of each row. Append →
//! searchable is timed twice for esker: with a whole-corpus `esker index` after each append
//! (as the peer's `sync`), and with a running `esker index --watch` that hears the file change.
//!
//! The peer runs under `ulimit -v` (`--peer-memory-gib`, default 8) with `HOME` pointed at an
//! empty directory, so it reads only the corpus and a runaway parse cannot take the machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::indexing::{ESKER, disk_bytes, index_with_child, proc_status_bytes};
use crate::stats::{Report, Samples};
use crate::workloads::Queries;

const MIB: f64 = 1_048_576.0;
const PEER: &str = "agentsview";
/// Appends timed per tool.
const APPENDS: usize = 5;
/// How long an appended line may take to become searchable before the row fails.
const SEARCHABLE_WITHIN: Duration = Duration::from_secs(60);

/// What one tool measured; `failure` names the step that stopped it.
#[derive(Debug, Default)]
struct ToolFigures {
    full_index: Option<Duration>,
    peak_rss_bytes: u64,
    rerun: Option<Duration>,
    disk_bytes: u64,
    cold_start: Option<Duration>,
    search: Samples,
    searches_with_hits: usize,
    append_to_searchable: Samples,
    /// esker only: appends picked up by a running `esker index --watch`.
    append_watched: Samples,
    failure: Option<String>,
}

type Client = RunningService<rmcp::RoleClient, ()>;

/// Runs both tools over `parts` and adds the side-by-side rows to `report`.
pub async fn side_by_side(
    work: &Path,
    parts: &[PathBuf],
    queries: &Queries,
    rounds: usize,
    peer_memory_gib: u64,
    report: &mut Report,
) -> anyhow::Result<()> {
    let texts: Vec<&String> = queries
        .by_kind()
        .iter()
        .flat_map(|(_, texts)| texts.iter())
        .collect();
    let esker = measure_esker(work, parts, &texts, rounds).await;
    let peer = Peer::new(work, parts, peer_memory_gib)?;
    let agentsview = peer.measure(&texts, rounds).await;
    peer.stop_daemon();
    add_rows(&esker, &agentsview, report);
    Ok(())
}

async fn measure_esker(
    work: &Path,
    parts: &[PathBuf],
    texts: &[&String],
    rounds: usize,
) -> ToolFigures {
    let mut figures = ToolFigures::default();
    if let Err(error) = esker_steps(work, parts, texts, rounds, &mut figures).await {
        figures.failure = Some(format!("{error:#}"));
    }
    figures
}

async fn esker_steps(
    work: &Path,
    parts: &[PathBuf],
    texts: &[&String],
    rounds: usize,
    figures: &mut ToolFigures,
) -> anyhow::Result<()> {
    let data_dir = fresh_dir(&work.join("peer-esker"))?;
    let run = index_with_child(&data_dir, parts)?;
    figures.full_index = Some(run.elapsed);
    figures.peak_rss_bytes = run.peak_rss_bytes;
    figures.rerun = Some(index_with_child(&data_dir, parts)?.elapsed);
    figures.disk_bytes = disk_bytes(&data_dir);
    let started = Instant::now();
    let command = tokio::process::Command::new(ESKER).configure(|command| {
        command
            .args(["serve", "--no-index", "--data-dir"])
            .arg(&data_dir);
    });
    let client = ().serve(TokioChildProcess::new(command)?).await?;
    let search = |text: &str| json!({"query": text, "n_hits": 10});
    hit_count(&client, search(texts[0])).await?;
    figures.cold_start = Some(started.elapsed());
    searches(&client, texts, rounds, search, figures).await?;
    let log = claude_log(parts)?;
    for round in 0..APPENDS {
        let word = format!("eskerpeerappend{round}q{}", std::process::id());
        let started = Instant::now();
        append_claude_line(&log, &word)?;
        index_with_child(&data_dir, parts)?;
        wait_until_found(&client, search(&word)).await?;
        figures.append_to_searchable.record(started.elapsed());
    }
    let watcher = Watcher::start(&data_dir, parts)?;
    for round in 0..APPENDS {
        let word = format!("eskerwatchappend{round}q{}", std::process::id());
        let started = Instant::now();
        append_claude_line(&log, &word)?;
        wait_until_found(&client, search(&word)).await?;
        figures.append_watched.record(started.elapsed());
    }
    drop(watcher);
    client.cancel().await?;
    Ok(())
}

/// A running `esker index --watch` over the parts (what `esker serve` runs in the background
/// for the default locations), stopped when dropped.
struct Watcher(std::process::Child);

/// How long the watcher's first pass (a no-change pass over the whole corpus) may take.
const FIRST_PASS_WITHIN: Duration = Duration::from_secs(300);

impl Watcher {
    /// Starts the watcher and returns once its first pass has printed its summary.
    fn start(data_dir: &Path, parts: &[PathBuf]) -> anyhow::Result<Watcher> {
        let log_path = data_dir.with_extension("watch.log");
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(ESKER)
            .args(["index", "--watch", "--quiet", "--data-dir"])
            .arg(data_dir)
            .args(parts)
            .stdout(Stdio::from(log.try_clone()?))
            .stderr(Stdio::from(log))
            .spawn()?;
        let mut watcher = Watcher(child);
        let started = Instant::now();
        while !std::fs::read_to_string(&log_path)?.contains("files:") {
            if let Some(status) = watcher.0.try_wait()? {
                anyhow::bail!(
                    "esker index --watch exited with {status} (log: {})",
                    log_path.display()
                );
            }
            anyhow::ensure!(
                started.elapsed() < FIRST_PASS_WITHIN,
                "esker index --watch: no first pass within {FIRST_PASS_WITHIN:?} (log: {})",
                log_path.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(watcher)
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Whether the peer's background server is up (it is once its MCP server has started).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Daemon {
    Off,
    Running,
}

/// The peer's directories, configuration and memory cap.
struct Peer {
    data_dir: PathBuf,
    home: PathBuf,
    parts: Vec<PathBuf>,
    memory_kib: u64,
}

impl Peer {
    fn new(work: &Path, parts: &[PathBuf], memory_gib: u64) -> anyhow::Result<Peer> {
        let data_dir = fresh_dir(&work.join("peer-agentsview"))?;
        let home = fresh_dir(&work.join("peer-home"))?;
        let list = |harness: &str| {
            let dirs: Vec<String> = parts
                .iter()
                .map(|part| format!("{:?}", part.join(harness).display().to_string()))
                .collect();
            dirs.join(", ")
        };
        let config = format!(
            "[agents.claude]\ndirs = [{}]\n\n[agents.codex]\ndirs = [{}]\n\n[agents.gemini]\ndirs = [{}]\n",
            list("claude/projects"),
            list("codex/sessions"),
            list("gemini"),
        );
        std::fs::write(data_dir.join("config.toml"), config)?;
        Ok(Peer {
            data_dir,
            home,
            parts: parts.to_vec(),
            memory_kib: memory_gib * 1024 * 1024,
        })
    }

    /// `agentsview <arguments>` under the memory cap, with only the corpus to read.
    fn command(&self, arguments: &str) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!(
                "ulimit -v {}; exec {PEER} {arguments}",
                self.memory_kib
            ))
            .env("HOME", &self.home)
            .env("AGENTSVIEW_DATA_DIR", &self.data_dir)
            .env_remove("CLAUDE_PROJECTS_DIR")
            .env_remove("CODEX_SESSIONS_DIR")
            .env_remove("GEMINI_DIR");
        command
    }

    async fn measure(&self, texts: &[&String], rounds: usize) -> ToolFigures {
        let mut figures = ToolFigures::default();
        if let Err(error) = self.steps(texts, rounds, &mut figures).await {
            figures.failure = Some(format!("{error:#}"));
        }
        figures
    }

    async fn steps(
        &self,
        texts: &[&String],
        rounds: usize,
        figures: &mut ToolFigures,
    ) -> anyhow::Result<()> {
        let (elapsed, peak) = self.sync("full", Daemon::Off)?;
        figures.full_index = Some(elapsed);
        figures.peak_rss_bytes = peak;
        figures.rerun = Some(self.sync("rerun", Daemon::Off)?.0);
        figures.disk_bytes = disk_bytes(&self.data_dir);
        let started = Instant::now();
        let command = tokio::process::Command::from(self.command("mcp"));
        let client = ().serve(TokioChildProcess::new(command)?).await?;
        let search = |text: &str| json!({"query": text, "limit": 10});
        hit_count(&client, search(texts[0])).await?;
        figures.cold_start = Some(started.elapsed());
        searches(&client, texts, rounds, search, figures).await?;
        let log = claude_log(&self.parts)?;
        for round in 0..APPENDS {
            let word = format!("peerappend{round}q{}", std::process::id());
            let started = Instant::now();
            append_claude_line(&log, &word)?;
            self.sync(&format!("append{round}"), Daemon::Running)?;
            wait_until_found(&client, search(&word)).await?;
            figures.append_to_searchable.record(started.elapsed());
        }
        client.cancel().await?;
        Ok(())
    }

    /// One `agentsview sync`: its wall time and peak RSS (of the sync process: with the
    /// daemon running, the daemon does the work).
    fn sync(&self, label: &str, daemon: Daemon) -> anyhow::Result<(Duration, u64)> {
        let log_path = self.data_dir.with_extension(format!("{label}.log"));
        let log = std::fs::File::create(&log_path)?;
        let started = Instant::now();
        let mut command = self.command("sync");
        if daemon == Daemon::Off {
            command.env("AGENTSVIEW_NO_DAEMON", "1");
        }
        let mut child = command
            .stdout(Stdio::from(log.try_clone()?))
            .stderr(Stdio::from(log))
            .spawn()?;
        let pid = child.id();
        let mut peak = 0;
        while child.try_wait()?.is_none() {
            peak = peak.max(proc_status_bytes(pid, "VmHWM:").unwrap_or_default());
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = child.wait()?;
        let elapsed = started.elapsed();
        if !status.success() {
            let output = std::fs::read_to_string(&log_path).unwrap_or_default();
            let reason = output
                .lines()
                .find(|line| line.contains("out of memory") || line.contains("error"))
                .unwrap_or("no message");
            anyhow::bail!(
                "{PEER} sync ({label}) exited with {status} after {elapsed:.1?}: {reason} (log: {})",
                log_path.display()
            );
        }
        Ok((elapsed, peak))
    }

    fn stop_daemon(&self) {
        let _ = self
            .command("daemon stop")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

async fn searches(
    client: &Client,
    texts: &[&String],
    rounds: usize,
    arguments: impl Fn(&str) -> Value,
    figures: &mut ToolFigures,
) -> anyhow::Result<()> {
    for text in texts.iter().cycle().take(rounds.max(texts.len())) {
        let started = Instant::now();
        let hits = hit_count(client, arguments(text)).await?;
        figures.search.record(started.elapsed());
        figures.searches_with_hits += usize::from(hits > 0);
    }
    Ok(())
}

async fn wait_until_found(client: &Client, arguments: Value) -> anyhow::Result<()> {
    let started = Instant::now();
    while hit_count(client, arguments.clone()).await? == 0 {
        anyhow::ensure!(
            started.elapsed() < SEARCHABLE_WITHIN,
            "an appended line was not searchable within {SEARCHABLE_WITHIN:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Calls `search_sessions` and counts the hits of either answer shape (esker's envelope
/// `data.results`, agentsview's `results` in the text content).
async fn hit_count(client: &Client, arguments: Value) -> anyhow::Result<usize> {
    let Value::Object(arguments) = arguments else {
        anyhow::bail!("arguments must be an object");
    };
    let result = client
        .call_tool(CallToolRequestParams::new("search_sessions").with_arguments(arguments))
        .await?;
    anyhow::ensure!(result.is_error != Some(true), "search failed: {result:?}");
    let answer = answer_json(&result);
    let results = answer
        .pointer("/data/results")
        .or_else(|| answer.get("results"))
        .and_then(Value::as_array);
    Ok(results.map_or(0, Vec::len))
}

fn answer_json(result: &CallToolResult) -> Value {
    if let Some(structured) = &result.structured_content {
        return structured.clone();
    }
    result
        .content
        .iter()
        .find_map(|content| content.as_text())
        .and_then(|text| serde_json::from_str(&text.text).ok())
        .unwrap_or(Value::Null)
}

/// A Claude Code transcript of the last part (both tools read Claude Code).
fn claude_log(parts: &[PathBuf]) -> anyhow::Result<PathBuf> {
    let last = parts.last().ok_or_else(|| anyhow::anyhow!("no parts"))?;
    walkdir::WalkDir::new(last.join("claude/projects"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .find(|entry| {
            entry.file_type().is_file()
                && entry.path().extension().is_some_and(|ext| ext == "jsonl")
                && !entry.path().to_string_lossy().contains("/subagents/")
        })
        .map(|entry| entry.into_path())
        .ok_or_else(|| anyhow::anyhow!("no Claude Code log to append to"))
}

/// Appends a user line carrying `word` to a Claude Code transcript, chained to its last line.
fn append_claude_line(log: &Path, word: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let text = std::fs::read_to_string(log)?;
    let last: Value = text
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
        .ok_or_else(|| anyhow::anyhow!("{} has no JSON line", log.display()))?;
    let mut line = last.clone();
    let uuid = format!(
        "{:08x}-0000-4000-8000-{:012x}",
        std::process::id(),
        text.len()
    );
    line["parentUuid"] = last["uuid"].clone();
    line["uuid"] = json!(uuid);
    line["type"] = json!("user");
    line["timestamp"] =
        json!(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    line["message"] = json!({"role": "user", "content": format!("Please look at {word} next.")});
    for key in [
        "requestId",
        "toolUseResult",
        "subtype",
        "durationMs",
        "messageCount",
        "isMeta",
    ] {
        line.as_object_mut().map(|fields| fields.remove(key));
    }
    let mut file = std::fs::OpenOptions::new().append(true).open(log)?;
    writeln!(file, "{line}")?;
    Ok(())
}

fn fresh_dir(path: &Path) -> anyhow::Result<PathBuf> {
    if path.exists() {
        std::fs::remove_dir_all(path)?;
    }
    std::fs::create_dir_all(path)?;
    Ok(path.to_path_buf())
}

fn add_rows(esker: &ToolFigures, peer: &ToolFigures, report: &mut Report) {
    for (name, figures) in [("esker", esker), (PEER, peer)] {
        if let Some(failure) = &figures.failure {
            report.figure(
                &format!("{name}: stopped"),
                failure.clone(),
                "",
                Some(false),
            );
        }
    }
    let seconds = |value: Option<Duration>| value.map(|value| value.as_secs_f64());
    compare(
        report,
        "full index (s)",
        seconds(esker.full_index),
        seconds(peer.full_index),
    );
    compare(
        report,
        "no-change re-run (s)",
        seconds(esker.rerun),
        seconds(peer.rerun),
    );
    let mib = |bytes: u64| (bytes > 0).then(|| bytes as f64 / MIB);
    compare(
        report,
        "index peak RSS (MiB)",
        mib(esker.peak_rss_bytes),
        mib(peer.peak_rss_bytes),
    );
    compare(
        report,
        "bytes on disk (MiB)",
        mib(esker.disk_bytes),
        mib(peer.disk_bytes),
    );
    let millis = |value: Option<Duration>| value.map(|value| value.as_secs_f64() * 1000.0);
    compare(
        report,
        "MCP cold start → first search (ms)",
        millis(esker.cold_start),
        millis(peer.cold_start),
    );
    let p50 = |samples: &Samples| (samples.len() > 0).then(|| samples.percentile(0.5));
    compare(
        report,
        "search_sessions over MCP, p50 (ms)",
        p50(&esker.search),
        p50(&peer.search),
    );
    compare(
        report,
        "append → searchable, p50 (ms)",
        p50(&esker.append_to_searchable),
        p50(&peer.append_to_searchable),
    );
    compare(
        report,
        "append → searchable, esker's watcher, p50 (ms)",
        p50(&esker.append_watched),
        p50(&peer.append_to_searchable),
    );
    report.figure(
        "searches with at least one hit (esker / agentsview)",
        format!(
            "{} of {} / {} of {}",
            esker.searches_with_hits,
            esker.search.len(),
            peer.searches_with_hits,
            peer.search.len()
        ),
        "",
        None,
    );
    for (name, figures) in [("esker", esker), (PEER, peer)] {
        report.latency(
            format!("{name}: search_sessions over MCP"),
            figures.search.clone(),
            None,
        );
        report.latency(
            format!("{name}: append → searchable"),
            figures.append_to_searchable.clone(),
            None,
        );
    }
    report.latency(
        "esker: append → searchable through `esker index --watch`",
        esker.append_watched.clone(),
        None,
    );
}

/// One row: both values and the ratio agentsview / esker (> 1: esker is ahead).
fn compare(report: &mut Report, name: &str, esker: Option<f64>, peer: Option<f64>) {
    let show = |value: Option<f64>| value.map_or("—".to_owned(), |value| format!("{value:.1}"));
    let ratio = match (esker, peer) {
        (Some(esker), Some(peer)) if esker > 0.0 => format!("{:.1}×", peer / esker),
        _ => "—".to_owned(),
    };
    let ahead = match (esker, peer) {
        (Some(esker), Some(peer)) => Some(esker <= peer),
        (Some(_), None) => Some(true),
        _ => None,
    };
    report.figure(
        name,
        format!(
            "esker {} · {PEER} {} · ratio {ratio}",
            show(esker),
            show(peer)
        ),
        "esker ahead",
        ahead,
    );
}
