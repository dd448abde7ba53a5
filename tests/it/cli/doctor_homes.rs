//! `esker doctor` on a home holding, at its default place, the fixtures of every harness esker
//! reads (`Source::ALL`; one without a default location is listed with why): each harness's
//! places listed with as many sessions as the store holds from it, a place that does not exist
//! listed as not found, and a folder that cannot be read said to be unwalkable while the rest of
//! the home is indexed.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use esker::model::Source;
use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::harnesses::{doctor, location};
use crate::support::{
    copy_tree, fixtures_dir, query_count, query_rows, standalone_fixture, stderr_of,
};

/// Sources this test places no fixture for, with why. Anything else in `Source::ALL` must be
/// placed by [`place_every_harness`].
const NOT_PLACED: [(Source, &str); 1] = [(
    Source::Aider,
    "no default location: Aider writes `.aider.chat.history.md` into each project folder, \
     which only `esker index PATH` reads",
)];

/// The codex folder made unreadable (its rollouts are not indexed, the 2025 one is).
const LOCKED: &str = ".codex/sessions/2026";
/// Codex rollouts outside [`LOCKED`].
const READABLE_CODEX_ROLLOUTS: i64 = 1;
/// A place esker looks at that this home does not have.
const MISSING: &str = ".codex/archived_sessions";

