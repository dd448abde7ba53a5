//! Indexing measurements: runs the release `esker index` as a child process (so its peak RSS
//! is its own, read from `/proc/<pid>/status` `VmHWM` while it runs), sizes the store on disk,
//! and times single-event appends committed through the library.

use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use esker::indexer::run::{IndexOptions, index_paths};
use esker::store::Store;

use crate::stats::Samples;

pub const ESKER: &str = env!("CARGO_BIN_EXE_esker");

/// One `esker index` run.
#[derive(Debug, Clone, Default)]
pub struct IndexRun {
    pub elapsed: Duration,
    pub peak_rss_bytes: u64,
    pub summary_line: String,
}

/// Indexes `paths` into `data_dir` with the release binary, sampling its peak RSS.
pub fn index_with_child(data_dir: &Path, paths: &[PathBuf]) -> anyhow::Result<IndexRun> {
    // Output goes to a file: a pipe nobody reads while the child runs would block it.
    let log_path = data_dir.with_extension("index.log");
    let log = std::fs::File::create(&log_path)?;
    let started = Instant::now();
    let mut child = Command::new(ESKER)
        .arg("index")
        .arg("--data-dir")
        .arg(data_dir)
        .args(paths)
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log))
        .spawn()?;
    let pid = child.id();
    let mut peak_rss_bytes = 0;
    while child.try_wait()?.is_none() {
        if let Some(hwm) = proc_status_bytes(pid, "VmHWM:") {
            peak_rss_bytes = peak_rss_bytes.max(hwm);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait()?;
    let elapsed = started.elapsed();
    let output = std::fs::read_to_string(&log_path).unwrap_or_default();
    anyhow::ensure!(status.success(), "esker index failed: {output}");
    let summary_line = output
        .lines()
        .rfind(|line| line.contains("files:"))
        .unwrap_or_default()
        .to_owned();
    Ok(IndexRun {
        elapsed,
        peak_rss_bytes,
        summary_line,
    })
}

/// A `kB` field of `/proc/<pid>/status`, in bytes.
pub fn proc_status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

/// Bytes of all regular files under `path`, each file counted once however many hard links
/// name it (as `du` counts): a store's generations share their files through hard links.
pub fn disk_bytes(path: &Path) -> u64 {
    let mut seen = std::collections::HashSet::new();
    walkdir::WalkDir::new(path)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| entry.metadata().ok())
        .filter(|metadata| seen.insert((metadata.dev(), metadata.ino())))
        .map(|metadata| metadata.len())
        .sum()
}

/// Appends to the Codex rollout `log` one assistant message saying `text`, stamped
/// 2026-05-30 at `hour`:00 and `round` % 60 seconds.
pub fn append_codex_message(log: &Path, hour: u32, round: usize, text: &str) -> anyhow::Result<()> {
    let line = format!(
        "{{\"timestamp\":\"2026-05-30T{hour:02}:00:{:02}.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{text}\"}}]}}}}\n",
        round % 60
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(log)?
        .write_all(line.as_bytes())?;
    Ok(())
}

/// Appends one Codex agent message to `log` and commits it, `rounds` + 1 times; returns the
/// latency of the first append + index pass + commit after opening the store (it loads the
/// store's state) and of each of the `rounds` after it.
pub async fn append_latencies(
    data_dir: &Path,
    log: &Path,
    rounds: usize,
) -> anyhow::Result<(f64, Samples)> {
    let store = Store::open(data_dir)?;
    let options = IndexOptions {
        paths: vec![log.to_path_buf()],
        ..IndexOptions::default()
    };
    let mut first = None;
    let mut samples = Samples::default();
    for round in 0..=rounds {
        let started = Instant::now();
        append_codex_message(log, 12, round, &format!("appended benchmark note {round}"))?;
        let summary = index_paths(&store, &options).await?;
        match first {
            None => first = Some(started.elapsed().as_secs_f64() * 1000.0),
            Some(_) => samples.record(started.elapsed()),
        }
        anyhow::ensure!(
            summary.files_ingested == 1,
            "append not ingested: {summary}"
        );
    }
    Ok((first.unwrap_or_default(), samples))
}
