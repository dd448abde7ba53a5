//! Issue #10, "search finds exact words first", through the real MCP server: an exact word
//! outranks its stem family, identifiers (`snake_case`, `camelCase`, `kebab-case`, dotted,
//! paths) are found whole first and by their parts, quoted text is a phrase; and on the real
//! corpus a rare word taken from an event finds that event in the top 10 (recall ≥ 99%).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::client::{EskerClient, strings_at};
use crate::support::{corpus_store, index_into, query_rows};

/// Filler that makes a prompt long, so BM25 alone would rank it below short ones.
const FILLER: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod \
                      tempor incididunt ut labore et dolore magna aliqua";

/// The prompts of the exact-words store, oldest first, each with a name for assertions.
fn prompts() -> Vec<(&'static str, String)> {
    let mut prompts = vec![
        (
            "long_datetimes",
            format!(
                "{} we parse datetimes here {}",
                FILLER.repeat(6),
                FILLER.repeat(6)
            ),
        ),
        (
            "snake_whole",
            "set supports_websockets = true in the config".to_owned(),
        ),
        ("camel", "call getUserName before saving".to_owned()),
        (
            "kebab",
            "build with --no-default-features please".to_owned(),
        ),
        ("path", "edit src/search/mod.rs next".to_owned()),
        ("dotted", "use serde_json.to_string for it".to_owned()),
        (
            "phrase_exact",
            "connection refused by the server".to_owned(),
        ),
        (
            "phrase_apart",
            "the connection to the server was refused".to_owned(),
        ),
        (
            "snake_prose",
            "the proxy supports websockets since last week".to_owned(),
        ),
    ];
    for index in 0..14 {
        prompts.push(("datetime", format!("datetime bug {index}")));
    }
    for index in 0..4 {
        prompts.push(("supports", format!("it supports more {index}")));
    }
    prompts
}

