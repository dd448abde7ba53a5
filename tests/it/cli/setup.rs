//! `esker setup` on copies of each client's config format (Codex TOML with comments, Gemini
//! JSON with comments, Claude Code's plain JSON): a dry run touches nothing, applying twice
//! changes nothing the second time, comments and other servers survive, and `--remove`
//! restores the original bytes.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::support::stderr_of;

const CODEX_CONFIG: &str = r#"# Codex settings, kept by hand
model = "gpt-5-codex" # the default model

[mcp_servers.docs]
command = "docs-server"
args = ["--stdio"]

[profiles.fast]
model = "gpt-5-mini"
"#;

const GEMINI_SETTINGS: &str = r#"{
  // my theme, keep it
  "theme": "GitHub",
  "mcpServers": {
    "docs": { "command": "docs-server", "args": ["--stdio"] }
  },
  /* trailing block comment */
  "telemetry": { "enabled": false }
}
"#;

const CLAUDE_JSON: &str = r#"{
  "numStartups": 42,
  "mcpServers": {
    "docs": {
      "type": "stdio",
      "command": "docs-server",
      "args": []
    }
  },
  "projects": {}
}
"#;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn with_three_clients() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = Home { dir };
        home.write(".codex/config.toml", CODEX_CONFIG);
        home.write(".gemini/settings.json", GEMINI_SETTINGS);
        home.write(".claude.json", CLAUDE_JSON);
        home
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative)).unwrap()
    }

    /// Runs `esker setup` for a person and returns what it printed.
    fn setup(&self, args: &[&str]) -> String {
        let mut full = vec!["setup", "--command", "/opt/bin/esker"];
        full.extend_from_slice(args);
        let output = esker_at_home(self.dir.path(), &full);
        assert!(output.status.success(), "{}", stderr_of(&output));
        stdout_of(&output)
    }

    fn setup_json(&self, args: &[&str]) -> Value {
        let mut full = vec!["setup", "--command", "/opt/bin/esker", "--json"];
        full.extend_from_slice(args);
        let output = esker_at_home(self.dir.path(), &full);
        assert!(output.status.success(), "{}", stderr_of(&output));
        serde_json::from_str(&stdout_of(&output)).expect("setup --json parses")
    }

    fn files(&self) -> [String; 3] {
        [
            self.read(".codex/config.toml"),
            self.read(".gemini/settings.json"),
            self.read(".claude.json"),
        ]
    }
}

