//! Position-checked matching for FTS5's NEAR groups, prefixed phrases and `^` (relay-search's
//! query syntax, issue #15): a [`PositionalQuery`] matches the events holding every one of its
//! phrases (each a run of token slots, a slot filled by any of its terms), optionally only at the
//! start of the text, and — when there are several — close enough together by FTS5's rule
//! ([`near_match`]). Candidates come from the conjunction of the slots (scored by BM25, as any
//! stem clause), and each candidate's positions in the `text` field decide whether it stays.

use std::sync::Arc;

use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{
    BooleanQuery, EnableScoring, Explanation, Occur, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, TantivyError, Term};

/// FTS5's distance of a NEAR group written without one.
pub const DEFAULT_NEAR_DISTANCE: u32 = 10;

/// One phrase of a positional query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotPhrase {
    /// Per consecutive token, the terms of the `text` field any of which fills it (several for
    /// a prefix token).
    pub slots: Vec<Vec<Term>>,
    /// Only at the first position of the text (FTS5 `^`).
    pub at_start: bool,
}

/// Events holding every phrase, the phrases within `max_gap` tokens of each other in any order.
#[derive(Debug)]
pub struct PositionalQuery {
    field: Field,
    phrases: Arc<Vec<SlotPhrase>>,
    max_gap: u32,
    candidates: Box<dyn Query>,
}

impl Clone for PositionalQuery {
    fn clone(&self) -> PositionalQuery {
        PositionalQuery {
            field: self.field,
            phrases: Arc::clone(&self.phrases),
            max_gap: self.max_gap,
            candidates: self.candidates.box_clone(),
        }
    }
}

impl PositionalQuery {
    /// `phrases` (none with an empty slot) in `field`, which must index positions.
    pub fn new(field: Field, phrases: Vec<SlotPhrase>, max_gap: u32) -> PositionalQuery {
        let slot_clauses = phrases
            .iter()
            .flat_map(|phrase| phrase.slots.iter())
            .map(|slot| (Occur::Must, any_term(slot)))
            .collect();
        PositionalQuery {
            field,
            phrases: Arc::new(phrases),
            max_gap,
            candidates: Box::new(BooleanQuery::new(slot_clauses)),
        }
    }
}

fn any_term(slot: &[Term]) -> Box<dyn Query> {
    let term_query = |term: &Term| -> Box<dyn Query> {
        Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs))
    };
    match slot {
        [single] => term_query(single),
        alternatives => Box::new(BooleanQuery::new(
            alternatives
                .iter()
                .map(|term| (Occur::Should, term_query(term)))
                .collect(),
        )),
    }
}

impl Query for PositionalQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(PositionalWeight {
            candidates: self.candidates.weight(enable_scoring)?,
            field: self.field,
            phrases: Arc::clone(&self.phrases),
            max_gap: self.max_gap,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for term in self.phrases.iter().flat_map(|p| p.slots.iter().flatten()) {
            visitor(term, true);
        }
    }
}

struct PositionalWeight {
    candidates: Box<dyn Weight>,
    field: Field,
    phrases: Arc<Vec<SlotPhrase>>,
    max_gap: u32,
}

impl PositionalWeight {
    fn positional_scorer(
        &self,
        reader: &SegmentReader,
        boost: Score,
    ) -> tantivy::Result<PositionalScorer> {
        let index = reader.inverted_index(self.field)?;
        let mut postings = Vec::with_capacity(self.phrases.len());
        for phrase in self.phrases.iter() {
            let mut slots = Vec::with_capacity(phrase.slots.len());
            for slot in &phrase.slots {
                let mut alternatives = Vec::with_capacity(slot.len());
                for term in slot {
                    if let Some(list) =
                        index.read_postings(term, IndexRecordOption::WithFreqsAndPositions)?
                    {
                        alternatives.push(list);
                    }
                }
                slots.push(alternatives);
            }
            postings.push(slots);
        }
        let mut scorer = PositionalScorer {
            candidates: self.candidates.scorer(reader, boost)?,
            phrases: Arc::clone(&self.phrases),
            postings,
            max_gap: self.max_gap,
        };
        let first = scorer.candidates.doc();
        if first != TERMINATED && !scorer.matches(first) {
            scorer.advance();
        }
        Ok(scorer)
    }
}

