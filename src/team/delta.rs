//! Each table of a published dataset is a Delta Lake table (`<URL>/<table>/_delta_log/`),
//! written with delta-rs: a machine's publish is one commit per table that adds the machine's
//! new files and removes those it no longer has, so Spark, Trino, Athena, Snowflake, DuckDB
//! and `deltalake` read each table's latest publish atomically, with partition pruning by
//! `machine` (and `source`, `month` for `events`). Machines commit concurrently: a commit that
//! loses the race to the next log version is retried on top of the winner (delta-rs's conflict
//! checker; machines touch disjoint partitions), and the log's put-if-absent is S3's
//! `If-None-Match` (conditional put), a local rename elsewhere.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType as ArrowType, SchemaRef};
use deltalake_core::kernel::transaction::{CommitBuilder, CommitProperties, TransactionError};
use deltalake_core::kernel::{
    Action, Add, DataType, MetadataExt, Remove, StructField, StructType,
    Transaction as AppTransaction,
};
use deltalake_core::logstore::{LogStoreRef, StorageConfig, default_logstore};
use deltalake_core::operations::create::CreateBuilder;
use deltalake_core::protocol::{DeltaOperation, SaveMode};
use deltalake_core::{DeltaTable, DeltaTableError};
use futures::TryStreamExt;
use object_store::prefix::PrefixStore;

use super::TeamError;
use super::remote::Remote;
use crate::query::{EVENT_PARTITION_COLUMNS, declared_schema};

/// Commit attempts on top of other machines' commits that delta-rs makes itself (a winner
/// that only added files).
const MAX_RETRIES: usize = 50;
/// Plans made again from the latest version after a conflict delta-rs does not resolve: a
/// winner that removed files (delta-rs without its DataFusion feature cannot tell they were
/// another machine's partition) or a second creation of the table.
const MAX_REPLANS: u32 = 100;
/// The application id of a machine's commits (`txn` action, version = its store generation):
/// `SELECT` the generation a table holds for each machine from the log.
pub fn app_id(machine: &str) -> String {
    format!("esker-{machine}")
}

/// One data file of a table, as the machine publishes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFile {
    /// Path under the table's directory: `machine=<id>/source=<s>/month=<m>/part-<hash>.parquet`.
    pub path: String,
    pub size: u64,
    pub rows: u64,
}

impl TableFile {
    /// The partition values its directory names (`machine`, `source`, `month`).
    fn partition_values(&self) -> HashMap<String, Option<String>> {
        self.path
            .split('/')
            .filter_map(|part| part.split_once('='))
            .map(|(key, value)| (key.to_string(), Some(value.to_string())))
            .collect()
    }
}

/// What a machine's commit to one table did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableCommit {
    /// The table's log version after the commit (the version read when nothing changed).
    pub version: Option<u64>,
    pub added: usize,
    pub removed: usize,
}

/// The partition columns of a published table, `machine` first.
pub fn partition_columns(table: &str) -> Vec<String> {
    let mut columns = vec!["machine".to_string()];
    if table == "events" {
        columns.extend(EVENT_PARTITION_COLUMNS.iter().map(|name| name.to_string()));
    }
    columns
}

/// The log store of `table` in the dataset (its root: `<URL>/<table>`).
pub fn log_store(remote: &Remote, table: &str) -> Result<LogStoreRef, TeamError> {
    let location = url::Url::parse(&format!("{}/", remote.url_of(table).trim_end_matches('/')))
        .map_err(|error| TeamError::Usage(format!("bad table URL for {table}: {error}")))?;
    let prefixed = Arc::new(PrefixStore::new(remote.store.clone(), remote.path(table)));
    Ok(default_logstore(
        prefixed,
        remote.store.clone(),
        &location,
        &StorageConfig::default(),
    ))
}

/// Whether `table` of the dataset has a Delta log yet.
pub async fn is_table(remote: &Remote, table: &str) -> Result<bool, TeamError> {
    log_store(remote, table)?
        .is_delta_table_location()
        .await
        .map_err(|error| delta_failure(remote, table, error))
}

