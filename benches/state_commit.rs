//! What saving the store state costs a commit, at the size of a 10M-document store: a first
//! indexing pass of `--sessions` sessions (one log file each) in `--commits` bulk commits (a
//! 10M pass commits ~146 batches of 128 MB, ~6.7k new sessions each, spread over every state
//! shard), then single-session appends against the full state. Each commit is
//! `StoreState::save_changed` into a fresh generation directory linked from the previous one,
//! exactly as `store::commit::finish_generation` calls it. Prints p50/p95/p99 per kind of
//! commit, the whole pass, and the bytes of the last generation's state.
//!
//! Run: `cargo bench --bench state_commit -- [--sessions 976000] [--commits 146] [--appends 50]
//! [--max-deltas N] [--evict]` (`--max-deltas 1`: every changed shard rewritten whole, as
//! format 7 did; `--evict`: each commit's entries dropped from memory after it, as the indexer
//! does since it evicts, so the peak RSS printed is the state's at the pass's end either way).
//!
//! Also the other per-commit cost that grows with the store, the continuation chains: a bulk
//! commit of new sessions (some joining stored chains) relinks either every session's chain
//! keys (`link_continuations` over the whole table, as before) or only the chains the touched
//! sessions reach (`rows_in_touched_chains`), timed apart over the same key columns.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use datafusion::arrow::compute::{and, concat_batches, filter_record_batch, is_not_null, not};
use datafusion::arrow::record_batch::RecordBatch;
use esker::store::chains::{
    ChainKeyRow, chain_key_batch, chain_positions, link_continuations, rows_in_touched_chains,
};
use esker::store::parquet_io::column_strings;
use esker::store::state::{ChangedKeys, Checkpoint, SessionLocation, StoreState};

// The allocator the shipped binary runs, so that these figures are the server's.
esker::shipped_allocator!();

struct Options {
    sessions: usize,
    commits: usize,
    appends: usize,
    /// Deltas a shard may have; 1 rewrites every changed shard whole (format 7's commits).
    max_deltas: Option<usize>,
    /// Drop each commit's entries from memory after it (`StoreState::evict`).
    evict: bool,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        sessions: 976_000,
        commits: 146,
        appends: 50,
        max_deltas: None,
        evict: false,
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        let mut value = || -> anyhow::Result<usize> {
            let text = arguments
                .next()
                .ok_or_else(|| anyhow::anyhow!("{argument} needs a value"))?;
            Ok(text.replace('_', "").parse()?)
        };
        match argument.as_str() {
            "--sessions" => options.sessions = value()?,
            "--commits" => options.commits = value()?.max(1),
            "--appends" => options.appends = value()?,
            "--max-deltas" => options.max_deltas = Some(value()?),
            "--evict" => options.evict = true,
            "--bench" => {}
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    Ok(options)
}

/// A log path, session id and state entries shaped like a Codex rollout's.
fn entries(number: usize) -> (String, Checkpoint, String, SessionLocation) {
    let uuid = format!(
        "019a{:04x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        number % 0xffff,
        (number / 7) % 0xffff,
        number % 0xfff,
        (number / 3) % 0xfff,
        number.wrapping_mul(2_654_435_761)
    );
    let path = format!(
        "/home/dev/.codex/sessions/2026/{:02}/{:02}/rollout-2026-05-01T10-00-00-{uuid}.jsonl",
        1 + number % 12,
        1 + number % 28
    );
    let session_id = format!("session:codex-{uuid}");
    let checkpoint = Checkpoint {
        size: 20_000 + (number as u64 % 50_000),
        mtime_ns: 1_780_000_000_000_000_000 + number as i128,
        device: 2049,
        inode: 1_000_000 + number as u64,
        complete_offset: 20_000 + (number as u64 % 50_000),
        content_hash: format!(
            "{:032x}",
            (number as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ),
        format: "codex".to_string(),
        sessions: vec![session_id.clone()],
        malformed_lines: 0,
        sidecar_hash: String::new(),
    };
    let location = SessionLocation {
        partition: format!("source=codex/month=2026-{:02}", 1 + number % 12),
        source_path: path.clone(),
        event_count: 10 + (number as u64 % 40),
        events_digest: Some(format!(
            "{:064x}",
            (number as u128).wrapping_mul(0x2545_f491_4f6c_dd1d)
        )),
    };
    (path, checkpoint, session_id, location)
}

/// Adds sessions `range` (a checkpoint and a location each) and returns the keys it changed.
fn add_sessions(state: &mut StoreState, range: std::ops::Range<usize>) -> ChangedKeys {
    let mut changed = ChangedKeys::default();
    for number in range {
        let (path, checkpoint, session_id, location) = entries(number);
        state.checkpoints.insert(path.clone(), checkpoint);
        state.sessions.insert(session_id.clone(), location);
        changed.checkpoints.push(path);
        changed.sessions.push(session_id);
    }
    changed
}

/// Generation directories, each created empty for its commit.
struct Generations {
    root: PathBuf,
    next: usize,
}

impl Generations {
    fn create(&mut self) -> anyhow::Result<PathBuf> {
        let path = self.root.join(format!("g{:06}", self.next));
        self.next += 1;
        std::fs::create_dir_all(&path)?;
        Ok(path)
    }
}

/// Saves `state` into a new generation after `previous` and times it.
fn commit(
    state: &mut StoreState,
    generations: &mut Generations,
    previous: &Path,
    changed: &ChangedKeys,
) -> anyhow::Result<(PathBuf, Duration)> {
    let root = generations.create()?;
    let started = Instant::now();
    state.save_changed(&root, previous, changed)?;
    let elapsed = started.elapsed();
    // Keep two generations on disk, as the store does.
    if generations.next >= 3 {
        let old = generations
            .root
            .join(format!("g{:06}", generations.next - 3));
        std::fs::remove_dir_all(old)?;
    }
    Ok((root, elapsed))
}

fn percentiles(label: &str, samples: &mut [Duration]) {
    samples.sort();
    let at = |fraction: f64| {
        let index = ((samples.len() as f64 * fraction).ceil() as usize).clamp(1, samples.len());
        samples[index - 1].as_secs_f64() * 1e3
    };
    let total: f64 = samples.iter().map(Duration::as_secs_f64).sum();
    println!(
        "| {label} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
        samples.len(),
        at(0.50),
        at(0.95),
        at(0.99),
        total
    );
}

/// The process's peak resident set (`VmHWM`), MiB; 0 where /proc is absent.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn directory_bytes(path: &Path) -> u64 {
    walkdir::WalkDir::new(path)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|entry| entry.metadata().ok())
        .filter(|metadata| metadata.is_file())
        .map(|metadata| metadata.len())
        .sum()
}

