//! The MCP clients `esker setup` knows: where each keeps its user-level MCP servers, in which
//! format and entry shape, and how to tell it is installed or configured on this machine.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Server;

/// How a client's config file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// The shape of one server entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryShape {
    /// `{"command": ..., "args": [...]}` (Gemini CLI, Qwen Code, Cursor, Codex's TOML table).
    CommandArgs,
    /// Claude Code: `{"type": "stdio", "command": ..., "args": [...]}`.
    Stdio,
    /// Copilot CLI: `{"type": "local", "command": ..., "args": [...], "tools": ["*"]}`.
    LocalWithTools,
    /// OpenCode: `{"type": "local", "command": [command, args...], "enabled": true}`.
    LocalCommandList,
}

impl EntryShape {
    pub fn entry(self, server: &Server) -> Value {
        match self {
            EntryShape::CommandArgs => json!({"command": server.command, "args": server.args}),
            EntryShape::Stdio => {
                json!({"type": "stdio", "command": server.command, "args": server.args})
            }
            EntryShape::LocalWithTools => json!({
                "type": "local",
                "command": server.command,
                "args": server.args,
                "tools": ["*"],
            }),
            EntryShape::LocalCommandList => {
                let mut command = vec![server.command.clone()];
                command.extend(server.args.iter().cloned());
                json!({"type": "local", "command": command, "enabled": true})
            }
        }
    }
}

/// One client and its user-level config file.
#[derive(Debug, Clone)]
pub struct Client {
    /// The name `--client` takes.
    pub name: &'static str,
    pub label: &'static str,
    pub config: PathBuf,
    pub format: Format,
    /// The member (TOML table) holding the servers.
    pub container: &'static str,
    pub shape: EntryShape,
    /// The client's home directory; its presence means the client is installed or configured.
    pub home: PathBuf,
    /// The client's own command, registering through it when it is on PATH (Claude Code).
    pub cli: Option<&'static str>,
}

impl Client {
    /// Installed or configured here: its config file or home directory exists, or its command
    /// is on PATH.
    pub fn is_present(&self) -> bool {
        self.config.exists()
            || self.home.is_dir()
            || self
                .cli
                .is_some_and(|command| find_on_path(command).is_some())
    }
}

/// The environment the clients' locations are resolved from.
#[derive(Debug, Clone)]
pub struct Environment {
    pub home: PathBuf,
    pub codex_home: Option<PathBuf>,
    pub claude_config_dir: Option<PathBuf>,
    pub gemini_cli_home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub copilot_home: Option<PathBuf>,
    pub junie_home: Option<PathBuf>,
    pub grok_home: Option<PathBuf>,
}

impl Environment {
    pub fn from_process() -> Environment {
        let directory = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        Environment {
            home: directory("HOME").unwrap_or_else(|| PathBuf::from(".")),
            codex_home: directory("CODEX_HOME"),
            claude_config_dir: directory("CLAUDE_CONFIG_DIR"),
            gemini_cli_home: directory("GEMINI_CLI_HOME"),
            xdg_config_home: directory("XDG_CONFIG_HOME"),
            copilot_home: directory("COPILOT_HOME"),
            junie_home: directory("JUNIE_HOME"),
            grok_home: directory("GROK_HOME"),
        }
    }
}

