//! A JSONL file's Parquet twin, written while the JSONL is written: the file is cut into
//! row groups of [`ROW_GROUP`] lines, and as soon as a group is complete (and flushed) a job
//! on the thread pool reads its lines back from the file (the page cache, not a buffer of
//! our own: memory does not grow with the number of files), decodes and encodes them, and
//! the groups are appended in order. The bytes are those of
//! [`jsonl_to_parquet`] on the finished JSONL file (its test oracle): the schema is
//! inferred from the same first [`SAMPLE_ROWS`] rows, the groups are cut at the same rows,
//! and a row the sampled schema does not fit sends the file to that converter at the end,
//! which infers the schema from every row.

use crate::parquet_out::{
    EncodedGroup, ParquetError, ROW_GROUP, SAMPLE_ROWS, convert_error, encode_group, infer,
    io_error, jsonl_to_parquet, props,
};
use arrow::datatypes::Schema;
use kcurate_core::hash::HashingWriter;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory;
use parquet::file::writer::SerializedFileWriter;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

type Pending = Receiver<Result<EncodedGroup, ParquetError>>;

/// The file being written, once the schema is known.
struct Open {
    schema: Arc<Schema>,
    /// Hashed as it is written: the manifest needs no second read.
    writer: SerializedFileWriter<HashingWriter<File>>,
    factory: Arc<ArrowRowGroupWriterFactory>,
    next_group: usize,
    /// Groups handed to the pool, oldest first.
    in_flight: VecDeque<Pending>,
    rows: u64,
}

enum State {
    /// Before the first full group: the schema is not known yet.
    Sampling,
    Open(Box<Open>),
    /// A row did not fit the sampled schema: converted from the JSONL file at the end.
    Fallback,
}

/// A twin being written. [`push_line`](Self::push_line) says when a row group is full;
/// the owner then calls [`submit`](Self::submit), after making room with
/// [`append_oldest`](Self::append_oldest) on whichever twins it likes, so that the groups
/// in flight over all of a release's files stay bounded.
pub struct ParquetStream {
    out: PathBuf,
    jsonl: PathBuf,
    shown: String,
    pool: Arc<rayon::ThreadPool>,
    /// Byte offsets in the JSONL file: where the current group starts, and its end so far.
    group_start: u64,
    offset: u64,
    buffered: usize,
    state: State,
}

impl ParquetStream {
    /// A twin at `out` of the JSONL file `jsonl`.
    pub fn new(out: PathBuf, jsonl: PathBuf, pool: Arc<rayon::ThreadPool>) -> Self {
        ParquetStream {
            out,
            shown: jsonl.display().to_string(),
            jsonl,
            pool,
            group_start: 0,
            offset: 0,
            buffered: 0,
            state: State::Sampling,
        }
    }

    /// One more line of `len` bytes (newline included) written to the JSONL file. True when
    /// a row group is complete: flush the file, then [`submit`](Self::submit).
    pub fn push_line(&mut self, len: usize) -> bool {
        self.offset += len as u64;
        if matches!(self.state, State::Fallback) {
            return false;
        }
        self.buffered += 1;
        self.buffered == ROW_GROUP
    }

    /// True when the JSONL file has just reached the rows its schema is inferred from:
    /// flush it, then [`open`](Self::open). Opened then, not at the first full group, a
    /// split too small to fill one (dev and test, often) is not inferred at the end of
    /// the run, when nothing else is left to do.
    pub fn sample_complete(&self) -> bool {
        matches!(self.state, State::Sampling) && self.buffered == SAMPLE_ROWS
    }

