//! The `memory` profile end to end through a real MCP client (`esker serve --profile
//! memory`): the seed's flow save → search → get_entries → timeline, answered the same from
//! the journal tail and after the fold into Parquet + the index; every error code in-band;
//! ingest_docs twice; the retention report; and the profile beside the default one.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{esker_bin, index_into, query_count};

/// The profile's tools, whose text content is their structured content as JSON.
const MEMORY_TOOLS: [&str; 6] = [
    "save_memory",
    "search",
    "timeline",
    "get_entries",
    "ingest_docs",
    "retention_dry_run",
];

/// A client of `esker serve --no-index --profile PROFILES --project demo` run in `cwd`.
pub struct MemoryClient {
    service: RunningService<RoleClient, ()>,
    pub data_dir: PathBuf,
}

impl MemoryClient {
    pub async fn start(data_dir: &Path, cwd: &Path, profiles: &str) -> MemoryClient {
        let command = tokio::process::Command::new(esker_bin()).configure(|command| {
            command
                .args([
                    "serve",
                    "--no-index",
                    "--project",
                    "demo",
                    "--profile",
                    profiles,
                ])
                .arg("--data-dir")
                .arg(data_dir)
                .current_dir(cwd)
                .env("HOME", "/nonexistent-esker-test-home")
                .env_remove("ESKER_DATA_DIR");
        });
        let transport = TokioChildProcess::new(command).expect("esker serve starts");
        let service = ().serve(transport).await.expect("MCP initialize succeeds");
        MemoryClient {
            service,
            data_dir: data_dir.to_path_buf(),
        }
    }

    /// A fresh empty store served by the memory profile alone, in a temp project dir.
    pub async fn fresh() -> (MemoryClient, tempfile::TempDir) {
        let root = tempfile::tempdir().expect("temp dir");
        let data_dir = root.path().join("data");
        esker::store::Store::open(&data_dir).expect("a new store");
        let client = MemoryClient::start(&data_dir, root.path(), "memory").await;
        (client, root)
    }

    /// `isError` and the structured content of a call; asserts the text is the same JSON.
    pub async fn call(&self, tool: &str, arguments: Value) -> (bool, Value) {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let result = self
            .service
            .call_tool(params)
            .await
            .unwrap_or_else(|error| panic!("{tool} got a protocol error: {error}"));
        let structured = result
            .structured_content
            .clone()
            .expect("every memory result carries structuredContent");
        if MEMORY_TOOLS.contains(&tool) {
            let text = result
                .content
                .first()
                .and_then(|block| block.as_text())
                .map(|text| text.text.clone())
                .unwrap_or_default();
            let from_text: Value = serde_json::from_str(&text).expect("the text is the JSON");
            assert_eq!(from_text, structured);
        }
        (result.is_error == Some(true), structured)
    }

    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let (is_error, response) = self.call(tool, arguments.clone()).await;
        assert!(!is_error, "{tool} {arguments} failed: {response:#}");
        response
    }

    /// The error object of a call that must fail in-band.
    pub async fn error(&self, tool: &str, arguments: Value) -> Value {
        let (is_error, response) = self.call(tool, arguments.clone()).await;
        assert!(is_error, "{tool} {arguments} should fail: {response:#}");
        let error = response["error"].clone();
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(error["details"].is_object(), "{error}");
        error
    }

    pub async fn save(&self, arguments: Value) -> String {
        let saved = self.ok("save_memory", arguments).await;
        assert_eq!(saved["status"], "saved");
        saved["id"].as_str().expect("an id").to_owned()
    }

    pub async fn tool_names(&self) -> Vec<String> {
        let tools = self.service.list_all_tools().await.expect("tools/list");
        tools.iter().map(|tool| tool.name.to_string()).collect()
    }

    /// Waits until the `memories` table holds `count` rows (the server folded them).
    pub fn wait_until_folded(&self, count: i64) {
        wait_until_folded(&self.data_dir, count);
    }
}

