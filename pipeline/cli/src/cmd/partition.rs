//! Where `kcurate stage` writes its decisions when many copies run at once (one per Spark
//! partition, say): never two processes into one file without one of them noticing.

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The placeholder a `--decisions` path may hold, replaced by the partition's name.
pub const PLACEHOLDER: &str = "{partition}";

/// The `--decisions` argument, parsed.
#[derive(Debug, PartialEq)]
pub enum DecisionTarget {
    /// `-`: tagged lines on stdout, between the records.
    Stdout,
    /// One file, locked while this process writes it.
    File(PathBuf),
    /// A path with `{partition}` in it.
    Template(String),
    /// An existing directory: `<dir>/decisions-<partition>.jsonl`.
    Dir(PathBuf),
}

impl DecisionTarget {
    pub fn parse(arg: &Path) -> Self {
        let s = arg.to_string_lossy();
        if s == "-" {
            DecisionTarget::Stdout
        } else if s.contains(PLACEHOLDER) {
            DecisionTarget::Template(s.into_owned())
        } else if arg.is_dir() {
            DecisionTarget::Dir(arg.to_path_buf())
        } else {
            DecisionTarget::File(arg.to_path_buf())
        }
    }

    /// The file this process writes its decisions to (`None`: stdout), given its first
    /// input line (which names the partition).
    pub fn path(&self, first_line: &[u8]) -> Option<PathBuf> {
        Some(match self {
            DecisionTarget::Stdout => return None,
            DecisionTarget::File(p) => p.clone(),
            DecisionTarget::Template(t) => {
                PathBuf::from(t.replace(PLACEHOLDER, &partition_name(first_line)))
            }
            DecisionTarget::Dir(d) => {
                d.join(format!("decisions-{}.jsonl", partition_name(first_line)))
            }
        })
    }

    /// The file this process writes, given its first input line (which names the
    /// partition), opened, locked and emptied.
    pub fn open(&self, first_line: &[u8]) -> anyhow::Result<File> {
        let path = self.path(first_line).expect("stdout has no file");
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("--decisions {}", path.display()))?;
        // Truncated only once the lock is ours: truncating first would wipe the decisions
        // another process is still writing.
        if file.try_lock().is_err() {
            bail!(
                "--decisions {}: another process is writing decisions to this file; give each \
                 process its own ({PLACEHOLDER} in the path, a directory, or - for stdout)",
                path.display()
            );
        }
        // Only a regular file is emptied: a device such as /dev/null cannot be, and needs
        // not be.
        let regular = file
            .metadata()
            .with_context(|| format!("--decisions {}", path.display()))?
            .is_file();
        if regular {
            file.set_len(0)
                .with_context(|| format!("--decisions {}", path.display()))?;
        }
        Ok(file)
    }
}

/// A partition's name: a hash of its first input line (record ids are unique, so two
/// partitions never share it, and a retried partition gets the same file back). An empty
/// partition has no first line and is named after its process.
pub fn partition_name(first_line: &[u8]) -> String {
    if first_line.is_empty() {
        return format!("empty-{}", std::process::id());
    }
    let digest = Sha256::digest(first_line);
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The first line of the input, read ahead and put back in front of the rest.
pub struct FirstLine {
    pub bytes: Vec<u8>,
}

pub fn peek_first_line(input: &mut impl BufRead) -> anyhow::Result<FirstLine> {
    let mut bytes = Vec::new();
    input.read_until(b'\n', &mut bytes).context("<stdin>")?;
    Ok(FirstLine { bytes })
}

impl FirstLine {
    pub fn chain<R: BufRead>(self, rest: R) -> std::io::Chain<Cursor<Vec<u8>>, R> {
        Cursor::new(self.bytes).chain(rest)
    }
}

/// One writer shared by the records and the tagged decisions.
pub struct Shared<W: Write>(pub Rc<RefCell<W>>);

impl<W: Write> Write for Shared<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Decisions as `{"decision":<decision>}` lines on the shared writer: a consumer tells
/// them from records by their one key. A line is passed on whole, so records and
/// decisions never interleave inside a line.
pub struct Tagged<W: Write> {
    out: Rc<RefCell<W>>,
    line: Vec<u8>,
}

impl<W: Write> Tagged<W> {
    pub fn new(out: Rc<RefCell<W>>) -> Self {
        Tagged {
            out,
            line: Vec::new(),
        }
    }
}

impl<W: Write> Write for Tagged<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for chunk in buf.split_inclusive(|&b| b == b'\n') {
            if let Some(body) = chunk.strip_suffix(b"\n") {
                self.line.extend_from_slice(body);
                let mut out = self.out.borrow_mut();
                out.write_all(b"{\"decision\":")?;
                out.write_all(&self.line)?;
                out.write_all(b"}\n")?;
                self.line.clear();
            } else {
                self.line.extend_from_slice(chunk);
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.borrow_mut().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_the_placeholder_is_a_template_and_dash_is_stdout() {
        assert_eq!(
            DecisionTarget::parse(Path::new("-")),
            DecisionTarget::Stdout
        );
        assert_eq!(
            DecisionTarget::parse(Path::new("out/d-{partition}.jsonl")),
            DecisionTarget::Template("out/d-{partition}.jsonl".into())
        );
        assert_eq!(
            DecisionTarget::parse(Path::new("/nonexistent/d.jsonl")),
            DecisionTarget::File("/nonexistent/d.jsonl".into())
        );
    }

    #[test]
    fn partitions_with_different_first_lines_get_different_names() {
        assert_ne!(
            partition_name(b"{\"id\":\"a\"}\n"),
            partition_name(b"{\"id\":\"b\"}\n")
        );
        assert_eq!(partition_name(b"x\n"), partition_name(b"x\n"));
    }

    #[test]
    fn tagged_lines_wrap_each_decision_whole() {
        let out = Rc::new(RefCell::new(Vec::new()));
        let mut t = Tagged::new(out.clone());
        t.write_all(b"{\"a\":1}").unwrap();
        t.write_all(b"\n{\"b\"").unwrap();
        t.write_all(b":2}\n").unwrap();
        assert_eq!(
            String::from_utf8(out.borrow().clone()).unwrap(),
            "{\"decision\":{\"a\":1}}\n{\"decision\":{\"b\":2}}\n"
        );
    }

    #[test]
    fn a_locked_decisions_file_is_refused_not_shared() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.jsonl");
        let t = DecisionTarget::parse(&p);
        let held = t.open(b"x\n").unwrap();
        let err = t.open(b"y\n").unwrap_err().to_string();
        assert!(err.contains("another process"), "{err}");
        drop(held);
        t.open(b"y\n").unwrap();
    }
}
