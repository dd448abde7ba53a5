//! The memory journal: the durable source of every entry. One line per entry,
//! `<crc32 as 8 hex digits> <entry JSON>\n`, appended under an exclusive `flock` and fsynced
//! before the save is acknowledged; read under a shared `flock`.
//!
//! A line counts only when it is complete: its trailing newline is the last byte written, and
//! its checksum covers the JSON. A tail without a newline (a writer still writing, or one
//! killed mid-line) is left for later; the next writer first ends such a torn tail with a
//! newline, which turns it into a complete line whose checksum fails and that every reader
//! skips. An entry is therefore read whole or not at all. The file is never rewritten: byte
//! offsets of lines are stable, and generations record how far they have folded it.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::entry::MemoryEntry;
use crate::store::StoreError;

/// One entry read back with the byte offset of its line.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalRecord {
    pub offset: u64,
    pub entry: MemoryEntry,
}

/// The complete lines from some offset on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalTail {
    pub records: Vec<JournalRecord>,
    /// Where the next read starts: just after the last complete line.
    pub end: u64,
    /// Complete lines skipped because their checksum or JSON was bad (torn by a crash).
    pub corrupt_lines: usize,
}

/// The journal file of one store.
#[derive(Debug, Clone)]
pub struct Journal {
    path: PathBuf,
}

impl Journal {
    pub fn at(path: PathBuf) -> Journal {
        Journal { path }
    }

