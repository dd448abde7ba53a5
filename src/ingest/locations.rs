//! Default log locations of the harnesses added after the first three (Copilot CLI, Cursor
//! agent transcripts and cursor-agent chat stores, Qwen Code, Pi, Factory Droid, Amp, Crush's home store, Cline and Roo
//! Code task folders, VS Code's chat session folders, Zed's thread store), with the environment variables that move them. `indexer::run::default_locations` appends the ones that exist.

use std::path::{Path, PathBuf};

/// The environment variables these locations honour (tests clear them for isolation).
pub const ENV_VARS: [&str; 16] = [
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
    "APPDATA",
    "LOCALAPPDATA",
    "FLATPAK_XDG_DATA_HOME",
];

/// VS Code and its forks whose `User` directory may hold Cline or Roo Code task folders and
/// chat sessions.
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
    candidates.extend(vscode_chat_folders(home, &env));
    candidates.extend(zed_thread_folders(home, &data_home, &env));
    candidates
}

/// Zed's `threads` folder (holding `threads.db`) under its data directory, as Zed's
/// `paths::data_dir()` places it: `$FLATPAK_XDG_DATA_HOME/zed` in a Flatpak, else
/// `$XDG_DATA_HOME/zed` (default `~/.local/share/zed`); `~/Library/Application Support/Zed` on
/// macOS; `%LOCALAPPDATA%\Zed` on Windows.
fn zed_thread_folders(
    home: &Path,
    data_home: &Path,
    env: &impl Fn(&str) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let data_dirs = [
        env("FLATPAK_XDG_DATA_HOME").map(|flatpak| flatpak.join("zed")),
        Some(data_home.join("zed")),
        Some(home.join("Library").join("Application Support").join("Zed")),
        env("LOCALAPPDATA").map(|local| local.join("Zed")),
    ];
    data_dirs
        .into_iter()
        .flatten()
        .map(|data_dir| data_dir.join("threads"))
        .collect()
}

/// Every `<app data>/<product>/User` directory, where the app data directory is
/// `$VSCODE_APPDATA`, `$APPDATA` (Windows), `$XDG_CONFIG_HOME` (default `~/.config`) or macOS's
/// `~/Library/Application Support`.
fn vscode_user_dirs(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let app_data = [
        env("VSCODE_APPDATA"),
        env("APPDATA"),
        Some(env("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"))),
        Some(home.join("Library").join("Application Support")),
    ];
    let mut dirs: Vec<PathBuf> = Vec::new();
    for base in app_data.into_iter().flatten() {
        for product in VSCODE_PRODUCTS {
            let dir = base.join(product).join("User");
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// `<user dir>/globalStorage/<extension>/tasks` for Cline and Roo Code.
fn vscode_task_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for user in vscode_user_dirs(home, env) {
        for extension in super::cline::EXTENSION_IDS {
            folders.push(user.join("globalStorage").join(extension).join("tasks"));
        }
    }
    folders
}

/// VS Code's chat session folders: `<user dir>/globalStorage/emptyWindowChatSessions` and the
/// `chatSessions` folder of every workspace already in `<user dir>/workspaceStorage` (only
/// those: the rest of a workspace's storage belongs to other extensions). A workspace first
/// opened after a watching `esker serve` started is read from its next start.
fn vscode_chat_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for user in vscode_user_dirs(home, env) {
        folders.push(user.join("globalStorage").join("emptyWindowChatSessions"));
        let Ok(workspaces) = std::fs::read_dir(user.join("workspaceStorage")) else {
            continue;
        };
        let mut found: Vec<PathBuf> = workspaces
            .filter_map(Result::ok)
            .map(|workspace| workspace.path().join("chatSessions"))
            .filter(|folder| folder.is_dir())
            .collect();
        found.sort();
        folders.extend(found);
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
        assert!(found.contains(&PathBuf::from(
            "/home/u/Library/Application Support/Code - Insiders/User/globalStorage/emptyWindowChatSessions"
        )));
        assert!(found.contains(&PathBuf::from("/home/u/.local/share/zed/threads")));
        assert!(found.contains(&PathBuf::from(
            "/home/u/Library/Application Support/Zed/threads"
        )));
    }

    #[test]
    fn zed_follows_its_data_directory() {
        let home = Path::new("/home/u");
        let env = |name: &str| match name {
            "XDG_DATA_HOME" => Some(PathBuf::from("/data")),
            "LOCALAPPDATA" => Some(PathBuf::from("/c/Users/u/AppData/Local")),
            _ => None,
        };
        let found = candidates(home, env);
        assert!(found.contains(&PathBuf::from("/data/zed/threads")));
        assert!(found.contains(&PathBuf::from("/c/Users/u/AppData/Local/Zed/threads")));
        assert!(!found.contains(&PathBuf::from("/home/u/.local/share/zed/threads")));
    }

    #[test]
    fn vscode_chat_folders_are_the_workspaces_chat_sessions_only() {
        let home = tempfile::tempdir().expect("temp dir");
        let user = home.path().join(".config/Code/User");
        let storage = user.join("workspaceStorage");
        std::fs::create_dir_all(storage.join("a1/chatSessions")).expect("mkdir");
        std::fs::create_dir_all(storage.join("b2/GitHub.copilot-chat")).expect("mkdir");
        let appdata = home.path().join("AppData/Roaming");
        std::fs::create_dir_all(appdata.join("VSCodium/User/workspaceStorage/c3/chatSessions"))
            .expect("mkdir");
        let env = |name: &str| (name == "APPDATA").then(|| appdata.clone());
        let found = candidates(home.path(), env);
        assert!(found.contains(&storage.join("a1/chatSessions")));
        assert!(
            !found
                .iter()
                .any(|path| path.starts_with(storage.join("b2")))
        );
        assert!(found.contains(&appdata.join("VSCodium/User/workspaceStorage/c3/chatSessions")));
        assert!(found.contains(&user.join("globalStorage/emptyWindowChatSessions")));
    }
}