/// Makes `table`'s data files for `machine` exactly `files`: one commit adding those not in
/// the table and removing the machine's others, tagged with the machine's `generation`.
/// Nothing is committed when the table already holds exactly these files.
pub async fn commit_machine_files(
    remote: &Remote,
    table: &str,
    machine: &str,
    generation: u64,
    files: &[TableFile],
) -> Result<TableCommit, TeamError> {
    let mut attempt = 0;
    loop {
        let outcome = prepare(remote, table, machine, generation, files)
            .await?
            .commit()
            .await;
        match outcome {
            Err(TeamError::DeltaConflict { .. }) if attempt < MAX_REPLANS => {
                attempt += 1;
                tokio::time::sleep(replan_pause(attempt)).await;
            }
            outcome => return outcome,
        }
    }
}

/// A pause before planning a conflicting commit again: growing with the attempt, offset by
/// the process so that machines that collided do not collide again in step.
fn replan_pause(attempt: u32) -> std::time::Duration {
    let millis = (25 * u64::from(attempt)).min(1000) + u64::from(std::process::id() % 25);
    std::time::Duration::from_millis(millis)
}

/// A machine's commit to one table, planned on the version it read.
pub struct PreparedCommit<'a> {
    remote: &'a Remote,
    table: String,
    machine: String,
    generation: u64,
    store: LogStoreRef,
    delta: DeltaTable,
    actions: Vec<Action>,
    added: usize,
    removed: usize,
}

/// Reads the table's latest version (creating the table on its first publish) and plans the
/// machine's commit on it.
pub async fn prepare<'a>(
    remote: &'a Remote,
    table: &str,
    machine: &str,
    generation: u64,
    files: &[TableFile],
) -> Result<PreparedCommit<'a>, TeamError> {
    let failed = |error: DeltaTableError| delta_failure(remote, table, error);
    let store = log_store(remote, table)?;
    let delta = open_or_create(remote, table, store.clone()).await?;
    let present: HashMap<String, Remove> = delta
        .snapshot()
        .map_err(failed)?
        .snapshot()
        .file_views(store.as_ref(), None)
        .try_filter_map(|view| {
            let of_machine = view
                .partition_values_map()
                .get("machine")
                .is_some_and(|value| value.as_deref() == Some(machine));
            let entry = of_machine.then(|| (view.path().into_owned(), view.remove_action(true)));
            futures::future::ready(Ok(entry))
        })
        .try_collect()
        .await
        .map_err(failed)?;
    let wanted: HashSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
    let now = chrono::Utc::now().timestamp_millis();
    let mut actions: Vec<Action> = files
        .iter()
        .filter(|file| !present.contains_key(&file.path))
        .map(|file| Action::Add(add_action(file, now)))
        .collect();
    let added = actions.len();
    if let Some(metadata) = evolved_metadata(remote, table, &delta).await? {
        actions.push(Action::Metadata(metadata));
    }
    let mut removed = 0;
    for (path, remove) in present {
        if !wanted.contains(path.as_str()) {
            actions.push(Action::Remove(Remove {
                deletion_timestamp: Some(now),
                ..remove
            }));
            removed += 1;
        }
    }
    Ok(PreparedCommit {
        remote,
        table: table.to_string(),
        machine: machine.to_string(),
        generation,
        store,
        delta,
        actions,
        added,
        removed,
    })
}

impl PreparedCommit<'_> {
    /// Commits the plan: at the next version, or, when other machines only added files since
    /// it was read, on top of theirs. A [`TeamError::DeltaConflict`] when a winner removed
    /// files or changed the table's metadata: plan again.
    pub async fn commit(self) -> Result<TableCommit, TeamError> {
        let failed = |error: DeltaTableError| delta_failure(self.remote, &self.table, error);
        if self.actions.is_empty() {
            return Ok(TableCommit {
                version: self.delta.version(),
                added: 0,
                removed: 0,
            });
        }
        let properties = CommitProperties::default()
            .with_application_transaction(AppTransaction::new(
                app_id(&self.machine),
                self.generation as i64,
            ))
            .with_max_retries(MAX_RETRIES);
        let operation = DeltaOperation::Write {
            mode: SaveMode::Append,
            partition_by: Some(partition_columns(&self.table)),
            predicate: Some(format!("machine = '{}'", self.machine.replace('\'', "''"))),
        };
        let snapshot = self.delta.snapshot().map_err(failed)?;
        let committed = CommitBuilder::from(properties)
            .with_actions(self.actions.clone())
            .build(Some(snapshot), self.store.clone(), operation)
            .await
            .map_err(failed)?;
        Ok(TableCommit {
            version: Some(committed.version()),
            added: self.added,
            removed: self.removed,
        })
    }
}

