//! From the user's query text to the tantivy relevance query (issue #10): quoted phrases are
//! phrases, every other run of the text is a word or identifier matched both by its stems (BM25
//! on `text`) and by its exact forms (`exact`), and an exact-form match of a word outranks
//! anything a stem-only match of that word can earn.
//!
//! Score of a document = BM25 of the stems (any term, plus all terms and terms near each other
//! when there are several) + BM25 of each quoted phrase + for each query run it contains in
//! exact form a constant *presence* score. The presence score of a run is
//! [`EXACT_WEIGHT`] × max(idf of the exact form, sum of the idfs of the run's stems): at least
//! the most the run's stems can add through the three BM25 clauses (each ≤ idf × (k1 + 1)), so
//! exact beats stem-only for that run, and proportional to idf, so a filler word (`the`, idf ≈
//! 0) never decides the ranking. A whole identifier (`supports_websockets`) earns its presence
//! on top of the presence of all its parts, so it ranks above the parts found apart.
//!
//! Questions (issue #23): the filler words of a question ([`super::filler`]) are left out when
//! any other word remains, and when two or more runs remain each presence score is damped by
//! the event's length ([`LengthDamped`]): an event holding several of the question's rarer
//! words still ranks above one holding a single common word, but a dump that holds them all
//! somewhere among thousands of words no longer collects every presence at full weight. A
//! query of one run keeps the constant presence above. Runs of scripts written without spaces
//! (CJK, Thai) are matched through their bigrams, in `text` (BM25, positions) and in `exact`;
//! each bigram of such a run is a query word of its own, with an undamped presence.

use tantivy::query::{
    BooleanQuery, ConstScoreQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Searcher, Term};

use super::SearchError;
use super::analyzer::{ExactForms, RunKind, forms_of, runs};
use super::damping::LengthDamped;
use super::filler::is_filler;

/// BM25's k1 + 1: the most one occurrence statistic can multiply an idf by in tantivy's BM25.
const BM25_TF_CEILING: f32 = 2.2;

/// Stem clauses a query run can score in: any term, all terms, terms near each other.
const STEM_CLAUSES: f32 = 3.0;

/// Multiplier of an exact form's presence score (see the module doc).
pub const EXACT_WEIGHT: f32 = STEM_CLAUSES * BM25_TF_CEILING;

/// How far apart (in positions) query terms may be to earn the proximity boost.
const PHRASE_SLOP: u32 = 3;

/// The query text split into its quoted phrases and the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryText {
    /// Text outside quotes, read as words and identifiers.
    pub unquoted: String,
    /// The text of each quoted phrase (`"connection refused"`), quotes removed.
    pub phrases: Vec<String>,
}

/// Splits `text` at double quotes (straight or curly); an unclosed quote is ignored.
pub fn parse_query_text(text: &str) -> QueryText {
    let normalized: String = text
        .chars()
        .map(|character| match character {
            '\u{201c}' | '\u{201d}' => '"',
            other => other,
        })
        .collect();
    let segments: Vec<&str> = normalized.split('"').collect();
    let last = segments.len() - 1;
    let quotes_balanced = last.is_multiple_of(2);
    let mut parsed = QueryText::default();
    for (index, segment) in segments.iter().enumerate() {
        let quoted = index % 2 == 1 && (quotes_balanced || index != last);
        if quoted {
            if segment.chars().any(char::is_alphanumeric) {
                parsed.phrases.push(segment.trim().to_owned());
            }
        } else {
            parsed.unquoted.push(' ');
            parsed.unquoted.push_str(segment);
        }
    }
    parsed
}

/// Builds relevance queries against one searcher (its statistics weigh the exact forms).
pub struct RelevanceBuilder<'a> {
    pub searcher: &'a Searcher,
    /// The stemmed event text (BM25, positions).
    pub text: Field,
    /// The exact forms, when the index has them (indexes made before issue #10 do not).
    pub exact: Option<Field>,
    /// The analyzer of `text`.
    pub stemmer: TextAnalyzer,
    /// Live documents that can match (the locator-only documents of `unknown` events left
    /// out): the document count of the idf.
    pub searchable_documents: u64,
}

/// How an exact form's presence scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// The same for every event holding it: one word or identifier outranks its stem-only
    /// matches in events of any length (issue #10).
    Constant,
    /// Damped by the event's length ([`LengthDamped`]): in a question of several words, an
    /// event that holds them all because it is a dump of thousands of words does not outrank
    /// the events that talk about them (issue #23).
    Damped,
}

/// One run of the query: its stems and exact forms.
struct QueryRun {
    kind: RunKind,
    stems: Vec<String>,
    forms: ExactForms,
}

impl QueryRun {
    /// A single plain word of the filler list ([`is_filler`]).
    fn is_filler(&self) -> bool {
        match (
            self.kind,
            self.forms.whole.as_ref(),
            self.forms.parts.as_slice(),
        ) {
            (RunKind::Word, None, [word]) => is_filler(word),
            _ => false,
        }
    }
}

