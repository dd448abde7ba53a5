//! Sizes and writes a corpus: `docs` planned searchable documents split into `parts`
//! sub-directories (`part-00`, ...) so a benchmark can index 10%, 50% and 100% of it. Each
//! session is drawn from its own PRNG stream (seed, part, index): the same options always give
//! the same bytes. Each part holds its share of special shapes (sessions of 100, 250 and 1000
//! turns, turns of 500 events, 1 MiB tool outputs) and one chain of [`CHAIN_SESSIONS`] Claude
//! sessions continuing one conversation (a shared slug), drawn from a stream of its own so the
//! other sessions are the same with or without it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::GeneratedFile;
use crate::plan::{Harness, SessionPlan, Shape, plan_chain, plan_session};
use crate::rng::Rng;
use crate::vocab::Vocabulary;
use crate::{claude, codex, gemini};

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Planned searchable documents in the whole corpus.
    pub docs: u64,
    pub seed: u64,
    /// Number of `part-NN` sub-directories.
    pub parts: usize,
}

impl Default for GenerateOptions {
    fn default() -> GenerateOptions {
        GenerateOptions {
            docs: 100_000,
            seed: 42,
            parts: 10,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CorpusSummary {
    pub files: u64,
    pub bytes: u64,
    pub sessions: u64,
    pub planned_documents: u64,
    /// The part directories, in order.
    pub parts: Vec<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Special shapes per 100k documents of the corpus, by shape.
const SPECIALS_PER_100K: [(Shape, f64); 6] = [
    (Shape::ManyTurns(1000), 0.5),
    (Shape::ManyTurns(250), 2.0),
    (Shape::ManyTurns(100), 4.0),
    (Shape::WideTurn(500), 2.0),
    (Shape::WideTurn(100), 4.0),
    (Shape::BigPayload(1 << 20), 2.0),
];

/// Corpora smaller than this get no special shapes (a 1000-turn session alone is ~3k documents)
/// and no chains.
const MIN_DOCS_FOR_SPECIALS: u64 = 20_000;

/// Sessions of each part's chain.
pub const CHAIN_SESSIONS: usize = 10;
/// Mixed into the seed of a part's chain stream.
const CHAIN_STREAM: u64 = 0xC4A1_0000_0000;

/// Writes the corpus under `out`.
pub fn generate(out: &Path, options: &GenerateOptions) -> Result<CorpusSummary, GenerateError> {
    let vocabulary = Vocabulary::new();
    let mut summary = CorpusSummary::default();
    let parts = options.parts.max(1) as u64;
    let specials = special_shapes(options.docs);
    for part in 0..parts {
        let budget = options.docs / parts + u64::from(part < options.docs % parts);
        let part_specials: Vec<Shape> = specials
            .iter()
            .enumerate()
            .filter(|(index, _)| *index as u64 % parts == part)
            .map(|(_, shape)| *shape)
            .collect();
        let directory = out.join(format!("part-{part:02}"));
        let mut writer = PartWriter::new(&directory);
        let chained = options.docs >= MIN_DOCS_FOR_SPECIALS;
        let planned = part_files(
            &vocabulary,
            options.seed,
            part,
            budget,
            &part_specials,
            chained,
            &mut |file| writer.write(file),
        )?;
        summary.planned_documents += planned.documents;
        summary.sessions += planned.sessions;
        summary.files += writer.files;
        summary.bytes += writer.bytes;
        summary.parts.push(directory);
    }
    Ok(summary)
}

/// Planned documents and sessions of one part.
#[derive(Debug, Default)]
pub struct PartPlan {
    pub documents: u64,
    pub sessions: u64,
}

/// Emits the files of one part: its special sessions first, then regular ones until the
/// budget, then (when `chained`) its chain.
pub fn part_files(
    vocabulary: &Vocabulary,
    seed: u64,
    part: u64,
    budget: u64,
    specials: &[Shape],
    chained: bool,
    emit: &mut dyn FnMut(GeneratedFile) -> Result<(), GenerateError>,
) -> Result<PartPlan, GenerateError> {
    let mut planned = PartPlan::default();
    let shapes = specials
        .iter()
        .copied()
        .chain(std::iter::repeat(Shape::Regular));
    for (index, shape) in shapes.enumerate() {
        if planned.documents >= budget && shape == Shape::Regular {
            break;
        }
        let mut rng = Rng::for_item(seed ^ (part << 48), index as u64);
        let plan = plan_session(&mut rng, vocabulary, shape);
        planned.documents += plan.planned_documents();
        planned.sessions += 1 + u64::from(plan.subagent.is_some());
        for file in render(&plan, &mut rng) {
            emit(file)?;
        }
    }
    if chained {
        let mut rng = Rng::for_item(seed ^ (part << 48) ^ CHAIN_STREAM, 0);
        for plan in plan_chain(&mut rng, vocabulary, CHAIN_SESSIONS) {
            planned.documents += plan.planned_documents();
            planned.sessions += 1;
            for file in render(&plan, &mut rng) {
                emit(file)?;
            }
        }
    }
    Ok(planned)
}

/// The special shapes of a corpus of `docs` documents, spread over the parts round-robin.
fn special_shapes(docs: u64) -> Vec<Shape> {
    if docs < MIN_DOCS_FOR_SPECIALS {
        return Vec::new();
    }
    let scale = docs as f64 / 100_000.0;
    SPECIALS_PER_100K
        .into_iter()
        .flat_map(|(shape, per_100k)| {
            let count = ((per_100k * scale).round() as usize).max(1);
            std::iter::repeat_n(shape, count)
        })
        .collect()
}

/// Renders a plan in its harness's format.
pub fn render(plan: &SessionPlan, rng: &mut Rng) -> Vec<GeneratedFile> {
    match plan.harness {
        Harness::Codex => codex::render(plan, rng),
        Harness::Claude => claude::render(plan, rng),
        Harness::GeminiJsonl => gemini::render(plan, rng, false),
        Harness::GeminiJson => gemini::render(plan, rng, true),
    }
}

/// Writes the files of one part directory, creating sub-directories once.
struct PartWriter<'a> {
    directory: &'a Path,
    created: HashSet<PathBuf>,
    files: u64,
    bytes: u64,
}

impl<'a> PartWriter<'a> {
    fn new(directory: &'a Path) -> PartWriter<'a> {
        PartWriter {
            directory,
            created: HashSet::new(),
            files: 0,
            bytes: 0,
        }
    }

    fn write(&mut self, file: GeneratedFile) -> Result<(), GenerateError> {
        let path = self.directory.join(&file.path);
        let write_error = |source| GenerateError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent()
            && self.created.insert(parent.to_path_buf())
        {
            std::fs::create_dir_all(parent).map_err(write_error)?;
        }
        std::fs::write(&path, &file.bytes).map_err(write_error)?;
        self.files += 1;
        self.bytes += file.bytes.len() as u64;
        Ok(())
    }
}

/// One small part in memory: 400 planned documents with a 40-event turn and its chain (what
/// the generator's own tests and esker's parser tests check).
pub fn sample_part(seed: u64) -> Vec<GeneratedFile> {
    let vocabulary = Vocabulary::new();
    let mut files = Vec::new();
    part_files(
        &vocabulary,
        seed,
        0,
        400,
        &[Shape::WideTurn(40)],
        true,
        &mut |file| {
            files.push(file);
            Ok(())
        },
    )
    .expect("collecting cannot fail");
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_bytes() {
        assert_eq!(sample_part(5), sample_part(5));
        assert_ne!(sample_part(5), sample_part(6));
    }

    /// Claude Code readers walk `parentUuid` links: every line needs its own uuid, and a
    /// parent must be an earlier line of the same file (a sub-agent's transcript included).
    #[test]
    fn claude_lines_link_to_earlier_lines_with_unique_uuids() {
        let mut checked = 0;
        for file in sample_part(5)
            .iter()
            .filter(|file| file.path.contains("claude/"))
        {
            let Ok(text) = std::str::from_utf8(&file.bytes) else {
                continue;
            };
            let mut seen = std::collections::HashSet::new();
            for line in text.lines().filter(|line| line.starts_with('{')) {
                let record: serde_json::Value = serde_json::from_str(line).expect("json line");
                let Some(uuid) = record["uuid"].as_str() else {
                    continue;
                };
                if let Some(parent) = record["parentUuid"].as_str() {
                    assert!(
                        seen.contains(parent),
                        "{}: {parent} is not earlier",
                        file.path
                    );
                }
                assert!(
                    seen.insert(uuid.to_owned()),
                    "{}: {uuid} repeats",
                    file.path
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} lines checked");
    }
}
