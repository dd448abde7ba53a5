//! The event-type restriction of a search as one cached per-segment lookup: each document's
//! type read once per segment into a byte table, then a scorer that skips to the next
//! document of a requested type and scores it as the `TermQuery` of its type would (BM25 of
//! one token), so scores, ties and the order of the clauses' sums stay those of the union of
//! type `TermQuery`s it replaces. The union rescored up to a whole 4,096-document window on
//! every seek; this seek reads bytes (issue #21: most of tantivy's part of a search).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::SegmentId;
use tantivy::query::{Bm25Weight, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

/// Table value of a document whose type is none of the segment's known types.
const NO_TYPE: u8 = u8::MAX;

/// Per-segment tables of each document's type, shared by every search of an index.
#[derive(Debug, Default)]
pub struct TypeTables {
    by_segment: Mutex<HashMap<SegmentId, Arc<SegmentTypes>>>,
}

/// One segment's document types: `types[doc]` indexes `names` (or is [`NO_TYPE`]), and each
/// name's document frequency in the segment (deleted documents included, as postings count).
#[derive(Debug)]
struct SegmentTypes {
    names: Vec<String>,
    doc_freqs: Vec<u32>,
    types: Vec<u8>,
    /// The field's fieldnorm id when every document has the same (one token each: always,
    /// for the `type` field), so a score is one lookup by type.
    uniform_fieldnorm: Option<u8>,
}

impl TypeTables {
    fn segment(&self, reader: &SegmentReader, field: Field) -> tantivy::Result<Arc<SegmentTypes>> {
        let segment = reader.segment_id();
        if let Some(types) = self.lock().get(&segment) {
            return Ok(types.clone());
        }
        let types = Arc::new(SegmentTypes::read(reader, field)?);
        self.lock().insert(segment, types.clone());
        Ok(types)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SegmentId, Arc<SegmentTypes>>> {
        self.by_segment
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl SegmentTypes {
    /// Walks the postings of every term of `field` in the segment.
    fn read(reader: &SegmentReader, field: Field) -> tantivy::Result<SegmentTypes> {
        let inverted_index = reader.inverted_index(field)?;
        let mut types = vec![NO_TYPE; reader.max_doc() as usize];
        let mut names = Vec::new();
        let mut doc_freqs = Vec::new();
        let mut terms = inverted_index.terms().stream()?;
        while terms.advance() {
            if names.len() >= usize::from(NO_TYPE) {
                break;
            }
            let index = names.len() as u8;
            names.push(String::from_utf8_lossy(terms.key()).into_owned());
            doc_freqs.push(terms.value().doc_freq);
            let mut postings = inverted_index
                .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
            let mut doc = postings.doc();
            while doc != TERMINATED {
                types[doc as usize] = index;
                doc = postings.advance();
            }
        }
        let uniform_fieldnorm = match reader.fieldnorms_readers().get_field(field)? {
            None => Some(1),
            Some(fieldnorms) => {
                let first = fieldnorms.fieldnorm_id(0);
                (1..reader.max_doc())
                    .all(|doc| fieldnorms.fieldnorm_id(doc) == first)
                    .then_some(first)
            }
        };
        Ok(SegmentTypes {
            names,
            doc_freqs,
            types,
            uniform_fieldnorm,
        })
    }
}

/// Documents whose `field` (one raw token per document) is one of `types`, each scored as
/// `TermQuery::new(Term(field, its type), Basic)` scores it.
#[derive(Debug, Clone)]
pub struct TypeFilterQuery {
    field: Field,
    types: Vec<String>,
    tables: Arc<TypeTables>,
}

impl TypeFilterQuery {
    pub fn new(field: Field, types: Vec<String>, tables: Arc<TypeTables>) -> TypeFilterQuery {
        TypeFilterQuery {
            field,
            types,
            tables,
        }
    }
}

impl Query for TypeFilterQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weights = match enable_scoring {
            EnableScoring::Enabled {
                statistics_provider,
                ..
            } => Some(
                self.types
                    .iter()
                    .map(|name| {
                        let term = Term::from_field_text(self.field, name);
                        Bm25Weight::for_terms(statistics_provider, &[term])
                    })
                    .collect::<tantivy::Result<Vec<_>>>()?,
            ),
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(TypeFilterWeight {
            field: self.field,
            types: self.types.clone(),
            weights,
            tables: self.tables.clone(),
        }))
    }
}

struct TypeFilterWeight {
    field: Field,
    types: Vec<String>,
    /// The BM25 weight of each of `types` (`None`: scoring disabled).
    weights: Option<Vec<Bm25Weight>>,
    tables: Arc<TypeTables>,
}

impl Weight for TypeFilterWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let segment = self.tables.segment(reader, self.field)?;
        // Per table value: the weight of the requested type it names, if requested.
        let mut by_value: Vec<Option<Bm25Weight>> = vec![None; segment.names.len()];
        let mut requested_sizes = Vec::with_capacity(self.types.len());
        let mut any = false;
        for (position, name) in self.types.iter().enumerate() {
            let Some(value) = segment.names.iter().position(|known| known == name) else {
                requested_sizes.push(0);
                continue;
            };
            requested_sizes.push(segment.doc_freqs[value]);
            any = true;
            by_value[value] = Some(match &self.weights {
                Some(weights) => weights[position].boost_by(boost),
                None => Bm25Weight::for_one_term_without_explain(1, 1, 1.0),
            });
        }
        if !any {
            return Ok(Box::new(tantivy::query::EmptyScorer));
        }
        let scoring = self.weights.is_some();
        let fieldnorms = match self.weights {
            Some(_) => reader.fieldnorms_readers().get_field(self.field)?,
            None => None,
        }
        .unwrap_or_else(|| FieldNormReader::constant(reader.max_doc(), 1));
        let mut requested = Box::new([false; 256]);
        let mut fixed_scores = Box::new([0.0; 256]);
        for (value, weight) in by_value.iter().enumerate() {
            if let Some(weight) = weight {
                requested[value] = true;
                if let Some(fieldnorm_id) = segment.uniform_fieldnorm {
                    fixed_scores[value] = weight.score(fieldnorm_id, 1);
                }
            }
        }
        let mut scorer = TypeFilterScorer {
            cost: requested_sizes.iter().map(|&size| u64::from(size)).sum(),
            size_hint: union_size_hint(&requested_sizes, reader.num_docs()),
            fixed: scoring && segment.uniform_fieldnorm.is_some(),
            segment,
            requested,
            fixed_scores,
            by_value,
            scoring,
            fieldnorms,
            doc: 0,
        };
        scorer.doc = scorer.next_from(0);
        Ok(Box::new(scorer))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        Ok(Explanation::new("event type", scorer.score()))
    }
}

