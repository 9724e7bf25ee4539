//! kcurate-io: what the runner reads and spills, apart from the stage contract
//! (`kcurate-core`), so that the stage crates do not compile the decoders and the cipher.
//!
//! - [`ingest`]: streaming readers for JSONL, TSV/CSV, plain text and JSON arrays (gzip and
//!   zstd found by their magic bytes).
//! - [`spill_crypt`]: the encryption of what a run spills to disk (pre-`pii` records, ids).
//! - [`install_decoders`]: makes `kcurate_core::open` (under the JSONL side-input reader)
//!   decode gzip and zstd as the readers do.

pub mod ingest;
pub mod spill_crypt;

/// Installs the readers' decoding opener ([`ingest::open_decoded`]) as the one
/// `kcurate_core::open::open` uses: side inputs read through `kcurate_core::jsonl` may then
/// be gzip or zstd, like sources. The binary calls it once at start.
pub fn install_decoders() {
    kcurate_core::open::install(ingest::open_decoded);
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    #[test]
    fn side_inputs_are_decoded_once_the_decoders_are_installed() {
        super::install_decoders();
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("a.data");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"{\"id\":\"x\"}\n\n{\"id\":\"y\"}\n").unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        let zst = dir.path().join("b.data");
        std::fs::write(
            &zst,
            zstd::stream::encode_all(&b"{\"id\":\"z\"}\n"[..], 3).unwrap(),
        )
        .unwrap();
        let ids = |p: &std::path::Path| -> Vec<(usize, String)> {
            kcurate_core::jsonl::values(p)
                .unwrap()
                .map(|item| {
                    let (n, v) = item.unwrap();
                    (n, v["id"].as_str().unwrap().to_string())
                })
                .collect()
        };
        assert_eq!(ids(&gz), vec![(1, "x".into()), (3, "y".into())]);
        assert_eq!(ids(&zst), vec![(1, "z".into())]);
    }
}
