//! `esker pull URL`: a local store (tables + search index) holding every machine of a
//! published dataset, so `esker serve --no-index` answers for the whole team. Incremental by
//! manifest: files already pulled are hard-linked into the next generation, only new files
//! are downloaded, and only the sessions of changed files are re-indexed. A pull is one
//! commit: `current` flips to a complete generation or stays where it was.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use datafusion::arrow::datatypes::TimeUnit;
use futures::StreamExt;
use object_store::ObjectStoreExt;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;

use super::TeamError;
use super::event_rows::read_event_rows;
use super::manifest::{Manifest, read_manifests};
use super::remote::Remote;
use super::timestamps::rewrite_timestamps;
use crate::model::{EventType, Source};
use crate::search::writer::{SearchWriter, publish};
use crate::store::parquet_io::read_string_column;
use crate::store::state::StoreState;
use crate::store::{Store, StoreError, WriterLock};

/// The tables a pull brings (memory entries stay personal: `memories` is carried forward).
const PULLED_TABLES: [&str; 4] = ["events", "turns", "sessions", "file_touches"];
/// What a generation of a pulled store holds, per machine (in the generation directory).
const PULL_RECORD: &str = "pulled.json";

/// The pull record of a generation: the dataset and, per machine, its pulled files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct PullRecord {
    url: String,
    machines: BTreeMap<String, PulledMachine>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
struct PulledMachine {
    generation: u64,
    published_at: String,
    /// Dataset-relative path -> path relative to the generation directory.
    files: BTreeMap<String, String>,
}

impl PullRecord {
    fn load(generation_root: &Path) -> PullRecord {
        fs::read(generation_root.join(PULL_RECORD))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn save(&self, generation_root: &Path) -> Result<(), TeamError> {
        let path = generation_root.join(PULL_RECORD);
        let text = serde_json::to_vec_pretty(self).map_err(|error| TeamError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(error),
        })?;
        fs::write(&path, text).map_err(TeamError::io(path.display()))
    }

    /// Every pulled file: dataset path -> local path.
    fn files(&self) -> BTreeMap<&str, &str> {
        self.machines
            .values()
            .flat_map(|machine| machine.files.iter())
            .map(|(remote, local)| (remote.as_str(), local.as_str()))
            .collect()
    }
}

/// What one pull did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullSummary {
    /// `None` when the store already matched every manifest.
    pub generation: Option<u64>,
    pub machines: usize,
    pub files: usize,
    pub downloaded_files: usize,
    pub downloaded_bytes: u64,
    pub removed_files: usize,
    pub indexed_events: usize,
}

impl fmt::Display for PullSummary {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.generation {
            None => write!(
                formatter,
                "{} machine(s), {} file(s): up to date",
                self.machines, self.files
            ),
            Some(generation) => write!(
                formatter,
                "{} machine(s), {} file(s): downloaded {} ({} bytes), removed {}, indexed {} \
                 event(s); generation {generation}",
                self.machines,
                self.files,
                self.downloaded_files,
                self.downloaded_bytes,
                self.removed_files,
                self.indexed_events
            ),
        }
    }
}

