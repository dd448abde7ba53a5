//! Team scale (issue 17): `esker publish` to an S3-compatible server (moto, started on
//! loopback per test and stopped after) from two data dirs as two machines, then `esker query`
//! over the bucket, pyarrow's S3 filesystem, idempotent re-publishing, a publish killed before
//! its manifest, `esker pull` + `esker serve` (MCP round trip), `search`/`sessions` over the
//! URL, `esker serve --data-dir URL` pulling again while it serves, and one-line errors for
//! bad endpoints and buckets. Publishing to a local directory needs no Python and always runs. `spark` runs the team's SQL on Spark (issue #54).

mod delta;
mod moto;
mod spark;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Map, Value, json};

use crate::mcp::client::{EskerClient, strings_at};
use crate::python::python_has;
use crate::support::{
    clear_harness_env, esker_bin, fixtures_dir, index_into, manifest_dir, query_rows, session_ids,
};
use moto::Moto;

const TABLES: [&str; 4] = ["events", "turns", "sessions", "file_touches"];

fn utf8(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Runs `esker` isolated from real history, with `env` added (the S3 settings).
fn esker(args: &[&str], env: &[(String, String)], cache: &Path) -> Output {
    esker_command(args, env, cache)
        .output()
        .expect("esker runs")
}

/// The `esker` command [`esker`] runs.
fn esker_command(args: &[&str], env: &[(String, String)], cache: &Path) -> Command {
    let mut command = Command::new(esker_bin());
    command
        .args(args)
        .env("HOME", "/nonexistent-esker-test-home")
        .env("XDG_CACHE_HOME", cache)
        .env_remove("ESKER_DATA_DIR")
        .env_remove("ESKER_CRASH_AT");
    for name in ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"] {
        command.env_remove(name);
    }
    clear_harness_env(&mut command);
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn succeed(args: &[&str], env: &[(String, String)], cache: &Path) -> Output {
    let output = esker(args, env, cache);
    assert!(
        output.status.success(),
        "esker {args:?} failed: {}",
        stderr(&output)
    );
    output
}

/// JSON rows of `esker query --format json` over a data dir or a URL.
fn rows_at(target: &str, sql: &str, env: &[(String, String)], cache: &Path) -> Vec<Value> {
    let output = succeed(
        &["query", "--data-dir", target, "--format", "json", sql],
        env,
        cache,
    );
    let text = String::from_utf8_lossy(&output.stdout);
    if text.trim().is_empty() {
        return Vec::new();
    }
    serde_json::from_str::<Vec<Value>>(text.trim()).expect("query output is a JSON array")
}

/// Two data dirs indexed from disjoint parts of the fixtures: the two machines of a team.
struct Team {
    _root: tempfile::TempDir,
    alpha: PathBuf,
    beta: PathBuf,
    cache: PathBuf,
    pulled: PathBuf,
}

impl Team {
    fn new() -> Team {
        let root = tempfile::tempdir().expect("temp dir");
        let path = |name: &str| root.path().join(name);
        let team = Team {
            alpha: path("alpha"),
            beta: path("beta"),
            cache: path("cache"),
            pulled: path("pulled"),
            _root: root,
        };
        let fixtures = fixtures_dir();
        index_into(
            &team.alpha,
            &[&fixtures.join("codex"), &fixtures.join("claude")],
        );
        index_into(
            &team.beta,
            &[
                &fixtures.join("gemini"),
                &fixtures.join("copilot"),
                &fixtures.join("cursor"),
            ],
        );
        team
    }

    fn machines(&self) -> [(&'static str, &Path); 2] {
        [("alpha", &self.alpha), ("beta", &self.beta)]
    }
}

/// Row count of each table by machine, from each local store (the expected union).
fn local_counts(team: &Team) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut counts: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for table in TABLES {
        for (machine, data_dir) in team.machines() {
            let rows = query_rows(data_dir, &format!("SELECT count(*) AS n FROM {table}"));
            let count = rows[0]["n"].as_i64().expect("a count");
            assert!(count > 0, "{machine} has no {table} rows");
            counts
                .entry(table.to_string())
                .or_default()
                .insert(machine.to_string(), count);
        }
    }
    counts
}

/// Row count of each table by machine over a published dataset.
fn dataset_counts(
    url: &str,
    env: &[(String, String)],
    cache: &Path,
) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut counts: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for table in TABLES {
        let sql = format!("SELECT machine, count(*) AS n FROM {table} GROUP BY machine");
        for row in rows_at(url, &sql, env, cache) {
            counts.entry(table.to_string()).or_default().insert(
                row["machine"].as_str().expect("machine").to_string(),
                row["n"].as_i64().expect("count"),
            );
        }
    }
    counts
}

