//! The semantic leg of search (issue #23 item 4): a static embedding model run in-process
//! (`model2vec-rs`) or an OpenAI-compatible embeddings endpoint, vectors kept as int8 in a
//! Parquet sidecar beside the store (not in the tantivy index), an exact scan, and a
//! query-adaptive fusion with BM25.
//!
//! Layout, data flow:
//! - [`install`]: `esker model install`: the pinned wheel from PyPI (or a local file), checked
//!   and unpacked once into `<data_dir>/models/static/` ([`model_files`]).
//! - [`embedder`]: the model or the endpoint ([`endpoint`]) behind one `embed` call.
//! - [`embed_pass`]: after a lexical commit, embeds the events that have no vector yet and
//!   appends them to the sidecar ([`vectors`]), so an event is searchable by words at once and
//!   by meaning shortly after.
//! - [`leg`]: the search-time side: the query's vector, the scan, and [`fusion`] with the BM25
//!   hits. Without a model (or with the leg off) search is lexical, with no error.
//!
//! ```text
//! <data_dir>/models/static/{tokenizer.json, model.safetensors, config.json, origin.json}
//! <data_dir>/vectors/<model key>/part-NNNNNN.parquet   one part per embedding pass
//! <data_dir>/vectors/<model key>/embed.lock            one embedding pass at a time
//! ```

pub mod embed_pass;
pub mod embedder;
pub mod endpoint;
pub mod fusion;
pub mod install;
pub mod leg;
pub mod model_files;
pub mod vectors;

use std::path::PathBuf;

pub use embedder::Embedder;
pub use leg::{Leg, hybrid_search};

/// Whether the semantic leg is on when no `--semantic` is given. Off: on the question
/// benchmark (PERFORMANCE.md) it did not raise the paraphrase row without lowering another.
pub const ON_BY_DEFAULT: bool = false;

/// Errors of the semantic leg.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("embedding model {path}: {message}")]
    Model { path: PathBuf, message: String },
    #[error("model install: {0}")]
    Install(String),
    #[error("embeddings endpoint {url}: {message}")]
    Endpoint { url: String, message: String },
    #[error("vector table {path}: {message}")]
    Vectors { path: PathBuf, message: String },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Query(#[from] crate::query::QueryError),
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
}

impl SemanticError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> SemanticError {
        let path = path.into();
        move |source| SemanticError::Io { path, source }
    }
}

/// How the leg is configured (`--semantic`, `--embeddings-url`, `--embeddings-model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticSettings {
    /// Fuse the vector hits into search results.
    pub enabled: bool,
    /// An OpenAI-compatible embeddings endpoint used instead of the installed static model.
    pub embeddings_url: Option<String>,
    /// The model name sent to the endpoint.
    pub embeddings_model: String,
}

/// The model name sent to an embeddings endpoint when none is given (Ollama's).
pub const DEFAULT_ENDPOINT_MODEL: &str = "nomic-embed-text";

impl Default for SemanticSettings {
    fn default() -> SemanticSettings {
        SemanticSettings {
            enabled: ON_BY_DEFAULT,
            embeddings_url: None,
            embeddings_model: DEFAULT_ENDPOINT_MODEL.to_owned(),
        }
    }
}