fn action_of(reports: &Value, client: &str) -> String {
    reports
        .as_array()
        .unwrap()
        .iter()
        .find(|report| report["client"] == client)
        .map(|report| report["action"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn a_dry_run_prints_the_diffs_and_touches_nothing() {
    let home = Home::with_three_clients();
    let stdout = home.setup(&["--dry-run"]);
    assert_eq!(home.files(), [CODEX_CONFIG, GEMINI_SETTINGS, CLAUDE_JSON]);
    assert!(stdout.contains("+[mcp_servers.esker]"), "{stdout}");
    assert!(stdout.contains("+command = \"/opt/bin/esker\""), "{stdout}");
    assert!(stdout.contains("would add"), "{stdout}");
    assert!(stdout.contains("\"esker\""), "{stdout}");
    assert!(!home.path(".codex/config.toml.esker-backup").exists());
    assert!(
        !home.path(".cursor").exists(),
        "an absent client got a config"
    );
    assert!(!stdout.contains('\u{1b}'));
}

#[test]
fn apply_is_idempotent_keeps_everything_else_and_remove_restores_the_bytes() {
    let home = Home::with_three_clients();
    let first = home.setup_json(&[]);
    for client in ["codex", "gemini", "claude"] {
        assert_eq!(action_of(&first, client), "added", "{first:#}");
    }
    assert_eq!(action_of(&first, "cursor"), "not found");

    let [codex, gemini, claude] = home.files();
    assert!(codex.starts_with(
        "# Codex settings, kept by hand\nmodel = \"gpt-5-codex\" # the default model\n"
    ));
    assert!(codex.contains("[mcp_servers.docs]\ncommand = \"docs-server\""));
    assert!(
        codex.contains("[mcp_servers.esker]\ncommand = \"/opt/bin/esker\"\nargs = [\"serve\"]")
    );
    assert!(codex.contains("[profiles.fast]"));
    assert!(gemini.contains("// my theme, keep it"));
    assert!(gemini.contains("/* trailing block comment */"));
    assert!(gemini.contains("\"docs\": { \"command\": \"docs-server\", \"args\": [\"--stdio\"] }"));
    let claude_value: Value = serde_json::from_str(&claude).expect("still JSON");
    assert_eq!(claude_value["numStartups"], 42);
    assert_eq!(claude_value["mcpServers"]["docs"]["command"], "docs-server");
    assert_eq!(claude_value["mcpServers"]["esker"]["type"], "stdio");
    assert_eq!(claude_value["mcpServers"]["esker"]["args"][0], "serve");
    let keys: Vec<&String> = claude_value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["numStartups", "mcpServers", "projects"]);
    assert_eq!(
        fs::read_to_string(home.path(".codex/config.toml.esker-backup")).unwrap(),
        CODEX_CONFIG
    );

    let after_first = home.files();
    let second = home.setup_json(&[]);
    for client in ["codex", "gemini", "claude"] {
        assert_eq!(action_of(&second, client), "unchanged");
    }
    assert_eq!(home.files(), after_first);

    let removed = home.setup_json(&["--remove"]);
    for client in ["codex", "gemini", "claude"] {
        assert_eq!(action_of(&removed, client), "removed");
    }
    assert_eq!(home.files(), [CODEX_CONFIG, GEMINI_SETTINGS, CLAUDE_JSON]);
    let again = home.setup_json(&["--remove"]);
    assert_eq!(action_of(&again, "codex"), "not registered");
}

#[test]
fn a_profile_change_updates_in_place_and_remove_still_restores() {
    let home = Home::with_three_clients();
    home.setup_json(&[]);
    let updated = home.setup_json(&["--profile", "agtrace"]);
    assert_eq!(action_of(&updated, "codex"), "updated");
    assert!(
        home.read(".codex/config.toml")
            .contains("args = [\"serve\", \"--profile\", \"agtrace\"]")
    );
    home.setup_json(&["--remove"]);
    let [codex, gemini, claude] = home.files();
    assert!(!codex.contains("esker"), "{codex}");
    assert!(codex.contains("[mcp_servers.docs]") && codex.contains("# Codex settings"));
    assert!(!gemini.contains("esker") && gemini.contains("// my theme, keep it"));
    assert!(!claude.contains("esker") && claude.contains("\"docs\""));
}

#[test]
fn a_named_client_is_configured_even_when_absent_and_a_broken_file_is_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let output = esker_at_home(
        home.path(),
        &[
            "setup",
            "--command",
            "/opt/bin/esker",
            "--client",
            "cursor",
            "--json",
        ],
    );
    assert!(output.status.success(), "{}", stderr_of(&output));
    let cursor: Value =
        serde_json::from_str(&fs::read_to_string(home.path().join(".cursor/mcp.json")).unwrap())
            .unwrap();
    assert_eq!(cursor["mcpServers"]["esker"]["command"], "/opt/bin/esker");

    let broken = "{ \"mcpServers\": ";
    let gemini = home.path().join(".gemini/settings.json");
    fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    fs::write(&gemini, broken).unwrap();
    let failed = esker_at_home(
        home.path(),
        &["setup", "--command", "/opt/bin/esker", "--client", "gemini"],
    );
    assert_eq!(failed.status.code(), Some(2));
    assert_eq!(fs::read_to_string(&gemini).unwrap(), broken);

    let unknown = esker_at_home(home.path(), &["setup", "--client", "emacs"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr_of(&unknown).contains("unknown client"));
    assert!(!Path::new(&home.path().join(".emacs")).exists());
}

/// A stand-in `claude` on PATH that records its arguments.
fn fake_claude(home: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = home.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let log = home.join("claude-calls.log");
    let script = bin.join("claude");
    fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\n", log.display()),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    (bin, log)
}

fn setup_with_claude_cli(home: &Path, bin: &Path, args: &[&str]) -> String {
    let mut full = vec!["setup", "--command", "/opt/bin/esker", "--client", "claude"];
    full.extend_from_slice(args);
    let output = super::esker_command(home, &full)
        .env("PATH", bin)
        .output()
        .expect("esker runs");
    assert!(output.status.success(), "{}", stderr_of(&output));
    stdout_of(&output)
}

#[test]
fn claude_code_is_registered_through_its_own_command_when_it_is_on_path() {
    let home = tempfile::tempdir().unwrap();
    let (bin, log) = fake_claude(home.path());
    let calls = || fs::read_to_string(&log).unwrap_or_default();

    let dry = setup_with_claude_cli(home.path(), &bin, &["--dry-run"]);
    assert!(
        dry.contains("mcp add --scope user esker -- /opt/bin/esker serve"),
        "{dry}"
    );
    assert_eq!(calls(), "");

    setup_with_claude_cli(home.path(), &bin, &[]);
    assert_eq!(
        calls(),
        "mcp add --scope user esker -- /opt/bin/esker serve\n"
    );

    // Claude's own file already says what we would: nothing runs.
    fs::write(
        home.path().join(".claude.json"),
        r#"{"mcpServers": {"esker": {"type": "stdio", "command": "/opt/bin/esker", "args": ["serve"], "env": {}}}}"#,
    )
    .unwrap();
    fs::remove_file(&log).unwrap();
    let again = setup_with_claude_cli(home.path(), &bin, &[]);
    assert!(again.contains("unchanged"), "{again}");
    assert_eq!(calls(), "");

    setup_with_claude_cli(home.path(), &bin, &["--profile", "agtrace"]);
    assert_eq!(
        calls(),
        "mcp remove --scope user esker\nmcp add --scope user esker -- /opt/bin/esker serve --profile agtrace\n"
    );
    fs::remove_file(&log).unwrap();
    setup_with_claude_cli(home.path(), &bin, &["--remove"]);
    assert_eq!(calls(), "mcp remove --scope user esker\n");
}

#[test]
fn antigravity_is_registered_in_its_global_mcp_config() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    let original = "{\n  \"mcpServers\": {\n    \"docs\": { \"command\": \"docs-server\", \"args\": [] }\n  }\n}\n";
    home.write(".gemini/config/mcp_config.json", original);
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "antigravity"), "added");
    let config: Value = serde_json::from_str(&home.read(".gemini/config/mcp_config.json")).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(config["mcpServers"]["esker"]["args"][0], "serve");
    assert_eq!(config["mcpServers"]["docs"]["command"], "docs-server");
    home.setup(&["--remove", "--client", "antigravity"]);
    assert_eq!(home.read(".gemini/config/mcp_config.json"), original);
}

