//! Full-text search over event text with tantivy: the index schema, the per-snapshot reader
//! and the scoped, type-filtered BM25 query that `search_sessions` runs. The index searches
//! and locates only: a document holds an event's ids and where its row lives (source, month,
//! session, seq), never a copy of the row; every event has one, `unknown` events included
//! (without text, so they never match and are left out of the BM25 statistics).

pub mod analyzer;
pub mod boolean;
pub mod cancel;
pub mod damping;
pub mod filler;
pub mod merge_policy;
pub mod positional;
pub mod prefix;
pub mod query;
pub mod script;
pub mod session_filter;
pub mod stem_cache;
pub mod type_filter;
pub mod writer;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, NumericOptions, Schema, TantivyDocument, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{DocAddress, Index, IndexReader, IndexSettings, ReloadPolicy, Searcher, Term};

use crate::model::EventType;
use crate::store::Snapshot;

/// Errors of the search layer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("search index directory error: {0}")]
    Directory(#[from] tantivy::directory::error::OpenDirectoryError),
    /// The request's [`cancel::Cancellation`] was raised: nobody waits for the answer.
    #[error("search cancelled: its request was dropped")]
    Cancelled,
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A search index failure inside a store operation (a commit, an empty generation).
impl From<SearchError> for crate::store::StoreError {
    fn from(error: SearchError) -> crate::store::StoreError {
        crate::store::StoreError::Contents(Box::new(error))
    }
}

/// Field handles of the event index.
#[derive(Debug, Clone)]
pub struct SearchFields {
    /// The event id: stored; indexed only in indexes made before [`SearchFields::event_key`].
    pub event_id: Field,
    /// The event id's 64-bit key ([`crate::ids::event_key`]), indexed: `locate` looks it up and
    /// checks the stored id. A 42-byte random id costs ~32 bytes of term dictionary per event,
    /// a u64 ~9 (10M documents: 453 MB). Absent from older indexes, which index `event_id`.
    pub event_key: Option<Field>,
    pub session_id: Field,
    pub turn_id: Field,
    pub event_type: Field,
    pub source: Field,
    pub timestamp_micros: Field,
    pub text: Field,
    /// The event text's exact forms (lowercased words and identifiers, whole and by parts, see
    /// [`analyzer`]); absent from indexes created before it existed, which then match by stems
    /// only until `esker index --rebuild`.
    pub exact: Option<Field>,
    /// Where the event's row lives beyond its source and session (absent from indexes made
    /// before issue #21, which the store's format version refuses).
    pub locator: Option<LocatorFields>,
}

/// The locator fields: with `source` and `session_id` they prune a Parquet lookup to one
/// partition (`source`, `month`), its row groups (`session_id`, the sort key) and one page
/// (`seq`).
#[derive(Debug, Clone, Copy)]
pub struct LocatorFields {
    /// `YYYY-MM` of the session start: the `month` partition of `events`.
    pub month: Field,
    /// 1-based position in the session: the second sort key of `events`.
    pub seq: Field,
}

/// An id or a name, matched whole and stored: no norms (a norm is one byte per document and
/// field, and these fields never score by length: a single raw token; tantivy scores a field
/// without norms as one token long). Indexes created before keep their norms.
fn id_options() -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("raw")
        .set_index_option(IndexRecordOption::Basic)
        .set_fieldnorms(false);
    TextOptions::default()
        .set_indexing_options(indexing)
        .set_stored()
}

impl SearchFields {
    /// The schema every esker index is created with.
    pub fn build() -> (Schema, SearchFields) {
        let mut builder = Schema::builder();
        let text_indexing = TextFieldIndexing::default()
            .set_tokenizer(analyzer::STEM_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let fields = SearchFields {
            event_id: builder.add_text_field("event_id", TextOptions::default().set_stored()),
            event_key: Some(
                builder.add_u64_field(EVENT_KEY_FIELD, NumericOptions::default().set_indexed()),
            ),
            session_id: builder.add_text_field("session_id", id_options()),
            turn_id: builder.add_text_field("turn_id", id_options()),
            event_type: builder.add_text_field("type", id_options()),
            source: builder.add_text_field("source", id_options()),
            timestamp_micros: builder.add_i64_field(TIMESTAMP_FIELD, FAST),
            text: builder.add_text_field(
                "text",
                TextOptions::default().set_indexing_options(text_indexing),
            ),
            exact: None,
            locator: None,
        };
        // Presence only (no frequencies, positions or norms): ranks exact forms first at a
        // fraction of the cost of a second BM25 field.
        let exact_indexing = TextFieldIndexing::default()
            .set_tokenizer(analyzer::EXACT_TOKENIZER)
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false);
        let exact = builder.add_text_field(
            EXACT_FIELD,
            TextOptions::default().set_indexing_options(exact_indexing),
        );
        let locator = LocatorFields {
            month: builder.add_text_field(MONTH_FIELD, id_options()),
            seq: builder.add_i64_field(SEQ_FIELD, FAST),
        };
        let fields = SearchFields {
            exact: Some(exact),
            locator: Some(locator),
            ..fields
        };
        (builder.build(), fields)
    }

