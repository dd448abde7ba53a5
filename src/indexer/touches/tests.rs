//! Touch extraction per harness format, with arguments shaped as each parser stores them.

use serde_json::json;

use super::*;

/// (tail, root, mutation, kind) of each touch.
fn summary(touches: &[Touch]) -> Vec<(String, Option<String>, bool, &'static str)> {
    touches
        .iter()
        .map(|touch| {
            (
                touch.location.tail.clone(),
                touch.location.root.clone(),
                touch.mutation,
                touch.kind.as_str(),
            )
        })
        .collect()
}

fn one(
    tail: &str,
    root: Option<&str>,
    mutation: bool,
    kind: &'static str,
) -> (String, Option<String>, bool, &'static str) {
    (tail.to_owned(), root.map(str::to_owned), mutation, kind)
}

const CWD: Option<&str> = Some("/home/dev/webapp");

#[test]
fn claude_file_tools_name_their_file_and_say_whether_they_write() {
    let edit =
        json!({"file_path": "/home/dev/webapp/src/app.ts", "old_string": "a", "new_string": "b"});
    assert_eq!(
        summary(&touches_of_call("Edit", &edit, CWD)),
        [one("src/app.ts", CWD, true, "argument")]
    );
    for (tool, mutation) in [("Write", true), ("MultiEdit", true), ("Read", false)] {
        let arguments = json!({"file_path": "/home/dev/webapp/README.md"});
        assert_eq!(
            summary(&touches_of_call(tool, &arguments, CWD)),
            [one("README.md", CWD, mutation, "argument")],
            "{tool}"
        );
    }
    let notebook = json!({"notebook_path": "/home/dev/webapp/nb/a.ipynb", "new_source": "x"});
    assert_eq!(
        summary(&touches_of_call("NotebookEdit", &notebook, CWD)),
        [one("nb/a.ipynb", CWD, true, "argument")]
    );
    let grep = json!({"pattern": "TODO", "path": "/home/dev/webapp/src", "output_mode": "content"});
    assert_eq!(
        summary(&touches_of_call("Grep", &grep, CWD)),
        [one("src", CWD, false, "argument")]
    );
}

#[test]
fn claude_bash_commands_fall_back_to_path_like_words() {
    let bash =
        json!({"command": "sed -i 's/x/y/' src/app.ts && cat package.json", "description": "d"});
    assert_eq!(
        summary(&touches_of_call("Bash", &bash, CWD)),
        [
            one("src/app.ts", CWD, true, "shell"),
            one("package.json", CWD, false, "shell"),
        ]
    );
}

#[test]
fn codex_apply_patch_headers_are_mutations() {
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Add File: /repo/docs/new.md\n+x\n*** Delete File: old.txt\n*** Update File: a.rs\n*** Move to: b.rs\n*** End Patch";
    let custom = json!({"input": patch});
    assert_eq!(
        summary(&touches_of_call("apply_patch", &custom, Some("/repo"))),
        [
            one("src/lib.rs", Some("/repo"), true, "patch"),
            one("docs/new.md", Some("/repo"), true, "patch"),
            one("old.txt", Some("/repo"), true, "patch"),
            one("a.rs", Some("/repo"), true, "patch"),
            one("b.rs", Some("/repo"), true, "patch"),
        ]
    );
    let legacy_shell = json!({"command": ["apply_patch", patch], "workdir": "/repo"});
    assert_eq!(
        touches_of_call("shell", &legacy_shell, Some("/repo")).len(),
        5
    );
    let heredoc =
        json!({"command": ["bash", "-lc", format!("apply_patch <<'EOF'\n{patch}\nEOF\n")]});
    let touches = touches_of_call("shell", &heredoc, Some("/repo"));
    assert_eq!(touches.len(), 5);
    assert!(touches.iter().all(|touch| touch.kind == MatchKind::Patch));
    let ended = json!({"files": ["/repo/src/lib.rs"]});
    assert_eq!(
        summary(&touches_of_call("apply_patch", &ended, Some("/repo"))),
        [one("src/lib.rs", Some("/repo"), true, "argument")]
    );
}

