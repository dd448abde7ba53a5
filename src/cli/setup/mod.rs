//! `esker setup`: registers `esker serve` as an MCP server with every client found on this
//! machine (Claude Code, Codex CLI, Gemini CLI, Qwen Code, OpenCode, Copilot CLI, Cursor), or
//! with `--remove` takes it out again. Edits keep everything else in the file (comments, key
//! order, other servers); a run that would change nothing writes nothing; `--dry-run` prints
//! the diff instead of writing. Claude Code is registered through `claude mcp add --scope
//! user` when its command is on PATH, else by editing `~/.claude.json`.
//!
//! `--remove` restores the file's bytes from the backup when the file is exactly what setup
//! made of that backup, and otherwise takes out just the `esker` entry.

pub mod clients;
pub mod hook_config;
pub mod hook_file;
pub mod hooks;
pub mod json_config;
pub mod toml_config;
pub mod toml_hooks;
pub mod write;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::cli::Outcome;
use crate::cli::style::{self, paint};
use clients::{Client, Environment, Format, find_on_path, known_clients};
use write::{backup_path, read_config, replace_config, unified_diff};

/// The name esker is registered under in every client.
pub const SERVER_NAME: &str = "esker";

/// The command a client runs to start the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub command: String,
    pub args: Vec<String>,
}

impl Server {
    /// `esker serve [--profile PROFILE]` with `command` as the binary.
    pub fn serve(command: String, profile: Option<&str>) -> Server {
        let mut args = vec!["serve".to_owned()];
        if let Some(profile) = profile {
            args.extend(["--profile".to_owned(), profile.to_owned()]);
        }
        Server { command, args }
    }

    /// The server for the running binary: its absolute path, or `uvx esker serve` when it runs
    /// from uv's cache (`uvx esker setup`), whose copy uv may delete at any time.
    pub fn for_executable(executable: &Path, profile: Option<&str>) -> Server {
        if !runs_from_uv_cache(executable) {
            return Server::serve(executable.display().to_string(), profile);
        }
        let mut server = Server::serve("uvx".to_owned(), profile);
        server.args.insert(0, "esker".to_owned());
        server
    }
}

/// Whether `executable` lies in uv's cache (`~/.cache/uv/archive-v0/<hash>/bin/esker`,
/// `%LOCALAPPDATA%\uv\cache\archive-v0\…`), where `uvx` runs packages from.
pub(crate) fn runs_from_uv_cache(executable: &Path) -> bool {
    let names: Vec<String> = executable
        .components()
        .map(|part| part.as_os_str().to_string_lossy().to_lowercase())
        .collect();
    let Some(uv) = names.iter().position(|name| name == "uv") else {
        return false;
    };
    names[uv..].iter().any(|name| name.starts_with("archive-v"))
}

/// What `esker setup` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct SetupOptions {
    pub dry_run: bool,
    pub remove: bool,
    pub profile: Option<String>,
    /// Only these clients (by name), configured even when not found on this machine.
    pub clients: Vec<String>,
    /// The binary to register; default: this one.
    pub command: Option<PathBuf>,
    /// Install or remove the recall hooks ([`hooks`]) instead of the MCP server.
    pub hooks: bool,
    pub json: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Config { path: PathBuf, source: ConfigError },
    #[error(
        "unknown client {0} (known: claude, codex, gemini, qwen, opencode, copilot, cursor, antigravity)"
    )]
    UnknownClient(String),
    #[error("`{command}` failed: {message}")]
    ClientCommand { command: String, message: String },
}

impl SetupError {
    pub fn io(path: &Path, source: std::io::Error) -> SetupError {
        SetupError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A config file esker will not rewrite.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot parse: {0}")]
    Parse(String),
    #[error("unexpected shape: {0}")]
    Shape(String),
}

/// What happened (or, on a dry run, would happen) to one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Added,
    Updated,
    Removed,
    Unchanged,
    NotRegistered,
    NotFound,
    Failed,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Added => "added",
            Action::Updated => "updated",
            Action::Removed => "removed",
            Action::Unchanged => "unchanged",
            Action::NotRegistered => "not registered",
            Action::NotFound => "not found",
            Action::Failed => "failed",
        }
    }
}

