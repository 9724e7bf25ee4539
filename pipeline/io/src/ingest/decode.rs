//! Compressed input: a file's compression is found by its magic bytes, not its name, and
//! undone as the file is read (streams) or all at once (whole JSON-array files).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of source files this process has read from disk (as stored: a compressed file
/// counts its compressed bytes), for a progress display to compare with the sources' sizes.
/// Only a display reads it: no output depends on it.
static BYTES_READ: AtomicU64 = AtomicU64::new(0);

/// The bytes of source files read so far by this process (see [`open_decoded`]); a run
/// takes the difference between two readings.
pub fn bytes_read() -> u64 {
    BYTES_READ.load(Ordering::Relaxed)
}

/// Counts `n` more source bytes read.
pub(super) fn count_read(n: u64) {
    BYTES_READ.fetch_add(n, Ordering::Relaxed);
}

/// A reader that adds what it reads to [`bytes_read`].
struct Counted<R>(R);

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        count_read(n as u64);
        Ok(n)
    }
}

/// How a file's bytes are compressed, from its first bytes (not its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// zstd (`28 b5 2f fd`).
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes `head` starts with.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Opens a file for reading; gzip (also several members) and zstd (also several frames) are
/// decompressed as it is read. The bytes read from disk count in [`bytes_read`].
pub fn open_decoded(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    let mut raw = BufReader::with_capacity(1 << 16, Counted(std::fs::File::open(path)?));
    let head = raw.fill_buf()?;
    Ok(match Compression::sniff(head) {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::with_buffer(raw)?,
        )),
    })
}

/// The decompressed bytes of a file's `data` (as they are when not compressed), at most
/// `cap + 1` of them (so a caller can tell that there were more).
pub(super) fn decode_all(data: Vec<u8>, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match Compression::sniff(&data) {
        Compression::None => return Ok(data),
        Compression::Gzip => {
            flate2::bufread::MultiGzDecoder::new(&data[..])
                .take(cap + 1)
                .read_to_end(&mut out)?;
        }
        Compression::Zstd => {
            zstd::stream::read::Decoder::with_buffer(&data[..])?
                .take(cap + 1)
                .read_to_end(&mut out)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_is_found_by_magic_bytes() {
        assert_eq!(Compression::sniff(b"\x1f\x8b\x08\0"), Compression::Gzip);
        assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd\0"), Compression::Zstd);
        assert_eq!(Compression::sniff(b"{\"text\":1}"), Compression::None);
        assert_eq!(Compression::sniff(b"\x1f"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
    }
}
