//! `esker doctor`: every place esker looks for agent history on this machine, what it found
//! there, what the store holds from it, and what was skipped and why (missing, not a format
//! esker reads, encrypted, malformed lines, not indexed yet, a Devin Desktop copy of a session
//! left to the Devin CLI's copy). Silent gaps are what people complain about most in peers:
//! this makes each one visible.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::grouped::ROW_KEY_MARK;
use super::run::{ENCRYPTED_FORMAT, KnownLocation, UNKNOWN_FORMAT, survey};
use crate::ingest::Format;
use crate::ingest::homes::{Homes, Origin};
use crate::store::state::{Checkpoint, SessionLocation, StoreState};

/// Paths listed per reason before the rest are only counted.
pub const LISTED_PATHS: usize = 5;

/// The diagnosis of one machine's history against one store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnosis {
    pub data_dir: PathBuf,
    /// The store's current generation, `None` when nothing was indexed yet.
    pub generation: Option<u64>,
    pub locations: Vec<LocationReport>,
    /// Sources the store read from outside every default location (`esker index PATH`).
    pub elsewhere: Elsewhere,
    /// The homes read besides `$HOME`, the config file that names some, and what in it could
    /// not be used.
    pub homes: Homes,
}

/// What one location holds and how much of it the store has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocationReport {
    /// The harness that writes there (Moraine's name, as `harness` filters take it).
    pub harness: &'static str,
    pub path: PathBuf,
    pub kind: &'static str,
    pub exists: bool,
    /// The home it is under and why that home is read.
    pub origin: Origin,
    /// Logs, grouped sessions and stores an index pass reads there.
    pub sources: usize,
    pub bytes: u64,
    /// Of those, how many the store has a checkpoint for, by recognised format.
    pub indexed_by_format: BTreeMap<String, usize>,
    /// Sessions the store holds from this location.
    pub sessions: usize,
    /// Why something there is not (fully) in the store.
    pub skipped: Vec<Skip>,
}

/// A reason some sources of a location are missing from the store, with the first paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skip {
    pub reason: SkipReason,
    pub count: u64,
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Not a format esker reads (the file was looked at and set aside).
    UnknownFormat,
    /// Encrypted at rest by its harness: counted, never readable.
    Encrypted,
    /// Complete lines that were not valid records (the rest of the file was read).
    MalformedLines,
    /// Present on disk, not yet in the store: `esker index` reads it.
    NotIndexedYet,
    /// Directory entries that could not be walked (permissions, symlink loops).
    Unwalkable,
    /// A Devin Desktop copy of a `devin-cli` session whose Devin CLI copy is indexed instead
    /// (`ingest::devin_pair`): read, giving no session.
    LeftToCliCopy,
}

impl SkipReason {
    pub fn explanation(self) -> &'static str {
        match self {
            SkipReason::UnknownFormat => "not a format esker reads",
            SkipReason::Encrypted => "encrypted at rest by the harness (never readable)",
            SkipReason::MalformedLines => "malformed lines skipped (the rest was read)",
            SkipReason::NotIndexedYet => "not indexed yet (run `esker index`)",
            SkipReason::Unwalkable => "entries that could not be walked",
            SkipReason::LeftToCliCopy => {
                "Devin Desktop copies of Devin CLI sessions (the CLI's copy is indexed)"
            }
        }
    }
}

/// Sources in the store that no default location holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Elsewhere {
    pub sources: usize,
    pub sessions: usize,
    pub paths: Vec<PathBuf>,
}

/// Diagnoses `locations` against `state` (the store's checkpoints; `None`: nothing indexed).
pub fn diagnose(
    data_dir: &Path,
    generation: Option<u64>,
    homes: Homes,
    locations: &[KnownLocation],
    state: Option<&StoreState>,
) -> Diagnosis {
    let empty = BTreeMap::new();
    let checkpoints = state.map_or(&empty, |state| &state.checkpoints);
    let no_sessions = BTreeMap::new();
    let held = state.map_or(&no_sessions, |state| &state.sessions);
    let reports: Vec<LocationReport> = locations
        .iter()
        .map(|location| report(location, checkpoints, held))
        .collect();
    Diagnosis {
        data_dir: data_dir.to_path_buf(),
        generation,
        elsewhere: elsewhere(locations, checkpoints),
        locations: reports,
        homes,
    }
}

