//! Aider chat histories (`.aider.chat.history.md` in a project root): Markdown that aider
//! appends to as it runs. Each run starts with `# aider chat started at <local time>`; lines
//! starting `#### ` are what the user typed (consecutive ones are one prompt); lines starting
//! `> ` are aider's own output (notices, `Aider v…`, `Main model: …`, `Tokens: 2.3k sent, 150
//! received…`, `^C KeyboardInterrupt`); every other line belongs to the model's reply.
//!
//! Each run is a session (`<start time>-<hash of the file path>`), its cwd the directory of the
//! file. The log has no per-message times: events take inferred times from the run's start.
//! Token counts are the rounded figures aider prints (`2.3k`), set on the reply they follow;
//! aider logs no tool calls (edits and commits are notices). Runs in which nothing was asked or
//! answered (aborted at start-up) yield no session.

use std::path::Path;

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::Value;

use crate::ids::stable_hash_hex;
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage, TurnEnd,
};

/// The file name aider writes its chat history to.
pub const HISTORY_FILE: &str = ".aider.chat.history.md";
const RUN_HEADER: &str = "# aider chat started at ";
const USER_PREFIX: &str = "####";
const OUTPUT_PREFIX: &str = ">";

/// An aider history: the first non-blank line is a run header.
pub fn sniff_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    String::from_utf8_lossy(head)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.starts_with(RUN_HEADER.trim_end()))
}

