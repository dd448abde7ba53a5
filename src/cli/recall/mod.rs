//! `esker recall`: the few past events, sessions and memory entries most relevant to a prompt
//! (or, with no prompt, to the project of the working directory), as a bounded context block
//! for an agent's hook ([`block`]). It searches through the same tool handlers as `esker
//! search` and `esker sessions` ([`Reader::call`]) and the memory service of `esker memory`.
//!
//! A hook must never block or break its agent: [`run_guarded`] answers within [`DEADLINE`]
//! and turns every failure (no store, a broken store, bad stdin, a panic, the deadline) into
//! an empty answer, logged through `tracing` only (off unless `ESKER_LOG` asks).

pub mod block;
pub mod hook;
pub mod resident;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::sample::{StoreLocation, reading_location};
use crate::cli::{CliError, Reader, SessionFacts};
use crate::memory::MemoryError;
use crate::memory::policy::Policy;
use crate::memory::service::{MemoryService, MemorySettings, SearchRequest, project_of_dir};
use crate::service::catalog::{AnswerPath, Catalog};
use crate::service::file_attention::tail::LaunchProject;
use crate::service::list_sessions::{ListSessions, MAX_LIMIT};
use crate::service::project_scope::{ProjectScope, ProjectScopeError};
use crate::service::search_sessions::{MAX_N_HITS, SearchSessions};
use crate::store::Store;
use block::{Kind, Recalled};
use hook::{Agent, HookInput, HookInputError};

/// The token budget of a block unless `--budget` says otherwise.
pub const DEFAULT_BUDGET: usize = 1500;

/// The whole recall, stdin included, ends by then unless told otherwise (a hook's answer comes
/// in time or never).
pub const DEADLINE: Duration = Duration::from_secs(1);

/// Least normalized score (`raw / (raw + 1)`) of a search hit worth showing: a raw BM25 of 1,
/// below what one exact match of a rare word earns.
pub const MIN_HIT_SCORE: f64 = 0.5;

/// Longest prompt searched, in characters (the tools accept 4096).
const MAX_QUERY_CHARS: usize = 1000;

/// Largest hook input read from stdin.
const MAX_STDIN_BYTES: u64 = 1 << 20;

/// Memory entries and recent sessions looked at.
const MEMORY_LIMIT: usize = 5;
const RECENT_SESSIONS: usize = 5;

/// Pages of the session listing looked through for the project's recent sessions.
const MAX_SESSION_PAGES: usize = 10;

/// What `esker recall` was asked.
#[derive(Debug, Clone, Default)]
pub struct RecallOptions {
    pub prompt: Option<String>,
    pub cwd: Option<PathBuf>,
    pub budget: usize,
    pub data_dir: PathBuf,
    /// Read the agent's hook JSON from stdin and answer in its format.
    pub hook: Option<Agent>,
    /// When to give up ([`DEADLINE`] unless set).
    pub deadline: Option<Duration>,
    /// Ask the store's resident recall first, starting one when none runs
    /// ([`resident`]; `esker recall` sets it unless `ESKER_RECALL_RESIDENT=0`).
    pub resident: bool,
}

/// Why a recall printed nothing.
#[derive(Debug, thiserror::Error)]
pub enum RecallError {
    #[error(transparent)]
    Cli(#[from] CliError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error(transparent)]
    HookInput(#[from] HookInputError),
    #[error(transparent)]
    Scope(#[from] ProjectScopeError),
    #[error("cannot read the hook input: {0}")]
    Stdin(String),
    #[error("no working directory: {0}")]
    NoCwd(std::io::Error),
    #[error("recall took longer than {0:?}")]
    Deadline(Duration),
    #[error("recall failed unexpectedly: {0}")]
    Panicked(String),
}

/// What to recall for, once the hook input and the options are merged.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Request {
    prompt: Option<String>,
    cwd: PathBuf,
    /// The running session, kept out of the answer.
    running_session: Option<String>,
    budget: usize,
}

/// The text to print: the agent's answer, or nothing on any failure (logged at debug).
pub async fn run_guarded(options: RecallOptions) -> String {
    let deadline = options.deadline.unwrap_or(DEADLINE);
    let task = tokio::spawn(async move { recall(&options).await });
    let outcome = match tokio::time::timeout(deadline, task).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(join_error)) => Err(RecallError::Panicked(join_error.to_string())),
        Err(_) => Err(RecallError::Deadline(deadline)),
    };
    outcome.unwrap_or_else(|error| {
        tracing::debug!("esker recall printed nothing: {error}");
        String::new()
    })
}