/// One client's line of the report.
#[derive(Debug, Clone)]
pub struct Report {
    pub client: &'static str,
    pub label: &'static str,
    pub config: PathBuf,
    pub action: Action,
    pub backup: Option<PathBuf>,
    /// The change as a unified diff, or the client commands run (or to run).
    pub change: Option<String>,
    pub error: Option<String>,
}

/// Runs `esker setup`; prints one block per client.
pub fn run(options: &SetupOptions) -> Result<Outcome, super::CliError> {
    let environment = Environment::from_process();
    if options.hooks {
        let reports = hooks::setup_hooks(&environment, &hooks::esker_command(options)?, options)?;
        return finish(&reports, options);
    }
    let server = match &options.command {
        Some(command) => Server::serve(command.display().to_string(), options.profile.as_deref()),
        None => {
            let executable = std::env::current_exe()
                .map_err(|error| SetupError::io(Path::new("esker"), error))?;
            Server::for_executable(&executable, options.profile.as_deref())
        }
    };
    let reports = setup_clients(&environment, &server, options)?;
    finish(&reports, options)
}

/// Prints the reports; an error when a client failed.
fn finish(reports: &[Report], options: &SetupOptions) -> Result<Outcome, super::CliError> {
    if options.json {
        super::print_json(&Value::Array(reports.iter().map(report_json).collect()))?;
    } else {
        print_reports(reports, options);
    }
    if reports.iter().any(|report| report.action == Action::Failed) {
        return Err(super::CliError::Usage(
            "setup failed for some clients (see above)".to_owned(),
        ));
    }
    let touched = reports
        .iter()
        .filter(|report| report.action != Action::NotFound)
        .count();
    Ok(Outcome::of_count(touched))
}

/// Plans and (unless a dry run) applies the change for each selected client.
pub fn setup_clients(
    environment: &Environment,
    server: &Server,
    options: &SetupOptions,
) -> Result<Vec<Report>, SetupError> {
    let known = known_clients(environment);
    for name in &options.clients {
        if !known.iter().any(|client| client.name == name) {
            return Err(SetupError::UnknownClient(name.clone()));
        }
    }
    Ok(known
        .iter()
        .map(|client| {
            let chosen = options.clients.iter().any(|name| name == client.name);
            if !chosen && (!options.clients.is_empty() || !client.is_present()) {
                return report(client, Action::NotFound);
            }
            setup_client(client, server, options).unwrap_or_else(|error| Report {
                error: Some(error.to_string()),
                ..report(client, Action::Failed)
            })
        })
        .collect())
}

