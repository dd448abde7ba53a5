//! The harness's own resume command for a session (issue #52): from what the `sessions` table
//! holds of it (`source`, `native_id`, `source_path`) to the argv that reopens it, and the
//! shell-quoted line (`cd DIR && COMMAND`) a person can paste. `None` for a harness with no
//! resume command esker has verified.
//!
//! Each command is spelled as the harness's own source or documentation spells it (cited per
//! harness in [`command_for`]). The commands look sessions up per project (Claude Code, Gemini
//! CLI, Qwen Code, Kimi, Crush, ...), so they are meant to run in the session's working
//! directory. Pure: no IO, so `esker resume`, `esker show` and `open(session)` print the same
//! line.

use std::path::Path;

use crate::model::Source;

/// What identifies a session to its harness: the `sessions` row's `source`, `native_id` and
/// `source_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeSession<'a> {
    /// The `source` column (`claude`, `codex`, ...).
    pub source: &'a str,
    /// The harness's own session id (`native_id`).
    pub native_id: &'a str,
    /// The log the session was read from: tells a `cursor-agent` chat from an IDE transcript,
    /// and a Goose legacy `.jsonl` session from one in its database.
    pub source_path: &'a str,
}

/// A harness's command that reopens one of its sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeCommand {
    argv: Vec<String>,
}

impl ResumeCommand {
    fn new(words: &[&str]) -> ResumeCommand {
        ResumeCommand {
            argv: words.iter().map(|word| (*word).to_owned()).collect(),
        }
    }

    /// The program and its arguments.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The program to run (`claude`, `codex`, ...).
    pub fn program(&self) -> &str {
        &self.argv[0]
    }

    pub fn args(&self) -> &[String] {
        &self.argv[1..]
    }

