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

/// The sample corpus of a checkout, `data/sample` under the working directory (a clean clone's
/// `cargo run -- index`); elsewhere the copy built into the binary is unpacked instead
/// (`cli::sample`), so an installed binary needs no source tree.
pub fn sample_corpus_dir() -> Option<PathBuf> {
    let checkout = PathBuf::from("data/sample");
    checkout.is_dir().then_some(checkout)
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
