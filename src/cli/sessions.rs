//! `esker sessions`: recent sessions as a table (title, source, project, started, duration,
//! turns, tokens), newest first, from the `list_sessions` tool; `--since/--until` are its
//! window, `--source` and `--project` filter its pages (followed by cursor until `-n` rows).

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::cli::style::{self, paint};
use crate::cli::window::Window;
use crate::cli::{CliError, Outcome, Reader, SessionFacts, print_json};
use crate::service::list_sessions::{ListSessions, MAX_LIMIT};

/// Where an open window starts and ends (list_sessions needs both ends).
const EARLIEST: &str = "1970-01-01T00:00:00Z";
const LATEST: &str = "9999-12-31T00:00:00Z";
/// Pages followed at most while filters drop sessions.
const MAX_PAGES: usize = 400;

#[derive(Debug, Clone, Default)]
pub struct SessionsOptions {
    pub sources: Vec<String>,
    pub project: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: usize,
    pub json: bool,
}

/// One listed session with the facts the table adds.
pub struct Listed {
    pub item: Value,
    pub facts: SessionFacts,
}

pub async fn run(reader: &Reader, options: &SessionsOptions) -> Result<Outcome, CliError> {
    let now = Utc::now();
    let window = Window::parse(options.since.as_deref(), options.until.as_deref(), now)?;
    let listed = list(reader, options, &window).await?;
    let outcome = Outcome::of_count(listed.len());
    if options.json {
        let sessions: Vec<Value> = listed.into_iter().map(|listed| listed.item).collect();
        print_json(&json!({"result_count": sessions.len(), "sessions": sessions}))?;
        return Ok(outcome);
    }
    if listed.is_empty() {
        eprintln!("no sessions");
        return Ok(outcome);
    }
    print!("{}", render_table(&listed, now, style::stdout_colors()));
    Ok(outcome)
}

/// The sessions `options` asks for (newest first, filtered, at most `options.limit`), each
/// with its facts: what `esker sessions` shows and `esker ui` lists.
pub async fn list(
    reader: &Reader,
    options: &SessionsOptions,
    window: &Window,
) -> Result<Vec<Listed>, CliError> {
    let wanted = options.limit.max(1);
    let filtered = !options.sources.is_empty() || options.project.is_some();
    let page_size = if filtered {
        MAX_LIMIT as usize
    } else {
        wanted.min(MAX_LIMIT as usize)
    };
    let mut arguments = json!({
        "start_datetime": window.since.map_or(EARLIEST.to_owned(), rfc3339),
        "end_datetime": window.until.map_or(LATEST.to_owned(), rfc3339),
        "limit": page_size,
    });
    let mut listed = Vec::new();
    for _ in 0..MAX_PAGES {
        let mut page = reader.call::<ListSessions>(arguments.clone()).await?;
        let items = match page["sessions"].take() {
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        let ids: Vec<&str> = items
            .iter()
            .filter_map(|item| item["id"].as_str())
            .collect();
        let facts = reader.session_facts(&ids).await?;
        for item in items {
            let session_facts = item["id"]
                .as_str()
                .and_then(|id| facts.get(id))
                .cloned()
                .unwrap_or_default();
            if keeps(options, &item, &session_facts) {
                listed.push(Listed {
                    item,
                    facts: session_facts,
                });
            }
        }
        let next_cursor = page["next_cursor"].take();
        if listed.len() >= wanted || next_cursor.is_null() {
            break;
        }
        arguments["cursor"] = next_cursor;
    }
    listed.truncate(wanted);
    Ok(listed)
}

fn rfc3339(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn keeps(options: &SessionsOptions, item: &Value, facts: &SessionFacts) -> bool {
    let source = item["session"]["source"].as_str().unwrap_or_default();
    (options.sources.is_empty() || options.sources.iter().any(|wanted| wanted == source))
        && options
            .project
            .as_deref()
            .is_none_or(|wanted| facts.matches_project(wanted))
}

/// Total tokens of a listed session, when the harness recorded usage.
pub fn total_tokens(item: &Value) -> Option<i64> {
    item["usage"]["total_tokens"]
        .as_i64()
        .or_else(|| item["session"]["usage"]["total_tokens"].as_i64())
}

fn render_table(listed: &[Listed], now: DateTime<Utc>, colors: bool) -> String {
    let header = [
        "TITLE", "SOURCE", "PROJECT", "STARTED", "DURATION", "TURNS", "TOKENS", "ID",
    ];
    let rows: Vec<[String; 8]> = listed.iter().map(|listed| row(listed, now)).collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(style::width(cell));
        }
    }
    let cell_styles = [
        style::TITLE,
        style::SOURCE,
        style::PROJECT,
        style::DIM,
        style::DIM,
        style::DIM,
        style::DIM,
        style::COMMAND,
    ];
    let right_aligned = [false, false, false, false, true, true, true, false];
    let mut out = String::new();
    let line = |cells: &[String], header_line: bool, out: &mut String| {
        let mut parts = Vec::with_capacity(cells.len());
        for (index, cell) in cells.iter().enumerate() {
            let padding = " ".repeat(widths[index] - style::width(cell));
            let padded = if right_aligned[index] {
                format!("{padding}{cell}")
            } else {
                format!("{cell}{padding}")
            };
            let cell_style = if header_line {
                style::DIM
            } else {
                cell_styles[index]
            };
            parts.push(paint(cell_style, &padded, colors));
        }
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(&header.map(str::to_owned), true, &mut out);
    for row in &rows {
        line(row, false, &mut out);
    }
    out
}

fn row(listed: &Listed, now: DateTime<Utc>) -> [String; 8] {
    let session = &listed.item["session"];
    let started = session["started_at"].as_str().and_then(style::parse_time);
    let updated = session["updated_at"].as_str().and_then(style::parse_time);
    let duration = match (started, updated) {
        (Some(started), Some(updated)) => style::duration_text((updated - started).num_seconds()),
        _ => "-".to_owned(),
    };
    [
        style::one_line(session["title"].as_str().unwrap_or("(untitled)"), 48),
        session["source"].as_str().unwrap_or_default().to_owned(),
        listed
            .facts
            .project
            .clone()
            .unwrap_or_else(|| "-".to_owned()),
        started.map_or("-".to_owned(), |time| style::relative_time(time, now)),
        duration,
        session["turn_count"].to_string(),
        total_tokens(&listed.item).map_or("-".to_owned(), style::thousands),
        listed.item["id"].as_str().unwrap_or_default().to_owned(),
    ]
}
