//! The commands for people at a terminal: `setup`, `search`, `show`, `resume`, `handoff`,
//! `sessions`, `usage`, `memory`, `doctor` (one module each), the sample-store rules every command follows ([`sample`]) and what they
//! share: opening the store for reading, calling the MCP tools' own code, colour and exit
//! codes (0 results, 1 no results, 2 error).
//!
//! `search`, `show` and `sessions` run the same tool handlers as the MCP server
//! ([`crate::service::handler::handle`]), so a person sees what an agent sees; `--json` prints
//! the envelope's `data`.

pub mod doctor;
pub mod handoff;
pub mod memory;
pub mod recall;
pub mod resume;
pub mod sample;
pub mod search;
pub mod sessions;
pub mod setup;
pub mod show;
pub mod style;
pub mod team;
pub mod usage;
pub mod window;

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Map, Value};

use crate::cli::sample::{StoreLocation, reading_location};
use crate::service::catalog::{AnswerPath, Catalog, CatalogError, NamedQuery, text_list_parameter};
use crate::service::envelope::Timer;
use crate::service::handler::{ToolHandler, handle};
use crate::store::{Store, StoreError};

/// How a command ended, as the exit code scripts read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Something was found or done: exit 0.
    Found,
    /// The command ran and found nothing: exit 1.
    NoResults,
}

impl Outcome {
    pub fn of_count(count: usize) -> Outcome {
        if count == 0 {
            Outcome::NoResults
        } else {
            Outcome::Found
        }
    }

    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Found => ExitCode::SUCCESS,
            Outcome::NoResults => ExitCode::from(1),
        }
    }
}

/// Exit code of a command that failed.
pub const ERROR_EXIT: u8 = 2;

/// Why a command failed (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// A tool answered with its error envelope.
    #[error("{code}: {message}")]
    Tool { code: String, message: String },
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Setup(#[from] setup::SetupError),
    /// A memory operation failed (its seed error code and message).
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
    /// Publishing to or reading from object storage failed.
    #[error(transparent)]
    Team(#[from] crate::team::TeamError),
    /// A session cannot be resumed (`esker resume`).
    #[error(transparent)]
    Resume(#[from] resume::ResumeError),
    /// A session cannot be handed off (`esker handoff`).
    #[error(transparent)]
    Handoff(#[from] handoff::HandoffError),
}

/// The store a reading command opens (the sample store when only the sample was indexed),
/// printing the sample notice on stderr when that is what it shows.
pub struct Reader {
    pub catalog: Catalog,
    pub location: StoreLocation,
}

impl Reader {
    pub async fn open(data_dir: &Path) -> Result<Reader, CliError> {
        Reader::open_with(data_dir, None).await
    }

    /// [`Reader::open`] with the semantic search leg (`esker search --semantic on`).
    pub async fn open_with(
        data_dir: &Path,
        semantic: Option<std::sync::Arc<crate::semantic::Leg>>,
    ) -> Result<Reader, CliError> {
        let location = reading_location(data_dir);
        // A missing store is reported with the way out rather than created empty.
        Store::open_existing(&location.data_dir)?.verify()?;
        if let Some(notice) = location.notice() {
            eprintln!(
                "{}",
                style::paint(style::NOTICE, &notice, style::stderr_colors())
            );
        }
        // One command, one answer: SQL over the tables, without loading the in-memory
        // directory in the background (at 10M documents a 6 s, 1.2 GB load that a command
        // exits before, cancelling it mid-statement).
        let catalog = Catalog::open_with(&location.data_dir, AnswerPath::SqlOnly)?
            .with_semantic_leg(semantic);
        catalog.snapshot().await?;
        Ok(Reader { catalog, location })
    }

    /// Runs tool `T` exactly as the MCP server would and returns its envelope's `data`.
    pub async fn call<T: ToolHandler>(&self, arguments: Value) -> Result<Value, CliError> {
        let arguments: Map<String, Value> = match arguments {
            Value::Object(fields) => fields,
            _ => Map::new(),
        };
        let reply = handle::<T>(&self.catalog, &arguments, Timer::start()).await;
        let mut envelope = reply.envelope;
        if reply.is_error {
            let error = &envelope["error"];
            return Err(CliError::Tool {
                code: error["code"].as_str().unwrap_or("error").to_owned(),
                message: error["message"].as_str().unwrap_or_default().to_owned(),
            });
        }
        Ok(envelope["data"].take())
    }
}

const SESSION_FACTS: NamedQuery = NamedQuery {
    name: "cli_session_facts",
    sql: include_str!("../../queries/cli_session_facts.sql"),
};

/// What the terminal shows of a session beyond the tools' answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    pub project: Option<String>,
    pub cwd: Option<String>,
    pub model: Option<String>,
}

impl SessionFacts {
    /// Whether `--project` text matches (case-insensitive, in the project name or the cwd).
    pub fn matches_project(&self, wanted: &str) -> bool {
        let wanted = wanted.to_lowercase();
        [&self.project, &self.cwd]
            .into_iter()
            .flatten()
            .any(|text| text.to_lowercase().contains(&wanted))
    }
}

impl Reader {
    /// Project, cwd and model of the given sessions, by session id.
    pub async fn session_facts(
        &self,
        session_ids: &[&str],
    ) -> Result<HashMap<String, SessionFacts>, CliError> {
        if session_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let snapshot = self.catalog.snapshot().await?;
        let rows = snapshot
            .run(SESSION_FACTS, vec![text_list_parameter(session_ids)])
            .await?;
        let mut facts = HashMap::with_capacity(rows.len());
        for row in rows.iter() {
            let text = |name: &str| row.opt_string(name).ok().flatten().map(str::to_owned);
            let Some(session_id) = text("session_id") else {
                continue;
            };
            facts.insert(
                session_id,
                SessionFacts {
                    project: text("project"),
                    cwd: text("cwd"),
                    model: text("model"),
                },
            );
        }
        Ok(facts)
    }
}

/// Prints `value` as pretty JSON on stdout (the `--json` of every command).
pub fn print_json(value: &Value) -> Result<(), CliError> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, value).map_err(std::io::Error::other)?;
    writeln!(stdout)?;
    Ok(())
}
