//! The one integration-test crate (one link): modules per area, shared helpers in `support`.

mod cli;
mod ingest;
mod mcp;
mod python;
mod reliability;
mod support;
