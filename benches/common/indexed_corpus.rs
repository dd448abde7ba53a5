//! A generated corpus (`bench-corpus`) indexed by the release `esker index` as a child
//! process, shared by the bench binaries that serve a small store of their own
//! (`benches/http_load`, `benches/ui_latency`) through `#[path]`.

use std::path::Path;
use std::process::Command;

use bench_corpus::generate::{GenerateOptions, generate};

/// Generates `docs` documents (seed `seed`, one part) under `work_dir/corpus` and indexes them
/// into `data_dir` with the binary `esker`, under a home that does not exist (so only the
/// corpus is read).
pub fn index_generated_corpus(
    esker: &str,
    work_dir: &Path,
    data_dir: &Path,
    docs: u64,
    seed: u64,
) -> anyhow::Result<()> {
    let corpus = work_dir.join("corpus");
    let options = GenerateOptions {
        docs,
        seed,
        parts: 1,
    };
    generate(&corpus, &options)?;
    let status = Command::new(esker)
        .args(["index", "--quiet", "--data-dir"])
        .arg(data_dir)
        .arg(&corpus)
        .env("HOME", "/nonexistent-esker-bench-home")
        .status()?;
    anyhow::ensure!(status.success(), "esker index failed");
    Ok(())
}
