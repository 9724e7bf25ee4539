//! The release files after the rows: recipe copy, manifest, report, dataset card, output
//! hashes, and the rename into place.

use super::*;

/// What the release files after the rows are made of.
pub(super) struct Finished<'a> {
    pub(super) recipe: &'a Recipe,
    /// The recipe text the release keeps.
    pub(super) recipe_text: &'a str,
    pub(super) opts: &'a RunOptions,
    /// The release directory, its rows written.
    pub(super) release: ReleaseDir,
    pub(super) books: Books,
    pub(super) planned: &'a [Planned],
    /// The manifest's sources and inputs.
    pub(super) source_refs: Vec<SourceRef>,
    pub(super) inputs: Vec<InputFile>,
    /// The licences of the accepted sources.
    pub(super) allowed: &'a [Allowed],
    /// Rows per split.
    pub(super) rows: BTreeMap<String, u64>,
    /// The curators' judgements of the rules.
    pub(super) judged: &'a [crate::precision::Judgement],
    pub(super) pool: &'a rayon::ThreadPool,
}

/// Writes the release files after the rows, in this order: the recipe copy, the report and
/// the dataset card (both read the manifest's books), the output hashes, the manifest, and
/// renames the temporary directory into place.
pub(super) fn finish_release(f: Finished) -> Result<RunSummary, RunError> {
    let Finished {
        recipe,
        recipe_text,
        opts,
        release,
        books,
        planned,
        source_refs,
        inputs,
        allowed,
        rows,
        judged,
        pool,
    } = f;
    let tmp = release.tmp_dir.clone();
    let task = release.task().to_string();
    let started = std::time::Instant::now();
    write_file(&tmp.join(manifest::RECIPE_COPY), recipe_text)?;
    let mut manifest = Manifest {
        format_version: manifest::FORMAT_VERSION,
        tool: tool(),
        recipe: RecipeRef {
            name: recipe.name.clone(),
            version: recipe.version.clone(),
            path: Recipe::recorded_path(&opts.recipe_path, std::env::current_dir().ok().as_deref()),
            sha256: sha256_hex(recipe_text.as_bytes()),
            copy: manifest::RECIPE_COPY.into(),
        },
        seed: recipe.seed,
        license: match &opts.parent {
            Some(p) => p.license.clone(),
            None => license::release_license(allowed),
        },
        sources: source_refs,
        inputs,
        stages: stage_counts(&books, planned),
        splits: BTreeMap::from([(task.clone(), rows)]),
        split_names: recipe.split.names.to_map(),
        by_source: release.by_source.clone(),
        lengths: release.lengths.clone(),
        metrics: books.metrics,
        outputs: Vec::new(),
        rule_precision: BTreeMap::new(),
        judged: None,
        parent: opts.parent.clone(),
        // Recorded by `write_json`.
        fields_sha256: BTreeMap::new(),
    };
    judge(recipe, &mut manifest, &release, judged);
    write_report(recipe, &manifest, &release, &task)?;
    let facts = crate::card::facts(
        recipe,
        &tmp,
        &task,
        &manifest.splits[&task],
        &release.hashed,
    )?;
    // The card quotes the recipe as the release's copy holds it: a stage setting naming a
    // file of the build machine by its absolute path shows under the release's name for it.
    let copy = Recipe::parse(manifest::RECIPE_COPY, recipe_text).ok();
    write_file(
        &tmp.join("README.md"),
        &crate::card::render(copy.as_ref().unwrap_or(recipe), &manifest, &facts),
    )?;
    manifest.outputs = hash_outputs(&tmp, &release.hashed, pool)?;
    let mpath = tmp.join(manifest::MANIFEST);
    manifest.write_json(&mpath).map_err(|e| RunError::Io {
        path: mpath.display().to_string(),
        source: e,
    })?;
    let dir = release.commit()?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "parquet, card, report, output hashes and manifest written"
    );
    Ok(RunSummary { dir, manifest })
}