    fn from_schema(schema: &Schema) -> Result<SearchFields, SearchError> {
        let field = |name: &str| {
            schema.get_field(name).map_err(|_| {
                SearchError::Tantivy(tantivy::TantivyError::SchemaError(format!(
                    "search index lacks field {name}; rebuild it with `esker index --rebuild`"
                )))
            })
        };
        Ok(SearchFields {
            event_id: field("event_id")?,
            event_key: schema.get_field(EVENT_KEY_FIELD).ok(),
            session_id: field("session_id")?,
            turn_id: field("turn_id")?,
            event_type: field("type")?,
            source: field("source")?,
            timestamp_micros: field(TIMESTAMP_FIELD)?,
            text: field("text")?,
            exact: schema.get_field(EXACT_FIELD).ok(),
            locator: LocatorFields::from_schema(schema),
        })
    }
}

impl LocatorFields {
    /// The locator fields when the index has them.
    fn from_schema(schema: &Schema) -> Option<LocatorFields> {
        Some(LocatorFields {
            month: schema.get_field(MONTH_FIELD).ok()?,
            seq: schema.get_field(SEQ_FIELD).ok()?,
        })
    }
}

/// What to search for.
#[derive(Debug, Clone)]
pub struct SearchQuery<'a> {
    pub text: &'a str,
    /// Only events of this session.
    pub session_id: Option<&'a str>,
    /// Only events of this turn.
    pub turn_id: Option<&'a str>,
    /// Only events of these types (must not be empty).
    pub event_types: &'a [EventType],
    /// Only events of this source.
    pub source: Option<&'a str>,
    /// Only events of these sessions (`esker serve --project-only`, issue #13; a team
    /// token's scope, issue #54).
    pub sessions: Option<&'a session_filter::ScopeSessions>,
    pub limit: usize,
    /// Stops the search once raised (`None`: runs to its end).
    pub cancel: Option<&'a cancel::Cancellation>,
}

impl SearchQuery<'_> {
    /// [`SearchError::Cancelled`] once the query's cancellation is raised.
    pub fn stop_if_cancelled(&self) -> Result<(), SearchError> {
        match self.cancel {
            Some(cancel) if cancel.is_cancelled() => Err(SearchError::Cancelled),
            _ => Ok(()),
        }
    }
}

/// One matching event.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub raw_score: f32,
    pub timestamp_micros: Option<i64>,
    /// Where its row lives.
    pub location: EventLocation,
}

/// Where an event's row lives: its partition (`source`, `month`), row groups (`session_id`,
/// the sort key) and page (`seq`). `month` is empty and `seq` 0 in an index made before
/// issue #21.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventLocation {
    pub session_id: String,
    pub source: String,
    pub month: String,
    pub seq: i64,
}

/// Most threads one query's segments are searched on.
const SEARCH_THREADS: usize = 4;

/// The threads a query's segments are searched on: the machine's cores, at most
/// [`SEARCH_THREADS`] (read once).
fn search_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(SEARCH_THREADS)
    })
}

/// Hits ordered by score desc, timestamp desc, event id asc, plus the total match count.
#[derive(Debug, Clone, Default)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub total_matches: usize,
}

/// A read-only view of one snapshot's index.
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: SearchFields,
    /// The locator-only documents of `unknown` events, counted once (the reader never
    /// reloads): BM25 statistics leave them out.
    unknown: OnceLock<UnknownDocuments>,
    /// Each segment's document types, read on a segment's first search (the reader never
    /// reloads, so its segments never change).
    types: Arc<type_filter::TypeTables>,
    /// Each searched scope's documents per segment, found on the scope's first search of it.
    scopes: Arc<session_filter::ScopeBitsets>,
}

/// How many documents are locator-only (`unknown` events, no text).
#[derive(Debug, Clone, Copy, Default)]
struct UnknownDocuments {
    /// Live ones.
    live: u64,
    /// Including deleted ones not yet merged away (tantivy's document count includes those).
    written: u64,
}

/// Name of the event key field.
const EVENT_KEY_FIELD: &str = "event_key";
/// Name of the exact-forms field.
const EXACT_FIELD: &str = "exact";
/// Names of the locator fields.
const MONTH_FIELD: &str = "month";
const SEQ_FIELD: &str = "seq";
/// Name of the timestamp field (fast; sorts ties).
const TIMESTAMP_FIELD: &str = "timestamp_micros";

