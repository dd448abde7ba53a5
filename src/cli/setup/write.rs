//! Writing a client config safely: the previous bytes go to `<file>.esker-backup` beside it,
//! the new bytes to a temporary file in the same directory that is renamed over the original
//! (atomic on one filesystem, permissions kept); and the unified diff a dry run prints.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use super::SetupError;

/// `<file>.esker-backup`.
pub fn backup_path(config: &Path) -> PathBuf {
    let mut name = config
        .file_name()
        .map(|name| name.to_os_string())
        .unwrap_or_default();
    name.push(".esker-backup");
    config.with_file_name(name)
}

/// The file's text; `None` when it does not exist.
pub fn read_config(config: &Path) -> Result<Option<String>, SetupError> {
    match fs::read_to_string(config) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(SetupError::io(config, error)),
    }
}

/// Replaces `config` by `text`: backs up the previous bytes (when there were any), then
/// writes a temporary file and renames it over the original. Returns the backup's path.
pub fn replace_config(
    config: &Path,
    previous: Option<&str>,
    text: &str,
) -> Result<Option<PathBuf>, SetupError> {
    let dir = config.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|error| SetupError::io(dir, error))?;
    let backup = match previous {
        Some(previous) => {
            let backup = backup_path(config);
            fs::write(&backup, previous).map_err(|error| SetupError::io(&backup, error))?;
            Some(backup)
        }
        None => None,
    };
    let mut temporary_name = config
        .file_name()
        .map(|name| name.to_os_string())
        .unwrap_or_default();
    temporary_name.push(format!(".esker-tmp-{}", std::process::id()));
    let temporary = config.with_file_name(temporary_name);
    let written = write_synced(&temporary, text).and_then(|()| {
        if let Ok(metadata) = fs::metadata(config) {
            fs::set_permissions(&temporary, metadata.permissions())?;
        }
        fs::rename(&temporary, config)
    });
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        return Err(SetupError::io(config, error));
    }
    Ok(backup)
}

fn write_synced(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// The unified diff from `before` to `after`, headed with the file's path.
pub fn unified_diff(config: &Path, before: &str, after: &str) -> String {
    let name = config.display().to_string();
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_keeps_a_backup_and_the_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("settings.json");
        fs::write(&config, "{}\n").unwrap();
        fs::set_permissions(&config, fs::Permissions::from_mode(0o600)).unwrap();
        let backup = replace_config(&config, Some("{}\n"), "{\"a\": 1}\n").unwrap();
        assert_eq!(fs::read_to_string(&config).unwrap(), "{\"a\": 1}\n");
        assert_eq!(fs::read_to_string(backup.unwrap()).unwrap(), "{}\n");
        let mode = fs::metadata(&config).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_name().to_string_lossy().contains("esker-tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn the_diff_shows_the_added_lines() {
        let diff = unified_diff(Path::new("c.toml"), "a = 1\n", "a = 1\nb = 2\n");
        assert!(diff.contains("--- c.toml"));
        assert!(diff.contains("+b = 2"));
    }
}
