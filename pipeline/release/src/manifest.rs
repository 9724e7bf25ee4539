//! The release manifest, and the checks behind `verify` and `rebuild`.

use kcurate_core::StageStats;
use kcurate_core::hash::sha256_file;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The manifest's file name at the top of a release.
pub const MANIFEST: &str = "manifest.json";
/// The file name of the recipe copy a release keeps (what `rebuild` runs).
pub const RECIPE_COPY: &str = "recipe.toml";
/// The manifest format this build writes; `verify` refuses another. Format 2 records
/// `fields_sha256`.
pub const FORMAT_VERSION: u32 = 2;

/// `manifest.json`: everything needed to verify a release and rebuild it byte for byte
/// (inputs and outputs with their sha256, the recipe, the seed, the books per stage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] when written.
    pub format_version: u32,
    /// The program (and the versions of the crates that reach the bytes) that wrote it.
    pub tool: Tool,
    /// The recipe the release was built from.
    pub recipe: RecipeRef,
    /// The recipe's seed (split hashing, sampling, simulators).
    pub seed: u64,
    /// The release licence: the strictest share-alike of the used inputs.
    pub license: String,
    /// Every source of the recipe, used or refused by the licence gate.
    pub sources: Vec<SourceRef>,
    /// Every file read, with its hash: `rebuild` checks them before running.
    pub inputs: Vec<InputFile>,
    /// The books: items in, out and dropped per stage, in pipeline order.
    pub stages: Vec<StageCount>,
    /// task → split → rows.
    pub splits: BTreeMap<String, BTreeMap<String, u64>>,
    /// split role (`train`, `dev`, `test`) → the name it is released under (the recipe's
    /// `[split] names`). Absent in releases made before the names could be chosen, whose
    /// names were the roles.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub split_names: BTreeMap<String, String>,
    /// source → rule → decisions (what each rule cost each source).
    #[serde(default)]
    pub by_source: BTreeMap<String, BTreeMap<String, kcurate_core::stage::RuleCount>>,
    /// split → text length bucket (lower bound, 20 characters wide) → rows.
    #[serde(default)]
    pub lengths: BTreeMap<String, BTreeMap<u64, u64>>,
    /// stage → figures a corpus stage reported (agreement, validation statistics, ...).
    #[serde(default)]
    pub metrics: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    /// Every file of the release but the manifest, with its hash: what `verify` checks.
    pub outputs: Vec<OutputFile>,
    /// rule → precision judged by reading a sample of its decisions (from the recipe's
    /// `[audit] judgements` file; see [`crate::precision`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rule_precision: BTreeMap<String, crate::precision::RulePrecision>,
    /// How much of the release the recipe's judgements cover, and the judgements that name
    /// no decision of it (absent without `[audit] judgements`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<crate::precision::Coverage>,
    /// For a derived (challenge) release: the release it was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentRef>,
    /// sha256 of each other top-level field as written, recorded by [`Manifest::write_json`]
    /// so that `verify` catches an edit to a field it cannot recompute (see
    /// [`crate::verify`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields_sha256: BTreeMap<String, String>,
}

/// The release a derived (challenge) release was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParentRef {
    /// The parent's release name.
    pub name: String,
    /// The parent's release version.
    pub version: String,
    /// sha256 of the parent's manifest.json.
    pub manifest_sha256: String,
    /// The parent's licence, which the derived release inherits.
    pub license: String,
}

/// The program that wrote a release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `kcurate`.
    pub name: String,
    /// The kcurate version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// Versions of the crates whose behaviour reaches the bytes (Parquet writer, rand).
    pub components: BTreeMap<String, String>,
}

/// The recipe a release was built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecipeRef {
    /// The recipe's `name` (the release directory under `--out`).
    pub name: String,
    /// The recipe's `version` (the directory under the name).
    pub version: String,
    /// The recipe path as given to `kcurate run`.
    pub path: String,
    /// sha256 of the recipe text as read.
    pub sha256: String,
    /// The copy kept inside the release, which `rebuild` runs.
    pub copy: String,
}

