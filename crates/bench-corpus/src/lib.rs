//! A deterministic generator of realistic agent-session corpora (Codex CLI rollouts, Claude
//! Code transcripts with sub-agents, Gemini CLI chats) with Zipf-distributed vocabulary, used by
//! esker's benchmarks (`benches/scale/`) and tests; a workspace member that esker itself never
//! builds into its library.
//!
//! - [`generate`]: sizes a corpus in searchable documents and writes it, part by part.
//! - [`plan`]: format-neutral session plans (turns, steps, tool outputs, special shapes).
//! - [`codex`], [`claude`], [`gemini`]: render a plan in each harness's real format.
//! - [`vocab`], [`rng`], [`clock`]: vocabulary, seeded PRNG, simulated timestamps.

pub mod claude;
pub mod clock;
pub mod codex;
pub mod gemini;
pub mod generate;
pub mod plan;
pub mod rng;
pub mod vocab;

use serde_json::Value;

pub use generate::{CorpusSummary, GenerateError, GenerateOptions, generate};

/// One file of a generated corpus, its path relative to the corpus root.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl GeneratedFile {
    pub fn new(path: String, bytes: Vec<u8>) -> GeneratedFile {
        GeneratedFile { path, bytes }
    }

    /// One JSON record per line, each line terminated by a newline.
    pub fn jsonl(path: String, records: &[Value]) -> GeneratedFile {
        let mut bytes = Vec::new();
        for record in records {
            // Serializing a `Value` into a Vec cannot fail.
            serde_json::to_writer(&mut bytes, record).unwrap_or_default();
            bytes.push(b'\n');
        }
        GeneratedFile { path, bytes }
    }
}
