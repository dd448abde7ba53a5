//! The stdio path: spawns the release `esker serve --no-index`, measures the cold start to the
//! first answered request, round trips of a sample of calls through the protocol, and the
//! server's RSS afterwards.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::Value;

use crate::indexing::{ESKER, proc_status_bytes};
use crate::stats::Samples;

/// What one stdio session measured.
#[derive(Debug, Default)]
pub struct ServeFigures {
    pub cold_start: Duration,
    pub round_trips: Samples,
    pub rss_bytes: u64,
    pub peak_rss_bytes: u64,
    /// Of `rss_bytes`: the heap and other anonymous pages (`RssAnon`), and the mapped files'
    /// pages (`RssFile`: tantivy's segments and the Parquet files read, which the kernel may
    /// drop and read again).
    pub anonymous_rss_bytes: u64,
    pub file_rss_bytes: u64,
}

/// Starts a server, answers one `list_sessions`, then replays `calls` (tool, arguments).
pub async fn measure_serve(
    data_dir: &Path,
    calls: &[(&str, Value)],
) -> anyhow::Result<ServeFigures> {
    let started = Instant::now();
    let command = tokio::process::Command::new(ESKER).configure(|command| {
        command
            .args(["serve", "--no-index", "--data-dir"])
            .arg(data_dir);
    });
    let transport = TokioChildProcess::new(command)?;
    let pid = transport.id().unwrap_or_default();
    let service = ().serve(transport).await?;
    let first = serde_json::json!({"start_datetime": "2025-01-01T00:00:00Z", "end_datetime": "2027-01-01T00:00:00Z", "limit": 1});
    call(&service, "list_sessions", &first).await?;
    let cold_start = started.elapsed();
    let mut round_trips = Samples::default();
    for (tool, arguments) in calls {
        let started = Instant::now();
        call(&service, tool, arguments).await?;
        round_trips.record(started.elapsed());
    }
    let figures = ServeFigures {
        cold_start,
        round_trips,
        rss_bytes: proc_status_bytes(pid, "VmRSS:").unwrap_or_default(),
        peak_rss_bytes: proc_status_bytes(pid, "VmHWM:").unwrap_or_default(),
        anonymous_rss_bytes: proc_status_bytes(pid, "RssAnon:").unwrap_or_default(),
        file_rss_bytes: proc_status_bytes(pid, "RssFile:").unwrap_or_default(),
    };
    service.cancel().await?;
    Ok(figures)
}

async fn call(
    service: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: &Value,
) -> anyhow::Result<()> {
    let Value::Object(arguments) = arguments.clone() else {
        anyhow::bail!("arguments must be an object");
    };
    let result = service
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await?;
    anyhow::ensure!(
        result.is_error != Some(true),
        "{tool} failed over stdio: {:?}",
        result.structured_content
    );
    Ok(())
}