/// Candidates fetched for one lookup term: ids sharing an event key (64 bits of hash) are
/// vanishingly rare (10M events: ~3e-6 for any pair), and each candidate's stored id is
/// checked; a text id term's first candidate is always its own.
const KEY_CANDIDATES: usize = 8;

/// Extra candidates fetched beyond the limit so that ties at the cut are ordered correctly.
const TIE_BREAK_SLACK: usize = 32;

/// The settings of every index esker creates: the doc store (ids and locators of each event)
/// compressed with zstd level 3 instead of lz4: the 100k generated corpus's `.store` files
/// take 4.5 MB instead of 7.5 (PERFORMANCE.md, "Memory and bytes, round 3"). An index keeps
/// the settings it was created with (`meta.json`), so older stores stay lz4.
fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_compression: Compressor::Zstd(ZstdCompressor {
            compression_level: Some(3),
        }),
        ..IndexSettings::default()
    }
}

impl SearchIndex {
    /// Creates an empty index in `dir`.
    pub fn create_empty(dir: &Path) -> Result<(), SearchError> {
        std::fs::create_dir_all(dir).map_err(|source| SearchError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (schema, _) = SearchFields::build();
        let index = Index::builder()
            .schema(schema)
            .settings(index_settings())
            .create_in_dir(dir)?;
        analyzer::register_analyzers(&index);
        let mut writer: tantivy::IndexWriter<TantivyDocument> =
            index.writer_with_num_threads(1, 15_000_000)?;
        writer.commit()?;
        Ok(())
    }

    pub fn open(snapshot: &Snapshot) -> Result<SearchIndex, SearchError> {
        SearchIndex::open_dir(&snapshot.root.join("tantivy"))
    }

    pub fn open_dir(dir: &Path) -> Result<SearchIndex, SearchError> {
        let mut index = Index::open_in_dir(dir)?;
        // A query's segments are searched on up to SEARCH_THREADS threads at once (each
        // segment is one task): a long question over ~20 segments at 1M documents otherwise
        // runs on one core.
        if search_threads() > 1 {
            index.set_multithread_executor(search_threads())?;
        }
        analyzer::register_analyzers(&index);
        let fields = SearchFields::from_schema(&index.schema())?;
        if fields.exact.is_none() {
            warn_once_without_exact_forms();
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            unknown: OnceLock::new(),
            types: Arc::default(),
            scopes: Arc::default(),
        })
    }

    /// Number of searchable indexed events (`unknown` events are only located).
    pub fn document_count(&self) -> u64 {
        let searcher = self.reader.searcher();
        searcher
            .num_docs()
            .saturating_sub(self.unknown(&searcher).live)
    }

    /// The locator-only documents, counted on first use.
    fn unknown(&self, searcher: &Searcher) -> UnknownDocuments {
        *self.unknown.get_or_init(|| {
            let term = Term::from_field_text(self.fields.event_type, EventType::Unknown.as_str());
            let written = searcher.doc_freq(&term).unwrap_or(0);
            let live = searcher
                .search(&TermQuery::new(term, IndexRecordOption::Basic), &Count)
                .map_or(written, |count| count as u64);
            UnknownDocuments { live, written }
        })
    }

    /// Runs `query`: BM25 over the event text, restricted to the scope and types.
    pub fn search(&self, query: &SearchQuery<'_>) -> Result<SearchResults, SearchError> {
        self.search_matching(query, |relevance| relevance.build(query.text))
    }

    /// Runs `query` with `expression` in place of its text (which is not read): the boolean
    /// combination of relevance queries, restricted to the scope and types.
    pub fn search_expression(
        &self,
        expression: &boolean::MatchExpression,
        query: &SearchQuery<'_>,
    ) -> Result<SearchResults, SearchError> {
        self.search_matching(query, |relevance| relevance.build_expression(expression))
    }

