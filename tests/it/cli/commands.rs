//! `esker search/show/sessions/usage` on the fixture store (and the real corpus when present):
//! the right hits, filters that hold, sessions as the tables list them, usage totals equal to
//! `esker query` sums, `--json` that parses, exit codes 0 / 1 / 2 and no colour when piped.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::{assert_plain, stdout_of};
use crate::support::{
    corpus_store, fixture_store, index_into, query_count, query_rows, run_esker,
    standalone_fixture, stderr_of,
};

fn esker_on(data_dir: &Path, command: &str, args: &[&str]) -> Output {
    let mut full = vec![command, "--data-dir", data_dir.to_str().unwrap()];
    full.extend_from_slice(args);
    run_esker(&full)
}

fn json_of(output: &Output) -> Value {
    assert!(output.status.success(), "{}", stderr_of(output));
    serde_json::from_str(&stdout_of(output)).expect("--json output parses")
}

fn hits(data: &Value) -> &Vec<Value> {
    data["results"].as_array().expect("results")
}

#[test]
fn search_shows_each_hit_with_its_open_command() {
    let store = fixture_store();
    let output = esker_on(store, "search", &["migration"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert_plain(&output);
    let text = stdout_of(&output);
    let data = json_of(&esker_on(store, "search", &["--json", "migration"]));
    assert!(!hits(&data).is_empty());
    for hit in hits(&data) {
        let event_id = hit["id"].as_str().unwrap();
        assert!(text.contains(&format!("esker show {event_id}")), "{text}");
        assert!(
            text.contains(
                hit["session"]["title"]
                    .as_str()
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
            )
        );
        let in_table = query_count(
            store,
            &format!("SELECT count(*) FROM events WHERE event_id = '{event_id}'"),
        );
        assert_eq!(in_table, 1);
    }
    assert!(text.contains("turn "), "{text}");
}

#[test]
fn search_filters_hold_and_nothing_found_exits_1() {
    let store = fixture_store();
    let all = json_of(&esker_on(store, "search", &["--json", "-n", "50", "the"]));
    assert!(!hits(&all).is_empty());
    for source in ["codex", "claude", "gemini"] {
        let filtered = json_of(&esker_on(
            store,
            "search",
            &["--json", "--source", source, "the"],
        ));
        let expected = hits(&all)
            .iter()
            .filter(|hit| hit["session"]["source"] == source)
            .count();
        assert_eq!(hits(&filtered).len(), expected.min(10), "{source}");
        assert!(
            hits(&filtered)
                .iter()
                .all(|hit| hit["session"]["source"] == source)
        );
    }
    let in_project = json_of(&esker_on(
        store,
        "search",
        &["--json", "--project", "parquet-indexer", "the"],
    ));
    for hit in hits(&in_project) {
        let session_id = hit["session"]["id"].as_str().unwrap();
        let rows = query_rows(
            store,
            &format!("SELECT project, cwd FROM sessions WHERE session_id = '{session_id}'"),
        );
        let row = serde_json::to_string(&rows[0]).unwrap();
        assert!(row.contains("parquet-indexer"), "{row}");
    }
    let long_ago = esker_on(store, "search", &["--json", "--until", "2000-01-01", "the"]);
    assert_eq!(long_ago.status.code(), Some(1));
    let long_ago: Value = serde_json::from_str(&stdout_of(&long_ago)).expect("JSON when empty");
    assert!(hits(&long_ago).is_empty());
    let nothing = esker_on(store, "search", &["zzqxjvnothingmatches"]);
    assert_eq!(nothing.status.code(), Some(1));
    let bad = esker_on(store, "search", &["--type", "debug_trace", "the"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr_of(&bad).contains("unsupported_event_type"),
        "{}",
        stderr_of(&bad)
    );
}

#[test]
fn show_renders_sessions_turns_and_events_readably() {
    let store = fixture_store();
    let rows = query_rows(
        store,
        "SELECT s.session_id, s.title, t.turn_id, t.user_input_text, t.user_input_event_id FROM sessions s JOIN turns t ON t.session_id = s.session_id WHERE t.ordinal = 1 AND t.user_input_text IS NOT NULL ORDER BY s.session_id LIMIT 3",
    );
    assert!(!rows.is_empty());
    for row in rows {
        let session_id = row["session_id"].as_str().unwrap();
        let prompt_start: String = row["user_input_text"]
            .as_str()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .chars()
            .take(30)
            .collect();
        let session = esker_on(store, "show", &[session_id]);
        assert_eq!(session.status.code(), Some(0), "{}", stderr_of(&session));
        assert_plain(&session);
        let text = stdout_of(&session);
        assert!(
            text.contains(&format!("# {}", row["title"].as_str().unwrap())),
            "{text}"
        );
        assert!(text.contains("## Turn 1"), "{text}");
        assert!(
            text.contains(prompt_start.trim()),
            "{prompt_start:?} not in {text}"
        );

        let turn = stdout_of(&esker_on(
            store,
            "show",
            &[row["turn_id"].as_str().unwrap()],
        ));
        assert!(turn.contains("> you"), "{turn}");
        let event = stdout_of(&esker_on(
            store,
            "show",
            &["--full", row["user_input_event_id"].as_str().unwrap()],
        ));
        assert!(event.contains(prompt_start.trim()), "{event}");

        let data = json_of(&esker_on(store, "show", &["--json", session_id]));
        assert_eq!(data["kind"], "session");
        assert_eq!(data["session"]["id"], session_id);
    }
    let missing = esker_on(store, "show", &["session:codex-nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr_of(&missing).contains("not_found"));
    let malformed = esker_on(store, "show", &["not-an-id"]);
    assert_eq!(malformed.status.code(), Some(2));
}

#[test]
fn show_chain_follows_continuations() {
    let store = fixture_store();
    let rows = query_rows(
        store,
        "SELECT session_id, next_session_id FROM sessions WHERE next_session_id IS NOT NULL LIMIT 1",
    );
    let Some(row) = rows.first() else {
        eprintln!("SKIPPED: the fixtures have no continuation chain");
        return;
    };
    let chain = json_of(&esker_on(
        store,
        "show",
        &["--chain", "--json", row["session_id"].as_str().unwrap()],
    ));
    let ids: Vec<&str> = chain
        .as_array()
        .unwrap()
        .iter()
        .map(|data| data["session"]["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() >= 2);
    assert_eq!(ids[1], row["next_session_id"].as_str().unwrap());
}

#[test]
fn sessions_lists_what_the_table_holds_newest_first() {
    let store = fixture_store();
    let total = query_count(
        store,
        "SELECT count(*) FROM sessions WHERE updated_at IS NOT NULL",
    );
    let data = json_of(&esker_on(store, "sessions", &["--json", "-n", "500"]));
    let listed = data["sessions"].as_array().unwrap();
    assert_eq!(listed.len() as i64, total);
    let expected = query_rows(
        store,
        "SELECT session_id FROM sessions WHERE updated_at IS NOT NULL ORDER BY updated_at DESC, session_id DESC",
    );
    let expected_ids: Vec<&str> = expected
        .iter()
        .map(|row| row["session_id"].as_str().unwrap())
        .collect();
    let listed_ids: Vec<&str> = listed
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed_ids, expected_ids);

    let table = esker_on(store, "sessions", &["-n", "3"]);
    assert_eq!(table.status.code(), Some(0));
    assert_plain(&table);
    let text = stdout_of(&table);
    assert!(text.starts_with("TITLE"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.contains(expected_ids[0]));

    let codex = json_of(&esker_on(
        store,
        "sessions",
        &["--json", "--source", "codex", "-n", "500"],
    ));
    let codex_count = query_count(
        store,
        "SELECT count(*) FROM sessions WHERE source = 'codex' AND updated_at IS NOT NULL",
    );
    assert_eq!(
        codex["sessions"].as_array().unwrap().len() as i64,
        codex_count
    );
    let none = esker_on(store, "sessions", &["--since", "2999-01-01"]);
    assert_eq!(none.status.code(), Some(1));
}

/// Whether the store has the token columns (they land with the fidelity issue).
fn has_token_columns(store: &Path) -> bool {
    let output = run_esker(&[
        "query",
        "--data-dir",
        store.to_str().unwrap(),
        "SELECT total_tokens FROM events LIMIT 1",
    ]);
    output.status.success()
}

fn assert_usage_matches_sql(store: &Path) {
    if !has_token_columns(store) {
        eprintln!("SKIPPED: events has no token columns yet; usage totals not checked");
        return;
    }
    let sql_total = query_rows(
        store,
        "SELECT coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output, coalesce(sum(total_tokens), 0) AS total FROM events",
    );
    for by in [
        "day", "week", "month", "session", "model", "source", "project",
    ] {
        let data = json_of(&esker_on(store, "usage", &["--json", "--by", by, "--cost"]));
        let total = &data["total"];
        assert_eq!(total["input_tokens"], sql_total[0]["input"], "{by}");
        assert_eq!(total["output_tokens"], sql_total[0]["output"], "{by}");
        assert_eq!(total["total_tokens"], sql_total[0]["total"], "{by}");
        let row_sum: i64 = data["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["total_tokens"].as_i64().unwrap())
            .sum();
        assert_eq!(row_sum, total["total_tokens"].as_i64().unwrap(), "{by}");
    }
    let by_source = json_of(&esker_on(store, "usage", &["--json", "--by", "source"]));
    for row in by_source["rows"].as_array().unwrap() {
        let source = row["key"].as_str().unwrap();
        let expected = query_count(
            store,
            &format!("SELECT coalesce(sum(total_tokens), 0) FROM events WHERE source = '{source}'"),
        );
        assert_eq!(row["total_tokens"].as_i64().unwrap(), expected, "{source}");
    }
    let table = esker_on(store, "usage", &["--by", "month"]);
    assert_plain(&table);
    assert!(stdout_of(&table).contains("TOTAL"));
}

#[test]
fn usage_totals_equal_the_sql_sums() {
    assert_usage_matches_sql(fixture_store());
}

#[test]
fn on_the_real_corpus_search_and_usage_agree_with_the_tables() {
    let Some((store, _)) = corpus_store() else {
        return;
    };
    let data = json_of(&esker_on(store, "search", &["--json", "-n", "20", "error"]));
    for hit in hits(&data) {
        let event_id = hit["id"].as_str().unwrap();
        let found = query_count(
            store,
            &format!("SELECT count(*) FROM events WHERE event_id = '{event_id}'"),
        );
        assert_eq!(found, 1);
    }
    let sessions = json_of(&esker_on(store, "sessions", &["--json", "-n", "5"]));
    assert_eq!(
        sessions["sessions"].as_array().unwrap().len() as i64,
        query_count(
            store,
            "SELECT least(count(*), 5) FROM sessions WHERE updated_at IS NOT NULL"
        )
    );
    assert_usage_matches_sql(store);
}

/// What `esker show EVENT` prints under `text` (up to the traversal lines), trimmed.
fn shown_text(output: &str) -> String {
    let mut lines = output.lines().skip_while(|line| *line != "text").skip(1);
    let body: Vec<&str> = lines
        .by_ref()
        .take_while(|line| {
            ![
                "previous: esker show",
                "next: esker show",
                "turn: esker show",
            ]
            .iter()
            .any(|traversal| line.starts_with(traversal))
        })
        .collect();
    body.join("\n").trim().to_owned()
}

/// `esker show` of every event id `esker search --json -n N QUERY` prints: each prints text.
fn assert_every_hit_shows_text(store: &Path, queries: &[&str], per_query: &str) -> Vec<String> {
    let mut shown = Vec::new();
    for query in queries {
        let output = esker_on(store, "search", &["--json", "-n", per_query, query]);
        if output.status.code() == Some(1) {
            continue;
        }
        for hit in hits(&json_of(&output)) {
            let event_id = hit["id"].as_str().unwrap();
            let show = esker_on(store, "show", &[event_id]);
            assert_eq!(show.status.code(), Some(0), "{}", stderr_of(&show));
            let text = stdout_of(&show);
            assert!(
                !shown_text(&text).is_empty(),
                "`esker show {event_id}` (a hit for {query:?}) prints no text:\n{text}"
            );
            shown.push(text);
        }
    }
    shown
}

/// Issue #48: a search for a tool's name finds its results even when they are empty (the
/// index holds the tool name with the text), and `esker show` printed nothing for them.
#[test]
fn show_prints_text_for_every_hit_even_a_tool_result_that_printed_nothing() {
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[&standalone_fixture("claude-resumed-chain")]);
    let shown = assert_every_hit_shows_text(data.path(), &["bash", "staged changes"], "50");
    let empty_result = shown
        .iter()
        .find(|text| text.contains("(no output)"))
        .unwrap_or_else(|| panic!("the empty `git diff --cached` result is a hit: {shown:#?}"));
    assert!(
        shown_text(empty_result).contains("call: Bash")
            && empty_result.contains("git diff --cached"),
        "{empty_result}"
    );

    // In a turn, the empty result is a line of its own.
    let rows = query_rows(
        data.path(),
        "SELECT turn_id FROM events WHERE type = 'tool_response' AND text = '' LIMIT 1",
    );
    let turn_id = rows[0]["turn_id"].as_str().unwrap();
    let turn = stdout_of(&esker_on(data.path(), "show", &[turn_id]));
    assert!(turn.contains("│ (no output)"), "{turn}");
}

#[test]
fn on_the_real_corpus_show_prints_text_for_every_hit() {
    let Some((store, _)) = corpus_store() else {
        return;
    };
    let queries = [
        "bash", "shell", "edit", "error", "test", "git", "install", "readme", "plan",
    ];
    let shown = assert_every_hit_shows_text(store, &queries, "10");
    assert!(shown.len() > 40, "only {} hits", shown.len());
}