/// Every known client, in the order they are reported.
pub fn known_clients(environment: &Environment) -> Vec<Client> {
    let home = &environment.home;
    let codex_home = environment
        .codex_home
        .clone()
        .unwrap_or_else(|| home.join(".codex"));
    let (claude_home, claude_config) = match &environment.claude_config_dir {
        Some(dir) => (dir.clone(), dir.join(".claude.json")),
        None => (home.join(".claude"), home.join(".claude.json")),
    };
    let gemini_home = environment
        .gemini_cli_home
        .clone()
        .unwrap_or_else(|| home.clone())
        .join(".gemini");
    let config_home = environment
        .xdg_config_home
        .clone()
        .unwrap_or_else(|| home.join(".config"));
    let json_client = |name, label, home: PathBuf, file: &str, container, shape| Client {
        name,
        label,
        config: home.join(file),
        format: Format::Json,
        container,
        shape,
        home,
        cli: None,
    };
    vec![
        Client {
            name: "claude",
            label: "Claude Code",
            config: claude_config,
            format: Format::Json,
            container: "mcpServers",
            shape: EntryShape::Stdio,
            home: claude_home,
            cli: Some("claude"),
        },
        Client {
            name: "codex",
            label: "Codex CLI",
            config: codex_home.join("config.toml"),
            format: Format::Toml,
            container: "mcp_servers",
            shape: EntryShape::CommandArgs,
            home: codex_home,
            cli: None,
        },
        json_client(
            "gemini",
            "Gemini CLI",
            gemini_home,
            "settings.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        json_client(
            "qwen",
            "Qwen Code",
            home.join(".qwen"),
            "settings.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        json_client(
            "opencode",
            "OpenCode",
            config_home.join("opencode"),
            "opencode.json",
            "mcp",
            EntryShape::LocalCommandList,
        ),
        json_client(
            "copilot",
            "Copilot CLI",
            home.join(".copilot"),
            "mcp-config.json",
            "mcpServers",
            EntryShape::LocalWithTools,
        ),
        json_client(
            "cursor",
            "Cursor",
            home.join(".cursor"),
            "mcp.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Antigravity (the `agy` CLI, the 2.0 app, the IDE): one global customization root,
        // `~/.gemini/config`, whose `mcp_config.json` takes Gemini CLI's `mcpServers` shape.
        json_client(
            "antigravity",
            "Antigravity",
            home.join(".gemini").join("config"),
            "mcp_config.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Kiro CLI (and the Kiro IDE) read user-level servers from `~/.kiro/settings/mcp.json`
        // (`mcpServers`, `{command, args}`): the aws-bench Kiro agent writes it there.
        json_client(
            "kiro",
            "Kiro",
            home.join(".kiro"),
            "settings/mcp.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Amazon Q Developer CLI: `~/.aws/amazonq/mcp.json` (aws/amazon-q-developer-cli
        // crates/chat-cli/src/util/paths.rs, `MCP_CONFIG` of the global paths).
        json_client(
            "amazon-q",
            "Amazon Q Developer CLI",
            home.join(".aws").join("amazonq"),
            "mcp.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Grok Build: `[mcp_servers.<name>]` `{command, args}` in `$GROK_HOME/config.toml`
        // (default `~/.grok`; xai-org/grok-build docs/user-guide/07-mcp-servers.md).
        {
            let grok = environment
                .grok_home
                .clone()
                .unwrap_or_else(|| home.join(".grok"));
            Client {
                name: "grok",
                label: "Grok Build",
                config: grok.join("config.toml"),
                format: Format::Toml,
                container: "mcp_servers",
                shape: EntryShape::CommandArgs,
                home: grok,
                cli: None,
            }
        },
        // Claude Desktop (its Code tab and Cowork): `mcpServers` of
        // `claude_desktop_config.json` in its user data folder (modelcontextprotocol.io's
        // quickstart), `~/Library/Application Support/Claude` or `~/.config/Claude`.
        {
            let mac = home
                .join("Library")
                .join("Application Support")
                .join("Claude");
            let data = if mac.is_dir() {
                mac
            } else {
                config_home.join("Claude")
            };
            json_client(
                "claude-desktop",
                "Claude Desktop",
                data,
                "claude_desktop_config.json",
                "mcpServers",
                EntryShape::CommandArgs,
            )
        },
        buddy_client(
            "codebuddy",
            "CodeBuddy Code",
            home.join(".codebuddy"),
            &[".mcp.json", "mcp.json"],
            home.join(".codebuddy.json"),
        ),
        // Junie (CLI and IDE): `$JUNIE_HOME/mcp/mcp.json` (default `~/.junie`), `mcpServers`
        // (vshulcz/deja-vu docs/registry/junie.md, checked on Junie CLI 3110.7).
        json_client(
            "junie",
            "Junie",
            environment
                .junie_home
                .clone()
                .unwrap_or_else(|| home.join(".junie")),
            "mcp/mcp.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Auggie: user-level servers in `~/.augment/settings.json` under `mcpServers`
        // (`{command, args}`), beside its other settings (Augment's CLI MCP docs; `auggie mcp
        // add` writes there).
        json_client(
            "auggie",
            "Auggie",
            home.join(".augment"),
            "settings.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        // Devin CLI: user-scope servers in `~/.config/devin/config.json` under `mcpServers`
        // (`{command, args, env}`), beside its other settings (docs.devin.ai
        // cli/extensibility/mcp/configuration: `devin mcp add -s user` writes there). Present
        // when that folder or its data folder (`~/.local/share/devin`, macOS
        // `~/Library/Application Support/devin`) exists.
        {
            let (config, present) = devin_folders(environment);
            let mut client = json_client(
                "devin",
                "Devin CLI",
                config,
                "config.json",
                "mcpServers",
                EntryShape::CommandArgs,
            );
            client.home = present;
            client
        },
        // Warp: its global file-based MCP servers, `mcpServers` of `~/.warp/.mcp.json`
        // (`{command, args}`) on every OS (warpdotdev/warp
        // `resources/bundled/skills/add-mcp-server/SKILL.md`, `crates/warp_core/src/paths.rs`
        // `warp_home_mcp_config_file_path`); Warp starts the servers it finds there.
        json_client(
            "warp",
            "Warp",
            home.join(".warp"),
            ".mcp.json",
            "mcpServers",
            EntryShape::CommandArgs,
        ),
        {
            let workbuddy = workbuddy_home(home);
            let fallback = workbuddy.join("mcp.json");
            buddy_client(
                "workbuddy",
                "WorkBuddy",
                workbuddy,
                &[".mcp.json", "mcp.json"],
                fallback,
            )
        },
    ]
}

/// CodeBuddy Code and WorkBuddy read their user-level MCP servers from one file only: the first
/// of `<home>/.mcp.json` and `<home>/mcp.json` that exists (then, for CodeBuddy, the documented
/// `~/.codebuddy.json`), else `fallback`; Claude Code's `mcpServers` entries with `type: stdio`
/// (vshulcz/deja-vu docs/registry/codebuddy.md, checked on CodeBuddy Code 2.161.2 and WorkBuddy
/// 5.6.2; CodeBuddy's CLI MCP documentation for `~/.codebuddy.json` and the entry shape).
fn buddy_client(
    name: &'static str,
    label: &'static str,
    home: PathBuf,
    files: &[&str],
    fallback: PathBuf,
) -> Client {
    let config = files
        .iter()
        .map(|file| home.join(file))
        .chain(std::iter::once(fallback.clone()))
        .find(|path| path.is_file())
        .unwrap_or(fallback);
    Client {
        name,
        label,
        config,
        format: Format::Json,
        container: "mcpServers",
        shape: EntryShape::Stdio,
        home,
        cli: None,
    }
}

/// WorkBuddy's home: `~/.workbuddy` (workbuddy.cn), else `~/.workbuddy-ai` (WorkBuddy AI) when
/// only that one exists.
fn workbuddy_home(home: &Path) -> PathBuf {
    let china = home.join(".workbuddy");
    let global = home.join(".workbuddy-ai");
    if !china.is_dir() && global.is_dir() {
        global
    } else {
        china
    }
}

/// The full path of `command` when it is an executable on PATH.
pub fn find_on_path(command: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// Devin CLI's config folder, `$XDG_CONFIG_HOME/devin` (default `~/.config/devin`), which its
/// `config.json` (MCP servers, hooks, other settings) is in; and the folder whose presence
/// says Devin is here: that one, else its data folder (`~/.local/share/devin`, macOS
/// `~/Library/Application Support/devin`) when only that exists.
pub fn devin_folders(environment: &Environment) -> (PathBuf, PathBuf) {
    let home = &environment.home;
    let config = environment
        .xdg_config_home
        .clone()
        .unwrap_or_else(|| home.join(".config"))
        .join("devin");
    let data = [
        home.join(".local").join("share").join("devin"),
        home.join("Library")
            .join("Application Support")
            .join("devin"),
    ]
    .into_iter()
    .find(|folder| folder.is_dir());
    let present = match data {
        Some(data) if !config.is_dir() => data,
        _ => config.clone(),
    };
    (config, present)
}