#[test]
fn codex_shell_calls_resolve_from_their_workdir() {
    let shell = json!({"command": ["bash", "-lc", "sed -n 1,80p src/lib.rs"], "workdir": "/repo/crates/core"});
    assert_eq!(
        summary(&touches_of_call("shell", &shell, Some("/repo"))),
        [one("crates/core/src/lib.rs", Some("/repo"), false, "shell")]
    );
    let exec = json!({"cmd": "rm -f target/x.log", "workdir": "/other/wt"});
    assert_eq!(
        summary(&touches_of_call("exec_command", &exec, Some("/repo"))),
        [one("target/x.log", Some("/other/wt"), true, "shell")]
    );
    let argv = json!({"command": ["cat", "Cargo.toml"], "cwd": "/repo"});
    assert_eq!(
        summary(&touches_of_call("exec_command", &argv, None)),
        [one("Cargo.toml", Some("/repo"), false, "shell")]
    );
    let local =
        json!({"type": "exec", "command": ["touch", "notes.md"], "working_directory": "/repo"});
    assert_eq!(
        summary(&touches_of_call("local_shell", &local, Some("/repo"))),
        [one("notes.md", Some("/repo"), true, "shell")]
    );
}

#[test]
fn gemini_tools_name_files_in_their_own_keys() {
    let cwd = Some("/home/u/proj");
    for (tool, arguments, mutation) in [
        (
            "write_file",
            json!({"file_path": "/home/u/proj/a/b.py", "content": "x"}),
            true,
        ),
        (
            "replace",
            json!({"file_path": "/home/u/proj/a/b.py", "old_string": "x", "new_string": "y"}),
            true,
        ),
        (
            "read_file",
            json!({"absolute_path": "/home/u/proj/a/b.py"}),
            false,
        ),
    ] {
        assert_eq!(
            summary(&touches_of_call(tool, &arguments, cwd)),
            [one("a/b.py", cwd, mutation, "argument")],
            "{tool}"
        );
    }
    let many = json!({"paths": ["a/b.py", "c.md", "src/**/*.ts"]});
    assert_eq!(
        summary(&touches_of_call("read_many_files", &many, cwd)),
        [
            one("a/b.py", cwd, false, "argument"),
            one("c.md", cwd, false, "argument")
        ]
    );
    let shell = json!({"command": "cat docs/x.md > out.txt", "description": "d"});
    assert_eq!(
        summary(&touches_of_call("run_shell_command", &shell, cwd)),
        [
            one("out.txt", cwd, true, "shell"),
            one("docs/x.md", cwd, false, "shell")
        ]
    );
}

#[test]
fn windows_sessions_keep_their_tails() {
    let cwd = Some(r"C:\Users\me\vault");
    let write = json!({"file_path": r"C:\Users\me\vault\notes\todo.md", "content": "x"});
    assert_eq!(
        summary(&touches_of_call("write_file", &write, cwd)),
        [one(
            "notes/todo.md",
            Some("C:/Users/me/vault"),
            true,
            "argument"
        )]
    );
}

#[test]
fn paths_outside_the_root_keep_an_unknown_root() {
    let read = json!({"file_path": "/etc/hosts"});
    assert_eq!(
        summary(&touches_of_call("Read", &read, CWD)),
        [one("/etc/hosts", None, false, "argument")]
    );
    let no_cwd = json!({"file_path": "src/x.rs"});
    assert_eq!(
        summary(&touches_of_call("Read", &no_cwd, None)),
        [one("src/x.rs", None, false, "argument")]
    );
}

#[test]
fn a_file_found_twice_is_one_touch() {
    let both = json!({"file_path": "/repo/a.rs", "command": "rm /repo/a.rs"});
    let touches = touches_of_call("Bash", &both, Some("/repo"));
    assert_eq!(
        summary(&touches),
        [one("a.rs", Some("/repo"), true, "argument")]
    );
}

#[test]
fn non_paths_are_ignored() {
    for arguments in [
        json!({"path": "https://example.com/x.json"}),
        json!({"file_path": "line one\nline two"}),
        json!({"file_path": ""}),
        json!({"file_path": 7}),
        json!({"query": "src/lib.rs"}),
        json!("src/lib.rs"),
    ] {
        assert!(
            touches_of_call("Read", &arguments, CWD).is_empty(),
            "{arguments}"
        );
    }
    assert!(
        patch_paths("*** Update File: x.rs").is_empty(),
        "no patch marker"
    );
    let document = json!({"file_path": "/home/dev/webapp/docs/patches.md", "content": "*** Begin Patch\n*** Update File: src/x.rs\n*** End Patch"});
    assert_eq!(
        summary(&touches_of_call("Write", &document, CWD)),
        [one("docs/patches.md", CWD, true, "argument")],
        "a patch inside written content is content"
    );
}

#[test]
fn tool_names_decide_mutation() {
    for tool in [
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "write_file",
        "replace",
        "apply_patch",
        "delete_file",
    ] {
        assert!(is_mutating_tool(tool), "{tool}");
    }
    for tool in [
        "Read",
        "Grep",
        "Glob",
        "LS",
        "read_file",
        "list_directory",
        "glob",
        "search_file_content",
    ] {
        assert!(!is_mutating_tool(tool), "{tool}");
    }
}
