//! Stopping a search nobody waits for any more: the [`Cancellation`] flag a request raises when
//! its call is dropped (cut at the tool's deadline, or the client went away), and the
//! [`Cancellable`] collector that checks the flag before each segment and every
//! [`CHECK_EVERY`] matching documents, ending the search with [`SearchError::Cancelled`].
//!
//! Without it a search cut at the deadline ran on to its end on the blocking pool: on a cold
//! 10M index, fifteen such searches in a row shared the two cores with every later call.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Weight;
use tantivy::schema::Schema;
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, TantivyError};

use crate::search::SearchError;

/// Matching documents scored between two looks at the flag: a few microseconds of work.
pub const CHECK_EVERY: u32 = 4096;

/// What the collector reports when it stops (mapped to [`SearchError::Cancelled`]).
const CANCELLED: &str = "search cancelled: nobody waits for its answer";

/// A request's "stop" flag, shared by the request (which raises it) and its search (which
/// reads it). Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(Arc<AtomicBool>);

impl Cancellation {
    /// A flag not raised yet.
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    /// Raises the flag: the search stops at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A guard that raises the flag when dropped: held by the future awaiting the search, so
    /// dropping the future (a deadline, a cancelled call) stops the search.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }

    /// `Err` once the flag is raised (in tantivy's error type, to end a collection).
    fn check(&self) -> tantivy::Result<()> {
        if self.is_cancelled() {
            return Err(TantivyError::InternalError(CANCELLED.to_owned()));
        }
        Ok(())
    }

    /// `error` as a search error: [`SearchError::Cancelled`] when the flag stopped the search.
    pub fn search_error(&self, error: TantivyError) -> SearchError {
        match error {
            TantivyError::InternalError(reason) if reason == CANCELLED => SearchError::Cancelled,
            other => SearchError::from(other),
        }
    }
}

/// Raises its [`Cancellation`] when dropped.
#[derive(Debug)]
pub struct CancelOnDrop(Cancellation);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// `inner`, stopping with an error once `cancel` is raised: checked before each segment and
/// every [`CHECK_EVERY`] matching documents within one. Collects exactly what `inner` would.
pub struct Cancellable<'a, C> {
    inner: C,
    cancel: &'a Cancellation,
}

impl<'a, C: Collector> Cancellable<'a, C> {
    pub fn new(inner: C, cancel: &'a Cancellation) -> Cancellable<'a, C> {
        Cancellable { inner, cancel }
    }
}

impl<C: Collector> Collector for Cancellable<'_, C> {
    type Fruit = C::Fruit;
    type Child = C::Child;

    fn check_schema(&self, schema: &Schema) -> tantivy::Result<()> {
        self.inner.check_schema(schema)
    }

    fn for_segment(&self, segment_ord: u32, reader: &SegmentReader) -> tantivy::Result<C::Child> {
        self.cancel.check()?;
        self.inner.for_segment(segment_ord, reader)
    }

    fn requires_scoring(&self) -> bool {
        self.inner.requires_scoring()
    }

    fn merge_fruits(
        &self,
        fruits: Vec<<C::Child as SegmentCollector>::Fruit>,
    ) -> tantivy::Result<C::Fruit> {
        self.inner.merge_fruits(fruits)
    }

