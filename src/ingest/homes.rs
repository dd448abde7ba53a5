//! The homes esker reads besides `$HOME`: the `homes` and `harness_homes` of esker's config
//! file, `$ESKER_HOMES`, the Windows homes seen from inside WSL (`/mnt/c/Users/<name>`) and the
//! WSL distros' homes seen from Windows (`\\wsl.localhost\<distro>\home\<name>`). Each home is
//! read as a whole, every harness's default folders under it, as under `$HOME`; a harness home
//! is read as if that harness's own variable (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, ...) named it.
//! What could not be used (an unreadable config file, a bad pattern, an unknown harness) is a
//! problem `esker doctor` prints, never an error that stops an index pass.
//!
//! The config file is `$ESKER_CONFIG`, else `$XDG_CONFIG_HOME/esker/config.toml`, else
//! `~/.config/esker/config.toml`:
//!
//! ```toml
//! # Other homes, each read as if it were $HOME (a leading ~ is this home; * ? [..] globs).
//! homes = ["/srv/devcontainers/*/home/vscode", "~/machines/laptop"]
//! # Windows homes from inside WSL, WSL homes from Windows (default true).
//! wsl = true
//! # The Windows Users folder seen from WSL (default <automount root>/c/Users, /mnt/c/Users).
//! windows_users = "/mnt/d/Users"
//! # More homes of one harness, each read as if its variable named it.
//! [harness_homes]
//! claude = ["~/.claude-work"]   # as CLAUDE_CONFIG_DIR
//! codex = ["/archive/codex-*"]  # as CODEX_HOME
//! ```

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Source;

/// The variable that lists extra homes (separated as `PATH` is, or by commas).
pub const HOMES_VAR: &str = "ESKER_HOMES";
/// The variable that names esker's config file.
pub const CONFIG_VAR: &str = "ESKER_CONFIG";
/// Set by WSL in every process of a distro.
pub const WSL_DISTRO_VAR: &str = "WSL_DISTRO_NAME";

/// The harnesses whose home one variable moves, with that variable: what a `harness_homes`
/// entry stands for.
pub const HARNESS_HOME_VARS: [(Source, &str); 16] = [
    (Source::Claude, "CLAUDE_CONFIG_DIR"),
    (Source::Codex, "CODEX_HOME"),
    (Source::Gemini, "GEMINI_CLI_HOME"),
    (Source::Copilot, "COPILOT_HOME"),
    (Source::Cursor, "CURSOR_CONFIG_DIR"),
    (Source::Qwen, "QWEN_RUNTIME_DIR"),
    (Source::Pi, "PI_CODING_AGENT_DIR"),
    (Source::Kimi, "KIMI_SHARE_DIR"),
    (Source::Goose, "GOOSE_PATH_ROOT"),
    (Source::OpenClaw, "OPENCLAW_STATE_DIR"),
    (Source::Hermes, "HERMES_HOME"),
    (Source::TraeCli, "TRAECLI_HOME"),
    (Source::CodeBuddy, "CODEBUDDY_CONFIG_DIR"),
    (Source::WorkBuddy, "WORKBUDDY_CONFIG_DIR"),
    (Source::Junie, "JUNIE_HOME"),
    (Source::Grok, "GROK_HOME"),
];

/// Windows profiles under `C:\Users` that are nobody's home.
const NOT_USER_PROFILES: [&str; 5] = [
    "All Users",
    "Default",
    "Default User",
    "Public",
    "WDAGUtilityAccount",
];

/// Why a home is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// `$HOME` itself.
    Home,
    /// The config file's `homes`.
    Config { file: PathBuf },
    /// `$ESKER_HOMES`.
    Env,
    /// A Windows user's profile seen from inside WSL.
    WindowsFromWsl,
    /// A WSL distro's home seen from Windows.
    WslDistro { distro: String },
    /// The config file's `harness_homes`, read as the harness's variable.
    HarnessHome {
        file: PathBuf,
        variable: &'static str,
    },
}

