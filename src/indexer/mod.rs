//! The indexer: turns what `crate::ingest` parses into a store. Discovery, checkpoints and
//! redaction of one pass over the logs (`run.rs`), sessions that span several files or rows
//! of a SQLite store (`grouped.rs`), parsed sessions into table rows (`assemble.rs`, with the
//! files each tool call touched from `touches/`), commits through `crate::engine`, the live
//! watcher (`watch.rs`), the progress the MCP server reports (`status.rs`) and `esker doctor`'s
//! diagnosis of every location looked at (`doctor.rs`).

pub mod assemble;
pub mod doctor;
pub mod grouped;
pub mod run;
pub mod status;
pub mod touches;
pub mod watch;
