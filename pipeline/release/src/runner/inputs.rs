//! Sources → records: the manifest's input list and its hashes, the licence decision, the
//! error of an unreadable source, and quarantined lines read back for their decisions.

use super::*;
use kcurate_core::recipe::SourceConfig;

/// The manifest's input files before their hashes: per file its owner (a source, or the
/// stages), its path as shown, and where the reader hashes it.
#[derive(Default)]
pub(super) struct InputList {
    /// (source id, licence as shown) of each owner, shared by its files.
    pub(super) owners: Vec<(String, String)>,
    pub(super) files: Vec<UnhashedInput>,
}

impl InputList {
    /// The owner with this id and licence, added if new.
    pub(super) fn owner(&mut self, id: &str, license: &str) -> u32 {
        let found = self
            .owners
            .iter()
            .position(|(i, l)| i == id && l == license);
        found.unwrap_or_else(|| {
            self.owners.push((id.to_string(), license.to_string()));
            self.owners.len() - 1
        }) as u32
    }
}

/// An input file of the manifest, before its hash.
#[derive(Clone)]
pub(super) struct UnhashedInput {
    pub(super) owner: u32,
    /// The path as the manifest shows it.
    pub(super) shown: Box<str>,
    /// Where the file is, when not at `shown` resolved against the root.
    pub(super) path: Option<Box<Path>>,
    /// (accepted source, file number) when the reader reads it whole and hashes the bytes
    /// it parses.
    pub(super) read_as: Option<(u32, u32)>,
}

impl UnhashedInput {
    pub(super) fn path(&self, root: &Path) -> PathBuf {
        match &self.path {
            Some(p) => p.to_path_buf(),
            None => Recipe::resolve(root, &self.shown),
        }
    }

    pub(super) fn hashed(
        self,
        owners: &[(String, String)],
        sha256: String,
        size: u64,
    ) -> InputFile {
        let (source, license) = &owners[self.owner as usize];
        InputFile {
            source: source.clone(),
            path: self.shown.into_string(),
            sha256,
            size,
            license: license.clone(),
        }
    }
}

/// An input with its place in the manifest's list and its file's (sha256, size).
pub(super) type HashedInput = (usize, UnhashedInput, std::io::Result<(String, u64)>);

/// Hashes the inputs (each with its place in the manifest's list) in parallel on the
/// current pool.
pub(super) fn hash_inputs(files: Vec<(usize, UnhashedInput)>, root: &Path) -> Vec<HashedInput> {
    files
        .into_par_iter()
        .map(|(i, f)| {
            let hashed = sha256_file(&f.path(root));
            (i, f, hashed)
        })
        .collect()
}

/// The manifest's inputs, in their order: the files hashed by the hashing thread, those the
/// reader hashed as it parsed them, and (hashed now) those it was to read and did not read
/// whole (a source's `limit` reached, a file too large or unreadable). The first failure,
/// in input order, is the error.
pub(super) fn merge_hashes(
    list: InputList,
    hashed: Vec<HashedInput>,
    read: Vec<Vec<Option<FileDigest>>>,
    root: &Path,
    pool: &rayon::ThreadPool,
) -> Result<Vec<InputFile>, RunError> {
    let InputList { owners, files } = list;
    // Matched by place in the source's listing, checked by path (a directory changed
    // between listings is hashed from the file).
    let digest = |f: &UnhashedInput| {
        let (k, j) = f.read_as?;
        let d = read.get(k as usize)?.get(j as usize)?.as_ref()?;
        (d.path_key == path_key(&f.shown)).then_some(d)
    };
    let unread: Vec<(usize, UnhashedInput)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.read_as.is_some() && digest(f).is_none())
        .map(|(i, f)| (i, f.clone()))
        .collect();
    // Both in input order, as `files` is: merged in one pass, without a slot per input.
    let mut hashed = hashed.into_iter().peekable();
    let mut unread = pool
        .install(|| hash_inputs(unread, root))
        .into_iter()
        .peekable();
    let mut inputs = Vec::with_capacity(files.len());
    for (i, f) in files.into_iter().enumerate() {
        let (f, hash) = match digest(&f) {
            Some(d) => (f, Ok((hex(&d.sha256), d.size))),
            None => {
                let next = if hashed.peek().is_some_and(|h| h.0 == i) {
                    hashed.next()
                } else {
                    unread.next_if(|h| h.0 == i)
                };
                let (_, f, hash) = next.expect("every input is hashed once");
                (f, hash)
            }
        };
        match hash {
            Ok((sha256, size)) => inputs.push(f.hashed(&owners, sha256, size)),
            Err(e) => {
                return Err(RunError::Io {
                    path: f.shown.into_string(),
                    source: e,
                });
            }
        }
    }
    Ok(inputs)
}

