//! Full-text search over event text with tantivy: the index schema, the per-snapshot reader
//! and the scoped, type-filtered BM25 query that `search_sessions` runs.

pub mod analyzer;
pub mod boolean;
pub mod damping;
pub mod filler;
pub mod query;
pub mod script;
pub mod writer;

use std::path::Path;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TantivyDocument,
    TextFieldIndexing, TextOptions, Value,
};
use tantivy::{DocAddress, Index, IndexReader, ReloadPolicy, Term};

use crate::model::EventType;
use crate::store::Snapshot;

/// Errors of the search layer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("search index directory error: {0}")]
    Directory(#[from] tantivy::directory::error::OpenDirectoryError),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Field handles of the event index.
#[derive(Debug, Clone)]
pub struct SearchFields {
    pub event_id: Field,
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
    /// Stored event fields (absent from indexes created before they existed): with them a
    /// search hit or an open(event) is answered from the index alone, without SQL.
    pub stored: Option<StoredFields>,
}

/// The stored-only fields that make an index document a complete copy of its event row.
#[derive(Debug, Clone, Copy)]
pub struct StoredFields {
    /// Position within the turn; indexed and fast for neighbour lookups.
    pub ordinal: Field,
    pub terminal: Field,
    /// The event's text as stored in `events.text` (the indexed `text` adds the tool name).
    pub body: Field,
    /// JSON of the remaining columns ([`EventDetail`]).
    pub detail: Field,
}

impl SearchFields {
    /// The schema every esker index is created with.
    pub fn build() -> (Schema, SearchFields) {
        let mut builder = Schema::builder();
        let text_indexing = TextFieldIndexing::default()
            .set_tokenizer(analyzer::STEM_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let fields = SearchFields {
            event_id: builder.add_text_field("event_id", STRING | STORED),
            session_id: builder.add_text_field("session_id", STRING | STORED),
            turn_id: builder.add_text_field("turn_id", STRING | STORED),
            event_type: builder.add_text_field("type", STRING | STORED),
            source: builder.add_text_field("source", STRING | STORED),
            timestamp_micros: builder.add_i64_field("timestamp_micros", STORED | FAST),
            text: builder.add_text_field(
                "text",
                TextOptions::default().set_indexing_options(text_indexing),
            ),
            exact: None,
            stored: None,
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
        let stored = StoredFields {
            ordinal: builder.add_i64_field("ordinal", INDEXED | STORED | FAST),
            terminal: builder.add_bool_field("terminal", STORED),
            body: builder.add_text_field("body", STORED),
            detail: builder.add_text_field("detail", STORED),
        };
        let fields = SearchFields {
            exact: Some(exact),
            stored: Some(stored),
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
            session_id: field("session_id")?,
            turn_id: field("turn_id")?,
            event_type: field("type")?,
            source: field("source")?,
            timestamp_micros: field("timestamp_micros")?,
            text: field("text")?,
            exact: schema.get_field(EXACT_FIELD).ok(),
            stored: StoredFields::from_schema(schema),
        })
    }
}

impl StoredFields {
    /// The stored fields when the index has all of them.
    fn from_schema(schema: &Schema) -> Option<StoredFields> {
        Some(StoredFields {
            ordinal: schema.get_field("ordinal").ok()?,
            terminal: schema.get_field("terminal").ok()?,
            body: schema.get_field("body").ok()?,
            detail: schema.get_field("detail").ok()?,
        })
    }
}

/// The columns of an event row that have no field of their own in the index, stored as JSON.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventDetail {
    pub turn_ordinal: i64,
    pub model: Option<String>,
    pub originating_model: Option<String>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub exit_code: Option<i64>,
    pub subtype: Option<String>,
    pub payload: Option<String>,
}

/// An event row read back from the index's stored fields.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexedEvent {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub event_type: String,
    pub source: String,
    pub timestamp_micros: Option<i64>,
    pub ordinal: i64,
    pub terminal: bool,
    pub text: String,
    pub detail: EventDetail,
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
    pub limit: usize,
}

