//! Which file a `file_attention` path names: the launch project (the Git checkout around the
//! server's working directory, with every linked worktree of it, or the launch directory
//! itself outside Git) and the project-relative tail a query path reduces to, as Moraine
//! resolves them.

use std::path::{Path, PathBuf};

use crate::indexer::touches::paths;

/// The project the server was launched in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchProject {
    /// The server's working directory.
    pub launch_dir: String,
    /// The Git checkout containing it, or the launch directory outside Git.
    pub root: String,
    /// Every root of the project: the checkout, the main worktree and every linked worktree
    /// registered in the common Git directory, each also in its canonical spelling.
    pub roots: Vec<String>,
}

/// The launch project of a server running in `launch_dir`; `None` when that directory is gone.
pub fn launch_project(launch_dir: &Path) -> Option<LaunchProject> {
    if !launch_dir.is_dir() {
        return None;
    }
    let root = git_checkout_of(launch_dir).unwrap_or_else(|| launch_dir.to_path_buf());
    let mut roots = vec![root.clone()];
    if let Some(common_dir) = git_common_dir(&root) {
        roots.extend(worktree_roots(&common_dir));
    }
    roots.extend(
        roots
            .iter()
            .filter_map(|root| root.canonicalize().ok())
            .collect::<Vec<_>>(),
    );
    // A name that is not UTF-8 is spelled lossily (U+FFFD) rather than refused: a
    // `--project-only` server still starts there and says it is scoped (issue #48), it just
    // matches no session (logs record their directories as UTF-8 text).
    let text = |path: &Path| paths::normalize(&path.to_string_lossy());
    let mut roots: Vec<String> = roots.iter().map(|root| text(root)).collect();
    roots.sort();
    roots.dedup();
    Some(LaunchProject {
        launch_dir: text(launch_dir),
        root: text(&root),
        roots,
    })
}

/// The nearest directory at or above `dir` holding `.git`, not above `$HOME` (`None` for a
/// path that is not absolute here, such as a Windows path on Unix).
fn git_checkout_of(dir: &Path) -> Option<PathBuf> {
    if !dir.is_absolute() {
        return None;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut current = Some(dir);
    while let Some(candidate) = current {
        if candidate.join(".git").exists() {
            return Some(candidate.to_path_buf());
        }
        if home.as_deref() == Some(candidate) {
            return None;
        }
        current = candidate.parent();
    }
    None
}

/// The common Git directory of a checkout (its `.git` directory, or for a linked worktree the
/// main repository's, through `gitdir:` and `commondir`).
fn git_common_dir(checkout: &Path) -> Option<PathBuf> {
    let marker = checkout.join(".git");
    let git_dir = if marker.is_dir() {
        marker
    } else {
        let content = std::fs::read_to_string(&marker).ok()?;
        let target = PathBuf::from(content.trim().strip_prefix("gitdir:")?.trim());
        if target.is_absolute() {
            target
        } else {
            checkout.join(target)
        }
    };
    let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(content) => {
            let target = PathBuf::from(content.trim());
            if target.is_absolute() {
                target
            } else {
                git_dir.join(target)
            }
        }
        Err(_) => git_dir,
    };
    common_dir.canonicalize().ok()
}

/// The main worktree and the linked worktrees registered under a common Git directory (only
/// those that still point back at it).
fn worktree_roots(common_dir: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if common_dir.file_name().is_some_and(|name| name == ".git")
        && let Some(main) = common_dir.parent()
    {
        roots.push(main.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return roots;
    };
    for entry in entries.flatten() {
        let Ok(content) = std::fs::read_to_string(entry.path().join("gitdir")) else {
            continue;
        };
        let marker = PathBuf::from(content.trim());
        let marker = if marker.is_absolute() {
            marker
        } else {
            entry.path().join(marker)
        };
        if let Some(worktree) = marker.parent()
            && git_common_dir(worktree).as_deref() == Some(common_dir)
        {
            roots.push(worktree.to_path_buf());
        }
    }
    roots
}

/// The tail a query path reduces to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedTail {
    /// What the stored tails are matched against.
    pub tail: String,
    /// The root stripped from an absolute (or launch-relative) path.
    pub stripped_root: Option<String>,
    /// An absolute path no root could be stripped from: matched literally.
    pub tail_is_absolute: bool,
    /// Lexical cleanup (`./`, `..`, repeated slashes) changed the path.
    pub normalized: bool,
    /// The query path itself when it is absolute (normalized): a touch recorded at exactly
    /// this path matches whichever root this machine's checkouts strip from it.
    pub absolute_path: Option<String>,
}

/// Reduces `path` to its tail: a relative path is resolved from the launch directory and made
/// relative to the launch project's root; an absolute path is stripped of the nearest Git
/// checkout above it (or of the launch project when it lies inside it). Compound shell text is
/// never taken for a path.
pub fn resolve_tail(path: &str, project: Option<&LaunchProject>) -> ResolvedTail {
    let cleaned = path.strip_prefix("./").unwrap_or(path);
    let separated = paths::unify_separators(cleaned);
    let normalized = paths::normalize(&separated);
    let changed = normalized != cleaned;
    let single = is_single_path_candidate(cleaned) && is_single_path_candidate(&normalized);
    let relative_to = |absolute: &str, root: &str| {
        paths::strip_root(absolute, root).map(|tail| ResolvedTail {
            tail: tail.to_owned(),
            stripped_root: Some(root.to_owned()),
            tail_is_absolute: false,
            normalized: changed,
            absolute_path: None,
        })
    };
    if !paths::is_absolute(&normalized) {
        let from_launch = project.filter(|_| single).and_then(|project| {
            let absolute = paths::normalize(&format!("{}/{normalized}", project.launch_dir));
            relative_to(&absolute, &project.root)
        });
        return from_launch.unwrap_or(ResolvedTail {
            tail: normalized,
            stripped_root: None,
            tail_is_absolute: false,
            normalized: changed,
            absolute_path: None,
        });
    }
    let stripped = single.then(|| {
        let checkout = Path::new(&normalized)
            .parent()
            .and_then(git_checkout_of)
            .and_then(|root| root.to_str().map(paths::normalize));
        let launch_root = project
            .map(|project| project.root.clone())
            .filter(|root| paths::strip_root(&normalized, root).is_some());
        checkout
            .or(launch_root)
            .and_then(|root| relative_to(&normalized, &root))
    });
    let resolved = stripped.flatten().unwrap_or(ResolvedTail {
        tail: normalized.clone(),
        stripped_root: None,
        tail_is_absolute: true,
        normalized: changed,
        absolute_path: None,
    });
    ResolvedTail {
        absolute_path: single.then_some(normalized),
        ..resolved
    }
}

