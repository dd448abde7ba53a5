//! The machine id a data dir publishes as: `<data dir>/machine_id`, made on first publish from
//! the host name and a random suffix (two data dirs on one host are two machines), or set with
//! `--machine` (kept for the next publish).

use std::fs;
use std::path::Path;

use super::TeamError;

const MACHINE_FILE: &str = "machine_id";
const MAX_LENGTH: usize = 64;

/// The machine id of `data_dir`: `requested` (validated and recorded) or the recorded one,
/// else a new one.
pub fn machine_id(data_dir: &Path, requested: Option<&str>) -> Result<String, TeamError> {
    let file = data_dir.join(MACHINE_FILE);
    if let Some(requested) = requested {
        validate(requested)?;
        write_id(&file, requested)?;
        return Ok(requested.to_string());
    }
    if let Ok(recorded) = fs::read_to_string(&file) {
        let recorded = recorded.trim();
        if validate(recorded).is_ok() {
            return Ok(recorded.to_string());
        }
    }
    let generated = generated_id();
    write_id(&file, &generated)?;
    Ok(generated)
}

fn write_id(file: &Path, id: &str) -> Result<(), TeamError> {
    fs::write(file, format!("{id}\n")).map_err(TeamError::io(file.display()))
}

/// A machine id is a partition value: letters, digits, `.`, `_`, `-`.
pub fn validate(id: &str) -> Result<(), TeamError> {
    let valid = !id.is_empty()
        && id.len() <= MAX_LENGTH
        && !id.starts_with(['.', '_'])
        && id
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "._-".contains(character));
    if valid {
        Ok(())
    } else {
        Err(TeamError::Usage(format!(
            "invalid machine id {id:?}: use 1 to {MAX_LENGTH} letters, digits, '.', '_' or '-' \
             (not starting with '.' or '_')"
        )))
    }
}

fn generated_id() -> String {
    let host: String = fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
        .trim()
        .chars()
        .filter(|character| character.is_ascii_alphanumeric() || *character == '-')
        .take(40)
        .collect();
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let host = host.trim_start_matches('-');
    if host.is_empty() {
        format!("machine-{suffix}")
    } else {
        format!("{host}-{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_partition_safe_and_stable_per_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let first = machine_id(dir.path(), None).unwrap();
        validate(&first).unwrap();
        assert_eq!(machine_id(dir.path(), None).unwrap(), first);
        assert_eq!(machine_id(dir.path(), Some("ci-1")).unwrap(), "ci-1");
        assert_eq!(machine_id(dir.path(), None).unwrap(), "ci-1");
        for bad in ["", "a/b", "a=b", "_x", "x y"] {
            assert!(validate(bad).is_err(), "{bad:?} accepted");
        }
    }
}
