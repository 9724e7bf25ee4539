//! The release manifest, and the checks behind `verify` and `rebuild`.

use kcurate_core::StageStats;
use kcurate_core::hash::sha256_file;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "manifest.json";
pub const RECIPE_COPY: &str = "recipe.toml";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub tool: Tool,
    pub recipe: RecipeRef,
    pub seed: u64,
    /// The release licence: the strictest share-alike of the used inputs.
    pub license: String,
    pub sources: Vec<SourceRef>,
    pub inputs: Vec<InputFile>,
    pub stages: Vec<StageCount>,
    /// task → split → rows.
    pub splits: BTreeMap<String, BTreeMap<String, u64>>,
    /// source → rule → decisions (what each rule cost each source).
    #[serde(default)]
    pub by_source: BTreeMap<String, BTreeMap<String, kcurate_core::stage::RuleCount>>,
    /// split → text length bucket (lower bound, 20 characters wide) → rows.
    #[serde(default)]
    pub lengths: BTreeMap<String, BTreeMap<u64, u64>>,
    /// stage → figures a corpus stage reported (agreement, validation statistics, ...).
    #[serde(default)]
    pub metrics: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    pub outputs: Vec<OutputFile>,
    /// rule → precision judged by reading a sample of its decisions (from the recipe's
    /// `[audit] judgements` file; see [`crate::precision`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rule_precision: BTreeMap<String, crate::precision::RulePrecision>,
    /// For a derived (challenge) release: the release it was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParentRef {
    pub name: String,
    pub version: String,
    /// sha256 of the parent's manifest.json.
    pub manifest_sha256: String,
    /// The parent's licence, which the derived release inherits.
    pub license: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// Versions of the crates whose behaviour reaches the bytes (Parquet writer, rand).
    pub components: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecipeRef {
    pub name: String,
    pub version: String,
    /// The recipe path as given to `kcurate run`.
    pub path: String,
    pub sha256: String,
    /// The copy kept inside the release, which `rebuild` runs.
    pub copy: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    pub id: String,
    pub license: String,
    pub domain: String,
    pub style: String,
    pub attribution: String,
    /// `used`, or `refused: <reason>` when the licence gate refused it.
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputFile {
    /// Source id, or `stage:<name>` for files a stage read (models, imported scores).
    pub source: String,
    pub path: String,
    pub sha256: String,
    pub size: u64,
    pub license: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageCount {
    pub name: String,
    #[serde(flatten)]
    pub stats: StageStats,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputFile {
    pub path: String,
    pub sha256: String,
    pub size: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a kcurate manifest: {message}")]
    Parse { path: String, message: String },
}

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ManifestError::Io {
            path: shown.clone(),
            source: e,
        })?;
        serde_json::from_str(&text).map_err(|e| ManifestError::Parse {
            path: shown,
            message: e.to_string(),
        })
    }

    /// Writes the manifest (pretty JSON and a newline) to a file, streamed: a manifest
    /// lists every input file, megabytes for a corpus of many small files.
    pub fn write_json(&self, path: &Path) -> std::io::Result<()> {
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
    Missing(String),
    Changed {
        path: String,
        expected: String,
        actual: String,
    },
    Unexpected(String),
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

/// Re-hashes every file against the manifest.
pub fn verify(dir: &Path) -> Result<Vec<Mismatch>, ManifestError> {
    let manifest = Manifest::load(&dir.join(MANIFEST))?;
    let io = |p: &Path, e| ManifestError::Io {
        path: p.display().to_string(),
        source: e,
    };
    let mut problems = Vec::new();
    for o in &manifest.outputs {
        let p = dir.join(&o.path);
        match sha256_file(&p) {
            Ok((h, _)) if h == o.sha256 => {}
            Ok((h, _)) => problems.push(Mismatch::Changed {
                path: o.path.clone(),
                expected: o.sha256.clone(),
                actual: h,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push(Mismatch::Missing(o.path.clone()))
            }
            Err(e) => return Err(io(&p, e)),
        }
    }
    let listed: std::collections::BTreeSet<&str> =
        manifest.outputs.iter().map(|o| o.path.as_str()).collect();
    for f in list_release_files(dir).map_err(|e| io(dir, e))? {
        if f != MANIFEST && !listed.contains(f.as_str()) {
            problems.push(Mismatch::Unexpected(f));
        }
    }
    Ok(problems)
}

/// Inputs whose bytes differ from what the manifest recorded, resolved against `root`.
pub fn changed_inputs(manifest: &Manifest, root: &Path) -> Vec<String> {
    let mut changed = Vec::new();
    for i in &manifest.inputs {
        let p: PathBuf = kcurate_core::recipe::Recipe::resolve(root, &i.path);
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