#[test]
fn codebuddy_and_workbuddy_are_registered_in_the_one_file_each_reads() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    // CodeBuddy reads only the first of `.mcp.json`, `mcp.json` (in its home) and
    // `~/.codebuddy.json` that exists: here `mcp.json`, so `~/.codebuddy.json` stays as it is.
    let state = "{\n  \"numStartups\": 3\n}\n";
    home.write(".codebuddy.json", state);
    let original = "{\n  \"mcpServers\": {\n    \"docs\": { \"type\": \"stdio\", \"command\": \"docs-server\", \"args\": [] }\n  }\n}\n";
    home.write(".codebuddy/mcp.json", original);
    // Only WorkBuddy AI's home exists: its `mcp.json` is created.
    fs::create_dir_all(home.path(".workbuddy-ai")).unwrap();
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "codebuddy"), "added");
    assert_eq!(action_of(&reports, "workbuddy"), "added");
    let config: Value = serde_json::from_str(&home.read(".codebuddy/mcp.json")).unwrap();
    let esker = &config["mcpServers"]["esker"];
    assert_eq!(esker["type"], "stdio");
    assert_eq!(esker["command"], "/opt/bin/esker");
    assert_eq!(esker["args"][0], "serve");
    assert_eq!(config["mcpServers"]["docs"]["command"], "docs-server");
    assert_eq!(home.read(".codebuddy.json"), state);
    let workbuddy: Value = serde_json::from_str(&home.read(".workbuddy-ai/mcp.json")).unwrap();
    assert_eq!(
        workbuddy["mcpServers"]["esker"]["command"],
        "/opt/bin/esker"
    );
    assert!(!home.path(".workbuddy").exists());

    // Without any of its files, CodeBuddy gets the documented user file `~/.codebuddy.json`.
    let bare = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    fs::create_dir_all(bare.path(".codebuddy")).unwrap();
    let reports = bare.setup_json(&["--client", "codebuddy"]);
    assert_eq!(action_of(&reports, "codebuddy"), "added");
    let config: Value = serde_json::from_str(&bare.read(".codebuddy.json")).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["type"], "stdio");

    home.setup(&["--remove", "--client", "codebuddy"]);
    assert_eq!(home.read(".codebuddy/mcp.json"), original);
}

