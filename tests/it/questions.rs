//! Issue #23, search that answers questions, on the real corpus: the question benchmark
//! (`benches/questions/corpus.jsonl`, measured by `bench_quality::questions`) prints its table
//! and holds its floors; and through the real MCP server, a Japanese and a Chinese question
//! find their session first and a question full of filler words finds its session in the top 5.

use std::collections::HashSet;

use serde_json::json;

use crate::mcp::client::{EskerClient, strings_at};
use crate::support::{corpus_store, manifest_dir, query_rows};

/// The Japanese session of the corpus about where Codex's global rules live.
const JAPANESE_SESSION: &str = "session:codex-8a837827-6a97-40ad-9fc8-905176aa9307";

/// The Chinese session of the corpus about a global wrapper for Claude Code in VS Code.
const CHINESE_SESSION: &str = "session:claude-1d7fabf7-bdba-4f72-9092-1b3a31a41904";

/// The session where a Spring Boot app would not start (`entityManagerFactory`).
const SPRING_SESSION: &str = "session:gemini-c737eb36-0f7f-466b-8044-9cb1f572378f";

/// The distinct sessions of the hits of `query`, best first, through `search_sessions`.
async fn ranked_sessions(client: &EskerClient, query: &str) -> Vec<String> {
    let data = client.search(json!({"query": query, "n_hits": 50})).await;
    let mut sessions = Vec::new();
    for session in strings_at(&data["results"], "/session/id") {
        if !sessions.contains(&session) {
            sessions.push(session);
        }
    }
    sessions
}

#[tokio::test]
async fn a_japanese_question_finds_its_session_first() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let client = EskerClient::start(data_dir).await;
    let sessions = ranked_sessions(&client, "グローバルルールの設定場所を教えて").await;
    assert_eq!(sessions.first().map(String::as_str), Some(JAPANESE_SESSION));
}

#[tokio::test]
async fn a_chinese_question_finds_its_session_first() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let client = EskerClient::start(data_dir).await;
    let sessions = ranked_sessions(&client, "哪次把包装器改成了全局方案？").await;
    assert_eq!(sessions.first().map(String::as_str), Some(CHINESE_SESSION));
}

#[tokio::test]
async fn a_question_with_filler_words_finds_its_session_in_the_top_5() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let client = EskerClient::start(data_dir).await;
    let question = "what was the session where I asked you to look at why the Spring Boot app \
                    could not create the entity manager factory bean?";
    let sessions = ranked_sessions(&client, question).await;
    assert!(
        sessions
            .iter()
            .take(5)
            .any(|session| session == SPRING_SESSION),
        "{sessions:?}"
    );
}

/// Hit@1, hit@5, found@50 and MRR per kind of question on `../shared/corpus`, with floors a
/// little under the figures measured when the benchmark was written (PERFORMANCE.md).
#[test]
fn the_question_benchmark_meets_its_floors() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let path = manifest_dir().join(bench_quality::questions::CORPUS_QUESTIONS);
    let questions = bench_quality::questions::load_questions(&path).expect("questions load");
    let known: HashSet<String> = query_rows(data_dir, "SELECT session_id FROM sessions")
        .iter()
        .filter_map(|row| row["session_id"].as_str().map(str::to_owned))
        .collect();
    for question in &questions {
        assert!(
            known.contains(&question.session),
            "{} is not a session of the corpus",
            question.session
        );
    }
    let store = esker::store::Store::open_existing(data_dir).expect("store opens");
    let snapshot = store.pin_current().expect("current generation");
    let index = esker::search::SearchIndex::open(&snapshot).expect("search index opens");
    let report = bench_quality::questions::measure(&index, &questions).expect("searches");
    eprintln!(
        "question benchmark on ../shared/corpus:\n{}",
        report.markdown_table()
    );
    for miss in report.misses_at_1() {
        eprintln!(
            "not first ({}): {:?} → {} at {:?}; top: {:?}",
            miss.question.kind,
            miss.question.question,
            miss.question.session,
            miss.rank,
            miss.top_sessions
        );
    }
    let overall = report.overall;
    assert!(overall.hit_at_5_share() >= 0.95, "hit@5 {overall:?}");
    assert!(overall.hit_at_1_share() >= 0.85, "hit@1 {overall:?}");
    for (kind, figures) in &report.by_kind {
        assert!(figures.hit_at_5_share() >= 0.90, "{kind}: {figures:?}");
        assert!(figures.found_at_50_share() >= 0.95, "{kind}: {figures:?}");
    }
    assert!(report.cjk.hit_at_5_share() >= 0.90, "{:?}", report.cjk);
}

