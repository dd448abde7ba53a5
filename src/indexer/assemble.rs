//! Turns a parser's `ParsedSession` into table rows: splits turns, assigns stable ids and
//! ordinals, decides completion and terminal events, and derives title, project and mode.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::touches::touch_rows;
use crate::ids;
use crate::model::{EventType, ParsedSession, RawEvent, TokenUsage, TurnEnd};
use crate::store::rows::{AssembledSession, EventExcerpt, EventRow, SessionRow, TurnRow, month_of};

/// Longest excerpt kept in the turn summary columns.
pub const EXCERPT_CHARS: usize = 200;
/// Longest title derived from a prompt.
pub const TITLE_CHARS: usize = 120;

/// Assembles one parsed session. `fallback_time` (the file's mtime) stands in for a session
/// with no timestamps at all, so every session has a start and a partition.
pub fn assemble(
    parsed: &ParsedSession,
    source_path: &Path,
    fallback_time: DateTime<Utc>,
) -> AssembledSession {
    let session_id = ids::session_id(parsed.source, &parsed.native_id);
    let turn_ranges = split_turns(&parsed.events);
    let started_at = parsed
        .meta
        .started_at
        .or_else(|| parsed.events.iter().find_map(|event| event.timestamp))
        .unwrap_or(fallback_time);
    let month = month_of(started_at);
    let source_path_text = source_path.to_string_lossy().into_owned();
    let times = resolve_timestamps(&parsed.events, started_at);

    let mut events = Vec::with_capacity(parsed.events.len());
    let mut turns = Vec::with_capacity(turn_ranges.len());
    for (turn_index, range) in turn_ranges.iter().enumerate() {
        let turn_events = &parsed.events[range.clone()];
        let has_later_user_turn = turn_index + 1 < turn_ranges.len();
        let terminal_offset = find_terminal(turn_events, has_later_user_turn);
        let turn_id = ids::turn_id(&session_id, &turn_events[0].key);
        let turn_ordinal = (turn_index + 1) as i32;
        let first_event_seq = range.start;
        let turn_event_rows: Vec<EventRow> = turn_events
            .iter()
            .enumerate()
            .map(|(offset, raw)| EventRow {
                timestamp: times[first_event_seq + offset].0,
                timestamp_inferred: times[first_event_seq + offset].1,
                usage: raw.usage,
                event_id: ids::event_id(&session_id, &raw.key),
                session_id: session_id.clone(),
                turn_id: turn_id.clone(),
                turn_ordinal,
                ordinal: (offset + 1) as i32,
                seq: (first_event_seq + offset + 1) as i64,
                event_type: raw.kind,
                terminal: terminal_offset == Some(offset),
                model: raw.model.clone(),
                originating_model: raw.originating_model.clone(),
                tool_name: raw.tool_name.clone(),
                tool_call_id: raw.tool_call_id.clone(),
                exit_code: raw.exit_code,
                subtype: raw.subtype.clone(),
                text: raw.text.clone(),
                payload: raw.payload.as_ref().map(|payload| payload.to_string()),
                source_path: source_path_text.clone(),
                source_line: raw.line as i64,
                source: parsed.source,
                month: month.clone(),
            })
            .collect();
        turns.push(summarize_turn(&turn_id, turn_ordinal, &turn_event_rows));
        events.extend(turn_event_rows);
    }

    let session = summarize_session(parsed, source_path, session_id, &turns, &events, started_at);
    let touches = touch_rows(&parsed.events, &events, parsed.meta.cwd.as_deref());
    AssembledSession {
        session: SessionRow {
            source_path: source_path_text,
            ..session
        },
        turns,
        events,
        touches,
    }
}

