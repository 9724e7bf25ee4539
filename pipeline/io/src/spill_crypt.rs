//! The spill's encryption: what a run puts on disk (the release runner's survivor runs,
//! held decisions and keyed records file, the ingest's duplicate-id runs) holds records and
//! ids before the `pii` stage has seen them, so every spill file is a [`SpillFile`]: written
//! sealed (ChaCha20, the RustCrypto `chacha20` crate) under a key drawn from the operating
//! system when the file is made and held only in that value, read back in clear through it,
//! and removed when it is dropped. No caller sees a key or a nonce, so none can write a
//! spill byte in clear or reuse a keystream: a run killed mid-way leaves files nobody can
//! read, and nothing of a record's text or fields appears in any spill byte.
//!
//! Confidentiality only, no authentication: the files live inside the run's own temporary
//! directory for the length of one run.

use chacha20::ChaCha20;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A spill's key (from the OS, never written) and the next file's nonce.
struct SpillKey {
    key: [u8; 32],
    next: u64,
}

/// The nonce of one spill file, kept with its path to read it back.
type FileNonce = [u8; 12];

impl SpillKey {
    /// A fresh key from the operating system's random source.
    fn fresh() -> std::io::Result<Self> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| {
            std::io::Error::other(format!("no random key for the spill's encryption: {e}"))
        })?;
        Ok(SpillKey { key, next: 0 })
    }

    /// The nonce of the next file written under this key (never the same twice).
    fn next_nonce(&mut self) -> FileNonce {
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&self.next.to_le_bytes());
        self.next += 1;
        nonce
    }

    fn cipher(&self, nonce: &FileNonce) -> ChaCha20 {
        ChaCha20::new(&self.key.into(), &(*nonce).into())
    }

    /// `inner` written to through the keystream of `nonce`.
    fn seal<W: Write>(&self, nonce: &FileNonce, inner: W) -> Sealed<W> {
        Sealed {
            inner,
            cipher: self.cipher(nonce),
            scratch: Vec::new(),
        }
    }

    /// `inner` (written by [`SpillKey::seal`] with `nonce`) read back in clear.
    fn open<R: Read>(&self, nonce: &FileNonce, inner: R) -> Opened<R> {
        Opened {
            inner,
            cipher: self.cipher(nonce),
        }
    }
}

impl SpillKey {
    /// Decrypts in place `buf`, the bytes at `offset` of a file written by
    /// [`SpillKey::seal`] with `nonce` (a block read back without reading what is before it).
    fn open_at(&self, nonce: &FileNonce, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let mut c = self.cipher(nonce);
        c.try_seek(offset).map_err(keystream_error)?;
        c.try_apply_keystream(buf).map_err(keystream_error)
    }
}

impl Drop for SpillKey {
    fn drop(&mut self) {
        self.key = [0; 32];
    }
}

fn keystream_error(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("spill file past the cipher's keystream: {e}"))
}

/// A writer that encrypts what it is given (put a `BufWriter` in front: each call encrypts
/// a copy).
struct Sealed<W> {
    inner: W,
    cipher: ChaCha20,
    scratch: Vec<u8>,
}

impl<W: Write> Write for Sealed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.scratch.clear();
        self.scratch.extend_from_slice(buf);
        self.cipher
            .try_apply_keystream(&mut self.scratch)
            .map_err(keystream_error)?;
        // The keystream has moved past these bytes: they are written whole or the file is
        // lost (the run stops on the error).
        self.inner.write_all(&self.scratch)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that decrypts what [`Sealed`] wrote (put a `BufReader` in front).
pub struct Opened<R> {
    inner: R,
    cipher: ChaCha20,
}

impl<R: Read> Read for Opened<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.cipher
            .try_apply_keystream(&mut out[..n])
            .map_err(keystream_error)?;
        Ok(n)
    }
}

/// A [`SpillFile`] read back in clear, buffered.
pub type SpillReader = BufReader<Opened<File>>;

/// One spill file: made under a key of its own drawn when it is created, written sealed
/// through a buffer, read back in clear, and removed when dropped. The key and nonce never
/// leave it, so nothing else can write a spill file in clear or read one with the wrong
/// keystream.
pub struct SpillFile {
    /// The handle reads go through (a named file is also reopened by nobody else).
    file: File,
    /// The file's name, removed on drop; `None` for a file without a name, which goes with
    /// its last handle.
    path: Option<PathBuf>,
    key: SpillKey,
    nonce: FileNonce,
    /// Open until [`SpillFile::finish`].
    writer: Option<BufWriter<Sealed<File>>>,
}

