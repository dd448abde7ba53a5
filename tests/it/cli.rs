//! The commands for people (`esker setup/search/show/resume/handoff/recall/sessions/usage/doctor`) run
//! as the real binary: the sample corpus kept out of the real store, config files edited in
//! place and restored, search/show/resume/handoff/sessions answers checked against the tables,
//! colour only on a terminal.

mod commands;
mod doctor;
mod doctor_homes;
mod handoff;
mod recall;
mod resume;
mod sample;
mod setup;
mod setup_hooks;
mod terminal;

use std::path::Path;
use std::process::{Command, Output};

use crate::support::esker_bin;

/// `esker` with `args`, `HOME` set to `home` and nothing else of this machine's setup leaking
/// in (no data dir, no agent homes, no `claude` on PATH, no forced colour).
pub fn esker_at_home(home: &Path, args: &[&str]) -> Output {
    esker_command(home, args)
        .output()
        .expect("esker binary runs")
}

pub fn esker_command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(esker_bin());
    command
        .args(args)
        .env("HOME", home)
        .env("PATH", "")
        .env_remove("ESKER_DATA_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("NO_COLOR");
    crate::support::clear_harness_env(&mut command);
    command
}

pub fn stdout_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// No ANSI escape anywhere in the output.
pub fn assert_plain(output: &Output) {
    let stdout = stdout_of(output);
    assert!(
        !stdout.contains('\u{1b}'),
        "colour in piped output: {stdout:?}"
    );
}
