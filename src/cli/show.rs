//! `esker show ID`: a session, turn or event as readable text, from the `open` tool. Prompts
//! and replies as paragraphs, each tool call on one line with its result's first lines,
//! reasoning folded to one line; `--full` shows every payload untruncated, `--chain` goes on
//! through the sessions that continue this one. A session shows the command that resumes it in
//! its harness (`esker resume`).
//!
//! An event without text still shows what it holds (issue #48: a search for a tool's name finds
//! its empty results, since the index holds the tool name with the text): a tool result that
//! printed nothing says so and names the call it answers, and any event's structured payload
//! (OpenCode keeps an edit's diff there) is printed in place of the text.

use serde_json::{Value, json};

use crate::cli::style::{self, paint};
use crate::cli::{CliError, Outcome, Reader, print_json, resume};
use crate::service::open::Open;

/// Lines of a prompt or reply shown without `--full`.
const TEXT_LINES: usize = 30;
/// Lines of a tool result shown without `--full`.
const RESULT_LINES: usize = 3;
/// Sessions followed at most with `--chain`.
const MAX_CHAIN: usize = 50;

#[derive(Debug, Clone, Default)]
pub struct ShowOptions {
    pub id: String,
    pub full: bool,
    pub chain: bool,
    pub json: bool,
}

pub async fn run(reader: &Reader, options: &ShowOptions) -> Result<Outcome, CliError> {
    let renderer = Renderer {
        reader,
        full: options.full,
        colors: style::stdout_colors(),
    };
    let first = open(reader, &options.id).await?;
    let mut opened = vec![first];
    if options.chain {
        while opened.len() < MAX_CHAIN {
            let next = opened
                .last()
                .and_then(|data| data["traversal"]["next_session_id"].as_str())
                .map(str::to_owned);
            let Some(next) = next else { break };
            opened.push(open(reader, &next).await?);
        }
    }
    if options.json {
        let value = if options.chain {
            Value::Array(opened)
        } else {
            opened.swap_remove(0)
        };
        print_json(&value)?;
        return Ok(Outcome::Found);
    }
    for (index, data) in opened.iter().enumerate() {
        if index > 0 {
            print!(
                "\n{}\n\n",
                paint(style::DIM, "── continued in ──", renderer.colors)
            );
        }
        let text = renderer.render(data).await?;
        print!("{text}");
    }
    Ok(Outcome::Found)
}

/// The `open` tool's `data` for a session, turn or event id.
pub(crate) async fn open(reader: &Reader, id: &str) -> Result<Value, CliError> {
    reader.call::<Open>(json!({"id": id})).await
}

struct Renderer<'a> {
    reader: &'a Reader,
    full: bool,
    colors: bool,
}

