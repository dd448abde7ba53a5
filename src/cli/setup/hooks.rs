//! `esker setup --hooks`: installs (or with `--remove` takes out) the recall hooks, `esker
//! recall --hook AGENT` on each prompt and session start, in every agent found here that has
//! hooks, with the care of the MCP registration: a dry run prints the diff, the previous bytes
//! go to `<file>.esker-backup`, a second run changes nothing, the user's other hooks stay, and
//! removal restores the backup when the file is exactly what installing made of it.
//!
//! Where and how, from each agent's documentation or source:
//! - Claude Code: `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`), `hooks.UserPromptSubmit`
//!   and `hooks.SessionStart`, groups `{"hooks": [{"type": "command", "command", "timeout"
//!   (seconds)}]}` (no matcher: every prompt, every session source).
//! - Codex CLI: `~/.codex/hooks.json` (`$CODEX_HOME`), the same events and groups
//!   (codex-rs/config `HooksFile`); Codex runs a new user hook only once it is trusted in
//!   `/hooks`.
//! - Gemini CLI: `~/.gemini/settings.json` (`$GEMINI_CLI_HOME`), `hooks.BeforeAgent` and
//!   `hooks.SessionStart`, groups whose hooks carry a `name` and a `timeout` in milliseconds.
//! - Copilot CLI: a file of its own, `~/.copilot/hooks/esker-recall.json` (`$COPILOT_HOME`),
//!   `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash", "timeoutSec"}]}}`
//!   (its `userPromptSubmitted` output is dropped for command hooks).
//! - Factory Droid: `~/.factory/settings.json`, `hooks.UserPromptSubmit` and
//!   `hooks.SessionStart`, Claude Code's groups (docs.factory.ai hooks reference). Droid reads
//!   that `hooks` key only while `~/.factory/hooks.json` is absent: with one there, esker writes
//!   nothing and says why (the file's own layout is not documented well enough to edit).
//! - CodeBuddy Code: `~/.codebuddy/settings.json`, Claude Code's events and groups
//!   (codebuddy.ai/docs/cli/hooks: "fully compatible with the Claude Code Hooks
//!   specification").
//! - Qwen Code: `~/.qwen/settings.json`, `hooks.UserPromptSubmit` and `hooks.SessionStart`,
//!   Claude Code's groups with a `name` and a `timeout` in milliseconds (QwenLM/qwen-code
//!   docs/users/features/hooks.md).
//! - Cursor: `~/.cursor/hooks.json`, `{"version": 1, "hooks": {"sessionStart": [{"command",
//!   "timeout" (seconds)}]}}`; `sessionStart` is its one documented event whose output
//!   (`additional_context`) reaches the model (cursor.com/docs/hooks).
//! - Kiro (IDE 1.x, CLI V3): a file of its own, `~/.kiro/hooks/esker-recall.json`,
//!   `{"version": "v1", "hooks": [{"name", "trigger", "action": {"type": "command",
//!   "command"}, "timeout" (seconds), "enabled"}]}` for `UserPromptSubmit` and `SessionStart`
//!   (kiro.dev/docs/cli/v3/hooks).
//! - Cline: one executable file per event and folder, `~/Documents/Cline/Hooks/
//!   UserPromptSubmit`, a script esker writes whole; one of the user's own there is left alone
//!   and reported (cline/cline apps/vscode/src/core/hooks/utils.ts).
//! - Kimi Code: `~/.kimi-code/config.toml`, a `[[hooks]]` table `{event = "UserPromptSubmit",
//!   command, timeout (seconds)}` (MoonshotAI/kimi-code docs/en/customization/hooks.md; its
//!   `SessionStart` is observation-only).
//! - Devin CLI: `$XDG_CONFIG_HOME/devin/config.json` (default `~/.config/devin`), beside its
//!   other settings, `hooks.UserPromptSubmit` and `hooks.SessionStart`, Claude Code's groups
//!   with a `timeout` in seconds (docs.devin.ai cli/extensibility/hooks, "Where hooks live").
//! - Junie: `$JUNIE_HOME/config.json` (default `~/.junie`), `hooks.UserPromptSubmit`, Claude
//!   Code's groups with a `timeout` in seconds, run through `sh -c` (junie.jetbrains.com docs,
//!   hooks; its `SessionStart` output is ignored). Hooks fire in Junie's terminal UI only.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::clients::Environment;
use super::hook_config::{self, HookEntries};
use super::hook_file::{self, FilePlan, OwnedFile};
use super::toml_hooks::{self, TomlHook};
use super::write::{backup_path, read_config, replace_config, unified_diff};
use super::{Action, ConfigError, Report, SetupError, SetupOptions, runs_from_uv_cache};

