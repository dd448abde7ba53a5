//! Rare-word recall (issue #10): takes a rare whole token (a word or identifier found in at most
//! a few events, e.g. `datetimes`, `supports_websockets`) from each sampled event's text,
//! searches it as a user would paste it, and counts how often that event is in the top k.
//! Used by the scale benchmark and by the real-corpus regression test.

use esker::model::EventType;
use esker::search::analyzer::{MAX_EXACT_TOKEN_BYTES, forms_of, runs};
use esker::search::{SearchError, SearchIndex, SearchQuery};

/// Which tokens count as rare words.
#[derive(Debug, Clone, Copy)]
pub struct RareWordOptions {
    /// Shortest token, in characters (short tokens are mostly numbers and noise).
    pub min_chars: usize,
    /// Most events a token may occur in (exact form) to count as rare.
    pub max_events: u64,
}

impl Default for RareWordOptions {
    fn default() -> RareWordOptions {
        RareWordOptions {
            min_chars: 6,
            max_events: 3,
        }
    }
}

/// One query of the measurement: a token as it appears in its event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RareWordQuery {
    pub token: String,
    pub event_id: String,
}

/// The result of a measurement.
#[derive(Debug, Clone, Default)]
pub struct RecallReport {
    pub queries: usize,
    pub found: usize,
    /// The queries whose event was not in the top k.
    pub misses: Vec<RareWordQuery>,
}

impl RecallReport {
    /// The share of queries whose event was found, in [0, 1] (1 without queries).
    pub fn recall(&self) -> f64 {
        if self.queries == 0 {
            return 1.0;
        }
        self.found as f64 / self.queries as f64
    }
}

/// The first rare token of each `(event id, text)`, as written there; events without one are
/// skipped. Rarity is read from the index's exact forms (an index without them yields none).
pub fn rare_word_queries(
    index: &SearchIndex,
    events: &[(String, String)],
    options: RareWordOptions,
) -> Result<Vec<RareWordQuery>, SearchError> {
    let mut queries = Vec::new();
    for (event_id, text) in events {
        if let Some(token) = first_rare_token(index, text, options)? {
            queries.push(RareWordQuery {
                token,
                event_id: event_id.clone(),
            });
        }
    }
    Ok(queries)
}

fn first_rare_token(
    index: &SearchIndex,
    text: &str,
    options: RareWordOptions,
) -> Result<Option<String>, SearchError> {
    for run in runs(text) {
        let long_enough = run.text.chars().count() >= options.min_chars;
        let has_letter = run.text.chars().any(char::is_alphabetic);
        if !long_enough || !has_letter || run.text.len() > MAX_EXACT_TOKEN_BYTES {
            continue;
        }
        let forms = forms_of(&run);
        let Some(term) = forms.whole.or_else(|| forms.parts.into_iter().next()) else {
            continue;
        };
        let events = index.exact_document_frequency(&term)?;
        if (1..=options.max_events).contains(&events) {
            return Ok(Some(run.text.to_owned()));
        }
    }
    Ok(None)
}

/// Searches every query with the default event types and counts the events found in the top
/// `k`.
pub fn recall_at(
    index: &SearchIndex,
    queries: &[RareWordQuery],
    k: usize,
) -> Result<RecallReport, SearchError> {
    let mut report = RecallReport::default();
    for query in queries {
        let results = index.search(&SearchQuery {
            text: &query.token,
            session_id: None,
            turn_id: None,
            event_types: &EventType::SEARCH_DEFAULT,
            source: None,
            sessions: None,
            limit: k,
            cancel: None,
        })?;
        report.queries += 1;
        if results
            .hits
            .iter()
            .any(|hit| hit.event_id == query.event_id)
        {
            report.found += 1;
        } else {
            report.misses.push(query.clone());
        }
    }
    Ok(report)
}
