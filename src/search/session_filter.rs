//! The restriction of a search to a scope's sessions (`--project-only`, a team token's
//! projects and machines) as one cached bitset per segment and scope: the documents of the
//! scope's session ids, found on the scope's first search of a segment and kept for the
//! index's life, then a constant scorer over them. It scores exactly as the `TermSetQuery` it
//! replaces (a constant `boost`), which walked the term dictionary for every id of the set on
//! every search: at 1M with a scope of 8,052 sessions, a search took 3× as long as unscoped.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tantivy::index::SegmentId;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

/// A scope's session ids, named: two scopes of one index with the same name hold the same
/// ids (the name of a `service::project_scope::ServingScope`, whose ids are fixed per
/// generation, as an index is).
#[derive(Debug, Clone)]
pub struct ScopeSessions {
    pub name: String,
    pub ids: Arc<HashSet<String>>,
}

impl ScopeSessions {
    pub fn contains(&self, session_id: &str) -> bool {
        self.ids.contains(session_id)
    }
}

/// The per-segment documents of each scope searched, shared by every search of an index.
#[derive(Debug, Default)]
pub struct ScopeBitsets {
    by_scope: Mutex<HashMap<(String, SegmentId), Arc<BitSet>>>,
}

impl ScopeBitsets {
    fn segment(
        &self,
        reader: &SegmentReader,
        field: Field,
        scope: &ScopeSessions,
    ) -> tantivy::Result<Arc<BitSet>> {
        let key = (scope.name.clone(), reader.segment_id());
        if let Some(documents) = self.lock().get(&key) {
            return Ok(Arc::clone(documents));
        }
        let documents = Arc::new(documents_of(reader, field, &scope.ids)?);
        self.lock().insert(key, Arc::clone(&documents));
        Ok(documents)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, SegmentId), Arc<BitSet>>> {
        self.by_scope
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// The segment's documents (deleted ones included, as postings hold them) of `sessions`.
fn documents_of(
    reader: &SegmentReader,
    field: Field,
    sessions: &HashSet<String>,
) -> tantivy::Result<BitSet> {
    let mut documents = BitSet::with_max_value(reader.max_doc());
    let inverted_index = reader.inverted_index(field)?;
    for session_id in sessions {
        let term = Term::from_field_text(field, session_id);
        let Some(mut postings) = inverted_index.read_postings(&term, IndexRecordOption::Basic)?
        else {
            continue;
        };
        let mut doc = postings.doc();
        while doc != TERMINATED {
            documents.insert(doc);
            doc = postings.advance();
        }
    }
    Ok(documents)
}

/// Matches the documents of a scope's sessions, each scored `boost`.
#[derive(Debug, Clone)]
pub struct ScopeQuery {
    field: Field,
    scope: ScopeSessions,
    bitsets: Arc<ScopeBitsets>,
}

impl ScopeQuery {
    pub fn new(field: Field, scope: ScopeSessions, bitsets: Arc<ScopeBitsets>) -> ScopeQuery {
        ScopeQuery {
            field,
            scope,
            bitsets,
        }
    }
}

impl Query for ScopeQuery {
    fn weight(&self, _enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for ScopeQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let documents = self.bitsets.segment(reader, self.field, &self.scope)?;
        let docs = BitSetDocSet::from(BitSet::clone(&documents));
        Ok(Box::new(ConstScorer::new(docs, boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let documents = self.bitsets.segment(reader, self.field, &self.scope)?;
        if documents.contains(doc) {
            Ok(Explanation::new("ScopeQuery", 1.0))
        } else {
            Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} is not in the scope's sessions"
            )))
        }
    }
}
