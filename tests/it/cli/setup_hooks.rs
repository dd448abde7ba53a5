//! `esker setup --hooks` on copies of each agent's hook config (Claude Code's, Gemini CLI's and
//! Factory Droid's `settings.json`, Codex's `hooks.json`, Copilot CLI's hooks directory) in a
//! temporary HOME:
//! a dry run writes nothing, installing twice changes nothing the second time, the user's own
//! hooks and comments survive, a backup is kept, and `--remove` takes out only esker's hooks.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::support::stderr_of;

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [{ "type": "command", "command": "~/bin/lint-prompt.sh", "timeout": 10 }]
      }
    ]
  }
}
"#;

const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "notify-send done" }] }
    ]
  }
}
"#;

const GEMINI_SETTINGS: &str = r#"{
  // my theme, keep it
  "theme": "GitHub",
  "hooks": {
    "disabled": ["old-hook"],
    "BeforeAgent": [
      { "hooks": [{ "name": "branch", "type": "command", "command": "git branch --show-current" }] }
    ]
  }
}
"#;

const COPILOT_MCP: &str = "{\"mcpServers\": {}}\n";

const DROID_SETTINGS: &str = r#"{
  "model": "claude-sonnet-4-5-20250929",
  "autonomyLevel": "auto-low",
  "hooks": {
    "PostToolUse": [
      { "matcher": "Edit|Create", "hooks": [{ "type": "command", "command": "prettier --write" }] }
    ]
  }
}
"#;

/// The files, relative to HOME, and what each agent's hook command ends with.
const FILES: [(&str, &str); 5] = [
    (".claude/settings.json", "recall --hook claude-code"),
    (".codex/hooks.json", "recall --hook codex"),
    (".gemini/settings.json", "recall --hook gemini"),
    (".copilot/hooks/esker-recall.json", "recall --hook copilot"),
    (".factory/settings.json", "recall --hook droid"),
];

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn with_five_agents() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        home.write(".claude/settings.json", CLAUDE_SETTINGS);
        home.write(".codex/hooks.json", CODEX_HOOKS);
        home.write(".gemini/settings.json", GEMINI_SETTINGS);
        home.write(".copilot/mcp-config.json", COPILOT_MCP);
        home.write(".factory/settings.json", DROID_SETTINGS);
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

    fn read(&self, relative: &str) -> Option<String> {
        fs::read_to_string(self.path(relative)).ok()
    }

    fn originals(&self) -> [Option<String>; 5] {
        FILES.map(|(file, _)| self.read(file))
    }

    fn setup(&self, args: &[&str]) -> String {
        let mut full = vec!["setup", "--hooks", "--command", "/opt/bin/esker"];
        full.extend_from_slice(args);
        let output = esker_at_home(self.dir.path(), &full);
        assert!(output.status.success(), "{}", stderr_of(&output));
        stdout_of(&output)
    }

    fn setup_json(&self, args: &[&str]) -> Value {
        let mut full = vec!["--json"];
        full.extend_from_slice(args);
        serde_json::from_str(&self.setup(&full)).expect("setup --json parses")
    }
}