fn event_ids(target: &str, env: &[(String, String)], cache: &Path) -> Vec<String> {
    rows_at(
        target,
        "SELECT event_id FROM events ORDER BY event_id",
        env,
        cache,
    )
    .into_iter()
    .map(|row| row["event_id"].as_str().expect("event_id").to_string())
    .collect()
}

fn union_of_event_ids(team: &Team) -> Vec<String> {
    let mut ids: Vec<String> = team
        .machines()
        .iter()
        .flat_map(|(_, data_dir)| event_ids(utf8(data_dir), &[], &team.cache))
        .collect();
    ids.sort();
    ids
}

fn publish(team: &Team, url: &str, env: &[(String, String)]) -> Vec<String> {
    team.machines()
        .iter()
        .map(|(machine, data_dir)| {
            let output = succeed(
                &[
                    "publish",
                    "--data-dir",
                    utf8(data_dir),
                    "--machine",
                    machine,
                    url,
                ],
                env,
                &team.cache,
            );
            stderr(&output)
        })
        .collect()
}

#[test]
fn publishing_to_a_local_directory_reads_back_as_the_union_of_the_machines() {
    let team = Team::new();
    let dataset = team.cache.join("dataset");
    let url = format!("file://{}", utf8(&team.cache).trim_end_matches('/')) + "/dataset";
    publish(&team, utf8(&dataset), &[]);
    // A machine still on an older esker is left out with a warning, not an error.
    let old_manifest = json!({"manifest_format": 1, "machine": "old", "store_format": 1,
        "generation": 1, "published_at": "2026-01-01T00:00:00Z",
        "files": [{"path": "sessions/machine=old/part-00.parquet", "size": 1}]});
    std::fs::write(
        dataset.join("_manifests").join("old.json"),
        old_manifest.to_string(),
    )
    .expect("manifest written");
    let warned = succeed(&["query", "--data-dir", &url, "SELECT 1"], &[], &team.cache);
    assert!(
        stderr(&warned).contains("machine old published store format 1"),
        "{}",
        stderr(&warned)
    );
    assert_eq!(dataset_counts(&url, &[], &team.cache), local_counts(&team));
    assert_eq!(event_ids(&url, &[], &team.cache), union_of_event_ids(&team));
    let layout = dataset.join("events").join("machine=alpha");
    assert!(layout.is_dir(), "no {}", layout.display());
    assert!(dataset.join("_manifests").join("beta.json").is_file());
    // DuckDB reads the layout as docs/TEAM.md shows (over a directory; httpfs is not tested).
    if python_has("duckdb") {
        let output = Command::new("python3")
            .arg(manifest_dir().join("tests/python/duckdb_dataset_counts.py"))
            .arg(&dataset)
            .args(TABLES)
            .output()
            .expect("python3 runs");
        assert!(output.status.success(), "{}", stderr(&output));
        let counts: BTreeMap<String, BTreeMap<String, i64>> =
            serde_json::from_slice(&output.stdout).expect("counts JSON");
        assert_eq!(counts, local_counts(&team), "DuckDB's counts differ");
    }
}