impl Origin {
    /// How `esker doctor` names it.
    pub fn describe(&self) -> String {
        match self {
            Origin::Home => "$HOME".to_string(),
            Origin::Config { file } => format!("`homes` in {}", file.display()),
            Origin::Env => format!("${HOMES_VAR}"),
            Origin::WindowsFromWsl => "a Windows home seen from WSL".to_string(),
            Origin::WslDistro { distro } => format!("WSL distro {distro}"),
            Origin::HarnessHome { file, variable } => {
                format!("`harness_homes` in {} (as {variable})", file.display())
            }
        }
    }
}

/// A home read besides `$HOME`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtraHome {
    pub path: PathBuf,
    pub origin: Origin,
    /// A Windows profile: its `AppData` stands for `%APPDATA%` and `%LOCALAPPDATA%`.
    pub windows: bool,
}

impl ExtraHome {
    /// The variables as they are for this home's harnesses: none is set (the machine's own
    /// name this machine's homes), except a Windows profile's app data folders.
    pub fn env(&self, name: &str) -> Option<PathBuf> {
        if !self.windows {
            return None;
        }
        let app_data = self.path.join("AppData");
        match name {
            "APPDATA" => Some(app_data.join("Roaming")),
            "LOCALAPPDATA" => Some(app_data.join("Local")),
            _ => None,
        }
    }
}

/// One more home of one harness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessHome {
    pub source: Source,
    pub variable: &'static str,
    pub path: PathBuf,
    pub origin: Origin,
}

/// Every home read and what could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Homes {
    /// The config file looked at, and whether it exists.
    pub config_file: Option<PathBuf>,
    pub config_exists: bool,
    pub extra: Vec<ExtraHome>,
    pub harness_homes: Vec<HarnessHome>,
    /// What was set aside, for a person to fix.
    pub problems: Vec<String>,
}

/// The config file's part about homes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HomesConfig {
    #[serde(default)]
    homes: Vec<String>,
    wsl: Option<bool>,
    /// The Windows `Users` folder seen from WSL, when not `<automount root>/c/Users`.
    windows_users: Option<PathBuf>,
    #[serde(default)]
    harness_homes: BTreeMap<String, Vec<String>>,
}

/// The homes to read besides `home`, from the config file, `env` and the machine (WSL).
pub fn discover(home: &Path, env: &dyn Fn(&str) -> Option<OsString>) -> Homes {
    let config_file = config_file(home, env);
    let mut homes = Homes {
        config_file: config_file.clone(),
        ..Homes::default()
    };
    let config = config_file
        .as_deref()
        .and_then(|file| read_config(file, &mut homes));
    let config = config.unwrap_or_default();
    let file = config_file.unwrap_or_default();
    for pattern in &config.homes {
        let origin = Origin::Config { file: file.clone() };
        for path in expand(pattern, home, &mut homes.problems) {
            push_home(&mut homes, home, path, origin.clone(), false);
        }
    }
    for pattern in env_list(env(HOMES_VAR)) {
        for path in expand(&pattern, home, &mut homes.problems) {
            push_home(&mut homes, home, path, Origin::Env, false);
        }
    }
    if config.wsl.unwrap_or(true) {
        add_wsl_homes(&mut homes, home, config.windows_users.as_deref(), env);
    }
    for (name, patterns) in &config.harness_homes {
        let Some((source, variable)) = harness_variable(name) else {
            homes.problems.push(format!(
                "`harness_homes.{name}` in {}: not a harness whose home a variable moves (one of {})",
                file.display(),
                harness_names().join(", ")
            ));
            continue;
        };
        for pattern in patterns {
            for path in expand(pattern, home, &mut homes.problems) {
                let origin = Origin::HarnessHome {
                    file: file.clone(),
                    variable,
                };
                homes.harness_homes.push(HarnessHome {
                    source,
                    variable,
                    path,
                    origin,
                });
            }
        }
    }
    homes
}

/// `$ESKER_CONFIG`, else `$XDG_CONFIG_HOME/esker/config.toml`, else
/// `~/.config/esker/config.toml`.
pub fn config_file(home: &Path, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| {
        env(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(file) = set(CONFIG_VAR) {
        return Some(file);
    }
    let config_home = set("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    Some(config_home.join("esker").join("config.toml"))
}

fn read_config(file: &Path, homes: &mut Homes) -> Option<HomesConfig> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            homes.config_exists = true;
            homes
                .problems
                .push(format!("{}: cannot be read: {error}", file.display()));
            return None;
        }
    };
    homes.config_exists = true;
    match toml::from_str::<HomesConfig>(&text) {
        Ok(config) => Some(config),
        Err(error) => {
            homes.problems.push(format!(
                "{}: not used, {}",
                file.display(),
                error.to_string().trim_end()
            ));
            None
        }
    }
}

