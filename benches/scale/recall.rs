//! Rare-word recall@10 (issue #10): a rare whole token (word or identifier in at most 3 events)
//! taken from each of a sample of default-type events, searched as pasted; the row is the
//! share of events found in the top 10, plus the latency of those searches through the server.

use std::path::{Path, PathBuf};

use bench_quality::recall::{RareWordOptions, rare_word_queries, recall_at};
use esker::mcp::server::EskerServer;
use esker::search::SearchIndex;
use esker::service::catalog::Catalog;
use esker::store::Store;
use serde_json::{Value, json};

use crate::handles::strings;
use crate::stats::{Report, Targets};
use crate::workloads::{Queries, index_search_samples, measure};

/// Events sampled per store (by event id, a hash: a spread over sessions and sources).
const SAMPLED_EVENTS: usize = 2000;

/// The recall target of issue #10.
const TARGET_RECALL: f64 = 0.99;

/// `../shared/corpus` next to the checkout, when present.
pub fn shared_corpus() -> Option<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    corpus.is_dir().then_some(corpus)
}

/// Adds the recall row (and the latency of its queries) for the store in `data_dir`.
pub async fn rare_word_recall(
    data_dir: &Path,
    label: &str,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let root = Store::open(data_dir)?.current()?.root;
    let context = esker::query::context_at(&root).await?;
    let sql = format!(
        "SELECT event_id, text FROM events \
         WHERE type IN ('user_input', 'assistant_response', 'tool_response') \
         AND length(text) BETWEEN 20 AND 20000 ORDER BY event_id LIMIT {SAMPLED_EVENTS}"
    );
    let events: Vec<(String, String)> = strings(&context, &sql)
        .await?
        .into_iter()
        .map(|mut row| (row.swap_remove(0), row.swap_remove(0)))
        .collect();
    let index = SearchIndex::open_dir(&root.join("tantivy"))?;
    let queries = rare_word_queries(&index, &events, RareWordOptions::default())?;
    let recall = recall_at(&index, &queries, 10)?;
    let stems_only = SearchIndex::open_dir(&root.join("tantivy"))?.stems_only();
    let baseline = recall_at(&stems_only, &queries, 10)?;
    for miss in recall.misses.iter().take(10) {
        eprintln!(
            "recall miss ({label}): {:?} → {}",
            miss.token, miss.event_id
        );
    }
    report.figure(
        &format!("rare-word recall@10, {label}"),
        format!(
            "{:.2}% ({} of {} queries)",
            recall.recall() * 100.0,
            recall.found,
            recall.queries
        ),
        "≥ 99%",
        Some(recall.recall() >= TARGET_RECALL),
    );
    report.figure(
        &format!("rare-word recall@10, {label}, stems only (before issue #10)"),
        format!(
            "{:.2}% ({} of {} queries)",
            baseline.recall() * 100.0,
            baseline.found,
            baseline.queries
        ),
        "",
        None,
    );
    if queries.is_empty() {
        return Ok(());
    }
    let server = EskerServer::new(Catalog::open(data_dir)?);
    let arguments: Vec<Value> = queries
        .iter()
        .map(|query| json!({"query": query.token, "n_hits": 10}))
        .collect();
    let samples = measure(&server, "search_sessions", &arguments, rounds).await?;
    report.latency(
        format!("search_sessions, rare whole tokens, {label}"),
        samples,
        Some(Targets::new(800.0, 25.0, 150.0)),
    );
    Ok(())
}

/// The query-side cost of exact forms: the tantivy part of search_sessions (as in the
/// `profile:` rows) for the same queries with exact forms and with stems only.
pub fn exact_form_query_cost(
    data_dir: &Path,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let root = Store::open(data_dir)?.current()?.root;
    let with_exact = SearchIndex::open_dir(&root.join("tantivy"))?;
    let stems_only = SearchIndex::open_dir(&root.join("tantivy"))?.stems_only();
    for (kind, texts) in queries.by_kind() {
        for (variant, index) in [("exact forms", &with_exact), ("stems only", &stems_only)] {
            let samples = index_search_samples(index, texts, rounds)?;
            report.latency(
                format!("profile: tantivy part of search_sessions, {kind}, {variant}"),
                samples,
                None,
            );
        }
    }
    Ok(())
}