impl Renderer<'_> {
    async fn render(&self, data: &Value) -> Result<String, CliError> {
        match data["kind"].as_str() {
            Some("session") => self.session(data).await,
            Some("turn") => {
                let mut out = self.turn_header(data);
                out.push_str(&self.turn_events(data).await?);
                Ok(out)
            }
            _ => self.event(data).await,
        }
    }

    async fn session(&self, data: &Value) -> Result<String, CliError> {
        let session = &data["session"];
        let mut out = format!(
            "{}\n",
            paint(
                style::TITLE,
                &format!("# {}", text(&session["title"])),
                self.colors
            )
        );
        let mut facts = vec![paint(style::SOURCE, &text(&session["source"]), self.colors)];
        for key in ["project", "git_branch", "model"] {
            if let Some(value) = session[key].as_str() {
                facts.push(paint(style::PROJECT, value, self.colors));
            }
        }
        facts.push(format!(
            "{} turns, {} events",
            session["turn_count"], session["event_count"]
        ));
        facts.push(format!(
            "{} .. {}",
            text(&session["started_at"]),
            text(&session["updated_at"])
        ));
        out.push_str(&format!("{}\n", facts.join(" · ")));
        out.push_str(&paint(
            style::DIM,
            &format!("{}\n", text(&session["id"])),
            self.colors,
        ));
        out.push_str(&self.resume_line(&session["id"]).await?);
        for link in [
            "previous_session_id",
            "parent_session_id",
            "forked_from_session_id",
            "next_session_id",
        ] {
            if let Some(id) = data["traversal"][link].as_str() {
                let label = link.trim_end_matches("_session_id");
                out.push_str(&paint(
                    style::DIM,
                    &format!("{label}: esker show {id}\n"),
                    self.colors,
                ));
            }
        }
        for turn in data["turns"].as_array().into_iter().flatten() {
            let Some(turn_id) = turn["id"].as_str() else {
                continue;
            };
            let opened = open(self.reader, turn_id).await?;
            out.push('\n');
            out.push_str(&paint(
                style::TITLE,
                &format!("## Turn {}\n", turn["ordinal"]),
                self.colors,
            ));
            out.push_str(&self.turn_events(&opened).await?);
        }
        Ok(out)
    }

    /// `resume: cd DIR && COMMAND` (`esker resume`'s command), or nothing when the session's
    /// harness has no resume command.
    async fn resume_line(&self, session_id: &Value) -> Result<String, CliError> {
        let Some(session_id) = session_id.as_str() else {
            return Ok(String::new());
        };
        let line = resume::resume_line(self.reader, session_id).await?;
        Ok(line.map_or_else(String::new, |line| {
            paint(style::DIM, &format!("resume: {line}\n"), self.colors)
        }))
    }

    fn turn_header(&self, data: &Value) -> String {
        let turn = &data["turn"];
        format!(
            "{}\n{}\n",
            paint(
                style::TITLE,
                &format!(
                    "## Turn {} of \"{}\"",
                    turn["ordinal"],
                    text(&data["session"]["title"])
                ),
                self.colors
            ),
            paint(
                style::DIM,
                &dotted(&[&data["session"]["source"], &turn["started_at"], &turn["id"]]),
                self.colors
            )
        )
    }

    /// A turn's events, one block or line each.
    async fn turn_events(&self, turn: &Value) -> Result<String, CliError> {
        let mut out = String::new();
        for event in turn["events"].as_array().into_iter().flatten() {
            out.push_str(&self.event_line(event).await?);
        }
        Ok(out)
    }

    async fn event_line(&self, event: &Value) -> Result<String, CliError> {
        let kind = event["type"].as_str().unwrap_or_default();
        let summary = text(&event["summary"]);
        Ok(match kind {
            "user_input" => self.paragraph(style::USER, "> you", &self.event_text(event).await?),
            "assistant_response" => self.paragraph(
                style::ASSISTANT,
                "< assistant",
                &self.event_text(event).await?,
            ),
            "tool_call" => {
                let tool = text(&event["tool_name"]);
                let call = if summary.starts_with(&tool) {
                    summary.clone()
                } else {
                    format!("{tool} {summary}")
                };
                paint(
                    style::TOOL,
                    &format!("→ {}\n", style::one_line(&call, 160)),
                    self.colors,
                )
            }
            "tool_response" => {
                let output = self.event_text(event).await?;
                let mut block = String::new();
                if output.trim().is_empty() {
                    block.push_str(&format!(
                        "  {} {}\n",
                        paint(style::DIM, "│", self.colors),
                        paint(style::DIM, NO_OUTPUT, self.colors)
                    ));
                }
                let (lines, hidden) = self.cut(&output, RESULT_LINES);
                for line in lines {
                    block.push_str(&format!(
                        "  {} {}\n",
                        paint(style::DIM, "│", self.colors),
                        line
                    ));
                }
                if hidden > 0 {
                    block.push_str(&paint(
                        style::DIM,
                        &format!("  │ … {hidden} more lines\n"),
                        self.colors,
                    ));
                }
                block
            }
            "reasoning" if !self.full => paint(
                style::DIM,
                &format!("▸ reasoning: {}\n", style::one_line(&summary, 100)),
                self.colors,
            ),
            "reasoning" => {
                self.paragraph(style::DIM, "▾ reasoning", &self.event_text(event).await?)
            }
            _ => paint(
                style::DIM,
                &format!("· {kind}: {}\n", style::one_line(&summary, 120)),
                self.colors,
            ),
        })
    }

    /// The event's full text (its summary in a turn is cut).
    async fn event_text(&self, event: &Value) -> Result<String, CliError> {
        let id = event["id"].as_str().unwrap_or_default();
        let opened = open(self.reader, id).await?;
        Ok(text(&opened["content"]["text"]))
    }

    fn paragraph(&self, label_style: anstyle::Style, label: &str, body: &str) -> String {
        let mut out = format!("{}\n", paint(label_style, label, self.colors));
        let (lines, hidden) = self.cut(body, TEXT_LINES);
        for line in lines {
            out.push_str(&format!("  {line}\n"));
        }
        if hidden > 0 {
            out.push_str(&paint(
                style::DIM,
                &format!("  … {hidden} more lines (--full)\n"),
                self.colors,
            ));
        }
        out
    }

    fn cut<'t>(&self, body: &'t str, max_lines: usize) -> (Vec<&'t str>, usize) {
        if self.full {
            (body.lines().collect(), 0)
        } else {
            style::first_lines(body, max_lines)
        }
    }

    async fn event(&self, data: &Value) -> Result<String, CliError> {
        let event = &data["event"];
        let mut out = format!(
            "{}\n{}\n",
            paint(
                style::TITLE,
                &format!(
                    "{} in \"{}\" (turn {})",
                    text(&event["type"]),
                    text(&data["session"]["title"]),
                    data["turn"]["ordinal"]
                ),
                self.colors
            ),
            paint(
                style::DIM,
                &dotted(&[
                    &data["session"]["source"],
                    &event["timestamp"],
                    &event["id"]
                ]),
                self.colors
            )
        );
        let content = &data["content"];
        if let Some(tool) = content["tool_name"].as_str() {
            out.push_str(&paint(style::TOOL, &format!("tool: {tool}\n"), self.colors));
        }
        if let Some(code) = content["exit_code"].as_i64() {
            out.push_str(&format!("exit code: {code}\n"));
        }
        if content["arguments"].is_object() || content["arguments"].is_array() {
            let arguments = serde_json::to_string_pretty(&content["arguments"]).unwrap_or_default();
            out.push_str(&self.paragraph(style::TOOL, "arguments", &arguments));
        }
        let body = text(&content["text"]);
        if body.trim().is_empty() {
            out.push_str(&self.textless_event(data).await?);
        } else {
            out.push_str(&self.paragraph(style::ASSISTANT, "text", &body));
        }
        if content["truncated"] == true {
            out.push_str(&paint(
                style::DIM,
                "(the stored text is truncated)\n",
                self.colors,
            ));
        }
        let traversal = &data["traversal"];
        for (label, key) in [
            ("previous", "previous_event_id"),
            ("next", "next_event_id"),
            ("turn", "turn_id"),
        ] {
            if let Some(id) = traversal[key].as_str() {
                out.push_str(&paint(
                    style::DIM,
                    &format!("{label}: esker show {id}\n"),
                    self.colors,
                ));
            }
        }
        Ok(out)
    }

    /// What an event without text shows in its place: for a tool result, that the tool
    /// printed nothing and the call it answers; the structured payload when there is one.
    async fn textless_event(&self, data: &Value) -> Result<String, CliError> {
        let event = &data["event"];
        let content = &data["content"];
        let mut lines = Vec::new();
        if event["type"] == "tool_response" {
            lines.push(NO_OUTPUT.to_owned());
            if let Some(call) = self.answered_call(data).await? {
                lines.push(format!("call: {call}"));
            }
        } else {
            lines.push("(no text)".to_owned());
        }
        let payload = &content["payload"];
        if !payload.is_null() {
            let shown = match payload {
                Value::String(raw) => raw.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            lines.push(String::new());
            lines.extend(shown.lines().map(str::to_owned));
        }
        Ok(self.paragraph(style::ASSISTANT, "text", &lines.join("\n")))
    }

    /// The call a tool result answers (its text), when it is the event just before it in the
    /// turn with the same call id.
    async fn answered_call(&self, data: &Value) -> Result<Option<String>, CliError> {
        let (Some(previous), Some(call_id)) = (
            data["traversal"]["previous_event_id"].as_str(),
            data["event"]["tool_call_id"].as_str(),
        ) else {
            return Ok(None);
        };
        let opened = open(self.reader, previous).await?;
        let is_the_call = opened["event"]["type"] == "tool_call"
            && opened["event"]["tool_call_id"].as_str() == Some(call_id);
        Ok(is_the_call.then(|| style::one_line(&text(&opened["content"]["text"]), 160)))
    }
}

/// What a tool result that printed nothing shows.
const NO_OUTPUT: &str = "(no output)";

/// The values that are present, joined with ` · `.
fn dotted(values: &[&Value]) -> String {
    values
        .iter()
        .map(|value| text(value))
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
