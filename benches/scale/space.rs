//! Where the bytes of a store's tantivy index go: per field, the term dictionary, postings,
//! positions, fast fields and norms, and the document store, summed over the segments
//! (tantivy's own `space_usage`). Feeds the disk target (store ≤ 0.6× the raw logs).

use std::collections::BTreeMap;
use std::path::Path;

use tantivy::Index;
use tantivy::space_usage::PerFieldSpaceUsage;

/// Component bytes of one field: term dictionary, postings, positions, fast, norms.
#[derive(Default)]
struct FieldBytes([u64; 5]);

const COMPONENTS: [&str; 5] = ["term dict", "postings", "positions", "fast", "norms"];

/// Prints the space table of the index under `data_dir/current/tantivy`.
pub fn print_space(data_dir: &Path) -> anyhow::Result<()> {
    let index = Index::open_in_dir(data_dir.join("current").join("tantivy"))?;
    let searcher = index.reader()?.searcher();
    let usage = searcher.space_usage()?;
    let mut fields: BTreeMap<String, FieldBytes> = BTreeMap::new();
    let mut store = 0u64;
    let mut documents = 0u64;
    for segment in usage.segments() {
        documents += u64::from(segment.num_docs());
        store += segment.store().total().get_bytes();
        let components: [&PerFieldSpaceUsage; 5] = [
            segment.termdict(),
            segment.postings(),
            segment.positions(),
            segment.fast_fields(),
            segment.fieldnorms(),
        ];
        for (component, per_field) in components.iter().enumerate() {
            for field in per_field.fields() {
                let entry = fields.entry(field.field_name().to_owned()).or_default();
                entry.0[component] += field.total().get_bytes();
            }
        }
    }
    let megabytes = |bytes: u64| bytes as f64 / 1e6;
    println!(
        "tantivy index: {} segments, {documents} documents, {:.1} MB\n",
        usage.segments().len(),
        megabytes(usage.total().get_bytes())
    );
    println!(
        "| field | {} | total MB |",
        COMPONENTS.join(" MB | ") + " MB"
    );
    println!("|---|{}---:|", "---:|".repeat(COMPONENTS.len()));
    for (name, bytes) in &fields {
        let cells: Vec<String> = bytes
            .0
            .iter()
            .map(|value| format!("{:.1}", megabytes(*value)))
            .collect();
        let total: u64 = bytes.0.iter().sum();
        println!(
            "| {name} | {} | {:.1} |",
            cells.join(" | "),
            megabytes(total)
        );
    }
    println!("| document store | | | | | | {:.1} |", megabytes(store));
    Ok(())
}
