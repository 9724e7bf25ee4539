//! A JSONL file's Parquet twin, written while the JSONL is written: rows are gathered into
//! row groups of [`ROW_GROUP`] lines, each full group is decoded and encoded on the thread
//! pool while the run goes on, and the groups are appended in order. The bytes are those of
//! [`jsonl_to_parquet`] on the finished JSONL file (its test oracle): the schema is
//! inferred from the same first [`SAMPLE_ROWS`] rows, the groups are cut at the same rows,
//! and a row the sampled schema does not fit sends the file to that converter at the end,
//! which infers the schema from every row.

use crate::parquet_out::{
    EncodedGroup, ParquetError, ROW_GROUP, SAMPLE_ROWS, encode_group, jsonl_to_parquet, props,
};
use arrow::datatypes::Schema;
use arrow::json::reader::infer_json_schema;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory;
use parquet::file::writer::SerializedFileWriter;
use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

type Pending = Receiver<Result<EncodedGroup, ParquetError>>;

/// The file being written, once the schema is known.
struct Open {
    schema: Arc<Schema>,
    writer: SerializedFileWriter<File>,
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
    shown: String,
    pool: Arc<rayon::ThreadPool>,
    buf: Vec<u8>,
    buffered: usize,
    state: State,
}

impl ParquetStream {
    /// A twin at `out` for the JSONL file shown as `shown` in errors.
    pub fn new(out: PathBuf, shown: String, pool: Arc<rayon::ThreadPool>) -> Self {
        ParquetStream {
            out,
            shown,
            pool,
            buf: Vec::new(),
            buffered: 0,
            state: State::Sampling,
        }
    }

    /// One JSONL line, newline included. True when a row group is full and waits for
    /// [`submit`](Self::submit).
    pub fn push_line(&mut self, line: &[u8]) -> bool {
        if matches!(self.state, State::Fallback) {
            return false;
        }
        self.buf.extend_from_slice(line);
        self.buffered += 1;
        self.buffered == ROW_GROUP
    }

    /// Opens the file with the schema of the first rows (those in the buffer).
    fn open(&mut self) -> Result<(), ParquetError> {
        let conv = |e: &dyn std::fmt::Display| ParquetError::Convert {
            path: self.shown.clone(),
            message: e.to_string(),
        };
        let (schema, _) =
            infer_json_schema(&self.buf[..], Some(SAMPLE_ROWS)).map_err(|e| conv(&e))?;
        let schema = Arc::new(schema);
        let file = File::create(&self.out).map_err(|e| ParquetError::Io {
            path: self.out.display().to_string(),
            source: e,
        })?;
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

    /// Hands the buffered group to the pool.
    pub fn submit(&mut self) -> Result<(), ParquetError> {
        if matches!(self.state, State::Sampling) {
            self.open()?;
        }
        // The next group is about as large as this one: one allocation, no regrowth.
        let next = Vec::with_capacity(self.buf.len() + self.buf.len() / 8);
        let lines = std::mem::replace(&mut self.buf, next);
        self.buffered = 0;
        let State::Open(open) = &mut self.state else {
            return Ok(());
        };
        let (tx, rx) = sync_channel(1);
        let (schema, factory, index, shown) = (
            open.schema.clone(),
            open.factory.clone(),
            open.next_group,
            self.shown.clone(),
        );
        self.pool.spawn(move || {
            let _ = tx.send(encode_group(&schema, &factory, index, &lines, &shown));
        });
        open.next_group += 1;
        open.in_flight.push_back(rx);
        Ok(())
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
        let conv = |e: &dyn std::fmt::Display| ParquetError::Convert {
            path: shown.clone(),
            message: e.to_string(),
        };
        let encoded = rx.recv().map_err(|e| conv(&e))?;
        let (n, chunks) = match encoded {
            Ok(g) => g,
            Err(ParquetError::Convert { .. }) => {
                // The file is written again from the JSONL at the end; the groups still
                // encoding finish on their own and their results are dropped.
                self.state = State::Fallback;
                self.buf = Vec::new();
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

    /// Writes the last group and closes the file; `jsonl` (complete and flushed by now) is
    /// converted instead when the stream gave up or saw no rows. Returns the rows written.
    pub fn finish(mut self, jsonl: &Path) -> Result<u64, ParquetError> {
        if self.buffered > 0 {
            self.submit()?;
        }
        while self.append_oldest()? {}
        match self.state {
            State::Open(open) => {
                let rows = open.rows;
                open.writer.close().map_err(|e| ParquetError::Convert {
                    path: self.shown.clone(),
                    message: e.to_string(),
                })?;
                Ok(rows)
            }
            State::Sampling | State::Fallback => jsonl_to_parquet(jsonl, &self.out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut s = ParquetStream::new(
            d.path().join("s.parquet"),
            "rows.jsonl".into(),
            pool(threads),
        );
        let mut all = Vec::new();
        for r in rows {
            let line = format!("{r}\n");
            if s.push_line(line.as_bytes()) {
                // At most two groups in flight, as a release keeps them.
                while s.in_flight() >= 2 {
                    s.append_oldest().unwrap();
                }
                s.submit().unwrap();
            }
            all.extend_from_slice(line.as_bytes());
        }
        std::fs::write(&j, &all).unwrap();
        let n = s.finish(&j).unwrap();
        assert_eq!(n, rows.len() as u64);
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