/// The runs of a question that carry its topic: all but the filler words, unless nothing else
/// would be left to search.
fn topical(runs: Vec<QueryRun>, has_phrase: bool) -> Vec<QueryRun> {
    let any_topical = runs.iter().any(|run| !run.is_filler());
    if !any_topical && !has_phrase {
        return runs;
    }
    runs.into_iter().filter(|run| !run.is_filler()).collect()
}

impl RelevanceBuilder<'_> {
    /// The relevance query for `text`: matches every event containing any stem or exact form
    /// of the unquoted runs, and every quoted phrase.
    pub fn build(&self, text: &str) -> Result<Box<dyn Query>, SearchError> {
        let parsed = parse_query_text(text);
        let runs = topical(
            self.query_runs(&parsed.unquoted),
            !parsed.phrases.is_empty(),
        );
        let phrase_runs: Vec<Vec<QueryRun>> = parsed
            .phrases
            .iter()
            .map(|phrase| self.query_runs(phrase))
            .collect();
        let stems: Vec<&str> = runs
            .iter()
            .flat_map(|run| run.stems.iter().map(String::as_str))
            .collect();
        let mut distinct_stems = stems.clone();
        distinct_stems.sort_unstable();
        distinct_stems.dedup();

        let mut any_match: Vec<(Occur, Box<dyn Query>)> = distinct_stems
            .iter()
            .map(|stem| (Occur::Should, self.stem_query(stem)))
            .collect();
        let presence = if runs.len() > 1 {
            Presence::Damped
        } else {
            Presence::Constant
        };
        for run in runs.iter().chain(phrase_runs.iter().flatten()) {
            for presence in self.exact_presence(run, presence_of(run, presence))? {
                any_match.push((Occur::Should, presence));
            }
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for phrase in &phrase_runs {
            if let Some(phrase_query) = self.phrase_match(phrase)? {
                clauses.push((Occur::Must, phrase_query));
            }
        }
        if !any_match.is_empty() {
            let occur = if clauses.is_empty() {
                Occur::Must
            } else {
                Occur::Should
            };
            clauses.push((occur, Box::new(BooleanQuery::new(any_match))));
        }
        if clauses.is_empty() {
            return Ok(Box::new(EmptyQuery));
        }
        if distinct_stems.len() > 1 {
            clauses.push((Occur::Should, self.all_stems(&distinct_stems)));
            clauses.push((Occur::Should, self.stems_near_each_other(&stems)));
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }

    /// The runs of `text` with their stems (the `text` analyzer applied to each run). A run of
    /// a script written without spaces is one query word per bigram: a sentence typed in
    /// Chinese or Japanese is a sequence of words, so an event holding several of its bigrams
    /// ranks above one holding a single rare bigram (each bigram earns its own presence).
    fn query_runs(&self, text: &str) -> Vec<QueryRun> {
        runs(text)
            .flat_map(|run| {
                let forms = forms_of(&run);
                match run.kind {
                    RunKind::Bigram if forms.parts.len() > 1 => forms
                        .parts
                        .into_iter()
                        .map(|bigram| self.bigram_run(bigram))
                        .collect(),
                    _ => vec![QueryRun {
                        kind: run.kind,
                        stems: self.stems(run.text),
                        forms,
                    }],
                }
            })
            .collect()
    }

    fn bigram_run(&self, bigram: String) -> QueryRun {
        QueryRun {
            kind: RunKind::Bigram,
            stems: self.stems(&bigram),
            forms: ExactForms {
                whole: None,
                parts: vec![bigram],
            },
        }
    }

    pub(super) fn stems(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.stemmer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut stems = Vec::new();
        while stream.advance() {
            stems.push(stream.token().text.clone());
        }
        stems
    }

    pub(super) fn stem_term(&self, stem: &str) -> Term {
        Term::from_field_text(self.text, stem)
    }

    pub(super) fn stem_query(&self, stem: &str) -> Box<dyn Query> {
        Box::new(TermQuery::new(
            self.stem_term(stem),
            IndexRecordOption::WithFreqs,
        ))
    }

    fn all_stems(&self, distinct_stems: &[&str]) -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            distinct_stems
                .iter()
                .map(|stem| (Occur::Must, self.stem_query(stem)))
                .collect(),
        ))
    }

    /// A sloppy phrase of the stems in query order (at least two).
    fn stems_near_each_other(&self, stems: &[&str]) -> Box<dyn Query> {
        let terms = stems.iter().map(|stem| self.stem_term(stem)).collect();
        let mut phrase = PhraseQuery::new(terms);
        phrase.set_slop(PHRASE_SLOP);
        Box::new(phrase)
    }

    /// What a quoted phrase requires: its stems in order, adjacent; a one-word phrase requires
    /// the word in exact form (`"datetimes"` does not match `datetime`). `None` when the phrase
    /// has no searchable token.
    fn phrase_match(&self, phrase: &[QueryRun]) -> Result<Option<Box<dyn Query>>, SearchError> {
        let stems: Vec<Term> = phrase
            .iter()
            .flat_map(|run| run.stems.iter().map(|stem| self.stem_term(stem)))
            .collect();
        if stems.len() > 1 {
            return Ok(Some(Box::new(PhraseQuery::new(stems))));
        }
        if self.exact.is_none() {
            return Ok(stems.into_iter().next().map(|term| -> Box<dyn Query> {
                Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
            }));
        }
        let mut alternatives: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for run in phrase {
            for presence in self.exact_presence(run, Presence::Constant)? {
                alternatives.push((Occur::Should, presence));
            }
        }
        if alternatives.is_empty() {
            return Ok(Some(Box::new(EmptyQuery)));
        }
        Ok(Some(Box::new(BooleanQuery::new(alternatives))))
    }

    /// The presence clauses of one run: its whole form and the conjunction of its parts (or
    /// its single part), each a constant score; forms absent from the index are left out.
    fn exact_presence(
        &self,
        run: &QueryRun,
        kind: Presence,
    ) -> Result<Vec<Box<dyn Query>>, SearchError> {
        let Some(exact) = self.exact else {
            return Ok(Vec::new());
        };
        let stem_idf = self.stem_idf_sum(&run.stems)?;
        let mut clauses = Vec::new();
        let mut part_idfs = Vec::with_capacity(run.forms.parts.len());
        for part in &run.forms.parts {
            match self.idf(&Term::from_field_text(exact, part))? {
                Some(idf) => part_idfs.push(idf),
                None => break,
            }
        }
        if !run.forms.parts.is_empty() && part_idfs.len() == run.forms.parts.len() {
            let rarest_part = part_idfs.iter().copied().fold(0.0, f32::max);
            let parts: Box<dyn Query> = match run.forms.parts.as_slice() {
                [single] => exact_term_query(exact, single),
                parts => Box::new(BooleanQuery::new(
                    parts
                        .iter()
                        .map(|part| (Occur::Must, exact_term_query(exact, part)))
                        .collect(),
                )),
            };
            clauses.push(self.presence(parts, rarest_part.max(stem_idf), kind));
        }
        if let Some(whole) = &run.forms.whole {
            let term = Term::from_field_text(exact, whole);
            if let Some(idf) = self.idf(&term)? {
                let query = exact_term_query(exact, whole);
                clauses.push(self.presence(query, idf.max(stem_idf), kind));
            }
        }
        Ok(clauses)
    }

    /// A score of `EXACT_WEIGHT × idf` for the documents matching `query`, constant or damped
    /// by the length of each document's text.
    fn presence(&self, query: Box<dyn Query>, idf: f32, kind: Presence) -> Box<dyn Query> {
        let constant = Box::new(ConstScoreQuery::new(query, EXACT_WEIGHT * idf));
        match kind {
            Presence::Constant => constant,
            Presence::Damped => Box::new(LengthDamped::new(constant, self.text)),
        }
    }

    fn stem_idf_sum(&self, stems: &[String]) -> Result<f32, SearchError> {
        let mut sum = 0.0;
        for stem in stems {
            sum += self.idf(&self.stem_term(stem))?.unwrap_or_default();
        }
        Ok(sum)
    }

    /// Tantivy's BM25 idf of `term`; `None` when no document holds it.
    fn idf(&self, term: &Term) -> Result<Option<f32>, SearchError> {
        let document_frequency = self.searcher.doc_freq(term)?;
        if document_frequency == 0 {
            return Ok(None);
        }
        let documents = self.searchable_documents.max(document_frequency);
        let rest = (documents - document_frequency) as f32 + 0.5;
        Ok(Some((1.0 + rest / (document_frequency as f32 + 0.5)).ln()))
    }
}

