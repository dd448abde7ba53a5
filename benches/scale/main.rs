//! Scale benchmark (issue 4): generates a deterministic corpus of N searchable documents in the
//! real Codex / Claude Code / Gemini formats, indexes it with the release binary (MB/s,
//! events/s, peak RSS, size on disk), drives every SLA row of the spec in-process at 10%, 50%
//! and 100% of the corpus, samples the stdio server (cold start, RSS, round trips) and times
//! single-event appends, measures rare-word recall@10 (issue #10) on the generated corpus
//! and on `../shared/corpus`, and the question benchmark (issue #23) on `../shared/corpus`;
//! the agtrace profile's rows (issue 14) run on the full store.
//! Prints a Markdown figures table (also written to WORK/figures.md).
//!
//! Run: `cargo bench --bench scale -- --docs 100000 [--rounds 200] [--seed 42] [--work DIR]`
//! Ingest, search and recall rows only: `cargo bench --bench scale -- recall --docs N`
//! Generate only: `cargo bench --bench scale -- generate --docs N --out DIR [--seed 42]`
//! SQL cost split on a kept store: `cargo bench --bench scale -- profile --work DIR`
//! Where the index's bytes go, per field: `cargo bench --bench scale -- space --work DIR`
//! Latency rows only, on a kept store (no generation, no indexing):
//! `cargo bench --bench scale -- latency --work DIR [--rounds 50] [--search-only]`
//! Searches cut at a deadline, with and without cancellation: `... -- abandon --work DIR`
//! Time to first search during a first index of the kept corpus (into WORK/data-first):
//! `cargo bench --bench scale -- first-search --work DIR`
//! First answers after a commit (appends to the kept store's corpus and store):
//! `cargo bench --bench scale -- after-commit --work DIR [--rounds 30]`
//! Side by side with agentsview: `cargo bench --bench scale -- peer --docs N [--peer-memory-gib 8]`
//! At 10M documents: `--reuse-corpus` indexes the parts a `generate --out WORK/corpus` left
//! (19 GB are generated once), `--skip-stages` skips the 10% and 50% stores.

mod abandon;
mod after_commit;
mod first_search;
mod handles;
mod indexing;
mod peer;
mod profile;
mod questions;
mod recall;
mod relayout;
mod serve;
mod space;
mod stats;
mod workloads;

use std::path::{Path, PathBuf};
use std::time::Instant;

use bench_corpus::{GenerateOptions, generate};
use esker::mcp::profiles::ProfileSet;
use esker::mcp::server::EskerServer;
use esker::service::catalog::Catalog;
use esker::store::Store;
use serde_json::{Value, json};

use crate::indexing::{IndexRun, append_latencies, disk_bytes, index_with_child};
use crate::stats::{Report, Targets};
use crate::workloads::{Queries, SEARCH_1M, SEARCH_100K, SEARCH_500K};

// The allocator the shipped binary runs, so that these figures are the server's.
esker::shipped_allocator!();

const MB: f64 = 1_000_000.0;
const MIB: f64 = 1_048_576.0;