/// A source of the recipe as the release records it (the card's source table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    /// The source id of the recipe.
    pub id: String,
    /// Its SPDX licence as the recipe declares it.
    pub license: String,
    /// Its domain (`news`, `reviews`, ...), for the card.
    pub domain: String,
    /// Its register (`formal`, `colloquial`, ...), for the card.
    pub style: String,
    /// The attribution line the licence asks for.
    pub attribution: String,
    /// `used`, or `refused: <reason>` when the licence gate refused it.
    pub status: String,
}

/// One file a run read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputFile {
    /// Source id, or `stage:<name>` for files a stage read (models, imported scores).
    pub source: String,
    /// The path as the recipe names it (relative to the run's root when it was).
    pub path: String,
    /// sha256 of its bytes as read (compressed files as stored).
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// The licence of the source it belongs to.
    pub license: String,
}

/// One stage's line of the books.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageCount {
    /// The stage name (`ingest` and `license` first, then the recipe's).
    pub name: String,
    /// Items in, out and dropped, with their units.
    #[serde(flatten)]
    pub stats: StageStats,
}

/// One file of a release, as `verify` checks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputFile {
    /// The path inside the release, `/`-separated.
    pub path: String,
    /// sha256 of its bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
}

/// Why a manifest cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The manifest path.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a manifest this build reads.
    #[error("{path}: not a kcurate manifest: {message}")]
    Parse {
        /// The file or directory at fault.
        path: String,
        /// What went wrong, in the words of the code that found it.
        message: String,
    },
}

impl Manifest {
    /// The released name of a split role (`dev` → `validation`); the role itself in a
    /// release that records no names.
    pub fn split_name<'a>(&'a self, role: &'a str) -> &'a str {
        self.split_names
            .get(role)
            .map(String::as_str)
            .unwrap_or(role)
    }

    /// Reads `manifest.json` at `path`.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let shown = path.display().to_string();
        let text = kcurate_core::bounded::read_to_string(
            path,
            None,
            kcurate_core::bounded::Size::AtMost(kcurate_core::bounded::MANIFEST_MAX_BYTES),
        )
        .map_err(|e| ManifestError::Io {
            path: shown.clone(),
            source: e,
        })?;
        serde_json::from_str(&text).map_err(|e| ManifestError::Parse {
            path: shown,
            message: e.to_string(),
        })
    }

    /// Records the digest of every field in `fields_sha256`, then writes the manifest
    /// (pretty JSON and a newline) to a file, streamed: a manifest lists every input file,
    /// megabytes for a corpus of many small files.
    pub fn write_json(&mut self, path: &Path) -> std::io::Result<()> {
        self.fields_sha256.clear();
        // Digests of the fields as a reader parses them back (a float reads back from its
        // text, not from the value in memory).
        let bytes = serde_json::to_vec(&*self).map_err(std::io::Error::other)?;
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
        self.fields_sha256 = crate::verify::field_digests(&value);
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        serde_json::to_writer_pretty(&mut w, self).map_err(std::io::Error::other)?;
        w.write_all(b"\n")?;
        w.flush()
    }

    /// Stats of one stage by name.
    pub fn stage(&self, name: &str) -> Option<&StageStats> {
        self.stages
            .iter()
            .find(|s| s.name == name)
            .map(|s| &s.stats)
    }
}

/// One way a release differs from its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// A file the manifest lists is not there (its path).
    Missing(String),
    /// A file's bytes differ from the manifest's hash.
    Changed {
        /// The file's path.
        path: String,
        /// The sha256 the manifest records.
        expected: String,
        /// The sha256 of the file as it is.
        actual: String,
    },
    /// A file the manifest does not list (its path).
    Unexpected(String),
    /// A path the manifest lists that is not a plain path inside the release (absolute,
    /// `..`, or through a symbolic link): not read.
    Outside(String),
    /// manifest.json disagrees with the release's own files (split rows, the recipe copy).
    Inconsistent {
        /// The file or figure at odds (`split rows`, `recipe copy`).
        what: String,
        /// How it disagrees.
        message: String,
    },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Missing(p) => write!(f, "{p}: missing"),
            Mismatch::Changed {
                path,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "{path}: sha256 {actual} does not match the manifest's {expected}"
                )
            }
            Mismatch::Unexpected(p) => write!(f, "{p}: not listed in the manifest"),
            Mismatch::Outside(p) => write!(
                f,
                "{p}: listed in the manifest but outside the release directory (absolute, `..` or a symbolic link); not read"
            ),
            Mismatch::Inconsistent { what, message } => {
                write!(f, "manifest.json: {what}: {message}")
            }
        }
    }
}

