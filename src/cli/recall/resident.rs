//! The resident recall: one process per store (`esker recall --resident`) that keeps the
//! catalog warm and answers hooks over a Unix socket in the data directory, so a hook's
//! recall is one round trip instead of opening a cold store (at 1M documents a cold recall
//! takes ~400 ms, mostly reading key columns and footers the warm process keeps).
//!
//! The hook side ([`ask`]) connects to `<data dir>/recall.sock`; when nothing listens it starts
//! a resident (detached, in its own process group) and answers this prompt itself, cold. The
//! resident ([`serve`]) holds `recall.lock` (one per store), follows new generations as `esker
//! serve` does, refuses a question from another build (and exits, so the next hook starts the
//! new binary), and exits after [`IDLE_EXIT`] without a question or when its socket is removed
//! or replaced. `ESKER_RECALL_RESIDENT=0` turns it off; `ESKER_RECALL_IDLE_SECS` sets the idle
//! time.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{DEADLINE, Request, block_with};
use crate::cli::sample::reading_location;
use crate::cli::{CliError, Reader};
use crate::service::catalog::{AnswerPath, Catalog};
use crate::store::Store;

/// The socket a resident listens on, in the store's data directory.
pub const SOCKET_NAME: &str = "recall.sock";
/// The file a resident holds locked while it runs (one resident per store).
pub const LOCK_NAME: &str = "recall.lock";
/// A resident with no question for this long exits.
pub const IDLE_EXIT: Duration = Duration::from_secs(15 * 60);
/// `0` here: hooks neither ask nor start a resident.
pub const SWITCH_VAR: &str = "ESKER_RECALL_RESIDENT";
/// Seconds a resident waits for a question before it exits ([`IDLE_EXIT`] unless set).
pub const IDLE_VAR: &str = "ESKER_RECALL_IDLE_SECS";

/// How often a resident looks at its socket and its idle time.
const CHECK_EVERY: Duration = Duration::from_millis(500);
/// Largest question or answer read from the socket.
const MAX_MESSAGE_BYTES: u64 = 4 << 20;
/// Longest path a Unix socket address holds (`sun_path`, 108 bytes on Linux, 104 on macOS).
const MAX_SOCKET_PATH: usize = 100;

/// Why a resident stopped before serving.
#[derive(Debug, thiserror::Error)]
pub enum ResidentError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the socket path {0} is too long for a Unix socket")]
    PathTooLong(PathBuf),
    #[error(transparent)]
    Cli(#[from] CliError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ResidentError + '_ {
    move |source| ResidentError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What a hook sends: its build and its request.
#[derive(Debug, Serialize, Deserialize)]
struct Question {
    build: String,
    request: Request,
}

/// What a resident sends back.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    /// The block (possibly empty: nothing relevant).
    Block(String),
    /// No block: the reason (another build, a bad question, a failed recall).
    Refused(String),
}

/// Whether hooks use a resident (`ESKER_RECALL_RESIDENT` is not `0`).
pub fn wanted() -> bool {
    switched_on(std::env::var(SWITCH_VAR).ok().as_deref())
}

fn switched_on(value: Option<&str>) -> bool {
    value.is_none_or(|value| value.trim() != "0")
}

/// The socket of the store at `data_dir`.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_NAME)
}

/// This binary's build: its version and its file's modification time, so a resident started
/// by an older binary never answers a newer one.
fn build_id() -> String {
    let stamp = std::env::current_exe()
        .and_then(fs::metadata)
        .map(|metadata| format!("{}.{}", metadata.mtime(), metadata.mtime_nsec()))
        .unwrap_or_default();
    format!("{} {stamp}", env!("CARGO_PKG_VERSION"))
}

/// The resident's block for `request`, or `None` when no resident answered in `wait` (one is
/// started when none listens; the caller then recalls itself).
pub(super) async fn ask(data_dir: &Path, request: &Request, wait: Duration) -> Option<String> {
    let (data_dir, request) = (data_dir.to_path_buf(), request.clone());
    tokio::task::spawn_blocking(move || ask_blocking(&data_dir, &request, wait))
        .await
        .ok()
        .flatten()
}