/// This release's precision per rule and how much of it is judged, from the recipe's
/// judgements; a file that names no decision of the release is a warning.
fn judge(
    recipe: &Recipe,
    manifest: &mut Manifest,
    release: &ReleaseDir,
    judged: &[crate::precision::Judgement],
) {
    let Some(path) = &recipe.audit.judgements else {
        return;
    };
    let count_carried = recipe.audit.count_carried;
    let matched = release.judged.matched(judged, count_carried);
    let file = Path::new(path)
        .file_name()
        .map_or_else(|| path.clone(), |f| f.to_string_lossy().into_owned());
    let coverage =
        crate::precision::Coverage::new(&file, count_carried, &manifest.stages, &matched);
    if coverage.file_is_stale() {
        tracing::warn!(
            judgements = %path,
            "the judgements file names no decision of this release: no rule's precision comes from it"
        );
    }
    manifest.rule_precision = matched.rules;
    manifest.judged = Some(coverage);
}

/// Writes `text` to `path`; an error names the path.
fn write_file(path: &Path, text: &str) -> Result<(), RunError> {
    std::fs::write(path, text).map_err(|e| RunError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// The tool that made the release, with the versions of the components whose behaviour
/// shows in its bytes.
fn tool() -> Tool {
    let mut components = BTreeMap::new();
    components.insert("arrow/parquet".into(), "60".into());
    components.insert("rand".into(), "0.10".into());
    Tool {
        name: "kcurate".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        components,
    }
}

/// The books per stage in pipeline order: ingest (counting documents, one per source
/// record), the licence gate (counting sources), then the recipe's stages.
fn stage_counts(books: &Books, planned: &[Planned]) -> Vec<StageCount> {
    let counted = |mut s: StageStats, unit: &str| {
        if s.items_in > 0 {
            s.unit_in = unit.to_string();
        }
        if s.items_out > 0 {
            s.unit_out = unit.to_string();
        }
        s
    };
    let mut stages = vec![
        StageCount {
            name: "ingest".into(),
            stats: counted(books.ingest.clone(), kcurate_core::Kind::Document.unit()),
        },
        StageCount {
            name: "license".into(),
            stats: counted(books.license.clone(), "sources"),
        },
    ];
    for (p, stats) in planned.iter().zip(books.stages()) {
        stages.push(StageCount {
            name: p.name.clone(),
            stats: stats.clone(),
        });
    }
    stages
}

/// `report.html`: the books, the rules with their examples, and the facts of each split.
fn write_report(
    recipe: &Recipe,
    manifest: &Manifest,
    release: &ReleaseDir,
    task: &str,
) -> Result<(), RunError> {
    let tmp = &release.tmp_dir;
    let examples: BTreeMap<String, Vec<crate::report::RuleExample>> = release
        .examples
        .iter()
        .map(|(r, v)| (r.clone(), v.iter().map(|(_, x)| x.clone()).collect()))
        .collect();
    let split_facts = crate::split_facts::collect(tmp, task, manifest.splits[task].keys())
        .map_err(|e| RunError::Io {
            path: tmp.join(task).display().to_string(),
            source: e,
        })?;
    let report = crate::report::render(
        manifest,
        &examples,
        recipe.audit.judgements.is_some(),
        &split_facts,
    );
    write_file(&tmp.join("report.html"), &report)
}

/// Every file of the release but the manifest, with its sha256 and size. The JSONL files
/// and their streamed twins were hashed as they were written; the rest are read back, on
/// the pool.
fn hash_outputs(
    tmp: &Path,
    hashed: &BTreeMap<String, (String, u64)>,
    pool: &rayon::ThreadPool,
) -> Result<Vec<OutputFile>, RunError> {
    let files = manifest::list_release_files(tmp).map_err(|e| RunError::Io {
        path: tmp.display().to_string(),
        source: e,
    })?;
    let hashes: Vec<Result<(String, u64), RunError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| match hashed.get(f) {
                Some(h) => Ok(h.clone()),
                None => sha256_file(&tmp.join(f)).map_err(|e| RunError::Io {
                    path: f.clone(),
                    source: e,
                }),
            })
            .collect()
    });
    files
        .into_iter()
        .zip(hashes)
        .map(|(path, h)| {
            let (sha256, size) = h?;
            Ok(OutputFile { path, sha256, size })
        })
        .collect()
}
