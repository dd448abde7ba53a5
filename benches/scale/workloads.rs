//! The SLA workloads, driven in-process through `EskerServer::call` (the same entry point the
//! stdio server uses, envelopes included): searches with rare, common and multi-term queries,
//! scoped searches, opens of each shape (and of a chain's sessions by range), list_sessions
//! windows and file_attention.

use std::time::Instant;

use bench_corpus::rng::Rng;
use bench_corpus::vocab::{VOCABULARY_SIZE, Vocabulary};
use esker::mcp::server::EskerServer;
use serde_json::{Value, json};

use crate::handles::Handles;
use crate::stats::{Report, Samples, Targets};

pub const SEARCH_100K: Targets = Targets::new(250.0, 25.0, 150.0);
pub const SEARCH_500K: Targets = Targets::new(500.0, 25.0, 150.0);
pub const SEARCH_1M: Targets = Targets::new(800.0, 25.0, 150.0);

/// Query texts drawn from the generator's vocabulary.
pub struct Queries {
    pub rare: Vec<String>,
    pub common: Vec<String>,
    pub multi: Vec<String>,
}

impl Queries {
    /// The three query kinds with their names, as the reports label them.
    pub fn by_kind(&self) -> [(&'static str, &[String]); 3] {
        [
            ("rare", &self.rare),
            ("common", &self.common),
            ("multi-term", &self.multi),
        ]
    }

    pub fn new(count: usize) -> Queries {
        let vocabulary = Vocabulary::new();
        let mut rng = Rng::new(0x5EA2C4);
        let single_token = |rank: u64| {
            let word = vocabulary.word(rank as usize);
            (!word.contains('_')).then(|| word.to_owned())
        };
        let draw = |low: u64, high: u64, rng: &mut Rng| loop {
            if let Some(word) = single_token(rng.between(low, high)) {
                return word;
            }
        };
        let rare = (0..count)
            .map(|_| draw(5_000, VOCABULARY_SIZE as u64 - 1, &mut rng))
            .collect();
        let common = (0..count).map(|_| draw(8, 80, &mut rng)).collect();
        let multi = (0..count)
            .map(|_| {
                let words = [
                    draw(200, 3_000, &mut rng),
                    draw(8, 150, &mut rng),
                    draw(8, 150, &mut rng),
                ];
                words.join(" ")
            })
            .collect();
        Queries {
            rare,
            common,
            multi,
        }
    }
}

/// Calls `tool` once per argument set (cycling) `rounds` times after a short warm-up.
pub async fn measure(
    server: &EskerServer,
    tool: &str,
    arguments: &[Value],
    rounds: usize,
) -> anyhow::Result<Samples> {
    anyhow::ensure!(!arguments.is_empty(), "no handles for {tool}");
    // Warm-up calls are not measured; on a cold page cache (a 10M store right after its
    // indexing pass) the first may pass the 5 s deadline, which is not a failure of the row.
    for warm in arguments.iter().take(3) {
        if let Err(error) = call(server, tool, warm).await {
            eprintln!("warm-up {tool}: {error}");
        }
    }
    let mut samples = Samples::default();
    for round in 0..rounds {
        let started = Instant::now();
        match call(server, tool, &arguments[round % arguments.len()]).await {
            Ok(_) => {}
            // A call cut at the deadline is a sample at the deadline (its row's p99 shows
            // it); any other error fails the benchmark.
            Err(error) if error.to_string().contains("\"deadline_exceeded\"") => {
                eprintln!("{tool}, round {round}: deadline exceeded: {error}");
            }
            Err(error) => return Err(error),
        }
        samples.record(started.elapsed());
    }
    Ok(samples)
}

/// One in-process call; an error envelope fails the benchmark.
pub async fn call(server: &EskerServer, tool: &str, arguments: &Value) -> anyhow::Result<Value> {
    let Value::Object(fields) = arguments else {
        anyhow::bail!("arguments must be an object");
    };
    let reply = server
        .call(tool, fields)
        .await
        .ok_or_else(|| anyhow::anyhow!("unknown tool {tool}"))?;
    anyhow::ensure!(
        !reply.is_error,
        "{tool} {arguments} failed: {}",
        reply.envelope
    );
    Ok(reply.envelope)
}

/// search_sessions with default types: rare, common and multi-term queries.
pub async fn searches(
    server: &EskerServer,
    queries: &Queries,
    label: &str,
    targets: Targets,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let mut all = Samples::default();
    for (kind, texts) in [
        ("rare", &queries.rare),
        ("common", &queries.common),
        ("multi-term", &queries.multi),
    ] {
        let arguments: Vec<Value> = texts
            .iter()
            .map(|text| json!({"query": text, "n_hits": 10}))
            .collect();
        let samples = measure(server, "search_sessions", &arguments, rounds).await?;
        all.extend(&samples);
        report.latency(
            format!("search_sessions {label}, {kind}"),
            samples,
            Some(targets),
        );
    }
    report.latency(
        format!("search_sessions {label}, all queries"),
        all,
        Some(targets),
    );
    Ok(())
}

/// Scoped searches, opens and list_sessions at the full store.
pub async fn full_store(
    server: &EskerServer,
    handles: &Handles,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let texts: Vec<&String> = queries
        .common
        .iter()
        .chain(&queries.multi)
        .chain(&queries.rare)
        .collect();
    let scoped = |ids: Vec<&String>| -> Vec<Value> {
        ids.iter()
            .enumerate()
            .map(|(index, id)| json!({"query": texts[index % texts.len()], "within_id": id}))
            .collect()
    };
    let turn_ids: Vec<&String> = interleave(
        &handles.turns_500,
        handles.regular_turns.iter().map(|(turn, _)| turn),
    );
    let samples = measure(server, "search_sessions", &scoped(turn_ids), rounds).await?;
    report.latency(
        "search_sessions within a turn (≤500 events)",
        samples,
        Some(Targets::new(50.0, 5.0, 25.0)),
    );
    let session_ids: Vec<&String> = interleave(
        &handles.sessions_250,
        handles.regular_turns.iter().map(|(_, session)| session),
    );
    let samples = measure(server, "search_sessions", &scoped(session_ids), rounds).await?;
    report.latency(
        "search_sessions within a session (≤250 turns)",
        samples,
        Some(Targets::new(100.0, 10.0, 50.0)),
    );
    opens(server, handles, rounds, report).await?;
    chain_ranges(server, handles, rounds, report).await?;
    lists(server, rounds, report).await?;
    file_attention(server, handles, rounds, report).await
}

/// Issue 13's target: file_attention p50 ≤ 25 ms at 1M documents (the spec has no row; its
/// SLA target is 300 ms).
const FILE_ATTENTION: Targets = Targets::new(300.0, 25.0, 100.0);

/// file_attention over every project (the generated sessions are no project of the bench's
/// launch directory) for touched paths, as session rollups and as event timelines.
async fn file_attention(
    server: &EskerServer,
    handles: &Handles,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    for granularity in ["sessions", "events"] {
        let arguments: Vec<Value> = handles
            .touched_paths
            .iter()
            .map(|path| json!({"path": path, "scope": "all", "granularity": granularity}))
            .collect();
        if arguments.is_empty() {
            eprintln!("file_attention: no touched files in this corpus, skipped");
            return Ok(());
        }
        let samples = measure(server, "file_attention", &arguments, rounds).await?;
        report.latency(
            format!("file_attention, {granularity}"),
            samples,
            Some(FILE_ATTENTION),
        );
    }
    Ok(())
}

/// Issue 15's target: open with a range over a 10-session chain, p50 ≤ 50 ms.
const CHAIN_RANGE: Targets = Targets::new(500.0, 50.0, 250.0);

/// open({id, sessions: "1-10"}): every member of a 10-session chain, addressed by its first.
async fn chain_ranges(
    server: &EskerServer,
    handles: &Handles,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let name = "open with a range over a 10-session chain";
    if handles.chains_10.is_empty() {
        eprintln!("{name}: no 10-session chain in this corpus, skipped");
        return Ok(());
    }
    let arguments: Vec<Value> = handles
        .chains_10
        .iter()
        .map(|id| json!({"id": id, "sessions": "1-10"}))
        .collect();
    let samples = measure(server, "open", &arguments, rounds).await?;
    report.latency(name, samples, Some(CHAIN_RANGE));
    Ok(())
}

async fn opens(
    server: &EskerServer,
    handles: &Handles,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let open = |ids: &[String]| -> Vec<Value> { ids.iter().map(|id| json!({"id": id})).collect() };
    let rows: [(&str, &[String], Option<Targets>); 6] = [
        (
            "open(event), payload ≤ 64 KiB",
            &handles.small_events,
            Some(Targets::new(25.0, 5.0, 20.0)),
        ),
        ("open(event), payload ≥ 1 MiB", &handles.large_events, None),
        (
            "open(turn), ≤ 100 events",
            &handles.turns_100,
            Some(Targets::new(50.0, 10.0, 40.0)),
        ),
        ("open(turn), ~500 events", &handles.turns_500, None),
        (
            "open(session), 100 turns",
            &handles.sessions_100,
            Some(Targets::new(100.0, 50.0, 200.0)),
        ),
        (
            "open(session), 1000 turns",
            &handles.sessions_1000,
            Some(Targets::new(250.0, 50.0, 200.0)),
        ),
    ];
    for (name, ids, targets) in rows {
        if ids.is_empty() {
            eprintln!("{name}: no such handles in this corpus, skipped");
            continue;
        }
        let samples = measure(server, "open", &open(ids), rounds).await?;
        report.latency(name, samples, targets);
    }
    Ok(())
}

async fn lists(server: &EskerServer, rounds: usize, report: &mut Report) -> anyhow::Result<()> {
    let days: Vec<Value> = (0..30)
        .map(|day| {
            let start = chrono::NaiveDate::from_ymd_opt(2025, 6, 1).unwrap_or_default() + chrono::Days::new(day * 11);
            let end = start + chrono::Days::new(1);
            json!({"start_datetime": format!("{start}T00:00:00Z"), "end_datetime": format!("{end}T00:00:00Z")})
        })
        .collect();
    let broad = json!({"start_datetime": "2025-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z", "limit": 50});
    let broad_mode = json!({"start_datetime": "2025-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z", "limit": 50, "mode": "tool_calling"});
    let rows = [
        (
            "list_sessions, typical window (1 day)",
            days,
            Targets::new(50.0, 10.0, 50.0),
        ),
        (
            "list_sessions, broad window",
            vec![broad],
            Targets::new(200.0, 10.0, 50.0),
        ),
        (
            "list_sessions, broad window, mode filter",
            vec![broad_mode],
            Targets::new(250.0, 10.0, 50.0),
        ),
    ];
    for (name, arguments, targets) in rows {
        let samples = measure(server, "list_sessions", &arguments, rounds).await?;
        report.latency(name, samples, Some(targets));
    }
    Ok(())
}

/// Issue 14's target for every agtrace row: p50 ≤ 50 ms.
const AGTRACE: Targets = Targets::new(50.0, 50.0, 250.0);

/// The agtrace profile (issue 14): get_session_details (summary and turns) of 1000-turn
/// sessions, analyze_session, and search_event_previews of rare, common and multi-term
/// queries.
pub async fn agtrace(
    server: &EskerServer,
    handles: &Handles,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let long_sessions: Vec<&String> = if handles.sessions_1000.is_empty() {
        handles.sessions_100.iter().collect()
    } else {
        handles.sessions_1000.iter().collect()
    };
    for level in ["summary", "turns"] {
        let arguments: Vec<Value> = long_sessions
            .iter()
            .map(|id| json!({"session_id": id, "detail_level": level}))
            .collect();
        if arguments.is_empty() {
            eprintln!("get_session_details {level}: no long sessions in this corpus, skipped");
            continue;
        }
        let samples = measure(server, "get_session_details", &arguments, rounds).await?;
        report.latency(
            format!("agtrace get_session_details {level}, 1000-turn session"),
            samples,
            Some(AGTRACE),
        );
    }
    let sessions: Vec<Value> = interleave(
        &handles.sessions_100,
        handles.regular_turns.iter().map(|(_, session)| session),
    )
    .into_iter()
    .map(|id| json!({"session_id": id, "include_loops": true}))
    .collect();
    let samples = measure(server, "analyze_session", &sessions, rounds).await?;
    report.latency("agtrace analyze_session", samples, Some(AGTRACE));
    let texts: Vec<Value> = queries
        .rare
        .iter()
        .chain(&queries.common)
        .chain(&queries.multi)
        .map(|text| json!({"query": text, "limit": 10}))
        .collect();
    let samples = measure(server, "search_event_previews", &texts, rounds).await?;
    report.latency("agtrace search_event_previews", samples, Some(AGTRACE));
    Ok(())
}

/// `first` and `second` alternated (first's items first when one runs out).
fn interleave<'a>(
    first: &'a [String],
    second: impl Iterator<Item = &'a String>,
) -> Vec<&'a String> {
    let mut second = second.take(first.len().max(20));
    let mut merged = Vec::new();
    for item in first {
        merged.push(item);
        if let Some(other) = second.next() {
            merged.push(other);
        }
    }
    merged.extend(second);
    merged
}

/// Timing breakdown of search_sessions: the tantivy part alone (BM25 + stored fields of the
/// hits), to set against the full tool call (the rest is the hit-details SQL and the envelope).
pub fn search_index_only(
    root: &std::path::Path,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let index = esker::search::SearchIndex::open_dir(&root.join("tantivy"))?;
    for (kind, texts) in queries.by_kind() {
        let samples = index_search_samples(&index, texts, rounds)?;
        report.latency(
            format!("profile: tantivy part of search_sessions, {kind}"),
            samples,
            None,
        );
    }
    Ok(())
}

/// `rounds` default-type searches of `index` alone, cycling through `texts`.
pub fn index_search_samples(
    index: &esker::search::SearchIndex,
    texts: &[String],
    rounds: usize,
) -> anyhow::Result<Samples> {
    let mut samples = Samples::default();
    for round in 0..rounds {
        let query = esker::search::SearchQuery {
            text: &texts[round % texts.len()],
            session_id: None,
            turn_id: None,
            event_types: &esker::model::EventType::SEARCH_DEFAULT,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        };
        let started = Instant::now();
        index.search(&query)?;
        samples.record(started.elapsed());
    }
    Ok(samples)
}
