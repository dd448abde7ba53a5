//! The tantivy index of memory entries: its schema (BM25 over `title` and `body` with the
//! `en_stem` analyzer; raw `id`, `project`, `entry_type`, `source_ref` and `content_hash` for
//! lookups and filters; `created_at` and `journal_offset` as fast fields for ordering) and the
//! conversion between journal records and documents. Every column is stored, so reads need
//! no Parquet. The folded entries of a generation live in `gN/memory_index/`, the journal's
//! unfolded tail in an index in memory ([`super::view`]); both have this schema.

use std::path::Path;

use chrono::DateTime;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TantivyDocument,
    TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexWriter};

use super::entry::MemoryEntry;
use super::journal::JournalRecord;
use crate::search::SearchError;

/// The analyzer of `title` and `body` (tantivy's English stemmer, as the event index uses).
pub const STEM_TOKENIZER: &str = "en_stem";
/// Memory budget of a memory index writer (one thread: entries are small).
const WRITER_MEMORY_BYTES: usize = 32_000_000;

/// Field handles of the memory index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryFields {
    pub id: Field,
    pub project: Field,
    pub entry_type: Field,
    pub title: Field,
    pub body: Field,
    pub session_id: Field,
    pub source_ref: Field,
    pub content_hash: Field,
    pub metadata: Field,
    /// Microseconds since the epoch.
    pub created_at: Field,
    pub journal_offset: Field,
}

/// Field names, in schema order.
const FIELD_NAMES: [&str; 11] = [
    "id",
    "project",
    "entry_type",
    "title",
    "body",
    "session_id",
    "source_ref",
    "content_hash",
    "metadata",
    "created_at",
    "journal_offset",
];

impl MemoryFields {
    /// The schema every memory index is created with.
    pub fn build() -> (Schema, MemoryFields) {
        let mut builder = Schema::builder();
        let text = TextOptions::default()
            .set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(STEM_TOKENIZER)
                    .set_index_option(IndexRecordOption::WithFreqs),
            )
            .set_stored();
        let fields = MemoryFields {
            id: builder.add_text_field(FIELD_NAMES[0], STRING | STORED | FAST),
            project: builder.add_text_field(FIELD_NAMES[1], STRING | STORED | FAST),
            entry_type: builder.add_text_field(FIELD_NAMES[2], STRING | STORED | FAST),
            title: builder.add_text_field(FIELD_NAMES[3], text.clone()),
            body: builder.add_text_field(FIELD_NAMES[4], text),
            session_id: builder.add_text_field(FIELD_NAMES[5], STORED),
            source_ref: builder.add_text_field(FIELD_NAMES[6], STRING | STORED),
            content_hash: builder.add_text_field(FIELD_NAMES[7], STRING | STORED),
            metadata: builder.add_text_field(FIELD_NAMES[8], STORED),
            created_at: builder.add_i64_field(FIELD_NAMES[9], INDEXED | STORED | FAST),
            journal_offset: builder.add_u64_field(FIELD_NAMES[10], STORED | FAST),
        };
        (builder.build(), fields)
    }

    /// The handles of an index's schema; an index of another shape is an error.
    pub fn from_schema(schema: &Schema) -> Result<MemoryFields, SearchError> {
        let field = |index: usize| {
            let name = FIELD_NAMES[index];
            schema.get_field(name).map_err(|_| {
                SearchError::Tantivy(tantivy::TantivyError::SchemaError(format!(
                    "the memory index lacks field {name}"
                )))
            })
        };
        Ok(MemoryFields {
            id: field(0)?,
            project: field(1)?,
            entry_type: field(2)?,
            title: field(3)?,
            body: field(4)?,
            session_id: field(5)?,
            source_ref: field(6)?,
            content_hash: field(7)?,
            metadata: field(8)?,
            created_at: field(9)?,
            journal_offset: field(10)?,
        })
    }

    /// The document of one journal record.
    pub fn document(&self, record: &JournalRecord) -> TantivyDocument {
        let entry = &record.entry;
        let mut document = TantivyDocument::default();
        document.add_text(self.id, &entry.id);
        document.add_text(self.project, &entry.project);
        document.add_text(self.entry_type, &entry.entry_type);
        document.add_text(self.title, &entry.title);
        document.add_text(self.body, &entry.body);
        let optional = [
            (self.session_id, &entry.session_id),
            (self.source_ref, &entry.source_ref),
            (self.content_hash, &entry.content_hash),
        ];
        for (field, value) in optional {
            if let Some(value) = value {
                document.add_text(field, value);
            }
        }
        document.add_text(self.metadata, entry.metadata_json());
        document.add_i64(self.created_at, entry.created_at.timestamp_micros());
        document.add_u64(self.journal_offset, record.offset);
        document
    }

    /// The journal record a stored document holds; `None` for a document missing a field.
    pub fn record(&self, document: &TantivyDocument) -> Option<JournalRecord> {
        let text = |field: Field| {
            document
                .get_first(field)
                .and_then(|value| value.as_str())
                .map(str::to_owned)
        };
        let metadata = match serde_json::from_str(&text(self.metadata)?) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let micros = document.get_first(self.created_at)?.as_i64()?;
        Some(JournalRecord {
            offset: document.get_first(self.journal_offset)?.as_u64()?,
            entry: MemoryEntry {
                id: text(self.id)?,
                title: text(self.title)?,
                body: text(self.body)?,
                entry_type: text(self.entry_type)?,
                project: text(self.project)?,
                session_id: text(self.session_id),
                source_ref: text(self.source_ref),
                content_hash: text(self.content_hash),
                metadata,
                created_at: DateTime::from_timestamp_micros(micros)?,
            },
        })
    }
}

/// Creates an empty memory index in `dir`.
pub fn create_in_dir(dir: &Path) -> Result<Index, SearchError> {
    std::fs::create_dir_all(dir).map_err(|source| SearchError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let (schema, _) = MemoryFields::build();
    Ok(Index::create_in_dir(dir, schema)?)
}

/// A new, empty memory index in memory (the journal tail's).
pub fn create_in_ram() -> Index {
    let (schema, _) = MemoryFields::build();
    Index::create_in_ram(schema)
}

/// A writer for a memory index.
pub fn writer(index: &Index) -> Result<IndexWriter<TantivyDocument>, SearchError> {
    Ok(index.writer_with_num_threads(1, WRITER_MEMORY_BYTES)?)
}

/// Adds `records` through `writer` (not committed).
pub fn add_records(
    writer: &IndexWriter<TantivyDocument>,
    fields: &MemoryFields,
    records: &[JournalRecord],
) -> Result<(), SearchError> {
    for record in records {
        writer.add_document(fields.document(record))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::entry::Draft;

    #[test]
    fn a_document_round_trips_to_its_record() {
        let (_, fields) = MemoryFields::build();
        let mut metadata = serde_json::Map::new();
        metadata.insert("ticket".into(), serde_json::json!(16));
        let entry = Draft {
            text: "Decided: journal first".into(),
            session_id: Some("s-1".into()),
            metadata: Some(metadata),
            ..Draft::default()
        }
        .normalize("esker", "decision", chrono::Utc::now())
        .unwrap();
        let record = JournalRecord { offset: 42, entry };
        let document = fields.document(&record);
        let mut expected = record.clone();
        expected.entry.created_at =
            DateTime::from_timestamp_micros(record.entry.created_at.timestamp_micros()).unwrap();
        assert_eq!(fields.record(&document), Some(expected));
        let (schema, _) = MemoryFields::build();
        assert_eq!(MemoryFields::from_schema(&schema).unwrap(), fields);
    }
}