fn report(
    location: &KnownLocation,
    checkpoints: &BTreeMap<String, Checkpoint>,
    held: &BTreeMap<String, SessionLocation>,
) -> LocationReport {
    let mut report = LocationReport {
        harness: location.source.harness(),
        path: location.path.clone(),
        kind: if location.is_file { "store" } else { "folder" },
        exists: location.exists(),
        origin: location.origin.clone(),
        sources: 0,
        bytes: 0,
        indexed_by_format: BTreeMap::new(),
        sessions: 0,
        skipped: Vec::new(),
    };
    if !report.exists {
        return report;
    }
    let found = survey(&location.path);
    report.sources = found.sources.len();
    report.bytes = found
        .sources
        .iter()
        .chain(&found.encrypted)
        .map(|path| size_of(path))
        .sum();
    let mut skips: BTreeMap<SkipReason, Skip> = BTreeMap::new();
    let mut note = |reason: SkipReason, count: u64, path: &Path| {
        let skip = skips.entry(reason).or_insert_with(|| Skip {
            reason,
            count: 0,
            paths: Vec::new(),
        });
        skip.count += count;
        if skip.paths.len() < LISTED_PATHS {
            skip.paths.push(path.to_path_buf());
        }
    };
    for source in &found.sources {
        match checkpoints.get(&*source.to_string_lossy()) {
            None => note(SkipReason::NotIndexedYet, 1, source),
            Some(checkpoint) if checkpoint.format == UNKNOWN_FORMAT => {
                note(SkipReason::UnknownFormat, 1, source)
            }
            Some(checkpoint) => {
                *report
                    .indexed_by_format
                    .entry(checkpoint.format.clone())
                    .or_default() += 1;
                if checkpoint.malformed_lines > 0 {
                    note(
                        SkipReason::MalformedLines,
                        checkpoint.malformed_lines,
                        source,
                    );
                }
                if is_left_to_cli_copy(checkpoint, source) {
                    note(SkipReason::LeftToCliCopy, 1, source);
                }
            }
        }
    }
    for file in &found.encrypted {
        note(SkipReason::Encrypted, 1, file);
    }
    if found.walk_errors > 0 {
        note(
            SkipReason::Unwalkable,
            found.walk_errors as u64,
            &location.path,
        );
    }
    // A store's own checkpoint names every row it read, a row that gave no session too
    // (unreadable JSON, a torn zstd frame): count only the sessions the store holds.
    report.sessions = sessions_under(&location.path, checkpoints)
        .into_iter()
        .filter(|session| held.contains_key(*session))
        .count();
    report.skipped = skips.into_values().collect();
    report
}

/// Whether a source read is a Devin Desktop log or message store that gave no session because
/// the Devin CLI of the same home indexes the session (checked only for those that gave none).
fn is_left_to_cli_copy(checkpoint: &Checkpoint, source: &Path) -> bool {
    let desktop_formats = [Format::WindsurfAcp.name(), Format::WindsurfAcpDb.name()];
    checkpoint.sessions.is_empty()
        && desktop_formats.contains(&checkpoint.format.as_str())
        && crate::ingest::windsurf_acp::is_left_to_cli_copy(source)
}

/// The sessions of every checkpoint at or under `location` (a store's per-row keys included).
fn sessions_under<'a>(
    location: &Path,
    checkpoints: &'a BTreeMap<String, Checkpoint>,
) -> BTreeSet<&'a str> {
    let canonical = location
        .canonicalize()
        .unwrap_or_else(|_| location.to_path_buf());
    // A SQLite store's own checkpoint names every row it lists, a row left to another file
    // too (a Devin session whose trajectory is written); its per-row checkpoints name the
    // sessions each row gave, so where those exist they are what the store holds.
    let stores_with_rows: BTreeSet<&str> = checkpoints
        .keys()
        .filter_map(|key| key.split_once(ROW_KEY_MARK).map(|(store, _)| store))
        .collect();
    checkpoints
        .iter()
        .filter(|(key, checkpoint)| {
            checkpoint.format != ENCRYPTED_FORMAT
                && is_under(key, &canonical)
                && !stores_with_rows.contains(key.as_str())
        })
        .flat_map(|(_, checkpoint)| checkpoint.sessions.iter().map(String::as_str))
        .collect()
}

/// Whether a checkpoint key names `location` itself or something under it (a SQLite store's
/// per-row keys extend the store's path).
fn is_under(key: &str, location: &Path) -> bool {
    let location = location.to_string_lossy();
    key.strip_prefix(&*location)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '#', '?', ':']))
}

fn elsewhere(locations: &[KnownLocation], checkpoints: &BTreeMap<String, Checkpoint>) -> Elsewhere {
    let roots: Vec<PathBuf> = locations
        .iter()
        .map(|location| {
            location
                .path
                .canonicalize()
                .unwrap_or_else(|_| location.path.clone())
        })
        .collect();
    let mut found = Elsewhere::default();
    let mut sessions = BTreeSet::new();
    for (key, checkpoint) in checkpoints {
        if roots.iter().any(|root| is_under(key, root)) {
            continue;
        }
        sessions.extend(checkpoint.sessions.iter().map(String::as_str));
        if key.contains('#') {
            continue;
        }
        found.sources += 1;
        if found.paths.len() < LISTED_PATHS {
            found.paths.push(PathBuf::from(key));
        }
    }
    found.sessions = sessions.len();
    found
}

fn size_of(path: &Path) -> u64 {
    if path.is_dir() {
        walkdir::WalkDir::new(path)
            .into_iter()
            .filter_map(Result::ok)
            .filter_map(|entry| entry.metadata().ok())
            .filter(|metadata| metadata.is_file())
            .map(|metadata| metadata.len())
            .sum()
    } else {
        std::fs::metadata(path).map_or(0, |metadata| metadata.len())
    }
}
