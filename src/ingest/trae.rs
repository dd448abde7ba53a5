//! TRAE CLI 2.0 (`traex`, ByteDance; reports itself as `traecli 0.200.x` and later): where its
//! sessions live and how a rollout is known to be TRAE's. The content is read by the Codex
//! parser (`ingest::codex`), labelled `Source::TraeCli`.
//!
//! TRAE CLI 2.0 is a closed-source fork of codex-rs and writes Codex's rollout JSONL field for
//! field (`session_meta`, `turn_context`, `response_item`, `event_msg`, `compacted`) one level
//! further down than Codex: `<TRAE CLI home>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`,
//! `<TRAE CLI home>/archived_sessions/` for `traex archive <id>`, and the prompt history
//! `<TRAE CLI home>/history.jsonl` beside them (not a session log: never read). The TRAE CLI
//! home is `$TRAECLI_HOME`, else `$TRAE_HOME/cli`, else `~/.trae/cli` (`%USERPROFILE%\.trae\cli`
//! on Windows). Its `session_meta` gives no way to tell it from Codex (`originator` is
//! `codex-tui`, as Codex's TUI writes), so a rollout is TRAE's by its place: under a
//! `sessions` or `archived_sessions` folder of a TRAE CLI home (the default `.trae/cli` layout,
//! or the home `$TRAECLI_HOME` / `$TRAE_HOME` name). Resume: `traex resume <id>`.
//!
//! Sources (public readers of the format; no TRAE build or real TRAE rollout was available):
//! - `vshulcz/deja-vu` `docs/registry/trae.md` (verified 2026-10-08 on TRAE CLI 0.208.1-alpha.5):
//!   the store, both variables, `originator: "codex-tui"`, `Resume: traex resume <id>`; it names
//!   agentsview's TraeX provider (`internal/parser/traex.go`, `types.go`, `server/resume.go`) as
//!   the source of the layout and the resume command.
//! - agentsview's `internal/parser/traex.go` (forks `whr819987540/agentsview`,
//!   `liaocaoxuezhe/agentsview`): the Codex provider parses TraeX rollouts and relabels them
//!   (`traex:` ids) "so they resume with `traex resume`".
//! - A TRAE CLI conversation adapter in the code index (`createTraeCliConversationCapability`):
//!   discovers `rollout-*.jsonl` under `<home>/sessions` and `<home>/archived_sessions` of
//!   `$TRAECLI_HOME`, `$TRAE_HOME/cli` or `~/.trae/cli`, and reopens one with
//!   `<traex> resume <id>`.
//!
//! TRAE's own records are read too (`ingest::codex` `mutation` and `items`; shapes and rules in
//! `docs/HARNESS-RESEARCH.md` section 2): its prompts are `user_message` events, `item_completed`
//! `UserMessage` items (0.201.4 and later) and `history_mutation` `display_completions`; once a
//! rollout has any, its user-role response items are its runtime notices (context). A
//! `history_mutation` `append` adds the prompts, replies, reasoning, tool calls and results no
//! Codex record carries (a call once by `call_id`, a message once per time it is said); a reply is
//! read from the first source that has it (response items, appends, `item_completed`
//! `AgentMessage`, `agent_message`: deja-vu's order); an `item_completed` `FileChange` is a call
//! when no other record has its id. A `replace` or `rollback` leaves one `system` marker and its
//! items are not read again; any other operation, or an item type not known, is an unknown record
//! (counted).
//! Not read: TRAE CLI 1.x (`traecli`, `~/.cache/coco/sessions/*/events.jsonl`), another format.

use std::path::{Path, PathBuf};

/// The environment variables that move TRAE CLI's home.
pub const HOME_VARS: [&str; 2] = ["TRAE_HOME", "TRAECLI_HOME"];

/// The folders of a TRAE CLI home that hold rollouts.
const SESSION_FOLDERS: [&str; 2] = ["sessions", "archived_sessions"];

