//! An rmcp client over a spawned `esker serve --no-index`, with helpers that unwrap the
//! success and error envelopes, and table lookups that give the expected answers.

use std::collections::HashMap;
use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use crate::support::{esker_bin, fixture_store, query_rows};

pub const ERROR_SCHEMA: &str = "moraine.mcp.error.v1";

/// A connected MCP client; the server process ends when the client is dropped.
pub struct EskerClient {
    service: RunningService<RoleClient, ()>,
    /// Each tool's declared `outputSchema`, read from `tools/list` on the first call.
    output_schemas: OnceCell<HashMap<String, Value>>,
}

impl EskerClient {
    /// Starts `esker serve` on the shared fixture store.
    pub async fn fixtures() -> EskerClient {
        EskerClient::start(fixture_store()).await
    }

    pub async fn start(data_dir: &Path) -> EskerClient {
        EskerClient::start_with(data_dir, &["--no-index"], "/nonexistent-esker-test-home").await
    }

    /// Starts `esker serve --data-dir DATA_DIR EXTRA_ARGS...` with `HOME` set to `home`.
    pub async fn start_with(data_dir: &Path, extra_args: &[&str], home: &str) -> EskerClient {
        EskerClient::spawn(data_dir, extra_args, home, None).await
    }

    /// Starts `esker serve --no-index` on `data_dir` with `launch_dir` as its working directory
    /// (the launch project of `file_attention`).
    pub async fn start_in(data_dir: &Path, launch_dir: &Path) -> EskerClient {
        let home = "/nonexistent-esker-test-home";
        EskerClient::spawn(data_dir, &["--no-index"], home, Some(launch_dir)).await
    }

    /// Starts `esker serve --no-index EXTRA_ARGS...` on `data_dir` in `launch_dir`.
    pub async fn start_in_with(
        data_dir: &Path,
        launch_dir: &Path,
        extra_args: &[&str],
    ) -> EskerClient {
        let home = "/nonexistent-esker-test-home";
        let mut args = vec!["--no-index"];
        args.extend_from_slice(extra_args);
        EskerClient::spawn(data_dir, &args, home, Some(launch_dir)).await
    }

    async fn spawn(
        data_dir: &Path,
        extra_args: &[&str],
        home: &str,
        launch_dir: Option<&Path>,
    ) -> EskerClient {
        let command = tokio::process::Command::new(esker_bin()).configure(|command| {
            command
                .args(["serve", "--data-dir"])
                .arg(data_dir)
                .args(extra_args)
                .env("HOME", home)
                .env_remove("ESKER_DATA_DIR")
                .env_remove("CODEX_HOME")
                .env_remove("CLAUDE_CONFIG_DIR")
                .env_remove("GEMINI_CLI_HOME");
            for name in esker::ingest::locations::ENV_VARS {
                command.env_remove(name);
            }
            if let Some(launch_dir) = launch_dir {
                command.current_dir(launch_dir);
            }
        });
        let transport = TokioChildProcess::new(command).expect("esker serve starts");
        let service = ().serve(transport).await.expect("MCP initialize succeeds");
        EskerClient {
            service,
            output_schemas: OnceCell::new(),
        }
    }

    pub fn service(&self) -> &RunningService<RoleClient, ()> {
        &self.service
    }

