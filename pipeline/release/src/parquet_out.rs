//! JSONL → Parquet through arrow's JSON reader: the Parquet file holds exactly the rows of
//! the JSONL file, with the schema inferred from all of them. Two streaming passes, so
//! memory stays flat however large the split is.

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::error::ArrowError;
use arrow::json::ReaderBuilder;
use arrow::json::reader::infer_json_schema_from_seekable;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves,
};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

/// Why a JSONL file has no Parquet twin.
#[derive(Debug, thiserror::Error)]
pub enum ParquetError {
    /// Reading the JSONL or writing the Parquet failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory at fault.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The rows do not convert (arrow's message).
    #[error("{path}: {message}")]
    Convert {
        /// The file or directory at fault.
        path: String,
        /// What went wrong, in the words of the code that found it.
        message: String,
    },
}

/// Turns an error while writing or decoding `path` into a [`ParquetError::Convert`].
pub(crate) fn convert_error(
    path: &str,
) -> impl Fn(&dyn std::fmt::Display) -> ParquetError + Copy + '_ {
    move |e| ParquetError::Convert {
        path: path.to_string(),
        message: e.to_string(),
    }
}

/// Turns an I/O error on `path` into a [`ParquetError::Io`].
pub(crate) fn io_error(path: &str) -> impl Fn(std::io::Error) -> ParquetError + Copy + '_ {
    move |e| ParquetError::Io {
        path: path.to_string(),
        source: e,
    }
}

/// Writer settings fixed for reproducible bytes (no created-by drift beyond the crate
/// version, which the manifest records).
pub(crate) fn props() -> WriterProperties {
    WriterProperties::builder()
        // zstd level 1: 8% less CPU for a whole ingest run than level 3 (`make bench`, 4x),
        // for Parquet twins about 17% larger, a small share of a release next to its JSONL.
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(1).expect("zstd level 1 is valid"),
        ))
        // Small row groups keep the writer's memory flat however large the split is (16k
        // rows: peak RSS of `make bench` 1x → 4x grows 15% instead of 40%).
        .set_max_row_group_row_count(Some(ROW_GROUP))
        // Release rows are mostly unique strings (ids, text, origins): a dictionary is built,
        // compressed and then abandoned for them; zstd on plain pages does better, faster.
        .set_dictionary_enabled(false)
        // Min/max statistics of free text prune nothing and cost a comparison per value;
        // the release's readers (datasets, polars) scan whole splits.
        .set_statistics_enabled(EnabledStatistics::None)
        .build()
}

/// Rows read to infer the schema on the first try; if a later row does not fit, the whole
/// file is inferred and converted again (rows of one split share a shape, so this is rare).
pub(crate) const SAMPLE_ROWS: usize = 1_000;

/// Writes the Parquet twin of a JSONL file at `out`; returns its row count. The schema is
/// inferred from the first rows, or from all when a later row does not fit.
pub fn jsonl_to_parquet(jsonl: &Path, out: &Path) -> Result<u64, ParquetError> {
    match convert(jsonl, out, Some(SAMPLE_ROWS)) {
        Ok(n) => Ok(n),
        Err(ParquetError::Convert { .. }) => convert(jsonl, out, None),
        Err(e) => Err(e),
    }
}

/// Rows per row group (see [`props`]) and per decoded batch.
pub(crate) const ROW_GROUP: usize = 16_384;
const BATCH: usize = 8_192;

/// The schema of a JSONL file (inferred from the first `sample` rows, or all), and whether
/// the file is empty.
pub(crate) fn infer(
    jsonl: &Path,
    sample: Option<usize>,
) -> Result<(Arc<Schema>, bool), ParquetError> {
    let shown = jsonl.display().to_string();
    let mut reader = BufReader::new(File::open(jsonl).map_err(io_error(&shown))?);
    let empty = reader.get_ref().metadata().map_err(io_error(&shown))?.len() == 0;
    let schema = if empty {
        Schema::new(vec![Field::new("id", DataType::Utf8, true)])
    } else {
        with_dates(
            infer_json_schema_from_seekable(&mut reader, sample)
                .map_err(|e| convert_error(&shown)(&e))?
                .0,
        )
    };
    Ok((Arc::new(schema), empty))
}

