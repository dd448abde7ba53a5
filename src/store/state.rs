//! Per-generation bookkeeping: a checkpoint per source file and where each session's rows
//! live, committed atomically with the tables. It is sharded, and each shard is a base file
//! plus the deltas written since, so a commit writes what it changes: `state/sNN.json`
//! ([`STATE_SHARDS`] shards) holds the checkpoints whose source path and the sessions whose id
//! hash to shard NN, `state/sNN.dK.json` the entries a later commit changed in it (a removed
//! key as `null`), applied in the order `state.json` lists them. `state.json` holds the scalar
//! fields and that list, and is written last (a generation with it is complete). A commit
//! writes one delta per shard its keys fall in and hard-links every other file from the
//! previous generation; a shard whose deltas reach [`MAX_DELTAS`] files or the size of its
//! base is written whole again (size-tiered, like the Parquet buckets), so a first pass of a
//! million sessions no longer rewrites the whole state at every commit. Nor does it hold the
//! whole state in memory: once a commit has saved its entries, the indexer drops them
//! ([`StoreState::evict`]) and keeps only a 64-bit hash of each key, so a later lookup of one
//! reads its shard again and a lookup of a new key knows it is absent without reading anything.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{StoreError, link_or_copy};

/// The state header (scalar fields); its presence marks a complete generation.
pub(crate) const STATE_FILE: &str = "state.json";
/// The directory of the state shards.
const SHARDS_DIR: &str = "state";
/// How many shards the checkpoints and session locations are split into.
pub const STATE_SHARDS: u64 = 64;
/// Deltas a shard may have before the next commit that changes it writes it whole again.
pub const MAX_DELTAS: usize = 16;

/// What the store knows about one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Size in bytes when last read.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// (device, inode): tells a file replaced under the same name.
    pub device: u64,
    pub inode: u64,
    /// Byte offset just past the last complete line ingested (the whole size for JSON files).
    pub complete_offset: u64,
    /// Hash of bytes `[0, complete_offset)`: tells a rewrite from an append.
    pub content_hash: String,
    /// Recognised format name.
    pub format: String,
    /// Sessions whose rows came from this file.
    pub sessions: Vec<String>,
    /// Malformed complete lines skipped in this file.
    pub malformed_lines: u64,
    /// Hash of the metadata read beside the file (a harness's sidecar: Grok's `summary.json`,
    /// Kiro's `<id>.json`, a Claude sub-agent's `.meta.json`, ...); empty when there is none.
    /// A sidecar that changes while its log does not re-reads the log.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sidecar_hash: String,
}

/// Where one session's rows are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionLocation {
    /// `source=<source>/month=<YYYY-MM>` under `events/`.
    pub partition: String,
    pub source_path: String,
    /// Events the session had when written (decides which of two files giving the same
    /// session wins: the fuller one).
    #[serde(default)]
    pub event_count: u64,
    /// Digest of those events (`store::digest`): a later commit whose first `event_count`
    /// events have the same digest writes only the events after them. `None` in states
    /// written before digests (the next commit of the session rewrites it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_digest: Option<String>,
}

/// The state of one generation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoreState {
    pub checkpoints: BTreeMap<String, Checkpoint>,
    pub sessions: BTreeMap<String, SessionLocation>,
    /// tantivy opstamp of the master index commit that belongs to this generation.
    pub search_opstamp: u64,
    /// Whether secrets were redacted when the logs were read; a pass with the other setting
    /// re-reads every file it is given.
    pub redacted: bool,
    /// The version of the redaction rules the logs were read with (empty when not redacted,
    /// or written before rules were versioned); a pass with other rules re-reads every file.
    pub redaction_rules: String,
    /// Shards of a state loaded with [`StoreState::load_lazily`] not read yet: their keys are
    /// absent from the maps until [`StoreState::ensure_loaded`] reads them.
    pub(crate) pending: PendingShards,
    /// The deltas each shard's base file has in the generation last read or saved.
    pub(crate) files: ShardFiles,
    /// Keys whose entries a commit saved and [`StoreState::evict`] then dropped from memory.
    pub(crate) evicted: EvictedKeys,
}

/// The keys of entries dropped from memory after a commit saved them, as 64-bit hashes by
/// shard: ~10 bytes a key instead of the ~1 KB its checkpoint or location takes (at 10M
/// documents, ~2M keys: ~20 MB instead of ~1.2 GB). A hash that is absent proves the key is
/// not among them; one that is present (the key, or a collision) makes
/// [`StoreState::ensure_loaded`] read the shard again.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EvictedKeys {
    by_shard: BTreeMap<u64, HashSet<u64>>,
}