/// Brings `store` to the dataset's manifests. `wait` is how long to wait for another writer.
pub async fn pull(
    store: &Store,
    remote: &Remote,
    wait: std::time::Duration,
) -> Result<PullSummary, TeamError> {
    let manifests = read_manifests(remote).await?;
    let _lock = WriterLock::acquire_waiting(store, "esker pull", wait)?;
    let previous = store.current()?;
    let record = PullRecord::load(&previous.root);
    if !record.url.is_empty() && record.url != remote.display {
        return Err(TeamError::Usage(format!(
            "{} was pulled from {}, not {}: pull into another data dir",
            store.data_dir().display(),
            record.url,
            remote.display
        )));
    }
    if record.url.is_empty() && holds_indexed_history(&previous.root) {
        return Err(TeamError::Usage(format!(
            "{} holds indexed history; pull into a data dir of its own (e.g. --data-dir {}-team)",
            store.data_dir().display(),
            store.data_dir().display()
        )));
    }
    let wanted = wanted_record(remote, &manifests);
    let mut summary = PullSummary {
        machines: manifests.len(),
        files: wanted.files().len(),
        ..PullSummary::default()
    };
    if wanted.machines == record.machines
        && previous
            .root
            .join(crate::store::state::STATE_FILE)
            .is_file()
    {
        return Ok(summary);
    }
    let generation = store.highest_generation_on_disk()?.max(previous.generation) + 1;
    let root = store.generation_dir(generation);
    if root.exists() {
        fs::remove_dir_all(&root).map_err(StoreError::io(&root))?;
    }
    fs::create_dir_all(&root).map_err(StoreError::io(&root))?;
    crate::store::write_format(&root)?;
    for table in PULLED_TABLES {
        fs::create_dir_all(root.join(table)).map_err(StoreError::io(root.join(table)))?;
    }
    let old_files = record.files();
    let new_files = wanted.files();
    for (remote_path, local) in &new_files {
        let target = root.join(local);
        match old_files.get(remote_path) {
            Some(old_local) => link(&previous.root.join(old_local), &target)?,
            None => {
                let unit = published_unit(&manifests, remote_path);
                summary.downloaded_bytes += download(remote, remote_path, &target, unit).await?;
                summary.downloaded_files += 1;
            }
        }
    }
    let removed: Vec<PathBuf> = old_files
        .iter()
        .filter(|(remote_path, _)| !new_files.contains_key(*remote_path))
        .map(|(_, local)| previous.root.join(local))
        .collect();
    summary.removed_files = removed.len();
    let added: HashSet<&str> = new_files
        .iter()
        .filter(|(remote_path, _)| !old_files.contains_key(*remote_path))
        .map(|(_, local)| *local)
        .collect();
    let state = StoreState::load(&previous.root).unwrap_or_default();
    let (opstamp, indexed) = reindex(
        store,
        &previous.root,
        &root,
        state.search_opstamp,
        &removed,
        &added,
    )?;
    summary.indexed_events = indexed;
    crate::memory::fold::fold_into(store, &previous.root, &root, generation).await?;
    StoreState {
        search_opstamp: opstamp,
        ..StoreState::default()
    }
    .save(&root)?;
    wanted.save(&root)?;
    store.flip_current(generation)?;
    store.remove_old_generations(generation, previous.generation)?;
    summary.generation = Some(generation);
    Ok(summary)
}

/// Whether a generation holds rows that did not come from a pull (an indexed store).
fn holds_indexed_history(generation_root: &Path) -> bool {
    events_files(&generation_root.join("events")).is_ok_and(|files| !files.is_empty())
}

/// The record the manifests call for: each file at its local path.
fn wanted_record(remote: &Remote, manifests: &BTreeMap<String, Manifest>) -> PullRecord {
    let machines = manifests
        .iter()
        .map(|(machine, manifest)| {
            let files = manifest
                .files
                .iter()
                .filter(|file| {
                    PULLED_TABLES
                        .iter()
                        .any(|table| file.path.starts_with(&format!("{table}/")))
                })
                .filter_map(|file| Some((file.path.clone(), local_path(&file.path, machine)?)))
                .collect();
            let pulled = PulledMachine {
                generation: manifest.generation,
                published_at: manifest.published_at.clone(),
                files,
            };
            (machine.clone(), pulled)
        })
        .collect();
    PullRecord {
        url: remote.display.clone(),
        machines,
    }
}