/// Command-line options (cargo appends `--bench`, which is ignored).
#[derive(Debug)]
struct Options {
    generate_only: bool,
    profile_only: bool,
    space_only: bool,
    relayout_only: bool,
    latency_only: bool,
    abandon_only: bool,
    after_commit_only: bool,
    first_search_only: bool,
    search_only: bool,
    recall_only: bool,
    peer_only: bool,
    reuse_corpus: bool,
    skip_stages: bool,
    peer_memory_gib: u64,
    docs: u64,
    seed: u64,
    rounds: usize,
    work: Option<PathBuf>,
    out: Option<PathBuf>,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        generate_only: false,
        profile_only: false,
        space_only: false,
        relayout_only: false,
        latency_only: false,
        abandon_only: false,
        after_commit_only: false,
        first_search_only: false,
        search_only: false,
        recall_only: false,
        peer_only: false,
        reuse_corpus: false,
        skip_stages: false,
        peer_memory_gib: 8,
        docs: 100_000,
        seed: 42,
        rounds: 200,
        work: None,
        out: None,
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        let mut value = || {
            arguments
                .next()
                .ok_or_else(|| anyhow::anyhow!("{argument} needs a value"))
        };
        match argument.as_str() {
            "generate" => options.generate_only = true,
            "profile" => options.profile_only = true,
            "space" => options.space_only = true,
            "relayout" => options.relayout_only = true,
            "latency" => options.latency_only = true,
            "abandon" => options.abandon_only = true,
            "after-commit" => options.after_commit_only = true,
            "first-search" => options.first_search_only = true,
            "--search-only" => options.search_only = true,
            "recall" => options.recall_only = true,
            "peer" => options.peer_only = true,
            "--reuse-corpus" => options.reuse_corpus = true,
            "--skip-stages" => options.skip_stages = true,
            "--peer-memory-gib" => options.peer_memory_gib = value()?.parse()?,
            "--bench" => {}
            "--docs" => options.docs = value()?.replace('_', "").parse()?,
            "--seed" => options.seed = value()?.parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
            "--work" => options.work = Some(PathBuf::from(value()?)),
            "--out" => options.out = Some(PathBuf::from(value()?)),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    // `ESKER_LOG=esker=info` shows the library's step logs (commits, directory refreshes).
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("ESKER_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let options = parse_options()?;
    if options.generate_only {
        let out = options
            .out
            .clone()
            .ok_or_else(|| anyhow::anyhow!("generate needs --out DIR"))?;
        generate_corpus(&out, &options)?;
        return Ok(());
    }
    if options.space_only {
        let work = options
            .work
            .clone()
            .ok_or_else(|| anyhow::anyhow!("space needs --work DIR"))?;
        return space::print_space(&work.join("data-full"));
    }
    if options.relayout_only {
        let work = options
            .work
            .clone()
            .ok_or_else(|| anyhow::anyhow!("relayout needs --work DIR"))?;
        return relayout::relayout(&work.join("data-full"));
    }
    if options.profile_only {
        let work = options
            .work
            .clone()
            .ok_or_else(|| anyhow::anyhow!("profile needs --work DIR"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let report = runtime.block_on(profile::profile(&work.join("data-full"), options.rounds))?;
        println!("{}", report.markdown());
        return Ok(());
    }
    let temporary = tempfile::tempdir()?;
    let work = options
        .work
        .clone()
        .unwrap_or_else(|| temporary.path().to_path_buf());
    std::fs::create_dir_all(&work)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = if options.latency_only {
        runtime.block_on(latency_run(&work, &options))?
    } else if options.abandon_only {
        runtime.block_on(abandon_run(&work, &options))?
    } else if options.after_commit_only {
        runtime.block_on(after_commit_run(&work, &options))?
    } else if options.first_search_only {
        first_search_run(&work)?
    } else if options.recall_only {
        runtime.block_on(recall_run(&work, &options))?
    } else if options.peer_only {
        runtime.block_on(peer_run(&work, &options))?
    } else {
        runtime.block_on(run(&work, &options))?
    };
    let markdown = format!("{}\n{}", machine_line(&options), report.markdown());
    std::fs::write(work.join("figures.md"), &markdown)?;
    println!("{markdown}");
    Ok(())
}

fn generate_corpus(out: &Path, options: &Options) -> anyhow::Result<Vec<PathBuf>> {
    let started = Instant::now();
    let generate_options = GenerateOptions {
        docs: options.docs,
        seed: options.seed,
        parts: 10,
    };
    let summary = generate(out, &generate_options)?;
    eprintln!(
        "generated {} files, {:.1} MB, {} sessions, {} planned documents in {:.1?} at {}",
        summary.files,
        summary.bytes as f64 / MB,
        summary.sessions,
        summary.planned_documents,
        started.elapsed(),
        out.display()
    );
    Ok(summary.parts)
}

async fn run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let corpus = work.join("corpus");
    let parts = if options.reuse_corpus {
        generated_parts(&corpus)?
    } else {
        if corpus.exists() {
            std::fs::remove_dir_all(&corpus)?;
        }
        generate_corpus(&corpus, options)?
    };
    let queries = Queries::new(50);
    let mut report = Report::default();
    let staged = work.join("data-staged");
    let full = work.join("data-full");
    for directory in [&staged, &full] {
        if directory.exists() {
            std::fs::remove_dir_all(directory)?;
        }
    }
    if !options.skip_stages {
        for stage in [&parts[..1], &parts[1..5]] {
            index_with_child(&staged, stage)?;
            search_stage(&staged, &queries, options.rounds, &mut report).await?;
        }
    }
    let run = index_with_child(&full, &parts)?;
    ingest_figures(&full, &parts, &run, &mut report).await?;
    let server = search_stage(&full, &queries, options.rounds, &mut report).await?;
    let root = Store::open(&full)?.current()?.root;
    let handles = handles::pick(&root).await?;
    workloads::full_store(&server, &handles, &queries, options.rounds, &mut report).await?;
    let agtrace = EskerServer::with_profiles(Catalog::open(&full)?, ProfileSet::parse("agtrace")?);
    workloads::agtrace(&agtrace, &handles, &queries, options.rounds, &mut report).await?;
    workloads::search_index_only(&root, &queries, options.rounds, &mut report)?;
    serve_figures(&full, &handles, &queries, &mut report).await?;
    recall_figures(work, &full, options, &mut report).await?;
    append_figures(&full, &parts, &mut report).await?;
    let log = appendable_log(&parts)?;
    after_commit::first_answers_after_commit(&full, &log, &server, &handles, 30, &mut report)
        .await?;
    Ok(report)
}

/// The first answers after a commit on the store and corpus a previous run left in `WORK`.
async fn after_commit_run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let full = work.join("data-full");
    let parts = generated_parts(&work.join("corpus"))?;
    let catalog = Catalog::open(&full)?;
    catalog.snapshot().await?.ready_directory().await?;
    catalog.snapshot().await?.read_ahead().await?;
    let server = EskerServer::new(catalog);
    let root = Store::open(&full)?.current()?.root;
    let handles = handles::pick(&root).await?;
    let mut report = Report::default();
    let log = appendable_log(&parts)?;
    after_commit::first_answers_after_commit(
        &full,
        &log,
        &server,
        &handles,
        options.rounds,
        &mut report,
    )
    .await?;
    Ok(report)
}

/// Time to first search: a first index of WORK/corpus into a fresh WORK/data-first.
fn first_search_run(work: &Path) -> anyhow::Result<Report> {
    let parts = generated_parts(&work.join("corpus"))?;
    let data_dir = work.join("data-first");
    if data_dir.exists() {
        std::fs::remove_dir_all(&data_dir)?;
    }
    let mut report = Report::default();
    first_search::time_to_first_search(&data_dir, &parts, "migration", &mut report)?;
    Ok(report)
}

/// The parts (`part-NN` directories) a previous `generate --out DIR` left in `corpus`.
fn generated_parts(corpus: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(corpus)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.is_dir()
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("part-"))
        })
        .collect();
    parts.sort();
    if parts.len() < 5 {
        anyhow::bail!(
            "--reuse-corpus needs the parts of a generated corpus in {}; found {}",
            corpus.display(),
            parts.len()
        );
    }
    eprintln!(
        "reusing {} generated parts in {}",
        parts.len(),
        corpus.display()
    );
    Ok(parts)
}

