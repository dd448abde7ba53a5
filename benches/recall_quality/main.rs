//! Planted-fact benchmark of `esker recall` (issue #52): past sessions in the harnesses' real
//! formats, each holding a fact, and new prompts, in the same and in other projects, that need
//! it (or whose answer exists nowhere). Measures recall@1 and recall@k of the fact's event,
//! citation correctness, current-project-first ordering, the empty-block rate when nothing
//! relevant exists, and recall's latency (in-process and as the agent's hook process).
//!
//! 1. Copies `benches/recall_quality/home/` (Claude Code, Codex and Gemini CLI logs of four
//!    projects, written by `make_corpus.py`) into a temporary home and indexes its harness
//!    directories with `indexer::run::index_paths`, the pass `esker index` runs.
//! 2. Finds each fact's events in the tables by its marker (`prompts.toml`), checking that
//!    the marker is where it was planted and nowhere else.
//! 3. Runs `esker::cli::recall::recall` (what `esker recall --prompt TEXT --cwd DIR` prints)
//!    for every prompt, reads the block as the agent would, opens every cited id through the
//!    service layer, and scores it.
//! 4. Times recall in-process and as `esker recall --hook claude-code` child processes.
//! 5. Prints the Markdown tables (also `WORK/figures.md`; every prompt's block in
//!    `WORK/prompts.md`).
//!
//! Run: `cargo bench --bench recall_quality -- [--rounds 200] [--work DIR]`
//! At scale, against a store built elsewhere (latency rows only):
//! `cargo bench --bench recall_quality -- --store DATA_DIR [--index CORPUS] [--cwd DIR] [--rounds 200]`
//! (`--index CORPUS`: when DATA_DIR holds no store yet, index CORPUS into it first with this
//! build's `esker index`, e.g. the parts of `cargo bench --bench scale -- generate`).

mod at_scale;
mod block;
mod latency;
mod quality;
mod spec;
mod tables;

use std::path::{Path, PathBuf};
use std::time::Instant;

use esker::indexer::run::{IndexOptions, index_paths};
use esker::store::Store;

use crate::latency::Ask;
use crate::spec::{Kind, Spec};

// The allocator the shipped binary runs, so that the in-process figures are the hook's.
esker::shipped_allocator!();

/// Command-line options (cargo appends `--bench`, which is ignored).
#[derive(Debug)]
struct Options {
    rounds: usize,
    seed: u64,
    work: Option<PathBuf>,
    store: Option<PathBuf>,
    index: Option<PathBuf>,
    cwd: Option<String>,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        rounds: 200,
        seed: 42,
        work: None,
        store: None,
        index: None,
        cwd: None,
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
            "--rounds" => options.rounds = value()?.parse()?,
            "--seed" => options.seed = value()?.parse()?,
            "--work" => options.work = Some(PathBuf::from(value()?)),
            "--store" => options.store = Some(PathBuf::from(value()?)),
            "--index" => options.index = Some(PathBuf::from(value()?)),
            "--cwd" => options.cwd = Some(value()?),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = parse_options()?;
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
    let markdown = match &options.store {
        Some(store) => runtime.block_on(at_scale_run(store, &work, &options))?,
        None if options.index.is_some() => anyhow::bail!("--index needs --store DATA_DIR"),
        None => runtime.block_on(planted_run(&work, &options))?,
    };
    let markdown = format!("{}\n{markdown}", machine_line());
    std::fs::write(work.join("figures.md"), &markdown)?;
    println!("{markdown}");
    Ok(())
}

