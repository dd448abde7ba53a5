//! `esker setup --hooks` on copies of each agent's hook config (Claude Code's, Gemini CLI's,
//! Factory Droid's, CodeBuddy Code's and Qwen Code's `settings.json`, Codex's and Cursor's
//! `hooks.json`, Copilot CLI's hooks directory, Kiro's `~/.kiro/hooks` and Cline's
//! `~/Documents/Cline/Hooks`, Kimi Code's `config.toml`, Devin CLI's and Junie's `config.json`) in a temporary HOME:
//! a dry run writes nothing, installing twice changes nothing the second time, the user's own
//! hooks and comments survive, a backup is kept, and `--remove` takes out only esker's hooks.

use std::fs;
use std::os::unix::fs::PermissionsExt;
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

const CODEBUDDY_SETTINGS: &str = r#"{
  "model": "claude-4.5",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/check-bash.sh" }] }
    ]
  }
}
"#;

const QWEN_SETTINGS: &str = r#"{
  // Qwen Code settings
  "mcpServers": { "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] } },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^run_shell_command$",
        "hooks": [{ "type": "command", "command": "~/bin/guard.sh", "name": "guard", "timeout": 10000 }]
      }
    ]
  }
}
"#;

const CURSOR_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }]
  }
}
"#;

/// A hooks file of the user's own beside esker's in `~/.kiro/hooks`.
const KIRO_LINT_HOOKS: &str = r#"{"version": "v1", "hooks": [{"name": "lint-on-save", "trigger": "PostFileSave", "matcher": "\\.ts$", "action": {"type": "command", "command": "npm run lint"}}]}
"#;

/// A hook script of the user's own beside esker's in Cline's hooks folder.
const CLINE_TASK_COMPLETE: &str = "#!/bin/sh\nnotify-send 'Cline is done'\n";

const KIMI_CONFIG: &str = "# Kimi Code\ndefault_model = \"kimi-k2\"\n\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"node ~/.kimi-code/hooks/check-bash.mjs\"\ntimeout = 5\n";

/// Junie's `config.json` with a hook of the user's own.
const JUNIE_CONFIG: &str = r#"{
  "hooks": {
    "SessionStart": [{ "hooks": [{ "type": "command", "command": "git fetch --quiet", "timeout": 10 }] }]
  }
}
"#;

/// Devin CLI's `config.json` (comments allowed) with settings of the user's own.
const DEVIN_CONFIG: &str = r#"{
  // Devin CLI
  "permissions": { "allow": ["exec(git status)"] }
}
"#;

/// The files, relative to HOME, and what each agent's hook command ends with.
const FILES: [(&str, &str); 13] = [
    (".claude/settings.json", "recall --hook claude-code"),
    (".codex/hooks.json", "recall --hook codex"),
    (".gemini/settings.json", "recall --hook gemini"),
    (".copilot/hooks/esker-recall.json", "recall --hook copilot"),
    (".factory/settings.json", "recall --hook droid"),
    (".codebuddy/settings.json", "recall --hook codebuddy"),
    (".qwen/settings.json", "recall --hook qwen"),
    (".cursor/hooks.json", "recall --hook cursor"),
    (".kiro/hooks/esker-recall.json", "recall --hook kiro"),
    (
        "Documents/Cline/Hooks/UserPromptSubmit",
        "recall --hook cline",
    ),
    (".kimi-code/config.toml", "recall --hook kimi"),
    (".config/devin/config.json", "recall --hook devin"),
    (".junie/config.json", "recall --hook junie"),
];

const CLIENTS: [&str; 13] = [
    "claude",
    "codex",
    "gemini",
    "copilot",
    "droid",
    "codebuddy",
    "qwen",
    "cursor",
    "kiro",
    "cline",
    "kimi",
    "devin",
    "junie",
];

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn with_every_agent() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        home.write(".claude/settings.json", CLAUDE_SETTINGS);
        home.write(".codex/hooks.json", CODEX_HOOKS);
        home.write(".gemini/settings.json", GEMINI_SETTINGS);
        home.write(".copilot/mcp-config.json", COPILOT_MCP);
        home.write(".factory/settings.json", DROID_SETTINGS);
        home.write(".codebuddy/settings.json", CODEBUDDY_SETTINGS);
        home.write(".qwen/settings.json", QWEN_SETTINGS);
        home.write(".cursor/hooks.json", CURSOR_HOOKS);
        home.write(".kiro/hooks/lint.json", KIRO_LINT_HOOKS);
        home.write("Documents/Cline/Hooks/TaskComplete", CLINE_TASK_COMPLETE);
        home.write(".kimi-code/config.toml", KIMI_CONFIG);
        home.write(".config/devin/config.json", DEVIN_CONFIG);
        home.write(".junie/config.json", JUNIE_CONFIG);
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

    fn originals(&self) -> [Option<String>; 13] {
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
    CLIENTS
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
    let home = Home::with_every_agent();
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
    assert!(!home.path(".kiro/hooks/esker-recall.json").exists());
    assert!(!home.path("Documents/Cline/Hooks/UserPromptSubmit").exists());
}

