//! One JSONL file of a release as it is written: hashed on the way out, and its Parquet
//! twin encoded alongside it on the pool.

use super::*;

/// A JSONL file of the release, hashed as it is written (no second read for the manifest).
pub(super) type HashedFile = BufWriter<HashingWriter<File>>;

pub(super) fn create_hashed(p: &Path) -> Result<HashedFile, WriteError> {
    let f = File::create(p).map_err(io_err(p))?;
    Ok(BufWriter::with_capacity(1 << 16, HashingWriter::new(f)))
}

/// One JSONL file of the release: the file, its rows, and its Parquet twin (`None` once
/// finished).
pub(super) struct Sink {
    /// Release-relative path.
    rel: String,
    /// Where it is written.
    path: PathBuf,
    jsonl: HashedFile,
    pub(super) rows: u64,
    pub(super) parquet: Option<ParquetStream>,
}

/// The release-relative path of a JSONL file's Parquet twin.
pub(super) fn twin_rel(rel: &str) -> String {
    Path::new(rel)
        .with_extension("parquet")
        .to_string_lossy()
        .into_owned()
}

impl Sink {
    pub(super) fn create(
        tmp: &Path,
        rel: &str,
        pool: &Arc<rayon::ThreadPool>,
    ) -> Result<Self, WriteError> {
        let path = tmp.join(rel);
        let parquet = ParquetStream::new(tmp.join(twin_rel(rel)), path.clone(), pool.clone());
        Ok(Sink {
            rel: rel.to_string(),
            jsonl: create_hashed(&path)?,
            path,
            rows: 0,
            parquet: Some(parquet),
        })
    }

    /// One line, newline included. True when the twin has a row group to submit.
    pub(super) fn write_line(&mut self, line: &[u8]) -> Result<bool, WriteError> {
        self.jsonl.write_all(line).map_err(io_err(&self.path))?;
        self.rows += 1;
        let Some(p) = &mut self.parquet else {
            return Ok(false);
        };
        let full = p.push_line(line.len());
        if p.sample_complete() {
            self.jsonl.flush().map_err(io_err(&self.path))?;
            p.open()?;
        }
        Ok(full)
    }

    /// Hands the twin its complete row group, once the lines are in the file.
    pub(super) fn submit(&mut self) -> Result<(), WriteError> {
        self.jsonl.flush().map_err(io_err(&self.path))?;
        if let Some(p) = &mut self.parquet {
            p.submit()?;
        }
        Ok(())
    }

    pub(super) fn in_flight(&self) -> usize {
        self.parquet.as_ref().map_or(0, ParquetStream::in_flight)
    }

    /// Lines not yet in a submitted row group.
    pub(super) fn buffered(&self) -> usize {
        self.parquet.as_ref().map_or(0, ParquetStream::buffered)
    }

    /// Hands the twin its last, partial row group (if any) without waiting for it.
    pub(super) fn submit_last(&mut self) -> Result<(), WriteError> {
        if self.buffered() > 0 {
            self.submit()?;
        }
        Ok(())
    }

    /// Flushes the JSONL file and finishes the twin; records the (sha256, size) of the
    /// JSONL file, and of the twin when it was hashed as it was written, in `hashed`.
    pub(super) fn finish(
        &mut self,
        hashed: &mut BTreeMap<String, (String, u64)>,
    ) -> Result<(), WriteError> {
        self.jsonl.flush().map_err(io_err(&self.path))?;
        let h = self.jsonl.get_mut().finish().map_err(io_err(&self.path))?;
        hashed.insert(self.rel.clone(), h);
        if let Some(twin) = self.parquet.take()
            && let (_, Some(h)) = twin.finish()?
        {
            hashed.insert(twin_rel(&self.rel), h);
        }
        Ok(())
    }
}
