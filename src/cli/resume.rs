//! `esker resume ID`: starts the harness's own resume command for a session (from
//! [`crate::resume`]) in the session's working directory; `--print` prints it as
//! `cd DIR && COMMAND` instead. ID is what `esker show` takes: a session id, or a turn or event
//! id standing for its session. A sub-agent's session is resumed through the top-level session
//! that started it (the harnesses resume those, not their sub-agents).
//!
//! Running it, esker hands its process over to the harness (`exec` on Unix: the terminal,
//! signals and exit code are the harness's). A working directory that no longer exists is an
//! error (exit 2) naming the command to run by hand, since the harnesses look sessions up by
//! directory; a session with no recorded directory is resumed from the current one. A harness
//! without a resume command is an error naming it (exit 2).

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use crate::cli::{CliError, Outcome, Reader};
use crate::ids::{IdKind, classify_id};
use crate::model::harness_of;
use crate::resume::{NativeSession, ResumeCommand, resume_command};
use crate::service::catalog::{NamedQuery, text_parameter};

const RESUME_SESSION: NamedQuery = NamedQuery {
    name: "resume_session",
    sql: include_str!("../../queries/resume_session.sql"),
};

/// Sub-agent links followed at most on the way to the session that started them.
const MAX_PARENT_HOPS: usize = 16;

#[derive(Debug, Clone, Default)]
pub struct ResumeOptions {
    pub id: String,
    /// Print the command line instead of running it.
    pub print: bool,
}

/// Why a session cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("invalid_request: {id} is not a session:, turn: or event: id")]
    MalformedId { id: String },
    #[error("not_found: session {session_id}")]
    NotFound { session_id: String },
    #[error("{harness} has no resume command: esker cannot reopen {session_id} in it")]
    NoCommand { harness: String, session_id: String },
    #[error(
        "the working directory of {session_id}, {cwd}, no longer exists; run the command from \
         where the project is now: {command}"
    )]
    MissingWorkingDirectory {
        session_id: String,
        cwd: String,
        command: String,
    },
    #[error("cannot start {program} (is it installed and on PATH?): {source}")]
    Launch {
        program: String,
        source: std::io::Error,
    },
}

/// A session as resuming it needs it: a row of `queries/resume_session.sql`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionToResume {
    pub session_id: String,
    pub source: String,
    pub native_id: String,
    pub cwd: Option<String>,
    pub source_path: String,
    pub parent_session_id: Option<String>,
}

impl SessionToResume {
    fn native(&self) -> NativeSession<'_> {
        NativeSession {
            source: &self.source,
            native_id: &self.native_id,
            source_path: &self.source_path,
        }
    }
}

/// A session and the command that resumes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumption {
    pub session: SessionToResume,
    pub command: ResumeCommand,
}

impl Resumption {
    /// `cd DIR && COMMAND` (the command alone when no directory is recorded).
    pub fn line(&self) -> String {
        self.command.line_in(self.session.cwd.as_deref())
    }
}

pub async fn run(reader: &Reader, options: &ResumeOptions) -> Result<Outcome, CliError> {
    let session_id = session_of(reader, &options.id).await?;
    let resumption = resumption(reader, &session_id).await?;
    if resumption.session.session_id != session_id {
        eprintln!(
            "esker: {session_id} is a sub-agent's session; resuming {}, the session that started it",
            resumption.session.session_id
        );
    }
    if options.print {
        println!("{}", resumption.line());
        return Ok(Outcome::Found);
    }
    launch(&resumption)
}

