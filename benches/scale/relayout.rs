//! `scale relayout --work DIR`: rewrites the `sessions` and `turns` files of `DIR/data-full`'s
//! current generation in today's file layout (`store::commit::table_layout`), in place: a
//! layout change measured on a store built before it, without indexing the corpus again (the
//! 10M-document store takes ~50 minutes to index on 2 cores). Rows keep their order; each file
//! is written beside itself and renamed over it, so the older generations that hard-link it
//! keep the file they had.

use std::fs;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use esker::store::Store;
use esker::store::commit::table_layout;
use esker::store::parquet_io as pio;

/// The tables a keyed lookup reads a few rows of.
const LOOKUP_TABLES: [&str; 2] = ["sessions", "turns"];

/// Rewrites every file of [`LOOKUP_TABLES`] in the current generation of `data_dir`.
pub fn relayout(data_dir: &Path) -> anyhow::Result<()> {
    let root = Store::open(data_dir)?.current()?.root;
    for table in LOOKUP_TABLES {
        let layout = table_layout(table).with_context(|| format!("no layout for {table}"))?;
        let started = Instant::now();
        let (mut files, mut bytes_before, mut bytes_after) = (0, 0, 0);
        for entry in fs::read_dir(root.join(table))? {
            let path = entry?.path();
            if path
                .extension()
                .is_none_or(|extension| extension != "parquet")
            {
                continue;
            }
            let batches = pio::read_parquet(&path)?;
            let Some(schema) = batches.first().map(|batch| batch.schema()) else {
                continue;
            };
            let rewritten = path.with_extension("relayout");
            pio::write_parquet(&rewritten, &schema, &batches, &layout)?;
            bytes_before += fs::metadata(&path)?.len();
            bytes_after += fs::metadata(&rewritten)?.len();
            fs::rename(&rewritten, &path)?;
            files += 1;
        }
        println!(
            "{table}: {files} files rewritten in {:.1} s, {:.1} MB -> {:.1} MB",
            started.elapsed().as_secs_f64(),
            bytes_before as f64 / 1e6,
            bytes_after as f64 / 1e6,
        );
    }
    Ok(())
}