/// The entries of a list variable: separated as `PATH` is (`:` here, `;` on Windows) or by
/// commas.
fn env_list(value: Option<OsString>) -> Vec<String> {
    let Some(value) = value else {
        return Vec::new();
    };
    std::env::split_paths(&value)
        .flat_map(|part| {
            part.to_string_lossy()
                .split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The existing folders `pattern` names: `~` is `home`; a pattern with glob characters is
/// matched, one without is taken as it is (a home that does not exist yet is still listed).
fn expand(pattern: &str, home: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let pattern = match pattern.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with(['/', '\\']) => {
            format!("{}{rest}", home.display())
        }
        _ => pattern.to_string(),
    };
    if !pattern.contains(['*', '?', '[']) {
        return vec![PathBuf::from(pattern)];
    }
    match glob::glob(&pattern) {
        Ok(paths) => {
            let mut found: Vec<PathBuf> = paths
                .filter_map(Result::ok)
                .filter(|path| path.is_dir())
                .collect();
            found.sort();
            found
        }
        Err(error) => {
            problems.push(format!("`{pattern}`: not a valid pattern: {error}"));
            Vec::new()
        }
    }
}

fn push_home(homes: &mut Homes, home: &Path, path: PathBuf, origin: Origin, windows: bool) {
    if same_place(&path, home)
        || homes
            .extra
            .iter()
            .any(|extra| same_place(&extra.path, &path))
    {
        return;
    }
    homes.extra.push(ExtraHome {
        path,
        origin,
        windows,
    });
}

/// The same path, or two names of one existing folder.
fn same_place(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

fn harness_variable(name: &str) -> Option<(Source, &'static str)> {
    HARNESS_HOME_VARS
        .into_iter()
        .find(|(source, _)| source.as_str() == name || source.harness() == name)
}

fn harness_names() -> Vec<&'static str> {
    HARNESS_HOME_VARS
        .iter()
        .map(|(source, _)| source.as_str())
        .collect()
}

/// Inside WSL: every Windows user's profile under the `C:` drive's mount. On Windows: every
/// WSL distro's `/home/<name>`.
fn add_wsl_homes(
    homes: &mut Homes,
    home: &Path,
    windows_users: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) {
    if env(WSL_DISTRO_VAR).is_some_and(|name| !name.is_empty()) {
        let users =
            windows_users.map_or_else(|| windows_users_dir(&read_wsl_conf()), Path::to_path_buf);
        for profile in windows_profiles(&users) {
            push_home(homes, home, profile, Origin::WindowsFromWsl, true);
        }
    }
    if cfg!(windows) {
        add_distro_homes(homes, home, &wsl_distros(), wsl_share);
    }
}

/// A WSL distro's root as Windows shows it: `\\wsl.localhost\<distro>`.
fn wsl_share(distro: &str) -> PathBuf {
    PathBuf::from(format!(r"\\wsl.localhost\{distro}"))
}

/// Every `/home/<name>` of each distro in `distros`, whose root `root_of` gives (the
/// `\\wsl.localhost` share on Windows; any folder in tests).
fn add_distro_homes(
    homes: &mut Homes,
    home: &Path,
    distros: &[String],
    root_of: impl Fn(&str) -> PathBuf,
) {
    for distro in distros {
        for user_home in linux_homes(&root_of(distro)) {
            let origin = Origin::WslDistro {
                distro: distro.clone(),
            };
            push_home(homes, home, user_home, origin, false);
        }
    }
}

fn read_wsl_conf() -> String {
    std::fs::read_to_string("/etc/wsl.conf").unwrap_or_default()
}

/// `<automount root>/c/Users`: the root is `[automount] root` of `/etc/wsl.conf`, `/mnt/` by
/// default.
pub fn windows_users_dir(wsl_conf: &str) -> PathBuf {
    let mut in_automount = false;
    let mut root = "/mnt/".to_string();
    for line in wsl_conf.lines() {
        let line = line.split(['#', ';']).next().unwrap_or("").trim();
        if line.starts_with('[') {
            in_automount = line.eq_ignore_ascii_case("[automount]");
        } else if in_automount
            && let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("root")
        {
            root = value.trim().trim_matches('"').to_string();
        }
    }
    Path::new(&root).join("c").join("Users")
}

/// The user profiles in a Windows `Users` folder (not `Public`, `Default` and the like).
pub fn windows_profiles(users: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(users) else {
        return Vec::new();
    };
    let mut profiles: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter(|entry| {
            let name = entry.file_name();
            !NOT_USER_PROFILES.iter().any(|skip| name == *skip)
        })
        .map(|entry| entry.path())
        .collect();
    profiles.sort();
    profiles
}

/// The homes of a Linux root: every `/home/<name>` (`/root` is the root user's alone).
pub fn linux_homes(root: &Path) -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = std::fs::read_dir(root.join("home"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    homes.sort();
    homes
}

/// The installed distros, from `wsl.exe --list --quiet` (it prints UTF-16).
fn wsl_distros() -> Vec<String> {
    let Ok(output) = std::process::Command::new("wsl.exe")
        .args(["--list", "--quiet"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    parse_wsl_list(&output.stdout)
}

/// The distro names of `wsl.exe --list --quiet`'s output: UTF-16LE (UTF-8 when
/// `WSL_UTF8=1`), one per line.
pub fn parse_wsl_list(bytes: &[u8]) -> Vec<String> {
    let utf16 = bytes.len() >= 2
        && bytes.len().is_multiple_of(2)
        && bytes.iter().skip(1).step_by(2).all(|byte| *byte == 0);
    let text = if utf16 {
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    };
    text.lines()
        .map(|line| line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(name, value)| (name.to_string(), OsString::from(value)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        }
    }

    #[test]
    fn the_config_file_lists_homes_with_globs_and_harness_homes() {
        let base = tempfile::tempdir().unwrap();
        let home = base.path().join("home");
        for dir in ["box-a/home/dev", "box-b/home/dev", "box-c/other"] {
            std::fs::create_dir_all(base.path().join("containers").join(dir)).unwrap();
        }
        std::fs::create_dir_all(home.join(".config/esker")).unwrap();
        let containers = base.path().join("containers");
        std::fs::write(
            home.join(".config/esker/config.toml"),
            format!(
                "homes = [\"{}/*/home/dev\", \"~/laptop\"]\n[harness_homes]\nclaude = [\"~/.claude-work\"]\ncodex-cli = []\n",
                containers.display()
            ),
        )
        .unwrap();
        let homes = discover(&home, &env_of(&[]));
        let paths: Vec<&Path> = homes
            .extra
            .iter()
            .map(|extra| extra.path.as_path())
            .collect();
        assert_eq!(
            paths,
            [
                containers.join("box-a/home/dev").as_path(),
                containers.join("box-b/home/dev").as_path(),
                home.join("laptop").as_path(),
            ]
        );
        assert_eq!(homes.harness_homes.len(), 1);
        assert_eq!(homes.harness_homes[0].variable, "CLAUDE_CONFIG_DIR");
        assert_eq!(homes.harness_homes[0].path, home.join(".claude-work"));
        assert!(homes.config_exists);
        assert_eq!(homes.problems.len(), 1, "{:?}", homes.problems);
        assert!(homes.problems[0].contains("harness_homes.codex-cli"));
    }

    #[test]
    fn esker_homes_splits_on_the_path_separator_and_commas_and_skips_home_itself() {
        let home = PathBuf::from("/nonexistent/home");
        let list = "/a/one:/b/two,/c/three,/nonexistent/home";
        let homes = discover(&home, &env_of(&[(HOMES_VAR, list)]));
        let paths: Vec<PathBuf> = homes.extra.iter().map(|extra| extra.path.clone()).collect();
        assert_eq!(paths, ["/a/one", "/b/two", "/c/three"].map(PathBuf::from));
        assert!(homes.extra.iter().all(|extra| extra.origin == Origin::Env));
    }

    #[test]
    fn a_broken_config_file_is_a_problem_not_an_error() {
        let base = tempfile::tempdir().unwrap();
        let file = base.path().join("esker.toml");
        std::fs::write(&file, "homes = \"not a list\"\n").unwrap();
        let env = env_of(&[(CONFIG_VAR, file.to_str().unwrap())]);
        let homes = discover(base.path(), &env);
        assert!(homes.extra.is_empty());
        assert_eq!(homes.problems.len(), 1);
        assert!(
            homes.problems[0].contains("not used"),
            "{:?}",
            homes.problems
        );
    }

    #[test]
    fn wsl_conf_moves_the_windows_drive_mount() {
        assert_eq!(windows_users_dir(""), PathBuf::from("/mnt/c/Users"));
        let conf = "[boot]\nsystemd=true\n[automount]\nenabled = true\nroot = /win/ # moved\n";
        assert_eq!(windows_users_dir(conf), PathBuf::from("/win/c/Users"));
    }

    #[test]
    fn windows_profiles_leave_out_public_and_default() {
        let base = tempfile::tempdir().unwrap();
        for name in ["ana", "Public", "Default", "bo"] {
            std::fs::create_dir_all(base.path().join(name)).unwrap();
        }
        std::fs::write(base.path().join("desktop.ini"), "").unwrap();
        let profiles = windows_profiles(base.path());
        assert_eq!(profiles, [base.path().join("ana"), base.path().join("bo")]);
    }

    #[test]
    fn the_wsl_list_is_read_in_utf16_and_utf8() {
        let utf16: Vec<u8> = "Ubuntu\r\nDebian\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(parse_wsl_list(&utf16), ["Ubuntu", "Debian"]);
        assert_eq!(parse_wsl_list(b"Ubuntu-24.04\n"), ["Ubuntu-24.04"]);
        assert!(parse_wsl_list(b"").is_empty());
    }

    /// On Windows every WSL distro's `/home/<name>` is a home, seen through its share; here a
    /// folder per distro stands for `\\wsl.localhost\<distro>` (esker's Windows build is not
    /// made yet, so the share itself is untested).
    #[test]
    fn each_wsl_distro_s_users_are_homes_with_their_distro_named() {
        let shares = tempfile::tempdir().unwrap();
        for user_home in ["Ubuntu/home/ana", "Ubuntu/home/bo", "Debian/home/ana"] {
            std::fs::create_dir_all(shares.path().join(user_home)).unwrap();
        }
        std::fs::create_dir_all(shares.path().join("docker-desktop/etc")).unwrap();
        std::fs::write(shares.path().join("Ubuntu/home/notes.txt"), "").unwrap();
        let own_home = shares.path().join("Ubuntu/home/bo");
        let mut homes = Homes::default();
        let distros = ["Ubuntu", "Debian", "docker-desktop", "Gone"].map(str::to_string);
        add_distro_homes(&mut homes, &own_home, &distros, |distro| {
            shares.path().join(distro)
        });
        let found: Vec<(PathBuf, String, bool)> = homes
            .extra
            .iter()
            .map(|extra| (extra.path.clone(), extra.origin.describe(), extra.windows))
            .collect();
        assert_eq!(
            found,
            [
                (
                    shares.path().join("Ubuntu/home/ana"),
                    "WSL distro Ubuntu".to_string(),
                    false
                ),
                (
                    shares.path().join("Debian/home/ana"),
                    "WSL distro Debian".to_string(),
                    false
                ),
            ],
            "the running user's own home is not listed twice; a file, a distro without \
             /home and a missing share are no homes"
        );
        assert_eq!(
            wsl_share("Ubuntu"),
            PathBuf::from(r"\\wsl.localhost\Ubuntu")
        );
    }

    #[test]
    fn a_windows_home_stands_for_its_app_data_variables() {
        let home = ExtraHome {
            path: PathBuf::from("/mnt/c/Users/ana"),
            origin: Origin::WindowsFromWsl,
            windows: true,
        };
        assert_eq!(
            home.env("APPDATA"),
            Some(PathBuf::from("/mnt/c/Users/ana/AppData/Roaming"))
        );
        assert_eq!(home.env("CODEX_HOME"), None);
    }
}