fn ask_blocking(data_dir: &Path, request: &Request, wait: Duration) -> Option<String> {
    let socket = socket_path(data_dir);
    let stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(error) => {
            tracing::debug!(%error, socket = %socket.display(), "no resident recall");
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) {
                start(data_dir);
            }
            return None;
        }
    };
    let question = Question {
        build: build_id(),
        request: request.clone(),
    };
    match exchange(stream, &question, wait) {
        Ok(Answer::Block(block)) => {
            tracing::debug!("answered by the resident recall");
            Some(block)
        }
        Ok(Answer::Refused(reason)) => {
            tracing::debug!(reason, "the resident recall refused");
            None
        }
        Err(error) => {
            tracing::debug!(%error, "the resident recall did not answer in time");
            None
        }
    }
}

fn exchange(
    mut stream: UnixStream,
    question: &Question,
    wait: Duration,
) -> std::io::Result<Answer> {
    stream.set_write_timeout(Some(wait))?;
    stream.set_read_timeout(Some(wait))?;
    let mut line = serde_json::to_vec(question)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let mut answer = Vec::new();
    stream.take(MAX_MESSAGE_BYTES).read_to_end(&mut answer)?;
    Ok(serde_json::from_slice(&answer)?)
}

/// Starts `esker recall --resident` for `data_dir`, detached: no stdio, its own process group
/// (an agent that kills its hook's group leaves it running). Failures are only logged.
fn start(data_dir: &Path) {
    let no_store = fs::symlink_metadata(data_dir.join("current")).is_err();
    if no_store || socket_path(data_dir).as_os_str().len() > MAX_SOCKET_PATH {
        return;
    }
    let spawned = std::env::current_exe().and_then(|exe| {
        use std::os::unix::process::CommandExt;
        std::process::Command::new(exe)
            .arg("recall")
            .arg("--resident")
            .arg("--data-dir")
            .arg(data_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
    });
    match spawned {
        Ok(child) => tracing::debug!(pid = child.id(), "started a resident recall"),
        Err(error) => tracing::debug!(%error, "cannot start a resident recall"),
    }
}

/// The idle time before a resident exits: `ESKER_RECALL_IDLE_SECS`, else [`IDLE_EXIT`].
fn idle_exit() -> Duration {
    idle_exit_of(std::env::var(IDLE_VAR).ok().as_deref())
}

fn idle_exit_of(value: Option<&str>) -> Duration {
    value
        .and_then(|secs| secs.trim().parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map_or(IDLE_EXIT, Duration::from_secs_f64)
}

/// Runs the resident recall for the store at `data_dir` until it is idle for its idle time,
/// its socket is removed or replaced, or a hook of another build asks. Returns at once when
/// another resident runs or there is no store (the sample store is nobody's history).
pub async fn serve(data_dir: &Path) -> Result<(), ResidentError> {
    let location = reading_location(data_dir);
    if location.sample {
        return Ok(());
    }
    let data_dir = location.data_dir.clone();
    let socket = socket_path(&data_dir);
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(ResidentError::PathTooLong(socket));
    }
    Store::open_existing(&data_dir)
        .map_err(CliError::from)?
        .verify()
        .map_err(CliError::from)?;
    let lock_path = data_dir.join(LOCK_NAME);
    let Some(_lock) = take_lock(&lock_path)? else {
        tracing::debug!("another resident recall runs for this store");
        return Ok(());
    };
    let catalog = Catalog::open_with(&data_dir, AnswerPath::Fastest).map_err(CliError::from)?;
    catalog.snapshot().await.map_err(CliError::from)?;
    let reader = Reader { catalog, location };
    let _ = fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).map_err(io_error(&socket))?;
    fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)).map_err(io_error(&socket))?;
    let identity = fs::metadata(&socket).map_err(io_error(&socket))?.ino();
    tracing::debug!(socket = %socket.display(), "resident recall listening");
    let shared = Arc::new(Shared {
        reader,
        build: build_id(),
        last_question: Mutex::new(Instant::now()),
        other_build: AtomicBool::new(false),
        runtime: tokio::runtime::Handle::current(),
    });
    let accepting = Arc::clone(&shared);
    std::thread::Builder::new()
        .name("esker-recall-accept".to_owned())
        .spawn(move || accept_all(&listener, &accepting))
        .map_err(io_error(&socket))?;
    let stop = watch(&socket, identity, &shared).await;
    tracing::debug!(?stop, "resident recall stops");
    if fs::metadata(&socket).is_ok_and(|metadata| metadata.ino() == identity) {
        let _ = fs::remove_file(&socket);
    }
    Ok(())
}