impl SpillFile {
    /// Creates `path` (and its directory) as an empty spill file.
    pub fn create(path: PathBuf) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        Self::sealing(file, Some(path))
    }

    /// A spill file without a name in `dir`: nothing is left behind whenever the run stops.
    pub fn unnamed_in(dir: &Path) -> std::io::Result<Self> {
        Self::sealing(tempfile::tempfile_in(dir)?, None)
    }

    fn sealing(file: File, path: Option<PathBuf>) -> std::io::Result<Self> {
        let mut key = SpillKey::fresh()?;
        let nonce = key.next_nonce();
        let writer = BufWriter::with_capacity(1 << 16, key.seal(&nonce, file.try_clone()?));
        Ok(SpillFile {
            file,
            path,
            key,
            nonce,
            writer: Some(writer),
        })
    }

    /// Flushes what was written; the file takes no more writes.
    pub fn finish(&mut self) -> std::io::Result<()> {
        match self.writer.take() {
            Some(mut w) => w.flush(),
            None => Ok(()),
        }
    }

    /// The whole file in clear from its start (finishing it first), buffered. It shares the
    /// file's offset: read one reader to its end before asking for the next.
    pub fn reader(&mut self) -> std::io::Result<SpillReader> {
        self.finish()?;
        let mut f = self.file.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        Ok(BufReader::with_capacity(
            1 << 16,
            self.key.open(&self.nonce, f),
        ))
    }

    /// Fills `buf` in clear with the bytes at `offset` of the finished file (without moving
    /// the offset a [`SpillFile::reader`] reads from).
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)?;
        self.key.open_at(&self.nonce, offset, buf)
    }
}

#[cfg(test)]
impl SpillFile {
    /// The file's bytes as they are on disk (sealed).
    pub(crate) fn bytes_on_disk(&self) -> std::io::Result<Vec<u8>> {
        let mut f = self.file.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

impl Write for SpillFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.writer {
            Some(w) => w.write(buf),
            None => Err(std::io::Error::other(
                "spill file written after it was finished",
            )),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.writer {
            Some(w) => w.write_all(buf),
            None => Err(std::io::Error::other(
                "spill file written after it was finished",
            )),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        // Nothing to report to: the file is sealed, and the run's temporary directory goes
        // with the run.
        drop(self.writer.take());
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, BufWriter};

    /// Bytes written sealed read back equal, whatever the chunking; the file holds none of
    /// them in clear, and two files under one key differ for the same text.
    #[test]
    fn sealed_bytes_read_back_and_hide_the_text() {
        let mut key = SpillKey::fresh().unwrap();
        let text: Vec<u8> = (0..5000)
            .flat_map(|i| format!("{i}: 전화 010-1234-5678\n").into_bytes())
            .collect();
        let (n1, n2) = (key.next_nonce(), key.next_nonce());
        assert_ne!(n1, n2);
        let mut files = Vec::new();
        for nonce in [n1, n2] {
            let mut w = BufWriter::with_capacity(777, key.seal(&nonce, Vec::new()));
            for chunk in text.chunks(1000) {
                w.write_all(chunk).unwrap();
            }
            let file = w.into_inner().ok().unwrap().inner;
            assert_eq!(file.len(), text.len());
            assert!(!file.windows(13).any(|w| w == b"010-1234-5678"));
            let mut back = Vec::new();
            BufReader::with_capacity(100, key.open(&nonce, file.as_slice()))
                .read_until(0, &mut back)
                .unwrap();
            assert_eq!(back, text);
            files.push(file);
        }
        assert_ne!(files[0], files[1]);
        // Another key does not read it.
        let other = SpillKey::fresh().unwrap();
        let mut back = Vec::new();
        other
            .open(&n1, files[0].as_slice())
            .read_to_end(&mut back)
            .unwrap();
        assert_ne!(back, text);
    }

    /// A slice of a sealed file decrypts on its own, from its offset.
    #[test]
    fn a_slice_decrypts_at_its_offset() {
        let mut key = SpillKey::fresh().unwrap();
        let nonce = key.next_nonce();
        let text: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut w = key.seal(&nonce, Vec::new());
        w.write_all(&text).unwrap();
        for (at, len) in [(0, 10), (1, 63), (64, 64), (777, 4000), (11_990, 10)] {
            let mut buf = w.inner[at..at + len].to_vec();
            key.open_at(&nonce, at as u64, &mut buf).unwrap();
            assert_eq!(buf, &text[at..at + len], "at {at}");
        }
    }

    /// A spill file reads back what was written, in whole and by slices, holds none of it
    /// in clear, and is gone once dropped; an unnamed one reads back the same.
    #[test]
    fn a_spill_file_reads_back_hides_and_goes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("run.jsonl");
        let text: Vec<u8> = (0..4000)
            .flat_map(|i| format!("{i}: 전화 010-1234-5678\n").into_bytes())
            .collect();
        for mut f in [
            SpillFile::create(path.clone()).unwrap(),
            SpillFile::unnamed_in(dir.path()).unwrap(),
        ] {
            for chunk in text.chunks(999) {
                f.write_all(chunk).unwrap();
            }
            let mut back = Vec::new();
            f.reader().unwrap().read_to_end(&mut back).unwrap();
            assert_eq!(back, text);
            assert!(f.write_all(b"late").is_err());
            let mut slice = vec![0u8; 500];
            f.read_at(1234, &mut slice).unwrap();
            assert_eq!(slice, &text[1234..1734]);
            if f.path.is_some() {
                let on_disk = std::fs::read(&path).unwrap();
                assert_eq!(on_disk.len(), text.len());
                assert!(!on_disk.windows(13).any(|w| w == b"010-1234-5678"));
            }
        }
        assert!(!path.exists());
    }
}
