//! The quality figures: each prompt's block, read as the agent gets it, scored against the
//! planted facts (found in the tables by their markers), with each cited id opened through
//! the service layer (`open`, as `esker show` and the MCP server answer it).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use esker::cli::Reader;
use esker::cli::recall::block::MAX_ITEMS;
use esker::cli::recall::recall;
use esker::service::open::Open;
use serde_json::json;

use crate::block::{self, Line};
use crate::latency::{self, Ask};
use crate::spec::{Kind, Prompt, Spec};
use crate::tables::{self, Planted};

/// deja-vu's published figure, as issue #52 quotes it: planted answers hit without and with
/// its recall, of the planted questions.
pub const DEJA_VU: (usize, usize, usize) = (20, 43, 56);

/// One prompt's block and what it cites.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub prompt: Prompt,
    pub block: String,
    pub lines: Vec<Line>,
    /// Why recall printed nothing, when it failed.
    pub error: Option<String>,
    /// 1-based line of the first event of the prompt's fact.
    pub fact_rank: Option<usize>,
    /// 1-based line of the first event of the other project's answer (conflict prompts).
    pub conflict_rank: Option<usize>,
    /// Whether a line cites any event of the fact's session.
    pub fact_session_cited: bool,
    /// Whether a line cites any planted fact's event.
    pub planted_cited: bool,
    /// Lines whose id opened and whose text is quoted from the opened event.
    pub citations_correct: usize,
    /// Lines whose id is not an event's (a memory entry's), so not checked.
    pub citations_unchecked: usize,
    /// Per line: whether its session ran in the prompt's project (`None`: not an event).
    pub in_project: Vec<Option<bool>>,
    /// What went wrong with each incorrect citation.
    pub citation_faults: Vec<String>,
}

impl Outcome {
    /// Whether no other project's line comes before one of the prompt's project.
    pub fn project_first(&self) -> bool {
        let mut seen_other = false;
        for flag in self.in_project.iter().flatten() {
            if *flag && seen_other {
                return false;
            }
            seen_other |= !flag;
        }
        true
    }

    pub fn has_project_line(&self) -> bool {
        self.in_project.contains(&Some(true))
    }
}