#[test]
fn a_team_publishes_to_s3_and_every_reader_sees_both_machines() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let team = Team::new();
    let env = moto.env();
    moto.create_bucket("team");
    let url = "s3://team/esker";
    let first = publish(&team, url, &env);
    for summary in &first {
        assert!(summary.contains("manifest written"), "{summary}");
    }

    // esker query over the bucket equals the union of the local stores.
    let expected = local_counts(&team);
    assert_eq!(dataset_counts(url, &env, &team.cache), expected);
    assert_eq!(event_ids(url, &env, &team.cache), union_of_event_ids(&team));

    // pyarrow's S3 filesystem (an engine we did not write) reads the same rows.
    if let Some(counts) = moto.pyarrow_counts("team/esker", &TABLES) {
        assert_eq!(counts, expected, "pyarrow's counts differ from esker's");
    }

    // Re-publishing uploads nothing and rewrites nothing.
    let before = moto.objects("team");
    for summary in publish(&team, url, &env) {
        assert!(
            summary.contains("uploaded 0 (0 bytes)") && summary.contains("manifest unchanged"),
            "{summary}"
        );
    }
    assert_eq!(
        moto.objects("team"),
        before,
        "re-publishing changed objects"
    );

    // `pull` builds a store that `serve` answers from, for hits of either machine.
    succeed(
        &["pull", "--data-dir", utf8(&team.pulled), url],
        &env,
        &team.cache,
    );
    let pulled_ids = event_ids(utf8(&team.pulled), &[], &team.cache);
    assert_eq!(pulled_ids, union_of_event_ids(&team));
    let again = succeed(
        &["pull", "--data-dir", utf8(&team.pulled), url],
        &env,
        &team.cache,
    );
    assert!(stderr(&again).contains("up to date"), "{}", stderr(&again));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client = EskerClient::start(&team.pulled).await;
        for (machine, data_dir) in team.machines() {
            let (event_id, session_id, word) = distinctive_event(data_dir);
            let data = client
                .search(json!({"query": word, "within_id": session_id, "n_hits": 50}))
                .await;
            let hits: Vec<&str> = data["results"]
                .as_array()
                .expect("results")
                .iter()
                .filter_map(|hit| hit["id"].as_str())
                .collect();
            assert!(
                hits.contains(&event_id.as_str()),
                "{machine}'s event {event_id} not found for {word:?}: {hits:?}"
            );
            let opened = client.open(&event_id).await;
            assert_eq!(opened["event"]["id"], event_id.as_str(), "{opened}");
        }
    });

    // `search` and `sessions` take the URL too (through a pulled cache).
    for (machine, data_dir) in team.machines() {
        let (event_id, session_id, word) = distinctive_event(data_dir);
        let output = succeed(
            &["search", "--data-dir", url, "--json", "-n", "50", &word],
            &env,
            &team.cache,
        );
        let found: Value = serde_json::from_slice(&output.stdout).expect("search JSON");
        let text = found.to_string();
        assert!(
            text.contains(&event_id) || text.contains(&session_id),
            "{machine}: search {word:?} over the URL found neither {event_id} nor {session_id}"
        );
    }
    let output = succeed(
        &["sessions", "--data-dir", url, "--json", "-n", "500"],
        &env,
        &team.cache,
    );
    let listed: Value = serde_json::from_slice(&output.stdout).expect("sessions JSON");
    let listed_ids: Vec<String> = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|session| Some(session["id"].as_str()?.to_string()))
        .collect();
    for (machine, data_dir) in team.machines() {
        let sessions = query_rows(data_dir, "SELECT session_id FROM sessions");
        assert!(
            sessions
                .iter()
                .any(|row| listed_ids.iter().any(|id| row["session_id"] == id.as_str())),
            "`esker sessions --data-dir URL` lists no session of {machine}: {listed_ids:?}"
        );
    }
}

