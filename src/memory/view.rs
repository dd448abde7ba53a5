//! A reader's view of the entries: the folded index of a pinned generation plus the journal
//! lines appended after what that generation folded, indexed in memory. The folded part is
//! reopened only when a commit lands; the tail index grows by the lines appended since the
//! last read (a `stat` when nothing was) and starts over when a fold moves the offset, so a
//! saved entry is searchable on the next read and never counted twice.

use std::sync::{Arc, Mutex, MutexGuard};

use tantivy::schema::TantivyDocument;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy};

use super::fold::{FoldMarker, INDEX_DIR};
use super::index::{self, MemoryFields};
use super::journal::Journal;
use super::search::Part;
use crate::search::SearchError;
use crate::store::{PinnedSnapshot, Store, StoreError};

/// Memory budget of the tail's in-memory index writer (tantivy's minimum).
const TAIL_WRITER_MEMORY_BYTES: usize = 15_000_000;

/// Opens views of one store's entries, caching the folded index and the tail between reads.
pub struct MemoryReader {
    store: Store,
    journal: Journal,
    folded: Mutex<Option<Arc<FoldedPart>>>,
    tail: Mutex<TailIndex>,
}

/// The folded entries of one generation.
pub struct FoldedPart {
    pub generation: u64,
    pub marker: FoldMarker,
    part: Option<Part>,
    /// Keeps the generation's files on disk while a view reads them.
    _pin: PinnedSnapshot,
}

/// A consistent view: the parts to read, valid while it lives.
pub struct MemoryView {
    pub parts: Vec<Part>,
    pub folded: Arc<FoldedPart>,
    /// Journal lines not folded yet that this view indexes in memory.
    pub tail_entries: u64,
}

/// The journal tail after a generation's fold offset, indexed in memory.
#[derive(Default)]
struct TailIndex {
    /// The fold offset this tail starts at.
    from: u64,
    /// Where the next journal read starts.
    read_to: u64,
    index: Option<TailWriter>,
}

struct TailWriter {
    writer: IndexWriter<TantivyDocument>,
    reader: IndexReader,
    fields: MemoryFields,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MemoryReader {
    pub fn new(store: Store) -> MemoryReader {
        MemoryReader {
            journal: Journal::of_store(store.data_dir()),
            store,
            folded: Mutex::new(None),
            tail: Mutex::new(TailIndex::default()),
        }
    }

    /// The current entries: the current generation's folded ones and the journal tail.
    pub fn view(&self) -> Result<MemoryView, StoreError> {
        let folded = self.folded_part()?;
        let mut tail = lock(&self.tail);
        if tail.from != folded.marker.journal_offset || tail.read_to < tail.from {
            *tail = TailIndex {
                from: folded.marker.journal_offset,
                read_to: folded.marker.journal_offset,
                index: None,
            };
        }
        self.refresh_tail(&mut tail)?;
        let mut parts: Vec<Part> = folded.part.iter().cloned().collect();
        let mut tail_entries = 0;
        if let Some(index) = &tail.index {
            let searcher = index.reader.searcher();
            tail_entries = searcher.num_docs();
            parts.push(Part {
                searcher,
                fields: index.fields,
            });
        }
        Ok(MemoryView {
            parts,
            folded,
            tail_entries,
        })
    }

    fn folded_part(&self) -> Result<Arc<FoldedPart>, StoreError> {
        let current = self.store.current()?;
        let mut cached = lock(&self.folded);
        if let Some(folded) = cached
            .as_ref()
            .filter(|f| f.generation == current.generation)
        {
            return Ok(Arc::clone(folded));
        }
        let pin = self.store.pin_current()?;
        let folded = Arc::new(FoldedPart {
            generation: pin.generation,
            marker: FoldMarker::read(&pin.root)?,
            part: open_part(&pin.root.join(INDEX_DIR))?,
            _pin: pin,
        });
        *cached = Some(Arc::clone(&folded));
        Ok(folded)
    }

    /// Indexes the journal lines appended since the last read.
    fn refresh_tail(&self, tail: &mut TailIndex) -> Result<(), StoreError> {
        if self.journal.size()? <= tail.read_to {
            return Ok(());
        }
        let read = self.journal.read_from(tail.read_to)?;
        if !read.records.is_empty() {
            let index = match tail.index.take() {
                Some(index) => index,
                None => TailWriter::new()?,
            };
            let index = tail.index.insert(index);
            index::add_records(&index.writer, &index.fields, &read.records)?;
            index.writer.commit().map_err(SearchError::from)?;
            index.reader.reload().map_err(SearchError::from)?;
        }
        tail.read_to = read.end;
        Ok(())
    }
}

impl TailWriter {
    fn new() -> Result<TailWriter, SearchError> {
        let index = index::create_in_ram();
        let fields = MemoryFields::from_schema(&index.schema())?;
        let writer = index.writer_with_num_threads(1, TAIL_WRITER_MEMORY_BYTES)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(TailWriter {
            writer,
            reader,
            fields,
        })
    }
}

/// The folded index of a generation; `None` when it has none (older generations).
fn open_part(dir: &std::path::Path) -> Result<Option<Part>, StoreError> {
    if !dir.join("meta.json").is_file() {
        return Ok(None);
    }
    let memory_index = Index::open_in_dir(dir).map_err(SearchError::from)?;
    let fields = MemoryFields::from_schema(&memory_index.schema())?;
    let reader: IndexReader = memory_index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .map_err(SearchError::from)?;
    Ok(Some(Part {
        searcher: reader.searcher(),
        fields,
    }))
}
