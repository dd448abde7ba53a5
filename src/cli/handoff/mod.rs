//! `esker handoff ID --to HARNESS [--write] [--budget TOKENS]`: hands a session's work over to
//! another agent (issue #52). ID is what `esker show` takes; a turn or event id stands for its
//! session and a sub-agent's session for the top-level session that started it, as in
//! `esker resume`.
//!
//! It prints a compact Markdown pack ([`pack`]) gathered through the service layer: the
//! session and its turns from `open` (the goal is the first prompt, the last state the final
//! responses of the last turns, each read in full through `open(event)` before it is cut), the
//! files its tool calls (and its sub-agents') touched (`queries/handoff_file_touches.sql`, the
//! rows `file_attention` answers from, by session rather than by file) and the failures of
//! its last turns (`queries/handoff_problems.sql`). Every item cites its esker id.
//!
//! `--write` also creates a new session in the target harness's own format holding the pack
//! ([`write`]: Claude Code and Codex), in the source session's working directory, and prints
//! its path and the command that resumes it ([`crate::resume`]).

pub mod pack;
pub mod write;

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::Value;

use crate::cli::resume::{SessionToResume, session_of, top_level_session};
use crate::cli::show::open;
use crate::cli::{CliError, Outcome, Reader};
use crate::model::Source;
use crate::service::catalog::{CatalogError, NamedQuery, text_list_parameter, text_parameter};
use crate::service::rows::{Row, RowError};
use pack::{Cited, FileTouch, LastTurn, Pack, Problem, SessionHeader};
use write::{Homes, NativeFormat, NewIds, WrittenAt};

const FILE_TOUCHES: NamedQuery = NamedQuery {
    name: "handoff_file_touches",
    sql: include_str!("../../../queries/handoff_file_touches.sql"),
};
const PROBLEMS: NamedQuery = NamedQuery {
    name: "handoff_problems",
    sql: include_str!("../../../queries/handoff_problems.sql"),
};

/// Turns whose final responses make the last state.
const LAST_TURNS: usize = 3;
/// Turns searched for failures.
const PROBLEM_TURNS: usize = 5;
/// Open problems listed at most.
const MAX_PROBLEMS: usize = 8;

/// The harness the work continues in (`--to`): any harness esker reads, by its source name
/// (`claude`, `gemini`) or its harness name (`claude-code`, `gemini-cli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target(Source);

impl Target {
    pub fn parse(name: &str) -> Result<Target, HandoffError> {
        let wanted = name.trim().to_lowercase();
        Source::parse(&wanted)
            .or_else(|| Source::from_harness(&wanted))
            .map(Target)
            .ok_or_else(|| HandoffError::UnknownHarness {
                name: name.to_owned(),
                known: Source::ALL
                    .iter()
                    .map(|source| source.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Its harness name (`claude-code`, `codex`, ...).
    pub fn harness(self) -> &'static str {
        self.0.harness()
    }

    /// The session format `--write` writes for it.
    pub fn native_format(self) -> Result<NativeFormat, HandoffError> {
        NativeFormat::of(self.0).ok_or_else(|| HandoffError::NotWritable {
            harness: self.harness().to_owned(),
        })
    }
}

/// What `esker handoff` was asked, validated before the store is opened.
#[derive(Debug, Clone)]
pub struct HandoffOptions {
    pub id: String,
    pub target: Target,
    /// `--write`: the format of the session to create.
    pub write: Option<NativeFormat>,
    pub budget: usize,
}

impl HandoffOptions {
    pub fn new(
        id: String,
        to: &str,
        write_session: bool,
        budget: usize,
    ) -> Result<Self, HandoffError> {
        let target = Target::parse(to)?;
        let format = if write_session {
            Some(target.native_format()?)
        } else {
            None
        };
        Ok(HandoffOptions {
            id,
            target,
            write: format,
            budget,
        })
    }
}

/// Why a hand-off failed.
#[derive(Debug, thiserror::Error)]
pub enum HandoffError {
    #[error("unknown harness {name:?} for --to; esker knows {known}")]
    UnknownHarness { name: String, known: String },
    #[error(
        "esker cannot write a {harness} session yet; --write supports {writable}",
        writable = write::WRITABLE
    )]
    NotWritable { harness: String },
    #[error(
        "no home directory to write the session under: set HOME (or CLAUDE_CONFIG_DIR, \
         CODEX_HOME)"
    )]
    NoHome,
    #[error("no working directory for the new session: {0}")]
    NoWorkingDirectory(std::io::Error),
    #[error(transparent)]
    Write(#[from] write::WriteError),
}

