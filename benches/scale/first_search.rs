//! Time to first search (issue #53): a first `esker index` of the kept corpus into a fresh data
//! dir, with `esker search` asked every 250 ms while it runs, until a search answers with a
//! hit. A pass commits its first 16 MiB early (`indexer::run::FIRST_COMMIT_BYTES`), so the
//! first answer comes long before the pass ends.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::stats::Report;

const ESKER: &str = env!("CARGO_BIN_EXE_esker");
const ASK_EVERY: Duration = Duration::from_millis(250);

/// Indexes `parts` into `data_dir` (which must not hold a store yet), searching for `query`
/// while it runs.
pub fn time_to_first_search(
    data_dir: &Path,
    parts: &[PathBuf],
    query: &str,
    report: &mut Report,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        !data_dir.exists(),
        "{} exists: time to first search needs a fresh data dir",
        data_dir.display()
    );
    let log = std::fs::File::create(data_dir.with_extension("first-search.log"))?;
    let started = Instant::now();
    let mut index = Command::new(ESKER)
        .args(["index", "--quiet", "--data-dir"])
        .arg(data_dir)
        .args(parts)
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()?;
    let mut first_hit = None;
    let mut asked = 0;
    while index.try_wait()?.is_none() {
        std::thread::sleep(ASK_EVERY);
        if first_hit.is_none() {
            asked += 1;
            if search_hits(data_dir, query)? > 0 {
                first_hit = Some(started.elapsed());
                eprintln!("first search hit after {:.1?}", started.elapsed());
            }
        }
    }
    let status = index.wait()?;
    let whole = started.elapsed();
    anyhow::ensure!(status.success(), "esker index failed");
    let first_hit = match first_hit {
        Some(first_hit) => first_hit,
        None => {
            anyhow::ensure!(
                search_hits(data_dir, query)? > 0,
                "no hit for {query:?} at all"
            );
            whole
        }
    };
    report.figure(
        "time to first search hit (first index, searched every 250 ms)",
        format!("{:.1} s ({asked} searches asked)", first_hit.as_secs_f64()),
        "≤ 10 s",
        Some(first_hit <= Duration::from_secs(10)),
    );
    report.figure(
        "the same first index, whole",
        format!("{:.1} s", whole.as_secs_f64()),
        "",
        None,
    );
    Ok(())
}

/// How many hits `esker search` answers for `query` now (0 while no store is committed).
fn search_hits(data_dir: &Path, query: &str) -> anyhow::Result<usize> {
    let output = Command::new(ESKER)
        .args(["search", "--json", "--limit", "5", "--data-dir"])
        .arg(data_dir)
        .arg(query)
        .env("HOME", "/nonexistent-esker-bench-home")
        .stderr(Stdio::null())
        .output()?;
    if !output.status.success() {
        return Ok(0);
    }
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    Ok(answer["results"].as_array().map_or(0, Vec::len))
}
