//! The one rule every command that writes follows, checked before it writes a byte:
//! - it never writes to a path it reads in the same invocation: paths are compared by their
//!   canonical form and by device and inode, so a symlink or a hard link to an input is the
//!   input (`ingest --out` naming the recipe's corpus would truncate it before reading it);
//! - it never writes into a release directory (one holding a `manifest.json`) other than the
//!   release it writes: a file added to a release makes `verify` fail;
//! - it never replaces a file a person filled in (a judgement sheet) unless `--overwrite`
//!   says so, and then keeps the old file next to it (`sample.tsv.bak`, `sample.tsv.~1~`).
//!
//! A command lists what it reads in [`Reads`], then asks it about each output.

use anyhow::bail;
use kcurate_core::recipe::Recipe;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The file a release directory is recognised by.
const MANIFEST: &str = "manifest.json";

/// A path as the file system sees it.
#[derive(Debug, Clone)]
struct Ident {
    /// Canonical (symlinks resolved); for a path that does not exist yet, its deepest
    /// existing ancestor canonicalised with the rest appended.
    canon: PathBuf,
    /// Device and inode, when the path exists (a hard link shares them).
    inode: Option<(u64, u64)>,
    is_dir: bool,
}

fn ident(p: &Path) -> Ident {
    let meta = std::fs::metadata(p).ok();
    Ident {
        canon: canonical(p),
        inode: meta.as_ref().map(|m| (m.dev(), m.ino())),
        is_dir: meta.as_ref().is_some_and(|m| m.is_dir()),
    }
}

/// The regular file open on descriptor `fd`, known by device and inode.
#[allow(unsafe_code)]
fn descriptor_file(fd: libc::c_int) -> Option<Ident> {
    // SAFETY: fstat on a descriptor number into a zeroed stat buffer; a closed descriptor
    // is an error return, nothing more.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::fstat(fd, &mut st) } == 0;
    (ok && (st.st_mode & libc::S_IFMT) == libc::S_IFREG).then(|| Ident {
        canon: PathBuf::new(),
        inode: Some((st.st_dev, st.st_ino)),
        is_dir: false,
    })
}

/// `p` canonicalised as far as it exists: component by component, each prefix that exists
/// resolved (symlinks), so that a later `..` leaves the directory the file system would.
fn canonical(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => {
                out.push(other);
                if let Ok(real) = out.canonicalize() {
                    out = real;
                }
            }
        }
    }
    out
}

/// The release directory `p` lies in or is (the nearest directory from `p` up holding a
/// `manifest.json`), if any.
pub fn release_around(p: &Path) -> Option<PathBuf> {
    let canon = canonical(p);
    canon
        .ancestors()
        .find(|d| is_release(d))
        .map(Path::to_path_buf)
}

/// A directory holding a release's `manifest.json` (not some other program's file of that
/// name): one with an `audit` directory, or whose manifest lists `outputs`.
fn is_release(d: &Path) -> bool {
    let m = d.join(MANIFEST);
    if !m.is_file() {
        return false;
    }
    if d.join("audit").is_dir() {
        return true;
    }
    let mut head = Vec::new();
    std::fs::File::open(&m)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 1 << 20), &mut head))
        .is_ok_and(|_| head.windows(9).any(|w| w == b"\"outputs\""))
}

/// What a command reads, each named as its flag names it.
#[derive(Default)]
pub struct Reads {
    read: Vec<(String, Ident)>,
}

impl Reads {
    pub fn new() -> Self {
        Self::default()
    }

    /// A file or directory the command reads (`-` is stdin: see [`Reads::stdin`]).
    pub fn add(&mut self, what: &str, p: &Path) -> &mut Self {
        if p == Path::new("-") {
            return self.stdin();
        }
        self.read
            .push((format!("{what} {}", p.display()), ident(p)));
        self
    }

    /// Standard input, when it is a file (`< corpus.jsonl`): known by device and inode.
    pub fn stdin(&mut self) -> &mut Self {
        if let Some(id) = descriptor_file(0) {
            self.read.push(("stdin".into(), id));
        }
        self
    }

