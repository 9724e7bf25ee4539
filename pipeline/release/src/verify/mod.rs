//! `verify`: every field of manifest.json checked against what it describes.
//!
//! What can be recomputed from the release is recomputed:
//! - [`files`]: every output's hash and size, no file unlisted, the rows of each split file,
//!   the recipe copy against its hash, and what the manifest records from the recipe (name,
//!   version, seed, licence, each source's licence, domain, style, attribution and status,
//!   the stage names, the split names);
//! - [`books`]: the books (each stage's decisions per rule and action, drops, items in and
//!   out along the chain, units) and `by_source` from `audit/decisions.jsonl`;
//! - [`rows`]: `lengths` from the split files;
//! - [`inputs`]: the input files' paths, hashes and sizes, when the inputs are found where
//!   `rebuild` looks for them.
//!
//! What cannot (the tool version, the recipe path as typed, the metrics a stage reported,
//! precision from judgements, the parent, and inputs that are not at hand) is covered by
//! [`seal`]: the writer records a sha256 of each top-level field (`fields_sha256`), and
//! verify recomputes them. The seal lives in the same file, so whoever edits the manifest
//! on purpose can recompute it: it catches accidental and naive edits, not a forger. A
//! forger who rewrites the files, the manifest and its seal consistently is caught only by
//! a hash of manifest.json kept elsewhere (a derived release records its parent's).

mod books;
mod files;
mod inputs;
mod rows;
mod seal;

pub use seal::{FIELDS_SHA256, field_digests};

use crate::manifest::{FORMAT_VERSION, MANIFEST, Manifest, ManifestError, Mismatch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How `verify` runs.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Where the recorded input paths resolve (as for `rebuild`); `None`: the directory of
    /// the recipe path the manifest records, from the working directory.
    pub root: Option<PathBuf>,
    /// Re-hash the input files that are found (a corpus can be large).
    pub inputs: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            root: None,
            inputs: true,
        }
    }
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    /// Every way the release differs from its manifest; empty when it verifies.
    pub problems: Vec<Mismatch>,
    /// What was not checked, and why (inputs not at hand).
    pub notes: Vec<String>,
    /// How many files the manifest lists.
    pub files: usize,
}

/// Checks every field of `dir/manifest.json` (see the module documentation).
pub fn verify_release(dir: &Path, opts: &VerifyOptions) -> Result<Verified, ManifestError> {
    let path = dir.join(MANIFEST);
    let shown = path.display().to_string();
    let text = kcurate_core::bounded::read_to_string(
        &path,
        None,
        kcurate_core::bounded::Size::AtMost(kcurate_core::bounded::MANIFEST_MAX_BYTES),
    )
    .map_err(|e| ManifestError::Io {
        path: shown.clone(),
        source: e,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| ManifestError::Parse {
        path: shown,
        message: e.to_string(),
    })?;
    let mut v = Verified::default();
    if !format_known(&value, &mut v.problems) {
        return Ok(v);
    }
    seal::check(&value, &mut v.problems);
    let m: Manifest = match serde_json::from_value(value.clone()) {
        Ok(m) => m,
        Err(e) => {
            inconsistent(
                &mut v.problems,
                "fields",
                format!("not a kcurate manifest: {e}"),
            );
            return Ok(v);
        }
    };
    unknown_fields(&value, &m, &mut v.problems);
    v.files = m.outputs.len();
    let listed = files::check_outputs(dir, &m, &mut v.problems)?;
    files::check_split_rows(dir, &m, &listed, &mut v.problems)?;
    let recipe = files::check_recipe_copy(dir, &m, &listed, &mut v.problems)?;
    books::check(dir, &m, recipe.as_ref(), &listed, &mut v.problems)?;
    if let Some(r) = &recipe {
        files::check_recipe_fields(&m, r, &mut v.problems);
        if opts.inputs {
            let root = opts
                .root
                .clone()
                .unwrap_or_else(|| kcurate_core::recipe::Recipe::dir(Path::new(&m.recipe.path)));
            inputs::check(&m, r, &root, &mut v);
        }
    }
    Ok(v)
}

/// Records a problem with the manifest field `what`.
fn inconsistent(problems: &mut Vec<Mismatch>, what: &str, message: String) {
    problems.push(Mismatch::Inconsistent {
        what: what.to_string(),
        message,
    });
}

fn io_error(p: &Path, source: std::io::Error) -> ManifestError {
    ManifestError::Io {
        path: p.display().to_string(),
        source,
    }
}

/// Is the manifest of the format this build reads? Another is refused before anything else
/// is read: its fields may mean other things.
fn format_known(v: &Value, problems: &mut Vec<Mismatch>) -> bool {
    let found = &v["format_version"];
    if found.as_u64() == Some(u64::from(FORMAT_VERSION)) {
        return true;
    }
    let by = format!(
        "{} {}",
        v["tool"]["name"].as_str().unwrap_or("?"),
        v["tool"]["version"].as_str().unwrap_or("?")
    );
    let message = match found.as_u64() {
        Some(n) if n < u64::from(FORMAT_VERSION) => format!(
            "{n}: written by {by}, an earlier kcurate, before manifests recorded {FIELDS_SHA256}; this kcurate verifies format {FORMAT_VERSION} only (rebuild the release to upgrade it)"
        ),
        _ => format!(
            "{found} is not a manifest format this kcurate reads (it reads {FORMAT_VERSION}; the manifest says it was written by {by}); not verified"
        ),
    };
    inconsistent(problems, "format_version", message);
    false
}

/// Top-level keys of the file that are no field of the manifest (a reader ignores them).
fn unknown_fields(v: &Value, m: &Manifest, problems: &mut Vec<Mismatch>) {
    let known = serde_json::to_value(m).unwrap_or_default();
    let Some(obj) = v.as_object() else { return };
    for k in obj.keys() {
        if known.get(k).is_none() {
            inconsistent(
                problems,
                k,
                "not a field of a kcurate manifest (no reader reads it)".into(),
            );
        }
    }
}
