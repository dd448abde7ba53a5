//! The rmcp server: identifies itself as `esker`, lists the tools of its profiles (default:
//! `moraine`'s three) and routes each call to the profile that owns the tool. Tool failures are
//! in-band results; only an unknown tool name, or a `tools/call` whose params are not shaped as
//! MCP requires, is a protocol error. A `get_ingest_status` result carries esker's indexer
//! facts in its `_meta` (`esker/indexer`), outside Moraine's `data`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::mcp::profiles::ProfileSet;
use crate::service::catalog::Catalog;
use crate::service::envelope::{Timer, ToolName, ToolReply};
use crate::service::ingest_status::indexer_meta;
use crate::service::validate::Arguments;

/// The esker MCP server; cheap to clone (shared catalog, profiles and tool list).
#[derive(Clone)]
pub struct EskerServer {
    catalog: Arc<Catalog>,
    profiles: Arc<ProfileSet>,
    tools: Arc<Vec<Tool>>,
    instructions: Arc<str>,
}

impl EskerServer {
    /// A server of the default profile (`moraine`).
    pub fn new(catalog: Catalog) -> EskerServer {
        EskerServer::with_profiles(catalog, ProfileSet::default())
    }

    /// A server of the given profiles; a project-only catalog's scope is named in the
    /// instructions.
    pub fn with_profiles(catalog: Catalog, profiles: ProfileSet) -> EskerServer {
        let instructions = instructions_for(&profiles, &catalog);
        EskerServer {
            catalog: Arc::new(catalog),
            tools: Arc::new(profiles.tools()),
            instructions: instructions.into(),
            profiles: Arc::new(profiles),
        }
    }

    /// This server's profiles over another catalog (a team server's token scope, issue #54).
    pub fn with_catalog(&self, catalog: Catalog) -> EskerServer {
        let instructions = instructions_for(&self.profiles, &catalog);
        EskerServer {
            catalog: Arc::new(catalog),
            tools: Arc::clone(&self.tools),
            instructions: instructions.into(),
            profiles: Arc::clone(&self.profiles),
        }
    }

    /// Runs one tool call; `None` when no tool has that name.
    pub async fn call(&self, tool_name: &str, arguments: &Arguments) -> Option<ToolReply> {
        let timer = Timer::start();
        let reply = self
            .profiles
            .call(&self.catalog, tool_name, arguments)
            .await?;
        tracing::debug!(
            tool = tool_name,
            is_error = reply.is_error,
            elapsed_ms = timer.elapsed().as_millis() as u64,
            "tool call"
        );
        Some(reply)
    }
}

impl ServerHandler for EskerServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("esker", env!("CARGO_PKG_VERSION"))
                    .with_title("esker session history"),
            )
            .with_instructions(self.instructions.as_ref())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        match self.call(&request.name, &arguments).await {
            Some(reply) => {
                // esker's indexer facts travel beside Moraine's exact `data` (issue #48).
                let meta = (request.name == ToolName::GetIngestStatus.as_str() && !reply.is_error)
                    .then(|| indexer_meta(&self.catalog));
                let mut result = reply.into_call_tool_result();
                result.meta = meta;
                Ok(result.into())
            }
            None => Err(McpError::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            )),
        }
    }

    /// rmcp hands over a request of a standard method whose params did not decode as a custom
    /// request; for those that is invalid params (`-32602`), not "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(unroutable_request(&request.method, request.params.as_ref()))
    }
}

/// The profiles' instructions; a scoped catalog's scope (project, machines) is named in them.
fn instructions_for(profiles: &ProfileSet, catalog: &Catalog) -> String {
    let mut instructions = profiles.instructions();
    if let Some(scope) = catalog.serving_scope() {
        instructions.push_str("\n\n");
        instructions.push_str(&scope.instructions());
    }
    instructions
}

/// Methods esker serves whose params rmcp decodes into typed requests.
const TYPED_METHODS: [&str; 2] = ["tools/call", "tools/list"];

fn unroutable_request(method: &str, params: Option<&Value>) -> McpError {
    if !TYPED_METHODS.contains(&method) {
        return McpError::new(ErrorCode::METHOD_NOT_FOUND, method.to_owned(), None);
    }
    let arguments = params.and_then(|params| params.get("arguments"));
    let problem = match arguments {
        Some(arguments) if !arguments.is_object() && !arguments.is_null() => {
            "arguments must be a JSON object"
        }
        _ => "params do not match the MCP schema",
    };
    McpError::invalid_params(format!("invalid {method} request: {problem}"), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn misshapen_tool_calls_are_invalid_params_and_unknown_methods_not_found() {
        let string_arguments = json!({"name": "open", "arguments": "session:x"});
        let error = unroutable_request("tools/call", Some(&string_arguments));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("arguments must be a JSON object"));
        let no_name = json!({"arguments": {}});
        let error = unroutable_request("tools/call", Some(&no_name));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        let error = unroutable_request("esker/reindex", None);
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
    }
}