/// The release's `date` column (ISO `YYYY-MM-DD` strings, as ingest writes them) is a date32
/// column in Parquet, the type the card states for both files.
fn with_dates(schema: Schema) -> Schema {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match (f.name().as_str(), f.data_type()) {
            ("date", DataType::Utf8) => f.as_ref().clone().with_data_type(DataType::Date32),
            _ => f.as_ref().clone(),
        })
        .collect();
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// Decodes one row group's JSON lines into batches of [`BATCH`] rows, as arrow's reader
/// would. Strict: a field the schema lacks is an error (the caller infers again from every
/// row), never a column silently left out.
///
/// The lines are cut every [`BATCH`] lines and the pieces decoded in parallel: a run's last
/// row groups are decoded when nothing else is left to do. One line is one row (the release
/// writes no blank lines), so the pieces' batches are the ones a single decoder makes.
fn decode(schema: &Arc<Schema>, lines: &[u8]) -> Result<Vec<RecordBatch>, ArrowError> {
    let mut pieces = Vec::new();
    let mut rest = lines;
    while !rest.is_empty() {
        let cut = memchr::memchr_iter(b'\n', rest)
            .nth(BATCH - 1)
            .map_or(rest.len(), |i| i + 1);
        let (piece, after) = rest.split_at(cut);
        pieces.push(piece);
        rest = after;
    }
    let decoded: Vec<Result<Vec<RecordBatch>, ArrowError>> = pieces
        .par_iter()
        .map(|piece| match crate::flat_json::decode(schema, piece) {
            Some(batch) => Ok(vec![batch]),
            None => decode_serial(schema, piece),
        })
        .collect();
    let mut batches = Vec::new();
    for d in decoded {
        batches.extend(d?);
    }
    Ok(batches)
}

/// [`decode`] with one decoder.
fn decode_serial(schema: &Arc<Schema>, lines: &[u8]) -> Result<Vec<RecordBatch>, ArrowError> {
    let mut dec = ReaderBuilder::new(schema.clone())
        .with_batch_size(BATCH)
        .with_strict_mode(true)
        .build_decoder()?;
    let mut batches = Vec::new();
    let mut rest = lines;
    while !rest.is_empty() {
        let n = dec.decode(rest)?;
        rest = &rest[n..];
        if let Some(b) = dec.flush()? {
            batches.push(b);
        }
    }
    if let Some(b) = dec.flush()? {
        batches.push(b);
    }
    Ok(batches)
}

/// One row group's rows and encoded column chunks.
pub(crate) type EncodedGroup = (u64, Vec<ArrowColumnChunk>);

/// Decodes the JSON lines of row group `index` and encodes its column chunks (zstd
/// included). `shown` names the file in errors.
pub(crate) fn encode_group(
    schema: &Arc<Schema>,
    factory: &ArrowRowGroupWriterFactory,
    index: usize,
    lines: Vec<u8>,
    shown: &str,
) -> Result<EncodedGroup, ParquetError> {
    let conv = convert_error(shown);
    let batches = decode(schema, &lines).map_err(|e| conv(&e))?;
    // The batches hold their own copy: the lines go before the encoding, so a group in
    // flight does not hold both.
    drop(lines);
    let mut writers = factory.create_column_writers(index).map_err(|e| conv(&e))?;
    let n = batches.iter().map(|b| b.num_rows() as u64).sum();
    // The columns are encoded in parallel: they are independent, and a run's last row
    // groups, encoded when nothing else is left to do, otherwise keep one core each.
    // Each field's writers (one per leaf column) go to one task.
    let mut fields: Vec<(usize, &mut [ArrowColumnWriter])> = Vec::new();
    let mut rest = writers.as_mut_slice();
    for (i, field) in schema.fields().iter().enumerate() {
        let leaves = match batches.first() {
            Some(b) => compute_leaves(field, b.column(i))
                .map_err(|e| conv(&e))?
                .len(),
            None => 0,
        };
        let (mine, others) = rest.split_at_mut(leaves.min(rest.len()));
        fields.push((i, mine));
        rest = others;
    }
    fields
        .into_par_iter()
        .try_for_each(|(i, ws)| -> Result<(), ArrowError> {
            for b in &batches {
                let leaves = compute_leaves(&schema.fields()[i], b.column(i))?;
                for (w, leaf) in ws.iter_mut().zip(&leaves) {
                    w.write(leaf)?;
                }
            }
            Ok(())
        })
        .map_err(|e| conv(&e))?;
    let chunks = writers
        .into_par_iter()
        .map(|w| w.close())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| conv(&e))?;
    Ok((n, chunks))
}

