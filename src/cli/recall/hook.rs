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
//! - CodeBuddy Code (`UserPromptSubmit`, `SessionStart`; codebuddy.ai/docs/cli/hooks): Claude
//!   Code's events and snake_case input; stdout JSON `hookSpecificOutput.additionalContext`.
//! - Qwen Code (`UserPromptSubmit`, `SessionStart`; QwenLM/qwen-code docs/users/features/
//!   hooks.md): snake_case input; stdout JSON `hookSpecificOutput.additionalContext`. Its
//!   `UserPromptSubmit` also fires on tool-result continuations, whose `prompt` is not the
//!   user's: recall answers only an input with `submitted_prompt` (a user's own submission).
//! - Cursor (`sessionStart`; cursor.com/docs/hooks): `conversation_id`, `workspace_roots`;
//!   stdout JSON `additional_context`, kept as system context for the whole conversation.
//! - Kiro (IDE 1.x and CLI V3 `~/.kiro/hooks/*.json`, `UserPromptSubmit`, `SessionStart`;
//!   kiro.dev/docs/cli/v3/hooks): snake_case input (`session_id`, `cwd`, `prompt`); plain
//!   stdout on exit 0 is added to the context.
//! - Cline (`~/Documents/Cline/Hooks/UserPromptSubmit`; cline/cline apps/vscode/src/core/hooks,
//!   hooks-adapter.ts): camelCase input (`taskId`, `workspaceRoots`,
//!   `userPromptSubmit.prompt`); stdout JSON `{"cancel": false, "contextModification"}`.
//! - Kimi Code (`UserPromptSubmit`; MoonshotAI/kimi-code docs/en/customization/hooks.md):
//!   snake_case input (`session_id`, `cwd`, `prompt`, as text or content parts); stdout on
//!   exit 0 is appended to the context.
//! - Devin CLI (`UserPromptSubmit`, `SessionStart` in `~/.config/devin/config.json`;
//!   docs.devin.ai cli/extensibility/hooks): `hook_event_name`, `session_id`, `prompt`, no
//!   working directory (the project is `$DEVIN_PROJECT_DIR`); stdout JSON
//!   `hookSpecificOutput.additionalContext` (plain stdout is not documented to reach the
//!   model). Devin also runs Claude Code's user hooks (`read_config_from.claude`, on by
//!   default): esker's Claude Code hook stays silent there, so Devin's answers once.
//! - Junie (`UserPromptSubmit` in `$JUNIE_HOME/config.json`; junie.jetbrains.com docs, hooks):
//!   snake_case input (`prompt`, and in newer releases `session_id`, `cwd`, `project_path`);
//!   its `cwd` is Junie's own home, so the project is `project_path`. Plain stdout on exit 0
//!   is put before the prompt (as `<additional_context>`); its `SessionStart` output is
//!   ignored, so only prompts recall. Hooks fire in the terminal UI, not over ACP (the IDE).

use serde::Deserialize;
use serde_json::json;

/// The variable Devin CLI sets for its hooks: the project's root.
pub const DEVIN_PROJECT_VAR: &str = "DEVIN_PROJECT_DIR";

/// The agent whose hook runs `esker recall`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
    Droid,
    CodeBuddy,
    Qwen,
    Cursor,
    Kiro,
    Cline,
    Kimi,
    Junie,
    Devin,
}

/// The names `--hook` takes.
pub const AGENT_NAMES: [&str; 13] = [
    "claude-code",
    "codex",
    "gemini",
    "copilot",
    "droid",
    "codebuddy",
    "qwen",
    "cursor",
    "kiro",
    "cline",
    "kimi",
    "junie",
    "devin",
];