/// Issue #23 item 4: the question benchmark without and with the semantic leg, the vectors
/// made by the real WordLlama weights. Runs when `$ESKER_WORDLLAMA_WHEEL` names the pinned
/// wheel (`pip download --no-deps wordllama==0.4.0.post1 ...`); prints both tables for
/// PERFORMANCE.md. The vectors are kept in a temporary directory, not in the shared store.
#[test]
fn the_question_benchmark_with_and_without_the_semantic_leg() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let Some(wheel) = std::env::var_os("ESKER_WORDLLAMA_WHEEL") else {
        eprintln!("skipped: set ESKER_WORDLLAMA_WHEEL to the pinned wordllama wheel to measure");
        return;
    };
    use esker::semantic::{Embedder, Leg, embed_pass, install, model_files};
    let model_home = tempfile::tempdir().expect("temp dir");
    install::install_from_file(model_home.path(), std::path::Path::new(&wheel))
        .expect("the pinned wheel installs");
    let embedder = Embedder::installed(&model_files::model_dir(model_home.path())).expect("loads");
    let store = esker::store::Store::open_existing(data_dir).expect("store opens");
    let summary = embed_pass::embed_pending_into(&store, &embedder, model_home.path())
        .expect("embedding pass");
    eprintln!("semantic leg on ../shared/corpus: {summary}");
    let leg = Leg::new(model_home.path(), embedder);
    let snapshot = store.pin_current().expect("current generation");
    let index = esker::search::SearchIndex::open(&snapshot).expect("search index opens");
    let path = manifest_dir().join(bench_quality::questions::CORPUS_QUESTIONS);
    let questions = bench_quality::questions::load_questions(&path).expect("questions load");
    let without = bench_quality::questions::measure(&index, &questions).expect("searches");
    let started = std::time::Instant::now();
    let with = bench_quality::questions::measure_with_leg(&index, Some(&leg), &questions)
        .expect("searches");
    let per_question_ms = started.elapsed().as_secs_f64() * 1000.0 / questions.len() as f64;
    eprintln!(
        "question benchmark without the semantic leg:\n{}\nwith it ({per_question_ms:.1} ms per \
         question, debug):\n{}",
        without.markdown_table(),
        with.markdown_table()
    );
    for miss in with.misses_at_1() {
        eprintln!(
            "with the leg, not first ({}): {:?} → {} at {:?}; top: {:?}",
            miss.question.kind,
            miss.question.question,
            miss.question.session,
            miss.rank,
            miss.top_sessions
        );
    }
    assert_eq!(
        summary.embedded + summary.already,
        leg.table().expect("vectors").len()
    );
    assert!(with.overall.hit_at_5_share() >= 0.90, "{:?}", with.overall);
    eprintln!("semantic weights (rare word / common words): hit@1 · MRR per kind, held out, all");
    for (rare, common) in [(0.3, 0.7), (0.2, 0.5), (0.1, 0.3), (0.0, 0.5), (0.5, 0.9)] {
        let weights = esker::semantic::fusion::FusionWeights { rare, common };
        let variant = Leg::new(model_home.path(), leg.embedder().clone()).with_weights(weights);
        let report = bench_quality::questions::measure_with_leg(&index, Some(&variant), &questions)
            .expect("searches");
        let cell = |figures: &bench_quality::questions::Figures| {
            format!(
                "{:.1}% · {:.3}",
                figures.hit_at_1_share() * 100.0,
                figures.mrr()
            )
        };
        let kinds: Vec<String> = report.by_kind.values().map(cell).collect();
        eprintln!(
            "| {rare} / {common} | {} | {} | {} |",
            kinds.join(" | "),
            cell(&report.held_out),
            cell(&report.overall)
        );
    }
}