/// Converts with the row groups encoded in parallel: the file is read a window of row groups
/// at a time; each row group's lines are decoded and its column chunks encoded (zstd
/// included) on the thread pool, then appended in order. Row groups are fixed at
/// [`ROW_GROUP`] rows and each is encoded on its own, so the bytes are the same on any
/// thread count, and the same as [`ArrowWriter`] writing [`BATCH`]-row batches (the test
/// oracle below).
fn convert(jsonl: &Path, out: &Path, sample: Option<usize>) -> Result<u64, ParquetError> {
    let shown = jsonl.display().to_string();
    let io = io_error(&shown);
    let conv = convert_error(&shown);
    let (schema, empty) = infer(jsonl, sample)?;
    let file = File::create(out).map_err(io_error(&out.display().to_string()))?;
    // ArrowWriter sets up the file (schema, arrow metadata); its lower layers take over.
    let (mut writer, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props()))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(|e| conv(&e))?;
    let mut rows = 0u64;
    if !empty {
        let window = rayon::current_num_threads().max(1);
        let mut reader = BufReader::new(File::open(jsonl).map_err(io)?);
        let mut line = Vec::new();
        let mut group_index = 0usize;
        loop {
            // Read up to `window` row groups of raw lines.
            let mut groups: Vec<Vec<u8>> = Vec::new();
            let mut in_group = 0usize;
            let mut buf = Vec::new();
            loop {
                line.clear();
                if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
                    break;
                }
                buf.extend_from_slice(&line);
                in_group += 1;
                if in_group == ROW_GROUP {
                    groups.push(std::mem::take(&mut buf));
                    in_group = 0;
                    if groups.len() == window {
                        break;
                    }
                }
            }
            if !buf.is_empty() {
                groups.push(buf);
            }
            if groups.is_empty() {
                break;
            }
            let (full, count) = (groups.len() == window, groups.len());
            let encoded: Vec<Result<EncodedGroup, ParquetError>> = groups
                .into_par_iter()
                .enumerate()
                .map(|(k, lines)| encode_group(&schema, &factory, group_index + k, lines, &shown))
                .collect();
            group_index += count;
            for e in encoded {
                let (n, chunks) = e?;
                rows += n;
                let mut rg = writer.next_row_group().map_err(|e| conv(&e))?;
                for c in chunks {
                    c.append_to_row_group(&mut rg).map_err(|e| conv(&e))?;
                }
                rg.close().map_err(|e| conv(&e))?;
            }
            if !full {
                break;
            }
        }
    }
    writer.close().map_err(|e| conv(&e))?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom};
    /// The simple version: arrow's reader into an [`ArrowWriter`], one batch after another.
    fn convert_serial(
        jsonl: &Path,
        out: &Path,
        sample: Option<usize>,
    ) -> Result<u64, ParquetError> {
        let shown = jsonl.display().to_string();
        let io = io_error(&shown);
        let conv = convert_error(&shown);
        let mut reader = BufReader::new(File::open(jsonl).map_err(io)?);
        let empty = reader.get_ref().metadata().map_err(io)?.len() == 0;
        let schema = if empty {
            Schema::new(vec![Field::new("id", DataType::Utf8, true)])
        } else {
            let (schema, _) =
                infer_json_schema_from_seekable(&mut reader, sample).map_err(|e| conv(&e))?;
            schema
        };
        reader.seek(SeekFrom::Start(0)).map_err(io)?;
        let schema = Arc::new(schema);
        let file = File::create(out).map_err(io_error(&out.display().to_string()))?;
        let mut writer =
            ArrowWriter::try_new(file, schema.clone(), Some(props())).map_err(|e| conv(&e))?;
        let mut rows = 0u64;
        if !empty {
            // Strict: a field the sample did not show is an error (and the whole file is
            // inferred again), never a column silently left out.
            let json = ReaderBuilder::new(schema)
                .with_batch_size(8192)
                .with_strict_mode(true)
                .build(reader)
                .map_err(|e| conv(&e))?;
            for batch in json {
                let batch = batch.map_err(|e| conv(&e))?;
                rows += batch.num_rows() as u64;
                writer.write(&batch).map_err(|e| conv(&e))?;
            }
        }
        writer.close().map_err(|e| conv(&e))?;
        Ok(rows)
    }

    #[test]
    fn converts_nested_rows_and_is_reproducible() {
        let d = tempfile::tempdir().unwrap();
        let j = d.path().join("a.jsonl");
        std::fs::write(&j, "{\"id\":\"a\",\"labels\":{\"label\":3.5},\"n\":1}\n{\"id\":\"b\",\"labels\":{\"label\":1.0}}\n").unwrap();
        let p1 = d.path().join("a.parquet");
        let p2 = d.path().join("b.parquet");
        assert_eq!(jsonl_to_parquet(&j, &p1).unwrap(), 2);
        jsonl_to_parquet(&j, &p2).unwrap();
        assert_eq!(std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    }

    #[test]
    fn empty_split_gives_a_valid_file() {
        let d = tempfile::tempdir().unwrap();
        let j = d.path().join("e.jsonl");
        std::fs::write(&j, "").unwrap();
        assert_eq!(
            jsonl_to_parquet(&j, &d.path().join("e.parquet")).unwrap(),
            0
        );
    }

    /// A field that first appears after the schema sample still gets its column (strict
    /// decoding fails on it and the whole file is inferred again).
    #[test]
    fn a_field_after_the_sample_is_not_dropped() {
        let d = tempfile::tempdir().unwrap();
        let j = d.path().join("late.jsonl");
        let mut rows = String::new();
        for i in 0..SAMPLE_ROWS + 500 {
            if i == SAMPLE_ROWS + 100 {
                rows.push_str(&format!("{{\"id\":\"r{i}\",\"late\":\"x\"}}\n"));
            } else {
                rows.push_str(&format!("{{\"id\":\"r{i}\"}}\n"));
            }
        }
        std::fs::write(&j, rows).unwrap();
        let p = d.path().join("late.parquet");
        assert_eq!(jsonl_to_parquet(&j, &p).unwrap(), SAMPLE_ROWS as u64 + 500);
        let meta = parquet::file::reader::SerializedFileReader::new(File::open(&p).unwrap())
            .map(|r| {
                use parquet::file::reader::FileReader;
                r.metadata().file_metadata().schema_descr().num_columns()
            })
            .unwrap();
        assert_eq!(meta, 2, "id and late");
    }

    /// The parallel converter writes the same bytes as the simple one, over several row
    /// groups with a short last one, nested values and escapes, on 1 and 3 threads.
    #[test]
    fn parallel_row_groups_equal_the_serial_writer() {
        let mut rows = String::new();
        for i in 0..ROW_GROUP * 5 + 123 {
            rows.push_str(&format!(
                "{{\"id\":\"r{i}\",\"text\":\"문장 {i} \\\"인용\\\" \\n끝\",\"n\":{},\"labels\":{{\"x\":{}}}}}\n",
                i % 7,
                i as f64 / 3.0
            ));
        }
        assert_parallel_equals_serial(&rows, ROW_GROUP as u64 * 5 + 123);
    }

    /// The same for rows of strings only, which the one-pass decoder (`flat_json`) takes:
    /// escapes, nulls, missing fields, keys out of order.
    #[test]
    fn flat_string_rows_equal_the_serial_writer() {
        let mut rows = String::new();
        for i in 0..ROW_GROUP * 3 + 77 {
            let row = match i % 4 {
                0 => format!(
                    "{{\"id\":\"r{i}\",\"text\":\"문장 {i} \\\"인용\\\"\\t끝\",\"label\":\"{}\"}}",
                    i % 10
                ),
                1 => format!("{{\"id\":\"r{i}\",\"text\":\"짧은 글 {i}\"}}"),
                2 => format!("{{\"text\":\"순서 {i}\",\"label\":null,\"id\":\"r{i}\"}}"),
                _ => format!("{{\"id\":\"r{i}\",\"text\":\"\\u00e9\\ud55c {i}\",\"label\":\"x\"}}"),
            };
            rows.push_str(&row);
            rows.push('\n');
        }
        assert_parallel_equals_serial(&rows, ROW_GROUP as u64 * 3 + 77);
    }

    fn assert_parallel_equals_serial(rows: &str, want: u64) {
        let d = tempfile::tempdir().unwrap();
        let j = d.path().join("rows.jsonl");
        std::fs::write(&j, rows).unwrap();
        let serial = d.path().join("serial.parquet");
        assert_eq!(
            convert_serial(&j, &serial, Some(SAMPLE_ROWS)).unwrap(),
            want
        );
        for threads in [1, 3] {
            let p = d.path().join(format!("par{threads}.parquet"));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let n = pool.install(|| jsonl_to_parquet(&j, &p)).unwrap();
            assert_eq!(n, want);
            assert_eq!(
                std::fs::read(&p).unwrap(),
                std::fs::read(&serial).unwrap(),
                "{threads} threads"
            );
        }
    }
}