/// The recall itself: the block, in the hook's format when it runs as one.
pub async fn recall(options: &RecallOptions) -> Result<String, RecallError> {
    let input = match options.hook {
        Some(_) => HookInput::parse(&read_stdin().await?)?,
        None => HookInput::default(),
    };
    if options.hook.is_some_and(|agent| agent.ignores(&input)) {
        return Ok(String::new());
    }
    let request = request_of(options, &input)?;
    let deadline = options.deadline.unwrap_or(DEADLINE);
    let block = recall_block(&options.data_dir, &request, options.resident, deadline).await?;
    Ok(match options.hook {
        Some(agent) => agent.output(&input, &block),
        None => block,
    })
}

fn request_of(options: &RecallOptions, input: &HookInput) -> Result<Request, RecallError> {
    let from_agent = options.hook.and_then(Agent::project_dir);
    let cwd = match (input.cwd(), &options.cwd, from_agent) {
        (Some(cwd), _, _) => PathBuf::from(cwd),
        (_, Some(cwd), _) => cwd.clone(),
        (_, _, Some(project)) => project,
        _ => std::env::current_dir().map_err(RecallError::NoCwd)?,
    };
    let prompt = options
        .prompt
        .as_deref()
        .map(str::trim)
        .filter(|prompt| !prompt.is_empty())
        .or_else(|| input.prompt())
        .map(query_of);
    Ok(Request {
        prompt,
        cwd,
        running_session: input.session().map(str::to_owned),
        budget: options.budget,
    })
}

/// The prompt as a search query: quotes dropped (a quoted phrase would be required), cut to
/// [`MAX_QUERY_CHARS`].
fn query_of(prompt: &str) -> String {
    prompt
        .chars()
        .map(|c| {
            if matches!(c, '"' | '“' | '”') {
                ' '
            } else {
                c
            }
        })
        .take(MAX_QUERY_CHARS)
        .collect()
}

/// The whole of stdin, read on a thread of its own so a stdin that never closes only costs
/// the deadline.
async fn read_stdin() -> Result<String, RecallError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("esker-recall-stdin".to_owned())
        .spawn(move || {
            let mut text = String::new();
            let read = std::io::Read::read_to_string(
                &mut std::io::Read::take(std::io::stdin().lock(), MAX_STDIN_BYTES),
                &mut text,
            );
            let _ = sender.send(read.map(|_| text));
        })
        .map_err(|error| RecallError::Stdin(error.to_string()))?;
    match receiver.await {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(error)) => Err(RecallError::Stdin(error.to_string())),
        Err(_) => Err(RecallError::Stdin("the reader stopped".to_owned())),
    }
}

/// The block for `request` over the store at `data_dir`; empty for the sample store (its
/// sessions are nobody's history). With `resident`, the store's resident recall answers when
/// it runs (within half the deadline); else the store is opened here, cold.
async fn recall_block(
    data_dir: &Path,
    request: &Request,
    resident: bool,
    deadline: Duration,
) -> Result<String, RecallError> {
    let location = reading_location(data_dir);
    if location.sample {
        return Ok(String::new());
    }
    if resident && let Some(block) = resident::ask(&location.data_dir, request, deadline / 2).await
    {
        return Ok(block);
    }
    let reader = open_reader(location).await?;
    block_with(&reader, request).await
}

/// The block for `request` read through `reader`.
async fn block_with(reader: &Reader, request: &Request) -> Result<String, RecallError> {
    let project = Project::of_cwd(&request.cwd)?;
    let memory = MemoryService::new(
        reader.catalog.store().clone(),
        Policy::default(),
        MemorySettings {
            project: project.name.clone(),
            project_root: request.cwd.clone(),
        },
    );
    let mut items = memory_items(&memory, request, &project)?;
    items.extend(match &request.prompt {
        Some(prompt) => event_items(reader, prompt, request, &project).await?,
        None => session_items(reader, request, &project).await?,
    });
    block::order(&mut items);
    Ok(block::render(&items, request.budget))
}