/// Every fixture this test lays into the home: the harness, the fixture (a folder or a file) and
/// where its harness keeps it under the home.
fn placements() -> Vec<(Source, PathBuf, &'static str)> {
    let shared = |relative: &str| fixtures_dir().join(relative);
    let standalone = |relative: &str| {
        let (name, rest) = relative.split_once('/').expect("<fixture>/<path>");
        standalone_fixture(name).join(rest)
    };
    vec![
        (Source::Codex, shared("codex/sessions"), ".codex/sessions"),
        (
            Source::Claude,
            shared("claude/projects"),
            ".claude/projects",
        ),
        (Source::Gemini, shared("gemini/tmp"), ".gemini/tmp"),
        (
            Source::Copilot,
            shared("copilot/session-state"),
            ".copilot/session-state",
        ),
        (
            Source::Copilot,
            shared("copilot-subagent/session-state"),
            ".copilot/session-state",
        ),
        (
            Source::Copilot,
            shared("copilot-history/history-session-state"),
            ".copilot/history-session-state",
        ),
        (
            Source::Cursor,
            shared("cursor/projects"),
            ".cursor/projects",
        ),
        (
            Source::Cursor,
            shared("cursor-agent/chats"),
            ".cursor/chats",
        ),
        (Source::Qwen, shared("qwen/projects"), ".qwen/projects"),
        (Source::Qwen, shared("qwen/tmp"), ".qwen/tmp"),
        (Source::Pi, shared("pi/sessions"), ".pi/agent/sessions"),
        (
            Source::Factory,
            shared("factory/sessions"),
            ".factory/sessions",
        ),
        (
            Source::Amp,
            shared("amp/threads"),
            ".local/share/amp/threads",
        ),
        (
            Source::Antigravity,
            shared("antigravity/antigravity-cli"),
            ".gemini/antigravity-cli",
        ),
        (
            Source::Antigravity,
            shared("antigravity/antigravity"),
            ".gemini/antigravity",
        ),
        (
            Source::Antigravity,
            shared("antigravity/antigravity-ide"),
            ".gemini/antigravity-ide",
        ),
        (
            Source::OpenCode,
            shared("opencode/opencode.db"),
            ".local/share/opencode/opencode.db",
        ),
        (
            Source::OpenCode,
            shared("opencode/storage"),
            ".local/share/opencode/storage",
        ),
        (Source::Kimi, shared("kimi/sessions"), ".kimi/sessions"),
        (
            Source::Kimi,
            shared("kimi-code/sessions"),
            ".kimi-code/sessions",
        ),
        (
            Source::Goose,
            shared("goose/sessions"),
            ".local/share/goose/sessions",
        ),
        (
            Source::Goose,
            shared("goose/legacy-sessions"),
            ".goose/sessions",
        ),
        (Source::Crush, shared("crush/otter/.crush"), ".crush"),
        (
            Source::Cline,
            shared("cline/saoudrizwan.claude-dev"),
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev",
        ),
        (
            Source::Cline,
            shared("cline-api/saoudrizwan.claude-dev/tasks"),
            ".cline/data/tasks",
        ),
        (
            Source::Roo,
            shared("roo/rooveterinaryinc.roo-cline"),
            ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline",
        ),
        (
            Source::VscodeCopilot,
            standalone("vscode-copilot/Code"),
            ".config/Code",
        ),
        (
            Source::VscodeCopilot,
            standalone("vscode-copilot/Code - Insiders"),
            "Library/Application Support/Code - Insiders",
        ),
        (
            Source::CursorIde,
            standalone("cursor-ide/Cursor"),
            ".config/Cursor",
        ),
        (
            Source::Zed,
            standalone("zed/linux/threads.db"),
            ".local/share/zed/threads/threads.db",
        ),
        (
            Source::Zed,
            standalone("zed/macos/threads.db"),
            "Library/Application Support/Zed/threads/threads.db",
        ),
        (
            Source::OpenClaw,
            standalone("openclaw/openclaw"),
            ".openclaw",
        ),
        (Source::OpenClaw, standalone("openclaw/qclaw"), ".qclaw"),
        (
            Source::Windsurf,
            standalone("windsurf/windsurf"),
            ".windsurf",
        ),
        (Source::Windsurf, standalone("windsurf/codeium"), ".codeium"),
        (Source::Hermes, standalone("hermes/hermes"), ".hermes"),
        (Source::TraeCli, standalone("trae/trae"), ".trae"),
        (
            Source::CodeBuddy,
            standalone("codebuddy/codebuddy"),
            ".codebuddy",
        ),
        (
            Source::WorkBuddy,
            standalone("codebuddy/workbuddy-ai"),
            ".workbuddy-ai",
        ),
        (
            Source::Kiro,
            standalone("kiro/stores/kiro-cli/data.sqlite3"),
            ".local/share/kiro-cli/data.sqlite3",
        ),
        (
            Source::AmazonQ,
            standalone("kiro/stores/amazon-q/data.sqlite3"),
            ".local/share/amazon-q/data.sqlite3",
        ),
        // The Kiro IDE's pre-1.0 chats, at its Linux place.
        (
            Source::Kiro,
            standalone("kiro-ide/kiro.kiroagent"),
            ".config/Kiro/User/globalStorage/kiro.kiroagent",
        ),
        (Source::Junie, standalone("junie/home/.junie"), ".junie"),
        (
            Source::Auggie,
            standalone("auggie/home/.augment"),
            ".augment",
        ),
        (Source::Grok, standalone("grok/sessions"), ".grok/sessions"),
        (
            Source::Devin,
            standalone("devin/cli"),
            ".local/share/devin/cli",
        ),
        (
            Source::Warp,
            standalone("warp/warp.sqlite"),
            ".local/state/warp-terminal/warp.sqlite",
        ),
        (
            Source::ClaudeDesktop,
            standalone("claude-desktop/Claude/claude-code-sessions"),
            ".config/Claude/claude-code-sessions",
        ),
        // The Claude Code transcript one of the Code tab's records links to.
        (
            Source::ClaudeDesktop,
            standalone("claude-desktop/claude-home/projects"),
            ".claude/projects",
        ),
        (
            Source::Cowork,
            standalone("claude-desktop/Claude/local-agent-mode-sessions"),
            ".config/Claude/local-agent-mode-sessions",
        ),
    ]
}

/// Copies a fixture folder or file to `to`.
fn place(from: &Path, to: &Path) {
    if from.is_file() {
        fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        fs::copy(from, to).expect("copy fixture");
    } else {
        assert!(from.is_dir(), "fixture {} is missing", from.display());
        copy_tree(from, to);
    }
}