pub async fn run(reader: &Reader, options: &HandoffOptions) -> Result<Outcome, CliError> {
    let homes = match options.write {
        Some(_) => Some(Homes::from_process().ok_or(HandoffError::NoHome)?),
        None => None,
    };
    let asked_session_id = session_of(reader, &options.id).await?;
    let session = top_level_session(reader, &asked_session_id).await?;
    if session.session_id != asked_session_id {
        eprintln!(
            "esker: {asked_session_id} is a sub-agent's session; handing off {}, the session \
             that started it",
            session.session_id
        );
    }
    let gathered = gather(reader, &session, options.target).await?;
    let text = pack::render(&gathered, options.budget);
    // The file first: a pack printed for a session that could not be written would mislead.
    let written = match (options.write, homes) {
        (Some(format), Some(homes)) => Some(write_session(format, &homes, &session, &text)?),
        _ => None,
    };
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{text}")?;
    if let Some(written) = written {
        writeln!(stdout, "\nwrote {}", written.path.display())?;
        if let Some(line) = written.resume_line {
            writeln!(stdout, "resume: {line}")?;
        }
    }
    Ok(Outcome::Found)
}

/// A session file `--write` created.
struct Written {
    path: PathBuf,
    /// `cd DIR && COMMAND` that resumes it.
    resume_line: Option<String>,
}

fn write_session(
    format: NativeFormat,
    homes: &Homes,
    session: &SessionToResume,
    text: &str,
) -> Result<Written, CliError> {
    let cwd = match &session.cwd {
        Some(cwd) => cwd.clone(),
        None => {
            let here = std::env::current_dir().map_err(HandoffError::NoWorkingDirectory)?;
            eprintln!(
                "esker: {} records no working directory; the new session runs in {}",
                session.session_id,
                here.display()
            );
            here.display().to_string()
        }
    };
    let file = write::native_session(
        format,
        homes,
        &cwd,
        text,
        WrittenAt::now(),
        &NewIds::random(),
    );
    write::create_new(&file.path, &file.contents).map_err(HandoffError::from)?;
    let path_text = file.path.display().to_string();
    let resume_line = crate::resume::resume_line(
        format.source().as_str(),
        &file.native_id,
        &path_text,
        Some(&cwd),
    );
    Ok(Written {
        path: file.path,
        resume_line,
    })
}

