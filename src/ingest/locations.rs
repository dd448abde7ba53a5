//! Default log locations of the harnesses added after the first three (Copilot CLI, Cursor
//! agent transcripts and cursor-agent chat stores, Qwen Code, Pi, Factory Droid, Amp, Crush's home store, Cline and Roo
//! Code task folders, VS Code's chat session folders, the Cursor IDE's global store, Zed's thread store, OpenClaw's agents, Windsurf's hook transcripts, encrypted Cascade history and ACP agent-window event logs and message stores (Windsurf, Windsurf Next, Devin Desktop), Hermes Agent's homes, TRAE CLI's rollout folders, CodeBuddy's and WorkBuddy's project folders, Kiro CLI's sessions folder (v2 files and v3 session folders) and Kiro's and Amazon Q's SQLite stores, the Kiro IDE's pre-1.0 extension storage, Junie's and Auggie's session folders, Grok Build's sessions folder, Claude Desktop's Code and Cowork folders, Devin CLI's trajectory folders and `sessions.db`, Warp's `warp.sqlite`), with the environment variables that move them. `indexer::run::known_locations` lists them with the harness that writes there (`esker doctor`), `default_locations` keeps the ones that exist.

use std::path::{Path, PathBuf};

use crate::model::Source;

/// The environment variables these locations honour (tests clear them for isolation).
pub const ENV_VARS: [&str; 28] = [
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
    "OPENCLAW_STATE_DIR",
    "HERMES_HOME",
    "TRAE_HOME",
    "TRAECLI_HOME",
    "CODEBUDDY_CONFIG_DIR",
    "WORKBUDDY_CONFIG_DIR",
    "JUNIE_HOME",
    "GROK_HOME",
    // Other homes (`ingest::homes`).
    "ESKER_HOMES",
    "ESKER_CONFIG",
    "WSL_DISTRO_NAME",
    "XDG_STATE_HOME",
];

/// VS Code and its forks whose `User` directory may hold Cline or Roo Code task folders and
/// chat sessions. `Windsurf - Next` is Windsurf's Next channel; `Devin` and `Devin - Next` are
/// Devin Desktop, Windsurf renamed (its "Migrate from Windsurf" copies the old `User`
/// directory, so both may exist).
const VSCODE_PRODUCTS: [&str; 8] = [
    "Code",
    "Code - Insiders",
    "Cursor",
    "VSCodium",
    "Windsurf",
    "Windsurf - Next",
    "Devin",
    "Devin - Next",
];

/// The products of [`VSCODE_PRODUCTS`] whose `User` directory may hold Windsurf's ACP
/// agent-window event logs (`ingest::windsurf_acp`).
const WINDSURF_PRODUCTS: [&str; 4] = ["Windsurf", "Windsurf - Next", "Devin", "Devin - Next"];

/// Candidate directories (existing or not) under `home`, with `env` looking variables up.
pub fn candidates(home: &Path, env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    labelled_candidates(home, env)
        .into_iter()
        .map(|(_, path)| path)
        .collect()
}