/// One path, not a compound shell line.
fn is_single_path_candidate(path: &str) -> bool {
    !path.is_empty() && !path.contains(['\n', '\r', ';', '|', '&', '`', '\0'])
}

/// A regular expression matching a working directory inside one of `roots`.
pub fn roots_pattern(roots: &[String]) -> String {
    let alternatives: Vec<String> = roots.iter().map(|root| regex::escape(root)).collect();
    format!("^(?:{})(?:/|$)", alternatives.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(launch_dir: &str, root: &str) -> LaunchProject {
        LaunchProject {
            launch_dir: launch_dir.into(),
            root: root.into(),
            roots: vec![root.into()],
        }
    }

    #[test]
    fn relative_paths_resolve_from_the_launch_directory() {
        let launched = project("/repo/crates", "/repo");
        let resolved = resolve_tail("core/src/lib.rs", Some(&launched));
        assert_eq!(resolved.tail, "crates/core/src/lib.rs");
        assert_eq!(resolved.stripped_root.as_deref(), Some("/repo"));
        let at_root = resolve_tail("./src/lib.rs", Some(&project("/repo", "/repo")));
        assert_eq!(
            (at_root.tail.as_str(), at_root.normalized),
            ("src/lib.rs", false)
        );
        let unanchored = resolve_tail("crates/foo/../foo.rs", None);
        assert_eq!(
            (unanchored.tail.as_str(), unanchored.normalized),
            ("crates/foo.rs", true)
        );
    }

    #[test]
    fn absolute_paths_are_stripped_of_the_launch_project_or_kept_literally() {
        let launched = project("/nonexistent-esker/repo", "/nonexistent-esker/repo");
        let inside = resolve_tail("/nonexistent-esker/repo/src/a.rs", Some(&launched));
        assert_eq!(inside.tail, "src/a.rs");
        assert!(!inside.tail_is_absolute);
        assert_eq!(
            inside.absolute_path.as_deref(),
            Some("/nonexistent-esker/repo/src/a.rs"),
            "the path as given still matches a touch recorded there"
        );
        assert_eq!(
            resolve_tail("src/a.rs", Some(&launched)).absolute_path,
            None
        );
        let outside = resolve_tail("/nonexistent-xyz/deep/file.rs", Some(&launched));
        assert_eq!(outside.tail, "/nonexistent-xyz/deep/file.rs");
        assert!(outside.tail_is_absolute);
    }

    #[test]
    fn a_git_checkout_above_an_absolute_path_is_its_root() {
        let temporary = tempfile::tempdir().unwrap();
        let checkout = temporary.path().canonicalize().unwrap().join("wt");
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        std::fs::write(checkout.join(".git"), "gitdir: /nowhere\n").unwrap();
        let path = format!("{}/src/x.rs", checkout.display());
        let resolved = resolve_tail(&path, None);
        assert_eq!(resolved.tail, "src/x.rs");
        assert_eq!(resolved.stripped_root.as_deref(), checkout.to_str());
    }

    #[test]
    fn the_launch_project_spans_linked_worktrees() {
        let temporary = tempfile::tempdir().unwrap();
        let base = temporary.path().canonicalize().unwrap();
        let (main, feat) = (base.join("main"), base.join("feat"));
        let admin = main.join(".git/worktrees/feat");
        std::fs::create_dir_all(&admin).unwrap();
        std::fs::create_dir_all(main.join("sub")).unwrap();
        std::fs::create_dir_all(&feat).unwrap();
        std::fs::write(feat.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
        std::fs::write(admin.join("commondir"), "../..\n").unwrap();
        std::fs::write(
            admin.join("gitdir"),
            format!("{}\n", feat.join(".git").display()),
        )
        .unwrap();
        for launch in [main.join("sub"), feat.clone()] {
            let project = launch_project(&launch).unwrap();
            let roots: Vec<&str> = project.roots.iter().map(String::as_str).collect();
            assert!(roots.contains(&main.to_str().unwrap()), "{roots:?}");
            assert!(roots.contains(&feat.to_str().unwrap()), "{roots:?}");
        }
        let pattern =
            regex::Regex::new(&roots_pattern(&launch_project(&feat).unwrap().roots)).unwrap();
        assert!(pattern.is_match(&format!("{}/x", main.display())));
        assert!(pattern.is_match(feat.to_str().unwrap()));
        assert!(!pattern.is_match(&format!("{}-other", feat.display())));
    }

    #[test]
    fn outside_git_the_launch_directory_is_the_project() {
        let temporary = tempfile::tempdir().unwrap();
        let project = launch_project(temporary.path()).unwrap();
        assert_eq!(project.root, project.launch_dir);
        assert!(launch_project(Path::new("/nonexistent-esker-dir")).is_none());
    }
}