/// The in-process latency rows (search, the full-store workloads, agtrace, tantivy's part of
/// search) on the store a previous run left in `WORK/data-full`.
async fn latency_run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let full = work.join("data-full");
    if !full.exists() {
        anyhow::bail!(
            "latency needs a store a previous run left: {} is absent",
            full.display()
        );
    }
    let queries = Queries::new(50);
    let mut report = Report::default();
    let server = search_stage(&full, &queries, options.rounds, &mut report).await?;
    let root = Store::open(&full)?.current()?.root;
    if !options.search_only {
        let handles = handles::pick(&root).await?;
        workloads::full_store(&server, &handles, &queries, options.rounds, &mut report).await?;
        let agtrace =
            EskerServer::with_profiles(Catalog::open(&full)?, ProfileSet::parse("agtrace")?);
        workloads::agtrace(&agtrace, &handles, &queries, options.rounds, &mut report).await?;
    }
    workloads::search_index_only(&root, &queries, options.rounds, &mut report)?;
    Ok(report)
}

/// Searches cut at a deadline, run to their end and cancelled, on the store a previous run
/// left in `WORK/data-full`.
async fn abandon_run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let root = Store::open(&work.join("data-full"))?.current()?.root;
    let mut report = Report::default();
    abandon::abandoned_searches(&root, &Queries::new(50), options.rounds, &mut report).await?;
    Ok(report)
}

/// Generates and indexes the corpus, then only the ingest, default-type search and recall rows.
async fn recall_run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let corpus = work.join("corpus");
    let full = work.join("data-full");
    for directory in [&corpus, &full] {
        if directory.exists() {
            std::fs::remove_dir_all(directory)?;
        }
    }
    let parts = generate_corpus(&corpus, options)?;
    let run = index_with_child(&full, &parts)?;
    let mut report = Report::default();
    ingest_figures(&full, &parts, &run, &mut report).await?;
    let queries = Queries::new(50);
    search_stage(&full, &queries, options.rounds, &mut report).await?;
    recall::exact_form_query_cost(&full, &queries, options.rounds, &mut report)?;
    recall_figures(work, &full, options, &mut report).await?;
    Ok(report)
}