/// The store for reading, without the notices a person's command prints.
async fn open_reader(location: StoreLocation) -> Result<Reader, CliError> {
    Store::open_existing(&location.data_dir)?.verify()?;
    let catalog = Catalog::open_with(&location.data_dir, AnswerPath::SqlOnly)?;
    catalog.snapshot().await?;
    Ok(Reader { catalog, location })
}

/// The project of the working directory: its Git checkout and worktrees (as `esker serve
/// --project-only` scopes), or the directory itself when it is not on this machine.
struct Project {
    scope: ProjectScope,
    /// The name memory entries carry (the root's last path component).
    name: String,
}

impl Project {
    fn of_cwd(cwd: &Path) -> Result<Project, ProjectScopeError> {
        let scope = match ProjectScope::of_launch_dir(cwd) {
            Ok(scope) => scope,
            Err(ProjectScopeError::NoLaunchDirectory(_)) => {
                let dir = cwd.display().to_string();
                ProjectScope::of_project(LaunchProject {
                    launch_dir: dir.clone(),
                    root: dir.clone(),
                    roots: vec![dir],
                })?
            }
            Err(error) => return Err(error),
        };
        let name = project_of_dir(Path::new(scope.root()));
        Ok(Project { scope, name })
    }

    fn holds(&self, facts: &SessionFacts) -> bool {
        facts
            .cwd
            .as_deref()
            .is_some_and(|cwd| self.scope.contains_cwd(cwd))
    }
}

/// Memory entries: those matching the prompt, or the project's newest without one.
fn memory_items(
    memory: &MemoryService,
    request: &Request,
    project: &Project,
) -> Result<Vec<Recalled>, RecallError> {
    let entry =
        |id: &str, title: &str, entry_type: &str, entry_project: &str, created: &str| Recalled {
            kind: Kind::Memory,
            date: block::date_of(created),
            harness: format!("memory/{entry_type}"),
            project: Some(entry_project.to_owned()),
            text: title.to_owned(),
            id: id.to_owned(),
            in_project: entry_project == project.name,
        };
    let Some(prompt) = &request.prompt else {
        let recent = memory.recent(Some(&project.name), None, MEMORY_LIMIT)?;
        return Ok(recent
            .iter()
            .map(|item| {
                entry(
                    &item.id,
                    &item.title,
                    &item.entry_type,
                    &item.project,
                    &item.created_at,
                )
            })
            .collect());
    };
    let found = memory.search(&SearchRequest {
        query: prompt.clone(),
        limit: Some(MEMORY_LIMIT as i64),
        ..SearchRequest::default()
    })?;
    Ok(found
        .items
        .iter()
        .filter(|item| item.score > 0.0)
        .map(|item| {
            entry(
                &item.id,
                &item.title,
                &item.entry_type,
                &item.project,
                &item.created_at,
            )
        })
        .collect())
}

