//! The release's own files against the manifest: outputs, split rows, the recipe copy and
//! the fields recorded from the recipe.

use super::{inconsistent, io_error};
use crate::manifest::{
    MANIFEST, Manifest, ManifestError, Mismatch, RECIPE_COPY, inside, list_release_files,
};
use kcurate_core::hash::sha256_read;
use kcurate_core::recipe::Recipe;
use std::collections::BTreeSet;
use std::path::Path;

/// Re-hashes every listed output (changed, resized, missing, outside the release), then
/// lists the release's files the manifest does not name. Returns the listed paths.
pub(super) fn check_outputs<'m>(
    dir: &Path,
    manifest: &'m Manifest,
    problems: &mut Vec<Mismatch>,
) -> Result<BTreeSet<&'m str>, ManifestError> {
    for (i, o) in manifest.outputs.iter().enumerate() {
        let Some(p) = inside(dir, &o.path) else {
            problems.push(Mismatch::Outside(o.path.clone()));
            continue;
        };
        // A file of another size hashes differently from its first `size + 1` bytes: no
        // more are read (a link to a device or a FIFO is refused, not read).
        match kcurate_core::bounded::open_regular(&p, Some(dir))
            .and_then(|(f, _)| sha256_read(std::io::Read::take(f, o.size + 1)))
        {
            Ok((h, n)) if h == o.sha256 => {
                if n != o.size {
                    inconsistent(
                        problems,
                        &format!("outputs[{i}].size"),
                        format!("{} bytes recorded, {} holds {n}", o.size, o.path),
                    );
                }
            }
            Ok((h, _)) => problems.push(Mismatch::Changed {
                path: o.path.clone(),
                expected: o.sha256.clone(),
                actual: h,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push(Mismatch::Missing(o.path.clone()))
            }
            Err(e) => return Err(io_error(&p, e)),
        }
    }
    let listed: BTreeSet<&str> = manifest.outputs.iter().map(|o| o.path.as_str()).collect();
    for f in list_release_files(dir).map_err(|e| io_error(dir, e))? {
        if f != MANIFEST && !listed.contains(f.as_str()) {
            problems.push(Mismatch::Unexpected(f));
        }
    }
    Ok(listed)
}