/// Generates the corpus and runs esker and agentsview over it side by side.
async fn peer_run(work: &Path, options: &Options) -> anyhow::Result<Report> {
    let corpus = work.join("corpus");
    if corpus.exists() {
        std::fs::remove_dir_all(&corpus)?;
    }
    let parts = generate_corpus(&corpus, options)?;
    let raw_bytes: u64 = parts.iter().map(|part| disk_bytes(part)).sum();
    let mut report = Report::default();
    report.figure(
        "corpus",
        format!(
            "{:.0} MB raw in {} parts",
            raw_bytes as f64 / MB,
            parts.len()
        ),
        "",
        None,
    );
    let queries = Queries::new(50);
    peer::side_by_side(
        work,
        &parts,
        &queries,
        options.rounds,
        options.peer_memory_gib,
        &mut report,
    )
    .await?;
    Ok(report)
}

/// Rare-word recall@10 on the generated store in `full` and on `../shared/corpus`, and the
/// question benchmark on `../shared/corpus`.
async fn recall_figures(
    work: &Path,
    full: &Path,
    options: &Options,
    report: &mut Report,
) -> anyhow::Result<()> {
    let label = format!("generated corpus (--docs {})", options.docs);
    recall::rare_word_recall(full, &label, options.rounds, report).await?;
    let Some(corpus) = recall::shared_corpus() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real-corpus recall row");
        return Ok(());
    };
    let shared = work.join("data-shared");
    if shared.exists() {
        std::fs::remove_dir_all(&shared)?;
    }
    index_with_child(&shared, &[corpus])?;
    recall::rare_word_recall(&shared, "../shared/corpus", options.rounds, report).await?;
    questions::question_figures(&shared, report)
}

