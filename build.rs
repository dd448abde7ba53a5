//! Build script: records the commit the binary is built from (`esker --version`), from
//! `ESKER_COMMIT` when set (release pipelines, source archives) else `git rev-parse`; rebuilds
//! when the web view's embedded files change.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ESKER_COMMIT");
    // `esker ui`'s embedded files (include_dir! does not tell cargo about them).
    println!("cargo:rerun-if-changed=src/ui/assets");
    let commit = std::env::var("ESKER_COMMIT")
        .ok()
        .filter(|commit| !commit.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=ESKER_COMMIT={}", commit.trim());
    for watched in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", watched]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &reference])
    {
        println!("cargo:rerun-if-changed={path}");
    }
}

fn git_commit() -> Option<String> {
    git(&["rev-parse", "--short=12", "HEAD"])
}

/// One line of a git command's output, or `None` outside a checkout or without git.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let line = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (!line.is_empty()).then_some(line)
}