/// TRAE CLI's home: `$TRAECLI_HOME`, else `$TRAE_HOME/cli`, else `~/.trae/cli`.
pub fn cli_home(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> PathBuf {
    env("TRAECLI_HOME").unwrap_or_else(|| {
        env("TRAE_HOME")
            .unwrap_or_else(|| home.join(".trae"))
            .join("cli")
    })
}

/// The folders TRAE CLI writes rollouts to (existing or not).
pub fn session_folders(home: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let cli = cli_home(home, env);
    SESSION_FOLDERS
        .iter()
        .map(|folder| cli.join(folder))
        .collect()
}

/// Whether a Codex-format rollout at `path` is TRAE CLI's: under the `sessions` or
/// `archived_sessions` folder of a `.trae/cli` home, or of the home this process's
/// `$TRAECLI_HOME` / `$TRAE_HOME` names.
pub fn is_rollout_path(path: &Path) -> bool {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    is_rollout_path_with(path, &env)
}

fn is_rollout_path_with(path: &Path, env: &impl Fn(&str) -> Option<PathBuf>) -> bool {
    let moved_homes: Vec<PathBuf> = [
        env("TRAECLI_HOME"),
        env("TRAE_HOME").map(|trae| trae.join("cli")),
    ]
    .into_iter()
    .flatten()
    .collect();
    path.ancestors().skip(1).any(|folder| {
        let is_session_folder = folder
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| SESSION_FOLDERS.contains(&name));
        let Some(cli) = folder.parent().filter(|_| is_session_folder) else {
            return false;
        };
        let default_layout = cli.file_name() == Some("cli".as_ref())
            && cli.parent().and_then(Path::file_name) == Some(".trae".as_ref());
        default_layout || moved_homes.iter().any(|moved| moved == cli)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<PathBuf> {
        None
    }

    #[test]
    fn the_home_follows_traecli_home_then_trae_home() {
        let home = Path::new("/home/u");
        assert_eq!(cli_home(home, &no_env), PathBuf::from("/home/u/.trae/cli"));
        let trae = |name: &str| (name == "TRAE_HOME").then(|| PathBuf::from("/srv/trae"));
        assert_eq!(
            session_folders(home, &trae),
            [
                PathBuf::from("/srv/trae/cli/sessions"),
                PathBuf::from("/srv/trae/cli/archived_sessions")
            ]
        );
        let both = |name: &str| match name {
            "TRAE_HOME" => Some(PathBuf::from("/srv/trae")),
            "TRAECLI_HOME" => Some(PathBuf::from("/opt/traecli")),
            _ => None,
        };
        assert_eq!(cli_home(home, &both), PathBuf::from("/opt/traecli"));
    }

    #[test]
    fn a_rollout_is_traes_by_its_place() {
        let rollout = "2026/11/20/rollout-2026-11-20T09-00-00-x.jsonl";
        for trae in [
            format!("/home/u/.trae/cli/sessions/{rollout}"),
            "/home/u/.trae/cli/archived_sessions/rollout-x.jsonl".to_owned(),
            format!("C:/Users/u/.trae/cli/sessions/{rollout}"),
        ] {
            assert!(is_rollout_path_with(Path::new(&trae), &no_env), "{trae}");
        }
        for codex in [
            format!("/home/u/.codex/sessions/{rollout}"),
            "/home/u/.codex/archived_sessions/rollout-x.jsonl".to_owned(),
            // A `cli` folder elsewhere, or a TRAE home's other files, are not TRAE's rollouts.
            format!("/home/u/work/cli/sessions/{rollout}"),
            "/home/u/.trae/cli/history.jsonl".to_owned(),
            "/home/u/.trae/sessions/rollout-x.jsonl".to_owned(),
        ] {
            assert!(!is_rollout_path_with(Path::new(&codex), &no_env), "{codex}");
        }
        let moved = |name: &str| (name == "TRAECLI_HOME").then(|| PathBuf::from("/opt/tc"));
        assert!(is_rollout_path_with(
            Path::new(&format!("/opt/tc/sessions/{rollout}")),
            &moved
        ));
        let trae_home = |name: &str| (name == "TRAE_HOME").then(|| PathBuf::from("/srv/t"));
        assert!(is_rollout_path_with(
            Path::new("/srv/t/cli/archived_sessions/rollout-x.jsonl"),
            &trae_home
        ));
        assert!(!is_rollout_path_with(
            Path::new(&format!("/srv/t/sessions/{rollout}")),
            &trae_home
        ));
    }
}
