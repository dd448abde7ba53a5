//! A session as Markdown (the web view's export): its facts, then each turn's events in
//! order (prompts and replies as text, reasoning as a quote, tool calls and their results as
//! fenced blocks), read through the `open` tool like everything else the view shows.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::cli::{CliError, Reader};
use crate::service::open::Open;

/// The Markdown of session `session_id` (every turn, every event, full content).
pub async fn session_markdown(reader: &Reader, session_id: &str) -> Result<String, CliError> {
    let opened = reader.call::<Open>(json!({"id": session_id})).await?;
    let session = &opened["session"];
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", text_of(&session["title"], "(untitled)"));
    for (label, key) in [
        ("Session", "id"),
        ("Harness", "harness"),
        ("Project", "project"),
        ("Working directory", "cwd"),
        ("Model", "model"),
        ("Started", "started_at"),
        ("Updated", "updated_at"),
    ] {
        if let Some(value) = session[key].as_str() {
            let _ = writeln!(out, "- {label}: `{value}`");
        }
    }
    if let Some(total) = session["usage"]["total_tokens"].as_i64() {
        let _ = writeln!(out, "- Tokens: {total}");
    }
    for turn in opened["turns"].as_array().into_iter().flatten() {
        let Some(turn_id) = turn["id"].as_str() else {
            continue;
        };
        let _ = writeln!(out, "\n## Turn {}\n", turn["ordinal"]);
        let turn = reader.call::<Open>(json!({"id": turn_id})).await?;
        for event in turn["events"].as_array().into_iter().flatten() {
            let Some(event_id) = event["id"].as_str() else {
                continue;
            };
            let opened = reader.call::<Open>(json!({"id": event_id})).await?;
            out.push_str(&event_markdown(&opened));
        }
    }
    Ok(out)
}

/// One opened event as a Markdown block.
pub fn event_markdown(opened: &Value) -> String {
    let event = &opened["event"];
    let content = &opened["content"];
    let text = text_of(&content["text"], "");
    let tool = text_of(&event["tool_name"], "tool");
    match event["type"].as_str().unwrap_or_default() {
        "user_input" => format!("**User:**\n\n{}\n\n", text.trim_end()),
        "assistant_response" => format!("**Assistant:**\n\n{}\n\n", text.trim_end()),
        "reasoning" => {
            let quoted: Vec<String> = text.lines().map(|line| format!("> {line}")).collect();
            format!("*Reasoning:*\n\n{}\n\n", quoted.join("\n"))
        }
        "tool_call" => {
            let arguments = serde_json::to_string_pretty(&content["arguments"])
                .unwrap_or_else(|_| text.to_owned());
            format!(
                "**Tool call `{tool}`:**\n\n{}\n",
                fenced(&arguments, "json")
            )
        }
        "tool_response" => {
            let exit = content["exit_code"]
                .as_i64()
                .map(|code| format!(" (exit {code})"))
                .unwrap_or_default();
            format!("**Tool result `{tool}`{exit}:**\n\n{}\n", fenced(text, ""))
        }
        other => format!("*{other}:* {}\n\n", text.trim_end()),
    }
}

fn text_of<'a>(value: &'a Value, default: &'a str) -> &'a str {
    value.as_str().unwrap_or(default)
}

/// `body` in a code fence longer than any run of backticks inside it.
fn fenced(body: &str, language: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{}\n{fence}\n", body.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        assert_eq!(fenced("a", ""), "```\na\n```\n");
        assert_eq!(fenced("x ```` y", "sh"), "`````sh\nx ```` y\n`````\n");
    }

    #[test]
    fn each_event_type_has_its_block() {
        let call = json!({
            "event": {"type": "tool_call", "tool_name": "Bash"},
            "content": {"text": "Bash(...)", "arguments": {"cmd": "ls"}}
        });
        let markdown = event_markdown(&call);
        assert!(markdown.starts_with("**Tool call `Bash`:**"));
        assert!(markdown.contains("\"cmd\": \"ls\""));
        let reasoning = json!({"event": {"type": "reasoning"}, "content": {"text": "a\nb"}});
        assert!(event_markdown(&reasoning).contains("> a\n> b"));
    }
}