/// Every event's time and whether it was inferred: an event the log gives no time takes the
/// nearest earlier recorded time of its session (else `session_start`, which is itself the file
/// mtime when nothing is timed), never later than the next recorded time.
fn resolve_timestamps(
    events: &[RawEvent],
    session_start: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, bool)> {
    let mut next_recorded = vec![None; events.len()];
    let mut upcoming = None;
    for (index, event) in events.iter().enumerate().rev() {
        next_recorded[index] = upcoming;
        upcoming = event.timestamp.or(upcoming);
    }
    let mut previous = session_start;
    events
        .iter()
        .zip(next_recorded)
        .map(|(event, next)| match event.timestamp {
            Some(recorded) => {
                previous = recorded;
                (recorded, false)
            }
            None => (next.map_or(previous, |next| previous.min(next)), true),
        })
        .collect()
}

/// Index ranges of the turns: a new turn starts at each real user input; events before the
/// first one form turn 1.
fn split_turns(events: &[RawEvent]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut turn_start = 0;
    for (index, event) in events.iter().enumerate() {
        if event.starts_turn && index > turn_start {
            ranges.push(turn_start..index);
            turn_start = index;
        }
    }
    if turn_start < events.len() {
        ranges.push(turn_start..events.len());
    }
    ranges
}

/// The offset of the turn's terminal event, or `None` when the log does not prove the turn
/// ended. The last end signal in the turn wins; without one, a later user turn after an
/// assistant reply proves the turn ended with that reply.
fn find_terminal(turn_events: &[RawEvent], has_later_user_turn: bool) -> Option<usize> {
    let last_assistant_before = |end: usize| {
        turn_events[..=end]
            .iter()
            .rposition(|event| event.kind == EventType::AssistantResponse)
    };
    let last_signal = turn_events
        .iter()
        .enumerate()
        .rev()
        .find_map(|(offset, event)| event.turn_end.map(|signal| (offset, signal)));
    match last_signal {
        Some((offset, TurnEnd::Terminal)) => Some(offset),
        Some((offset, TurnEnd::Normal)) => Some(last_assistant_before(offset).unwrap_or(offset)),
        None if has_later_user_turn => last_assistant_before(turn_events.len() - 1),
        None => None,
    }
}

fn summarize_turn(turn_id: &str, ordinal: i32, events: &[EventRow]) -> TurnRow {
    let terminal = events.iter().find(|event| event.terminal);
    let user_input = events
        .iter()
        .find(|event| event.event_type == EventType::UserInput)
        .map(excerpt_of);
    let final_response = terminal
        .filter(|event| event.event_type == EventType::AssistantResponse)
        .map(excerpt_of);
    let tools_called = unique_in_order(events.iter().filter_map(|event| {
        matches!(
            event.event_type,
            EventType::ToolCall | EventType::ToolResponse
        )
        .then_some(event.tool_name.as_deref())
        .flatten()
    }));
    let event_types = unique_in_order(events.iter().map(|event| event.event_type.as_str()));
    let timestamps = events.iter().map(|event| event.timestamp);
    TurnRow {
        turn_id: turn_id.to_string(),
        session_id: events[0].session_id.clone(),
        source: events[0].source,
        ordinal,
        completed: terminal.is_some(),
        terminal_event_id: terminal.map(|event| event.event_id.clone()),
        event_count: events.len() as i32,
        started_at: timestamps.clone().min().unwrap_or(events[0].timestamp),
        updated_at: timestamps.max().unwrap_or(events[0].timestamp),
        usage: TokenUsage::sum(events.iter().filter_map(|event| event.usage)),
        first_event_id: events[0].event_id.clone(),
        last_event_id: events[events.len() - 1].event_id.clone(),
        user_input,
        final_response,
        tools_called,
        event_types,
    }
}

