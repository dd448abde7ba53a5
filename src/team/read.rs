//! DataFusion over a published dataset (`esker query --data-dir URL`): every table of every
//! machine, `machine` a column, read through object_store from exactly the files the
//! manifests name.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use datafusion::prelude::{SessionConfig, SessionContext};

use super::TeamError;
use super::ddl::with_machine_partition;
use super::filtered::ManifestView;
use super::manifest::{Manifest, read_manifests};
use super::remote::Remote;
use crate::query::{QueryError, TABLE_DDL};

/// A context with the published tables registered, and the manifests it reads.
pub async fn dataset_context(
    remote: &Remote,
) -> Result<(SessionContext, BTreeMap<String, Manifest>), TeamError> {
    let manifests = read_manifests(remote).await?;
    let visible: HashSet<_> = manifests
        .values()
        .flat_map(|manifest| manifest.files.iter())
        .map(|file| remote.path(&file.path))
        .collect();
    let context = SessionContext::new_with_config(session_config());
    crate::query::register_functions(&context);
    context.runtime_env().register_object_store(
        &remote.store_url,
        Arc::new(ManifestView::new(remote.store.clone(), visible)),
    );
    for (table, ddl) in TABLE_DDL {
        let location = remote.url_of(&format!("{table}/"));
        let statement =
            with_machine_partition(ddl).replace("{location}", &location.replace('\'', "''"));
        context
            .sql(&statement)
            .await
            .map_err(QueryError::from)?
            .collect()
            .await
            .map_err(QueryError::from)?;
    }
    Ok((context, manifests))
}

/// The local reader's settings (`crate::query`): UTC session time zone, information schema.
fn session_config() -> SessionConfig {
    SessionConfig::new()
        .with_information_schema(true)
        .with_target_partitions(2)
        .set_str("datafusion.execution.time_zone", "UTC")
}