/// Seconds an agent waits for the hook (recall gives up after one).
const TIMEOUT_SECONDS: u64 = 5;

/// The name of the hook where an agent shows names (Gemini CLI).
const HOOK_NAME: &str = "esker-recall";

/// One agent whose hooks can run `esker recall`.
#[derive(Debug, Clone)]
pub struct HookClient {
    /// The name `--client` takes.
    pub name: &'static str,
    pub label: &'static str,
    pub config: PathBuf,
    /// Its presence means the agent is installed or configured here.
    pub home: PathBuf,
    /// The command the hooks run (for a message telling a person what to add).
    pub command: String,
    pub edit: HookEdit,
    /// A file whose presence makes the agent ignore `config` (Droid's `hooks.json`).
    pub shadowed_by: Option<PathBuf>,
}

/// How esker's hooks get into an agent's file.
#[derive(Debug, Clone)]
pub enum HookEdit {
    /// Entries merged into the file's `hooks` object, beside the user's.
    Entries {
        entries: HookEntries,
        /// The file holds only esker's hooks: removed whole once they are out.
        own_file: bool,
    },
    /// `[[hooks]]` tables added to a TOML config, beside the user's (Kimi Code).
    Tables(Vec<TomlHook>),
    /// A file esker writes whole.
    File(OwnedFile),
}

impl HookEdit {
    /// Whether esker's hooks are in `text`.
    fn installed(&self, text: &str) -> Result<bool, ConfigError> {
        match self {
            HookEdit::Entries { .. } => hook_config::installed(text),
            HookEdit::Tables(_) => toml_hooks::installed(text),
            HookEdit::File(_) => Ok(hook_file::is_ours(text)),
        }
    }

    /// `text` with esker's hooks in.
    fn install(&self, text: &str) -> Result<String, ConfigError> {
        match self {
            HookEdit::Entries { entries, .. } => hook_config::install(text, entries),
            HookEdit::Tables(hooks) => toml_hooks::install(text, hooks),
            HookEdit::File(file) => Ok(file.text.clone()),
        }
    }

    /// `text` without esker's hooks.
    fn uninstall(&self, text: &str) -> Result<String, ConfigError> {
        match self {
            HookEdit::Entries { .. } => hook_config::uninstall(text),
            HookEdit::Tables(_) => toml_hooks::uninstall(text),
            HookEdit::File(_) => Ok(String::new()),
        }
    }

    /// Whether `text` (esker's hooks out) is left with nothing of the user's in a file of
    /// esker's own, to be deleted.
    fn leaves_nothing(&self, text: &str) -> bool {
        match self {
            HookEdit::Entries {
                entries,
                own_file: true,
            } => hook_config::only_root_members(text, entries),
            _ => false,
        }
    }
}

impl HookClient {
    /// The agent events esker hooks.
    pub fn events(&self) -> Vec<&'static str> {
        match &self.edit {
            HookEdit::Entries { entries, .. } => {
                entries.events.iter().map(|(name, _)| *name).collect()
            }
            HookEdit::Tables(hooks) => hooks.iter().map(|hook| hook.event).collect(),
            HookEdit::File(file) => file.events.clone(),
        }
    }
}