    /// Refuses standard output when it is a file this command reads: appended to
    /// (`>> input`), the command would read its own output without end.
    pub fn stdout_out(&self) -> anyhow::Result<()> {
        if let Some(what) = descriptor_file(1).and_then(|id| self.clash(&id)) {
            bail!(
                "stdout is a file this command reads ({what}): it would read its own output; redirect it elsewhere"
            );
        }
        Ok(())
    }

    /// A recipe and everything it names: its sources (files and directories), any stage
    /// setting naming an existing path (models, verdicts, annotations) and its judgements.
    pub fn recipe(&mut self, path: &Path, recipe: &Recipe, root: &Path) -> &mut Self {
        self.add("the recipe", path);
        for s in &recipe.sources {
            if s.path.starts_with("release:") {
                continue;
            }
            let what = format!("source {:?}", s.id);
            self.add(&what, &Recipe::resolve(root, &s.path));
            // A directory's files one by one: a hard link to one of them is that file.
            for (_, file) in kcurate_io::ingest::list_files(s, root).unwrap_or_default() {
                self.add(&what, &file);
            }
        }
        let mut settings = Vec::new();
        for t in &recipe.stages {
            strings_in(&toml::Value::Table(t.to_table()), &mut settings);
        }
        settings.extend(recipe.audit.judgements.clone());
        for s in settings {
            // Files only: a setting such as "." is no input, and would make every output
            // under the root look like one.
            let p = Recipe::resolve(root, &s);
            if !s.is_empty() && p.is_file() {
                self.add("the recipe's input", &p);
            }
        }
        self
    }

    /// The read that `out` would overwrite or write into, if any.
    fn clash(&self, out: &Ident) -> Option<&str> {
        self.read.iter().find_map(|(what, r)| {
            let same = (r.inode.is_some() && r.inode == out.inode)
                || (!r.canon.as_os_str().is_empty() && r.canon == out.canon)
                || (r.is_dir && !r.canon.as_os_str().is_empty() && out.canon.starts_with(&r.canon));
            same.then_some(what.as_str())
        })
    }

    /// Refuses `out` (a file, `-` for stdout) when it is a file this command reads, lies in
    /// a directory it reads, or lies in a release.
    pub fn file_out(&self, flag: &str, out: &Path) -> anyhow::Result<()> {
        if out == Path::new("-") {
            return Ok(());
        }
        let id = ident(out);
        if let Some(what) = self.clash(&id) {
            bail!(
                "{flag} {}: this command reads it ({what}); writing there would destroy the input: write elsewhere",
                out.display()
            );
        }
        not_in_release(flag, out)
    }

    /// Refuses writing `files` into the directory `dir` as [`Reads::file_out`] does.
    pub fn dir_out(&self, flag: &str, dir: &Path, files: &[&str]) -> anyhow::Result<()> {
        not_in_release(flag, dir)?;
        for f in files {
            self.file_out(flag, &dir.join(f))?;
        }
        Ok(())
    }

    /// Refuses a release written to `final_dir` (`<out>/<name>/<version>`) when `out` lies
    /// in a release, or when anything this command reads lies in `final_dir` (with
    /// `--overwrite` the old release there is removed: a parent release, a source or the
    /// recipe inside it would go with it).
    pub fn release_out(&self, out: &Path, final_dir: &Path) -> anyhow::Result<()> {
        not_in_release("--out", out)?;
        let target = canonical(final_dir);
        for (what, r) in &self.read {
            if !r.canon.as_os_str().is_empty() && r.canon.starts_with(&target) {
                bail!(
                    "--out {}: the release would be written to {}, which holds {what} that this command reads: write it elsewhere",
                    out.display(),
                    final_dir.display()
                );
            }
        }
        Ok(())
    }
}

/// Whether two output paths name one file (symlinks and hard links included).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (x, y) = (ident(a), ident(b));
    x.canon == y.canon || (x.inode.is_some() && x.inode == y.inode)
}

/// Refuses `p` when it is, or lies in, a release directory.
pub fn not_in_release(flag: &str, p: &Path) -> anyhow::Result<()> {
    if let Some(rel) = release_around(p) {
        bail!(
            "{flag} {}: {} is a release (it holds {MANIFEST}); a file written into it would make `kcurate verify` fail: write elsewhere",
            p.display(),
            rel.display()
        );
    }
    Ok(())
}