impl Weight for PositionalWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(self.positional_scorer(reader, boost)?))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.positional_scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match the positional query"
            )));
        }
        let mut explanation = Explanation::new("positional match", scorer.score());
        explanation.add_detail(self.candidates.explain(reader, doc)?);
        Ok(explanation)
    }
}

struct PositionalScorer {
    candidates: Box<dyn Scorer>,
    phrases: Arc<Vec<SlotPhrase>>,
    /// Per phrase, per slot, the postings of the slot's terms present in the segment.
    postings: Vec<Vec<Vec<SegmentPostings>>>,
    max_gap: u32,
}

impl PositionalScorer {
    /// Whether the candidate `doc` holds the phrases as the query requires.
    fn matches(&mut self, doc: DocId) -> bool {
        let mut found = Vec::with_capacity(self.phrases.len());
        for (phrase, slots) in self.phrases.iter().zip(self.postings.iter_mut()) {
            let slot_positions: Vec<Vec<u32>> = slots
                .iter_mut()
                .map(|alternatives| positions_in(alternatives, doc))
                .collect();
            let starts = phrase_starts(&slot_positions, phrase.at_start);
            if starts.is_empty() {
                return false;
            }
            found.push(PhraseHits {
                starts,
                length: phrase.slots.len() as u32,
            });
        }
        near_match(&found, self.max_gap)
    }
}

impl DocSet for PositionalScorer {
    fn advance(&mut self) -> DocId {
        loop {
            let doc = self.candidates.advance();
            if doc == TERMINATED || self.matches(doc) {
                return doc;
            }
        }
    }

    fn seek(&mut self, target: DocId) -> DocId {
        let doc = self.candidates.seek(target);
        if doc == TERMINATED || self.matches(doc) {
            return doc;
        }
        self.advance()
    }

    fn doc(&self) -> DocId {
        self.candidates.doc()
    }

    fn size_hint(&self) -> u32 {
        self.candidates.size_hint()
    }

    fn cost(&self) -> u64 {
        self.candidates.cost()
    }
}

impl Scorer for PositionalScorer {
    fn score(&mut self) -> Score {
        self.candidates.score()
    }
}

/// The sorted positions in `doc` of any of the terms whose postings are `alternatives`.
fn positions_in(alternatives: &mut [SegmentPostings], doc: DocId) -> Vec<u32> {
    let mut positions = Vec::new();
    for postings in alternatives {
        if postings.doc() < doc {
            postings.seek(doc);
        }
        if postings.doc() == doc {
            postings.append_positions_with_offset(0, &mut positions);
        }
    }
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// Where a phrase starts: the positions of its first slot followed by each next slot at the
/// next position (only position 0 when `at_start`).
fn phrase_starts(slot_positions: &[Vec<u32>], at_start: bool) -> Vec<u32> {
    let Some((first, rest)) = slot_positions.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .copied()
        .filter(|&start| !at_start || start == 0)
        .filter(|&start| {
            rest.iter()
                .zip(1u32..)
                .all(|(positions, offset)| positions.binary_search(&(start + offset)).is_ok())
        })
        .collect()
}

/// Where one phrase occurs in a document: its start positions (sorted) and its token count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseHits {
    pub starts: Vec<u32>,
    pub length: u32,
}