    /// The command as one shell line, each word quoted when it needs it.
    pub fn display(&self) -> String {
        self.argv
            .iter()
            .map(|word| shell_quote(word))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `cd DIR && COMMAND`, or the command alone when the working directory is unknown.
    pub fn line_in(&self, cwd: Option<&str>) -> String {
        match cwd.filter(|dir| !dir.is_empty()) {
            Some(dir) => format!("cd {} && {}", shell_quote(dir), self.display()),
            None => self.display(),
        }
    }
}

/// The resume command of `session`, or `None` when its harness has none (Aider, Cline, Roo
/// Code, Antigravity, Cursor's IDE transcripts) or its id could be read as an option.
pub fn resume_command(session: &NativeSession<'_>) -> Option<ResumeCommand> {
    let id = session.native_id;
    if id.is_empty() || id.starts_with('-') {
        return None;
    }
    command_for(Source::parse(session.source)?, id, session.source_path)
}

/// The line `open(session)` and `esker show` print: `cd DIR && COMMAND` for the session with
/// these `sessions` columns, `None` when its harness has no resume command.
pub fn resume_line(
    source: &str,
    native_id: &str,
    source_path: &str,
    cwd: Option<&str>,
) -> Option<String> {
    let session = NativeSession {
        source,
        native_id,
        source_path,
    };
    resume_command(&session).map(|command| command.line_in(cwd))
}

/// One harness's command, as its own source or documentation spells it.
fn command_for(source: Source, id: &str, source_path: &str) -> Option<ResumeCommand> {
    let command = match source {
        // code.claude.com/docs CLI reference: `claude -r "<session-id>"`, long form `--resume`.
        Source::Claude => ResumeCommand::new(&["claude", "--resume", id]),
        // openai/codex codex-rs/cli/src/main.rs, `ResumeCommand`: `codex resume [SESSION_ID]`.
        Source::Codex => ResumeCommand::new(&["codex", "resume", id]),
        // TRAE CLI 2.0 (a fork of codex-rs; closed source): `traex resume <id>`, per
        // vshulcz/deja-vu docs/registry/trae.md (from agentsview's TraeX provider,
        // server/resume.go) and a TRAE CLI conversation adapter that reopens a rollout with
        // `<traex> resume <id>` (see `ingest::trae`).
        Source::TraeCli => ResumeCommand::new(&["traex", "resume", id]),
        // google-gemini/gemini-cli packages/cli/src/config/config.ts (`--resume`, `-r`) and
        // utils/sessionUtils.ts `findSession`: a session's UUID, looked up in the chats of the
        // project of the working directory.
        Source::Gemini => ResumeCommand::new(&["gemini", "--resume", id]),
        // QwenLM/qwen-code packages/cli/src/config/config.ts: `--resume`, "Resume a specific
        // session by its ID".
        Source::Qwen => ResumeCommand::new(&["qwen", "--resume", id]),
        // github/copilot-cli changelog.md: `--resume` takes a session id (prefixes of 7+ hex
        // characters too) and legacy history sessions migrate when resumed; `--resume=<id>` is
        // the spelling its own resume hint prints (the value is optional, so it is attached).
        Source::Copilot => ResumeCommand::new(&["copilot", &format!("--resume={id}")]),
        // opencode.ai/docs/cli: `--session`, `-s`, "session ID to continue".
        Source::OpenCode => ResumeCommand::new(&["opencode", "--session", id]),
        // badlogic/pi-mono packages/coding-agent/src/main.ts `resolveSessionPath`: `--session`
        // takes a session file or an id (prefix), looked up in the working directory's project
        // first.
        Source::Pi => ResumeCommand::new(&["pi", "--session", id]),
        // MoonshotAI/kimi-cli src/kimi_cli/cli/__init__.py (`--session`/`--resume`/`-S`/`-r`,
        // looked up under the working directory; an unknown id starts a new session) and the
        // Kimi Code docs (moonshotai.github.io/kimi-code, `kimi --session <id>`), whose
        // `~/.kimi-code` sessions are `kimi` sessions here too.
        Source::Kimi => ResumeCommand::new(&["kimi", "--session", id]),
        // block/goose documentation/docs/guides/goose-cli-commands.md: `goose session --resume
        // --session-id <id>`, and `--path <file>` for the legacy `.jsonl` session files.
        Source::Goose if is_jsonl(source_path) => {
            ResumeCommand::new(&["goose", "session", "--resume", "--path", source_path])
        }
        Source::Goose => ResumeCommand::new(&["goose", "session", "--resume", "--session-id", id]),
        // charmbracelet/crush internal/cmd/root.go: `--session`, `-s`, "Continue a previous
        // session by ID" (its store is per project: `<project>/.crush/crush.db`).
        Source::Crush => ResumeCommand::new(&["crush", "--session", id]),
        // Not in Amp's own documentation that esker could read (Amp is closed source): the
        // spelling every integration uses (coder/registry#748, Untether's Amp runner, cmux),
        // `amp threads continue <thread-id>`.
        Source::Amp => ResumeCommand::new(&["amp", "threads", "continue", id]),
        // NousResearch/hermes-agent: `hermes --resume <session id>` (its docs' session
        // commands, and the "Resume this session with: hermes --resume <id>" line the CLI
        // prints when a session ends).
        Source::Hermes => ResumeCommand::new(&["hermes", "--resume", id]),
        // docs.factory.ai CLI reference (Factory-AI/factory docs/reference/cli-reference.mdx):
        // `droid --resume [sessionId]`, alias `-r`.
        Source::Factory => ResumeCommand::new(&["droid", "--resume", id]),
        // CodeBuddy Code (closed source): `codebuddy -r <id>`, per vshulcz/deja-vu
        // docs/registry/codebuddy.md (checked on a live 2.161.2); it finds the session only
        // under the folder of the directory it runs in, which is where esker runs it.
        Source::CodeBuddy => ResumeCommand::new(&["codebuddy", "-r", id]),
        // The Kiro IDE's pre-1.0 chats live in the editor: the CLI does not know them.
        Source::Kiro if is_kiro_ide_chat(source_path) => return None,
        // Kiro CLI (closed source): `kiro-cli chat --resume-id <id>`, which resumes a session of
        // either store by its id from any directory (kirodotdev/Kiro#9066, checked on 2.5.1).
        Source::Kiro => ResumeCommand::new(&["kiro-cli", "chat", "--resume-id", id]),
        // xai-org/grok-build docs/user-guide/17-sessions.md: `grok --resume <session-id>`
        // (`-r`), a UUID-shaped value always read as an id; it looks in the cwd's sessions.
        Source::Grok => ResumeCommand::new(&["grok", "--resume", id]),
        // aws/amazon-q-developer-cli crates/chat-cli/src/cli/chat/mod.rs: `q chat --resume`
        // reopens the conversation stored for the working directory, which is the one conversation
        // esker read from that directory's row (the store keeps one per directory).
        Source::AmazonQ => ResumeCommand::new(&["q", "chat", "--resume"]),
        // Junie (closed source): `cd <projectDir> && junie --session-id <id> --resume`, per
        // vshulcz/deja-vu docs/registry/junie.md (checked on Junie CLI 3110.7); the project is
        // the session's `projectDir` in `sessions/index.jsonl`, esker's cwd for it.
        Source::Junie => ResumeCommand::new(&["junie", "--session-id", id, "--resume"]),
        // Auggie (closed source): `auggie --resume <session id>`, the spelling Augment's CLI
        // docs and the integrations that drive it (hooks that resume a conversation by its id)
        // use.
        Source::Auggie => ResumeCommand::new(&["auggie", "--resume", id]),
        // Devin CLI (closed source): `devin --resume <session id>` (`-r`), per
        // jazzyalex/agent-sessions DevinResumeCommandBuilder.swift (checked against `devin
        // --help` at CLI 3000.3.27); sessions are listed per working directory, where esker
        // runs it.
        Source::Devin => ResumeCommand::new(&["devin", "--resume", id]),
        // docs.cursor.com/en/cli/using: `--resume [thread id]`; only the CLI's chat stores
        // (`chats/<hash>/<chat>/store.db`) hold chats it resumes, not the IDE's transcripts.
        Source::Cursor if is_cursor_agent_chat(source_path) => {
            ResumeCommand::new(&["cursor-agent", "--resume", id])
        }
        // No resume command: Aider restores a directory's whole chat history, not a session;
        // Cline, Roo Code and VS Code's own chat live in the editor (`code` has no option that
        // opens a chat session), and so do the Cursor IDE's composers (`cursor-agent --resume`
        // does not take a composer id), Zed's agent threads (the `zed` CLI opens paths, not
        // threads) and Windsurf's Cascade conversations (its hook transcripts name no command
        // that reopens one); OpenClaw reopens a conversation by its key (`agent:<id>:<name>`),
        // which esker does not keep; Antigravity's resume is not documented; the Cursor IDE's
        // agent transcripts are not cursor-agent chats; WorkBuddy is a desktop app with no
        // command that reopens a session (deja-vu's registry page: none yet); Claude Desktop's
        // Code records esker reads alone have no transcript to resume, and Cowork tasks
        // reopen only in the app; Warp's agent conversations live in the terminal app (the
        // `warp` TUI's `--resume` takes a server conversation token, and only for the TUI's own
        // store; `oz agent run --conversation` continues cloud conversations).
        Source::Cursor
        | Source::Aider
        | Source::Cline
        | Source::Roo
        | Source::VscodeCopilot
        | Source::CursorIde
        | Source::Zed
        | Source::OpenClaw
        | Source::Windsurf
        | Source::WorkBuddy
        | Source::ClaudeDesktop
        | Source::Cowork
        | Source::Warp
        | Source::Antigravity => {
            return None;
        }
    };
    Some(command)
}

fn is_jsonl(source_path: &str) -> bool {
    Path::new(source_path)
        .extension()
        .is_some_and(|extension| extension == "jsonl")
}

/// A session read from the Kiro IDE's extension storage (`.../kiro.kiroagent/<workspace>`).
fn is_kiro_ide_chat(source_path: &str) -> bool {
    Path::new(source_path)
        .components()
        .any(|part| part.as_os_str() == "kiro.kiroagent")
}

fn is_cursor_agent_chat(source_path: &str) -> bool {
    Path::new(source_path)
        .file_name()
        .is_some_and(|name| name == "store.db")
}

/// `word` as one shell word: unchanged when it holds only characters no POSIX shell treats
/// specially (Python's `shlex.quote` set, without a leading `=` that zsh expands), else in
/// single quotes with each `'` written `'\''`.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with('=')
        && word
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&byte));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58";

    fn command(source: &str, id: &str, source_path: &str) -> Option<ResumeCommand> {
        resume_command(&NativeSession {
            source,
            native_id: id,
            source_path,
        })
    }

    fn argv(source: &str, id: &str, source_path: &str) -> Vec<String> {
        command(source, id, source_path)
            .unwrap_or_else(|| panic!("{source} has a resume command"))
            .argv()
            .to_vec()
    }

    #[test]
    fn every_harness_with_a_resume_command_spells_it_its_own_way() {
        let copilot_flag = format!("--resume={ID}");
        let cases: &[(&str, &str, &[&str])] = &[
            ("claude", "/p/x.jsonl", &["claude", "--resume", ID]),
            ("codex", "/p/rollout.jsonl", &["codex", "resume", ID]),
            (
                "trae-cli",
                "/h/.trae/cli/sessions/rollout.jsonl",
                &["traex", "resume", ID],
            ),
            ("gemini", "/p/session.json", &["gemini", "--resume", ID]),
            ("qwen", "/p/x.jsonl", &["qwen", "--resume", ID]),
            (
                "copilot",
                "/p/events.jsonl",
                &["copilot", copilot_flag.as_str()],
            ),
            ("opencode", "/p/opencode.db", &["opencode", "--session", ID]),
            ("pi", "/p/x.jsonl", &["pi", "--session", ID]),
            ("kimi", "/p/wire.jsonl", &["kimi", "--session", ID]),
            (
                "goose",
                "/p/sessions.db",
                &["goose", "session", "--resume", "--session-id", ID],
            ),
            ("crush", "/p/.crush/crush.db", &["crush", "--session", ID]),
            ("amp", "/p/T-1.json", &["amp", "threads", "continue", ID]),
            ("factory", "/p/x.jsonl", &["droid", "--resume", ID]),
            (
                "codebuddy",
                "/h/.codebuddy/projects/w/x.jsonl",
                &["codebuddy", "-r", ID],
            ),
            (
                "kiro",
                "/h/.kiro/sessions/cli/x.jsonl",
                &["kiro-cli", "chat", "--resume-id", ID],
            ),
            (
                "grok",
                "/h/.grok/sessions/w/s/updates.jsonl",
                &["grok", "--resume", ID],
            ),
            (
                "devin",
                "/h/.local/share/devin/cli/transcripts/bald-ketch.json",
                &["devin", "--resume", ID],
            ),
            (
                "amazon-q",
                "/h/.local/share/amazon-q/data.sqlite3",
                &["q", "chat", "--resume"],
            ),
            ("hermes", "/h/.hermes/state.db", &["hermes", "--resume", ID]),
            (
                "junie",
                "/h/.junie/sessions/s/events.jsonl",
                &["junie", "--session-id", ID, "--resume"],
            ),
            (
                "auggie",
                "/h/.augment/sessions/x.json",
                &["auggie", "--resume", ID],
            ),
            (
                "cursor",
                "/h/.cursor/chats/abc/x/store.db",
                &["cursor-agent", "--resume", ID],
            ),
        ];
        for (source, source_path, expected) in cases {
            assert_eq!(argv(source, ID, source_path), *expected, "{source}");
        }
    }

    #[test]
    fn goose_legacy_files_resume_by_path() {
        assert_eq!(
            argv(
                "goose",
                "20250301_121500",
                "/h/goose/sessions/20250301_121500.jsonl"
            ),
            [
                "goose",
                "session",
                "--resume",
                "--path",
                "/h/goose/sessions/20250301_121500.jsonl"
            ]
        );
    }

    #[test]
    fn harnesses_without_a_resume_command_have_none() {
        for (source, source_path) in [
            ("aider", "/p/.aider.chat.history.md"),
            ("cline", "/p/tasks/1/api_conversation_history.json"),
            ("roo", "/p/tasks/1/api_conversation_history.json"),
            (
                "vscode-copilot",
                "/p/workspaceStorage/h/chatSessions/x.jsonl",
            ),
            ("cursor-ide", "/p/Cursor/User/globalStorage/state.vscdb"),
            ("zed", "/h/.local/share/zed/threads/threads.db"),
            ("openclaw", "/h/.openclaw/agents/main/sessions/s.jsonl"),
            ("windsurf", "/h/.windsurf/transcripts/t.jsonl"),
            ("workbuddy", "/h/.workbuddy/projects/w/x.jsonl"),
            (
                "claude-desktop",
                "/h/.config/Claude/claude-code-sessions/a/o/local_1.json",
            ),
            (
                "cowork",
                "/h/.config/Claude/local-agent-mode-sessions/a/o/local_1.json",
            ),
            ("antigravity", "/p/conversations/x.db"),
            (
                "cursor",
                "/h/.cursor/projects/w/agent-transcripts/x/x.jsonl",
            ),
            (
                "kiro",
                "/h/.config/Kiro/User/globalStorage/kiro.kiroagent/0a7d856b6cb6f14fc43bd1d559cee43e",
            ),
            ("no-such-harness", "/p/x.jsonl"),
        ] {
            assert_eq!(command(source, ID, source_path), None, "{source}");
        }
    }

    #[test]
    fn an_id_that_reads_as_an_option_or_is_empty_is_not_passed() {
        assert_eq!(
            command("claude", "--dangerously-skip-permissions", "/p"),
            None
        );
        assert_eq!(command("codex", "", "/p"), None);
    }

    #[test]
    fn plain_words_stay_bare_and_others_are_single_quoted() {
        assert_eq!(
            shell_quote("ses_kiwi-01/a.b:c@d%e+f,g=h"),
            "ses_kiwi-01/a.b:c@d%e+f,g=h"
        );
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$(rm -rf ~)"), "'$(rm -rf ~)'");
        assert_eq!(shell_quote("a;b|c&d`e`"), "'a;b|c&d`e`'");
        assert_eq!(shell_quote("=cmd"), "'=cmd'");
        assert_eq!(shell_quote("*?[]{}!#~"), "'*?[]{}!#~'");
        assert_eq!(shell_quote("line\nbreak"), "'line\nbreak'");
        assert_eq!(shell_quote("café"), "'café'");
    }

    #[test]
    fn odd_ids_are_quoted_as_one_word_in_the_line() {
        let odd = "it's $HOME; rm -rf *";
        let quoted = r"'it'\''s $HOME; rm -rf *'";
        assert_eq!(
            command("claude", odd, "/p").unwrap().display(),
            format!("claude --resume {quoted}")
        );
        assert_eq!(
            command("copilot", odd, "/p").unwrap().display(),
            r"copilot '--resume=it'\''s $HOME; rm -rf *'"
        );
        assert_eq!(
            command("amp", odd, "/p").unwrap().argv(),
            ["amp", "threads", "continue", odd]
        );
    }

    #[test]
    fn the_line_changes_to_the_working_directory_first() {
        let claude = command("claude", ID, "/p").unwrap();
        assert_eq!(
            claude.line_in(Some("/home/dev/webapp")),
            format!("cd /home/dev/webapp && claude --resume {ID}")
        );
        assert_eq!(
            claude.line_in(Some("c:/Users/dev/Otter App")),
            format!("cd 'c:/Users/dev/Otter App' && claude --resume {ID}")
        );
        assert_eq!(claude.line_in(None), format!("claude --resume {ID}"));
        assert_eq!(claude.line_in(Some("")), format!("claude --resume {ID}"));
        assert_eq!(claude.program(), "claude");
        assert_eq!(claude.args(), ["--resume", ID]);
    }

    #[test]
    fn resume_line_is_the_whole_line_or_none() {
        assert_eq!(
            resume_line("kimi", "sess-ibis-0001", "/p/state.json", Some("/srv/ibis")),
            Some("cd /srv/ibis && kimi --session sess-ibis-0001".to_owned())
        );
        assert_eq!(resume_line("aider", "x", "/p/h.md", Some("/srv")), None);
    }
}