impl Agent {
    pub fn parse(name: &str) -> Option<Agent> {
        match name {
            "claude-code" | "claude" => Some(Agent::ClaudeCode),
            "codex" => Some(Agent::Codex),
            "gemini" => Some(Agent::Gemini),
            "copilot" => Some(Agent::Copilot),
            "droid" | "factory-droid" => Some(Agent::Droid),
            "codebuddy" => Some(Agent::CodeBuddy),
            "qwen" => Some(Agent::Qwen),
            "cursor" => Some(Agent::Cursor),
            "kiro" => Some(Agent::Kiro),
            "cline" => Some(Agent::Cline),
            "kimi" | "kimi-code" => Some(Agent::Kimi),
            "junie" => Some(Agent::Junie),
            "devin" | "devin-cli" => Some(Agent::Devin),
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
            Agent::CodeBuddy => "codebuddy",
            Agent::Qwen => "qwen",
            Agent::Cursor => "cursor",
            Agent::Kiro => "kiro",
            Agent::Cline => "cline",
            Agent::Kimi => "kimi",
            Agent::Junie => "junie",
            Agent::Devin => "devin",
        }
    }

    /// Whether this input asks for no recall at all: a Qwen Code `UserPromptSubmit` that is not
    /// a user's own submission (a tool-result continuation, a retry).
    pub fn ignores(self, input: &HookInput) -> bool {
        let qwen_continuation = self == Agent::Qwen
            && input.hook_event_name.as_deref() == Some("UserPromptSubmit")
            && input.submitted_prompt().is_none();
        qwen_continuation || self.runs_under_devin()
    }

    /// Claude Code's hook run by Devin CLI (which sets `DEVIN_PROJECT_DIR` for its hooks and
    /// runs Claude Code's user hooks too): Devin's own hook answers instead.
    fn runs_under_devin(self) -> bool {
        self == Agent::ClaudeCode && std::env::var_os(DEVIN_PROJECT_VAR).is_some()
    }

    /// The working directory the agent gives its hooks outside their input: Devin's project.
    pub fn project_dir(self) -> Option<std::path::PathBuf> {
        (self == Agent::Devin)
            .then(|| std::env::var_os(DEVIN_PROJECT_VAR))
            .flatten()
            .filter(|dir| !dir.is_empty())
            .map(std::path::PathBuf::from)
    }

    /// What the agent's hook prints for `block` (nothing for an empty block).
    pub fn output(self, input: &HookInput, block: &str) -> String {
        if block.is_empty() {
            return String::new();
        }
        match self {
            Agent::ClaudeCode | Agent::Droid | Agent::Kiro | Agent::Kimi | Agent::Junie => {
                block.to_owned()
            }
            Agent::Codex | Agent::Gemini | Agent::CodeBuddy | Agent::Qwen | Agent::Devin => json!({
                "hookSpecificOutput": {
                    "hookEventName": input.event_name(self),
                    "additionalContext": block,
                }
            })
            .to_string(),
            Agent::Copilot => json!({ "additionalContext": block }).to_string(),
            Agent::Cursor => json!({ "additional_context": block }).to_string(),
            Agent::Cline => json!({ "cancel": false, "contextModification": block }).to_string(),
        }
    }
}

/// Why the hook's stdin was not understood.
#[derive(Debug, thiserror::Error)]
#[error("the hook input is not a JSON object of the expected fields: {0}")]
pub struct HookInputError(#[from] serde_json::Error);

/// The fields of a hook's stdin that recall reads (snake_case as Claude Code, Codex, Gemini CLI
/// and Copilot's VS Code-compatible events write them, camelCase as Copilot's native ones and
/// Cline's; Cursor and Cline name workspace roots instead of a working directory).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct HookInput {
    #[serde(default, alias = "sessionId")]
    pub session_id: Option<String>,
    /// Cursor's conversation.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// Cline's task.
    #[serde(default, rename = "taskId")]
    pub task_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// Junie: the project (its `cwd` is Junie's own home).
    #[serde(default)]
    pub project_path: Option<String>,
    #[serde(default, alias = "workspaceRoots")]
    pub workspace_roots: Vec<String>,
    #[serde(default, alias = "hookEventName", alias = "hookName")]
    pub hook_event_name: Option<String>,
    /// Text, or (Kimi Code) an array of content parts whose `text`s are joined.
    #[serde(default, deserialize_with = "prompt_text")]
    pub prompt: Option<String>,
    /// Qwen Code: the text a user submitted (absent on continuations).
    #[serde(default)]
    pub submitted_prompt: Option<String>,
    #[serde(default, alias = "initialPrompt")]
    pub initial_prompt: Option<String>,
    /// Cline: `{"prompt", "attachments"}`.
    #[serde(default, rename = "userPromptSubmit")]
    pub user_prompt_submit: Option<ClinePrompt>,
}

