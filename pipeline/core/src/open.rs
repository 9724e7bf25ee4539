//! How a library opens a file that may be compressed (a JSONL side input, a source sampled
//! for a warning): through the opener the binary installs, kcurate-io's, which finds gzip and
//! zstd by their magic bytes and decodes them as the file is read. The decoders live with the
//! readers in kcurate-io so that the stage crates, which read their side inputs through
//! [`crate::jsonl`], do not compile them.
//!
//! Without an installed opener a file is read as stored, and a compressed one is refused
//! with an error that says so: its bytes are never parsed as if they were text.

use std::io::{BufRead, BufReader, Error, ErrorKind};
use std::path::Path;
use std::sync::OnceLock;

/// Opens a file for reading, undoing its compression.
pub type Opener = fn(&Path) -> std::io::Result<Box<dyn BufRead + Send>>;

static OPENER: OnceLock<Opener> = OnceLock::new();

/// Sets the opener [`open`] uses for the rest of the process (the first one set stays).
pub fn install(opener: Opener) {
    let _ = OPENER.set(opener);
}

/// Opens `path` with the installed opener; without one, as stored (a gzip or zstd file is
/// an [`ErrorKind::InvalidData`] error).
pub fn open(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    if let Some(opener) = OPENER.get() {
        return opener(path);
    }
    let mut raw = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let head = raw.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return Err(Error::new(
            ErrorKind::InvalidData,
            "compressed (gzip or zstd), and no decoder is installed (kcurate_io::install_decoders)",
        ));
    }
    Ok(Box::new(raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn without_a_decoder_plain_bytes_are_read_and_compressed_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.jsonl");
        std::fs::write(&plain, "{\"id\":1}\n").unwrap();
        let mut text = String::new();
        open(&plain).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"id\":1}\n");
        let gz = dir.path().join("a.jsonl.gz");
        std::fs::write(&gz, b"\x1f\x8b\x08\0rest").unwrap();
        let Err(e) = open(&gz) else {
            panic!("a gzip file is refused without a decoder")
        };
        assert_eq!(e.kind(), ErrorKind::InvalidData);
        assert!(e.to_string().contains("no decoder is installed"), "{e}");
    }
}