    /// Opens the file with the schema of the JSONL file's first rows (flushed by now).
    pub fn open(&mut self) -> Result<(), ParquetError> {
        let conv = convert_error(&self.shown);
        let (schema, _) = infer(&self.jsonl, Some(SAMPLE_ROWS))?;
        let file = File::create(&self.out)
            .map(HashingWriter::new)
            .map_err(io_error(&self.out.display().to_string()))?;
        let (writer, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props()))
            .and_then(ArrowWriter::into_serialized_writer)
            .map_err(|e| conv(&e))?;
        self.state = State::Open(Box::new(Open {
            schema,
            writer,
            factory: Arc::new(factory),
            next_group: 0,
            in_flight: VecDeque::new(),
            rows: 0,
        }));
        Ok(())
    }

    /// Hands the current group (its lines flushed to the JSONL file) to the pool.
    pub fn submit(&mut self) -> Result<(), ParquetError> {
        if matches!(self.state, State::Sampling) {
            self.open()?;
        }
        let range = (self.group_start, self.offset);
        self.group_start = self.offset;
        self.buffered = 0;
        let State::Open(open) = &mut self.state else {
            return Ok(());
        };
        let (tx, rx) = sync_channel(1);
        let (schema, factory, index, shown, jsonl) = (
            open.schema.clone(),
            open.factory.clone(),
            open.next_group,
            self.shown.clone(),
            self.jsonl.clone(),
        );
        self.pool.spawn(move || {
            let encoded = read_range(&jsonl, range)
                .map_err(io_error(&shown))
                .and_then(|lines| encode_group(&schema, &factory, index, lines, &shown));
            let _ = tx.send(encoded);
        });
        open.next_group += 1;
        open.in_flight.push_back(rx);
        Ok(())
    }

    /// Lines written since the last submitted group.
    pub fn buffered(&self) -> usize {
        self.buffered
    }

    /// Groups handed to the pool and not appended yet.
    pub fn in_flight(&self) -> usize {
        match &self.state {
            State::Open(open) => open.in_flight.len(),
            _ => 0,
        }
    }

    /// Waits for the oldest group and appends it. False (and the file is given up for the
    /// fallback) when a row did not fit the schema.
    pub fn append_oldest(&mut self) -> Result<bool, ParquetError> {
        let State::Open(open) = &mut self.state else {
            return Ok(false);
        };
        let Some(rx) = open.in_flight.pop_front() else {
            return Ok(false);
        };
        let shown = self.shown.clone();
        let conv = convert_error(&shown);
        let encoded = rx.recv().map_err(|e| conv(&e))?;
        let (n, chunks) = match encoded {
            Ok(g) => g,
            Err(ParquetError::Convert { .. }) => {
                // The file is written again from the JSONL at the end; the groups still
                // encoding finish on their own and their results are dropped.
                self.state = State::Fallback;
                self.buffered = 0;
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        open.rows += n;
        let mut rg = open.writer.next_row_group().map_err(|e| conv(&e))?;
        for c in chunks {
            c.append_to_row_group(&mut rg).map_err(|e| conv(&e))?;
        }
        rg.close().map_err(|e| conv(&e))?;
        Ok(true)
    }

    /// Writes the last group and closes the file; the JSONL file (complete and flushed by
    /// now) is converted instead when the stream gave up or saw no rows. Returns the rows
    /// written, and the file's (sha256, size) when it was hashed as it was written (not
    /// when converted).
    pub fn finish(mut self) -> Result<(u64, Option<(String, u64)>), ParquetError> {
        if self.buffered > 0 {
            self.submit()?;
        }
        while self.append_oldest()? {}
        match self.state {
            State::Open(open) => {
                let rows = open.rows;
                let conv = convert_error(&self.shown);
                let mut file = open.writer.into_inner().map_err(|e| conv(&e))?;
                let hash = file
                    .finish()
                    .map_err(io_error(&self.out.display().to_string()))?;
                Ok((rows, Some(hash)))
            }
            State::Sampling | State::Fallback => {
                Ok((jsonl_to_parquet(&self.jsonl, &self.out)?, None))
            }
        }
    }
}

/// Bytes `[start, end)` of a file.
fn read_range(path: &Path, (start, end): (u64, u64)) -> std::io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    // Not zeroed first: read straight into the reserved space.
    let mut lines = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut lines)?;
    if lines.len() as u64 != end - start {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
        Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap(),
        )
    }

    /// Writes `rows` as JSONL and through the stream; returns (streamed, converted) bytes.
    fn both(rows: &[String], threads: usize) -> (Vec<u8>, Vec<u8>) {
        let d = tempfile::tempdir().unwrap();
        let j = d.path().join("rows.jsonl");
        let mut s = ParquetStream::new(d.path().join("s.parquet"), j.clone(), pool(threads));
        let mut file = std::io::BufWriter::new(File::create(&j).unwrap());
        for r in rows {
            let line = format!("{r}\n");
            file.write_all(line.as_bytes()).unwrap();
            if s.push_line(line.len()) {
                // At most two groups in flight, as a release keeps them.
                while s.in_flight() >= 2 {
                    s.append_oldest().unwrap();
                }
                file.flush().unwrap();
                s.submit().unwrap();
            }
        }
        file.flush().unwrap();
        drop(file);
        let (n, hash) = s.finish().unwrap();
        assert_eq!(n, rows.len() as u64);
        // A twin hashed as it was written has the hash of its file.
        if let Some(h) = hash {
            let file = kcurate_core::hash::sha256_file(&d.path().join("s.parquet")).unwrap();
            assert_eq!(h, file);
        }
        let c = d.path().join("c.parquet");
        jsonl_to_parquet(&j, &c).unwrap();
        (
            std::fs::read(d.path().join("s.parquet")).unwrap(),
            std::fs::read(&c).unwrap(),
        )
    }

    /// Several groups, a short last one, nested values and escapes, on 1 and 3 threads: the
    /// bytes of the converter on the finished file.
    #[test]
    fn streamed_twin_equals_the_converted_file() {
        let rows: Vec<String> = (0..ROW_GROUP * 3 + 77)
            .map(|i| {
                format!(
                    "{{\"id\":\"r{i}\",\"text\":\"문장 {i} \\\"인용\\\"\",\"n\":{},\"labels\":{{\"x\":{}}}}}",
                    i % 7,
                    i as f64 / 3.0
                )
            })
            .collect();
        for threads in [1, 3] {
            let (s, c) = both(&rows, threads);
            assert_eq!(s, c, "{threads} threads");
        }
    }

    /// A field first seen after the sample (in a later group) sends the file to the
    /// converter, which keeps the field's column; a short file and an empty one come out as
    /// the converter writes them.
    #[test]
    fn late_fields_short_and_empty_files_match_the_converter() {
        let mut late: Vec<String> = (0..ROW_GROUP * 2 + 5)
            .map(|i| format!("{{\"id\":\"r{i}\"}}"))
            .collect();
        late[ROW_GROUP + 3] = "{\"id\":\"x\",\"late\":\"y\"}".into();
        let short: Vec<String> = (0..10).map(|i| format!("{{\"id\":\"r{i}\"}}")).collect();
        for rows in [late, short, Vec::new()] {
            let (s, c) = both(&rows, 2);
            assert_eq!(s, c, "{} rows", rows.len());
        }
    }
}