/// Waits (up to [`crate::support::BACKGROUND_WAIT`]) until `esker query` counts `count` memories.
pub fn wait_until_folded(data_dir: &Path, count: i64) {
    let deadline = Instant::now() + crate::support::BACKGROUND_WAIT;
    loop {
        let folded = query_count(data_dir, "SELECT count(*) FROM memories");
        if folded == count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "memories were not folded: {folded} of {count} rows"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn ids_of(items: &Value) -> Vec<String> {
    items
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// A GitHub token of the right shape, assembled so that no token sits in the source.
pub fn fake_github_token() -> String {
    format!("ghp_{}{}", "Zx9Qw8Er7Ty6Ui5Op4As", "3Df2Gh1Jk0LmNbVc")
}

#[tokio::test]
async fn the_six_tools_answer_the_same_from_the_journal_and_after_the_fold() {
    let (client, _root) = MemoryClient::fresh().await;
    assert_eq!(client.tool_names().await, MEMORY_TOOLS);
    let first = client
        .save(json!({"text": "Decision: keep memory entries in Parquet\nDuckDB reads them", "type": "decision"}))
        .await;
    let second = client
        .save(json!({
            "text": "The journal is fsynced before save_memory replies",
            "title": "Durable journal",
            "source_ref": "docs/decisions.md",
            "session_id": "session:claude-123",
            "metadata": {"issue": 16, "tags": ["durability"]},
            "an_unknown_field": "ignored",
        }))
        .await;
    let elsewhere = client
        .save(json!({"text": "Parquet compaction in another project", "project": "other"}))
        .await;
    let third = client
        .save(json!({"text": "Tantivy ranks memories by BM25 over title and body"}))
        .await;

    // Searchable as soon as the save returned: answered from the journal tail.
    let before_fold = flow(&client, [&first, &second, &third], &elsewhere).await;
    client.wait_until_folded(4);
    let after_fold = flow(&client, [&first, &second, &third], &elsewhere).await;
    assert_eq!(before_fold, after_fold, "the fold changes no answer");
}

/// The seed's flow over the four saved entries; returns every answer for comparison.
async fn flow(client: &MemoryClient, demo: [&String; 3], elsewhere: &String) -> Vec<Value> {
    let [first, second, third] = demo;
    let search = client.ok("search", json!({"query": "parquet"})).await;
    assert_eq!(search["total"], 2);
    assert_eq!(
        (search["limit"].clone(), search["offset"].clone()),
        (json!(20), json!(0))
    );
    let hits = ids_of(&search["items"]);
    assert!(
        hits.contains(first) && hits.contains(elsewhere),
        "{search:#}"
    );
    let top = &search["items"][0];
    assert!(top["score"].as_f64().is_some_and(|score| score > 0.0));
    for field in ["title", "entry_type", "project", "created_at"] {
        assert!(top[field].is_string(), "{field} in {top}");
    }

    let filtered = client
        .ok(
            "search",
            json!({"query": "parquet durable", "project": "demo", "type": "decision"}),
        )
        .await;
    assert_eq!(ids_of(&filtered["items"]), std::slice::from_ref(first));
    let clamped = client
        .ok(
            "search",
            json!({"query": "parquet journal bm25", "limit": 500, "offset": 1}),
        )
        .await;
    assert_eq!(clamped["limit"], 100);
    assert_eq!(clamped["total"], 4);
    assert_eq!(clamped["items"].as_array().unwrap().len(), 3);

    let entries = client
        .ok("get_entries", json!({"ids": [second, "no-such-id", first]}))
        .await;
    assert_eq!(ids_of(&entries["items"]), [second.clone(), first.clone()]);
    let detail = &entries["items"][0];
    assert_eq!(detail["title"], "Durable journal");
    assert_eq!(
        detail["body"],
        "The journal is fsynced before save_memory replies"
    );
    assert_eq!(detail["entry_type"], "note");
    assert_eq!(detail["project"], "demo");
    assert_eq!(detail["source_ref"], "docs/decisions.md");
    assert_eq!(detail["session_id"], "session:claude-123");
    assert_eq!(
        detail["metadata"],
        json!({"issue": 16, "tags": ["durability"]})
    );
    assert_eq!(
        entries["items"][1]["title"],
        "Decision: keep memory entries in Parquet"
    );
    assert_eq!(entries["items"][1]["metadata"], json!({}));
    assert!(entries["items"][1]["session_id"].is_null());

    let timeline = client
        .ok(
            "timeline",
            json!({"anchor_id": second, "depth_before": 5, "depth_after": 1}),
        )
        .await;
    assert_eq!(timeline["anchor_id"], *second);
    assert_eq!(
        ids_of(&timeline["items"]),
        [first.clone(), second.clone(), third.clone()],
        "the other project's entry is not a neighbour"
    );
    let narrow = client
        .ok(
            "timeline",
            json!({"anchor_id": third, "depth_before": 1, "depth_after": 99}),
        )
        .await;
    assert_eq!(ids_of(&narrow["items"]), [second.clone(), third.clone()]);
    vec![search, filtered, clamped, entries, timeline, narrow]
}

#[tokio::test]
async fn every_error_code_is_in_band_and_changes_nothing() {
    let (client, root) = MemoryClient::fresh().await;
    let invalid = [
        ("save_memory", json!({})),
        ("save_memory", json!({"text": "  \n "})),
        (
            "save_memory",
            json!({"text": "x", "metadata": "not an object"}),
        ),
        ("search", json!({"query": "   "})),
        ("search", json!({"query": "x", "limit": "ten"})),
        ("get_entries", json!({"ids": []})),
        ("get_entries", json!({"ids": vec!["x"; 201]})),
        ("timeline", json!({"anchor_id": ""})),
        ("ingest_docs", json!({"sources": []})),
        ("retention_dry_run", json!({})),
        ("retention_dry_run", json!({"max_age_days": 0})),
        (
            "retention_dry_run",
            json!({"max_age_days": 3, "now": "last tuesday"}),
        ),
    ];
    for (tool, arguments) in invalid {
        let error = client.error(tool, arguments.clone()).await;
        assert_eq!(
            error["code"], "INVALID_ARGUMENT",
            "{tool} {arguments}: {error}"
        );
    }

    let token = fake_github_token();
    let journal = root.path().join("data/memory/journal.jsonl");
    for arguments in [
        json!({"text": format!("deploy key {token} zanzibar")}),
        json!({"text": "zanzibar", "title": format!("key {token}")}),
        json!({"text": "zanzibar", "metadata": {"note": token}}),
    ] {
        let (is_error, response) = client.call("save_memory", arguments).await;
        assert!(is_error);
        assert_eq!(response["error"]["code"], "POLICY_BLOCKED");
        assert_eq!(response["error"]["details"]["kind"], "github_token");
        assert!(
            !response.to_string().contains(&token),
            "the secret is echoed"
        );
    }
    assert!(!journal.exists(), "refused entries must not be written");
    let none = client.ok("search", json!({"query": "zanzibar"})).await;
    assert_eq!(none["total"], 0);

    let missing = client
        .error("timeline", json!({"anchor_id": "no-such-entry"}))
        .await;
    assert_eq!(missing["code"], "ENTRY_NOT_FOUND");
    assert_eq!(missing["details"]["anchor_id"], "no-such-entry");

    // The journal cannot be written (a directory stands in its place).
    std::fs::create_dir_all(&journal).unwrap();
    let storage = client.error("save_memory", json!({"text": "lost"})).await;
    assert_eq!(storage["code"], "STORAGE_FAILURE");
    std::fs::remove_dir(&journal).unwrap();
    client
        .save(json!({"text": "written once the journal is back"}))
        .await;

    // A generation whose fold marker is unreadable needs a rebuild.
    client.wait_until_folded(1);
    let marker = root.path().join("data/current/memory_fold.json");
    std::fs::write(&marker, "{not json").unwrap();
    let restarted = MemoryClient::start(&client.data_dir, root.path(), "memory").await;
    let migration = restarted.error("search", json!({"query": "journal"})).await;
    assert_eq!(migration["code"], "MIGRATION_FAILURE");
    assert!(migration["message"].as_str().unwrap().contains("--rebuild"));
}

#[tokio::test]
async fn ingest_docs_imports_once_per_content_version() {
    let root = tempfile::tempdir().expect("temp dir");
    let docs = root.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("decisions.md"),
        "# Decisions\n\n- Store memories as Parquet\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("session-log.md"),
        "Session log\n\nindexed the corpus\n",
    )
    .unwrap();
    let data_dir = root.path().join("data");
    esker::store::Store::open(&data_dir).unwrap();
    let client = MemoryClient::start(&data_dir, root.path(), "memory").await;

    let first = client.ok("ingest_docs", json!({})).await;
    assert_eq!(
        first,
        json!({
            "processed_sources": 2,
            "imported_entries": 2,
            "duplicate_entries": 0,
            "skipped_sources": ["docs/requirements.md"],
        })
    );
    let second = client.ok("ingest_docs", json!({})).await;
    assert_eq!(second["imported_entries"], 0);
    assert_eq!(second["duplicate_entries"], 2);
    assert_eq!(second["processed_sources"], 2);

    let found = client.ok("search", json!({"query": "parquet"})).await;
    assert_eq!(found["total"], 1);
    assert_eq!(found["items"][0]["title"], "Decisions");
    assert_eq!(found["items"][0]["entry_type"], "ingestion");
    let id = found["items"][0]["id"].as_str().unwrap();
    let entry = client.ok("get_entries", json!({"ids": [id]})).await;
    assert_eq!(
        entry["items"][0]["metadata"],
        json!({"ingestion": true, "source_ref": "docs/decisions.md"})
    );
    assert_eq!(entry["items"][0]["source_ref"], "docs/decisions.md");

    std::fs::write(
        docs.join("decisions.md"),
        "# Decisions\n\n- Store memories as Parquet\n- And fold them\n",
    )
    .unwrap();
    let edited = client
        .ok(
            "ingest_docs",
            json!({"sources": ["docs\\decisions.md", "docs/session-log.md"], "entry_type": "doc"}),
        )
        .await;
    assert_eq!(
        (
            edited["imported_entries"].clone(),
            edited["duplicate_entries"].clone()
        ),
        (json!(1), json!(1))
    );

    // A document holding a secret blocks the whole call: nothing of it is imported.
    std::fs::write(
        docs.join("requirements.md"),
        format!("use {}", fake_github_token()),
    )
    .unwrap();
    std::fs::write(docs.join("new.md"), "a brand new document").unwrap();
    let blocked = client
        .error(
            "ingest_docs",
            json!({"sources": ["docs/new.md", "docs/requirements.md"]}),
        )
        .await;
    assert_eq!(blocked["code"], "POLICY_BLOCKED");
    assert_eq!(blocked["details"]["source"], "docs/requirements.md");
    let total = client
        .ok("search", json!({"query": "document decisions session"}))
        .await;
    assert_eq!(total["total"], 3, "the new document was not imported");
    client.wait_until_folded(3);
}

#[tokio::test]
async fn retention_dry_run_reports_candidates_and_deletes_nothing() {
    let (client, _root) = MemoryClient::fresh().await;
    let mut ids = Vec::new();
    for n in 0..4 {
        ids.push(
            client
                .save(json!({"text": format!("retention note {n}")}))
                .await,
        );
    }
    client
        .save(json!({"text": "retention elsewhere", "project": "other"}))
        .await;

    let by_count = client
        .ok(
            "retention_dry_run",
            json!({"max_entries_per_project": 2, "project": "demo"}),
        )
        .await;
    assert_eq!(by_count["mode"], "dry-run");
    assert_eq!(by_count["total_candidates"], 2);
    assert_eq!(by_count["by_reason"], json!({"age": 0, "project_count": 2}));
    let mut oldest = ids[..2].to_vec();
    oldest.sort();
    assert_eq!(by_count["candidate_ids"], json!(oldest));

    let by_age = client
        .ok(
            "retention_dry_run",
            json!({"max_age_days": 1, "now": "2100-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(by_age["total_candidates"], 5);
    assert_eq!(by_age["by_reason"]["age"], 5);
    assert_eq!(by_age["executed_at"], "2100-01-01T00:00:00.000Z");

    let all = client.ok("get_entries", json!({"ids": ids})).await;
    assert_eq!(
        all["items"].as_array().unwrap().len(),
        4,
        "nothing was deleted"
    );
    client.wait_until_folded(5);
    let again = client
        .ok(
            "retention_dry_run",
            json!({"max_age_days": 1, "now": "2100-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(again, by_age, "the same report once folded");
}

#[tokio::test]
async fn memory_serves_beside_the_default_profile_and_stays_out_of_search_sessions() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    index_into(&data_dir, &[&crate::support::fixtures_dir()]);
    let client = MemoryClient::start(&data_dir, root.path(), "moraine,memory").await;
    let names = client.tool_names().await;
    let moraine = esker::mcp::profiles::ProfileSet::parse("moraine").unwrap();
    assert_eq!(
        names.len(),
        moraine.tools().len() + MEMORY_TOOLS.len(),
        "{names:?}"
    );
    assert!(
        MEMORY_TOOLS
            .iter()
            .all(|tool| names.iter().any(|name| name == tool))
    );
    client
        .save(json!({"text": "quokkacorn is the memory-only word"}))
        .await;
    assert_eq!(
        client.ok("search", json!({"query": "quokkacorn"})).await["total"],
        1
    );
    let sessions = client
        .ok("search_sessions", json!({"query": "quokkacorn"}))
        .await;
    assert_eq!(sessions["data"]["result_count"], 0, "{sessions:#}");
    client.wait_until_folded(1);
    let sessions = client
        .ok("search_sessions", json!({"query": "quokkacorn"}))
        .await;
    assert_eq!(sessions["data"]["result_count"], 0);
    let logs = client
        .ok("search_sessions", json!({"query": "parquet"}))
        .await;
    assert!(
        logs["data"]["result_count"].as_u64().unwrap() > 0,
        "{logs:#}"
    );
}

/// Issue #48: `esker serve --no-index --profile moraine,memory` on a data dir with no store
/// exited 2 ("no esker store"). Memory entries need no logs: the server starts on an empty
/// store, saves and finds entries, and the retrieval tools answer (nothing indexed yet).
#[tokio::test]
async fn a_memory_server_starts_on_a_fresh_data_dir() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("never-indexed");
    let client = crate::mcp::client::EskerClient::start_with(
        &data_dir,
        &["--no-index", "--profile", "moraine,memory"],
        "/nonexistent-esker-test-home",
    )
    .await;
    let saved = client
        .call(
            "save_memory",
            json!({"text": "wallabyfern: the staging database is read-only on Fridays"}),
        )
        .await;
    assert_eq!(saved.is_error, Some(false), "{saved:?}");
    let saved = saved.structured_content.expect("structured content");
    assert_eq!(saved["status"], "saved", "{saved:#}");
    let found = client
        .call("search", json!({"query": "wallabyfern"}))
        .await
        .structured_content
        .expect("structured content");
    assert_eq!(found["total"], 1, "{found:#}");
    assert_eq!(found["items"][0]["id"], saved["id"]);
    let sessions = client
        .success("search_sessions", json!({"query": "wallabyfern"}))
        .await;
    assert_eq!(sessions["data"]["result_count"], 0, "{sessions:#}");
    wait_until_folded(&data_dir, 1);
}
