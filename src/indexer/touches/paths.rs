//! Lexical path arithmetic shared by ingest (where a touched path sits under its worktree root)
//! and `file_attention` (which tail a query path names): separator and `.`/`..` normalization,
//! containment under a root, and the project-relative tail. Pure string work: nothing here
//! reads the file system, so logs written on another machine resolve the same way.

/// Where a touched path sits: its worktree root (when the path is provably under one), the path
/// resolved against the working directory, and the tail used for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The root the tail is relative to; `None` when the path is under none of the candidates.
    pub root: Option<String>,
    /// The path joined to the working directory and normalized (absolute when either is).
    pub resolved: String,
    /// `resolved` relative to `root`, or `resolved` itself when there is no root.
    pub tail: String,
}

/// `path` with Windows separators turned into `/` when it is a Windows path (a drive prefix, or
/// backslashes and no slash); other paths are returned as they are.
pub fn unify_separators(path: &str) -> String {
    let windows_like = has_drive_prefix(path) || (path.contains('\\') && !path.contains('/'));
    if windows_like {
        path.replace('\\', "/")
    } else {
        path.to_owned()
    }
}

/// `C:\…` or `C:/…`.
fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes[2] == b'/' || bytes[2] == b'\\')
}

/// Absolute on Unix (`/…`) or Windows (`C:/…`), after [`unify_separators`].
pub fn is_absolute(path: &str) -> bool {
    path.starts_with('/') || has_drive_prefix(path)
}

/// Lexical normalization: repeated slashes and `.` segments dropped, `..` applied where a
/// parent is known (kept at the front of a relative path, dropped at an absolute root), no
/// trailing slash. The drive prefix of a Windows path is kept.
pub fn normalize(path: &str) -> String {
    let (prefix, body) = if let Some(body) = path.strip_prefix('/') {
        ("/", body)
    } else if has_drive_prefix(path) {
        (&path[..3], &path[3..])
    } else {
        ("", path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in body.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(last) if *last != ".." => {
                    parts.pop();
                }
                _ if prefix.is_empty() => parts.push(".."),
                _ => {}
            },
            _ => parts.push(part),
        }
    }
    format!("{prefix}{}", parts.join("/"))
}

/// The part of `path` under `root` (both normalized), or `None` when it is not strictly under.
pub fn strip_root<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    if root.is_empty() {
        return None;
    }
    path.strip_prefix(root)?
        .strip_prefix('/')
        .filter(|rest| !rest.is_empty())
}

/// The last segment of a tail (`src/lib.rs` → `lib.rs`).
pub fn file_name(tail: &str) -> &str {
    tail.rsplit('/').next().unwrap_or(tail)
}

/// Number of non-empty segments (`mod.rs` is 1, `src/lib.rs` 2).
pub fn segment_count(path: &str) -> usize {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .count()
}

/// Locates `path` as written by a tool call. `base` is the directory relative paths are
/// resolved from (the call's working directory); `roots` are the candidate worktree roots in
/// order of preference (the session's working directory first). `None` when the path names no
/// file (empty, or the root itself).
pub fn locate(path: &str, base: Option<&str>, roots: &[&str]) -> Option<Location> {
    let cleaned = normalize(&unify_separators(path.trim()));
    if cleaned.is_empty() || cleaned == "/" {
        return None;
    }
    let roots: Vec<String> = roots
        .iter()
        .map(|root| normalize(&unify_separators(root)))
        .filter(|root| !root.is_empty() && root != "/")
        .collect();
    // A path that already starts with a root (also when both are relative-looking, as in logs
    // whose paths were rewritten) is under it as written.
    if let Some(location) = under_some_root(&cleaned, &roots) {
        return location;
    }
    let resolved = match base.map(|base| normalize(&unify_separators(base))) {
        Some(base) if !is_absolute(&cleaned) && !base.is_empty() => {
            normalize(&format!("{base}/{cleaned}"))
        }
        _ => cleaned,
    };
    if let Some(location) = under_some_root(&resolved, &roots) {
        return location;
    }
    Some(Location {
        root: None,
        tail: resolved.clone(),
        resolved,
    })
}