/// Every string in a recipe setting (arrays and tables walked).
fn strings_in(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) => out.push(s.clone()),
        toml::Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        toml::Value::Table(t) => t.values().for_each(|x| strings_in(x, out)),
        _ => {}
    }
}

/// The files of a set a person may have filled in (`files`: path → the bytes the command
/// would write). Unchanged or absent files are simply written. When one holds other bytes,
/// nothing is written without `overwrite`; with it, each such file is first kept as
/// `<file>.bak` (or `<file>.~N~` when that is taken). Returns the backups made.
pub fn write_keeping_edits(
    files: &[(PathBuf, Vec<u8>)],
    overwrite: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let changed: Vec<&PathBuf> = files
        .iter()
        .filter(|(p, bytes)| std::fs::read(p).is_ok_and(|old| &old != bytes) || is_other(p))
        .map(|(p, _)| p)
        .collect();
    if !changed.is_empty() && !overwrite {
        let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
        bail!(
            "{} already exist(s) with other content (a person may have filled it in); pass --overwrite to replace it (the old file is kept as {}.bak)",
            names.join(", "),
            names[0]
        );
    }
    let mut backups = Vec::new();
    for p in changed {
        let b = backup_name(p);
        std::fs::rename(p, &b)
            .map_err(|e| anyhow::anyhow!("{}: keeping it as {}: {e}", p.display(), b.display()))?;
        backups.push(b);
    }
    for (p, bytes) in files {
        if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))?;
        }
        std::fs::write(p, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    }
    Ok(backups)
}

/// Something at `p` that is not a readable regular file (a directory, say).
fn is_other(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_file())
}

/// `<file>.bak`, or the first free `<file>.~N~`.
pub fn backup_name(p: &Path) -> PathBuf {
    let with = |suffix: &str| {
        let mut s = p.as_os_str().to_os_string();
        s.push(suffix);
        PathBuf::from(s)
    };
    let bak = with(".bak");
    if std::fs::symlink_metadata(&bak).is_err() {
        return bak;
    }
    (1u64..)
        .map(|n| with(&format!(".~{n}~")))
        .find(|c| std::fs::symlink_metadata(c).is_err())
        .expect("a free backup name")
}

/// Keeps an existing file a person filled in before a library replaces it: refused without
/// `overwrite`, moved to its backup name with it. Returns the backup made.
pub fn keep_existing(flag: &str, p: &Path, overwrite: bool) -> anyhow::Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(p).is_err() {
        return Ok(None);
    }
    if !overwrite {
        bail!(
            "{flag} {}: the file exists (a person may have filled it in); pass --overwrite to replace it (the old file is kept as {})",
            p.display(),
            backup_name(p).display()
        );
    }
    let b = backup_name(p);
    std::fs::rename(p, &b)
        .map_err(|e| anyhow::anyhow!("{}: keeping it as {}: {e}", p.display(), b.display()))?;
    Ok(Some(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_and_a_symlink_to_an_input_are_the_input() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.jsonl");
        std::fs::write(&input, "x\n").unwrap();
        std::fs::hard_link(&input, d.path().join("hard")).unwrap();
        std::os::unix::fs::symlink(&input, d.path().join("soft")).unwrap();
        let mut reads = Reads::new();
        reads.add("--data", &input);
        for out in ["hard", "soft", "in.jsonl", "./sub/../in.jsonl"] {
            assert!(
                reads.file_out("--out", &d.path().join(out)).is_err(),
                "{out}"
            );
        }
        reads
            .file_out("--out", &d.path().join("new.jsonl"))
            .unwrap();
    }

    #[test]
    fn backups_take_the_first_free_name() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sample.tsv");
        assert_eq!(backup_name(&p), d.path().join("sample.tsv.bak"));
        std::fs::write(d.path().join("sample.tsv.bak"), "").unwrap();
        assert_eq!(backup_name(&p), d.path().join("sample.tsv.~1~"));
    }

    #[test]
    fn a_file_inside_a_release_is_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(MANIFEST), "{\"outputs\":[]}").unwrap();
        let reads = Reads::new();
        assert!(reads.file_out("--out", &d.path().join("a/b.tsv")).is_err());
        assert!(reads.dir_out("--out", d.path(), &["x"]).is_err());
    }
}