/// Runs recall for every prompt and scores its block.
pub async fn evaluate(
    data_dir: &Path,
    spec: &Spec,
    planted: &Planted,
) -> anyhow::Result<Vec<Outcome>> {
    let context = tables::context(data_dir).await?;
    let sessions = tables::event_sessions(&context).await?;
    let reader = Reader::open(data_dir).await?;
    let mut opened: HashMap<String, Result<String, String>> = HashMap::new();
    let mut outcomes = Vec::with_capacity(spec.prompt.len());
    for prompt in &spec.prompt {
        let ask = Ask {
            text: prompt.text.clone(),
            cwd: prompt.cwd.clone(),
        };
        let (block, error) = match recall(&latency::options(data_dir, &ask)).await {
            Ok(block) => (block, None),
            Err(error) => (String::new(), Some(error.to_string())),
        };
        let lines = block::lines(&block);
        let rank_of = |fact: &Option<String>| {
            let events = planted.events.get(fact.as_deref()?)?;
            lines
                .iter()
                .position(|line| events.contains(&line.id))
                .map(|index| index + 1)
        };
        let fact_session = prompt
            .fact
            .as_deref()
            .and_then(|fact| planted.sessions.get(fact));
        let mut outcome = Outcome {
            prompt: prompt.clone(),
            fact_rank: rank_of(&prompt.fact),
            conflict_rank: rank_of(&prompt.conflicts_with),
            fact_session_cited: lines.iter().any(|line| {
                sessions.get(&line.id).map(|(session, _)| session) == fact_session
                    && fact_session.is_some()
            }),
            planted_cited: lines.iter().any(|line| planted.any_fact.contains(&line.id)),
            in_project: lines
                .iter()
                .map(|line| {
                    sessions
                        .get(&line.id)
                        .map(|(_, cwd)| tables::in_project(&prompt.cwd, cwd))
                })
                .collect(),
            block,
            lines: Vec::new(),
            error,
            citations_correct: 0,
            citations_unchecked: 0,
            citation_faults: Vec::new(),
        };
        for line in &lines {
            if !line.id.starts_with("event:") {
                outcome.citations_unchecked += 1;
                continue;
            }
            if !opened.contains_key(&line.id) {
                let text = reader
                    .call::<Open>(json!({ "id": line.id }))
                    .await
                    .map(|data| {
                        data["content"]["text"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .map_err(|error| error.to_string());
                opened.insert(line.id.clone(), text);
            }
            match &opened[&line.id] {
                Ok(text) if block::quotes(text, &line.text) => outcome.citations_correct += 1,
                Ok(_) => outcome.citation_faults.push(format!(
                    "{}: the opened event does not hold the quoted text",
                    line.id
                )),
                Err(error) => outcome
                    .citation_faults
                    .push(format!("{}: does not open: {error}", line.id)),
            }
        }
        outcome.lines = lines;
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

fn share(count: usize, of: usize) -> String {
    if of == 0 {
        return "—".to_owned();
    }
    format!("{count} / {of} ({:.1}%)", count as f64 * 100.0 / of as f64)
}

/// The quality table, the comparison with deja-vu, and the per-kind rows.
pub fn markdown(outcomes: &[Outcome]) -> String {
    let answerable: Vec<&Outcome> = outcomes
        .iter()
        .filter(|outcome| outcome.prompt.kind != Kind::None)
        .collect();
    let unanswerable: Vec<&Outcome> = outcomes
        .iter()
        .filter(|outcome| outcome.prompt.kind == Kind::None)
        .collect();
    let count = |set: &[&Outcome], test: &dyn Fn(&Outcome) -> bool| {
        set.iter().filter(|outcome| test(outcome)).count()
    };
    let of_kind = |kind: Kind| -> Vec<&Outcome> {
        answerable
            .iter()
            .copied()
            .filter(|o| o.prompt.kind == kind)
            .collect()
    };
    let mut text = String::from("| figure | prompts | value |\n|---|---|---|\n");
    let mut row = |figure: String, prompts: &str, value: String| {
        let _ = writeln!(text, "| {figure} | {prompts} | {value} |");
    };
    let first = |outcome: &Outcome| outcome.fact_rank == Some(1);
    let anywhere = |outcome: &Outcome| outcome.fact_rank.is_some();
    row(
        "recall@1: the fact's event is the block's first line".to_owned(),
        "answerable",
        share(count(&answerable, &first), answerable.len()),
    );
    for kind in Kind::ANSWERABLE {
        let set = of_kind(kind);
        row(
            format!("recall@1, {}", kind.label()),
            "answerable",
            share(count(&set, &first), set.len()),
        );
    }
    row(
        format!("recall@k: the fact's event is cited anywhere in the block (k ≤ {MAX_ITEMS})"),
        "answerable",
        share(count(&answerable, &anywhere), answerable.len()),
    );
    for kind in Kind::ANSWERABLE {
        let set = of_kind(kind);
        row(
            format!("recall@k, {}", kind.label()),
            "answerable",
            share(count(&set, &anywhere), set.len()),
        );
    }
    let reciprocal: f64 = answerable
        .iter()
        .filter_map(|outcome| outcome.fact_rank)
        .map(|rank| 1.0 / rank as f64)
        .sum();
    row(
        "MRR of the fact's event".to_owned(),
        "answerable",
        if answerable.is_empty() {
            "—".to_owned()
        } else {
            format!("{:.3}", reciprocal / answerable.len() as f64)
        },
    );
    row(
        "the fact's session cited (any of its events)".to_owned(),
        "answerable",
        share(
            count(&answerable, &|outcome| outcome.fact_session_cited),
            answerable.len(),
        ),
    );
    row(
        "empty block although the fact exists".to_owned(),
        "answerable",
        share(
            count(&answerable, &|outcome| outcome.block.is_empty()),
            answerable.len(),
        ),
    );
    let conflicts = of_kind(Kind::Conflict);
    row(
        "the other project's answer ranked above the current project's".to_owned(),
        "conflict",
        share(
            count(
                &conflicts,
                &|outcome| match (outcome.conflict_rank, outcome.fact_rank) {
                    (Some(other), Some(own)) => other < own,
                    (Some(_), None) => true,
                    _ => false,
                },
            ),
            conflicts.len(),
        ),
    );
    row(
        "empty block (nothing relevant exists)".to_owned(),
        "no answer",
        share(
            count(&unanswerable, &|outcome| outcome.block.is_empty()),
            unanswerable.len(),
        ),
    );
    row(
        "no planted fact cited".to_owned(),
        "no answer",
        share(
            count(&unanswerable, &|outcome| !outcome.planted_cited),
            unanswerable.len(),
        ),
    );
    let all: Vec<&Outcome> = outcomes.iter().collect();
    let lines: usize = all.iter().map(|outcome| outcome.lines.len()).sum();
    let unchecked: usize = all.iter().map(|outcome| outcome.citations_unchecked).sum();
    let correct: usize = all.iter().map(|outcome| outcome.citations_correct).sum();
    row(
        "citation correctness: the cited id opens (`open`) and its text holds the quoted snippet"
            .to_owned(),
        "all, per line",
        format!(
            "{}{}",
            share(correct, lines - unchecked),
            if unchecked > 0 {
                format!(" ({unchecked} memory lines not checked)")
            } else {
                String::new()
            }
        ),
    );
    let with_project: Vec<&Outcome> = all
        .iter()
        .copied()
        .filter(|outcome| outcome.has_project_line())
        .collect();
    row(
        "current project first: no other project's line before one of the prompt's project"
            .to_owned(),
        "blocks with a line of the prompt's project",
        share(
            count(&with_project, &|outcome| outcome.project_first()),
            with_project.len(),
        ),
    );
    let non_empty: Vec<&Outcome> = all
        .iter()
        .copied()
        .filter(|outcome| !outcome.block.is_empty())
        .collect();
    let mut tokens: Vec<usize> = non_empty
        .iter()
        .map(|outcome| block::tokens(&outcome.block))
        .collect();
    tokens.sort_unstable();
    row(
        "lines per non-empty block (mean) / block tokens (median, max)".to_owned(),
        "all",
        if non_empty.is_empty() {
            "—".to_owned()
        } else {
            format!(
                "{:.1} / {}, {}",
                lines as f64 / non_empty.len() as f64,
                tokens[tokens.len() / 2],
                tokens[tokens.len() - 1]
            )
        },
    );
    row(
        "recall failed (printed nothing on an error)".to_owned(),
        "all",
        share(count(&all, &|outcome| outcome.error.is_some()), all.len()),
    );
    let (before, after, of) = DEJA_VU;
    let _ = write!(
        text,
        "\n| planted-answer hits | hits | of |\n|---|---|---|\n\
         | deja-vu, published (without → with its recall; its own corpus, not re-run here) | {before} → {after} | {of} |\n\
         | esker recall, this corpus: the fact cited in the block | {} | {} |\n\
         | esker recall, this corpus: the fact cited first | {} | {} |\n",
        count(&answerable, &anywhere),
        answerable.len(),
        count(&answerable, &first),
        answerable.len(),
    );
    text
}

/// Every prompt with its verdict and block, for reading the misses.
pub fn details(outcomes: &[Outcome], spec: &Spec) -> String {
    let mut text = String::new();
    for outcome in outcomes {
        let prompt = &outcome.prompt;
        let verdict = match (prompt.kind, outcome.fact_rank) {
            (Kind::None, _) if outcome.block.is_empty() => "empty (right)".to_owned(),
            (Kind::None, _) if outcome.planted_cited => "cites a planted fact".to_owned(),
            (Kind::None, _) => "not empty, no planted fact".to_owned(),
            (_, Some(rank)) => format!("fact at line {rank}"),
            (_, None) => "MISSED".to_owned(),
        };
        let _ = writeln!(
            text,
            "## {} ({:?}, {}): {}\ncwd {} · fact {} · {}",
            prompt.id,
            prompt.kind,
            verdict,
            prompt.text,
            prompt.cwd,
            prompt
                .fact
                .as_deref()
                .and_then(|id| spec.fact(id))
                .map(|fact| format!("{} ({}; marker {:?})", fact.id, fact.about, fact.marker))
                .unwrap_or_else(|| "none".to_owned()),
            outcome
                .error
                .as_deref()
                .map(|error| format!("error: {error}"))
                .unwrap_or_default()
        );
        for fault in &outcome.citation_faults {
            let _ = writeln!(text, "citation fault: {fault}");
        }
        for (line, in_project) in outcome.lines.iter().zip(&outcome.in_project) {
            let mark = match in_project {
                Some(true) => "here ",
                Some(false) => "other",
                None => "?    ",
            };
            let _ = writeln!(text, "  {mark} {}", line.raw);
        }
        text.push('\n');
    }
    text
}