struct TypeFilterScorer {
    segment: Arc<SegmentTypes>,
    /// Whether each table value is a requested type.
    requested: Box<[bool; 256]>,
    /// Each requested value's score when the segment's fieldnorms are uniform (`fixed`).
    fixed_scores: Box<[Score; 256]>,
    fixed: bool,
    by_value: Vec<Option<Bm25Weight>>,
    scoring: bool,
    fieldnorms: FieldNormReader,
    doc: DocId,
    /// What the union of the type `TermQuery`s reported, so an intersection orders its
    /// clauses (and sums their scores) exactly as before.
    cost: u64,
    size_hint: u32,
}

impl TypeFilterScorer {
    /// The first document at or after `from` of a requested type.
    fn next_from(&self, from: DocId) -> DocId {
        let types = &self.segment.types;
        let mut doc = from as usize;
        while doc < types.len() {
            if self.requested[usize::from(types[doc])] {
                return doc as DocId;
            }
            doc += 1;
        }
        TERMINATED
    }

    fn weight_of(&self, value: u8) -> Option<&Bm25Weight> {
        self.by_value
            .get(usize::from(value))
            .and_then(Option::as_ref)
    }
}

impl DocSet for TypeFilterScorer {
    fn advance(&mut self) -> DocId {
        if self.doc != TERMINATED {
            self.doc = self.next_from(self.doc + 1);
        }
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc != TERMINATED && self.doc < target {
            self.doc = self.next_from(target);
        }
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.size_hint
    }

    fn cost(&self) -> u64 {
        self.cost
    }
}

impl Scorer for TypeFilterScorer {
    fn score(&mut self) -> Score {
        if !self.scoring || self.doc == TERMINATED {
            return 1.0;
        }
        let value = self.segment.types[self.doc as usize];
        if self.fixed {
            return self.fixed_scores[usize::from(value)];
        }
        match self.weight_of(value) {
            Some(weight) => weight.score(self.fieldnorms.fieldnorm_id(self.doc), 1),
            None => 0.0,
        }
    }
}

/// The size hint of the type clause tantivy built before: a lone present type is its
/// `TermScorer` (its document frequency), several are a union whose estimate is
/// `query::size_hint::estimate_union` (private there): the chance a document is in none of
/// the sets, with its co-location factor. Absent types were dropped before the union.
fn union_size_hint(sizes: &[u32], num_docs: u32) -> u32 {
    let present: Vec<u32> = sizes.iter().copied().filter(|&size| size > 0).collect();
    match present.as_slice() {
        [single] => *single,
        _ => estimate_union(&present, num_docs),
    }
}

fn estimate_union(sizes: &[u32], max_docs: u32) -> u32 {
    const CO_LOCATION_FACTOR: f64 = 0.8;
    let mut in_none = 1.0;
    for &size in sizes {
        in_none *= 1.0 - (f64::from(size) / f64::from(max_docs)) * CO_LOCATION_FACTOR;
    }
    (f64::from(max_docs) * (1.0 - in_none))
        .round()
        .min(f64::from(max_docs)) as u32
}

#[cfg(test)]
mod tests {
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::{BooleanQuery, Occur, TermQuery};
    use tantivy::schema::{STRING, Schema, TEXT};
    use tantivy::{DocAddress, Index, IndexWriter, TantivyDocument, doc};

    use super::*;

    const TYPES: [&str; 5] = [
        "user_message",
        "assistant",
        "reasoning",
        "tool_call",
        "unknown",
    ];