#[test]
fn a_publish_killed_before_its_manifest_leaves_readers_on_the_previous_one() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let env = moto.env();
    moto.create_bucket("crash");
    let url = "s3://crash/team";
    let root = tempfile::tempdir().expect("temp dir");
    let (data_dir, cache) = (root.path().join("store"), root.path().join("cache"));
    let fixtures = fixtures_dir();
    index_into(&data_dir, &[&fixtures.join("codex")]);
    let publish_args = [
        "publish",
        "--data-dir",
        utf8(&data_dir),
        "--machine",
        "m1",
        url,
    ];
    succeed(&publish_args, &env, &cache);
    let published = event_ids(url, &env, &cache);
    assert_eq!(published, event_ids(utf8(&data_dir), &[], &cache));
    let objects_published = moto.objects("crash").len();
    let pulled = root.path().join("pulled");
    let pull_args = ["pull", "--data-dir", utf8(&pulled), url];
    succeed(&pull_args, &env, &cache);
    assert_eq!(event_ids(utf8(&pulled), &[], &cache), published);

    // A new commit, then a publish that dies after its first upload.
    index_into(&data_dir, &[&fixtures.join("claude")]);
    let mut crash_env = env.clone();
    crash_env.push((
        "ESKER_CRASH_AT".to_string(),
        "publish-after-upload:1".to_string(),
    ));
    let mut command = Command::new(esker_bin());
    command
        .args(publish_args)
        .env("HOME", "/nonexistent-esker-test-home")
        .envs(crash_env.iter().map(|(name, value)| (name, value)));
    let crashed = command.output().expect("esker runs");
    assert!(!crashed.status.success(), "the publish did not crash");
    assert_eq!(
        moto.objects("crash").len(),
        objects_published + 1,
        "the killed publish should have uploaded exactly one file"
    );
    assert_eq!(
        event_ids(url, &env, &cache),
        published,
        "readers must stay on the previous manifest"
    );

    // The next publish completes it and removes what no manifest names (no retention here:
    // `replaced_files_stay_for_readers_until_their_retention_ends` tests the default).
    let mut at_once = publish_args.to_vec();
    at_once.extend(["--keep-replaced", "0"]);
    succeed(&at_once, &env, &cache);
    let local = event_ids(utf8(&data_dir), &[], &cache);
    assert!(local.len() > published.len());
    assert_eq!(event_ids(url, &env, &cache), local);
    let manifest = moto.manifest_files("crash", "team/_manifests/m1.json");
    let data_objects = moto
        .objects("crash")
        .into_keys()
        .filter(|key| !key.contains("_manifests") && !key.contains("_delta_log"))
        .count();
    assert_eq!(data_objects, manifest, "stale objects left behind");

    // An incremental pull downloads only the new files and reaches the same events.
    let pulled_again = stderr(&succeed(&pull_args, &env, &cache));
    let downloaded = pulled_again
        .split("downloaded ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|count| count.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no download count in {pulled_again}"));
    assert!(
        downloaded > 0 && downloaded < manifest,
        "downloaded {downloaded} of {manifest} files: {pulled_again}"
    );
    assert_eq!(event_ids(utf8(&pulled), &[], &cache), local);
}

#[test]
fn unreachable_endpoints_wrong_credentials_and_missing_buckets_are_one_line_errors() {
    let root = tempfile::tempdir().expect("temp dir");
    let (data_dir, cache) = (root.path().join("store"), root.path().join("cache"));
    index_into(&data_dir, &[&fixtures_dir().join("codex")]);
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let unreachable = moto::s3_env(&format!("http://127.0.0.1:{closed_port}"));
    let mut cases = vec![(unreachable, "s3://bucket/prefix")];
    let moto = Moto::start();
    if let Some(moto) = &moto {
        cases.push((moto.env(), "s3://no-such-bucket/prefix"));
    }
    // Credentials the server does not know (its one unchecked request creates the bucket).
    let checking = Moto::start_checking_credentials();
    if let Some(checking) = &checking {
        checking.create_bucket("guarded");
        cases.push((checking.env(), "s3://guarded/prefix"));
    }
    for (env, url) in &cases {
        let url: &str = url;
        for args in [
            vec!["publish", "--data-dir", utf8(&data_dir), url],
            vec!["query", "--data-dir", url, "SELECT 1"],
            vec!["pull", "--data-dir", utf8(&root.path().join("pulled")), url],
        ] {
            let output = esker(&args, env, &cache);
            let text = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
            let lines: Vec<&str> = text.lines().filter(|line| !line.is_empty()).collect();
            assert_eq!(lines.len(), 1, "{args:?}: not one line: {text}");
            assert!(
                lines[0].starts_with("esker: cannot use s3://"),
                "{args:?}: {text}"
            );
            assert!(!text.contains(moto::SECRET), "a secret was printed");
        }
    }
    if let Some(moto) = &moto {
        assert!(
            moto.objects_of_all_buckets().is_empty(),
            "something was written"
        );
    }
}