/// Opens a fresh in-process server on `data_dir` and measures default-type searches.
async fn search_stage(
    data_dir: &Path,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<EskerServer> {
    let root = Store::open(data_dir)?.current()?.root;
    let counts = handles::counts(&root).await?;
    eprintln!("store: {counts:?}");
    let targets = search_targets(counts.searchable);
    let catalog = Catalog::open(data_dir)?;
    // The rows are of a warm server: the directory loads first (~10 s at 10M documents; a
    // request during the load answers through plain SQL over Parquet). The cold start is
    // its own row (`serve_figures`).
    let loading = Instant::now();
    catalog.snapshot().await?.ready_directory().await?;
    eprintln!("directory loaded in {:.1?}", loading.elapsed());
    // ... and the keyed files' key runs and footers are read ahead, as a server does once
    // it opens a generation.
    let warmed = catalog.snapshot().await?.read_ahead().await?;
    eprintln!(
        "keyed files read ahead by {:.1?}: {warmed:?}",
        loading.elapsed()
    );
    let server = EskerServer::new(catalog);
    let label = format!(
        "at {}k docs ({}k default-type)",
        counts.searchable / 1000,
        counts.default_types / 1000
    );
    workloads::searches(&server, queries, &label, targets, rounds, report).await?;
    Ok(server)
}

/// The spec's row for a store of `documents` searchable documents.
fn search_targets(documents: u64) -> Targets {
    match documents {
        0..=150_000 => SEARCH_100K,
        150_001..=750_000 => SEARCH_500K,
        _ => SEARCH_1M,
    }
}

async fn ingest_figures(
    data_dir: &Path,
    parts: &[PathBuf],
    run: &IndexRun,
    report: &mut Report,
) -> anyhow::Result<()> {
    let root = Store::open(data_dir)?.current()?.root;
    let counts = handles::counts(&root).await?;
    let raw_bytes: u64 = parts.iter().map(|part| disk_bytes(part)).sum();
    let seconds = run.elapsed.as_secs_f64();
    eprintln!("index: {}", run.summary_line);
    report.figure(
        "corpus",
        format!(
            "{:.0} MB raw, {} sessions, {} events ({} searchable, {} default-type)",
            raw_bytes as f64 / MB,
            counts.sessions,
            counts.events,
            counts.searchable,
            counts.default_types
        ),
        "",
        None,
    );
    let megabytes_per_second = raw_bytes as f64 / MB / seconds;
    report.figure(
        "ingest throughput (full pass, release binary)",
        format!("{megabytes_per_second:.1} MB/s ({seconds:.1} s)"),
        "≥ 50 MB/s",
        Some(megabytes_per_second >= 50.0),
    );
    let events_per_second = counts.events as f64 / seconds;
    report.figure(
        "ingest events/s",
        format!("{events_per_second:.0}"),
        "≥ 100k/s",
        Some(events_per_second >= 100_000.0),
    );
    let peak = run.peak_rss_bytes as f64 / MIB;
    report.figure(
        "ingest peak RSS (VmHWM)",
        format!("{peak:.0} MiB"),
        "≤ 2048 MiB",
        Some(peak <= 2048.0),
    );
    for table in ["events", "turns", "sessions", "file_touches", "tantivy"] {
        report.figure(
            &format!("on disk: {table}"),
            format!("{:.1} MB", disk_bytes(&root.join(table)) as f64 / MB),
            "",
            None,
        );
    }
    Ok(())
}

async fn serve_figures(
    data_dir: &Path,
    handles: &handles::Handles,
    queries: &Queries,
    report: &mut Report,
) -> anyhow::Result<()> {
    let mut calls: Vec<(&str, Value)> = Vec::new();
    for text in queries.common.iter().chain(&queries.rare).take(40) {
        calls.push(("search_sessions", json!({"query": text, "n_hits": 10})));
    }
    for id in handles
        .small_events
        .iter()
        .take(20)
        .chain(handles.turns_100.iter().take(10))
    {
        calls.push(("open", json!({"id": id})));
    }
    calls.push((
        "list_sessions",
        json!({"start_datetime": "2025-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z"}),
    ));
    let figures = serve::measure_serve(data_dir, &calls).await?;
    let cold = figures.cold_start.as_secs_f64() * 1000.0;
    report.figure(
        "serve cold start → first answer",
        format!("{cold:.0} ms"),
        "≤ 500 ms",
        Some(cold <= 500.0),
    );
    let rss = figures.rss_bytes as f64 / MIB;
    report.figure(
        "serve RSS after sample (VmRSS / VmHWM)",
        format!("{rss:.0} / {:.0} MiB", figures.peak_rss_bytes as f64 / MIB),
        "≤ 1536 MiB",
        Some(figures.peak_rss_bytes as f64 / MIB <= 1536.0),
    );
    report.figure(
        "of it: anonymous (heap) / mapped files (RssAnon / RssFile)",
        format!(
            "{:.0} / {:.0} MiB",
            figures.anonymous_rss_bytes as f64 / MIB,
            figures.file_rss_bytes as f64 / MIB
        ),
        "",
        None,
    );
    report.latency("stdio round trip, mixed sample", figures.round_trips, None);
    Ok(())
}

async fn append_figures(
    data_dir: &Path,
    parts: &[PathBuf],
    report: &mut Report,
) -> anyhow::Result<()> {
    let log = appendable_log(parts)?;
    let (first, samples) = append_latencies(data_dir, &log, 30).await?;
    let p50 = samples.percentile(0.5);
    report.figure(
        "append 1 event + commit, first after opening the store",
        format!("{first:.0} ms"),
        "",
        None,
    );
    // Issue #11's target: p50 ≤ 200 ms, p99 ≤ 500 ms.
    report.latency(
        "append 1 event + commit (library, store open)",
        samples,
        Some(Targets::new(1000.0, 200.0, 500.0)),
    );
    report.figure(
        "incremental append p50",
        format!("{p50:.0} ms"),
        "≤ 1000 ms",
        Some(p50 <= 1000.0),
    );
    Ok(())
}

/// The first Codex rollout of the corpus's last part: the log the append rows grow.
fn appendable_log(parts: &[PathBuf]) -> anyhow::Result<PathBuf> {
    let last = parts.last().ok_or_else(|| anyhow::anyhow!("no parts"))?;
    walkdir::WalkDir::new(last.join("codex"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .find(|entry| entry.file_type().is_file())
        .map(|entry| entry.into_path())
        .ok_or_else(|| anyhow::anyhow!("no codex log to append to"))
}

fn machine_line(options: &Options) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .map(|line| line.split(':').nth(1).unwrap_or_default().trim().to_owned())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|cores| cores.get())
        .unwrap_or(1);
    format!(
        "Date {} · machine: {cores} cores ({cpu}) · corpus: --docs {} --seed {} · rounds {}\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC"),
        options.docs,
        options.seed,
        options.rounds
    )
}
