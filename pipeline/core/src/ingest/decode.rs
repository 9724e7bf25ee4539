//! Compressed input: a file's compression is found by its magic bytes, not its name, and
//! undone as the file is read (streams) or all at once (whole JSON-array files).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

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
/// decompressed as it is read.
pub fn open_decoded(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    let mut raw = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
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