/// `Some(location)` when `path` is under one of `roots` (`Some(None)` when it is a root itself,
/// which names no file); `None` when under none.
fn under_some_root(path: &str, roots: &[String]) -> Option<Option<Location>> {
    if roots.iter().any(|root| root == path) {
        return Some(None);
    }
    roots.iter().find_map(|root| {
        strip_root(path, root).map(|tail| {
            Some(Location {
                root: Some(root.clone()),
                resolved: path.to_owned(),
                tail: tail.to_owned(),
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_is_lexical() {
        assert_eq!(normalize("crates/foo/../foo.rs"), "crates/foo.rs");
        assert_eq!(normalize("crates//foo///bar.rs"), "crates/foo/bar.rs");
        assert_eq!(normalize("./src/lib.rs"), "src/lib.rs");
        assert_eq!(normalize("../up/x.rs"), "../up/x.rs");
        assert_eq!(normalize("/a/../../b"), "/b");
        assert_eq!(normalize("/a/b/"), "/a/b");
        assert_eq!(normalize("C:/Users/x/../y.md"), "C:/Users/y.md");
        assert_eq!(normalize("crates/foo dir/x.rs"), "crates/foo dir/x.rs");
    }

    #[test]
    fn windows_paths_get_forward_slashes() {
        assert_eq!(
            unify_separators(r"C:\Users\me\notes.md"),
            "C:/Users/me/notes.md"
        );
        assert_eq!(unify_separators(r"docs\plan.md"), "docs/plan.md");
        assert_eq!(unify_separators(r"a/b\c"), r"a/b\c");
        assert!(is_absolute("C:/Users"));
        assert!(!is_absolute("Users/x"));
    }

    #[test]
    fn stripping_needs_a_segment_boundary() {
        assert_eq!(strip_root("/a/b/c/x.rs", "/a/b"), Some("c/x.rs"));
        assert_eq!(strip_root("/a/bc/x.rs", "/a/b"), None);
        assert_eq!(strip_root("/a/b", "/a/b"), None);
        assert_eq!(strip_root("/a/b/x", "/a/b/"), Some("x"));
    }

    #[test]
    fn absolute_paths_under_the_root_become_tails() {
        let location = locate("/repo/main/src/lib.rs", None, &["/repo/main"]).unwrap();
        assert_eq!(location.root.as_deref(), Some("/repo/main"));
        assert_eq!(location.tail, "src/lib.rs");
        assert_eq!(location.resolved, "/repo/main/src/lib.rs");
    }

    #[test]
    fn relative_paths_resolve_from_the_working_directory() {
        let location = locate("lib.rs", Some("/repo/main/src"), &["/repo/main"]).unwrap();
        assert_eq!(location.tail, "src/lib.rs");
        assert_eq!(location.root.as_deref(), Some("/repo/main"));
        let escaped = locate("../other/x.rs", Some("/repo/main"), &["/repo/main"]).unwrap();
        assert_eq!(escaped.root, None);
        assert_eq!(escaped.tail, "/repo/other/x.rs");
    }

    #[test]
    fn outside_every_root_the_tail_is_the_absolute_path() {
        let location = locate("/etc/hosts", Some("/repo"), &["/repo"]).unwrap();
        assert_eq!(location.root, None);
        assert_eq!(location.tail, "/etc/hosts");
        let second = locate("/wt/feat/a/b.rs", None, &["/repo", "/wt/feat"]).unwrap();
        assert_eq!(second.root.as_deref(), Some("/wt/feat"));
        assert_eq!(second.tail, "a/b.rs");
    }

    #[test]
    fn rewritten_relative_looking_paths_match_their_root_as_written() {
        let root = "-experiments/worktrees/.claude/worktrees/agent-a4";
        let path = format!("{root}/work/plan.md");
        let location = locate(&path, Some(root), &[root]).unwrap();
        assert_eq!(location.root.as_deref(), Some(root));
        assert_eq!(location.tail, "work/plan.md");
    }

    #[test]
    fn without_any_directory_a_relative_path_is_its_own_tail() {
        let location = locate("./src/x.rs", None, &[]).unwrap();
        assert_eq!((location.root, location.tail.as_str()), (None, "src/x.rs"));
    }

    #[test]
    fn the_root_itself_and_empty_paths_name_no_file() {
        assert_eq!(locate("/repo", None, &["/repo"]), None);
        assert_eq!(locate(".", Some("/repo"), &["/repo"]), None);
        assert_eq!(locate("  ", None, &[]), None);
    }

    #[test]
    fn windows_paths_locate_under_windows_roots() {
        let location = locate(
            r"C:\Users\me\vault\notes\a.md",
            None,
            &[r"C:\Users\me\vault"],
        )
        .unwrap();
        assert_eq!(location.tail, "notes/a.md");
    }

    #[test]
    fn file_names_and_segments() {
        assert_eq!(file_name("src/lib.rs"), "lib.rs");
        assert_eq!(file_name("lib.rs"), "lib.rs");
        assert_eq!(segment_count("src/lib.rs"), 2);
        assert_eq!(segment_count("/a/b"), 2);
        assert_eq!(segment_count("////"), 0);
    }
}