/// The ids of the sessions a pulled generation holds from `machines` (a team server's token
/// scope), read from the generation's pull record and those machines' `sessions` files; none
/// for a generation that was not pulled or a machine it does not hold.
pub fn sessions_of_machines(
    generation_root: &Path,
    machines: &[String],
) -> Result<HashSet<String>, TeamError> {
    let record = PullRecord::load(generation_root);
    let mut sessions = HashSet::new();
    for pulled in machines.iter().filter_map(|name| record.machines.get(name)) {
        for local in pulled.files.values() {
            if local.starts_with("sessions/") {
                sessions.extend(read_string_column(
                    &generation_root.join(local),
                    "session_id",
                )?);
            }
        }
    }
    Ok(sessions)
}

/// The machines a pulled generation holds (none for a store that was not pulled).
pub fn pulled_machines(generation_root: &Path) -> Vec<String> {
    PullRecord::load(generation_root)
        .machines
        .into_keys()
        .collect()
}

/// `events/machine=a/source=codex/month=2026-04/part-H.parquet` ->
/// `events/source=codex/month=2026-04/pulled-a-H.parquet` (the local layout; not a
/// `part-bNN-` name, so the turn lookup reads pulled `turns` through SQL).
fn local_path(remote_path: &str, machine: &str) -> Option<String> {
    let mut parts: Vec<&str> = remote_path.split('/').collect();
    let machine_part = format!("machine={machine}");
    let position = parts.iter().position(|part| *part == machine_part)?;
    parts.remove(position);
    let name = parts.pop()?;
    let hash = name.strip_prefix("part-")?.strip_suffix(".parquet")?;
    let safe_part = |part: &str| !part.is_empty() && !part.starts_with('.');
    if hash.is_empty()
        || !hash
            .chars()
            .all(|character| character.is_ascii_alphanumeric())
        || !parts.iter().all(|part| safe_part(part))
    {
        return None;
    }
    let file = format!("pulled-{machine}-{hash}.parquet");
    parts.push(&file);
    Some(parts.join("/"))
}

fn link(from: &Path, to: &Path) -> Result<(), TeamError> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
    }
    fs::hard_link(from, to)
        .or_else(|_| fs::copy(from, to).map(|_| ()))
        .map_err(|error| StoreError::io(to)(error).into())
}

/// The timestamp unit of a published file: that of its machine's manifest.
fn published_unit(manifests: &BTreeMap<String, Manifest>, remote_path: &str) -> TimeUnit {
    remote_path
        .split('/')
        .find_map(|part| part.strip_prefix("machine="))
        .and_then(|machine| manifests.get(machine))
        .map_or(TimeUnit::Nanosecond, Manifest::timestamp_unit)
}

/// Downloads one object to `target` (through a temporary file), its timestamps brought from
/// `unit` to the store's nanoseconds; returns its size in the dataset.
async fn download(
    remote: &Remote,
    remote_path: &str,
    target: &Path,
    unit: TimeUnit,
) -> Result<u64, TeamError> {
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
    }
    let failed = |error: object_store::Error| TeamError::Remote {
        url: remote.display.clone(),
        message: format!(
            "reading {remote_path}: {} (a publish may have replaced it: pull again)",
            super::one_line(&error)
        ),
    };
    let result = remote
        .store
        .get(&remote.path(remote_path))
        .await
        .map_err(failed)?;
    let temporary = target.with_extension("download");
    let mut file = tokio::fs::File::create(&temporary)
        .await
        .map_err(TeamError::io(temporary.display()))?;
    let mut stream = result.into_stream();
    let mut size = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(failed)?;
        size += chunk.len() as u64;
        file.write_all(&chunk)
            .await
            .map_err(TeamError::io(temporary.display()))?;
    }
    file.flush()
        .await
        .map_err(TeamError::io(temporary.display()))?;
    drop(file);
    if unit == TimeUnit::Nanosecond {
        fs::rename(&temporary, target).map_err(StoreError::io(target))?;
    } else {
        let table = remote_path.split('/').next().unwrap_or_default();
        let rewritten = rewrite_timestamps(table, &temporary, target, TimeUnit::Nanosecond);
        let _ = fs::remove_file(&temporary);
        rewritten?;
    }
    Ok(size)
}