/// The paths of `table`'s data files in its latest version, by machine (for readers that
/// want the Delta view of the dataset and for tests).
pub async fn files_by_machine(
    remote: &Remote,
    table: &str,
) -> Result<Option<BTreeMap<String, Vec<String>>>, TeamError> {
    let failed = |error: DeltaTableError| delta_failure(remote, table, error);
    let store = log_store(remote, table)?;
    if !store.is_delta_table_location().await.map_err(failed)? {
        return Ok(None);
    }
    let mut delta = DeltaTable::new(store.clone());
    delta.load().await.map_err(failed)?;
    let views: Vec<_> = delta
        .snapshot()
        .map_err(failed)?
        .snapshot()
        .file_views(store.as_ref(), None)
        .try_collect()
        .await
        .map_err(failed)?;
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for view in views {
        let machine = view
            .partition_values_map()
            .get("machine")
            .cloned()
            .flatten()
            .unwrap_or_default();
        files
            .entry(machine)
            .or_default()
            .push(view.path().into_owned());
    }
    for paths in files.values_mut() {
        paths.sort();
    }
    Ok(Some(files))
}

/// The table, created with the declared schema on its first publish. Two machines creating
/// it at once both succeed: the one whose first commit loses reads the winner's.
async fn open_or_create(
    remote: &Remote,
    table: &str,
    store: LogStoreRef,
) -> Result<DeltaTable, TeamError> {
    let failed = |error: DeltaTableError| delta_failure(remote, table, error);
    if !store.is_delta_table_location().await.map_err(failed)? {
        let columns = delta_columns(table).await?;
        let created = CreateBuilder::new()
            .with_log_store(store.clone())
            .with_table_name(table)
            .with_comment(format!(
                "esker's `{table}` table (tables/{table}.sql), one partition per machine"
            ))
            .with_columns(columns)
            .with_partition_columns(partition_columns(table))
            .with_save_mode(SaveMode::Ignore)
            .await;
        match created {
            Ok(delta) => return Ok(delta),
            // Another machine's creation won the first version: use its table.
            Err(error) if !store.is_delta_table_location().await.unwrap_or(false) => {
                return Err(failed(error));
            }
            Err(_) => {}
        }
    }
    let mut delta = DeltaTable::new(store);
    delta.load().await.map_err(failed)?;
    Ok(delta)
}

/// The table's metadata with the declared columns it lacks added (nullable: the files
/// already in it have no values for them), or `None` when it has them all: how a table
/// follows esker's schema when a newer esker publishes new columns. Columns are only added,
/// never dropped or retyped (an esker that changes a column's type changes its store format,
/// and readers leave such machines out).
async fn evolved_metadata(
    remote: &Remote,
    table: &str,
    delta: &DeltaTable,
) -> Result<Option<deltalake_core::kernel::Metadata>, TeamError> {
    let failed = |error: DeltaTableError| delta_failure(remote, table, error);
    let snapshot = delta.snapshot().map_err(failed)?;
    let current = snapshot.schema();
    let missing: Vec<StructField> = delta_columns(table)
        .await?
        .into_iter()
        .filter(|column| current.field(column.name()).is_none())
        .map(|column| StructField::new(column.name(), column.data_type().clone(), true))
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let evolved = StructType::try_new(current.fields().cloned().chain(missing))
        .map_err(|error| failed(DeltaTableError::from(error)))?;
    let metadata = snapshot
        .metadata()
        .clone()
        .with_schema(&evolved)
        .map_err(|error| failed(DeltaTableError::from(error)))?;
    Ok(Some(metadata))
}