    /// An index of several segments (one with deletes) whose documents have one type each,
    /// a session and some text.
    fn index() -> (Index, Field, Field, Field) {
        let mut builder = Schema::builder();
        let kind = builder.add_text_field("type", STRING);
        let session = builder.add_text_field("session", STRING);
        let text = builder.add_text_field("text", TEXT);
        let index = Index::create_in_ram(builder.build());
        let mut writer: IndexWriter<TantivyDocument> =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        let words = ["deploy", "failed", "migration", "token", "retry", "cache"];
        for segment in 0..3u64 {
            for number in 0..700u64 {
                let seed = segment * 1000 + number;
                let mut body = String::new();
                for position in 0..(seed % 7 + 1) {
                    body.push_str(words[((seed * 31 + position * 17) % 6) as usize]);
                    body.push(' ');
                }
                writer
                    .add_document(doc!(
                        kind => TYPES[((seed * 7) % 5) as usize],
                        session => format!("s{}", seed % 9),
                        text => body,
                    ))
                    .unwrap();
            }
            if segment == 1 {
                writer.delete_term(Term::from_field_text(session, "s4"));
            }
            writer.commit().unwrap();
        }
        (index, kind, session, text)
    }

    /// Documents holding any of `values` in `field`, scored by their `TermQuery`s.
    fn any_of(field: Field, values: &[&str], option: IndexRecordOption) -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            values
                .iter()
                .map(|value| (Occur::Should, term(field, value, option)))
                .collect(),
        ))
    }

    fn term(field: Field, value: &str, option: IndexRecordOption) -> Box<dyn Query> {
        Box::new(TermQuery::new(Term::from_field_text(field, value), option))
    }

    fn union_of(kind: Field, types: &[&str]) -> Box<dyn Query> {
        any_of(kind, types, IndexRecordOption::Basic)
    }

    /// The same documents with the same scores, up to the rounding of a sum: the union's
    /// cost (which orders an intersection's clauses, hence the order of the score sum)
    /// changes as its terms' postings run out, so the last bit may differ.
    fn assert_same_scores(actual: &[(f32, DocAddress)], expected: &[(f32, DocAddress)]) {
        let by_address = |hits: &[(f32, DocAddress)]| -> HashMap<DocAddress, f32> {
            hits.iter()
                .map(|&(score, address)| (address, score))
                .collect()
        };
        let (actual, expected) = (by_address(actual), by_address(expected));
        assert_eq!(actual.len(), expected.len());
        for (address, score) in &expected {
            let found = actual[address];
            assert!(
                (found - score).abs() <= score.abs() * 1e-6,
                "{address:?}: {found} vs {score}"
            );
        }
    }

    #[test]
    fn matches_counts_and_scores_equal_those_of_the_union_of_type_term_queries() {
        let (index, kind, session, text) = index();
        let searcher = index.reader().unwrap().searcher();
        assert!(searcher.segment_readers().len() >= 2);
        let tables = Arc::new(TypeTables::default());
        let type_sets: [&[&str]; 5] = [
            &["user_message", "assistant", "reasoning"],
            &["tool_call"],
            &["reasoning", "absent_type"],
            &["absent_type"],
            &TYPES,
        ];
        for types in type_sets {
            for scoped in [false, true] {
                for word in ["deploy", "failed retry", "cache token migration"] {
                    let words: Vec<&str> = word.split(' ').collect();
                    let relevance = || any_of(text, &words, IndexRecordOption::WithFreqs);
                    let with = |filter: Box<dyn Query>| {
                        let mut clauses = vec![(Occur::Must, relevance()), (Occur::Must, filter)];
                        if scoped {
                            let in_session = term(session, "s2", IndexRecordOption::Basic);
                            clauses.push((Occur::Must, in_session));
                        }
                        BooleanQuery::new(clauses)
                    };
                    let names = types.iter().map(|name| name.to_string()).collect();
                    let filtered =
                        with(Box::new(TypeFilterQuery::new(kind, names, tables.clone())));
                    let union = with(union_of(kind, types));
                    let collector = (TopDocs::with_limit(5000).order_by_score(), Count);
                    let (expected, expected_count) = searcher.search(&union, &collector).unwrap();
                    let (actual, actual_count) = searcher.search(&filtered, &collector).unwrap();
                    assert_eq!(
                        actual_count, expected_count,
                        "{types:?} {word} scoped={scoped}"
                    );
                    assert_same_scores(&actual, &expected);
                }
            }
        }
    }

    #[test]
    fn an_unscored_filter_matches_the_same_documents() {
        let (index, kind, _, _) = index();
        let searcher = index.reader().unwrap().searcher();
        let tables = Arc::new(TypeTables::default());
        let types = ["tool_call", "reasoning"];
        let names = types.iter().map(|name| name.to_string()).collect();
        let filter = TypeFilterQuery::new(kind, names, tables);
        let expected = searcher.search(&union_of(kind, &types), &Count).unwrap();
        assert!(expected > 0);
        assert_eq!(searcher.search(&filter, &Count).unwrap(), expected);
    }
}