/// Everything the pack shows of `session`.
async fn gather(
    reader: &Reader,
    session: &SessionToResume,
    target: Target,
) -> Result<Pack, CliError> {
    let opened = open(reader, &session.session_id).await?;
    let turns: Vec<&Value> = opened["turns"]
        .as_array()
        .map(|turns| turns.iter().collect())
        .unwrap_or_default();
    let goal = match turns.iter().find_map(|turn| excerpt(&turn["user_input"])) {
        Some(first_prompt) => Some(full_text(reader, &first_prompt.id, &first_prompt.text).await?),
        None => None,
    };
    let goal_event_id = goal.as_ref().map(|goal| goal.id.as_str());
    let mut last_turns = Vec::new();
    for turn in &turns[turns.len().saturating_sub(LAST_TURNS)..] {
        last_turns.push(last_turn(reader, turn, goal_event_id).await?);
    }
    let mut session_ids = vec![session.session_id.as_str()];
    session_ids.extend(
        opened["traversal"]["child_session_ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str),
    );
    let touches = file_touches(reader, &session_ids).await?;
    Ok(Pack {
        session: header(&opened["session"]),
        target: target.harness().to_owned(),
        goal,
        last_turns,
        files: pack::files_touched(&touches, session.cwd.as_deref()),
        problems: problems(reader, &session.session_id, &turns).await?,
        problem_turns: PROBLEM_TURNS,
    })
}

fn header(session: &Value) -> SessionHeader {
    let text = |key: &str| session[key].as_str().map(str::to_owned);
    SessionHeader {
        session_id: text("id").unwrap_or_default(),
        title: text("title").unwrap_or_default(),
        harness: text("harness").unwrap_or_default(),
        project: text("project"),
        cwd: text("cwd"),
        git_branch: text("git_branch"),
        started_at: text("started_at").unwrap_or_default(),
        updated_at: text("updated_at").unwrap_or_default(),
        turn_count: session["turn_count"].as_i64().unwrap_or_default(),
    }
}

/// A turn of open(session)'s summary as the last state shows it: its prompt (unless it is the
/// goal) from the summary's excerpt, its final response in full.
async fn last_turn(
    reader: &Reader,
    turn: &Value,
    goal_event_id: Option<&str>,
) -> Result<LastTurn, CliError> {
    let prompt =
        excerpt(&turn["user_input"]).filter(|prompt| Some(prompt.id.as_str()) != goal_event_id);
    let response = match excerpt(&turn["final_response"]) {
        Some(response) => Some(full_text(reader, &response.id, &response.text).await?),
        None => None,
    };
    Ok(LastTurn {
        turn_id: turn["id"].as_str().unwrap_or_default().to_owned(),
        ordinal: turn["ordinal"].as_i64().unwrap_or_default(),
        completed: turn["completed"].as_bool().unwrap_or(true),
        prompt,
        response,
    })
}

/// A turn summary's `{event_id, text}` excerpt.
fn excerpt(value: &Value) -> Option<Cited> {
    Some(Cited {
        id: value["event_id"].as_str()?.to_owned(),
        text: value["text"].as_str().unwrap_or_default().to_owned(),
    })
}

/// The whole text of an event (`open(event)`), or `excerpt` when the event cannot be opened.
async fn full_text(reader: &Reader, event_id: &str, excerpt: &str) -> Result<Cited, CliError> {
    let text = match open(reader, event_id).await {
        Ok(data) => data["content"]["text"]
            .as_str()
            .unwrap_or(excerpt)
            .to_owned(),
        Err(CliError::Tool { .. }) => excerpt.to_owned(),
        Err(error) => return Err(error),
    };
    Ok(Cited {
        text,
        id: event_id.to_owned(),
    })
}

fn row_error(query: NamedQuery) -> impl Fn(RowError) -> CliError {
    move |source| {
        CliError::Catalog(CatalogError::Rows {
            name: query.name,
            source,
        })
    }
}

/// Every file touch of the sessions, newest first.
async fn file_touches(reader: &Reader, session_ids: &[&str]) -> Result<Vec<FileTouch>, CliError> {
    let snapshot = reader.catalog.snapshot().await?;
    let rows = snapshot
        .run(FILE_TOUCHES, vec![text_list_parameter(session_ids)])
        .await?;
    rows.iter()
        .map(|row| {
            Ok(FileTouch {
                event_id: row.string("event_id")?.to_owned(),
                resolved_path: row.string("resolved_path")?.to_owned(),
                tool: row.string("tool")?.to_owned(),
                mutation: row.bool("mutation")?,
            })
        })
        .collect::<Result<Vec<_>, RowError>>()
        .map_err(row_error(FILE_TOUCHES))
}

/// An unfinished last turn, then the failures of the last [`PROBLEM_TURNS`] turns, newest
/// first.
async fn problems(
    reader: &Reader,
    session_id: &str,
    turns: &[&Value],
) -> Result<Vec<Problem>, CliError> {
    let Some(last) = turns.last() else {
        return Ok(Vec::new());
    };
    let last_turn_id = last["id"].as_str().unwrap_or_default();
    let last_ordinal = last["ordinal"].as_i64().unwrap_or(1);
    let mut problems = Vec::new();
    if last["completed"] == false {
        problems.push(Problem {
            text: format!(
                "Turn {last_ordinal}, the last, did not complete (interrupted, failed, or still \
                 running when indexed)"
            ),
            id: last_turn_id.to_owned(),
        });
    }
    let snapshot = reader.catalog.snapshot().await?;
    // The partition of the session's events, where the index locates its last turn.
    let Some(location) = snapshot.locate_turn(last_turn_id)? else {
        return Ok(problems);
    };
    let first_ordinal = (last_ordinal - PROBLEM_TURNS as i64 + 1).max(1);
    let parameters = vec![
        text_parameter(&location.source),
        text_parameter(&location.month),
        text_parameter(session_id),
        datafusion::scalar::ScalarValue::Int32(Some(first_ordinal as i32)),
    ];
    let rows = snapshot.run(PROBLEMS, parameters).await?;
    for row in rows.iter() {
        if problems.len() == MAX_PROBLEMS {
            break;
        }
        problems.push(failure(&row).map_err(row_error(PROBLEMS))?);
    }
    Ok(problems)
}

fn failure(row: &Row<'_>) -> Result<Problem, RowError> {
    Ok(Problem {
        text: failure_text(
            row.string("type")?,
            row.opt_string("tool_name")?,
            row.opt_i64("exit_code")?,
            row.i64("turn_ordinal")?,
            row.string("text_head")?,
        ),
        id: row.string("event_id")?.to_owned(),
    })
}

/// `Bash failed (exit 1) in turn 3: <what it printed>`, or `runtime error in turn 3: ...`.
pub fn failure_text(
    event_type: &str,
    tool_name: Option<&str>,
    exit_code: Option<i64>,
    turn_ordinal: i64,
    text: &str,
) -> String {
    let what = match (event_type, tool_name) {
        ("tool_response" | "tool_call", Some(tool)) => format!("{tool} failed"),
        ("tool_response" | "tool_call", None) => "a tool call failed".to_owned(),
        (other, _) => format!("{} error", other.replace('_', " ")),
    };
    let code = exit_code
        .filter(|code| *code != 0)
        .map(|code| format!(" (exit {code})"))
        .unwrap_or_default();
    let said = pack::one_line(text, 400);
    let mut line = format!("{what}{code} in turn {turn_ordinal}");
    if !said.is_empty() {
        line.push_str(": ");
        line.push_str(&said);
    }
    let mut characters = line.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_named_by_source_or_harness_name() {
        assert_eq!(Target::parse("codex").unwrap().harness(), "codex");
        assert_eq!(Target::parse("Claude").unwrap().harness(), "claude-code");
        assert_eq!(
            Target::parse("claude-code").unwrap().harness(),
            "claude-code"
        );
        assert_eq!(Target::parse("gemini-cli").unwrap().harness(), "gemini-cli");
        let error = Target::parse("vim").unwrap_err().to_string();
        assert!(error.contains("\"vim\""), "{error}");
        assert!(error.contains("claude, gemini"), "{error}");
    }

    #[test]
    fn write_is_only_offered_for_the_formats_esker_writes() {
        assert_eq!(
            HandoffOptions::new("session:x".into(), "claude", true, 10)
                .unwrap()
                .write,
            Some(NativeFormat::ClaudeCode)
        );
        assert_eq!(
            HandoffOptions::new("session:x".into(), "codex", true, 10)
                .unwrap()
                .write,
            Some(NativeFormat::Codex)
        );
        assert!(
            HandoffOptions::new("session:x".into(), "gemini", false, 10)
                .unwrap()
                .write
                .is_none()
        );
        let error = HandoffOptions::new("session:x".into(), "gemini", true, 10).unwrap_err();
        assert_eq!(
            error.to_string(),
            "esker cannot write a gemini-cli session yet; --write supports claude, codex"
        );
    }

    #[test]
    fn a_failure_names_its_tool_exit_code_turn_and_output() {
        assert_eq!(
            failure_text(
                "tool_response",
                Some("Bash"),
                Some(1),
                3,
                "Exit code 1\nFailures:\n  1) ParquetExporter"
            ),
            "Bash failed (exit 1) in turn 3: Exit code 1 Failures: 1) ParquetExporter"
        );
        assert_eq!(
            failure_text("tool_response", None, None, 2, ""),
            "A tool call failed in turn 2"
        );
        assert_eq!(
            failure_text("runtime", None, None, 4, "rate limited"),
            "Runtime error in turn 4: rate limited"
        );
    }
}
