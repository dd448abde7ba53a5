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

/// Where the bundled sample corpus is indexed: `<data dir>-sample` beside the data dir, so its
/// fake sessions never mix with real history in the store agents search.
pub fn sample_data_dir(data_dir: &Path) -> PathBuf {
    match data_dir.file_name() {
        Some(name) => {
            let mut sample_name = name.to_os_string();
            sample_name.push("-sample");
            data_dir.with_file_name(sample_name)
        }
        None => data_dir.join("sample-store"),
    }
}
