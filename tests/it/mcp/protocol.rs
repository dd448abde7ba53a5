//! The MCP surface itself: server identity and instructions, the advertised tools and their
//! schemas, in-band errors (never JSON-RPC errors) and unknown tools.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use super::client::EskerClient;

#[tokio::test]
async fn the_server_introduces_itself_as_esker() {
    let client = EskerClient::fixtures().await;
    let info = client.service().peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|server| server.name.as_str()),
        Some("esker")
    );
    let instructions = info.instructions.clone().unwrap_or_default();
    for tool in ["search_sessions", "open", "list_sessions"] {
        assert!(instructions.contains(tool), "instructions mention {tool}");
    }
    assert!(info.capabilities.tools.is_some());
}

#[tokio::test]
async fn exactly_the_strict_read_only_moraine_tools_are_advertised() {
    let client = EskerClient::fixtures().await;
    let tools = client.service().list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "search_sessions",
            "open",
            "list_sessions",
            "file_attention",
            "get_ingest_status"
        ]
    );
    for tool in &tools {
        let schema = Value::Object(tool.input_schema.as_ref().clone());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        for (name, property) in schema["properties"].as_object().unwrap() {
            assert!(
                property["description"].is_string(),
                "{}.{name} is documented",
                tool.name
            );
        }
        let output = tool.output_schema.as_ref().expect("output schema");
        assert_eq!(output["type"], "object");
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(true));
        assert!(
            tool.description
                .as_ref()
                .is_some_and(|text| !text.is_empty())
        );
    }
    let search = tools
        .iter()
        .find(|tool| tool.name == "search_sessions")
        .unwrap();
    let n_hits = &search.input_schema["properties"]["n_hits"];
    assert_eq!(
        (n_hits["minimum"].clone(), n_hits["maximum"].clone()),
        (json!(1), json!(50))
    );
    assert_eq!(search.input_schema["required"], json!(["query"]));
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    let client = EskerClient::fixtures().await;
    let outcome = client
        .service()
        .call_tool(CallToolRequestParams::new("search"))
        .await;
    assert!(outcome.is_err(), "unknown tools are not in-band results");
    let still_serving = client
        .search(json!({"query": "parquet", "n_hits": 1}))
        .await;
    assert_eq!(still_serving["result_count"], 1);
}

#[tokio::test]
async fn a_new_index_commit_is_visible_without_restarting() {
    let logs = tempfile::tempdir().expect("temp dir").keep();
    let data_dir = tempfile::tempdir().expect("temp dir").keep();
    crate::support::index_into(&data_dir, &[&logs]);
    let client = EskerClient::start(&data_dir).await;
    let before = client.search(json!({"query": "flaky"})).await;
    assert_eq!(before["result_count"], 0, "empty store");
    crate::support::index_into(&data_dir, &[&crate::support::fixtures_dir()]);
    let after = client.search(json!({"query": "flaky"})).await;
    assert!(
        after["result_count"].as_u64().unwrap() > 0,
        "the new generation is served"
    );
}

#[tokio::test]
async fn serve_keeps_indexing_the_default_locations_in_the_background() {
    let home = tempfile::tempdir().expect("temp home");
    let data = tempfile::tempdir().expect("temp data");
    let project = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let record = |uuid: &str, text: &str| {
        serde_json::json!({
            "type": "user", "uuid": uuid, "parentUuid": null,
            "sessionId": "6f1d2c3b-0a9e-4b8c-8d7e-5f4a3b2c1d0e",
            "timestamp": "2026-03-03T08:00:00.000Z", "cwd": "/home/dev/app", "isSidechain": false,
            "message": {"role": "user", "content": text}
        })
        .to_string()
    };
    let log = project.join("6f1d2c3b-0a9e-4b8c-8d7e-5f4a3b2c1d0e.jsonl");
    std::fs::write(
        &log,
        format!("{}\n", record("u1", "why is the pelican cache cold")),
    )
    .expect("write");
    let client = EskerClient::start_with(
        data.path(),
        // Full passes only hourly: the append below must be picked up by the file watcher.
        &["--full-pass-every", "3600"],
        home.path().to_str().expect("utf-8"),
    )
    .await;

    let hits_for = |query: &'static str| {
        let client = &client;
        async move {
            let envelope = client
                .success("search_sessions", json!({"query": query}))
                .await;
            envelope["data"]["result_count"].as_u64().unwrap_or(0)
        }
    };
    let mut found_first = false;
    for _ in 0..crate::support::background_polls(std::time::Duration::from_millis(100)) {
        if hits_for("pelican").await == 1 {
            found_first = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        found_first,
        "the startup pass indexed the default Claude location"
    );

    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open log");
    std::io::Write::write_all(
        &mut file,
        format!("{}\n", record("u2", "and the flamingo cache too")).as_bytes(),
    )
    .expect("append");
    let mut found_second = false;
    for _ in 0..crate::support::background_polls(std::time::Duration::from_millis(100)) {
        if hits_for("flamingo").await == 1 {
            found_second = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(found_second, "the watcher picked up the appended prompt");
}

#[tokio::test]
async fn a_broken_store_is_an_in_band_internal_error() {
    let data = tempfile::tempdir().expect("temp data");
    crate::support::index_into(data.path(), &[&crate::support::fixtures_dir()]);
    let session_id = crate::support::query_rows(
        data.path(),
        "SELECT session_id FROM sessions ORDER BY session_id LIMIT 1",
    )[0]["session_id"]
        .clone();

    // Corrupt the sessions table before the server reads it: open(session) reads it. (Files
    // overwritten in place under a running server, which a store never does, can go unseen:
    // a keyed lookup reads only the key's bucket file, and the server answered from what it
    // had cached of it.)
    let sessions_dir = data.path().join("current/sessions");
    for entry in std::fs::read_dir(&sessions_dir).expect("sessions dir") {
        std::fs::write(entry.expect("entry").path(), b"not parquet").expect("corrupt");
    }
    let client = EskerClient::start(data.path()).await;
    let envelope = client.failure("open", json!({ "id": session_id })).await;
    assert_eq!(envelope["error"]["code"], "internal_error", "{envelope:#}");
    let message = envelope["error"]["message"].as_str().unwrap_or_default();
    assert!(
        !message.is_empty() && message.len() < 2000,
        "concise message: {message}"
    );
    // The server survives and still answers what does not need the broken table.
    let still_alive = client.failure("open", json!({"id": "not-an-id"})).await;
    assert_eq!(still_alive["error"]["code"], "invalid_id");
}
