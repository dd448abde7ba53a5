//! `get_conversation`'s markdown, laid out as relay-search lays it out: a `## slug` header
//! (with the session count of a chain), project, branch, time range and message count, then
//! each message as `**Role** (HH:MM) `#id`` and its content cut at 500 characters (plans at
//! 800), with `*--- Session i of N ---*` where a chain moves to its next session. Consecutive
//! tool calls share one `Tools` block, as relay's one tool-summary message per model reply.
//! Claude Code's command and reminder wrappers are left out, as relay leaves them out. Unlike
//! relay-search, a session marker numbers the session in its whole chain, so "Session 4 of 6"
//! still reads right when `session` picked sessions 4 and 5.

use chrono::{DateTime, Utc};

use super::messages::{Message, Role};
use super::sessions::RelaySession;

const CONTENT_CHARS: usize = 500;
const PLAN_CHARS: usize = 800;
/// Tool lines a block shows in full; longer blocks show three and a count.
const TOOL_LINES: usize = 4;
/// Markers of Claude Code's internal messages (commands, their output, reminders).
const NOISE_MARKERS: [&str; 5] = [
    "<command-name>",
    "<command-message>",
    "<local-command-caveat>",
    "<local-command-stdout>",
    "<system-reminder>",
];

/// A session shown in the conversation, with its place in the chain.
pub struct ShownSession<'a> {
    pub session: &'a RelaySession,
    /// 1-based place in the chain and the chain's length.
    pub number: usize,
    pub chain_length: usize,
}

