//! The layer above the store, the search index and the table declarations: what needs them
//! together. Opening a store (`Store::open`: a new store's empty generation holds an empty
//! search index) and one commit ([`commit`]: the Parquet tables through `store`, the search
//! index through `search`, memory entries through `memory`). `mcp`, the CLI and the indexer
//! use it; `store`, `search` and `query` never import it.

pub mod commit;

use std::path::Path;

use crate::search::SearchIndex;
use crate::store::{Store, StoreError};

/// The directory of a generation's search index.
pub const SEARCH_INDEX_DIR: &str = "tantivy";

impl Store {
    /// Opens (creating if needed) the store at `data_dir`. A new store gets an empty
    /// generation 0 (empty tables and search index) so readers always have tables to open.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(data_dir, create_empty_search_index)
    }

    /// Opens an existing store for reading; a missing one is an error, not created.
    pub fn open_existing(data_dir: &Path) -> Result<Store, StoreError> {
        Store::open_existing_with(data_dir, create_empty_search_index)
    }
}

/// Writes the empty search index of an empty generation.
fn create_empty_search_index(generation_root: &Path) -> Result<(), StoreError> {
    SearchIndex::create_empty(&generation_root.join(SEARCH_INDEX_DIR))?;
    Ok(())
}