/// Updates the master search index: the sessions of removed event files are deleted, the
/// events of added files indexed (and those of unchanged files for sessions that were
/// deleted), then the commit is published into `root/tantivy`. Returns the opstamp and the
/// events indexed.
fn reindex(
    store: &Store,
    previous_root: &Path,
    root: &Path,
    expected_opstamp: u64,
    removed: &[PathBuf],
    added: &HashSet<&str>,
) -> Result<(u64, usize), TeamError> {
    let master = store.master_index_dir();
    let mut writer = SearchWriter::open(&master, &previous_root.join("tantivy"), expected_opstamp)?;
    let mut deleted: HashSet<String> = HashSet::new();
    for file in removed
        .iter()
        .filter(|file| is_events_file(file, previous_root))
    {
        deleted.extend(read_string_column(file, "session_id")?);
    }
    for session_id in &deleted {
        writer.delete_session(session_id);
    }
    let mut indexed = 0;
    let mut written: HashSet<String> = HashSet::new();
    for file in events_files(&root.join("events"))? {
        let relative = file
            .strip_prefix(root)
            .map(|path| path.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_new = added.contains(relative.as_str());
        if !is_new && read_string_column(&file, "session_id")?.is_disjoint(&deleted) {
            continue;
        }
        let (source, month) = partition_of(&file)?;
        for event in read_event_rows(&file, source, &month)? {
            let wanted = is_new || deleted.contains(&event.session_id);
            if wanted
                && event.event_type != EventType::Unknown
                && written.insert(event.event_id.clone())
            {
                writer.add_event(&event)?;
                indexed += 1;
            }
        }
    }
    let opstamp = writer.commit()?;
    writer.finish()?;
    publish(&master, &root.join("tantivy"))?;
    Ok((opstamp, indexed))
}

fn is_events_file(file: &Path, root: &Path) -> bool {
    file.strip_prefix(root.join("events")).is_ok()
}

/// The Parquet files under an `events/` directory, sorted.
fn events_files(events_dir: &Path) -> Result<Vec<PathBuf>, TeamError> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(events_dir).sort_by_file_name() {
        let entry = entry.map_err(|error| TeamError::Io {
            path: events_dir.display().to_string(),
            source: error.into(),
        })?;
        if entry.file_type().is_file()
            && entry
                .path()
                .extension()
                .is_some_and(|extension| extension == "parquet")
        {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

/// The `source=…/month=…` of an events file, from its directories.
fn partition_of(file: &Path) -> Result<(Source, String), TeamError> {
    let value = |directory: Option<&Path>, key: &str| {
        directory
            .and_then(|directory| directory.file_name()?.to_str())
            .and_then(|name| name.strip_prefix(key))
            .map(str::to_string)
    };
    let month_dir = file.parent();
    let source_dir = month_dir.and_then(Path::parent);
    let month = value(month_dir, "month=");
    let source = value(source_dir, "source=").and_then(|source| Source::parse(&source));
    match (source, month) {
        (Some(source), Some(month)) => Ok((source, month)),
        _ => Err(TeamError::BadManifest {
            path: file.display().to_string(),
            message: "an events file outside source=…/month=… (or of an unknown source)"
                .to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_paths_map_to_the_local_layout() {
        assert_eq!(
            local_path(
                "events/machine=a/source=codex/month=2026-04/part-ab12.parquet",
                "a"
            )
            .as_deref(),
            Some("events/source=codex/month=2026-04/pulled-a-ab12.parquet")
        );
        assert_eq!(
            local_path("turns/machine=ci-1/part-ff.parquet", "ci-1").as_deref(),
            Some("turns/pulled-ci-1-ff.parquet")
        );
        assert_eq!(local_path("turns/machine=b/part-ff.parquet", "a"), None);
        assert_eq!(local_path("turns/machine=a/../part-ff.parquet", "a"), None);
        assert_eq!(
            crate::store::commit::bucket_of_file(Path::new("pulled-part-b01-ff.parquet")),
            None
        );
    }
}
