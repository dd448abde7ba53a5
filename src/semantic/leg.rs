//! The search-time side of the semantic leg: the query's vector, an exact scan of the sidecar
//! within the request's scope, and the fusion with the BM25 hits ([`super::fusion`]). Every
//! failure of the leg (no model, no vectors yet, an endpoint down) leaves the lexical answer
//! as it was: the leg fails open, with a warning in the log and none in the response.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::embedder::Embedder;
use super::fusion::{FusionWeights, blend_for, fuse};
use super::vectors::{QueryVector, VectorRow, VectorTable, part_files, vectors_dir};
use super::{SemanticError, SemanticSettings};
use crate::model::EventType;
use crate::search::analyzer::exact_forms;
use crate::search::filler::is_filler;
use crate::search::{
    EventLocation, SearchError, SearchHit, SearchIndex, SearchQuery, SearchResults,
};

/// Candidates taken from each list before fusing (at least the requested hits).
const CANDIDATES: usize = 100;

/// Vector hits at or below this cosine are left out (unrelated texts of a static model score
/// about 0.05-0.1; the paraphrases it finds, 0.15 and up).
const MIN_COSINE: f32 = 0.1;

/// A word is rare when fewer than this share of the indexed events hold it.
const RARE_SHARE: f64 = 0.01;

/// The embedder and its vectors, reloaded when an embedding pass adds a part.
#[derive(Debug)]
pub struct Leg {
    embedder: Embedder,
    dir: PathBuf,
    loaded: Mutex<Option<LoadedTable>>,
    weights: FusionWeights,
}

#[derive(Debug)]
struct LoadedTable {
    parts: Vec<PathBuf>,
    table: Arc<VectorTable>,
}

impl Leg {
    /// The leg `settings` ask for on `data_dir`; `None` when it is off or there is no model
    /// (then search is lexical).
    pub fn open(data_dir: &Path, settings: &SemanticSettings) -> Option<Arc<Leg>> {
        if !settings.enabled {
            return None;
        }
        match Embedder::for_settings(data_dir, settings) {
            Ok(Some(embedder)) => Some(Arc::new(Leg::new(data_dir, embedder))),
            Ok(None) => {
                tracing::info!(
                    "semantic leg: no model installed (`esker model install`); search is lexical"
                );
                None
            }
            Err(error) => {
                tracing::warn!(%error, "semantic leg: the model does not load; search is lexical");
                None
            }
        }
    }

    pub fn new(data_dir: &Path, embedder: Embedder) -> Leg {
        Leg {
            dir: vectors_dir(data_dir, embedder.key()),
            embedder,
            loaded: Mutex::new(None),
            weights: FusionWeights::default(),
        }
    }

    /// This leg blending natural-language queries with `weights` (the benchmark compares them).
    pub fn with_weights(mut self, weights: FusionWeights) -> Leg {
        self.weights = weights;
        self
    }

    pub fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    /// The vectors as of the latest part (a directory listing per search; parts are read
    /// again only when the listing changed).
    pub fn table(&self) -> Result<Arc<VectorTable>, SemanticError> {
        let parts = part_files(&self.dir);
        let mut loaded = self
            .loaded
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(current) = loaded.as_ref().filter(|current| current.parts == parts) {
            return Ok(Arc::clone(&current.table));
        }
        let table = Arc::new(VectorTable::load(&self.dir)?);
        *loaded = Some(LoadedTable {
            parts,
            table: Arc::clone(&table),
        });
        Ok(table)
    }
}

/// Runs `query`: BM25, fused with the vector hits when `leg` is given and able.
pub fn hybrid_search(
    index: &SearchIndex,
    leg: Option<&Leg>,
    query: &SearchQuery<'_>,
) -> Result<SearchResults, SearchError> {
    let Some(leg) = leg else {
        return index.search(query);
    };
    let depth = CANDIDATES.max(query.limit);
    let lexical = index.search(&SearchQuery {
        limit: depth,
        ..query.clone()
    })?;
    let (table, query_vector) = match semantic_inputs(leg, query.text) {
        Ok(Some(inputs)) => inputs,
        Ok(None) => return Ok(truncated(lexical, query.limit)),
        Err(error) => {
            tracing::warn!(%error, "semantic leg failed; answering by words only");
            return Ok(truncated(lexical, query.limit));
        }
    };
    query.stop_if_cancelled()?;
    let semantic: Vec<(SearchHit, f32)> = table
        .nearest(&query_vector, |row| in_scope(row, query), depth)
        .into_iter()
        .filter(|(_, cosine)| *cosine > MIN_COSINE)
        .map(|(row, cosine)| (hit_of(table.row(row)), cosine))
        .collect();
    let total_matches = lexical.total_matches;
    let lexical: Vec<(SearchHit, Option<f32>)> = lexical
        .hits
        .into_iter()
        .map(|hit| {
            let cosine = table.cosine_of(&query_vector, &hit.event_id);
            (hit, cosine)
        })
        .collect();
    let blend = blend_for(query.text, has_rare_word(index, query.text)?, leg.weights);
    let fused = fuse(blend, lexical, semantic, query.limit);
    let hits = with_locations(index, fused)?;
    Ok(SearchResults {
        total_matches: total_matches.max(hits.len()),
        hits,
    })
}