impl EvictedKeys {
    fn insert(&mut self, key: &str) {
        let (shard, hash) = place_of(key);
        self.by_shard.entry(shard).or_default().insert(hash);
    }

    fn may_hold(&self, shard: u64, hash: u64) -> bool {
        self.by_shard
            .get(&shard)
            .is_some_and(|hashes| hashes.contains(&hash))
    }

    fn is_empty(&self) -> bool {
        self.by_shard.is_empty()
    }

    fn shards(&self) -> impl Iterator<Item = u64> + '_ {
        self.by_shard.keys().copied()
    }
}

/// Which delta files each shard has beyond its base (`state/sNN.dK.json`, oldest first), and
/// the number the next delta gets. Bookkeeping of where the state is stored, not part of what
/// it holds: two states with the same entries are equal whatever their files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ShardFiles {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    deltas: BTreeMap<u64, Vec<u64>>,
    #[serde(default)]
    next_delta: u64,
    /// [`MAX_DELTAS`] unless a benchmark set another limit.
    #[serde(skip)]
    max_deltas: Option<usize>,
}

impl PartialEq for ShardFiles {
    fn eq(&self, _other: &ShardFiles) -> bool {
        true
    }
}

impl ShardFiles {
    fn deltas_of(&self, shard: u64) -> &[u64] {
        self.deltas.get(&shard).map_or(&[], Vec::as_slice)
    }
}

/// The shards of a lazily loaded state not read yet, and the generation holding them (and
/// the evicted entries): the one last read or saved, which links or wrote every shard.
#[derive(Debug, Clone, Default)]
pub(crate) struct PendingShards {
    root: PathBuf,
    shards: BTreeSet<u64>,
}

/// Two states with nothing pending are equal wherever they were read from.
impl PartialEq for PendingShards {
    fn eq(&self, other: &PendingShards) -> bool {
        self.shards == other.shards && (self.shards.is_empty() || self.root == other.root)
    }
}

/// `state.json`: the scalar fields. A store of format 6 or older kept the whole state in it
/// (`checkpoints`, `sessions`), which is still read so an upgrade finds the indexed files.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Header {
    search_opstamp: u64,
    #[serde(default)]
    redacted: bool,
    #[serde(default)]
    redaction_rules: String,
    /// How many shards `state/` holds (0: an unsharded state of an older format).
    #[serde(default)]
    shards: u64,
    #[serde(default, skip_serializing)]
    checkpoints: BTreeMap<String, Checkpoint>,
    #[serde(default, skip_serializing)]
    sessions: BTreeMap<String, SessionLocation>,
    /// The shards' delta files (format 8).
    #[serde(default)]
    files: ShardFiles,
}

/// One shard as read (and as written when its files are merged).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Shard {
    checkpoints: BTreeMap<String, Checkpoint>,
    sessions: BTreeMap<String, SessionLocation>,
}

/// One shard as written, borrowing from the state.
#[derive(Debug, Default, Serialize)]
struct ShardRef<'a> {
    checkpoints: BTreeMap<&'a str, &'a Checkpoint>,
    sessions: BTreeMap<&'a str, &'a SessionLocation>,
}

/// One delta as read: the entries a commit set, `None` for those it removed.
#[derive(Debug, Default, Deserialize)]
struct Delta {
    checkpoints: BTreeMap<String, Option<Checkpoint>>,
    sessions: BTreeMap<String, Option<SessionLocation>>,
}

/// One delta as written, borrowing from the state.
#[derive(Debug, Default, Serialize)]
struct DeltaRef<'a> {
    checkpoints: BTreeMap<&'a str, Option<&'a Checkpoint>>,
    sessions: BTreeMap<&'a str, Option<&'a SessionLocation>>,
}

impl Shard {
    fn apply(&mut self, delta: Delta) {
        apply_entries(&mut self.checkpoints, delta.checkpoints);
        apply_entries(&mut self.sessions, delta.sessions);
    }

    fn apply_borrowed(&mut self, delta: &DeltaRef<'_>) {
        apply_entries(&mut self.checkpoints, owned_changes(&delta.checkpoints));
        apply_entries(&mut self.sessions, owned_changes(&delta.sessions));
    }
}

fn owned_changes<V: Clone>(changes: &BTreeMap<&str, Option<&V>>) -> BTreeMap<String, Option<V>> {
    changes
        .iter()
        .map(|(key, value)| (key.to_string(), value.cloned()))
        .collect()
}

fn apply_entries<V>(entries: &mut BTreeMap<String, V>, changes: BTreeMap<String, Option<V>>) {
    for (key, value) in changes {
        match value {
            Some(value) => entries.insert(key, value),
            None => entries.remove(&key),
        };
    }
}