/// The presence kind of one run: a bigram of a script written without spaces is never
/// length-damped. Its text counts one token per character, several times the tokens the same
/// sentence has in a spaced script, so BM25's length factor (against an average set mostly by
/// spaced text) would take most of its presence from any CJK or Thai event of ordinary length;
/// the BM25 clauses on its stems still weigh its length.
fn presence_of(run: &QueryRun, question: Presence) -> Presence {
    match run.kind {
        RunKind::Bigram => Presence::Constant,
        RunKind::Word => question,
    }
}

pub(super) fn exact_term_query(exact: Field, form: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(exact, form),
        IndexRecordOption::Basic,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_make_phrases_and_an_unclosed_quote_is_ignored() {
        let parsed = parse_query_text("postgres \"connection refused\" port");
        assert_eq!(parsed.phrases, ["connection refused"]);
        assert_eq!(
            parsed.unquoted.split_whitespace().collect::<Vec<_>>(),
            ["postgres", "port"]
        );
        let unclosed = parse_query_text("\"a b\" \"connection refused");
        assert_eq!(unclosed.phrases, ["a b"]);
        assert!(unclosed.unquoted.contains("connection refused"));
        let curly = parse_query_text("\u{201c}exit code\u{201d}");
        assert_eq!(curly.phrases, ["exit code"]);
        assert!(parse_query_text("\"\" \" ... \"").phrases.is_empty());
        assert_eq!(parse_query_text("\"").phrases.len(), 0);
    }
}
