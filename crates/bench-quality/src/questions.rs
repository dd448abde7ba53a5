//! The question benchmark (issue #23): questions written by people who read the sessions of
//! `../shared/corpus`, each with the session it is about, asked as typed through the search
//! `search_sessions` runs (default event types, 50 hits). Reports, per kind of question and
//! overall, hit@1 and hit@5 (the target among the first 1 or 5 distinct sessions of the hits),
//! found@50 (the target among the sessions of all 50 hits) and the mean reciprocal rank of the
//! target among distinct sessions. The questions live in `benches/questions/corpus.jsonl`.

use std::collections::BTreeMap;
use std::path::Path;

use esker::model::EventType;
use esker::search::{SearchError, SearchIndex, SearchQuery};
use esker::semantic::{Leg, hybrid_search};

/// Hits asked for per question: `search_sessions`' largest `n_hits`.
pub const HITS_PER_QUESTION: usize = 50;

/// The question file of the real corpus, relative to the repository root.
pub const CORPUS_QUESTIONS: &str = "benches/questions/corpus.jsonl";

/// Errors of loading a question file.
#[derive(Debug, thiserror::Error)]
pub enum QuestionsError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {source}")]
    Json {
        path: std::path::PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// One question of the benchmark.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Question {
    /// `paraphrase`, `identifier`, `filler` or `decision`.
    pub kind: String,
    /// Language of the question (`en`, `ja`, `zh`, `es`).
    pub lang: String,
    /// The session the question is about.
    pub session: String,
    pub question: String,
    /// Written after the ranking was tuned on the others, and not used to tune it.
    #[serde(default)]
    pub held_out: bool,
}

impl Question {
    /// Whether the question is in Japanese or Chinese.
    pub fn is_cjk(&self) -> bool {
        matches!(self.lang.as_str(), "ja" | "zh")
    }
}

/// Reads a question file: one JSON object per line, blank lines skipped.
pub fn load_questions(path: &Path) -> Result<Vec<Question>, QuestionsError> {
    let text = std::fs::read_to_string(path).map_err(|source| QuestionsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut questions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let question = serde_json::from_str(line).map_err(|source| QuestionsError::Json {
            path: path.to_path_buf(),
            line: index + 1,
            source,
        })?;
        questions.push(question);
    }
    Ok(questions)
}

/// Where one question's target ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub question: Question,
    /// 1-based rank of the target among the distinct sessions of the hits; `None` when absent.
    pub rank: Option<usize>,
    /// The first distinct sessions of the hits (up to 5), for reading misses.
    pub top_sessions: Vec<String>,
}

/// The figures of a group of questions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub questions: usize,
    pub hit_at_1: usize,
    pub hit_at_5: usize,
    pub found_at_50: usize,
    pub reciprocal_rank_sum: f64,
}

impl Figures {
    fn add(&mut self, rank: Option<usize>) {
        self.questions += 1;
        let Some(rank) = rank else {
            return;
        };
        self.found_at_50 += 1;
        self.hit_at_5 += usize::from(rank <= 5);
        self.hit_at_1 += usize::from(rank == 1);
        self.reciprocal_rank_sum += 1.0 / rank as f64;
    }

    fn share(&self, count: usize) -> f64 {
        if self.questions == 0 {
            return 1.0;
        }
        count as f64 / self.questions as f64
    }

    pub fn hit_at_1_share(&self) -> f64 {
        self.share(self.hit_at_1)
    }

    pub fn hit_at_5_share(&self) -> f64 {
        self.share(self.hit_at_5)
    }

    pub fn found_at_50_share(&self) -> f64 {
        self.share(self.found_at_50)
    }

    pub fn mrr(&self) -> f64 {
        if self.questions == 0 {
            return 1.0;
        }
        self.reciprocal_rank_sum / self.questions as f64
    }
}

/// The outcome of every question and the figures per group.
#[derive(Debug, Clone, Default)]
pub struct QuestionReport {
    pub outcomes: Vec<Outcome>,
    /// Per kind, in name order.
    pub by_kind: BTreeMap<String, Figures>,
    /// The questions in Japanese or Chinese, together.
    pub cjk: Figures,
    /// The held-out questions ([`Question::held_out`]), together.
    pub held_out: Figures,
    pub overall: Figures,
}

