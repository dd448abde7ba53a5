//! `esker ui`: the local web view. One process serves a single-page app embedded in the binary
//! ([`assets`]) and a small JSON API over the same service layer as the MCP server and the
//! CLI ([`api`]: the tools by name through the `moraine` profile, search/sessions/usage through
//! the CLI's own functions), plus server-sent events when the indexer commits ([`live`]).
//!
//! Safe by default ([`security`]): bound to 127.0.0.1, a random token in the start URL (then an
//! HttpOnly SameSite=Strict cookie), Host and Origin checked, a strict Content-Security-Policy;
//! nothing is fetched from the internet.
//!
//! Layout: [`security`] (token, Host/Origin checks, response headers), [`api`] (JSON
//! endpoints), [`export`] (a session as Markdown), the resume line of `cli::resume`,
//! [`live`] (SSE on new generations), [`assets`] (the embedded files and page routes).

pub mod api;
pub mod assets;
pub mod export;
pub mod live;
pub mod security;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};

use crate::cli::sample::StoreLocation;
use crate::cli::{CliError, Reader};
use crate::indexer::status::IngestMonitor;
use crate::mcp::profiles::ProfileSet;
use crate::memory::policy::Policy;
use crate::memory::service::{MemoryService, MemorySettings};
use crate::service::catalog::{Catalog, CatalogError};
use crate::ui::security::Guard;

/// The port `esker ui` listens on when none is given.
pub const DEFAULT_PORT: u16 = 8737;

/// Why `esker ui` could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum UiError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error("the web server failed: {0}")]
    Serve(std::io::Error),
    #[error("cannot open the esker store: {0}")]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    Cli(#[from] CliError),
}

/// What every request handler shares.
pub struct AppState {
    /// The store, read through the CLI's reader (its catalog is the MCP server's).
    pub reader: Reader,
    /// The tools the API runs by name (the `moraine` profile, as `esker serve` does).
    pub profiles: ProfileSet,
    /// Memory entries, read-only (what `esker memory search/list` reads).
    pub memory: MemoryService,
    pub guard: Guard,
}

/// How `esker ui` was asked to run.
#[derive(Debug, Clone)]
pub struct UiOptions {
    /// 0 picks a free port.
    pub port: u16,
    /// Open the start URL in the default browser.
    pub open_browser: bool,
}

/// The reader of a long-running view: the catalog of the MCP server (warm per generation,
/// directory loaded in the background), following `monitor`'s indexer.
pub async fn open_reader(
    location: StoreLocation,
    monitor: IngestMonitor,
    semantic: Option<Arc<crate::semantic::Leg>>,
) -> Result<Reader, UiError> {
    let catalog = Catalog::open(&location.data_dir)?
        .with_ingest_monitor(monitor)
        .with_semantic_leg(semantic);
    catalog.snapshot().await?;
    Ok(Reader { catalog, location })
}

/// Serves the web view of `reader` until the process is stopped. Prints the start URL (with
/// its token) on stderr.
pub async fn serve(reader: Reader, options: &UiOptions) -> Result<(), UiError> {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, options.port))
        .await
        .map_err(|source| UiError::Bind {
            port: options.port,
            source,
        })?;
    let address: SocketAddr = listener.local_addr().map_err(UiError::Serve)?;
    let guard = Guard::new(address.port(), security::random_token());
    let url = guard.start_url();
    if let Some(notice) = reader.location.notice() {
        eprintln!("{notice}");
    }
    eprintln!("esker ui: {url}");
    if options.open_browser {
        open_in_browser(&url);
    }
    let memory = MemoryService::new(
        reader.catalog.store().clone(),
        Policy::default(),
        MemorySettings::from_cwd(None),
    );
    let state = Arc::new(AppState {
        reader,
        profiles: ProfileSet::default(),
        memory,
        guard,
    });
    axum::serve(listener, router(state))
        .await
        .map_err(UiError::Serve)
}

/// Every route, behind the security guard.
pub fn router(state: Arc<AppState>) -> Router {
    let mut router = Router::new()
        .route("/api/tool/{name}", post(api::tool))
        .route("/api/search", get(api::search))
        .route("/api/sessions", get(api::sessions))
        .route("/api/usage", get(api::usage))
        .route("/api/memory", get(api::memory))
        .route("/api/files/top", get(api::top_files))
        .route("/api/resume/{id}", get(api::resume))
        .route("/api/export/{id}", get(api::export))
        .route("/api/events", get(live::events))
        .route("/assets/{*path}", get(assets::asset));
    for page in assets::PAGES {
        router = router.route(page, get(assets::page));
    }
    router
        .fallback(assets::not_found)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            security::guard,
        ))
        .with_state(state)
}

/// Best effort: the platform's opener, not waited for; a failure is only logged.
fn open_in_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    let spawned = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = spawned {
        tracing::warn!("cannot open a browser: {error}");
    }
}
