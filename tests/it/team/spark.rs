//! Issue #54, "run on an existing distributed engine": two machines publish to one directory,
//! then Spark (pyspark, local mode; `tests/python/spark_check.py`) registers the tables from
//! the files of each Delta table's latest version (which must be those the manifests name)
//! and runs counts, token sums, whole-table reads and some of
//! esker's named queries, each compared row for row with `esker query` over the same dataset.
//! Skipped with a message without Java, or without pyspark unless `ESKER_REQUIRE_PYTHON=1`
//! (set by `.ci/run`, which installs both).

use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use super::{Team, publish, stderr, succeed, utf8};
use crate::python::python_has;
use crate::support::{clear_harness_env, esker_bin, manifest_dir};

/// Whether a Java runtime answers `java -version`. Its absence skips the test even with
/// `ESKER_REQUIRE_PYTHON=1`: Java is a system package, not a Python one (`.ci/run` installs
/// Debian's `openjdk-17-jre-headless` where it can).
fn java_present() -> bool {
    let present = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !present {
        eprintln!(
            "SKIPPED: no Java runtime (`java -version` fails), which Spark needs; install \
             openjdk-17-jre-headless (ESKER_REQUIRE_PYTHON=1 does not require Java)"
        );
    }
    present
}

/// The first file a machine's manifest names under `prefix` (dataset-relative).
fn manifest_file(dataset: &std::path::Path, machine: &str, prefix: &str) -> String {
    let path = dataset.join("_manifests").join(format!("{machine}.json"));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("manifest JSON");
    manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|file| file["path"].as_str().expect("path").to_string())
        .find(|file| file.starts_with(prefix))
        .unwrap_or_else(|| panic!("{machine} published no {prefix} file"))
}

#[test]
fn spark_reads_the_delta_tables_with_the_rows_esker_query_gives() {
    if !java_present() || !python_has("pyspark") || !python_has("deltalake") {
        return;
    }
    let team = Team::new();
    // A memory entry on beta, so the `memories` table is published and compared too.
    succeed(
        &[
            "memory",
            "add",
            "--data-dir",
            utf8(&team.beta),
            "--project",
            "api",
            "--type",
            "decision",
            "The team reads the published tables with Spark.",
        ],
        &[],
        &team.cache,
    );
    let dataset = team.cache.join("dataset");
    publish(&team, utf8(&dataset), &[]);

    // Files no current manifest names, as an old generation or a publish in progress leaves
    // them: a copy of a listed events file and of a listed sessions file beside the originals,
    // and a machine on another store format whose manifest names a file that is not there.
    // A directory listing would read the copies (and fail on the missing file).
    for prefix in ["events/", "sessions/"] {
        let listed = manifest_file(&dataset, "alpha", prefix);
        let stray = listed.replace("part-", "part-0000stale");
        std::fs::copy(dataset.join(&listed), dataset.join(&stray)).expect("a stray copy");
    }
    let old_manifest = json!({"manifest_format": 1, "machine": "old", "store_format": 1,
        "generation": 1, "published_at": "2026-01-01T00:00:00Z",
        "files": [{"path": "sessions/machine=old/part-00.parquet", "size": 1}]});
    std::fs::write(
        dataset.join("_manifests").join("old.json"),
        old_manifest.to_string(),
    )
    .expect("manifest written");

    let started = Instant::now();
    let mut command = Command::new("python3");
    command
        .arg(manifest_dir().join("tests/python/spark_check.py"))
        .arg(esker_bin())
        .arg(&dataset)
        .arg(manifest_dir().join("queries"))
        .arg(manifest_dir().join("docs/TEAM.md"))
        .arg(esker::store::FORMAT_VERSION.to_string())
        .env("HOME", "/nonexistent-esker-test-home")
        .env("XDG_CACHE_HOME", &team.cache)
        .env_remove("ESKER_DATA_DIR")
        .env_remove("ESKER_CRASH_AT");
    clear_harness_env(&mut command);
    let output = command.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "spark_check.py failed\nstdout:\n{stdout}\nstderr:\n{}",
        stderr(&output)
    );
    eprintln!(
        "spark_check.py took {:.1} s\n{stdout}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        stderr(&output).contains("left out: machine old published store format 1"),
        "{}",
        stderr(&output)
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().expect("a summary line"))
        .expect("the summary is JSON");
    let compared = summary["statements"].as_u64().expect("statements");
    assert!(compared >= 15, "only {compared} statements compared");
    assert!(summary["rows"].as_u64().expect("rows") > 0);
    for table in ["events", "turns", "sessions", "file_touches", "memories"] {
        assert!(
            summary["tables"][table]
                .as_u64()
                .is_some_and(|files| files > 0),
            "Spark registered no {table} files: {summary}"
        );
    }
}
