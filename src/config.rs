//! Resolves where esker keeps its data and which logs it reads by default.

use std::path::{Path, PathBuf};

/// `--data-dir`, else `$ESKER_DATA_DIR`, else `$XDG_DATA_HOME/esker`, else
/// `~/.local/share/esker`.
pub fn resolve_data_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(dir) = explicit {
        return dir.to_path_buf();
    }
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = non_empty("ESKER_DATA_DIR") {
        return dir;
    }
    if let Some(xdg) = non_empty("XDG_DATA_HOME") {
        return xdg.join("esker");
    }
    let home = non_empty("HOME").unwrap_or_else(|| PathBuf::from("."));
    home.join(".local").join("share").join("esker")
}

/// The sample corpus shipped in `data/sample` (used when a machine has no agent history).
pub fn sample_corpus_dir() -> Option<PathBuf> {
    let candidates = [
        PathBuf::from("data/sample"),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join("sample"),
    ];
    candidates.into_iter().find(|dir| dir.is_dir())
}