/// The decision that records a source the licence gate refused.
pub fn license_decision(
    s: &kcurate_core::recipe::SourceConfig,
    reason: &kcurate_core::license::Refused,
) -> Decision {
    Decision {
        item: s.id.clone(),
        stage: "license".into(),
        rule: rule("license.not_allowed"),
        action: kcurate_core::Action::Drop,
        detail: format!(
            "licence {:?} refused: {reason}",
            s.license.clone().unwrap_or_default()
        ),
        score: None,
        span: None,
        text: None,
        source: s.id.clone(),
        origin: kcurate_core::names::source_name(s),
    }
}

/// The error that stops a run at a source that cannot be read: it names the recipe file
/// and line, the source, the file and, for a relative path, where it was looked for (and
/// whether it exists relative to the recipe's directory instead).
pub fn source_error(
    recipe: &Recipe,
    recipe_text: &str,
    opts: &RunOptions,
    source_id: &str,
    m: &Malformed,
) -> RunError {
    let index = recipe
        .sources
        .iter()
        .position(|s| s.id == source_id)
        .unwrap_or(0);
    let path = &recipe.sources[index].path;
    let mut hint = String::new();
    if Path::new(path).is_relative() {
        let looked = Recipe::resolve(&opts.root, path);
        hint = format!(
            " (looked for {}; {})",
            looked.display(),
            root_phrase(&opts.root)
        );
        // Recipes once resolved from the working directory: say so when that is where the
        // file is.
        if !looked.exists() && opts.root != Path::new(".") && Path::new(path).exists() {
            hint.push_str(&format!(
                "; {path} exists relative to the working directory: write the path relative to the recipe's directory, or pass --root ."
            ));
        }
    }
    RunError::Source(Box::new(SourceError {
        recipe: opts.recipe_path.clone(),
        line: table_line(recipe_text, "source", index),
        index,
        source_id: source_id.to_string(),
        file: m.file.clone(),
        file_line: m.line,
        reason: m.reason.clone(),
        hint,
    }))
}

/// The longest quarantined line a decision quotes, in characters.
pub(super) const QUOTED_LINE: usize = 500;

/// Reads quarantined input lines back for their decisions' `text`: a malformed line is
/// what the ingest stage removed, and a curator should be able to read it. Lines are read
/// forward through the file (the reader reports them in file order), so reading back costs
/// one pass per file however many of its lines were quarantined. Line 0 (a whole-file
/// problem) and a file that cannot be read quote nothing; bytes that are not UTF-8 are
/// shown as U+FFFD; a long line is cut at [`QUOTED_LINE`] characters.
#[derive(Default)]
pub struct QuarantinedLines {
    open: Option<(String, Box<dyn std::io::BufRead + Send>, u64)>,
    /// Per source id, where each file its release name names is (listed once).
    files: BTreeMap<String, BTreeMap<String, PathBuf>>,
}