impl QuestionReport {
    /// The questions whose target is not the first session.
    pub fn misses_at_1(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes
            .iter()
            .filter(|outcome| outcome.rank != Some(1))
    }

    /// The figures as a Markdown table: one row per kind, one for the questions in Japanese
    /// and Chinese, one overall.
    pub fn markdown_table(&self) -> String {
        let mut table = String::from(
            "| questions | n | hit@1 | hit@5 | found@50 | MRR |\n|---|---:|---:|---:|---:|---:|\n",
        );
        for (kind, figures) in &self.by_kind {
            table.push_str(&table_row(kind, figures));
        }
        table.push_str(&table_row("in Japanese or Chinese", &self.cjk));
        table.push_str(&table_row(
            "held out (written after tuning)",
            &self.held_out,
        ));
        table.push_str(&table_row("**all**", &self.overall));
        table
    }
}

fn table_row(name: &str, figures: &Figures) -> String {
    format!(
        "| {name} | {} | {:.1}% | {:.1}% | {:.1}% | {:.3} |\n",
        figures.questions,
        figures.hit_at_1_share() * 100.0,
        figures.hit_at_5_share() * 100.0,
        figures.found_at_50_share() * 100.0,
        figures.mrr()
    )
}

/// Asks every question of `questions` and ranks its target session.
pub fn measure(index: &SearchIndex, questions: &[Question]) -> Result<QuestionReport, SearchError> {
    measure_with_leg(index, None, questions)
}

/// [`measure`] with the semantic leg fused in when `leg` is given (issue #23 item 4).
pub fn measure_with_leg(
    index: &SearchIndex,
    leg: Option<&Leg>,
    questions: &[Question],
) -> Result<QuestionReport, SearchError> {
    let mut report = QuestionReport::default();
    for question in questions {
        let sessions = ranked_sessions(index, leg, &question.question)?;
        let rank = sessions
            .iter()
            .position(|session| *session == question.session)
            .map(|position| position + 1);
        report
            .by_kind
            .entry(question.kind.clone())
            .or_default()
            .add(rank);
        if question.is_cjk() {
            report.cjk.add(rank);
        }
        if question.held_out {
            report.held_out.add(rank);
        }
        report.overall.add(rank);
        report.outcomes.push(Outcome {
            question: question.clone(),
            rank,
            top_sessions: sessions.into_iter().take(5).collect(),
        });
    }
    Ok(report)
}

/// The distinct sessions of the hits of `text`, in hit order.
fn ranked_sessions(
    index: &SearchIndex,
    leg: Option<&Leg>,
    text: &str,
) -> Result<Vec<String>, SearchError> {
    let results = hybrid_search(
        index,
        leg,
        &SearchQuery {
            text,
            session_id: None,
            turn_id: None,
            event_types: &EventType::SEARCH_DEFAULT,
            source: None,
            sessions: None,
            limit: HITS_PER_QUESTION,
            cancel: None,
        },
    )?;
    let mut sessions: Vec<String> = Vec::new();
    for hit in results.hits {
        if !sessions.contains(&hit.session_id) {
            sessions.push(hit.session_id);
        }
    }
    Ok(sessions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_count_ranks_among_distinct_sessions() {
        let mut figures = Figures::default();
        for rank in [Some(1), Some(3), Some(7), None] {
            figures.add(rank);
        }
        assert_eq!(figures.hit_at_1, 1);
        assert_eq!(figures.hit_at_5, 2);
        assert_eq!(figures.found_at_50, 3);
        let expected_mrr = (1.0 + 1.0 / 3.0 + 1.0 / 7.0) / 4.0;
        assert!((figures.mrr() - expected_mrr).abs() < 1e-9);
    }

    #[test]
    fn the_corpus_question_file_is_well_formed() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(CORPUS_QUESTIONS);
        let questions = load_questions(&path).expect("question file loads");
        assert!(questions.len() >= 100, "{} questions", questions.len());
        for kind in ["paraphrase", "identifier", "filler", "decision"] {
            assert!(
                questions.iter().filter(|q| q.kind == kind).count() >= 20,
                "{kind}"
            );
        }
        let cjk = questions.iter().filter(|q| q.is_cjk()).count();
        assert!(cjk >= 10, "{cjk} questions in Japanese or Chinese");
        assert!(questions.iter().all(|q| q.session.starts_with("session:")));
    }
}
