//! Search-quality measurements over an esker search index, shared by the scale benchmark and
//! the integration tests (built only for them, never shipped in esker):
//! - [`recall`]: rare-word recall@k of the search index (issue #10).
//! - [`questions`]: the question benchmark over `../shared/corpus` (issue #23).

pub mod questions;
pub mod recall;