impl QuarantinedLines {
    /// The input line a malformed item of source `src` stands for, read back from its file
    /// (its release name looked up in the source's listing under `root`); `None` for a
    /// whole-file problem or a line that cannot be read.
    pub fn text(&mut self, src: &SourceConfig, root: &Path, m: &Malformed) -> Option<String> {
        if m.line == 0 {
            return None;
        }
        let reuse = matches!(&self.open, Some((f, _, at)) if *f == m.file && *at < m.line);
        if !reuse {
            let files = self.files.entry(src.id.clone()).or_insert_with(|| {
                list_files(src, root)
                    .map(|l| l.into_iter().collect())
                    .unwrap_or_default()
            });
            // Decompressed as the reader read it (gzip, zstd).
            let f = kcurate_io::ingest::open_decoded(files.get(&m.file)?).ok()?;
            self.open = Some((m.file.clone(), f, 0));
        }
        let (_, reader, at) = self.open.as_mut()?;
        let mut buf = Vec::new();
        while *at < m.line {
            buf.clear();
            // At most the bytes of QUOTED_LINE characters are kept: a line quarantined for
            // its length (gigabytes, say) is skipped to its newline, not read into memory.
            if read_line_bounded(reader, &mut buf, QUOTED_LINE * 4).ok()? == 0 {
                self.open = None;
                return None;
            }
            *at += 1;
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        Some(line.chars().take(QUOTED_LINE).collect())
    }
}

/// Reads one line (to its newline or the end) from `r`, keeping at most `cap` bytes of it in
/// `buf` and skipping the rest; returns the bytes the line had (0 at the end of the input).
pub fn read_line_bounded(
    r: &mut dyn std::io::BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<u64> {
    let mut len = 0u64;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(len);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len()).min(take);
        buf.extend_from_slice(&chunk[..room]);
        r.consume(take);
        len += take as u64;
        if done {
            return Ok(len);
        }
    }
}

/// The decision that records a quarantined input line; `text` is the line as read back
/// (see [`QuarantinedLines`]).
pub fn malformed_decision(source: &str, m: &Malformed, text: Option<String>) -> Decision {
    Decision {
        item: format!("{source}@{}:{}", m.file, m.line),
        stage: "ingest".into(),
        rule: rule(m.kind.rule()),
        action: kcurate_core::Action::Drop,
        detail: format!("{}:{}: {}: {}", m.file, m.line, m.field, m.reason),
        score: None,
        span: None,
        text,
        source: source.to_string(),
        origin: format!("{}:{}", m.file, m.line),
    }
}

/// What the licence gate leaves: the manifest's sources and (unhashed) inputs, the
/// licences of the accepted sources, and the accepted sources.
pub(super) struct Gated<'r> {
    pub(super) source_refs: Vec<SourceRef>,
    pub(super) to_hash: InputList,
    pub(super) allowed: Vec<Allowed>,
    pub(super) accepted: Vec<&'r SourceConfig>,
}

/// The licence gate (a refused source becomes a `license.not_allowed` decision, or stops the
/// run under `on_error = "fail"`), and the manifest's list of inputs: every file of every
/// source, then the stages' own inputs. With `reader_hashes`, the JSON-array files of an
/// accepted source are marked as hashed by the reader that reads them whole.
pub(super) fn gate_sources<'r>(
    recipe: &'r Recipe,
    recipe_text: &str,
    opts: &RunOptions,
    reader_hashes: bool,
    extra_inputs: &[PathBuf],
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<Gated<'r>, RunError> {
    let mut g = Gated {
        source_refs: Vec::new(),
        // Kept compact: a corpus can be many thousands of small files.
        to_hash: InputList::default(),
        allowed: Vec::new(),
        accepted: Vec::new(),
    };
    for s in &recipe.sources {
        let lic = s.license.clone().unwrap_or_default();
        let (status, read_by) = license_gate(s, recipe, reader_hashes, &mut g, books, release)?;
        let shown_license = license::check(s.license.as_deref())
            .map(|a: Allowed| a.spdx())
            .unwrap_or(lic);
        let listed = list_files(s, &opts.root);
        // An accepted source that is not there stops the run before anything is read.
        if status == "used"
            && let Err(m) = &listed
        {
            return Err(source_error(recipe, recipe_text, opts, &s.id, m));
        }
        if let Ok(files) = listed {
            let owner = g.to_hash.owner(&s.id, &shown_license);
            for (j, (shown, path)) in files.into_iter().enumerate() {
                // A release name that does not resolve to the file (an absolute source
                // path, a name holding personal data) keeps the file's path beside it.
                let path = (Recipe::resolve(&opts.root, &shown) != path).then_some(path);
                g.to_hash.files.push(UnhashedInput {
                    owner,
                    shown: shown.into_boxed_str(),
                    path: path.map(PathBuf::into_boxed_path),
                    read_as: read_by.map(|k| (k as u32, j as u32)),
                });
            }
        }
        g.source_refs.push(SourceRef {
            id: s.id.clone(),
            license: shown_license,
            domain: s.domain.clone(),
            style: s.style.as_str().to_string(),
            attribution: s.attribution.clone(),
            status,
        });
    }
    for p in extra_inputs {
        let owner = g.to_hash.owner("stage", "n/a (tool input)");
        g.to_hash.files.push(UnhashedInput {
            owner,
            shown: stage_input_name(p, &opts.root).into_boxed_str(),
            path: Some(p.clone().into_boxed_path()),
            read_as: None,
        });
    }
    Ok(g)
}

