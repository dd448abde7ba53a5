//! The command that resumes a session in its own harness (`claude --resume ID` run in the
//! session's directory, `codex resume ID`, `gemini --resume ID`), for the web view's copy
//! button. Sub-agent sessions and harnesses without a known resume command have none.

use crate::cli::{CliError, Reader};
use crate::mcp::catalog::{NamedQuery, text_parameter};

const SESSION_RESUME: NamedQuery = NamedQuery {
    name: "ui_session_resume",
    sql: include_str!("../../queries/ui_session_resume.sql"),
};

/// The resume command of session `session_id`; `None` when it has none (or is not found).
pub async fn command(reader: &Reader, session_id: &str) -> Result<Option<String>, CliError> {
    let snapshot = reader.catalog.snapshot().await?;
    let rows = snapshot
        .run(SESSION_RESUME, vec![text_parameter(session_id)])
        .await?;
    let Some(row) = rows.iter().next() else {
        return Ok(None);
    };
    let text = |name: &str| row.opt_string(name).ok().flatten().map(str::to_owned);
    if text("parent_session_id").is_some() {
        return Ok(None);
    }
    let (Some(source), Some(native_id)) = (text("source"), text("native_id")) else {
        return Ok(None);
    };
    Ok(resume_command(&source, &native_id, text("cwd").as_deref()))
}

/// The harness's resume command, prefixed by a `cd` into `cwd` when there is one.
pub fn resume_command(source: &str, native_id: &str, cwd: Option<&str>) -> Option<String> {
    let safe_id = !native_id.is_empty()
        && native_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !safe_id {
        return None;
    }
    let resume = match source {
        "claude" => format!("claude --resume {native_id}"),
        "codex" => format!("codex resume {native_id}"),
        "gemini" => format!("gemini --resume {native_id}"),
        _ => return None,
    };
    Some(match cwd.filter(|cwd| !cwd.is_empty()) {
        Some(cwd) => format!("cd {} && {resume}", shell_quote(cwd)),
        None => resume,
    })
}

/// `text` single-quoted for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_known_harness_has_its_resume_command() {
        assert_eq!(
            resume_command("claude", "3f2b8c1e-5a47", Some("/home/dev/it's")).as_deref(),
            Some(r"cd '/home/dev/it'\''s' && claude --resume 3f2b8c1e-5a47")
        );
        assert_eq!(
            resume_command("codex", "019cec1c", None).as_deref(),
            Some("codex resume 019cec1c")
        );
        assert_eq!(resume_command("aider", "x", None), None);
        assert_eq!(resume_command("codex", "a b", None), None);
    }
}