fn summarize_session(
    parsed: &ParsedSession,
    source_path: &Path,
    session_id: String,
    turns: &[TurnRow],
    events: &[EventRow],
    started_at: DateTime<Utc>,
) -> SessionRow {
    let meta = &parsed.meta;
    let updated_at = events
        .iter()
        .map(|event| event.timestamp)
        .max()
        .unwrap_or(started_at)
        .max(started_at);
    let project = meta
        .cwd
        .as_deref()
        .and_then(last_path_component)
        .or_else(|| project_from_layout(source_path));
    SessionRow {
        session_id,
        source: parsed.source,
        native_id: parsed.native_id.clone(),
        title: derive_title(parsed, events, project.as_deref()),
        session_summary: meta.summary.clone(),
        session_slug: meta.slug.clone(),
        mode: derive_mode(parsed.meta.started_by_mcp, events).to_string(),
        cwd: meta.cwd.clone(),
        project,
        git_branch: meta.git_branch.clone(),
        model: meta
            .model
            .clone()
            .or_else(|| events.iter().find_map(|event| event.model.clone())),
        harness_version: meta.harness_version.clone(),
        agent_name: meta.agent_name.clone(),
        started_at,
        updated_at,
        completed: turns.last().is_some_and(|turn| turn.completed),
        turn_count: turns.len() as i32,
        event_count: events.len() as i32,
        usage: TokenUsage::sum(events.iter().filter_map(|event| event.usage)),
        models: models_used(meta.model.as_deref(), events),
        first_turn_id: turns.first().map(|turn| turn.turn_id.clone()),
        last_turn_id: turns.last().map(|turn| turn.turn_id.clone()),
        parent_session_id: meta
            .parent_native_id
            .as_deref()
            .map(|native| ids::session_id(parsed.source, native)),
        forked_from_session_id: meta
            .forked_from_native_id
            .as_deref()
            .map(|native| ids::session_id(parsed.source, native)),
        previous_session_id: None,
        next_session_id: None,
        chain: None,
        source_path: String::new(),
    }
}

/// The distinct models that produced events, in first-use order; the session's declared model
/// when no event names one.
fn models_used(declared: Option<&str>, events: &[EventRow]) -> Vec<String> {
    let produced = unique_in_order(events.iter().filter_map(|event| event.model.as_deref()));
    if produced.is_empty() {
        declared
            .map(|model| vec![model.to_string()])
            .unwrap_or_default()
    } else {
        produced
    }
}

/// The harness's title or summary, else the first real prompt's first line, else
/// `<source> session in <project>`. Never empty.
fn derive_title(parsed: &ParsedSession, events: &[EventRow], project: Option<&str>) -> String {
    let harness_title = [&parsed.meta.title, &parsed.meta.summary]
        .into_iter()
        .flatten()
        .map(|title| first_line(title, TITLE_CHARS))
        .find(|title| !title.is_empty());
    let prompt_title = || {
        events
            .iter()
            .filter(|event| event.event_type == EventType::UserInput)
            .map(|event| first_line(prompt_request(&event.text), TITLE_CHARS))
            .find(|title| !title.is_empty())
    };
    harness_title.or_else(prompt_title).unwrap_or_else(|| {
        format!(
            "{} session in {}",
            parsed.source.as_str(),
            project.unwrap_or("unknown project")
        )
    })
}

/// `web_search` if any web search/fetch tool ran, else `mcp_internal` if an MCP client started
/// the session or most tool calls are esker's own tools, else `tool_calling` if any tool ran,
/// else `chat`.
fn derive_mode(started_by_mcp: bool, events: &[EventRow]) -> &'static str {
    let tool_names: Vec<&str> = events
        .iter()
        .filter(|event| event.event_type == EventType::ToolCall)
        .filter_map(|event| event.tool_name.as_deref())
        .collect();
    if tool_names.iter().any(|name| is_web_tool(name)) {
        return "web_search";
    }
    let own_tool_calls = tool_names.iter().filter(|name| is_esker_tool(name)).count();
    if started_by_mcp || (own_tool_calls > 0 && own_tool_calls * 2 > tool_names.len()) {
        return "mcp_internal";
    }
    if tool_names.is_empty() {
        "chat"
    } else {
        "tool_calling"
    }
}