/// The name the manifest gives a file a stage read: its path relative to `root` (what a
/// rebuild resolves against it); a path outside `root` given as absolute goes by
/// `stage/<file name>`, so that no release names a directory of the build machine.
pub(super) fn stage_input_name(p: &Path, root: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    if rel.is_absolute() {
        let name = rel.file_name().map(|n| n.to_string_lossy().into_owned());
        return format!("stage/{}", name.unwrap_or_default());
    }
    rel.display().to_string()
}

/// The recipe as the release's copy holds it: each absolute path (a machine-local
/// directory) replaced by the name the release gives what it names: a source directory by
/// its source id, a source file by `<source id>/<file name>` (`<source id>/#1` when the
/// name holds personal data), a stage's input by `stage/<file name>`. Run with `--root`
/// at a directory holding the inputs under those names, the copy gives the same release.
pub(super) fn released_recipe_text<'t>(
    recipe: &Recipe,
    text: &'t str,
    extra_inputs: &[PathBuf],
    root: &Path,
) -> Cow<'t, str> {
    let mut names: Vec<(String, String)> = Vec::new();
    for s in &recipe.sources {
        let p = Path::new(&s.path);
        if !p.is_absolute() {
            continue;
        }
        let name = if Recipe::resolve(root, &s.path).is_dir() {
            s.id.clone()
        } else {
            kcurate_core::names::release_name(s, 0, &s.path)
        };
        names.push((s.path.clone(), name));
    }
    for p in extra_inputs {
        let name = stage_input_name(p, root);
        if p.is_absolute() && name.starts_with("stage/") {
            names.push((p.display().to_string(), name));
        }
    }
    if names.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for (path, name) in names {
        for q in ['"', '\''] {
            out = out.replace(&format!("{q}{path}{q}"), &format!("\"{name}\""));
        }
    }
    Cow::Owned(out)
}

/// The licence gate for one source, in the licence stage's books: an accepted source joins
/// `g.accepted` (status `used`; with `reader_hashes` a JSON-array source gets its index
/// among the accepted ones, its reader hashing the files it reads whole); a refused one
/// becomes a `license.not_allowed` decision (status `refused: <why>`), or stops the run
/// under `on_error = "fail"`.
fn license_gate<'r>(
    s: &'r SourceConfig,
    recipe: &Recipe,
    reader_hashes: bool,
    g: &mut Gated<'r>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(String, Option<usize>), RunError> {
    match license::check(s.license.as_deref()) {
        Ok(a) => {
            g.allowed.push(a.clone());
            // JSON-array files of an accepted source are read whole: the reader hashes them.
            let read_by = (s.format == Format::Json && reader_hashes).then_some(g.accepted.len());
            g.accepted.push(s);
            books.license_allowed();
            Ok(("used".to_string(), read_by))
        }
        Err(reason) => {
            if recipe.on_error == OnError::Fail {
                return Err(RunError::License {
                    source_id: s.id.clone(),
                    reason,
                });
            }
            let d = license_decision(s, &reason);
            books.license_refused(&d);
            release.write_decision(&d)?;
            Ok((format!("refused: {reason}"), None))
        }
    }
}

/// The recipe text the release keeps. A derived release keeps the parent's path as
/// `kcurate challenge` gave it: its rebuild reads the parent there.
pub(super) fn recipe_copy<'t>(
    recipe: &Recipe,
    recipe_text: &'t str,
    opts: &RunOptions,
    ctx: &BuildCtx,
) -> Cow<'t, str> {
    match &opts.parent {
        Some(_) => Cow::Borrowed(recipe_text),
        None => released_recipe_text(recipe, recipe_text, &ctx.extra_inputs, &opts.root),
    }
}
