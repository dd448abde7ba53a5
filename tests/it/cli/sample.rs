//! First run on a machine with no agent history: the bundled sample goes to its own store,
//! every reader says it shows sample data, and once real history is indexed no sample session
//! remains in the default store (issue 18).

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::support::{fixtures_dir, stderr_of};

/// A Codex session of its own: a fixture rollout under a new session id.
fn write_real_codex_history(home: &Path) {
    let fixture = fixtures_dir().join(
        "codex/sessions/2026/03/14/rollout-2026-03-14T10-00-00-019cebc9-d900-7a4c-9123-b1612dd272d1.jsonl",
    );
    let real_id = "11111111-2222-4333-8444-555555555555";
    let text = fs::read_to_string(fixture)
        .expect("fixture readable")
        .replace("019cebc9-d900-7a4c-9123-b1612dd272d1", real_id);
    let day = home.join(".codex/sessions/2026/03/14");
    fs::create_dir_all(&day).unwrap();
    fs::write(
        day.join(format!("rollout-2026-03-14T10-00-00-{real_id}.jsonl")),
        text,
    )
    .unwrap();
}

fn session_ids(home: &Path) -> (Vec<String>, String) {
    let output = esker_at_home(
        home,
        &[
            "query",
            "--format",
            "json",
            "SELECT session_id FROM sessions ORDER BY session_id",
        ],
    );
    assert!(output.status.success(), "{}", stderr_of(&output));
    let rows: Value = serde_json::from_str(stdout_of(&output).trim()).expect("JSON rows");
    let ids = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["session_id"].as_str().unwrap().to_owned())
        .collect();
    (ids, stderr_of(&output))
}

#[test]
fn the_sample_never_pollutes_the_real_store() {
    let home = tempfile::tempdir().unwrap();
    let data_dir = home.path().join(".local/share/esker");
    let sample_dir = home.path().join(".local/share/esker-sample");

    let first = esker_at_home(home.path(), &["index", "-q"]);
    assert!(first.status.success(), "{}", stderr_of(&first));
    assert!(
        stderr_of(&first).contains("SAMPLE"),
        "{}",
        stderr_of(&first)
    );
    assert!(sample_dir.join("ESKER_SAMPLE_STORE").is_file());
    assert!(!data_dir.exists(), "the sample went into the real data dir");

    let (sample_sessions, notice) = session_ids(home.path());
    assert!(!sample_sessions.is_empty());
    assert!(
        notice.contains("SAMPLE"),
        "readers must say they show sample data: {notice}"
    );
    let listed = esker_at_home(home.path(), &["sessions", "--json"]);
    assert!(stderr_of(&listed).contains("SAMPLE"));

    write_real_codex_history(home.path());
    let second = esker_at_home(home.path(), &["index", "-q"]);
    assert!(second.status.success(), "{}", stderr_of(&second));
    assert!(!stderr_of(&second).contains("indexing the bundled SAMPLE"));
    assert!(
        !sample_dir.exists(),
        "the sample store outlived real history"
    );

    let (real_sessions, notice) = session_ids(home.path());
    assert_eq!(
        real_sessions,
        ["session:codex-11111111-2222-4333-8444-555555555555"]
    );
    assert!(!notice.contains("SAMPLE"), "{notice}");
    for sample_session in &sample_sessions {
        assert!(!real_sessions.contains(sample_session));
    }
    let search = esker_at_home(home.path(), &["search", "--json", "-n", "50", "migration"]);
    let data: Value = serde_json::from_str(&stdout_of(&search)).expect("search JSON");
    for hit in data["results"].as_array().unwrap() {
        assert_eq!(hit["session"]["id"], real_sessions[0].as_str());
    }
}

#[test]
fn a_real_store_without_history_gets_no_sample() {
    let home = tempfile::tempdir().unwrap();
    write_real_codex_history(home.path());
    assert!(
        esker_at_home(home.path(), &["index", "-q"])
            .status
            .success()
    );
    fs::remove_dir_all(home.path().join(".codex")).unwrap();
    let again = esker_at_home(home.path(), &["index", "-q"]);
    assert!(again.status.success(), "{}", stderr_of(&again));
    assert!(stderr_of(&again).contains("no agent history found"));
    assert!(!home.path().join(".local/share/esker-sample").exists());
}

#[test]
fn an_installed_binary_outside_a_checkout_indexes_the_sample_built_into_it() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        super::esker_command(home.path(), args)
            .current_dir(home.path())
            .output()
            .expect("esker binary runs")
    };
    let first = run(&["index", "-q"]);
    assert!(first.status.success(), "{}", stderr_of(&first));
    assert!(
        stderr_of(&first).contains("SAMPLE"),
        "{}",
        stderr_of(&first)
    );
    let unpacked = home.path().join(".local/share/esker-sample-corpus");
    assert!(
        unpacked.join("claude").is_dir(),
        "the built-in sample was not unpacked"
    );
    let (sessions, _) = session_ids(home.path());
    assert!(sessions.len() > 10, "{sessions:?}");
    let search = run(&["search", "--json", "parquet migration"]);
    assert!(search.status.success(), "{}", stderr_of(&search));

    write_real_codex_history(home.path());
    let second = run(&["index", "-q"]);
    assert!(second.status.success(), "{}", stderr_of(&second));
    assert!(
        !unpacked.exists(),
        "the unpacked sample outlived real history"
    );
}