/// The Delta columns of `table`: the declared ones (`tables/<table>.sql`, timestamps as
/// Delta's microsecond `timestamp`), then the partition columns, `machine` first.
async fn delta_columns(table: &str) -> Result<Vec<StructField>, TeamError> {
    let schema: SchemaRef = declared_schema(table).await?;
    let partitions = partition_columns(table);
    let mut columns = Vec::with_capacity(schema.fields().len() + 1);
    for field in schema.fields() {
        if partitions.contains(field.name()) {
            continue;
        }
        columns.push(StructField::new(
            field.name(),
            delta_type(table, field.name(), field.data_type())?,
            field.is_nullable(),
        ));
    }
    for name in partitions {
        columns.push(StructField::new(name, DataType::STRING, false));
    }
    Ok(columns)
}

/// The Delta type of a declared column type.
fn delta_type(table: &str, column: &str, data_type: &ArrowType) -> Result<DataType, TeamError> {
    Ok(match data_type {
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => DataType::STRING,
        ArrowType::Int32 => DataType::INTEGER,
        ArrowType::Int64 => DataType::LONG,
        ArrowType::Boolean => DataType::BOOLEAN,
        ArrowType::Float64 => DataType::DOUBLE,
        ArrowType::Timestamp(_, Some(_)) => DataType::TIMESTAMP,
        other => {
            return Err(TeamError::Usage(format!(
                "{table}.{column}: no Delta type for {other}"
            )));
        }
    })
}

fn add_action(file: &TableFile, now_millis: i64) -> Add {
    Add {
        path: file.path.clone(),
        partition_values: file.partition_values(),
        size: file.size as i64,
        modification_time: now_millis,
        data_change: true,
        stats: Some(format!("{{\"numRecords\":{}}}", file.rows)),
        tags: None,
        deletion_vector: None,
        base_row_id: None,
        default_row_commit_version: None,
        clustering_provider: None,
    }
}

