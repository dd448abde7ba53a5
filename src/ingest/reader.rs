//! Reads a source file as a stream of JSON lines without ever holding the whole file (or an
//! over-long line) in memory, hashing the complete part as it goes.

use std::io::{self, BufRead, BufReader, Read};

use serde_json::Value;

use super::lines::{JsonLine, SplitLines, trim_line};
use crate::ids::StableHasher;
use crate::model::ParseWarning;

/// Size limits that keep memory bounded whatever a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// A longer line is skipped (counted as malformed) without being buffered.
    pub max_line_bytes: usize,
    /// A whole-file JSON log (Gemini `.json`) larger than this is reported and skipped.
    pub max_json_file_bytes: u64,
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits {
            max_line_bytes: 64 << 20,
            max_json_file_bytes: 512 << 20,
        }
    }
}

/// The complete lines of a stream, with the hash of the complete part.
#[derive(Debug, Default)]
pub struct StreamedLines {
    pub split: SplitLines,
    /// Hash of bytes `[0, split.complete_offset)`.
    pub content_hash: String,
    /// Bytes read from the stream (the complete part and any held-back tail).
    pub bytes_read: u64,
    /// The first byte that is not whitespace, if any (tells a whole-file JSON document).
    pub first_byte: Option<u8>,
}

/// A malformed line not yet known to be followed by another one: if it turns out to be the
/// last line, it is held back (the writer may still be finishing it) instead of counted.
struct PendingMalformed {
    warning: ParseWarning,
    offset_before: u64,
    hasher_before: StableHasher,
}

/// Line-by-line state while streaming.
struct LineStreamer {
    limits: ReadLimits,
    streamed: StreamedLines,
    /// Hash up to the last complete line.
    committed: StableHasher,
    /// `committed` plus the bytes of the line being read.
    current: StableHasher,
    line: Vec<u8>,
    line_length: u64,
    oversized: bool,
    line_number: u64,
    pending: Option<PendingMalformed>,
}

/// Past this length a line's buffer is sized for the longest line allowed at once.
const LONG_LINE_BYTES: usize = 4 << 20;

/// Streams `reader` into JSON lines (see [`super::lines::split_json_lines`] for the rules on
/// half-written and malformed lines; over-long lines are skipped as malformed).
pub fn stream_json_lines(reader: impl Read, limits: ReadLimits) -> io::Result<StreamedLines> {
    let mut reader = BufReader::with_capacity(1 << 20, reader);
    let mut streamer = LineStreamer::new(limits);
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let consumed = match memchr::memchr(b'\n', buffer) {
            Some(newline_at) => {
                streamer.extend_line(&buffer[..newline_at]);
                streamer.finish_line();
                newline_at + 1
            }
            None => {
                streamer.extend_line(buffer);
                buffer.len()
            }
        };
        reader.consume(consumed);
    }
    Ok(streamer.finish())
}

impl LineStreamer {
    fn new(limits: ReadLimits) -> LineStreamer {
        LineStreamer {
            limits,
            streamed: StreamedLines::default(),
            committed: StableHasher::new(),
            current: StableHasher::new(),
            line: Vec::new(),
            line_length: 0,
            oversized: false,
            line_number: 0,
            pending: None,
        }
    }

    fn extend_line(&mut self, bytes: &[u8]) {
        self.current.update(bytes);
        self.streamed.bytes_read += bytes.len() as u64;
        if self.streamed.first_byte.is_none() {
            self.streamed.first_byte = bytes
                .iter()
                .copied()
                .find(|byte| !byte.is_ascii_whitespace());
        }
        self.line_length += bytes.len() as u64;
        if self.oversized {
            return;
        }
        let length = self.line.len() + bytes.len();
        if length > self.limits.max_line_bytes {
            self.oversized = true;
            self.line = Vec::new();
            return;
        }
        if length > self.line.capacity() && length > LONG_LINE_BYTES {
            // A long line: room up to the limit at once. Pages are resident only once written,
            // and the buffer is never copied again (doubling would copy it at each step and,
            // with jemalloc, keep the old buffers resident for a while: a 64 MB line cost
            // 176 MB of peak memory instead of 104).
            self.line
                .reserve_exact(self.limits.max_line_bytes - self.line.len());
        }
        self.line.extend_from_slice(bytes);
    }