fn actions(reports: &Value) -> Vec<(String, String)> {
    reports
        .as_array()
        .unwrap()
        .iter()
        .map(|report| {
            (
                report["client"].as_str().unwrap().to_owned(),
                report["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn all(action: &str) -> Vec<(String, String)> {
    ["claude", "codex", "gemini", "copilot", "droid"]
        .map(|client| (client.to_owned(), action.to_owned()))
        .to_vec()
}

fn without_comments(text: &str) -> Value {
    let plain: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&plain).expect("JSON once comments are out")
}

#[test]
fn a_dry_run_shows_the_hooks_and_writes_nothing() {
    let home = Home::with_five_agents();
    let before = home.originals();
    let stdout = home.setup(&["--dry-run"]);
    assert_eq!(home.originals(), before);
    assert!(stdout.contains("would add"), "{stdout}");
    assert!(
        stdout.contains("/opt/bin/esker recall --hook claude-code"),
        "{stdout}"
    );
    assert!(!home.path(".claude/settings.json.esker-backup").exists());
    assert!(!home.path(".copilot/hooks").exists());
}

#[test]
fn install_is_idempotent_keeps_foreign_hooks_and_remove_restores_the_bytes() {
    let home = Home::with_five_agents();
    let before = home.originals();
    assert_eq!(actions(&home.setup_json(&[])), all("added"));
    for (file, command) in FILES {
        let text = home.read(file).unwrap_or_else(|| panic!("{file} written"));
        assert!(
            text.contains(&format!("/opt/bin/esker {command}")),
            "{file}: {text}"
        );
    }
    let claude = without_comments(&home.read(".claude/settings.json").unwrap());
    assert_eq!(claude["model"], "opus");
    assert_eq!(
        claude["hooks"]["UserPromptSubmit"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        claude["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        "~/bin/lint-prompt.sh"
    );
    assert_eq!(
        claude["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "/opt/bin/esker recall --hook claude-code"
    );
    assert_eq!(
        claude["hooks"]["SessionStart"][0]["hooks"][0]["type"],
        "command"
    );
    let codex = without_comments(&home.read(".codex/hooks.json").unwrap());
    assert_eq!(
        codex["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert!(codex["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"].is_u64());
    let gemini_text = home.read(".gemini/settings.json").unwrap();
    assert!(gemini_text.contains("// my theme, keep it"));
    let gemini = without_comments(&gemini_text);
    assert_eq!(gemini["hooks"]["disabled"][0], "old-hook");
    assert_eq!(gemini["hooks"]["BeforeAgent"].as_array().unwrap().len(), 2);
    assert_eq!(
        gemini["hooks"]["SessionStart"][0]["hooks"][0]["name"],
        "esker-recall"
    );
    let copilot = without_comments(&home.read(".copilot/hooks/esker-recall.json").unwrap());
    assert_eq!(copilot["version"], 1);
    assert_eq!(
        copilot["hooks"]["sessionStart"][0]["bash"],
        "/opt/bin/esker recall --hook copilot"
    );
    let droid = without_comments(&home.read(".factory/settings.json").unwrap());
    assert_eq!(droid["autonomyLevel"], "auto-low");
    assert_eq!(
        droid["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "prettier --write"
    );
    for event in ["UserPromptSubmit", "SessionStart"] {
        assert_eq!(
            droid["hooks"][event][0]["hooks"][0]["command"], "/opt/bin/esker recall --hook droid",
            "{event}"
        );
    }
    assert_eq!(
        home.read(".claude/settings.json.esker-backup").as_deref(),
        Some(CLAUDE_SETTINGS)
    );
    assert_eq!(
        home.read(".codex/hooks.json.esker-backup").as_deref(),
        Some(CODEX_HOOKS)
    );

    let installed = home.originals();
    assert_eq!(actions(&home.setup_json(&[])), all("unchanged"));
    assert_eq!(home.originals(), installed);

    assert_eq!(actions(&home.setup_json(&["--remove"])), all("removed"));
    assert_eq!(home.originals(), before);
    assert!(!home.path(".copilot/hooks/esker-recall.json").exists());
    assert_eq!(
        actions(&home.setup_json(&["--remove"])),
        all("not registered")
    );
}

#[test]
fn remove_after_the_user_edited_the_file_takes_out_only_esker() {
    let home = Home::with_five_agents();
    home.setup_json(&[]);
    let mut claude = without_comments(&home.read(".claude/settings.json").unwrap());
    claude["theme"] = Value::from("dark");
    home.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&claude).unwrap(),
    );
    home.setup_json(&["--remove", "--client", "claude"]);
    let text = home.read(".claude/settings.json").unwrap();
    assert!(!text.contains("esker"), "{text}");
    let claude = without_comments(&text);
    assert_eq!(claude["theme"], "dark");
    assert_eq!(
        claude["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        "~/bin/lint-prompt.sh"
    );
    assert!(claude["hooks"].get("SessionStart").is_none(), "{text}");
}

#[test]
fn an_absent_agent_is_left_alone_unless_named() {
    let home = tempfile::tempdir().unwrap();
    let output = esker_at_home(
        home.path(),
        &["setup", "--hooks", "--command", "/opt/bin/esker", "--json"],
    );
    assert!(output.status.success() || output.status.code() == Some(1));
    let reports: Value = serde_json::from_str(&stdout_of(&output)).unwrap();
    assert_eq!(actions(&reports), all("not found"));
    assert!(!home.path().join(".claude").exists());

    let named = esker_at_home(
        home.path(),
        &[
            "setup",
            "--hooks",
            "--command",
            "/opt/bin/esker",
            "--client",
            "codex",
            "--json",
        ],
    );
    assert!(named.status.success(), "{}", stderr_of(&named));
    assert!(home.path().join(".codex/hooks.json").exists());
    assert!(!home.path().join(".gemini").exists());
}

/// Droid reads `settings.json`'s hooks only while `~/.factory/hooks.json` is absent: with one
/// there, esker leaves both files alone and says what to add where.
#[test]
fn droid_with_a_hooks_file_of_its_own_is_told_not_edited() {
    let home = Home::with_five_agents();
    let own_hooks = "{\"hooks\": {\"Stop\": []}}\n";
    home.write(".factory/hooks.json", own_hooks);
    let output = esker_at_home(
        home.dir.path(),
        &[
            "setup",
            "--hooks",
            "--command",
            "/opt/bin/esker",
            "--client",
            "droid",
            "--json",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(2),
        "a failed client fails the run"
    );
    let reports: Value = serde_json::from_str(&stdout_of(&output)).expect("setup --json parses");
    let droid = &reports.as_array().unwrap()[4];
    assert_eq!(droid["client"], "droid");
    assert_eq!(droid["action"], "failed", "{reports:#}");
    let error = droid["error"].as_str().unwrap();
    assert!(
        error.contains("hooks.json") && error.contains("/opt/bin/esker recall --hook droid"),
        "{error}"
    );
    assert_eq!(
        home.read(".factory/settings.json").as_deref(),
        Some(DROID_SETTINGS)
    );
    assert_eq!(home.read(".factory/hooks.json").as_deref(), Some(own_hooks));
}