fn is_web_tool(name: &str) -> bool {
    let normalized: String = name
        .chars()
        .filter(|character| character.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    normalized.contains("websearch") || normalized.contains("webfetch")
}

fn is_esker_tool(name: &str) -> bool {
    name.starts_with("mcp__esker__")
        || name.starts_with("esker__")
        || name.starts_with("esker.")
        || matches!(name, "search_sessions" | "list_sessions")
}

fn excerpt_of(event: &EventRow) -> EventExcerpt {
    let (text, truncated) = excerpt(&event.text, EXCERPT_CHARS);
    EventExcerpt {
        event_id: event.event_id.clone(),
        text,
        truncated,
    }
}

/// The text with whitespace runs collapsed to one space, cut to `max_chars` (ending in `...`
/// when cut). The flag says whether anything was cut.
pub fn excerpt(text: &str, max_chars: usize) -> (String, bool) {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max_chars {
        return (one_line, false);
    }
    let cut: String = one_line.chars().take(max_chars.saturating_sub(3)).collect();
    (format!("{}...", cut.trim_end()), true)
}

/// Markers after which IDE extensions put what the user actually asked (the Codex VS Code
/// extension sends `# Context from my IDE setup: ... ## My request for Codex:`).
const REQUEST_MARKERS: [&str; 1] = ["## My request for Codex:"];

/// The part of a prompt that is the user's request, without IDE-injected context.
fn prompt_request(text: &str) -> &str {
    REQUEST_MARKERS
        .iter()
        .find_map(|marker| text.split_once(marker).map(|(_, request)| request))
        .filter(|request| !request.trim().is_empty())
        .unwrap_or(text)
}

/// The first non-empty line, without markdown heading markers, cut to `max_chars`.
fn first_line(text: &str, max_chars: usize) -> String {
    let line = text
        .lines()
        .map(|line| line.trim().trim_start_matches('#').trim())
        .find(|line| !line.is_empty())
        .unwrap_or("");
    if line.chars().count() <= max_chars {
        return line.to_string();
    }
    let cut: String = line.chars().take(max_chars.saturating_sub(3)).collect();
    format!("{}...", cut.trim_end())
}

/// The project a log's location names when the log itself has no working directory: the
/// Claude `projects/<dir>` or Gemini `tmp/<project>` directory (not Gemini's 64-hex hashes).
fn project_from_layout(source_path: &Path) -> Option<String> {
    let components: Vec<&str> = source_path
        .components()
        .filter_map(|component| component.as_os_str().to_str())
        .collect();
    components.windows(2).rev().find_map(|pair| {
        let (parent, child) = (pair[0], pair[1]);
        let is_project_dir = match parent {
            "projects" => child.starts_with('-'),
            "tmp" => !(child.len() == 64 && child.bytes().all(|byte| byte.is_ascii_hexdigit())),
            _ => false,
        };
        is_project_dir.then(|| child.to_string())
    })
}

fn last_path_component(path: &str) -> Option<String> {
    path.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|component| !component.is_empty())
        .map(str::to_string)
}