/// A prompt given as text or as content parts (`[{"type": "text", "text"}]`).
fn prompt_text<'de, D>(deserializer: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Prompt {
        Text(String),
        Parts(Vec<Part>),
    }
    #[derive(Deserialize)]
    struct Part {
        #[serde(default)]
        text: Option<String>,
    }
    Ok(match Option::<Prompt>::deserialize(deserializer)? {
        None => None,
        Some(Prompt::Text(text)) => Some(text),
        Some(Prompt::Parts(parts)) => Some(
            parts
                .into_iter()
                .filter_map(|part| part.text)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    })
}

/// Cline's `userPromptSubmit` member.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ClinePrompt {
    #[serde(default)]
    pub prompt: Option<String>,
}

impl HookInput {
    pub fn parse(text: &str) -> Result<HookInput, HookInputError> {
        Ok(serde_json::from_str(text)?)
    }

    /// The user's prompt, when the event carries one.
    pub fn prompt(&self) -> Option<&str> {
        let cline = self
            .user_prompt_submit
            .as_ref()
            .and_then(|submit| submit.prompt.as_ref());
        [
            self.submitted_prompt.as_ref(),
            self.prompt.as_ref(),
            self.initial_prompt.as_ref(),
            cline,
        ]
        .into_iter()
        .flatten()
        .map(|prompt| prompt.trim())
        .find(|prompt| !prompt.is_empty())
    }

    fn submitted_prompt(&self) -> Option<&str> {
        self.submitted_prompt
            .as_deref()
            .map(str::trim)
            .filter(|prompt| !prompt.is_empty())
    }

    /// The running session (a conversation, a task), when the input names one.
    pub fn session(&self) -> Option<&str> {
        [&self.session_id, &self.conversation_id, &self.task_id]
            .into_iter()
            .flatten()
            .map(|id| id.trim())
            .find(|id| !id.is_empty())
    }

    /// The working directory: the project's path, else `cwd`, else the first workspace root.
    pub fn cwd(&self) -> Option<&str> {
        self.project_path
            .iter()
            .chain(&self.cwd)
            .chain(&self.workspace_roots)
            .map(String::as_str)
            .find(|dir| !dir.is_empty())
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
    fn codebuddy_reads_claudes_input_and_answers_with_additional_context_json() {
        let input = HookInput::parse(
            r#"{"session_id":"b1","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}"#,
        )
        .unwrap();
        let out: Value = serde_json::from_str(&Agent::CodeBuddy.output(&input, "ctx")).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "ctx");
    }

