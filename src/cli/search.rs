//! `esker search QUERY`: the `search_sessions` tool, shown for a person. One block per hit
//! (session title, source, project, relative and absolute time, turn, highlighted snippet and
//! the `esker show` command that opens it); `--source`, `--project`, `--since/--until` filter
//! the tool's ranked hits (the tool is asked for its maximum when a filter is set).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::cli::style::{self, paint};
use crate::cli::window::Window;
use crate::cli::{CliError, Outcome, Reader, SessionFacts, print_json};
use crate::service::search_sessions::{MAX_N_HITS, SearchSessions};

/// What `esker search` was asked.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    pub query: String,
    pub sources: Vec<String>,
    pub project: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub event_types: Vec<String>,
    pub limit: usize,
    pub json: bool,
}

impl SearchOptions {
    fn has_filters(&self) -> bool {
        !self.sources.is_empty()
            || self.project.is_some()
            || self.since.is_some()
            || self.until.is_some()
    }
}

/// The tool's answer (`data`, its `results` replaced by the kept hits) and the kept hits with
/// their sessions' facts: what `esker search` prints and `esker ui` shows.
pub struct Found {
    pub data: Value,
    pub hits: Vec<(Value, SessionFacts)>,
}

pub async fn run(reader: &Reader, options: &SearchOptions) -> Result<Outcome, CliError> {
    let now = Utc::now();
    let Found { data, hits: kept } = find(reader, options, now).await?;
    let outcome = Outcome::of_count(kept.len());
    if options.json {
        print_json(&data)?;
        return Ok(outcome);
    }
    print!(
        "{}",
        render_hits(&options.query, &kept, now, style::stdout_colors())
    );
    if kept.is_empty() {
        eprintln!("no hits for {:?}", options.query);
    }
    Ok(outcome)
}

/// Runs `search_sessions` for `options` and keeps the hits its filters pass, at most
/// `options.limit`.
pub async fn find(
    reader: &Reader,
    options: &SearchOptions,
    now: DateTime<Utc>,
) -> Result<Found, CliError> {
    let window = Window::parse(options.since.as_deref(), options.until.as_deref(), now)?;
    let limit = options.limit.clamp(1, MAX_N_HITS as usize);
    let asked = if options.has_filters() {
        MAX_N_HITS as usize
    } else {
        limit
    };
    let mut arguments = json!({"query": options.query, "n_hits": asked});
    if !options.event_types.is_empty() {
        arguments["event_types"] = json!(options.event_types);
    }
    let mut data = reader.call::<SearchSessions>(arguments).await?;
    let hits = take_results(&mut data);
    let session_ids: Vec<&str> = hits
        .iter()
        .filter_map(|hit| hit["session"]["id"].as_str())
        .collect();
    let facts = reader.session_facts(&session_ids).await?;
    let kept: Vec<(Value, SessionFacts)> = hits
        .iter()
        .map(|hit| {
            let session_facts = hit["session"]["id"]
                .as_str()
                .and_then(|id| facts.get(id))
                .cloned()
                .unwrap_or_default();
            (hit.clone(), session_facts)
        })
        .filter(|(hit, session_facts)| keeps(options, &window, hit, session_facts))
        .take(limit)
        .collect();
    data["results"] = Value::Array(kept.iter().map(|(hit, _)| hit.clone()).collect());
    data["result_count"] = json!(kept.len());
    Ok(Found { data, hits: kept })
}

fn take_results(data: &mut Value) -> Vec<Value> {
    match data["results"].take() {
        Value::Array(results) => results,
        _ => Vec::new(),
    }
}

fn keeps(options: &SearchOptions, window: &Window, hit: &Value, facts: &SessionFacts) -> bool {
    let source = hit["session"]["source"].as_str().unwrap_or_default();
    let source_ok =
        options.sources.is_empty() || options.sources.iter().any(|wanted| wanted == source);
    let project_ok = options
        .project
        .as_deref()
        .is_none_or(|wanted| facts.matches_project(wanted));
    let time = hit_time(hit);
    source_ok && project_ok && window.contains(time)
}

/// The event's time, else its session's last update.
fn hit_time(hit: &Value) -> Option<DateTime<Utc>> {
    hit["event"]["timestamp"]
        .as_str()
        .or_else(|| hit["session"]["updated_at"].as_str())
        .and_then(style::parse_time)
}

/// The hits as text blocks.
pub fn render_hits(
    query: &str,
    hits: &[(Value, SessionFacts)],
    now: DateTime<Utc>,
    colors: bool,
) -> String {
    let mut out = String::new();
    for (index, (hit, facts)) in hits.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let title = hit["session"]["title"].as_str().unwrap_or("(untitled)");
        out.push_str(&format!(
            "{} {}\n",
            paint(style::DIM, &format!("{}.", index + 1), colors),
            paint(style::TITLE, &style::one_line(title, 100), colors)
        ));
        out.push_str(&format!("   {}\n", hit_facts(hit, facts, now, colors)));
        let snippet = hit["snippet"]["text"].as_str().unwrap_or_default();
        out.push_str(&format!(
            "   {}\n",
            style::highlight(&style::one_line(snippet, 300), query, colors)
        ));
        let event_id = hit["id"].as_str().unwrap_or_default();
        out.push_str(&format!(
            "   {}\n",
            paint(style::COMMAND, &format!("esker show {event_id}"), colors)
        ));
    }
    out
}

/// `claude · webapp · 3 days ago (2026-04-30 13:05 UTC) · turn 2 · tool_response`.
fn hit_facts(hit: &Value, facts: &SessionFacts, now: DateTime<Utc>, colors: bool) -> String {
    let mut parts = vec![paint(
        style::SOURCE,
        hit["session"]["source"].as_str().unwrap_or_default(),
        colors,
    )];
    if let Some(project) = &facts.project {
        parts.push(paint(style::PROJECT, project, colors));
    }
    if let Some(time) = hit_time(hit) {
        parts.push(format!(
            "{} ({})",
            style::relative_time(time, now),
            style::absolute_time(time)
        ));
    }
    parts.push(format!("turn {}", hit["turn"]["ordinal"]));
    parts.push(hit["event"]["type"].as_str().unwrap_or_default().to_owned());
    parts.join(&paint(style::DIM, " · ", colors))
}