/// The keys a commit changed (inserted, replaced or removed) in a state.
#[derive(Debug, Default, Clone)]
pub struct ChangedKeys {
    /// Source paths of changed checkpoints.
    pub checkpoints: Vec<String>,
    /// Ids of changed session locations.
    pub sessions: Vec<String>,
}

impl ChangedKeys {
    fn shards(&self) -> BTreeSet<u64> {
        self.checkpoints
            .iter()
            .chain(self.sessions.iter())
            .map(|key| shard_of(key))
            .collect()
    }
}

/// The shard a checkpoint's source path or a session id belongs to.
pub fn shard_of(key: &str) -> u64 {
    place_of(key).0
}

/// A key's shard and the 64-bit hash [`EvictedKeys`] keeps of it (the low bits of the same
/// stable hash).
fn place_of(key: &str) -> (u64, u64) {
    let hash = crate::ids::stable_hash(&[key.as_bytes()]);
    ((hash % u128::from(STATE_SHARDS)) as u64, hash as u64)
}

/// The base file of one shard in a generation.
pub fn shard_path(generation_root: &Path, shard: u64) -> PathBuf {
    generation_root
        .join(SHARDS_DIR)
        .join(format!("s{shard:02}.json"))
}

/// Delta `delta` of one shard in a generation.
pub fn delta_path(generation_root: &Path, shard: u64, delta: u64) -> PathBuf {
    generation_root
        .join(SHARDS_DIR)
        .join(format!("s{shard:02}.d{delta}.json"))
}

fn file_bytes(path: &Path) -> Result<u64, StoreError> {
    Ok(fs::metadata(path).map_err(StoreError::io(path))?.len())
}

