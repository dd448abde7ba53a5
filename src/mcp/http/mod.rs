//! `esker serve --http ADDR` (issue #54): the profiles of `esker serve` over MCP streamable
//! HTTP at `/mcp`, for a team. rmcp's server transport answers each POST statelessly with
//! one JSON response (no sessions, no server-sent events), so a request's limits and log line
//! cover its whole answer.
//!
//! - [`tokens`]: `--tokens FILE`, bearer tokens (or their SHA-256) with the projects each
//!   may read, or `all`, and optionally the machines (of a pulled team store).
//! - [`limits`]: per-token concurrency and rate, 429 with `Retry-After` past them.
//! - [`gate`]: the endpoint: 401 with `WWW-Authenticate: Bearer` without a known token, the
//!   token's limits, the MCP service of its scope, one log line per request.
//!
//! A token scoped to projects is answered as `--project-only` answers, a token scoped to
//! machines only with the sessions those machines published: one [`Catalog`] per distinct
//! scope, all sharing one warm generation ([`Catalog::scoped`]). Without `--tokens`
//! only a loopback address is served (one local client, the default limits, Host checked
//! against DNS rebinding). TLS is a reverse proxy's job (docs/TEAM.md).

pub mod gate;
pub mod limits;
pub mod tokens;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::routing::any;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;

use crate::indexer::status::IngestMonitor;
use crate::mcp::http::gate::{Access, Client, McpService};
use crate::mcp::http::limits::{Limiter, Limits};
use crate::mcp::http::tokens::{Projects, TokenError, TokenSpec};
use crate::mcp::profiles::ProfileSet;
use crate::mcp::server::EskerServer;
use crate::service::catalog::{Catalog, CatalogError};
use crate::service::project_scope::{
    ProjectScope, ProjectScopeError, ServingScope, check_profiles,
};
use crate::team::pull::pulled_machines;

/// How `esker serve --http` was asked to run.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Where to listen (port 0 picks a free one; the address is printed).
    pub address: SocketAddr,
    /// `--tokens FILE`; `None` serves loopback only, unauthenticated.
    pub tokens: Option<PathBuf>,
    /// The limits of a token that sets none (and of the local client).
    pub limits: Limits,
}

