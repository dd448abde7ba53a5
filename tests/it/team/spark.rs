//! Issue #54, "run on an existing distributed engine": two machines publish to one directory,
//! then Spark (pyspark, local mode; `tests/python/spark_check.py`) registers the tables from
//! the files of each Delta table's latest version (which must be those the manifests name)
//! and runs counts, token sums, whole-table reads and some of
//! esker's named queries, each compared row for row with `esker query` over the same dataset.
//! The same against a local S3 (moto): the machines publish to the bucket, `esker query`
//! reads the bucket, and Spark reads it through an s3fs (FUSE) mount, the S3A connector
//! (`hadoop-aws`, from Maven) being out of reach here.
//! Skipped with a message without Java (or s3fs and FUSE for the bucket), or without pyspark
//! unless `ESKER_REQUIRE_PYTHON=1` (set by `.ci/run`, which installs them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::moto::{Moto, SECRET};
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

    let (summary, stderr_text) = run_spark_check(&team, &dataset, None, &[]);
    assert!(
        stderr_text.contains("left out: machine old published store format 1"),
        "{stderr_text}"
    );
    assert_every_table_compared(
        &summary,
        &["events", "turns", "sessions", "file_touches", "memories"],
    );
}

#[test]
fn spark_reads_the_delta_tables_from_s3_with_the_rows_esker_query_gives() {
    if !java_present() || !python_has("pyspark") || !python_has("deltalake") {
        return;
    }
    let Some(moto) = Moto::start() else {
        return;
    };
    let env = moto.env();
    moto.create_bucket("spark");
    let team = Team::new();
    let url = "s3://spark/esker";
    publish(&team, url, &env);
    let Some(mount) = S3fsMount::mount("spark", &env) else {
        return;
    };
    let dataset = mount.path.join("esker");
    let (summary, _) = run_spark_check(&team, &dataset, Some(url), &env);
    assert_every_table_compared(&summary, &["events", "turns", "sessions", "file_touches"]);
}

/// Runs `spark_check.py` over `dataset` (a directory Spark reads), comparing with `esker
/// query` over `url` (default: the directory); returns its summary line and its stderr.
fn run_spark_check(
    team: &Team,
    dataset: &Path,
    url: Option<&str>,
    env: &[(String, String)],
) -> (Value, String) {
    let started = Instant::now();
    let mut command = Command::new("python3");
    command
        .arg(manifest_dir().join("tests/python/spark_check.py"))
        .arg(esker_bin())
        .arg(dataset)
        .arg(manifest_dir().join("queries"))
        .arg(manifest_dir().join("docs/TEAM.md"))
        .arg(esker::store::FORMAT_VERSION.to_string())
        .env("HOME", "/nonexistent-esker-test-home")
        .env("XDG_CACHE_HOME", &team.cache)
        .env_remove("ESKER_DATA_DIR")
        .env_remove("ESKER_CRASH_AT")
        .env_remove("ESKER_CHECK_URL")
        .envs(env.iter().map(|(name, value)| (name, value)));
    if let Some(url) = url {
        command.env("ESKER_CHECK_URL", url);
    }
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
    let summary: Value = serde_json::from_str(stdout.lines().last().expect("a summary line"))
        .expect("the summary is JSON");
    (summary, stderr(&output))
}

fn assert_every_table_compared(summary: &Value, tables: &[&str]) {
    let compared = summary["statements"].as_u64().expect("statements");
    assert!(compared >= 15, "only {compared} statements compared");
    assert!(summary["rows"].as_u64().expect("rows") > 0);
    for table in tables {
        assert!(
            summary["tables"][table]
                .as_u64()
                .is_some_and(|files| files > 0),
            "Spark registered no {table} files: {summary}"
        );
    }
}

/// A moto bucket mounted read-only with s3fs (FUSE) on a temporary directory; unmounted when
/// dropped. `None`, with a SKIPPED message, without s3fs or where FUSE mounts are refused.
struct S3fsMount {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl S3fsMount {
    fn mount(bucket: &str, env: &[(String, String)]) -> Option<S3fsMount> {
        let endpoint = env
            .iter()
            .find(|(name, _)| name == "AWS_ENDPOINT")
            .map(|(_, value)| value.clone())
            .expect("moto's endpoint");
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bucket");
        std::fs::create_dir(&path).expect("mount point");
        let passwords = dir.path().join("passwd");
        std::fs::write(&passwords, format!("testing:{SECRET}")).expect("passwd file");
        let mut permissions = std::fs::metadata(&passwords).expect("passwd").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o600);
        std::fs::set_permissions(&passwords, permissions).expect("passwd mode");
        let options = format!(
            "ro,passwd_file={},url={endpoint},use_path_request_style,stat_cache_expire=1",
            passwords.display()
        );
        let mounted = Command::new("s3fs")
            .arg(bucket)
            .arg(&path)
            .args(["-o", &options])
            .output();
        let problem = match mounted {
            Err(error) => Some(format!("s3fs does not run ({error}); install s3fs")),
            Ok(output) if !output.status.success() => Some(format!(
                "s3fs could not mount the bucket: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )),
            Ok(_) => None,
        };
        let mount = S3fsMount { path, _dir: dir };
        if problem.is_none() && mount.wait_until_listed() {
            return Some(mount);
        }
        eprintln!(
            "SKIPPED: Spark over S3 needs the bucket mounted with s3fs (FUSE): {}",
            problem.unwrap_or_else(|| "the mount never listed the bucket".to_owned())
        );
        None
    }

    /// Whether the mount lists the bucket's objects within 20 s (s3fs mounts in the background).
    fn wait_until_listed(&self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::fs::read_dir(self.path.join("esker"))
                .is_ok_and(|mut entries| entries.next().is_some())
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        false
    }
}

impl Drop for S3fsMount {
    fn drop(&mut self) {
        let unmounted = Command::new("fusermount")
            .arg("-u")
            .arg(&self.path)
            .status()
            .is_ok_and(|status| status.success());
        if !unmounted {
            let _ = Command::new("umount").arg(&self.path).status();
        }
    }
}