/// The conversation of `sessions` (in chain order) made of `messages` (in time order).
pub fn conversation(sessions: &[ShownSession<'_>], messages: &[Message]) -> String {
    let shown: Vec<&Message> = messages.iter().filter(|m| !is_noise(m)).collect();
    let mut lines = header(sessions, shown.len());
    let mut current_session: Option<&str> = None;
    let mut index = 0;
    while index < shown.len() {
        let message = shown[index];
        if sessions.len() > 1 && current_session != Some(message.session_id.as_str()) {
            current_session = Some(&message.session_id);
            let marker = sessions
                .iter()
                .find(|shown| shown.session.session_id == message.session_id)
                .map_or_else(
                    || "?".to_owned(),
                    |shown| format!("{} of {}", shown.number, shown.chain_length),
                );
            lines.push(format!("*--- Session {marker} ---*"));
            lines.push(String::new());
        }
        if message.role == Role::ToolSummary {
            let block_end = shown[index..]
                .iter()
                .position(|next| {
                    next.role != Role::ToolSummary || next.session_id != message.session_id
                })
                .map_or(shown.len(), |offset| index + offset);
            tool_block(&mut lines, &shown[index..block_end]);
            index = block_end;
        } else {
            text_block(&mut lines, message);
            index += 1;
        }
        lines.push(String::new());
    }
    lines.join("\n")
}

fn header(sessions: &[ShownSession<'_>], message_count: usize) -> Vec<String> {
    let Some(first) = sessions.first() else {
        return Vec::new();
    };
    let name = first
        .session
        .slug()
        .unwrap_or_else(|| first.session.native_id.chars().take(12).collect());
    let mut lines = vec![if sessions.len() > 1 {
        format!("## {name} ({} sessions)", sessions.len())
    } else {
        format!("## {name}")
    }];
    let mut facts = Vec::new();
    if let Some(project) = first.session.project_dir() {
        facts.push(format!("**Project:** {project}"));
    }
    if let Some(branch) = first
        .session
        .git_branch
        .as_deref()
        .filter(|b| !b.is_empty())
    {
        facts.push(format!("**Branch:** {branch}"));
    }
    if !facts.is_empty() {
        lines.push(facts.join(" | "));
    }
    let last = sessions.last().unwrap_or(first);
    lines.push(format!(
        "**Range:** {} | **Messages:** {message_count}",
        date_range(first.session.started_at, last.session.updated_at)
    ));
    lines.extend([String::new(), "---".to_owned(), String::new()]);
    lines
}

/// `Mar 01, 2026 10:00–11:30 UTC` within one day, else `Mar 01 10:00 – Mar 02 09:15, 2026 UTC`.
fn date_range(first: Option<i64>, last: Option<i64>) -> String {
    let (Some(first), Some(last)) = (first, last) else {
        return "unknown".to_owned();
    };
    let first = DateTime::<Utc>::from_timestamp_nanos(first);
    let last = DateTime::<Utc>::from_timestamp_nanos(last);
    if first.date_naive() == last.date_naive() {
        format!(
            "{} {}–{} UTC",
            first.format("%b %d, %Y"),
            first.format("%H:%M"),
            last.format("%H:%M")
        )
    } else {
        format!(
            "{} – {} UTC",
            first.format("%b %d %H:%M"),
            last.format("%b %d %H:%M, %Y")
        )
    }
}

fn is_noise(message: &Message) -> bool {
    message.content.trim().is_empty()
        || NOISE_MARKERS
            .iter()
            .any(|marker| message.content.contains(marker))
}

fn short_time(timestamp: Option<i64>) -> String {
    timestamp.map_or_else(
        || "??:??".to_owned(),
        |nanos| {
            DateTime::<Utc>::from_timestamp_nanos(nanos)
                .format("%H:%M")
                .to_string()
        },
    )
}

fn label(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::ToolSummary => "Tools",
        Role::Plan => "Plan",
    }
}

fn text_block(lines: &mut Vec<String>, message: &Message) {
    lines.push(format!(
        "**{}** ({}) `#{}`",
        label(message.role),
        short_time(message.timestamp),
        message.event_id
    ));
    lines.push(String::new());
    if message.role == Role::Plan {
        let quoted = truncate(&message.content, PLAN_CHARS).replace('\n', "\n> ");
        lines.push(format!("> {quoted}"));
    } else {
        lines.push(truncate(&message.content, CONTENT_CHARS));
    }
}

fn tool_block(lines: &mut Vec<String>, calls: &[&Message]) {
    let first = calls[0];
    lines.push(format!(
        "**{}** ({})",
        label(Role::ToolSummary),
        short_time(first.timestamp)
    ));
    lines.push("```".to_owned());
    if calls.len() <= TOOL_LINES {
        lines.extend(calls.iter().map(|call| call.content.clone()));
    } else {
        lines.extend(calls.iter().take(3).map(|call| call.content.clone()));
        lines.push(format!("  ...and {} more", calls.len() - 3));
    }
    lines.push("```".to_owned());
}

/// `content` cut at `limit` characters with relay's `*[...1,234 more chars]*`.
fn truncate(content: &str, limit: usize) -> String {
    let length = content.chars().count();
    if length <= limit {
        return content.to_owned();
    }
    let kept: String = content.chars().take(limit).collect();
    format!("{kept}\n\n*[...{} more chars]*", thousands(length - limit))
}

/// `1234567` as `1,234,567`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, number: i64) -> RelaySession {
        RelaySession {
            session_id: format!("session:claude-{id}"),
            native_id: id.into(),
            source: "claude".into(),
            month: "2026-05".into(),
            cwd: Some("/home/dev/app".into()),
            project: None,
            git_branch: Some("main".into()),
            started_at: Some(1_777_629_600_000_000_000),
            updated_at: Some(1_777_633_200_000_000_000),
            session_slug: Some("quiet-amber-fox".into()),
            chain_id: Some("session:claude-s1".into()),
            chain_slug: Some("quiet-amber-fox".into()),
            chain_number: Some(number),
            sub_agent: false,
        }
    }

    fn message(session: &str, role: Role, content: &str, minute: i64) -> Message {
        Message {
            event_id: format!("event:{session}-{minute}"),
            session_id: format!("session:claude-{session}"),
            role,
            content: content.into(),
            text: content.into(),
            timestamp: Some(1_777_629_600_000_000_000 + minute * 60_000_000_000),
            seq: minute,
            model: None,
        }
    }

    #[test]
    fn a_chain_reads_like_relays_markdown_numbered_in_the_whole_chain() {
        let (fourth, fifth) = (session("s4", 4), session("s5", 5));
        let shown = [
            ShownSession {
                session: &fourth,
                number: 4,
                chain_length: 6,
            },
            ShownSession {
                session: &fifth,
                number: 5,
                chain_length: 6,
            },
        ];
        let messages = [
            message("s4", Role::User, "fix the flaky test", 0),
            message("s4", Role::ToolSummary, "[Bash] cargo test", 1),
            message("s4", Role::ToolSummary, "[Read] src/lib.rs", 2),
            message("s4", Role::User, "<command-name>/clear</command-name>", 3),
            message("s5", Role::Assistant, &"x".repeat(1_700), 4),
        ];
        let markdown = conversation(&shown, &messages);
        let expected_start = "## quiet-amber-fox (2 sessions)\n**Project:** /home/dev/app | **Branch:** main\n**Range:** May 01, 2026 10:00–11:00 UTC | **Messages:** 4\n\n---\n\n*--- Session 4 of 6 ---*\n\n**User** (10:00) `#event:s4-0`\n\nfix the flaky test\n\n**Tools** (10:01)\n```\n[Bash] cargo test\n[Read] src/lib.rs\n```\n\n*--- Session 5 of 6 ---*\n\n**Assistant** (10:04) `#event:s5-4`\n\n";
        assert!(markdown.starts_with(expected_start), "{markdown}");
        assert!(markdown.contains("*[...1,200 more chars]*"), "{markdown}");
        assert!(!markdown.contains("/clear"));
    }

    #[test]
    fn numbers_group_by_thousands() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(1_200), "1,200");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
