//! Aider chat histories (`.aider.chat.history.md` in a project root): Markdown that aider
//! appends to as it runs (aider's `io.py`, `append_chat_history`). Each run starts with
//! `# aider chat started at <local time>`; what the user typed is written as `#### <line>  `
//! (consecutive lines are one prompt; every one ends with two spaces, so in a file that keeps
//! them a `####` line without is a heading of a reply); aider's own output is blockquoted,
//! `> <notice>  ` (notices, `Aider v…`, `Main model: …`, `Tokens: 2.3k sent, 150 received…`,
//! `^C KeyboardInterrupt`), a multi-line notice on its first line only; each model answer is
//! written whole after a blank line. Every other line belongs to the model's reply: one reply
//! per prompt, all the answers aider wrote between it and the next prompt (a reflection after
//! a failed edit or lint error, an interrupted stream) with the notices between them apart.
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
    let prompt_lines_carry_breaks = keeps_markdown_breaks(text);
    let mut sessions: Vec<ParsedSession> = Vec::new();
    let mut run: Option<Run> = None;
    let mut block: Option<Block> = None;
    let mut previous = Kind::Blank;
    for (index, raw_line) in text.lines().enumerate() {
        let number = index as u64 + 1;
        let line = raw_line.trim_end();
        let mut kind = line_kind(raw_line, prompt_lines_carry_breaks);
        // A multi-line notice is blockquoted on its first line only (`tool_output` prefixes the
        // message, not its lines): what follows a `>` line without a blank line between is more
        // of the notice. A reply always starts after a blank line.
        let continues_notice = kind == Kind::Reply && previous == Kind::Output;
        if continues_notice {
            kind = Kind::Output;
        }
        if let Some(open) = &block
            && open.kind != kind
        {
            if let Some(run) = run.as_mut() {
                run.close(block.take().expect("open block"));
            }
            block = None;
        }
        previous = kind;
        match kind {
            Kind::Header => {
                if let Some(mut done) = run.take() {
                    done.close_reply();
                    sessions.extend(done.finish(&file_hash, &sessions));
                }
                let started = line[RUN_HEADER.len().min(line.len())..].trim();
                run = Some(Run::new(started, cwd.clone()));
            }
            Kind::Blank => {
                if let Some(run) = run.as_mut() {
                    run.reply_blank();
                }
            }
            Kind::Reply => {
                run.get_or_insert_with(|| Run::new("", cwd.clone()))
                    .reply_line(number, line);
            }
            Kind::User | Kind::Output => {
                let run = run.get_or_insert_with(|| Run::new("", cwd.clone()));
                if kind == Kind::User && block.is_none() {
                    // A prompt ends the reply to the one before it.
                    run.close_reply();
                }
                let content = match kind {
                    Kind::User => line[USER_PREFIX.len()..].trim_start_matches(' '),
                    _ if continues_notice => line,
                    _ => line[OUTPUT_PREFIX.len()..].trim_start_matches(' '),
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
    if let Some(mut done) = run.take() {
        done.close_reply();
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

/// Whether the file keeps the Markdown line breaks aider ends each prompt line with (`  `):
/// aider writes every `####` line as `#### <text>  `, so when any does, a `####` line without
/// them is a heading inside a reply. A file whose trailing spaces were stripped (an editor, a
/// commit hook) has none, and every `####` line is a prompt.
fn keeps_markdown_breaks(text: &str) -> bool {
    text.lines()
        .any(|line| is_prompt_shaped(line) && line.ends_with("  "))
}

fn is_prompt_shaped(line: &str) -> bool {
    line.trim_end() == USER_PREFIX || line.starts_with("#### ")
}

fn line_kind(raw_line: &str, prompt_lines_carry_breaks: bool) -> Kind {
    let line = raw_line.trim_end();
    if line.starts_with(RUN_HEADER.trim_end()) {
        Kind::Header
    } else if is_prompt_shaped(raw_line) {
        if !prompt_lines_carry_breaks || raw_line.ends_with("  ") {
            Kind::User
        } else {
            Kind::Reply
        }
    } else if line == OUTPUT_PREFIX || line.starts_with("> ") {
        Kind::Output
    } else if line.trim().is_empty() {
        Kind::Blank
    } else {
        Kind::Reply
    }
}

/// Consecutive prompt or notice lines.
struct Block {
    kind: Kind,
    first_line: u64,
    lines: Vec<String>,
}

/// The model's answer to one prompt: every reply line between the prompt and the next one (or
/// the end of the run). Aider writes a reply per model call (`ai_output`), several for one
/// prompt when it reflects (a failed edit, lint errors) or is interrupted, with its notices
/// between them; together they are the one reply.
struct ReplyDraft {
    first_line: u64,
    lines: Vec<String>,
    model: Option<String>,
    /// The `Tokens:` reports printed after its parts.
    usage: Option<TokenUsage>,
}

/// One `# aider chat started` run.
struct Run {
    started: Option<DateTime<Utc>>,
    started_text: String,
    meta: SessionMeta,
    /// The model in effect (a `/model` switch prints a new `Model:` line).
    model: Option<String>,
    events: Vec<RawEvent>,
    /// The reply being read, until the next prompt.
    reply: Option<ReplyDraft>,
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
            reply: None,
        }
    }

    /// Places `event` among the events by its line (notices and replies are closed out of order).
    fn insert_by_line(&mut self, event: RawEvent) {
        let at = self
            .events
            .iter()
            .position(|existing| existing.line > event.line)
            .unwrap_or(self.events.len());
        self.events.insert(at, event);
    }

    fn reply_line(&mut self, number: u64, line: &str) {
        let model = self.model.clone();
        self.reply
            .get_or_insert_with(|| ReplyDraft {
                first_line: number,
                lines: Vec::new(),
                model,
                usage: None,
            })
            .lines
            .push(line.to_string());
    }

    fn reply_blank(&mut self) {
        if let Some(draft) = self.reply.as_mut()
            && draft.lines.last().is_some_and(|last| !last.is_empty())
        {
            draft.lines.push(String::new());
        }
    }

    /// Ends the reply being read: one event, carrying the usage of its model calls.
    fn close_reply(&mut self) {
        let Some(draft) = self.reply.take() else {
            return;
        };
        let mut event = RawEvent::new(
            format!("line.{}", draft.first_line),
            EventType::AssistantResponse,
            draft.first_line,
        );
        event.text = draft.lines.join("\n").trim().to_string();
        event.model = draft.model.clone();
        event.originating_model = draft.model;
        event.usage = draft.usage;
        self.insert_by_line(event);
    }

    fn close(&mut self, block: Block) {
        let key = format!("line.{}", block.first_line);
        match block.kind {
            Kind::User => {
                let text = block.lines.join("\n").trim().to_string();
                if !text.is_empty() {
                    let mut event = RawEvent::new(key, EventType::UserInput, block.first_line);
                    // `/add`, `/model`...: a command to aider, kept as the user typed it (as
                    // Claude's slash commands are).
                    if text.starts_with('/') {
                        event.subtype = Some("slash_command".into());
                    }
                    event.text = text;
                    event.starts_turn = true;
                    self.insert_by_line(event);
                }
            }
            Kind::Output => self.output(key, block),
            Kind::Reply | Kind::Header | Kind::Blank => {}
        }
    }

    /// Aider's own output lines: version, model, token counts, interrupts, other notices.
    fn output(&mut self, key: String, block: Block) {
        let mut notices = Vec::new();
        // A `Tokens:` report without a reply before it (an empty answer) stays on its notice.
        let mut unanswered_usage: Option<TokenUsage> = None;
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
                let carrier = match self.reply.as_mut() {
                    Some(draft) => &mut draft.usage,
                    None => &mut unanswered_usage,
                };
                *carrier = Some(match *carrier {
                    Some(existing) => existing + usage,
                    None => usage,
                });
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
                self.insert_by_line(event);
            }
            if !line.is_empty() {
                notices.push(line.to_string());
            }
        }
        if !notices.is_empty() || unanswered_usage.is_some() {
            let mut event = RawEvent::new(key, EventType::System, block.first_line);
            event.text = notices.join("\n");
            event.subtype = Some("notice".into());
            event.usage = unanswered_usage;
            self.insert_by_line(event);
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

    /// A run as aider writes it: prompt lines end in two spaces, each model answer is written
    /// whole after a blank line, notices are blockquoted (a multi-line one on its first line).
    const REFLECTED_RUN: &str = concat!(
        "\n# aider chat started at 2026-05-02 10:00:00\n\n",
        "> Aider v0.86.1  \n",
        "> Main model: openai/gpt-5 with diff edit format  \n",
        "\n#### add a --dry-run flag to the importer  \n",
        "\nI'll add the flag.\n\n#### Plan\n\n1. parse it\n2. skip writes\n\n",
        "importer.py\n```python\n<<<<<<< SEARCH\n    args = parse()\n\n    run(args)\n",
        "=======\n    args = parse()\n    run(args, dry=args.dry_run)\n>>>>>>> REPLACE\n```\n\n",
        "> Tokens: 2.0k sent, 300 received. Cost: $0.01 message, $0.01 session.  \n",
        "> The LLM did not conform to the edit format.  \n",
        "\nSorry, the search block now matches.\n\n",
        "> Tokens: 2.5k sent, 100 received. Cost: $0.01 message, $0.02 session.  \n",
        "> Applied edit to importer.py  \n",
        "> python importer.py --dry-run\n",
        "python importer.py --help  \n",
        "> Run shell commands? (Y)es/(N)o [Yes]: n  \n",
        "\n#### thanks  \n",
        "\nYou're welcome.\n\n",
    );

    fn kinds_and_texts(session: &ParsedSession) -> Vec<(EventType, String)> {
        session
            .events
            .iter()
            .map(|event| (event.kind, event.text.clone()))
            .collect()
    }

    #[test]
    fn every_answer_between_two_prompts_is_one_reply() {
        let output = parse(
            Path::new("/p/.aider.chat.history.md"),
            &Value::String(REFLECTED_RUN.to_string()),
        );
        assert_eq!(output.sessions.len(), 1);
        let session = &output.sessions[0];
        let of_kind = |kind| {
            session
                .events
                .iter()
                .filter(|event| event.kind == kind)
                .collect::<Vec<_>>()
        };
        let prompts = of_kind(EventType::UserInput);
        assert_eq!(
            prompts
                .iter()
                .map(|event| event.text.as_str())
                .collect::<Vec<_>>(),
            ["add a --dry-run flag to the importer", "thanks"],
            "a `####` heading without the line break is no prompt"
        );
        let replies = of_kind(EventType::AssistantResponse);
        assert_eq!(replies.len(), 2, "{:#?}", kinds_and_texts(session));
        let first = &replies[0].text;
        assert!(first.starts_with("I'll add the flag.\n\n#### Plan\n\n1. parse it"));
        assert!(
            first.contains("    args = parse()\n\n    run(args)"),
            "blank lines inside a code block stay: {first}"
        );
        assert!(first.ends_with("Sorry, the search block now matches."));
        assert!(
            !first.contains("python importer.py --help"),
            "the continuation of a notice is no reply: {first}"
        );
        assert_eq!(replies[0].model.as_deref(), Some("openai/gpt-5"));
        let usage = replies[0].usage.expect("usage of both model calls");
        assert_eq!((usage.input, usage.output), (Some(4500), Some(400)));
        assert_eq!(replies[1].text, "You're welcome.");
        let shell = of_kind(EventType::System)
            .into_iter()
            .find(|event| event.text.contains("python importer.py --dry-run"))
            .expect("shell command notice");
        assert!(shell.text.contains("python importer.py --help"));
        let lines: Vec<u64> = session.events.iter().map(|event| event.line).collect();
        assert!(
            lines.windows(2).all(|pair| pair[0] <= pair[1]),
            "events in file order: {lines:?}"
        );
    }

    #[test]
    fn a_history_stripped_of_trailing_spaces_keeps_its_prompts() {
        let stripped: String = REFLECTED_RUN
            .lines()
            .map(|line| format!("{}\n", line.trim_end()))
            .collect();
        let output = parse(
            Path::new("/p/.aider.chat.history.md"),
            &Value::String(stripped),
        );
        let prompts = output.sessions[0]
            .events
            .iter()
            .filter(|event| event.kind == EventType::UserInput)
            .count();
        // Without the line breaks a `####` heading cannot be told from a prompt.
        assert_eq!(prompts, 3);
    }

    #[test]
    fn a_token_report_without_an_answer_stays_on_its_notice() {
        let text = concat!(
            "\n# aider chat started at 2026-05-02 10:00:00\n\n",
            "\n#### hello  \n",
            "> Tokens: 1.0k sent, 0 received. Cost: $0.00 message, $0.00 session.  \n",
            "> Empty response received from LLM.  \n",
        );
        let output = parse(
            Path::new("/p/.aider.chat.history.md"),
            &Value::String(text.to_string()),
        );
        let session = &output.sessions[0];
        let carriers: Vec<_> = session
            .events
            .iter()
            .filter(|event| event.usage.is_some())
            .collect();
        assert_eq!(carriers.len(), 1);
        assert_eq!(carriers[0].kind, EventType::System);
        assert_eq!(carriers[0].usage.and_then(|usage| usage.input), Some(1000));
    }

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
