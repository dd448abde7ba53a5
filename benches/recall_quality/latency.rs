//! Timing recall: in-process through the library function behind `esker recall`
//! ([`esker::cli::recall::recall`], which opens the store on every call, as each hook run
//! does), and as the agent runs it: the release binary's `esker recall --hook claude-code`
//! as a child process, hook JSON on stdin, its default 1 s deadline, timed from spawn to exit.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use esker::cli::recall::{DEFAULT_BUDGET, RecallOptions, recall};
use serde_json::json;

/// The binary cargo built for this bench (the bench profile: a release build).
pub const ESKER: &str = env!("CARGO_BIN_EXE_esker");

/// The hook's latency target (issue #52): p95 within 150 ms at 1M documents.
pub const TARGET_P95_MS: f64 = 150.0;

#[path = "../common/samples.rs"]
mod samples;
pub use samples::Samples;

/// One latency row of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub samples: Samples,
    /// Calls whose answer was empty (nothing relevant, an error, or the deadline).
    pub empty: usize,
    /// Whether the p95 target applies to the row.
    pub target: bool,
}

/// The latency table.
pub fn markdown(rows: &[Row]) -> String {
    let mut text = String::from(
        "| recall latency | n | empty answers | p50 ms | p95 ms | p99 ms | target |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let p95 = row.samples.percentile(0.95);
        let verdict = if !row.target {
            String::new()
        } else if p95 <= TARGET_P95_MS {
            format!("p95 ≤ {TARGET_P95_MS} ms: met")
        } else {
            format!("p95 ≤ {TARGET_P95_MS} ms: MISSED")
        };
        text.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {} |\n",
            row.name,
            row.samples.len(),
            row.empty,
            row.samples.percentile(0.5),
            p95,
            row.samples.percentile(0.99),
            verdict
        ));
    }
    text
}

/// A prompt asked from a working directory.
#[derive(Debug, Clone)]
pub struct Ask {
    pub text: String,
    pub cwd: String,
}

/// The options `esker recall --prompt TEXT --cwd DIR --data-dir DIR` runs with.
pub fn options(data_dir: &Path, ask: &Ask) -> RecallOptions {
    RecallOptions {
        prompt: Some(ask.text.clone()),
        cwd: Some(PathBuf::from(&ask.cwd)),
        budget: DEFAULT_BUDGET,
        data_dir: data_dir.to_path_buf(),
        hook: None,
        deadline: None,
        resident: false,
    }
}

/// `rounds` in-process recalls cycling through `asks`, after a warm-up of three.
pub async fn in_process(
    data_dir: &Path,
    asks: &[Ask],
    rounds: usize,
    name: String,
) -> anyhow::Result<Row> {
    anyhow::ensure!(!asks.is_empty(), "no prompts to time");
    for ask in asks.iter().take(3) {
        let _ = recall(&options(data_dir, ask)).await;
    }
    let mut samples = Samples::default();
    let mut empty = 0;
    for round in 0..rounds {
        let options = options(data_dir, &asks[round % asks.len()]);
        let started = Instant::now();
        let block = recall(&options).await;
        samples.record(started.elapsed());
        if block.map(|block| block.is_empty()).unwrap_or(true) {
            empty += 1;
        }
    }
    Ok(Row {
        name,
        samples,
        empty,
        target: false,
    })
}

/// The Claude Code `UserPromptSubmit` input for `ask`.
fn hook_input(ask: &Ask) -> String {
    json!({
        "session_id": "esker-recall-bench",
        "transcript_path": "/tmp/esker-recall-bench.jsonl",
        "cwd": ask.cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": ask.text,
    })
    .to_string()
}

/// How a hook run recalls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `ESKER_RECALL_RESIDENT=0`: the hook opens the store itself.
    Cold,
    /// The default: the store's resident recall answers (the first run starts it).
    Resident,
}

impl Mode {
    /// How a row names it.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Cold => "cold, `ESKER_RECALL_RESIDENT=0`",
            Mode::Resident => "resident recall",
        }
    }
}

/// One `esker recall --hook claude-code` run: its stdout and how long it took.
pub fn hook_once(
    data_dir: &Path,
    home: &Path,
    ask: &Ask,
    mode: Mode,
) -> anyhow::Result<(String, Duration)> {
    let input = hook_input(ask);
    let started = Instant::now();
    let mut child = Command::new(ESKER)
        .arg("recall")
        .arg("--data-dir")
        .arg(data_dir)
        .args(["--hook", "claude-code"])
        .env("HOME", home)
        .env_remove("ESKER_LOG")
        .env_remove("ESKER_DATA_DIR")
        .env(
            "ESKER_RECALL_RESIDENT",
            if mode == Mode::Resident { "1" } else { "0" },
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // recall may answer (and exit) before reading all of it.
        let _ = stdin.write_all(input.as_bytes());
    }
    let output = child.wait_with_output()?;
    let elapsed = started.elapsed();
    anyhow::ensure!(
        output.status.success(),
        "esker recall exited with {}",
        output.status
    );
    Ok((
        String::from_utf8_lossy(&output.stdout).into_owned(),
        elapsed,
    ))
}

/// `rounds` hook runs cycling through `asks`, after a warm-up of three (in [`Mode::Resident`],
/// the warm-up starts the resident, which is waited for, and stopped after the rounds).
pub fn hook_runs(
    data_dir: &Path,
    home: &Path,
    asks: &[Ask],
    rounds: usize,
    mode: Mode,
    name: String,
) -> anyhow::Result<Row> {
    anyhow::ensure!(!asks.is_empty(), "no prompts to time");
    for ask in asks.iter().take(3) {
        hook_once(data_dir, home, ask, mode)?;
    }
    let _resident = match mode {
        Mode::Resident => Some(Resident::wait_for(data_dir)?),
        Mode::Cold => None,
    };
    let mut samples = Samples::default();
    let mut empty = 0;
    for round in 0..rounds {
        let (output, elapsed) = hook_once(data_dir, home, &asks[round % asks.len()], mode)?;
        samples.record(elapsed);
        if output.trim().is_empty() {
            empty += 1;
        }
    }
    Ok(Row {
        name,
        samples,
        empty,
        target: true,
    })
}

/// A running resident recall, stopped when dropped (its socket removed: it exits).
pub struct Resident {
    socket: PathBuf,
}

impl Resident {
    /// Waits up to a minute for the store's resident to listen.
    pub fn wait_for(data_dir: &Path) -> anyhow::Result<Resident> {
        let socket = data_dir.join(esker::cli::recall::resident::SOCKET_NAME);
        let started = Instant::now();
        while !socket.exists() {
            anyhow::ensure!(
                started.elapsed() < Duration::from_secs(60),
                "no resident recall listens at {}",
                socket.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Resident { socket })
    }
}

impl Drop for Resident {
    /// Removes the socket and waits (up to 5 s) for the resident to release its lock, so the
    /// next hook can start another.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
        let lock = self
            .socket
            .with_file_name(esker::cli::recall::resident::LOCK_NAME);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            let free = std::fs::File::open(&lock).is_ok_and(|file| file.try_lock().is_ok());
            if free {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