/// [`candidates`], each with the harness that writes there (`esker doctor` names it).
pub fn labelled_candidates(
    home: &Path,
    env: impl Fn(&str) -> Option<PathBuf>,
) -> Vec<(Source, PathBuf)> {
    let copilot = env("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot"));
    let cursor = env("CURSOR_CONFIG_DIR").unwrap_or_else(|| home.join(".cursor"));
    let qwen = env("QWEN_RUNTIME_DIR").unwrap_or_else(|| home.join(".qwen"));
    let pi = env("PI_CODING_AGENT_DIR").unwrap_or_else(|| home.join(".pi").join("agent"));
    let data_home = env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"));
    let mut candidates = vec![
        (Source::Copilot, copilot.join("session-state")),
        (Source::Copilot, copilot.join("history-session-state")),
        (Source::Cursor, cursor.join("projects")),
        (Source::Cursor, cursor.join("chats")),
        (Source::Qwen, qwen.join("projects")),
        (Source::Qwen, qwen.join("tmp")),
        (Source::Pi, pi.join("sessions")),
        (Source::Factory, home.join(".factory").join("sessions")),
        (Source::Amp, data_home.join("amp").join("threads")),
        (Source::Crush, home.join(".crush")),
        (Source::Goose, home.join(".goose").join("sessions")),
        (
            Source::Kimi,
            env("KIMI_CODE_HOME")
                .unwrap_or_else(|| home.join(".kimi-code"))
                .join("sessions"),
        ),
        (
            Source::Cline,
            home.join(".cline").join("data").join("tasks"),
        ),
        // Windsurf writes hook transcripts under `~` on every OS (`%USERPROFILE%` on Windows);
        // its own Cascade history under `~/.codeium/<product>/cascade` is encrypted: counted.
        (Source::Windsurf, home.join(".windsurf").join("transcripts")),
        (
            Source::Windsurf,
            home.join(".codeium").join("windsurf").join("cascade"),
        ),
        (
            Source::Windsurf,
            home.join(".codeium").join("windsurf-next").join("cascade"),
        ),
        (
            Source::Windsurf,
            home.join(".codeium")
                .join("windsurf-insiders")
                .join("cascade"),
        ),
    ];
    // TRAE CLI 2.0 writes Codex rollouts under its own home (`ingest::trae`).
    candidates.extend(
        super::trae::session_folders(home, &env)
            .into_iter()
            .map(|folder| (Source::TraeCli, folder)),
    );
    // CodeBuddy Code and WorkBuddy write the same transcripts under their own homes
    // (`ingest::codebuddy`).
    candidates.extend(super::codebuddy::project_folders(home, &env));
    // Kiro CLI writes its sessions under `~/.kiro/sessions` on every OS: its v2 engine a file
    // pair per session in `cli/` (`ingest::kiro`), its v3 engine (and Kiro IDE 1.0) a folder per
    // session in `<workspace hash>/` (`ingest::kiro_v3`).
    candidates.push((Source::Kiro, home.join(".kiro").join("sessions")));
    // Junie keeps one folder per session under `$JUNIE_HOME` (default `.junie` in the JVM's
    // user home, which is the home on every OS); Auggie one JSON file per session under
    // `~/.augment` (moved only by its `--augment-cache-dir` flag).
    candidates.push((
        Source::Junie,
        env("JUNIE_HOME")
            .unwrap_or_else(|| home.join(".junie"))
            .join("sessions"),
    ));
    candidates.push((Source::Auggie, home.join(".augment").join("sessions")));
    candidates.push((Source::Grok, super::grok::sessions_folder(home, &env)));
    // Devin CLI's trajectories under its data folder on each OS (`ingest::devin`).
    candidates.extend(
        super::devin::transcript_folders(home, &env)
            .into_iter()
            .map(|folder| (Source::Devin, folder)),
    );
    candidates.extend(super::claude_desktop::folders(home, &env));
    candidates.extend(vscode_task_folders(home, &env));
    let label = |source: Source| move |path: PathBuf| (source, path);
    candidates.extend(
        vscode_chat_folders(home, &env)
            .into_iter()
            .map(label(Source::VscodeCopilot)),
    );
    candidates.extend(
        windsurf_acp_folders(home, &env)
            .into_iter()
            .map(label(Source::Windsurf)),
    );
    candidates.extend(
        kiro_ide_folders(home, &env)
            .into_iter()
            .map(label(Source::Kiro)),
    );
    candidates.extend(
        zed_thread_folders(home, &data_home, &env)
            .into_iter()
            .map(label(Source::Zed)),
    );
    candidates.extend(
        openclaw_agents(home, &env)
            .into_iter()
            .map(|agent| (Source::OpenClaw, agent.join("sessions"))),
    );
    candidates.extend(
        hermes_homes(home, &env)
            .into_iter()
            .map(|hermes| (Source::Hermes, hermes.join("sessions"))),
    );
    candidates
}

