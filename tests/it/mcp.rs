//! `esker serve` end to end: the real binary, spawned over stdio and driven by an rmcp client
//! (or over HTTP, `http`), against a store built from `tests/fixtures`. Ground truth for
//! assertions comes from the tables themselves (`esker query`), so the tests follow the
//! fixtures as they grow.

mod agtrace;
mod answer_paths;
mod chains;
pub(crate) mod client;
mod contract;
mod exact_words;
mod file_attention;
mod fuzz;
mod golden;
mod http;
mod list_sessions;
pub(crate) mod memory;
mod moraine_additions;
mod open;
pub(crate) mod project_only;
mod protocol;
mod relay;
mod search_sessions;
mod semantic;
mod serving;
mod traversal;