/// An event of `data_dir` with a word of 7+ letters: (event id, session id, word).
fn distinctive_event(data_dir: &Path) -> (String, String, String) {
    let rows = query_rows(
        data_dir,
        "SELECT event_id, session_id, text FROM events WHERE type = 'user_input' \
         AND character_length(text) > 20 ORDER BY event_id",
    );
    rows.iter()
        .find_map(|row: &Map<String, Value>| {
            let text = row["text"].as_str()?;
            let word = text
                .split(|character: char| !character.is_ascii_alphabetic())
                .filter(|word| word.len() >= 7)
                .max_by_key(|word| word.len())?
                .to_lowercase();
            Some((
                row["event_id"].as_str()?.to_string(),
                row["session_id"].as_str()?.to_string(),
                word,
            ))
        })
        .expect("a user_input event with a long word")
}

/// `esker serve --data-dir URL` pulls the dataset into a cache store and serves it (here over
/// stdio; `--http` serves the same store), then pulls again while it serves: a machine that
/// publishes after the server started is answered without a restart.
#[test]
fn serve_over_a_dataset_url_keeps_pulling_what_machines_publish() {
    let team = Team::new();
    let dataset = team.cache.join("dataset");
    let url = format!("file://{}", utf8(&dataset));
    let publish_as = |machine: &str, data_dir: &Path| {
        succeed(
            &[
                "publish",
                "--data-dir",
                utf8(data_dir),
                "--machine",
                machine,
                utf8(&dataset),
            ],
            &[],
            &team.cache,
        );
    };
    publish_as("alpha", &team.alpha);
    let alpha = session_ids(&team.alpha);
    let mut both = [alpha.clone(), session_ids(&team.beta)].concat();
    both.sort();
    let home = team.cache.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client =
            EskerClient::start_with(Path::new(&url), &["--pull-every", "1"], utf8(&home)).await;
        let listed = || async {
            let window = json!({"start_datetime": "2000-01-01T00:00:00Z",
                                "end_datetime": "2100-01-01T00:00:00Z", "limit": 50});
            let mut ids = strings_at(&client.list(window).await["sessions"], "/id");
            ids.sort();
            ids
        };
        assert_eq!(listed().await, alpha, "the first pull holds alpha only");
        publish_as("beta", &team.beta);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        loop {
            let now = listed().await;
            if now == both {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "beta's sessions never served: {now:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    });
    assert!(
        home.join(".cache").join("esker").join("datasets").is_dir()
            || std::env::var_os("XDG_CACHE_HOME").is_some(),
        "the dataset was pulled into the cache under HOME"
    );
}

/// The files a publish replaces stay in the dataset, listed as `retired` in the manifest, for
/// readers still on the previous Delta version or manifest (an hour by default); a publish
/// with `--keep-replaced 0` deletes them.
#[test]
fn replaced_files_stay_for_readers_until_their_retention_ends() {
    let root = tempfile::tempdir().expect("temp dir");
    let logs = root.path().join("logs");
    crate::support::copy_tree(&fixtures_dir().join("codex"), &logs);
    let (data_dir, dataset, cache) = (
        root.path().join("data"),
        root.path().join("dataset"),
        root.path().join("cache"),
    );
    index_into(&data_dir, &[&logs]);
    let publish_args = [
        "publish",
        "--data-dir",
        utf8(&data_dir),
        "--machine",
        "m1",
        utf8(&dataset),
    ];
    succeed(&publish_args, &[], &cache);
    let first = manifest_paths(&dataset, "files");

    // A session grows (its last line again): the files holding its rows are rewritten.
    let rollout = walkdir::WalkDir::new(&logs)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .expect("a rollout");
    let text = std::fs::read_to_string(&rollout).expect("rollout");
    let last = text.lines().last().expect("a line").to_owned();
    std::fs::write(&rollout, format!("{text}{last}\n")).expect("appended");
    index_into(&data_dir, &[&logs]);
    succeed(&publish_args, &[], &cache);
    let live = manifest_paths(&dataset, "files");
    let retired = manifest_paths(&dataset, "retired");
    let replaced: Vec<String> = first
        .iter()
        .filter(|path| !live.contains(path))
        .cloned()
        .collect();
    assert!(!replaced.is_empty(), "the growing session rewrote no file");
    assert_eq!(retired, replaced, "every replaced file is kept and listed");
    for path in live.iter().chain(&retired) {
        assert!(dataset.join(path).is_file(), "{path} is gone");
    }

    let mut at_once = publish_args.to_vec();
    at_once.extend(["--keep-replaced", "0"]);
    succeed(&at_once, &[], &cache);
    assert!(manifest_paths(&dataset, "retired").is_empty());
    assert_eq!(manifest_paths(&dataset, "files"), live);
    for path in &retired {
        assert!(
            !dataset.join(path).exists(),
            "{path} was kept past its retention"
        );
    }
}

/// The sorted paths of a machine-`m1` manifest's `field` (`files` or `retired`).
fn manifest_paths(dataset: &Path, field: &str) -> Vec<String> {
    let text = std::fs::read(dataset.join("_manifests").join("m1.json")).expect("manifest");
    let manifest: Value = serde_json::from_slice(&text).expect("manifest JSON");
    let mut paths: Vec<String> = manifest[field]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|file| file["path"].as_str().expect("a path").to_owned())
        .collect();
    paths.sort();
    paths
}

/// The `generation` of a machine's manifest in a dataset directory, once it exists.
fn manifest_generation(dataset: &Path, machine: &str) -> Option<u64> {
    let text = std::fs::read(dataset.join("_manifests").join(format!("{machine}.json"))).ok()?;
    serde_json::from_slice::<Value>(&text).ok()?["generation"].as_u64()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[test]
fn publish_watch_publishes_again_after_each_commit() {
    let root = tempfile::tempdir().expect("temp dir");
    let (data_dir, dataset) = (root.path().join("store"), root.path().join("dataset"));
    let fixtures = fixtures_dir();
    index_into(&data_dir, &[&fixtures.join("codex")]);
    let mut watcher = Command::new(esker_bin())
        .args(["publish", "--watch", "--machine", "w", "--data-dir"])
        .args([&data_dir, &dataset])
        .env("HOME", "/nonexistent-esker-test-home")
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("esker publish --watch starts");
    wait_for("the first publish", || {
        manifest_generation(&dataset, "w").is_some()
    });
    let first = manifest_generation(&dataset, "w").expect("a manifest");
    index_into(&data_dir, &[&fixtures.join("claude")]);
    wait_for("a publish of the new commit", || {
        manifest_generation(&dataset, "w").is_some_and(|generation| generation > first)
    });
    let _ = watcher.kill();
    let _ = watcher.wait();
    let url = format!("file://{}", utf8(&dataset));
    assert_eq!(
        event_ids(&url, &[], root.path()),
        event_ids(utf8(&data_dir), &[], root.path())
    );
}

/// The `esker pull … && esker serve …` line of README's "Team setup", as words.
fn readme_pull_and_serve() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).expect("README.md");
    let section = readme
        .split("## Team setup")
        .nth(1)
        .expect("a Team setup section");
    let line = section
        .lines()
        .find(|line| line.starts_with("esker pull "))
        .expect("an `esker pull` line in Team setup");
    line.split(" && ")
        .map(|command| command.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// Runs `esker` with `home` as HOME and `env` added, from `cwd`.
fn esker_at_home(args: &[&str], home: &Path, env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(esker_bin());
    command
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env_remove("ESKER_DATA_DIR")
        .env_remove("XDG_DATA_HOME")
        .env("XDG_CACHE_HOME", home.join(".cache"));
    clear_harness_env(&mut command);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("esker runs");
    assert!(
        output.status.success(),
        "esker {args:?} failed: {}",
        stderr(&output)
    );
    output
}

/// Issue #48: README's team commands as written — publish to a directory, then its
/// `esker pull … && esker serve --no-index --data-dir …` line — give a server that finds the
/// published sessions; and `esker pull URL` with no `--data-dir` builds the store beside the
/// data dir, which `serve` answers from, even when the data dir is given with a trailing slash
/// (it used to build `<data dir>/-team`, inside the store).
#[test]
fn the_readme_team_commands_pull_a_store_that_serve_answers_from() {
    let root = tempfile::tempdir().expect("temp dir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let dataset = root.path().join("dataset");
    let codex_logs = fixtures_dir().join("codex");
    esker_at_home(&["index", utf8(&codex_logs)], &home, &[]);
    esker_at_home(&["publish", utf8(&dataset)], &home, &[]);

    // README: `esker pull --data-dir DIR URL && esker serve --no-index --data-dir DIR`, the
    // bucket URL replaced by the directory and `~` by HOME.
    let expand = |word: &str| -> String {
        if word.starts_with("s3://") {
            utf8(&dataset).to_owned()
        } else if let Some(rest) = word.strip_prefix("~/") {
            utf8(&home.join(rest)).to_owned()
        } else {
            word.to_owned()
        }
    };
    let commands = readme_pull_and_serve();
    assert_eq!(commands.len(), 2, "{commands:?}");
    let pull: Vec<String> = commands[0][1..].iter().map(|word| expand(word)).collect();
    assert_eq!(pull[0], "pull", "{commands:?}");
    let pull_args: Vec<&str> = pull.iter().map(String::as_str).collect();
    esker_at_home(&pull_args, &home, &[]);
    let serve: Vec<String> = commands[1][1..].iter().map(|word| expand(word)).collect();
    assert_eq!(serve[0], "serve", "{commands:?}");
    let data_dir_at = serve
        .iter()
        .position(|word| word == "--data-dir")
        .expect("serve names its --data-dir");
    let served = PathBuf::from(&serve[data_dir_at + 1]);
    let other_args: Vec<&str> = serve[1..]
        .iter()
        .enumerate()
        .filter(|(index, _)| *index + 1 != data_dir_at && *index + 1 != data_dir_at + 1)
        .map(|(_, word)| word.as_str())
        .collect();

    // The default: `esker pull URL` beside a data dir named with a trailing slash.
    let slashed = format!("{}/", utf8(&root.path().join("store")));
    let slashed_dir = PathBuf::from(&slashed);
    esker_at_home(
        &["pull", utf8(&dataset)],
        &home,
        &[("ESKER_DATA_DIR", slashed_dir.as_path())],
    );
    let beside = root.path().join("store-team");
    assert!(
        !root.path().join("store").join("-team").exists(),
        "pulled into the data dir"
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        for data_dir in [&served, &beside] {
            let client = EskerClient::start_with(data_dir, &other_args, utf8(&home)).await;
            let data = client
                .search(json!({"query": "parquet", "n_hits": 5}))
                .await;
            assert!(
                data["result_count"].as_u64().is_some_and(|count| count > 0),
                "{}: {data:#}",
                data_dir.display()
            );
        }
    });
}