fn main() -> anyhow::Result<()> {
    let options = parse_options()?;
    let work = tempfile::tempdir()?;
    let mut generations = Generations {
        root: work.path().to_path_buf(),
        next: 0,
    };
    let mut state = StoreState::default();
    if let Some(max_deltas) = options.max_deltas {
        state.set_max_deltas(max_deltas);
    }
    let mut previous = generations.create()?;
    state.save(&previous)?;

    let per_commit = options.sessions.div_ceil(options.commits);
    let mut bulk = Vec::new();
    let pass_started = Instant::now();
    for commit_number in 0..options.commits {
        let first = commit_number * per_commit;
        let end = (first + per_commit).min(options.sessions);
        let changed = add_sessions(&mut state, first..end);
        let (root, elapsed) = commit(&mut state, &mut generations, &previous, &changed)?;
        bulk.push(elapsed);
        previous = root;
        if options.evict {
            state.evict(&changed);
        }
    }
    let pass = pass_started.elapsed();
    let pass_peak = peak_rss_mib();
    let in_memory = state.sessions.len();

    let mut appends = Vec::new();
    for append in 0..options.appends {
        let number = (append * 7_919) % options.sessions.max(1);
        let (path, _, session_id, _) = entries(number);
        state.ensure_loaded([path.as_str(), session_id.as_str()])?;
        if let Some(checkpoint) = state.checkpoints.get_mut(&path) {
            checkpoint.size += 500;
            checkpoint.complete_offset += 500;
        }
        if let Some(location) = state.sessions.get_mut(&session_id) {
            location.event_count += 1;
        }
        let changed = ChangedKeys {
            checkpoints: vec![path],
            sessions: vec![session_id],
        };
        let (root, elapsed) = commit(&mut state, &mut generations, &previous, &changed)?;
        appends.push(elapsed);
        previous = root;
    }

    let appends_peak = peak_rss_mib();
    let reload_started = Instant::now();
    let reloaded = StoreState::load(&previous)?;
    let reload = reload_started.elapsed();
    state.ensure_all_loaded()?;
    anyhow::ensure!(
        reloaded.sessions.len() == state.sessions.len()
            && reloaded.checkpoints.len() == state.checkpoints.len(),
        "the saved state reads back with {} sessions, {} expected",
        reloaded.sessions.len(),
        state.sessions.len()
    );

    println!(
        "state_commit: {} sessions in {} bulk commits ({per_commit} each), then {} appends; \
         max deltas per shard {}",
        options.sessions,
        options.commits,
        options.appends,
        options
            .max_deltas
            .map_or("default".to_string(), |max| max.to_string())
    );
    println!("| commit | n | p50 ms | p95 ms | p99 ms | total s |");
    println!("|---|---|---|---|---|---|");
    percentiles("bulk (new sessions in every shard)", &mut bulk);
    percentiles("append (one session)", &mut appends);
    println!(
        "whole pass: {:.1} s; full load of the last state: {:.0} ms; its files: {:.1} MB",
        pass.as_secs_f64(),
        reload.as_secs_f64() * 1e3,
        directory_bytes(&previous) as f64 / 1e6
    );
    println!(
        "peak RSS: {pass_peak:.0} MiB after the pass ({in_memory} session locations in \
         memory; evict: {}), {appends_peak:.0} MiB after the appends",
        options.evict
    );
    chains(options.sessions, options.sessions.div_ceil(options.commits))
}