/// The resume line `esker show` prints for a session; `None` when its harness has no resume
/// command.
pub async fn resume_line(reader: &Reader, session_id: &str) -> Result<Option<String>, CliError> {
    match resumption(reader, session_id).await {
        Ok(resumption) => Ok(Some(resumption.line())),
        Err(CliError::Resume(ResumeError::NoCommand { .. } | ResumeError::NotFound { .. })) => {
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

/// What resumes `session_id`: the command of the session, or of the top-level session that
/// started it when it is a sub-agent's.
pub async fn resumption(reader: &Reader, session_id: &str) -> Result<Resumption, CliError> {
    let session = top_level_session(reader, session_id).await?;
    match resume_command(&session.native()) {
        Some(command) => Ok(Resumption { session, command }),
        None => Err(ResumeError::NoCommand {
            harness: harness_of(&session.source).to_owned(),
            session_id: session.session_id,
        }
        .into()),
    }
}

/// The session an id names: a session id itself, the session of a turn or event id.
async fn session_of(reader: &Reader, id: &str) -> Result<String, CliError> {
    match classify_id(id) {
        Some(IdKind::Session) => Ok(id.to_owned()),
        Some(IdKind::Turn | IdKind::Event) => {
            let opened = super::show::open(reader, id).await?;
            let session_id = opened["session"]["id"].as_str().map(str::to_owned);
            session_id.ok_or_else(|| {
                ResumeError::NotFound {
                    session_id: id.to_owned(),
                }
                .into()
            })
        }
        None => Err(ResumeError::MalformedId { id: id.to_owned() }.into()),
    }
}

/// `session_id`'s row, or for a sub-agent's session the row of the session at the top of its
/// parent links (as far as the store holds them).
async fn top_level_session(reader: &Reader, session_id: &str) -> Result<SessionToResume, CliError> {
    let mut session =
        session_row(reader, session_id)
            .await?
            .ok_or_else(|| ResumeError::NotFound {
                session_id: session_id.to_owned(),
            })?;
    let mut seen = HashSet::from([session.session_id.clone()]);
    while let Some(parent_id) = session.parent_session_id.clone() {
        if seen.len() > MAX_PARENT_HOPS || !seen.insert(parent_id.clone()) {
            break;
        }
        match session_row(reader, &parent_id).await? {
            Some(parent) => session = parent,
            None => break,
        }
    }
    Ok(session)
}

async fn session_row(
    reader: &Reader,
    session_id: &str,
) -> Result<Option<SessionToResume>, CliError> {
    let snapshot = reader.catalog.snapshot().await?;
    let rows = snapshot
        .run(RESUME_SESSION, vec![text_parameter(session_id)])
        .await?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let text = |name: &str| row.opt_string(name).ok().flatten().map(str::to_owned);
    Ok(Some(SessionToResume {
        session_id: text("session_id").unwrap_or_else(|| session_id.to_owned()),
        source: text("source").unwrap_or_default(),
        native_id: text("native_id").unwrap_or_default(),
        cwd: text("cwd").filter(|cwd| !cwd.is_empty()),
        source_path: text("source_path").unwrap_or_default(),
        parent_session_id: text("parent_session_id"),
    }))
}

/// Runs the command in the session's working directory, handing this process over to it.
fn launch(resumption: &Resumption) -> Result<Outcome, CliError> {
    let directory = working_directory(resumption)?;
    let mut command = Command::new(resumption.command.program());
    command.args(resumption.command.args());
    match directory {
        Some(directory) => {
            command.current_dir(directory);
            eprintln!("esker: {}", resumption.line());
        }
        None => eprintln!(
            "esker: {} records no working directory; running {} here",
            resumption.session.session_id,
            resumption.command.display()
        ),
    }
    run_in_place(command, resumption.command.program())
}

/// The directory to run in: the session's, `None` when it recorded none.
fn working_directory(resumption: &Resumption) -> Result<Option<&Path>, ResumeError> {
    let Some(cwd) = resumption.session.cwd.as_deref() else {
        return Ok(None);
    };
    let directory = Path::new(cwd);
    if directory.is_dir() {
        return Ok(Some(directory));
    }
    Err(ResumeError::MissingWorkingDirectory {
        session_id: resumption.session.session_id.clone(),
        cwd: cwd.to_owned(),
        command: resumption.command.display(),
    })
}

/// Replaces this process with the harness: it gets the terminal, the signals (Ctrl-C reaches
/// the harness alone) and its exit code is esker's. Returns only when it cannot start.
#[cfg(unix)]
fn run_in_place(mut command: Command, program: &str) -> Result<Outcome, CliError> {
    use std::os::unix::process::CommandExt;
    let source = command.exec();
    Err(ResumeError::Launch {
        program: program.to_owned(),
        source,
    }
    .into())
}

/// Runs the harness with this process's standard streams and exits with its exit code.
#[cfg(not(unix))]
fn run_in_place(mut command: Command, program: &str) -> Result<Outcome, CliError> {
    let status = command.status().map_err(|source| ResumeError::Launch {
        program: program.to_owned(),
        source,
    })?;
    std::process::exit(status.code().unwrap_or(1));
}
