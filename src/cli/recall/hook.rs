//! The agents' side of `esker recall --hook AGENT`: the hook JSON each agent writes on stdin
//! (the prompt, the working directory, the running session) and the way each one takes the
//! block back on stdout.
//!
//! Verified against each agent's own documentation or source:
//! - Claude Code (`UserPromptSubmit`, `SessionStart`): stdin `session_id`, `transcript_path`,
//!   `cwd`, `hook_event_name`, `prompt` / `source`; plain stdout on exit 0 is added to the
//!   context.
//! - Codex (`~/.codex/hooks.json`, `UserPromptSubmit`, `SessionStart`; codex-rs/hooks): the
//!   same snake_case input; stdout JSON `hookSpecificOutput.{hookEventName,
//!   additionalContext}`.
//! - Gemini CLI (`BeforeAgent`, `SessionStart`; docs/hooks/reference.md): snake_case input
//!   with `prompt` on `BeforeAgent`; stdout must be JSON only,
//!   `hookSpecificOutput.additionalContext`.
//! - Copilot CLI (`sessionStart`; docs.github.com hooks reference): camelCase input
//!   (`sessionId`, `cwd`, `source`, `initialPrompt`); stdout JSON `additionalContext`. Its
//!   `userPromptSubmitted` output is dropped for command hooks, so only session start recalls.
//! - Factory Droid (`UserPromptSubmit`, `SessionStart`; docs.factory.ai hooks reference):
//!   Claude Code's event model and snake_case input; plain stdout on exit 0 is added to the
//!   context (as plugins that serve both print it).

use serde::Deserialize;
use serde_json::json;

/// The agent whose hook runs `esker recall`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
    Droid,
}

/// The names `--hook` takes.
pub const AGENT_NAMES: [&str; 5] = ["claude-code", "codex", "gemini", "copilot", "droid"];

impl Agent {
    pub fn parse(name: &str) -> Option<Agent> {
        match name {
            "claude-code" | "claude" => Some(Agent::ClaudeCode),
            "codex" => Some(Agent::Codex),
            "gemini" => Some(Agent::Gemini),
            "copilot" => Some(Agent::Copilot),
            "droid" | "factory-droid" => Some(Agent::Droid),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Droid => "droid",
        }
    }

    /// What the agent's hook prints for `block` (nothing for an empty block).
    pub fn output(self, input: &HookInput, block: &str) -> String {
        if block.is_empty() {
            return String::new();
        }
        match self {
            Agent::ClaudeCode | Agent::Droid => block.to_owned(),
            Agent::Codex | Agent::Gemini => json!({
                "hookSpecificOutput": {
                    "hookEventName": input.event_name(self),
                    "additionalContext": block,
                }
            })
            .to_string(),
            Agent::Copilot => json!({ "additionalContext": block }).to_string(),
        }
    }
}

/// Why the hook's stdin was not understood.
#[derive(Debug, thiserror::Error)]
#[error("the hook input is not a JSON object of the expected fields: {0}")]
pub struct HookInputError(#[from] serde_json::Error);

/// The fields of a hook's stdin that recall reads (snake_case as Claude Code, Codex, Gemini CLI
/// and Copilot's VS Code-compatible events write them, camelCase as Copilot's native ones).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct HookInput {
    #[serde(default, alias = "sessionId")]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default, alias = "hookEventName")]
    pub hook_event_name: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default, alias = "initialPrompt")]
    pub initial_prompt: Option<String>,
}

impl HookInput {
    pub fn parse(text: &str) -> Result<HookInput, HookInputError> {
        Ok(serde_json::from_str(text)?)
    }

    /// The user's prompt, when the event carries one.
    pub fn prompt(&self) -> Option<&str> {
        [&self.prompt, &self.initial_prompt]
            .into_iter()
            .flatten()
            .map(|prompt| prompt.trim())
            .find(|prompt| !prompt.is_empty())
    }

    /// The event name to answer with: the input's, else the agent's name for a prompt or a
    /// session start.
    fn event_name(&self, agent: Agent) -> String {
        if let Some(name) = &self.hook_event_name {
            return name.clone();
        }
        let prompted = self.prompt().is_some();
        match (agent, prompted) {
            (Agent::Gemini, true) => "BeforeAgent",
            (_, true) => "UserPromptSubmit",
            (_, false) => "SessionStart",
        }
        .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn claude_code_input_is_read_and_the_block_printed_as_is() {
        let input = HookInput::parse(
            r#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/home/dev/webapp","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"fix the migration"}"#,
        )
        .unwrap();
        assert_eq!(input.session_id.as_deref(), Some("abc"));
        assert_eq!(input.cwd.as_deref(), Some("/home/dev/webapp"));
        assert_eq!(input.prompt(), Some("fix the migration"));
        assert_eq!(Agent::ClaudeCode.output(&input, "block\n"), "block\n");
        assert_eq!(Agent::ClaudeCode.output(&input, ""), "");
    }

    #[test]
    fn droid_reads_claudes_input_and_prints_the_block_as_is() {
        let input = HookInput::parse(
            r#"{"session_id":"d1","transcript_path":"/home/dev/.factory/sessions/d1.jsonl","cwd":"/home/dev/webapp","permission_mode":"auto-low","hook_event_name":"UserPromptSubmit","prompt":"why does the build fail?"}"#,
        )
        .unwrap();
        assert_eq!(Agent::parse("droid"), Some(Agent::Droid));
        assert_eq!(Agent::parse("factory-droid"), Some(Agent::Droid));
        assert_eq!(input.prompt(), Some("why does the build fail?"));
        assert_eq!(Agent::Droid.output(&input, "block\n"), "block\n");
        assert_eq!(Agent::Droid.output(&input, ""), "");
    }

    #[test]
    fn gemini_and_codex_answer_with_additional_context_json() {
        let input = HookInput::parse(
            r#"{"session_id":"s","cwd":"/w","hook_event_name":"BeforeAgent","timestamp":"2026-01-01T00:00:00Z","prompt":"p"}"#,
        )
        .unwrap();
        let out: Value = serde_json::from_str(&Agent::Gemini.output(&input, "ctx")).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "ctx");
        let start =
            HookInput::parse(r#"{"session_id":"s","cwd":"/w","source":"startup"}"#).unwrap();
        assert_eq!(start.prompt(), None);
        let out: Value = serde_json::from_str(&Agent::Codex.output(&start, "ctx")).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SessionStart");
    }

    #[test]
    fn copilot_camel_case_input_and_output() {
        let input = HookInput::parse(
            r#"{"sessionId":"c1","timestamp":1704614400000,"cwd":"/w","source":"new","initialPrompt":"hello there"}"#,
        )
        .unwrap();
        assert_eq!(input.session_id.as_deref(), Some("c1"));
        assert_eq!(input.prompt(), Some("hello there"));
        let out: Value = serde_json::from_str(&Agent::Copilot.output(&input, "ctx")).unwrap();
        assert_eq!(out, json!({"additionalContext": "ctx"}));
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(HookInput::parse("not json").is_err());
        assert!(HookInput::parse("[1, 2]").is_err());
        assert!(HookInput::parse(r#"{"cwd": 3}"#).is_err());
    }

    #[test]
    fn every_agent_name_parses_back() {
        for name in AGENT_NAMES {
            assert_eq!(Agent::parse(name).unwrap().name(), name);
        }
        assert_eq!(Agent::parse("cursor"), None);
    }
}