/// Every file of the release directory, relative, sorted.
pub fn list_release_files(dir: &Path) -> std::io::Result<Vec<String>> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            let p = e.path();
            if e.file_type()?.is_dir() {
                walk(base, &p, out)?;
            } else {
                let rel = p.strip_prefix(base).expect("walk stays under base");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// `rel` as a path inside `dir` when it is a plain relative path (no root, no `..`, no
/// `.`) and no part of it below `dir` is a symbolic link; `None` otherwise.
pub fn inside(dir: &Path, rel: &str) -> Option<PathBuf> {
    use std::path::Component;
    let p = Path::new(rel);
    if rel.is_empty()
        || rel.contains('\\')
        || !p.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let mut at = dir.to_path_buf();
    for c in p.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return None,
            Ok(_) => {}
            // Missing: reported as missing by the caller.
            Err(_) => break,
        }
    }
    Some(dir.join(p))
}

/// Checks every field of the release's manifest against the release (see
/// [`crate::verify`]); the problems found, empty when it verifies.
pub fn verify(dir: &Path) -> Result<Vec<Mismatch>, ManifestError> {
    crate::verify::verify_release(dir, &crate::verify::VerifyOptions::default()).map(|v| v.problems)
}

/// Inputs whose bytes differ from what the manifest recorded: a source's file found by its
/// release name in the source's listing under `root`, any other input resolved against
/// `root`. A stage's input recorded as `stage/<file name>` (its path was outside `root`)
/// is left to the comparison of the rebuilt manifest, which hashes it again.
pub fn changed_inputs(
    manifest: &Manifest,
    recipe: &kcurate_core::recipe::Recipe,
    root: &Path,
) -> Vec<String> {
    let listed: std::collections::BTreeMap<(&str, String), PathBuf> = recipe
        .sources
        .iter()
        .filter_map(|s| Some((s, kcurate_io::ingest::list_files(s, root).ok()?)))
        .flat_map(|(s, l)| l.into_iter().map(|(n, p)| ((s.id.as_str(), n), p)))
        .collect();
    let mut changed = Vec::new();
    for i in &manifest.inputs {
        let p = match listed.get(&(i.source.as_str(), i.path.clone())) {
            Some(p) => p.clone(),
            None if i.source == "stage" && i.path.starts_with("stage/") => continue,
            None => kcurate_core::recipe::Recipe::resolve(root, &i.path),
        };
        match sha256_file(&p) {
            Ok((h, n)) if h == i.sha256 && n == i.size => {}
            Ok((h, _)) => changed.push(format!(
                "{}: sha256 is now {h}, the manifest recorded {}",
                i.path, i.sha256
            )),
            Err(e) => changed.push(format!("{}: {e}", i.path)),
        }
    }
    changed
}

/// Files a source's directory holds now but the manifest does not list for it (added), and
/// files the manifest lists that the source no longer yields (removed), each named.
pub fn changed_input_lists(
    manifest: &Manifest,
    recipe: &kcurate_core::recipe::Recipe,
    root: &Path,
) -> Vec<String> {
    use std::collections::BTreeSet;
    let mut changed = Vec::new();
    for s in &recipe.sources {
        let recorded: BTreeSet<&str> = manifest
            .inputs
            .iter()
            .filter(|i| i.source == s.id)
            .map(|i| i.path.as_str())
            .collect();
        let now: BTreeSet<String> = match kcurate_io::ingest::list_files(s, root) {
            Ok(files) => files.into_iter().map(|(shown, _)| shown).collect(),
            Err(m) => {
                changed.push(format!("source {}: {}: {}", s.id, m.file, m.reason));
                continue;
            }
        };
        for added in now.iter().filter(|p| !recorded.contains(p.as_str())) {
            changed.push(format!(
                "{added}: added to source {} (not in the manifest)",
                s.id
            ));
        }
        for removed in recorded.iter().filter(|p| !now.contains(**p)) {
            changed.push(format!(
                "{removed}: removed from source {} (listed in the manifest)",
                s.id
            ));
        }
    }
    changed
}