    #[test]
    fn qwen_recalls_a_users_submission_and_ignores_continuations() {
        let submitted = HookInput::parse(
            r#"{"session_id":"q","transcript_path":"/t","cwd":"/w","hook_event_name":"UserPromptSubmit","timestamp":"2026-01-01T00:00:00Z","prompt":"fix it [Pasted text #1]\nlong paste","submitted_prompt":"fix it [Pasted text #1]"}"#,
        )
        .unwrap();
        assert!(!Agent::Qwen.ignores(&submitted));
        assert_eq!(submitted.prompt(), Some("fix it [Pasted text #1]"));
        let out: Value = serde_json::from_str(&Agent::Qwen.output(&submitted, "ctx")).unwrap();
        assert_eq!(
            out["hookSpecificOutput"]["hookEventName"],
            "UserPromptSubmit"
        );
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "ctx");
        let continuation = HookInput::parse(
            r#"{"session_id":"q","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"tool output"}"#,
        )
        .unwrap();
        assert!(Agent::Qwen.ignores(&continuation));
        assert!(!Agent::Codex.ignores(&continuation));
        let start = HookInput::parse(
            r#"{"session_id":"q","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}"#,
        )
        .unwrap();
        assert!(!Agent::Qwen.ignores(&start));
    }

    #[test]
    fn cursor_reads_workspace_roots_and_answers_additional_context() {
        let input = HookInput::parse(
            r#"{"hook_event_name":"sessionStart","conversation_id":"conv-1","generation_id":"g","workspace_roots":["/home/dev/webapp","/home/dev/lib"],"model":"m","cursor_version":"3.20.17"}"#,
        )
        .unwrap();
        assert_eq!(input.cwd(), Some("/home/dev/webapp"));
        assert_eq!(input.session(), Some("conv-1"));
        assert_eq!(input.prompt(), None);
        let out: Value = serde_json::from_str(&Agent::Cursor.output(&input, "ctx")).unwrap();
        assert_eq!(out, json!({"additional_context": "ctx"}));
    }

    #[test]
    fn kiro_prints_the_block_as_is() {
        let input = HookInput::parse(
            r#"{"session_id":"k","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"why?"}"#,
        )
        .unwrap();
        assert_eq!(input.prompt(), Some("why?"));
        assert_eq!(Agent::Kiro.output(&input, "block\n"), "block\n");
    }

    #[test]
    fn cline_camel_case_input_and_context_modification() {
        let input = HookInput::parse(
            r#"{"clineVersion":"4.2.0","hookName":"UserPromptSubmit","timestamp":"1767225600000","taskId":"t1","workspaceRoots":["/home/dev/webapp"],"userId":"u","userPromptSubmit":{"prompt":"why does the build fail?","attachments":[]}}"#,
        )
        .unwrap();
        assert_eq!(input.session(), Some("t1"));
        assert_eq!(input.cwd(), Some("/home/dev/webapp"));
        assert_eq!(input.prompt(), Some("why does the build fail?"));
        let out: Value = serde_json::from_str(&Agent::Cline.output(&input, "ctx")).unwrap();
        assert_eq!(out, json!({"cancel": false, "contextModification": "ctx"}));
        assert_eq!(Agent::Cline.output(&input, ""), "");
    }

    #[test]
    fn kimi_reads_a_prompt_of_content_parts() {
        let input = HookInput::parse(
            r#"{"hook_event_name":"UserPromptSubmit","session_id":"session_abc","session_title":"t","client_type":"kimi_code_cli","cwd":"/w","prompt":[{"type":"text","text":"fix the"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"migration"}]}"#,
        )
        .unwrap();
        assert_eq!(input.prompt(), Some("fix the\nmigration"));
        let plain = HookInput::parse(r#"{"cwd":"/w","prompt":"why?"}"#).unwrap();
        assert_eq!(plain.prompt(), Some("why?"));
        assert_eq!(Agent::Kimi.output(&plain, "block\n"), "block\n");
    }

    #[test]
    fn junie_takes_the_project_path_over_its_own_home_and_prints_the_block_as_is() {
        let input = HookInput::parse(
            r#"{"hook_event_name":"UserPromptSubmit","prompt":"why does the build fail?","session_id":"j1","cwd":"/home/dev/.junie","project_path":"/home/dev/webapp"}"#,
        )
        .unwrap();
        assert_eq!(input.cwd(), Some("/home/dev/webapp"));
        assert_eq!(input.session(), Some("j1"));
        assert_eq!(input.prompt(), Some("why does the build fail?"));
        assert_eq!(Agent::Junie.output(&input, "block"), "block");
        let older =
            HookInput::parse(r#"{"hook_event_name":"UserPromptSubmit","prompt":"p"}"#).unwrap();
        assert_eq!(older.cwd(), None);
    }

    #[test]
    fn devin_answers_with_additional_context_json() {
        let input = HookInput::parse(
            r#"{"hook_event_name":"UserPromptSubmit","session_id":"bald-ketch","prompt_id":"p1","prompt":"why?"}"#,
        )
        .unwrap();
        assert_eq!(input.cwd(), None, "Devin's project comes from its variable");
        let answer: serde_json::Value =
            serde_json::from_str(&Agent::Devin.output(&input, "block")).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["additionalContext"], "block");
        assert_eq!(
            answer["hookSpecificOutput"]["hookEventName"],
            "UserPromptSubmit"
        );
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
        assert_eq!(Agent::parse("windsurf"), None);
    }
}