    /// A newline ended the current line.
    fn finish_line(&mut self) {
        self.current.update(b"\n");
        self.streamed.bytes_read += 1;
        self.line_number += 1;
        let offset_before = self.streamed.split.complete_offset;
        let hasher_before = self.committed;
        self.commit_pending();
        let offset_after = offset_before + self.line_length + 1;
        let line = std::mem::take(&mut self.line);
        if self.oversized {
            self.streamed.split.malformed.push(ParseWarning {
                line: self.line_number,
                message: format!(
                    "line of {} bytes exceeds the {}-byte limit; skipped",
                    self.line_length, self.limits.max_line_bytes
                ),
            });
        } else {
            let raw_line = trim_line(&line);
            if !raw_line.is_empty() {
                match serde_json::from_slice::<Value>(raw_line) {
                    Ok(value) => self.streamed.split.lines.push(JsonLine {
                        number: self.line_number,
                        value,
                    }),
                    Err(error) => {
                        self.pending = Some(PendingMalformed {
                            warning: ParseWarning {
                                line: self.line_number,
                                message: format!("malformed JSON line skipped: {error}"),
                            },
                            offset_before,
                            hasher_before,
                        })
                    }
                }
            }
        }
        self.streamed.split.complete_offset = offset_after;
        self.committed = self.current;
        self.line_length = 0;
        self.oversized = false;
    }

    /// A line followed the pending malformed one: it really is malformed.
    fn commit_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.streamed.split.malformed.push(pending.warning);
        }
    }

    fn finish(mut self) -> StreamedLines {
        if self.line_length > 0 {
            // A last line without its newline is still being written.
            self.streamed.split.held_back = true;
            self.commit_pending();
        } else if let Some(pending) = self.pending.take() {
            // The last complete line does not parse: hold it back, it may be rewritten.
            self.streamed.split.held_back = true;
            self.streamed.split.complete_offset = pending.offset_before;
            self.committed = pending.hasher_before;
        }
        self.streamed.content_hash = self.committed.finish_hex();
        self.streamed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::stable_hash_hex;
    use crate::ingest::lines::split_json_lines;

    fn stream(bytes: &[u8], max_line_bytes: usize) -> StreamedLines {
        let limits = ReadLimits {
            max_line_bytes,
            ..ReadLimits::default()
        };
        stream_json_lines(bytes, limits).expect("reading a slice cannot fail")
    }

    fn assert_same_as_split(bytes: &[u8]) {
        let streamed = stream(bytes, 1 << 20);
        let split = split_json_lines(bytes);
        assert_eq!(streamed.split.lines, split.lines, "{bytes:?}");
        assert_eq!(streamed.split.complete_offset, split.complete_offset);
        assert_eq!(streamed.split.malformed, split.malformed);
        assert_eq!(streamed.split.held_back, split.held_back);
        let complete = &bytes[..split.complete_offset as usize];
        assert_eq!(streamed.content_hash, stable_hash_hex(&[complete]));
        assert_eq!(streamed.bytes_read, bytes.len() as u64);
    }

    #[test]
    fn streaming_agrees_with_the_in_memory_splitter() {
        for bytes in [
            &b""[..],
            b"{\"a\":1}\n",
            b"{\"a\":1}\n{\"b\":",
            b"{\"a\":1}\nnot json\n{\"b\":2}\n",
            b"{\"a\":1}\nnot json\n",
            b"{\"a\":1}\r\n\n  \n{\"b\":2}\r\n",
            b"garbage\n\x00\xff\xfe\n{\"c\":3}\n",
        ] {
            assert_same_as_split(bytes);
        }
    }

    #[test]
    fn an_over_long_line_is_skipped_without_being_buffered() {
        let mut bytes = b"{\"a\":1}\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 5000));
        bytes.extend(b"\n{\"b\":2}\n");
        let streamed = stream(&bytes, 100);
        assert_eq!(streamed.split.lines.len(), 2);
        assert_eq!(streamed.split.lines[1].number, 3);
        assert_eq!(streamed.split.malformed.len(), 1);
        assert_eq!(streamed.split.malformed[0].line, 2);
        assert!(streamed.split.malformed[0].message.contains("5000 bytes"));
        assert_eq!(streamed.split.complete_offset, bytes.len() as u64);
    }

    #[test]
    fn an_over_long_unfinished_last_line_is_held_back() {
        let mut bytes = b"{\"a\":1}\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 5000));
        let streamed = stream(&bytes, 100);
        assert!(streamed.split.held_back);
        assert_eq!(streamed.split.complete_offset, 8);
        assert!(streamed.split.malformed.is_empty());
        assert_eq!(streamed.content_hash, stable_hash_hex(&[&bytes[..8]]));
    }

    #[test]
    fn the_first_non_blank_byte_is_recorded() {
        assert_eq!(stream(b"  \n {\n", 100).first_byte, Some(b'{'));
        assert_eq!(stream(b"", 100).first_byte, None);
    }
}