/// One matching event.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub raw_score: f32,
    pub timestamp_micros: Option<i64>,
    /// The whole event, when the index stores it.
    pub event: Option<IndexedEvent>,
}

/// Where an indexed event's row lives: enough to prune a Parquet lookup to its partition
/// (`source`) and row groups (`session_id`, the sort key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLocation {
    pub session_id: String,
    pub source: String,
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
}

/// Name of the exact-forms field.
const EXACT_FIELD: &str = "exact";

/// Extra candidates fetched beyond the limit so that ties at the cut are ordered correctly.
const TIE_BREAK_SLACK: usize = 32;

impl SearchIndex {
    /// Creates an empty index in `dir`.
    pub fn create_empty(dir: &Path) -> Result<(), SearchError> {
        std::fs::create_dir_all(dir).map_err(|source| SearchError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (schema, _) = SearchFields::build();
        let index = Index::create_in_dir(dir, schema)?;
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
        let index = Index::open_in_dir(dir)?;
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
        })
    }

    /// Number of indexed events.
    pub fn document_count(&self) -> u64 {
        self.reader.searcher().num_docs()
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
        let combined = self.build_query(&searcher, query, relevance)?;
        let fetch = query.limit.saturating_add(TIE_BREAK_SLACK);
        let (top_docs, total_matches) = searcher.search(
            &combined,
            &(TopDocs::with_limit(fetch).order_by_score(), Count),
        )?;
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

    /// The session and source of an indexed event, by an exact term lookup on its id; `None`
    /// when the event is not in the index (type `unknown`).
    pub fn locate(&self, event_id: &str) -> Result<Option<EventLocation>, SearchError> {
        let Some(document) = self.event_document(event_id)? else {
            return Ok(None);
        };
        Ok(text_field(&document, self.fields.session_id)
            .zip(text_field(&document, self.fields.source))
            .map(|(session_id, source)| EventLocation { session_id, source }))
    }

    /// The stored document of an event, by an exact term lookup on its id.
    fn event_document(&self, event_id: &str) -> Result<Option<TantivyDocument>, SearchError> {
        let searcher = self.reader.searcher();
        let query = self.term_query(self.fields.event_id, event_id);
        let top_docs = searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
        let Some((_, address)) = top_docs.first() else {
            return Ok(None);
        };
        Ok(Some(searcher.doc(*address)?))
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

    /// Whether documents carry the whole event ([`StoredFields`]).
    pub fn stores_events(&self) -> bool {
        self.fields.stored.is_some()
    }

    /// The whole event from the index's stored fields; `None` when it is not indexed or the
    /// index does not store events.
    pub fn indexed_event(&self, event_id: &str) -> Result<Option<IndexedEvent>, SearchError> {
        let Some(stored) = self.fields.stored else {
            return Ok(None);
        };
        Ok(self
            .event_document(event_id)?
            .and_then(|document| self.event_of(&document, stored)))
    }

    /// The ids of the indexed events at `ordinal - 1` and `ordinal + 1` in `turn_id`.
    pub fn neighbour_ids(
        &self,
        turn_id: &str,
        ordinal: i64,
    ) -> Result<(Option<String>, Option<String>), SearchError> {
        let Some(stored) = self.fields.stored else {
            return Ok((None, None));
        };
        let searcher = self.reader.searcher();
        let ordinals: Vec<(Occur, Box<dyn Query>)> = [ordinal - 1, ordinal + 1]
            .into_iter()
            .map(|neighbour| {
                let term = Term::from_field_i64(stored.ordinal, neighbour);
                let query: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                (Occur::Should, query)
            })
            .collect();
        let query = BooleanQuery::new(vec![
            (Occur::Must, self.term_query(self.fields.turn_id, turn_id)),
            (Occur::Must, Box::new(BooleanQuery::new(ordinals))),
        ]);
        let top_docs = searcher.search(&query, &TopDocs::with_limit(2).order_by_score())?;
        let (mut previous, mut next) = (None, None);
        for (_, address) in top_docs {
            let document: TantivyDocument = searcher.doc(address)?;
            let id = text_field(&document, self.fields.event_id);
            match document.get_first(stored.ordinal).and_then(|v| v.as_i64()) {
                Some(found) if found == ordinal - 1 => previous = id,
                Some(found) if found == ordinal + 1 => next = id,
                _ => {}
            }
        }
        Ok((previous, next))
    }

    /// Every indexed event of `turn_id` by ordinal, reading at most `limit` documents; empty
    /// when the index does not store events.
    pub fn turn_events(
        &self,
        turn_id: &str,
        limit: usize,
    ) -> Result<Vec<IndexedEvent>, SearchError> {
        let Some(stored) = self.fields.stored else {
            return Ok(Vec::new());
        };
        let searcher = self.reader.searcher();
        let query = self.term_query(self.fields.turn_id, turn_id);
        let top_docs =
            searcher.search(&query, &TopDocs::with_limit(limit.max(1)).order_by_score())?;
        let mut events = Vec::with_capacity(top_docs.len());
        for (_, address) in top_docs {
            let document: TantivyDocument = searcher.doc(address)?;
            if let Some(event) = self.event_of(&document, stored) {
                events.push(event);
            }
        }
        events.sort_by_key(|event| event.ordinal);
        Ok(events)
    }

    fn event_of(&self, document: &TantivyDocument, stored: StoredFields) -> Option<IndexedEvent> {
        let text = |field: Field| text_field(document, field);
        let detail = serde_json::from_str::<EventDetail>(&text(stored.detail)?).ok()?;
        Some(IndexedEvent {
            event_id: text(self.fields.event_id)?,
            session_id: text(self.fields.session_id)?,
            turn_id: text(self.fields.turn_id)?,
            event_type: text(self.fields.event_type)?,
            source: text(self.fields.source)?,
            timestamp_micros: document
                .get_first(self.fields.timestamp_micros)
                .and_then(|value| value.as_i64()),
            ordinal: document.get_first(stored.ordinal)?.as_i64()?,
            terminal: document.get_first(stored.terminal)?.as_bool()?,
            text: text(stored.body)?,
            detail,
        })
    }

    /// The relevance query ([`query::RelevanceBuilder`]) restricted to the scope and types.
    fn build_query(
        &self,
        searcher: &tantivy::Searcher,
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
        })?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, relevance)];
        let type_clauses: Vec<(Occur, Box<dyn Query>)> = query
            .event_types
            .iter()
            .map(|event_type| {
                (
                    Occur::Should,
                    self.term_query(self.fields.event_type, event_type.as_str()),
                )
            })
            .collect();
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(type_clauses))));
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
        Ok(BooleanQuery::new(clauses))
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
            timestamp_micros: document
                .get_first(self.fields.timestamp_micros)
                .and_then(|value| value.as_i64()),
            event: self
                .fields
                .stored
                .and_then(|stored| self.event_of(&document, stored)),
        })
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

    use crate::model::Source;
    use crate::store::rows::EventRow;
    use writer::{SearchWriter, publish};

    pub(super) fn event(id: &str, session: &str, text: &str) -> EventRow {
        EventRow {
            event_id: id.into(),
            session_id: session.into(),
            turn_id: format!("turn:{session}"),
            turn_ordinal: 1,
            ordinal: 1,
            seq: 1,
            event_type: EventType::AssistantResponse,
            timestamp: chrono::DateTime::UNIX_EPOCH,
            timestamp_inferred: false,
            terminal: false,
            model: None,
            originating_model: None,
            tool_name: None,
            tool_call_id: None,
            exit_code: None,
            subtype: None,
            text: text.into(),
            payload: None,
            source_path: "/x".into(),
            source_line: 1,
            usage: None,
            source: Source::Codex,
            month: "2026-03".into(),
        }
    }

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
            limit: 10,
        };
        let results = index.search(&query).expect("search");
        results.hits.into_iter().map(|hit| hit.event_id).collect()
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
                limit: 10,
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