/// The command an agent runs: this binary (quoted for the shell when needed) or `uvx esker`.
pub fn esker_command(options: &SetupOptions) -> Result<String, SetupError> {
    if let Some(command) = &options.command {
        return Ok(shell_quoted(&command.display().to_string()));
    }
    let executable =
        std::env::current_exe().map_err(|error| SetupError::io(Path::new("esker"), error))?;
    Ok(if runs_from_uv_cache(&executable) {
        "uvx esker".to_owned()
    } else {
        shell_quoted(&executable.display().to_string())
    })
}

/// `text` as one shell word.
fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Every agent with recall hooks, in report order.
pub fn hook_clients(environment: &Environment, esker: &str) -> Vec<HookClient> {
    let home = &environment.home;
    let command = |agent: &str| format!("{esker} recall --hook {agent}");
    let claude_home = environment
        .claude_config_dir
        .clone()
        .unwrap_or_else(|| home.join(".claude"));
    let codex_home = environment
        .codex_home
        .clone()
        .unwrap_or_else(|| home.join(".codex"));
    let gemini_home = environment
        .gemini_cli_home
        .clone()
        .unwrap_or_else(|| home.clone())
        .join(".gemini");
    let copilot_home = environment
        .copilot_home
        .clone()
        .unwrap_or_else(|| home.join(".copilot"));
    let factory_home = home.join(".factory");
    let claude_group = |agent: &str| json!({"hooks": [{"type": "command", "command": command(agent), "timeout": TIMEOUT_SECONDS}]});
    let named_group = |agent: &str| {
        json!({"hooks": [{
            "name": HOOK_NAME,
            "type": "command",
            "command": command(agent),
            "timeout": TIMEOUT_SECONDS * 1000,
        }]})
    };
    let merged =
        |name, label, home: PathBuf, file: &str, agent: &str, entries: HookEntries| HookClient {
            name,
            label,
            config: home.join(file),
            home,
            command: command(agent),
            edit: HookEdit::Entries {
                entries,
                own_file: false,
            },
            shadowed_by: None,
        };
    let prompt_and_start = ["UserPromptSubmit", "SessionStart"];
    vec![
        merged(
            "claude",
            "Claude Code",
            claude_home,
            "settings.json",
            "claude-code",
            events(&prompt_and_start, claude_group("claude-code")),
        ),
        merged(
            "codex",
            "Codex CLI",
            codex_home,
            "hooks.json",
            "codex",
            events(&prompt_and_start, claude_group("codex")),
        ),
        merged(
            "gemini",
            "Gemini CLI",
            gemini_home,
            "settings.json",
            "gemini",
            events(&["BeforeAgent", "SessionStart"], named_group("gemini")),
        ),
        HookClient {
            name: "copilot",
            label: "Copilot CLI",
            config: copilot_home.join("hooks").join("esker-recall.json"),
            home: copilot_home,
            command: command("copilot"),
            edit: HookEdit::Entries {
                entries: HookEntries {
                    root_members: vec![("version", json!(1))],
                    events: vec![(
                        "sessionStart",
                        json!({"type": "command", "bash": command("copilot"), "timeoutSec": TIMEOUT_SECONDS}),
                    )],
                },
                own_file: true,
            },
            shadowed_by: None,
        },
        HookClient {
            shadowed_by: Some(factory_home.join("hooks.json")),
            ..merged(
                "droid",
                "Factory Droid",
                factory_home,
                "settings.json",
                "droid",
                events(&prompt_and_start, claude_group("droid")),
            )
        },
        merged(
            "codebuddy",
            "CodeBuddy Code",
            home.join(".codebuddy"),
            "settings.json",
            "codebuddy",
            events(&prompt_and_start, claude_group("codebuddy")),
        ),
        merged(
            "qwen",
            "Qwen Code",
            home.join(".qwen"),
            "settings.json",
            "qwen",
            events(&prompt_and_start, named_group("qwen")),
        ),
        merged(
            "cursor",
            "Cursor",
            home.join(".cursor"),
            "hooks.json",
            "cursor",
            HookEntries {
                root_members: vec![("version", json!(1))],
                events: vec![(
                    "sessionStart",
                    json!({"command": command("cursor"), "timeout": TIMEOUT_SECONDS}),
                )],
            },
        ),
        HookClient {
            name: "kiro",
            label: "Kiro",
            config: home.join(".kiro").join("hooks").join("esker-recall.json"),
            home: home.join(".kiro"),
            command: command("kiro"),
            edit: HookEdit::File(kiro_hooks_file(&command("kiro"))),
            shadowed_by: None,
        },
        HookClient {
            name: "cline",
            label: "Cline",
            config: cline_hooks_dir(home).join("UserPromptSubmit"),
            home: home.join("Documents").join("Cline"),
            command: command("cline"),
            edit: HookEdit::File(cline_hook_script(&command("cline"))),
            shadowed_by: None,
        },
        HookClient {
            name: "kimi",
            label: "Kimi Code",
            config: home.join(".kimi-code").join("config.toml"),
            home: home.join(".kimi-code"),
            command: command("kimi"),
            edit: HookEdit::Tables(vec![TomlHook {
                event: "UserPromptSubmit",
                command: command("kimi"),
                timeout: TIMEOUT_SECONDS as i64,
            }]),
            shadowed_by: None,
        },
        {
            let (config, present) = super::clients::devin_folders(environment);
            HookClient {
                home: present,
                ..merged(
                    "devin",
                    "Devin CLI",
                    config,
                    "config.json",
                    "devin",
                    events(&prompt_and_start, claude_group("devin")),
                )
            }
        },
        merged(
            "junie",
            "Junie",
            environment
                .junie_home
                .clone()
                .unwrap_or_else(|| home.join(".junie")),
            "config.json",
            "junie",
            events(&["UserPromptSubmit"], claude_group("junie")),
        ),
    ]
}