/// The rows of each split file against the manifest's counts, and every JSONL file of a
/// task directory counted as a split.
pub(super) fn check_split_rows(
    dir: &Path,
    manifest: &Manifest,
    listed: &BTreeSet<&str>,
    problems: &mut Vec<Mismatch>,
) -> Result<(), ManifestError> {
    for (task, splits) in &manifest.splits {
        for (split, rows) in splits {
            let what = format!("splits.{task}.{split}");
            let rel = format!("{task}/{split}.jsonl");
            let Some(p) = inside(dir, &rel).filter(|_| listed.contains(rel.as_str())) else {
                inconsistent(
                    problems,
                    &what,
                    format!("{rows} rows recorded, but {rel} is not an output of the release"),
                );
                continue;
            };
            match count_lines(&p) {
                Ok(n) if n == *rows => {}
                Ok(n) => inconsistent(
                    problems,
                    &what,
                    format!("{rows} rows recorded, {rel} holds {n}"),
                ),
                // Missing: already reported as a missing output.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&p, e)),
            }
        }
        let prefix = format!("{task}/");
        for f in listed.iter().filter_map(|f| f.strip_prefix(&prefix)) {
            if let Some(split) = f.strip_suffix(".jsonl")
                && !split.contains('/')
                && !splits.contains_key(split)
            {
                inconsistent(
                    problems,
                    &format!("splits.{task}"),
                    format!(
                        "{task}/{f} is a split file of the release the manifest does not count"
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The recipe copy against the recorded recipe hash; the recipe it holds, when it parses.
pub(super) fn check_recipe_copy(
    dir: &Path,
    manifest: &Manifest,
    listed: &BTreeSet<&str>,
    problems: &mut Vec<Mismatch>,
) -> Result<Option<Recipe>, ManifestError> {
    if manifest.recipe.copy != RECIPE_COPY {
        inconsistent(
            problems,
            "recipe.copy",
            format!(
                "{:?} recorded; a release keeps its recipe as {RECIPE_COPY}",
                manifest.recipe.copy
            ),
        );
    }
    let Some(copy) = inside(dir, &manifest.recipe.copy) else {
        problems.push(Mismatch::Outside(manifest.recipe.copy.clone()));
        return Ok(None);
    };
    let files = kcurate_core::bounded::ReleaseFiles::of(dir).map_err(|e| io_error(dir, e))?;
    let text = match files.read_to_string(&copy) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !listed.contains(manifest.recipe.copy.as_str()) {
                problems.push(Mismatch::Missing(manifest.recipe.copy.clone()));
            }
            return Ok(None);
        }
        Err(e) => return Err(io_error(&copy, e)),
    };
    let actual = kcurate_core::hash::sha256_hex(text.as_bytes());
    if actual != manifest.recipe.sha256 {
        inconsistent(
            problems,
            "recipe.sha256",
            format!(
                "{} recorded, the recipe copy {} hashes to {actual}",
                manifest.recipe.sha256, manifest.recipe.copy
            ),
        );
    }
    match Recipe::parse(&manifest.recipe.copy, &text) {
        Ok(r) => Ok(Some(r)),
        Err(e) => {
            inconsistent(
                problems,
                "recipe",
                format!("the recipe copy does not parse: {e}"),
            );
            Ok(None)
        }
    }
}

/// A recorded value against the one the recipe copy gives.
fn same(problems: &mut Vec<Mismatch>, what: &str, recorded: &str, recipe: &str) {
    if recorded != recipe {
        inconsistent(
            problems,
            what,
            format!("{recorded:?} recorded, the recipe copy says {recipe:?}"),
        );
    }
}

/// The recorded name, version, seed, licence, sources and split names against the recipe
/// copy `r`, and the tool's name.
pub(super) fn check_recipe_fields(manifest: &Manifest, r: &Recipe, problems: &mut Vec<Mismatch>) {
    same(problems, "tool.name", &manifest.tool.name, "kcurate");
    same(problems, "recipe.name", &manifest.recipe.name, &r.name);
    same(
        problems,
        "recipe.version",
        &manifest.recipe.version,
        &r.version,
    );
    same(
        problems,
        "seed",
        &manifest.seed.to_string(),
        &r.seed.to_string(),
    );
    let allowed: Vec<_> = r
        .sources
        .iter()
        .filter_map(|s| kcurate_core::license::check(s.license.as_deref()).ok())
        .collect();
    let license = match &manifest.parent {
        Some(p) => p.license.clone(),
        None => kcurate_core::license::release_license(&allowed),
    };
    same(problems, "license", &manifest.license, &license);
    check_sources(manifest, r, problems);
    let names = r.split.names.to_map();
    let roles: std::collections::BTreeSet<&String> =
        names.keys().chain(manifest.split_names.keys()).collect();
    for role in roles {
        same(
            problems,
            &format!("split_names.{role}"),
            manifest
                .split_names
                .get(role)
                .map_or("(none)", String::as_str),
            names.get(role).map_or("(none)", String::as_str),
        );
    }
}

/// Each source as the recipe copy declares it and the licence gate judges it.
fn check_sources(manifest: &Manifest, r: &Recipe, problems: &mut Vec<Mismatch>) {
    let recorded: Vec<&str> = manifest.sources.iter().map(|s| s.id.as_str()).collect();
    let ids: Vec<&str> = r.sources.iter().map(|s| s.id.as_str()).collect();
    same(problems, "sources", &recorded.join(", "), &ids.join(", "));
    for (i, (m, s)) in manifest.sources.iter().zip(&r.sources).enumerate() {
        let (license, status) = match kcurate_core::license::check(s.license.as_deref()) {
            Ok(a) => (a.spdx(), "used".to_string()),
            Err(why) => (
                s.license.clone().unwrap_or_default(),
                format!("refused: {why}"),
            ),
        };
        same(problems, &format!("sources[{i}].id"), &m.id, &s.id);
        same(
            problems,
            &format!("sources[{i}].license"),
            &m.license,
            &license,
        );
        same(
            problems,
            &format!("sources[{i}].domain"),
            &m.domain,
            &s.domain,
        );
        same(
            problems,
            &format!("sources[{i}].style"),
            &m.style,
            s.style.as_str(),
        );
        same(
            problems,
            &format!("sources[{i}].attribution"),
            &m.attribution,
            &s.attribution,
        );
        same(
            problems,
            &format!("sources[{i}].status"),
            &m.status,
            &status,
        );
    }
}

/// Lines (newline-terminated rows) of a file.
fn count_lines(p: &Path) -> std::io::Result<u64> {
    use std::io::Read;
    let (mut f, _) = kcurate_core::bounded::open_regular(p, p.parent())?;
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            return Ok(n);
        }
        n += memchr::memchr_iter(b'\n', &buf[..k]).count() as u64;
    }
}