    /// Runs the relevance query `relevance` builds, restricted to `query`'s scope and types.
    fn search_matching(
        &self,
        query: &SearchQuery<'_>,
        relevance: impl FnOnce(&query::RelevanceBuilder<'_>) -> Result<Box<dyn Query>, SearchError>,
    ) -> Result<SearchResults, SearchError> {
        let searcher = self.reader.searcher();
        let statistics = SearchableStatistics {
            searcher: &searcher,
            unknown: self.unknown(&searcher),
            text_fields: [Some(self.fields.text), self.fields.exact],
        };
        let combined = self.build_query(&searcher, &statistics, query, relevance)?;
        let fetch = query.limit.saturating_add(TIE_BREAK_SLACK);
        let collector = (TopDocs::with_limit(fetch).order_by_score(), Count);
        let (top_docs, total_matches) = match query.cancel {
            Some(cancel) => searcher
                .search_with_statistics_provider(
                    &combined,
                    &cancel::Cancellable::new(collector, cancel),
                    &statistics,
                )
                .map_err(|error| cancel.search_error(error))?,
            None => searcher.search_with_statistics_provider(&combined, &collector, &statistics)?,
        };
        let mut hits = top_docs
            .into_iter()
            .map(|(score, address)| self.hit_at(&searcher, score, address))
            .collect::<Result<Vec<_>, _>>()?;
        hits.sort_by(|left, right| {
            right
                .raw_score
                .total_cmp(&left.raw_score)
                .then_with(|| right.timestamp_micros.cmp(&left.timestamp_micros))
                .then_with(|| left.event_id.cmp(&right.event_id))
        });
        hits.truncate(query.limit);
        Ok(SearchResults {
            hits,
            total_matches,
        })
    }

    /// Where an event's row lives, by an exact term lookup on its id (its key where the index
    /// has one); `None` when no event has that id.
    pub fn locate(&self, event_id: &str) -> Result<Option<EventLocation>, SearchError> {
        let term = match self.fields.event_key {
            Some(key) => Term::from_field_u64(key, crate::ids::event_key(event_id)),
            None => Term::from_field_text(self.fields.event_id, event_id),
        };
        self.first_location(term, self.fields.event_id, event_id)
    }

    /// Where the rows of a turn's events live (the location of one of them), by an exact term
    /// lookup on the turn id; `None` when no event has that turn.
    pub fn locate_turn(&self, turn_id: &str) -> Result<Option<EventLocation>, SearchError> {
        let term = Term::from_field_text(self.fields.turn_id, turn_id);
        self.first_location(term, self.fields.turn_id, turn_id)
    }

    /// The location of the first document holding `term` whose stored `id_field` is `id` (a
    /// key term may be shared: each candidate's stored id is checked).
    fn first_location(
        &self,
        term: Term,
        id_field: Field,
        id: &str,
    ) -> Result<Option<EventLocation>, SearchError> {
        let searcher = self.reader.searcher();
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        let candidates = searcher.search(
            &query,
            &TopDocs::with_limit(KEY_CANDIDATES).order_by_score(),
        )?;
        for (_, address) in candidates {
            let document: TantivyDocument = searcher.doc(address)?;
            if text_field(&document, id_field).as_deref() == Some(id) {
                return Ok(self.location_of(&searcher, address, &document));
            }
        }
        Ok(None)
    }

    /// The location fields of a document (`None` when it lacks its session or source): the
    /// ids from the doc store, `seq` from its fast field.
    fn location_of(
        &self,
        searcher: &Searcher,
        address: DocAddress,
        document: &TantivyDocument,
    ) -> Option<EventLocation> {
        let locator = self.fields.locator;
        Some(EventLocation {
            session_id: text_field(document, self.fields.session_id)?,
            source: text_field(document, self.fields.source)?,
            month: locator
                .and_then(|locator| text_field(document, locator.month))
                .unwrap_or_default(),
            seq: locator
                .and_then(|_| fast_i64(searcher, address, SEQ_FIELD))
                .unwrap_or_default(),
        })
    }

    /// Whether documents carry the locator fields ([`LocatorFields`]).
    pub fn locates_rows(&self) -> bool {
        self.fields.locator.is_some()
    }

    /// Whether the index holds exact forms (else it matches by stems only).
    pub fn has_exact_forms(&self) -> bool {
        self.fields.exact.is_some()
    }

    /// This index matching by stems only, as an index made before exact forms does: the
    /// baseline the rare-word recall benchmark compares against.
    pub fn stems_only(mut self) -> SearchIndex {
        self.fields.exact = None;
        self
    }

    /// How many indexed events hold `form` (lowercased word, part or whole identifier) in
    /// exact form; 0 when the index has no exact forms.
    pub fn exact_document_frequency(&self, form: &str) -> Result<u64, SearchError> {
        let Some(exact) = self.fields.exact else {
            return Ok(0);
        };
        Ok(self
            .reader
            .searcher()
            .doc_freq(&Term::from_field_text(exact, form))?)
    }

    /// The relevance query ([`query::RelevanceBuilder`]) restricted to the scope and types.
    fn build_query(
        &self,
        searcher: &tantivy::Searcher,
        statistics: &SearchableStatistics<'_>,
        query: &SearchQuery<'_>,
        relevance: impl FnOnce(&query::RelevanceBuilder<'_>) -> Result<Box<dyn Query>, SearchError>,
    ) -> Result<BooleanQuery, SearchError> {
        // The analyzer the index was made with (`en_stem` in stores before issue #23).
        let stemmer = self.index.tokenizer_for_field(self.fields.text)?;
        let relevance = relevance(&query::RelevanceBuilder {
            searcher,
            text: self.fields.text,
            exact: self.fields.exact,
            stemmer,
            searchable_documents: searcher.num_docs().saturating_sub(statistics.unknown.live),
        })?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, relevance)];
        clauses.push((Occur::Must, self.type_clause(query.event_types)));
        if let Some(session_id) = query.session_id {
            clauses.push((
                Occur::Must,
                self.term_query(self.fields.session_id, session_id),
            ));
        }
        if let Some(turn_id) = query.turn_id {
            clauses.push((Occur::Must, self.term_query(self.fields.turn_id, turn_id)));
        }
        if let Some(source) = query.source {
            clauses.push((Occur::Must, self.term_query(self.fields.source, source)));
        }
        if let Some(scope) = query.sessions {
            clauses.push((
                Occur::Must,
                Box::new(session_filter::ScopeQuery::new(
                    self.fields.session_id,
                    scope.clone(),
                    Arc::clone(&self.scopes),
                )),
            ));
        }
        Ok(BooleanQuery::new(clauses))
    }