/// Cline's global hooks folder (`~/Documents/Cline/Hooks`).
fn cline_hooks_dir(home: &Path) -> PathBuf {
    home.join("Documents").join("Cline").join("Hooks")
}

/// Kiro's hooks file: `UserPromptSubmit` and `SessionStart` run `command`.
fn kiro_hooks_file(command: &str) -> OwnedFile {
    let triggers = ["UserPromptSubmit", "SessionStart"];
    let hooks: Vec<Value> = triggers
        .iter()
        .map(|trigger| {
            json!({
                "name": format!("{HOOK_NAME}-{}", trigger.to_lowercase()),
                "trigger": trigger,
                "action": {"type": "command", "command": command},
                "timeout": TIMEOUT_SECONDS,
                "enabled": true,
            })
        })
        .collect();
    let document = json!({"version": "v1", "hooks": hooks});
    OwnedFile {
        text: format!("{document:#}\n"),
        executable: false,
        events: triggers.to_vec(),
    }
}

/// Cline's `UserPromptSubmit` hook: a script that hands over to `command`.
fn cline_hook_script(command: &str) -> OwnedFile {
    OwnedFile {
        text: format!(
            "#!/bin/sh\n# esker recall hook: written by `esker setup --hooks`, deleted by `esker setup --hooks --remove`.\nexec {command}\n"
        ),
        executable: true,
        events: vec!["UserPromptSubmit"],
    }
}