/// Kiro CLI's recorded sessions as `~/.kiro/sessions/cli/<id>.jsonl` (with `<id>.json` where
/// the recording has its metadata), as `harnesses::kiro` lays them out, and its v3 session
/// folders as `~/.kiro/sessions/<workspace>/sess_<id>/`, as `harnesses::kiro_v3` does.
fn place_kiro_sessions(home: &Path) {
    copy_tree(
        &standalone_fixture("kiro").join("v3").join("sessions"),
        &home.join(".kiro/sessions"),
    );
    let sessions = home.join(".kiro/sessions/cli");
    fs::create_dir_all(&sessions).expect("mkdir");
    let mut transcripts: Vec<PathBuf> =
        walkdir::WalkDir::new(standalone_fixture("kiro").join("irrlicht"))
            .into_iter()
            .map(|entry| entry.expect("walk").into_path())
            .filter(|path| path.ends_with("transcript.jsonl"))
            .collect();
    transcripts.sort();
    assert!(!transcripts.is_empty(), "Kiro recordings");
    for (index, transcript) in transcripts.iter().enumerate() {
        let metadata = transcript.with_extension("json");
        let id = fs::read_to_string(&metadata)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|json| json["session_id"].as_str().map(str::to_string))
            .unwrap_or_else(|| format!("recording-{index}"));
        fs::copy(transcript, sessions.join(format!("{id}.jsonl"))).expect("copy transcript");
        if metadata.is_file() {
            fs::copy(&metadata, sessions.join(format!("{id}.json"))).expect("copy metadata");
        }
    }
}

/// Lays every harness's fixtures into `home`; returns the sources placed.
fn place_every_harness(home: &Path) -> Vec<Source> {
    let mut placed = vec![Source::Kiro];
    place_kiro_sessions(home);
    for (source, from, to) in placements() {
        place(&from, &home.join(to));
        if !placed.contains(&source) {
            placed.push(source);
        }
    }
    placed
}

/// Gives a folder made unreadable its permissions back (even when the test fails), so the
/// temp dir can be deleted.
struct Unlock(PathBuf);

impl Drop for Unlock {
    fn drop(&mut self) {
        let _ = fs::set_permissions(&self.0, fs::Permissions::from_mode(0o755));
    }
}

