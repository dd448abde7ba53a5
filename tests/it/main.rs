//! The one integration-test crate (one link): modules per area, shared helpers in `support`.

mod antigravity;
mod cli;
mod corpus_gen;
mod fidelity;
mod harnesses;
mod ingest;
mod layering;
mod mcp;
mod memory;
mod python;
mod questions;
mod redaction;
mod reliability;
mod sqlite_harnesses;
mod support;
mod team;
mod tool_names;
mod ui;
