//! The files agents touched most (`queries/files_top.sql`): the web view's Files page opens
//! on this list, each file a link to its `file_attention` answer.

use chrono::{DateTime, SecondsFormat, Utc};
use datafusion::scalar::ScalarValue;
use serde::Serialize;

use crate::service::catalog::{Catalog, CatalogError, NamedQuery};
use crate::service::rows::RowError;

const FILES_TOP: NamedQuery = NamedQuery {
    name: "files_top",
    sql: include_str!("../../../queries/files_top.sql"),
};

/// Most files one list holds.
pub const MAX_FILES: usize = 100;

/// One file of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopFile {
    /// The project-relative tail `file_attention` takes as its `path`.
    pub tail: String,
    pub sessions: i64,
    pub touches: i64,
    pub changes: i64,
    /// RFC 3339, milliseconds, UTC.
    pub last_touch: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TopFilesError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("files_top: {0}")]
    Row(#[from] RowError),
}

/// The `limit` (at most [`MAX_FILES`]) files touched in the most sessions.
pub async fn top_files(catalog: &Catalog, limit: usize) -> Result<Vec<TopFile>, TopFilesError> {
    let snapshot = catalog.snapshot().await?;
    let limit = limit.clamp(1, MAX_FILES) as i64;
    let rows = snapshot
        .run(FILES_TOP, vec![ScalarValue::Int64(Some(limit))])
        .await?;
    rows.iter()
        .map(|row| {
            Ok(TopFile {
                tail: row.string("tail")?.to_owned(),
                sessions: row.i64("sessions")?,
                touches: row.i64("touches")?,
                changes: row.opt_i64("changes")?.unwrap_or_default(),
                last_touch: row.opt_timestamp_nanos("last_touch")?.map(rfc3339),
            })
        })
        .collect()
}

fn rfc3339(nanos: i64) -> String {
    DateTime::<Utc>::from_timestamp_nanos(nanos).to_rfc3339_opts(SecondsFormat::Millis, true)
}