/// Why `esker serve --http` could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "refusing to serve {0} without --tokens: only a loopback address (127.0.0.1, ::1) is served unauthenticated; give --tokens FILE to serve the network"
    )]
    OpenToTheNetwork(SocketAddr),
    #[error(transparent)]
    Tokens(#[from] TokenError),
    #[error("token {name:?}: {source}")]
    Scope {
        name: String,
        source: ProjectScopeError,
    },
    #[error("cannot open the esker store: {0}")]
    Catalog(#[from] CatalogError),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("the HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// Serves the store at `data_dir` with `profiles` over HTTP until the process is stopped.
/// `monitor` follows the indexer that keeps the store fresh; `semantic` is the semantic leg.
pub async fn serve(
    data_dir: &Path,
    profiles: ProfileSet,
    monitor: IngestMonitor,
    semantic: Option<Arc<crate::semantic::Leg>>,
    options: &HttpOptions,
) -> Result<(), HttpError> {
    check_exposure(options)?;
    let catalog = Catalog::open(data_dir)?
        .with_ingest_monitor(monitor)
        .with_semantic_leg(semantic);
    // Open the readers now so the first request is already on the warm path.
    catalog.snapshot().await?;
    tracing::info!(data_dir = %data_dir.display(), profiles = ?profiles, "esker MCP server starting over HTTP");
    serve_catalog(catalog, profiles, options).await
}

/// Serves `catalog` with `profiles` over HTTP until the process is stopped; prints
/// `esker serve: MCP over HTTP at http://ADDR/mcp` on stderr once listening.
pub async fn serve_catalog(
    catalog: Catalog,
    profiles: ProfileSet,
    options: &HttpOptions,
) -> Result<(), HttpError> {
    let access = access(catalog, profiles, options)?;
    let listener = tokio::net::TcpListener::bind(options.address)
        .await
        .map_err(|source| HttpError::Bind {
            address: options.address,
            source,
        })?;
    let address = listener.local_addr().map_err(HttpError::Serve)?;
    eprintln!("esker serve: MCP over HTTP at http://{address}/mcp");
    axum::serve(listener, router(Arc::new(access)))
        .await
        .map_err(HttpError::Serve)
}

/// The one route, `/mcp` (every method: rmcp answers those it does not serve with 405).
pub fn router(access: Arc<Access>) -> Router {
    Router::new()
        .route("/mcp", any(gate::endpoint))
        .with_state(access)
}

/// Who may call, and the service answering each: the local client, or one client per token
/// with a service per distinct scope.
pub fn access(
    catalog: Catalog,
    profiles: ProfileSet,
    options: &HttpOptions,
) -> Result<Access, HttpError> {
    check_exposure(options)?;
    let Some(tokens_file) = &options.tokens else {
        let server = EskerServer::with_profiles(catalog, profiles);
        return Ok(Access::Local(Box::new(Client {
            name: "local".to_owned(),
            service: service_of(server, false),
            limiter: Limiter::new(options.limits),
        })));
    };
    let specs = tokens::load(tokens_file, options.limits)?;
    check_scoped_profiles(&specs, &profiles)?;
    warn_of_unknown_machines(&catalog, &specs);
    let unscoped = EskerServer::with_profiles(catalog.scoped(None), profiles);
    let mut services: HashMap<(Projects, Option<Vec<String>>), McpService> = HashMap::new();
    let mut digests = Vec::with_capacity(specs.len());
    let mut clients = Vec::with_capacity(specs.len());
    for spec in specs {
        let scope_key = (spec.projects.clone(), spec.machines.clone());
        let service = match services.get(&scope_key) {
            Some(service) => service.clone(),
            None => {
                let server = unscoped.with_catalog(catalog.scoped(scope_of(&spec)?));
                let service = service_of(server, true);
                services.insert(scope_key, service.clone());
                service
            }
        };
        digests.push(spec.digest);
        clients.push(Client {
            name: spec.name,
            service,
            limiter: Limiter::new(spec.limits),
        });
    }
    Ok(Access::Tokens { digests, clients })
}

/// Refuses to serve anything but loopback without tokens.
fn check_exposure(options: &HttpOptions) -> Result<(), HttpError> {
    if options.tokens.is_none() && !options.address.ip().is_loopback() {
        return Err(HttpError::OpenToTheNetwork(options.address));
    }
    Ok(())
}

/// A token scoped to projects or machines needs profiles whose every tool is scoped (not
/// `memory`).
fn check_scoped_profiles(specs: &[TokenSpec], profiles: &ProfileSet) -> Result<(), HttpError> {
    let Some(scoped) = specs
        .iter()
        .find(|spec| spec.projects != Projects::All || spec.machines.is_some())
    else {
        return Ok(());
    };
    check_profiles(&profiles.names()).map_err(|source| HttpError::Scope {
        name: scoped.name.clone(),
        source,
    })
}

fn scope_of(spec: &TokenSpec) -> Result<Option<ServingScope>, HttpError> {
    let project = match &spec.projects {
        Projects::All => None,
        Projects::Roots(roots) => {
            Some(
                ProjectScope::of_roots(roots).map_err(|source| HttpError::Scope {
                    name: spec.name.clone(),
                    source,
                })?,
            )
        }
    };
    Ok(ServingScope::new(project, spec.machines.clone()))
}

/// Warns of a token naming machines the store does not hold now (it answers nothing of them
/// until a pull brings them; a store that was not pulled holds no machine's sessions).
fn warn_of_unknown_machines(catalog: &Catalog, specs: &[TokenSpec]) {
    let held = match catalog.store().current() {
        Ok(current) => pulled_machines(&current.root),
        Err(_) => Vec::new(),
    };
    for spec in specs {
        let missing: Vec<&String> = spec
            .machines
            .iter()
            .flatten()
            .filter(|machine| !held.contains(machine))
            .collect();
        if !missing.is_empty() {
            tracing::warn!(
                token = %spec.name,
                ?missing,
                ?held,
                "the token names machines this store does not hold (it was not pulled, or they never published); it reads none of their sessions until a pull brings them"
            );
        }
    }
}

/// rmcp's service for `server`: stateless, one JSON answer per POST. An authenticated
/// server accepts any Host (a reverse proxy forwards its own name); the local one only
/// loopback names, so a web page cannot reach it through DNS rebinding.
fn service_of(server: EskerServer, authenticated: bool) -> McpService {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let config = if authenticated {
        config.disable_allowed_hosts()
    } else {
        config
    };
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}