    /// The restriction to `event_types`, scored as a union of their `TermQuery`s would be
    /// ([`type_filter`]).
    fn type_clause(&self, event_types: &[EventType]) -> Box<dyn Query> {
        let names = event_types
            .iter()
            .map(|event_type| event_type.as_str().to_owned())
            .collect();
        Box::new(type_filter::TypeFilterQuery::new(
            self.fields.event_type,
            names,
            self.types.clone(),
        ))
    }

    fn term_query(&self, field: Field, value: &str) -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(field, value),
            IndexRecordOption::Basic,
        ))
    }

    fn hit_at(
        &self,
        searcher: &tantivy::Searcher,
        score: f32,
        address: DocAddress,
    ) -> Result<SearchHit, SearchError> {
        let document: TantivyDocument = searcher.doc(address)?;
        let text_of = |field: Field| text_field(&document, field).unwrap_or_default();
        Ok(SearchHit {
            event_id: text_of(self.fields.event_id),
            session_id: text_of(self.fields.session_id),
            turn_id: text_of(self.fields.turn_id),
            raw_score: score,
            timestamp_micros: fast_i64(searcher, address, TIMESTAMP_FIELD),
            location: self
                .location_of(searcher, address, &document)
                .unwrap_or_default(),
        })
    }
}

/// BM25 statistics of the searchable documents: a locator-only document of an `unknown`
/// event holds no text and one token in each id field, so leaving it out of the document
/// count and of the id fields' token counts gives every score (idf, average length) exactly
/// as in an index without it.
struct SearchableStatistics<'a> {
    searcher: &'a Searcher,
    unknown: UnknownDocuments,
    /// The fields the locator-only documents have no token in.
    text_fields: [Option<Field>; 2],
}

impl Bm25StatisticsProvider for SearchableStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let tokens = self.searcher.total_num_tokens(field)?;
        if self.text_fields.contains(&Some(field)) {
            return Ok(tokens);
        }
        Ok(tokens.saturating_sub(self.unknown.written))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(Bm25StatisticsProvider::total_num_docs(self.searcher)?
            .saturating_sub(self.unknown.written))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.searcher.doc_freq(term)
    }
}

/// Tells once per process that the index predates exact forms (a server reopens the index at
/// every commit).
fn warn_once_without_exact_forms() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        tracing::warn!(
            "the search index predates exact-word matching (issue #10): searches match word \
             stems only; `esker index --rebuild` recreates it"
        );
    });
}

/// A document's value of an i64 fast field (`timestamp_micros`, `seq`: fast, not stored, in
/// indexes made since issue #11's round 3).
fn fast_i64(searcher: &Searcher, address: DocAddress, name: &str) -> Option<i64> {
    let column = searcher
        .segment_reader(address.segment_ord)
        .fast_fields()
        .i64(name)
        .ok()?;
    column.first(address.doc_id)
}