/// What the accepting thread, the answering threads and the watch share.
struct Shared {
    reader: Reader,
    build: String,
    last_question: Mutex<Instant>,
    /// Set when a hook of another build asked.
    other_build: AtomicBool,
    runtime: tokio::runtime::Handle,
}

/// Why a resident stops.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    Idle,
    SocketGone,
    OtherBuild,
}

/// Waits until the resident should stop.
async fn watch(socket: &Path, identity: u64, shared: &Shared) -> Stop {
    let idle_limit = idle_exit();
    loop {
        tokio::time::sleep(CHECK_EVERY).await;
        let idle = shared
            .last_question
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .elapsed();
        if shared.other_build.load(Ordering::Relaxed) {
            return Stop::OtherBuild;
        }
        if idle >= idle_limit {
            return Stop::Idle;
        }
        if !fs::metadata(socket).is_ok_and(|metadata| metadata.ino() == identity) {
            return Stop::SocketGone;
        }
    }
}

/// Accepts connections for the resident's life, each answered on a thread of its own.
fn accept_all(listener: &UnixListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        *shared
            .last_question
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        let shared = Arc::clone(shared);
        let _ = std::thread::Builder::new()
            .name("esker-recall-answer".to_owned())
            .spawn(move || answer(stream, &shared));
    }
}

/// Answers one connection (a question from another build also stops the resident).
fn answer(stream: UnixStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(DEADLINE));
    let _ = stream.set_write_timeout(Some(DEADLINE));
    let mut line = String::new();
    let read = BufReader::new((&stream).take(MAX_MESSAGE_BYTES)).read_line(&mut line);
    let answer = match read.map(|_| serde_json::from_str::<Question>(&line)) {
        Err(error) => Answer::Refused(format!("cannot read: {error}")),
        Ok(Err(error)) => Answer::Refused(format!("not a question: {error}")),
        Ok(Ok(question)) if question.build != shared.build => {
            shared.other_build.store(true, Ordering::Relaxed);
            Answer::Refused(format!(
                "resident build {}, asked by {}",
                shared.build, question.build
            ))
        }
        Ok(Ok(question)) => {
            // The timer is made inside the runtime (`block_on` enters it).
            let block = shared.runtime.block_on(async {
                tokio::time::timeout(DEADLINE, block_with(&shared.reader, &question.request)).await
            });
            match block {
                Ok(Ok(block)) => Answer::Block(block),
                Ok(Err(error)) => Answer::Refused(error.to_string()),
                Err(_) => Answer::Refused("over the deadline".to_owned()),
            }
        }
    };
    if let Ok(bytes) = serde_json::to_vec(&answer) {
        let mut stream = &stream;
        let _ = stream.write_all(&bytes);
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
}

/// The resident's lock, or `None` when another resident holds it.
fn take_lock(path: &Path) -> Result<Option<fs::File>, ResidentError> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error(path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(error)) => Err(io_error(path)(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_and_the_idle_time_are_read_from_their_values() {
        assert!(switched_on(None));
        assert!(switched_on(Some("1")));
        assert!(!switched_on(Some(" 0 ")));
        assert_eq!(idle_exit_of(Some(" 2.5 ")), Duration::from_millis(2500));
        assert_eq!(idle_exit_of(Some("-1")), IDLE_EXIT);
        assert_eq!(idle_exit_of(Some("never")), IDLE_EXIT);
        assert_eq!(idle_exit_of(None), IDLE_EXIT);
    }

    #[test]
    fn a_question_and_its_answers_round_trip_as_json() {
        let question = Question {
            build: build_id(),
            request: Request {
                prompt: Some("migration".to_owned()),
                cwd: PathBuf::from("/w"),
                running_session: None,
                budget: 10,
            },
        };
        let text = serde_json::to_string(&question).unwrap();
        let back: Question = serde_json::from_str(&text).unwrap();
        assert_eq!(back.build, question.build);
        assert_eq!(back.request.prompt.as_deref(), Some("migration"));
        let answer: Answer =
            serde_json::from_str(&serde_json::to_string(&Answer::Block("b".into())).unwrap())
                .unwrap();
        assert!(matches!(answer, Answer::Block(block) if block == "b"));
        assert!(build_id().starts_with(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn a_second_resident_does_not_take_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_NAME);
        let first = take_lock(&path).unwrap();
        assert!(first.is_some());
        assert!(take_lock(&path).unwrap().is_none());
        drop(first);
        assert!(take_lock(&path).unwrap().is_some());
    }
}
