//! Each table of a published dataset is a Delta Lake table (issue #54). Two machines publish
//! at the same time, twice (the second time after a commit on one of them), to a directory and
//! to S3 (moto); then the `deltalake` Python reader (delta-rs, an engine esker did not write)
//! reads the rows `esker query` and the local stores give, and at every version of every
//! table's log each machine holds exactly the files of one of its publishes, tagged with that
//! publish's generation: a reader never sees a torn state. A dataset published in the older
//! layout (manifest format 1: nanosecond files, no Delta log) stays readable beside a machine
//! that republished.

use std::collections::BTreeSet;
use std::process::Stdio;

use super::*;

/// Where a test publishes.
enum Target {
    Directory(PathBuf),
    S3 { moto: Moto, bucket: &'static str },
}

impl Target {
    fn url(&self) -> String {
        match self {
            Target::Directory(path) => format!("file://{}", utf8(path)),
            Target::S3 { bucket, .. } => format!("s3://{bucket}/esker"),
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        match self {
            Target::Directory(_) => Vec::new(),
            Target::S3 { moto, .. } => moto.env(),
        }
    }

    fn manifest(&self, machine: &str) -> Value {
        match self {
            Target::Directory(path) => {
                let text = std::fs::read(path.join("_manifests").join(format!("{machine}.json")))
                    .expect("manifest written");
                serde_json::from_slice(&text).expect("manifest JSON")
            }
            Target::S3 { moto, bucket } => {
                moto.manifest(bucket, &format!("esker/_manifests/{machine}.json"))
            }
        }
    }
}

/// `tests/python/delta_check.py URL ARGS...` (deltalake), its JSON answer.
fn delta_check(target: &Target, args: &[&str]) -> Value {
    let output = Command::new("python3")
        .arg(manifest_dir().join("tests/python/delta_check.py"))
        .arg(target.url())
        .args(args)
        .envs(target.env())
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "delta_check.py {args:?}: {}",
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).expect("delta_check.py prints JSON")
}

/// Both machines publish at the same time (two processes); returns each one's manifest.
fn publish_at_once(team: &Team, target: &Target) -> BTreeMap<String, Value> {
    let url = target.url();
    let env = target.env();
    let children: Vec<_> = team
        .machines()
        .iter()
        .map(|(machine, data_dir)| {
            let args = [
                "publish",
                "--data-dir",
                utf8(data_dir),
                "--machine",
                machine,
                &url,
            ];
            esker_command(&args, &env, &team.cache)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("esker runs")
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("publish ends");
        assert!(output.status.success(), "publish: {}", stderr(&output));
    }
    team.machines()
        .iter()
        .map(|(machine, _)| (machine.to_string(), target.manifest(machine)))
        .collect()
}

/// A publish as the Delta log must show it: the machine's files of `table` (paths under the
/// table's directory) and the generation.
fn published(manifest: &Value, table: &str) -> (BTreeSet<String>, u64) {
    let prefix = format!("{table}/");
    let files = manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|file| file["path"].as_str()?.strip_prefix(&prefix))
        .map(str::to_string)
        .collect();
    (files, manifest["generation"].as_u64().expect("generation"))
}

fn two_machines_publishing_at_once_make_delta_tables_every_reader_agrees_on(target: Target) {
    let team = Team::new();
    let first = publish_at_once(&team, &target);
    index_into(&team.alpha, &[&fixtures_dir().join("opencode")]);
    let rounds = [first, publish_at_once(&team, &target)];
    let url = target.url();
    let env = target.env();

    // deltalake reads what esker query and the local stores hold.
    let expected = local_counts(&team);
    assert_eq!(dataset_counts(&url, &env, &team.cache), expected);
    let mut args = vec!["counts"];
    args.extend(TABLES);
    let delta_counts: BTreeMap<String, BTreeMap<String, i64>> =
        serde_json::from_value(delta_check(&target, &args)).expect("counts");
    assert_eq!(delta_counts, expected, "deltalake's counts differ");
    let delta_ids: Vec<String> =
        serde_json::from_value(delta_check(&target, &["event-ids"])).expect("ids");
    assert_eq!(delta_ids, union_of_event_ids(&team));

    // Every version of every table: each machine holds exactly one publish's files.
    for table in TABLES {
        let history = delta_check(&target, &["versions", table]);
        let history = history.as_array().expect("versions");
        assert!(history.len() >= 3, "{table}: {} versions", history.len());
        for version in history {
            for (machine, files) in version["files"].as_object().expect("files") {
                let files: BTreeSet<String> = serde_json::from_value(files.clone()).expect("paths");
                let generation = version["txn"][machine].as_u64();
                let publish = rounds
                    .iter()
                    .map(|round| published(&round[machine.as_str()], table))
                    .find(|(published, _)| *published == files);
                let Some((_, published_generation)) = publish else {
                    panic!(
                        "{table} v{}: {machine} holds a torn set {files:?}",
                        version["version"]
                    );
                };
                assert_eq!(generation, Some(published_generation), "{table}: {version}");
            }
        }
        let latest = history.last().expect("a version");
        for (machine, manifest) in &rounds[1] {
            let (files, _) = published(manifest, table);
            let held: BTreeSet<String> =
                serde_json::from_value(latest["files"][machine.as_str()].clone()).expect("paths");
            assert_eq!(held, files, "{table}: {machine}'s latest files");
        }
    }

    // The schema engines see: timestamps in Delta's type, partitions machine first.
    let schema = delta_check(&target, &["schema", "events"]);
    assert_eq!(schema["columns"]["timestamp"], "timestamp", "{schema}");
    assert_eq!(schema["columns"]["event_id"], "string", "{schema}");
    assert_eq!(schema["partitions"], json!(["machine", "source", "month"]));

    // Publishing unchanged stores commits nothing.
    let before = delta_check(&target, &["versions", "events"]);
    for summary in publish(&team, &url, &env) {
        assert!(summary.contains("0 Delta table commit(s)"), "{summary}");
    }
    let after = delta_check(&target, &["versions", "events"]);
    assert_eq!(before, after, "an unchanged publish changed the log");
}

#[test]
fn two_machines_publish_delta_tables_to_a_directory_at_once() {
    if !python_has("deltalake") {
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    two_machines_publishing_at_once_make_delta_tables_every_reader_agrees_on(Target::Directory(
        root.path().join("dataset"),
    ));
}

#[test]
fn two_machines_publish_delta_tables_to_s3_at_once() {
    if !python_has("deltalake") {
        return;
    }
    let Some(moto) = Moto::start() else {
        return;
    };
    moto.create_bucket("delta");
    two_machines_publishing_at_once_make_delta_tables_every_reader_agrees_on(Target::S3 {
        moto,
        bucket: "delta",
    });
}

#[test]
fn a_dataset_in_the_older_layout_reads_beside_a_republished_machine() {
    let team = Team::new();
    let dataset = team.cache.join("dataset");
    // `alpha` republished with this esker; `beta` is as an esker of manifest format 1 left it:
    // its store files as they are (nanosecond timestamps), a format 1 manifest, no Delta log.
    succeed(
        &[
            "publish",
            "--data-dir",
            utf8(&team.alpha),
            "--machine",
            "alpha",
            utf8(&dataset),
        ],
        &[],
        &team.cache,
    );
    let current = team.beta.join("current");
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&current).sort_by_file_name() {
        let entry = entry.expect("walk");
        let path = entry.path();
        if path
            .extension()
            .is_none_or(|extension| extension != "parquet")
        {
            continue;
        }
        let relative = path.strip_prefix(&current).expect("under current");
        let mut parts: Vec<String> = relative
            .iter()
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        let table = parts.remove(0);
        if !TABLES.contains(&table.as_str()) && table != "memories" {
            continue;
        }
        parts.pop();
        let mut remote = vec![table, "machine=beta".to_string()];
        remote.extend(parts);
        // The older layout's name: `part-` and a hex content hash.
        remote.push(format!("part-{:032x}.parquet", files.len() + 0xbe7a));
        let remote = remote.join("/");
        let target = dataset.join(&remote);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("dirs");
        std::fs::copy(path, &target).expect("copied");
        let size = std::fs::metadata(&target).expect("size").len();
        files.push(json!({"path": remote, "size": size}));
    }
    assert!(
        !files.is_empty(),
        "beta has no files under {}",
        current.display()
    );
    let alpha_manifest: Value = serde_json::from_slice(
        &std::fs::read(dataset.join("_manifests/alpha.json")).expect("alpha's manifest"),
    )
    .expect("JSON");
    assert_eq!(alpha_manifest["manifest_format"], 2);
    let old = json!({"manifest_format": 1, "machine": "beta",
        "store_format": alpha_manifest["store_format"], "generation": 1,
        "published_at": "2026-12-01T00:00:00Z", "files": files});
    std::fs::write(dataset.join("_manifests/beta.json"), old.to_string()).expect("written");

    // esker query reads both layouts, timestamps equal to the local stores'.
    let url = format!("file://{}", utf8(&dataset));
    assert_eq!(dataset_counts(&url, &[], &team.cache), local_counts(&team));
    let times = "SELECT session_id, CAST(started_at AS VARCHAR) AS started, \
                 CAST(updated_at AS VARCHAR) AS updated FROM sessions ORDER BY session_id";
    let mut local: Vec<Value> = team
        .machines()
        .iter()
        .flat_map(|(_, data_dir)| rows_at(utf8(data_dir), times, &[], &team.cache))
        .collect();
    local.sort_by_key(|row| row["session_id"].as_str().unwrap_or_default().to_string());
    assert_eq!(rows_at(&url, times, &[], &team.cache), local);
    // A pull brings both back to a store's nanoseconds: the same rows.
    succeed(
        &["pull", "--data-dir", utf8(&team.pulled), &url],
        &[],
        &team.cache,
    );
    assert_eq!(rows_at(utf8(&team.pulled), times, &[], &team.cache), local);
    assert_eq!(
        event_ids(utf8(&team.pulled), &[], &team.cache),
        union_of_event_ids(&team)
    );
}
