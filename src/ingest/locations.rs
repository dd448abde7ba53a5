//! Default log locations of the harnesses added after the first three (Copilot CLI, Cursor
//! agent transcripts and cursor-agent chat stores, Qwen Code, Pi, Factory Droid, Amp, Crush's home store, Cline and Roo
//! Code task folders), with the environment variables that move them. `indexer::run::default_locations` appends the ones that exist.

use std::path::{Path, PathBuf};

/// The environment variables these locations honour (tests clear them for isolation).
pub const ENV_VARS: [&str; 13] = [
    "COPILOT_HOME",
    "CURSOR_CONFIG_DIR",
    "QWEN_RUNTIME_DIR",
    "PI_CODING_AGENT_DIR",
    "XDG_DATA_HOME",
    "ANTIGRAVITY_CLI_DIR",
    "ANTIGRAVITY_DIR",
    "OPENCODE_DB",
    "KIMI_SHARE_DIR",
    "GOOSE_PATH_ROOT",
    "XDG_CONFIG_HOME",
    "VSCODE_APPDATA",
    "KIMI_CODE_HOME",
];

/// VS Code and its forks whose `User/globalStorage` may hold Cline or Roo Code task folders.
const VSCODE_PRODUCTS: [&str; 5] = ["Code", "Code - Insiders", "Cursor", "VSCodium", "Windsurf"];

/// Candidate directories (existing or not) under `home`, with `env` looking variables up.
pub fn candidates(home: &Path, env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let copilot = env("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot"));
    let cursor = env("CURSOR_CONFIG_DIR").unwrap_or_else(|| home.join(".cursor"));
    let qwen = env("QWEN_RUNTIME_DIR").unwrap_or_else(|| home.join(".qwen"));
    let pi = env("PI_CODING_AGENT_DIR").unwrap_or_else(|| home.join(".pi").join("agent"));
    let data_home = env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"));
    let mut candidates = vec![
        copilot.join("session-state"),
        copilot.join("history-session-state"),
        cursor.join("projects"),
        cursor.join("chats"),
        qwen.join("projects"),
        qwen.join("tmp"),
        pi.join("sessions"),
        home.join(".factory").join("sessions"),
        data_home.join("amp").join("threads"),
        home.join(".crush"),
        home.join(".goose").join("sessions"),
        env("KIMI_CODE_HOME")
            .unwrap_or_else(|| home.join(".kimi-code"))
            .join("sessions"),
        home.join(".cline").join("data").join("tasks"),
    ];
    candidates.extend(vscode_task_folders(home, &env));
    candidates
}

/// `<app data>/<product>/User/globalStorage/<extension>/tasks` for Cline and Roo Code, where the
/// app data directory is `$VSCODE_APPDATA`, `$XDG_CONFIG_HOME` (default `~/.config`) or
/// macOS's `~/Library/Application Support`.
fn vscode_task_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let app_data = [
        env("VSCODE_APPDATA"),
        Some(env("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"))),
        Some(home.join("Library").join("Application Support")),
    ];
    let mut folders = Vec::new();
    for base in app_data.into_iter().flatten() {
        for product in VSCODE_PRODUCTS {
            for extension in super::cline::EXTENSION_IDS {
                folders.push(
                    base.join(product)
                        .join("User")
                        .join("globalStorage")
                        .join(extension)
                        .join("tasks"),
                );
            }
        }
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_vars_move_their_harness_only() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "COPILOT_HOME").then(|| PathBuf::from("/opt/copilot"));
        let found = candidates(home, env);
        assert!(found.contains(&PathBuf::from("/opt/copilot/session-state")));
        assert!(found.contains(&PathBuf::from("/home/u/.pi/agent/sessions")));
        assert!(found.contains(&PathBuf::from("/home/u/.local/share/amp/threads")));
        assert!(found.contains(&PathBuf::from(
            "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"
        )));
    }
}