    /// tantivy's own loop (`Weight::for_each` over the segment's scorer, deleted documents
    /// skipped), with a look at the flag every [`CHECK_EVERY`] documents.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<<C::Child as SegmentCollector>::Fruit> {
        let mut collector = self.for_segment(segment_ord, reader)?;
        let mut scorer = weight.scorer(reader, 1.0)?;
        let alive = reader.alive_bitset();
        let scoring = self.requires_scoring();
        let mut unchecked = 0u32;
        let mut doc: DocId = scorer.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|alive| alive.is_alive(doc)) {
                let score: Score = if scoring { scorer.score() } else { 0.0 };
                collector.collect(doc, score);
            }
            unchecked += 1;
            if unchecked == CHECK_EVERY {
                unchecked = 0;
                self.cancel.check()?;
            }
            doc = scorer.advance();
        }
        Ok(collector.harvest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::{AllQuery, TermQuery};
    use tantivy::schema::{IndexRecordOption, STRING, TEXT};
    use tantivy::{Index, IndexWriter, Term, doc};

    /// An index of `segments` segments of `per_segment` documents each; every third document
    /// also holds the word "rare", and one document of the first segment is deleted.
    fn index(segments: usize, per_segment: usize) -> (Index, tantivy::schema::Field) {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT);
        let id = schema.add_text_field("id", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        for segment in 0..segments {
            for number in 0..per_segment {
                let text = if number % 3 == 0 {
                    "common rare"
                } else {
                    "common word common"
                };
                writer
                    .add_document(doc!(body => text, id => format!("{segment}-{number}")))
                    .unwrap();
            }
            writer.commit().unwrap();
        }
        writer.delete_term(Term::from_field_text(id, "0-3"));
        writer.commit().unwrap();
        (index, body)
    }

    #[test]
    fn collects_exactly_what_the_inner_collector_collects() {
        let (index, body) = index(3, 5000);
        let searcher = index.reader().unwrap().searcher();
        let cancel = Cancellation::new();
        for word in ["common", "rare"] {
            let query = TermQuery::new(
                Term::from_field_text(body, word),
                IndexRecordOption::WithFreqs,
            );
            let plain = (TopDocs::with_limit(50).order_by_score(), Count);
            let expected = searcher.search(&query, &plain).unwrap();
            let wrapped = Cancellable::new(plain, &cancel);
            let actual = searcher.search(&query, &wrapped).unwrap();
            assert_eq!(actual, expected, "{word}");
        }
        let expected = searcher.search(&AllQuery, &Count).unwrap();
        assert_eq!(expected, 14_999, "the deleted document is not counted");
        let actual = searcher
            .search(&AllQuery, &Cancellable::new(Count, &cancel))
            .unwrap();
        assert_eq!(actual, expected);
    }

    #[test]
    fn a_raised_flag_stops_the_search_with_cancelled() {
        let (index, body) = index(2, 100);
        let searcher = index.reader().unwrap().searcher();
        let cancel = Cancellation::new();
        cancel.cancel();
        let query = TermQuery::new(
            Term::from_field_text(body, "common"),
            IndexRecordOption::Basic,
        );
        let error = searcher
            .search(&query, &Cancellable::new(Count, &cancel))
            .unwrap_err();
        assert!(matches!(cancel.search_error(error), SearchError::Cancelled));
    }

    /// The flag raised while a segment is being collected stops the collection within
    /// [`CHECK_EVERY`] documents, not at the segment's end.
    #[test]
    fn a_flag_raised_mid_segment_stops_within_a_check() {
        let (index, _) = index(1, 3 * CHECK_EVERY as usize);
        let searcher = index.reader().unwrap().searcher();
        let cancel = Cancellation::new();
        let seen = Arc::new(AtomicU32::new(0));
        let counting = RaiseAfter {
            after: 10,
            seen: Arc::clone(&seen),
            cancel: cancel.clone(),
        };
        let error = searcher
            .search(&AllQuery, &Cancellable::new(counting, &cancel))
            .unwrap_err();
        assert!(matches!(cancel.search_error(error), SearchError::Cancelled));
        // The first check comes after CHECK_EVERY documents examined; one of them, `0-3`, is
        // deleted and never collected. Without the check all 3 × 4,096 − 1 would be.
        assert_eq!(seen.load(Ordering::Relaxed), CHECK_EVERY - 1);
    }

    #[test]
    fn dropping_the_guard_raises_the_flag_and_other_errors_stay_errors() {
        let cancel = Cancellation::new();
        let guard = cancel.cancel_on_drop();
        assert!(!cancel.is_cancelled());
        drop(guard);
        assert!(cancel.is_cancelled());
        let other = cancel.search_error(TantivyError::InvalidArgument("x".into()));
        assert!(matches!(other, SearchError::Tantivy(_)));
    }

    /// Counts the documents it sees and raises `cancel` after `after` of them.
    #[derive(Clone)]
    struct RaiseAfter {
        after: u32,
        seen: Arc<AtomicU32>,
        cancel: Cancellation,
    }

    impl Collector for RaiseAfter {
        type Fruit = ();
        type Child = RaiseAfter;

        fn for_segment(&self, _: u32, _: &SegmentReader) -> tantivy::Result<RaiseAfter> {
            Ok(self.clone())
        }

        fn requires_scoring(&self) -> bool {
            false
        }

        fn merge_fruits(&self, _: Vec<()>) -> tantivy::Result<()> {
            Ok(())
        }
    }

    impl SegmentCollector for RaiseAfter {
        type Fruit = ();

        fn collect(&mut self, _: DocId, _: Score) {
            let seen = self.seen.fetch_add(1, Ordering::Relaxed) + 1;
            if seen == self.after {
                self.cancel.cancel();
            }
        }

        fn harvest(self) {}
    }
}