/// FTS5's NEAR rule (`fts5ExprNearIsMatch`): some occurrence of every phrase such that, for each
/// phrase, at most `max_gap` tokens lie between its end and the start of the occurrence that
/// starts last. Every phrase must occur at least once.
pub fn near_match(phrases: &[PhraseHits], max_gap: u32) -> bool {
    if phrases.iter().any(|phrase| phrase.starts.is_empty()) {
        return false;
    }
    let Some(first) = phrases.first() else {
        return false;
    };
    let mut cursors = vec![0usize; phrases.len()];
    let mut latest = i64::from(first.starts[0]);
    loop {
        let mut all_close = true;
        for (phrase, cursor) in phrases.iter().zip(cursors.iter_mut()) {
            let earliest = latest - i64::from(phrase.length) - i64::from(max_gap);
            let mut start = i64::from(phrase.starts[*cursor]);
            if start < earliest || start > latest {
                all_close = false;
                while start < earliest {
                    *cursor += 1;
                    match phrase.starts.get(*cursor) {
                        Some(&next) => start = i64::from(next),
                        None => return false,
                    }
                }
                latest = latest.max(start);
            }
        }
        if all_close {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The phrases of `query` (words, or `"quoted phrases"` as one string with spaces) found in
    /// `document`, by token positions (single letters, as in the FTS5 documentation).
    fn hits(document: &str, phrases: &[&str]) -> Vec<PhraseHits> {
        let tokens: Vec<&str> = document.split_whitespace().collect();
        phrases
            .iter()
            .map(|phrase| {
                let words: Vec<&str> = phrase.split_whitespace().collect();
                let starts = (0..tokens.len())
                    .filter(|&start| {
                        words.iter().enumerate().all(|(offset, word)| {
                            tokens
                                .get(start + offset)
                                .is_some_and(|token| token.eq_ignore_ascii_case(word))
                        })
                    })
                    .map(|start| start as u32)
                    .collect();
                PhraseHits {
                    starts,
                    length: words.len() as u32,
                }
            })
            .collect()
    }

    #[test]
    fn near_follows_the_examples_of_the_fts5_documentation() {
        let document = "A B C D x x x E F x";
        let near = |phrases: &[&str], gap| near_match(&hits(document, phrases), gap);
        assert!(near(&["e", "d"], 4));
        assert!(near(&["e", "d"], 3));
        assert!(!near(&["e", "d"], 2));
        assert!(near(&["c d", "e f"], 3));
        assert!(!near(&["c", "e f"], 3));
        assert!(near(&["a", "d", "e"], 6));
        assert!(!near(&["a", "d", "e"], 5));
        assert!(near(&["a b c d", "b c", "e f"], 4));
        assert!(!near(&["a b c d", "b c", "e f"], 3));
    }

    #[test]
    fn near_needs_every_phrase_and_takes_any_order() {
        let document = "x y z parquet x x schema";
        assert!(near_match(&hits(document, &["schema", "parquet"]), 2));
        assert!(!near_match(&hits(document, &["schema", "parquet"]), 1));
        assert!(!near_match(&hits(document, &["schema", "absent"]), 10));
        assert!(near_match(&hits(document, &["parquet"]), 0));
        assert!(!near_match(&[], 10));
    }

    #[test]
    fn a_later_pair_matches_when_an_earlier_one_is_too_far_apart() {
        let document = "a x x x x x x b x a b";
        assert!(near_match(&hits(document, &["a", "b"]), 0));
        assert!(!near_match(&hits("a x b", &["a", "b"]), 0));
    }

    #[test]
    fn phrase_starts_need_every_slot_in_sequence() {
        let slots = vec![vec![0, 4, 9], vec![1, 10], vec![2, 7]];
        assert_eq!(phrase_starts(&slots, false), [0]);
        assert_eq!(phrase_starts(&[vec![3, 5]], false), [3, 5]);
        assert!(phrase_starts(&[vec![3, 5]], true).is_empty());
        assert_eq!(phrase_starts(&[vec![0, 5]], true), [0]);
        assert!(phrase_starts(&[], false).is_empty());
    }
}
