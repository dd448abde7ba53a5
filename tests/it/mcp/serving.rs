//! DataFusion as the server runs it (issue #21): the Parquet files are laid out for located
//! lookups (declared sort, small pages, page statistics, bloom filters, no dictionary on the
//! wide columns, no codec on the columns zstd barely shrinks), and the runtime's metadata cache keeps serving a file across a commit that
//! hard-links it into the next generation, and the in-memory index tables are carried into
//! the next generation with only the buckets its commit rewrote read again.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::parquet::basic::Compression;
use datafusion::parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use esker::mcp::server::EskerServer;
use esker::model::Source;
use esker::query::serving::metadata_hits;
use esker::service::catalog::{AnswerPath, Catalog, NamedQuery, WarmSnapshot};
use esker::service::directory::{
    SESSION_INDEX_COLUMNS, TURN_BY_ID, TURN_INDEX_COLUMNS, TURN_NEIGHBOURHOOD,
};
use esker::store::Store;
use esker::store::commit::turn_bucket;
use serde_json::{Value, json};

use crate::support::{fixture_store, fixtures_dir, index_into, query_rows};

fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .collect()
}

fn column_index(
    metadata: &datafusion::parquet::file::metadata::ParquetMetaData,
    name: &str,
) -> usize {
    metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|column| column.name() == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn event_files_are_laid_out_for_located_lookups() {
    let root = Store::open(fixture_store())
        .unwrap()
        .current()
        .unwrap()
        .root;
    let files = parquet_files(&root.join("events"));
    assert!(!files.is_empty());
    for path in files {
        let file = File::open(&path).unwrap();
        let metadata = ParquetMetaDataReader::new()
            .with_page_index_policy(PageIndexPolicy::Optional)
            .parse_and_finish(&file)
            .unwrap();
        let (session, seq, text, event_id, kind, terminal) = (
            column_index(&metadata, "session_id"),
            column_index(&metadata, "seq"),
            column_index(&metadata, "text"),
            column_index(&metadata, "event_id"),
            column_index(&metadata, "type"),
            column_index(&metadata, "terminal"),
        );
        let column_index_of = metadata.column_index().expect("a column index");
        for (group_index, group) in metadata.row_groups().iter().enumerate() {
            let sorted: Vec<(i32, bool)> = group
                .sorting_columns()
                .expect("declared sort")
                .iter()
                .map(|column| (column.column_idx, column.descending))
                .collect();
            assert_eq!(sorted, [(session as i32, false), (seq as i32, false)]);
            assert!(group.column(event_id).bloom_filter_offset().is_some());
            assert!(group.column(session).bloom_filter_offset().is_some());
            // Text and ids in zstd; the columns it barely shrinks without a codec to build.
            assert!(matches!(
                group.column(text).compression(),
                Compression::ZSTD(_)
            ));
            assert!(matches!(
                group.column(event_id).compression(),
                Compression::ZSTD(_)
            ));
            assert_eq!(group.column(kind).compression(), Compression::UNCOMPRESSED);
            assert_eq!(
                group.column(terminal).compression(),
                Compression::UNCOMPRESSED
            );
            assert_eq!(
                group.column(text).dictionary_page_offset(),
                None,
                "{}: text has no dictionary",
                path.display()
            );
            let indexes = &column_index_of[group_index];
            assert!(
                !matches!(
                    indexes[seq],
                    datafusion::parquet::file::page_index::column_index::ColumnIndexMetaData::NONE
                ),
                "page statistics on seq"
            );
            assert!(
                matches!(
                    indexes[text],
                    datafusion::parquet::file::page_index::column_index::ColumnIndexMetaData::NONE
                ),
                "no page statistics on text"
            );
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Copies of the codex and claude fixture logs, and a store of the codex ones alone: indexing
/// `logs/claude` into it later commits a second generation.
fn codex_store_with_claude_to_come() -> (tempfile::TempDir, tempfile::TempDir) {
    let logs = tempfile::tempdir().unwrap();
    for source in ["codex", "claude"] {
        copy_dir(&fixtures_dir().join(source), &logs.path().join(source));
    }
    let data = tempfile::tempdir().unwrap();
    index_into(data.path(), &[&logs.path().join("codex")]);
    (logs, data)
}

/// The cached footers of codex events files and how often each was reused.
fn codex_event_file_hits(
    catalog_runtime: &datafusion::execution::runtime_env::RuntimeEnv,
) -> Vec<(String, usize)> {
    metadata_hits(catalog_runtime)
        .into_iter()
        .filter(|(path, _)| path.contains("events/source=codex"))
        .collect()
}

#[tokio::test]
async fn cached_footers_survive_a_commit_that_hard_links_their_files() {
    let (logs, data) = codex_store_with_claude_to_come();
    let event_id = query_rows(
        data.path(),
        "SELECT event_id FROM events WHERE source = 'codex' ORDER BY event_id LIMIT 1",
    )[0]["event_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let catalog = Catalog::open(data.path()).unwrap();
    let runtime = Arc::clone(catalog.runtime());
    let server = EskerServer::new(catalog);
    let before = open(&server, &event_id).await;
    assert!(!before.is_error, "{}", before.text);
    let before_commit = codex_event_file_hits(&runtime);
    let (opened_file, hits_before) = before_commit
        .iter()
        .max_by_key(|(_, hits)| *hits)
        .cloned()
        .expect("the opened event's footer is cached");
    assert!(hits_before > 0, "{before_commit:?}");
    let first_generation = Store::open(data.path())
        .unwrap()
        .current()
        .unwrap()
        .generation;

    index_into(data.path(), &[&logs.path().join("claude")]);
    let store = Store::open(data.path()).unwrap();
    assert!(store.current().unwrap().generation > first_generation);
    let after = open(&server, &event_id).await;
    assert_eq!(strip_timing(after.envelope), strip_timing(before.envelope));
    let after_commit = codex_event_file_hits(&runtime);
    assert!(
        after_commit
            .iter()
            .all(|(path, _)| !path.contains("generations/g")),
        "cache keys leave the generation out: {after_commit:?}"
    );
    let hits_after = after_commit
        .iter()
        .find(|(path, _)| *path == opened_file)
        .map(|(_, hits)| *hits);
    // A miss would have re-read the footer and reset the entry's hits to 0 (`put`).
    assert!(
        hits_after > Some(hits_before),
        "the next generation read the hard-linked file's cached footer: \
         {before_commit:?} then {after_commit:?}"
    );
}

async fn open(server: &EskerServer, id: &str) -> esker::service::envelope::ToolReply {
    let arguments = json!({"id": id}).as_object().unwrap().clone();
    server.call("open", &arguments).await.expect("known tool")
}

fn strip_timing(mut envelope: Value) -> Value {
    if let Value::Object(map) = &mut envelope {
        map.remove("performance");
        if let Some(Value::Object(data)) = map.get_mut("data") {
            data.remove("coverage");
        }
    }
    envelope
}

/// A serving context over `snapshot` on a runtime of its own.
async fn serving_context(
    snapshot: &esker::store::Snapshot,
) -> (
    esker::query::serving::ServingRuntime,
    datafusion::prelude::SessionContext,
) {
    let runtime =
        esker::query::serving::serving_runtime_within(esker::indexer::run::DEFAULT_MEMORY_LIMIT)
            .unwrap();
    let serving = esker::query::serving_context_for(snapshot, &runtime)
        .await
        .unwrap();
    (runtime, serving)
}

/// The physical plan of `sql` in `context`.
async fn physical_plan(
    context: &datafusion::prelude::SessionContext,
    sql: &str,
) -> Arc<dyn datafusion::physical_plan::ExecutionPlan> {
    context
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

/// The Parquet files a physical plan reads, by name.
fn files_in_plan(plan: &dyn datafusion::physical_plan::ExecutionPlan) -> Vec<String> {
    let text = datafusion::physical_plan::displayable(plan)
        .indent(true)
        .to_string();
    text.split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
        .filter(|word| word.ends_with(".parquet"))
        .map(str::to_owned)
        .collect()
}

async fn rows_of(context: &datafusion::prelude::SessionContext, sql: &str) -> Vec<String> {
    let batches = context.sql(sql).await.unwrap().collect().await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_keyed_scan_opens_only_the_files_holding_the_sessions_it_names() {
    let logs = tempfile::tempdir().unwrap();
    let day = Path::new("codex/sessions/2026/03/14");
    let fixtures: Vec<PathBuf> = parquet_free_files(&fixtures_dir().join(day));
    assert_eq!(fixtures.len(), 2, "two codex sessions of one month");
    std::fs::create_dir_all(logs.path().join(day)).unwrap();
    let data = tempfile::tempdir().unwrap();
    // One commit per session: the partition `source=codex/month=2026-03` holds two files.
    for fixture in &fixtures {
        std::fs::copy(
            fixture,
            logs.path().join(day).join(fixture.file_name().unwrap()),
        )
        .unwrap();
        index_into(data.path(), &[&logs.path().join("codex")]);
    }
    let snapshot = Store::open(data.path()).unwrap().current().unwrap();
    let partition = snapshot.root.join("events/source=codex/month=2026-03");
    assert_eq!(parquet_files(&partition).len(), 2);
    let sessions: Vec<String> = query_rows(
        data.path(),
        "SELECT DISTINCT session_id FROM events ORDER BY session_id",
    )
    .iter()
    .map(|row| row["session_id"].as_str().unwrap().to_owned())
    .collect();
    assert_eq!(sessions.len(), 2);

    let (runtime, serving) = serving_context(&snapshot).await;
    let analytic = esker::query::context_at(&snapshot.root).await.unwrap();
    for session in &sessions {
        for sql in [
            format!(
                "SELECT event_id, seq, text FROM events WHERE session_id = '{session}' ORDER BY seq"
            ),
            format!(
                "SELECT event_id, seq FROM events WHERE array_has(['{session}', 'session:none'], \
                 session_id) AND seq > 1 ORDER BY seq"
            ),
            format!(
                "SELECT turn_id, ordinal FROM turns WHERE session_id = '{session}' ORDER BY ordinal"
            ),
        ] {
            let plan = physical_plan(&serving, &sql).await;
            let table = if sql.contains("FROM turns") {
                "turns"
            } else {
                "events"
            };
            let holding: Vec<PathBuf> = parquet_files(&snapshot.root.join(table))
                .into_iter()
                .filter(|file| {
                    let reader = File::open(file).unwrap();
                    let batches: Vec<_> =
                        datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(
                            reader, 8192,
                        )
                        .unwrap()
                        .map(Result::unwrap)
                        .collect();
                    batches.iter().any(|batch| {
                        let column = batch.column_by_name("session_id").unwrap();
                        let column = datafusion::arrow::compute::cast(
                            column,
                            &datafusion::arrow::datatypes::DataType::Utf8,
                        )
                        .unwrap();
                        let strings = datafusion::arrow::array::AsArray::as_string::<i32>(&column);
                        strings.iter().any(|value| value == Some(session.as_str()))
                    })
                })
                .collect();
            let read = files_in_plan(plan.as_ref());
            assert_eq!(
                read.len(),
                holding.len(),
                "{sql}: reads {read:?}, holding {holding:?}"
            );
            assert!(
                holding.iter().all(|file| read.iter().any(|name| file
                    .to_str()
                    .unwrap()
                    .ends_with(name.trim_start_matches('/')))),
                "{sql}: reads {read:?}, holding {holding:?}"
            );
            let answer = rows_of(&serving, &sql).await;
            assert!(answer.len() > 4, "{sql}: {answer:?}");
            assert_eq!(answer, rows_of(&analytic, &sql).await, "{sql}");
        }
    }
    assert!(runtime.file_keys.cached_files() >= 2);
    let unkeyed = physical_plan(
        &serving,
        "SELECT count(*) FROM events WHERE source = 'codex' AND month = '2026-03' AND seq > 0",
    )
    .await;
    assert_eq!(
        files_in_plan(unkeyed.as_ref()).len(),
        2,
        "no key: every file of the partition"
    );
}

fn parquet_free_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[tokio::test]
async fn a_keyed_scan_of_a_bucketed_table_reads_the_keys_of_its_bucket_only() {
    let snapshot = Store::open(fixture_store()).unwrap().current().unwrap();
    let session: String = query_rows(
        fixture_store(),
        "SELECT session_id FROM sessions ORDER BY session_id LIMIT 1",
    )[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let bucket = esker::store::commit::turn_bucket(&session);
    let files = parquet_files(&snapshot.root.join("sessions"));
    let of_bucket = files
        .iter()
        .filter(|file| esker::store::commit::bucket_of_file(file) == Some(bucket))
        .count();
    assert!(of_bucket >= 1 && files.len() > of_bucket, "{files:?}");

    let (runtime, serving) = serving_context(&snapshot).await;
    let sql = format!("SELECT session_id, title FROM sessions WHERE session_id = '{session}'");
    assert_eq!(rows_of(&serving, &sql).await.len(), 5, "one row in a table");
    // Only the files of the session's bucket had their keys read.
    assert_eq!(runtime.file_keys.cached_files(), of_bucket);
}

/// The scan at the bottom of `plan` (its first leaf).
fn leaf_scan(
    plan: &Arc<dyn datafusion::physical_plan::ExecutionPlan>,
) -> Arc<dyn datafusion::physical_plan::ExecutionPlan> {
    match plan.children().first() {
        Some(child) => leaf_scan(child),
        None => Arc::clone(plan),
    }
}

/// The conjuncts of the filters of a logical plan.
fn filters_of(plan: &datafusion::logical_expr::LogicalPlan) -> Vec<datafusion::logical_expr::Expr> {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    let mut filters = Vec::new();
    plan.apply(|node| {
        if let datafusion::logical_expr::LogicalPlan::Filter(filter) = node {
            filters.extend(datafusion::logical_expr::utils::split_conjunction_owned(
                filter.predicate.clone(),
            ));
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .unwrap();
    filters
}

/// Partition filters are evaluated once per partition of the generation's file list: the
/// scan reads every file of the partitions they keep and no other, and answers what the
/// analytic context (DataFusion's own listing table) answers.
#[tokio::test]
async fn a_serving_scan_reads_the_files_of_the_partitions_its_filters_keep() {
    let snapshot = Store::open(fixture_store()).unwrap().current().unwrap();
    let analytic = esker::query::context_at(&snapshot.root).await.unwrap();
    let partitions: Vec<(String, String)> = query_rows(
        fixture_store(),
        "SELECT DISTINCT source, month FROM events ORDER BY source, month",
    )
    .iter()
    .map(|row| {
        (
            row["source"].as_str().unwrap().to_owned(),
            row["month"].as_str().unwrap().to_owned(),
        )
    })
    .collect();
    assert!(partitions.len() >= 3, "{partitions:?}");
    let chosen = [&partitions[0], &partitions[partitions.len() - 1]];
    let (_runtime, serving) = serving_context(&snapshot).await;
    let named = chosen
        .iter()
        .map(|(source, month)| format!("'{source}/{month}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT event_id, source, month FROM events \
         WHERE array_has([{named}], concat(source, '/', month)) ORDER BY event_id"
    );
    let plan = physical_plan(&serving, &sql).await;
    let mut read = files_in_plan(plan.as_ref());
    read.sort();
    let mut holding: Vec<String> = chosen
        .iter()
        .flat_map(|(source, month)| {
            parquet_files(
                &snapshot
                    .root
                    .join(format!("events/source={source}/month={month}")),
            )
        })
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    holding.sort();
    let read_names: Vec<String> = read
        .iter()
        .map(|path| path.rsplit('/').next().unwrap().to_owned())
        .collect();
    assert!(!holding.is_empty());
    assert_eq!(read_names, holding, "{sql}");
    // The generation's file list itself keeps the same files, with one evaluation.
    let listing = analytic.table_provider("events").await.unwrap();
    let state = analytic.state();
    let listed = esker::query::listed_files::ListedFiles::list(&listing, &state)
        .await
        .unwrap()
        .expect("a listing table with files");
    let logical = analytic.sql(&sql).await.unwrap().logical_plan().clone();
    let partition_filters = listed.partition_filters(&filters_of(&logical));
    assert_eq!(partition_filters.len(), 1, "{partition_filters:?}");
    let mut kept: Vec<String> = listed
        .files_matching(&state, &partition_filters)
        .unwrap()
        .map(|file| file.object_meta.location.filename().unwrap().to_owned())
        .collect();
    kept.sort();
    assert_eq!(kept, holding);
    assert_eq!(
        listed.files_matching(&state, &[]).unwrap().count(),
        parquet_files(&snapshot.root.join("events")).len(),
        "no filter: every file"
    );
    let answer = rows_of(&serving, &sql).await;
    assert!(answer.len() > 4, "{answer:?}");
    assert_eq!(answer, rows_of(&analytic, &sql).await, "{sql}");

    let (source, month) = chosen[0];
    let session = query_rows(
        fixture_store(),
        &format!(
            "SELECT session_id FROM events WHERE source = '{source}' AND month = '{month}' \
             ORDER BY session_id LIMIT 1"
        ),
    )[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for sql in [
        format!(
            "SELECT event_id, seq FROM events WHERE session_id = '{session}' \
             AND source = '{source}' AND month = '{month}' ORDER BY session_id, seq"
        ),
        format!(
            "SELECT count(*) AS n FROM (SELECT event_id FROM events \
             WHERE source = '{source}' LIMIT 3)"
        ),
        format!(
            "SELECT event_id FROM events WHERE session_id = '{session}' \
             AND source <> '{source}'"
        ),
        format!("SELECT count(*) AS n FROM events WHERE source = '{source}' OR month = '{month}'"),
        format!("SELECT count(*) AS n FROM events WHERE month <> '{month}' AND seq = 1"),
        "SELECT count(*) AS n FROM events WHERE array_has(['nowhere/2000-01'], \
         concat(source, '/', month))"
            .to_owned(),
    ] {
        assert_eq!(
            rows_of(&serving, &sql).await,
            rows_of(&analytic, &sql).await,
            "{sql}"
        );
    }
    let nothing = physical_plan(
        &serving,
        "SELECT event_id FROM events WHERE source = 'nowhere'",
    )
    .await;
    assert!(files_in_plan(nothing.as_ref()).is_empty());
    let batches = serving
        .sql("SELECT event_id FROM events WHERE source = 'nowhere'")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(
        batches.iter().map(|batch| batch.num_rows()).sum::<usize>(),
        0
    );
}

/// A keyed scan's readers bring each file's page index with its footer, even when DataFusion
/// asks for the footer alone: without the offset index a row selection fetches whole column
/// chunks.
#[tokio::test]
async fn keyed_readers_bring_the_page_index_with_the_footer() {
    use datafusion::datasource::physical_plan::ParquetFileReaderFactory;
    use datafusion::datasource::physical_plan::parquet::DefaultParquetFileReaderFactory;
    use datafusion::parquet::arrow::arrow_reader::ArrowReaderOptions;
    use datafusion::parquet::file::metadata::PageIndexPolicy;
    use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
    use object_store::{ObjectStore, ObjectStoreExt};

    let root = Store::open(fixture_store())
        .unwrap()
        .current()
        .unwrap()
        .root;
    let path = parquet_files(&root.join("events")).remove(0);
    let store: Arc<dyn ObjectStore> = Arc::new(object_store::local::LocalFileSystem::new());
    let location = object_store::path::Path::from_filesystem_path(&path).unwrap();
    let file = datafusion::datasource::listing::PartitionedFile::from(
        store.head(&location).await.unwrap(),
    );
    let footer_only = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Skip);
    let metrics = ExecutionPlanMetricsSet::new();
    let plain: Arc<dyn ParquetFileReaderFactory> =
        Arc::new(DefaultParquetFileReaderFactory::new(Arc::clone(&store)));
    let metadata = plain
        .create_reader(0, file.clone(), None, &metrics)
        .unwrap()
        .get_metadata(Some(&footer_only))
        .await
        .unwrap();
    assert!(
        metadata.offset_index().is_none(),
        "DataFusion's reader: footer only"
    );
    let with_index = esker::query::page_index_reader::WithPageIndex::new(plain);
    let metadata = with_index
        .create_reader(0, file, None, &metrics)
        .unwrap()
        .get_metadata(Some(&footer_only))
        .await
        .unwrap();
    let offsets = metadata.offset_index().expect("the offset index");
    assert_eq!(offsets.len(), metadata.num_row_groups());
    assert!(
        offsets[0]
            .iter()
            .all(|column| !column.page_locations.is_empty())
    );
    // DataFusion reuses a cached footer for a page-index request only when it holds both
    // indexes (else it reads them again at every open).
    assert!(metadata.column_index().is_some());

    // The serving context's keyed scans read through the wrapper.
    let snapshot = Store::open(fixture_store()).unwrap().current().unwrap();
    let (_runtime, serving) = serving_context(&snapshot).await;
    let plan = physical_plan(
        &serving,
        "SELECT text FROM events WHERE session_id = 'session:none'",
    )
    .await;
    let scan = leaf_scan(&plan);
    let source = esker::query::listed_files::file_scan_of(scan.as_ref())
        .and_then(|config| {
            config
                .file_source()
                .downcast_ref::<datafusion::datasource::physical_plan::ParquetSource>()
        })
        .expect("a Parquet scan");
    let factory = format!("{:?}", source.parquet_file_reader_factory());
    assert!(factory.contains("WithPageIndex"), "{factory}");
}

/// Each serving scan counts its own work: the plans of one statement, planned one after the
/// other, share no metrics (a source shared by every scan would grow its metrics set by every
/// file each scan opens, for the server's life).
#[tokio::test]
async fn each_serving_scan_has_metrics_of_its_own() {
    let snapshot = Store::open(fixture_store()).unwrap().current().unwrap();
    let (_runtime, serving) = serving_context(&snapshot).await;
    let session = query_rows(
        fixture_store(),
        "SELECT session_id FROM events ORDER BY session_id LIMIT 1",
    )[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for sql in [
        format!("SELECT event_id FROM events WHERE session_id = '{session}'"),
        "SELECT event_id FROM events WHERE source = 'codex'".to_owned(),
    ] {
        let plan = || async { physical_plan(&serving, &sql).await };
        let first = plan().await;
        let rows: usize =
            datafusion::physical_plan::collect(Arc::clone(&first), serving.task_ctx())
                .await
                .unwrap()
                .iter()
                .map(|batch| batch.num_rows())
                .sum();
        assert!(rows > 0, "{sql}");
        let counted = |plan: &Arc<dyn datafusion::physical_plan::ExecutionPlan>| {
            leaf_scan(plan)
                .metrics()
                .and_then(|metrics| metrics.output_rows())
                .unwrap_or(0)
        };
        assert!(counted(&first) >= rows, "{sql}");
        let second = plan().await;
        assert_eq!(counted(&second), 0, "{sql}: a new scan starts at zero");
    }
}

/// The in-memory index tables as a snapshot serves them, in their stored order.
const SESSION_INDEX_AS_SERVED: NamedQuery = NamedQuery {
    name: "test_session_index",
    sql: "SELECT * FROM session_index",
};
const TURN_INDEX_AS_SERVED: NamedQuery = NamedQuery {
    name: "test_turn_index",
    sql: "SELECT * FROM turn_index",
};

/// `query`'s rows as a table of text.
async fn served(snapshot: &WarmSnapshot, query: NamedQuery) -> String {
    let batches = snapshot.run_batches(query, Vec::new()).await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

/// Every value of the first column of `sql` (`sql` names itself).
async fn first_column(snapshot: &WarmSnapshot, sql: &'static str) -> Vec<String> {
    let batches = snapshot
        .run_batches(NamedQuery { name: sql, sql }, Vec::new())
        .await
        .unwrap();
    batches
        .iter()
        .flat_map(|batch| {
            let column = datafusion::arrow::compute::cast(
                batch.column(0),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .unwrap();
            let strings = datafusion::arrow::array::AsArray::as_string::<i32>(&column).clone();
            (0..datafusion::arrow::array::Array::len(&strings))
                .map(|row| strings.value(row).to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `query`'s rows for `parameters` as a table of text.
async fn served_for(
    snapshot: &WarmSnapshot,
    query: NamedQuery,
    parameters: Vec<datafusion::scalar::ScalarValue>,
) -> String {
    let batches = snapshot.run_batches(query, parameters).await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

const SESSION_BY_ID: NamedQuery = NamedQuery {
    name: "test_session_by_id",
    sql: "SELECT * FROM session_index WHERE session_id = $1",
};

/// Asserts that `carried` (a directory carried over commits) serves what `read` (the same
/// generation's directory read whole) serves: the tables row for row, and every key lookup
/// the tools make, each finding its row.
async fn assert_same_directory(carried: &WarmSnapshot, read: &WarmSnapshot) {
    assert_eq!(carried.generation, read.generation);
    for query in [SESSION_INDEX_AS_SERVED, TURN_INDEX_AS_SERVED] {
        assert_eq!(served(carried, query).await, served(read, query).await);
    }
    let text = |value: &str| datafusion::scalar::ScalarValue::Utf8(Some(value.to_owned()));
    for session_id in first_column(read, "SELECT session_id FROM session_index").await {
        let parameters = vec![text(&session_id)];
        let looked_up = served_for(read, SESSION_BY_ID, parameters.clone()).await;
        assert!(looked_up.contains(&session_id), "{session_id}: {looked_up}");
        assert_eq!(
            served_for(carried, SESSION_BY_ID, parameters).await,
            looked_up
        );
    }
    for turn_id in first_column(read, "SELECT turn_id FROM turn_index").await {
        let parameters = vec![text(&turn_id)];
        let rows = read.run(TURN_BY_ID, parameters.clone()).await.unwrap();
        let turn = rows
            .first()
            .unwrap_or_else(|| panic!("turn {turn_id:?} is looked up"));
        let session_id = turn.string("session_id").unwrap().to_owned();
        let ordinal = turn.i64("ordinal").unwrap() as i32;
        assert_eq!(
            served_for(carried, TURN_BY_ID, parameters.clone()).await,
            served_for(read, TURN_BY_ID, parameters).await
        );
        let ordinals = [ordinal - 1, ordinal, ordinal + 1];
        let around: Vec<_> = std::iter::once(text(&session_id))
            .chain(ordinals.map(|ordinal| datafusion::scalar::ScalarValue::Int32(Some(ordinal))))
            .collect();
        let looked_up = served_for(read, TURN_NEIGHBOURHOOD, around.clone()).await;
        assert!(looked_up.contains(&turn_id), "{turn_id}: {looked_up}");
        assert_eq!(
            served_for(carried, TURN_NEIGHBOURHOOD, around).await,
            looked_up
        );
    }
}

#[tokio::test]
async fn two_statements_of_one_name_never_share_a_plan() {
    let snapshot = Catalog::open(fixture_store())
        .unwrap()
        .snapshot()
        .await
        .unwrap();
    let name = "one name, two statements";
    let sources = NamedQuery {
        name,
        sql: "SELECT DISTINCT source FROM sessions ORDER BY source",
    };
    let counted = NamedQuery {
        name,
        sql: "SELECT CAST(count(*) AS VARCHAR) AS sessions FROM sessions",
    };
    let first = served(&snapshot, sources).await;
    assert!(first.contains("codex"), "{first}");
    let second = served(&snapshot, counted).await;
    assert!(!second.contains("codex"), "{second}");
    assert!(second.contains("sessions"), "{second}");
    let again = served(&snapshot, sources).await;
    assert_eq!(again, first, "the first statement keeps its plan");
}

/// The generation's directory read whole by a catalog of its own.
async fn read_whole(data_dir: &Path) -> Arc<WarmSnapshot> {
    let snapshot = Catalog::open(data_dir).unwrap().snapshot().await.unwrap();
    snapshot.ready_directory().await.unwrap();
    assert!(snapshot.directory_refresh().is_none());
    snapshot
}

/// Appends an assistant reply stamped `timestamp` to the Codex rollout at `path`.
fn append_codex_reply(path: &Path, timestamp: &str, text: &str) {
    let line = json!({
        "timestamp": timestamp,
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}]
        }
    });
    let mut log = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut log, format!("{line}\n").as_bytes()).unwrap();
}

#[tokio::test]
async fn a_commit_carries_the_loaded_index_tables_and_reads_only_the_changed_rows() {
    let logs = tempfile::tempdir().unwrap();
    for source in ["codex", "claude", "gemini"] {
        copy_dir(&fixtures_dir().join(source), &logs.path().join(source));
    }
    let data = tempfile::tempdir().unwrap();
    index_into(
        data.path(),
        &[&logs.path().join("codex"), &logs.path().join("gemini")],
    );
    let catalog = Catalog::open(data.path()).unwrap();
    let first = catalog.snapshot().await.unwrap();
    first.ready_directory().await.unwrap();
    assert!(first.directory_refresh().is_none(), "the first load reads");

    // One session grows by a message: its bucket is the one rewritten.
    let rollout = walkdir::WalkDir::new(logs.path().join("codex"))
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .min()
        .expect("a codex rollout");
    append_codex_reply(&rollout, "2026-03-14T12:00:00.000Z", "one more note");
    index_into(data.path(), &[&logs.path().join("codex")]);
    let second = catalog.snapshot().await.unwrap();
    assert!(second.generation > first.generation);
    second.ready_directory().await.unwrap();
    let refresh = second
        .directory_refresh()
        .expect("the replaced generation's directory is carried")
        .clone();
    assert_eq!(refresh.from_generation, first.generation);
    assert_eq!(refresh.buckets.len(), 1, "{refresh:?}");
    let directory = second.directory().unwrap();
    assert!(
        refresh.sessions_read < directory.session_count()
            && refresh.turns_read < directory.turn_count(),
        "only the rewritten bucket is read: {refresh:?}"
    );
    assert_same_directory(&second, &*read_whole(data.path()).await).await;

    // The session now lives in its bucket's hot file: growing again rewrites only that file,
    // and the refresh reads that one session's rows, not its bucket.
    append_codex_reply(&rollout, "2026-03-14T12:01:00.000Z", "and another note");
    index_into(data.path(), &[&logs.path().join("codex")]);
    let grown = catalog.snapshot().await.unwrap();
    grown.ready_directory().await.unwrap();
    let refresh = grown
        .directory_refresh()
        .expect("the grown generation's directory is carried")
        .clone();
    assert!(
        refresh.buckets.is_empty(),
        "no bucket read whole: {refresh:?}"
    );
    assert_eq!(refresh.sessions.len(), 1, "{refresh:?}");
    assert_eq!(refresh.sessions_read, 1, "{refresh:?}");
    let directory = grown.directory().unwrap();
    let session_id = refresh.sessions.first().unwrap();
    let turns_of_session = grown
        .run(
            NamedQuery {
                name: "turns of one session",
                sql: "SELECT turn_id FROM turn_index WHERE session_id = $1",
            },
            vec![datafusion::scalar::ScalarValue::Utf8(Some(
                session_id.clone(),
            ))],
        )
        .await
        .unwrap()
        .len();
    assert_eq!(refresh.turns_read, turns_of_session, "{refresh:?}");
    assert!(turns_of_session < directory.turn_count(), "{refresh:?}");
    assert_same_directory(&grown, &*read_whole(data.path()).await).await;

    // A second session joins that hot file (a copy of the rollout under an id of the same
    // bucket, grown once so it moves out of the base). Growing the first again reads only the
    // first: each generation names the sessions its commit wrote.
    let bucket = turn_bucket(session_id);
    let native = session_id.rsplit("codex-").next().unwrap().to_string();
    let twin = (0u64..)
        .map(|n| format!("00000000-0000-4000-8000-{n:012}"))
        .find(|candidate| turn_bucket(&esker::ids::session_id(Source::Codex, candidate)) == bucket)
        .unwrap();
    let twin_path = rollout.with_file_name(format!("rollout-2025-08-20T07-15-02-{twin}.jsonl"));
    let copy = std::fs::read_to_string(&rollout)
        .unwrap()
        .replace(&native, &twin);
    std::fs::write(&twin_path, copy).unwrap();
    index_into(data.path(), &[&logs.path().join("codex")]);
    append_codex_reply(&twin_path, "2026-03-14T12:02:00.000Z", "the twin grows");
    index_into(data.path(), &[&logs.path().join("codex")]);
    let current = Store::open(data.path()).unwrap().current().unwrap().root;
    let hot_sessions: std::collections::HashSet<String> =
        std::fs::read_dir(current.join("sessions"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with(&format!("part-b{bucket:02}-h"))
            })
            .flat_map(|path| {
                esker::store::parquet_io::read_string_column(&path, "session_id").unwrap()
            })
            .collect();
    let twin_id = esker::ids::session_id(Source::Codex, &twin);
    assert!(
        hot_sessions.contains(session_id) && hot_sessions.contains(&twin_id),
        "both sessions in the bucket's hot file: {hot_sessions:?}"
    );
    let before_growth = catalog.snapshot().await.unwrap();
    before_growth.ready_directory().await.unwrap();
    append_codex_reply(
        &rollout,
        "2026-03-14T12:03:00.000Z",
        "the first grows again",
    );
    index_into(data.path(), &[&logs.path().join("codex")]);
    let regrown = catalog.snapshot().await.unwrap();
    regrown.ready_directory().await.unwrap();
    let refresh = regrown
        .directory_refresh()
        .expect("the regrown generation's directory is carried")
        .clone();
    assert_eq!(refresh.from_generation, before_growth.generation);
    assert!(refresh.buckets.is_empty(), "{refresh:?}");
    assert_eq!(
        refresh.sessions.iter().collect::<Vec<_>>(),
        [session_id],
        "{refresh:?}"
    );
    assert_eq!(refresh.sessions_read, 1, "{refresh:?}");
    assert_same_directory(&regrown, &*read_whole(data.path()).await).await;

    // New sessions land in other buckets; the carried directory still equals a fresh read.
    index_into(data.path(), &[&logs.path().join("claude")]);
    let third = catalog.snapshot().await.unwrap();
    third.ready_directory().await.unwrap();
    assert_same_directory(&third, &*read_whole(data.path()).await).await;
}

#[tokio::test]
async fn a_directory_past_half_the_memory_limit_is_answered_over_parquet() {
    let store = fixture_store();
    let roomy = Catalog::open_within(store, AnswerPath::Fastest, 2 << 30).unwrap();
    let loaded = roomy.snapshot().await.unwrap();
    loaded.ready_directory().await.unwrap();
    assert!(
        loaded.directory().is_some(),
        "a directory that fits is served from memory"
    );
    let tight = Catalog::open_within(store, AnswerPath::Fastest, 4 << 10).unwrap();
    let over_parquet = tight.snapshot().await.unwrap();
    over_parquet.ready_directory().await.unwrap();
    assert!(
        over_parquet.directory().is_none(),
        "a directory over half of 4 KiB stays on disk"
    );
    let ordered = NamedQuery {
        name: "sessions in order",
        sql: "SELECT * FROM session_index ORDER BY updated_at DESC, session_id DESC",
    };
    assert_eq!(
        served(&over_parquet, ordered).await,
        served(&loaded, ordered).await
    );
    // The directory's size is estimated from exactly the columns the views hold.
    let tables: [(NamedQuery, &[&str]); 2] = [
        (SESSION_INDEX_AS_SERVED, &SESSION_INDEX_COLUMNS),
        (TURN_INDEX_AS_SERVED, &TURN_INDEX_COLUMNS),
    ];
    for (query, columns) in tables {
        let batches = loaded.run_batches(query, Vec::new()).await.unwrap();
        let names: Vec<String> = batches[0]
            .schema()
            .fields()
            .iter()
            .map(|field| field.name().clone())
            .collect();
        assert_eq!(names, columns, "{}", query.sql);
    }
}

/// The Parquet files of the keyed tables (`events`, `turns`, `sessions`, `file_touches`)
/// under a generation's `root`, by path inside the generation, with their sizes.
fn keyed_table_files(root: &Path) -> std::collections::BTreeMap<PathBuf, u64> {
    ["events", "turns", "sessions", "file_touches"]
        .iter()
        .flat_map(|table| parquet_files(&root.join(table)))
        .map(|path| {
            let size = std::fs::metadata(&path).unwrap().len();
            (path.strip_prefix(root).unwrap().to_path_buf(), size)
        })
        .collect()
}

/// The keyed tables' files of `data_dir`'s current generation ([`keyed_table_files`]).
fn current_keyed_files(data_dir: &Path) -> std::collections::BTreeMap<PathBuf, u64> {
    keyed_table_files(&Store::open(data_dir).unwrap().current().unwrap().root)
}

/// What reading the current generation's keyed files ahead cached (waiting for it).
async fn read_ahead(catalog: &Catalog) -> esker::query::keyed_scan::Warmed {
    catalog
        .snapshot()
        .await
        .unwrap()
        .read_ahead()
        .await
        .unwrap()
}

/// Whether the runtime's metadata cache holds a footer for each of `files` (paths inside a
/// generation; the cache's keys leave the generation out).
fn footers_cached(
    runtime: &datafusion::execution::runtime_env::RuntimeEnv,
    files: &std::collections::BTreeMap<PathBuf, u64>,
) -> bool {
    let footers = metadata_hits(runtime);
    files.keys().all(|file| {
        let file = file.to_str().unwrap();
        footers.keys().filter(|path| path.ends_with(file)).count() == 1
    })
}

#[tokio::test]
async fn a_server_reads_its_keyed_files_ahead_and_then_only_what_a_commit_added() {
    let (logs, data) = codex_store_with_claude_to_come();
    let catalog = Catalog::open(data.path()).unwrap();
    let first = current_keyed_files(data.path());
    assert!(first.len() >= 4, "{first:?}");

    // The directory load reads whole buckets, no key runs: every file's runs are the
    // read-ahead's. Footers cached already (the directory load's, the statistics a table's
    // listing gathers) are not read again.
    let warmed = read_ahead(&catalog).await;
    assert_eq!(warmed.key_files, first.len(), "{warmed:?}");
    assert_eq!(catalog.key_cache().cached_files(), first.len());
    assert!(
        footers_cached(catalog.runtime(), &first),
        "{:?}",
        metadata_hits(catalog.runtime())
    );

    index_into(data.path(), &[&logs.path().join("claude")]);
    let second = current_keyed_files(data.path());
    let added = second
        .iter()
        .filter(|(path, size)| first.get(*path) != Some(*size))
        .count();
    assert!(
        added > 0 && added < second.len(),
        "{first:?} then {second:?}"
    );
    // The next generation's files are known once it is read ahead, and the files it shares
    // with the first (hard links) were not read again: at most the added ones were (a
    // refresh may have read a few of them first).
    let warmed = read_ahead(&catalog).await;
    assert!(
        warmed.key_files <= added && warmed.footers <= added,
        "{warmed:?}, {added} added"
    );
    assert_eq!(catalog.key_cache().cached_files(), first.len() + added);
    assert!(footers_cached(catalog.runtime(), &second));
}