    /// The journal of the store at `data_dir` ([`super::journal_path`]).
    pub fn of_store(data_dir: &Path) -> Journal {
        Journal::at(super::journal_path(data_dir))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The journal's size in bytes (0 when it does not exist yet).
    pub fn size(&self) -> Result<u64, StoreError> {
        match fs::metadata(&self.path) {
            Ok(metadata) => Ok(metadata.len()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(error) => Err(StoreError::io(&self.path)(error)),
        }
    }

    /// Appends `entries` and syncs them to disk; returns the offset of each line. Either every
    /// line is written or (on an IO error) the file is cut back to where it was.
    pub fn append(&self, entries: &[MemoryEntry]) -> Result<Vec<u64>, StoreError> {
        let file = self.open_for_append()?;
        file.lock().map_err(StoreError::io(&self.path))?;
        let start = file.metadata().map_err(StoreError::io(&self.path))?.len();
        let mut buffer = Vec::new();
        if start > 0 && !self.ends_with_newline(&file, start)? {
            buffer.push(b'\n');
        }
        let mut offsets = Vec::with_capacity(entries.len());
        for entry in entries {
            offsets.push(start + buffer.len() as u64);
            encode_line(entry, &mut buffer);
        }
        let written = (&file).write_all(&buffer).and_then(|()| file.sync_data());
        if let Err(error) = written {
            let _ = file.set_len(start);
            return Err(StoreError::io(&self.path)(error));
        }
        Ok(offsets)
    }

    fn open_for_append(&self) -> Result<File, StoreError> {
        let directory = parent_dir(&self.path);
        let is_new = !self.path.exists();
        if is_new {
            fs::create_dir_all(directory).map_err(StoreError::io(directory))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(StoreError::io(&self.path))?;
        if is_new {
            // The new file's directory entries must survive a crash like its content does.
            for ancestor in [directory, parent_dir(directory)] {
                File::open(ancestor)
                    .and_then(|ancestor| ancestor.sync_all())
                    .map_err(StoreError::io(ancestor))?;
            }
        }
        Ok(file)
    }

    fn ends_with_newline(&self, file: &File, length: u64) -> Result<bool, StoreError> {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, length - 1)
            .map_err(StoreError::io(&self.path))?;
        Ok(last[0] == b'\n')
    }

    /// The complete lines from `offset` (a line start, or the end) to the end of the file.
    pub fn read_from(&self, offset: u64) -> Result<JournalTail, StoreError> {
        let empty = JournalTail {
            end: offset,
            ..JournalTail::default()
        };
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(empty),
            Err(error) => return Err(StoreError::io(&self.path)(error)),
        };
        file.lock_shared().map_err(StoreError::io(&self.path))?;
        let length = file.metadata().map_err(StoreError::io(&self.path))?.len();
        if length < offset {
            tracing::error!(
                journal = %self.path.display(),
                length,
                offset,
                "the memory journal is shorter than what was folded from it"
            );
            return Ok(empty);
        }
        let mut bytes = Vec::with_capacity((length - offset) as usize);
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(StoreError::io(&self.path))?;
        drop(file);
        let tail = decode_lines(&bytes, offset);
        if tail.corrupt_lines > 0 {
            tracing::warn!(
                journal = %self.path.display(),
                lines = tail.corrupt_lines,
                "skipped torn memory journal lines"
            );
        }
        Ok(tail)
    }
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Appends `entry` as one journal line to `buffer`.
fn encode_line(entry: &MemoryEntry, buffer: &mut Vec<u8>) {
    let json = serde_json::to_vec(entry).expect("an entry serializes");
    let checksum = crc32fast::hash(&json);
    buffer.extend_from_slice(format!("{checksum:08x} ").as_bytes());
    buffer.extend_from_slice(&json);
    buffer.push(b'\n');
}

/// The complete lines of `bytes`, which start at journal offset `offset`.
fn decode_lines(bytes: &[u8], offset: u64) -> JournalTail {
    let mut tail = JournalTail::default();
    let mut position = 0;
    while let Some(length) = memchr::memchr(b'\n', &bytes[position..]) {
        let line = &bytes[position..position + length];
        let line_offset = offset + position as u64;
        position += length + 1;
        if line.is_empty() {
            continue;
        }
        match decode_line(line) {
            Some(entry) => tail.records.push(JournalRecord {
                offset: line_offset,
                entry,
            }),
            None => tail.corrupt_lines += 1,
        }
    }
    tail.end = offset + position as u64;
    tail
}

fn decode_line(line: &[u8]) -> Option<MemoryEntry> {
    let (checksum, json) = line.split_at_checked(9)?;
    let checksum = std::str::from_utf8(checksum.strip_suffix(b" ")?).ok()?;
    let checksum = u32::from_str_radix(checksum, 16).ok()?;
    if crc32fast::hash(json) != checksum {
        return None;
    }
    serde_json::from_slice(json).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::entry::Draft;

    fn entry(text: &str) -> MemoryEntry {
        Draft {
            text: text.to_owned(),
            ..Draft::default()
        }
        .normalize("p", "note", chrono::Utc::now())
        .unwrap()
    }

    #[test]
    fn appended_entries_read_back_with_their_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::at(dir.path().join("memory").join("journal.jsonl"));
        assert_eq!(journal.read_from(0).unwrap(), JournalTail::default());
        let first = journal.append(&[entry("one"), entry("two")]).unwrap();
        let second = journal.append(&[entry("three")]).unwrap();
        assert_eq!(first[0], 0);
        let tail = journal.read_from(0).unwrap();
        let offsets: Vec<u64> = tail.records.iter().map(|record| record.offset).collect();
        assert_eq!(offsets, [first, second.clone()].concat());
        assert_eq!(tail.end, journal.size().unwrap());
        let bodies: Vec<&str> = tail.records.iter().map(|r| r.entry.body.as_str()).collect();
        assert_eq!(bodies, ["one", "two", "three"]);
        let rest = journal.read_from(second[0]).unwrap();
        assert_eq!(rest.records.len(), 1);
        assert_eq!(journal.read_from(tail.end).unwrap().records, []);
    }

    #[test]
    fn a_torn_tail_is_never_half_read_and_is_sealed_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::at(dir.path().join("journal.jsonl"));
        journal.append(&[entry("kept")]).unwrap();
        let mut line = Vec::new();
        encode_line(&entry("torn"), &mut line);
        let torn = &line[..line.len() / 2];
        OpenOptions::new()
            .append(true)
            .open(journal.path())
            .unwrap()
            .write_all(torn)
            .unwrap();
        let tail = journal.read_from(0).unwrap();
        assert_eq!(tail.records.len(), 1);
        assert_eq!(
            tail.corrupt_lines, 0,
            "an unfinished line is not corrupt yet"
        );
        let resume_at = tail.end;

        journal.append(&[entry("after")]).unwrap();
        let rest = journal.read_from(resume_at).unwrap();
        let bodies: Vec<&str> = rest.records.iter().map(|r| r.entry.body.as_str()).collect();
        assert_eq!(bodies, ["after"]);
        assert_eq!(rest.corrupt_lines, 1);
    }

    #[test]
    fn a_flipped_byte_fails_the_checksum() {
        let mut line = Vec::new();
        encode_line(&entry("checksum"), &mut line);
        line.pop();
        assert!(decode_line(&line).is_some());
        let last = line.len() - 3;
        line[last] ^= 0x01;
        assert!(decode_line(&line).is_none());
        assert!(decode_line(b"zz").is_none());
    }
}
