//! The `moraine` profile (the default): `search_sessions`, `open` and `list_sessions` of the
//! Moraine MCP contract (spec 000) plus Moraine's later `file_attention` and
//! `get_ingest_status`, with the `moraine.mcp.*.v1` envelopes; every retrieval answer carries
//! `data.coverage`.

use crate::mcp::profiles::{Profile, ReplyFuture};
use crate::mcp::tools::{INSTRUCTIONS, tool_definitions};
use crate::service::catalog::Catalog;
use crate::service::envelope::{Timer, ToolName};
use crate::service::file_attention::FileAttention;
use crate::service::handler::handle;
use crate::service::ingest_status::{GetIngestStatus, Observation, annotate_coverage};
use crate::service::list_sessions::ListSessions;
use crate::service::open::Open;
use crate::service::search_sessions::SearchSessions;
use crate::service::validate::Arguments;

pub struct Moraine;

impl Profile for Moraine {
    fn name(&self) -> &'static str {
        "moraine"
    }

    fn tools(&self) -> Vec<rmcp::model::Tool> {
        tool_definitions()
    }

    fn instructions(&self) -> &'static str {
        INSTRUCTIONS
    }

    fn call<'a>(
        &'a self,
        catalog: &'a Catalog,
        tool: &'a str,
        arguments: &'a Arguments,
    ) -> ReplyFuture<'a> {
        Box::pin(async move {
            let timer = Timer::start();
            let mut reply = match ToolName::parse(tool)? {
                ToolName::SearchSessions => {
                    handle::<SearchSessions>(catalog, arguments, timer).await
                }
                ToolName::Open => handle::<Open>(catalog, arguments, timer).await,
                ToolName::ListSessions => handle::<ListSessions>(catalog, arguments, timer).await,
                ToolName::FileAttention => handle::<FileAttention>(catalog, arguments, timer).await,
                ToolName::GetIngestStatus => {
                    return Some(handle::<GetIngestStatus>(catalog, arguments, timer).await);
                }
            };
            annotate_coverage(&mut reply, &Observation::of(catalog));
            Some(reply)
        })
    }
}