/// Store files (not folders: the folder beside them holds the harness's credentials) under
/// `home`: every OpenClaw agent's `agent/openclaw-agent.sqlite`, every Hermes home's `state.db`
/// (beside its `.env` and `auth.json`), Kiro's, Amazon Q's and Warp's stores and Devin CLI's
/// `sessions.db`, existing or not.
pub fn store_files(home: &Path, env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    labelled_store_files(home, env)
        .into_iter()
        .map(|(_, path)| path)
        .collect()
}

/// [`store_files`], each with the harness that writes it.
pub fn labelled_store_files(
    home: &Path,
    env: impl Fn(&str) -> Option<PathBuf>,
) -> Vec<(Source, PathBuf)> {
    let openclaw = openclaw_agents(home, &env).into_iter().map(|agent| {
        (
            Source::OpenClaw,
            agent.join("agent").join("openclaw-agent.sqlite"),
        )
    });
    let hermes = hermes_homes(home, &env)
        .into_iter()
        .map(|hermes| (Source::Hermes, hermes.join("state.db")));
    let kiro = kiro_stores(home, &env);
    let warp = warp_stores(home, &env)
        .into_iter()
        .map(|store| (Source::Warp, store));
    // Devin CLI's `sessions.db` beside its trajectories: the sessions without one (running, or
    // of a CLI that wrote none) are read from its `message_nodes` (`ingest::devin`).
    let devin = super::devin::cli_folders(home, &env)
        .into_iter()
        .map(|folder| (Source::Devin, folder.join(super::devin::STORE_NAME)));
    openclaw
        .chain(hermes)
        .chain(kiro)
        .chain(warp)
        .chain(devin)
        .collect()
}

/// Warp's `warp.sqlite` (which also holds its terminal history and app state: only the AI
/// tables are read), for the Stable and Preview channels, and the `warp` TUI's beside each in
/// `tui/`: `$XDG_STATE_HOME/warp-terminal{,-preview}` (default `~/.local/state`) on Linux; the
/// App Group container's `Library/Application Support/dev.warp.Warp-{Stable,Preview}`, else
/// `~/Library/Application Support/dev.warp.Warp-{Stable,Preview}` on macOS;
/// `%LOCALAPPDATA%\warp\{Warp,WarpPreview}\data` on Windows (warpdotdev/warp
/// `crates/warp_core/src/paths.rs`).
fn warp_stores(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    use super::warp::STORE_NAME;
    let state = env("XDG_STATE_HOME").unwrap_or_else(|| home.join(".local").join("state"));
    let group = home
        .join("Library")
        .join("Group Containers")
        .join("2BBY89MBSN.dev.warp")
        .join("Library")
        .join("Application Support");
    let support = home.join("Library").join("Application Support");
    let mut folders = Vec::new();
    for (linux, bundle, windows) in [
        ("warp-terminal", "dev.warp.Warp-Stable", "Warp"),
        (
            "warp-terminal-preview",
            "dev.warp.Warp-Preview",
            "WarpPreview",
        ),
    ] {
        folders.push(state.join(linux));
        folders.push(group.join(bundle));
        folders.push(support.join(bundle));
        if let Some(local) = env("LOCALAPPDATA") {
            folders.push(local.join("warp").join(windows).join("data"));
        }
    }
    let mut stores: Vec<PathBuf> = folders
        .iter()
        .map(|folder| folder.join(STORE_NAME))
        .collect();
    stores.extend(
        folders
            .iter()
            .map(|folder| folder.join("tui").join(STORE_NAME)),
    );
    stores
}

