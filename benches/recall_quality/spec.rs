//! The planted corpus beside this file: `prompts.toml` (facts and prompts) and `home/` (the
//! past sessions, laid out as under a home directory), both written by `make_corpus.py`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// `benches/recall_quality` in the checkout.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/recall_quality")
}

/// What a prompt tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Asked in the fact's project.
    Same,
    /// Asked in another project than the fact's.
    Cross,
    /// Asked in the fact's project; another project holds another answer to it.
    Conflict,
    /// The answer exists nowhere in the corpus.
    None,
}

impl Kind {
    pub const ANSWERABLE: [Kind; 3] = [Kind::Same, Kind::Conflict, Kind::Cross];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Same => "same project",
            Kind::Cross => "other project",
            Kind::Conflict => "same project, another project answers otherwise",
            Kind::None => "no answer anywhere",
        }
    }
}

/// A planted fact: the events whose text holds `marker` (in the session logged in `file`).
#[derive(Debug, Clone, Deserialize)]
pub struct Fact {
    pub id: String,
    pub marker: String,
    /// The session's log, relative to `home/`: a check that the marker was found where it was
    /// planted, not an input.
    pub file: String,
    pub about: String,
}

/// A new prompt, asked from `cwd`.
#[derive(Debug, Clone, Deserialize)]
pub struct Prompt {
    pub id: String,
    pub kind: Kind,
    pub cwd: String,
    pub text: String,
    /// The fact it needs; none for [`Kind::None`].
    pub fact: Option<String>,
    /// For [`Kind::Conflict`]: the other project's answer to the same question.
    pub conflicts_with: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Spec {
    pub fact: Vec<Fact>,
    pub prompt: Vec<Prompt>,
}

impl Spec {
    /// Reads and checks `prompts.toml`: every prompt's fact exists, and only no-answer prompts
    /// lack one.
    pub fn load(path: &Path) -> anyhow::Result<Spec> {
        let text = std::fs::read_to_string(path)?;
        let spec: Spec = toml::from_str(&text)?;
        for prompt in &spec.prompt {
            anyhow::ensure!(
                prompt.fact.is_none() == (prompt.kind == Kind::None),
                "{}: a fact exactly when the kind is not none",
                prompt.id
            );
            for fact in prompt.fact.iter().chain(&prompt.conflicts_with) {
                anyhow::ensure!(
                    spec.fact.iter().any(|known| &known.id == fact),
                    "{}: unknown fact {fact}",
                    prompt.id
                );
            }
        }
        Ok(spec)
    }

    pub fn fact(&self, id: &str) -> Option<&Fact> {
        self.fact.iter().find(|fact| fact.id == id)
    }
}

/// Copies `home/` into `target` (a temporary home directory).
pub fn copy_home(source: &Path, target: &Path) -> anyhow::Result<usize> {
    let mut files = 0;
    for entry in walkdir::WalkDir::new(source).sort_by_file_name() {
        let entry = entry?;
        let relative = entry.path().strip_prefix(source)?;
        let destination = target.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&destination)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &destination)?;
            files += 1;
        }
    }
    Ok(files)
}

/// The harnesses' log directories under a home, as `esker index` with no PATH finds them
/// (`indexer::run::default_locations` with `HOME` pointing there).
pub fn harness_locations(home: &Path) -> Vec<PathBuf> {
    [
        home.join(".codex/sessions"),
        home.join(".claude/projects"),
        home.join(".gemini/tmp"),
    ]
    .into_iter()
    .filter(|path| path.is_dir())
    .collect()
}
