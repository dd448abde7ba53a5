//! The one integration-test crate (one link): modules per area, shared helpers in `support`.

mod ingest;
mod python;
mod support;