#[test]
fn install_is_idempotent_keeps_foreign_hooks_and_remove_restores_the_bytes() {
    let home = Home::with_every_agent();
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
    assert_new_agents_installed(&home);
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
    assert!(!home.path(".kiro/hooks/esker-recall.json").exists());
    assert!(!home.path("Documents/Cline/Hooks/UserPromptSubmit").exists());
    assert_eq!(
        home.read(".kiro/hooks/lint.json").as_deref(),
        Some(KIRO_LINT_HOOKS)
    );
    assert_eq!(
        home.read("Documents/Cline/Hooks/TaskComplete").as_deref(),
        Some(CLINE_TASK_COMPLETE)
    );
    assert_eq!(
        actions(&home.setup_json(&["--remove"])),
        all("not registered")
    );
}

/// CodeBuddy Code, Qwen Code, Cursor, Kiro, Cline, Kimi Code, Devin CLI and Junie, each in its
/// own shape.
fn assert_new_agents_installed(home: &Home) {
    let codebuddy = without_comments(&home.read(".codebuddy/settings.json").unwrap());
    assert_eq!(codebuddy["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(
        codebuddy["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "~/bin/check-bash.sh"
    );
    for event in ["UserPromptSubmit", "SessionStart"] {
        assert_eq!(
            codebuddy["hooks"][event][0]["hooks"][0]["command"],
            "/opt/bin/esker recall --hook codebuddy",
            "{event}"
        );
    }
    let qwen_text = home.read(".qwen/settings.json").unwrap();
    assert!(qwen_text.contains("// Qwen Code settings"), "{qwen_text}");
    let qwen = without_comments(&qwen_text);
    assert_eq!(qwen["mcpServers"]["fetch"]["command"], "uvx");
    assert_eq!(qwen["hooks"]["PreToolUse"][0]["hooks"][0]["name"], "guard");
    let qwen_hook = &qwen["hooks"]["UserPromptSubmit"][0]["hooks"][0];
    assert_eq!(qwen_hook["command"], "/opt/bin/esker recall --hook qwen");
    assert_eq!(
        qwen_hook["timeout"], 5000,
        "Qwen's timeout is in milliseconds"
    );
    assert!(qwen["hooks"]["SessionStart"].is_array());
    let cursor = without_comments(&home.read(".cursor/hooks.json").unwrap());
    assert_eq!(cursor["version"], 1);
    assert_eq!(
        cursor["hooks"]["afterFileEdit"][0]["command"],
        "./hooks/format.sh"
    );
    assert_eq!(
        cursor["hooks"]["sessionStart"][0]["command"],
        "/opt/bin/esker recall --hook cursor"
    );
    assert!(cursor["hooks"].get("beforeSubmitPrompt").is_none());
    let kiro = without_comments(&home.read(".kiro/hooks/esker-recall.json").unwrap());
    assert_eq!(kiro["version"], "v1");
    let triggers: Vec<&str> = kiro["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hook| hook["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, ["UserPromptSubmit", "SessionStart"]);
    assert_eq!(
        kiro["hooks"][0]["action"]["command"],
        "/opt/bin/esker recall --hook kiro"
    );
    let script = home.path("Documents/Cline/Hooks/UserPromptSubmit");
    let text = fs::read_to_string(&script).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"), "{text}");
    assert!(
        text.ends_with("exec /opt/bin/esker recall --hook cline\n"),
        "{text}"
    );
    let mode = fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "Cline runs the hook file itself");
    let kimi = home.read(".kimi-code/config.toml").unwrap();
    assert!(kimi.starts_with(KIMI_CONFIG), "{kimi}");
    assert!(
        kimi.ends_with("[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"/opt/bin/esker recall --hook kimi\"\ntimeout = 5\n"),
        "{kimi}"
    );
    let devin_text = home.read(".config/devin/config.json").unwrap();
    assert!(devin_text.contains("// Devin CLI"), "{devin_text}");
    let devin = without_comments(&devin_text);
    assert_eq!(devin["permissions"]["allow"][0], "exec(git status)");
    for event in ["UserPromptSubmit", "SessionStart"] {
        let hook = &devin["hooks"][event][0]["hooks"][0];
        assert_eq!(
            hook["command"], "/opt/bin/esker recall --hook devin",
            "{event}"
        );
        assert_eq!(hook["timeout"], 5, "Devin's timeout is in seconds");
    }
    let junie = without_comments(&home.read(".junie/config.json").unwrap());
    assert_eq!(
        junie["hooks"]["SessionStart"][0]["hooks"][0]["command"], "git fetch --quiet",
        "the user's own hook stays"
    );
    let junie_hook = &junie["hooks"]["UserPromptSubmit"][0]["hooks"][0];
    assert_eq!(junie_hook["command"], "/opt/bin/esker recall --hook junie");
    assert_eq!(junie_hook["timeout"], 5, "Junie's timeout is in seconds");
    assert_eq!(
        junie["hooks"]["SessionStart"].as_array().unwrap().len(),
        1,
        "Junie ignores SessionStart output: no recall there"
    );
}

#[test]
fn remove_after_the_user_edited_the_file_takes_out_only_esker() {
    let home = Home::with_every_agent();
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
    let home = Home::with_every_agent();
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

/// Cline runs one `UserPromptSubmit` file per folder: one of the user's own there is left
/// alone, the run fails (exit 2) and says what to add, and `--remove` leaves it too.
#[test]
fn clines_own_prompt_hook_is_told_not_replaced() {
    let home = Home::with_every_agent();
    let own = "#!/bin/sh\necho '{\"cancel\": false, \"contextModification\": \"be brief\"}'\n";
    home.write("Documents/Cline/Hooks/UserPromptSubmit", own);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "setup",
            "--hooks",
            "--command",
            "/opt/bin/esker",
            "--client",
            "cline",
            "--json",
        ];
        args.extend_from_slice(extra);
        esker_at_home(home.dir.path(), &args)
    };
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    let reports: Value = serde_json::from_str(&stdout_of(&output)).expect("setup --json parses");
    let cline = &reports.as_array().unwrap()[9];
    assert_eq!(cline["client"], "cline");
    assert_eq!(cline["action"], "failed", "{reports:#}");
    let error = cline["error"].as_str().unwrap();
    assert!(
        error.contains("UserPromptSubmit") && error.contains("/opt/bin/esker recall --hook cline"),
        "{error}"
    );
    assert_eq!(
        home.read("Documents/Cline/Hooks/UserPromptSubmit")
            .as_deref(),
        Some(own)
    );
    let removed = run(&["--remove"]);
    assert!(removed.status.success(), "{}", stderr_of(&removed));
    let reports: Value = serde_json::from_str(&stdout_of(&removed)).unwrap();
    assert_eq!(reports[9]["action"], "not registered");
    assert_eq!(
        home.read("Documents/Cline/Hooks/UserPromptSubmit")
            .as_deref(),
        Some(own)
    );
    assert!(
        !home
            .path("Documents/Cline/Hooks/UserPromptSubmit.esker-backup")
            .exists()
    );
}

