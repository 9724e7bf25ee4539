//! The one way a command opens a file it reads from a release (or a recipe): a regular
//! file only, inside the directory it belongs to, no larger than what is known of it.
//!
//! A release is data a stranger can hand over. A FIFO in place of a split file would make a
//! reader wait forever on `open`; a symbolic link to `/dev/zero` would feed it bytes without
//! end. [`open_regular`] opens without blocking (`O_NONBLOCK`, which a regular file
//! ignores), then refuses anything `fstat` does not call a regular file, and anything whose
//! real path leaves `within`. [`open_sized`] also refuses a file whose size is not the one
//! a manifest recorded, before a byte is read, and hands back a reader that cannot read past
//! it. The errors are `std::io::Error`s whose text does not repeat the path: every caller
//! already names the file.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Error, ErrorKind, Read, Take};
use std::path::{Path, PathBuf};

/// What is known of a file's size before it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The size a manifest recorded: any other size is refused.
    Recorded(u64),
    /// No record, but a reader's limit in bytes: a larger file is refused.
    AtMost(u64),
}

/// Opens `path` for reading when it is a regular file whose real path is inside `within`
/// (when given); returns the file and its size in bytes.
pub fn open_regular(path: &Path, within: Option<&Path>) -> std::io::Result<(File, u64)> {
    if let Some(root) = within {
        let real = path.canonicalize()?;
        let root = root.canonicalize()?;
        if !real.starts_with(&root) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "a symbolic link leading out of {} (to {}): refused",
                    root.display(),
                    real.display()
                ),
            ));
        }
    }
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{}, not a regular file: refused", kind_of(&meta)),
        ));
    }
    Ok((file, meta.len()))
}

/// [`open_regular`], then the size against `size`; the reader stops at that size even if
/// the file grows while it is read.
pub fn open_sized(path: &Path, within: Option<&Path>, size: Size) -> std::io::Result<Take<File>> {
    let (file, len) = open_regular(path, within)?;
    let limit = match size {
        Size::Recorded(n) if n != len => {
            return Err(Error::new(
                ErrorKind::InvalidData,
                format!("{len} bytes, but the manifest records {n}: refused (run kcurate verify)"),
            ));
        }
        Size::AtMost(n) if len > n => {
            return Err(Error::new(
                ErrorKind::InvalidData,
                format!("{len} bytes, more than the {n} this reader accepts: refused"),
            ));
        }
        Size::Recorded(n) | Size::AtMost(n) => n,
    };
    Ok(file.take(limit))
}

/// The whole of a file opened by [`open_sized`], as UTF-8 text.
pub fn read_to_string(path: &Path, within: Option<&Path>, size: Size) -> std::io::Result<String> {
    let mut r = open_sized(path, within, size)?;
    let mut text = String::new();
    r.read_to_string(&mut text)?;
    Ok(text)
}

/// The largest `manifest.json` a reader accepts (a release of millions of rows has a
/// manifest of a few hundred kilobytes).
pub const MANIFEST_MAX_BYTES: u64 = 256 << 20;

/// The files of one release directory as its `manifest.json` records them (path → size):
/// each opened through [`open_sized`] inside the release, at its recorded size. A file the
/// manifest does not list (or a directory without a manifest) is still opened as a regular
/// file inside the release, with no size to check.
#[derive(Debug, Clone)]
pub struct ReleaseFiles {
    dir: PathBuf,
    sizes: BTreeMap<String, u64>,
}

impl ReleaseFiles {
    /// The files of release `dir`, sizes read from its `manifest.json` (none when it has
    /// none; an unreadable or malformed manifest is an error naming it).
    pub fn of(dir: &Path) -> std::io::Result<ReleaseFiles> {
        #[derive(serde::Deserialize)]
        struct Output {
            path: String,
            size: u64,
        }
        #[derive(serde::Deserialize)]
        struct Outputs {
            #[serde(default)]
            outputs: Vec<Output>,
        }
        let p = dir.join("manifest.json");
        let sizes = match read_to_string(&p, Some(dir), Size::AtMost(MANIFEST_MAX_BYTES)) {
            Err(e) if e.kind() == ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(Error::new(e.kind(), format!("{}: {e}", p.display()))),
            Ok(text) => {
                let m: Outputs = serde_json::from_str(&text).map_err(|e| {
                    Error::new(ErrorKind::InvalidData, format!("{}: {e}", p.display()))
                })?;
                m.outputs.into_iter().map(|o| (o.path, o.size)).collect()
            }
        };
        Ok(ReleaseFiles {
            dir: dir.to_path_buf(),
            sizes,
        })
    }

    /// The size the manifest records for `rel` (`/`-separated, relative to the release).
    pub fn recorded(&self, rel: &str) -> Option<u64> {
        self.sizes.get(rel).copied()
    }

    /// Opens `path` (a file under the release directory) at its recorded size.
    pub fn open(&self, path: &Path) -> std::io::Result<Take<File>> {
        let rel = path
            .strip_prefix(&self.dir)
            .map(|r| r.to_string_lossy().replace('\\', "/"));
        let size = match rel.ok().and_then(|r| self.recorded(&r)) {
            Some(n) => Size::Recorded(n),
            None => Size::AtMost(u64::MAX),
        };
        open_sized(path, Some(&self.dir), size)
    }

    /// The whole of `path` (under the release directory) as UTF-8 text, at its recorded size.
    pub fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        let mut text = String::new();
        self.open(path)?.read_to_string(&mut text)?;
        Ok(text)
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("train.jsonl");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path `c` owns, alive for the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_regular(&p, Some(d.path())).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_link_out_of_the_directory_is_refused_and_one_inside_is_followed() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.jsonl"), "x\n").unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.path().join("z.jsonl")).unwrap();
        std::os::unix::fs::symlink("a.jsonl", d.path().join("b.jsonl")).unwrap();
        let e = open_regular(&d.path().join("z.jsonl"), Some(d.path())).unwrap_err();
        assert!(e.to_string().contains("leading out of"), "{e}");
        let (_, n) = open_regular(&d.path().join("b.jsonl"), Some(d.path())).unwrap();
        assert_eq!(n, 2);
        let e = open_regular(Path::new("/dev/zero"), None).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
    }

    #[test]
    fn a_size_other_than_the_recorded_one_is_refused_before_reading() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.jsonl");
        std::fs::write(&p, "abc\n").unwrap();
        assert_eq!(
            read_to_string(&p, None, Size::Recorded(4)).unwrap(),
            "abc\n"
        );
        let e = read_to_string(&p, None, Size::Recorded(3)).unwrap_err();
        assert!(
            e.to_string()
                .contains("4 bytes, but the manifest records 3"),
            "{e}"
        );
        assert!(read_to_string(&p, None, Size::AtMost(3)).is_err());
        assert!(read_to_string(&p, None, Size::AtMost(4)).is_ok());
    }
}
