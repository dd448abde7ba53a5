//! `esker doctor` as a person runs it: a home with Claude and Codex history (one file that is
//! not a log, one with a malformed line, one written after the last index) and Windsurf's
//! encrypted Cascade history, every place
//! looked at listed with what it holds, what the store has from it and what was skipped and
//! why, in text and as JSON; and a machine with nothing indexed yet.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::support::{copy_tree, fixtures_dir, query_count, stderr_of};

fn doctor_json(home: &Path, data: &Path) -> Value {
    let output = esker_at_home(
        home,
        &["doctor", "--json", "--data-dir", data.to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", stderr_of(&output));
    serde_json::from_str(&stdout_of(&output)).expect("doctor --json prints JSON")
}

fn location<'a>(diagnosis: &'a Value, path: &Path) -> &'a Value {
    diagnosis["locations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|location| location["path"] == path.to_str().unwrap())
        .unwrap_or_else(|| panic!("{} not listed: {diagnosis:#}", path.display()))
}

fn skip<'a>(location: &'a Value, reason: &str) -> Option<&'a Value> {
    location["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skip| skip["reason"] == reason)
}

#[test]
fn doctor_lists_every_place_with_what_it_holds_and_why_things_were_skipped() {
    let base = tempfile::tempdir().expect("temp dir");
    let home = base.path().canonicalize().unwrap().join("home");
    let data = base.path().join("data");
    let projects = home.join(".claude/projects");
    copy_tree(&fixtures_dir().join("claude/projects"), &projects);
    copy_tree(
        &fixtures_dir().join("codex/sessions"),
        &home.join(".codex/sessions"),
    );
    let junk = projects.join("-home-dev-webapp/notes.json");
    fs::write(&junk, "{\"not\": \"a session log\"}\n").unwrap();
    let transcript = projects.join("-home-dev-webapp/3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58.jsonl");
    // A malformed line between complete records (a bad last line may be one still being written).
    let mut text = fs::read_to_string(&transcript).unwrap();
    let last = text.lines().last().unwrap().to_owned();
    text.push_str("this line is not JSON\n");
    text.push_str(&last);
    text.push('\n');
    fs::write(&transcript, text).unwrap();

    let cascade = home.join(".codeium/windsurf/cascade");
    fs::create_dir_all(&cascade).unwrap();
    fs::write(
        cascade.join("0f1e2d3c.pb"),
        [0x8a_u8, 0x17, 0xfe, 0x00, 0x42],
    )
    .unwrap();

    let nothing_yet = doctor_json(&home, &data);
    assert_eq!(nothing_yet["generation"], Value::Null);
    let claude = location(&nothing_yet, &projects);
    let sources = claude["sources"].as_u64().unwrap();
    assert_eq!(
        skip(claude, "not_indexed_yet").unwrap()["count"].as_u64(),
        Some(sources),
        "before any index every source is pending: {claude:#}"
    );

    let indexed = esker_at_home(
        &home,
        &["index", "-q", "--data-dir", data.to_str().unwrap()],
    );
    assert!(indexed.status.success(), "{}", stderr_of(&indexed));
    let later = projects.join("-home-dev-webapp/written-after.jsonl");
    fs::write(&later, "{\"type\": \"user\"}\n").unwrap();

    let diagnosis = doctor_json(&home, &data);
    assert!(diagnosis["generation"].as_u64().is_some());
    let claude = location(&diagnosis, &projects);
    assert_eq!(claude["harness"], "claude-code");
    assert_eq!(claude["exists"], true);
    assert_eq!(claude["sources"].as_u64(), Some(sources + 1));
    let indexed_files: u64 = claude["indexed_by_format"]
        .as_object()
        .unwrap()
        .values()
        .map(|count| count.as_u64().unwrap())
        .sum();
    assert_eq!(indexed_files, sources - 1, "all but the note: {claude:#}");
    assert_eq!(
        claude["sessions"].as_u64(),
        Some(query_count(
            &data,
            "SELECT count(*) FROM sessions WHERE source = 'claude'"
        ) as u64)
    );
    let unknown = skip(claude, "unknown_format").expect("the note is skipped");
    assert_eq!(unknown["paths"][0], junk.to_str().unwrap());
    let malformed = skip(claude, "malformed_lines").expect("the malformed line is counted");
    assert_eq!(
        (malformed["count"].as_u64(), &malformed["paths"][0]),
        (Some(1), &Value::from(transcript.to_str().unwrap()))
    );
    let pending = skip(claude, "not_indexed_yet").expect("the new file is pending");
    assert_eq!(pending["paths"][0], later.to_str().unwrap());

    let windsurf = location(&diagnosis, &cascade);
    assert_eq!(windsurf["harness"], "windsurf");
    assert_eq!(
        skip(windsurf, "encrypted").map(|skip| skip["count"].as_u64()),
        Some(Some(1)),
        "{windsurf:#}"
    );

    let codex = location(&diagnosis, &home.join(".codex/sessions"));
    assert_eq!(
        codex["sessions"].as_u64(),
        Some(query_count(
            &data,
            "SELECT count(*) FROM sessions WHERE source = 'codex'"
        ) as u64)
    );
    assert_eq!(codex["skipped"], serde_json::json!([]));
    let archived = location(&diagnosis, &home.join(".codex/archived_sessions"));
    assert_eq!(
        (archived["exists"].as_bool(), archived["sources"].as_u64()),
        (Some(false), Some(0))
    );
    for harness in [
        "gemini-cli",
        "copilot-cli",
        "cursor",
        "zed",
        "vscode-copilot",
        "codebuddy-code",
        "workbuddy",
        "kiro-cli",
        "amazon-q-cli",
        "junie",
        "auggie",
        "grok-build",
        "claude-desktop",
        "claude-cowork",
        "devin-cli",
        "warp",
    ] {
        assert!(
            diagnosis["locations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|location| location["harness"] == harness),
            "{harness} is looked for"
        );
    }

    let output = esker_at_home(&home, &["doctor", "--data-dir", data.to_str().unwrap()]);
    assert!(output.status.success());
    let text = stdout_of(&output);
    for expected in [
        "3 of ",
        "encrypted at rest by the harness",
        "not a format esker reads",
        junk.to_str().unwrap(),
        "not indexed yet (run `esker index`)",
        "malformed lines skipped",
        "not found (",
        home.join(".codex/archived_sessions").to_str().unwrap(),
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
}

#[test]
fn doctor_on_a_machine_without_history_says_so_and_exits_1() {
    let base = tempfile::tempdir().expect("temp dir");
    let output = esker_at_home(
        base.path(),
        &[
            "doctor",
            "--data-dir",
            base.path().join("data").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr_of(&output));
    let text = stdout_of(&output);
    assert!(text.contains("nothing indexed yet"), "{text}");
    assert!(text.contains("0 of "), "{text}");
    assert!(
        !base.path().join("data").exists(),
        "doctor creates no store"
    );
}

/// The other homes a person names (the config file's `homes` with a glob and its
/// `harness_homes`, `$ESKER_HOMES`) and the Windows homes WSL shows are looked at as `$HOME`
/// is: `esker doctor` lists each place with the home it is under and why that home is read,
/// says what in the config could not be used, and `esker index` reads them all.
#[test]
fn doctor_and_index_read_the_config_file_s_homes_esker_homes_and_windows_homes_from_wsl() {
    let base = tempfile::tempdir().expect("temp dir");
    let base = base.path().canonicalize().unwrap();
    let home = base.join("home");
    let data = base.join("data");
    let container_home = base.join("containers/box-1/home/dev");
    copy_tree(
        &fixtures_dir().join("codex/sessions"),
        &container_home.join(".codex/sessions"),
    );
    fs::create_dir_all(base.join("containers/box-2/home")).unwrap();
    let work_claude = home.join("work-claude");
    copy_tree(
        &fixtures_dir().join("claude/projects"),
        &work_claude.join("projects"),
    );
    let laptop = base.join("laptop");
    copy_tree(
        &fixtures_dir().join("pi/sessions"),
        &laptop.join(".pi/agent/sessions"),
    );
    let users = base.join("mnt/c/Users");
    let roaming = users.join("ana/AppData/Roaming");
    copy_tree(
        &crate::support::manifest_dir().join("tests/standalone-fixtures/vscode-copilot/Code"),
        &roaming.join("Code"),
    );
    fs::create_dir_all(users.join("Public/.codex/sessions")).unwrap();
    fs::create_dir_all(home.join(".config/esker")).unwrap();
    let config = home.join(".config/esker/config.toml");
    fs::write(
        &config,
        format!(
            "homes = [\"{}/containers/*/home/dev\"]\nwindows_users = \"{}\"\n\n[harness_homes]\nclaude = [\"~/work-claude\"]\nnot-a-harness = [\"~/x\"]\n",
            base.display(),
            users.display()
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        crate::cli::esker_command(&home, args)
            .env("ESKER_HOMES", &laptop)
            .env("WSL_DISTRO_NAME", "Ubuntu")
            .output()
            .expect("esker runs")
    };
    let data_arg = data.to_str().unwrap();
    let indexed = run(&["index", "-q", "--data-dir", data_arg]);
    assert!(indexed.status.success(), "{}", stderr_of(&indexed));
    assert!(
        stderr_of(&indexed).contains("harness_homes.not-a-harness"),
        "the unusable entry is warned about: {}",
        stderr_of(&indexed)
    );

    let output = run(&["doctor", "--json", "--data-dir", data_arg]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let diagnosis: Value = serde_json::from_str(&stdout_of(&output)).unwrap();
    let expectations = [
        (container_home.join(".codex/sessions"), "codex", "config"),
        (work_claude.join("projects"), "claude", "harness_home"),
        (laptop.join(".pi/agent/sessions"), "pi", "env"),
        (
            roaming.join("Code/User/globalStorage/emptyWindowChatSessions"),
            "vscode-copilot",
            "windows_from_wsl",
        ),
    ];
    for (path, source, origin) in &expectations {
        let place = location(&diagnosis, path);
        assert_eq!(place["origin"]["kind"], *origin, "{place:#}");
        assert_eq!(place["exists"], true);
        let sessions = query_count(
            &data,
            &format!("SELECT count(*) FROM sessions WHERE source = '{source}'"),
        );
        assert!(sessions > 0, "{source} sessions were indexed");
        let from_that_home: u64 = diagnosis["locations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|other| other["origin"]["kind"] == *origin)
            .map(|other| other["sessions"].as_u64().unwrap())
            .sum();
        assert_eq!(from_that_home, sessions as u64, "{source}: {diagnosis:#}");
    }
    let homes = &diagnosis["homes"];
    assert_eq!(homes["config_file"], config.to_str().unwrap());
    let extra: Vec<&str> = homes["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|extra| extra["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        extra,
        [
            container_home.to_str().unwrap(),
            laptop.to_str().unwrap(),
            users.join("ana").to_str().unwrap(),
        ],
        "a glob matching no home adds none; Public is nobody's home"
    );
    assert_eq!(homes["problems"].as_array().unwrap().len(), 1, "{homes:#}");

    let text = stdout_of(&run(&["doctor", "--data-dir", data_arg]));
    for expected in [
        format!("config: {}", config.display()),
        "not used: `harness_homes.not-a-harness`".to_string(),
        format!(
            "{} (a Windows home seen from WSL)",
            users.join("ana").display()
        ),
        format!("{} ($ESKER_HOMES)", laptop.display()),
        "from `harness_homes` in".to_string(),
    ] {
        assert!(
            text.contains(&expected),
            "{expected:?} missing from:\n{text}"
        );
    }
}
