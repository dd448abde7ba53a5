//! `esker memory add|search|list`: memory entries for people, through the same service the
//! `memory` MCP profile runs. `add` saves (durable when it returns) and folds the entry into
//! the store right away unless another writer holds the lock; `search` ranks like the
//! `search` tool; `list` shows the newest entries. Exit codes: 0 saved / found, 1 nothing
//! found, 2 error (a refused secret included).

use std::path::Path;

use chrono::Utc;
use serde_json::json;

use crate::cli::sample::reading_location;
use crate::cli::style::{self, paint};
use crate::cli::{CliError, Outcome, print_json};
use crate::memory::entry::Draft;
use crate::memory::fold::{FoldOutcome, fold_if_unlocked};
use crate::memory::policy::Policy;
use crate::memory::service::{DetailItem, IndexItem, MemoryService, MemorySettings, SearchRequest};
use crate::store::Store;

/// How `esker memory add` names itself in the writer lock.
const WRITER_ROLE: &str = "esker memory add";

/// `esker memory add`.
#[derive(Debug, Clone, Default)]
pub struct AddOptions {
    pub draft: Draft,
    pub json: bool,
}

/// `esker memory search`.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    pub request: SearchRequest,
    pub json: bool,
}

/// `esker memory list`.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub project: Option<String>,
    pub entry_type: Option<String>,
    pub limit: usize,
    pub json: bool,
}

/// The service over the store at `data_dir` (created when there is none: entries need no
/// logs), defaulting to `project` or the working directory's name.
pub fn open_service(
    data_dir: &Path,
    project: Option<&str>,
    policy: Policy,
) -> Result<MemoryService, CliError> {
    let location = reading_location(data_dir);
    let store = Store::open(&location.data_dir)?;
    Ok(MemoryService::new(
        store,
        policy,
        MemorySettings::from_cwd(project),
    ))
}

pub async fn add(service: &MemoryService, options: &AddOptions) -> Result<Outcome, CliError> {
    let saved = service.save(options.draft.clone())?;
    let folded = match fold_if_unlocked(service.store(), WRITER_ROLE).await {
        Ok(FoldOutcome::Locked) => {
            eprintln!(
                "another esker writer holds the store: the entry is saved and will be folded at its next commit"
            );
            false
        }
        Ok(_) => true,
        Err(error) => {
            eprintln!("esker: the entry is saved; folding it into the store failed: {error}");
            false
        }
    };
    if options.json {
        print_json(&json!({
            "status": saved.status,
            "id": saved.id,
            "created_at": saved.created_at,
            "folded": folded,
        }))?;
    } else {
        println!("saved {} ({})", saved.id, saved.created_at);
    }
    Ok(Outcome::Found)
}

pub fn search(service: &MemoryService, options: &SearchOptions) -> Result<Outcome, CliError> {
    let response = service.search(&options.request)?;
    let outcome = Outcome::of_count(response.items.len());
    if options.json {
        print_json(&serde_json::to_value(&response).map_err(std::io::Error::other)?)?;
        return Ok(outcome);
    }
    if response.items.is_empty() {
        eprintln!("no memory entries match");
        return Ok(outcome);
    }
    let colors = style::stdout_colors();
    for item in &response.items {
        print!("{}", render_item(item, colors));
    }
    eprintln!(
        "{} of {} matching entries",
        response.items.len(),
        response.total
    );
    Ok(outcome)
}

pub fn list(service: &MemoryService, options: &ListOptions) -> Result<Outcome, CliError> {
    let items = service.recent(
        options.project.as_deref(),
        options.entry_type.as_deref(),
        options.limit,
    )?;
    let outcome = Outcome::of_count(items.len());
    if options.json {
        print_json(&json!({ "items": items }))?;
        return Ok(outcome);
    }
    if items.is_empty() {
        eprintln!("no memory entries");
        return Ok(outcome);
    }
    let colors = style::stdout_colors();
    for item in &items {
        print!("{}", render_detail(item, colors));
    }
    Ok(outcome)
}

/// One search hit: title, then id, type, project, age and score.
fn render_item(item: &IndexItem, colors: bool) -> String {
    format!(
        "{}\n  {}  {}  {}  {}  score {:.2}\n\n",
        paint(style::TITLE, &item.title, colors),
        paint(style::COMMAND, &item.id, colors),
        item.entry_type,
        paint(style::PROJECT, &item.project, colors),
        age(&item.created_at),
        item.score,
    )
}

/// One listed entry: title, facts, and the first lines of its body.
fn render_detail(item: &DetailItem, colors: bool) -> String {
    let (lines, more) = style::first_lines(&item.body, 3);
    let mut text = format!(
        "{}\n  {}  {}  {}  {}\n",
        paint(style::TITLE, &item.title, colors),
        paint(style::COMMAND, &item.id, colors),
        item.entry_type,
        paint(style::PROJECT, &item.project, colors),
        age(&item.created_at),
    );
    for line in lines {
        text.push_str(&format!("  {}\n", style::one_line(line, 100)));
    }
    if more > 0 {
        text.push_str(&format!(
            "  {}\n",
            paint(style::DIM, &format!("… {more} more lines"), colors)
        ));
    }
    text.push('\n');
    text
}

fn age(created_at: &str) -> String {
    match style::parse_time(created_at) {
        Some(time) => style::relative_time(time, Utc::now()),
        None => created_at.to_owned(),
    }
}