fn corrupt(path: &Path) -> impl FnOnce(serde_json::Error) -> StoreError + '_ {
    move |error| StoreError::CorruptState {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

impl StoreState {
    /// Reads the header and every shard (the shards on all cores).
    pub fn load(generation_root: &Path) -> Result<StoreState, StoreError> {
        let mut state = StoreState::load_lazily(generation_root)?;
        state.ensure_all_loaded()?;
        Ok(state)
    }

    /// Reads the header only: the shards are read when a key of theirs is asked for through
    /// [`StoreState::ensure_loaded`]. At a million documents the shards are ~60 MB of JSON
    /// (~0.5 s to parse); a pass over a few files needs a few of them.
    pub fn load_lazily(generation_root: &Path) -> Result<StoreState, StoreError> {
        let path = generation_root.join(STATE_FILE);
        let text = fs::read(&path).map_err(StoreError::io(&path))?;
        let header: Header = serde_json::from_slice(&text).map_err(corrupt(&path))?;
        Ok(StoreState {
            checkpoints: header.checkpoints,
            sessions: header.sessions,
            search_opstamp: header.search_opstamp,
            redacted: header.redacted,
            redaction_rules: header.redaction_rules,
            pending: PendingShards {
                root: generation_root.to_path_buf(),
                shards: (0..header.shards).collect(),
            },
            files: header.files,
            evicted: EvictedKeys::default(),
        })
    }

    /// Reads the shards holding `keys` (checkpoint paths or session ids) that are not read yet,
    /// or whose entry for one of them was evicted. After it, each key's entry is in memory or
    /// the key has none.
    pub fn ensure_loaded<'k>(
        &mut self,
        keys: impl IntoIterator<Item = &'k str>,
    ) -> Result<(), StoreError> {
        if self.pending.shards.is_empty() && self.evicted.is_empty() {
            return Ok(());
        }
        let wanted: BTreeSet<u64> = keys
            .into_iter()
            .map(place_of)
            .filter(|&(shard, hash)| {
                self.pending.shards.contains(&shard) || self.evicted.may_hold(shard, hash)
            })
            .map(|(shard, _)| shard)
            .collect();
        self.read_pending(wanted)
    }

    /// Reads every shard not read yet and every entry evicted.
    pub fn ensure_all_loaded(&mut self) -> Result<(), StoreError> {
        let all = self
            .pending
            .shards
            .iter()
            .copied()
            .chain(self.evicted.shards())
            .collect();
        self.read_pending(all)
    }

    /// Drops the entries of `keys` from memory, keeping a hash of each key: the commit that
    /// just made the current generation saved them there, and [`StoreState::ensure_loaded`]
    /// reads them back when one is asked for. A first pass over millions of files calls it
    /// after each commit, so its state in memory is one batch's entries, not the store's. Only
    /// valid right after a commit (every entry in memory is then the one on disk).
    pub fn evict(&mut self, keys: &ChangedKeys) {
        for path in &keys.checkpoints {
            if self.checkpoints.remove(path).is_some() {
                self.evicted.insert(path);
            }
        }
        for session_id in &keys.sessions {
            if self.sessions.remove(session_id).is_some() {
                self.evicted.insert(session_id);
            }
        }
    }

    /// Sets how many deltas a shard may have (default [`MAX_DELTAS`]); with 1 every changed
    /// shard is written whole, as before format 8 (`benches/state_commit.rs` compares both).
    pub fn set_max_deltas(&mut self, max_deltas: usize) {
        self.files.max_deltas = Some(max_deltas.max(1));
    }

    /// Whether every entry is in memory: every shard read, none evicted.
    pub fn is_fully_loaded(&self) -> bool {
        self.pending.shards.is_empty() && self.evicted.is_empty()
    }

    fn read_pending(&mut self, shards: BTreeSet<u64>) -> Result<(), StoreError> {
        if shards.is_empty() {
            return Ok(());
        }
        let list: Vec<(u64, &[u64])> = shards
            .iter()
            .map(|&shard| (shard, self.files.deltas_of(shard)))
            .collect();
        for shard in load_shards(&self.pending.root, &list)? {
            // Entries already in memory were set by this process and win (an evicted shard's
            // other entries are the same on disk).
            for (path, checkpoint) in shard.checkpoints {
                self.checkpoints.entry(path).or_insert(checkpoint);
            }
            for (session_id, location) in shard.sessions {
                self.sessions.entry(session_id).or_insert(location);
            }
        }
        self.pending.shards.retain(|shard| !shards.contains(shard));
        self.evicted
            .by_shard
            .retain(|shard, _| !shards.contains(shard));
        Ok(())
    }

    /// Writes the whole state into a new generation (a base file per shard, no deltas).
    pub fn save(&mut self, generation_root: &Path) -> Result<(), StoreError> {
        debug_assert!(self.is_fully_loaded(), "saving a partly read state");
        let all: BTreeSet<u64> = (0..STATE_SHARDS).collect();
        self.write_shards(generation_root, &all)?;
        self.files.deltas.clear();
        self.write_header(generation_root)?;
        self.saved_in(generation_root);
        Ok(())
    }

    /// Writes the state into a new generation when it differs from the state of
    /// `previous_root` only at `changed`: each shard holding a changed key gets a delta with
    /// those keys' entries (or is written whole again when its deltas would reach
    /// [`MAX_DELTAS`] or the size of its base); every other file is hard-linked from the
    /// previous generation (a shard it lacks is written whole).
    pub fn save_changed(
        &mut self,
        generation_root: &Path,
        previous_root: &Path,
        changed: &ChangedKeys,
    ) -> Result<(), StoreError> {
        let dirty = changed.shards();
        if let Some(shard) = dirty
            .iter()
            .find(|shard| self.pending.shards.contains(shard))
        {
            return Err(StoreError::CorruptState {
                path: shard_path(generation_root, *shard),
                message: "a commit changed a state shard it never read".to_string(),
            });
        }
        let shards_dir = generation_root.join(SHARDS_DIR);
        fs::create_dir_all(&shards_dir).map_err(StoreError::io(&shards_dir))?;
        let deltas = self.deltas_by_shard(changed);
        let mut new_deltas = Vec::new();
        let mut rewritten = Vec::new();
        let mut from_memory = BTreeSet::new();
        for shard in 0..STATE_SHARDS {
            let previous_base = shard_path(previous_root, shard);
            if !previous_base.is_file() {
                if self.evicted.by_shard.contains_key(&shard) {
                    // Evicted entries were saved in a generation with every shard file.
                    return Err(StoreError::CorruptState {
                        path: previous_base,
                        message: "a state shard whose entries were evicted is missing".to_string(),
                    });
                }
                from_memory.insert(shard);
                continue;
            }
            if let Some(delta) = deltas.get(&shard) {
                let path = delta_path(generation_root, shard, 0);
                let bytes = serde_json::to_vec(delta).map_err(corrupt(&path))?;
                if self.delta_outgrows_base(previous_root, shard, bytes.len() as u64)? {
                    // The previous files and this delta, merged: costs the shard, not the
                    // whole state.
                    let mut merged = load_shard(previous_root, shard, self.files.deltas_of(shard))?;
                    merged.apply_borrowed(delta);
                    let path = shard_path(generation_root, shard);
                    let text = serde_json::to_vec(&merged).map_err(corrupt(&path))?;
                    fs::write(&path, text).map_err(StoreError::io(&path))?;
                    rewritten.push(shard);
                    continue;
                }
                new_deltas.push((shard, bytes));
            }
            link_or_copy(&previous_base, &shard_path(generation_root, shard))?;
            for &number in self.files.deltas_of(shard) {
                link_or_copy(
                    &delta_path(previous_root, shard, number),
                    &delta_path(generation_root, shard, number),
                )?;
            }
        }
        for (shard, bytes) in new_deltas {
            let number = self.files.next_delta;
            self.files.next_delta += 1;
            let path = delta_path(generation_root, shard, number);
            fs::write(&path, bytes).map_err(StoreError::io(&path))?;
            self.files.deltas.entry(shard).or_default().push(number);
        }
        self.write_shards(generation_root, &from_memory)?;
        for shard in rewritten.iter().chain(from_memory.iter()) {
            self.files.deltas.remove(shard);
        }
        self.write_header(generation_root)?;
        self.saved_in(generation_root);
        Ok(())
    }

    /// The delta of each shard holding a changed key: the key's entry, or `None` when the
    /// state no longer has it.
    fn deltas_by_shard<'a>(&'a self, changed: &'a ChangedKeys) -> BTreeMap<u64, DeltaRef<'a>> {
        let mut deltas: BTreeMap<u64, DeltaRef<'_>> = BTreeMap::new();
        for path in &changed.checkpoints {
            let delta = deltas.entry(shard_of(path)).or_default();
            delta.checkpoints.insert(path, self.checkpoints.get(path));
        }
        for session_id in &changed.sessions {
            let delta = deltas.entry(shard_of(session_id)).or_default();
            delta
                .sessions
                .insert(session_id, self.sessions.get(session_id));
        }
        deltas
    }

    /// Whether adding a delta of `delta_bytes` to `shard` should rewrite the shard whole: its
    /// deltas would reach [`MAX_DELTAS`] files or outweigh its base.
    fn delta_outgrows_base(
        &self,
        previous_root: &Path,
        shard: u64,
        delta_bytes: u64,
    ) -> Result<bool, StoreError> {
        let existing = self.files.deltas_of(shard);
        if existing.len() + 1 >= self.files.max_deltas.unwrap_or(MAX_DELTAS) {
            return Ok(true);
        }
        let mut deltas_bytes = delta_bytes;
        for &number in existing {
            deltas_bytes += file_bytes(&delta_path(previous_root, shard, number))?;
        }
        Ok(deltas_bytes >= file_bytes(&shard_path(previous_root, shard))?)
    }

    /// Writes the given shards' base files, each with every entry of the state that belongs
    /// to it.
    fn write_shards(
        &self,
        generation_root: &Path,
        shards: &BTreeSet<u64>,
    ) -> Result<(), StoreError> {
        if shards.is_empty() {
            return Ok(());
        }
        let shards_dir = generation_root.join(SHARDS_DIR);
        fs::create_dir_all(&shards_dir).map_err(StoreError::io(&shards_dir))?;
        let mut contents: BTreeMap<u64, ShardRef<'_>> = shards
            .iter()
            .map(|&shard| (shard, ShardRef::default()))
            .collect();
        for (path, checkpoint) in &self.checkpoints {
            if let Some(shard) = contents.get_mut(&shard_of(path)) {
                shard.checkpoints.insert(path, checkpoint);
            }
        }
        for (session_id, location) in &self.sessions {
            if let Some(shard) = contents.get_mut(&shard_of(session_id)) {
                shard.sessions.insert(session_id, location);
            }
        }
        for (shard, content) in contents {
            let path = shard_path(generation_root, shard);
            let text = serde_json::to_vec(&content).map_err(corrupt(&path))?;
            fs::write(&path, text).map_err(StoreError::io(&path))?;
        }
        Ok(())
    }

    /// Records that `generation_root` now holds every shard (written or linked): shards not
    /// read yet and evicted entries are read from it from now on.
    fn saved_in(&mut self, generation_root: &Path) {
        self.pending.root = generation_root.to_path_buf();
    }

    /// Writes `state.json`, the last file of a generation's state.
    fn write_header(&self, generation_root: &Path) -> Result<(), StoreError> {
        let path = generation_root.join(STATE_FILE);
        let header = Header {
            search_opstamp: self.search_opstamp,
            redacted: self.redacted,
            redaction_rules: self.redaction_rules.clone(),
            shards: STATE_SHARDS,
            files: self.files.clone(),
            ..Header::default()
        };
        let text = serde_json::to_vec(&header).map_err(corrupt(&path))?;
        fs::write(&path, text).map_err(StoreError::io(&path))
    }
}