fn report(client: &Client, action: Action) -> Report {
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

fn setup_client(
    client: &Client,
    server: &Server,
    options: &SetupOptions,
) -> Result<Report, SetupError> {
    if let Some(cli) = client.cli.and_then(find_on_path) {
        return setup_through_cli(client, &cli, server, options);
    }
    let before = read_config(&client.config)?;
    let current = before.clone().unwrap_or_default();
    let config_error = |source| SetupError::Config {
        path: client.config.clone(),
        source,
    };
    let (after, action) = if options.remove {
        let after = removal(client, &current).map_err(config_error)?;
        (after, Action::Removed)
    } else {
        let after = upsert(client, &current, server).map_err(config_error)?;
        let registered = registered(client, &current)
            .map_err(config_error)?
            .is_some();
        (
            after,
            if registered {
                Action::Updated
            } else {
                Action::Added
            },
        )
    };
    if after == current {
        let unchanged = if options.remove {
            Action::NotRegistered
        } else {
            Action::Unchanged
        };
        return Ok(report(client, unchanged));
    }
    let change = Some(unified_diff(&client.config, &current, &after));
    let backup = if options.dry_run {
        None
    } else {
        replace_config(&client.config, before.as_deref(), &after)?
    };
    Ok(Report {
        backup,
        change,
        ..report(client, action)
    })
}

/// A registration as found in a file, enough to redo the edit that made it.
enum Registered {
    Toml(Server),
    Json(Value),
}

fn registered(client: &Client, text: &str) -> Result<Option<Registered>, ConfigError> {
    Ok(match client.format {
        Format::Toml => toml_config::registered_server(text, client.container, SERVER_NAME)?
            .map(Registered::Toml),
        Format::Json => {
            json_config::server_entry(text, client.container, SERVER_NAME)?.map(Registered::Json)
        }
    })
}

fn upsert(client: &Client, text: &str, server: &Server) -> Result<String, ConfigError> {
    match client.format {
        Format::Toml => toml_config::upsert(text, client.container, SERVER_NAME, server),
        Format::Json => {
            let entry = client.shape.entry(server);
            json_config::upsert(text, client.container, SERVER_NAME, &entry)
        }
    }
}

fn reapply(client: &Client, text: &str, registration: &Registered) -> Result<String, ConfigError> {
    match registration {
        Registered::Toml(server) => {
            toml_config::upsert(text, client.container, SERVER_NAME, server)
        }
        Registered::Json(entry) => json_config::upsert(text, client.container, SERVER_NAME, entry),
    }
}

/// The text without esker: the backup's exact bytes when the file is what registering made of
/// that backup, else the file with just the `esker` entry taken out.
fn removal(client: &Client, current: &str) -> Result<String, ConfigError> {
    let Some(registration) = registered(client, current)? else {
        return Ok(current.to_owned());
    };
    if let Ok(Some(backup)) = read_config(&backup_path(&client.config))
        && registered(client, &backup).ok().flatten().is_none()
        && reapply(client, &backup, &registration).ok().as_deref() == Some(current)
    {
        return Ok(backup);
    }
    match client.format {
        Format::Toml => toml_config::remove(current, client.container, SERVER_NAME),
        Format::Json => json_config::remove(current, client.container, SERVER_NAME),
    }
}

/// Claude Code with its command on PATH: `claude mcp add/remove --scope user`, skipped when
/// its config already says what we would.
fn setup_through_cli(
    client: &Client,
    cli: &Path,
    server: &Server,
    options: &SetupOptions,
) -> Result<Report, SetupError> {
    let current = read_config(&client.config)?.unwrap_or_default();
    let existing = json_config::server_entry(&current, client.container, SERVER_NAME)
        .ok()
        .flatten();
    let wanted = client.shape.entry(server);
    let matches = existing.as_ref().is_some_and(|existing| {
        wanted
            .as_object()
            .into_iter()
            .flatten()
            .all(|(key, value)| existing.get(key) == Some(value))
    });
    let remove_command = ["mcp", "remove", "--scope", "user", SERVER_NAME];
    let mut commands: Vec<Vec<String>> = Vec::new();
    let action = match (options.remove, existing.is_some(), matches) {
        (true, false, _) => Action::NotRegistered,
        (true, true, _) => {
            commands.push(remove_command.iter().map(|arg| arg.to_string()).collect());
            Action::Removed
        }
        (false, _, true) => Action::Unchanged,
        (false, had_entry, false) => {
            if had_entry {
                commands.push(remove_command.iter().map(|arg| arg.to_string()).collect());
            }
            let mut add: Vec<String> = ["mcp", "add", "--scope", "user", SERVER_NAME, "--"]
                .iter()
                .map(|arg| arg.to_string())
                .collect();
            add.push(server.command.clone());
            add.extend(server.args.iter().cloned());
            commands.push(add);
            if had_entry {
                Action::Updated
            } else {
                Action::Added
            }
        }
    };
    let shown: Vec<String> = commands
        .iter()
        .map(|args| format!("{} {}", cli.display(), args.join(" ")))
        .collect();
    if !options.dry_run {
        for (args, line) in commands.iter().zip(&shown) {
            run_client_command(cli, args, line)?;
        }
    }
    Ok(Report {
        change: (!shown.is_empty()).then(|| shown.join("\n")),
        ..report(client, action)
    })
}

fn run_client_command(cli: &Path, args: &[String], line: &str) -> Result<(), SetupError> {
    let output = Command::new(cli)
        .args(args)
        .output()
        .map_err(|error| SetupError::io(cli, error))?;
    if output.status.success() {
        return Ok(());
    }
    Err(SetupError::ClientCommand {
        command: line.to_owned(),
        message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    })
}

fn report_json(report: &Report) -> Value {
    json!({
        "client": report.client,
        "label": report.label,
        "config": report.config.display().to_string(),
        "action": report.action.as_str(),
        "backup": report.backup.as_ref().map(|path| path.display().to_string()),
        "change": report.change,
        "error": report.error,
    })
}

fn print_reports(reports: &[Report], options: &SetupOptions) {
    let colors = style::stdout_colors();
    let mut out = String::new();
    if options.dry_run {
        out.push_str(&paint(
            style::NOTICE,
            "dry run: nothing is written\n",
            colors,
        ));
    }
    for report in reports {
        let action = match (options.dry_run, report.action) {
            (true, Action::Added) => "would add",
            (true, Action::Updated) => "would update",
            (true, Action::Removed) => "would remove",
            (_, action) => action.as_str(),
        };
        let action_style = match report.action {
            Action::Failed => style::ERROR,
            Action::NotFound | Action::Unchanged | Action::NotRegistered => style::DIM,
            _ => style::COMMAND,
        };
        out.push_str(&format!(
            "{} {} {}\n",
            paint(style::TITLE, &format!("{:<14}", report.label), colors),
            paint(action_style, &format!("{action:<15}"), colors),
            paint(style::DIM, &report.config.display().to_string(), colors)
        ));
        if let Some(error) = &report.error {
            out.push_str(&format!("  {}\n", paint(style::ERROR, error, colors)));
        }
        if let Some(backup) = &report.backup {
            out.push_str(&format!("  backup: {}\n", backup.display()));
        }
        if options.dry_run
            && let Some(change) = &report.change
        {
            for line in change.lines() {
                out.push_str(&format!("  {}\n", diff_line(line, colors)));
            }
        }
    }
    if reports
        .iter()
        .all(|report| report.action == Action::NotFound)
    {
        out.push_str(if options.hooks {
            "no agent with recall hooks found here; name one with --client (claude, codex, gemini, copilot, droid, codebuddy, qwen, cursor, kiro, cline, kimi)\n"
        } else {
            "no MCP client found here; name one with --client (claude, codex, gemini, qwen, opencode, copilot, cursor, antigravity)\n"
        });
    }
    print!("{out}");
}

fn diff_line(line: &str, colors: bool) -> String {
    if line.starts_with('+') && !line.starts_with("+++") {
        paint(style::COMMAND, line, colors)
    } else if line.starts_with('-') && !line.starts_with("---") {
        paint(style::ERROR, line, colors)
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_binary_is_registered_by_its_absolute_path() {
        let server = Server::for_executable(Path::new("/home/ada/.venv/bin/esker"), None);
        assert_eq!(server.command, "/home/ada/.venv/bin/esker");
        assert_eq!(server.args, ["serve"]);
    }

    #[test]
    fn a_binary_run_by_uvx_is_registered_as_uvx_esker() {
        let cached = Path::new("/home/ada/.cache/uv/archive-v0/Xk2m/bin/esker");
        let server = Server::for_executable(cached, Some("agtrace"));
        assert_eq!(server.command, "uvx");
        assert_eq!(server.args, ["esker", "serve", "--profile", "agtrace"]);
        let nested = Path::new("/Users/ada/Library/Caches/uv/cache/archive-v0/Xk2m/bin/esker");
        assert_eq!(Server::for_executable(nested, None).command, "uvx");
        let archived_elsewhere = Path::new("/srv/archive-v2/bin/esker");
        assert_eq!(
            Server::for_executable(archived_elsewhere, None).command,
            "/srv/archive-v2/bin/esker"
        );
    }
}