/// A hooks file esker wrote for an older binary is rewritten in place (with a backup), and a
/// second run leaves it.
#[test]
fn kiros_file_from_an_older_binary_is_updated() {
    let home = Home::with_every_agent();
    home.setup_json(&["--client", "kiro"]);
    let first = home.read(".kiro/hooks/esker-recall.json").unwrap();
    let older = first.replace("/opt/bin/esker", "/old/bin/esker");
    home.write(".kiro/hooks/esker-recall.json", &older);
    let reports = home.setup_json(&["--client", "kiro"]);
    assert_eq!(reports[8]["action"], "updated", "{reports:#}");
    assert_eq!(
        home.read(".kiro/hooks/esker-recall.json").as_deref(),
        Some(first.as_str())
    );
    assert_eq!(
        home.read(".kiro/hooks/esker-recall.json.esker-backup")
            .as_deref(),
        Some(older.as_str())
    );
    assert_eq!(
        home.setup_json(&["--client", "kiro"])[8]["action"],
        "unchanged"
    );
}

/// A config esker cannot edit safely (Kimi Code's `hooks` as an inline array) fails the run
/// with exit 2, says what to add by hand, and is left as it was.
#[test]
fn a_config_of_another_shape_is_left_alone_with_the_command_to_add() {
    let home = Home::with_every_agent();
    let inline = "hooks = [{ event = \"Stop\", command = \"notify-send done\" }]\n";
    home.write(".kimi-code/config.toml", inline);
    let output = esker_at_home(
        home.dir.path(),
        &[
            "setup",
            "--hooks",
            "--command",
            "/opt/bin/esker",
            "--client",
            "kimi",
            "--json",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    let reports: Value = serde_json::from_str(&stdout_of(&output)).expect("setup --json parses");
    let kimi = &reports.as_array().unwrap()[10];
    assert_eq!(kimi["action"], "failed", "{reports:#}");
    let error = kimi["error"].as_str().unwrap();
    assert!(
        error.contains("/opt/bin/esker recall --hook kimi") && error.contains("UserPromptSubmit"),
        "{error}"
    );
    assert_eq!(home.read(".kimi-code/config.toml").as_deref(), Some(inline));
}