/// The planted corpus: index it, score every prompt's block, time recall on it.
async fn planted_run(work: &Path, options: &Options) -> anyhow::Result<String> {
    let corpus = spec::corpus_dir();
    let spec = Spec::load(&corpus.join("prompts.toml"))?;
    for prompt in &spec.prompt {
        if Path::new(&prompt.cwd).exists() {
            eprintln!(
                "warning: {} exists on this machine; recall scopes a prompt from it by its Git \
                 checkout, not by the directory alone as the figures assume",
                prompt.cwd
            );
        }
    }
    let home = work.join("home");
    let data_dir = work.join("data");
    for directory in [&home, &data_dir] {
        if directory.exists() {
            std::fs::remove_dir_all(directory)?;
        }
    }
    let files = spec::copy_home(&corpus.join("home"), &home)?;
    let started = Instant::now();
    let store = Store::open(&data_dir)?;
    let summary = index_paths(
        &store,
        &IndexOptions {
            paths: spec::harness_locations(&home),
            ..IndexOptions::default()
        },
    )
    .await?;
    eprintln!(
        "indexed {files} files in {:.1?}: {summary}",
        started.elapsed()
    );
    anyhow::ensure!(
        summary.files_failed == 0 && summary.malformed_lines == 0,
        "the planted corpus must index cleanly: {summary}"
    );

    let context = tables::context(&data_dir).await?;
    let planted = tables::Planted::find(&context, &spec).await?;
    let (events, searched) = tables::counts(&context).await?;
    let outcomes = quality::evaluate(&data_dir, &spec, &planted).await?;
    std::fs::write(work.join("prompts.md"), quality::details(&outcomes, &spec))?;
    for outcome in &outcomes {
        let missed = outcome.prompt.kind != Kind::None && outcome.fact_rank.is_none();
        if missed || !outcome.citation_faults.is_empty() {
            eprintln!(
                "{} ({:?}): {} · fact line {:?} · {} lines{}",
                outcome.prompt.id,
                outcome.prompt.kind,
                outcome.prompt.text,
                outcome.fact_rank,
                outcome.lines.len(),
                outcome
                    .citation_faults
                    .iter()
                    .map(|fault| format!("\n  citation fault: {fault}"))
                    .collect::<String>()
            );
        }
    }

    let asks: Vec<Ask> = spec
        .prompt
        .iter()
        .map(|prompt| Ask {
            text: prompt.text.clone(),
            cwd: prompt.cwd.clone(),
        })
        .collect();
    let label = format!("planted corpus, {events} events");
    let mut rows = vec![
        latency::in_process(
            &data_dir,
            &asks,
            options.rounds,
            format!("in-process `recall()` (opens the store each call), {label}"),
        )
        .await?,
    ];
    for mode in [latency::Mode::Cold, latency::Mode::Resident] {
        let (data_dir, home, asks) = (data_dir.clone(), home.clone(), asks.clone());
        let (rounds, name) = (
            options.rounds,
            format!(
                "`esker recall --hook claude-code` (child process, {}), {label}",
                mode.label()
            ),
        );
        rows.push(
            tokio::task::spawn_blocking(move || {
                latency::hook_runs(&data_dir, &home, &asks, rounds, mode, name)
            })
            .await??,
        );
    }
    // The hook process must print what the library returns, cold and from the resident (a
    // differing answer is a deadline miss or an error in the process).
    let mut differing = 0;
    for mode in [latency::Mode::Cold, latency::Mode::Resident] {
        let (data_dir, home) = (data_dir.clone(), home.clone());
        let expected: Vec<(Ask, String)> = asks
            .iter()
            .cloned()
            .zip(outcomes.iter().map(|outcome| outcome.block.clone()))
            .collect();
        differing += tokio::task::spawn_blocking(move || -> anyhow::Result<usize> {
            let mut differing = 0;
            let mut resident = None;
            for (ask, block) in &expected {
                let (output, _) = latency::hook_once(&data_dir, &home, ask, mode)?;
                if mode == latency::Mode::Resident && resident.is_none() {
                    // The first run started the resident and answered cold; ask again.
                    resident = Some(latency::Resident::wait_for(&data_dir)?);
                    let (output, _) = latency::hook_once(&data_dir, &home, ask, mode)?;
                    differing += usize::from(output.trim_end() != block.trim_end());
                    continue;
                }
                differing += usize::from(output.trim_end() != block.trim_end());
            }
            Ok(differing)
        })
        .await??;
    }

    let kinds = |kind: Kind| {
        spec.prompt
            .iter()
            .filter(|prompt| prompt.kind == kind)
            .count()
    };
    Ok(format!(
        "Planted corpus: {files} session logs of 4 projects, {events} events ({searched} of the \
         searched types), {} facts; {} prompts: {} same project, {} conflict, {} other project, \
         {} with no answer. Hook answers (cold and resident) equal to the library's block: {} of {}.\n\n{}\n{}",
        spec.fact.len(),
        spec.prompt.len(),
        kinds(Kind::Same),
        kinds(Kind::Conflict),
        kinds(Kind::Cross),
        kinds(Kind::None),
        2 * asks.len() - differing,
        2 * asks.len(),
        quality::markdown(&outcomes),
        latency::markdown(&rows),
    ))
}

/// `--store DIR`: the latency rows against a store built elsewhere.
async fn at_scale_run(store: &Path, work: &Path, options: &Options) -> anyhow::Result<String> {
    let home = work.join("home");
    std::fs::create_dir_all(&home)?;
    if let Some(corpus) = &options.index {
        at_scale::index_if_absent(store, corpus)?;
    }
    let (about, rows) = at_scale::latency_rows(
        store,
        options.cwd.clone(),
        options.rounds,
        options.seed,
        &home,
    )
    .await?;
    Ok(format!("{about}\n\n{}", latency::markdown(&rows)))
}

fn machine_line() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism()
        .map(|count| count.get())
        .unwrap_or(0);
    format!(
        "Machine: {cpu}, {cores} cores; esker {} ({})",
        env!("CARGO_PKG_VERSION"),
        if cfg!(debug_assertions) {
            "debug build"
        } else {
            "release build"
        }
    )
}