/// Parses the history (`content` is the whole file as a JSON string).
pub fn parse(path: &Path, content: &Value) -> ParseOutput {
    let text = content.as_str().unwrap_or_default();
    let file_hash = stable_hash_hex(&[path.to_string_lossy().as_bytes()]);
    let cwd = path
        .parent()
        .map(|directory| directory.to_string_lossy().into_owned());
    let mut sessions: Vec<ParsedSession> = Vec::new();
    let mut run: Option<Run> = None;
    let mut block: Option<Block> = None;
    for (index, raw_line) in text.lines().enumerate() {
        let number = index as u64 + 1;
        let line = raw_line.trim_end();
        let kind = line_kind(line);
        if let Some(open) = &block
            && open.kind != kind
        {
            if let Some(run) = run.as_mut() {
                run.close(block.take().expect("open block"));
            }
            block = None;
        }
        match kind {
            Kind::Header => {
                if let Some(done) = run.take() {
                    sessions.extend(done.finish(&file_hash, &sessions));
                }
                let started = line[RUN_HEADER.len().min(line.len())..].trim();
                run = Some(Run::new(started, cwd.clone()));
            }
            Kind::Blank => {
                if let Some(open) = block.as_mut()
                    && open.kind == Kind::Reply
                {
                    open.lines.push(String::new());
                }
            }
            _ => {
                if run.is_none() {
                    run = Some(Run::new("", cwd.clone()));
                }
                let content = match kind {
                    Kind::User => line[USER_PREFIX.len()..].trim_start_matches(' '),
                    Kind::Output => line[OUTPUT_PREFIX.len()..].trim_start_matches(' '),
                    _ => line,
                };
                block
                    .get_or_insert_with(|| Block {
                        kind,
                        first_line: number,
                        lines: Vec::new(),
                    })
                    .lines
                    .push(content.to_string());
            }
        }
    }
    if let (Some(open), Some(run)) = (block.take(), run.as_mut()) {
        run.close(open);
    }
    if let Some(done) = run.take() {
        sessions.extend(done.finish(&file_hash, &sessions));
    }
    ParseOutput {
        sessions,
        warnings: Vec::new(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Header,
    User,
    Output,
    Reply,
    Blank,
}

fn line_kind(line: &str) -> Kind {
    if line.starts_with(RUN_HEADER.trim_end()) {
        Kind::Header
    } else if line == USER_PREFIX || line.starts_with("#### ") {
        Kind::User
    } else if line == OUTPUT_PREFIX || line.starts_with("> ") {
        Kind::Output
    } else if line.trim().is_empty() {
        Kind::Blank
    } else {
        Kind::Reply
    }
}

/// Consecutive lines of one kind.
struct Block {
    kind: Kind,
    first_line: u64,
    lines: Vec<String>,
}

/// One `# aider chat started` run.
struct Run {
    started: Option<DateTime<Utc>>,
    started_text: String,
    meta: SessionMeta,
    /// The model in effect (a `/model` switch prints a new `Model:` line).
    model: Option<String>,
    events: Vec<RawEvent>,
}

impl Run {
    fn new(started: &str, cwd: Option<String>) -> Run {
        let started_at = NaiveDateTime::parse_from_str(started, "%Y-%m-%d %H:%M:%S")
            .ok()
            .map(|time| time.and_utc());
        Run {
            started: started_at,
            started_text: started.to_string(),
            model: None,
            meta: SessionMeta {
                cwd,
                started_at,
                ..SessionMeta::default()
            },
            events: Vec::new(),
        }
    }

    fn close(&mut self, block: Block) {
        let key = format!("line.{}", block.first_line);
        match block.kind {
            Kind::User => {
                let text = block.lines.join("\n").trim().to_string();
                if !text.is_empty() {
                    let mut event = RawEvent::new(key, EventType::UserInput, block.first_line);
                    event.text = text;
                    event.starts_turn = true;
                    self.events.push(event);
                }
            }
            Kind::Reply => {
                let text = block.lines.join("\n").trim().to_string();
                let mut event = RawEvent::new(key, EventType::AssistantResponse, block.first_line);
                event.text = text;
                event.model = self.model.clone();
                event.originating_model = self.model.clone();
                self.events.push(event);
            }
            Kind::Output => self.output(key, block),
            Kind::Header | Kind::Blank => {}
        }
    }

    /// Aider's own output lines: version, model, token counts, interrupts, other notices.
    fn output(&mut self, key: String, block: Block) {
        let mut notices = Vec::new();
        for (offset, line) in block.lines.iter().enumerate() {
            let line = line.trim();
            if let Some(version) = line.strip_prefix("Aider v") {
                self.meta.harness_version = Some(format!("v{version}"));
            } else if let Some(model) = line
                .strip_prefix("Main model: ")
                .or_else(|| line.strip_prefix("Model: "))
            {
                let name = model.split(" with ").next().unwrap_or(model).trim();
                self.meta.model.get_or_insert_with(|| name.to_string());
                self.model = Some(name.to_string());
            } else if let Some(usage) = line.strip_prefix("Tokens: ").and_then(usage_of) {
                if let Some(reply) = self
                    .events
                    .iter_mut()
                    .rev()
                    .find(|event| event.kind == EventType::AssistantResponse)
                {
                    TokenUsage::attach(reply, usage);
                }
            } else if line.contains("KeyboardInterrupt") {
                let number = block.first_line + offset as u64;
                let mut event = RawEvent::new(
                    format!("line.{number}.interrupt"),
                    EventType::Runtime,
                    number,
                );
                event.text = line.to_string();
                event.subtype = Some("interrupted".into());
                event.turn_end = Some(TurnEnd::Terminal);
                self.events.push(event);
            }
            if !line.is_empty() {
                notices.push(line.to_string());
            }
        }
        if !notices.is_empty() {
            let mut event = RawEvent::new(key, EventType::System, block.first_line);
            event.text = notices.join("\n");
            event.subtype = Some("notice".into());
            let at = self
                .events
                .iter()
                .position(|existing| existing.line > block.first_line)
                .unwrap_or(self.events.len());
            self.events.insert(at, event);
        }
    }

    /// The run as a session, unless nothing was asked or answered in it.
    fn finish(self, file_hash: &str, earlier: &[ParsedSession]) -> Option<ParsedSession> {
        let conversed = self.events.iter().any(|event| {
            matches!(
                event.kind,
                EventType::UserInput | EventType::AssistantResponse
            )
        });
        if !conversed {
            return None;
        }
        let stamp = self
            .started
            .map(|time| time.format("%Y%m%dT%H%M%S").to_string())
            .unwrap_or_else(|| self.started_text.replace(' ', "T"));
        let mut native_id = format!("{stamp}-{}", &file_hash[..file_hash.len().min(12)]);
        if earlier.iter().any(|session| session.native_id == native_id) {
            let first_line = self.events.first().map_or(0, |event| event.line);
            native_id = format!("{native_id}-{first_line}");
        }
        Some(ParsedSession {
            source: Source::Aider,
            native_id,
            meta: self.meta,
            events: self.events,
        })
    }
}

/// `2.3k sent, 1.2k cache write, 3.4k cache hit, 150 received. Cost: …` as printed (rounded):
/// `sent` is the prompt, `cache hit` its cached part, `received` the output.
fn usage_of(text: &str) -> Option<TokenUsage> {
    let counts = text
        .split(". ")
        .next()
        .unwrap_or(text)
        .trim_end_matches('.');
    let mut usage = TokenUsage::default();
    for item in counts.split(',') {
        let item = item.trim();
        let Some((number, label)) = item.split_once(' ') else {
            continue;
        };
        let value = rounded_count(number);
        match label.trim() {
            "sent" => usage.input = value,
            "received" => usage.output = value,
            "cache hit" => usage.cached_input = value,
            _ => {}
        }
    }
    (usage.input.is_some() || usage.output.is_some()).then(|| usage.with_derived_total())
}

/// `150`, `2.3k`, `12k`, `1.5M` as a count.
fn rounded_count(text: &str) -> Option<i64> {
    let (digits, scale) = match text.chars().last()? {
        'k' | 'K' => (&text[..text.len() - 1], 1_000.0),
        'm' | 'M' => (&text[..text.len() - 1], 1_000_000.0),
        _ => (text, 1.0),
    };
    let value: f64 = digits.replace(',', "").parse().ok()?;
    Some((value * scale).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_token_counts_are_read() {
        let usage = usage_of("2.3k sent, 150 received. Cost: $0.01 message, $0.02 session.")
            .expect("usage");
        assert_eq!(usage.input, Some(2300));
        assert_eq!(usage.output, Some(150));
        assert_eq!(usage.total, Some(2450));
        let cached =
            usage_of("12k sent, 1.2k cache write, 9.5k cache hit, 1.0k received.").expect("usage");
        assert_eq!(cached.cached_input, Some(9500));
        assert_eq!(cached.output, Some(1000));
    }
}