fn events(names: &[&'static str], entry: Value) -> HookEntries {
    HookEntries {
        root_members: Vec::new(),
        events: names.iter().map(|name| (*name, entry.clone())).collect(),
    }
}

/// Plans and (unless a dry run) applies the hooks of each selected agent.
pub fn setup_hooks(
    environment: &Environment,
    esker: &str,
    options: &SetupOptions,
) -> Result<Vec<Report>, SetupError> {
    let clients = hook_clients(environment, esker);
    for name in &options.clients {
        if !clients.iter().any(|client| client.name == name) {
            return Err(SetupError::UnknownClient(name.clone()));
        }
    }
    Ok(clients
        .iter()
        .map(|client| {
            let chosen = options.clients.iter().any(|name| name == client.name);
            let present = client.config.exists() || client.home.is_dir();
            if !chosen && (!options.clients.is_empty() || !present) {
                return report(client, Action::NotFound);
            }
            if let Some(shadow) = client.shadowed_by.as_ref().filter(|file| file.exists()) {
                return failed(
                    client,
                    format!(
                        "{} ignores the hooks in {} while {} exists; add `{}` to its {} hooks there",
                        client.label,
                        client.config.display(),
                        shadow.display(),
                        client.command,
                        client.events().join(" and "),
                    ),
                );
            }
            setup_client(client, options).unwrap_or_else(|error| {
                failed(
                    client,
                    format!(
                        "{error}; esker leaves the file alone: add `{}` to its {} hooks by hand",
                        client.command,
                        client.events().join(" and "),
                    ),
                )
            })
        })
        .collect())
}

fn report(client: &HookClient, action: Action) -> Report {
    Report {
        client: client.name,
        label: client.label,
        config: client.config.clone(),
        action,
        backup: None,
        change: None,
        error: None,
    }
}

fn failed(client: &HookClient, error: String) -> Report {
    Report {
        error: Some(error),
        ..report(client, Action::Failed)
    }
}

/// The file's text before and after, and what the change is called.
struct Change {
    before: Option<String>,
    /// `None`: the file goes.
    after: Option<String>,
    action: Action,
}

fn setup_client(client: &HookClient, options: &SetupOptions) -> Result<Report, SetupError> {
    let before = read_config(&client.config)?;
    let change = match &client.edit {
        HookEdit::File(file) => match owned_change(file, before, options) {
            Some(change) => change,
            None => return Ok(foreign_file(client, options)),
        },
        _ => merged_change(client, before, options)?,
    };
    apply(client, change, options)
}

/// The change to a file esker's hooks are merged into, beside the user's.
fn merged_change(
    client: &HookClient,
    before: Option<String>,
    options: &SetupOptions,
) -> Result<Change, SetupError> {
    let current = before.clone().unwrap_or_default();
    let config_error = |source| SetupError::Config {
        path: client.config.clone(),
        source,
    };
    let edit = &client.edit;
    let had_ours = before.is_some() && edit.installed(&current).map_err(config_error)?;
    let after = if options.remove {
        removal(client, &current).map_err(config_error)?
    } else {
        Some(edit.install(&current).map_err(config_error)?)
    };
    let action = match (options.remove, had_ours) {
        (true, _) => Action::Removed,
        (false, true) => Action::Updated,
        (false, false) => Action::Added,
    };
    Ok(Change {
        before,
        after,
        action,
    })
}

/// The change to a whole file of esker's; `None` when one of the user's own is there.
fn owned_change(
    file: &OwnedFile,
    before: Option<String>,
    options: &SetupOptions,
) -> Option<Change> {
    let plan = hook_file::plan(before.as_deref(), file, options.remove);
    let (after, action) = match plan {
        FilePlan::Foreign => return None,
        FilePlan::Write(text) if before.is_some() => (Some(text), Action::Updated),
        FilePlan::Write(text) => (Some(text), Action::Added),
        FilePlan::Delete => (None, Action::Removed),
        FilePlan::Keep => (before.clone(), Action::Unchanged),
    };
    Some(Change {
        before,
        after,
        action,
    })
}

/// A file of the user's own where esker's would go: left alone, and said so when installing.
fn foreign_file(client: &HookClient, options: &SetupOptions) -> Report {
    if options.remove {
        return report(client, Action::NotRegistered);
    }
    failed(
        client,
        format!(
            "{} is a hook of your own, left alone; {} runs one such file per event: have it also run `{}` and pass on its answer",
            client.config.display(),
            client.label,
            client.command,
        ),
    )
}

/// Reports `change` and, unless a dry run or nothing changes, writes it (backup first).
fn apply(
    client: &HookClient,
    change: Change,
    options: &SetupOptions,
) -> Result<Report, SetupError> {
    let current = change.before.clone().unwrap_or_default();
    if change.after.as_deref() == Some(current.as_str())
        || (change.after.is_none() && change.before.is_none())
    {
        let unchanged = if options.remove {
            Action::NotRegistered
        } else {
            Action::Unchanged
        };
        return Ok(report(client, unchanged));
    }
    let diff = Some(unified_diff(
        &client.config,
        &current,
        change.after.as_deref().unwrap_or_default(),
    ));
    let backup = match (&change.after, options.dry_run) {
        (_, true) => None,
        (Some(after), false) => {
            let backup = replace_config(&client.config, change.before.as_deref(), after)?;
            make_executable_if_needed(client)?;
            backup
        }
        (None, false) => delete_config(&client.config, &current)?,
    };
    Ok(Report {
        backup,
        change: diff,
        ..report(client, change.action)
    })
}

/// Sets the executable bits of a hook script the agent runs directly (Cline's).
fn make_executable_if_needed(client: &HookClient) -> Result<(), SetupError> {
    use std::os::unix::fs::PermissionsExt;
    let HookEdit::File(OwnedFile {
        executable: true, ..
    }) = &client.edit
    else {
        return Ok(());
    };
    let path = &client.config;
    let mut permissions = fs::metadata(path)
        .map_err(|error| SetupError::io(path, error))?
        .permissions();
    permissions.set_mode(permissions.mode() | 0o755);
    fs::set_permissions(path, permissions).map_err(|error| SetupError::io(path, error))
}

/// The text without esker's hooks: the backup's bytes when the file is what installing made of
/// that backup, else the file with just ours taken out; `None` for a file of esker's own that
/// is left with nothing.
fn removal(client: &HookClient, current: &str) -> Result<Option<String>, ConfigError> {
    let edit = &client.edit;
    if !edit.installed(current)? {
        return Ok(Some(current.to_owned()));
    }
    if let Ok(Some(backup)) = read_config(&backup_path(&client.config))
        && !edit.installed(&backup).unwrap_or(true)
        && edit.install(&backup).ok().as_deref() == Some(current)
    {
        return Ok(Some(backup));
    }
    let removed = edit.uninstall(current)?;
    if edit.leaves_nothing(&removed) {
        return Ok(None);
    }
    Ok(Some(removed))
}

/// Deletes an esker-only file, its bytes kept in the backup.
fn delete_config(config: &Path, current: &str) -> Result<Option<PathBuf>, SetupError> {
    let backup = backup_path(config);
    fs::write(&backup, current).map_err(|error| SetupError::io(&backup, error))?;
    fs::remove_file(config).map_err(|error| SetupError::io(config, error))?;
    Ok(Some(backup))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(home: &Path) -> Environment {
        Environment {
            home: home.to_path_buf(),
            codex_home: None,
            claude_config_dir: None,
            gemini_cli_home: None,
            xdg_config_home: None,
            copilot_home: None,
            junie_home: None,
            grok_home: None,
        }
    }

    #[test]
    fn paths_with_spaces_are_quoted_for_the_shell() {
        assert_eq!(shell_quoted("/opt/bin/esker"), "/opt/bin/esker");
        assert_eq!(shell_quoted("/Users/a b/esker"), "'/Users/a b/esker'");
        assert_eq!(shell_quoted("/it's/esker"), r"'/it'\''s/esker'");
    }

    #[test]
    fn each_agent_gets_its_events_in_its_own_file() {
        let clients = hook_clients(&environment(Path::new("/h")), "/opt/bin/esker");
        let found: Vec<(&str, PathBuf, Vec<&str>)> = clients
            .iter()
            .map(|client| (client.name, client.config.clone(), client.events()))
            .collect();
        let prompt_and_start = vec!["UserPromptSubmit", "SessionStart"];
        assert_eq!(
            found,
            [
                (
                    "claude",
                    PathBuf::from("/h/.claude/settings.json"),
                    prompt_and_start.clone()
                ),
                (
                    "codex",
                    PathBuf::from("/h/.codex/hooks.json"),
                    prompt_and_start.clone()
                ),
                (
                    "gemini",
                    PathBuf::from("/h/.gemini/settings.json"),
                    vec!["BeforeAgent", "SessionStart"]
                ),
                (
                    "copilot",
                    PathBuf::from("/h/.copilot/hooks/esker-recall.json"),
                    vec!["sessionStart"]
                ),
                (
                    "droid",
                    PathBuf::from("/h/.factory/settings.json"),
                    prompt_and_start.clone()
                ),
                (
                    "codebuddy",
                    PathBuf::from("/h/.codebuddy/settings.json"),
                    prompt_and_start.clone()
                ),
                (
                    "qwen",
                    PathBuf::from("/h/.qwen/settings.json"),
                    prompt_and_start.clone()
                ),
                (
                    "cursor",
                    PathBuf::from("/h/.cursor/hooks.json"),
                    vec!["sessionStart"]
                ),
                (
                    "kiro",
                    PathBuf::from("/h/.kiro/hooks/esker-recall.json"),
                    prompt_and_start.clone()
                ),
                (
                    "cline",
                    PathBuf::from("/h/Documents/Cline/Hooks/UserPromptSubmit"),
                    vec!["UserPromptSubmit"]
                ),
                (
                    "kimi",
                    PathBuf::from("/h/.kimi-code/config.toml"),
                    vec!["UserPromptSubmit"]
                ),
                (
                    "devin",
                    PathBuf::from("/h/.config/devin/config.json"),
                    prompt_and_start.clone()
                ),
                (
                    "junie",
                    PathBuf::from("/h/.junie/config.json"),
                    vec!["UserPromptSubmit"]
                ),
            ]
        );
        for client in &clients {
            assert!(
                client
                    .command
                    .ends_with(&format!("recall --hook {}", agent_of(client)))
            );
            match &client.edit {
                HookEdit::Entries { entries, .. } => {
                    for (_, entry) in &entries.events {
                        assert!(hook_config::is_ours(entry), "{}", client.name);
                    }
                }
                HookEdit::File(file) => assert!(hook_file::is_ours(&file.text), "{}", client.name),
                HookEdit::Tables(hooks) => {
                    assert!(hooks.iter().all(|hook| hook.command == client.command));
                }
            }
        }
    }

    fn agent_of(client: &HookClient) -> &'static str {
        match client.name {
            "claude" => "claude-code",
            name => name,
        }
    }

    #[test]
    fn kiros_file_hooks_both_triggers_with_the_command() {
        let file = kiro_hooks_file("/opt/bin/esker recall --hook kiro");
        let value: Value = serde_json::from_str(&file.text).unwrap();
        assert_eq!(value["version"], "v1");
        let hooks = value["hooks"].as_array().unwrap();
        assert_eq!(hooks.len(), 2);
        for (hook, trigger) in hooks.iter().zip(["UserPromptSubmit", "SessionStart"]) {
            assert_eq!(hook["trigger"], trigger);
            assert_eq!(hook["action"]["type"], "command");
            assert_eq!(
                hook["action"]["command"],
                "/opt/bin/esker recall --hook kiro"
            );
            assert_eq!(hook["enabled"], true);
        }
    }

    #[test]
    fn clines_script_execs_the_command() {
        let file = cline_hook_script("'/a b/esker' recall --hook cline");
        assert!(file.executable);
        assert!(file.text.starts_with("#!/bin/sh\n"));
        assert!(
            file.text
                .ends_with("\nexec '/a b/esker' recall --hook cline\n")
        );
    }
}