/// A stored text field's first value.
fn text_field(document: &TantivyDocument, field: Field) -> Option<String> {
    document
        .get_first(field)
        .and_then(|value| value.as_str())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    use tantivy::schema::{STORED, STRING};

    use crate::store::rows::EventRow;
    use writer::{SearchWriter, publish};

    pub(super) use crate::store::rows::sample_event as event;

    pub(super) fn index_of(events: &[EventRow]) -> (tempfile::TempDir, SearchIndex) {
        let dir = tempfile::tempdir().expect("temp dir");
        let empty = dir.path().join("empty");
        SearchIndex::create_empty(&empty).expect("empty index");
        let master = dir.path().join("master");
        let mut writer = SearchWriter::open(&master, &empty, u64::MAX).expect("writer");
        for event in events {
            writer.add_event(event).expect("add");
        }
        writer.commit().expect("commit");
        writer.finish().expect("finish");
        let published = dir.path().join("published");
        publish(&master, &published).expect("publish");
        let index = SearchIndex::open_dir(&published).expect("open");
        (dir, index)
    }

    fn ranked_ids(index: &SearchIndex, text: &str, session_id: Option<&str>) -> Vec<String> {
        let query = SearchQuery {
            text,
            session_id,
            turn_id: None,
            event_types: &EventType::SEARCHABLE,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        };
        let results = index.search(&query).expect("search");
        results.hits.into_iter().map(|hit| hit.event_id).collect()
    }

    #[test]
    fn the_doc_store_is_zstd_compressed_and_reads_back_through_a_published_index() {
        let (_dir, index) = index_of(&[
            event("event:first", "session:z", "stored as ids and locators"),
            event("event:second", "session:z", "another event"),
        ]);
        assert!(matches!(
            index.index.settings().docstore_compression,
            Compressor::Zstd(ZstdCompressor {
                compression_level: Some(3)
            })
        ));
        let location = index
            .locate("event:second")
            .expect("locate")
            .expect("found");
        assert_eq!(location.session_id, "session:z");
    }

    #[test]
    fn id_fields_keep_no_norms_and_still_locate_and_scope() {
        let (_dir, index) = index_of(&[
            event("event:one", "session:a", "the migration failed"),
            event("event:two", "session:b", "the migration failed again"),
        ]);
        let schema = index.index.schema();
        let event_id = schema.get_field_entry(index.fields.event_id);
        assert!(event_id.is_stored() && !event_id.is_indexed());
        let event_key = schema.get_field_entry(index.fields.event_key.expect("event key"));
        assert!(event_key.is_indexed() && !event_key.has_fieldnorms());
        for field in [
            index.fields.timestamp_micros,
            SearchFields::build().1.locator.expect("locator").seq,
        ] {
            let entry = schema.get_field_entry(field);
            assert!(entry.is_fast() && !entry.is_stored(), "{}", entry.name());
        }
        for name in ["session_id", "turn_id", "type", "source", MONTH_FIELD] {
            let field = schema.get_field(name).expect("field");
            let entry = schema.get_field_entry(field);
            assert!(entry.is_indexed() && entry.is_stored(), "{name}");
            assert!(!entry.has_fieldnorms(), "{name} keeps norms");
        }
        let located = index.locate("event:two").expect("locate").expect("found");
        assert_eq!(located.session_id, "session:b");
        assert_eq!(
            ranked_ids(&index, "migration", Some("session:a")),
            vec!["event:one"]
        );
    }

    #[test]
    fn locate_checks_the_stored_id_of_every_document_sharing_a_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (schema, fields) = SearchFields::build();
        let index = Index::create_in_dir(dir.path(), schema).expect("index");
        analyzer::register_analyzers(&index);
        let mut writer: tantivy::IndexWriter<TantivyDocument> = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        let key = crate::ids::event_key("event:real");
        for (event_id, session_id) in [("event:impostor", "session:x"), ("event:real", "session:y")]
        {
            let mut document = TantivyDocument::default();
            document.add_text(fields.event_id, event_id);
            document.add_u64(fields.event_key.expect("event key"), key);
            document.add_text(fields.session_id, session_id);
            document.add_text(fields.source, "codex");
            writer.add_document(document).expect("add");
        }
        writer.commit().expect("commit");
        let index = SearchIndex::open_dir(dir.path()).expect("open");
        let located = index.locate("event:real").expect("locate").expect("found");
        assert_eq!(located.session_id, "session:y");
        assert_eq!(index.locate("event:impostor").expect("locate"), None);
        assert_eq!(index.locate("event:absent").expect("locate"), None);
    }

    #[test]
    fn terms_together_outrank_terms_apart_and_scope_filters() {
        let filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do";
        let (_dir, index) = index_of(&[
            event(
                "event:apart",
                "session:a",
                &format!("the migration ran {filler} then a failure"),
            ),
            event(
                "event:together",
                "session:a",
                &format!("the migration failure {filler} then ran"),
            ),
            event(
                "event:one_term",
                "session:b",
                &format!("a failure {filler} again"),
            ),
            event("event:other", "session:b", "nothing relevant"),
        ]);
        assert_eq!(
            ranked_ids(&index, "migration failure", None),
            vec!["event:together", "event:apart", "event:one_term"]
        );
        assert_eq!(
            ranked_ids(&index, "failure", Some("session:b")),
            vec!["event:one_term"]
        );
        assert!(
            ranked_ids(&index, "title:(\"", None).is_empty(),
            "syntax never errors"
        );
    }

    #[test]
    fn a_session_set_keeps_only_its_sessions_hits_and_counts() {
        let (_dir, index) = index_of(&[
            event("event:a", "session:a", "the widget broke"),
            event("event:a2", "session:a2", "the widget again"),
            event("event:b", "session:b", "the widget elsewhere"),
        ]);
        let search_scores = |sessions: Option<&session_filter::ScopeSessions>| {
            let query = SearchQuery {
                text: "widget",
                session_id: None,
                turn_id: None,
                event_types: &EventType::SEARCHABLE,
                source: None,
                sessions,
                limit: 10,
                cancel: None,
            };
            let results = index.search(&query).expect("search");
            let mut hits: Vec<(String, f32)> = results
                .hits
                .into_iter()
                .map(|hit| (hit.event_id, hit.raw_score))
                .collect();
            hits.sort_by(|a, b| a.0.cmp(&b.0));
            (hits, results.total_matches)
        };
        let search = |sessions| {
            let (hits, total) = search_scores(sessions);
            let ids: Vec<String> = hits.into_iter().map(|(id, _)| id).collect();
            (ids, total)
        };
        let scope = |name: &str, ids: &[&str]| session_filter::ScopeSessions {
            name: name.to_owned(),
            ids: Arc::new(ids.iter().map(|id| (*id).to_owned()).collect()),
        };
        let in_scope = scope("a", &["session:a", "session:a2"]);
        assert_eq!(
            search(Some(&in_scope)),
            (vec!["event:a".into(), "event:a2".into()], 2)
        );
        assert_eq!(
            search(Some(&in_scope)),
            (vec!["event:a".into(), "event:a2".into()], 2),
            "the scope's cached documents answer again"
        );
        let other = scope("b", &["session:b"]);
        assert_eq!(
            search(Some(&other)),
            (vec!["event:b".into()], 1),
            "another scope has its own documents"
        );
        let empty = scope("none", &[]);
        assert_eq!(search(Some(&empty)), (vec![], 0), "no session: no hit");
        assert_eq!(search(None).1, 3);
        // The scope adds a constant 1 to every score, as the `TermSetQuery` it replaced did,
        // so the order and the scores' scale are those of a scoped search before.
        let unscoped = search_scores(None).0;
        for (id, score) in search_scores(Some(&in_scope)).0 {
            let (_, plain) = unscoped.iter().find(|(other, _)| *other == id).unwrap();
            assert!(
                (score - (plain + 1.0)).abs() < 1e-6,
                "{id}: {score} vs {plain}"
            );
        }
    }

    #[test]
    fn an_exact_form_outranks_any_number_of_stem_only_matches() {
        let long_text = format!("{} we parse datetimes here", "filler words ".repeat(200));
        let mut events = vec![event("event:exact", "session:a", &long_text)];
        for index in 0..20 {
            events.push(event(
                &format!("event:stem{index:02}"),
                "session:a",
                "datetime",
            ));
        }
        let (_dir, index) = index_of(&events);
        assert!(index.has_exact_forms());
        assert_eq!(index.exact_document_frequency("datetimes").unwrap(), 1);
        assert_eq!(ranked_ids(&index, "datetimes", None)[0], "event:exact");
        assert_eq!(ranked_ids(&index, "\"datetimes\"", None), ["event:exact"]);
    }

    #[test]
    fn unknown_events_are_located_never_matched_and_leave_scores_unchanged() {
        let searchable = || {
            vec![
                event("event:a", "session:a", "the migration failure"),
                event("event:b", "session:b", "a failure then a fix"),
            ]
        };
        let (_plain_dir, plain) = index_of(&searchable());
        let mut unknown = event("event:unknown", "session:a", "migration failure migration");
        unknown.event_type = EventType::Unknown;
        unknown.seq = 7;
        let mut with_unknown = searchable();
        with_unknown.push(unknown);
        let (_located_dir, located) = index_of(&with_unknown);
        let scores = |index: &SearchIndex| {
            let query = SearchQuery {
                text: "migration failure",
                session_id: None,
                turn_id: None,
                event_types: &EventType::SEARCHABLE,
                source: None,
                sessions: None,
                limit: 10,
                cancel: None,
            };
            let results = index.search(&query).expect("search");
            let hits: Vec<(String, f32)> = results
                .hits
                .into_iter()
                .map(|hit| (hit.event_id, hit.raw_score))
                .collect();
            (hits, results.total_matches)
        };
        assert_eq!(scores(&located), scores(&plain));
        assert_eq!(located.document_count(), 2);
        assert_eq!(
            located.locate("event:unknown").expect("locate"),
            Some(EventLocation {
                session_id: "session:a".into(),
                source: "codex".into(),
                month: "2026-03".into(),
                seq: 7,
            })
        );
        assert_eq!(
            located
                .locate_turn("turn:session:b")
                .expect("locate")
                .map(|l| l.session_id),
            Some("session:b".to_owned())
        );
    }

    #[test]
    fn hostile_query_text_never_errors() {
        let (_dir, index) = index_of(&[event("event:a", "session:a", "getUserName a_b \"q\"")]);
        let long_identifier = "a_".repeat(2000);
        let many_words = "word ".repeat(800);
        for text in [
            "\"",
            "\"\"\"",
            "\u{201c}",
            "-",
            "__init__",
            "a\"b\"c\"",
            "\"a_b",
            "日本語のテキスト",
            "\u{0}\u{ffff}",
            long_identifier.as_str(),
            many_words.as_str(),
        ] {
            let query = SearchQuery {
                text,
                session_id: None,
                turn_id: None,
                event_types: &EventType::SEARCHABLE,
                source: None,
                sessions: None,
                limit: 10,
                cancel: None,
            };
            assert!(index.search(&query).is_ok(), "{text:?}");
        }
    }

    #[test]
    fn identifiers_match_whole_first_then_by_parts() {
        let (_dir, index) = index_of(&[
            event("event:whole", "session:a", "supports_websockets = true"),
            event("event:prose", "session:a", "it supports websockets"),
            event("event:camel", "session:a", "call getUserName now"),
            event("event:one_part", "session:a", "it supports more"),
        ]);
        assert_eq!(
            ranked_ids(&index, "supports_websockets", None)[..2],
            ["event:whole", "event:prose"]
        );
        assert_eq!(ranked_ids(&index, "user", None), ["event:camel"]);
        assert_eq!(ranked_ids(&index, "UserName", None), ["event:camel"]);
    }

    #[test]
    fn quoted_text_is_a_phrase() {
        let (_dir, index) = index_of(&[
            event(
                "event:phrase",
                "session:a",
                "connection refused by the server",
            ),
            event(
                "event:apart",
                "session:a",
                "the connection was then refused",
            ),
        ]);
        assert_eq!(
            ranked_ids(&index, "\"connection refused\"", None),
            ["event:phrase"]
        );
        assert_eq!(ranked_ids(&index, "connection refused", None).len(), 2);
        assert!(ranked_ids(&index, "\"\"", None).is_empty());
    }

    /// An index made before the `exact` field (stems and ids only), as an old store has it.
    fn legacy_index_dir(root: &Path) -> std::path::PathBuf {
        let mut builder = Schema::builder();
        for name in ["event_id", "session_id", "turn_id", "type", "source"] {
            builder.add_text_field(name, STRING | STORED);
        }
        builder.add_i64_field("timestamp_micros", STORED | FAST);
        let text_indexing = TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        builder.add_text_field(
            "text",
            TextOptions::default().set_indexing_options(text_indexing),
        );
        let dir = root.join("legacy");
        std::fs::create_dir_all(&dir).expect("legacy dir");
        let index = Index::create_in_dir(&dir, builder.build()).expect("legacy index");
        let mut writer: tantivy::IndexWriter<TantivyDocument> = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        writer.commit().expect("commit");
        dir
    }

    #[test]
    fn an_index_without_exact_forms_still_indexes_and_matches_by_stems() {
        let dir = tempfile::tempdir().expect("temp dir");
        let legacy = legacy_index_dir(dir.path());
        let master = dir.path().join("master");
        let mut writer = SearchWriter::open(&master, &legacy, u64::MAX).expect("writer");
        writer
            .add_event(&event("event:plural", "session:a", "parse datetimes"))
            .expect("add");
        writer
            .add_event(&event("event:singular", "session:a", "a datetime"))
            .expect("add");
        writer.commit().expect("commit");
        writer.finish().expect("finish");
        let published = dir.path().join("published");
        publish(&master, &published).expect("publish");
        let index = SearchIndex::open_dir(&published).expect("open");
        assert!(!index.has_exact_forms());
        assert_eq!(ranked_ids(&index, "datetimes", None).len(), 2);
        assert_eq!(ranked_ids(&index, "\"datetimes\"", None).len(), 2);
        assert_eq!(
            ranked_ids(&index, "\"parse datetimes\"", None),
            ["event:plural"]
        );
    }
}
