//! The question benchmark (issue #23) on `../shared/corpus`: hit@1, hit@5, found@50 and MRR
//! per kind of question (`bench_quality::questions`), as figures of the report, with the
//! Markdown table on stderr.

use std::path::Path;

use bench_quality::questions::{CORPUS_QUESTIONS, Figures, load_questions, measure};
use esker::search::SearchIndex;
use esker::store::Store;

use crate::stats::Report;

/// The goals of issue #23 for all questions.
const TARGET_HIT_AT_5: f64 = 0.95;
const TARGET_HIT_AT_1: f64 = 0.85;

/// Adds the question rows for the store of `../shared/corpus` in `data_dir`.
pub fn question_figures(data_dir: &Path, report: &mut Report) -> anyhow::Result<()> {
    let root = Store::open(data_dir)?.current()?.root;
    let index = SearchIndex::open_dir(&root.join("tantivy"))?;
    let questions = load_questions(&Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS_QUESTIONS))?;
    let results = measure(&index, &questions)?;
    eprintln!("question benchmark:\n{}", results.markdown_table());
    for (kind, figures) in &results.by_kind {
        report.figure(&format!("questions ({kind})"), summary(figures), "", None);
    }
    report.figure(
        "questions (Japanese or Chinese)",
        summary(&results.cjk),
        "",
        None,
    );
    report.figure("questions (held out)", summary(&results.held_out), "", None);
    let overall = results.overall;
    report.figure(
        "questions (all)",
        summary(&overall),
        "hit@5 ≥ 95%, hit@1 ≥ 85%",
        Some(
            overall.hit_at_5_share() >= TARGET_HIT_AT_5
                && overall.hit_at_1_share() >= TARGET_HIT_AT_1,
        ),
    );
    Ok(())
}

fn summary(figures: &Figures) -> String {
    format!(
        "{} questions: hit@1 {:.1}%, hit@5 {:.1}%, found@50 {:.1}%, MRR {:.3}",
        figures.questions,
        figures.hit_at_1_share() * 100.0,
        figures.hit_at_5_share() * 100.0,
        figures.found_at_50_share() * 100.0,
        figures.mrr()
    )
}