#[test]
fn kiro_and_amazon_q_are_registered_in_their_user_mcp_files() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    let original = "{\n  \"mcpServers\": {\n    \"docs\": { \"command\": \"docs-server\", \"args\": [] }\n  }\n}\n";
    home.write(".kiro/settings/mcp.json", original);
    fs::create_dir_all(home.path(".aws/amazonq")).unwrap();
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "kiro"), "added");
    assert_eq!(action_of(&reports, "amazon-q"), "added");
    let kiro: Value = serde_json::from_str(&home.read(".kiro/settings/mcp.json")).unwrap();
    assert_eq!(kiro["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(kiro["mcpServers"]["esker"]["args"][0], "serve");
    assert_eq!(kiro["mcpServers"]["docs"]["command"], "docs-server");
    let q: Value = serde_json::from_str(&home.read(".aws/amazonq/mcp.json")).unwrap();
    assert_eq!(q["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    home.setup(&["--remove", "--client", "kiro"]);
    assert_eq!(home.read(".kiro/settings/mcp.json"), original);
}

#[test]
fn junie_and_auggie_are_registered_in_their_user_mcp_files() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    // Auggie's settings file holds its other settings too: they are kept.
    let settings =
        "{\n  \"model\": \"sonnet4.5\",\n  \"indexingAllowDirs\": [\"/home/dev/src\"]\n}\n";
    home.write(".augment/settings.json", settings);
    fs::create_dir_all(home.path(".junie")).unwrap();
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "junie"), "added");
    assert_eq!(action_of(&reports, "auggie"), "added");
    let junie: Value = serde_json::from_str(&home.read(".junie/mcp/mcp.json")).unwrap();
    assert_eq!(junie["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(junie["mcpServers"]["esker"]["args"][0], "serve");
    let auggie: Value = serde_json::from_str(&home.read(".augment/settings.json")).unwrap();
    assert_eq!(auggie["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(auggie["model"], "sonnet4.5");
    assert_eq!(auggie["indexingAllowDirs"][0], "/home/dev/src");
    home.setup(&["--remove", "--client", "auggie"]);
    let removed: Value = serde_json::from_str(&home.read(".augment/settings.json")).unwrap();
    assert!(removed["mcpServers"]["esker"].is_null(), "{removed}");
    assert_eq!(removed["model"], "sonnet4.5");
}

#[test]
fn grok_build_and_claude_desktop_are_registered_in_their_mcp_files() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    let grok_config = "# Grok settings\n[mcp_servers.docs]\ncommand = \"docs-server\"\nargs = []\n";
    home.write(".grok/config.toml", grok_config);
    let desktop = ".config/Claude/claude_desktop_config.json";
    let original = "{\n  \"mcpServers\": {\n    \"docs\": { \"command\": \"docs-server\", \"args\": [] }\n  }\n}\n";
    home.write(desktop, original);
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "grok"), "added");
    assert_eq!(action_of(&reports, "claude-desktop"), "added");
    let grok = home.read(".grok/config.toml");
    assert!(grok.starts_with("# Grok settings\n"), "{grok}");
    assert!(grok.contains("[mcp_servers.esker]"), "{grok}");
    assert!(grok.contains("command = \"/opt/bin/esker\""), "{grok}");
    assert!(grok.contains("[mcp_servers.docs]"), "{grok}");
    let config: Value = serde_json::from_str(&home.read(desktop)).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(config["mcpServers"]["esker"]["args"][0], "serve");
    assert_eq!(config["mcpServers"]["docs"]["command"], "docs-server");
    let again = home.setup_json(&[]);
    assert_eq!(action_of(&again, "grok"), "unchanged");
    home.setup(&["--remove", "--client", "grok", "--client", "claude-desktop"]);
    assert_eq!(home.read(".grok/config.toml"), grok_config);
    assert_eq!(home.read(desktop), original);
}

#[test]
fn devin_cli_is_registered_in_its_user_config() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    // Devin keeps its sessions in its data folder before any config exists.
    fs::create_dir_all(home.path(".local/share/devin/cli/transcripts")).unwrap();
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "devin"), "added");
    let config: Value = serde_json::from_str(&home.read(".config/devin/config.json")).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(config["mcpServers"]["esker"]["args"][0], "serve");
    // Its other settings are kept.
    let settings = "{\n  \"permissions\": {\"allow\": [\"mcp__github__*\"]}\n}\n";
    home.write(".config/devin/config.json", settings);
    home.setup(&["--client", "devin"]);
    let config: Value = serde_json::from_str(&home.read(".config/devin/config.json")).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(config["permissions"]["allow"][0], "mcp__github__*");
}

#[test]
fn warp_is_registered_in_its_global_mcp_file() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    // Warp's home config folder holds its themes and workflows; `.mcp.json` may not exist yet.
    fs::create_dir_all(home.path(".warp/themes")).unwrap();
    let reports = home.setup_json(&[]);
    assert_eq!(action_of(&reports, "warp"), "added");
    let config: Value = serde_json::from_str(&home.read(".warp/.mcp.json")).unwrap();
    assert_eq!(config["mcpServers"]["esker"]["command"], "/opt/bin/esker");
    assert_eq!(config["mcpServers"]["esker"]["args"][0], "serve");
    let again = home.setup_json(&[]);
    assert_eq!(action_of(&again, "warp"), "unchanged");
    home.setup(&["--remove", "--client", "warp"]);
    // Removing restores the file as it was: absent here, or without the entry.
    let removed = fs::read_to_string(home.path(".warp/.mcp.json")).unwrap_or_default();
    let removed: Value = serde_json::from_str(&removed).unwrap_or(Value::Null);
    assert!(removed["mcpServers"]["esker"].is_null(), "{removed}");
}
