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

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::clients::Environment;
use super::hook_config::{self, HookEntries};
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
    pub entries: HookEntries,
    /// The file holds only esker's hooks: removed whole once they are out.
    pub own_file: bool,
    /// A file whose presence makes the agent ignore `config` (Droid's `hooks.json`).
    pub shadowed_by: Option<PathBuf>,
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
    let gemini_group = json!({"hooks": [{
        "name": HOOK_NAME,
        "type": "command",
        "command": command("gemini"),
        "timeout": TIMEOUT_SECONDS * 1000,
    }]});
    vec![
        HookClient {
            name: "claude",
            label: "Claude Code",
            config: claude_home.join("settings.json"),
            home: claude_home,
            entries: events(
                &["UserPromptSubmit", "SessionStart"],
                claude_group("claude-code"),
            ),
            own_file: false,
            shadowed_by: None,
        },
        HookClient {
            name: "codex",
            label: "Codex CLI",
            config: codex_home.join("hooks.json"),
            home: codex_home,
            entries: events(&["UserPromptSubmit", "SessionStart"], claude_group("codex")),
            own_file: false,
            shadowed_by: None,
        },
        HookClient {
            name: "gemini",
            label: "Gemini CLI",
            config: gemini_home.join("settings.json"),
            home: gemini_home,
            entries: events(&["BeforeAgent", "SessionStart"], gemini_group),
            own_file: false,
            shadowed_by: None,
        },
        HookClient {
            name: "copilot",
            label: "Copilot CLI",
            config: copilot_home.join("hooks").join("esker-recall.json"),
            home: copilot_home,
            entries: HookEntries {
                root_members: vec![("version", json!(1))],
                events: vec![(
                    "sessionStart",
                    json!({"type": "command", "bash": command("copilot"), "timeoutSec": TIMEOUT_SECONDS}),
                )],
            },
            own_file: true,
            shadowed_by: None,
        },
        HookClient {
            name: "droid",
            label: "Factory Droid",
            config: factory_home.join("settings.json"),
            entries: events(&["UserPromptSubmit", "SessionStart"], claude_group("droid")),
            own_file: false,
            shadowed_by: Some(factory_home.join("hooks.json")),
            home: factory_home,
        },
    ]
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
                return Report {
                    error: Some(format!(
                        "{} ignores the hooks in {} while {} exists; add `{}` to its UserPromptSubmit and SessionStart hooks there",
                        client.label,
                        client.config.display(),
                        shadow.display(),
                        hook_config::command_of(&client.entries).unwrap_or_default()
                    )),
                    ..report(client, Action::Failed)
                };
            }
            setup_client(client, options).unwrap_or_else(|error| Report {
                error: Some(error.to_string()),
                ..report(client, Action::Failed)
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

fn setup_client(client: &HookClient, options: &SetupOptions) -> Result<Report, SetupError> {
    let before = read_config(&client.config)?;
    let current = before.clone().unwrap_or_default();
    let config_error = |source| SetupError::Config {
        path: client.config.clone(),
        source,
    };
    let had_ours = before.is_some() && hook_config::installed(&current).map_err(config_error)?;
    let after = if options.remove {
        removal(client, &current).map_err(config_error)?
    } else {
        Some(hook_config::install(&current, &client.entries).map_err(config_error)?)
    };
    let action = match (options.remove, had_ours) {
        (true, _) => Action::Removed,
        (false, true) => Action::Updated,
        (false, false) => Action::Added,
    };
    if after.as_deref() == Some(current.as_str()) || (after.is_none() && before.is_none()) {
        let unchanged = if options.remove {
            Action::NotRegistered
        } else {
            Action::Unchanged
        };
        return Ok(report(client, unchanged));
    }
    let change = Some(unified_diff(
        &client.config,
        &current,
        after.as_deref().unwrap_or_default(),
    ));
    let backup = match (&after, options.dry_run) {
        (_, true) => None,
        (Some(after), false) => replace_config(&client.config, before.as_deref(), after)?,
        (None, false) => delete_config(&client.config, &current)?,
    };
    Ok(Report {
        backup,
        change,
        ..report(client, action)
    })
}

/// The text without esker's hooks: the backup's bytes when the file is what installing made of
/// that backup, else the file with just ours taken out; `None` for a file of esker's own that
/// is left with nothing.
fn removal(client: &HookClient, current: &str) -> Result<Option<String>, ConfigError> {
    if !hook_config::installed(current)? {
        return Ok(Some(current.to_owned()));
    }
    if let Ok(Some(backup)) = read_config(&backup_path(&client.config))
        && !hook_config::installed(&backup).unwrap_or(true)
        && hook_config::install(&backup, &client.entries)
            .ok()
            .as_deref()
            == Some(current)
    {
        return Ok(Some(backup));
    }
    let removed = hook_config::uninstall(current)?;
    if client.own_file && hook_config::only_root_members(&removed, &client.entries) {
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
            .map(|client| {
                let events = client
                    .entries
                    .events
                    .iter()
                    .map(|(name, _)| *name)
                    .collect();
                (client.name, client.config.clone(), events)
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "claude",
                    PathBuf::from("/h/.claude/settings.json"),
                    vec!["UserPromptSubmit", "SessionStart"]
                ),
                (
                    "codex",
                    PathBuf::from("/h/.codex/hooks.json"),
                    vec!["UserPromptSubmit", "SessionStart"]
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
                    vec!["UserPromptSubmit", "SessionStart"]
                ),
            ]
        );
        for client in &clients {
            for (_, entry) in &client.entries.events {
                assert!(hook_config::is_ours(entry), "{}", client.name);
            }
        }
    }
}
