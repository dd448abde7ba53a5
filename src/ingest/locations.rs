//! Default log locations of the single-file harnesses added after the first three (Copilot
//! CLI, Cursor agent transcripts, Qwen Code, Pi, Factory Droid, Amp), with the environment
//! variables that move them. `run::default_locations` appends the ones that exist.

use std::path::{Path, PathBuf};

/// The environment variables these locations honour (tests clear them for isolation).
pub const ENV_VARS: [&str; 10] = [
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
];

/// Candidate directories (existing or not) under `home`, with `env` looking variables up.
pub fn candidates(home: &Path, env: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let copilot = env("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot"));
    let cursor = env("CURSOR_CONFIG_DIR").unwrap_or_else(|| home.join(".cursor"));
    let qwen = env("QWEN_RUNTIME_DIR").unwrap_or_else(|| home.join(".qwen"));
    let pi = env("PI_CODING_AGENT_DIR").unwrap_or_else(|| home.join(".pi").join("agent"));
    let data_home = env("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local").join("share"));
    vec![
        copilot.join("session-state"),
        cursor.join("projects"),
        qwen.join("projects"),
        qwen.join("tmp"),
        pi.join("sessions"),
        home.join(".factory").join("sessions"),
        data_home.join("amp").join("threads"),
    ]
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
    }
}
