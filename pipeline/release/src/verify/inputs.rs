//! The inputs a release records against the files, resolved as `rebuild` resolves them.
//!
//! A source is checked when its files are at hand (its path lists, or one of its recorded
//! files is found): then the files it yields now must be the ones recorded, each with its
//! hash and size. A source not at hand (a release verified away from its corpus) is noted
//! and left to `fields_sha256`. The files stages read (`stage`) are one group, checked when
//! one of them is found; one recorded as `stage/<file>` (an absolute path) is noted when it
//! is not found.

use super::{Verified, inconsistent};
use crate::manifest::{InputFile, Manifest};
use kcurate_core::hash::sha256_file;
use kcurate_core::recipe::Recipe;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The owner the runner records for the files stages read, and their licence.
const STAGE: (&str, &str) = ("stage", "n/a (tool input)");

/// Checks `m.inputs` against the recipe copy `r` and the files under `root`.
pub(super) fn check(m: &Manifest, r: &Recipe, root: &Path, v: &mut Verified) {
    let mut groups = by_source(m, r, v);
    let mut away = 0;
    for s in &r.sources {
        let idx = groups.remove(s.id.as_str()).unwrap_or_default();
        let now = kcurate_io::ingest::list_files(s, root).ok();
        if now.is_none() && !idx.iter().any(|&i| exists(root, &m.inputs[i])) {
            away += idx.len();
            continue;
        }
        // Release names (what the manifest records) to the files they name now: a name is
        // not always a path (an absolute source is `<id>/<file>`, a name holding personal
        // data `<id>/#<n>`).
        let now: Option<BTreeMap<String, std::path::PathBuf>> =
            now.map(|files| files.into_iter().collect());
        if let Some(now) = &now {
            let recorded: BTreeSet<&str> = idx.iter().map(|&i| m.inputs[i].path.as_str()).collect();
            for added in now.keys().filter(|p| !recorded.contains(p.as_str())) {
                inconsistent(
                    &mut v.problems,
                    "inputs",
                    format!(
                        "{added}: a file of source {} (under {}) the manifest does not list",
                        s.id,
                        root.display()
                    ),
                );
            }
        }
        for i in idx {
            let f = &m.inputs[i];
            if now.as_ref().is_some_and(|n| !n.contains_key(&f.path)) {
                inconsistent(
                    &mut v.problems,
                    &format!("inputs[{i}].path"),
                    format!(
                        "{}: not a file of source {} (under {})",
                        f.path,
                        s.id,
                        root.display()
                    ),
                );
                continue;
            }
            let at = now.as_ref().and_then(|n| n.get(&f.path).cloned());
            check_file(root, i, f, at, v);
        }
    }
    // The files stages read are checked when one of them is found under `root` (the group is
    // at hand), but one given by an absolute path: it is recorded as `stage/<file>` (no
    // release file holds an absolute path), which names no place to look unless `--root`
    // holds a `stage/` directory.
    if let Some(idx) = groups.remove(STAGE.0) {
        let at_hand = idx.iter().any(|&i| exists(root, &m.inputs[i]));
        for i in idx {
            let f = &m.inputs[i];
            if !at_hand || (f.path.starts_with("stage/") && !exists(root, f)) {
                away += 1;
            } else {
                check_file(root, i, f, None, v);
            }
        }
    }
    if away > 0 {
        v.notes.push(format!(
            "{away} of {} input file(s) not found under {} (pass --root where the recipe's paths resolve): their paths and hashes are checked by {} only",
            m.inputs.len(),
            root.display(),
            super::FIELDS_SHA256
        ));
    }
}

/// The indices of `m.inputs` by the source that owns them, each input's source and licence
/// checked against the recipe copy on the way (a problem each where they disagree).
fn by_source<'m>(m: &'m Manifest, r: &Recipe, v: &mut Verified) -> BTreeMap<&'m str, Vec<usize>> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in m.inputs.iter().enumerate() {
        let license = match r.sources.iter().find(|s| s.id == f.source) {
            Some(s) => kcurate_core::license::check(s.license.as_deref())
                .map(|a| a.spdx())
                .unwrap_or_else(|_| s.license.clone().unwrap_or_default()),
            None if f.source == STAGE.0 => STAGE.1.to_string(),
            None => {
                inconsistent(
                    &mut v.problems,
                    &format!("inputs[{i}].source"),
                    format!("{:?} is not a source of the recipe copy", f.source),
                );
                continue;
            }
        };
        if f.license != license {
            inconsistent(
                &mut v.problems,
                &format!("inputs[{i}].license"),
                format!(
                    "{:?} recorded, its source's licence is {license:?}",
                    f.license
                ),
            );
        }
        groups.entry(f.source.as_str()).or_default().push(i);
    }
    groups
}

fn exists(root: &Path, f: &InputFile) -> bool {
    Recipe::resolve(root, &f.path).is_file()
}

/// One input file's hash and size against the manifest's `inputs[i]`; the file is `at`
/// when its source listed it, else its recorded path under `root`.
fn check_file(
    root: &Path,
    i: usize,
    f: &InputFile,
    at: Option<std::path::PathBuf>,
    v: &mut Verified,
) {
    let p = at.unwrap_or_else(|| Recipe::resolve(root, &f.path));
    let (what, message) = match sha256_file(&p) {
        Ok((h, n)) if h == f.sha256 && n == f.size => return,
        Ok((h, n)) if h == f.sha256 => (
            "size",
            format!("{} bytes recorded, {} holds {n}", f.size, f.path),
        ),
        Ok((h, _)) => (
            "sha256",
            format!("{} recorded, {} hashes to {h}", f.sha256, f.path),
        ),
        Err(e) => (
            "path",
            format!("{}: {e} (looked for {})", f.path, p.display()),
        ),
    };
    inconsistent(&mut v.problems, &format!("inputs[{i}].{what}"), message);
}
