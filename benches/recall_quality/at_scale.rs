//! `--store DIR`: recall's latency against a store built elsewhere (the scale benchmark's
//! 1M-document store), for the hook's target of 150 ms p95 at 1M documents. Two prompt sets,
//! asked from the working directory most sessions of the store ran in (`--cwd` to choose):
//! - past prompts: user inputs sampled from the store (first 40 words), as a new prompt that
//!   repeats an old one would be; they find many hits, so the block is full;
//! - generated prompts: 6 to 20 Zipf-distributed words of the scale corpus's vocabulary
//!   (`bench-corpus`), a prompt about nothing in particular.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use bench_corpus::rng::Rng;
use bench_corpus::vocab::Vocabulary;

use crate::latency::{self, Ask, Row};
use crate::tables;

/// Prompts per set.
const PROMPTS: usize = 50;
/// Words kept of a past prompt.
const PAST_PROMPT_WORDS: usize = 40;

/// Indexes `corpus` into `data_dir` with this build's `esker index` when `data_dir` holds no
/// store yet (a kept store is used as it is).
pub fn index_if_absent(data_dir: &Path, corpus: &Path) -> anyhow::Result<()> {
    if data_dir.join("current").exists() {
        eprintln!(
            "{} holds a store: used as it is, {} not indexed",
            data_dir.display(),
            corpus.display()
        );
        return Ok(());
    }
    anyhow::ensure!(corpus.is_dir(), "{} is not a directory", corpus.display());
    eprintln!("indexing {} into {}", corpus.display(), data_dir.display());
    let started = Instant::now();
    let output = Command::new(latency::ESKER)
        .arg("index")
        .arg("-q")
        .arg("--data-dir")
        .arg(data_dir)
        .arg(corpus)
        .env_remove("ESKER_DATA_DIR")
        .output()?;
    anyhow::ensure!(
        output.status.success(),
        "esker index failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("indexed in {:.1?}", started.elapsed());
    Ok(())
}

/// The latency rows (and a line saying what the store holds) for the store at `data_dir`.
pub async fn latency_rows(
    data_dir: &Path,
    cwd: Option<String>,
    rounds: usize,
    seed: u64,
    home: &Path,
) -> anyhow::Result<(String, Vec<Row>)> {
    let context = tables::context(data_dir).await?;
    let (events, searched) = tables::counts(&context).await?;
    let cwd = match cwd {
        Some(cwd) => cwd,
        None => busiest_cwd(&context).await?,
    };
    let past = past_prompts(&context, &cwd).await?;
    let generated = generated_prompts(seed, &cwd);
    let about = format!(
        "Store {}: {events} events ({searched} of the searched types); prompts asked from {cwd}.",
        data_dir.display()
    );
    eprintln!("{about}");
    let label = format!("{}k events", searched / 1000);
    let mut rows = Vec::new();
    for (set, asks) in [("past prompts", &past), ("generated prompts", &generated)] {
        if asks.is_empty() {
            eprintln!("no {set} for this store");
            continue;
        }
        rows.push(
            latency::in_process(
                data_dir,
                asks,
                rounds,
                format!("in-process `recall()`, {set}, {label}"),
            )
            .await?,
        );
        for mode in [latency::Mode::Cold, latency::Mode::Resident] {
            let data_dir = data_dir.to_path_buf();
            let home = home.to_path_buf();
            let asks = asks.clone();
            let name = format!(
                "`esker recall --hook claude-code` (child process, {}), {set}, {label}",
                mode.label()
            );
            rows.push(
                tokio::task::spawn_blocking(move || {
                    latency::hook_runs(&data_dir, &home, &asks, rounds, mode, name)
                })
                .await??,
            );
        }
    }
    Ok((about, rows))
}

/// The working directory of the most sessions.
async fn busiest_cwd(context: &datafusion::prelude::SessionContext) -> anyhow::Result<String> {
    let rows = tables::strings(
        context,
        "SELECT cwd, count(*) AS n FROM sessions WHERE cwd IS NOT NULL AND cwd <> '' \
         GROUP BY cwd ORDER BY n DESC, cwd LIMIT 1",
    )
    .await?;
    rows.into_iter()
        .next()
        .and_then(|mut row| (!row.is_empty()).then(|| row.swap_remove(0)))
        .ok_or_else(|| anyhow::anyhow!("no session of the store has a working directory"))
}

/// User inputs of the store (a spread by event id, a hash), cut to their first words.
async fn past_prompts(
    context: &datafusion::prelude::SessionContext,
    cwd: &str,
) -> anyhow::Result<Vec<Ask>> {
    let rows = tables::strings(
        context,
        &format!(
            "SELECT text FROM events WHERE type = 'user_input' \
             AND length(text) BETWEEN 20 AND 4000 ORDER BY event_id LIMIT {PROMPTS}"
        ),
    )
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|mut row| row.pop())
        .map(|text| Ask {
            text: text
                .split_whitespace()
                .take(PAST_PROMPT_WORDS)
                .collect::<Vec<_>>()
                .join(" "),
            cwd: cwd.to_owned(),
        })
        .collect())
}

fn generated_prompts(seed: u64, cwd: &str) -> Vec<Ask> {
    let vocabulary = Vocabulary::new();
    (0..PROMPTS as u64)
        .map(|index| {
            let mut rng = Rng::for_item(seed, index);
            let words = rng.between(6, 20) as usize;
            Ask {
                text: vocabulary.sentence(&mut rng, words),
                cwd: cwd.to_owned(),
            }
        })
        .collect()
}
