//! Third-party readers: DuckDB over the Parquet files and the Python MCP SDK against
//! `esker serve`. Skipped with a message when Python lacks the packages, unless
//! `ESKER_REQUIRE_PYTHON=1` (set by `.ci/run`), where a missing package fails.

use std::process::Command;

use crate::support::{esker_bin, fixture_store, manifest_dir};

pub(crate) fn python_has(module: &str) -> bool {
    let available = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|output| output.status.success());
    if !available {
        assert!(
            std::env::var("ESKER_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "python3 module {module} is required (ESKER_REQUIRE_PYTHON=1)"
        );
        eprintln!("SKIPPED: python3 module {module} not installed (pip install {module})");
    }
    available
}

pub(crate) fn run_python(script: &str, args: &[&str]) {
    let output = Command::new("python3")
        .arg(manifest_dir().join("tests").join("python").join(script))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{script} failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn duckdb_reads_the_partitioned_tables() {
    if python_has("duckdb") {
        run_python(
            "duckdb_check.py",
            &[fixture_store().to_str().expect("utf-8")],
        );
    }
}

#[test]
fn python_mcp_sdk_client_round_trip() {
    if python_has("mcp") {
        run_python(
            "mcp_client.py",
            &[esker_bin(), fixture_store().to_str().expect("utf-8")],
        );
    }
}
