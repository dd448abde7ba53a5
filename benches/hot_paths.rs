//! Criterion benches of the hot paths on a small generated corpus: recognising and parsing a
//! session log, redacting its parsed lines, assembling a session into turn summaries, a
//! default-type search and an open(event), both through the in-process MCP entry point.
//!
//! Run: `cargo bench --bench hot_paths`

use std::path::{Path, PathBuf};

use bench_corpus::{GenerateOptions, generate};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use esker::indexer::assemble::assemble;
use esker::indexer::run::{IndexOptions, discover_files, index_paths};
use esker::ingest::{Content, Recognised, parse, recognise};
use esker::mcp::server::EskerServer;
use esker::redact::Redactor;
use esker::service::catalog::Catalog;
use esker::store::Store;
use serde_json::{Value, json};

// The allocator the shipped binary runs, so that these figures are the server's.
esker::shipped_allocator!();

/// A generated corpus of a few thousand documents, indexed once.
struct Fixture {
    _work: tempfile::TempDir,
    log: PathBuf,
    data_dir: PathBuf,
}

fn fixture(runtime: &tokio::runtime::Runtime) -> Fixture {
    let work = tempfile::tempdir().expect("temp dir");
    let corpus = work.path().join("corpus");
    let options = GenerateOptions {
        docs: 5_000,
        seed: 7,
        parts: 1,
    };
    generate(&corpus, &options).expect("generate corpus");
    let data_dir = work.path().join("data");
    let store = Store::open(&data_dir).expect("open store");
    let index = IndexOptions {
        paths: vec![corpus.clone()],
        ..IndexOptions::default()
    };
    runtime
        .block_on(index_paths(&store, &index))
        .expect("index corpus");
    let log = largest_codex_log(&corpus);
    Fixture {
        _work: work,
        log,
        data_dir,
    }
}

fn largest_codex_log(corpus: &Path) -> PathBuf {
    discover_files(&[corpus.to_path_buf()])
        .into_iter()
        .filter(|path| path.to_string_lossy().contains("/codex/"))
        .max_by_key(|path| {
            std::fs::metadata(path)
                .map(|metadata| metadata.len())
                .unwrap_or(0)
        })
        .expect("the corpus has codex logs")
}

fn call(
    runtime: &tokio::runtime::Runtime,
    server: &EskerServer,
    tool: &str,
    arguments: &Value,
) -> Value {
    let Value::Object(fields) = arguments else {
        panic!("arguments must be an object")
    };
    let reply = runtime
        .block_on(server.call(tool, fields))
        .expect("known tool");
    assert!(!reply.is_error, "{tool} failed: {}", reply.envelope);
    reply.envelope
}

fn hot_paths(criterion: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let fixture = fixture(&runtime);
    let bytes = std::fs::read(&fixture.log).expect("read log");
    // The line with its newline: a last line without one counts as half-written.
    let first_line_end = bytes
        .iter()
        .position(|byte| *byte == b'\n')
        .map_or(bytes.len(), |end| end + 1);
    let first_line = bytes[..first_line_end].to_vec();

    criterion.bench_function("recognise + parse one rollout line", |bench| {
        bench.iter(|| {
            let Recognised::Known {
                format, content, ..
            } = recognise(&first_line, None)
            else {
                panic!("unknown")
            };
            parse(format, &fixture.log, &content, None)
        })
    });
    criterion.bench_function(
        &format!("recognise + parse a rollout ({} KB)", bytes.len() / 1000),
        |bench| {
            bench.iter(|| {
                let Recognised::Known {
                    format, content, ..
                } = recognise(&bytes, None)
                else {
                    panic!("unknown")
                };
                parse(format, &fixture.log, &content, None)
            })
        },
    );
    let Recognised::Known {
        format, content, ..
    } = recognise(&bytes, None)
    else {
        panic!("unknown")
    };
    let Content::Lines(split) = &content else {
        panic!("a rollout is JSON lines")
    };
    let values: Vec<Value> = split.lines.iter().map(|line| line.value.clone()).collect();
    let redactor = Redactor::builtin();
    criterion.bench_function(
        &format!("redact a rollout's lines ({} KB)", bytes.len() / 1000),
        |bench| {
            bench.iter_batched(
                || values.clone(),
                |mut values| {
                    values
                        .iter_mut()
                        .map(|value| redactor.redact_value(value))
                        .sum::<usize>()
                },
                BatchSize::LargeInput,
            )
        },
    );
    let parsed = parse(format, &fixture.log, &content, None);
    let session = parsed.sessions.first().expect("a session").clone();
    criterion.bench_function("assemble a session (turn summaries)", |bench| {
        bench.iter(|| assemble(&session, &fixture.log, chrono::Utc::now()))
    });

    let server = EskerServer::new(Catalog::open(&fixture.data_dir).expect("catalog"));
    let search = json!({"query": "parse error in the config", "n_hits": 10});
    let hits = call(&runtime, &server, "search_sessions", &search);
    criterion.bench_function("search_sessions (in-process)", |bench| {
        bench.iter(|| call(&runtime, &server, "search_sessions", &search))
    });
    let event_id = hits["data"]["results"][0]["open"]["event_id"]
        .as_str()
        .expect("a hit")
        .to_owned();
    let open = json!({"id": event_id});
    criterion.bench_function("open(event) (in-process)", |bench| {
        bench.iter(|| call(&runtime, &server, "open", &open))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = hot_paths
}
criterion_main!(benches);