/// The vectors and the query's vector; `None` when there is nothing to scan or the query has
/// no known token.
fn semantic_inputs(
    leg: &Leg,
    text: &str,
) -> Result<Option<(Arc<VectorTable>, QueryVector)>, SemanticError> {
    let table = leg.table()?;
    if table.is_empty() {
        return Ok(None);
    }
    let vector = leg.embedder.embed_query(text)?;
    if vector.iter().all(|value| *value == 0.0) {
        return Ok(None);
    }
    Ok(Some((table, QueryVector::new(&vector))))
}

fn truncated(mut results: SearchResults, limit: usize) -> SearchResults {
    results.hits.truncate(limit);
    results
}

/// Whether an embedded event is within the request's types and scope.
fn in_scope(row: &VectorRow, query: &SearchQuery<'_>) -> bool {
    let type_matches = EventType::parse(&row.event_type)
        .is_some_and(|event_type| query.event_types.contains(&event_type));
    type_matches
        && query.session_id.is_none_or(|id| id == row.session_id)
        && query.turn_id.is_none_or(|id| id == row.turn_id)
        && query.source.is_none_or(|source| source == row.source)
        && query
            .sessions
            .is_none_or(|scope| scope.contains(&row.session_id))
}

fn hit_of(row: &VectorRow) -> SearchHit {
    SearchHit {
        event_id: row.event_id.clone(),
        session_id: row.session_id.clone(),
        turn_id: row.turn_id.clone(),
        raw_score: 0.0,
        timestamp_micros: row.timestamp_micros,
        // Filled in from the index by `with_locations` (a vector row does not know its page).
        location: EventLocation {
            session_id: row.session_id.clone(),
            source: String::new(),
            month: String::new(),
            seq: 0,
        },
    }
}

/// Whether a non-filler word of `text` is held by under 1% of the indexed events (and by some).
fn has_rare_word(index: &SearchIndex, text: &str) -> Result<bool, SearchError> {
    let documents = index.document_count() as f64;
    let rare_below = (documents * RARE_SHARE).max(1.0);
    for forms in exact_forms(text) {
        for part in forms.parts.iter().chain(forms.whole.iter()) {
            if is_filler(part) {
                continue;
            }
            let frequency = index.exact_document_frequency(part)? as f64;
            if frequency > 0.0 && frequency < rare_below {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The hits, each with where its row lives: a vector-only hit is located through the index
/// by its event id, and left out when the index no longer holds the event.
fn with_locations(
    index: &SearchIndex,
    hits: Vec<SearchHit>,
) -> Result<Vec<SearchHit>, SearchError> {
    let mut kept = Vec::with_capacity(hits.len());
    for mut hit in hits {
        if hit.location.source.is_empty() {
            match index.locate(&hit.event_id)? {
                Some(location) => hit.location = location,
                None => continue,
            }
        }
        kept.push(hit);
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_row_outside_the_session_set_is_out_of_scope() {
        let row = |session_id: &str| VectorRow {
            event_id: "event:e".into(),
            session_id: session_id.into(),
            turn_id: "turn:t".into(),
            event_type: EventType::UserInput.as_str().into(),
            source: "claude".into(),
            timestamp_micros: None,
        };
        let in_project = crate::search::session_filter::ScopeSessions {
            name: "project".to_owned(),
            ids: std::sync::Arc::new(["session:a".to_owned()].into()),
        };
        let query = SearchQuery {
            text: "x",
            session_id: None,
            turn_id: None,
            event_types: &EventType::SEARCHABLE,
            source: None,
            sessions: Some(&in_project),
            limit: 5,
            cancel: None,
        };
        assert!(in_scope(&row("session:a"), &query));
        assert!(!in_scope(&row("session:b"), &query));
        let unscoped = SearchQuery {
            sessions: None,
            ..query
        };
        assert!(in_scope(&row("session:b"), &unscoped));
    }
}
