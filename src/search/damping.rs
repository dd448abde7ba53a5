//! Length damping of a query's score (issue #23): scales the score of each matching event by
//! BM25's length normalization of its text, (k1 + 1) / (1 + k1 · (1 − b + b · length /
//! average length)), which is 1 for an event of average length, up to 1.7 for a short one and
//! near 0 for a dump of many thousand words. The exact-form presence scores of a question are
//! damped this way, so a huge context dump or log that holds every word of a question
//! somewhere does not outrank the event that talks about it.

use std::sync::Arc;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::Field;
use tantivy::{DocId, DocSet, Score, SegmentReader, Term};

/// BM25's term-frequency saturation, as tantivy scores.
const K1: Score = 1.2;
/// BM25's length normalization, as tantivy scores.
const B: Score = 0.75;

/// `query` with its score multiplied by the length factor of `field` in each document.
#[derive(Debug)]
pub struct LengthDamped {
    query: Box<dyn Query>,
    field: Field,
}

impl LengthDamped {
    pub fn new(query: Box<dyn Query>, field: Field) -> LengthDamped {
        LengthDamped { query, field }
    }
}

impl Clone for LengthDamped {
    fn clone(&self) -> LengthDamped {
        LengthDamped {
            query: self.query.box_clone(),
            field: self.field,
        }
    }
}

impl Query for LengthDamped {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let inner = self.query.weight(enable_scoring)?;
        let EnableScoring::Enabled {
            statistics_provider,
            ..
        } = enable_scoring
        else {
            return Ok(inner);
        };
        let documents = statistics_provider.total_num_docs()?.max(1);
        let tokens = statistics_provider.total_num_tokens(self.field)?;
        let average_length = (tokens as Score / documents as Score).max(1.0);
        Ok(Box::new(LengthDampedWeight {
            inner,
            field: self.field,
            factors: Arc::new(length_factors(average_length)),
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.query.query_terms(visitor)
    }
}

/// The length factor of every fieldnorm id.
fn length_factors(average_length: Score) -> [Score; 256] {
    let mut factors = [1.0; 256];
    for (id, factor) in factors.iter_mut().enumerate() {
        let length = FieldNormReader::id_to_fieldnorm(id as u8) as Score;
        *factor = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * length / average_length));
    }
    factors
}

struct LengthDampedWeight {
    inner: Box<dyn Weight>,
    field: Field,
    factors: Arc<[Score; 256]>,
}

impl Weight for LengthDampedWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(LengthDampedScorer {
            inner: self.inner.scorer(reader, boost)?,
            norms: reader.get_fieldnorms_reader(self.field)?,
            factors: Arc::clone(&self.factors),
        }))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let inner = self.inner.explain(reader, doc)?;
        let norms = reader.get_fieldnorms_reader(self.field)?;
        let factor = self.factors[usize::from(norms.fieldnorm_id(doc))];
        let mut explanation = Explanation::new("length damping", inner.value() * factor);
        explanation.add_const("length factor", factor);
        explanation.add_detail(inner);
        Ok(explanation)
    }

    fn count(&self, reader: &SegmentReader) -> tantivy::Result<u32> {
        self.inner.count(reader)
    }
}

struct LengthDampedScorer {
    inner: Box<dyn Scorer>,
    norms: FieldNormReader,
    factors: Arc<[Score; 256]>,
}

impl DocSet for LengthDampedScorer {
    fn advance(&mut self) -> DocId {
        self.inner.advance()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.inner.seek(target)
    }

    fn doc(&self) -> DocId {
        self.inner.doc()
    }

    fn size_hint(&self) -> u32 {
        self.inner.size_hint()
    }

    fn cost(&self) -> u64 {
        self.inner.cost()
    }
}

impl Scorer for LengthDampedScorer {
    fn score(&mut self) -> Score {
        let factor = self.factors[usize::from(self.norms.fieldnorm_id(self.inner.doc()))];
        self.inner.score() * factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_events_keep_their_score_and_dumps_lose_it() {
        let factors = length_factors(20.0);
        let factor_at = |length: u32| {
            let id = (0..=255u8)
                .find(|&id| FieldNormReader::id_to_fieldnorm(id) >= length)
                .unwrap_or(255);
            factors[usize::from(id)]
        };
        assert!((factor_at(20) - 1.0).abs() < 0.05);
        assert!(factor_at(2) > 1.4);
        assert!(factor_at(2000) < 0.05);
        assert!(factors.windows(2).all(|pair| pair[0] >= pair[1]));
    }
}
