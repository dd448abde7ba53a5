//! Ingest benchmark: indexes the real corpus (`../shared/corpus`, or `tests/fixtures`)
//! replicated N times under fresh session ids, then measures a no-change rerun and single-line
//! appends. Prints MB/s and p50/p95/p99 of the append latency.
//!
//! Run: `cargo bench --bench ingest_throughput -- [COPIES]` (default 20 copies).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use esker::indexer::run::{IndexOptions, discover_files, index_paths};
use esker::store::Store;

fn corpus_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = manifest.join("../shared/corpus");
    if corpus.is_dir() {
        corpus
    } else {
        manifest.join("tests/fixtures")
    }
}

/// Copies every session log under `source` into `target`, replacing each uuid-looking session
/// id (taken from the file name) by a copy-specific one, so every copy is a distinct session.
fn replicate(source: &Path, target: &Path, copies: usize) -> (usize, u64) {
    let source = source.canonicalize().expect("corpus path");
    let files = discover_files(std::slice::from_ref(&source));
    let mut written_files = 0;
    let mut written_bytes = 0;
    for copy in 0..copies {
        for file in &files {
            let Ok(text) = fs::read_to_string(file) else {
                continue;
            };
            let relative = file
                .strip_prefix(&source)
                .expect("discovered files lie under the corpus");
            let name = relative.to_string_lossy().into_owned();
            let replaced_text = replace_ids(&text, &name, copy);
            let replaced_name = replace_ids(&name, &name, copy);
            let destination = target.join(format!("copy{copy}")).join(replaced_name);
            assert!(
                destination.starts_with(target),
                "copies stay in {}",
                target.display()
            );
            if let Some(parent) = destination.parent() {
                fs::create_dir_all(parent).expect("create copy dir");
            }
            fs::write(&destination, &replaced_text).expect("write copy");
            written_files += 1;
            written_bytes += replaced_text.len() as u64;
        }
    }
    (written_files, written_bytes)
}

/// Replaces the 36-char uuids found in `name` by ones whose last 4 hex digits encode `copy`.
fn replace_ids(text: &str, name: &str, copy: usize) -> String {
    let mut result = text.to_string();
    for uuid in uuids_in(name) {
        let replacement = format!("{}{:04x}", &uuid[..32], copy % 0xffff);
        result = result.replace(&uuid, &replacement);
    }
    result
}

fn uuids_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for start in 0..bytes.len().saturating_sub(35) {
        let candidate = &text[start..start + 36];
        let is_uuid = candidate
            .char_indices()
            .all(|(index, character)| match index {
                8 | 13 | 18 | 23 => character == '-',
                _ => character.is_ascii_hexdigit(),
            });
        if is_uuid && !found.iter().any(|seen: &String| seen == candidate) {
            found.push(candidate.to_string());
        }
    }
    found
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let copies: usize = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(20);
    let logs = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("temp dir");
    let (files, bytes) = replicate(&corpus_root(), logs.path(), copies);
    let store = Store::open(data.path()).expect("open store");
    let options = IndexOptions {
        paths: vec![logs.path().to_path_buf()],
        ..IndexOptions::default()
    };

    let started = Instant::now();
    let summary = index_paths(&store, &options).await.expect("full index");
    let full = started.elapsed();
    println!(
        "full index: {files} files, {:.1} MB, {} events in {:.2}s = {:.1} MB/s, {:.0} events/s",
        bytes as f64 / 1e6,
        summary.new_events,
        full.as_secs_f64(),
        bytes as f64 / 1e6 / full.as_secs_f64(),
        summary.new_events as f64 / full.as_secs_f64()
    );

    let started = Instant::now();
    let rerun = index_paths(&store, &options).await.expect("rerun");
    println!(
        "no-change rerun: {:.1} ms ({} unchanged)",
        started.elapsed().as_secs_f64() * 1e3,
        rerun.files_unchanged
    );

    let target = discover_files(&[logs.path().to_path_buf()])
        .into_iter()
        .find(|path| {
            path.to_string_lossy().contains("/claude/")
                && path.extension().is_some_and(|e| e == "jsonl")
        })
        .expect("a claude log to append to");
    let mut latencies = Vec::new();
    for round in 0..30 {
        let session_id = target
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned());
        let line = serde_json::json!({
            "type": "user", "uuid": format!("bench-append-{round}"), "parentUuid": null,
            "sessionId": session_id, "timestamp": "2026-03-02T09:00:00.000Z", "isSidechain": false,
            "message": {"role": "user", "content": format!("appended prompt {round}")}
        });
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&target)
            .expect("open");
        writeln!(file, "{line}").expect("append");
        let started = Instant::now();
        index_paths(&store, &options).await.expect("append index");
        latencies.push(started.elapsed());
    }
    latencies.sort();
    println!(
        "append one line + commit: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.95).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3
    );
}
