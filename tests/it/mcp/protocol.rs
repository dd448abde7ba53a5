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
async fn exactly_three_strict_read_only_tools_are_advertised() {
    let client = EskerClient::fixtures().await;
    let tools = client.service().list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["search_sessions", "open", "list_sessions"]);
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
