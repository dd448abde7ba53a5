//! Memory profile bench (issue #16): loads N generated memory entries (default 100k) into a
//! fresh store through the journal and one fold, then drives the `memory` profile in-process
//! through the MCP server's own call path: `save_memory` (acknowledged = appended and fsynced)
//! and `search`, `get_entries`, `timeline` over the N entries. Prints a Markdown table of
//! p50/p95/p99 against the targets (save p50 ≤ 10 ms, search p50 ≤ 10 ms at 100k).
//!
//! Run: `cargo bench --bench memory -- [--entries 100000] [--rounds 200] [--seed 42] [--work DIR]`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bench_corpus::rng::Rng;
use bench_corpus::vocab::Vocabulary;
use chrono::{TimeZone, Utc};
use esker::mcp::profiles::ProfileSet;
use esker::mcp::server::EskerServer;
use esker::memory::entry::{Draft, MemoryEntry};
use esker::memory::fold::{FoldOutcome, fold_if_unlocked};
use esker::memory::journal::Journal;
use esker::service::catalog::Catalog;
use esker::store::Store;
use serde_json::{Value, json};

// The allocator the shipped binary runs, so that these figures are the server's.
esker::shipped_allocator!();

const ENTRY_TYPES: [&str; 4] = ["note", "decision", "constraint", "finding"];
const PROJECTS: usize = 20;
const LOAD_BATCH: usize = 1_000;

struct Options {
    entries: usize,
    rounds: usize,
    seed: u64,
    work: Option<PathBuf>,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        entries: 100_000,
        rounds: 200,
        seed: 42,
        work: None,
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        let mut value = || {
            arguments
                .next()
                .ok_or_else(|| anyhow::anyhow!("{argument} needs a value"))
        };
        match argument.as_str() {
            "--bench" => {}
            "--entries" => options.entries = value()?.replace('_', "").parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
            "--seed" => options.seed = value()?.parse()?,
            "--work" => options.work = Some(PathBuf::from(value()?)),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    Ok(options)
}

/// One generated entry: a title sentence and a few sentences of prose.
fn generated_entry(vocabulary: &Vocabulary, seed: u64, index: usize) -> MemoryEntry {
    let mut rng = Rng::for_item(seed, index as u64);
    let start = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let created_at = start + chrono::Duration::seconds(index as i64 * 300);
    Draft {
        text: vocabulary.prose(&mut rng, 4),
        title: Some(vocabulary.sentence(&mut rng, 6)),
        project: Some(format!("project-{}", rng.below(PROJECTS as u64))),
        entry_type: Some((*rng.pick(&ENTRY_TYPES)).to_owned()),
        ..Draft::default()
    }
    .normalize("default", "note", created_at)
    .expect("a generated entry is valid")
}

/// Milliseconds at the given quantile of sorted samples.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

struct Row {
    name: String,
    samples: Vec<Duration>,
    target_ms: Option<f64>,
}

impl Row {
    fn markdown(&self) -> String {
        let mut sorted = self.samples.clone();
        sorted.sort();
        let p50 = quantile(&sorted, 0.5);
        let verdict = match self.target_ms {
            Some(target) if p50 <= target => format!("≤ {target} ms: met"),
            Some(target) => format!("≤ {target} ms: MISSED"),
            None => String::new(),
        };
        format!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {} |",
            self.name,
            sorted.len(),
            p50,
            quantile(&sorted, 0.95),
            quantile(&sorted, 0.99),
            verdict
        )
    }
}

async fn call(server: &EskerServer, tool: &str, arguments: Value) -> (Duration, Value) {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    let started = Instant::now();
    let reply = server.call(tool, &arguments).await.expect("a memory tool");
    let elapsed = started.elapsed();
    assert!(!reply.is_error, "{tool} failed: {}", reply.text);
    (elapsed, reply.envelope)
}