    /// `tools/call` with `arguments` (a JSON object, or null for no arguments at all).
    pub async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let result = self
            .service
            .call_tool(params)
            .await
            .unwrap_or_else(|error| panic!("{tool} got a protocol error: {error}"));
        self.assert_matches_output_schema(tool, &result).await;
        result
    }

    /// Every structured result must validate against the tool's declared `outputSchema`, as
    /// MCP clients that validate (the Python SDK) check it: a mismatch fails the call there.
    async fn assert_matches_output_schema(&self, tool: &str, result: &CallToolResult) {
        let (Some(structured), Some(schema)) = (
            result.structured_content.as_ref(),
            self.output_schemas().await.get(tool),
        ) else {
            return;
        };
        let validator = jsonschema::validator_for(schema)
            .unwrap_or_else(|error| panic!("{tool}'s outputSchema is not a schema: {error}"));
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{tool}'s result does not match its outputSchema: {errors:?}"
        );
    }

    async fn output_schemas(&self) -> &HashMap<String, Value> {
        self.output_schemas
            .get_or_init(|| async {
                let tools = self
                    .service
                    .list_all_tools()
                    .await
                    .expect("tools/list succeeds");
                tools
                    .into_iter()
                    .filter_map(|tool| {
                        let schema = Value::Object(tool.output_schema?.as_ref().clone());
                        Some((tool.name.to_string(), schema))
                    })
                    .collect()
            })
            .await
    }

    /// The success envelope of a call that must succeed.
    pub async fn success(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone()).await;
        let envelope = structured(&result);
        assert_eq!(
            result.is_error,
            Some(false),
            "{tool} {arguments} failed: {envelope:#}"
        );
        assert_eq!(envelope["schema_version"], format!("moraine.mcp.{tool}.v1"));
        assert_eq!(envelope["tool"], tool);
        assert_has_text(&result);
        envelope
    }

    /// The error envelope of a call that must fail in-band.
    pub async fn failure(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone()).await;
        let envelope = structured(&result);
        assert_eq!(
            result.is_error,
            Some(true),
            "{tool} {arguments} should fail: {envelope:#}"
        );
        assert_eq!(envelope["schema_version"], ERROR_SCHEMA, "{envelope:#}");
        assert_eq!(envelope["tool"], tool);
        assert!(
            envelope["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert!(envelope["error"]["details"].is_object());
        assert_eq!(envelope["warnings"], Value::Array(vec![]));
        assert_has_text(&result);
        envelope
    }

    /// The error code of a call that must fail in-band.
    pub async fn error_code(&self, tool: &str, arguments: Value) -> String {
        let envelope = self.failure(tool, arguments).await;
        envelope["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// `data` of a successful `open`, without `coverage`.
    pub async fn open(&self, id: &str) -> Value {
        spec_data(self.success("open", serde_json::json!({ "id": id })).await)
    }

    /// `data` of a successful `search_sessions`, without `coverage`.
    pub async fn search(&self, arguments: Value) -> Value {
        spec_data(self.success("search_sessions", arguments).await)
    }

    /// `data` of a successful `list_sessions`, without `coverage`.
    pub async fn list(&self, arguments: Value) -> Value {
        spec_data(self.success("list_sessions", arguments).await)
    }
}

/// The spec-000 part of an envelope's `data`: Moraine's `coverage` (checked on its own in
/// `moraine_additions`) removed, so the conformance tests compare what spec 000 fixes.
fn spec_data(mut envelope: Value) -> Value {
    let mut data = envelope["data"].take();
    if let Some(fields) = data.as_object_mut() {
        fields.remove("coverage");
    }
    data
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("every tool result carries structuredContent")
}

fn assert_has_text(result: &CallToolResult) {
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default();
    assert!(!text.trim().is_empty(), "tool result has no text summary");
}

/// Rows of read-only SQL over the fixture store.
pub fn fixture_rows(sql: &str) -> Vec<Map<String, Value>> {
    query_rows(fixture_store(), sql)
}

/// One string column of read-only SQL over the fixture store.
pub fn fixture_strings(sql: &str) -> Vec<String> {
    fixture_rows(sql)
        .into_iter()
        .map(|row| {
            row.values()
                .next()
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("first column of {sql} is not a string"))
                .to_owned()
        })
        .collect()
}

/// The first string of read-only SQL over the fixture store.
pub fn fixture_string(sql: &str) -> String {
    fixture_strings(sql)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no rows for {sql}"))
}

/// The values of `key` in each object of `array`.
pub fn strings_at(array: &Value, pointer: &str) -> Vec<String> {
    array
        .as_array()
        .expect("an array")
        .iter()
        .map(|item| {
            item.pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no string at {pointer} in {item}"))
                .to_owned()
        })
        .collect()
}