fn skip_reasons(location: &Value) -> Vec<&str> {
    location["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|skip| skip["reason"].as_str().expect("reason"))
        .collect()
}

#[test]
fn doctor_on_a_home_holding_every_harness_lists_each_with_its_sessions_and_says_what_is_missing_or_unreadable()
 {
    let base = tempfile::tempdir().expect("temp dir");
    let base_path = base.path().canonicalize().expect("canonical temp dir");
    let home = base_path.join("home");
    let data = base_path.join("data");
    let data_arg = data.to_str().expect("utf-8");
    let placed = place_every_harness(&home);
    for source in Source::ALL {
        let not_placed = NOT_PLACED.iter().any(|(skipped, _)| *skipped == source);
        assert!(
            placed.contains(&source) != not_placed,
            "{} ({}): place its fixtures at its default location in `placements` (or list it in \
             NOT_PLACED with why), and not both",
            source.as_str(),
            source.harness()
        );
    }

    // An unreadable folder inside Codex's sessions. Root reads it anyway: then only that part
    // is not checked.
    let locked = home.join(LOCKED);
    let _unlock = Unlock(locked.clone());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod 000");
    let unreadable = fs::read_dir(&locked).is_err();
    if !unreadable {
        println!(
            "SKIPPED: {} is still readable after chmod 000 (running as root), so the \
             unwalkable folder is not checked",
            locked.display()
        );
    }

    let indexed = esker_at_home(&home, &["index", "-q", "--data-dir", data_arg]);
    assert!(
        indexed.status.success(),
        "index succeeds beside an unreadable folder: {}",
        stderr_of(&indexed)
    );

    let diagnosis = doctor(&home, &data);
    let locations = diagnosis["locations"].as_array().expect("locations");
    for (source, why) in NOT_PLACED {
        let listed: Vec<&Value> = locations
            .iter()
            .filter(|place| place["harness"] == source.harness())
            .collect();
        assert!(
            listed.is_empty(),
            "{} was not placed because it had {why}, but doctor now lists {listed:#?}: place its \
             fixture",
            source.as_str()
        );
    }
    // Every mismatch is collected and asserted at the end, after the other checks.
    let mut miscounted = Vec::new();
    for source in &placed {
        let places: Vec<&Value> = locations
            .iter()
            .filter(|place| place["harness"] == source.harness() && place["exists"] == true)
            .collect();
        assert!(
            !places.is_empty(),
            "{}: no place of {} exists in {diagnosis:#}",
            source.as_str(),
            source.harness()
        );
        let listed: u64 = places
            .iter()
            .map(|place| place["sessions"].as_u64().expect("sessions"))
            .sum();
        let stored = query_count(
            &data,
            &format!(
                "SELECT count(*) FROM sessions WHERE source = '{}'",
                source.as_str()
            ),
        );
        assert!(stored > 0, "{}: its fixtures were indexed", source.as_str());
        if listed != stored as u64 {
            miscounted.push(format!(
                "{}: doctor lists {listed} sessions, the store holds {stored}: {places:#?}",
                source.as_str()
            ));
        }
    }
    let sources: Vec<String> = query_rows(&data, "SELECT DISTINCT source FROM sessions")
        .iter()
        .map(|row| row["source"].as_str().expect("source").to_string())
        .collect();
    for source in &sources {
        assert!(
            placed.iter().any(|known| known.as_str() == source),
            "a session of {source}, which was not placed"
        );
    }
    assert_eq!(
        diagnosis["elsewhere"]["sources"], 0,
        "everything indexed is under a place doctor lists: {:#}",
        diagnosis["elsewhere"]
    );

    // A place that does not exist.
    let missing = location(&diagnosis, &home.join(MISSING));
    assert_eq!(
        (
            &missing["harness"],
            &missing["exists"],
            &missing["sources"],
            &missing["sessions"]
        ),
        (
            &Value::from("codex"),
            &Value::from(false),
            &Value::from(0),
            &Value::from(0)
        ),
        "{missing:#}"
    );

    // The unreadable folder.
    let codex_sessions = home.join(".codex/sessions");
    let codex = location(&diagnosis, &codex_sessions);
    if unreadable {
        let unwalkable = codex["skipped"]
            .as_array()
            .expect("skipped")
            .iter()
            .find(|skip| skip["reason"] == "unwalkable")
            .unwrap_or_else(|| panic!("the locked folder is unwalkable: {codex:#}"));
        assert!(unwalkable["count"].as_u64() >= Some(1), "{unwalkable:#}");
        assert_eq!(
            unwalkable["paths"][0],
            codex_sessions.to_str().expect("utf-8")
        );
        assert_eq!(
            query_count(
                &data,
                "SELECT count(*) FROM sessions WHERE source = 'codex'"
            ),
            READABLE_CODEX_ROLLOUTS,
            "the rollouts outside the locked folder are indexed, none inside"
        );
        for place in locations {
            if place["path"] != codex["path"] {
                assert!(
                    !skip_reasons(place).contains(&"unwalkable"),
                    "only the codex folder holds the locked one: {place:#}"
                );
            }
        }
    }

    // The text: every place that exists with its harness, every other one under "not found".
    let output = esker_at_home(&home, &["doctor", "--data-dir", data_arg]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let text = stdout_of(&output);
    let (present, not_found) = text
        .split_once("\nnot found (")
        .unwrap_or_else(|| panic!("no \"not found (\" section:\n{text}"));
    let existing = locations
        .iter()
        .filter(|place| place["exists"] == true)
        .count();
    assert!(
        present.contains(&format!(
            "{existing} of {} places esker looks at hold agent history",
            locations.len()
        )),
        "{text}"
    );
    assert!(
        not_found.starts_with(&format!("{} places;", locations.len() - existing)),
        "{text}"
    );
    for place in locations {
        let harness = place["harness"].as_str().expect("harness");
        let path = place["path"].as_str().expect("path");
        if place["exists"] == true {
            let line = format!("  {harness:<16} {path} (");
            assert!(present.contains(&line), "{line:?} missing from:\n{text}");
        } else {
            let line = format!("  {harness:<16} {path}\n");
            assert!(not_found.contains(&line), "{line:?} missing from:\n{text}");
        }
    }
    for source in &placed {
        assert!(
            present.contains(&format!("  {:<16} ", source.harness())),
            "{} is named among the places that hold history:\n{text}",
            source.harness()
        );
    }
    if unreadable {
        let said = format!(
            "entries that could not be walked\n      {}\n",
            codex_sessions.display()
        );
        assert!(present.contains(&said), "{said:?} missing from:\n{text}");
    }
    assert!(
        miscounted.is_empty(),
        "doctor's places list as many sessions of each harness as the store holds:\n{}",
        miscounted.join("\n")
    );
}