/// Reads the given shards of a generation (each its base and deltas), spread over the
/// available cores.
fn load_shards(generation_root: &Path, shards: &[(u64, &[u64])]) -> Result<Vec<Shard>, StoreError> {
    let workers = std::thread::available_parallelism()
        .map(|cores| cores.get())
        .unwrap_or(1)
        .clamp(1, shards.len().max(1));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                scope.spawn(move || {
                    shards
                        .iter()
                        .skip(worker)
                        .step_by(workers)
                        .map(|(shard, deltas)| load_shard(generation_root, *shard, deltas))
                        .collect::<Result<Vec<Shard>, StoreError>>()
                })
            })
            .collect();
        let mut loaded = Vec::new();
        for handle in handles {
            let shards = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            loaded.extend(shards);
        }
        Ok(loaded)
    })
}

fn load_shard(generation_root: &Path, shard: u64, deltas: &[u64]) -> Result<Shard, StoreError> {
    let mut loaded: Shard = read_json(&shard_path(generation_root, shard))?;
    for &number in deltas {
        loaded.apply(read_json(&delta_path(generation_root, shard, number))?);
    }
    Ok(loaded)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, StoreError> {
    let text = fs::read(path).map_err(StoreError::io(path))?;
    serde_json::from_slice(&text).map_err(corrupt(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(size: u64, sessions: &[&str]) -> Checkpoint {
        Checkpoint {
            sidecar_hash: String::new(),
            size,
            mtime_ns: 1,
            device: 2,
            inode: 3,
            complete_offset: size,
            content_hash: format!("h{size}"),
            format: "claude".to_string(),
            sessions: sessions.iter().map(|id| id.to_string()).collect(),
            malformed_lines: 0,
        }
    }

    fn location(source_path: &str) -> SessionLocation {
        SessionLocation {
            partition: "source=claude/month=2026-04".to_string(),
            source_path: source_path.to_string(),
            event_count: 4,
            events_digest: Some(format!("d{source_path}")),
        }
    }

    fn state_of(files: u64) -> StoreState {
        let mut state = StoreState {
            search_opstamp: 7,
            redacted: true,
            redaction_rules: "r1".to_string(),
            ..StoreState::default()
        };
        for file in 0..files {
            let path = format!("/logs/{file}.jsonl");
            let session = format!("ses_{file:032x}");
            state
                .checkpoints
                .insert(path.clone(), checkpoint(file, &[&session]));
            state.sessions.insert(session, location(&path));
        }
        state
    }

    #[test]
    fn a_saved_state_loads_back_equal() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut state = state_of(300);
        state.save(dir.path()).expect("save");
        assert_eq!(StoreState::load(dir.path()).expect("load"), state);
        for shard in 0..STATE_SHARDS {
            assert!(shard_path(dir.path(), shard).is_file(), "shard {shard}");
        }
    }

    #[test]
    fn an_unsharded_state_of_an_older_format_still_loads() {
        let dir = tempfile::tempdir().expect("temp dir");
        let old = serde_json::json!({
            "checkpoints": {"/logs/a.jsonl": checkpoint(5, &["ses_a"])},
            "sessions": {"ses_a": location("/logs/a.jsonl")},
            "search_opstamp": 3,
        });
        fs::write(dir.path().join(STATE_FILE), old.to_string()).expect("write");
        let state = StoreState::load(dir.path()).expect("load");
        assert_eq!(state.search_opstamp, 3);
        assert_eq!(
            state.checkpoints["/logs/a.jsonl"],
            checkpoint(5, &["ses_a"])
        );
        assert_eq!(state.sessions["ses_a"], location("/logs/a.jsonl"));
    }

    #[test]
    fn a_changed_save_writes_deltas_of_the_changed_shards_and_links_every_other_file() {
        use std::os::unix::fs::MetadataExt;
        let previous = tempfile::tempdir().expect("temp dir");
        let next = tempfile::tempdir().expect("temp dir");
        let mut state = state_of(200);
        state.save(previous.path()).expect("save");
        let path = "/logs/7.jsonl".to_string();
        state.checkpoints.insert(path.clone(), checkpoint(99, &[]));
        state
            .sessions
            .remove("ses_00000000000000000000000000000007");
        state.search_opstamp = 8;
        let changed = ChangedKeys {
            checkpoints: vec![path.clone()],
            sessions: vec!["ses_00000000000000000000000000000007".to_string()],
        };
        state
            .save_changed(next.path(), previous.path(), &changed)
            .expect("save changed");
        assert_eq!(StoreState::load(next.path()).expect("load"), state);
        let inode =
            |root: &Path, shard| fs::metadata(shard_path(root, shard)).expect("shard").ino();
        for shard in 0..STATE_SHARDS {
            assert_eq!(
                inode(previous.path(), shard),
                inode(next.path(), shard),
                "base {shard} linked"
            );
            let deltas = state.files.deltas_of(shard);
            assert_eq!(
                deltas.len(),
                usize::from(changed.shards().contains(&shard)),
                "shard {shard}"
            );
            for &number in deltas {
                assert!(delta_path(next.path(), shard, number).is_file());
            }
        }
    }

    /// Commits one changed key at a time through `generations` and checks every one reads
    /// back equal; returns the last generation.
    fn commit_each(
        state: &mut StoreState,
        generations: &tempfile::TempDir,
        changes: impl IntoIterator<Item = (String, Option<Checkpoint>)>,
    ) -> PathBuf {
        let mut previous = generations.path().join("g0");
        fs::create_dir_all(&previous).expect("g0");
        state.save(&previous).expect("save");
        for (number, (path, checkpoint)) in changes.into_iter().enumerate() {
            match checkpoint {
                Some(checkpoint) => state.checkpoints.insert(path.clone(), checkpoint),
                None => state.checkpoints.remove(&path),
            };
            let root = generations.path().join(format!("g{}", number + 1));
            fs::create_dir_all(&root).expect("generation");
            let changed = ChangedKeys {
                checkpoints: vec![path],
                sessions: Vec::new(),
            };
            state
                .save_changed(&root, &previous, &changed)
                .expect("save changed");
            assert_eq!(&StoreState::load(&root).expect("load"), state);
            previous = root;
        }
        previous
    }

    #[test]
    fn deltas_apply_in_order_removals_included_and_a_shard_is_rewritten_at_the_limit() {
        let generations = tempfile::tempdir().expect("temp dir");
        let mut state = state_of(400);
        let shard = shard_of("/logs/0.jsonl");
        let same_shard: Vec<String> = (0..400)
            .map(|file| format!("/logs/{file}.jsonl"))
            .filter(|path| shard_of(path) == shard)
            .collect();
        assert!(same_shard.len() >= 2, "two files in one shard");
        // Grow, shrink, remove and restore entries of one shard, one commit each, past the
        // delta limit; the same key changes several times.
        let changes: Vec<(String, Option<Checkpoint>)> = (0..MAX_DELTAS as u64 + 3)
            .map(|round| {
                let path = same_shard[round as usize % 2].clone();
                let checkpoint = (round % 3 != 2).then(|| checkpoint(1000 + round, &["s"]));
                (path, checkpoint)
            })
            .collect();
        let commits = changes.len();
        let last = commit_each(&mut state, &generations, changes);
        let deltas = state.files.deltas_of(shard).len();
        assert!(
            deltas < MAX_DELTAS && deltas < commits,
            "{commits} commits leave {deltas} deltas: the shard was rewritten whole"
        );
        let on_disk = fs::read_dir(last.join(SHARDS_DIR))
            .expect("shards")
            .filter(|entry| {
                let name = entry.as_ref().expect("entry").file_name();
                name.to_string_lossy().starts_with(&format!("s{shard:02}."))
            })
            .count();
        assert_eq!(on_disk, 1 + deltas, "the base and its listed deltas only");
        // A lazy reader of the last generation reads the shard's deltas too.
        let mut lazy = StoreState::load_lazily(&last).expect("header");
        lazy.ensure_loaded([same_shard[0].as_str(), same_shard[1].as_str()])
            .expect("read the shard");
        for path in &same_shard[..2] {
            assert_eq!(lazy.checkpoints.get(path), state.checkpoints.get(path));
        }
    }

    #[test]
    fn a_delta_that_outweighs_its_base_rewrites_the_shard() {
        let generations = tempfile::tempdir().expect("temp dir");
        let mut state = state_of(2);
        let path = "/logs/0.jsonl".to_string();
        let mut big = checkpoint(5, &[]);
        big.sessions = (0..200).map(|number| format!("ses_{number:040}")).collect();
        commit_each(&mut state, &generations, [(path.clone(), Some(big))]);
        assert!(state.files.deltas_of(shard_of(&path)).is_empty());
    }

    #[test]
    fn a_missing_shard_is_reported_not_ignored() {
        let dir = tempfile::tempdir().expect("temp dir");
        state_of(10).save(dir.path()).expect("save");
        fs::remove_file(shard_path(dir.path(), 5)).expect("remove");
        assert!(StoreState::load(dir.path()).is_err());
    }

    #[test]
    fn a_lazy_state_reads_only_the_shards_asked_for_and_commits_like_a_full_one() {
        let previous = tempfile::tempdir().expect("temp dir");
        let next = tempfile::tempdir().expect("temp dir");
        let mut full = state_of(200);
        full.save(previous.path()).expect("save");

        let mut lazy = StoreState::load_lazily(previous.path()).expect("load header");
        assert!(lazy.checkpoints.is_empty() && lazy.sessions.is_empty());
        assert_eq!(lazy.search_opstamp, 7);
        let path = "/logs/7.jsonl".to_string();
        let session = "ses_00000000000000000000000000000007".to_string();
        lazy.ensure_loaded([path.as_str(), session.as_str()])
            .expect("read two shards");
        assert_eq!(lazy.checkpoints[&path], full.checkpoints[&path]);
        assert_eq!(lazy.sessions[&session], full.sessions[&session]);
        let read: BTreeSet<u64> = [shard_of(&path), shard_of(&session)].into();
        let in_read_shards = |key: &String| read.contains(&shard_of(key));
        assert!(lazy.checkpoints.keys().all(in_read_shards));
        assert!(lazy.sessions.keys().all(in_read_shards));

        // The same change on both; a key of an unread shard cannot be committed.
        let changed = ChangedKeys {
            checkpoints: vec![path.clone()],
            sessions: vec![session.clone()],
        };
        for state in [&mut full, &mut lazy] {
            state.checkpoints.insert(path.clone(), checkpoint(99, &[]));
            state.sessions.remove(&session);
        }
        let unread = (0..200)
            .map(|file| format!("/logs/{file}.jsonl"))
            .find(|key| !read.contains(&shard_of(key)))
            .expect("a key in another shard");
        let too_wide = ChangedKeys {
            checkpoints: vec![unread],
            sessions: Vec::new(),
        };
        assert!(
            lazy.save_changed(next.path(), previous.path(), &too_wide)
                .is_err()
        );
        lazy.save_changed(next.path(), previous.path(), &changed)
            .expect("save changed");
        assert_eq!(StoreState::load(next.path()).expect("load"), full);
        lazy.ensure_all_loaded().expect("read the rest");
        assert_eq!(lazy, full);
    }

    #[test]
    fn evicted_entries_are_read_back_when_asked_for_and_new_keys_read_nothing() {
        let previous = tempfile::tempdir().expect("temp dir");
        let next = tempfile::tempdir().expect("temp dir");
        let mut full = state_of(200);
        full.save(previous.path()).expect("save");
        let mut state = StoreState::load(previous.path()).expect("load");
        let path_of = |file: u64| format!("/logs/{file}.jsonl");
        let session_of = |file: u64| format!("ses_{file:032x}");
        let committed = ChangedKeys {
            checkpoints: (0..150).map(path_of).collect(),
            sessions: (0..150).map(session_of).collect(),
        };
        state.evict(&committed);
        assert_eq!(state.checkpoints.len(), 50);
        assert_eq!(state.sessions.len(), 50);
        assert!(!state.is_fully_loaded());

        // Keys never stored are known absent: no shard is read.
        let new_keys: Vec<String> = (1000..1200).map(path_of).collect();
        state
            .ensure_loaded(new_keys.iter().map(String::as_str))
            .expect("nothing to read");
        assert_eq!(state.checkpoints.len(), 50);

        // An evicted key reads its shard back: every entry of that shard, equal to the saved.
        let asked = session_of(7);
        state.ensure_loaded([asked.as_str()]).expect("read back");
        assert_eq!(state.sessions[&asked], full.sessions[&asked]);
        let shard = shard_of(&asked);
        for (key, location) in &full.sessions {
            let back = state.sessions.get(key);
            if shard_of(key) == shard {
                assert_eq!(back, Some(location), "{key}");
            } else if committed.sessions.contains(key) {
                assert_eq!(back, None, "{key} stays evicted");
            }
        }

        // A commit over an evicted state saves the same as one over the whole state.
        let changed = ChangedKeys {
            checkpoints: vec![path_of(3), path_of(1000)],
            sessions: vec![session_of(3)],
        };
        state
            .ensure_loaded(
                changed
                    .checkpoints
                    .iter()
                    .chain(&changed.sessions)
                    .map(String::as_str),
            )
            .expect("read the changed keys' shards");
        for state in [&mut full, &mut state] {
            state.checkpoints.insert(path_of(3), checkpoint(77, &[]));
            state.checkpoints.insert(path_of(1000), checkpoint(78, &[]));
            state.sessions.remove(&session_of(3));
        }
        state
            .save_changed(next.path(), previous.path(), &changed)
            .expect("save changed");
        assert_eq!(StoreState::load(next.path()).expect("load"), full);
        state
            .ensure_all_loaded()
            .expect("read every evicted entry back");
        assert!(state.is_fully_loaded());
        assert_eq!(state, full);
    }
}
