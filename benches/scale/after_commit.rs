//! Cache behaviour across a commit (issue #21): a warm in-process server holds the store while
//! the library appends one event and commits; the server's first answer on the new generation
//! (search_sessions for the appended word, open(event) of a stored event, a list_sessions
//! page) is timed, then the same call again.

use std::path::Path;
use std::time::Instant;

use esker::indexer::run::{IndexOptions, index_paths};
use esker::mcp::server::EskerServer;
use esker::store::Store;
use serde_json::{Value, json};

use crate::handles::Handles;
use crate::indexing::append_codex_message;
use crate::stats::{Report, Samples};
use crate::workloads::call;

/// The tools timed after a commit, one per commit in turn.
const TOOLS: [&str; 3] = ["search_sessions", "open", "list_sessions"];

/// First and second answers of each tool after a commit.
#[derive(Default)]
struct AfterCommit {
    first: [Samples; TOOLS.len()],
    again: [Samples; TOOLS.len()],
}

/// Appends `rounds` events to `log` (a Codex rollout of the store), one commit each, and
/// after each commit times one tool's first and second answers on `server`. The search looks
/// for the word just appended, so its first answer is also the append-to-searchable check.
pub async fn first_answers_after_commit(
    data_dir: &Path,
    log: &Path,
    server: &EskerServer,
    handles: &Handles,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    anyhow::ensure!(!handles.small_events.is_empty(), "no events to open");
    let store = Store::open(data_dir)?;
    let options = IndexOptions {
        paths: vec![log.to_path_buf()],
        ..IndexOptions::default()
    };
    let mut figures = AfterCommit::default();
    for round in 0..rounds {
        let word = probe_word(round);
        append_codex_message(log, 13, round, &format!("after commit note {word}"))?;
        let summary = index_paths(&store, &options).await?;
        anyhow::ensure!(
            summary.files_ingested == 1,
            "append not ingested: {summary}"
        );
        let which = round % TOOLS.len();
        let arguments = arguments_for(TOOLS[which], &word, handles, round);
        for samples in [&mut figures.first[which], &mut figures.again[which]] {
            let started = Instant::now();
            let envelope = call(server, TOOLS[which], &arguments).await?;
            samples.record(started.elapsed());
            if TOOLS[which] == "search_sessions" {
                anyhow::ensure!(
                    envelope.to_string().contains(&word),
                    "the appended word {word} is not found right after its commit"
                );
            }
        }
    }
    for (which, tool) in TOOLS.iter().enumerate() {
        let first = std::mem::take(&mut figures.first[which]);
        let again = std::mem::take(&mut figures.again[which]);
        report.latency(format!("{tool}, first answer after a commit"), first, None);
        report.latency(format!("{tool}, the same call again"), again, None);
    }
    Ok(())
}

/// A word no generated document holds, letters only (the analyzer splits letters from
/// digits): `afterprobe` and the round in base 26.
fn probe_word(round: usize) -> String {
    let mut suffix = String::new();
    let mut rest = round;
    loop {
        suffix.insert(0, char::from(b'a' + (rest % 26) as u8));
        rest /= 26;
        if rest == 0 {
            break;
        }
    }
    format!("afterprobe{suffix}")
}

fn arguments_for(tool: &str, word: &str, handles: &Handles, round: usize) -> Value {
    match tool {
        "search_sessions" => json!({"query": word, "n_hits": 10}),
        "open" => json!({"id": handles.small_events[round % handles.small_events.len()]}),
        _ => json!({
            "start_datetime": "2025-01-01T00:00:00Z",
            "end_datetime": "2027-01-01T00:00:00Z",
            "limit": 20
        }),
    }
}