/// Kiro CLI's and Amazon Q Developer CLI's `data.sqlite3` (which also holds their credentials:
/// only the conversation table is read) in each local data directory they use:
/// `$XDG_DATA_HOME` (default `~/.local/share`), `~/Library/Application Support` (macOS) and
/// `%LOCALAPPDATA%` (Windows, when set).
fn kiro_stores(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<(Source, PathBuf)> {
    use super::kiro_db::{Flavor, STORE_NAME};
    let data_dirs = [
        Some(env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"))),
        Some(home.join("Library").join("Application Support")),
        env("LOCALAPPDATA"),
    ];
    let mut stores = Vec::new();
    for data_dir in data_dirs.into_iter().flatten() {
        for flavor in [Flavor::Kiro, Flavor::AmazonQ] {
            let store = (
                flavor.source(),
                data_dir.join(flavor.folder()).join(STORE_NAME),
            );
            if !stores.contains(&store) {
                stores.push(store);
            }
        }
    }
    stores
}

/// Hermes Agent's homes: `$HERMES_HOME` (default `~/.hermes`) and each of its profiles
/// (`profiles/<name>`, a home of its own that `hermes -p <name>` uses); profiles that exist
/// when the pass starts.
fn hermes_homes(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let hermes = env("HERMES_HOME").unwrap_or_else(|| home.join(".hermes"));
    let mut homes = vec![hermes.clone()];
    if let Ok(entries) = std::fs::read_dir(hermes.join("profiles")) {
        let mut profiles: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|profile| profile.is_dir())
            .collect();
        profiles.sort();
        homes.extend(profiles);
    }
    homes
}

/// The agent folders (`agents/<id>`) already in OpenClaw's homes: `$OPENCLAW_STATE_DIR`
/// (default `~/.openclaw`) and the homes of its rebuilds (QClaw, Kimi Claw, the older
/// Clawdbot). An agent added after a watching `esker serve` started is read from its next start.
fn openclaw_agents(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let state_dir = env("OPENCLAW_STATE_DIR");
    let homes = state_dir
        .into_iter()
        .chain(super::openclaw::HOMES.iter().map(|name| home.join(name)));
    let mut agents = Vec::new();
    for claw_home in homes {
        let Ok(entries) = std::fs::read_dir(claw_home.join("agents")) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|agent| agent.is_dir() && !agents.contains(agent))
            .collect();
        found.sort();
        agents.extend(found);
    }
    agents
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

/// The app data directories VS Code and its forks keep their `User` directory in:
/// `$VSCODE_APPDATA`, `$APPDATA` (Windows), `$XDG_CONFIG_HOME` (default `~/.config`) and macOS's
/// `~/Library/Application Support`.
fn app_data_dirs(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    [
        env("VSCODE_APPDATA"),
        env("APPDATA"),
        Some(env("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"))),
        Some(home.join("Library").join("Application Support")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Every `<app data>/<product>/User` directory ([`app_data_dirs`]).
fn vscode_user_dirs(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for base in app_data_dirs(home, env) {
        for product in VSCODE_PRODUCTS {
            let dir = base.join(product).join("User");
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// The Kiro IDE's extension storage, `<app data>/Kiro/User/globalStorage/kiro.kiroagent`
/// ([`app_data_dirs`]: `~/.config/Kiro` on Linux, `~/Library/Application Support/Kiro` on
/// macOS, `%APPDATA%\Kiro` on Windows), where its chats before 1.0 are (`ingest::kiro_ide`;
/// only those are read, never the extension's other files).
fn kiro_ide_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for base in app_data_dirs(home, env) {
        let folder = base
            .join("Kiro")
            .join("User")
            .join("globalStorage")
            .join(super::kiro_ide::STORE_FOLDER);
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    folders
}

/// The Cursor IDE's chat store, `<app data>/Cursor/User/globalStorage/state.vscdb`, and its
/// `-wal` (so a watch sees Cursor's writes), where they exist: the files themselves, the rest
/// of `globalStorage` belongs to extensions.
pub fn cursor_ide_stores(home: &Path, env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    vscode_user_dirs(home, &env)
        .into_iter()
        .filter(|user| user.parent().and_then(Path::file_name) == Some("Cursor".as_ref()))
        .flat_map(|user| {
            let global = user.join("globalStorage");
            [global.join("state.vscdb"), global.join("state.vscdb-wal")]
        })
        .filter(|file| file.is_file())
        .collect()
}

/// `<user dir>/acp-events` and `<user dir>/acp-messages` of Windsurf, Windsurf Next and Devin
/// Desktop: the ACP agent window's event logs and (current builds) message stores, read with
/// the global `state.vscdb` of the same `User` directory (only these folders are walked: the
/// rest of the directory is the IDE's).
fn windsurf_acp_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    use super::windsurf_acp::{EVENTS_FOLDER, MESSAGES_FOLDER};
    vscode_user_dirs(home, env)
        .into_iter()
        .filter(|user| {
            let product = user.parent().and_then(Path::file_name);
            product
                .and_then(|product| product.to_str())
                .is_some_and(|product| WINDSURF_PRODUCTS.contains(&product))
        })
        .flat_map(|user| [user.join(EVENTS_FOLDER), user.join(MESSAGES_FOLDER)])
        .collect()
}

/// `<user dir>/globalStorage/<extension>/tasks` for Cline and Roo Code.
fn vscode_task_folders(
    home: &Path,
    env: &impl Fn(&str) -> Option<PathBuf>,
) -> Vec<(Source, PathBuf)> {
    let mut folders = Vec::new();
    for user in vscode_user_dirs(home, env) {
        for extension in super::cline::EXTENSION_IDS {
            let source = if extension == super::cline::ROO_EXTENSION {
                Source::Roo
            } else {
                Source::Cline
            };
            folders.push((
                source,
                user.join("globalStorage").join(extension).join("tasks"),
            ));
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
    fn trae_cli_folders_follow_their_variables() {
        let home = Path::new("/home/u");
        let found = labelled_candidates(home, |_| None);
        for folder in ["sessions", "archived_sessions"] {
            let path = home.join(".trae/cli").join(folder);
            assert!(found.contains(&(Source::TraeCli, path)), "{folder}");
        }
        let env = |name: &str| (name == "TRAE_HOME").then(|| PathBuf::from("/srv/trae"));
        let moved = candidates(home, env);
        assert!(moved.contains(&PathBuf::from("/srv/trae/cli/sessions")));
        assert!(!moved.contains(&home.join(".trae/cli/sessions")));
    }

    #[test]
    fn codebuddy_and_workbuddy_folders_are_labelled() {
        let home = Path::new("/home/u");
        let found = labelled_candidates(home, |_| None);
        assert!(found.contains(&(Source::CodeBuddy, home.join(".codebuddy/projects"))));
        for workbuddy in [".workbuddy", ".workbuddy-ai"] {
            let path = home.join(workbuddy).join("projects");
            assert!(found.contains(&(Source::WorkBuddy, path)), "{workbuddy}");
        }
        let env = |name: &str| (name == "CODEBUDDY_CONFIG_DIR").then(|| PathBuf::from("/srv/cb"));
        let moved = candidates(home, env);
        assert!(moved.contains(&PathBuf::from("/srv/cb/projects")));
        assert!(!moved.contains(&home.join(".codebuddy/projects")));
    }

    #[test]
    fn warp_stores_are_listed_for_each_os_and_channel() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "LOCALAPPDATA").then(|| PathBuf::from("/w/Local"));
        let stores = labelled_store_files(home, env);
        for path in [
            "/home/u/.local/state/warp-terminal/warp.sqlite",
            "/home/u/.local/state/warp-terminal-preview/warp.sqlite",
            "/home/u/.local/state/warp-terminal/tui/warp.sqlite",
            "/home/u/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/\
             dev.warp.Warp-Stable/warp.sqlite",
            "/home/u/Library/Application Support/dev.warp.Warp-Stable/warp.sqlite",
            "/w/Local/warp/Warp/data/warp.sqlite",
            "/w/Local/warp/WarpPreview/data/warp.sqlite",
        ] {
            assert!(
                stores.contains(&(Source::Warp, PathBuf::from(path))),
                "{path}"
            );
        }
        let moved = store_files(home, |name: &str| {
            (name == "XDG_STATE_HOME").then(|| PathBuf::from("/srv/state"))
        });
        assert!(moved.contains(&PathBuf::from("/srv/state/warp-terminal/warp.sqlite")));
    }

    #[test]
    fn kiro_and_amazon_q_stores_are_listed_in_every_data_directory() {
        let home = Path::new("/home/u");
        let stores = labelled_store_files(home, |_| None);
        for (source, path) in [
            (Source::Kiro, "/home/u/.local/share/kiro-cli/data.sqlite3"),
            (
                Source::AmazonQ,
                "/home/u/.local/share/amazon-q/data.sqlite3",
            ),
            (
                Source::Kiro,
                "/home/u/Library/Application Support/kiro-cli/data.sqlite3",
            ),
        ] {
            assert!(stores.contains(&(source, PathBuf::from(path))), "{path}");
        }
        let found = labelled_candidates(home, |_| None);
        assert!(found.contains(&(Source::Kiro, home.join(".kiro/sessions"))));
    }

    #[test]
    fn the_kiro_ide_storage_is_listed_at_each_app_data_place() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "APPDATA").then(|| PathBuf::from("/w/Roaming"));
        let found = labelled_candidates(home, env);
        for path in [
            "/home/u/.config/Kiro/User/globalStorage/kiro.kiroagent",
            "/home/u/Library/Application Support/Kiro/User/globalStorage/kiro.kiroagent",
            "/w/Roaming/Kiro/User/globalStorage/kiro.kiroagent",
        ] {
            assert!(
                found.contains(&(Source::Kiro, PathBuf::from(path))),
                "{path}"
            );
        }
        let env = |name: &str| (name == "XDG_CONFIG_HOME").then(|| PathBuf::from("/cfg"));
        let moved = candidates(home, env);
        assert!(moved.contains(&PathBuf::from(
            "/cfg/Kiro/User/globalStorage/kiro.kiroagent"
        )));
        assert!(!moved.contains(&home.join(".config/Kiro/User/globalStorage/kiro.kiroagent")));
    }

    #[test]
    fn devin_cli_stores_are_listed_beside_their_trajectory_folders() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "APPDATA").then(|| PathBuf::from("/w/Roaming"));
        let stores = labelled_store_files(home, env);
        for path in [
            "/home/u/.local/share/devin/cli/sessions.db",
            "/home/u/Library/Application Support/devin/cli/sessions.db",
            "/w/Roaming/devin/cli/sessions.db",
        ] {
            assert!(
                stores.contains(&(Source::Devin, PathBuf::from(path))),
                "{path}"
            );
        }
        let found = labelled_candidates(home, |_| None);
        assert!(found.contains(&(
            Source::Devin,
            home.join(".local/share/devin/cli/transcripts")
        )));
    }

    #[test]
    fn junie_and_auggie_folders_are_labelled() {
        let home = Path::new("/home/u");
        let found = labelled_candidates(home, |_| None);
        assert!(found.contains(&(Source::Junie, home.join(".junie/sessions"))));
        assert!(found.contains(&(Source::Auggie, home.join(".augment/sessions"))));
        let env = |name: &str| (name == "JUNIE_HOME").then(|| PathBuf::from("/srv/junie"));
        let moved = candidates(home, env);
        assert!(moved.contains(&PathBuf::from("/srv/junie/sessions")));
        assert!(!moved.contains(&home.join(".junie/sessions")));
    }

    #[test]
    fn hermes_homes_and_their_profiles_are_found() {
        let home = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(home.path().join(".hermes/profiles/work")).expect("mkdir");
        let found = candidates(home.path(), |_| None);
        assert!(found.contains(&home.path().join(".hermes/sessions")));
        assert!(found.contains(&home.path().join(".hermes/profiles/work/sessions")));
        let stores = store_files(home.path(), |_| None);
        assert!(stores.contains(&home.path().join(".hermes/profiles/work/state.db")));
        let moved = PathBuf::from("/srv/hermes");
        let env = |name: &str| (name == "HERMES_HOME").then(|| moved.clone());
        assert!(candidates(home.path(), env).contains(&moved.join("sessions")));
    }

    #[test]
    fn openclaw_agents_are_found_in_every_home() {
        let home = tempfile::tempdir().expect("temp dir");
        for agent in [
            ".openclaw/agents/main",
            ".qclaw/agents/vera",
            ".kimi_openclaw/agents/k",
        ] {
            std::fs::create_dir_all(home.path().join(agent)).expect("mkdir");
        }
        let state = home.path().join("state");
        std::fs::create_dir_all(state.join("agents/ops")).expect("mkdir");
        let env = |name: &str| (name == "OPENCLAW_STATE_DIR").then(|| state.clone());
        let found = candidates(home.path(), env);
        for sessions in [
            ".openclaw/agents/main/sessions",
            ".qclaw/agents/vera/sessions",
            ".kimi_openclaw/agents/k/sessions",
            "state/agents/ops/sessions",
        ] {
            assert!(found.contains(&home.path().join(sessions)), "{sessions}");
        }
        let stores = store_files(home.path(), env);
        assert!(
            stores.contains(
                &home
                    .path()
                    .join(".qclaw/agents/vera/agent/openclaw-agent.sqlite")
            )
        );
        let openclaw_stores = stores
            .iter()
            .filter(|store| store.ends_with("agent/openclaw-agent.sqlite"))
            .count();
        assert_eq!(openclaw_stores, 4);
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
    fn the_cursor_ide_store_is_found_at_each_app_data_place() {
        let home = tempfile::tempdir().expect("temp dir");
        let linux = home.path().join(".config/Cursor/User/globalStorage");
        let mac = home
            .path()
            .join("Library/Application Support/Cursor/User/globalStorage");
        let code = home.path().join(".config/Code/User/globalStorage");
        for dir in [&linux, &mac, &code] {
            std::fs::create_dir_all(dir).expect("mkdir");
            std::fs::write(dir.join("state.vscdb"), b"").expect("write");
        }
        let found = cursor_ide_stores(home.path(), |_| None);
        assert_eq!(found, [linux.join("state.vscdb"), mac.join("state.vscdb")]);
    }

    #[test]
    fn windsurf_acp_event_folders_are_listed_for_every_windsurf_product() {
        let home = Path::new("/home/u");
        let env = |name: &str| (name == "APPDATA").then(|| PathBuf::from("/w/Roaming"));
        let found = labelled_candidates(home, env);
        for path in [
            "/home/u/.config/Windsurf/User/acp-events",
            "/home/u/.config/Windsurf - Next/User/acp-events",
            "/home/u/.config/Devin/User/acp-events",
            "/home/u/Library/Application Support/Devin - Next/User/acp-events",
            "/w/Roaming/Windsurf/User/acp-events",
            "/home/u/.config/Devin/User/acp-messages",
            "/w/Roaming/Windsurf - Next/User/acp-messages",
            "/home/u/.codeium/windsurf-insiders/cascade",
        ] {
            assert!(
                found.contains(&(Source::Windsurf, PathBuf::from(path))),
                "{path}"
            );
        }
        assert!(
            !found.iter().any(|(_, path)| {
                path.ends_with("Code/User/acp-events") || path.ends_with("Code/User/acp-messages")
            }),
            "VS Code has no ACP event logs or message stores"
        );
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