fn unique_in_order<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for item in items {
        if !unique.iter().any(|seen| seen == item) {
            unique.push(item.to_string());
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SessionMeta, Source};

    fn event(key: &str, kind: EventType) -> RawEvent {
        RawEvent::new(key, kind, 1)
    }

    fn session_of(events: Vec<RawEvent>) -> ParsedSession {
        ParsedSession {
            source: Source::Codex,
            native_id: "s1".into(),
            meta: SessionMeta::default(),
            events,
        }
    }

    fn user(key: &str, text: &str) -> RawEvent {
        RawEvent {
            text: text.into(),
            starts_turn: true,
            ..event(key, EventType::UserInput)
        }
    }

    #[test]
    fn splits_turns_and_marks_terminals() {
        let parsed = session_of(vec![
            event("sys", EventType::System),
            user("u1", "first prompt\nmore"),
            event("a1", EventType::AssistantResponse),
            user("u2", "second"),
            event("a2", EventType::AssistantResponse),
            RawEvent {
                turn_end: Some(TurnEnd::Normal),
                ..event("done", EventType::Runtime)
            },
            user("u3", "third"),
            event("c3", EventType::ToolCall),
        ]);
        let assembled = assemble(&parsed, Path::new("/x.jsonl"), Utc::now());
        let turns = &assembled.turns;
        assert_eq!(turns.len(), 4);
        assert!(!turns[0].completed, "system-only prelude has no reply");
        assert!(
            turns[1].completed,
            "a later user turn proves the reply ended it"
        );
        assert!(turns[2].completed);
        assert!(!turns[3].completed);
        let terminal_keys: Vec<i64> = assembled
            .events
            .iter()
            .filter(|event| event.terminal)
            .map(|event| event.seq)
            .collect();
        assert_eq!(terminal_keys, vec![3, 5]);
        assert_eq!(assembled.session.title, "first prompt");
        assert!(!assembled.session.completed);
        let ordinals: Vec<i32> = assembled.events.iter().map(|event| event.ordinal).collect();
        assert_eq!(ordinals, vec![1, 1, 2, 1, 2, 3, 1, 2]);
    }

    #[test]
    fn interrupt_is_terminal_and_title_falls_back_to_project() {
        let mut parsed = session_of(vec![
            event("a", EventType::Runtime),
            RawEvent {
                turn_end: Some(TurnEnd::Terminal),
                ..event("stop", EventType::Runtime)
            },
        ]);
        parsed.meta.cwd = Some("/home/dev/webapp/".into());
        let assembled = assemble(&parsed, Path::new("/x.jsonl"), Utc::now());
        assert_eq!(assembled.session.title, "codex session in webapp");
        assert!(assembled.turns[0].completed);
        assert!(assembled.turns[0].final_response.is_none());
        assert_eq!(assembled.session.mode, "chat");
    }

    #[test]
    fn titles_skip_ide_context_and_heading_marks() {
        let parsed = session_of(vec![user(
            "u1",
            "# Context from my IDE setup:\n\n## Active file: src/app.ts\n\n## My request for Codex:\nfix the login redirect\n",
        )]);
        let assembled = assemble(&parsed, Path::new("/x"), Utc::now());
        assert_eq!(assembled.session.title, "fix the login redirect");
        let parsed = session_of(vec![user("u1", "## Initial Context\nmore")]);
        let assembled = assemble(&parsed, Path::new("/x"), Utc::now());
        assert_eq!(assembled.session.title, "Initial Context");
    }

    #[test]
    fn project_falls_back_to_the_log_layout() {
        let parsed = session_of(vec![event("a", EventType::Runtime)]);
        let claude = assemble(
            &parsed,
            Path::new("/h/.claude/projects/-home-dev-webapp/s.jsonl"),
            Utc::now(),
        );
        assert_eq!(claude.session.project.as_deref(), Some("-home-dev-webapp"));
        let gemini = assemble(
            &parsed,
            Path::new("/h/.gemini/tmp/webapp/chats/session-1.json"),
            Utc::now(),
        );
        assert_eq!(gemini.session.project.as_deref(), Some("webapp"));
        let hashed = format!("/h/.gemini/tmp/{}/chats/s.json", "a".repeat(64));
        let gemini_hashed = assemble(&parsed, Path::new(&hashed), Utc::now());
        assert_eq!(gemini_hashed.session.project, None);
    }

    #[test]
    fn modes_follow_tools() {
        let call = |name: &str| RawEvent {
            tool_name: Some(name.into()),
            ..event(name, EventType::ToolCall)
        };
        let assembled = |events| assemble(&session_of(events), Path::new("/x"), Utc::now());
        assert_eq!(
            assembled(vec![call("exec_command")]).session.mode,
            "tool_calling"
        );
        assert_eq!(assembled(vec![call("WebFetch")]).session.mode, "web_search");
        assert_eq!(
            assembled(vec![call("mcp__esker__search_sessions")])
                .session
                .mode,
            "mcp_internal"
        );
    }

    #[test]
    fn missing_times_take_the_nearest_earlier_time_never_later_than_the_next() {
        let at = |text: &str| {
            DateTime::parse_from_rfc3339(text)
                .unwrap()
                .with_timezone(&Utc)
        };
        let timed = |key: &str, time: &str| RawEvent {
            timestamp: Some(at(time)),
            ..event(key, EventType::Runtime)
        };
        let mut parsed = session_of(vec![
            event("before", EventType::Runtime),
            timed("ten", "2026-01-01T10:00:00Z"),
            event("between", EventType::Runtime),
            timed("nine", "2026-01-01T09:00:00Z"),
            event("after", EventType::Runtime),
        ]);
        parsed.meta.started_at = Some(at("2026-01-01T08:00:00Z"));
        let assembled = assemble(&parsed, Path::new("/x"), Utc::now());
        let times: Vec<(String, bool)> = assembled
            .events
            .iter()
            .map(|event| {
                (
                    event.timestamp.format("%H:%M").to_string(),
                    event.timestamp_inferred,
                )
            })
            .collect();
        let expected = [
            ("08:00", true),
            ("10:00", false),
            ("09:00", true),
            ("09:00", false),
            ("09:00", true),
        ];
        let expected: Vec<(String, bool)> = expected
            .iter()
            .map(|(time, inferred)| (time.to_string(), *inferred))
            .collect();
        assert_eq!(times, expected);
        assert_eq!(assembled.turns[0].started_at, at("2026-01-01T08:00:00Z"));

        let untimed = session_of(vec![event("only", EventType::Runtime)]);
        let mtime = at("2025-06-01T12:00:00Z");
        let assembled = assemble(&untimed, Path::new("/x"), mtime);
        assert_eq!(assembled.events[0].timestamp, mtime);
        assert!(assembled.events[0].timestamp_inferred);
        assert_eq!(assembled.session.started_at, mtime);
    }

    #[test]
    fn usage_sums_per_turn_and_session_and_models_are_listed_once() {
        let usage = |input, output| TokenUsage {
            input: Some(input),
            output: Some(output),
            total: Some(input + output),
            ..TokenUsage::default()
        };
        let reply = |key: &str, model: &str, spent: Option<TokenUsage>| RawEvent {
            model: Some(model.into()),
            usage: spent,
            ..event(key, EventType::AssistantResponse)
        };
        let parsed = session_of(vec![
            user("u1", "one"),
            reply("a1", "m-1", Some(usage(10, 1))),
            reply("a2", "m-2", Some(usage(20, 2))),
            user("u2", "two"),
            reply("a3", "m-1", None),
        ]);
        let assembled = assemble(&parsed, Path::new("/x"), Utc::now());
        assert_eq!(assembled.turns[0].usage, Some(usage(30, 3)));
        assert_eq!(
            assembled.turns[1].usage, None,
            "no usage recorded is null, not 0"
        );
        assert_eq!(assembled.session.usage, Some(usage(30, 3)));
        assert_eq!(assembled.session.models, vec!["m-1", "m-2"]);
    }

    #[test]
    fn excerpts_collapse_and_cut() {
        assert_eq!(excerpt("short", 10), ("short".to_string(), false));
        assert_eq!(excerpt("a\n  b", 10), ("a b".to_string(), false));
        let (cut, truncated) = excerpt(&"x".repeat(300), 200);
        assert!(truncated);
        assert_eq!(cut.chars().count(), 200);
    }
}