/// A Codex session holding `prompts()` as user prompts, one second apart.
fn exact_words_store() -> PathBuf {
    let logs = tempfile::tempdir().expect("temp dir").keep();
    let session = "0199aaaa-0000-7000-8000-0000000000e1";
    let mut lines = vec![
        json!({"timestamp": "2026-05-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": session, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/tmp/exact", "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli"}}),
    ];
    for (second, (_, text)) in prompts().into_iter().enumerate() {
        lines.push(json!({"timestamp": format!("2026-05-01T10:01:{:02}.000Z", second + 1), "type": "event_msg", "payload": {"type": "user_message", "message": text, "images": []}}));
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(
        logs.join(format!("rollout-2026-05-01T10-00-00-{session}.jsonl")),
        text,
    )
    .unwrap();
    let data_dir = tempfile::tempdir().expect("temp dir").keep();
    index_into(&data_dir, &[&logs]);
    data_dir
}

/// The prompt names of the hits of `query`, best first.
async fn ranked_names(client: &EskerClient, query: &str) -> Vec<&'static str> {
    let data = client.search(json!({"query": query, "n_hits": 50})).await;
    let by_text: Vec<(&'static str, String)> = prompts();
    strings_at(&data["results"], "/snippet/text")
        .iter()
        .map(|snippet| name_of(&by_text, snippet))
        .collect()
}

fn name_of(prompts: &[(&'static str, String)], snippet: &str) -> &'static str {
    let snippet = snippet.trim_matches('.');
    prompts
        .iter()
        .find(|(_, text)| text.contains(snippet) || snippet.contains(text.as_str()))
        .map(|(name, _)| *name)
        .unwrap_or_else(|| panic!("no prompt for snippet {snippet}"))
}

#[tokio::test]
async fn an_exact_word_outranks_its_stem_family_and_a_quoted_word_is_exact() {
    let client = EskerClient::start(&exact_words_store()).await;
    let names = ranked_names(&client, "datetimes").await;
    assert_eq!(names[0], "long_datetimes", "{names:?}");
    assert_eq!(names.len(), 15, "stem matches still follow: {names:?}");
    assert_eq!(
        ranked_names(&client, "\"datetimes\"").await,
        ["long_datetimes"]
    );
    assert_eq!(
        ranked_names(&client, "DateTimes").await[0],
        "long_datetimes"
    );
}

#[tokio::test]
async fn identifiers_are_found_whole_first_and_by_their_parts() {
    let client = EskerClient::start(&exact_words_store()).await;
    let snake = ranked_names(&client, "supports_websockets").await;
    assert_eq!(snake[..2], ["snake_whole", "snake_prose"], "{snake:?}");
    let part = ranked_names(&client, "websockets").await;
    assert!(part[..2].contains(&"snake_whole"), "{part:?}");
    for (query, expected) in [
        ("getUserName", "camel"),
        ("user", "camel"),
        ("UserName", "camel"),
        ("no-default-features", "kebab"),
        ("default-features", "kebab"),
        ("src/search/mod.rs", "path"),
        ("search/mod.rs", "path"),
        ("mod.rs", "path"),
        ("serde_json.to_string", "dotted"),
        ("to_string", "dotted"),
    ] {
        let names = ranked_names(&client, query).await;
        assert_eq!(names.first(), Some(&expected), "{query}: {names:?}");
    }
}

#[tokio::test]
async fn a_quoted_query_is_a_phrase() {
    let client = EskerClient::start(&exact_words_store()).await;
    assert_eq!(
        ranked_names(&client, "\"connection refused\"").await,
        ["phrase_exact"]
    );
    assert_eq!(
        ranked_names(&client, "connection refused").await,
        ["phrase_exact", "phrase_apart"]
    );
    assert_eq!(
        ranked_names(&client, "server \"was refused\"").await,
        ["phrase_apart"]
    );
    let unclosed = client
        .search(json!({"query": "\"connection refused", "n_hits": 5}))
        .await;
    assert_eq!(unclosed["result_count"], 2, "an unclosed quote is ignored");
    let nothing = client.search(json!({"query": "\"\" \"...\""})).await;
    assert_eq!(nothing["result_count"], 0);
}

/// The real corpus: a rare whole token (a word or identifier in at most 3 events) taken from a
/// sample of default-type events finds its event in the top 10 at least 99% of the time.
#[test]
fn rare_words_of_the_real_corpus_find_their_event() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let rows = query_rows(
        data_dir,
        "SELECT event_id, text FROM events \
         WHERE type IN ('user_input', 'assistant_response', 'tool_response') \
         AND character_length(text) BETWEEN 20 AND 20000 ORDER BY event_id LIMIT 1500",
    );
    let text_of = |row: &serde_json::Map<String, Value>, key: &str| {
        row[key].as_str().unwrap_or_default().to_owned()
    };
    let events: Vec<(String, String)> = rows
        .iter()
        .map(|row| (text_of(row, "event_id"), text_of(row, "text")))
        .collect();
    let store = esker::store::Store::open_existing(data_dir).expect("store opens");
    let snapshot = store.pin_current().expect("current generation");
    let index = esker::search::SearchIndex::open(&snapshot).expect("search index opens");
    let queries = bench_quality::recall::rare_word_queries(&index, &events, Default::default())
        .expect("rare words");
    assert!(queries.len() >= 200, "only {} rare words", queries.len());
    let report = bench_quality::recall::recall_at(&index, &queries, 10).expect("searches");
    let stems_only = esker::search::SearchIndex::open(&snapshot)
        .expect("search index opens")
        .stems_only();
    let baseline = bench_quality::recall::recall_at(&stems_only, &queries, 10).expect("searches");
    eprintln!(
        "rare-word recall@10 on ../shared/corpus: {}/{} ({:.2}%; stems only: {:.2}%)",
        report.found,
        report.queries,
        report.recall() * 100.0,
        baseline.recall() * 100.0
    );
    assert!(
        report.recall() >= 0.99,
        "recall {:.3}; misses: {:?}",
        report.recall(),
        report.misses
    );
}