/// The events `search_sessions` finds for the prompt, above [`MIN_HIT_SCORE`], outside the
/// running session.
async fn event_items(
    reader: &Reader,
    prompt: &str,
    request: &Request,
    project: &Project,
) -> Result<Vec<Recalled>, RecallError> {
    let mut data = reader
        .call::<SearchSessions>(json!({"query": prompt, "n_hits": MAX_N_HITS}))
        .await?;
    let hits: Vec<Value> = match data["results"].take() {
        Value::Array(hits) => hits,
        _ => Vec::new(),
    };
    let hits: Vec<Value> = hits
        .into_iter()
        .filter(|hit| hit["score"].as_f64().unwrap_or(0.0) >= MIN_HIT_SCORE)
        .filter(|hit| !is_running(request, hit["session"]["id"].as_str()))
        .collect();
    let hits = answers_before_their_prompts(hits);
    let facts = facts_of(reader, &hits, |hit| hit["session"]["id"].as_str()).await?;
    Ok(hits
        .iter()
        .map(|hit| {
            let facts = session_facts(&facts, hit["session"]["id"].as_str());
            Recalled {
                kind: Kind::History,
                date: hit["event"]["timestamp"]
                    .as_str()
                    .or_else(|| hit["session"]["updated_at"].as_str())
                    .and_then(block::date_of),
                harness: harness(&hit["session"]),
                project: facts.project.clone(),
                text: hit["snippet"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                id: hit["id"].as_str().unwrap_or_default().to_owned(),
                in_project: project.holds(&facts),
            }
        })
        .filter(|item| !item.id.is_empty())
        .collect())
}

/// `hits` in rank order, except that a reply found below its own turn's prompt moves up to
/// just before that prompt: a past prompt reads like the new one and outranks the answer the
/// agent needs (the planted-fact benchmark, `benches/recall_quality`, cites the answer first
/// more often so).
fn answers_before_their_prompts(hits: Vec<Value>) -> Vec<Value> {
    let mut left: Vec<Option<Value>> = hits.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(left.len());
    for at in 0..left.len() {
        let Some(hit) = left[at].take() else {
            continue;
        };
        if hit["event"]["type"] == "user_input" {
            let reply = left[at + 1..].iter_mut().find(|later| {
                later.as_ref().is_some_and(|later| {
                    later["event"]["type"] == "assistant_response"
                        && later["turn"]["id"] == hit["turn"]["id"]
                        && !hit["turn"]["id"].is_null()
                })
            });
            if let Some(reply) = reply.and_then(Option::take) {
                ordered.push(reply);
            }
        }
        ordered.push(hit);
    }
    ordered
}

/// With no prompt: the project's most recently updated sessions (the listing's pages, newest
/// first, until [`RECENT_SESSIONS`] are found or [`MAX_SESSION_PAGES`] are read).
async fn session_items(
    reader: &Reader,
    request: &Request,
    project: &Project,
) -> Result<Vec<Recalled>, RecallError> {
    let mut arguments = json!({
        "start_datetime": "1970-01-01T00:00:00Z",
        "end_datetime": "9999-12-31T00:00:00Z",
        "limit": MAX_LIMIT,
    });
    let mut items = Vec::new();
    for _ in 0..MAX_SESSION_PAGES {
        let mut page = reader.call::<ListSessions>(arguments.clone()).await?;
        let sessions: Vec<Value> = match page["sessions"].take() {
            Value::Array(sessions) => sessions,
            _ => Vec::new(),
        };
        let facts = facts_of(reader, &sessions, |item| item["id"].as_str()).await?;
        items.extend(
            sessions
                .iter()
                .filter(|item| !is_running(request, item["id"].as_str()))
                .filter_map(|item| {
                    let facts = session_facts(&facts, item["id"].as_str());
                    project.holds(&facts).then(|| session_item(item, &facts))
                })
                .filter(|item| !item.id.is_empty()),
        );
        let next_cursor = page["next_cursor"].take();
        if items.len() >= RECENT_SESSIONS || next_cursor.is_null() {
            break;
        }
        arguments["cursor"] = next_cursor;
    }
    items.truncate(RECENT_SESSIONS);
    Ok(items)
}

fn session_item(item: &Value, facts: &SessionFacts) -> Recalled {
    Recalled {
        kind: Kind::History,
        date: item["session"]["updated_at"]
            .as_str()
            .and_then(block::date_of),
        harness: harness(&item["session"]),
        project: facts.project.clone(),
        text: item["session"]["title"]
            .as_str()
            .unwrap_or("(untitled)")
            .to_owned(),
        id: item["id"].as_str().unwrap_or_default().to_owned(),
        in_project: true,
    }
}

async fn facts_of(
    reader: &Reader,
    items: &[Value],
    session_id: impl Fn(&Value) -> Option<&str>,
) -> Result<HashMap<String, SessionFacts>, CliError> {
    let mut ids: Vec<&str> = items.iter().filter_map(session_id).collect();
    ids.sort_unstable();
    ids.dedup();
    reader.session_facts(&ids).await
}

fn session_facts(facts: &HashMap<String, SessionFacts>, id: Option<&str>) -> SessionFacts {
    id.and_then(|id| facts.get(id)).cloned().unwrap_or_default()
}

/// The harness's name (`Claude Code`), else the source.
fn harness(session: &Value) -> String {
    session["harness"]
        .as_str()
        .or_else(|| session["source"].as_str())
        .unwrap_or("?")
        .to_owned()
}

/// Whether an indexed session is the one the hook runs in (the agent's id is part of it).
fn is_running(request: &Request, session_id: Option<&str>) -> bool {
    match (&request.running_session, session_id) {
        (Some(running), Some(id)) => holds_as_a_whole(id, running.trim()),
        _ => false,
    }
}

/// Whether `part` occurs in `id` as a whole: not inside a longer run of letters and digits, so
/// a short or empty running id (`x`) never matches every session (`session:codex-…`).
fn holds_as_a_whole(id: &str, part: &str) -> bool {
    !part.is_empty()
        && id.match_indices(part).any(|(at, _)| {
            let before = id[..at].chars().next_back();
            let after = id[at + part.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(running: Option<&str>) -> Request {
        Request {
            prompt: None,
            cwd: PathBuf::from("/w"),
            running_session: running.map(str::to_owned),
            budget: DEFAULT_BUDGET,
        }
    }

    #[test]
    fn the_running_session_is_recognised_inside_the_indexed_id() {
        let running = request(Some("3f2b8c1e-5a47"));
        assert!(is_running(&running, Some("session:claude:3f2b8c1e-5a47")));
        assert!(!is_running(&running, Some("session:codex:019c")));
        assert!(!is_running(
            &request(None),
            Some("session:claude:3f2b8c1e-5a47")
        ));
    }

    #[test]
    fn a_short_or_empty_running_id_matches_no_other_session() {
        for running in ["x", "", "  ", "019c", "d9"] {
            assert!(
                !is_running(&request(Some(running)), Some("session:codex-019cebc9-d900")),
                "{running:?}"
            );
        }
        assert!(is_running(
            &request(Some("019cebc9-d900")),
            Some("session:codex-019cebc9-d900")
        ));
        assert!(is_running(
            &request(Some("3f2b8c1e")),
            Some("session:claude-3f2b8c1e-agent-a1")
        ));
    }

    #[test]
    fn a_reply_moves_up_to_just_before_its_own_prompt_only() {
        let hit = |id: &str, kind: &str, turn: &str| json!({"id": id, "event": {"type": kind}, "turn": {"id": turn}});
        let hits = vec![
            hit("a", "tool_result", "t0"),
            hit("p1", "user_input", "t1"),
            hit("b", "assistant_response", "t2"),
            hit("r1", "assistant_response", "t1"),
            hit("p2", "user_input", "t2"),
            hit("p3", "user_input", "t3"),
            hit("r1b", "assistant_response", "t1"),
        ];
        let ids: Vec<String> = answers_before_their_prompts(hits)
            .iter()
            .map(|hit| hit["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids, ["a", "r1", "p1", "b", "p2", "p3", "r1b"]);
    }

    #[test]
    fn quotes_are_dropped_and_long_prompts_cut() {
        assert_eq!(query_of("the \"exact\" “words”"), "the  exact   words ");
        assert_eq!(query_of(&"x".repeat(5000)).chars().count(), MAX_QUERY_CHARS);
    }

    #[test]
    fn the_hook_cwd_wins_and_an_empty_prompt_is_none() {
        let options = RecallOptions {
            prompt: Some("  ".to_owned()),
            cwd: Some(PathBuf::from("/opt")),
            ..RecallOptions::default()
        };
        let input = HookInput {
            cwd: Some("/home/dev/webapp".to_owned()),
            prompt: Some("migration".to_owned()),
            ..HookInput::default()
        };
        let request = request_of(&options, &input).unwrap();
        assert_eq!(request.cwd, PathBuf::from("/home/dev/webapp"));
        assert_eq!(request.prompt.as_deref(), Some("migration"));
        let request = request_of(&options, &HookInput::default()).unwrap();
        assert_eq!(request.cwd, PathBuf::from("/opt"));
        assert_eq!(request.prompt, None);
    }

    #[test]
    fn a_directory_not_on_this_machine_is_its_own_project() {
        let project = Project::of_cwd(Path::new("/nonexistent-esker/webapp")).unwrap();
        assert_eq!(project.name, "webapp");
        let facts = |cwd: &str| SessionFacts {
            cwd: Some(cwd.to_owned()),
            ..SessionFacts::default()
        };
        assert!(project.holds(&facts("/nonexistent-esker/webapp")));
        assert!(project.holds(&facts("/nonexistent-esker/webapp/src")));
        assert!(!project.holds(&facts("/nonexistent-esker/webapp2")));
        assert!(!project.holds(&SessionFacts::default()));
    }
}
