//! The per-machine manifest (`_manifests/<machine>.json`): every file of the machine's latest
//! published generation. Written last by `publish`; the only list esker readers trust.

use std::collections::BTreeMap;

use datafusion::arrow::datatypes::TimeUnit;
use futures::TryStreamExt;
use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use super::TeamError;
use super::remote::Remote;

pub const MANIFEST_DIR: &str = "_manifests";
/// Version of the manifest layout. 2: the files hold microsecond timestamps and each table
/// is also a Delta Lake table (`crate::team::delta`); 1: nanosecond files, no Delta log.
pub const MANIFEST_FORMAT: u32 = 2;
/// The oldest manifest layout this esker reads.
pub const OLDEST_MANIFEST_FORMAT: u32 = 1;

/// One published file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Dataset-relative path: `events/machine=a/source=codex/month=2026-04/part-<hash>.parquet`.
    pub path: String,
    pub size: u64,
}

/// One machine's latest publish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub manifest_format: u32,
    pub machine: String,
    /// The store format (`crate::store::FORMAT_VERSION`) of the published tables.
    pub store_format: u32,
    /// The local generation that was published.
    pub generation: u64,
    pub published_at: String,
    /// Sorted by path.
    pub files: Vec<ManifestFile>,
    /// Files of earlier publishes this one replaced, kept in the dataset for readers still on
    /// an older Delta version or manifest until `since` is older than the publisher's
    /// retention (`esker publish --keep-replaced`); a later publish deletes them. Sorted by path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<RetiredFile>,
}

/// A file no longer named by its machine's manifest, and since when (RFC 3339).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetiredFile {
    pub path: String,
    pub since: String,
}

impl Manifest {
    pub fn relative_path(machine: &str) -> String {
        format!("{MANIFEST_DIR}/{machine}.json")
    }

    /// Whether both name the same files, live and retired (the publish time and generation
    /// aside).
    pub fn same_files(&self, other: &Manifest) -> bool {
        self.files == other.files
            && self.retired == other.retired
            && self.store_format == other.store_format
    }

    /// The unit of the timestamps in its files (a store's are nanoseconds).
    pub fn timestamp_unit(&self) -> TimeUnit {
        if self.manifest_format >= 2 {
            TimeUnit::Microsecond
        } else {
            TimeUnit::Nanosecond
        }
    }

    /// The files of one table, by dataset-relative path.
    pub fn files_of<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a ManifestFile> + 'a {
        let prefix = format!("{table}/");
        self.files
            .iter()
            .filter(move |file| file.path.starts_with(&prefix))
    }

    /// Replaces the machine's manifest (a single PUT: atomic on every object store).
    pub async fn write(&self, remote: &Remote) -> Result<(), TeamError> {
        let text = serde_json::to_vec_pretty(self).map_err(|error| TeamError::BadManifest {
            path: Manifest::relative_path(&self.machine),
            message: error.to_string(),
        })?;
        remote
            .store
            .put(
                &remote.path(&Manifest::relative_path(&self.machine)),
                PutPayload::from(text),
            )
            .await
            .map_err(|error| remote.failure(&error))?;
        Ok(())
    }
}

/// The manifest of `machine`, `None` when it never published.
pub async fn read_manifest(remote: &Remote, machine: &str) -> Result<Option<Manifest>, TeamError> {
    let relative = Manifest::relative_path(machine);
    match remote.store.get(&remote.path(&relative)).await {
        Ok(result) => {
            let bytes = result
                .bytes()
                .await
                .map_err(|error| remote.failure(&error))?;
            parse(&relative, &bytes).map(Some)
        }
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(error) => Err(remote.failure(&error)),
    }
}

/// Every machine's manifest, by machine id, leaving out (with a warning) machines that
/// published another store format; an error when none is left.
pub async fn read_manifests(remote: &Remote) -> Result<BTreeMap<String, Manifest>, TeamError> {
    let listed: Vec<_> = remote
        .store
        .list(Some(&remote.path(MANIFEST_DIR)))
        .try_collect()
        .await
        .map_err(|error| remote.failure(&error))?;
    let mut manifests = BTreeMap::new();
    for meta in listed {
        let Some(relative) = remote.relative(&meta.location) else {
            continue;
        };
        if !relative.ends_with(".json") {
            continue;
        }
        let bytes = remote
            .store
            .get(&meta.location)
            .await
            .map_err(|error| remote.failure(&error))?
            .bytes()
            .await
            .map_err(|error| remote.failure(&error))?;
        let manifest = parse(&relative, &bytes)?;
        if !crate::store::is_readable_format(manifest.store_format) {
            tracing::warn!(
                "machine {} published store format {} (this esker reads {}): left out until \
                 it publishes again with this esker",
                manifest.machine,
                manifest.store_format,
                crate::store::FORMAT_VERSION
            );
            continue;
        }
        manifests.insert(manifest.machine.clone(), manifest);
    }
    if manifests.is_empty() {
        return Err(TeamError::NoDataset(remote.display.clone()));
    }
    Ok(manifests)
}

fn parse(relative: &str, bytes: &[u8]) -> Result<Manifest, TeamError> {
    let bad = |message: String| TeamError::BadManifest {
        path: relative.to_string(),
        message,
    };
    let manifest: Manifest =
        serde_json::from_slice(bytes).map_err(|error| bad(error.to_string()))?;
    if !(OLDEST_MANIFEST_FORMAT..=MANIFEST_FORMAT).contains(&manifest.manifest_format) {
        return Err(bad(format!(
            "manifest format {} (this esker reads {OLDEST_MANIFEST_FORMAT} to {MANIFEST_FORMAT})",
            manifest.manifest_format
        )));
    }
    Ok(manifest)
}