/// The chain key columns of sessions `range`: a third carry a slug shared by three sessions
/// (a chain), one in ten is a sub-agent, one in fifty a fork.
fn chain_keys(range: std::ops::Range<usize>) -> anyhow::Result<RecordBatch> {
    let id = |number: usize| format!("session:claude-{number:012}");
    let rows: Vec<ChainKeyRow> = range
        .map(|number| ChainKeyRow {
            session_id: id(number),
            source: "claude".to_string(),
            slug: (number % 3 == 0).then(|| format!("slug-{}", number / 9)),
            parent: (number % 10 == 7).then(|| id(number - 1)),
            forked_from: (number % 50 == 11).then(|| id(number - 5)),
            started_at_micros: number as i64 * 1_000,
            updated_at_micros: number as i64 * 1_000 + 500,
        })
        .collect();
    chain_key_batch(&rows).map_err(anyhow::Error::msg)
}

/// Times one bulk commit's chain work at `stored` sessions, both ways.
fn chains(stored: usize, added: usize) -> anyhow::Result<()> {
    let stored_rows = link_continuations(&chain_keys(0..stored)?).map_err(anyhow::Error::msg)?;
    let new_rows = chain_keys(stored..stored + added)?;
    let keys = concat_batches(&stored_rows.schema(), [&stored_rows, &new_rows])?;

    let started = Instant::now();
    let all_before = chain_positions(&keys).map_err(anyhow::Error::msg)?;
    let all_after = chain_positions(&link_continuations(&keys).map_err(anyhow::Error::msg)?)
        .map_err(anyhow::Error::msg)?;
    let ids = column_strings(&keys, "session_id").map_err(anyhow::Error::msg)?;
    let every_row = started.elapsed();

    let started = Instant::now();
    let marked = rows_in_touched_chains(&keys, &[&new_rows]).map_err(anyhow::Error::msg)?;
    let subset = filter_record_batch(&keys, &marked)?;
    let subset_after = chain_positions(&link_continuations(&subset).map_err(anyhow::Error::msg)?)
        .map_err(anyhow::Error::msg)?;
    let chained = keys
        .column_by_name("chain_id")
        .ok_or_else(|| anyhow::anyhow!("no chain_id"))?;
    let kept = filter_record_batch(&keys, &and(&not(&marked)?, &is_not_null(chained)?)?)?;
    let kept_positions = chain_positions(&kept).map_err(anyhow::Error::msg)?;
    let touched_chains = started.elapsed();

    anyhow::ensure!(all_before.len() == ids.len() && all_after.len() == ids.len());
    println!(
        "chains, one bulk commit of {added} new sessions over {stored}: relink every session \
         {:.0} ms; relink the touched chains {:.0} ms ({} rows relinked, {} chained rows kept, \
         {} relinked positions)",
        every_row.as_secs_f64() * 1e3,
        touched_chains.as_secs_f64() * 1e3,
        marked.true_count(),
        kept.num_rows(),
        subset_after.len() + kept_positions.len()
    );
    Ok(())
}