fn delta_failure(remote: &Remote, table: &str, error: DeltaTableError) -> TeamError {
    let conflict = matches!(
        &error,
        DeltaTableError::Transaction {
            source: TransactionError::CommitConflict(_) | TransactionError::MaxCommitAttempts(_),
        }
    );
    let message = format!("Delta table {table}: {}", super::one_line(&error));
    if conflict {
        TeamError::DeltaConflict {
            url: remote.display.clone(),
            message,
        }
    } else {
        TeamError::Remote {
            url: remote.display.clone(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_come_from_the_directories() {
        let file = TableFile {
            path: "machine=ci-1/source=codex/month=2026-11/part-ab.parquet".into(),
            size: 10,
            rows: 2,
        };
        let values = file.partition_values();
        assert_eq!(values.len(), 3);
        assert_eq!(values["machine"].as_deref(), Some("ci-1"));
        assert_eq!(values["source"].as_deref(), Some("codex"));
        assert_eq!(values["month"].as_deref(), Some("2026-11"));
        let add = add_action(&file, 5);
        assert_eq!(add.stats.as_deref(), Some("{\"numRecords\":2}"));
    }

    fn file(machine: &str, name: &str) -> TableFile {
        TableFile {
            path: format!("machine={machine}/part-{name}.parquet"),
            size: 10,
            rows: 1,
        }
    }

    #[tokio::test]
    async fn a_machine_that_loses_the_race_for_a_version_commits_on_top_of_the_winner() {
        let dir = tempfile::tempdir().unwrap();
        let remote = Remote::open(dir.path().to_str().unwrap()).unwrap();
        let created = commit_machine_files(&remote, "turns", "a", 1, &[file("a", "1")])
            .await
            .unwrap();
        assert_eq!((created.added, created.removed), (1, 0));
        // Both read the same version; `a` adds a file first, `b` goes on top of it.
        let both = [file("a", "1"), file("a", "2")];
        let a = prepare(&remote, "turns", "a", 2, &both).await.unwrap();
        let b = prepare(&remote, "turns", "b", 7, &[file("b", "1")])
            .await
            .unwrap();
        let first = a.commit().await.unwrap();
        assert_eq!((first.added, first.removed), (1, 0));
        let second = b.commit().await.unwrap();
        assert_eq!(second.version, first.version.map(|version| version + 1));
        // A winner that removed a file: the loser's plan conflicts, and is made again.
        let a = prepare(&remote, "turns", "a", 3, &[file("a", "3")])
            .await
            .unwrap();
        let b = prepare(&remote, "turns", "b", 8, &[file("b", "2")])
            .await
            .unwrap();
        assert_eq!(a.commit().await.unwrap().removed, 2);
        let conflict = b.commit().await.unwrap_err();
        assert!(
            matches!(conflict, TeamError::DeltaConflict { .. }),
            "{conflict}"
        );
        let second = commit_machine_files(&remote, "turns", "b", 8, &[file("b", "2")])
            .await
            .unwrap();
        assert_eq!((second.added, second.removed), (1, 1));
        let files = files_by_machine(&remote, "turns").await.unwrap().unwrap();
        assert_eq!(files["a"], ["machine=a/part-3.parquet"]);
        assert_eq!(files["b"], ["machine=b/part-2.parquet"]);
        // The same files again: no commit.
        let again = commit_machine_files(&remote, "turns", "b", 8, &[file("b", "2")])
            .await
            .unwrap();
        assert_eq!((again.added, again.removed), (0, 0));
        assert_eq!(again.version, second.version);
    }

    /// A table an older esker created (here without `cwd`) gains the column at the next
    /// publish, nullable, its files and partitioning kept; a publish with nothing new adds no
    /// metadata again.
    #[tokio::test]
    async fn a_table_missing_a_declared_column_gains_it_at_the_next_publish() {
        let dir = tempfile::tempdir().unwrap();
        let remote = Remote::open(dir.path().to_str().unwrap()).unwrap();
        let store = log_store(&remote, "sessions").unwrap();
        let older: Vec<StructField> = delta_columns("sessions")
            .await
            .unwrap()
            .into_iter()
            .filter(|column| column.name() != "cwd")
            .collect();
        CreateBuilder::new()
            .with_log_store(store.clone())
            .with_columns(older)
            .with_partition_columns(partition_columns("sessions"))
            .await
            .unwrap();
        let schema_now = || async {
            let mut delta = DeltaTable::new(log_store(&remote, "sessions").unwrap());
            delta.load().await.unwrap();
            let snapshot = delta.snapshot().unwrap();
            (
                snapshot.schema(),
                snapshot.metadata().partition_columns().to_vec(),
            )
        };
        assert!(schema_now().await.0.field("cwd").is_none());
        commit_machine_files(&remote, "sessions", "a", 1, &[file("a", "1")])
            .await
            .unwrap();
        let (schema, partitions) = schema_now().await;
        let cwd = schema.field("cwd").expect("the new column");
        assert!(cwd.is_nullable());
        assert_eq!(partitions, partition_columns("sessions"));
        let declared = delta_columns("sessions").await.unwrap();
        assert_eq!(schema.fields().count(), declared.len());
        let files = files_by_machine(&remote, "sessions")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(files["a"], ["machine=a/part-1.parquet"]);
        let mut delta = DeltaTable::new(store);
        delta.load().await.unwrap();
        assert!(
            evolved_metadata(&remote, "sessions", &delta)
                .await
                .unwrap()
                .is_none()
        );
    }

    #[tokio::test]
    async fn machines_creating_a_table_at_once_both_land_in_it() {
        let dir = tempfile::tempdir().unwrap();
        let remote = Remote::open(dir.path().to_str().unwrap()).unwrap();
        let (a_files, b_files) = ([file("a", "1")], [file("b", "1")]);
        let (a, b) = tokio::join!(
            commit_machine_files(&remote, "sessions", "a", 1, &a_files),
            commit_machine_files(&remote, "sessions", "b", 1, &b_files),
        );
        a.unwrap();
        b.unwrap();
        let files = files_by_machine(&remote, "sessions")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(files.keys().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[tokio::test]
    async fn every_table_has_delta_columns_with_its_partitions_last() {
        for table in crate::store::TABLES {
            let columns = delta_columns(table).await.unwrap();
            let names: Vec<&str> = columns
                .iter()
                .map(|column| column.name().as_str())
                .collect();
            let partitions = partition_columns(table);
            assert_eq!(
                &names[names.len() - partitions.len()..],
                partitions.iter().map(String::as_str).collect::<Vec<_>>(),
                "{table}"
            );
            assert!(
                names.iter().filter(|name| **name == "machine").count() == 1,
                "{table}: {names:?}"
            );
        }
    }
}