fn main() -> anyhow::Result<()> {
    let options = parse_options()?;
    let temporary = tempfile::tempdir()?;
    let work = options
        .work
        .clone()
        .unwrap_or_else(|| temporary.path().to_path_buf());
    let data_dir = work.join("memory-bench-data");
    if data_dir.exists() {
        std::fs::remove_dir_all(&data_dir)?;
    }
    let store = Store::open(&data_dir)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let vocabulary = Vocabulary::new();

    let started = Instant::now();
    let journal = Journal::of_store(store.data_dir());
    for batch_start in (0..options.entries).step_by(LOAD_BATCH) {
        let batch_end = (batch_start + LOAD_BATCH).min(options.entries);
        let entries: Vec<MemoryEntry> = (batch_start..batch_end)
            .map(|index| generated_entry(&vocabulary, options.seed, index))
            .collect();
        journal.append(&entries)?;
    }
    let journaled = started.elapsed();
    let fold_started = Instant::now();
    let outcome = runtime.block_on(fold_if_unlocked(&store, "memory bench"))?;
    anyhow::ensure!(
        matches!(outcome, FoldOutcome::Folded(_)),
        "the load was not folded"
    );
    let folded = fold_started.elapsed();
    eprintln!(
        "loaded {} entries: journal {:.1} s, fold {:.1} s",
        options.entries,
        journaled.as_secs_f64(),
        folded.as_secs_f64()
    );

    let server =
        EskerServer::with_profiles(Catalog::open(&data_dir)?, ProfileSet::parse("memory")?);
    let rows = runtime.block_on(measure(&server, &vocabulary, &options));
    println!(
        "\n## memory profile, {} entries ({} rounds)\n",
        options.entries, options.rounds
    );
    println!("| row | n | p50 ms | p95 ms | p99 ms | target |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| load: journal {} entries / fold into one commit | 1 | {:.0} / {:.0} | | | |",
        options.entries,
        journaled.as_secs_f64() * 1000.0,
        folded.as_secs_f64() * 1000.0
    );
    for row in rows {
        println!("{}", row.markdown());
    }
    Ok(())
}

async fn measure(server: &EskerServer, vocabulary: &Vocabulary, options: &Options) -> Vec<Row> {
    let mut rng = Rng::new(options.seed ^ 0x5eed);
    let mut save = Vec::new();
    let mut saved_ids = Vec::new();
    for round in 0..options.rounds {
        let text = vocabulary.prose(&mut rng, 3);
        let (elapsed, response) = call(
            server,
            "save_memory",
            json!({"text": text, "type": "decision", "metadata": {"round": round}}),
        )
        .await;
        save.push(elapsed);
        saved_ids.extend(response["id"].as_str().map(str::to_owned));
    }
    let mut search = Vec::new();
    let mut filtered = Vec::new();
    let mut hit_ids: Vec<String> = Vec::new();
    for round in 0..options.rounds {
        let words = 1 + round % 3;
        let query: Vec<&str> = (0..words).map(|_| vocabulary.sample(&mut rng)).collect();
        let (elapsed, response) = call(server, "search", json!({"query": query.join(" ")})).await;
        search.push(elapsed);
        if let Some(id) = response["items"][0]["id"].as_str() {
            hit_ids.push(id.to_owned());
        }
        let project = format!("project-{}", round % PROJECTS);
        let (elapsed, _) = call(
            server,
            "search",
            json!({"query": query.join(" "), "project": project, "type": "decision"}),
        )
        .await;
        filtered.push(elapsed);
    }
    let mut get_entries = Vec::new();
    let mut timeline = Vec::new();
    let anchors: Vec<&String> = hit_ids.iter().chain(saved_ids.iter()).collect();
    for round in 0..options.rounds {
        let batch: Vec<&String> = anchors
            .iter()
            .cycle()
            .skip(round)
            .take(20)
            .copied()
            .collect();
        let (elapsed, _) = call(server, "get_entries", json!({"ids": batch})).await;
        get_entries.push(elapsed);
        if let Some(anchor) = anchors.get(round % anchors.len().max(1)) {
            let (elapsed, _) = call(server, "timeline", json!({"anchor_id": anchor})).await;
            timeline.push(elapsed);
        }
    }
    vec![
        Row {
            name: "save_memory (acknowledged, fsynced)".into(),
            samples: save,
            target_ms: Some(10.0),
        },
        Row {
            name: format!("search, {} entries (1-3 words)", options.entries),
            samples: search,
            target_ms: Some(10.0),
        },
        Row {
            name: "search with project + type filters".into(),
            samples: filtered,
            target_ms: None,
        },
        Row {
            name: "get_entries, 20 ids".into(),
            samples: get_entries,
            target_ms: None,
        },
        Row {
            name: "timeline, depth 3 + 3".into(),
            samples: timeline,
            target_ms: None,
        },
    ]
}
